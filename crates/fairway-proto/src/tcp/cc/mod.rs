//! Congestion control, one module per algorithm behind [`CongestionControl`]: the sender's loss
//! recovery (which packets to resend, when recovery ends, the RTO) is the sender's; how the
//! window grows on ACKs and how far it is cut on a congestion event is the algorithm's. Linux
//! cuts the same way (tcp_cong.c's `cong_avoid` and `ssthresh` hooks, with recovery in
//! tcp_input.c), which lets one sender run ns-2's AIMD family, CUBIC and others.
//!
//! A new algorithm is one file here plus one line in [`ALGORITHMS`] (docs/architecture.md,
//! "Where a new thing goes").

pub mod aimd;
pub mod bbr;
#[cfg(test)]
mod bbr_tests;
pub mod cubic;
pub mod cubic_linux;
pub mod cubic_ns3;
#[cfg(test)]
mod cubic_tests;
pub mod hystart;
pub mod tcplike;

use fairway_core::{Dur, Rate, Time};

use super::TcpConfig;

/// A congestion control algorithm as a scenario names it.
pub struct Algorithm {
    /// Its name in a scenario's `cc`.
    pub name: &'static str,
    /// Its flavours (a scenario's `flavor`), the default first; empty if it has one.
    pub flavors: &'static [&'static str],
    /// Builds it for a sender, in the flavour `TcpConfig::cc_flavor` names.
    pub build: fn(&TcpConfig) -> Box<dyn CongestionControl>,
    /// The same algorithm in Linux (its TCP_CONGESTION name), for the testbed's live runs.
    pub linux: Option<&'static str>,
}

/// Every algorithm, one line each.
pub const ALGORITHMS: &[Algorithm] = &[
    Algorithm { name: "reno", flavors: &[], build: |c| Box::new(aimd::Aimd::new(c)), linux: Some("reno") },
    Algorithm { name: "cubic", flavors: &["rfc9438", "ns3", "linux"], build: cubic_flavor, linux: Some("cubic") },
    Algorithm { name: "bbr", flavors: &[], build: |c| Box::new(bbr::Bbr::new(c)), linux: Some("bbr") },
    Algorithm { name: "tcplike", flavors: &[], build: |c| Box::new(tcplike::TcpLike::new(c)), linux: None },
];

/// The default, the first registered: ns-2's AIMD window, which ns-2's Tahoe, Reno and NewReno
/// senders run (Linux's reno is its NewReno).
pub const DEFAULT: &str = ALGORITHMS[0].name;

/// CUBIC as RFC 9438 specifies it, or as ns-3.37 or Linux run it.
fn cubic_flavor(c: &TcpConfig) -> Box<dyn CongestionControl> {
    match c.cc_flavor {
        "ns3" => Box::new(cubic_ns3::CubicNs3::new(c)),
        "linux" => Box::new(cubic_linux::CubicLinux::new(c)),
        _ => Box::new(cubic::Cubic::new(c)),
    }
}

/// The algorithm named `name`.
pub fn algorithm(name: &str) -> Option<&'static Algorithm> {
    ALGORITHMS.iter().find(|a| a.name == name)
}

/// What a new cumulative ACK told the sender.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Acked {
    /// Packets it newly acknowledged (at least 1). ns-2's AIMD family opens the window per ACK
    /// whatever this is; byte-counting algorithms (RFC 3465, RFC 9438) use it.
    pub packets: u64,
    /// The RTT sample it gave: with timestamps one per ACK (RFC 7323 §4), otherwise only if it
    /// covered the timed packet (one per round trip, ns-2's way).
    pub rtt: Option<Dur>,
    /// The smallest RTT sample so far.
    pub min_rtt: Option<Dur>,
    /// The sender's smoothed RTT (RFC 6298 §2, on its tick clock), once there is one. CUBIC's
    /// target looks one smoothed RTT ahead (RFC 9438 §4.1.2, §4.2).
    pub srtt: Option<Dur>,
    /// Packets still outstanding after it.
    pub in_flight: u64,
    /// The cumulative ACK after it (the last packet received in order) and the next new packet
    /// the sender will send (SND.NXT): a slow-start round ends when the cumulative ACK passes
    /// what was SND.NXT when the round began (RFC 9406 §4.2's windowEnd).
    pub highest_ack: i64,
    pub snd_nxt: i64,
}

