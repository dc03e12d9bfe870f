//! TCP as a stream transport ([`StreamTransport`]): a connection is an ns-2-style sender and
//! sink (fairway-proto's `tcp`), and a TCP flow is a [`StreamFlow`] of them.
//!
//! A segment's packet carries its sequence number, flags and send time in the header, which is
//! all the sink reads of it; an ACK's carries the acknowledgement number, ECN-Echo and the echoed
//! send time, and a token for its SACK blocks, which wait in the connection until it arrives or
//! is dropped.

use std::collections::BTreeMap;

use fairway_core::{Bytes, Dur, Rng, Time};
use fairway_proto::tcp::{SackBlocks, SackRecovery, TcpAck, TcpSegment, TcpSender, TcpSenderStats, TcpSink};
use fairway_proto::AgentState;
use serde::Serialize;

use crate::driver::{Header, Io, Outgoing, Side, TransportCounters};
use crate::packet_trace::PktKind;
use crate::protocol::ProtocolReport;
use crate::scenario::TcpSpec;
use crate::stream::{StreamConn, StreamFlow, StreamTransport};

/// A TCP flow.
pub type TcpFlow = StreamFlow<TcpSpec>;

/// TCP's part of a flow's summary (`"tcp": {...}` in summary.json): how its senders were set up
/// and, when a connection is still open at the end (the flow's last), where its window stands.
/// Its counts since the warm-up (retransmits, timeouts, fast retransmits, ECN reductions) are the
/// flow's own fields, which every transport fills.
#[derive(Debug, Clone, Serialize)]
pub struct TcpReport {
    /// The congestion control (`cc`) and its flavour, if it has several.
    pub cc: &'static str,
    pub flavor: Option<&'static str>,
    /// Loss recovery: RFC 6675's (`recovery = "rfc6675"`), or ns-2's sender by its name
    /// (`tahoe`, `reno`, `newreno`, `sack`: Agent/TCP/Sack1).
    pub recovery: &'static str,
    /// Whether the sink sends SACK blocks.
    pub sack: bool,
    /// RFC 6937's reduction bound, when PRR is on.
    pub prr: Option<&'static str>,
    pub rack: bool,
    pub tlp: bool,
    pub timestamps: bool,
    pub window_init_pkts: u32,
    /// The sink's delayed-ACK timeout (none: every segment acknowledged at once).
    pub delayed_ack_s: Option<f64>,
    pub min_rto_s: f64,
    /// The open connection's window, threshold, smoothed RTT and RTO at the end (none when no
    /// connection is open).
    pub cwnd_pkts: Option<f64>,
    pub ssthresh_pkts: Option<f64>,
    pub srtt_s: Option<f64>,
    pub rto_s: Option<f64>,
    /// The congestion control's own state at the end, as `--trace agents` writes it (CUBIC's
    /// W_max and K, BBR's estimates and mode, ...).
    pub cc_state: BTreeMap<&'static str, f64>,
}

/// One connection: a sender at the flow's source, a sink at its destination.
pub struct TcpConn {
    snd: TcpSender,
    sink: TcpSink,
    /// The SACK blocks of ACKs on their way, by the token their packet carries in `seq` (0:
    /// none); a slot is reused once its ACK arrives or is dropped.
    sacks: Vec<SackBlocks>,
    free_sacks: Vec<u32>,
}

impl TcpConn {
    /// Keeps `b` for the ACK about to be sent: the token its packet carries.
    fn put_sack(&mut self, b: SackBlocks) -> u64 {
        if b.is_empty() {
            return 0;
        }
        match self.free_sacks.pop() {
            Some(i) => {
                self.sacks[i as usize] = b;
                i as u64 + 1
            }
            None => {
                self.sacks.push(b);
                self.sacks.len() as u64
            }
        }
    }

    /// The blocks of the ACK with token `t` (none for 0), freeing its slot.
    fn take_sack(&mut self, t: u64) -> SackBlocks {
        if t == 0 {
            return SackBlocks::default();
        }
        self.free_sacks.push(t as u32 - 1);
        std::mem::take(&mut self.sacks[t as usize - 1])
    }

    /// Sends what the sender allows.
    fn drain_sender(&mut self, now: Time, conn: u32, io: &mut Io) {
        let payload = self.snd.config().packet_size.0 as u32;
        while let Some(s) = self.snd.poll_transmit(now) {
            let o = Outgoing::new(PktKind::TcpData, s.size.0 as u32, if s.syn { 0 } else { payload }, s.seq, now);
            io.out.push(Outgoing { conn, ect: s.ect, ece: s.ece, cwr: s.cwr, syn: s.syn, ..o });
        }
        if io.traced {
            io.states.push((conn, self.snd.state()));
        }
    }

    /// Sends the ACKs the sink has.
    fn drain_sink(&mut self, now: Time, conn: u32, io: &mut Io) {
        while let Some(a) = self.sink.poll_transmit(now) {
            // The SACK blocks wait in the connection; the packet carries their token.
            let token = self.put_sack(a.sack);
            let o = Outgoing::new(PktKind::TcpAck, a.size.0 as u32, 0, token, a.ts_echo);
            io.out.push(Outgoing { conn, ack: a.ackno, ece: a.ece, ..o });
        }
    }
}

/// Opens connections with the flow's TCP settings.
impl StreamTransport for TcpSpec {
    type Conn = TcpConn;
    const NAME: &'static str = "tcp";

