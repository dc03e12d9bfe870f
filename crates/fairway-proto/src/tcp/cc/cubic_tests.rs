//! Tests of CUBIC (cubic.rs): each checks a formula of RFC 9438 against numbers worked out by
//! hand in its comments; the last ones drive the real sender.

use std::collections::BTreeSet;

use fairway_core::{Dur, Time};

use super::cubic::{Cubic, ALPHA_CUBIC, BETA_CUBIC, C};
use super::{algorithm, Acked, AtCongestion, Congestion, CongestionControl, Window};
use crate::tcp::tests::{drain, next_round, t};
use crate::tcp::{SinkConfig, TcpConfig, TcpSegment, TcpSender, TcpSink};

fn secs(s: f64) -> Time {
    Time::from_secs_f64(s)
}

/// An ACK of `packets` segments on a path whose smoothed (and smallest) RTT is `rtt_ms`.
fn acked(packets: u64, rtt_ms: u64) -> Acked {
    let r = Some(Dur::from_millis(rtt_ms));
    Acked { packets, rtt: None, min_rtt: r, srtt: r, ..Acked::default() }
}

/// A congestion event while sending with `window` packets.
fn at(window: f64) -> AtCongestion {
    AtCongestion { window, in_flight: window as u64, after_timeout: false, snd_nxt: 0, conserve: None }
}

fn assert_near(got: f64, want: f64, tol: f64, what: &str) {
    assert!((got - want).abs() <= tol, "{what}: got {got}, want {want} +- {tol}");
}

/// A loss while sending with 100 packets at 1 s, then the first ACK in congestion avoidance
/// at 2 s (one segment, RTT 100 ms), which starts the epoch: W_max = 100, cwnd_epoch = 70.
fn after_loss_at_100() -> (Cubic, Window) {
    let mut c = Cubic::new(&TcpConfig::default());
    let mut w = Window { cwnd: 100.0, ssthresh: 1000.0 };
    c.on_congestion(secs(1.0), Congestion::Loss, &at(100.0), &mut w);
    c.on_ack(secs(2.0), &acked(1, 100), &mut w);
    (c, w)
}

#[test]
fn constants_are_the_rfcs() {
    // RFC 9438 §4.3: alpha_cubic = 3 (1 - 0.7) / (1 + 0.7) = 0.9 / 1.7 = 0.52941.
    assert_near(ALPHA_CUBIC, 0.52941, 1e-5, "alpha_cubic");
    assert_eq!((C, BETA_CUBIC), (0.4, 0.7));
    let cubic = algorithm("cubic").expect("registered");
    assert_eq!((cubic.build)(&TcpConfig::default()).name(), "cubic");
}

#[test]
fn k_is_the_time_to_climb_back_to_w_max() {
    let (c, _) = after_loss_at_100();
    assert_eq!(c.w_max(), Some(100.0));
    assert_near(c.cwnd_epoch().unwrap(), 70.0, 1e-9, "cwnd_epoch");
    assert_eq!(c.epoch_start(), Some(secs(2.0)));
    // RFC 9438 §4.2 eq. (2): K = cbrt((100 - 70) / 0.4) = cbrt(75) = 4.2172 s
    // (4.2172^2 = 17.7848, x 4.2172 = 75.002).
    assert_near(c.k().unwrap().as_secs_f64(), 4.2172, 1e-3, "K");
}

