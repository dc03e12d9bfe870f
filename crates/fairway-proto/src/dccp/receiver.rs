//! The server end of a DCCP connection (RFC 4340 §8.1): it answers the client's Request,
//! confirms the features the client asked for, and acknowledges data: with CCID2, with Ack
//! Vectors, one acknowledgement per Ack Ratio data packets (§11.3) or after the ack delay; with
//! CCID3, with TFRC's feedback when CCID3's receiver has some (RFC 4342 §6).

use fairway_core::{Bytes, Dur, Time};

use crate::tfrc::TfrcReceiverStats;

use super::ackvec::AckRecord;
use super::ccid3::Ccid3Receiver;
use super::packet::{feature, FeatureOp, FeatureOpt, Packet, PacketType, SEQ_MASK};
use super::{wire, Ccid, DccpConfig, ParamError, SERVICE_CODE};
use crate::endpoint::{Arrival, Endpoint, Malformed, Transmit};

/// The server's states (§8.1: LISTEN, RESPOND, OPEN).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Listen,
    Respond,
    Open,
}

/// Counters of the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DccpReceiverStats {
    /// Data packets and their application bytes.
    pub data_received: u64,
    pub bytes_received: u64,
    /// Data packets that arrived ECN-marked.
    pub marked: u64,
    /// Packets that arrived after a later one, and duplicates.
    pub out_of_order: u64,
    pub duplicates: u64,
    pub acks_sent: u64,
    pub responses_sent: u64,
    /// The Ack Ratio in effect at the end.
    pub ack_ratio: u32,
}

/// The server (HC-Receiver) of one connection.
pub struct DccpReceiver {
    cfg: DccpConfig,
    state: State,
    next_seq: u64,
    record: AckRecord,
    ack_ratio: u32,
    /// A Confirm R(Ack Ratio) owed to the client.
    confirm_ack_ratio: bool,
    /// A Response owed (to a Request or its retransmission).
    respond: bool,
    /// The Request being answered, and the features it asked for.
    request_seq: u64,
    request_features: Vec<FeatureOpt>,
    /// When the last Response went (CCID3's ns2 flavour takes the handshake's RTT from it).
    response_at: Option<Time>,
    /// The greatest sequence number received (CCID3).
    gsr: Option<u64>,
    /// Data packets since the last acknowledgement, and when the first of them arrived.
    unacked: u32,
    ack_due: Option<Time>,
    /// CCID3's receiver, made for each Request answered.
    ccid3: Option<Ccid3Receiver>,
    stats: DccpReceiverStats,
}

impl DccpReceiver {
    pub fn new(cfg: DccpConfig) -> Result<DccpReceiver, ParamError> {
        cfg.validate()?;
        Ok(DccpReceiver {
            ack_ratio: cfg.ccid2.ack_ratio,
            cfg,
            state: State::Listen,
            next_seq: 0,
            record: AckRecord::default(),
            confirm_ack_ratio: false,
            respond: false,
            request_seq: 0,
            request_features: vec![],
            response_at: None,
            unacked: 0,
            ack_due: None,
            gsr: None,
            ccid3: None,
            stats: DccpReceiverStats::default(),
        })
    }

    /// CCID3's loss event rate now (0 without CCID3).
    pub fn ccid3_p(&self, now: Time) -> f64 {
        self.ccid3.as_ref().map_or(0.0, |c| c.loss_event_rate(now))
    }

    /// CCID3's RTT estimate from window counters (zero without CCID3 or before one).
    pub fn ccid3_rtt(&self) -> Dur {
        self.ccid3.as_ref().map_or(Dur::ZERO, |c| c.rtt())
    }

    /// CCID3's receiver's counters.
    pub fn ccid3_stats(&self) -> Option<TfrcReceiverStats> {
        self.ccid3.as_ref().map(|c| c.stats())
    }

    fn packet(&mut self, kind: PacketType) -> Packet {
        let p = Packet::new(kind, self.cfg.flow, self.next_seq);
        self.next_seq = (self.next_seq + 1) & SEQ_MASK;
        p
    }

    fn transmit(&self, p: Packet) -> Transmit<Packet> {
        let size = self.cfg.wire_size(&p, Bytes(0));
        Transmit { size, payload: Bytes(0), ect: false, tagged: false, msg: p }
    }

