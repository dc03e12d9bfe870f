//! One-way TCP, as in ns-2 2.35: the Tahoe, Reno and NewReno senders (`Agent/TCP`,
//! `Agent/TCP/Reno`, `Agent/TCP/Newreno`) and the sink (`Agent/TCPSink`,
//! `Agent/TCPSink/DelAck`), written as sans-IO state machines the simulator drives.
//!
//! Sequence numbers count packets, as in ns-2's one-way agents; an ACK carries the highest
//! in-order sequence number received (`-1` before any). The sender follows ns-2 where ns-2
//! and the RFCs differ, because the point of these agents is to agree with ns-2 results:
//!
//! - the usable window is an integer, `min(int(cwnd) + dupwnd, int(window_))` (RFC 5681 counts
//!   bytes);
//! - on loss, ssthresh is `int(min(cwnd + dupwnd, window_) / 2)` (RFC 5681 eq. (4) uses
//!   FlightSize), and cwnd becomes that half without the `+ 3` of RFC 5681 §3.2 step 2;
//!   the window is then inflated by a separate dupack count instead;
//! - cwnd grows even when the receiver window caps sending (no "cwnd validation");
//! - the RTO is computed on a 10 ms tick clock, in ns-2's fixed point (RFC 6298 §2 with
//!   granularity G = tick), and the timer is re-armed on every new ACK, even with nothing
//!   outstanding; an idle timeout then resets cwnd to 1 (slow-start restart);
//! - with `syn` (ns-2 `syn_`, on by default) packet 0 is a 40-byte SYN and cwnd starts at 1,
//!   becoming `window_init` when the SYN is acknowledged (`delay_growth_`);
//! - ECN: ECT is set on retransmissions too, an ECN-Echo ACK never opens cwnd once the peer
//!   has echoed ECN, and the reduction may take cwnd below one packet (ns-2 `ecn()`; RFC 3168
//!   §6.1.2 keeps at least 1).
//!
//! The sink should be fed [`TcpSink::on_segment`] with the segment as the sender emitted it (it
//! carries ECT and CWR), so ECN-Echo persists from a CE mark until CWR as in ns-2;
//! [`TcpSink::on_data`] is the flag-less form.
//!
//! The engine calls `poll_transmit` until `None` after every input, then schedules a wake-up at
//! `poll_timeout()`. A stale wake-up (the timer moved) is ignored by `on_timeout`.
//!
//! Beyond ns-2, each off unless a scenario asks (docs/semantics.md, "TCP's modern options"):
//! RFC 7323 timestamps (an RTT sample per ACK), Linux's RTO, RFC 6675 recovery with RFC 6937
//! PRR (rfc6675.rs), RFC 8985 RACK-TLP (rack.rs), and option sets gathering one stack's defaults
//! (options.rs).
//!
//! Checked against ns-2 2.35 (`/usr/bin/ns`): replaying the ACK arrival times of ns-2 runs
//! (Reno and NewReno, TCPSink and DelAck, DropTail and RED/ECN, finite and unlimited, link
//! outages up to the 60 s RTO cap) into [`TcpSender`] reproduces every packet ns-2's agent sent,
//! at the same time, and replaying data arrivals into [`TcpSink`] reproduces every ACK.

pub mod cc;
#[cfg(test)]
mod modern_tests;
#[cfg(test)]
mod net_tests;
pub mod options;
mod quickack;
mod rack;
#[cfg(test)]
mod rack_tests;
mod rate;
mod recovery;
mod rfc6675;
mod rtt;
mod sack;
mod scoreboard;
mod sender;
mod sink;
#[cfg(test)]
mod sink_tests;
#[cfg(test)]
mod tests;

use fairway_core::{Bytes, Dur, Time};

pub use sender::{TcpSender, TcpSenderStats};
pub use sink::{TcpSink, TcpSinkStats};