#[test]
fn w_cubic_starts_at_cwnd_epoch_reaches_w_max_at_k_concave_then_convex() {
    let (c, _) = after_loss_at_100();
    let k = c.k().unwrap();
    let w = |d: Dur| c.w_cubic(d).unwrap();
    let one = Dur::from_secs(1);
    let two = Dur::from_secs(2);
    // RFC 9438 §4.2 eq. (1): W(0) = 0.4 (-K)^3 + 100 = 100 - 0.4 x 75 = 70 = cwnd_epoch.
    assert_near(w(Dur::ZERO), 70.0, 1e-6, "W(0)");
    // W(K) = W_max.
    assert_near(w(k), 100.0, 1e-6, "W(K)");
    // W(K -+ 1) = 100 -+ 0.4, W(K -+ 2) = 100 -+ 0.4 x 8 = 100 -+ 3.2.
    assert_near(w(k - one), 99.6, 1e-6, "W(K-1)");
    assert_near(w(k + one), 100.4, 1e-6, "W(K+1)");
    assert_near(w(k - two), 96.8, 1e-6, "W(K-2)");
    assert_near(w(k + two), 103.2, 1e-6, "W(K+2)");
    // Concave below K: W(K-1) = 99.6 above the chord (96.8 + 100) / 2 = 98.4; convex above:
    // W(K+1) = 100.4 below the chord (100 + 103.2) / 2 = 101.6.
    assert!(w(k - one) > (w(k - two) + w(k)) / 2.0);
    assert!(w(k + one) < (w(k) + w(k + two)) / 2.0);
}

#[test]
fn the_increase_aims_at_w_cubic_one_rtt_ahead_within_cwnd_and_one_and_a_half_cwnd() {
    let (mut c, mut w) = after_loss_at_100();
    // The epoch's first ACK (t = 0): W_est = 70 + 0.52941 / 70 = 70.00756 is above
    // W_cubic(0) = 70, so it is Reno-friendly (§4.3): cwnd = W_est.
    assert_near(w.cwnd, 70.00756, 1e-5, "cwnd after the first ACK");
    // Concave region (§4.4), 1 s later with RTT 100 ms: target = W_cubic(1.1)
    // = 100 - 0.4 x (4.2172 - 1.1)^3 = 100 - 0.4 x 30.290 = 87.884 (W_cubic(1) = 86.680 is
    // above W_est = 70.015); cwnd += (87.884 - 70.008) / 70.008 = 0.2553.
    c.on_ack(secs(3.0), &acked(1, 100), &mut w);
    assert_near(w.cwnd, 70.00756 + 0.2553, 1e-3, "concave");
    // Convex region (§4.5): cwnd 101 above W_max at t = 6 s; target = W_cubic(6.1)
    // = 100 + 0.4 x (6.1 - 4.2172)^3 = 100 + 0.4 x 6.6744 = 102.670; cwnd += 1.670 / 101 = 0.01653.
    w.cwnd = 101.0;
    c.on_ack(secs(8.0), &acked(1, 100), &mut w);
    assert_near(w.cwnd, 101.01653, 1e-4, "convex");
    // §4.2's upper bound: from cwnd 10 (ssthresh 10, so not slow start), W_cubic(6.1) = 102.67
    // > 1.5 x 10, so target = 15 and cwnd += (15 - 10) / 10 = 0.5.
    w = Window { cwnd: 10.0, ssthresh: 10.0 };
    c.on_ack(secs(8.0), &acked(1, 100), &mut w);
    assert_near(w.cwnd, 10.5, 1e-9, "at most 1.5 cwnd");
    // §4.2's lower bound: from cwnd 120 above W_cubic(6.1) = 102.67, target = cwnd: no change.
    w.cwnd = 120.0;
    c.on_ack(secs(8.0), &acked(1, 100), &mut w);
    assert_eq!(w.cwnd, 120.0);
}

