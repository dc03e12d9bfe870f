use super::*;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

#[test]
fn bayes_update_worked_value() {
    // Estimate 1000 kb/s, variance 50, sample 500: uncertainty 10 x 500 / 1500 = 10/3, sample
    // variance 100/9; predicted variance 55; estimate (100/9 x 1000 + 55 x 500) / (100/9 + 55).
    let (e, v) = bayes_update(1000.0, 50.0, 500.0, UNCERTAINTY_SCALE);
    let sv = 100.0 / 9.0;
    assert!(close(e, (sv * 1000.0 + 55.0 * 500.0) / (sv + 55.0), 1e-9), "{e}");
    assert!(close(v, sv * 55.0 / (sv + 55.0), 1e-9), "{v}");
    // A sample equal to the estimate has no uncertainty: taken whole.
    let (e, v) = bayes_update(800.0, 50.0, 800.0, UNCERTAINTY_SCALE);
    assert!(close(e, 800.0, 1e-9) && v == 0.0);
}

#[test]
fn constant_arrivals_give_their_rate() {
    let mut a = AckedRate::default();
    // 1250 bytes every 10 ms: 1 Mb/s.
    for i in 0..49 {
        a.on_packet(Time(i * 10_000_000), 1250);
    }
    // Not yet a full first window (500 ms).
    assert_eq!(a.rate_bps(), None);
    for i in 49..400 {
        a.on_packet(Time(i * 10_000_000), 1250);
    }
    assert!(close(a.rate_bps().unwrap(), 1_000_000.0, 1.0), "{:?}", a.rate_bps());
}

#[test]
fn follows_a_rate_change() {
    let mut a = AckedRate::default();
    let mut at = 0;
    for _ in 0..200 {
        a.on_packet(Time(at), 1250);
        at += 10_000_000;
    }
    // Half the rate: 1250 bytes every 20 ms.
    for _ in 0..200 {
        a.on_packet(Time(at), 1250);
        at += 20_000_000;
    }
    // Within a window's granularity (7 or 8 packets per 150 ms window: 467 or 533 kb/s).
    assert!(close(a.rate_bps().unwrap(), 500_000.0, 50_000.0), "{:?}", a.rate_bps());
}
