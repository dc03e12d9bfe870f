//! RED unit tests, driven with synthetic times. Expected values are computed here from the
//! formulas (F&J 1993, ns-2 2.35 red.cc), never copied from a run.

use super::*;
use fairway_core::FlowId;

/// 2^-9: a weight for which n (1 - w) + w n == n exactly for small integers n, so that an
/// average can be held at the queue length.
const W: f64 = 1.0 / 512.0;

fn meta(size: u64, ect: bool) -> PacketMeta {
    PacketMeta { size: Bytes(size), ecn_capable: ect, flow: FlowId(0), class: crate::Class::Tcp }
}

/// Packet mode (queue and drop decision in packets), thresholds 5/15, max_p 0.1, w = 2^-9.
fn pkt_params() -> RedParams {
    RedParams {
        thresh: 5.0,
        maxthresh: 15.0,
        q_weight: W,
        bytes: false,
        queue_in_bytes: false,
        limit: 1000,
        ..RedParams::default()
    }
}

fn red(p: RedParams) -> Red {
    Red::new(p, Rate::from_bps(8_000_000), Dur::from_millis(10)).expect("valid parameters")
}

/// Puts `n` packets of `size` in the queue through `enqueue` (the average stays far below
/// thresh with w = 2^-9), leaving the link busy (not idle).
fn fill(q: &mut Red, n: usize, size: u64, rng: &mut Rng) {
    for i in 0..n {
        let v = q.enqueue(Time(0), &meta(size, false), PacketRef(i as u32), rng);
        assert_eq!(v, Verdict::Enqueue);
    }
    q.core.idle = false; // as if the link were busy: no idle decay in what follows
}

/// Offers `arrivals` packets to a queue whose length is held at `q.len()` and whose average is
/// held at `ave` (set once here; it is a fixed point of the EWMA when it equals the queue
/// length, which the loop checks). A stored packet is followed by one departure.
fn run_held(q: &mut Red, ave: f64, arrivals: usize, size: u64, ect: bool, rng: &mut Rng) -> Vec<Verdict> {
    q.core.ave = ave;
    let mut out = Vec::with_capacity(arrivals);
    for i in 0..arrivals {
        let t = Time(1_000_000 + i as u64 * 1000);
        let v = q.enqueue(t, &meta(size, ect), PacketRef(i as u32), rng);
        assert_eq!(q.average(), ave, "the held average moved at arrival {i}");
        if matches!(v, Verdict::Enqueue | Verdict::EnqueueMarked) {
            assert!(q.dequeue(t).is_some());
        }
        out.push(v);
    }
    out
}

fn count(vs: &[Verdict], which: Verdict) -> usize {
    vs.iter().filter(|v| **v == which).count()
}

/// The gaps (in arrivals) between successive drops, the first gap skipped.
fn gaps(vs: &[Verdict]) -> Vec<usize> {
    let idx: Vec<usize> =
        vs.iter().enumerate().filter(|(_, v)| matches!(v, Verdict::Drop(_))).map(|(i, _)| i).collect();
    idx.windows(2).map(|w| w[1] - w[0]).collect()
}

/// ns-2 modify_p / F&J 1993 §4: the probability of the k-th arrival after a drop, given the
/// curve's p_b and the count the rule sees.
fn spread(p_b: f64, count1: f64, wait: bool) -> f64 {
    let c = count1 * p_b;
    if wait {
        if c < 1.0 {
            0.0
        } else if c < 2.0 {
            p_b / (2.0 - c)
        } else {
            1.0
        }
    } else if c < 1.0 {
        p_b / (1.0 - c)
    } else {
        1.0
    }
}

/// Mean and variance of the number of arrivals X from one drop to the next (the drop included),
/// where the k-th arrival is dropped with probability `p_of(k)`: P(X = k) = p(k) prod_{j<k} (1 - p(j)).
fn gap_moments(p_of: impl Fn(u64) -> f64) -> (f64, f64) {
    let (mut surv, mut m1, mut m2) = (1.0, 0.0, 0.0);
    for k in 1..1_000_000u64 {
        let pk = p_of(k).min(1.0);
        let pr = surv * pk;
        m1 += k as f64 * pr;
        m2 += (k * k) as f64 * pr;
        surv *= 1.0 - pk;
        if surv < 1e-15 {
            break;
        }
    }
    (m1, m2 - m1 * m1)
}

/// Checks the number of drops in `n` arrivals against the renewal theory: expected n / E[X],
/// standard deviation sqrt(n Var[X] / E[X]^3); the band is 4 sigma plus 2 for the first gap.
fn assert_drop_count(drops: usize, n: usize, mean: f64, var: f64) {
    let expected = n as f64 / mean;
    let sigma = (n as f64 * var / mean.powi(3)).sqrt();
    let band = 4.0 * sigma + 2.0;
    assert!(
        (drops as f64 - expected).abs() <= band,
        "{drops} drops in {n} arrivals; theory {expected:.1} +- {band:.1} (sigma {sigma:.2})"
    );
}

// ---------------------------------------------------------------------------------------------
// The average (ns-2 estimator, F&J 1993 §4)

#[test]
fn ewma_converges_as_one_minus_one_minus_w_to_the_k() {
    let w = 0.01;
    let mut q = red(RedParams { q_weight: w, thresh: 100.0, maxthresh: 200.0, ..pkt_params() });
    let mut rng = Rng::from_seed(1);
    let n = 10;
    fill(&mut q, n, 500, &mut rng);
    q.core.ave = 0.0; // a steady queue of n packets seen from a zero average
    let mut t = Time(1_000_000);
    for k in 1..=1000u32 {
        t += Dur::from_micros(100);
        assert_eq!(q.enqueue(t, &meta(500, false), PacketRef(k), &mut rng), Verdict::Enqueue);
        assert!(q.dequeue(t).is_some());
        let expected = n as f64 * (1.0 - (1.0 - w).powi(k as i32));
        let err = (q.average() - expected).abs();
        assert!(err <= 1e-12 * n as f64, "k = {k}: ave {} vs {expected}", q.average());
        if k == 1 {
            assert_eq!(q.average(), w * n as f64); // the first step exactly
        }
    }
    assert_eq!(q.average_pkts(), Some(q.average()));
}