#[test]
fn w_est_grows_by_alpha_cubic_per_rtt_of_acks() {
    // RFC 9438 §4.3 eq. (4): one ACK of a whole window (70 segments) at the epoch's start:
    // W_est = 70 + 0.52941 x 70 / 70 = 70.52941; above W_cubic(0) = 70, so cwnd = W_est.
    let mut c = Cubic::new(&TcpConfig::default());
    let mut w = Window { cwnd: 100.0, ssthresh: 1000.0 };
    c.on_congestion(secs(1.0), Congestion::Loss, &at(100.0), &mut w);
    c.on_ack(secs(2.0), &acked(70, 100), &mut w);
    assert_near(c.w_est().unwrap(), 70.52941, 1e-5, "W_est");
    assert_eq!(w.cwnd, c.w_est().unwrap());
    // The same window as 70 ACKs of one segment at one instant: each adds 0.52941 / cwnd with
    // cwnd = W_est between 70 and 70.53, so W_est grows by between 0.52941 x 70 / 70.53 = 0.5254
    // and 0.52941.
    let mut c = Cubic::new(&TcpConfig::default());
    let mut w = Window { cwnd: 100.0, ssthresh: 1000.0 };
    c.on_congestion(secs(1.0), Congestion::Loss, &at(100.0), &mut w);
    for _ in 0..70 {
        c.on_ack(secs(2.0), &acked(1, 100), &mut w);
    }
    let grew = c.w_est().unwrap() - 70.0;
    assert!((0.5254..=0.52942).contains(&grew), "grew {grew}");
}

#[test]
fn alpha_cubic_becomes_one_once_w_est_reaches_cwnd_prior() {
    // A loss at 10: cwnd_prior = 10, cwnd = 7. ACKs of one segment at one instant (t = 0, so
    // W_cubic(t) = 7 < W_est throughout and cwnd = W_est): each adds 0.52941 / cwnd until
    // W_est >= 10, then 1 / cwnd (RFC 9438 §4.3).
    let mut c = Cubic::new(&TcpConfig::default());
    let mut w = Window { cwnd: 10.0, ssthresh: 1000.0 };
    c.on_congestion(secs(1.0), Congestion::Loss, &at(10.0), &mut w);
    assert_eq!(c.cwnd_prior(), Some(10.0));
    let mut alphas = Vec::new();
    for _ in 0..60 {
        let (before, cwnd) = (c.w_est().unwrap_or(7.0), w.cwnd);
        c.on_ack(secs(2.0), &acked(1, 100), &mut w);
        alphas.push((before, (c.w_est().unwrap() - before) * cwnd));
    }
    for (before, alpha) in alphas {
        let want = if before >= 10.0 { 1.0 } else { 0.52941 };
        assert_near(alpha, want, 1e-5, &format!("alpha at W_est {before}"));
    }
    assert!(c.w_est().unwrap() > 10.0);
}

#[test]
fn cwnd_follows_w_est_where_it_is_above_w_cubic() {
    // Short RTT and small W_max (RFC 9438 §4.3: Reno's region): a loss at 10 gives cwnd 7,
    // K = cbrt(3 / 0.4) = cbrt(7.5) = 1.957 s, and after 20 ms W_cubic is still only
    // 10 - 0.4 x (1.957 - 0.02)^3 = 10 - 0.4 x 7.27 = 7.09. With a 1 ms RTT and one ACK per
    // segment, int(cwnd) ACKs a round, W_est grows by alpha x int(cwnd) / cwnd a round, cwnd
    // growing by at most one within it: 0.529 x 7 / 8.53 = 0.434 to 0.529 while below
    // cwnd_prior = 10, so 6 or 7 rounds to get there, then int(cwnd) / (cwnd + 1) >= 9 / 11 =
    // 0.82 to 1 a round. After 20 rounds cwnd = W_est is within [10 + 13 x 0.82,
    // 10 + 14 x 1 + 0.53] = [20.6, 24.6].
    let mut c = Cubic::new(&TcpConfig::default());
    let mut w = Window { cwnd: 10.0, ssthresh: 1000.0 };
    c.on_congestion(secs(1.0), Congestion::Loss, &at(10.0), &mut w);
    assert_near(w.cwnd, 7.0, 1e-9, "cwnd after the cut");
    let start = secs(2.0);
    for r in 0..20u64 {
        let now = start + Dur::from_millis(r);
        for _ in 0..w.cwnd as u64 {
            c.on_ack(now, &acked(1, 1), &mut w);
            let w_cubic = c.w_cubic(now - start).unwrap();
            let w_est = c.w_est().unwrap();
            assert!(w_est > w_cubic, "round {r}: W_est {w_est} W_cubic {w_cubic}");
            assert_eq!(w.cwnd, w_est, "round {r}");
        }
    }
    assert!((20.6..=24.6).contains(&w.cwnd), "cwnd {}", w.cwnd);
    assert!(c.w_cubic(Dur::from_millis(20)).unwrap() < 7.1);
}