/// A delivery-rate sample (draft-cheng-iccrg-delivery-rate-estimation-00 §3.1.3, the `rs` its
/// §3.3 fills in), which the sender builds on every ACK that newly delivered packets when its
/// algorithm asks for them ([`CongestionControl::wants_rate_samples`]). Packets, as everywhere
/// in this sender.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RateSample {
    /// Packets this ACK newly delivered: cumulatively acknowledged and not SACKed before, newly
    /// SACKed, or (without SACK) one per duplicate ACK, as Linux counts them
    /// (`rs->acked_sacked`).
    pub newly_delivered: u64,
    /// C.delivered after this ACK: packets delivered since the start.
    pub total_delivered: u64,
    /// rs.prior_delivered: P.delivered of the packet the sample was taken from (the most
    /// recently sent of those this ACK delivered); `None` when no packet could be told apart
    /// (a duplicate ACK without SACK).
    pub prior_delivered: Option<u64>,
    /// rs.delivered: packets delivered over the sample's interval.
    pub delivered: u64,
    /// rs.interval = max(send_elapsed, ack_elapsed); `None` when the sample is not valid (no
    /// packet, or an interval below the minimum RTT, §3.3).
    pub interval: Option<Dur>,
    /// rs.is_app_limited: the packet was sent while the application had nothing more (§3.4).
    pub is_app_limited: bool,
    /// The RTT of the most recently sent packet this ACK delivered that was never retransmitted
    /// (draft-cardwell-iccrg-bbr-congestion-control-00 §4.1.2.1: the newest, not the oldest).
    pub rtt: Option<Dur>,
    /// Packets in flight before this ACK and after it, as the sender estimates them: outstanding
    /// less those SACKed (or duplicate-acknowledged) above the cumulative ACK; in SACK recovery
    /// the sender's `pipe`.
    pub prior_in_flight: u64,
    pub in_flight: u64,
}

impl RateSample {
    /// rs.delivery_rate = rs.delivered / rs.interval, packets per second (§3.3), for a valid
    /// sample.
    pub fn delivery_rate(&self) -> Option<f64> {
        self.interval.filter(|i| !i.is_zero()).map(|i| self.delivered as f64 / i.as_secs_f64())
    }
}

/// A congestion event the sender responds to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Congestion {
    /// A loss detected by duplicate ACKs (fast retransmit): the window is cut, and recovery
    /// goes on from the cut window. (Tahoe's sender then restarts from one packet.)
    Loss,
    /// An ECN-Echo (RFC 3168 §6.1.2): the window is cut as for a loss, nothing is resent.
    Ecn,
    /// The retransmission timer expired with data outstanding: the threshold is cut; the
    /// sender then restarts from the loss window (one packet, RFC 5681 §3.1).
    Timeout,
    /// The window goes back to one packet without a new cut: a timeout with nothing
    /// outstanding (restart after idle), or a loss in a window ECN already cut.
    Restart,
}

/// The sender's window, which the algorithm changes. Packets; ssthresh is whole packets in
/// ns-2's AIMD family (its `TracedInt ssthresh_`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    pub cwnd: f64,
    pub ssthresh: f64,
}

impl Window {
    /// In slow start: below the threshold (ns-2 and RFC 5681 compare with `<`).
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
}

