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
//! - the minimum RTT (`m_delayMin`) is the smallest *smoothed* RTT since the last timeout: ns-3
//!   hands its congestion control `m_lastRtt`, which TcpSocketBase::EstimateRtt sets to the
//!   estimator's SRTT, not to the sample; samples in the first 10 ms of an epoch are ignored
//!   (`CubicDelta`);
//! - HyStart (`hystart`, on as in ns-3; Ha and Rhee 2008, ns-3's own reading of it), in slow
//!   start once cwnd >= 16 (`HyStartLowWindow`), on the same smoothed RTT, before the window
//!   grows on the ACK: per round (from the ACK that passes what was sent when the last round
//!   began, `HystartReset`), an ACK train when ACKs come no more than 2 ms apart
//!   (`HyStartAckDelta`) for longer than the minimum RTT (Linux: half of it); a delay increase
//!   when the smallest of the round's first 8 values (`HyStartMinSamples`) exceeds the minimum
//!   by clamp(minimum, 4 ms, 1 s) (`HystartDelayThresh`: the whole minimum, Linux an eighth).
//!   Once either fires, ssthresh = cwnd and HyStart stays off until a timeout.
//!
//! Not modelled: ns-3 also runs HyStart's test on duplicate ACKs and partial ACKs in recovery
//! (it calls `PktsAcked` there too) while cwnd <= ssthresh and HyStart has not fired. With the
//! round left from the last slow start, its ACK train is long over, so only the delay test can
//! fire, when that round's minimum was above twice the minimum RTT; it would set ssthresh to
//! the recovery's cwnd, which the exit then takes. This sender's algorithm sees new ACKs outside
//! recovery only.

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
/// ns-3's `HyStartLowWindow`, `HyStartMinSamples`, `HyStartAckDelta`, `HyStartDelayMin` and
/// `HyStartDelayMax`.
const HYSTART_LOW_WINDOW: f64 = 16.0;
const HYSTART_MIN_SAMPLES: u32 = 8;
const HYSTART_ACK_DELTA: Dur = Dur::from_millis(2);
const HYSTART_DELAY_MIN: Dur = Dur::from_millis(4);
const HYSTART_DELAY_MAX: Dur = Dur::from_millis(1000);

