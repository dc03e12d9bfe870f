use super::*;

fn ms(v: f64) -> Time {
    Time((v * 1e6).round() as u64)
}

#[test]
fn packets_group_by_five_ms_of_send_time() {
    let mut ia = InterArrival::new();
    // Sent every 2 ms, arriving 50 ms later: groups {0, 2, 4}, {6, 8, 10}, {12, ...}.
    let mut deltas = Vec::new();
    for i in 0..10 {
        let s = 2.0 * i as f64;
        if let Some(d) = ia.on_packet(ms(s), ms(s + 50.0), ms(s + 100.0), 100) {
            deltas.push((i, d));
        }
    }
    // The packet at 12 ms opens the third group and closes the second: the first delta.
    assert_eq!(deltas[0].0, 6);
    let d = deltas[0].1;
    // Last send 10 vs 4; last arrival 60 vs 54.
    assert!((d.send_ms - 6.0).abs() < 1e-9 && (d.arrival_ms - 6.0).abs() < 1e-9, "{d:?}");
    assert_eq!(d.delay_variation_ms(), 0.0);
    assert_eq!(d.size_delta, 0);
    assert_eq!(deltas[1].0, 9);
}

#[test]
fn delay_variation_of_a_growing_queue() {
    let mut ia = InterArrival::new();
    // A packet every 10 ms, each 2 ms later through the queue than the one before.
    let mut out = Vec::new();
    for i in 0..5u64 {
        let s = 10.0 * i as f64;
        let a = s + 30.0 + 2.0 * i as f64;
        out.extend(ia.on_packet(ms(s), ms(a), ms(a + 10.0), 1000));
    }
    assert_eq!(out.len(), 3);
    for d in out {
        assert!((d.delay_variation_ms() - 2.0).abs() < 1e-9, "{d:?}");
    }
}

#[test]
fn a_burst_joins_the_group_ahead() {
    let mut ia = InterArrival::new();
    // Sent 0, 10, 20 ms; the one sent at 10 arrives 1 ms after the first (queued behind it and
    // sent late): it has a negative delay variation and joins the first group.
    assert!(ia.on_packet(ms(0.0), ms(100.0), ms(150.0), 100).is_none());
    assert!(ia.on_packet(ms(10.0), ms(101.0), ms(150.0), 100).is_none());
    assert!(ia.on_packet(ms(20.0), ms(120.0), ms(150.0), 100).is_none());
    // 30 ms closes {20}: delta against {0, 10}: send 20 - 10, arrival 120 - 101.
    let d = ia.on_packet(ms(30.0), ms(130.0), ms(150.0), 100).unwrap();
    assert!((d.send_ms - 10.0).abs() < 1e-9 && (d.arrival_ms - 19.0).abs() < 1e-9, "{d:?}");
    assert_eq!(d.size_delta, -100);
}

#[test]
fn older_packets_are_left_out_and_reordered_groups_reset() {
    let mut ia = InterArrival::new();
    ia.on_packet(ms(10.0), ms(100.0), ms(200.0), 100);
    // Sent before the open group: ignored.
    assert!(ia.on_packet(ms(0.0), ms(101.0), ms(200.0), 100).is_none());
    ia.on_packet(ms(20.0), ms(110.0), ms(200.0), 100);
    // Groups arriving before the group ahead of them: no deltas.
    assert!(ia.on_packet(ms(30.0), ms(105.0), ms(200.0), 100).is_none());
}