/// Which loss recovery the sender runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TcpVariant {
    /// ns-2 `Agent/TCP`: fast retransmit without fast recovery (Jacobson 1988, RFC 5681 §3.2
    /// steps 1-2 only): on the third duplicate ACK ssthresh halves, cwnd returns to one packet
    /// and the sender goes back to the first unacknowledged packet, as after a timeout.
    Tahoe,
    /// ns-2 `Agent/TCP/Reno`: fast retransmit and fast recovery (RFC 5681 §3.2); any new ACK
    /// ends recovery.
    Reno,
    /// ns-2 `Agent/TCP/Newreno`: recovery lasts until everything sent before the loss is
    /// acknowledged; partial ACKs retransmit the next hole (RFC 6582 §3.2).
    #[default]
    NewReno,
    /// ns-2 `Agent/TCP/Sack1`: loss recovery driven by the receiver's SACK blocks (RFC 2018):
    /// a scoreboard of what they report, holes retransmitted below the highest SACKed packet,
    /// and a `pipe` estimate of packets in flight that may not exceed cwnd during recovery (the
    /// conservative scheme RFC 6675 later wrote down; ns-2's details in sack.rs). It needs a
    /// sink that sends SACK blocks ([`SinkConfig::sack`]).
    Sack,
}

impl TcpVariant {
    /// The name scenario files use: "tahoe", "reno" or "newreno".
    pub fn name(&self) -> &'static str {
        match self {
            TcpVariant::Tahoe => "tahoe",
            TcpVariant::Reno => "reno",
            TcpVariant::NewReno => "newreno",
            TcpVariant::Sack => "sack",
        }
    }

    /// Every variant, as scenario files name them in this order.
    pub const ALL: [TcpVariant; 4] = [TcpVariant::NewReno, TcpVariant::Reno, TcpVariant::Tahoe, TcpVariant::Sack];

    /// The variant a scenario's `transport` names.
    pub fn parse(name: &str) -> Option<TcpVariant> {
        TcpVariant::ALL.into_iter().find(|v| v.name() == name)
    }
}

