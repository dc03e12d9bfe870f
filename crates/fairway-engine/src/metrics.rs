//! Measures over several flows: Jain's fairness index (RFC 5166 §2.3).

/// Jain's fairness index of `xs`: (sum x)^2 / (n sum x^2), in [1/n, 1]; `None` for no values or
/// when all are zero (nothing to share).
pub fn jain(xs: &[f64]) -> Option<f64> {
    let n = xs.len() as f64;
    let sum: f64 = xs.iter().sum();
    let sq: f64 = xs.iter().map(|x| x * x).sum();
    (n > 0.0 && sq > 0.0).then(|| sum * sum / (n * sq))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jains_index_runs_from_one_over_n_to_one() {
        assert_eq!(jain(&[5.0, 5.0, 5.0, 5.0]), Some(1.0));
        assert_eq!(jain(&[8.0, 0.0, 0.0, 0.0]), Some(0.25));
        // RFC 5166 §2.3's form: two flows at 1 and 3: 16 / (2 x 10) = 0.8.
        assert_eq!(jain(&[1.0, 3.0]), Some(0.8));
        assert_eq!(jain(&[]), None);
        assert_eq!(jain(&[0.0, 0.0]), None);
        // Scale-free.
        assert_eq!(jain(&[2e6, 6e6]), jain(&[1.0, 3.0]));
    }
}
