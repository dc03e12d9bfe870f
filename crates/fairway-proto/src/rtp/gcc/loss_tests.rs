use super::*;

fn t(ms: u64) -> Time {
    Time(ms * 1_000_000)
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

#[test]
fn loss_rule_thresholds() {
    // Below 2 %: 1.08 x the base + 1 kb/s.
    assert_eq!(classic_rule(1e6, 9e5, 0.0), Some(9e5 * 1.08 + 1000.0));
    assert_eq!(classic_rule(1e6, 9e5, 0.019), Some(9e5 * 1.08 + 1000.0));
    // At 2 %: still an increase (WebRTC's <=).
    assert!(classic_rule(1e6, 1e6, 0.02).is_some_and(|r| r > 1e6));
    // 2 % to 10 %: hold.
    assert_eq!(classic_rule(1e6, 1e6, 0.021), None);
    assert_eq!(classic_rule(1e6, 1e6, 0.05), None);
    assert_eq!(classic_rule(1e6, 1e6, 0.10), None);
    // Over 10 %: x (1 - 0.5 p).
    assert!(close(classic_rule(1e6, 1e6, 0.15).unwrap(), 925_000.0, 1e-6));
    assert!(close(classic_rule(1e6, 1e6, 0.5).unwrap(), 750_000.0, 1e-6));
}

#[test]
fn fraction_in_eight_bit_fixed_point() {
    assert_eq!(fraction_q8(0, 100), 0);
    // 5/100 x 256 = 12.8 -> 12.
    assert_eq!(fraction_q8(5, 100), 12);
    assert_eq!(fraction_q8(15, 100), 38);
    assert_eq!(fraction_q8(100, 100), 255);
    assert_eq!(fraction_q8(1, 0), 0);
}

/// Past the start phase with one loss-free report, so the rule acts.
fn settled(start: f64) -> LossBased {
    let mut l = LossBased::new(start, 5_000.0, 1e9);
    l.on_report(t(0), 0, 100);
    l.update(t(3000));
    l
}

#[test]
fn high_loss_decreases_once_per_report_and_interval() {
    let mut l = settled(1_000_000.0);
    let before = l.rate_bps();
    // 15 of 100 lost: fraction 38/256; the rate x (512 - 38) / 512.
    l.on_report(t(4000), 15, 100);
    let after = l.rate_bps();
    assert!(close(after, before * (512.0 - 38.0) / 512.0, 1e-6), "{before} -> {after}");
    // The next process intervals: no second decrease for the same report.
    l.update(t(4025));
    l.update(t(4400));
    assert_eq!(l.rate_bps(), after);
    // A new report, a second later: decreases again.
    l.on_report(t(5001), 15, 100);
    assert!(l.rate_bps() < after);
}

#[test]
fn mid_loss_holds_and_low_loss_increases() {
    let mut l = settled(1_000_000.0);
    let r0 = l.rate_bps();
    l.on_report(t(4000), 5, 100);
    l.update(t(4500));
    assert_eq!(l.rate_bps(), r0);
    l.on_report(t(5001), 1, 100);
    // 1 % (fraction 2/256): up, to 1.08 x the smallest of the last second + 1 kb/s.
    assert!(close(l.rate_bps(), r0 * 1.08 + 1000.0, 1e-6), "{}", l.rate_bps());
}

#[test]
fn a_fraction_needs_twenty_packets_and_a_second() {
    let mut l = LossBased::new(1_000_000.0, 5_000.0, 1e9);
    // 10 packets, all lost: fewer than 20, nothing yet.
    l.on_report(t(0), 10, 10);
    assert_eq!(l.loss_fraction(), 0.0);
    // Within the second: only counted.
    l.on_report(t(500), 10, 10);
    assert_eq!(l.loss_fraction(), 0.0);
    // Past it: 20 of 20 lost.
    l.on_report(t(1001), 0, 0);
    assert!(close(l.loss_fraction(), 255.0 / 256.0, 1e-12));
}

#[test]
fn capped_by_the_delay_based_estimate() {
    let mut l = settled(1_000_000.0);
    l.on_delay_based(600_000.0);
    assert_eq!(l.rate_bps(), 600_000.0);
    // Low loss would raise it, but not past the delay-based estimate.
    l.on_report(t(4000), 0, 100);
    assert_eq!(l.rate_bps(), 600_000.0);
}

#[test]
fn start_phase_follows_the_delay_based_estimate_up() {
    let mut l = LossBased::new(300_000.0, 5_000.0, 1e9);
    l.on_report(t(0), 0, 100);
    l.on_delay_based(500_000.0);
    l.update(t(100));
    assert_eq!(l.rate_bps(), 500_000.0);
    // After 2 s the rule takes over: at most 8 %/s over the last second's smallest.
    l.on_delay_based(2_000_000.0);
    l.update(t(2100));
    assert!(close(l.rate_bps(), 500_000.0 * 1.08 + 1000.0, 1e-6), "{}", l.rate_bps());
}

#[test]
fn floors_and_ceilings() {
    let mut l = LossBased::new(100_000.0, 50_000.0, 120_000.0);
    l.on_report(t(0), 0, 100);
    l.update(t(3000));
    l.update(t(4000));
    assert_eq!(l.rate_bps(), 120_000.0);
    for i in 0..20 {
        l.on_report(t(5000 + 1001 * i), 90, 100);
    }
    assert_eq!(l.rate_bps(), 50_000.0);
}
