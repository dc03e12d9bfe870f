//! Web-like session arrivals: when TCP transfers start, and how big they are.

use fairway_core::{Bytes, Dur, Rng, Time};

/// Web-like traffic as kadhum2015 §4.2 describes it: sessions arrive as a Poisson process (so the
/// gaps are exponential with the given mean), each a TCP transfer whose size is Pareto
/// distributed with the given shape and mean.
pub struct WebSessions {
    pub interarrival: Dur,
    pub mean_size: Bytes,
    pub shape: f64,
    pub running: bool,
    rng: Rng,
    pub started: u64,
    pub completed: u64,
    pub completion_time_sum: Dur,
}

impl WebSessions {
    /// The random stream of flow `flow`'s sessions in a run of `seed`: the simulator's and the
    /// testbed's, so that both open the same sessions.
    pub fn stream(seed: u64, flow: &str) -> Rng {
        Rng::stream(seed, &format!("web:{flow}"))
    }

    pub fn new(interarrival: Dur, mean_size: Bytes, shape: f64, rng: Rng) -> WebSessions {
        WebSessions {
            interarrival,
            mean_size,
            shape,
            running: false,
            rng,
            started: 0,
            completed: 0,
            completion_time_sum: Dur::ZERO,
        }
    }

    /// Time to the next session (exponential, kadhum2015 §4.2: "the beginning of new TCP
    /// connection is generated using exponentially distributed random variables").
    pub fn next_gap(&mut self) -> Dur {
        Dur::from_secs_f64(self.rng.exponential(self.interarrival.as_secs_f64()))
    }

    /// Size of the next session's transfer (Pareto, kadhum2015 §4.2), at least one byte.
    pub fn next_size(&mut self) -> Bytes {
        let b = self.rng.pareto(self.shape, self.mean_size.0 as f64);
        // Cap absurd draws of the heavy tail at 1 TB so packet counts stay representable.
        Bytes(b.clamp(1.0, 1e12).round() as u64)
    }

    /// Every session a flow that runs from `start` until `stop` opens: when, and its transfer's
    /// size. The same draws, in the same order, as the simulator makes them: a gap when the
    /// flow starts, then at each session its size and the gap to the next.
    pub fn schedule(&mut self, start: Time, stop: Time) -> Vec<(Time, Bytes)> {
        let mut v = vec![];
        let mut t = start + self.next_gap();
        while t < stop {
            let size = self.next_size();
            let gap = self.next_gap();
            v.push((t, size));
            t += gap;
        }
        v
    }

    pub fn completed(&mut self, took: Dur) {
        self.completed += 1;
        self.completion_time_sum += took;
    }

    pub fn mean_session(&self) -> Option<Dur> {
        (self.completed > 0).then(|| Dur(self.completion_time_sum.0 / self.completed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn web_gaps_are_exponential_with_the_mean() {
        let mut w = WebSessions::new(Dur::from_millis(45), Bytes(10_000), 1.5, Rng::from_seed(2));
        let n = 50_000;
        let gaps: Vec<f64> = (0..n).map(|_| w.next_gap().as_secs_f64()).collect();
        let mean = gaps.iter().sum::<f64>() / n as f64;
        assert!((mean - 0.045).abs() < 0.045 * 0.03, "{mean}");
        // Exponential: P(X > mean) = 1/e.
        let above = gaps.iter().filter(|g| **g > 0.045).count() as f64 / n as f64;
        assert!((above - (-1f64).exp()).abs() < 0.01, "{above}");
    }

    #[test]
    fn web_sizes_follow_the_pareto_minimum() {
        let mut w = WebSessions::new(Dur::from_millis(45), Bytes(10_000), 1.5, Rng::from_seed(3));
        // x_m = mean (a - 1) / a = 3333 B: no draw is below it.
        for _ in 0..10_000 {
            assert!(w.next_size().0 >= 3333);
        }
    }
}
