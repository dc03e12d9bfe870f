//! Applications that hand packets to a datagram transport: when a packet is ready and how big it
//! is. A transport asks its source; the source never sends anything itself.
//!
//! - [`Greedy`]: always has a packet (ns-2's FTP on a rate-controlled agent).
//! - [`Cbr`]: constant bit rate, as ns-2's Application/Traffic/CBR, optionally in frames.
//! - [`OnOff`]: a constant rate in talk spurts of exponential length (ns-2's
//!   Application/Traffic/Exponential).

use fairway_core::{Bytes, Dur, Rng, Time};

/// An application's packets, offered to the transport below it.
pub trait Source: Send {
    /// The application starts: its first packet is due now (if it has one).
    fn start(&mut self, now: Time);
    /// The application stops: nothing more is offered.
    fn stop(&mut self, now: Time);
    /// The next packet, if one is due at `now`: its size. A source hands over one packet per
    /// call; the transport calls again for the next.
    fn poll(&mut self, now: Time) -> Option<Bytes>;
    /// When the next packet is due (at or before `now` while one is waiting); `None` while
    /// stopped or when the application has nothing more to offer.
    fn next_due(&self) -> Option<Time>;
    /// Packets handed over so far.
    fn offered(&self) -> u64;
    /// Always has a packet while running (a transport may then ask for one as it sends).
    fn is_greedy(&self) -> bool {
        false
    }
}

/// An application that always has a packet of `packet_size` ready, up to `max_packets`.
#[derive(Debug, Clone)]
pub struct Greedy {
    packet_size: Bytes,
    max_packets: Option<u64>,
    running: bool,
    since: Time,
    offered: u64,
}

impl Greedy {
    pub fn new(packet_size: Bytes, max_packets: Option<u64>) -> Greedy {
        Greedy { packet_size, max_packets, running: false, since: Time::ZERO, offered: 0 }
    }

    fn exhausted(&self) -> bool {
        self.max_packets.is_some_and(|m| self.offered >= m)
    }
}

impl Source for Greedy {
    fn start(&mut self, now: Time) {
        if !self.running {
            self.running = true;
            self.since = now;
        }
    }

    fn stop(&mut self, _now: Time) {
        self.running = false;
    }

    fn poll(&mut self, _now: Time) -> Option<Bytes> {
        if !self.running || self.exhausted() {
            return None;
        }
        self.offered += 1;
        Some(self.packet_size)
    }

    fn next_due(&self) -> Option<Time> {
        (self.running && !self.exhausted()).then_some(self.since)
    }

    fn offered(&self) -> u64 {
        self.offered
    }

    fn is_greedy(&self) -> bool {
        true
    }
}

/// A constant-bit-rate source's settings.
#[derive(Debug, Clone, PartialEq)]
pub struct CbrConfig {
    /// Whole packet size on the wire (ns-2 sizes a CBR packet as its packetSize_).
    pub packet_size: Bytes,
    pub interval: Dur,
    /// ns-2 `random_`: each interval is scaled by a uniform factor in [0.5, 1.5).
    pub jitter: bool,
    /// Stop after this many packets (ns-2 `maxpkts_`).
    pub max_packets: Option<u64>,
    /// Send in frames: every `frame_interval`, the packets the rate has accumulated since the
    /// last frame, back to back (a video source's frames, at the same mean rate). `None`: one
    /// packet per `interval`, as ns-2's CBR.
    pub frame_interval: Option<Dur>,
}

/// Constant bit rate, as ns-2's Application/Traffic/CBR: the first packet at start (ns-2
/// cbr_traffic.cc: `start` calls `timeout` at once), then one every `interval`, each interval
/// scaled by a uniform factor in [0.5, 1.5) when `jitter` (ns-2 `random_`) is on.
///
/// With `frame_interval` it sends frames instead: the first packet at start, then every frame
/// interval (jittered the same way) the packets the rate has accumulated, back to back; what is
/// left of a packet carries to the next frame, and a frame that would be empty is skipped, so the
/// mean rate is the configured one.
#[derive(Debug, Clone)]
pub struct Cbr {
    cfg: CbrConfig,
    /// Only for the jitter.
    rng: Rng,
    pub(crate) running: bool,
    offered: u64,
    /// When the next packet is due; `None` after the last.
    next_at: Option<Time>,
    /// Packets of the current frame still to send, and the frame's index.
    frame_left: u64,
    frame: u64,
}

