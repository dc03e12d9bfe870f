//! CUBIC as RFC 9438 specifies it (the IETF text of draft-ietf-tcpm-rfc8312bis): the window
//! function W_cubic(t) = C (t - K)^3 + W_max (§4.2) aimed at one RTT ahead, the Reno-friendly
//! estimate W_est (§4.3), the concave and convex regions (§4.4, §4.5), the decrease by
//! beta_cubic = 0.7 (§4.6), fast convergence (§4.7), the timeout (§4.8) and Reno's slow start
//! (§4.10). Windows are in packets, the RFC's segments.
//!
//! Where the RFC leaves a choice:
//! - RTT in the target W_cubic(t + RTT): the sender's smoothed RTT ([`Acked::srtt`], RFC 6298
//!   on ns-2's tick clock), which is what §4.1.2 defines RTT as; before the first estimate the
//!   smallest sample, then the last one, then none (t alone).
//! - The congestion event's cwnd and flight_size (§4.6, §4.7): the window the sender was
//!   sending with, [`AtCongestion::window`] = min(cwnd + inflation, receiver window), the
//!   quantity ns-2's AIMD halves. It is cwnd itself unless the receiver window binds, and
//!   capping it there is the "other measure" §4.6 asks of implementations that cut from cwnd
//!   (this sender, like ns-2's, lets cwnd grow past the receiver window). So ssthresh =
//!   cwnd_prior * beta_cubic, unrounded.
//! - The concave and convex increase (target - cwnd) / cwnd (§4.4, §4.5) is "for each received
//!   new ACK" of one segment: an ACK of n segments (delayed or cumulative ACKs) adds n times
//!   that, never past the target, as Linux counts acked segments; with one ACK per segment
//!   (ns-2's TCPSink) the two readings agree.
//! - In the Reno-friendly region (W_cubic(t) < W_est) cwnd becomes W_est (§4.3) but an ACK
//!   never lowers it: §4.2's "chooses the larger of the two values".
//! - The epoch starts at the first ACK in congestion avoidance after a cut or restart, so
//!   cwnd_epoch is the window congestion avoidance starts from (after fast recovery, or after
//!   slow start back to ssthresh). With no W_max (no congestion yet, or after a timeout) or
//!   W_max <= cwnd_epoch, K = 0 and W_max = cwnd_epoch (§4.8, §4.10; Linux does the same).
//! - Slow start (cwnd < ssthresh, RFC 5681 §3.1) adds the segments acked, as Linux's
//!   tcp_slow_start (RFC 3465 byte counting without its limit L), up to ssthresh; the rest of
//!   the ACK counts in congestion avoidance.
//!
//! HyStart++ (RFC 9406, which §4.10 recommends) runs in the first slow start with `hystart =
//! true` (hystart.rs; it needs the per-ACK RTT samples of `timestamps`); otherwise Reno's slow
//! start (§4.10 allows it). Not done: §4.2's exclusion of application-limited periods from t (the sender, as
//! ns-2's, grows cwnd while the receiver window limits it; an idle period ends in a restart,
//! which starts a new epoch), and §4.9's undo of spurious cuts (a MAY).
//!
//! Flavours: this file is RFC 9438's; Linux's is cubic_linux.rs (its differences listed there),
//! ns-3.37's cubic_ns3.rs. What they change, as read in the sources:
//! - Linux's net/ipv4/tcp_cubic.c: beta 717/1024 and C = 410/1024 (`bic_scale` 41 x 10); cwnd
//!   and W_max (`last_max_cwnd`) in whole packets, ssthresh = max(cwnd * 717 / 1024, 2) from cwnd;
//!   the target at t + the minimum RTT (`delay_min`); growth by a counter, one packet per
//!   `cnt = cwnd / (target - cwnd)` acked (at least 2, so at most 1.5 cwnd per RTT; 100 cwnd
//!   when target <= cwnd; at most 20 before the first loss); Reno-friendliness
//!   (`tcp_friendliness`) as one packet per 15/8 cwnd acked (alpha = 8/15, never switched to 1)
//!   that speeds the counter up instead of setting cwnd = W_est; the 2008 HyStart (ACK train and
//!   delay, from cwnd 16, delay threshold min_rtt/8 clamped to 4..16 ms) on by default; a
//!   timeout forgets W_max (so K = 0 next, as §4.8); an idle period shifts the epoch instead of
//!   restarting it, and cwnd does not grow unless cwnd-limited.
//! - ns-3's TcpCubic (src/internet/model/tcp-cubic.cc, two ns-3-dev versions around ns-3.37,
//!   before and after its reformatting, alike in this): no Reno-friendly region at all; beta 0.7
//!   and C 0.4 but whole segments and Linux's counter (at least 2, 100 cwnd when target <= cwnd,
//!   `CntClamp` 20 before the first loss); target at t + the minimum RTT;
//!   ssthresh = max(int(cwnd * 0.7), 2) segments from cwnd; its own HyStart on by default
//!   (`HyStartLowWindow` 16, `HyStartAckDelta` 2 ms, ACK train past the whole minimum RTT, delay
//!   threshold the minimum RTT clamped to 4..1000 ms); slow start adds the segments acked
//!   without stopping at ssthresh; a timeout forgets W_max.

