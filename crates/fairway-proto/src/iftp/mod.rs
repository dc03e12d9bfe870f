//! IFTP: the Internet friendly transport protocol of elaarag2002 (ElAarag & Bassiouni 2002, §3-§5,
//! Fig. 1), a rate-based emulation of TCP for unreliable media flows, and the closed-form
//! bandwidth model of its §5 ([`model`]).
//!
//! The sender ([`IftpSender`]) keeps TCP's window bookkeeping (n packets per adjustment period,
//! slow start up to ssthresh, congestion avoidance up to W_max, halving on loss, one packet after a
//! timeout) but never holds a window of packets: it spreads the n packets of each period over one
//! smoothed RTT R by the inter-packet gap G = R/n - tau (eqs. (2), (4), (6)), and never
//! retransmits. The receiver ([`IftpReceiver`]) acknowledges every data packet with its sequence
//! number and the echoed send time (no cumulative ACK). Extended mode (§3.2) sends round(S x n)
//! packets per period with the gap G_m = [G - tau (S - 1)] / S. [`wire`] holds the byte format
//! for live use; the simulator passes [`IftpData`] and [`IftpAck`] as they are.
//!
//! Both ends are sans-IO state machines (docs/architecture.md): they never read a clock, open a socket or
//! draw randomness. A driver calls `handle_*`, then drains `poll_transmit` until it returns
//! `None`, then sleeps until `poll_timeout` and calls `handle_timeout`.
//!
//! # Where Fig. 1's pseudocode and the prose of §4 disagree (the prose is followed)
//!
//! Unless [`IftpConfig::reading`] is [`Reading::Figure1`], which runs Fig. 1 as written (the
//! `figure1_*` functions of sender.rs say, line by line, where it had to fill a gap).
//! - Window pacing: one window per adjustment period of length R, pipelined (§3.1: R "is also
//!   equal to the length of each adjustment period for IFTP", eqs. (1)-(6): n x (G_i + tau) = R;
//!   §5.1: T_1 = (lg W_s + 1) x R, one window per R). Fig. 1's `ack_count == n` starts the next
//!   window only when every ACK of the *current* one is in, about R after its last packet, so a
//!   period would last about 2R and the rate would be n/(2R), half of §3's. The prose is followed:
//!   a new window is sent "when all the ACKs of the packets transmitted in the previous RTT are
//!   received" (§4), i.e. those of the previous period, which are in by the end of the current
//!   one. The rule: window k starts at start_k, is swept over R and its period ends at B_k =
//!   start_k + R (where the sweep would place packet n + 1); at B_k window k + 1 starts, n grown
//!   by slow start or congestion avoidance and G recomputed, if window k - 1 is fully ACKed, or
//!   else at the moment its last ACK arrives (a longer RTT slows the windows down: the
//!   self-clocking is kept). The very first window (no RTT sample yet) ends when it is fully
//!   ACKed ("sends one packet and waits for its ACK").
//! - When there is no window k - 1: after a loss reaction ACKs are known to flow (three just
//!   arrived), so the missing predecessor counts as complete and the next window follows R later;
//!   after a start or a timeout nothing is known, so the next window waits until the current one
//!   is fully ACKed (otherwise a sender whose ACKs are all lost would double blindly every R,
//!   where §5.3 has it send one packet per timeout).
//! - Completion counts *distinct* ACKs of the current and the previous window's packets (two
//!   bitmaps); Fig. 1's `ack_count` also counts late and duplicate ACKs and is zeroed by any gap,
//!   so one reordered ACK would stall the window until a timeout. A window with a lost packet is
//!   never complete: the loss reaction (or the timer) moves the sender on and drops the windows
//!   it reacted to, so nothing waits on them. Loss reactions and timeouts still start their
//!   window at once.
//! - Loss test: Fig. 1's `ackIn > una`, with `una` frozen during the loss branch and advanced by
//!   the exit test, is replaced by what the prose describes: "a gap in the sequence number of the
//!   ACKs". A scoreboard holds the lowest unacknowledged packet ("the missing one") and the ACKs
//!   above it; `after_missing` is the number of distinct ACKs above it, and the sender reacts when
//!   it reaches `after_missing_thresh` (the ACK that reveals the gap counts, as TCP's third
//!   duplicate ACK means three packets after the missing one arrived). An ACK that fills the gap
//!   before the threshold cancels it: reordering is not loss.
//! - Loss episode: "The sender exits the packet loss phase when it receives an ACK with a sequence
//!   number greater than or equal to the last one it transmitted before the packet loss phase"
//!   (prose). Fig. 1 additionally requires `after_missing > after_missing_thresh`; not followed.
//!   `prev_last` is the last packet sent before the reaction (Fig. 1: `next - 1`). Until the exit,
//!   gaps among packets sent before the reaction are ignored ("reacts only once"); the scoreboard
//!   restarts at `prev_last + 1`, which is the same thing, so a loss in the new window is a new
//!   episode.
//! - Timeout: "It drops ssthresh to half the current transmission rate" (prose); the rate in
//!   packets per period is n (in extended mode too: the bookkeeping is standard), so ssthresh =
//!   n/2, with Fig. 1's floor of 2 kept (the prose is silent on it): max(n/2, 2).
//! - Slow start doubles "until it reaches a threshold" and the phase "continues until n reaches
//!   the receiver's maximum advertized window" (prose): n = min(2n, ssthresh, W_max). Fig. 1's
//!   bare `n = 2n` overshoots a ssthresh that is not a power of two (after a timeout ssthresh =
//!   n/2 can be anything); with the defaults (32, 50) both agree.
//!
//! # Where Fig. 1 and the prose are silent or loose (each repeated at its line)
//! - At W_max "n and G stay the same" (Fig. 1's comment), but the line `G = srtt/n - τ` after the
//!   branch runs in all three cases: G is recomputed with the current R (unchanged if R is).
//! - Every gap is G = R/n - tau with the new n (Fig. 1's `G = srtt/n - τ`); eq. (6)'s 2R/n_old -
//!   tau is the same for even n_old, and for odd n_old the window of floor(n_old/2) packets still
//!   spans R. Halving is integer, floored at 1 (Fig. 1's n/2 of 1 would be 0). A G below zero (R/n
//!   < tau) is clamped to 0: the access link's rate bounds the sender.
//! - Before the first RTT sample there is no R: the first window is one packet ("sends one packet
//!   and waits for its ACK to set the initial value of the RTT"), in extended mode too, and G is
//!   undefined (`gap()` is 0 and nothing is logged).
//! - Transmit_Window is a thread in Fig. 1; here a new window replaces any sweep in progress (after
//!   a loss reaction or a timeout mid-sweep the rest of the old window is not sent; `next` just
//!   goes on). Packets leave one per gap: send starts are G + tau apart. The first packet of a
//!   window leaves at once, or tau after the previous packet's start if that is later.
//! - The period's end is computed exactly, B_k = start_k + len x max(R/(S n), tau) (= start_k + R
//!   in standard mode), not as n rounded gaps, so windows start exactly R apart. Where R/n < tau
//!   the access link stretches the period to n tau; in extended mode with S n not whole it is R x
//!   round(S n)/(S n), which keeps the rate at S n/R. A boundary also waits for the sweep to end.
//! - Consequences in a closed loop (loop_tests.rs): the rate is n/R with R the smoothed RTT, so n
//!   packets are in flight as with a TCP window. A loss near the end of a window is caught by the
//!   ACKs of the next one (not by the timer): alone on a drop-tail bottleneck the sawtooth is
//!   Reno's halving (sometimes twice: the window sent at once after a reaction can meet the queue
//!   the drop left full, a new episode as it would be for TCP). R lags the queue, so the rate
//!   oscillates around the capacity somewhat.
//! - RTT (eqs. (7)-(9)): eq. (8) is garbled in the text ("1/4 × rtt − srtt"); the standard
//!   rttvar = 3/4 rttvar + 1/4 |rtt - srtt| is used, with the srtt from before eq. (7)'s update (the
//!   order of Jacobson 1988 and RFC 6298 §2.3). IFTP never retransmits, so every ACK echoes the
//!   send time of exactly one transmission and no sample is ambiguous: every accepted ACK (late
//!   ones of a superseded window included, detected duplicates not) is a sample.
//! - Karn's backoff (§4: it "doubles each time a timeout occur to a maximum of 64") ends by a
//!   rule the paper does not give ([`BackoffReset`]). The default emulates TCP: the packet sent
//!   at a timeout stands where TCP would retransmit, and TCP's backoff outlives its
//!   retransmission's ACK, so the backoff ends with the ACK of a later packet. Under heavy loss
//!   (Table II's 1.8 Mb/s of UDP on a 1.5 Mb/s link) IFTP lives on timeouts and loses hundreds of
//!   packets where TCP, backed off far longer, loses a few dozen; this rule changes that little,
//!   never ending the backoff (`Never`) cuts it by about three (tests/elaarag2002.rs).
//! - No growth during the loss phase: Fig. 1 counts no ACK of the loss phase towards growth (they
//!   take the `ackIn > una` branch) and TCP does not open cwnd in fast recovery; the prose is
//!   silent. A boundary reached while the phase lasts keeps n (and recomputes G).
//! - Timer (eq. (9)) on the millisecond grid: srtt + 4 rttvar is rounded to the nearest whole
//!   millisecond (halves up), the "+ 1" is one 1-ms tick, and the sum is multiplied by the backoff:
//!   with srtt = rttvar = 0 and backoff 64 this gives §5.3's 64 ms. An optional minimum
//!   (`min_rto`, 0 by default as in eq. (9)) applies before the backoff, as TCP's does. Before any sample the interval
//!   is backoff x `initial_rto`. The timer is armed by a send when it is not running, re-armed by
//!   every accepted ACK ("no ACKs are received for a calculated period") and by every timeout (with
//!   the doubled backoff), and disarmed when the transfer is done or the sender stopped.
//! - A timeout ends any loss episode and restarts the scoreboard at the next packet; ACKs of
//!   older packets still give RTT samples but no loss signal.
//! - Extended mode: a window is round(S x n) packets, halves rounded away from zero, at least 1;
//!   G_m is computed from the unclamped G and then clamped at 0 (G_m = R/(S n) - tau).
//! - ACKs of another flow, for a packet never sent, or echoing a time outside [first send, last
//!   send] are ignored; duplicates are counted and ignored (a duplicate arriving after its window
//!   is over cannot be told from a late ACK: it only gives an RTT sample). Time that goes
//!   backwards is no time passing.
//! - Finite transfers: "done" means every packet was sent (IFTP does not retransmit, so nothing is
//!   owed after that); the sender then stops its timers but still takes ACKs. Both completion
//!   times are kept: [`IftpSender::finished_at`] (last packet sent) and
//!   [`IftpSender::last_ack_at`] (the ACK of the last packet arrived, if it does).
//! - A restart after [`IftpSender::stop`] begins afresh (n = 1, configured ssthresh, no RTT
//!   estimate) while sequence numbers continue.