#[test]
fn ewma_uses_the_queue_before_the_arrival() {
    let mut q = red(RedParams { q_weight: 0.25, thresh: 100.0, maxthresh: 200.0, ..pkt_params() });
    let mut rng = Rng::from_seed(1);
    // The first arrival finds the link idle since time 0 and an empty queue.
    let mut expected = 0.0;
    for i in 0..6u32 {
        q.enqueue(Time(0), &meta(500, false), PacketRef(i), &mut rng);
        expected = expected * 0.75 + 0.25 * i as f64;
        assert_eq!(q.average(), expected);
    }
}

#[test]
fn idle_decay_is_one_minus_w_to_the_m_plus_one() {
    // 8 Mb/s and mean_pktsize 1000: ptc = 1000 packets/s.
    let p = RedParams { mean_pktsize: Bytes(1000), q_weight: 0.01, ..pkt_params() };
    let mut q = red(p);
    assert_eq!(q.resolved().ptc, 1000.0);
    let mut rng = Rng::from_seed(1);
    q.core.ave = 10.0;
    let t0 = Time::from_secs_f64(2.0);
    assert_eq!(q.dequeue(t0), None); // the link goes idle at t0
                                     // 100.5 ms idle = 100.5 packet times: m = int(100.5) = 100.
    let t1 = t0 + Dur::from_micros(100_500);
    q.enqueue(t1, &meta(1000, false), PacketRef(0), &mut rng);
    // ns-2 estimator(q = 0, m + 1): m multiplications by (1 - w), then one EWMA step.
    let mut expected = 10.0_f64;
    for _ in 0..100 {
        expected *= 1.0 - 0.01;
    }
    expected = expected * (1.0 - 0.01) + 0.01 * 0.0;
    assert_eq!(q.average(), expected);
    assert!((q.average() - 10.0 * 0.99_f64.powi(101)).abs() < 1e-12);

    // Back-to-back arrivals while the link is busy decay nothing: one EWMA step each.
    assert!(q.dequeue(t1).is_some()); // the packet goes on the wire, the link is busy
    let before = q.average();
    q.enqueue(t1 + Dur::from_millis(500), &meta(1000, false), PacketRef(1), &mut rng);
    assert_eq!(q.average(), before * (1.0 - 0.01) + 0.01 * 0.0);
}

#[test]
fn idle_decay_counts_mean_pktsize_packets_not_idle_pktsize() {
    // Byte mode, 8 Mb/s, mean 500 B: ptc = 2000/s. With idle_pktsize (100 B) it would be
    // 10000/s; ns-2 2.35 uses idle_pktsize only with cautious_ 3 (checked with Debian's ns).
    let p = RedParams { q_weight: 0.01, idle_pktsize: Bytes(100), ..RedParams::default() };
    let mut q = red(p);
    assert_eq!(q.resolved().ptc, 2000.0);
    let mut rng = Rng::from_seed(1);
    q.core.ave = 5000.0; // bytes
    assert_eq!(q.dequeue(Time(1_000_000_000)), None);
    // 50.25 ms idle: m = int(2000 x 0.05025) = 100.
    q.enqueue(Time(1_050_250_000), &meta(500, false), PacketRef(0), &mut rng);
    let mut expected = 5000.0_f64;
    for _ in 0..101 {
        expected *= 1.0 - 0.01;
    }
    assert_eq!(q.average(), expected);
    assert_eq!(q.average_pkts(), Some(expected / 500.0));
}

#[test]
fn very_long_idle_periods_decay_fast_and_right() {
    // 10 Gb/s: ptc = 2.5e6/s. 5 s idle: m = 1.25e7, beyond the exact-loop budget.
    let p = RedParams { q_weight: 1e-6, ..pkt_params() };
    let mut q = Red::new(p, Rate::from_bps(10_000_000_000), Dur::from_millis(1)).expect("valid");
    let mut rng = Rng::from_seed(1);
    q.core.ave = 50.0;
    assert_eq!(q.dequeue(Time(0)), None);
    q.enqueue(Time(5_000_000_000), &meta(500, false), PacketRef(0), &mut rng);
    let m = 12_500_000.0_f64;
    let expected = 50.0 * ((m + 1.0) * (1.0 - 1e-6_f64).ln()).exp(); // 50 (1 - w)^(m + 1)
    let rel = (q.average() - expected).abs() / expected;
    assert!(rel < 1e-8, "ave {} vs {expected} (rel {rel:e})", q.average());

    // An idle period of a year underflows to zero without looping for it.
    q.core.ave = 50.0;
    assert!(q.dequeue(Time(5_000_000_000)).is_some()); // that packet goes on the wire
    assert_eq!(q.dequeue(Time(6_000_000_000)), None); // and the link goes idle
    q.enqueue(Time(6_000_000_000 + 365 * 86_400 * 1_000_000_000), &meta(500, false), PacketRef(1), &mut rng);
    assert_eq!(q.average(), 0.0);
}

// ---------------------------------------------------------------------------------------------
// The drop curve (ns-2 calculate_p_new, modify_p, drop_early; F&J 1993 §4)

#[test]
fn no_drops_and_no_draws_below_thresh() {
    let mut q = red(pkt_params());
    let mut rng = Rng::from_seed(7);
    fill(&mut q, 4, 500, &mut rng);
    let probe = rng.clone().next_u64();
    let vs = run_held(&mut q, 4.0, 20_000, 500, false, &mut rng);
    assert_eq!(count(&vs, Verdict::Enqueue), 20_000);
    assert_eq!(rng.next_u64(), probe, "RED drew below thresh");
}

#[test]
fn no_early_drop_with_at_most_one_packet_waiting() {
    // ns-2 enque(): the curve applies only when qlen > 1, whatever the average.
    let mut q = red(RedParams { q_weight: 1e-9, ..pkt_params() });
    let mut rng = Rng::from_seed(7);
    fill(&mut q, 1, 500, &mut rng);
    q.core.ave = 20.0;
    for i in 0..5000u32 {
        assert_eq!(q.enqueue(Time(1), &meta(500, false), PacketRef(i), &mut rng), Verdict::Enqueue);
        assert!(q.dequeue(Time(1)).is_some());
    }
}