use fairway_core::{Dur, Time};

use super::hystart::HyStartPlusPlus;
use super::{Acked, AtCongestion, Congestion, CongestionControl, Window};
use crate::tcp::TcpConfig;

/// RFC 9438 §4.1.1, §5.1: C = 0.4 segments per second cubed.
pub const C: f64 = 0.4;
/// RFC 9438 §4.6: beta_cubic SHOULD be 0.7.
pub const BETA_CUBIC: f64 = 0.7;
/// RFC 9438 §4.3: alpha_cubic = 3 (1 - beta_cubic) / (1 + beta_cubic), about 0.5294.
pub const ALPHA_CUBIC: f64 = 3.0 * (1.0 - BETA_CUBIC) / (1.0 + BETA_CUBIC);

/// Whose CUBIC: the scenario's `flavor`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Flavor {
    /// RFC 9438 as written (this module's notes say where it leaves a choice).
    #[default]
    Rfc9438,
}

/// One congestion avoidance stage (RFC 9438 §4.1.2's t_epoch, cwnd_epoch, K, W_est).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Epoch {
    /// t_epoch.
    start: Time,
    /// cwnd_epoch.
    cwnd: f64,
    /// K, seconds (never negative: see the module notes).
    k: f64,
    /// W_est.
    w_est: f64,
}

#[derive(Debug, Clone)]
pub struct Cubic {
    flavor: Flavor,
    /// RFC 9438 §4.7: fast convergence (SHOULD be on; SHOULD be off for a lone flow).
    fast_convergence: bool,
    /// `maxcwnd_`: cap on cwnd, packets; 0 = none.
    max_cwnd: u32,
    /// W_max: `None` before the first congestion event and after a timeout (§4.8) until the
    /// next epoch sets it.
    w_max: Option<f64>,
    /// cwnd_prior (§4.1.2): cwnd when ssthresh was last set.
    cwnd_prior: Option<f64>,
    /// The current stage; `None` from a cut or restart until the next ACK in congestion
    /// avoidance.
    epoch: Option<Epoch>,
    /// HyStart++ (RFC 9406, hystart.rs) in the first slow start, when the scenario asks.
    hystart: Option<HyStartPlusPlus>,
}

impl Cubic {
    /// RFC 9438 CUBIC with fast convergence, capped at `cfg.max_cwnd` as ns-2's `maxcwnd_`.
    pub fn new(cfg: &TcpConfig) -> Cubic {
        Cubic::with_flavor(cfg, Flavor::Rfc9438)
    }

    pub fn with_flavor(cfg: &TcpConfig, flavor: Flavor) -> Cubic {
        Cubic {
            flavor,
            fast_convergence: true,
            max_cwnd: cfg.max_cwnd,
            w_max: None,
            cwnd_prior: None,
            epoch: None,
            hystart: (cfg.hystart == Some(true)).then(HyStartPlusPlus::new),
        }
    }

    /// With fast convergence (§4.7) on or off.
    pub fn with_fast_convergence(mut self, on: bool) -> Cubic {
        self.fast_convergence = on;
        self
    }

