//! SCReAM's network congestion control: RFC 8298 §4.1.2's equations on worked values, its
//! bytes-in-flight examples, the loss and ECN reaction, the qdelay trend, the competing-flows
//! compensation, the send window and pacing.

use fairway_core::{Bytes, Dur, Time};

use super::*;

fn ms(x: u64) -> Time {
    Time(x * 1_000_000)
}

fn net() -> NetworkCongestionControl {
    NetworkCongestionControl::new(&ScreamConfig::default())
}

fn received(seq: u64, size: u64, sent_ms: u64, arrived_ms: u64) -> PacketResult {
    PacketResult {
        seq,
        size: Bytes(size),
        sent_at: ms(sent_ms),
        arrived_at: Some(ms(arrived_ms)),
        ecn: Ecn::NotEct,
        cluster: None,
    }
}

fn lost(seq: u64, size: u64, sent_ms: u64) -> PacketResult {
    PacketResult { seq, size: Bytes(size), sent_at: ms(sent_ms), arrived_at: None, ecn: Ecn::NotEct, cluster: None }
}

/// A controller out of fast increase with cwnd 10000 bytes, 10000 in flight (so the window is
/// used) and max_bytes_in_flight 10000 (cap 11000), qdelay target 0.1 s.
fn congestion_avoidance() -> NetworkCongestionControl {
    let mut n = net();
    n.in_fast_increase = false;
    n.cwnd = 10_000.0;
    for seq in 0..10 {
        n.on_sent(ms(0), seq, 1000);
    }
    n
}

#[test]
fn the_window_grows_by_gain_times_off_target_times_acked_times_mss_over_cwnd() {
    // §4.1.2.2: qdelay 50 ms of a 100 ms target is off_target 0.5; 1000 bytes acknowledged:
    // cwnd_delta = 1.0 * 0.5 * 1000 * 1000 / 10000 = 50 bytes.
    let mut n = congestion_avoidance();
    n.qdelay = 0.05;
    n.bytes_newly_acked = 1000;
    assert!(!n.update_cwnd(ms(1)));
    assert!((n.cwnd - 10_050.0).abs() < 1e-9, "{}", n.cwnd);
    assert_eq!(n.bytes_newly_acked, 0, "reset after the update");
}

#[test]
fn the_window_shrinks_as_much_when_qdelay_is_as_far_above_target() {
    // qdelay 150 ms: off_target -0.5, cwnd_delta -50 bytes; the underuse rule applies only to
    // increases.
    let mut n = congestion_avoidance();
    n.qdelay = 0.15;
    n.bytes_newly_acked = 1000;
    n.update_cwnd(ms(1));
    assert!((n.cwnd - 9_950.0).abs() < 1e-9, "{}", n.cwnd);
    // A qdelay twice the target: off_target -1, -100 bytes.
    n.qdelay = 0.2;
    n.bytes_newly_acked = 1000;
    n.update_cwnd(ms(1));
    assert!((n.cwnd - (9_950.0 - 1000.0 * 1000.0 / 9_950.0)).abs() < 1e-9, "{}", n.cwnd);
}

#[test]
fn an_underused_window_does_not_grow() {
    // bytes_in_flight * 1.25 + bytes_newly_acked <= cwnd: no increase.
    let mut n = net();
    n.in_fast_increase = false;
    for seq in 0..10 {
        n.on_sent(ms(0), seq, 1000);
    }
    n.cwnd = 10_000.0;
    n.on_feedback(ms(10), &[received(0, 1000, 0, 5), received(1, 1000, 0, 5)], None);
    // 8000 in flight: 8000 * 1.25 + 2000 = 12000 > 10000, so it grows here; with 6000 in
    // flight it would not.
    let grown = n.cwnd;
    assert!(grown > 10_000.0);
    n.on_feedback(ms(20), &[received(2, 1000, 0, 5), received(3, 1000, 0, 5)], None);
    assert_eq!(n.bytes_in_flight, 6000);
    assert_eq!(n.cwnd, grown, "6000 * 1.25 + 2000 = 9500 <= cwnd: no increase");
}

#[test]
fn the_window_is_capped_at_head_room_times_max_bytes_in_flight_and_floored_at_min_cwnd() {
    let mut n = congestion_avoidance();
    n.cwnd = 20_000.0;
    n.qdelay = 0.0;
    n.bytes_newly_acked = 0;
    n.update_cwnd(ms(1));
    assert!((n.cwnd - 11_000.0).abs() < 1e-9, "1.1 * 10000: {}", n.cwnd);
    // Five seconds on, the history of sends is gone: cwnd falls to MIN_CWND.
    n.update_cwnd(ms(5_001));
    assert_eq!(n.cwnd, 3000.0);
}