impl Cbr {
    /// A stopped source; `rng` draws only the jitter.
    pub fn new(cfg: CbrConfig, rng: Rng) -> Cbr {
        Cbr { cfg, rng, running: false, offered: 0, next_at: None, frame_left: 0, frame: 0 }
    }

    pub fn config(&self) -> &CbrConfig {
        &self.cfg
    }

    /// ns-2 CBR_Traffic::next_interval: t = interval_ + interval_ * U(-0.5, 0.5) with `jitter`.
    fn jittered(&mut self, d: Dur) -> Dur {
        if self.cfg.jitter {
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
        let iv = self.cfg.interval.0.max(1) as u128;
        let owed = |f: u64| (f as u128 * fi.0 as u128 / iv) as u64 + 1;
        if self.frame_left == 0 {
            let before = if self.frame == 0 { 0 } else { owed(self.frame - 1) };
            self.frame_left = (owed(self.frame) - before).max(1);
        }
        self.frame_left -= 1;
        if self.frame_left > 0 {
            return Dur::ZERO;
        }
        // Skip the frames that hold no packet (a rate below one packet per frame): the next
        // frame f with owed(f) > owed(frame), that is floor(f x fi / iv) >= owed(frame), the
        // first f >= owed(frame) x iv / fi. Found at once: a packet interval of seconds in
        // frames of nanoseconds is a billion frames.
        let now = owed(self.frame) as u128;
        let fi_ns = (fi.0 as u128).max(1);
        let first = (now * iv).div_ceil(fi_ns).min(u64::MAX as u128) as u64;
        let next = first.max(self.frame + 1);
        let skipped = next - self.frame;
        let gap = if !self.cfg.jitter {
            Dur(fi.0.saturating_mul(skipped))
        } else if skipped <= MAX_JITTERED_FRAMES {
            (0..skipped).fold(Dur::ZERO, |g, _| g + self.jittered(fi))
        } else {
            // The sum of more than a million jittered intervals is their mean to within
            // 1/sqrt(12 x 10^6), 0.03% (each is fi times a uniform factor of [0.5, 1.5)).
            Dur(fi.0.saturating_mul(skipped))
        };
        self.frame = next;
        gap
    }
}

/// Empty frames whose jittered intervals are each drawn; beyond, their sum is taken as its mean.
const MAX_JITTERED_FRAMES: u64 = 1_000_000;

impl Source for Cbr {
    fn start(&mut self, now: Time) {
        if !self.running {
            self.running = true;
            self.next_at = Some(now);
        }
    }

    fn stop(&mut self, _now: Time) {
        self.running = false;
    }

    fn poll(&mut self, now: Time) -> Option<Bytes> {
        if !self.running
            || self.next_at.is_none_or(|t| t > now)
            || self.cfg.max_packets.is_some_and(|m| self.offered >= m)
        {
            return None;
        }
        self.offered += 1;
        let last = self.cfg.max_packets.is_some_and(|m| self.offered >= m);
        // The gap to the next packet counts from when this one is handed over.
        self.next_at = if last {
            None
        } else if let Some(fi) = self.cfg.frame_interval {
            Some(now + self.frame_gap(fi))
        } else {
            Some(now + self.jittered(self.cfg.interval))
        };
        Some(self.cfg.packet_size)
    }

    fn next_due(&self) -> Option<Time> {
        self.next_at.filter(|_| self.running)
    }

    fn offered(&self) -> u64 {
        self.offered
    }
}

/// Talk spurts: a constant-rate source that is on and off for exponentially distributed times
/// (ns-2's Application/Traffic/Exponential; Brady's model of a speaker). The first spurt begins
/// at start.
#[derive(Debug, Clone)]
pub struct OnOff {
    cbr: Cbr,
    on_mean: Dur,
    off_mean: Dur,
    rng: Rng,
    /// When the current on (or off) period ends.
    until: Time,
    on: bool,
    running: bool,
}

impl OnOff {
    /// `cbr` sends during the on periods (its jitter draws from its own stream); `rng` draws
    /// the periods.
    pub fn new(cbr: Cbr, on_mean: Dur, off_mean: Dur, rng: Rng) -> OnOff {
        OnOff { cbr, on_mean, off_mean, rng, until: Time::ZERO, on: false, running: false }
    }

    fn draw(&mut self, mean: Dur) -> Dur {
        Dur::from_secs_f64(self.rng.exponential(mean.as_secs_f64())).max(Dur(1))
    }