    pub fn flavor(&self) -> Flavor {
        self.flavor
    }

    /// W_max, packets.
    pub fn w_max(&self) -> Option<f64> {
        self.w_max
    }

    /// cwnd_prior, packets.
    pub fn cwnd_prior(&self) -> Option<f64> {
        self.cwnd_prior
    }

    /// K of the current epoch.
    pub fn k(&self) -> Option<Dur> {
        self.epoch.map(|e| Dur::from_secs_f64(e.k))
    }

    /// t_epoch, the start of the current epoch.
    pub fn epoch_start(&self) -> Option<Time> {
        self.epoch.map(|e| e.start)
    }

    /// cwnd_epoch, packets.
    pub fn cwnd_epoch(&self) -> Option<f64> {
        self.epoch.map(|e| e.cwnd)
    }

    /// W_est, packets.
    pub fn w_est(&self) -> Option<f64> {
        self.epoch.map(|e| e.w_est)
    }

    /// W_cubic(t), packets, `t` after the start of the current epoch.
    pub fn w_cubic(&self, t: Dur) -> Option<f64> {
        let w_max = self.w_max?;
        self.epoch.map(|e| w_cubic(t.as_secs_f64(), e.k, w_max))
    }

    /// The epoch starting now at cwnd `cwnd`.
    fn start_epoch(&mut self, now: Time, cwnd: f64) -> Epoch {
        // RFC 9438 §4.8, §4.10: with no W_max to return to, K = 0 and W_max = cwnd_epoch.
        // (Also when W_max <= cwnd_epoch, where eq. (2) has no positive root; Linux likewise.)
        let w_max = match self.w_max {
            Some(m) if m > cwnd => m,
            _ => cwnd,
        };
        self.w_max = Some(w_max);
        // RFC 9438 §4.10: leaving the first slow start without a loss sets cwnd_prior = cwnd.
        self.cwnd_prior.get_or_insert(cwnd);
        // RFC 9438 §4.2 eq. (2): K = cbrt((W_max - cwnd_epoch) / C).
        let k = ((w_max - cwnd) / C).cbrt();
        // RFC 9438 §4.3: W_est = cwnd_epoch at the start of the stage.
        let e = Epoch { start: now, cwnd, k, w_est: cwnd };
        self.epoch = Some(e);
        e
    }

    /// Congestion avoidance for an ACK of `segs` segments (RFC 9438 §4.2-§4.5).
    fn avoid(&mut self, now: Time, acked: &Acked, segs: f64, w: &mut Window) {
        // At least one packet (RFC 9438 §4.6's floor), which the divisions below need; only a
        // configuration with a zero initial window and threshold gets here below it.
        let cwnd = w.cwnd.max(1.0);
        let mut e = match self.epoch {
            Some(e) => e,
            None => self.start_epoch(now, cwnd),
        };
        let w_max = self.w_max.unwrap_or(cwnd);
        // RFC 9438 §4.2: t = t_current - t_epoch.
        let t = (now - e.start).as_secs_f64();
        // RFC 9438 §4.1.2: RTT is the smoothed RTT (module notes for the fallbacks).
        let rtt = acked.srtt.or(acked.min_rtt).or(acked.rtt).map_or(0.0, Dur::as_secs_f64);
        // RFC 9438 §4.2: target = W_cubic(t + RTT), bounded to [cwnd, 1.5 cwnd].
        let ahead = w_cubic(t + rtt, e.k, w_max);
        let target = if ahead < cwnd {
            cwnd
        } else if ahead > 1.5 * cwnd {
            1.5 * cwnd
        } else {
            ahead
        };
        // RFC 9438 §4.3: alpha_cubic becomes 1 once W_est >= cwnd_prior.
        let alpha = if e.w_est >= self.cwnd_prior.unwrap_or(0.0) { 1.0 } else { ALPHA_CUBIC };
        // RFC 9438 §4.3 eq. (4): W_est += alpha_cubic * segments_acked / cwnd.
        e.w_est += alpha * segs / cwnd;
        self.epoch = Some(e);
        w.cwnd = if w_cubic(t, e.k, w_max) < e.w_est {
            // RFC 9438 §4.3: the Reno-friendly region, cwnd = W_est (never lowered by an ACK).
            cwnd.max(e.w_est)
        } else {
            // RFC 9438 §4.4, §4.5: cwnd += (target - cwnd) / cwnd per segment acked.
            cwnd + (segs * (target - cwnd) / cwnd).min(target - cwnd)
        };
    }
}

