//! The measures on series worked by hand.

use super::*;

/// Window rates (start, b/s) one a second from `from`.
fn rates(from: f64, r: &[f64]) -> Vec<(f64, f64)> {
    r.iter().enumerate().map(|(i, &x)| (from + i as f64, x)).collect()
}

#[test]
fn jain_is_one_for_equal_shares_and_one_over_n_for_a_monopoly() {
    assert_eq!(jain(&[3.0, 3.0, 3.0]), Some(1.0));
    assert!((jain(&[1.0, 0.0, 0.0, 0.0]).unwrap() - 0.25).abs() < 1e-12);
    // Two flows at 1 and 3: 16 / (2 x 10) = 0.8.
    assert!((jain(&[1.0, 3.0]).unwrap() - 0.8).abs() < 1e-12);
    assert_eq!(jain(&[5.0]), None);
}

#[test]
fn utilisation_divides_each_window_by_the_capacity_in_force() {
    // 1 Mb/s until 2 s, then 2 Mb/s; 900 kb/s through throughout: 0.9, 0.9, 0.45, 0.45.
    let cap = [(0.0, 1e6), (2.0, 2e6)];
    let through = rates(0.0, &[9e5; 4]);
    assert!((utilisation(&through, &cap, 0.0, 4.0).unwrap() - 0.675).abs() < 1e-12);
    assert!((utilisation(&through, &cap, 2.0, 4.0).unwrap() - 0.45).abs() < 1e-12);
    assert_eq!(step_at(&cap, 1.999), 1e6);
    assert_eq!(step_at(&cap, 2.0), 2e6);
}

#[test]
fn windows_sum_bins_into_whole_windows() {
    // 500 ms bins of 1000 bytes: 16 kb/s over 1 s windows; a half window at the end is left out.
    let bins: Vec<(f64, f64)> = (0..5).map(|i| (i as f64 * 0.5, 1000.0)).collect();
    assert_eq!(windows(&bins, 0.5, 1.0), [(0.0, 16000.0), (1.0, 16000.0)]);
}