#[test]
fn fast_convergence_lowers_w_max_when_a_loss_comes_below_it() {
    let mut c = Cubic::new(&TcpConfig::default());
    let mut w = Window { cwnd: 100.0, ssthresh: 1000.0 };
    c.on_congestion(secs(1.0), Congestion::Loss, &at(100.0), &mut w);
    assert_eq!(c.w_max(), Some(100.0));
    // RFC 9438 §4.7: a loss at 90 < W_max = 100 gives W_max = 90 x (1 + 0.7) / 2 = 76.5;
    // ssthresh = cwnd = 0.7 x 90 = 63.
    c.on_congestion(secs(5.0), Congestion::Loss, &at(90.0), &mut w);
    assert_near(c.w_max().unwrap(), 76.5, 1e-9, "W_max");
    assert_near(w.ssthresh, 63.0, 1e-9, "ssthresh");
    assert_near(w.cwnd, 63.0, 1e-9, "cwnd");
    // A loss at 80 >= W_max = 76.5: W_max = 80.
    c.on_congestion(secs(9.0), Congestion::Loss, &at(80.0), &mut w);
    assert_near(c.w_max().unwrap(), 80.0, 1e-9, "W_max");
    // Without fast convergence, W_max is the window before the cut: 90.
    let mut c = Cubic::new(&TcpConfig::default()).with_fast_convergence(false);
    c.on_congestion(secs(1.0), Congestion::Loss, &at(100.0), &mut w);
    c.on_congestion(secs(5.0), Congestion::Loss, &at(90.0), &mut w);
    assert_eq!(c.w_max(), Some(90.0));
}

#[test]
fn the_decrease_is_beta_cubic_with_its_floors() {
    let cut = |event, window: f64| {
        let mut c = Cubic::new(&TcpConfig::default());
        let mut w = Window { cwnd: window, ssthresh: 1000.0 };
        c.on_congestion(secs(1.0), event, &at(window), &mut w);
        (c, w)
    };
    // RFC 9438 §4.6: ssthresh = 0.7 x 100 = 70 and cwnd = 70 after a loss; cwnd_prior = 100.
    let (c, w) = cut(Congestion::Loss, 100.0);
    assert_near(w.ssthresh, 70.0, 1e-9, "ssthresh");
    assert_near(w.cwnd, 70.0, 1e-9, "cwnd");
    assert_eq!(c.cwnd_prior(), Some(100.0));
    // The same on ECN-Echo: 0.7 x 50 = 35.
    let (_, w) = cut(Congestion::Ecn, 50.0);
    assert_near(w.ssthresh, 35.0, 1e-9, "ssthresh");
    assert_near(w.cwnd, 35.0, 1e-9, "cwnd");
    // Floors: a loss at 2 gives 1.4, so cwnd = max(1.4, 2) = 2, ssthresh = 2; an ECN-Echo at
    // 1.2 gives 0.84, so cwnd = max(0.84, 1) = 1, ssthresh = 2.
    let (_, w) = cut(Congestion::Loss, 2.0);
    assert_eq!((w.cwnd, w.ssthresh), (2.0, 2.0));
    let (_, w) = cut(Congestion::Ecn, 1.2);
    assert_eq!((w.cwnd, w.ssthresh), (1.0, 2.0));
    // RFC 9438 §4.8: a timeout sets ssthresh = 0.7 x 40 = 28 and leaves cwnd to the sender
    // (one packet); W_max is forgotten until the next epoch.
    let (mut c, mut w) = cut(Congestion::Timeout, 40.0);
    assert_near(w.ssthresh, 28.0, 1e-9, "ssthresh");
    assert_eq!(w.cwnd, 40.0);
    assert_eq!(c.w_max(), None);
    // The first congestion avoidance after it: K = 0 and W_max = cwnd_epoch (here 28).
    w.cwnd = w.ssthresh;
    c.on_ack(secs(3.0), &acked(1, 100), &mut w);
    assert_eq!(c.k(), Some(Dur::ZERO));
    assert_eq!(c.w_max(), c.cwnd_epoch());
    // A restart cuts nothing; the next ACK in congestion avoidance starts a new epoch.
    let mut w = Window { cwnd: 30.0, ssthresh: 20.0 };
    c.on_congestion(secs(4.0), Congestion::Restart, &at(30.0), &mut w);
    assert_eq!((w.cwnd, w.ssthresh), (30.0, 20.0));
    assert_eq!(c.epoch_start(), None);
}

