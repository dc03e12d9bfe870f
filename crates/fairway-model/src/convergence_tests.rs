//! The convergence measure worked by hand.

use super::*;
use crate::results::Collector;

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
fn a_flow_is_judged_over_the_long_periods_it_runs_through_and_not_while_paused() {
    // Events at 10, 30, 33 and 50 s in a 60 s run: periods 0-10, 10-30, 30-33 (too short to
    // judge), 33-50, 50-60. The flow runs 10-60 and pauses 33-50.
    let r: Vec<f64> = (0..60).map(|s| if s < 12 || (33..52).contains(&s) { 100.0 } else { 1000.0 }).collect();
    let w = rates(0.0, &r);
    let p = judged_periods(&[10.0, 30.0, 33.0, 50.0], 60.0);
    assert_eq!(p, [(0.0, 10.0), (10.0, 30.0), (33.0, 50.0), (50.0, 60.0)]);
    let c = convergence(&w, &p, (10.0, 60.0), &[(33.0, 50.0)]);
    // Judged: 10-30 (at 1000 from 12 s: 2 s) and 50-60 (from 52 s: 2 s).
    assert_eq!(c, Convergence { periods: 2, converged: 2, mean_s: Some(2.0) });
    // Without the pause the 33-50 period is judged too and converges at once (100 throughout
    // until 50 s... then 1000): settled over 45-50 s is 100, held from 33 s.
    let c = convergence(&w, &p, (10.0, 60.0), &[]);
    assert_eq!(c, Convergence { periods: 3, converged: 3, mean_s: Some(4.0 / 3.0) });
    // A flow that never settles converges in none of its periods.
    let osc: Vec<f64> = (0..60).map(|i| if i % 2 == 0 { 1300.0 } else { 700.0 }).collect();
    let c = convergence(&rates(0.0, &osc), &judged_periods(&[30.0], 60.0), (0.0, 60.0), &[]);
    assert_eq!(c, Convergence { periods: 2, converged: 0, mean_s: None });
}

fn row(bytes: u64) -> BinRow {
    BinRow { distinct_bytes: bytes, ..BinRow::default() }
}

#[test]
fn the_tap_sums_bins_into_whole_one_second_windows_and_passes_every_bin_on() {
    // Two flows, 250 ms bins, a run of 2.5 s: 10 bins; flow 0 gets 1000 B a bin (32 kb/s),
    // flow 1 nothing until 1 s, then 500 B a bin. The half window at 2-2.5 s is not made.
    let mut inner = Collector::new(2, &[]);
    let bin = Dur::from_millis(250);
    let mut tap = WindowTap::new(&mut inner, 2, bin);
    for k in 0..10 {
        let t0 = Time(k as u64 * bin.0);
        tap.bin(k, t0, t0 + bin, &[row(1000), row(if k >= 4 { 500 } else { 0 })]);
    }
    let end = Time(2_500_000_000);
    assert_eq!(tap.rates(0, end), [(0.0, 32000.0), (1.0, 32000.0)]);
    assert_eq!(tap.rates(1, end), [(0.0, 0.0), (1.0, 16000.0)]);
    // Stopped at 1.5 s: one whole window.
    assert_eq!(tap.rates(1, Time(1_500_000_000)), [(0.0, 0.0)]);
    drop(tap);
    assert_eq!(inner.flow_bins[0].len(), 10);
    // A run that keeps its bins (the live one's) gets the same windows from them.
    assert_eq!(bin_rates(&inner.flow_bins[1], bin, end), [(0.0, 0.0), (1.0, 16000.0)]);
    assert_eq!(bin_rates(&inner.flow_bins[1], Dur::from_millis(300), end), []);
    // A bin that does not divide 1 s gives no windows; one that does, however coarse, does.
    assert_eq!(bins_per_window(Dur::from_millis(300)), None);
    assert_eq!(bins_per_window(Dur::from_millis(2000)), None);
    assert_eq!(bins_per_window(Dur::from_millis(1000)), Some(1));
    assert_eq!(bins_per_window(Dur::from_millis(100)), Some(10));
}
