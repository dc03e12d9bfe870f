//! RFC 8868 §3's measures that a run's summary does not already hold: each flow's rate over
//! fixed windows, the bottleneck's utilisation, Jain's index over the media flows, and the
//! convergence time (§3 item 8), defined here as docs/scenarios.md ("fairway suite rmcat")
//! states it:
//!
//! the run is cut into periods at every event that changes what a flow may have: a change of the
//! bottleneck's capacity, and any flow's start or stop. Within a period [t0, t1) a flow's rate
//! is taken over 1 s windows (RFC 8868 §3 plots its rates at 1 s); its settled rate is its mean
//! over the period's last `SETTLE_S` seconds; it has converged at the start of the first
//! `SETTLE_S` consecutive windows all within `BAND` (10%) of the settled rate (it reached a rate
//! and held it), and its convergence time is that start less t0. A period shorter than
//! `SETTLE_S` plus one window, or a settled rate of zero, has no convergence time; nor has one in
//! which no `SETTLE_S` consecutive windows are in the band (it never settled). Holding the band
//! for `SETTLE_S` rather than to the period's end keeps one late excursion (a key frame, a
//! competitor's burst) from putting the convergence at the period's end: the encoder's own
//! frame-size deviations (RFC 8593's Laplacian of scale 0.15 at 30 fps) move a 1 s window by
//! about 4% (one standard deviation), so over a long period some window leaves a 10% band by
//! chance alone.

/// The relative band around the settled rate.
pub const BAND: f64 = 0.10;
/// The span at the end of a period over which the settled rate is averaged, seconds.
pub const SETTLE_S: f64 = 5.0;
/// The rate windows, seconds.
pub const WINDOW_S: f64 = 1.0;

/// A step function: `(from, value)` in time order, each value in force until the next.
pub fn step_at(steps: &[(f64, f64)], t: f64) -> f64 {
    steps.iter().take_while(|s| s.0 <= t).last().or(steps.first()).map_or(0.0, |s| s.1)
}

/// Rates over windows of `window` seconds from `bins`: (start, bits per second) where `bins` are
/// (start, bytes) of width `bin` seconds. Bins are summed into windows aligned at 0; a window
/// past the last bin is not made.
pub fn windows(bins: &[(f64, f64)], bin: f64, window: f64) -> Vec<(f64, f64)> {
    let per = (window / bin).round().max(1.0) as usize;
    bins.chunks(per)
        .filter(|c| c.len() == per)
        .map(|c| (c[0].0, c.iter().map(|b| b.1).sum::<f64>() * 8.0 / (per as f64 * bin)))
        .collect()
}

/// The periods between consecutive `events` (any order, repeats allowed) within [0, end).
pub fn periods(events: &[f64], end: f64) -> Vec<(f64, f64)> {
    let mut t: Vec<f64> = events.iter().copied().filter(|&e| e > 0.0 && e < end).collect();
    t.push(0.0);
    t.push(end);
    t.sort_by(f64::total_cmp);
    t.dedup_by(|a, b| (*a - *b).abs() < 1e-9);
    t.windows(2).map(|w| (w[0], w[1])).collect()
}

/// The convergence time of a flow whose window rates are `rate` (start, b/s) within the period
/// [t0, t1) (see the module's definition).
pub fn convergence_time(rate: &[(f64, f64)], t0: f64, t1: f64) -> Option<f64> {
    if t1 - t0 < SETTLE_S + WINDOW_S {
        return None;
    }
    let inside: Vec<(f64, f64)> =
        rate.iter().copied().filter(|&(s, _)| s >= t0 - 1e-9 && s + WINDOW_S <= t1 + 1e-9).collect();
    let tail: Vec<f64> = inside.iter().filter(|&&(s, _)| s >= t1 - SETTLE_S - 1e-9).map(|x| x.1).collect();
    if tail.is_empty() {
        return None;
    }
    let settled = tail.iter().sum::<f64>() / tail.len() as f64;
    if settled <= 0.0 {
        return None;
    }
    let within = |r: f64| (r - settled).abs() <= BAND * settled;
    let hold = (SETTLE_S / WINDOW_S).round() as usize;
    let mut run = 0;
    for (k, &(_, r)) in inside.iter().enumerate() {
        run = if within(r) { run + 1 } else { 0 };
        if run == hold {
            return Some(inside[k + 1 - hold].0 - t0);
        }
    }
    None
}

/// Jain's fairness index of `x`: (sum x)^2 / (n sum x^2); 1 for equal shares, 1/n when one has
/// all. `None` for fewer than two values or all zero.
pub fn jain(x: &[f64]) -> Option<f64> {
    if x.len() < 2 {
        return None;
    }
    let (s, s2) = x.iter().fold((0.0, 0.0), |(s, s2), v| (s + v, s2 + v * v));
    (s2 > 0.0).then(|| s * s / (x.len() as f64 * s2))
}

/// The mean over windows of what went through (b/s, by window start) over the capacity then
/// (`capacity`, a step function in b/s), over the windows that start in [from, to).
pub fn utilisation(through: &[(f64, f64)], capacity: &[(f64, f64)], from: f64, to: f64) -> Option<f64> {
    let u: Vec<f64> = through
        .iter()
        .filter(|&&(s, _)| s >= from - 1e-9 && s < to - 1e-9)
        .map(|&(s, r)| r / step_at(capacity, s + WINDOW_S / 2.0))
        .collect();
    (!u.is_empty()).then(|| u.iter().sum::<f64>() / u.len() as f64)
}

#[cfg(test)]
#[path = "measures_tests.rs"]
mod tests;
