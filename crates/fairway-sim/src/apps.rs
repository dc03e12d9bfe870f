//! Traffic sources that are not transport protocols: CBR and web-like session arrivals.

use fairway_core::{Bytes, Dur, Rng};

use crate::scenario::CbrSpec;

/// Constant bit rate over UDP, as ns-2's Application/Traffic/CBR: the first packet leaves at
/// start (cbr_traffic.cc `start` calls `timeout` at once), then one every `interval`, each
/// interval scaled by a uniform factor in [0.5, 1.5) when `jitter` (ns-2 `random_`) is on.
///
/// With `frame_interval` it sends frames instead: the first packet at start, then every frame
/// interval (jittered the same way) the packets the rate has accumulated, back to back; what is
/// left of a packet carries to the next frame, and a frame that would be empty is skipped, so the
/// mean rate is the configured one.
pub struct CbrSource {
    pub spec: CbrSpec,
    pub running: bool,
    rng: Rng,
    sent: u64,
    /// Packets of the current frame still to send, and the frame's index.
    frame_left: u64,
    frame: u64,
}

impl CbrSource {
    pub fn new(spec: CbrSpec, rng: Rng) -> CbrSource {
        CbrSource { spec, running: false, rng, sent: 0, frame_left: 0, frame: 0 }
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
        } else if let Some(fi) = self.spec.frame_interval {
            Some(self.frame_gap(fi))
        } else {
            Some(self.jittered(self.spec.interval))
        };
        Some((seq, self.spec.packet_size, gap))
    }

    /// ns-2 CBR_Traffic::next_interval: t = interval_ + interval_ * U(-0.5, 0.5) with `jitter`.
    fn jittered(&mut self, d: Dur) -> Dur {
        if self.spec.jitter {
            let f = 1.0 + self.rng.uniform_range(-0.5, 0.5);
            Dur::from_secs_f64(d.as_secs_f64() * f)
        } else {
            d
        }
    }

    /// After a packet sent in frame mode: no gap within a frame; at its end, the time to the
    /// next frame that holds a packet. Frame 0 is the packet at the start; frame f carries the
    /// packets the rate owes by f frame intervals, counted in whole nanoseconds so that nothing
    /// drifts: owed(f) = floor(f x frame_interval / interval) + 1.
    fn frame_gap(&mut self, fi: Dur) -> Dur {
        let iv = self.spec.interval.0.max(1) as u128;
        let owed = |f: u64| (f as u128 * fi.0 as u128 / iv) as u64 + 1;
        if self.frame_left == 0 {
            let before = if self.frame == 0 { 0 } else { owed(self.frame - 1) };
            self.frame_left = (owed(self.frame) - before).max(1);
        }
        self.frame_left -= 1;
        if self.frame_left > 0 {
            return Dur::ZERO;
        }
        // Skip the frames that hold no packet (a rate below one packet per frame).
        let now = owed(self.frame);
        let mut next = self.frame + 1;
        while owed(next) == now {
            next += 1;
        }
        let mut gap = Dur::ZERO;
        for _ in self.frame..next {
            gap += self.jittered(fi);
        }
        self.frame = next;
        gap
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
            CbrSpec {
                packet_size: Bytes(500),
                interval: Dur::from_millis(5),
                jitter,
                max_packets: max,
                frame_interval: None,
            },
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

    /// The packets of a frame-mode CBR over `n` sends: (time of each packet, frame sizes).
    fn frames(interval_ms: f64, frame_ms: u64, n: usize) -> (Vec<f64>, Vec<usize>) {
        let spec = CbrSpec {
            packet_size: Bytes(1000),
            interval: Dur::from_secs_f64(interval_ms / 1e3),
            jitter: false,
            max_packets: None,
            frame_interval: Some(Dur::from_millis(frame_ms)),
        };
        let mut c = CbrSource::new(spec, Rng::from_seed(1));
        c.running = true;
        let (mut t, mut times, mut sizes) = (0.0, vec![], vec![]);
        for _ in 0..n {
            let (_, _, gap) = c.emit().unwrap();
            if times.last() != Some(&t) {
                sizes.push(0);
            }
            times.push(t);
            *sizes.last_mut().unwrap() += 1;
            t += gap.unwrap().as_secs_f64();
        }
        (times, sizes)
    }

    #[test]
    fn frames_carry_what_the_rate_accumulated_back_to_back() {
        // One packet at the start, then every 40 ms what the rate owes: 2 Mb/s of 1000-byte
        // packets (one per 4 ms) is 10 a frame.
        let (times, sizes) = frames(4.0, 40, 991);
        assert_eq!(sizes[0], 1);
        assert!(sizes[1..].iter().all(|&k| k == 10), "{sizes:?}");
        assert!((times[990] - 99.0 * 0.040).abs() < 1e-9, "frame 99 at 3.96 s");
        // One per 16 ms: 2.5 a frame, the half carried: 2, 3, 2, 3, ...
        let (_, sizes) = frames(16.0, 40, 300);
        assert_eq!(&sizes[..7], [1, 2, 3, 2, 3, 2, 3]);
        // One per 50 ms (0.16 Mb/s): 0.8 a frame, so one frame in five is skipped: 64 packets
        // after the first in the next 80 frames, the last of them at 80 x 40 ms.
        let (times, sizes) = frames(50.0, 40, 65);
        assert!(sizes.iter().all(|&k| k == 1));
        assert!((times[64] - 80.0 * 0.040).abs() < 1e-9, "{}", times[64]);
        // Whatever the frames, the mean rate is the configured one: n packets in n intervals,
        // within a frame's worth.
        for (iv, fr) in [(4.0, 40), (8.0 / 1.2, 40), (7.3, 33), (50.0, 40), (1.0, 3)] {
            let (times, _) = frames(iv, fr, 2000);
            let span = times[1999] - times[0];
            assert!((span * 1e3 - 1999.0 * iv).abs() <= fr as f64 + iv, "interval {iv}, frame {fr}: {span}");
        }
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