pub mod model;
mod receiver;
mod rto;
mod sender;
pub mod wire;

#[cfg(test)]
mod loop_tests;
#[cfg(test)]
mod sender_tests;

pub use receiver::{IftpReceiver, IftpReceiverStats, ACK_SIZE};
pub use rto::RttEstimator;
pub use sender::{GapSummary, IftpSender, IftpSenderStats};

/// When Karn's exponential backoff (elaarag2002 §4: "The backoff factor doubles each time a timeout
/// occur to a maximum of 64") ends. The paper names no rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BackoffReset {
    /// With the ACK of any packet sent after the one sent at the timeout. That packet stands where
    /// TCP would retransmit (IFTP "transmits new packets" instead, §4), and TCP's backoff outlives
    /// the retransmission's ACK: it ends only when new data sent after it is acknowledged (Karn's
    /// rule as ns-2 and RFC 6298 §5 apply it). The default: IFTP emulates TCP.
    #[default]
    AfterProbe,
    /// With any ACK: no IFTP packet is ever sent twice, so by Karn's rule read alone every sample
    /// is valid and ends the backoff.
    Ack,
    /// Never: §4 read literally, the backoff only doubles (to its cap) for the rest of the run.
    Never,
}

impl BackoffReset {
    /// The scenario file's names: "after_probe", "ack", "never".
    pub fn name(self) -> &'static str {
        match self {
            BackoffReset::AfterProbe => "after_probe",
            BackoffReset::Ack => "ack",
            BackoffReset::Never => "never",
        }
    }

    pub fn parse(s: &str) -> Option<BackoffReset> {
        [BackoffReset::AfterProbe, BackoffReset::Ack, BackoffReset::Never].into_iter().find(|b| b.name() == s)
    }
}

