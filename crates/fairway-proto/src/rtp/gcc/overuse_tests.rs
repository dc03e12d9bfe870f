use super::*;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9
}

#[test]
fn threshold_adaptation_worked_values() {
    // |m| above the threshold: K_u. 12.5 + 0.0087 * (20 - 12.5) * 10 = 13.1525.
    assert!(close(adapt_threshold(12.5, 20.0, 10.0, K_UP, K_DOWN), 13.1525));
    // Sign does not matter.
    assert!(close(adapt_threshold(12.5, -20.0, 10.0, K_UP, K_DOWN), 13.1525));
    // Below: K_d. 12.5 + 0.039 * (0 - 12.5) * 10 = 7.625.
    assert!(close(adapt_threshold(12.5, 0.0, 10.0, K_UP, K_DOWN), 7.625));
    // Clamped below at 6 ms: 12.5 - 0.039 * 12.5 * 100 < 6.
    assert!(close(adapt_threshold(12.5, 0.0, 100.0, K_UP, K_DOWN), THRESHOLD_MIN));
    // The step is at most 100 ms: 500 ms moves it as far as 100 ms.
    assert!(close(
        adapt_threshold(100.0, 110.0, 500.0, K_UP, K_DOWN),
        adapt_threshold(100.0, 110.0, 100.0, K_UP, K_DOWN)
    ));
    assert!(close(adapt_threshold(100.0, 110.0, 100.0, K_UP, K_DOWN), 108.7));
    // Clamped above at 600 ms.
    assert!(close(adapt_threshold(599.0, 610.0, 100.0, K_UP, K_DOWN), THRESHOLD_MAX));
    // More than 15 ms above: no change (draft §5.4).
    assert!(close(adapt_threshold(12.5, 27.6, 10.0, K_UP, K_DOWN), 12.5));
    assert!(adapt_threshold(12.5, 27.5, 10.0, K_UP, K_DOWN) > 12.5);
}

#[test]
fn overuse_needs_ten_ms_two_deltas_and_a_rising_trend() {
    let mut d = OveruseDetector::default();
    // The first delta never signals.
    assert_eq!(d.detect(1.0, 5.0, 0.0), Usage::Normal);
    // m = 2 * 1.0 * 4 = 8 < 12.5: normal; the threshold's first update has no elapsed time.
    assert_eq!(d.detect(1.0, 5.0, 5.0), Usage::Normal);
    assert_eq!(d.threshold(), INITIAL_THRESHOLD);
    // m = 3 * 2 * 4 = 24 > threshold: time over = 5/2 = 2.5 ms, count 1: not yet; the threshold
    // rises by K_u: 12.5 + 0.0087 * (24 - 12.5) * 5.
    assert_eq!(d.detect(2.0, 5.0, 10.0), Usage::Normal);
    assert!(close(d.threshold(), 12.5 + 0.0087 * 11.5 * 5.0));
    // 7.5 ms: not yet.
    assert_eq!(d.detect(2.0, 5.0, 15.0), Usage::Normal);
    // 12.5 ms > 10, count 3, trend not falling: over-use.
    assert_eq!(d.detect(2.0, 5.0, 20.0), Usage::Overusing);
    // It stays over-using while m stays high.
    assert_eq!(d.detect(2.0, 5.0, 25.0), Usage::Overusing);
    // Back within the threshold: normal.
    assert_eq!(d.detect(0.0, 5.0, 30.0), Usage::Normal);
}

#[test]
fn a_falling_trend_delays_overuse() {
    let mut d = OveruseDetector::default();
    d.detect(0.0, 5.0, 0.0);
    d.detect(0.0, 5.0, 5.0);
    // Above the threshold but falling each time: time accumulates, no signal.
    for (i, trend) in [4.0, 3.5, 3.0, 2.5].into_iter().enumerate() {
        assert_eq!(d.detect(trend, 20.0, 10.0 + 20.0 * i as f64), Usage::Normal);
    }
    // Rising again: over-use at once.
    assert_eq!(d.detect(2.6, 20.0, 100.0), Usage::Overusing);
}

#[test]
fn underuse_below_minus_threshold() {
    let mut d = OveruseDetector::default();
    d.detect(0.0, 5.0, 0.0);
    // m = 2 * -2 * 4 = -16 < -12.5.
    assert_eq!(d.detect(-2.0, 5.0, 5.0), Usage::Underusing);
    assert!(close(d.modified_trend(), -16.0));
}

#[test]
fn trend_is_scaled_by_deltas_up_to_sixty() {
    let mut d = OveruseDetector::default();
    for i in 0..100 {
        d.detect(0.001, 5.0, 5.0 * i as f64);
        let n = (i + 1).min(MAX_DELTAS_SCALE as usize) as f64;
        if i >= 1 {
            assert!(close(d.modified_trend(), n * 0.001 * THRESHOLD_GAIN), "{i}");
        }
    }
}