#[test]
fn slow_start_adds_the_segments_acked_up_to_ssthresh() {
    // RFC 5681 §3.1 counting segments (as Linux): cwnd 4 + 3 = 7; then 7 + 3 stops at
    // ssthresh 8.5 and the 1.5 segments left start congestion avoidance there.
    let mut c = Cubic::new(&TcpConfig::default());
    let mut w = Window { cwnd: 4.0, ssthresh: 8.5 };
    c.on_ack(secs(1.0), &acked(3, 100), &mut w);
    assert_eq!(w.cwnd, 7.0);
    assert_eq!(c.epoch_start(), None);
    c.on_ack(secs(1.1), &acked(3, 100), &mut w);
    assert_eq!(c.cwnd_epoch(), Some(8.5));
    // No congestion yet: K = 0, W_max = cwnd_prior = cwnd_epoch (§4.10); W_est = 8.5 + 1 x 1.5
    // / 8.5 = 8.6765 (alpha 1 as W_est >= cwnd_prior) is above W_cubic(0) = 8.5.
    assert_eq!(c.k(), Some(Dur::ZERO));
    assert_eq!(c.w_max(), Some(8.5));
    assert_near(w.cwnd, 8.6765, 1e-4, "cwnd");
}

#[test]
fn max_cwnd_caps_the_window() {
    let mut c = Cubic::new(&TcpConfig { max_cwnd: 10, ..TcpConfig::default() });
    let mut w = Window { cwnd: 9.0, ssthresh: 100.0 };
    c.on_ack(secs(1.0), &acked(5, 100), &mut w);
    assert_eq!(w.cwnd, 10.0);
}

// ---- through the sender ------------------------------------------------------------------

const RTT: Dur = Dur::from_millis(100);

/// Sender and sink over a lossless path of RTT 100 ms, one round per RTT: what the sender sent
/// in one round arrives in order at the next, minus `drops` (lost on their first
/// transmission), and each ACK returns at that same instant.
struct Pipe {
    s: TcpSender,
    sink: TcpSink,
    now: Time,
    flight: Vec<TcpSegment>,
    drops: BTreeSet<u64>,
}

impl Pipe {
    fn new(cfg: TcpConfig, drops: &[u64]) -> Pipe {
        let cc = Box::new(Cubic::new(&cfg));
        let mut s = TcpSender::with_cc(cfg, cc);
        s.send(Time::ZERO, None);
        let flight = drain(&mut s, Time::ZERO);
        Pipe {
            s,
            sink: TcpSink::new(SinkConfig::default()),
            now: Time::ZERO,
            flight,
            drops: drops.iter().copied().collect(),
        }
    }

    fn round(&mut self) {
        self.now += RTT;
        // The retransmission timer must not have been due in between (this loop has no timer).
        assert!(self.s.poll_timeout().is_none_or(|d| d > self.now), "timer due at {:?}", self.now);
        let mut next = Vec::new();
        for seg in std::mem::take(&mut self.flight) {
            if !seg.retransmit && self.drops.remove(&seg.seq) {
                continue;
            }
            self.sink.on_segment(self.now, &seg, false);
            while let Some(a) = self.sink.poll_transmit(self.now) {
                self.s.on_ack(self.now, &a);
                next.extend(drain(&mut self.s, self.now));
            }
        }
        self.flight = next;
    }

