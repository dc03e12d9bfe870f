//! The client end of a DCCP connection (RFC 4340 §8.1): it opens the connection, negotiates
//! CCID2 and the Ack Vector, then sends its application's packets as CCID2's window allows.

use std::collections::VecDeque;

use fairway_core::{Bytes, Dur, Rng, Time};

use super::ccid2::{Ccid2, Ccid2Stats};
use super::packet::{feature, FeatureOp, FeatureOpt, Packet, PacketType, SEQ_MASK};
use super::{wire, DccpConfig, DccpError, Flavor, SERVICE_CODE};
use crate::endpoint::{Arrival, Endpoint, Malformed, Transmit};
use crate::source::Source;

/// The client's states (§8.1; CLOSED until the application starts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Closed,
    Request,
    PartOpen,
    Open,
    /// Reset by the server, or stopped.
    Done,
}

/// Counters of the client.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DccpSenderStats {
    pub packets_sent: u64,
    pub data_sent: u64,
    pub bytes_sent: u64,
    pub requests_sent: u64,
    pub acks_received: u64,
    /// Packets from the server refused: an acknowledgement of nothing sent (§7.5).
    pub invalid: u64,
    /// Application packets dropped because the send buffer was full.
    pub buffer_drops: u64,
    /// Application packets waiting in the send buffer.
    pub backlog: u64,
    pub reset: bool,
    pub ccid2: Ccid2Stats,
}

/// The client (HC-Sender) of one connection.
pub struct DccpSender {
    cfg: DccpConfig,
    source: Box<dyn Source>,
    state: State,
    /// GSS, the greatest sequence number sent; the next is GSS + 1 (§7.1). The ISS is 0.
    next_seq: u64,
    /// GSR, the server's greatest sequence number received, and whether a packet since has told
    /// the server so (the acknowledgement of acknowledgements, RFC 4341 §6.2).
    gsr: Option<u64>,
    gsr_acked: bool,
    /// Data packets sent since the last that acknowledged (ns-2 acknowledges once per window).
    since_ack: u32,
    /// The handshake's Ack is owed (ns-2 sends it on its own before any data).
    handshake_ack: bool,
    request_at: Option<Time>,
    last_request: Option<Time>,
    request_rto: Dur,
    /// The application's packets waiting for the window (sizes).
    backlog: VecDeque<Bytes>,
    ccid: Ccid2,
    /// Draws each data packet's ECN nonce (ns-2's ECT(0) or ECT(1)).
    rng: Rng,
    stats: DccpSenderStats,
}

impl DccpSender {
    /// A client sending what `source` offers; `rng` draws its ECN nonces.
    pub fn new(cfg: DccpConfig, source: Box<dyn Source>, rng: Rng) -> Result<DccpSender, DccpError> {
        cfg.validate()?;
        Ok(DccpSender {
            ccid: Ccid2::new(cfg.ccid2.clone()),
            request_rto: cfg.request_rto,
            cfg,
            source,
            state: State::Closed,
            next_seq: 0,
            gsr: None,
            gsr_acked: true,
            since_ack: 0,
            handshake_ack: false,
            request_at: None,
            last_request: None,
            backlog: VecDeque::new(),
            rng,
            stats: DccpSenderStats::default(),
        })
    }

    pub fn ccid2(&self) -> &Ccid2 {
        &self.ccid
    }

    /// Moves what the application has offered by now into the send buffer.
    fn pull(&mut self, now: Time) {
        if self.source.is_greedy() {
            return;
        }
        while self.source.next_due().is_some_and(|t| t <= now) {
            let Some(size) = self.source.poll(now) else { break };
            if self.backlog.len() as u64 >= self.cfg.send_buffer {
                self.stats.buffer_drops += 1;
            } else {
                self.backlog.push_back(size);
            }
        }
    }

    /// The next application packet, if there is one to send.
    fn take_data(&mut self, now: Time) -> Option<Bytes> {
        if self.source.is_greedy() {
            self.source.poll(now)
        } else {
            self.backlog.pop_front()
        }
    }

