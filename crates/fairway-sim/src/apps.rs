//! Traffic sources that are not transport protocols: CBR and web-like session arrivals.

use fairway_core::{Bytes, Dur, Rng};

use crate::scenario::CbrSpec;

/// Constant bit rate over UDP, as ns-2's Application/Traffic/CBR: the first packet leaves at
/// start (cbr_traffic.cc `start` calls `timeout` at once), then one every `interval`, each
/// interval scaled by a uniform factor in [0.5, 1.5) when `jitter` (ns-2 `random_`) is on.
pub struct CbrSource {
    pub spec: CbrSpec,
    pub running: bool,
    rng: Rng,
    sent: u64,
}

impl CbrSource {
    pub fn new(spec: CbrSpec, rng: Rng) -> CbrSource {
        CbrSource { spec, running: false, rng, sent: 0 }
    }

    /// The next packet (sequence number, size) and the gap to the one after it (`None` when
    /// this is the last); `None` if stopped.
    pub fn emit(&mut self) -> Option<(u64, Bytes, Option<Dur>)> {
        if !self.running || self.spec.max_packets.is_some_and(|m| self.sent >= m) {
            return None;
        }
        let seq = self.sent;
        self.sent += 1;
        let last = self.spec.max_packets.is_some_and(|m| self.sent >= m);
        let gap = if last {
            None
        } else if self.spec.jitter {
            // ns-2 CBR_Traffic::next_interval: t = interval_ + interval_ * U(-0.5, 0.5)
            let f = 1.0 + self.rng.uniform_range(-0.5, 0.5);
            Some(Dur::from_secs_f64(self.spec.interval.as_secs_f64() * f))
        } else {
            Some(self.spec.interval)
        };
        Some((seq, self.spec.packet_size, gap))
    }
}

/// Web-like traffic as seed 000 §4.2 describes it: sessions arrive as a Poisson process (so the
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

    /// Time to the next session (exponential, seed 000 §4.2: "the beginning of new TCP
    /// connection is generated using exponentially distributed random variables").
    pub fn next_gap(&mut self) -> Dur {
        Dur::from_secs_f64(self.rng.exponential(self.interarrival.as_secs_f64()))
    }

    /// Size of the next session's transfer (Pareto, seed 000 §4.2), at least one byte.
    pub fn next_size(&mut self) -> Bytes {
        let b = self.rng.pareto(self.shape, self.mean_size.0 as f64);
        // Cap absurd draws of the heavy tail at 1 TB so packet counts stay representable.
        Bytes(b.clamp(1.0, 1e12).round() as u64)
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

    fn cbr(max: Option<u64>, jitter: bool) -> CbrSource {
        let mut c = CbrSource::new(
            CbrSpec { packet_size: Bytes(500), interval: Dur::from_millis(5), jitter, max_packets: max },
            Rng::from_seed(1),
        );
        c.running = true;
        c
    }

    #[test]
    fn cbr_sends_at_its_interval_and_stops_at_max_packets() {
        let mut c = cbr(Some(3), false);
        assert_eq!(c.emit(), Some((0, Bytes(500), Some(Dur::from_millis(5)))));
        assert_eq!(c.emit(), Some((1, Bytes(500), Some(Dur::from_millis(5)))));
        assert_eq!(c.emit(), Some((2, Bytes(500), None)));
        assert_eq!(c.emit(), None);
    }

    #[test]
    fn cbr_jitter_stays_within_half_an_interval_and_keeps_the_mean() {
        let mut c = cbr(None, true);
        let n = 20_000;
        let mut sum = 0.0;
        for _ in 0..n {
            let gap = c.emit().unwrap().2.unwrap().as_secs_f64();
            assert!((0.0025..0.0075).contains(&gap), "{gap}");
            sum += gap;
        }
        // The mean of U(0.5, 1.5) x 5 ms is 5 ms; sd of the mean = 5ms/sqrt(12 n) ~ 1e-5 s.
        assert!((sum / n as f64 - 0.005).abs() < 6e-5);
    }

    #[test]
    fn stopped_cbr_sends_nothing() {
        let mut c = cbr(None, false);
        c.running = false;
        assert_eq!(c.emit(), None);
    }

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