#[test]
fn linear_region_with_wait_matches_the_spreading_theory() {
    // ave 8 between thresh 5 and maxthresh 15: p_b = max_p (8 - 5) / (15 - 5) = 0.03.
    let mut q = red(pkt_params());
    let mut rng = Rng::from_seed(11);
    fill(&mut q, 8, 500, &mut rng);
    let n = 200_000;
    let vs = run_held(&mut q, 8.0, n, 500, false, &mut rng);
    let p_b = 0.1 * (8.0 - 5.0) / (15.0 - 5.0);
    assert!((q.prob1() - p_b).abs() < 1e-12);
    let (mean, var) = gap_moments(|k| spread(p_b, k as f64, true));
    // E[X] is about 1.5 / p_b = 50, sigma of the drop count about 12.
    let drops = count(&vs, Verdict::Drop(DropReason::Early));
    assert_eq!(drops, vs.iter().filter(|v| matches!(v, Verdict::Drop(_))).count());
    assert_drop_count(drops, n, mean, var);
    // wait_: no drop while count p_b < 1, certainly one once count p_b >= 2.
    let g = gaps(&vs);
    let lo = (1.0 / p_b).ceil() as usize; // 34
    let hi = (2.0 / p_b).ceil() as usize; // 67
    assert!(g.iter().all(|&x| x >= lo && x <= hi), "gaps outside [{lo}, {hi}]");
}

#[test]
fn linear_region_without_wait_matches_the_spreading_theory() {
    // ave 10: p_b = 0.05; F&J 1993 §4: p_a = p_b / (1 - count p_b). ns-2's count is 1 at the
    // first arrival after a drop, so p_a = 1 / (20 - k) and the gap is uniform on 1..=19
    // (the paper's 1..=1/p_b shifted by one; rounding may stretch it to 20 with p ~ 1e-15).
    let mut q = red(RedParams { wait: false, ..pkt_params() });
    let mut rng = Rng::from_seed(12);
    fill(&mut q, 10, 500, &mut rng);
    let n = 200_000;
    let vs = run_held(&mut q, 10.0, n, 500, false, &mut rng);
    let p_b = 0.1 * (10.0 - 5.0) / (15.0 - 5.0);
    let (mean, var) = gap_moments(|k| spread(p_b, k as f64, false));
    assert!((mean - 10.0).abs() < 1e-6, "uniform on 1..=19 has mean 10, got {mean}");
    let drops = count(&vs, Verdict::Drop(DropReason::Early));
    assert_drop_count(drops, n, mean, var);
    assert!(gaps(&vs).iter().all(|&x| (1..=20).contains(&x)));
}

#[test]
fn gentle_region_matches_the_theory() {
    // ave 20 between maxthresh 15 and 2 x 15: p_b = max_p + (1 - max_p)(20 - 15)/15 = 0.4.
    // With wait_: arrivals 1 and 2 after a drop pass, the 3rd drops with 0.4/(2 - 1.2) = 0.5,
    // the 4th surely: E[X] = 3.5.
    let mut q = red(pkt_params());
    let mut rng = Rng::from_seed(13);
    fill(&mut q, 20, 500, &mut rng);
    let n = 100_000;
    let vs = run_held(&mut q, 20.0, n, 500, false, &mut rng);
    let p_b = 0.1 + (1.0 - 0.1) * (20.0 - 15.0) / 15.0;
    assert!((q.prob1() - p_b).abs() < 1e-12);
    let (mean, var) = gap_moments(|k| spread(p_b, k as f64, true));
    assert!((mean - 3.5).abs() < 1e-9);
    assert_drop_count(count(&vs, Verdict::Drop(DropReason::Early)), n, mean, var);
    assert!(gaps(&vs).iter().all(|&x| x == 3 || x == 4));
}

#[test]
fn above_the_top_is_a_forced_drop_without_use_mark_p() {
    // gentle: top = 2 x maxthresh = 30. ns-2 2.35 forces the drop only when !use_mark_p_.
    let mut q = red(RedParams { use_mark_p: false, ..pkt_params() });
    let mut rng = Rng::from_seed(14);
    fill(&mut q, 31, 500, &mut rng);
    let probe = rng.clone().next_u64();
    let vs = run_held(&mut q, 31.0, 1000, 500, false, &mut rng);
    assert_eq!(count(&vs, Verdict::Drop(DropReason::Forced)), 1000);
    assert_eq!(rng.next_u64(), probe, "a forced drop must not draw");

    // Not gentle: the top is maxthresh itself.
    let mut q = red(RedParams { use_mark_p: false, gentle: false, ..pkt_params() });
    fill(&mut q, 15, 500, &mut rng);
    let vs = run_held(&mut q, 15.0, 1000, 500, false, &mut rng);
    assert_eq!(count(&vs, Verdict::Drop(DropReason::Forced)), 1000);
}

#[test]
fn the_top_of_the_curve_is_inclusive() {
    // ns-2: forced when qavg >= 2 th_max (gentle) or qavg >= th_max (not gentle).
    let cases = [
        (true, 5.0, 15.0, 30.0, true),
        (true, 5.0, 15.0, 29.0, false),
        (false, 5.0, 15.0, 15.0, true),
        (false, 5.0, 15.0, 14.0, false),
        // Equal thresholds (ns-2's th_diff = 1 fallback): a step from nothing to certain drop.
        (false, 10.0, 10.0, 10.0, true),
        (false, 10.0, 10.0, 9.0, false),
    ];
    for (gentle, thresh, maxthresh, ave, forced) in cases {
        let p = RedParams { gentle, thresh, maxthresh, use_mark_p: false, ..pkt_params() };
        let mut q = red(p);
        let mut rng = Rng::from_seed(18);
        fill(&mut q, ave as usize, 500, &mut rng);
        let vs = run_held(&mut q, ave, 2000, 500, false, &mut rng);
        let n_forced = count(&vs, Verdict::Drop(DropReason::Forced));
        assert_eq!(n_forced, if forced { 2000 } else { 0 }, "gentle {gentle}, ave {ave}");
    }
}

