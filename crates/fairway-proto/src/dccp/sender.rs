//! The client end of a DCCP connection (RFC 4340 §8.1): it opens the connection, negotiates
//! its CCID (CCID2 with the Ack Vector, or CCID3), then sends its application's packets as
//! CCID2's window or CCID3's rate allows.

use std::collections::VecDeque;

use fairway_core::{Bytes, Dur, Rng, Time};

use super::ccid2::{Ccid2, Ccid2Stats};
use super::ccid3::{Ccid3Sender, Ccid3SenderStats};
use super::packet::{feature, FeatureOp, FeatureOpt, Packet, PacketType, SEQ_MASK};
use super::{wire, Ccid, DccpConfig, Flavor, ParamError, SERVICE_CODE};
use crate::endpoint::{AgentState, Arrival, Endpoint, Malformed, Transmit};
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
    /// Ack Vectors whose ECN Nonce Echo was checked, and those that did not match (a receiver
    /// that hides losses or marks, RFC 3540 §3).
    pub nonce_checks: u64,
    pub nonce_failures: u64,
    pub ccid2: Ccid2Stats,
    pub ccid3: Ccid3SenderStats,
}

/// The nonces of the packets sent, by sequence number (the client's are consecutive from its
/// ISS, 0), the most recent [`NONCES_KEPT`], each with NonceSum (RFC 4342 §9.1): the one-bit sum
/// of the nonces sent up to it (packets without data, never ECN-capable, add nothing).
#[derive(Debug, Default)]
struct NonceHistory {
    first: u64,
    /// (nonce, sum up to and including it).
    nonces: VecDeque<(bool, bool)>,
}

const NONCES_KEPT: usize = 1 << 16;

impl NonceHistory {
    fn sent(&mut self, seq: u64, nonce: bool) {
        if self.nonces.is_empty() {
            self.first = seq;
        }
        let sum = self.nonces.back().is_some_and(|x| x.1) ^ nonce;
        self.nonces.push_back((nonce, sum));
        if self.nonces.len() > NONCES_KEPT {
            self.nonces.pop_front();
            self.first += 1;
        }
    }

    fn entry(&self, seq: u64) -> Option<(bool, bool)> {
        self.nonces.get(usize::try_from(seq.checked_sub(self.first)?).ok()?).copied()
    }

    fn get(&self, seq: u64) -> Option<bool> {
        self.entry(seq).map(|x| x.0)
    }

    /// The one-bit sum of the nonces of `from..=to`, if the history holds them all.
    fn sum(&self, from: u64, to: u64) -> Option<bool> {
        let (first, last) = (self.entry(from)?, self.entry(to)?);
        Some(last.1 ^ first.1 ^ first.0)
    }
}

/// The congestion control, and who holds the application's packets.
// One per connection, so its size costs nothing; CCID2's state, used on every packet, stays
// inline rather than behind a pointer.
#[allow(clippy::large_enum_variant)]
enum Tx {
    /// CCID2's window; the sender buffers what the application offers.
    Two { ccid: Ccid2, source: Box<dyn Source>, backlog: VecDeque<Bytes> },
    /// CCID3: TFRC's sender paces and holds the application's packets itself.
    Three(Box<Ccid3Sender>),
}

/// The client (HC-Sender) of one connection.
pub struct DccpSender {
    cfg: DccpConfig,
    tx: Tx,
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
    /// Draws each data packet's ECN nonce, ECT(0) or ECT(1) (RFC 3540 §2).
    rng: Rng,
    /// The nonce of each packet sent, for the echo check.
    nonces: NonceHistory,
    stats: DccpSenderStats,
}

