//! Measures over several flows: Jain's fairness index (RFC 5166 §2.3), and the time any of
//! them was active.

/// Jain's fairness index of `xs`: (sum x)^2 / (n sum x^2), in [1/n, 1]; `None` for no values or
/// when all are zero (nothing to share).
pub fn jain(xs: &[f64]) -> Option<f64> {
    let n = xs.len() as f64;
    let sum: f64 = xs.iter().sum();
    let sq: f64 = xs.iter().map(|x| x * x).sum();
    (n > 0.0 && sq > 0.0).then(|| sum * sum / (n * sq))
}

/// The length of the union of intervals `[a, b)` (empty ones, b <= a, count for nothing).
pub fn union_length(intervals: impl Iterator<Item = (f64, f64)>) -> f64 {
    let mut v: Vec<(f64, f64)> = intervals.filter(|(a, b)| b > a).collect();
    v.sort_by(|x, y| x.0.total_cmp(&y.0));
    let mut total = 0.0;
    let mut open: Option<(f64, f64)> = None;
    for (a, b) in v {
        match &mut open {
            Some((_, end)) if a <= *end => *end = end.max(b),
            _ => {
                if let Some((s, e)) = open {
                    total += e - s;
                }
                open = Some((a, b));
            }
        }
    }
    total + open.map_or(0.0, |(s, e)| e - s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_union_counts_overlaps_once_and_gaps_not_at_all() {
        assert_eq!(union_length([(0.0, 10.0), (5.0, 20.0)].into_iter()), 20.0);
        assert_eq!(union_length([(10.0, 20.0), (0.0, 5.0)].into_iter()), 15.0);
        assert_eq!(union_length([(0.0, 30.0), (5.0, 10.0)].into_iter()), 30.0);
        assert_eq!(union_length([(3.0, 3.0), (4.0, 2.0)].into_iter()), 0.0);
        assert_eq!(union_length(std::iter::empty()), 0.0);
    }

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
