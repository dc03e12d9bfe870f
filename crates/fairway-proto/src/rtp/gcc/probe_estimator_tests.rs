//! Clusters worked by hand: packets (size, sent at, arrived at) and the rates they give.

use super::*;

fn t(ms: u64) -> Time {
    // Arrivals are on the receiver's clock: put them well away from zero.
    Time(1_000_000_000_000 + ms * 1_000_000)
}

/// An estimator expecting cluster `id` of `min_packets` and `min_bytes`.
fn expecting(id: u32, min_packets: u32, min_bytes: u64) -> ProbeEstimator {
    let mut e = ProbeEstimator::default();
    e.expect(&ProbeCluster { id, rate_bps: 1e6, min_packets, min_bytes });
    e
}

/// Feeds (id, size, sent ms, arrived ms) in order; the last packet's answer.
fn feed(e: &mut ProbeEstimator, packets: &[(u32, u64, u64, u64)]) -> Option<f64> {
    let mut last = None;
    for &(id, size, sent, arrived) in packets {
        last = e.on_packet(id, t(sent), t(arrived), size);
    }
    last
}

fn close(a: Option<f64>, b: f64) -> bool {
    a.is_some_and(|a| (a - b).abs() < 1e-6 * b)
}

#[test]
fn a_cluster_received_as_sent_measures_its_rate() {
    // Four packets of 1000 bytes 10 ms apart, each 10 ms on the way. 80 % of 5 packets is 4,
    // of 5000 bytes 4000: the fourth completes it. Sent: 3000 bytes (the last one's leaves after
    // the span) over 30 ms, 800 kb/s; received: 3000 bytes (the first one's arrives before the
    // span) over 30 ms, 800 kb/s.
    let mut e = expecting(1, 5, 5000);
    let r = feed(&mut e, &[(1, 1000, 0, 10), (1, 1000, 10, 20), (1, 1000, 20, 30)]);
    assert_eq!(r, None, "three packets are under 4");
    let r = feed(&mut e, &[(1, 1000, 30, 40)]);
    assert!(close(r, 800e3), "{r:?}");
    assert!(close(e.take_estimate(), 800e3));
    assert_eq!(e.take_estimate(), None, "taken once");
}

#[test]
fn too_few_bytes_is_no_estimate() {
    // Five packets of 800 bytes: 4000 bytes, under 80 % of 6000 (4800).
    let mut e = expecting(1, 5, 6000);
    let p: Vec<_> = (0..5).map(|i| (1, 800, 10 * i, 10 + 10 * i)).collect();
    assert_eq!(feed(&mut e, &p), None);
    assert_eq!(e.take_estimate(), None);
}

#[test]
fn a_slow_arrival_found_the_bottleneck_and_gives_a_little_under_it() {
    // Sent at 0, 10, 20, 30 ms (800 kb/s); arrived at 10, 40, 70, 85: 3000 bytes over 75 ms,
    // 320 kb/s, under 0.9 x 800: the estimate is 0.95 x 320 = 304 kb/s.
    let mut e = expecting(1, 5, 5000);
    let r = feed(&mut e, &[(1, 1000, 0, 10), (1, 1000, 10, 40), (1, 1000, 20, 70), (1, 1000, 30, 85)]);
    assert!(close(r, 304e3), "{r:?}");
}

#[test]
fn a_faster_arrival_gives_the_send_rate_unless_it_is_over_twice_it() {
    // Arrived at 15, 30, 35, 40: 3000 bytes over 25 ms, 960 kb/s; min(800, 960) = 800 kb/s.
    let mut e = expecting(1, 5, 5000);
    let r = feed(&mut e, &[(1, 1000, 0, 15), (1, 1000, 10, 30), (1, 1000, 20, 35), (1, 1000, 30, 40)]);
    assert!(close(r, 800e3), "{r:?}");
    // Sent at 0, 10, 20, 40 (3000 bytes over 40 ms: 600 kb/s), arrived at 19, 22, 25, 27 (3000
    // over 8 ms: 3 Mb/s), over twice the send rate: no estimate.
    let mut e = expecting(1, 5, 5000);
    let r = feed(&mut e, &[(1, 1000, 0, 19), (1, 1000, 10, 22), (1, 1000, 20, 25), (1, 1000, 40, 27)]);
    assert_eq!(r, None);
    // All arriving at once: no receive span, no estimate.
    let mut e = expecting(1, 5, 5000);
    let r = feed(&mut e, &[(1, 1000, 0, 50), (1, 1000, 10, 50), (1, 1000, 20, 50), (1, 1000, 30, 50)]);
    assert_eq!(r, None);
}

#[test]
fn the_last_sent_and_first_received_packets_sizes_are_left_out() {
    // A first packet of 1500 bytes, then three of 1000, sent 10 ms apart and 10 ms on the way:
    // sent (4500 - 1000) x 8 / 30 ms = 933.3 kb/s, received (4500 - 1500) x 8 / 30 ms = 800 kb/s,
    // under 0.9 x 933.3 (840): 0.95 x 800 = 760 kb/s.
    let mut e = expecting(1, 5, 5000);
    let r = feed(&mut e, &[(1, 1500, 0, 10), (1, 1000, 10, 20), (1, 1000, 20, 30), (1, 1000, 30, 40)]);
    assert!(close(r, 760e3), "{r:?}");
}

#[test]
fn clusters_are_measured_apart_and_the_latest_estimate_is_taken() {
    let mut e = expecting(1, 5, 5000);
    e.expect(&ProbeCluster { id: 2, rate_bps: 2e6, min_packets: 5, min_bytes: 5000 });
    // Cluster 1 at 800 kb/s, then cluster 2: 1000 bytes every 5 ms (1.6 Mb/s) arriving 10, 7, 6
    // ms apart: 3000 bytes over 23 ms, 1.043 Mb/s, under 0.9 x 1.6: 0.95 x 1.043 = 991.3 kb/s.
    feed(&mut e, &[(1, 1000, 0, 10), (1, 1000, 10, 20), (1, 1000, 20, 30), (1, 1000, 30, 40)]);
    let r = feed(&mut e, &[(2, 1000, 60, 70), (2, 1000, 65, 80), (2, 1000, 70, 87), (2, 1000, 75, 93)]);
    let want = 0.95 * 3000.0 * 8.0 / 0.023;
    assert!(close(r, want), "{r:?} vs {want}");
    assert!(close(e.take_estimate(), want));
}

#[test]
fn a_cluster_forgotten_after_a_second_and_an_unknown_one_are_not_measured() {
    let mut e = expecting(1, 5, 5000);
    feed(&mut e, &[(1, 1000, 0, 10), (1, 1000, 10, 20), (1, 1000, 20, 30)]);
    // Its fourth packet arrives over 1 s after the third: the cluster starts again from it.
    assert_eq!(feed(&mut e, &[(1, 1000, 30, 1031)]), None);
    // A cluster the estimator was not told of.
    let p: Vec<_> = (0..5).map(|i| (7, 1000, 10 * i, 10 + 10 * i)).collect();
    assert_eq!(feed(&mut e, &p), None);
    assert_eq!(e.take_estimate(), None);
}