#[test]
fn above_the_top_with_ns2_default_use_mark_p_every_packet_but_the_first_drops_early() {
    // ns-2 2.35 defaults (use_mark_p_ true): no forced drop; the crossing packet passes, then
    // drop_early sees p = 1 and drops every arrival, one draw each.
    let mut q = red(pkt_params());
    let mut rng = Rng::from_seed(15);
    fill(&mut q, 31, 500, &mut rng);
    let mut probe = rng.clone();
    let vs = run_held(&mut q, 31.0, 1000, 500, false, &mut rng);
    assert_eq!(vs[0], Verdict::Enqueue);
    assert!(vs[1..].iter().all(|v| *v == Verdict::Drop(DropReason::Early)));
    for _ in 0..999 {
        probe.next_u64();
    }
    assert_eq!(rng.next_u64(), probe.next_u64(), "one draw per early decision");
}

#[test]
fn crossing_thresh_restarts_the_count_at_one_without_deciding() {
    // wait_ off, ave 8: p_b = 0.03. The crossing arrival sets count = 1 (ns-2 enque, old == 0);
    // the next arrival has count 2 and sees p_a = p_b / (1 - 2 p_b).
    let mut q = red(RedParams { wait: false, ..pkt_params() });
    let mut rng = Rng::from_seed(17);
    fill(&mut q, 8, 500, &mut rng);
    q.core.count = 1234; // whatever was tallied below thresh
    let vs = run_held(&mut q, 8.0, 1, 500, false, &mut rng);
    assert_eq!(vs, [Verdict::Enqueue]);
    assert_eq!((q.core.count, q.core.count_bytes, q.core.old), (1, 500, true));
    run_held(&mut q, 8.0, 1, 500, false, &mut rng);
    let p_b = 0.1 * (8.0 - 5.0) / 10.0;
    assert!((q.core.prob - p_b / (1.0 - 2.0 * p_b)).abs() < 1e-12, "prob {}", q.core.prob);

    // Falling below thresh clears the crossing state: the next crossing passes again.
    let mut below = q.clone();
    below.core.ave = 0.0;
    below.enqueue(Time(9), &meta(500, false), PacketRef(0), &mut rng);
    assert!(below.dequeue(Time(9)).is_some());
    assert!(!below.core.old && below.core.prob == 0.0);
    // At most one packet waiting clears it too, whatever the average.
    let mut one = red(RedParams { wait: false, ..pkt_params() });
    fill(&mut one, 1, 500, &mut rng);
    one.core.old = true;
    one.core.ave = 8.0;
    one.enqueue(Time(9), &meta(500, false), PacketRef(0), &mut rng);
    assert!(!one.core.old);
}

#[test]
fn at_exactly_twice_maxthresh_wait_lets_every_other_packet_through() {
    // ns-2's gentle line v_c ave + v_d with max_p 0.1 and maxthresh 3 gives 0.9999999999999998
    // at ave = 6, not 1: with wait_, count 1 then sees count p < 1 and p = 0. Debian's ns 2.35
    // shows the same pattern (q_weight_ 1, thresh_ 2, maxthresh_ 3, a burst of 20 packets).
    let p = RedParams { thresh: 2.0, maxthresh: 3.0, q_weight: 1.0, ..pkt_params() };
    for (ave, pattern) in [(6usize, [true, false, true, false, true]), (7, [true, false, false, false, false])] {
        let mut q = red(p);
        for i in 0..ave {
            q.q.push(PacketRef(i as u32), Bytes(500), ());
        }
        q.core.idle = false;
        let mut rng = Rng::from_seed(19);
        let vs = run_held(&mut q, ave as f64, 5, 500, false, &mut rng);
        let passed: Vec<bool> = vs.iter().map(|v| *v == Verdict::Enqueue).collect();
        assert_eq!(passed, pattern, "ave {ave}: {vs:?}");
        if ave == 6 {
            assert!(q.prob1() < 1.0);
        } else {
            assert_eq!(q.prob1(), 1.0);
        }
    }
}

#[test]
fn early_decisions_draw_exactly_once_even_when_p_is_zero() {
    // ave 8, p_b 0.03, wait_: the first 33 decisions after the crossing have p = 0 but draw.
    let mut q = red(pkt_params());
    let mut rng = Rng::from_seed(16);
    fill(&mut q, 8, 500, &mut rng);
    let mut probe = rng.clone();
    let vs = run_held(&mut q, 8.0, 21, 500, false, &mut rng); // crossing + 20 decisions
    assert!(vs.iter().all(|v| *v == Verdict::Enqueue));
    for _ in 0..20 {
        probe.next_u64();
    }
    assert_eq!(rng.next_u64(), probe.next_u64());
}

// ---------------------------------------------------------------------------------------------
// Byte mode

#[test]
fn byte_mode_thresholds_and_limit_scale_with_mean_pktsize() {
    let p = RedParams { thresh: 5.0, maxthresh: 15.0, mean_pktsize: Bytes(1000), q_weight: W, ..RedParams::default() };
    let mut q = red(p);
    let r = *q.resolved();
    assert_eq!((r.thresh_pkts, r.maxthresh_pkts), (5.0, 15.0));
    assert_eq!((r.th_min, r.th_max), (5000.0, 15000.0));
    assert_eq!(r.qlim, 50 * 1000);
    let mut rng = Rng::from_seed(21);
    // 4 packets of 1000 B: the average held at 4000 B < 5000 B: nothing happens.
    fill(&mut q, 4, 1000, &mut rng);
    let vs = run_held(&mut q, 4000.0, 5000, 1000, false, &mut rng);
    assert_eq!(count(&vs, Verdict::Enqueue), 5000);
    assert_eq!(q.average_pkts(), Some(4.0));
    // 8 packets of 1000 B: 8000 B, p_b = 0.1 (8000 - 5000) / 10000 = 0.03: drops happen.
    for _ in 0..4 {
        assert_eq!(q.enqueue(Time(2), &meta(1000, false), PacketRef(0), &mut rng), Verdict::Enqueue);
    }
    let vs = run_held(&mut q, 8000.0, 5000, 1000, false, &mut rng);
    assert!(count(&vs, Verdict::Drop(DropReason::Early)) > 0);
    assert!((q.prob1() - 0.03).abs() < 1e-12);
}

