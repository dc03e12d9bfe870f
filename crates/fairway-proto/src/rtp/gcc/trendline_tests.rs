use super::*;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

#[test]
fn slope_of_a_known_series() {
    // y = 2x + 1 exactly.
    let pts = [(0.0, 1.0), (1.0, 3.0), (2.0, 5.0), (3.0, 7.0)];
    assert!(close(slope(pts.iter().copied()).unwrap(), 2.0, 1e-12));
    // x = 0, 1, 2; y = 0, 1, 5: mean (1, 2); sum dx dy = (-1)(-2) + 0 + (1)(3) = 5; sum dx^2 = 2.
    let pts = [(0.0, 0.0), (1.0, 1.0), (2.0, 5.0)];
    assert!(close(slope(pts.iter().copied()).unwrap(), 2.5, 1e-12));
    // No spread in x, or too few points: no slope.
    assert_eq!(slope([(1.0, 0.0), (1.0, 5.0)].iter().copied()), None);
    assert_eq!(slope([(1.0, 0.0)].iter().copied()), None);
}

#[test]
fn smoothing_worked_values() {
    let mut t = Trendline::default();
    // First delta: d = 12 - 10 = 2 ms; accumulated 2; smoothed 0.9 * 0 + 0.1 * 2 = 0.2.
    t.update(12.0, 10.0, 100.0);
    assert!(close(t.accumulated_ms(), 2.0, 1e-12));
    assert!(close(t.smoothed_ms(), 0.2, 1e-12));
    // Second: d = 1; accumulated 3; smoothed 0.9 * 0.2 + 0.1 * 3 = 0.48.
    t.update(11.0, 10.0, 110.0);
    assert!(close(t.smoothed_ms(), 0.48, 1e-12));
}

#[test]
fn trend_is_zero_until_the_window_fills_then_the_delay_slope() {
    let mut t = Trendline::default();
    // Every group 10 ms apart at the sender and 11 ms at the receiver: 1 ms of queue per 11 ms
    // of arrival time, so once the smoothing has settled the slope is 1/11.
    let mut at = 0.0;
    for i in 0..WINDOW - 1 {
        at += 11.0;
        assert_eq!(t.update(11.0, 10.0, at), 0.0, "delta {i}");
    }
    at += 11.0;
    assert!(t.update(11.0, 10.0, at) > 0.0);
    for _ in 0..300 {
        at += 11.0;
        t.update(11.0, 10.0, at);
    }
    assert!(close(t.trend(), 1.0 / 11.0, 1e-9), "{}", t.trend());
    // A draining queue: the trend turns negative.
    for _ in 0..300 {
        at += 9.0;
        t.update(9.0, 10.0, at);
    }
    assert!(close(t.trend(), -1.0 / 9.0, 1e-9), "{}", t.trend());
}