    /// Moves through the periods that have ended by `now`.
    fn advance(&mut self, now: Time) {
        while self.running && self.until <= now {
            if self.on {
                self.on = false;
                self.cbr.stop(self.until);
                let d = self.draw(self.off_mean);
                self.until += d;
            } else {
                self.on = true;
                let at = self.until;
                self.cbr.running = false;
                self.cbr.start(at);
                let d = self.draw(self.on_mean);
                self.until = at + d;
            }
        }
    }
}

impl Source for OnOff {
    fn start(&mut self, now: Time) {
        if self.running {
            return;
        }
        self.running = true;
        self.on = false;
        self.until = now;
        self.advance(now);
    }

    fn stop(&mut self, now: Time) {
        self.running = false;
        self.cbr.stop(now);
    }

    fn poll(&mut self, now: Time) -> Option<Bytes> {
        self.advance(now);
        if !self.on {
            return None;
        }
        self.cbr.poll(now)
    }

    fn next_due(&self) -> Option<Time> {
        if !self.running {
            return None;
        }
        match (self.on, self.cbr.next_due()) {
            // The next packet of this spurt, or the spurt's end, whichever comes first.
            (true, Some(t)) if t < self.until => Some(t),
            _ => Some(self.until),
        }
    }

    fn offered(&self) -> u64 {
        self.cbr.offered()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cbr(max: Option<u64>, jitter: bool) -> Cbr {
        let cfg = CbrConfig {
            packet_size: Bytes(500),
            interval: Dur::from_millis(5),
            jitter,
            max_packets: max,
            frame_interval: None,
        };
        Cbr::new(cfg, Rng::from_seed(1))
    }

    /// Runs a source as a transport would, one packet per wake-up, for `n` packets: send times.
    fn sends(c: &mut dyn Source, n: usize) -> Vec<Time> {
        let mut out = vec![];
        let mut now = Time::ZERO;
        c.start(now);
        while out.len() < n {
            if c.poll(now).is_some() {
                out.push(now);
            }
            let Some(next) = c.next_due() else { break };
            now = next;
        }
        out
    }

    #[test]
    fn cbr_sends_at_its_interval_and_stops_at_max_packets() {
        let mut c = cbr(Some(3), false);
        assert_eq!(sends(&mut c, 10), [Time::ZERO, Time(5_000_000), Time(10_000_000)]);
        assert_eq!((c.next_due(), c.offered()), (None, 3), "nothing after the last");
    }

    #[test]
    fn nothing_before_it_is_due() {
        let mut c = cbr(None, false);
        assert_eq!(c.poll(Time::ZERO), None, "not started");
        c.start(Time::ZERO);
        assert_eq!(c.poll(Time::ZERO), Some(Bytes(500)));
        assert_eq!(c.poll(Time(4_999_999)), None);
        assert_eq!(c.poll(Time(5_000_000)), Some(Bytes(500)));
        c.stop(Time(5_000_000));
        assert_eq!((c.poll(Time(20_000_000)), c.next_due()), (None, None));
    }

    #[test]
    fn cbr_jitter_stays_within_half_an_interval_and_keeps_the_mean() {
        let mut c = cbr(None, true);
        let s = sends(&mut c, 20_000);
        let gaps: Vec<f64> = s.windows(2).map(|w| (w[1] - w[0]).as_secs_f64()).collect();
        assert!(gaps.iter().all(|g| (0.0025..0.0075).contains(g)));
        // The mean of U(0.5, 1.5) x 5 ms is 5 ms; sd of the mean = 5ms/sqrt(12 n) ~ 1e-5 s.
        let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
        assert!((mean - 0.005).abs() < 6e-5, "{mean}");
    }

    /// The packets of a frame-mode CBR over `n` sends: (time of each packet, frame sizes).
    fn frames(interval_ms: f64, frame_ms: u64, n: usize) -> (Vec<f64>, Vec<usize>) {
        let cfg = CbrConfig {
            packet_size: Bytes(1000),
            interval: Dur::from_secs_f64(interval_ms / 1e3),
            jitter: false,
            max_packets: None,
            frame_interval: Some(Dur::from_millis(frame_ms)),
        };
        let mut c = Cbr::new(cfg, Rng::from_seed(1));
        let (mut times, mut sizes) = (vec![], vec![]);
        for t in sends(&mut c, n) {
            let t = t.as_secs_f64();
            if times.last() != Some(&t) {
                sizes.push(0);
            }
            times.push(t);
            *sizes.last_mut().unwrap() += 1;
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

    /// Talk spurts of mean 1 s and silences of mean 1.35 s (Brady's): the source is on about
    /// 1 / 2.35 of the time, so it offers that share of the CBR's packets; within a spurt the
    /// packets keep the CBR's spacing (a new spurt's first packet goes at once, so across a short
    /// silence two packets can be closer).
    #[test]
    fn talk_spurts_offer_the_on_share_of_the_rate() {
        let cfg = CbrConfig {
            packet_size: Bytes(160),
            interval: Dur::from_millis(20),
            jitter: false,
            max_packets: None,
            frame_interval: None,
        };
        let mut s = OnOff::new(
            Cbr::new(cfg, Rng::from_seed(1)),
            Dur::from_millis(1000),
            Dur::from_millis(1350),
            Rng::from_seed(2),
        );
        let mut now = Time::ZERO;
        s.start(now);
        let mut sent = vec![];
        while now < Time::from_secs_f64(2000.0) {
            if s.poll(now).is_some() {
                sent.push(now);
            }
            now = s.next_due().unwrap();
        }
        let share = sent.len() as f64 / (2000.0 / 0.020);
        // About 850 spurts: the share's standard error is near 2%; 0.4255 within 0.03.
        assert!((share - 1.0 / 2.35).abs() < 0.03, "{share}");
        let gaps: Vec<u64> = sent.windows(2).map(|w| (w[1] - w[0]).0).collect();
        assert!(gaps.iter().filter(|&&g| g == 20_000_000).count() as f64 > 0.95 * gaps.len() as f64);
    }

    #[test]
    fn a_greedy_source_always_has_a_packet_up_to_its_limit() {
        let mut g = Greedy::new(Bytes(1000), Some(3));
        assert_eq!((g.poll(Time::ZERO), g.next_due()), (None, None), "not started");
        g.start(Time(7));
        assert_eq!(g.next_due(), Some(Time(7)));
        let got: Vec<_> = (0..5).map(|_| g.poll(Time(9))).collect();
        assert_eq!(got, [Some(Bytes(1000)), Some(Bytes(1000)), Some(Bytes(1000)), None, None]);
        assert_eq!(g.next_due(), None);
    }

    /// A packet every 6 s in frames of 5 ns: 1.2 billion empty frames between packets, which the
    /// source once stepped through one by one (2.4 s per packet, with no event to show for it).
    /// The gap is found at once, and equals the old count of frames times the interval.
    #[test]
    fn empty_frames_are_skipped_at_once() {
        let framed = |interval: Dur, fi: Dur, jitter: bool| {
            let cfg =
                CbrConfig { packet_size: Bytes(1000), interval, jitter, max_packets: None, frame_interval: Some(fi) };
            Cbr::new(cfg, Rng::from_seed(3))
        };
        let t = std::time::Instant::now();
        let mut c = framed(Dur::from_secs(6), Dur(5), false);
        assert_eq!(sends(&mut c, 3), vec![Time::ZERO, Time(6_000_000_000), Time(12_000_000_000)]);
        let mut j = framed(Dur::from_secs(6), Dur(5), true);
        let s = sends(&mut j, 2);
        assert!((s[1].0 as f64 - 6e9).abs() < 6e9 * 1e-3, "{s:?}");
        assert!(t.elapsed() < std::time::Duration::from_secs(1), "{:?}", t.elapsed());
        // The closed form is the step-by-step search, for intervals and frames of every ratio.
        let mut rng = Rng::from_seed(7);
        for _ in 0..2000 {
            let iv = 1 + rng.below(1000);
            let fi = 1 + rng.below(1000);
            let mut c = framed(Dur(iv), Dur(fi), false);
            let got = sends(&mut c, 20);
            // The old search: frame f carries owed(f) - owed(f - 1) packets; empty frames are
            // stepped over.
            let owed = |f: u64| f * fi / iv + 1;
            let (mut want, mut frame, mut t) = (vec![Time::ZERO], 0u64, 0u64);
            let mut left = owed(0) - 1;
            while want.len() < 20 {
                if left == 0 {
                    let now = owed(frame);
                    let mut next = frame + 1;
                    while owed(next) == now {
                        next += 1;
                    }
                    t += (next - frame) * fi;
                    left = owed(next) - owed(next - 1);
                    frame = next;
                }
                want.push(Time(t));
                left -= 1;
            }
            assert_eq!(got, want, "interval {iv} ns, frames of {fi} ns");
        }
    }
}