/// Sender parameters. `Default` gives ns-2 2.35's `Agent/TCP` defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct TcpConfig {
    pub variant: TcpVariant,
    /// `packetSize_`: payload bytes per data packet (default 1000).
    pub packet_size: Bytes,
    /// `tcpip_base_hdr_size_`: a data packet on the wire is `packet_size + header_size` (40).
    pub header_size: Bytes,
    /// `window_`: the receiver's advertised window, in packets (20).
    pub window: u32,
    /// `windowInit_`: the initial window, in packets (2).
    pub window_init: u32,
    /// `maxcwnd_`: cap on cwnd in packets, 0 = none.
    pub max_cwnd: u32,
    /// `maxburst_`: most packets sent back to back per ACK, 0 = no limit.
    pub max_burst: u32,
    /// `numdupacks_`: duplicate ACKs that trigger fast retransmit (3).
    pub dupack_thresh: u32,
    /// `ecn_`: send ECT, react to ECN-Echo once per window without retransmitting (off).
    pub ecn: bool,
    /// `tcpTick_`: granularity of the RTT clock (10 ms).
    pub tick: Dur,
    /// `minrto_` (200 ms).
    pub min_rto: Dur,
    /// `maxrto_` (60 s).
    pub max_rto: Dur,
    /// `rtxcur_init_`: RTO before the first RTT sample (3 s).
    pub initial_rto: Dur,
    /// `syn_`: packet 0 models a SYN (header only), and cwnd is 1 until it is ACKed (true).
    pub syn: bool,
    /// `delay_growth_`: when the ACK for packet 0 arrives, cwnd is set to the initial window
    /// (true).
    pub delay_growth: bool,
    /// Initial `ssthresh_`. `None` = `window_`, which is what ns-2's `reset()` does at start
    /// (the Tcl default `ssthresh_ 0` is overwritten). So slow start ends at the receiver
    /// window or at the first loss.
    pub initial_ssthresh: Option<u32>,
    /// `increase_num_`: congestion avoidance adds `increase_num / cwnd` per new ACK (1.0).
    pub increase_num: f64,
    /// `decrease_num_`: multiplicative decrease after the first one (0.5).
    pub decrease_num: f64,
    /// `singledup_`: send one new packet on each of the first `dupack_thresh - 1` duplicate
    /// ACKs (RFC 3042 limited transmit) (true).
    pub limited_transmit: bool,
    /// ns-2 `boot_time_`: the phase of the sender's tick clock within a tick. ns-2 draws it
    /// uniformly in `[0, tcpTick_)` from the global RNG; the engine may do the same from the
    /// flow's rng stream. Default 0.
    pub tick_phase: Dur,
    /// ns-2 `overhead_`: when the window opens, new data waits a uniform random time in
    /// `[0, overhead)` before it is sent (everything the window allows by then goes together),
    /// which breaks the phase effects of deterministic drop-tail runs (Floyd & Jacobson 1992,
    /// "On traffic phase effects in packet-switched gateways"). Retransmissions on duplicate
    /// and partial ACKs are not delayed. 0 = off (ns-2's default).
    pub overhead: Dur,
    /// The seed of the sender's stream for the `overhead` draws (the engine derives it from the
    /// flow's stream, as it does `tick_phase`).
    pub overhead_seed: u64,
    /// NewReno `newreno_changes1_`: re-arm the retransmit timer only on the first partial ACK
    /// (RFC 6582 §4.1 "Impatient"); false re-arms it on every partial ACK (true).
    pub newreno_impatient: bool,
    /// NewReno `partial_window_deflation_`: on a partial ACK deflate the window by the amount
    /// acknowledged and add back one packet (RFC 6582 §3.2 step 5) (true).
    pub partial_window_deflation: bool,
    /// The congestion control, by its name in [`cc::ALGORITHMS`] ("reno": ns-2's AIMD window,
    /// the default).
    pub cc: &'static str,
    /// Its flavour, one of the algorithm's `flavors` ("": its default).
    pub cc_flavor: &'static str,
    /// RFC 7323 timestamps: every ACK that acknowledges new data gives an RTT sample, now less
    /// the TSval it echoes (the segment's `sent_at`, which the sink echoes by RFC 7323 §4.3's
    /// rules), instead of ns-2's one timed segment per round trip (false). Karn's rule is not
    /// needed then (RFC 7323 §4): a retransmission carries its own TSval.
    pub timestamps: bool,
    /// How the retransmission timeout is computed from the estimator (ns-2's by default).
    pub rto_style: RtoStyle,
    /// The loss recovery of the SACK sender ([`TcpVariant::Sack`]): ns-2's Sack1 (default) or
    /// RFC 6675's.
    pub sack_recovery: SackRecovery,
    /// RFC 6937 Proportional Rate Reduction in RFC 6675 recovery, with its reduction bound;
    /// `None` sends as RFC 6675 §5 (C) alone allows (cwnd = ssthresh from the start).
    pub prr: Option<PrrBound>,
    /// A slow-start exit heuristic, for an algorithm that has one: HyStart++ (RFC 9406) in
    /// RFC 9438's CUBIC (off by default), Linux's HyStart in Linux's (on by default). `None`:
    /// the algorithm's default.
    pub hystart: Option<bool>,
    /// RFC 8985 RACK loss detection in RFC 6675 recovery (rack.rs): per-packet transmit
    /// times, time-based loss marks (lost retransmissions included) and the reordering timer
    /// in place of IsLost's DupThresh count (false).
    pub rack: bool,
    /// RFC 8985 §7 Tail Loss Probe, with `rack` (false).
    pub tlp: bool,
}

/// How the retransmission timeout follows from the smoothed RTT and its variation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RtoStyle {
    /// RFC 6298 §2.3-2.4 as ns-2 computes it: `max(SRTT + 4 RTTVAR, min_rto)`.
    #[default]
    Rfc6298,
    /// Linux: the minimum RTO bounds the variation term instead of the whole,
    /// `SRTT + max(4 RTTVAR, min_rto)` (tcp_input.c's `tcp_rtt_estimator` keeps its `rttvar` at
    /// least `tcp_rto_min`, 200 ms), so the RTO is never below one smoothed RTT plus 200 ms.
    Linux,
}