#[test]
fn fast_increase_grows_by_the_bytes_acked_while_the_window_is_used() {
    let mut n = net();
    assert!(n.in_fast_increase, "§4.1.1.2: in_fast_increase starts true");
    assert_eq!(n.cwnd(), 3000, "§4.1.1.2: cwnd starts at MIN_CWND");
    for seq in 0..3 {
        n.on_sent(ms(0), seq, 1000);
    }
    // 2000 in flight after the report: 2000 * 1.5 + 1000 > 3000.
    n.on_feedback(ms(100), &[received(0, 1000, 0, 50)], Some(Dur::from_millis(100)));
    assert_eq!(n.cwnd(), 4000);
    // Used less: 1000 in flight after, 1000 * 1.5 + 1000 = 2500 <= 4000: no growth (and no cap
    // in fast increase mode).
    n.on_feedback(ms(110), &[received(1, 1000, 0, 50)], None);
    assert_eq!(n.cwnd(), 4000);
}

#[test]
fn a_qdelay_trend_at_the_threshold_ends_fast_increase_and_the_ledbat_rule_applies() {
    let mut n = congestion_avoidance();
    n.in_fast_increase = true;
    n.qdelay_trend = 0.2;
    n.qdelay = 0.05;
    n.bytes_newly_acked = 1000;
    assert!(n.update_cwnd(ms(1)), "it reports that fast increase ended");
    assert!(!n.in_fast_increase);
    assert!((n.cwnd - 10_050.0).abs() < 1e-9, "{}", n.cwnd);
}

#[test]
fn bytes_in_flight_and_newly_acked_count_lost_packets_as_section_4_1_2_does() {
    // "If an RTP packet with sequence number SN is transmitted and the last acknowledgement
    // indicates SN-5 as the highest received ..., bytes_in_flight is the sum of the sizes of
    // SN-4, SN-3, SN-2, SN-1, and SN", SN-3 lost or not.
    let mut n = net();
    for seq in 10..=20 {
        n.on_sent(ms(0), seq, 100 + seq);
    }
    n.on_feedback(ms(60), &[received(10, 110, 0, 50), received(11, 111, 0, 50)], None);
    assert_eq!(n.bytes_newly_acked, 0, "reset by the cwnd update");
    let pkts = [received(12, 112, 0, 50), lost(13, 113, 0), received(14, 114, 0, 50), received(15, 115, 0, 50)];
    // N = 11 to N+4 = 15 with N+2 lost: bytes_newly_acked = 112 + 113 + 114 + 115.
    n.bytes_newly_acked = 0;
    let before = n.bytes_in_flight;
    n.highest_acked = Some(11);
    // Apply the acknowledgement bookkeeping alone (a loss here would also be an event).
    n.s_rtt = Some(10.0);
    n.last_loss_event = Some(ms(60));
    n.on_feedback(ms(70), &pkts, None);
    assert_eq!(before - n.bytes_in_flight, 112 + 113 + 114 + 115);
    assert_eq!(n.bytes_in_flight, (16..=20).map(|s| 100 + s).sum::<u64>(), "SN-4 .. SN");
    // Packets lost above the highest received stay in flight.
    n.on_feedback(ms(80), &[received(16, 116, 0, 50), lost(17, 117, 0), lost(18, 118, 0)], None);
    assert_eq!(n.bytes_in_flight, 117 + 118 + 119 + 120);
}

#[test]
fn qdelay_is_the_one_way_delay_less_its_base_whatever_the_clock_offset() {
    let mut n = net();
    for seq in 0..3 {
        n.on_sent(ms(seq * 10), seq, 1000);
    }
    // Receiver clock 7 s ahead of the sender's; one-way delays 50, 50, 80 ms.
    let off = 7_000;
    n.on_feedback(ms(200), &[received(0, 1000, 0, off + 50), received(1, 1000, 10, off + 60)], None);
    assert!(n.qdelay.abs() < 1e-9);
    n.on_feedback(ms(300), &[received(2, 1000, 20, off + 100)], None);
    assert!((n.qdelay - 0.030).abs() < 1e-9, "{}", n.qdelay);
    assert!((n.base_delay().unwrap() - 7.05).abs() < 1e-9);
}

#[test]
fn the_base_delay_history_forgets_minima_older_than_base_history_intervals() {
    let mut h = BaseDelayHistory { minima: VecDeque::new(), len: 2, interval: Dur::from_secs(60) };
    h.update(ms(0), 0.5);
    h.update(ms(10_000), 0.3);
    h.update(ms(60_000), 0.4);
    assert_eq!(h.base(), Some(0.3));
    h.update(ms(120_000), 0.6);
    assert_eq!(h.base(), Some(0.4), "the first minute's minimum is forgotten");
}