/// HyStart's round (`HystartReset`'s variables).
#[derive(Debug, Clone, Copy)]
struct Round {
    /// `m_roundStart` and `m_lastAck` (`None`: ns-3's `Time::Min()`, before the first round).
    start: Option<Time>,
    last_ack: Option<Time>,
    /// `m_endSeq`: the last packet sent when the round began; the ACK that passes it starts
    /// the next round.
    end: i64,
    /// `m_currRtt`: the smallest of the round's first samples, and `m_sampleCnt`.
    curr_rtt: Option<Dur>,
    samples: u32,
}

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
    /// `m_hystart`, `m_found` and the round.
    hystart: bool,
    found: bool,
    round: Round,
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
            hystart: cfg.hystart.unwrap_or(true),
            found: false,
            round: Round { start: None, last_ack: None, end: -1, curr_rtt: None, samples: 0 },
        }
    }

    /// ns-3 `HystartReset`: a new round from now, until the ACK that passes packet `end`.
    fn hystart_reset(&mut self, now: Time, end: i64) {
        self.round = Round { start: Some(now), last_ack: Some(now), end, curr_rtt: None, samples: 0 };
    }

    /// ns-3 `HystartUpdate` with the smoothed RTT `delay`, the minimum `delay_min`.
    fn hystart_update(&mut self, now: Time, delay: Dur, delay_min: Dur, w: &mut Window) {
        if self.found {
            return;
        }
        let r = &mut self.round;
        // The ACK train: only ACKs within 2 ms of the train's last extend it.
        if r.last_ack.is_some_and(|l| now - l <= HYSTART_ACK_DELTA) {
            r.last_ack = Some(now);
            if r.start.is_some_and(|s| now - s > delay_min) {
                self.found = true;
            }
        }
        // The delay test: the smallest of the round's first 8 values, then checked on each.
        if r.samples < HYSTART_MIN_SAMPLES {
            r.curr_rtt = Some(r.curr_rtt.map_or(delay, |c| c.min(delay)));
            r.samples += 1;
        } else {
            let thresh = delay_min.clamp(HYSTART_DELAY_MIN, HYSTART_DELAY_MAX);
            if r.curr_rtt.is_some_and(|c| c > delay_min + thresh) {
                self.found = true;
            }
        }
        if self.found {
            w.ssthresh = w.cwnd;
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

    fn has_hystart(&self) -> bool {
        true
    }

    fn on_ack(&mut self, now: Time, acked: &Acked, w: &mut Window) {
        // ns-3 `PktsAcked`, before the window grows: the minimum smoothed RTT and HyStart,
        // skipped right after an epoch starts.
        if let Some(srtt) = acked.srtt {
            let fresh = self.epoch_start.is_some_and(|s| now - s < CUBIC_DELTA);
            if !fresh {
                let min = self.delay_min.map_or(srtt, |m| m.min(srtt));
                self.delay_min = Some(min);
                if self.hystart && w.cwnd <= w.ssthresh && w.cwnd >= HYSTART_LOW_WINDOW {
                    self.hystart_update(now, srtt, min, w);
                }
            }
        }
        let mut segs = acked.packets.max(1) as u32;
        if w.in_slow_start() {
            // ns-3 `IncreaseWindow`: a new HyStart round once the ACK passes the last.
            if self.hystart && acked.highest_ack > self.round.end {
                self.hystart_reset(now, acked.snd_nxt - 1);
            }
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

    fn on_congestion(&mut self, now: Time, event: Congestion, at: &AtCongestion, w: &mut Window) {
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
            // ns-3 `CubicReset` and `HystartReset` on entering CA_LOSS; the sender restarts
            // from one segment.
            Congestion::Timeout => {
                self.last_max = 0;
                self.origin = 0;
                self.k = 0.0;
                self.delay_min = None;
                self.found = false;
                self.hystart_reset(now, at.snd_nxt - 1);
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
        let at = AtCongestion { window: 100.0, in_flight: 100, after_timeout: false, snd_nxt: 100, conserve: None };
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
        let at = AtCongestion { window: 40.0, in_flight: 40, after_timeout: true, snd_nxt: 40, conserve: None };
        c.on_congestion(Time::ZERO, Congestion::Timeout, &at, &mut w);
        // ssthresh = int(40 x 0.7) = 28; cwnd is the sender's to set (one segment).
        assert_eq!((w.ssthresh, c.last_max, c.delay_min), (28.0, 0, None));
        // Fast convergence on a loss below W_max: int(50 x 1.7 / 2) = 42.
        c.last_max = 60;
        let mut w = Window { cwnd: 50.0, ssthresh: 100.0 };
        c.on_congestion(Time::ZERO, Congestion::Loss, &at, &mut w);
        assert_eq!((c.last_max, w.ssthresh, w.cwnd), (42, 35.0, 35.0));
    }

    /// A new ACK in slow start with smoothed RTT `srtt_ms`, the cumulative ACK at `ack` and
    /// SND.NXT at `nxt`.
    fn ss_ack(srtt_ms: u64, ack: i64, nxt: i64) -> Acked {
        Acked { packets: 1, srtt: Some(Dur::from_millis(srtt_ms)), highest_ack: ack, snd_nxt: nxt, ..Acked::default() }
    }

    #[test]
    fn hystart_ack_train_ends_slow_start_after_the_whole_minimum_rtt() {
        let mut c = CubicNs3::new(&TcpConfig::default());
        let mut w = Window { cwnd: 32.0, ssthresh: 1e9 };
        // The first ACK starts a round (ns-3 resets in IncreaseWindow, after PktsAcked). ACKs 1
        // ms apart, smoothed RTT 20 ms: the train must last more than 20 ms (Linux: 10), so the
        // ACK 21 ms after the round began (the 22nd) ends slow start, ssthresh = cwnd then.
        let mut now = Time::from_secs_f64(1.0);
        let mut exit = None;
        for i in 0..40 {
            c.on_ack(now, &ss_ack(20, 100 + i, 140), &mut w);
            if exit.is_none() && w.ssthresh < 1e9 {
                exit = Some((i, w.ssthresh));
            }
            now += Dur::from_millis(1);
        }
        // Found at ACK 21 with cwnd 32 + 21 (each ACK before added one): ssthresh 53, and the
        // ACK's own segment goes to congestion avoidance.
        assert_eq!(exit, Some((21, 53.0)));
        assert!(c.found && !w.in_slow_start());
        // A gap of more than 2 ms breaks the train for the rest of the round.
        let mut c = CubicNs3::new(&TcpConfig::default());
        let mut w = Window { cwnd: 32.0, ssthresh: 1e9 };
        for i in 0..40 {
            let gap = if i >= 5 { 3 } else { 0 };
            c.on_ack(Time::from_secs_f64(1.0) + Dur::from_millis(i as u64 + gap), &ss_ack(20, 100 + i, 200), &mut w);
        }
        assert!(!c.found && w.in_slow_start());
    }

    #[test]
    fn hystart_delay_fires_when_the_round_minimum_doubles() {
        // ACKs 5 ms apart (no train). The minimum smoothed RTT is 20 ms; ns-3's threshold is
        // clamp(20, 4, 1000) = 20 ms more (Linux: 20 / 8 = 2.5, so 4 ms).
        let run = |srtt: u64| {
            let mut c = CubicNs3::new(&TcpConfig::default());
            let mut w = Window { cwnd: 16.0, ssthresh: 1e9 };
            let t0 = Time::from_secs_f64(1.0);
            // Round 1 sets the minimum at 20 ms and ends at the ACK passing packet 15.
            for i in 0..4 {
                c.on_ack(t0 + Dur::from_millis(5 * i), &ss_ack(20, i as i64, 16), &mut w);
            }
            // Round 2: from the ACK of packet 16 on, every value `srtt`.
            let mut found_at = None;
            for i in 0..12 {
                c.on_ack(t0 + Dur::from_millis(100 + 5 * i), &ss_ack(srtt, 16 + i as i64, 200), &mut w);
                if found_at.is_none() && c.found {
                    found_at = Some(i);
                }
            }
            found_at
        };
        // 41 ms > 20 + 20. The ACK that ends round 1 is still counted in it (HyStart's test
        // comes before the reset); the next 8 set round 2's minimum, and the 9th is checked.
        assert_eq!(run(41), Some(9));
        // 40 ms is not above 20 + 20.
        assert_eq!(run(40), None);
    }

    #[test]
    fn hystart_restarts_after_a_timeout_and_can_be_turned_off() {
        let mut c = CubicNs3::new(&TcpConfig::default());
        c.found = true;
        let mut w = Window { cwnd: 40.0, ssthresh: 20.0 };
        let at = AtCongestion { window: 40.0, in_flight: 40, after_timeout: false, snd_nxt: 500, conserve: None };
        c.on_congestion(Time::from_secs_f64(2.0), Congestion::Timeout, &at, &mut w);
        // CubicReset clears `m_found`; HystartReset begins a round at the timeout that the ACK
        // passing packet 499 (the last sent) ends.
        assert!(!c.found);
        assert_eq!((c.round.start, c.round.end, c.round.samples), (Some(Time::from_secs_f64(2.0)), 499, 0));
        // `hystart = false` (ns-3's `HyStart false`): a train never ends slow start.
        let cfg = TcpConfig { hystart: Some(false), ..TcpConfig::default() };
        let mut c = CubicNs3::new(&cfg);
        let mut w = Window { cwnd: 32.0, ssthresh: 1e9 };
        for i in 0..40 {
            c.on_ack(Time::from_secs_f64(1.0) + Dur::from_millis(i as u64), &ss_ack(20, 100 + i, 140), &mut w);
        }
        assert!(!c.found && w.in_slow_start());
    }
}