/// The SACK sender's loss recovery.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SackRecovery {
    /// ns-2's `Agent/TCP/Sack1` (sack.rs).
    #[default]
    Ns2,
    /// RFC 6675's conservative SACK-based recovery (rfc6675.rs): IsLost with DupThresh,
    /// NextSeg's rules 1-4, SetPipe, RecoveryPoint, and after a timeout the scoreboard kept.
    Rfc6675,
}

impl SackRecovery {
    /// Its name in a scenario's `recovery`.
    pub fn name(&self) -> &'static str {
        match self {
            SackRecovery::Ns2 => "ns2",
            SackRecovery::Rfc6675 => "rfc6675",
        }
    }
}

/// RFC 6937 §3's reduction bound: how far PRR may send beyond the proportional share once
/// `pipe` has fallen to ssthresh.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrrBound {
    /// PRR-SSRB, slow-start reduction bound: `max(prr_delivered - prr_out, DeliveredData) + 1`
    /// (RFC 6937's recommendation; ns-3.37's `TcpPrrRecovery` default).
    Ssrb,
    /// PRR-CRB, conservative reduction bound: `prr_delivered - prr_out` (strict packet
    /// conservation).
    Crb,
    /// As Linux (since 4.2, `tcp_cwnd_reduction`) and RFC 9937, RFC 6937's successor, bound it:
    /// `max(prr_delivered - prr_out, DeliveredData)`, plus one on a "safe" ACK (one that
    /// advances the cumulative point and reveals no new loss); and at least the one
    /// retransmission while nothing has been sent in recovery.
    Linux,
}

impl PrrBound {
    /// Its name in a scenario's `prr`.
    pub fn name(&self) -> &'static str {
        match self {
            PrrBound::Ssrb => "ssrb",
            PrrBound::Crb => "crb",
            PrrBound::Linux => "linux",
        }
    }

    pub const ALL: [PrrBound; 3] = [PrrBound::Ssrb, PrrBound::Crb, PrrBound::Linux];
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            variant: TcpVariant::NewReno,
            packet_size: Bytes(1000),
            header_size: Bytes(40),
            window: 20,
            window_init: 2,
            max_cwnd: 0,
            max_burst: 0,
            dupack_thresh: 3,
            ecn: false,
            tick: Dur::from_millis(10),
            min_rto: Dur::from_millis(200),
            max_rto: Dur::from_secs(60),
            initial_rto: Dur::from_secs(3),
            syn: true,
            delay_growth: true,
            initial_ssthresh: None,
            increase_num: 1.0,
            decrease_num: 0.5,
            limited_transmit: true,
            tick_phase: Dur::ZERO,
            overhead: Dur::ZERO,
            overhead_seed: 0,
            newreno_impatient: true,
            partial_window_deflation: true,
            cc: cc::DEFAULT,
            cc_flavor: "",
            timestamps: false,
            rto_style: RtoStyle::Rfc6298,
            sack_recovery: SackRecovery::Ns2,
            prr: None,
            hystart: None,
            rack: false,
            tlp: false,
        }
    }
}

impl TcpConfig {
    /// The sender's name in a summary: ns-2's sender by its own (`newreno`, `sack`, ...) with
    /// ns-2's AIMD window, another congestion control by its name (`cubic`).
    pub fn name(&self) -> &'static str {
        if self.cc == cc::DEFAULT {
            self.variant.name()
        } else {
            self.cc
        }
    }

    /// ns-2 defaults with the given variant.
    pub fn new(variant: TcpVariant) -> TcpConfig {
        TcpConfig { variant, ..TcpConfig::default() }
    }
}