/// What the sender knows at a congestion event, beyond the window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AtCongestion {
    /// The window the sender was sending with: cwnd plus any fast-recovery inflation, capped
    /// by the receiver's window (ns-2's `windowd()`; RFC 5681's FlightSize in ns-2's reading).
    pub window: f64,
    /// Packets outstanding.
    pub in_flight: u64,
    /// The last event was a timeout (ns-2 `last_cwnd_action_ == CWND_ACTION_TIMEOUT`).
    pub after_timeout: bool,
    /// The next new packet the sender will send (SND.NXT, as in [`Acked`]): a slow-start
    /// heuristic that restarts its round at a timeout waits for the ACK that passes it.
    pub snd_nxt: i64,
    /// On entering RFC 6675 loss recovery: the packets in flight by the sender's scoreboard
    /// (RFC 6675's pipe: neither SACKed nor lost) plus those the ACK delivered, Linux's
    /// `tcp_packets_in_flight + acked` from which BBR conserves packets; `None` otherwise.
    pub conserve: Option<u64>,
}

/// One congestion control algorithm of one sender.
pub trait CongestionControl: std::fmt::Debug + Send + BoxClone {
    /// Its name in a scenario's `cc`.
    fn name(&self) -> &'static str;

    /// A new cumulative ACK outside recovery: grow the window.
    fn on_ack(&mut self, now: Time, acked: &Acked, w: &mut Window);

    /// A congestion event: set the threshold and, for [`Congestion::Loss`] and
    /// [`Congestion::Ecn`], the window recovery goes on from. For [`Congestion::Timeout`] and
    /// [`Congestion::Restart`] the sender sets the window to one packet after this call.
    fn on_congestion(&mut self, now: Time, event: Congestion, at: &AtCongestion, w: &mut Window);

    /// The rate to pace segments at, for algorithms that pace (`None`: send as the window
    /// allows). The sender releases a segment no earlier than the previous release plus that
    /// segment's size over this rate.
    fn pacing_rate(&self) -> Option<Rate> {
        None
    }

    /// Whether the sender should keep the per-packet state of delivery-rate estimation and call
    /// [`on_delivery`](Self::on_delivery). Asked once, when the sender is built; ns-2's AIMD
    /// family says no and pays nothing for it.
    fn wants_rate_samples(&self) -> bool {
        false
    }

    /// An ACK that newly delivered packets, in or out of recovery, after the sender's loss
    /// recovery has processed it and before it sends: the rate sample it gave. Called only when
    /// [`wants_rate_samples`](Self::wants_rate_samples) says so.
    fn on_delivery(&mut self, _now: Time, _rs: &RateSample, _w: &mut Window) {}

    /// While true, the sender counts what it sends as application-limited
    /// (draft-cheng-iccrg-delivery-rate-estimation §3.4's C.app_limited), so that the samples
    /// those packets give are marked: BBR's ProbeRTT uses it to ignore its own low rates.
    fn marks_app_limited(&self) -> bool {
        false
    }

    /// Fast recovery ended (NewReno's full ACK, Reno's first new ACK, the SACK sender's exit).
    fn on_recovery_end(&mut self, _now: Time, _w: &mut Window) {}

    /// Whether it sets the window itself on every ACK, in loss recovery too (Linux's
    /// `cong_control` hook, which BBR has): the sender then leaves out PRR's reduction and the
    /// cwnd = ssthresh that ends recovery, as Linux's tcp_cong_control and
    /// tcp_end_cwnd_reduction do for such an algorithm.
    fn sets_own_window(&self) -> bool {
        false
    }

    /// Whether it has a slow-start exit heuristic that [`TcpConfig::hystart`] turns on or off
    /// (the scenario reader refuses `hystart = true` otherwise).
    fn has_hystart(&self) -> bool {
        false
    }

    /// Its own state for `--trace agents`, beyond the window: (name, value) pairs.
    fn trace(&self) -> Vec<(&'static str, f64)> {
        vec![]
    }
}

/// Cloning behind a `Box<dyn CongestionControl>` (a sender is `Clone`); any `Clone` algorithm
/// has it.
pub trait BoxClone {
    fn box_clone(&self) -> Box<dyn CongestionControl>;
}

impl<T: CongestionControl + Clone + 'static> BoxClone for T {
    fn box_clone(&self) -> Box<dyn CongestionControl> {
        Box::new(self.clone())
    }
}

impl Clone for Box<dyn CongestionControl> {
    fn clone(&self) -> Self {
        self.box_clone()
    }
}