#[test]
fn byte_mode_scales_the_probability_by_packet_size() {
    // bytes_ on, queue in packets (to hold the average). mean 500 B.
    let p = RedParams { bytes: true, wait: false, ..pkt_params() };
    let mut q = red(p);
    let mut rng = Rng::from_seed(22);
    fill(&mut q, 10, 500, &mut rng);
    run_held(&mut q, 10.0, 1, 500, false, &mut rng); // the crossing (count restarts)
                                                     // The same state for two sizes: count_bytes 1600 + 100 and 1600 + 300 both give
                                                     // count1 = int(count_bytes / 500) = 3; the 300 B packet must see 3 x the probability.
    let mut small = q.clone();
    let mut large = q.clone();
    small.core.count_bytes = 1600;
    large.core.count_bytes = 1600;
    let (mut r1, mut r2) = (Rng::from_seed(1), Rng::from_seed(1));
    run_held(&mut small, 10.0, 1, 100, false, &mut r1);
    run_held(&mut large, 10.0, 1, 300, false, &mut r2);
    let p_b = 0.05;
    let p_a = p_b / (1.0 - 3.0 * p_b);
    assert!((small.core.prob - p_a * 100.0 / 500.0).abs() < 1e-12, "{}", small.core.prob);
    assert!((large.core.prob - p_a * 300.0 / 500.0).abs() < 1e-12, "{}", large.core.prob);

    // Over many arrivals of one size, the drop count follows the byte-mode renewal theory:
    // the k-th arrival after a drop sees count1 = int(k s / mean) and p x s / mean.
    for (size, seed) in [(500u64, 23u64), (125, 24)] {
        let mut q = red(RedParams { bytes: true, wait: true, ..pkt_params() });
        let mut rng = Rng::from_seed(seed);
        fill(&mut q, 10, size, &mut rng);
        let n = 200_000;
        let vs = run_held(&mut q, 10.0, n, size, false, &mut rng);
        let (mean, var) = gap_moments(|k| {
            let count1 = ((k * size) / 500) as f64;
            let p = spread(p_b, count1, true);
            if p < 1.0 {
                p * size as f64 / 500.0
            } else {
                p
            }
        });
        assert_drop_count(count(&vs, Verdict::Drop(DropReason::Early)), n, mean, var);
    }
}

// ---------------------------------------------------------------------------------------------
// ECN (RFC 3168 §5, §7; ns-2 setbit_, mark_p_, use_mark_p_)

#[test]
fn ecn_marks_ect_packets_where_it_would_drop_them_early() {
    let ecn = RedParams { ecn: true, ..pkt_params() };
    let mut marked_q = red(ecn);
    let mut dropped_q = red(ecn);
    let (mut r1, mut r2) = (Rng::from_seed(31), Rng::from_seed(31));
    fill(&mut marked_q, 8, 500, &mut r1);
    fill(&mut dropped_q, 8, 500, &mut r2);
    let ect = run_held(&mut marked_q, 8.0, 50_000, 500, true, &mut r1);
    let not_ect = run_held(&mut dropped_q, 8.0, 50_000, 500, false, &mut r2);
    assert!(count(&not_ect, Verdict::Drop(DropReason::Early)) > 500);
    for (a, b) in ect.iter().zip(&not_ect) {
        let expect = if *b == Verdict::Drop(DropReason::Early) { Verdict::EnqueueMarked } else { *b };
        assert_eq!(*a, expect);
    }
    assert_eq!(marked_q.stats().marks as usize, count(&not_ect, Verdict::Drop(DropReason::Early)));
    assert_eq!(marked_q.stats().drops(), 0);
}

#[test]
fn ecn_marks_only_strictly_below_mark_p() {
    // ns-2 2.35 marks when prob1 < mark_p (the DCTCP patch later changed it to <=): with mark_p
    // equal to the curve's value, ECT packets are dropped.
    let mut probe = red(RedParams { ecn: true, ..pkt_params() });
    let mut rng = Rng::from_seed(35);
    fill(&mut probe, 8, 500, &mut rng);
    run_held(&mut probe, 8.0, 2, 500, true, &mut rng);
    let p1 = probe.prob1();
    assert!(p1 > 0.0);
    let mut q = red(RedParams { ecn: true, mark_p: p1, ..pkt_params() });
    fill(&mut q, 8, 500, &mut rng);
    let vs = run_held(&mut q, 8.0, 20_000, 500, true, &mut rng);
    assert_eq!(count(&vs, Verdict::EnqueueMarked), 0);
    assert!(count(&vs, Verdict::Drop(DropReason::Early)) > 100);
    // A hair above it, they are marked.
    let mut q = red(RedParams { ecn: true, mark_p: p1 * (1.0 + 1e-12), ..pkt_params() });
    fill(&mut q, 8, 500, &mut rng);
    let vs = run_held(&mut q, 8.0, 20_000, 500, true, &mut rng);
    assert_eq!(q.stats().drops(), 0);
    assert!(count(&vs, Verdict::EnqueueMarked) > 100);
}

#[test]
fn ecn_off_drops_ect_packets() {
    let mut q = red(pkt_params());
    let mut rng = Rng::from_seed(32);
    fill(&mut q, 8, 500, &mut rng);
    let vs = run_held(&mut q, 8.0, 20_000, 500, true, &mut rng);
    assert_eq!(count(&vs, Verdict::EnqueueMarked), 0);
    assert!(count(&vs, Verdict::Drop(DropReason::Early)) > 100);
}

