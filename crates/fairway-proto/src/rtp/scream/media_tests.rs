//! SCReAM's media rate control: RFC 8298 §4.1.3's target bitrate rules on worked values, and
//! the RTP queue discard.

use fairway_core::Dur;

use super::*;

fn ms(x: u64) -> Time {
    Time(x * 1_000_000)
}

const FAST: NetSignals = NetSignals { in_fast_increase: true, qdelay_trend: 0.0, qdelay_trend_mem: 0.0 };
const SLOW: NetSignals = NetSignals { in_fast_increase: false, qdelay_trend: 0.0, qdelay_trend_mem: 0.0 };

/// A rate control at `target` bps, last max `last_max`, whose next adjustment (at 200 ms) sees
/// `rate` bps sent and acknowledged and the RTP queue at `queue_bytes`.
fn media(target: f64, last_max: f64, rate: f64, queue_bytes: u64) -> (MediaRateControl, SenderView) {
    let mut m = MediaRateControl::new(&ScreamConfig { max_bitrate: 10e6, ..ScreamConfig::default() });
    m.start(ms(0));
    m.target_bitrate = target;
    m.target_bitrate_last_max = last_max;
    let bytes = (rate * 0.2 / 8.0) as u64;
    m.on_sent(bytes);
    m.on_acked(bytes);
    (m, SenderView { queue_bytes, ..SenderView::default() })
}

#[test]
fn the_rates_are_measured_over_the_last_two_intervals() {
    let (mut m, view) = media(1e6, 1.0, 1e6, 0);
    m.on_sent(0);
    m.adjust(ms(200), &view, FAST);
    assert!((m.rate_transmit() - 1e6).abs() < 1e-6);
    assert!((m.rate_ack() - 1e6).abs() < 1e-6);
    assert!((m.rate_media() - 1e6).abs() < 1e-6, "no queue growth: what was sent");
    // 25000 bytes more queued over the next interval, 25000 sent, none acknowledged: over the
    // last 400 ms, 50000 bytes sent (1 Mb/s), 25000 acknowledged (0.5 Mb/s), 75000 made
    // (1.5 Mb/s).
    m.on_sent(25_000);
    m.adjust(ms(400), &SenderView { queue_bytes: 25_000, ..view }, FAST);
    assert!((m.rate_transmit() - 1e6).abs() < 1e-6, "{}", m.rate_transmit());
    assert!((m.rate_ack() - 0.5e6).abs() < 1e-6, "{}", m.rate_ack());
    assert!((m.rate_media() - 1.5e6).abs() < 1e-6, "{}", m.rate_media());
    assert!((m.rate_media_median() - 1.25e6).abs() < 1e-6, "the median of 1 and 1.5 Mb/s");
    // The third interval: the first leaves the span (nothing sent, acknowledged or made now).
    m.adjust(ms(600), &SenderView { queue_bytes: 25_000, ..view }, FAST);
    assert!((m.rate_transmit() - 0.5e6).abs() < 1e-6, "{}", m.rate_transmit());
    assert!((m.rate_media() - 1e6).abs() < 1e-6, "{}", m.rate_media());
}

#[test]
fn fast_increase_ramps_by_ramp_up_speed_times_the_interval() {
    // Far from last max (scale 1): + 200000 * 0.2 = 40 kb/s.
    let (mut m, view) = media(1e6, 1.0, 1e6, 0);
    m.adjust(ms(200), &view, FAST);
    assert!((m.target_bitrate() - 1.04e6).abs() < 1e-6, "{}", m.target_bitrate());
}

#[test]
fn the_ramp_is_at_most_half_the_target_per_second() {
    // target 200 kb/s: ramp_up_speed_t = min(200000, 100000): + 20 kb/s.
    let (mut m, view) = media(200e3, 1.0, 1e6, 0);
    m.adjust(ms(200), &view, FAST);
    assert!((m.target_bitrate() - 220e3).abs() < 1e-6, "{}", m.target_bitrate());
}

#[test]
fn near_the_last_max_the_ramp_slows_to_a_fifth() {
    // At the last max, scale_t = max(0.2, 0) = 0.2: + 8 kb/s.
    let (mut m, view) = media(1e6, 1e6, 1e6, 0);
    m.adjust(ms(200), &view, FAST);
    assert!((m.target_bitrate() - 1.008e6).abs() < 1e-6);
    // 10 % above it: scale_t = (0.1 * 4)^2 = 0.16 -> 0.2; 20 % above: 0.64 -> 25.6 kb/s.
    let (mut m, view) = media(1.2e6, 1e6, 1.2e6, 0);
    m.adjust(ms(200), &view, FAST);
    assert!((m.target_bitrate() - (1.2e6 + 0.64 * 40e3)).abs() < 1e-3, "{}", m.target_bitrate());
}

