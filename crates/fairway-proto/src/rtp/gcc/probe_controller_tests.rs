use super::*;

fn t(ms: u64) -> Time {
    Time(ms * 1_000_000)
}

fn taken(p: &mut ProbeController) -> Vec<ProbeCluster> {
    std::iter::from_fn(|| p.take()).collect()
}

#[test]
fn the_start_asks_for_two_clusters_at_three_and_six_times_the_start_rate() {
    let mut p = ProbeController::new(10e6);
    assert_eq!(p.state(), ProbeState::Init);
    assert!(p.take().is_none());
    p.start(t(0), 300e3);
    // 900 kb/s for 15 ms: 1687.5 bytes, rounded to 1688; 1.8 Mb/s: 3375.
    let c = taken(&mut p);
    assert_eq!(
        c,
        [
            ProbeCluster { id: 1, rate_bps: 900e3, min_packets: 5, min_bytes: 1688 },
            ProbeCluster { id: 2, rate_bps: 1.8e6, min_packets: 5, min_bytes: 3375 },
        ]
    );
    assert_eq!(p.state(), ProbeState::WaitingForResult);
    // A second start asks for nothing more.
    p.start(t(10), 300e3);
    assert!(p.take().is_none());
}

#[test]
fn an_estimate_over_seven_tenths_of_the_last_cluster_asks_for_twice_the_estimate() {
    let mut p = ProbeController::new(10e6);
    p.start(t(0), 300e3);
    taken(&mut p);
    // The threshold is 0.7 x 1.8 Mb/s = 1.26 Mb/s: 1.2 Mb/s is not over it, nor is it equal.
    p.on_estimate(t(100), 1.2e6, false);
    p.on_estimate(t(110), 1.26e6, false);
    assert!(p.take().is_none());
    // 1.5 Mb/s is: one cluster at 3 Mb/s, and the threshold becomes 2.1 Mb/s.
    p.on_estimate(t(120), 1.5e6, false);
    assert_eq!(taken(&mut p), [ProbeCluster { id: 3, rate_bps: 3e6, min_packets: 5, min_bytes: 5625 }]);
    p.on_estimate(t(130), 2.0e6, false);
    assert!(p.take().is_none());
    p.on_estimate(t(140), 2.9e6, false);
    assert_eq!(taken(&mut p).iter().map(|c| (c.id, c.rate_bps)).collect::<Vec<_>>(), [(4, 5.8e6)]);
    assert_eq!(p.state(), ProbeState::WaitingForResult);
}

#[test]
fn no_further_cluster_while_the_delay_detector_signals_over_or_under_use() {
    let mut p = ProbeController::new(10e6);
    p.start(t(0), 300e3);
    taken(&mut p);
    p.on_estimate(t(100), 1.5e6, true);
    assert!(p.take().is_none());
    // Still waiting: once the detector is back to normal, the same estimate asks.
    assert_eq!(p.state(), ProbeState::WaitingForResult);
    p.on_estimate(t(150), 1.5e6, false);
    assert_eq!(taken(&mut p).len(), 1);
}

#[test]
fn a_cluster_is_capped_at_the_maximum_and_ends_the_probing() {
    // Maximum 1.5 Mb/s, start 150 kb/s: 450 and 900 kb/s, then 2 x 800 kb/s capped at 1.5.
    let mut p = ProbeController::new(1.5e6);
    p.start(t(0), 150e3);
    assert_eq!(taken(&mut p).iter().map(|c| c.rate_bps).collect::<Vec<_>>(), [450e3, 900e3]);
    p.on_estimate(t(200), 800e3, false);
    assert_eq!(taken(&mut p).iter().map(|c| (c.id, c.rate_bps)).collect::<Vec<_>>(), [(3, 1.5e6)]);
    assert_eq!(p.state(), ProbeState::Complete);
    p.on_estimate(t(300), 1.5e6, false);
    assert!(p.take().is_none());
    // An initial cluster at or above the maximum: both capped, no waiting.
    let mut p = ProbeController::new(1e6);
    p.start(t(0), 500e3);
    assert_eq!(taken(&mut p).iter().map(|c| c.rate_bps).collect::<Vec<_>>(), [1e6, 1e6]);
    assert_eq!(p.state(), ProbeState::Complete);
}

#[test]
fn waiting_ends_a_second_after_the_last_cluster_was_asked_for() {
    let mut p = ProbeController::new(10e6);
    p.start(t(0), 300e3);
    taken(&mut p);
    // Exactly 1 s is not over it.
    p.process(t(1000));
    assert_eq!(p.state(), ProbeState::WaitingForResult);
    p.on_estimate(t(1000), 1.5e6, false);
    taken(&mut p);
    // The further cluster at 1 s restarts the wait.
    p.process(t(1900));
    assert_eq!(p.state(), ProbeState::WaitingForResult);
    p.process(t(2001));
    assert_eq!(p.state(), ProbeState::Complete);
    p.on_estimate(t(2100), 9e6, false);
    assert!(p.take().is_none());
}