#[test]
fn ecn_with_use_mark_p_drops_once_the_curve_reaches_mark_p() {
    // Gentle region: prob1 = 0.4 >= mark_p 0.1, so ECT packets are dropped, not marked.
    let mut q = red(RedParams { ecn: true, ..pkt_params() });
    let mut rng = Rng::from_seed(33);
    fill(&mut q, 20, 500, &mut rng);
    let vs = run_held(&mut q, 20.0, 10_000, 500, true, &mut rng);
    assert_eq!(count(&vs, Verdict::EnqueueMarked), 0);
    assert!(count(&vs, Verdict::Drop(DropReason::Early)) > 1000);

    // Without use_mark_p the same arrivals are marked.
    let mut q = red(RedParams { ecn: true, use_mark_p: false, ..pkt_params() });
    fill(&mut q, 20, 500, &mut rng);
    let vs = run_held(&mut q, 20.0, 10_000, 500, true, &mut rng);
    assert_eq!(q.stats().drops(), 0);
    assert!(count(&vs, Verdict::EnqueueMarked) > 1000);
}

#[test]
fn ecn_never_turns_forced_or_overflow_drops_into_marks() {
    // Above the top without use_mark_p: forced drops, ECT or not.
    let mut q = red(RedParams { ecn: true, use_mark_p: false, ..pkt_params() });
    let mut rng = Rng::from_seed(34);
    fill(&mut q, 31, 500, &mut rng);
    let vs = run_held(&mut q, 31.0, 1000, 500, true, &mut rng);
    assert_eq!(count(&vs, Verdict::Drop(DropReason::Forced)), 1000);

    // At the limit, an ECT packet the curve would mark is still refused, and the count resets.
    let mut q = red(RedParams { ecn: true, use_mark_p: false, limit: 20, ..pkt_params() });
    fill(&mut q, 20, 500, &mut rng);
    q.core.ave = 20.0;
    for i in 0..1000u32 {
        let v = q.enqueue(Time(5), &meta(500, true), PacketRef(i), &mut rng);
        assert_eq!(v, Verdict::Drop(DropReason::Overflow));
        assert_eq!((q.core.count, q.core.count_bytes), (0, 0));
    }
    assert_eq!(q.stats().marks, 0);
}

// ---------------------------------------------------------------------------------------------
// The queue limit (ns-2 enque: qlen >= qlim)

#[test]
fn limit_in_packets_counts_waiting_packets_only() {
    let mut q = red(RedParams { thresh: 100.0, maxthresh: 200.0, limit: 3, ..pkt_params() });
    let mut rng = Rng::from_seed(41);
    // An arrival at the idle link goes straight to the wire (enqueue, then dequeue).
    assert_eq!(q.enqueue(Time(0), &meta(500, false), PacketRef(0), &mut rng), Verdict::Enqueue);
    assert!(q.dequeue(Time(0)).is_some());
    for i in 1..=3 {
        assert_eq!(q.enqueue(Time(0), &meta(500, false), PacketRef(i), &mut rng), Verdict::Enqueue);
    }
    // Three waiting: 3 >= 3 refuses the fourth (ns-2: 1 on the wire + 3 waiting).
    let v = q.enqueue(Time(0), &meta(500, false), PacketRef(4), &mut rng);
    assert_eq!(v, Verdict::Drop(DropReason::Overflow));
    assert_eq!(q.len(), 3);
    assert!(q.dequeue(Time(1)).is_some());
    assert_eq!(q.enqueue(Time(1), &meta(500, false), PacketRef(5), &mut rng), Verdict::Enqueue);
    assert_eq!(q.stats().overflow_drops, 1);
}

#[test]
fn limit_in_bytes_admits_while_below_limit_times_mean_pktsize() {
    // queue_in_bytes, mean 500, limit 3: qlim = 1500 bytes; an arrival is admitted while fewer
    // than 1500 bytes wait, so the queue may overshoot (the sequence Debian's ns 2.35 gives).
    let p = RedParams { thresh: 100.0, maxthresh: 200.0, limit: 3, q_weight: W, ..RedParams::default() };
    let mut q = red(p);
    assert_eq!(q.resolved().qlim, 1500);
    let mut rng = Rng::from_seed(42);
    let mut offer = |q: &mut Red, i: u32, size: u64| q.enqueue(Time(0), &meta(size, false), PacketRef(i), &mut rng);
    assert_eq!(offer(&mut q, 0, 500), Verdict::Enqueue);
    assert!(q.dequeue(Time(0)).is_some()); // on the wire
    assert_eq!(offer(&mut q, 1, 1000), Verdict::Enqueue); // 0 waiting
    assert_eq!(offer(&mut q, 2, 400), Verdict::Enqueue); // 1000 < 1500
    assert_eq!(offer(&mut q, 3, 1000), Verdict::Enqueue); // 1400 < 1500
    assert_eq!(q.bytes(), Bytes(2400));
    assert_eq!(offer(&mut q, 4, 100), Verdict::Drop(DropReason::Overflow)); // 2400 >= 1500
}

// ---------------------------------------------------------------------------------------------
// Automatic parameters (ns-2 initialize_params, reset)

/// ns-2 initialize_params() for q_weight_ -1 and thresh_ 0, maxthresh_ 0, from the formulas.
fn expected_auto(bps: f64, delay_s: f64, mean: f64, targetdelay: f64) -> (f64, f64, f64) {
    let ptc = bps / (8.0 * mean);
    let rtt = (3.0 * (delay_s + 1.0 / ptc)).max(0.1);
    let w = 1.0 - (-1.0 / (10.0 * rtt * ptc)).exp();
    let th = (targetdelay * ptc / 2.0).max(5.0);
    (w, th, 3.0 * th)
}

