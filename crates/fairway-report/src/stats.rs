//! Replications: the mean of a quantity over independent runs (seeds), its 95% confidence
//! interval, and the 95% prediction interval of a single further run, which is what a paper's
//! one simulation run is compared with.

/// A quantity measured once per seed.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    pub n: usize,
    pub mean: f64,
    /// Sample standard deviation (n - 1 in the denominator); 0 for one sample.
    pub sd: f64,
    pub min: f64,
    pub max: f64,
}

impl Estimate {
    /// The estimate of `samples`; non-finite samples are left out. An empty set gives n = 0 and
    /// NaN everywhere.
    pub fn of(samples: impl IntoIterator<Item = f64>) -> Estimate {
        let v: Vec<f64> = samples.into_iter().filter(|x| x.is_finite()).collect();
        let n = v.len();
        if n == 0 {
            return Estimate { n, mean: f64::NAN, sd: f64::NAN, min: f64::NAN, max: f64::NAN };
        }
        let mean = v.iter().sum::<f64>() / n as f64;
        let ss: f64 = v.iter().map(|x| (x - mean) * (x - mean)).sum();
        let sd = if n > 1 { (ss / (n - 1) as f64).sqrt() } else { 0.0 };
        let min = v.iter().copied().fold(f64::INFINITY, f64::min);
        let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        Estimate { n, mean, sd, min, max }
    }

    /// Half the width of the 95% confidence interval of the mean: t(0.975, n - 1) sd / sqrt(n).
    /// Infinite with fewer than two samples (nothing is known of the spread).
    pub fn ci95(&self) -> f64 {
        if self.n < 2 {
            return f64::INFINITY;
        }
        t975(self.n - 1) * self.sd / (self.n as f64).sqrt()
    }

    /// Half the width of the 95% prediction interval for one more run: t(0.975, n - 1) sd
    /// sqrt(1 + 1/n). A paper's single run agrees with fairway's runs when it falls inside.
    pub fn pi95(&self) -> f64 {
        if self.n < 2 {
            return f64::INFINITY;
        }
        t975(self.n - 1) * self.sd * (1.0 + 1.0 / self.n as f64).sqrt()
    }

    /// The estimate scaled (a change of unit).
    pub fn scaled(&self, k: f64) -> Estimate {
        let (a, b) = (self.min * k, self.max * k);
        Estimate { n: self.n, mean: self.mean * k, sd: self.sd * k.abs(), min: a.min(b), max: a.max(b) }
    }

    /// "12.3 ± 0.4" with `digits` decimals (the ± is the 95% confidence interval; with one run,
    /// the value alone).
    pub fn show(&self, digits: usize) -> String {
        if self.n == 0 {
            return "-".to_string();
        }
        if self.n < 2 {
            return format!("{:.*}", digits, self.mean);
        }
        format!("{:.*} ± {:.*}", digits, self.mean, digits, self.ci95())
    }
}

/// The 0.975 quantile of Student's t distribution with `dof` degrees of freedom (two-sided 95%).
/// Tabulated to 30; above, the normal 1.96 is within 2%.
pub fn t975(dof: usize) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
        2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
    ];
    match dof {
        0 => f64::INFINITY,
        d if d <= 30 => T[d - 1],
        _ => 1.96,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_spread_and_intervals_of_five_runs() {
        // 2, 4, 4, 4, 6: mean 4, sample variance 8/4 = 2.
        let e = Estimate::of([2.0, 4.0, 4.0, 4.0, 6.0]);
        assert_eq!((e.n, e.mean, e.min, e.max), (5, 4.0, 2.0, 6.0));
        assert!((e.sd - 2f64.sqrt()).abs() < 1e-12);
        // t(0.975, 4) = 2.776: CI 2.776 sqrt(2/5), PI 2.776 sqrt(2 x 6/5).
        assert!((e.ci95() - 2.776 * (0.4f64).sqrt()).abs() < 1e-9);
        assert!((e.pi95() - 2.776 * (2.4f64).sqrt()).abs() < 1e-9);
        assert_eq!(e.show(1), format!("4.0 ± {:.1}", e.ci95()));
    }

    #[test]
    fn degenerate_inputs() {
        let e = Estimate::of([3.0]);
        assert_eq!((e.n, e.sd), (1, 0.0));
        assert!(e.ci95().is_infinite() && e.pi95().is_infinite());
        assert_eq!(e.show(2), "3.00");
        let e = Estimate::of([f64::NAN, 1.0, f64::INFINITY, 3.0]);
        assert_eq!((e.n, e.mean), (2, 2.0));
        let e = Estimate::of([]);
        assert!(e.mean.is_nan() && e.show(1) == "-");
        let e = Estimate::of([1.0, 3.0]).scaled(-2.0);
        assert_eq!((e.mean, e.min, e.max, e.sd), (-4.0, -6.0, -2.0, 2f64.sqrt() * 2.0));
    }

    #[test]
    fn t_quantiles_fall_towards_the_normal_one() {
        assert!(t975(0).is_infinite());
        assert_eq!(t975(1), 12.706);
        assert_eq!(t975(4), 2.776);
        assert!((1..60).all(|d| t975(d) >= t975(d + 1)));
        assert_eq!(t975(1000), 1.96);
    }
}
