//! RFC 8593 §6.2.1's equations on a small hand-made map, worked by hand.

use std::sync::Arc;

use fairway_core::{Bytes, Dur, Rate, Time};

use super::*;
use crate::rtp::media::MediaSource;

/// Three rates with a variable step (§6.2.2): 200 kb/s from 100 to 300 kb/s, 100 kb/s from 300
/// to 400 kb/s; six frames, an I-frame then five P-frames.
fn traces() -> Arc<Traces> {
    Arc::new(
        Traces::new(vec![
            (100_000, vec![1000, 100, 200, 300, 400, 500]),
            (300_000, vec![3000, 300, 600, 900, 1200, 1500]),
            (400_000, vec![5000, 500, 1000, 1500, 2000, 2500]),
        ])
        .unwrap(),
    )
}

/// A wide content range (so R_v is the target as asked) and SkipFrames 2.
fn cfg() -> TraceCodecConfig {
    TraceCodecConfig {
        skip_frames: 2,
        r_min: Rate::from_bps(1_000),
        r_max: Rate::from_bps(10_000_000),
        ..TraceCodecConfig::default()
    }
}

fn codec(target: u64) -> TraceCodec {
    TraceCodec::new(cfg(), traces(), Time::ZERO, Rate::from_bps(target)).unwrap()
}

/// The sizes of the next `n` frames.
fn sizes(c: &mut TraceCodec, n: usize) -> Vec<u64> {
    (0..n).map(|_| c.frame().0).collect()
}

#[test]
fn r_current_is_the_largest_stored_rate_at_or_below_r_ref() {
    let at = |r: u64| codec(r).r_current();
    // Below Rf_min: R_ref = Rf_min.
    assert_eq!(at(50_000), 100_000);
    assert_eq!(at(100_000), 100_000);
    assert_eq!(at(299_999), 100_000);
    assert_eq!(at(300_000), 300_000);
    assert_eq!(at(399_999), 300_000);
    // At and above Rf_max: R_ref = Rf_max.
    assert_eq!(at(400_000), 400_000);
    assert_eq!(at(999_000), 400_000);
}

#[test]
fn between_the_stored_rates_a_frame_interpolates_linearly_with_the_local_step() {
    // 250 kb/s: r_current 100 kb/s, l = 200 kb/s, distance_lo = 150/200 = 0.75:
    // 3000 x 0.75 + 1000 x 0.25 = 2500; then 300 x 0.75 + 100 x 0.25 = 250, 500, 750.
    assert_eq!(sizes(&mut codec(250_000), 4), [2500, 250, 500, 750]);
    // 350 kb/s: r_current 300 kb/s, l = 100 kb/s (the variable step), distance_lo = 0.5:
    // (3000 + 5000) / 2 = 4000, (300 + 500) / 2 = 400.
    assert_eq!(sizes(&mut codec(350_000), 2), [4000, 400]);
    // At a stored rate: distance_lo = 0, the vector itself.
    assert_eq!(sizes(&mut codec(300_000), 3), [3000, 300, 600]);
    // 120 kb/s: distance_lo = 0.1: 3000 x 0.1 + 1000 x 0.9 = 1200; 300 x 0.1 + 100 x 0.9 = 120.
    assert_eq!(sizes(&mut codec(120_000), 2), [1200, 120]);
}

#[test]
fn below_rf_min_and_at_or_above_rf_max_a_frame_is_scaled_by_w() {
    // b) 50 kb/s: w = 50/100 = 0.5 of Traces[100 kb/s]: 500, 50, 100.
    assert_eq!(sizes(&mut codec(50_000), 3), [500, 50, 100]);
    // c) 800 kb/s: w = 800/400 = 2 of Traces[400 kb/s]: 10 000, 1000, 2000.
    assert_eq!(sizes(&mut codec(800_000), 3), [10_000, 1000, 2000]);
    // At Rf_max exactly: case c with w = 1.
    assert_eq!(sizes(&mut codec(400_000), 2), [5000, 500]);
}