    fn trace(&self, name: &str) -> f64 {
        self.s.cc().trace().into_iter().find(|(n, _)| *n == name).map(|(_, v)| v).unwrap()
    }
}

#[test]
fn after_a_loss_the_sender_regrows_along_the_cubic_curve_to_w_max_at_k() {
    // Slow start from 2 (after the SYN) doubles each round: 2, 4, ..., 64, 128; the round that
    // takes cwnd from 64 to 128 sends 127..=254, and 127 is lost. Its three duplicate ACKs
    // (cwnd does not grow on duplicates) find the sender sending with 128: RFC 9438 §4.6
    // ssthresh = cwnd = 0.7 x 128 = 89.6, §4.7 W_max = 128 (the first event).
    let cfg = TcpConfig { window: 1000, ..TcpConfig::default() };
    let mut p = Pipe::new(cfg, &[127]);
    for _ in 0..8 {
        p.round();
    }
    assert_eq!(p.s.stats().fast_retransmits, 1);
    assert_near(p.s.ssthresh(), 89.6, 1e-9, "ssthresh");
    assert_eq!(p.trace("w_max"), 128.0);
    // The next round's full ACK ends recovery and starts the epoch at cwnd_epoch = 89.6:
    // K = cbrt((128 - 89.6) / 0.4) = cbrt(96) = 4.579 s (4.579^3 = 96.01).
    p.round();
    assert!(!p.s.in_recovery());
    let k = p.trace("k_s");
    assert_near(k, 4.579, 1e-3, "K");
    let epoch = Time::from_secs_f64(p.trace("epoch_start_s"));
    assert_eq!(epoch, p.now);
    let w_cubic = |t: f64| C * (t - k).powi(3) + 128.0;
    // From here each round at t = 0.1 s, 0.2 s, ... acks the window sent in the round before.
    // In the cubic region each ACK adds (target - cwnd) / cwnd with target = W_cubic(t + RTT),
    // so a round of about cwnd ACKs closes 1 - (1 - 1/cwnd)^cwnd = 1 - 1/e of the gap: cwnd
    // after the round at t sits between W_cubic(t) and W_cubic(t + RTT), about 0.4 RTT ahead of
    // the curve, and never above W_cubic(t + RTT) (the target). The band checked is one RTT
    // either side, W_cubic(t - RTT) <= cwnd <= W_cubic(t + RTT), with 0.01 packet of slack
    // below: near K the curve flattens (its slope one RTT before K is 3 x 0.4 x 0.1^2 = 0.012
    // packet/s) and what is left of the gap from steeper rounds before, decaying by 1/e a round,
    // is thousandths of a packet. W_est (from 89.6 plus 0.53 a round, about 115 at K) stays
    // below W_cubic after the epoch's first instant, where W_cubic(0) = 89.6 < W_est.
    let mut at_k = None;
    let mut rounds = 0;
    while p.now - epoch < Dur::from_secs_f64(k + 1.5) {
        let t = (p.now - epoch).as_secs_f64();
        let cwnd = p.s.cwnd();
        assert!(cwnd <= w_cubic(t + 0.1) + 1e-9, "t {t}: cwnd {cwnd} above W_cubic(t + RTT)");
        assert!(cwnd >= w_cubic(t - 0.1) - 0.01, "t {t}: cwnd {cwnd} below W_cubic(t - RTT)");
        if t + 0.1 <= k {
            assert!(cwnd < 128.0, "t {t}: cwnd {cwnd} at W_max before K");
        }
        if t >= k && at_k.is_none() {
            at_k = Some((t, cwnd));
        }
        p.round();
        rounds += 1;
    }
    // The first round at or after K (t = 4.6 s) finds cwnd at W_max, to within
    // W_cubic(K + 0.1) - 128 = 0.4 x 0.1^3 = 0.0004 above and 0.01 below; at the end, at least
    // 1.5 s after K (convex region, §4.5), it is past W_cubic(K + 1.4) - 0.01 = 128 + 0.4 x 1.4^3
    // - 0.01 = 129.09.
    let (t_k, cwnd_k) = at_k.expect("ran past K");
    assert!(t_k < k + 0.1 + 1e-9, "t {t_k}");
    assert_near(cwnd_k, 128.0, 0.011, "cwnd at K");
    assert!(p.s.cwnd() > 129.09, "cwnd {}", p.s.cwnd());
    assert!(rounds > 55);
    // Nothing else was lost: one cut, no timeout.
    assert_eq!((p.s.stats().fast_retransmits, p.s.stats().timeouts), (1, 0));
    assert_near(p.s.ssthresh(), 89.6, 1e-9, "ssthresh");
}