#[test]
fn a_loss_cuts_cwnd_by_beta_loss_and_an_ecn_mark_by_beta_ecn_once_per_s_rtt() {
    let mut n = congestion_avoidance();
    n.in_fast_increase = true;
    let rtt = Some(Dur::from_millis(100));
    let out = n.on_feedback(ms(100), &[received(0, 1000, 0, 50), lost(1, 1000, 0)], rtt);
    assert_eq!(out.congestion, Some(Congestion::Loss));
    assert_eq!(n.cwnd(), 8000, "10000 * BETA_LOSS 0.8");
    assert!(!n.in_fast_increase, "a congestion event ends fast increase");
    // Within one s_rtt (100 ms) a further loss is ignored ...
    let out = n.on_feedback(ms(150), &[lost(2, 1000, 0)], rtt);
    assert_eq!(out.congestion, None);
    assert_eq!(n.cwnd(), 8000);
    // ... an ECN mark is not (it has its own s_rtt): 8000 * BETA_ECN 0.9.
    let mut ce = received(3, 1000, 0, 50);
    ce.ecn = Ecn::Ce;
    let out = n.on_feedback(ms(160), &[ce], rtt);
    assert_eq!(out.congestion, Some(Congestion::Ecn));
    assert_eq!(n.cwnd(), 7200);
    // After s_rtt a loss counts again; cwnd never goes below MIN_CWND.
    n.cwnd = 3500.0;
    let out = n.on_feedback(ms(250), &[lost(4, 1000, 0)], rtt);
    assert_eq!(out.congestion, Some(Congestion::Loss));
    assert_eq!(n.cwnd(), 3000);
}

#[test]
fn a_report_with_a_loss_and_a_mark_is_a_loss_event() {
    let mut n = congestion_avoidance();
    let mut ce = received(0, 1000, 0, 50);
    ce.ecn = Ecn::Ce;
    let out = n.on_feedback(ms(100), &[ce, lost(1, 1000, 0)], None);
    assert_eq!(out.congestion, Some(Congestion::Loss));
    assert_eq!(n.cwnd(), 8000);
}

#[test]
fn the_prediction_coefficient_is_the_lag_one_autocorrelation_over_the_lag_zero() {
    // x = 1, 2, 3: mean 2, d = -1, 0, 1; R(d,0) = 2, R(d,1) = 0 + 0 = 0.
    assert_eq!(prediction_coefficient(&[1.0, 2.0, 3.0]), 0.0);
    // x = 0, 0, 1, 1: d = -.5 -.5 .5 .5; R0 = 1, R1 = .25 - .25 + .25 = .25.
    assert!((prediction_coefficient(&[0.0, 0.0, 1.0, 1.0]) - 0.25).abs() < 1e-12);
    assert_eq!(prediction_coefficient(&[0.7; 20]), 0.0, "flat: no trend");
    // A steady ramp over 20 samples trends strongly.
    let ramp: Vec<f64> = (0..20).map(f64::from).collect();
    assert!(prediction_coefficient(&ramp) > 0.8);
}

#[test]
fn a_rising_qdelay_gives_a_trend_and_the_memory_decays_by_0_99_per_sample() {
    let mut n = net();
    for i in 0..20 {
        n.qdelay = 0.005 * f64::from(i);
        n.sample_qdelay(ms(0));
    }
    // qdelay_fraction_avg after 20 EWMA steps of 0, 0.05, ..., 0.95 (weight 0.1).
    let mut avg = 0.0;
    for i in 0..20 {
        avg = 0.9 * avg + 0.1 * (0.05 * f64::from(i));
    }
    let ramp: Vec<f64> = (0..20).map(|i| 0.05 * f64::from(i)).collect();
    let expect = (prediction_coefficient(&ramp) * avg).clamp(0.0, 1.0);
    assert!((n.qdelay_trend - expect).abs() < 1e-12, "{} {}", n.qdelay_trend, expect);
    assert!(n.qdelay_trend > 0.0);
    let mem = n.qdelay_trend_mem;
    assert!(mem >= n.qdelay_trend);
    // Flat from now: the trend falls, the memory decays by 0.99 a sample while it exceeds it.
    n.qdelay_fraction_hist = VecDeque::from(vec![0.5; QDELAY_FRACTION_HIST_LEN]);
    n.qdelay = 0.05;
    n.sample_qdelay(ms(0));
    assert_eq!(n.qdelay_trend, 0.0);
    assert!((n.qdelay_trend_mem - 0.99 * mem).abs() < 1e-12);
}

#[test]
fn fast_increase_resumes_after_t_resume_of_low_trend() {
    let mut n = congestion_avoidance();
    n.sample_qdelay(ms(0));
    assert_eq!(n.trend_low_since, Some(ms(0)));
    n.check_to_resume_fast_increase(ms(4_999));
    assert!(!n.in_fast_increase);
    n.check_to_resume_fast_increase(ms(5_000));
    assert!(n.in_fast_increase);
}

