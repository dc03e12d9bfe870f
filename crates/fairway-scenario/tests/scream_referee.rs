//! fairway's SCReAM (RFC 8298) through the full stack, the simulator, the RTP sender and receiver
//! and RFC 8888 feedback, against Ericsson's SCReAM v1 simulator on RFC 8867 §5.1's capacities
//! (bench/referees/scream/, its default-params run), on a scenario set up as the referee was
//! (scenarios/rfc8867/referee/scream-ericsson.toml: its comments say what it matches and why).
//! SCReAM's parameters are fairway's defaults, RFC 8298's; the referee's README lists where the
//! referee's differ. The band is 15 %.
//!
//! Measured at this commit (the scenario's seed, 1), the target's time-weighted mean over the
//! second half of each capacity phase against the referee's: 954/1500/575/957 kb/s against
//! 898/1500/533/878 (+6.2, 0.0, +8.0, +8.9 %). The RMS of the relative difference sampled every
//! 100 ms is 44.5 % over the whole run and 17.5 % from 10 s on: the first 10 s differ by
//! design (RFC 8298's fast increase ramps by at most half the target a second, the referee's
//! `rampUpScale` a fifth: fairway reaches 1 Mb/s at about 5 s, the referee at about 11 s, and
//! after 80 s fairway climbs back sooner for the same reason); within those 17.5 % also lie
//! the referee's media-rate extras RFC 8298 does not have (no decrease while the encoder is
//! below 0.9 x the target, a 5 % push at low rates, ...). So the RMS is asserted from 10 s on,
//! within 20 %, not 15 %; the whole run's is not asserted.

use fairway_engine::{run, RunOptions};
use fairway_scenario::parse_scenario;

const SCENARIO: &str = include_str!("../../../scenarios/rfc8867/referee/scream-ericsson.toml");

/// A step function: (time s, value), in time order; the value holds until the next point.
type Steps = Vec<(f64, f64)>;

fn at(s: &Steps, t: f64) -> f64 {
    let i = s.partition_point(|p| p.0 <= t);
    s[i.saturating_sub(1)].1
}

/// The time-weighted mean of `s` over `from..to`.
fn mean(s: &Steps, from: f64, to: f64) -> f64 {
    let mut cuts = vec![from];
    cuts.extend(s.iter().map(|p| p.0).filter(|&t| t > from && t < to));
    cuts.push(to);
    cuts.windows(2).map(|w| at(s, w[0]) * (w[1] - w[0])).sum::<f64>() / (to - from)
}

/// The RMS of (ours - theirs) / theirs sampled every 100 ms over `from..to`.
fn rms(ours: &Steps, theirs: &Steps, from: f64, to: f64) -> f64 {
    let n = ((to - from) * 10.0).round() as usize;
    let ss: f64 = (0..n)
        .map(|k| {
            let t = from + 0.05 + 0.1 * k as f64;
            let r = at(theirs, t);
            ((at(ours, t) - r) / r).powi(2)
        })
        .sum();
    (ss / n as f64).sqrt()
}

/// The referee's target bitrate, b/s, a row every 50 ms.
#[path = "../../../bench/referees/scream/referee.rs"]
mod referee;

/// fairway's SCReAM target over the run, b/s, at each change.
fn ours() -> Steps {
    let sc = parse_scenario("scream-ericsson.toml", SCENARIO, "scream-ericsson").unwrap_or_else(|e| panic!("{e}"));
    let opts = RunOptions { trace_agents: vec![0], ..RunOptions::default() };
    let r = run(&sc, &opts, &mut |_| {}).unwrap_or_else(|e| panic!("{e}"));
    let s: Steps = r
        .agent_trace
        .iter()
        .filter(|a| a.flow == 0)
        .filter_map(|a| a.state.rate_bps.map(|b| (a.t.as_secs_f64(), b)))
        .collect();
    assert!(s.len() > 400 && s[0].0 < 0.5, "{} trace rows from {:?}", s.len(), s.first());
    s
}

#[test]
fn each_capacity_phase_s_mean_target_is_within_15_percent_of_the_referee_s() {
    let (ours, theirs) = (ours(), referee::target_bitrate());
    for (from, to) in [(20.0, 40.0), (50.0, 60.0), (70.0, 80.0), (90.0, 100.0)] {
        let (o, t) = (mean(&ours, from, to), mean(&theirs, from, to));
        assert!((o / t - 1.0).abs() < 0.15, "{from}-{to} s: mean target {o:.0} b/s, the referee's {t:.0}");
    }
}

#[test]
fn after_the_first_10_s_the_target_s_rms_difference_from_the_referee_s_is_within_20_percent() {
    let (ours, theirs) = (ours(), referee::target_bitrate());
    let late = rms(&ours, &theirs, 10.0, 100.0);
    assert!(late < 0.20, "RMS of the relative difference over 10-100 s: {:.1} %", 100.0 * late);
}
