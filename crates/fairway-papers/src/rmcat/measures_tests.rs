//! The measures on series worked by hand.

use super::*;

/// Window rates (start, b/s) one a second from `from`.
fn rates(from: f64, r: &[f64]) -> Vec<(f64, f64)> {
    r.iter().enumerate().map(|(i, &x)| (from + i as f64, x)).collect()
}

#[test]
fn a_flow_that_ramps_and_settles_converges_where_it_enters_the_band_and_holds_it() {
    // 0-20 s: ramps 100, 300, 500, 700, 850, then 1000 +- 5% to the end. Settled: the mean of
    // the last 5 s, 1010; the first five windows in a row within 909-1111 start at 5 s.
    let mut r = vec![100.0, 300.0, 500.0, 700.0, 850.0];
    r.extend((0..15).map(|i| if i % 2 == 0 { 1050.0 } else { 950.0 }));
    let w = rates(0.0, &r);
    let settled: f64 = r[15..].iter().sum::<f64>() / 5.0;
    assert_eq!(settled, 1010.0);
    assert_eq!(convergence_time(&w, 0.0, 20.0), Some(5.0));
    // Counted from the period's start: the same flow in a period from 40 s.
    assert_eq!(convergence_time(&rates(40.0, &r), 40.0, 60.0), Some(5.0));
    // One excursion later (a key frame at 12 s) does not move it; one inside the first five
    // windows does: in the band at 5-7 s, out at 8 s, then five in a row from 9 s.
    let mut late = r.clone();
    late[12] = 1300.0;
    assert_eq!(convergence_time(&rates(0.0, &late), 0.0, 20.0), Some(5.0));
    let mut early = r.clone();
    early[8] = 1300.0;
    assert_eq!(convergence_time(&rates(0.0, &early), 0.0, 20.0), Some(9.0));
}

#[test]
fn a_flow_already_settled_converges_at_once_and_one_still_moving_never() {
    assert_eq!(convergence_time(&rates(0.0, &[500.0; 10]), 0.0, 10.0), Some(0.0));
    // An oscillation of +-30% never holds a 10% band around its mean.
    let osc: Vec<f64> = (0..20).map(|i| if i % 2 == 0 { 1300.0 } else { 700.0 }).collect();
    assert_eq!(convergence_time(&rates(0.0, &osc), 0.0, 20.0), None);
    // Too short a period (under 5 s of settling and one window), or nothing sent: none.
    assert_eq!(convergence_time(&rates(0.0, &[500.0; 5]), 0.0, 5.5), None);
    assert_eq!(convergence_time(&rates(0.0, &[0.0; 10]), 0.0, 10.0), None);
}

#[test]
fn periods_cut_at_every_event_inside_the_run() {
    assert_eq!(
        periods(&[40.0, 60.0, 0.0, 80.0, 60.0, 100.0], 100.0),
        [(0.0, 40.0), (40.0, 60.0), (60.0, 80.0), (80.0, 100.0)]
    );
    assert_eq!(periods(&[], 10.0), [(0.0, 10.0)]);
}

#[test]
fn windows_sum_bins_into_whole_windows() {
    // 500 ms bins of 1000 bytes: 16 kb/s over 1 s windows; a half window at the end is left out.
    let bins: Vec<(f64, f64)> = (0..5).map(|i| (i as f64 * 0.5, 1000.0)).collect();
    assert_eq!(windows(&bins, 0.5, 1.0), [(0.0, 16000.0), (1.0, 16000.0)]);
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
