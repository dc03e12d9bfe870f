//! CUBIC as ns-3.37's TcpCubic runs it (`flavor = "ns3"`), the referee the CUBIC flows are
//! checked against; RFC 9438's CUBIC is cubic.rs. What ns-3.37 does differently from the RFC
//! (src/internet/model/tcp-cubic.cc at the ns-3.37 tag):
//!
//! - windows in whole segments: W_max (`m_lastMaxCwnd`), the origin and the target are
//!   integers, and the cubic term C (t - K)^3 is truncated to one;
//! - no Reno-friendly region (RFC 9438 §4.3): only the cubic curve;
//! - the target is taken at t + the minimum RTT (`m_delayMin`), not the smoothed RTT;
//! - growth by Linux's counter: one segment per `cnt = cwnd / (target - cwnd)` segments acked
//!   (integer division, at least 2, so at most 1.5 cwnd per RTT; 100 cwnd when the target is
//!   not above cwnd; at most 20 before the first congestion event, `CntClamp`);
//! - the cut: ssthresh = max(int(cwnd * 0.7), 2) segments, from cwnd (not the flight size);
//!   fast convergence as RFC 9438 §4.7, truncated to whole segments;
//! - slow start adds every segment acked without stopping at ssthresh;
//! - a timeout forgets W_max, the origin and the minimum RTT (`CubicReset` on CA_LOSS);
//! - RTT samples in the first 10 ms of an epoch are ignored (`CubicDelta`).
//!
//! ns-3's HyStart (on by default there) is not modelled. validation/ns3/aqm.cc turns it off
//! (`ns3::TcpCubic::HyStart false`) for the cubic-droptail and cubic-codel comparisons;
//! validation/ns3/tcp.cc, the twin of ns-3's defaults, leaves it on, which is one of the
//! differences its README names. With `timestamps` this sender now has the per-ACK RTT samples
//! HyStart's delay test needs (eight per round), so it could be modelled.

use fairway_core::{Dur, Time};

use super::{Acked, AtCongestion, Congestion, CongestionControl, Window};
use crate::tcp::TcpConfig;

/// ns-3's `C` (0.4) and `Beta` (0.7) attributes.
const C: f64 = 0.4;
const BETA: f64 = 0.7;
/// ns-3's `CntClamp`: the counter's bound before the first congestion event.
const CNT_CLAMP: u32 = 20;
/// ns-3's `CubicDelta`: RTT samples this soon after an epoch starts are ignored.
const CUBIC_DELTA: Dur = Dur::from_millis(10);

#[derive(Debug, Clone)]
pub struct CubicNs3 {
    /// `maxcwnd_`: cap on cwnd, packets; 0 = none.
    max_cwnd: u32,
    /// `m_cWndCnt`: segments acked towards the next one-segment increase.
    cnt_acked: u32,
    /// `m_lastMaxCwnd`: W_max in segments, 0 before the first cut and after a timeout.
    last_max: u32,
    /// `m_bicOriginPoint`, segments, and `m_bicK`, seconds.
    origin: u32,
    k: f64,
    /// `m_delayMin`: the smallest RTT sample since the last timeout.
    delay_min: Option<Dur>,
    /// `m_epochStart`: `None` until the first ACK in congestion avoidance after a cut.
    epoch_start: Option<Time>,
}

impl CubicNs3 {
    pub fn new(cfg: &TcpConfig) -> CubicNs3 {
        CubicNs3 {
            max_cwnd: cfg.max_cwnd,
            cnt_acked: 0,
            last_max: 0,
            origin: 0,
            k: 0.0,
            delay_min: None,
            epoch_start: None,
        }
    }

    /// ns-3 `Update()`: the counter for cwnd `seg_cwnd` segments now.
    fn update(&mut self, now: Time, seg_cwnd: u32) -> u32 {
        let start = *self.epoch_start.get_or_insert_with(|| {
            if self.last_max <= seg_cwnd {
                self.k = 0.0;
                self.origin = seg_cwnd;
            } else {
                self.k = ((self.last_max - seg_cwnd) as f64 / C).cbrt();
                self.origin = self.last_max;
            }
            now
        });
        let t = (now + self.delay_min.unwrap_or(Dur::ZERO) - start).as_secs_f64();
        let offs = (t - self.k).abs();
        // Truncated to whole segments, as ns-3 assigns it to an integer.
        let delta = (C * offs.powi(3)) as u32;
        let target = if t < self.k { self.origin.wrapping_sub(delta) } else { self.origin.wrapping_add(delta) };
        let mut cnt = if target > seg_cwnd { seg_cwnd / (target - seg_cwnd) } else { 100 * seg_cwnd };
        if self.last_max == 0 && cnt > CNT_CLAMP {
            cnt = CNT_CLAMP;
        }
        cnt.max(2)
    }
}

impl CongestionControl for CubicNs3 {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn on_ack(&mut self, now: Time, acked: &Acked, w: &mut Window) {
        // ns-3 `PktsAcked`: the minimum RTT, skipping samples right after an epoch starts.
        if let Some(rtt) = acked.rtt {
            let fresh = self.epoch_start.is_some_and(|s| now - s < CUBIC_DELTA);
            if !fresh && self.delay_min.is_none_or(|m| rtt < m) {
                self.delay_min = Some(rtt);
            }
        }
        let mut segs = acked.packets.max(1) as u32;
        if w.in_slow_start() {
            // Every segment acked, past ssthresh if the ACK covers that many.
            w.cwnd += segs as f64;
            segs = 0;
        }
        if !w.in_slow_start() && segs > 0 {
            self.cnt_acked += segs;
            let cnt = self.update(now, w.cwnd.max(1.0) as u32);
            if self.cnt_acked >= cnt {
                w.cwnd += 1.0;
                self.cnt_acked -= cnt;
            }
        }
        if self.max_cwnd > 0 && (w.cwnd as i64) > self.max_cwnd as i64 {
            w.cwnd = self.max_cwnd as f64;
        }
    }