    fn on_packet(&mut self, now: Time, p: &Packet, arrival: Arrival) {
        if p.flow != self.cfg.flow {
            return;
        }
        match (self.state, p.kind) {
            (State::Listen, PacketType::Request) | (State::Respond, PacketType::Request) => {
                // §8.1.2-8.1.3: answer it (again, for a retransmitted Request).
                self.state = State::Respond;
                self.respond = true;
                self.request_seq = p.seq;
                self.request_features = p.options.features.clone();
                if self.cfg.ccid == Ccid::Three {
                    // CCID3 keeps no Ack Vector record: its history is TFRC's.
                    let mut c = Ccid3Receiver::new(self.cfg.tfrc(), self.cfg.flavor == super::Flavor::Ns2)
                        .expect("validated with the config");
                    c.on_packet(now, p.seq, 0, false, false, arrival);
                    self.ccid3 = Some(c);
                    self.gsr = Some(p.seq);
                } else {
                    self.record = AckRecord::default();
                    self.record.record(p.seq, arrival.ce, p.ecn_nonce);
                }
                return;
            }
            (State::Listen, _) => return,
            (_, PacketType::Request) => return,
            (State::Respond, _) => {
                // §8.1.4: the client's acknowledgement of the Response opens the connection.
                if !p.kind.has_ack() {
                    return;
                }
                self.state = State::Open;
                if let (Some(c), Some(t)) = (&mut self.ccid3, self.response_at) {
                    c.set_handshake_rtt(now.saturating_since(t));
                }
            }
            (State::Open, _) => {}
        }
        let data = matches!(p.kind, PacketType::Data | PacketType::DataAck);
        if let Some(c) = &mut self.ccid3 {
            let newest = self.gsr.is_none_or(|g| p.seq > g);
            if newest {
                self.gsr = Some(p.seq);
            } else {
                self.stats.out_of_order += 1;
            }
            c.on_packet(now, p.seq, p.ccval, data, p.ecn_nonce, arrival);
            if data {
                self.stats.data_received += 1;
                self.stats.bytes_received += arrival.payload.0;
                self.stats.marked += u64::from(arrival.ce);
            }
            return;
        }
        if p.kind.has_ack() {
            self.record.peer_acked(p.ack);
        }
        for f in &p.options.features {
            if f.op == FeatureOp::ChangeL && f.feature == feature::ACK_RATIO && f.value.len() == 2 {
                // RFC 4340 §11.3: the client sets it; confirm it.
                let r = u32::from(u16::from_be_bytes([f.value[0], f.value[1]]));
                if r > 0 {
                    self.ack_ratio = r;
                    self.confirm_ack_ratio = true;
                }
            }
        }
        let newest = self.record.head().is_none_or(|h| p.seq > h);
        if !self.record.record(p.seq, arrival.ce, p.ecn_nonce) {
            self.stats.duplicates += 1;
            return;
        }
        if !newest {
            self.stats.out_of_order += 1;
        }
        if !data {
            return;
        }
        self.stats.data_received += 1;
        self.stats.bytes_received += arrival.payload.0;
        if arrival.ce {
            self.stats.marked += 1;
        }
        self.unacked += 1;
        if self.ack_due.is_none() {
            self.ack_due = Some(now + self.cfg.ack_delay);
        }
    }

    fn ack_now(&self, now: Time) -> bool {
        self.unacked > 0 && (self.unacked >= self.ack_ratio || self.ack_due.is_some_and(|t| t <= now))
            || self.confirm_ack_ratio
    }
}

impl Endpoint for DccpReceiver {
    type In = Packet;
    type Out = Packet;
    type Stats = DccpReceiverStats;

    fn handle(&mut self, now: Time, msg: &Packet, arrival: Arrival) {
        self.on_packet(now, msg, arrival);
    }

    fn handle_datagram(&mut self, now: Time, bytes: &[u8], arrival: Arrival) -> Result<(), Malformed> {
        let p = wire::decode(bytes)?;
        self.on_packet(now, &p, arrival);
        Ok(())
    }

    fn handle_timeout(&mut self, now: Time) {
        if let Some(c) = &mut self.ccid3 {
            c.on_timeout(now);
        }
    }

    fn poll_transmit(&mut self, now: Time) -> Option<Transmit<Packet>> {
        if self.respond {
            self.respond = false;
            let mut p = self.packet(PacketType::Response);
            p.ack = self.request_seq;
            p.service = SERVICE_CODE;
            // §6.3.1: confirm what the client asked for (RFC 4341 §4: CCID2, Ack Vectors).
            for f in &self.request_features {
                let op = match f.op {
                    FeatureOp::ChangeL => FeatureOp::ConfirmR,
                    FeatureOp::ChangeR => FeatureOp::ConfirmL,
                    _ => continue,
                };
                let ccid = self.cfg.ccid.number();
                let known = matches!(
                    (f.feature, f.value.first()),
                    (feature::CCID, Some(&c)) if c == ccid
                ) || matches!((f.feature, f.value.first()), (feature::SEND_ACK_VECTOR, Some(1)));
                if known {
                    p.options.features.push(FeatureOpt { op, feature: f.feature, value: vec![f.value[0]] });
                }
            }
            self.record.sent_ack(p.seq, p.ack);
            self.stats.responses_sent += 1;
            self.response_at = Some(now);
            return Some(self.transmit(p));
        }
        if self.state != State::Open {
            return None;
        }
        if self.ccid3.is_some() {
            let (ack, options) = self.ccid3.as_mut().and_then(|c| c.poll_feedback(now))?;
            let mut p = self.packet(PacketType::Ack);
            p.ack = ack;
            p.options = options;
            self.stats.acks_sent += 1;
            return Some(self.transmit(p));
        }
        if !self.ack_now(now) {
            return None;
        }
        let mut p = self.packet(PacketType::Ack);
        p.ack = self.record.head().unwrap_or(0);
        p.options.ack_vector = Some(self.record.vector());
        if self.confirm_ack_ratio {
            self.confirm_ack_ratio = false;
            let v = (self.ack_ratio.min(u32::from(u16::MAX)) as u16).to_be_bytes().to_vec();
            p.options.features.push(FeatureOpt { op: FeatureOp::ConfirmR, feature: feature::ACK_RATIO, value: v });
        }
        self.record.sent_ack(p.seq, p.ack);
        self.unacked = 0;
        self.ack_due = None;
        self.stats.acks_sent += 1;
        Some(self.transmit(p))
    }

    fn poll_timeout(&self) -> Option<Time> {
        match &self.ccid3 {
            Some(c) => c.timeout(),
            None => self.ack_due,
        }
    }

    fn stats(&self) -> DccpReceiverStats {
        DccpReceiverStats { ack_ratio: self.ack_ratio, ..self.stats }
    }

    fn wire_type(&self, msg: &Packet) -> Option<u8> {
        Some(msg.kind as u8)
    }

    fn encode(&self, t: &Transmit<Packet>, out: &mut Vec<u8>) {
        wire::encode_sized(&t.msg, t.size.0, out);
    }
}