/// Which of elaarag2002's two descriptions of the sender is run: the prose of §3-§4 (the default;
/// the module docs list where it departs from Fig. 1) or Fig. 1's pseudocode line by line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Reading {
    /// §3-§4's prose: one window per adjustment period R, pipelined; loss detected on a
    /// scoreboard of distinct ACKs.
    #[default]
    Prose,
    /// Fig. 1 as written: a window is sent when `ack_count` reaches n, so the next one waits for
    /// every ACK of the current one (about n packets per two round trips); an ACK above `una`
    /// zeroes `ack_count`, so a loss with fewer than `after_missing_thresh` ACKs after it stalls
    /// the sender until the timer fires. See `IftpSender`'s Fig. 1 path for the lines.
    Figure1,
}

impl Reading {
    /// The scenario file's names: "prose", "figure1".
    pub fn name(self) -> &'static str {
        match self {
            Reading::Prose => "prose",
            Reading::Figure1 => "figure1",
        }
    }

    pub fn parse(s: &str) -> Option<Reading> {
        [Reading::Prose, Reading::Figure1].into_iter().find(|r| r.name() == s)
    }
}

pub use fairway_core::ParamError;
use fairway_core::{Bytes, Dur, Rate, Time};

/// The most packets one window may hold (round(S x W_max)); it bounds the per-window memory.
pub const MAX_WINDOW_PACKETS: u64 = 1 << 20;