#[test]
fn the_qdelay_target_follows_a_steady_queue_and_rises_half_again_with_losses() {
    let mut n = net();
    // A steady 150 ms: qdelay_norm 1.5, no variance: the target becomes 150 ms.
    for _ in 0..QDELAY_NORM_HIST_LEN {
        n.adjust_qdelay_target(0.15);
    }
    assert!((n.qdelay_target - 0.15).abs() < 1e-9, "{}", n.qdelay_target);
    // With a loss event rate above 0.002: 1.5 * 150 ms.
    n.loss_event_rate = 0.01;
    n.adjust_qdelay_target(0.15);
    assert!((n.qdelay_target - 0.225).abs() < 1e-9);
    // At most QDELAY_TARGET_HI.
    for _ in 0..QDELAY_NORM_HIST_LEN {
        n.adjust_qdelay_target(0.5);
    }
    assert!((n.qdelay_target - 0.4).abs() < 1e-9);
}

#[test]
fn a_varying_queue_lowers_the_target_quickly_below_lo_and_slowly_above() {
    let mut n = net();
    let hist = |older: f64, newer: f64| {
        VecDeque::from((0..QDELAY_NORM_HIST_LEN).map(|i| if i < 100 { older } else { newer }).collect::<Vec<_>>())
    };
    // 99 samples of qdelay_norm 2 and 101 of 0 after the new one: variance 0.9999, the newest
    // 50 average 0: new_target = (0 + 0.99995) * 0.1 < LO: halve, but not below new_target.
    n.qdelay_norm_hist = hist(2.0, 0.0);
    n.qdelay_target = 0.3;
    n.adjust_qdelay_target(0.0);
    assert!((n.qdelay_target - 0.15).abs() < 1e-9, "{}", n.qdelay_target);
    // 99 of 0 and 101 of 2: the newest average 2, new_target = (2 + 0.99995) * 0.1 >= LO:
    // 0.9 times.
    n.qdelay_norm_hist = hist(0.0, 2.0);
    n.qdelay_target = 0.3;
    n.adjust_qdelay_target(0.2);
    assert!((n.qdelay_target - 0.27).abs() < 1e-9, "{}", n.qdelay_target);
    // Off, the target stays at LO.
    let mut off =
        NetworkCongestionControl::new(&ScreamConfig { competing_flows_compensation: false, ..ScreamConfig::default() });
    for _ in 0..QDELAY_NORM_HIST_LEN {
        off.adjust_qdelay_target(0.3);
    }
    assert_eq!(off.qdelay_target, 0.1);
}

#[test]
fn the_send_window_allows_one_mss_more_while_qdelay_is_under_target() {
    let mut n = congestion_avoidance();
    n.cwnd = 12_000.0;
    n.qdelay = 0.1;
    assert_eq!(n.send_window(), 12_000 + 1000 - 10_000);
    n.qdelay = 0.101;
    assert_eq!(n.send_window(), 2000);
}

#[test]
fn the_pacing_rate_is_cwnd_per_s_rtt_at_least_rate_pace_min() {
    let mut n = net();
    n.cwnd = 10_000.0;
    n.s_rtt = Some(0.1);
    assert!((n.pace_bitrate() - 800_000.0).abs() < 1e-6);
    n.cwnd = 3000.0;
    n.s_rtt = Some(1.0);
    assert_eq!(n.pace_bitrate(), 50_000.0, "24 kb/s is below RATE_PACE_MIN");
}

#[test]
fn s_rtt_is_rfc_6298_s_srtt() {
    let mut n = net();
    n.on_feedback(ms(0), &[], Some(Dur::from_millis(100)));
    assert_eq!(n.s_rtt, Some(0.1));
    n.on_feedback(ms(0), &[], Some(Dur::from_millis(180)));
    assert!((n.s_rtt.unwrap() - 0.11).abs() < 1e-12, "7/8 * 0.1 + 1/8 * 0.18");
}

#[test]
fn loss_event_rate_is_an_ewma_over_s_rtt_intervals() {
    let mut n = net();
    n.s_rtt = Some(0.1);
    n.on_feedback(ms(0), &[lost(0, 1000, 0)], None);
    // The first interval opened at 0 and is not yet s_rtt long.
    assert_eq!(n.loss_event_rate, 0.0);
    n.on_feedback(ms(100), &[], None);
    assert!((n.loss_event_rate - LOSS_EVENT_RATE_WEIGHT).abs() < 1e-12);
    n.on_feedback(ms(200), &[], None);
    assert!((n.loss_event_rate - LOSS_EVENT_RATE_WEIGHT * (1.0 - LOSS_EVENT_RATE_WEIGHT)).abs() < 1e-12);
}