    fn has_data(&self) -> bool {
        if self.source.is_greedy() {
            self.source.next_due().is_some()
        } else {
            !self.backlog.is_empty()
        }
    }

    fn packet(&mut self, kind: PacketType) -> Packet {
        let mut p = Packet::new(kind, self.cfg.flow, self.next_seq);
        self.next_seq = (self.next_seq + 1) & SEQ_MASK;
        if kind.has_ack() {
            p.ack = self.gsr.unwrap_or(0);
            self.gsr_acked = true;
            self.since_ack = 0;
        }
        p
    }

    fn transmit(&mut self, p: Packet, payload: Bytes) -> Transmit<Packet> {
        let size = self.cfg.wire_size(&p, payload);
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += size.0;
        let ect = self.cfg.ecn
            && payload.0 > 0
            && match self.cfg.flavor {
                Flavor::Rfc4341 => true,
                // ns-2 sends ECT(0) or ECT(1) by a fair coin (the ECN nonce, RFC 3540), and its
                // RED marks only ECT(0): a packet with ECT(1) meets the queue as not
                // ECN-capable, and is dropped where it would be marked.
                Flavor::Ns2 => self.rng.bernoulli(0.5),
            };
        Transmit { size, payload, ect, tagged: false, msg: p }
    }

    fn request(&mut self, now: Time) -> Transmit<Packet> {
        let mut p = self.packet(PacketType::Request);
        p.service = SERVICE_CODE;
        // §6 and RFC 4341 §4: CCID2 for this half-connection, and Ack Vectors from the server.
        p.options.features.push(FeatureOpt { op: FeatureOp::ChangeL, feature: feature::CCID, value: vec![2] });
        p.options.features.push(FeatureOpt {
            op: FeatureOp::ChangeR,
            feature: feature::SEND_ACK_VECTOR,
            value: vec![1],
        });
        self.stats.requests_sent += 1;
        self.request_at = Some(now + self.request_rto);
        // §8.1.1: back off, to no less than one Request per 64 s.
        self.request_rto = Dur(self.request_rto.0.saturating_mul(2)).min(Dur::from_secs(64));
        self.transmit(p, Bytes(0))
    }

    fn on_packet(&mut self, now: Time, p: &Packet, arrival: Arrival) {
        if p.flow != self.cfg.flow || self.state == State::Closed || self.state == State::Done {
            return;
        }
        // §7.5: an acknowledgement must be of something sent.
        if p.kind.has_ack() && (self.next_seq == 0 || p.ack >= self.next_seq) {
            self.stats.invalid += 1;
            return;
        }
        match (self.state, p.kind) {
            (_, PacketType::Reset) => {
                self.state = State::Done;
                self.stats.reset = true;
                return;
            }
            (State::Request, PacketType::Response) => {
                // §8.1.3-8.1.5: the server's ISS; acknowledge it from PARTOPEN (ns-2: from OPEN,
                // with an Ack of its own).
                self.request_at = None;
                match self.cfg.flavor {
                    Flavor::Rfc4341 => self.state = State::PartOpen,
                    Flavor::Ns2 => {
                        self.state = State::Open;
                        self.handshake_ack = true;
                    }
                }
            }
            (State::Request, _) => return,
            (State::PartOpen, PacketType::Response) => {}
            (State::PartOpen, _) => self.state = State::Open,
            (State::Open, _) => {}
            (State::Closed | State::Done, _) => return,
        }
        if self.gsr.is_none_or(|g| p.seq > g) {
            self.gsr = Some(p.seq);
            self.gsr_acked = false;
        }
        if p.kind == PacketType::Response {
            self.gsr_acked = false;
            return;
        }
        self.stats.acks_received += 1;
        for f in &p.options.features {
            if f.op == FeatureOp::ConfirmR && f.feature == feature::ACK_RATIO && f.value.len() == 2 {
                self.ccid.ack_ratio_confirmed(u32::from(u16::from_be_bytes([f.value[0], f.value[1]])));
            }
        }
        self.ccid.on_peer_packet(p.seq, arrival.ce && !p.kind.may_carry_data());
        self.ccid.on_ack(now, p.ack, p.options.ack_vector.as_ref());
    }
}