/// A packet the sender hands to the network.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TcpSegment {
    /// Sequence number, in packets.
    pub seq: u64,
    /// Size on the wire: payload + header, or the header alone for a SYN.
    pub size: Bytes,
    /// ECN-capable transport: a queue may mark it CE instead of dropping it.
    pub ect: bool,
    /// Congestion Window Reduced: the sender has reacted to congestion (ns-2 `cong_action`).
    /// The sink stops echoing ECN when it sees this.
    pub cwr: bool,
    /// ECN-Echo on an ECN-setup SYN (ns-2 sets it on packet 0 when `ecn_` is on).
    pub ece: bool,
    /// Packet 0 sent as a SYN (header only, no payload).
    pub syn: bool,
    /// A sequence number sent before.
    pub retransmit: bool,
    /// When the sender sent it (ns-2 `ts_`).
    pub sent_at: Time,
}

/// The SACK blocks of an ACK (RFC 2018 §3): ranges `[left, right)` of packets received above
/// the cumulative ACK, the one holding the packet that triggered the ACK first. At most three,
/// as ns-2's `maxSackBlocks_` and as fit beside timestamps in 40 bytes of options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SackBlocks {
    blocks: [(i64, i64); SackBlocks::MAX],
    len: u8,
}

impl SackBlocks {
    pub const MAX: usize = 3;

    /// Adds a block; one beyond [`MAX`](Self::MAX) is ignored.
    pub fn push(&mut self, left: i64, right: i64) {
        if (self.len as usize) < Self::MAX {
            self.blocks[self.len as usize] = (left, right);
            self.len += 1;
        }
    }

    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn iter(&self) -> impl Iterator<Item = (i64, i64)> + '_ {
        self.blocks[..self.len as usize].iter().copied()
    }
}

/// A cumulative ACK from the sink.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TcpAck {
    /// Highest in-order sequence number received, ns-2 style; -1 before any.
    pub ackno: i64,
    /// ECN-Echo.
    pub ece: bool,
    /// The `sent_at` echoed back (ns-2 `ts_echo_`, with `ts_echo_bugfix_`).
    pub ts_echo: Time,
    /// Size on the wire (`Agent/TCPSink packetSize_`, 40, and 8 bytes per SACK block).
    pub size: Bytes,
    /// SACK blocks, from a sink with [`SinkConfig::sack`].
    pub sack: SackBlocks,
}

/// Sink parameters. `Default` is ns-2's `Agent/TCPSink` (an ACK per packet).
#[derive(Debug, Clone, PartialEq)]
pub struct SinkConfig {
    /// Size of an ACK on the wire (40).
    pub ack_size: Bytes,
    /// `Some(interval_)` makes it `Agent/TCPSink/DelAck` (ns-2 default interval 100 ms).
    pub delayed_ack: Option<Dur>,
    /// DelAck `RFC2581_immediate_ack_`: ACK at once a packet that fills part of a gap (true).
    pub immediate_ack_on_gap_fill: bool,
    /// DelAck `SYN_immediate_ack_`: ACK packet 0 at once (true).
    pub immediate_ack_on_syn: bool,
    /// ns-2 `Agent/TCPSink/Sack1`: ACKs carry up to three SACK blocks (RFC 2018), 8 bytes each
    /// on the wire (false).
    pub sack: bool,
    /// With delayed ACKs, ACK at once as Linux's receiver does in quick-ACK mode and while
    /// its receive window opens (tcp/quickack.rs; false).
    pub quick_ack: bool,
}

impl Default for SinkConfig {
    fn default() -> Self {
        SinkConfig {
            ack_size: Bytes(40),
            delayed_ack: None,
            immediate_ack_on_gap_fill: true,
            immediate_ack_on_syn: true,
            sack: false,
            quick_ack: false,
        }
    }
}

impl SinkConfig {
    /// ns-2 `Agent/TCPSink/DelAck` with its default `interval_` of 100 ms.
    pub fn delayed() -> SinkConfig {
        SinkConfig { delayed_ack: Some(Dur::from_millis(100)), ..SinkConfig::default() }
    }
}
