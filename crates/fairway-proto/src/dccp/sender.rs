//! The client end of a DCCP connection (RFC 4340 §8.1): it opens the connection, negotiates
//! CCID2 and the Ack Vector, then sends its application's packets as CCID2's window allows.

use std::collections::VecDeque;

use fairway_core::{Bytes, Dur, Time};

use super::ccid2::{Ccid2, Ccid2Stats};
use super::packet::{feature, FeatureOp, FeatureOpt, Packet, PacketType, SEQ_MASK};
use super::{wire, DccpConfig, DccpError, SERVICE_CODE};
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
    request_at: Option<Time>,
    request_rto: Dur,
    /// The application's packets waiting for the window (sizes).
    backlog: VecDeque<Bytes>,
    ccid: Ccid2,
    stats: DccpSenderStats,
}

impl DccpSender {
    pub fn new(cfg: DccpConfig, source: Box<dyn Source>) -> Result<DccpSender, DccpError> {
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
            request_at: None,
            backlog: VecDeque::new(),
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
        }
        p
    }

    fn transmit(&mut self, p: Packet, payload: Bytes) -> Transmit<Packet> {
        let size = Bytes(payload.0 + wire::dccp_header_len(&p) as u64 + self.cfg.ip_header.0);
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += size.0;
        Transmit { size, payload, ect: self.cfg.ecn && payload.0 > 0, tagged: false, msg: p }
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
                // §8.1.3-8.1.5: the server's ISS; acknowledge it from PARTOPEN.
                self.state = State::PartOpen;
                self.request_at = None;
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
                return match self.request_at {
                    Some(t) if t <= now => Some(self.request(now)),
                    _ => None,
                };
            }
            State::PartOpen | State::Open => {}
        }
        self.pull(now);
        if self.ccid.can_send() && self.has_data() {
            let payload = self.take_data(now)?;
            // §8.1.5: every packet in PARTOPEN acknowledges; in OPEN, a DataAck when the
            // server's acknowledgements have not been acknowledged (RFC 4341 §6.2).
            let kind =
                if self.state == State::PartOpen || !self.gsr_acked { PacketType::DataAck } else { PacketType::Data };
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
        let start = out.len();
        wire::encode(&t.msg, out);
        out.resize(start + (t.size.0 as usize).max(out.len() - start), 0);
    }
}