/// RFC 9438 §4.2 eq. (1): W_cubic(t) = C (t - K)^3 + W_max, t and K in seconds.
fn w_cubic(t: f64, k: f64, w_max: f64) -> f64 {
    C * (t - k).powi(3) + w_max
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn on_ack(&mut self, now: Time, acked: &Acked, w: &mut Window) {
        let mut segs = acked.packets.max(1) as f64;
        if let Some(h) = self.hystart.as_mut().filter(|h| h.active() && w.in_slow_start()) {
            // RFC 9438 §4.10: HyStart++ (RFC 9406 §4.2) decides slow start's growth, up to
            // ssthresh; the rest of the ACK is not carried into congestion avoidance.
            let grow = h.on_ack(acked, w);
            w.cwnd += grow.min((w.ssthresh - w.cwnd).max(0.0));
            segs = 0.0;
        } else if w.in_slow_start() {
            // RFC 9438 §4.10, RFC 5681 §3.1: slow start, +1 per segment acked, up to ssthresh.
            let used = segs.min(w.ssthresh - w.cwnd);
            w.cwnd += used;
            segs -= used;
        }
        if segs > 0.0 {
            self.avoid(now, acked, segs, w);
        }
        if self.max_cwnd > 0 && (w.cwnd as i64) > self.max_cwnd as i64 {
            w.cwnd = self.max_cwnd as f64;
        }
    }

    fn on_congestion(&mut self, _now: Time, event: Congestion, at: &AtCongestion, w: &mut Window) {
        // The next ACK in congestion avoidance starts a new epoch (K, cwnd_epoch, W_est).
        self.epoch = None;
        if let Some(h) = self.hystart.as_mut() {
            // RFC 9406 §4.2: a loss or ECN-Echo ends HyStart++ (so does a timeout here).
            h.on_congestion();
        }
        if event == Congestion::Restart {
            // No cut: the sender restarts from one packet and slow start runs to ssthresh.
            return;
        }
        // The window the sender was sending with, as cwnd and flight_size (module notes).
        let cwnd = at.window;
        // RFC 9438 §4.6: cwnd_prior = cwnd, ssthresh = flight_size * beta_cubic, at least 2.
        self.cwnd_prior = Some(cwnd);
        let ssthresh = cwnd * BETA_CUBIC;
        w.ssthresh = ssthresh.max(2.0);
        self.w_max = match event {
            // RFC 9438 §4.8: after a timeout the first congestion avoidance has K = 0 and
            // W_max = cwnd_epoch (the sender sets cwnd to one packet, as Reno's).
            Congestion::Timeout => None,
            // RFC 9438 §4.7: fast convergence lowers W_max when cwnd fell short of it.
            _ => Some(match self.w_max {
                Some(m) if self.fast_convergence && cwnd < m => cwnd * (1.0 + BETA_CUBIC) / 2.0,
                _ => cwnd,
            }),
        };
        match event {
            // RFC 9438 §4.6: cwnd = max(ssthresh, 2) on a loss.
            Congestion::Loss => w.cwnd = ssthresh.max(2.0),
            // RFC 9438 §4.6: cwnd = max(ssthresh, 1) on an ECN-Echo.
            Congestion::Ecn => w.cwnd = ssthresh.max(1.0),
            Congestion::Timeout | Congestion::Restart => {}
        }
    }

    fn has_hystart(&self) -> bool {
        true
    }

    fn trace(&self) -> Vec<(&'static str, f64)> {
        let e = self.epoch;
        vec![
            ("w_max", self.w_max.unwrap_or(f64::NAN)),
            ("k_s", e.map_or(f64::NAN, |e| e.k)),
            ("w_est", e.map_or(f64::NAN, |e| e.w_est)),
            ("epoch_start_s", e.map_or(f64::NAN, |e| e.start.as_secs_f64())),
        ]
    }
}