/// The parameters of one IFTP sender.
#[derive(Debug, Clone, PartialEq)]
pub struct IftpConfig {
    /// The flow id carried in every packet; ACKs of other flows are ignored.
    pub flow: u32,
    /// P, the size of a data packet on the wire (elaarag2002 §6.1: 1000 bytes).
    pub packet_size: Bytes,
    /// The rate tau is a packet's time at: tau = P x 8 / `link_rate` (elaarag2002 §3.1: "the
    /// transmission time of a single packet"). The sender's access link by default; elaarag2002's
    /// own numbers point to the bottleneck's (scenarios/elaarag2002/). Packets never leave less
    /// than tau apart, so this also caps the rate.
    pub link_rate: Rate,
    /// The initial slow-start threshold in packets (elaarag2002 §6.1: 32, "common ssthresh for IFTP
    /// and TCP").
    pub ssthresh: u32,
    /// W_max, the receiver's maximum window in packets (elaarag2002 §6.1: 50).
    pub w_max: u32,
    /// ACKs after the missing one that signal a loss (elaarag2002 §6.1: aftermissing_thresh = 3).
    pub after_missing_thresh: u32,
    /// S of extended mode (elaarag2002 §3.2); 1 is standard mode.
    pub scale: f64,
    /// The timer interval before any RTT sample (RFC 6298 §2.1's 3 s; the seed is silent).
    pub initial_rto: Dur,
    /// The largest backoff factor (elaarag2002 §4: "to a maximum of 64").
    pub max_backoff: u32,
    /// When the backoff ends (the paper is silent).
    pub backoff_reset: BackoffReset,
    /// The least srtt + 4 rttvar + 1 before the backoff multiplies it. 0 (the default) is eq. (9)
    /// as written, which §5.3's 64 ms worst case needs; TCP uses 200 ms (ns-2) or 1 s (RFC 6298).
    pub min_rto: Dur,
    /// Packets to send (the file's N); `None` sends until stopped.
    pub packets: Option<u64>,
    /// The prose of §3-§4 or Fig. 1's pseudocode.
    pub reading: Reading,
}

impl Default for IftpConfig {
    /// elaarag2002 §6.1's parameters. The access rate is in the lost Fig. 4; 10 Mb/s is assumed.
    fn default() -> Self {
        IftpConfig {
            flow: 0,
            packet_size: Bytes(1000),
            link_rate: Rate(10_000_000),
            ssthresh: 32,
            w_max: 50,
            after_missing_thresh: 3,
            scale: 1.0,
            initial_rto: Dur::from_secs(3),
            max_backoff: 64,
            backoff_reset: BackoffReset::AfterProbe,
            min_rto: Dur::ZERO,
            packets: None,
            reading: Reading::Prose,
        }
    }
}