#[test]
fn out_of_fast_increase_the_target_moves_to_the_rate_the_throughput_allows() {
    // current_rate 1 Mb/s, target 800 kb/s: delta 200 kb/s, limited to the ramp, 40 kb/s.
    let (mut m, view) = media(800e3, 1.0, 1e6, 0);
    m.adjust(ms(200), &view, SLOW);
    assert!((m.target_bitrate() - 840e3).abs() < 1e-6);
    // The guard: trend 0.5, guard 0.1: 1 Mb/s * 0.95 = 950 kb/s, target 940 kb/s: + 10 kb/s.
    let (mut m, view) = media(940e3, 1.0, 1e6, 0);
    m.adjust(ms(200), &view, NetSignals { qdelay_trend: 0.5, ..SLOW });
    assert!((m.target_bitrate() - 950e3).abs() < 1e-6, "{}", m.target_bitrate());
    // current_rate 500 kb/s, target 800 kb/s: down to 500 kb/s at once.
    let (mut m, view) = media(800e3, 1.0, 500e3, 0);
    m.adjust(ms(200), &view, SLOW);
    assert!((m.target_bitrate() - 500e3).abs() < 1e-6);
}

#[test]
fn an_rtp_queue_over_rtp_qdelay_th_scales_the_target_by_0_95() {
    // 5000 bytes queued = 40000 bits at 1 Mb/s: 40 ms > 20 ms. delta = 1e6 - 1.0 * 40000 -
    // 800000 = 160000 -> 40000 (ramp): 840 kb/s, then * 0.95 = 798 kb/s.
    let (mut m, view) = media(800e3, 1.0, 1e6, 5000);
    m.adjust(ms(200), &view, SLOW);
    assert!((m.target_bitrate() - 798e3).abs() < 1e-6, "{}", m.target_bitrate());
    // 2000 bytes = 16 ms: no scaling (delta = 1e6 - 16000 - 800000, ramp-limited to 40 kb/s).
    let (mut m, view) = media(800e3, 1.0, 1e6, 2000);
    m.adjust(ms(200), &view, SLOW);
    assert!((m.target_bitrate() - 840e3).abs() < 1e-6);
}

#[test]
fn a_queue_that_emptied_in_the_interval_did_not_build_up() {
    // 5000 bytes queued at the adjustment (a frame being paced out), but the queue was seen
    // empty at a send in the interval: no RTP-queue term, no 0.95 (840 kb/s as with no queue).
    let (mut m, view) = media(800e3, 1.0, 1e6, 5000);
    m.observe_queue(3000);
    m.observe_queue(0);
    m.observe_queue(6000);
    m.adjust(ms(200), &view, SLOW);
    assert!((m.target_bitrate() - 840e3).abs() < 1e-6, "{}", m.target_bitrate());
    // A queue that stayed at 5000 bytes or more through the next interval builds up: 0.95.
    m.target_bitrate = 800e3;
    m.on_sent(25_000);
    m.on_acked(25_000);
    m.observe_queue(5000);
    m.observe_queue(7000);
    m.adjust(ms(400), &SenderView { queue_bytes: 9000, ..view }, SLOW);
    assert!((m.target_bitrate() - 798e3).abs() < 1e-6, "{}", m.target_bitrate());
}

#[test]
fn the_target_is_at_most_two_less_the_trend_memory_times_the_measured_rate() {
    // rate 300 kb/s, trend memory 0.5: at most 1.5 * 300 = 450 kb/s.
    let (mut m, view) = media(1e6, 1.0, 300e3, 0);
    m.adjust(ms(200), &view, NetSignals { qdelay_trend_mem: 0.5, ..FAST });
    assert!((m.target_bitrate() - 450e3).abs() < 1e-6, "{}", m.target_bitrate());
}

#[test]
fn the_target_stays_within_min_and_max() {
    let (mut m, view) = media(9.99e6, 1.0, 9e6, 0);
    m.adjust(ms(200), &view, FAST);
    assert_eq!(m.target_bitrate(), 10e6);
    let (mut m, view) = media(200e3, 1.0, 10e3, 0);
    m.adjust(ms(200), &view, SLOW);
    assert_eq!(m.target_bitrate(), 150e3);
}

#[test]
fn a_loss_cuts_the_target_by_beta_r_and_a_mark_by_beta_ecn_and_sets_the_last_max() {
    let (mut m, _) = media(1e6, 1.0, 0.0, 0);
    m.on_congestion(Congestion::Loss);
    assert!((m.target_bitrate() - 900e3).abs() < 1e-6);
    assert_eq!(m.target_bitrate_last_max(), 1e6, "the target before the cut");
    m.on_congestion(Congestion::Ecn);
    assert!((m.target_bitrate() - 810e3).abs() < 1e-6);
    m.target_bitrate = 160e3;
    m.on_congestion(Congestion::Loss);
    assert_eq!(m.target_bitrate(), 150e3, "not below TARGET_BITRATE_MIN");
}

#[test]
fn the_queue_is_discarded_once_its_oldest_packet_waited_longer_than_max_rtp_queue_delay() {
    let m = MediaRateControl::new(&ScreamConfig::default());
    let view = |ms: u64| SenderView { queue_bytes: 1000, queue_delay: Dur::from_millis(ms), ..SenderView::default() };
    assert!(!m.discard_queue(&view(100)), "at 0.1 s: kept");
    assert!(m.discard_queue(&view(101)));
    assert!(!m.discard_queue(&SenderView { queue_bytes: 0, ..view(500) }), "nothing to discard");
}

#[test]
fn the_median_is_the_middle_value() {
    assert_eq!(median([3.0, 1.0, 2.0].into_iter()), 2.0);
    assert_eq!(median([4.0, 1.0, 2.0, 3.0].into_iter()), 2.5);
    assert_eq!(median(std::iter::empty()), 0.0);
}