impl Endpoint for DccpSender {
    type In = Packet;
    type Out = Packet;
    type Stats = DccpSenderStats;

    fn start(&mut self, now: Time) {
        if self.state == State::Closed {
            self.state = State::Request;
            self.request_at = Some(now);
            self.source.start(now);
        }
    }

    fn stop(&mut self, now: Time) {
        self.source.stop(now);
        self.state = State::Done;
        self.backlog.clear();
    }

    fn handle(&mut self, now: Time, msg: &Packet, arrival: Arrival) {
        self.on_packet(now, msg, arrival);
    }

    fn handle_datagram(&mut self, now: Time, bytes: &[u8], arrival: Arrival) -> Result<(), Malformed> {
        let p = wire::decode(bytes)?;
        self.on_packet(now, &p, arrival);
        Ok(())
    }

    fn handle_timeout(&mut self, now: Time) {
        self.ccid.on_timeout(now);
    }

    fn poll_transmit(&mut self, now: Time) -> Option<Transmit<Packet>> {
        match self.state {
            State::Closed | State::Done => return None,
            State::Request => {
                // One Request per instant: at the clock's end the next one's time saturates to now.
                return match self.request_at {
                    Some(t) if t <= now && self.last_request != Some(now) => {
                        self.last_request = Some(now);
                        Some(self.request(now))
                    }
                    _ => None,
                };
            }
            State::PartOpen | State::Open => {}
        }
        self.pull(now);
        if self.handshake_ack {
            self.handshake_ack = false;
            let p = self.packet(PacketType::Ack);
            self.ccid.on_send(now, p.seq, false);
            return Some(self.transmit(p, Bytes(0)));
        }
        if self.ccid.can_send() && self.has_data() {
            let payload = self.take_data(now)?;
            // §8.1.5: every packet in PARTOPEN acknowledges; in OPEN, a DataAck when the
            // server's acknowledgements have not been acknowledged (RFC 4341 §6.2: at least
            // once per window; ns-2 about once per window).
            let owe = !self.gsr_acked
                && match self.cfg.flavor {
                    Flavor::Rfc4341 => true,
                    Flavor::Ns2 => self.since_ack >= self.ccid.cwnd(),
                };
            let kind = if self.state == State::PartOpen || owe { PacketType::DataAck } else { PacketType::Data };
            self.since_ack = self.since_ack.saturating_add(1);
            let mut p = self.packet(kind);
            if let Some(r) = self.ccid.ack_ratio_to_announce() {
                // RFC 4340 §11.3: Ack Ratio is the sender's non-negotiable feature.
                let v = (r.min(u32::from(u16::MAX)) as u16).to_be_bytes().to_vec();
                p.options.features.push(FeatureOpt { op: FeatureOp::ChangeL, feature: feature::ACK_RATIO, value: v });
            }
            self.ccid.on_send(now, p.seq, true);
            self.stats.data_sent += 1;
            return Some(self.transmit(p, payload));
        }
        if self.state == State::PartOpen && !self.gsr_acked {
            // §8.1.5: acknowledge the Response even with no data to send.
            let p = self.packet(PacketType::Ack);
            self.ccid.on_send(now, p.seq, false);
            return Some(self.transmit(p, Bytes(0)));
        }
        None
    }

    fn poll_timeout(&self) -> Option<Time> {
        let mut t = match self.state {
            State::Closed | State::Done => return None,
            State::Request => return self.request_at,
            _ => self.ccid.timeout(),
        };
        if self.ccid.can_send() && !self.source.is_greedy() && self.backlog.is_empty() {
            // Wake for the application's next packet.
            if let Some(due) = self.source.next_due() {
                t = Some(t.map_or(due, |x| x.min(due)));
            }
        }
        t
    }

    fn stats(&self) -> DccpSenderStats {
        DccpSenderStats { backlog: self.backlog.len() as u64, ccid2: self.ccid.stats(), ..self.stats }
    }

    fn encode(&self, t: &Transmit<Packet>, out: &mut Vec<u8>) {
        wire::encode_sized(&t.msg, t.size.0, out);
    }
}