    fn on_congestion(&mut self, _now: Time, event: Congestion, _at: &AtCongestion, w: &mut Window) {
        if event == Congestion::Restart {
            return;
        }
        // ns-3 `GetSsThresh`: from cwnd in whole segments.
        let seg_cwnd = w.cwnd.max(0.0) as u32;
        self.last_max = if seg_cwnd < self.last_max {
            // RFC 8312 §4.6's fast convergence, truncated as ns-3 stores it.
            (seg_cwnd as f64 * (1.0 + BETA) / 2.0) as u32
        } else {
            seg_cwnd
        };
        self.epoch_start = None;
        let ssthresh = ((seg_cwnd as f64 * BETA) as u32).max(2) as f64;
        w.ssthresh = ssthresh;
        match event {
            Congestion::Loss | Congestion::Ecn => w.cwnd = ssthresh,
            // ns-3 `CubicReset` on entering CA_LOSS; the sender restarts from one segment.
            Congestion::Timeout => {
                self.last_max = 0;
                self.origin = 0;
                self.k = 0.0;
                self.delay_min = None;
            }
            Congestion::Restart => {}
        }
    }

    fn trace(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("w_max", self.last_max as f64),
            ("k_s", self.k),
            ("epoch_start_s", self.epoch_start.map_or(f64::NAN, |s| s.as_secs_f64())),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acked(rtt_ms: u64) -> Acked {
        Acked { packets: 1, rtt: Some(Dur::from_millis(rtt_ms)), ..Acked::default() }
    }

    #[test]
    fn the_counter_follows_the_integer_curve() {
        let mut c = CubicNs3::new(&TcpConfig::default());
        // A cut at 100 segments: ssthresh and cwnd int(70.0) = 70, W_max 100.
        let mut w = Window { cwnd: 100.0, ssthresh: 50.0 };
        let at = AtCongestion { window: 100.0, in_flight: 100, after_timeout: false };
        c.on_congestion(Time::ZERO, Congestion::Loss, &at, &mut w);
        assert_eq!((w.cwnd, w.ssthresh, c.last_max), (70.0, 70.0, 100));
        // The first ACK in congestion avoidance starts the epoch: K = cbrt(30 / 0.4) = 4.217 s.
        // With the minimum RTT 100 ms, t = 0.1 s: C (K - t)^3 = 0.4 x 4.117^3 = 27.9, truncated
        // to 27, so the target is 100 - 27 = 73 and cnt = 70 / (73 - 70) = 23.
        let t0 = Time::from_secs_f64(1.0);
        c.delay_min = Some(Dur::from_millis(100));
        c.on_ack(t0, &acked(100), &mut w);
        assert!((c.k - 75f64.cbrt()).abs() < 1e-12);
        assert_eq!(c.update(t0, 70), 23);
        // At t = K the target is W_max + 0 = 100: cnt = 70 / 30 = 2.
        let at_k = t0 + (Dur::from_secs_f64(c.k) - Dur::from_millis(100));
        assert_eq!(c.update(at_k, 70), 2);
        // Past W_max by 2 s: 0.4 x 8 = 3.2 -> 3, target 103 above cwnd 102: cnt = 102.
        let later = at_k + Dur::from_secs(2);
        assert_eq!(c.update(later, 102), 102);
        // A target at or below cwnd: cnt = 100 cwnd.
        assert_eq!(c.update(at_k, 100), 10_000);
    }

    #[test]
    fn before_any_cut_the_counter_is_clamped_and_slow_start_passes_ssthresh() {
        let mut c = CubicNs3::new(&TcpConfig::default());
        // Slow start: an ACK of 4 segments adds 4 even past ssthresh (ns-3's byte counting).
        let mut w = Window { cwnd: 9.0, ssthresh: 10.0 };
        c.on_ack(Time::ZERO, &Acked { packets: 4, ..acked(50) }, &mut w);
        assert_eq!(w.cwnd, 13.0);
        // No W_max yet: K = 0, origin 13, target 13 + trunc(0.4 t^3), and cnt at most 20.
        assert_eq!(c.update(Time::from_secs_f64(1.0), 13), 20);
    }

    #[test]
    fn a_timeout_forgets_w_max_and_the_minimum_rtt() {
        let mut c = CubicNs3::new(&TcpConfig::default());
        c.delay_min = Some(Dur::from_millis(40));
        let mut w = Window { cwnd: 40.0, ssthresh: 100.0 };
        let at = AtCongestion { window: 40.0, in_flight: 40, after_timeout: true };
        c.on_congestion(Time::ZERO, Congestion::Timeout, &at, &mut w);
        // ssthresh = int(40 x 0.7) = 28; cwnd is the sender's to set (one segment).
        assert_eq!((w.ssthresh, c.last_max, c.delay_min), (28.0, 0, None));
        // Fast convergence on a loss below W_max: int(50 x 1.7 / 2) = 42.
        c.last_max = 60;
        let mut w = Window { cwnd: 50.0, ssthresh: 100.0 };
        c.on_congestion(Time::ZERO, Congestion::Loss, &at, &mut w);
        assert_eq!((c.last_max, w.ssthresh, w.cwnd), (42, 35.0, 35.0));
    }
}