#[test]
fn a_frame_is_clipped_to_fs_min_and_fs_max() {
    // 5 kb/s: w = 0.05: 1000 x 0.05 = 50; 100 x 0.05 = 5, below fs_min (10 B): 10.
    assert_eq!(sizes(&mut codec(5_000), 2), [50, 10]);
    // fs_max 8000 B: at 800 kb/s the I-frame's 10 000 B is cut to it, the next 1000 B is not.
    let c = TraceCodecConfig { fs_max: Bytes(8000), ..cfg() };
    let mut c = TraceCodec::new(c, traces(), Time::ZERO, Rate::from_bps(800_000)).unwrap();
    assert_eq!(sizes(&mut c, 2), [8000, 1000]);
    // The defaults are §6.2.1's examples: 10 bytes and 1 MB.
    let d = TraceCodecConfig::default();
    assert_eq!((d.fs_min, d.fs_max, d.skip_frames), (Bytes(10), Bytes(1_000_000), 20));
}

#[test]
fn t_current_wraps_past_the_end_to_skip_frames() {
    // Six frames, SkipFrames 2: 0 1 2 3 4 5, then 2 3 4 5, 2 3 ... (the I-frame once).
    let mut c = codec(100_000);
    let t: Vec<usize> = (0..12)
        .map(|_| {
            let t = c.t_current();
            c.frame();
            t
        })
        .collect();
    assert_eq!(t, [0, 1, 2, 3, 4, 5, 2, 3, 4, 5, 2, 3]);
    let mut c = codec(100_000);
    assert_eq!(sizes(&mut c, 8), [1000, 100, 200, 300, 400, 500, 200, 300]);
    // SkipFrames 0: the whole vector again, I-frame included (§6.2.1's periodic I-frames).
    let c0 = TraceCodecConfig { skip_frames: 0, ..cfg() };
    let mut c = TraceCodec::new(c0, traces(), Time::ZERO, Rate::from_bps(100_000)).unwrap();
    assert_eq!(sizes(&mut c, 8), [1000, 100, 200, 300, 400, 500, 1000, 100]);
    // §6.2.2's I-frame on demand: back to the first frame.
    let mut c = codec(100_000);
    sizes(&mut c, 7);
    c.request_key_frame();
    assert_eq!(sizes(&mut c, 3), [1000, 100, 200]);
}

#[test]
fn a_new_target_changes_the_vector_and_keeps_the_frame_index() {
    let mut c = codec(100_000);
    assert_eq!(sizes(&mut c, 2), [1000, 100]);
    assert!(c.set_target(Time::ZERO + Dur::from_millis(66), Rate::from_bps(300_000)));
    assert_eq!(c.r_current(), 300_000);
    // t_current is 2: Traces[300 kb/s][2] = 600.
    assert_eq!(sizes(&mut c, 2), [600, 900]);
}

#[test]
fn frames_are_due_every_one_over_fps_from_the_start() {
    let start = Time::ZERO + Dur::from_secs(5);
    let mut c = TraceCodec::new(cfg(), traces(), start, Rate::from_bps(100_000)).unwrap();
    assert_eq!(c.next_frame_at(), start);
    for _ in 0..300 {
        c.frame();
    }
    // The 300th frame at 30 fps is due 10 s on, without drift.
    assert_eq!(c.next_frame_at(), start + Dur::from_secs(10));
    assert_eq!(c.frames(), 300);
}

#[test]
fn the_target_is_clipped_to_the_contents_range() {
    let dflt = TraceCodecConfig { skip_frames: 2, ..TraceCodecConfig::default() };
    let c = TraceCodec::new(dflt, traces(), Time::ZERO, Rate::from_bps(5_000_000)).unwrap();
    assert_eq!(c.rate(), Rate::from_bps(1_500_000));
    let c = TraceCodec::new(TraceCodecConfig::default(), traces(), Time::ZERO, Rate::from_bps(10_000));
    // Six frames are not more than the default SkipFrames, 20: refused.
    assert!(c.unwrap_err().contains("skip_frames 20"));
    let mut c = TraceCodec::new(
        TraceCodecConfig { skip_frames: 2, ..TraceCodecConfig::default() },
        traces(),
        Time::ZERO,
        Rate::from_bps(10_000),
    )
    .unwrap();
    // R_min = 150 kb/s: the interpolation at 150 kb/s, distance_lo 0.25: 1000 x 0.75 + 3000 x 0.25.
    assert_eq!(c.rate(), Rate::from_bps(150_000));
    assert_eq!(c.frame(), Bytes(1500));
}

