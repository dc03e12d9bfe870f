//! RFC 8593 §5's model: the statistics its text fixes, each within a band from the sample size.

use fairway_core::{Bytes, Dur, Rate, Rng, Time};

use super::*;

fn codec(cfg: SyntheticCodecConfig, target_bps: u64) -> SyntheticCodec {
    SyntheticCodec::new(cfg, Rng::stream(7, "codec"), Time::ZERO, Rate::from_bps(target_bps)).unwrap()
}

/// Runs `c` for `n` frames: (sizes, intervals in s).
fn run(c: &mut SyntheticCodec, n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut sizes = vec![];
    let mut gaps = vec![];
    for _ in 0..n {
        let at = c.next_frame_at();
        sizes.push(c.frame().0 as f64);
        gaps.push((c.next_frame_at() - at).as_secs_f64());
    }
    (sizes, gaps)
}

fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len() as f64
}

#[test]
fn at_steady_state_frames_average_the_target_and_deviate_as_laplacians_of_their_scale() {
    // 1 Mb/s at 30 fps: B0 = 4166.7 B, t0 = 33.3 ms. A Laplacian of scale b has mean 0, mean
    // absolute value b and standard deviation b sqrt 2; over n = 10^5 frames the mean of the
    // normalised deviation has standard error 0.15 x 1.414 / 316 = 6.7e-4: bands of 5 of them,
    // 3.4e-3. The mean absolute deviation (sd of |D| = b) has standard error 4.7e-4: band 2.4e-3.
    let mut c = codec(SyntheticCodecConfig::default(), 1_000_000);
    let n = 100_000;
    let (sizes, gaps) = run(&mut c, n);
    let b0 = 1e6 / 8.0 / 30.0;
    let t0 = 1.0 / 30.0;
    let d_b: Vec<f64> = sizes.iter().map(|s| s / b0 - 1.0).collect();
    let d_t: Vec<f64> = gaps.iter().map(|g| g / t0 - 1.0).collect();
    assert!(mean(&d_b).abs() < 3.4e-3 + 0.5 / b0, "size deviation mean {}", mean(&d_b));
    assert!(mean(&d_t).abs() < 3.4e-3 + 1e-6, "interval deviation mean {}", mean(&d_t));
    let mad = |d: &[f64]| d.iter().map(|x| x.abs()).sum::<f64>() / d.len() as f64;
    assert!((mad(&d_b) - 0.15).abs() < 2.4e-3, "size deviation scale {}", mad(&d_b));
    assert!((mad(&d_t) - 0.15).abs() < 2.4e-3, "interval deviation scale {}", mad(&d_t));
    // So the output rate is the target, bytes over time: the ratio of the two means, each within
    // 6.7e-4 (one standard error), is within 1%, over ten of them.
    let rate = sizes.iter().sum::<f64>() * 8.0 / gaps.iter().sum::<f64>();
    assert!((rate / 1e6 - 1.0).abs() < 0.01, "{rate}");
}

#[test]
fn without_fluctuation_every_frame_is_b0_every_t0() {
    let cfg = SyntheticCodecConfig { scale_t: 0.0, scale_b: 0.0, ..SyntheticCodecConfig::default() };
    let mut c = codec(cfg, 600_000);
    let (sizes, gaps) = run(&mut c, 100);
    assert!(sizes.iter().all(|&s| s == 2500.0), "600 kb/s / 8 / 30 = 2500 B");
    assert!(gaps.iter().all(|&g| (g - 1.0 / 30.0).abs() < 1e-9));
}

#[test]
fn a_target_is_clipped_to_the_contents_range() {
    let c = codec(SyntheticCodecConfig::default(), 5_000_000);
    assert_eq!(c.rate(), Rate::from_bps(1_500_000));
    let c = codec(SyntheticCodecConfig::default(), 10_000);
    assert_eq!(c.rate(), Rate::from_bps(150_000));
}

