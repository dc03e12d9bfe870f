use super::*;

fn t(ms: u64) -> Time {
    Time(ms * 1_000_000)
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

#[test]
fn overuse_decreases_to_beta_times_acked() {
    let mut a = Aimd::new(1_000_000.0, 5_000.0, BETA);
    // 0.85 x 800 kb/s - 5 kb/s (WebRTC's offset) = 675 kb/s.
    let r = a.update(Usage::Overusing, Some(800_000.0), t(1000));
    assert!(close(r, 675_000.0, 1e-6), "{r}");
    assert_eq!(a.state(), RateState::Hold);
    // The over-use measured the link: 800 kb/s.
    assert!(close(a.link_capacity().estimate_bps().unwrap(), 800_000.0, 1e-6));
}

#[test]
fn overuse_never_increases() {
    let mut a = Aimd::new(500_000.0, 5_000.0, BETA);
    // 0.85 x 800 - 5 = 675 > 500, and no capacity estimate yet: stays at 500.
    let r = a.update(Usage::Overusing, Some(800_000.0), t(1000));
    assert!(close(r, 500_000.0, 1e-6), "{r}");
}

#[test]
fn multiplicative_increase_is_eight_percent_a_second() {
    let mut a = Aimd::new(1_000_000.0, 5_000.0, BETA);
    // Hold -> increase: no time has passed, so the smallest step, 1 kb/s.
    let r0 = a.update(Usage::Normal, Some(1_000_000.0), t(0));
    assert!(close(r0, 1_001_000.0, 1e-6), "{r0}");
    // One second on: x 1.08.
    let r1 = a.update(Usage::Normal, Some(1_000_000.0), t(1000));
    assert!(close(r1, r0 * 1.08, 1e-3), "{r1}");
    // Half a second: x 1.08^0.5.
    let r2 = a.update(Usage::Normal, Some(1_000_000.0), t(1500));
    assert!(close(r2, r1 * 1.08f64.sqrt(), 1e-3), "{r2}");
    // A gap over a second counts as one second.
    let r3 = a.update(Usage::Normal, Some(1_000_000.0), t(4500));
    assert!(close(r3, r2 * 1.08, 1e-3), "{r3}");
}

#[test]
fn increase_is_capped_at_one_and_a_half_acked_plus_ten_kbps() {
    let mut a = Aimd::new(1_000_000.0, 5_000.0, BETA);
    a.update(Usage::Normal, Some(600_000.0), t(0));
    // 1.5 x 600 + 10 = 910 kb/s is below the rate: no increase.
    let r = a.update(Usage::Normal, Some(600_000.0), t(1000));
    assert!(close(r, 1_000_000.0, 1e-6), "{r}");
    let mut a = Aimd::new(600_000.0, 5_000.0, BETA);
    a.update(Usage::Normal, Some(400_000.0), t(0));
    // 1.08 x 601 = 649 kb/s > 1.5 x 400 + 10 = 610 kb/s: capped.
    let r = a.update(Usage::Normal, Some(400_000.0), t(1000));
    assert!(close(r, 610_000.0, 1e-6), "{r}");
}

#[test]
fn additive_increase_near_the_link_capacity() {
    // 1 Mb/s at RTT 100 ms: frames of 4167 bytes in 4 packets of 1041.75 bytes = 8334 bits per
    // response time of 2 x (100 + 100) ms: 20 835 b/s per second.
    assert!(close(near_max_increase_bps_per_s(1_000_000.0, Dur::from_millis(100)), 20_835.0, 1e-6));
    // Small rates: at least 4 kb/s per second.
    assert!(close(near_max_increase_bps_per_s(50_000.0, Dur::from_millis(500)), 4_000.0, 1e-9));

    let mut a = Aimd::new(1_000_000.0, 5_000.0, BETA);
    a.set_rtt(Dur::from_millis(100));
    a.update(Usage::Overusing, Some(1_000_000.0), t(0));
    let after = a.rate_bps();
    assert!(close(after, 845_000.0, 1e-6));
    // Normal: hold -> increase (no time passed, no step).
    let r0 = a.update(Usage::Normal, Some(900_000.0), t(100));
    assert!(close(r0, after, 1e-6), "{r0}");
    // Half a second on, the acknowledged rate near the capacity: additive.
    let r1 = a.update(Usage::Normal, Some(900_000.0), t(600));
    let step = near_max_increase_bps_per_s(after, Dur::from_millis(100)) * 0.5;
    assert!(close(r1, after + step, 1e-6), "{r1}");
}

#[test]
fn underuse_holds() {
    let mut a = Aimd::new(1_000_000.0, 5_000.0, BETA);
    a.update(Usage::Normal, Some(1_000_000.0), t(0));
    let r = a.update(Usage::Underusing, Some(1_000_000.0), t(1000));
    assert!(close(r, 1_001_000.0, 1e-6));
    assert_eq!(a.state(), RateState::Hold);
}

#[test]
fn further_decreases_wait_an_rtt_unless_acked_halves() {
    let mut a = Aimd::new(1_000_000.0, 5_000.0, BETA);
    a.set_rtt(Dur::from_millis(100));
    a.update(Usage::Overusing, Some(1_000_000.0), t(0));
    assert!(!a.time_to_reduce_further(t(50), 800_000.0));
    assert!(a.time_to_reduce_further(t(100), 800_000.0));
    // Acked below half the estimate (845 kb/s / 2): at once.
    assert!(a.time_to_reduce_further(t(50), 400_000.0));
    // An RTT over 200 ms counts as 200 ms.
    a.set_rtt(Dur::from_millis(900));
    assert!(a.time_to_reduce_further(t(200), 800_000.0));
}

#[test]
fn link_capacity_bounds() {
    let mut l = LinkCapacity::default();
    assert_eq!(l.upper_bps(), f64::INFINITY);
    assert_eq!(l.lower_bps(), 0.0);
    l.on_overuse(1_000_000.0);
    // First sample: 1000 kb/s, deviation at its floor 0.4: std = sqrt(0.4 x 1000) = 20 kb/s.
    assert!(close(l.upper_bps(), 1_060_000.0, 1e-6));
    assert!(close(l.lower_bps(), 940_000.0, 1e-6));
    // Second sample 800 kb/s: 0.95 x 1000 + 0.05 x 800 = 990 kb/s.
    l.on_overuse(800_000.0);
    assert!(close(l.estimate_bps().unwrap(), 990_000.0, 1e-6));
}
