use super::*;
use crate::rtp::rfc8888::Ecn;
use fairway_core::Bytes;

#[test]
fn config_check() {
    assert!(GccConfig::default().check().is_ok());
    let bad = [
        GccConfig { min_rate_bps: 0.0, ..GccConfig::default() },
        GccConfig { max_rate_bps: f64::NAN, ..GccConfig::default() },
        GccConfig { min_rate_bps: 2e6, max_rate_bps: 1e6, start_rate_bps: 1.5e6, ..GccConfig::default() },
        GccConfig { start_rate_bps: 20e6, ..GccConfig::default() },
        GccConfig { pacing_factor: 0.5, ..GccConfig::default() },
        GccConfig { beta: 1.0, ..GccConfig::default() },
        GccConfig { process_interval: Dur::ZERO, ..GccConfig::default() },
        GccConfig { acked_initial_window: Dur::from_millis(100), ..GccConfig::default() },
        GccConfig { acked_initial_window: Dur::from_secs(2), ..GccConfig::default() },
    ];
    for c in bad {
        assert!(c.check().is_err(), "{c:?}");
        assert!(Gcc::new(c).is_err());
    }
}

#[test]
fn starts_at_the_start_rate_and_paces_at_two_and_a_half_times() {
    let g = Gcc::new(GccConfig::default()).unwrap();
    let v = SenderView::default();
    assert_eq!(g.name(), "gcc");
    assert_eq!(g.target_rate(&v), 300_000.0);
    assert_eq!(g.pacing_rate(&v), 750_000.0);
    let s = g.state(&v);
    assert_eq!(s.rate_bps, Some(300_000.0));
    assert_eq!(s.loss_event_rate, Some(0.0));
}

#[test]
fn timer_runs_every_process_interval() {
    let mut g = Gcc::new(GccConfig::default()).unwrap();
    let v = SenderView::default();
    assert_eq!(g.next_timer(), None);
    g.start(Time::ZERO);
    assert_eq!(g.next_timer(), Some(Time::ZERO + PROCESS_INTERVAL));
    g.on_timer(Time(Dur::from_millis(80).0), &v);
    assert_eq!(g.next_timer(), Some(Time(Dur::from_millis(100).0)));
}

/// A closed loop on a 1 Mb/s, 300 ms-buffer link: the target settles near the capacity and the
/// detector keeps the queue short.
#[test]
fn closed_loop_settles_near_capacity() {
    let cap = 1_000_000.0;
    let v = SenderView::default();
    let mut g = Gcc::new(GccConfig { start_rate_bps: 500_000.0, ..GccConfig::default() }).unwrap();
    g.start(Time::ZERO);
    let mut busy = 0u64;
    let mut next_send = 0u64;
    let mut seq = 0u64;
    let mut batch: Vec<PacketResult> = Vec::new();
    let mut targets = Vec::new();
    let mut max_queue_ms: f64 = 0.0;
    let end = Dur::from_secs(60).0;
    let mut now = 0u64;
    while now < end {
        now += 1_000_000;
        while g.next_timer().is_some_and(|t| t.0 <= now) {
            g.on_timer(Time(now), &v);
        }
        while next_send <= now {
            let begin = busy.max(next_send);
            let q = (begin - next_send) as f64 / 1e6;
            max_queue_ms = if now > Dur::from_secs(20).0 { max_queue_ms.max(q) } else { max_queue_ms };
            busy = begin + (1200.0 * 8.0 / cap * 1e9) as u64;
            batch.push(PacketResult {
                seq,
                size: Bytes(1200),
                sent_at: Time(next_send),
                arrived_at: Some(Time(busy + 20_000_000)),
                ecn: Ecn::NotEct,
                cluster: None,
            });
            seq += 1;
            next_send += (1200.0 * 8.0 / g.target_rate(&v) * 1e9) as u64;
        }
        if now.is_multiple_of(50_000_000) {
            // Report what has arrived by now, delivered 20 ms later (approximated as now).
            let (done, rest): (Vec<_>, Vec<_>) =
                batch.drain(..).partition(|p| p.arrived_at.unwrap().0 + 20_000_000 <= now);
            batch = rest;
            if !done.is_empty() {
                g.on_feedback(Time(now), &done, &v);
            }
            targets.push(g.target_rate(&v));
        }
    }
    let tail = &targets[targets.len() / 2..];
    let mean = tail.iter().sum::<f64>() / tail.len() as f64;
    assert!(mean > 0.7 * cap && mean < 1.1 * cap, "mean target {mean}");
    assert!(max_queue_ms < 200.0, "queue {max_queue_ms} ms");
    assert!(g.usage() != Usage::Overusing || g.delay_based_bps() < cap);
}

/// RFC 8699 Appendix A: GCC gives the FSE its delay-based estimate A_hat and takes FSE_R as
/// A_hat; the target is min(A_hat, loss-based): lowering A_hat lowers the target at once.
#[test]
fn coupled_the_fse_s_rate_is_the_delay_based_estimate() {
    let mut g = Gcc::new(GccConfig::default()).unwrap();
    assert_eq!(g.coupled_rate(), Some(300e3));
    g.set_coupled_rate(Time::ZERO, 200e3);
    assert_eq!(g.delay_based_bps(), 200e3);
    assert_eq!(g.coupled_rate(), Some(200e3));
    assert_eq!(g.target_bps(), 200e3);
    assert_eq!(g.max_rate(), 10e6);
}