impl DccpSender {
    /// A client sending what `source` offers; `rng` draws its ECN nonces.
    pub fn new(cfg: DccpConfig, source: Box<dyn Source>, rng: Rng) -> Result<DccpSender, ParamError> {
        cfg.validate()?;
        let tx = match cfg.ccid {
            Ccid::Two => Tx::Two { ccid: Ccid2::new(cfg.ccid2.clone()), source, backlog: VecDeque::new() },
            Ccid::Three => Tx::Three(Box::new(
                Ccid3Sender::new(cfg.tfrc(), source, cfg.flavor == Flavor::Ns2)
                    .map_err(|e| ParamError::of("DCCP", e.field, e.reason))?,
            )),
        };
        Ok(DccpSender {
            tx,
            request_rto: cfg.request_rto,
            cfg,
            state: State::Closed,
            next_seq: 0,
            gsr: None,
            gsr_acked: true,
            since_ack: 0,
            handshake_ack: false,
            request_at: None,
            last_request: None,
            rng,
            nonces: NonceHistory::default(),
            stats: DccpSenderStats::default(),
        })
    }

    /// CCID2's state, when the connection runs CCID2.
    pub fn ccid2(&self) -> Option<&Ccid2> {
        match &self.tx {
            Tx::Two { ccid, .. } => Some(ccid),
            Tx::Three(_) => None,
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

    fn transmit(&mut self, mut p: Packet, payload: Bytes) -> Transmit<Packet> {
        let size = self.cfg.wire_size(&p, payload);
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += size.0;
        // §12.2 and RFC 3540 §2: data is sent ECN-capable with a random one-bit nonce, ECT(0) or
        // ECT(1); packets without data are not ECN-capable.
        let capable = self.cfg.ecn && payload.0 > 0;
        p.ecn_nonce = capable && !self.rng.bernoulli(0.5);
        self.nonces.sent(p.seq, p.ecn_nonce);
        let ect = capable
            && match self.cfg.flavor {
                Flavor::Rfc4341 => true,
                // ns-2's RED marks only ECT(0): a packet with ECT(1) meets the queue as not
                // ECN-capable, and is dropped where it would be marked.
                Flavor::Ns2 => !p.ecn_nonce,
            };
        Transmit { size, payload, ect, tagged: false, msg: p }
    }

    /// §12.2: the Ack Vector's ECN Nonce Echo against the one-bit sum of the nonces this end
    /// sent on the packets it reports as received and not marked (State 0). A vector reaching
    /// packets older than the nonces kept is not checked.
    /// RFC 4342 §9.1: each loss interval's ECN Nonce Echo against the sum of the nonces sent
    /// over its lossless part, its newest Lossless Length packets; the newest interval ends
    /// Skip Length packets before the Acknowledgement Number, each older one just before the
    /// next. The synthetic first interval (no loss of its own) covers no packets sent, and
    /// intervals older than the nonces kept are not checked.
    fn check_interval_echoes(&mut self, ack: u64, li: &super::packet::LossIntervals) {
        let Some(mut end) = ack.checked_sub(u64::from(li.skip)) else { return };
        for i in &li.intervals {
            if i.loss_length == 0 {
                return;
            }
            let lossless = u64::from(i.lossless_length);
            if lossless > 0 {
                let Some(from) = (end + 1).checked_sub(lossless) else { return };
                let Some(sum) = self.nonces.sum(from, end) else { return };
                self.stats.nonce_checks += 1;
                if sum != i.nonce_echo {
                    self.stats.nonce_failures += 1;
                }
            }
            let Some(e) = end.checked_sub(lossless + u64::from(i.loss_length)) else { return };
            end = e;
        }
    }

    fn check_nonce_echo(&mut self, ack: u64, v: &super::packet::AckVector) {
        let mut sum = false;
        for (seq, state) in v.iter(ack) {
            if state == super::packet::AckState::Received {
                match self.nonces.get(seq) {
                    Some(n) => sum ^= n,
                    None => return,
                }
            }
        }
        self.stats.nonce_checks += 1;
        if sum != v.nonce_echo {
            self.stats.nonce_failures += 1;
        }
    }

    fn request(&mut self, now: Time) -> Transmit<Packet> {
        let mut p = self.packet(PacketType::Request);
        p.service = SERVICE_CODE;
        // §6: the CCID for this half-connection (RFC 4341 §4: and Ack Vectors from the server;
        // RFC 4342 §8.6 needs none: its feedback options are the CCID's own).
        p.options.features.push(FeatureOpt {
            op: FeatureOp::ChangeL,
            feature: feature::CCID,
            value: vec![self.cfg.ccid.number()],
        });
        if self.cfg.ccid == Ccid::Two {
            p.options.features.push(FeatureOpt {
                op: FeatureOp::ChangeR,
                feature: feature::SEND_ACK_VECTOR,
                value: vec![1],
            });
        }
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
                if let Tx::Three(ccid) = &mut self.tx {
                    // RFC 4342 §5: the initial rate and nofeedback timer run from here.
                    ccid.start(now);
                }
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
        match &mut self.tx {
            Tx::Two { ccid, .. } => {
                for f in &p.options.features {
                    if f.op == FeatureOp::ConfirmR && f.feature == feature::ACK_RATIO && f.value.len() == 2 {
                        ccid.ack_ratio_confirmed(u32::from(u16::from_be_bytes([f.value[0], f.value[1]])));
                    }
                }
                ccid.on_peer_packet(p.seq, arrival.ce && !p.kind.may_carry_data());
                ccid.on_ack(now, p.ack, p.options.ack_vector.as_ref());
                if let (true, Some(v)) = (self.cfg.ecn, p.options.ack_vector.as_ref()) {
                    self.check_nonce_echo(p.ack, v);
                }
            }
            Tx::Three(ccid) => {
                // RFC 4342 §6.3: CCID3's acknowledgements need no acknowledgement of their own.
                self.gsr_acked = true;
                ccid.on_ack(now, p.ack, &p.options);
                if let (true, Some(li)) = (self.cfg.ecn, p.options.loss_intervals.as_ref()) {
                    self.check_interval_echoes(p.ack, li);
                }
            }
        }
    }

    /// A packet without data (the handshake's acknowledgement).
    fn ack_packet(&mut self, now: Time) -> Transmit<Packet> {
        let p = self.packet(PacketType::Ack);
        match &mut self.tx {
            Tx::Two { ccid, .. } => ccid.on_send(now, p.seq, false),
            Tx::Three(ccid) => ccid.on_sent(now, p.seq),
        }
        self.transmit(p, Bytes(0))
    }

    /// CCID2: the next data packet when the window has room and the application has data.
    fn poll_ccid2(&mut self, now: Time) -> Option<Transmit<Packet>> {
        let Tx::Two { ccid, source, backlog } = &mut self.tx else { return None };
        // What the application has offered by now goes into the send buffer.
        if !source.is_greedy() {
            while source.next_due().is_some_and(|t| t <= now) {
                let Some(size) = source.poll(now) else { break };
                if backlog.len() as u64 >= self.cfg.send_buffer {
                    self.stats.buffer_drops += 1;
                } else {
                    backlog.push_back(size);
                }
            }
        }
        let has_data = if source.is_greedy() { source.next_due().is_some() } else { !backlog.is_empty() };
        if !ccid.can_send() || !has_data {
            return None;
        }
        let payload = if source.is_greedy() { source.poll(now) } else { backlog.pop_front() }?;
        // §8.1.5: every packet in PARTOPEN acknowledges; in OPEN, a DataAck when the server's
        // acknowledgements have not been acknowledged (RFC 4341 §6.2: at least once per window;
        // ns-2 about once per window).
        let owe = !self.gsr_acked
            && match self.cfg.flavor {
                Flavor::Rfc4341 => true,
                Flavor::Ns2 => self.since_ack >= ccid.cwnd(),
            };
        let announce = ccid.ack_ratio_to_announce();
        let kind = if self.state == State::PartOpen || owe { PacketType::DataAck } else { PacketType::Data };
        self.since_ack = self.since_ack.saturating_add(1);
        let mut p = self.packet(kind);
        if let Some(r) = announce {
            // RFC 4340 §11.3: Ack Ratio is the sender's non-negotiable feature.
            let v = (r.min(u32::from(u16::MAX)) as u16).to_be_bytes().to_vec();
            p.options.features.push(FeatureOpt { op: FeatureOp::ChangeL, feature: feature::ACK_RATIO, value: v });
        }
        if let Tx::Two { ccid, .. } = &mut self.tx {
            ccid.on_send(now, p.seq, true);
        }
        self.stats.data_sent += 1;
        Some(self.transmit(p, payload))
    }

    /// CCID3: the next data packet when TFRC's rate lets one go.
    fn poll_ccid3(&mut self, now: Time) -> Option<Transmit<Packet>> {
        let Tx::Three(ccid) = &mut self.tx else { return None };
        let payload = ccid.poll_data(now)?;
        let ccval = ccid.window_counter(now);
        // §8.1.5: every packet in PARTOPEN acknowledges.
        let kind = if self.state == State::PartOpen { PacketType::DataAck } else { PacketType::Data };
        let mut p = self.packet(kind);
        p.ccval = ccval;
        if let Tx::Three(ccid) = &mut self.tx {
            ccid.on_sent(now, p.seq);
        }
        self.stats.data_sent += 1;
        Some(self.transmit(p, payload))
    }
}

impl Endpoint for DccpSender {
    type In = Packet;
    type Out = Packet;
    type Stats = DccpSenderStats;

    fn state(&self) -> AgentState {
        match &self.tx {
            Tx::Two { ccid, .. } => ccid.state(),
            Tx::Three(c) => c.state(),
        }
    }

    fn start(&mut self, now: Time) {
        if self.state == State::Closed {
            self.state = State::Request;
            self.request_at = Some(now);
            // CCID3's TFRC starts when the connection opens (below).
            if let Tx::Two { source, .. } = &mut self.tx {
                source.start(now);
            }
        }
    }

    fn stop(&mut self, now: Time) {
        match &mut self.tx {
            Tx::Two { source, backlog, .. } => {
                source.stop(now);
                backlog.clear();
            }
            Tx::Three(ccid) => ccid.stop(now),
        }
        self.state = State::Done;
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
        match &mut self.tx {
            Tx::Two { ccid, .. } => ccid.on_timeout(now),
            Tx::Three(ccid) => ccid.on_timeout(now),
        }
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
        if self.handshake_ack {
            self.handshake_ack = false;
            return Some(self.ack_packet(now));
        }
        let data = match self.tx {
            Tx::Two { .. } => self.poll_ccid2(now),
            Tx::Three(_) => self.poll_ccid3(now),
        };
        if data.is_some() {
            return data;
        }
        if self.state == State::PartOpen && !self.gsr_acked {
            // §8.1.5: acknowledge the Response even with no data to send.
            return Some(self.ack_packet(now));
        }
        None
    }

    fn poll_timeout(&self) -> Option<Time> {
        match self.state {
            State::Closed | State::Done => None,
            State::Request => self.request_at,
            _ => match &self.tx {
                Tx::Two { ccid, source, backlog } => {
                    let mut t = ccid.timeout();
                    if ccid.can_send() && !source.is_greedy() && backlog.is_empty() {
                        // Wake for the application's next packet.
                        if let Some(due) = source.next_due() {
                            t = Some(t.map_or(due, |x| x.min(due)));
                        }
                    }
                    t
                }
                // TFRC's sender wakes for its next packet, the application's, and its timer.
                Tx::Three(ccid) => ccid.timeout(),
            },
        }
    }

    fn stats(&self) -> DccpSenderStats {
        match &self.tx {
            Tx::Two { ccid, backlog, .. } => {
                DccpSenderStats { backlog: backlog.len() as u64, ccid2: ccid.stats(), ..self.stats }
            }
            Tx::Three(ccid) => DccpSenderStats { ccid3: ccid.stats(), ..self.stats },
        }
    }

    fn wire_type(&self, msg: &Packet) -> Option<u8> {
        Some(msg.kind as u8)
    }

    fn encode(&self, t: &Transmit<Packet>, out: &mut Vec<u8>) {
        wire::encode_sized(&t.msg, t.size.0, out);
    }
}