impl IftpConfig {
    /// Checks every field; the error names the first bad one.
    pub fn validate(&self) -> Result<(), ParamError> {
        if (self.packet_size.0 as usize) < wire::HEADER_LEN {
            return Err(ParamError::of(
                "IFTP",
                "packet_size",
                format!("{} cannot hold the {}-byte IFTP header", self.packet_size, wire::HEADER_LEN),
            ));
        }
        if self.link_rate.0 == 0 {
            return Err(ParamError::of("IFTP", "link_rate", "must be above zero (tau = P x 8 / link_rate)"));
        }
        if self.ssthresh == 0 {
            return Err(ParamError::of("IFTP", "ssthresh", "must be at least 1 packet"));
        }
        if self.w_max == 0 || self.w_max as u64 > MAX_WINDOW_PACKETS {
            return Err(ParamError::of("IFTP", "w_max", format!("{} is outside 1..={MAX_WINDOW_PACKETS}", self.w_max)));
        }
        if self.after_missing_thresh == 0 {
            return Err(ParamError::of("IFTP", "after_missing_thresh", "must be at least 1"));
        }
        if !(self.scale.is_finite() && self.scale > 0.0) {
            return Err(ParamError::of("IFTP", "scale", format!("{} is not a finite number above zero", self.scale)));
        }
        if (self.scale * self.w_max as f64).round() > MAX_WINDOW_PACKETS as f64 {
            return Err(ParamError::of(
                "IFTP",
                "scale",
                format!("{} x w_max {} exceeds {MAX_WINDOW_PACKETS} packets per window", self.scale, self.w_max),
            ));
        }
        if self.initial_rto.is_zero() {
            return Err(ParamError::of("IFTP", "initial_rto", "must be above zero"));
        }
        if self.max_backoff == 0 {
            return Err(ParamError::of("IFTP", "max_backoff", "must be at least 1"));
        }
        if self.packets == Some(0) {
            return Err(ParamError::of(
                "IFTP",
                "packets",
                "a finite transfer needs at least one packet (None = unlimited)",
            ));
        }
        Ok(())
    }

    /// tau, the transmission time of one packet on the access link (elaarag2002 §3.1).
    pub fn tau(&self) -> Dur {
        self.link_rate.tx_time(self.packet_size)
    }
}

/// A data packet as the simulator carries it (its size is [`IftpConfig::packet_size`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IftpData {
    pub flow: u32,
    pub seq: u64,
    /// When the sender sent it, in whole microseconds as the wire carries it; the receiver
    /// echoes it (elaarag2002 §4: "a time field in the ACK packet, which is equal to the time the
    /// packet was issued").
    pub sent_at: Time,
}

/// An acknowledgement of one data packet (not cumulative, elaarag2002 §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IftpAck {
    pub flow: u32,
    pub seq: u64,
    /// The acknowledged packet's `sent_at`.
    pub echo: Time,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_config_is_valid_and_bad_fields_are_named() {
        let c = IftpConfig::default();
        assert!(c.validate().is_ok());
        assert_eq!(c.tau(), Dur::from_micros(800), "1000 B at 10 Mb/s");
        let bad = |f: fn(&mut IftpConfig)| {
            let mut c = IftpConfig::default();
            f(&mut c);
            c.validate().unwrap_err().field
        };
        assert_eq!(bad(|c| c.packet_size = Bytes(13)), "packet_size");
        assert_eq!(bad(|c| c.link_rate = Rate(0)), "link_rate");
        assert_eq!(bad(|c| c.ssthresh = 0), "ssthresh");
        assert_eq!(bad(|c| c.w_max = 0), "w_max");
        assert_eq!(bad(|c| c.w_max = u32::MAX), "w_max");
        assert_eq!(bad(|c| c.after_missing_thresh = 0), "after_missing_thresh");
        assert_eq!(bad(|c| c.scale = 0.0), "scale");
        assert_eq!(bad(|c| c.scale = -1.5), "scale");
        assert_eq!(bad(|c| c.scale = f64::NAN), "scale");
        assert_eq!(bad(|c| c.scale = f64::INFINITY), "scale");
        assert_eq!(bad(|c| c.scale = 1e6), "scale");
        assert_eq!(bad(|c| c.initial_rto = Dur::ZERO), "initial_rto");
        assert_eq!(bad(|c| c.max_backoff = 0), "max_backoff");
        assert_eq!(bad(|c| c.packets = Some(0)), "packets");
        let msg = IftpConfig { scale: -2.0, ..Default::default() }.validate().unwrap_err().to_string();
        assert!(msg.contains("scale") && msg.contains("-2"), "{msg}");
        assert!(IftpConfig { scale: 0.5, packets: Some(1), packet_size: Bytes(18), ..Default::default() }
            .validate()
            .is_ok());
    }
}