#[test]
fn the_encoder_ignores_requests_within_tau_v_of_its_last_reaction() {
    let mut c = codec(SyntheticCodecConfig::default(), 1_000_000);
    // The start counts as a reaction: 150 ms is too soon, 200 ms is not.
    assert!(!c.set_target(Time(150_000_000), Rate::from_bps(500_000)));
    assert_eq!(c.rate(), Rate::from_bps(1_000_000));
    assert!(c.set_target(Time(200_000_000), Rate::from_bps(500_000)));
    assert_eq!(c.rate(), Rate::from_bps(500_000));
    // Ignored, not deferred: the rate stays until a request after 400 ms.
    assert!(!c.set_target(Time(399_000_000), Rate::from_bps(800_000)));
    assert_eq!(c.rate(), Rate::from_bps(500_000));
    assert!(c.set_target(Time(400_000_000), Rate::from_bps(800_000)));
}

#[test]
fn a_reaction_bursts_k_b_then_smaller_frames_that_keep_the_transients_mean() {
    let cfg = SyntheticCodecConfig { scale_t: 0.0, scale_b: 0.0, ..SyntheticCodecConfig::default() };
    let mut c = codec(cfg.clone(), 600_000);
    run(&mut c, 10);
    assert!(c.set_target(Time::ZERO + Dur::from_secs(1), Rate::from_bps(1_000_000)));
    // K_d = 8 frames at 1 Mb/s carry 8 x 4166.7 = 33 333 B: the first 13 500, the other seven
    // (33 333 - 13 500) / 7 = 2833.3 each, below B0; then B0 again.
    let (sizes, _) = run(&mut c, 10);
    assert_eq!(sizes[0], 13_500.0);
    assert!(sizes[1..8].iter().all(|&s| s == 2833.0), "{sizes:?}");
    assert_eq!(sizes[8], 4167.0);
    let burst: f64 = sizes[..8].iter().sum();
    assert!((burst - 8.0 * 1e6 / 8.0 / 30.0).abs() < 4.0, "{burst}");
    // A K_B above the burst's budget is cut to it: at 150 kb/s, 8 frames carry 5000 B.
    let mut c = codec(cfg, 1_000_000);
    assert!(c.set_target(Time::ZERO + Dur::from_secs(1), Rate::from_bps(150_000)));
    let (sizes, _) = run(&mut c, 9);
    assert_eq!(sizes[0], 5000.0);
    assert!(sizes[1..8].iter().all(|&s| s == 1.0), "the rest get the least a frame can be");
    assert_eq!(sizes[8], 625.0);
    // A change of 10% or less is not abrupt (§7): taken, without a burst.
    let mut c = codec(SyntheticCodecConfig { scale_t: 0.0, scale_b: 0.0, ..SyntheticCodecConfig::default() }, 600_000);
    assert!(c.set_target(Time::ZERO + Dur::from_secs(1), Rate::from_bps(660_000)));
    assert_eq!(c.frame(), Bytes(2750));
    // The same target again is no change: no burst.
    let mut c = codec(SyntheticCodecConfig { scale_t: 0.0, scale_b: 0.0, ..SyntheticCodecConfig::default() }, 600_000);
    assert!(c.set_target(Time::ZERO + Dur::from_secs(1), Rate::from_bps(600_000)));
    assert_eq!(c.frame(), Bytes(2500));
}

#[test]
fn bad_parameters_are_refused() {
    let bad = |cfg: SyntheticCodecConfig| {
        SyntheticCodec::new(cfg, Rng::from_seed(1), Time::ZERO, Rate::from_bps(1)).err().unwrap_or_default()
    };
    assert!(bad(SyntheticCodecConfig { fps: 0.0, ..Default::default() }).contains("fps"));
    assert!(bad(SyntheticCodecConfig { scale_b: -1.0, ..Default::default() }).contains("scale_b"));
    let e = bad(SyntheticCodecConfig { r_min: Rate::from_bps(2), r_max: Rate::from_bps(1), ..Default::default() });
    assert!(e.contains("r_min"), "{e}");
}

#[test]
fn the_same_stream_gives_the_same_frames() {
    let a = run(&mut codec(SyntheticCodecConfig::default(), 800_000), 1000);
    let b = run(&mut codec(SyntheticCodecConfig::default(), 800_000), 1000);
    assert_eq!(a, b);
}