#[test]
fn with_tau_v_requests_within_it_of_the_last_taken_are_ignored() {
    // By default every request is taken (§6.2.1 has no latency).
    let mut c = codec(100_000);
    assert!(c.set_target(Time(1), Rate::from_bps(300_000)));
    assert!(c.set_target(Time(2), Rate::from_bps(400_000)));
    let with = TraceCodecConfig { tau_v: Dur::from_millis(200), ..cfg() };
    let mut c = TraceCodec::new(with, traces(), Time::ZERO, Rate::from_bps(100_000)).unwrap();
    assert!(!c.set_target(Time(150_000_000), Rate::from_bps(300_000)));
    assert_eq!(c.r_current(), 100_000);
    assert!(c.set_target(Time(200_000_000), Rate::from_bps(300_000)));
    assert_eq!(c.r_current(), 300_000);
}

#[test]
fn start_restarts_at_the_first_frame_and_the_given_target() {
    let mut c = codec(100_000);
    sizes(&mut c, 9);
    let at = Time::ZERO + Dur::from_secs(20);
    MediaSource::start(&mut c, at, 300_000.0);
    assert_eq!(MediaSource::next_frame_at(&c), Some(at));
    assert_eq!(MediaSource::rate(&c), 300_000.0);
    assert_eq!(MediaSource::frame(&mut c, at), Bytes(3000));
    assert_eq!(MediaSource::next_frame_at(&c), Some(at + Dur::from_secs_f64(1.0 / 30.0)));
    assert_eq!(MediaSource::fps(&c), 30.0);
}

#[test]
fn bad_traces_are_refused_with_what_is_wrong() {
    assert_eq!(Traces::new(vec![]).unwrap_err(), "a trace needs at least one rate");
    assert_eq!(Traces::new(vec![(100_000, vec![])]).unwrap_err(), "the trace at 100000 b/s has no frames");
    let e = Traces::new(vec![(300_000, vec![1, 2]), (100_000, vec![1, 2])]).unwrap_err();
    assert_eq!(e, "rates must increase: 100000 b/s comes after 300000 b/s");
    let e = Traces::new(vec![(300_000, vec![1, 2]), (300_000, vec![1, 2])]).unwrap_err();
    assert_eq!(e, "rates must increase: 300000 b/s comes after 300000 b/s");
    let e = Traces::new(vec![(100_000, vec![1, 2, 3]), (300_000, vec![1, 2])]).unwrap_err();
    assert_eq!(e, "every rate needs the same number of frames: 300000 b/s has 2, 100000 b/s has 3");
    assert!(Traces::new(vec![(0, vec![1])]).unwrap_err().contains("positive"));
    // One rate is a valid map: no interpolation, only scaling.
    let one = Arc::new(Traces::new(vec![(200_000, vec![400; 30])]).unwrap());
    let mut c = TraceCodec::new(cfg(), one.clone(), Time::ZERO, Rate::from_bps(100_000)).unwrap();
    assert_eq!(c.frame(), Bytes(200));
    let mut c = TraceCodec::new(cfg(), one, Time::ZERO, Rate::from_bps(300_000)).unwrap();
    assert_eq!(c.frame(), Bytes(600));
}

#[test]
fn bad_parameters_are_refused() {
    let bad = |c: TraceCodecConfig| TraceCodec::new(c, traces(), Time::ZERO, Rate::from_bps(1)).unwrap_err();
    assert!(bad(TraceCodecConfig { fps: 0.0, ..cfg() }).starts_with("fps"));
    assert!(bad(TraceCodecConfig { fs_min: Bytes(11), fs_max: Bytes(10), ..cfg() }).starts_with("fs_min"));
    assert!(bad(TraceCodecConfig { r_min: Rate::from_bps(2), r_max: Rate::from_bps(1), ..cfg() }).starts_with("r_min"));
    assert!(bad(TraceCodecConfig { skip_frames: 6, ..cfg() }).contains("a trace of 6 frames"));
}