#[test]
fn automatic_parameters_follow_ns2_initialize_params() {
    // (Debian's ns 2.35 prints the same q_weight_, thresh_ and maxthresh_ for these links.)
    for (bps, delay_ms) in [(2_000_000u64, 10u64), (100_000_000, 10), (10_000_000, 100)] {
        let q = Red::new(RedParams::default(), Rate::from_bps(bps), Dur::from_millis(delay_ms)).expect("valid");
        let r = q.resolved();
        let (w, th, maxth) = expected_auto(bps as f64, delay_ms as f64 / 1000.0, 500.0, 0.005);
        assert_eq!(r.ptc, bps as f64 / 4000.0);
        assert!((r.q_weight - w).abs() <= 1e-15 * w, "{bps} b/s: q_weight {} vs {w}", r.q_weight);
        assert_eq!((r.thresh_pkts, r.maxthresh_pkts), (th, maxth));
        // Default queue_in_bytes: the thresholds in bytes.
        assert_eq!((r.th_min, r.th_max), (th * 500.0, maxth * 500.0));
        assert_eq!(r.max_p, 0.1);
    }
    // 2 Mb/s: ptc = 500, rtt = max(0.1, 0.036) = 0.1, w = 1 - e^(-1/500); thresh = max(5, 1.25).
    let q = Red::new(RedParams::default(), Rate::from_bps(2_000_000), Dur::from_millis(10)).expect("valid");
    assert!((q.resolved().q_weight - (1.0 - (-1.0f64 / 500.0).exp())).abs() < 1e-18);
    assert_eq!(q.resolved().thresh_pkts, 5.0);
    // 100 Mb/s: ptc = 25000, thresh = 0.005 x 25000 / 2 = 62.5.
    let q = Red::new(RedParams::default(), Rate::from_bps(100_000_000), Dur::from_millis(10)).expect("valid");
    assert_eq!(q.resolved().thresh_pkts, 62.5);
    assert_eq!(q.resolved().maxthresh_pkts, 187.5);
}

#[test]
fn automatic_q_weight_zero_and_minus_two() {
    let link = (Rate::from_bps(2_000_000), Dur::from_millis(10));
    let q = Red::new(RedParams { q_weight: 0.0, ..RedParams::default() }, link.0, link.1).expect("valid");
    assert_eq!(q.resolved().q_weight, 1.0 - (-1.0f64 / 500.0).exp());
    let q = Red::new(RedParams { q_weight: -2.0, ..RedParams::default() }, link.0, link.1).expect("valid");
    assert_eq!(q.resolved().q_weight, 1.0 - (-10.0f64 / 500.0).exp());
    // A given weight and thresholds are kept; maxthresh 0 alone is 3 x thresh.
    let p = RedParams { q_weight: 0.002, thresh: 7.0, ..RedParams::default() };
    let q = Red::new(p, link.0, link.1).expect("valid");
    assert_eq!((q.resolved().q_weight, q.resolved().thresh_pkts, q.resolved().maxthresh_pkts), (0.002, 7.0, 21.0));
}

// ---------------------------------------------------------------------------------------------
// Conservation and determinism over a random workload

/// A single link served in FIFO order, arrivals Poisson at `load` x the link rate, sizes
/// uniform in [40, 1500], a fraction `ect` ECN-capable. Follows the ns-2 caller contract:
/// enqueue on arrival (then dequeue at once if the link is idle); dequeue when the link frees.
/// Checks conservation after every event and returns the verdicts.
fn workload(p: RedParams, seed: u64, arrivals: usize, load: f64, ect: f64) -> (Vec<Verdict>, QueueStats) {
    let rate = Rate::from_bps(2_000_000);
    let mut q = Red::new(p, rate, Dur::from_millis(10)).expect("valid");
    let mut qrng = Rng::stream(seed, "red");
    let mut wl = Rng::stream(seed, "workload");
    let mean_size = 770.0;
    let mean_gap = mean_size * 8.0 / (rate.as_bps_f64() * load);
    let mut t_arr = Time::ZERO;
    let mut link_free: Option<Time> = None; // Some(t): busy until t
    let mut dropped_bytes = 0u64;
    let mut out = Vec::with_capacity(arrivals);
    let check = |q: &Red, dropped_bytes: u64| {
        let s = q.stats();
        assert_eq!(s.arrivals_pkts, s.departures_pkts + s.drops() + q.len() as u64);
        assert_eq!(s.arrivals_bytes, s.departures_bytes + dropped_bytes + q.bytes().0);
        assert_eq!(q.bytes().0, q.q.iter().map(|e| e.size.0).sum::<u64>());
    };
    while out.len() < arrivals {
        match link_free {
            Some(tf) if tf <= t_arr => {
                link_free = q.dequeue(tf).map(|d| tf + rate.tx_time(d.size));
            }
            _ => {
                let size = 40 + wl.below(1461);
                let m = meta(size, wl.uniform() < ect);
                let v = q.enqueue(t_arr, &m, PacketRef(out.len() as u32), &mut qrng);
                if let Verdict::Drop(_) = v {
                    dropped_bytes += size;
                }
                if link_free.is_none() {
                    link_free = q.dequeue(t_arr).map(|d| t_arr + rate.tx_time(d.size));
                }
                out.push(v);
                t_arr += Dur::from_secs_f64(wl.exponential(mean_gap));
            }
        }
        check(&q, dropped_bytes);
        let a = q.average();
        assert!(a.is_finite() && a >= 0.0);
    }
    (out, *q.stats())
}

#[test]
fn conservation_over_a_random_workload() {
    // ns-2 defaults (byte mode, automatic parameters), overloaded, half the packets ECT, ECN on,
    // and a small limit so that every kind of verdict happens.
    let p = RedParams { ecn: true, limit: 20, ..RedParams::default() };
    let (_, s) = workload(p, 5, 30_000, 1.3, 0.5);
    assert!(s.early_drops > 0 && s.overflow_drops > 0 && s.marks > 0, "{s:?}");
    // Packet mode, without use_mark_p, so that forced drops happen too.
    let p = RedParams {
        bytes: false,
        queue_in_bytes: false,
        use_mark_p: false,
        gentle: false,
        thresh: 3.0,
        maxthresh: 6.0,
        q_weight: 0.05,
        ..RedParams::default()
    };
    let (_, s) = workload(p, 6, 30_000, 1.5, 0.0);
    assert!(s.early_drops > 0 && s.forced_drops > 0, "{s:?}");
}