#[test]
fn after_a_timeout_the_sender_restarts_at_one_and_slow_start_ends_at_beta_cubic() {
    // Slow start to cwnd 16 with 15..=30 in flight, then the timer fires: RFC 9438 §4.8
    // ssthresh = 0.7 x 16 = 11.2, and the sender restarts from one packet.
    let cfg = TcpConfig { window: 1000, ..TcpConfig::default() };
    let mut s = TcpSender::with_cc(cfg.clone(), Box::new(Cubic::new(&cfg)));
    s.send(t(0), None);
    drain(&mut s, t(0));
    s.on_ack(t(100), &crate::tcp::tests::ack(0));
    let mut now = t(100);
    let mut round = drain(&mut s, now);
    for _ in 0..3 {
        round = next_round(&mut s, &mut now, &round);
    }
    assert_eq!(s.cwnd(), 16.0);
    let deadline = s.poll_timeout().unwrap();
    s.on_timeout(deadline);
    assert_eq!(s.cwnd(), 1.0);
    assert_near(s.ssthresh(), 11.2, 1e-9, "ssthresh");
    assert_eq!(s.stats().timeouts, 1);
    // Slow start back: 1, 2, 4, 8, then the round of 8 ACKs takes cwnd 8 -> 11.2 on its fourth
    // (11 + 1 stops at 11.2, and 0.8 segment starts congestion avoidance): K = 0 and
    // W_max = cwnd_epoch = 11.2 (§4.8).
    now = deadline;
    round = drain(&mut s, now);
    for _ in 0..4 {
        round = next_round(&mut s, &mut now, &round);
    }
    let cc = s.cc().trace();
    let get = |name: &str| cc.iter().find(|(n, _)| *n == name).unwrap().1;
    assert_eq!(get("k_s"), 0.0);
    assert_near(get("w_max"), 11.2, 1e-9, "W_max");
    assert!(s.cwnd() > 11.2 && s.cwnd() < 12.0, "cwnd {}", s.cwnd());
    assert!(!round.is_empty());
}

#[test]
fn zero_sized_configs_keep_a_finite_window() {
    // A zero initial window and receiver window (ssthresh 0): congestion avoidance from
    // cwnd 0 computes as from one packet (RFC 9438 §4.6's floor), never dividing by zero.
    let cfg = TcpConfig {
        window: 0,
        window_init: 0,
        dupack_thresh: 0,
        tick: Dur::ZERO,
        packet_size: fairway_core::Bytes(0),
        ..TcpConfig::default()
    };
    let mut s = TcpSender::with_cc(cfg.clone(), Box::new(Cubic::new(&cfg)));
    s.send(t(0), None);
    for i in 0..5 {
        s.on_ack(t(i), &crate::tcp::tests::ack(0));
        if let Some(d) = s.poll_timeout() {
            s.on_timeout(d);
        }
        drain(&mut s, t(i));
        assert!(s.cwnd().is_finite() && s.ssthresh().is_finite(), "{} {}", s.cwnd(), s.ssthresh());
    }
}
