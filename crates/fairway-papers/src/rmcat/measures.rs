//! RFC 8868 §3's measures of a case's media flows that a run's summary does not already hold:
//! each flow's rate and the bottleneck's utilisation over 1 s windows, and Jain's index over the
//! media flows. Each flow's convergence time is in every run's summary (fairway-model's
//! convergence.rs).

pub use fairway_model::convergence::WINDOW_S;

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

/// A step function: `(from, value)` in time order, each value in force until the next.
pub fn step_at(steps: &[(f64, f64)], t: f64) -> f64 {
    steps.iter().take_while(|s| s.0 <= t).last().or(steps.first()).map_or(0.0, |s| s.1)
}

/// Jain's fairness index of `x` (fairway-model's), for two values or more.
pub fn jain(x: &[f64]) -> Option<f64> {
    if x.len() < 2 {
        return None;
    }
    fairway_model::metrics::jain(x)
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
