//! RFC 8868 §3's measures of a case's media flows that a run's summary does not already hold:
//! the bottleneck's utilisation over 1 s windows and Jain's index over the media flows. Each
//! flow's convergence time is in every run's summary (fairway-model's convergence.rs, whose
//! windows this uses).

pub use fairway_model::convergence::{windows, WINDOW_S};

/// A step function: `(from, value)` in time order, each value in force until the next.
pub fn step_at(steps: &[(f64, f64)], t: f64) -> f64 {
    steps.iter().take_while(|s| s.0 <= t).last().or(steps.first()).map_or(0.0, |s| s.1)
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