#[test]
fn the_same_seed_gives_the_same_verdicts() {
    let p = RedParams { ecn: true, ..RedParams::default() };
    let (a, sa) = workload(p, 9, 10_000, 1.2, 0.3);
    let (b, sb) = workload(p, 9, 10_000, 1.2, 0.3);
    assert_eq!(a, b);
    assert_eq!(sa, sb);
    let (c, _) = workload(p, 10, 10_000, 1.2, 0.3);
    assert_ne!(a, c);
}

#[test]
fn valid_corner_parameters_never_panic() {
    // Equal thresholds (ns-2's th_diff = 1 fallback), linterm 1, q_weight 1, mark_p 0,
    // one-packet limit, and extreme link rates.
    let corners = [
        RedParams { thresh: 5.0, maxthresh: 5.0, ..RedParams::default() },
        RedParams { linterm: 1.0, q_weight: 1.0, mark_p: 0.0, ecn: true, ..RedParams::default() },
        RedParams { limit: 1, wait: false, gentle: false, ..RedParams::default() },
        RedParams { mean_pktsize: Bytes(1), bytes: true, ..RedParams::default() },
    ];
    for p in corners {
        workload(p, 3, 3000, 2.0, 0.5);
    }
    for bps in [1, u64::MAX] {
        if let Ok(mut q) = Red::new(RedParams::default(), Rate::from_bps(bps), Dur::MAX) {
            let mut rng = Rng::from_seed(0);
            for i in 0..100u32 {
                q.enqueue(Time(i as u64 * 1_000_000_007), &meta(1 << 40, true), PacketRef(i), &mut rng);
            }
            q.dequeue(Time::MAX);
            q.enqueue(Time::ZERO, &meta(1, false), PacketRef(0), &mut rng);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Validation

#[test]
fn defaults_are_ns2_2_35s() {
    let p = RedParams::default();
    assert_eq!((p.thresh, p.maxthresh, p.q_weight, p.linterm), (0.0, 0.0, -1.0, 10.0));
    assert!(p.gentle && p.wait && p.bytes && p.queue_in_bytes && p.use_mark_p && !p.ecn);
    assert_eq!((p.mean_pktsize, p.idle_pktsize, p.limit), (Bytes(500), Bytes(100), 50));
    assert_eq!((p.mark_p, p.targetdelay), (0.1, Dur::from_millis(5)));
    assert_eq!(p.validate(), Ok(()));
}

#[test]
fn validation_errors_name_the_field() {
    let link = (Rate::from_bps(10_000_000), Dur::from_millis(10));
    let bad = |p: RedParams| Red::new(p, link.0, link.1).expect_err("should be refused").field;
    let d = RedParams::default();
    assert_eq!(bad(RedParams { thresh: 20.0, maxthresh: 10.0, ..d }), "thresh");
    assert_eq!(bad(RedParams { thresh: -1.0, ..d }), "thresh");
    assert_eq!(bad(RedParams { thresh: f64::NAN, ..d }), "thresh");
    assert_eq!(bad(RedParams { maxthresh: -1.0, ..d }), "maxthresh");
    assert_eq!(bad(RedParams { maxthresh: f64::INFINITY, ..d }), "maxthresh");
    for w in [1.5, -0.5, -3.0, -1.000001, f64::NAN, f64::INFINITY] {
        assert_eq!(bad(RedParams { q_weight: w, ..d }), "q_weight", "q_weight {w}");
    }
    assert_eq!(bad(RedParams { linterm: 0.5, ..d }), "linterm");
    assert_eq!(bad(RedParams { linterm: f64::NAN, ..d }), "linterm");
    assert_eq!(bad(RedParams { mean_pktsize: Bytes(0), ..d }), "mean_pktsize");
    assert_eq!(bad(RedParams { idle_pktsize: Bytes(0), ..d }), "idle_pktsize");
    assert_eq!(bad(RedParams { mark_p: -0.1, ..d }), "mark_p");
    assert_eq!(bad(RedParams { limit: 0, ..d }), "limit");
    // The automatic thresh for 100 Mb/s is 62.5 packets, above a given maxthresh of 20.
    let e = Red::new(RedParams { maxthresh: 20.0, ..d }, Rate::from_bps(100_000_000), link.1).expect_err("refused");
    assert_eq!(e.field, "thresh");
    assert_eq!(Red::new(d, Rate::from_bps(0), link.1).expect_err("refused").field, "link_rate");
    // The accepted special and boundary values.
    for w in [0.0, -1.0, -2.0, 1.0, 1e-9] {
        assert!(Red::new(RedParams { q_weight: w, ..d }, link.0, link.1).is_ok(), "q_weight {w}");
    }
    assert!(Red::new(RedParams { linterm: 1.0, mark_p: 2.0, ..d }, link.0, link.1).is_ok());
}

#[test]
fn byte_mode_average_in_packets_uses_the_arriving_packet_size() {
    // ns-2's default mean_pktsize (500) with 1000-byte packets: ave_ is in bytes, and in
    // packets it must compare with the actual queue, so it is divided by 1000, not 500.
    let p = RedParams { thresh: 50.0, maxthresh: 100.0, q_weight: W, ..RedParams::default() };
    let mut q = red(p);
    let mut rng = Rng::from_seed(5);
    fill(&mut q, 4, 1000, &mut rng);
    let ave_bytes = q.average();
    assert!(ave_bytes > 0.0);
    assert_eq!(q.average_pkts(), Some(ave_bytes / 1000.0));
}

/// The core's estimator applied to another average (a class's, in D-CBT) is RED's own: the same
/// idle decay and weight give the same number.
#[test]
fn the_cores_estimator_is_reds_for_any_average() {
    let mut q = red(pkt_params());
    let mut rng = Rng::from_seed(3);
    fill(&mut q, 6, 1000, &mut rng);
    let before = q.average();
    let mut core = q.core().clone();
    // An idle second at 10 Mb/s: m = trunc(ptc x 1 s) packet times of decay, then an arrival.
    core.went_idle(Time::from_secs_f64(1.0));
    let m = core.arrive(Time::from_secs_f64(2.0), 4);
    assert_eq!(m, (core.resolved().ptc * 1.0) as u64);
    assert_eq!(core.ewma(before, 4, m).to_bits(), core.average().to_bits());
    assert!(core.average() < before, "decayed");
}