    fn open(&self, rng: &mut Rng) -> TcpConn {
        let mut cfg = self.sender.clone();
        // ns-2 starts each agent's tick clock at a random phase (boot_time_); draw it from the
        // flow's own stream so connections do not share tick boundaries.
        // Drawn whether or not the scenario pins it, so that pinning it moves no other draw.
        let drawn = Dur::from_nanos(rng.below(cfg.tick.0.max(1)));
        cfg.tick_phase = self.tick_phase.unwrap_or(drawn);
        if !cfg.overhead.is_zero() {
            // The connection's own stream for its `overhead` delays (drawn only when used, so
            // that runs without it keep their bytes).
            cfg.overhead_seed = rng.next_u64();
        }
        TcpConn { snd: TcpSender::new(cfg), sink: TcpSink::new(self.sink.clone()), sacks: vec![], free_sacks: vec![] }
    }

    fn packet_size(&self) -> Bytes {
        self.sender.packet_size
    }

    fn report(&self, open: Option<&TcpConn>) -> Option<ProtocolReport> {
        let c = &self.sender;
        let state = open.map(|o| o.snd.state());
        let secs = |d: Option<Dur>| d.map(|d| d.as_secs_f64());
        Some(ProtocolReport::new(
            "tcp",
            TcpReport {
                cc: c.cc,
                // The flavour given, or the algorithm's default (its first) when it has several.
                flavor: if c.cc_flavor.is_empty() {
                    fairway_proto::tcp::cc::algorithm(c.cc).and_then(|a| a.flavors.first().copied())
                } else {
                    Some(c.cc_flavor)
                },
                recovery: match c.sack_recovery {
                    SackRecovery::Ns2 => c.variant.name(),
                    r => r.name(),
                },
                sack: self.sink.sack,
                prr: c.prr.map(|p| p.name()),
                rack: c.rack,
                tlp: c.tlp,
                timestamps: c.timestamps,
                window_init_pkts: c.window_init,
                delayed_ack_s: secs(self.sink.delayed_ack),
                min_rto_s: c.min_rto.as_secs_f64(),
                cwnd_pkts: state.and_then(|s| s.cwnd_pkts),
                ssthresh_pkts: state.and_then(|s| s.ssthresh_pkts),
                srtt_s: secs(state.and_then(|s| s.srtt)),
                rto_s: secs(state.and_then(|s| s.rto)),
                cc_state: open.map(|o| o.snd.cc().trace().into_iter().collect()).unwrap_or_default(),
            },
        ))
    }
}

impl StreamConn for TcpConn {
    fn packet_size(&self) -> Bytes {
        self.snd.config().packet_size
    }

    fn offer(&mut self, now: Time, packets: Option<u64>, conn: u32, io: &mut Io) {
        self.snd.send(now, packets);
        self.drain_sender(now, conn, io);
    }

    fn stop(&mut self, now: Time) {
        self.snd.stop(now);
    }

    fn deliver(&mut self, now: Time, pkt: &Header, io: &mut Io) -> bool {
        if pkt.kind.is_data() {
            let seg = TcpSegment {
                seq: pkt.seq,
                size: Bytes(pkt.size as u64),
                ect: pkt.ect,
                cwr: pkt.cwr,
                ece: pkt.ece,
                syn: pkt.syn,
                retransmit: false,
                sent_at: pkt.sent_at,
            };
            let new = self.sink.on_segment(now, &seg, pkt.ce);
            self.drain_sink(now, pkt.conn, io);
            new
        } else {
            let sack = self.take_sack(pkt.seq);
            let ack = TcpAck { ackno: pkt.ack, ece: pkt.ece, ts_echo: pkt.sent_at, size: Bytes(pkt.size as u64), sack };
            self.snd.on_ack(now, &ack);
            self.drain_sender(now, pkt.conn, io);
            false
        }
    }

    fn forget(&mut self, pkt: &Header) {
        if !pkt.kind.is_data() {
            self.take_sack(pkt.seq);
        }
    }

    fn timeout(&mut self, now: Time, side: Side, conn: u32, io: &mut Io) {
        match side {
            Side::Sender => {
                if self.snd.poll_timeout().is_some_and(|d| d <= now) {
                    self.snd.on_timeout(now);
                }
                self.drain_sender(now, conn, io);
            }
            Side::Sink => {
                if self.sink.poll_timeout().is_some_and(|d| d <= now) {
                    self.sink.on_timeout(now);
                }
                self.drain_sink(now, conn, io);
            }
        }
    }

    fn poll_timeout(&self, side: Side) -> Option<Time> {
        match side {
            Side::Sender => self.snd.poll_timeout(),
            Side::Sink => self.sink.poll_timeout(),
        }
    }

    fn is_done(&self) -> bool {
        self.snd.is_done()
    }

    fn window(&self) -> f64 {
        self.snd.cwnd()
    }

    fn state(&self) -> AgentState {
        self.snd.state()
    }

    fn counters(&self) -> TransportCounters {
        counters(&self.snd.stats())
    }
}

/// The summary's counts of a sender's statistics.
fn counters(s: &TcpSenderStats) -> TransportCounters {
    TransportCounters {
        retransmits: s.retransmits,
        timeouts: s.timeouts,
        fast_retransmits: s.fast_retransmits,
        ecn_reductions: s.ecn_reductions,
        rtt_samples: s.rtt_samples,
        rtt_sum_ns: s.rtt_sum_ns,
        ..TransportCounters::default()
    }
}
