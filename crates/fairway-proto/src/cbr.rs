//! Constant bit rate over plain UDP, as ns-2's Application/Traffic/CBR over Agent/UDP with a
//! Null or LossMonitor sink: no congestion control, no feedback. It is the unresponsive traffic
//! every seed competes against.
//!
//! The first packet leaves at start (ns-2 cbr_traffic.cc: `start` calls `timeout` at once), then
//! one every `interval`, each interval scaled by a uniform factor in [0.5, 1.5) when `jitter`
//! (ns-2 `random_`) is on. With `frame_interval` it sends frames instead: the first packet at
//! start, then every frame interval (jittered the same way) the packets the rate has accumulated,
//! back to back; what is left of a packet carries to the next frame, and a frame that would be
//! empty is skipped, so the mean rate is the configured one.
//!
//! Wire format (fairway's; ns-2's CBR carries no header of its own), big-endian, 14 bytes in
//! front of zeros up to the packet size:
//!
//! ```text
//! version u8 = 1 | type u8 = 0x10 | flow u32 | seq u32 | send_time_us u32 | zeros ...
//! ```

use fairway_core::udpm::{extend_seq, wire_time_us};
use fairway_core::{Bytes, Dur, Rng, Time};

use crate::endpoint::{Arrival, Endpoint, Malformed, Transmit};

pub const VERSION: u8 = 1;
/// Distinct from IFTP's 0 and 1, so that neither protocol takes the other's datagrams.
pub const TYPE_DATA: u8 = 0x10;
/// Bytes of the header. A packet smaller than this still carries all of it on a real socket.
pub const HEADER_LEN: usize = 14;

/// A CBR source's settings.
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

/// One CBR packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CbrData {
    pub flow: u32,
    pub seq: u64,
    pub sent_at: Time,
}

/// The sending end: a packet source driven by its own timer.
#[derive(Debug, Clone)]
pub struct CbrSender {
    cfg: CbrConfig,
    flow: u32,
    rng: Rng,
    running: bool,
    sent: u64,
    /// When the next packet is due; `None` after the last.
    next_at: Option<Time>,
    /// The timer fired (or the source started): one packet may go. A packet per timer, so that
    /// the packets of a frame leave back to back as separate events, each after whatever else
    /// happens at that instant.
    due: bool,
    /// Packets of the current frame still to send, and the frame's index.
    frame_left: u64,
    frame: u64,
}

impl CbrSender {
    /// A stopped source for flow `flow`; `rng` draws only the jitter.
    pub fn new(cfg: CbrConfig, flow: u32, rng: Rng) -> CbrSender {
        CbrSender { cfg, flow, rng, running: false, sent: 0, next_at: None, due: false, frame_left: 0, frame: 0 }
    }

    pub fn config(&self) -> &CbrConfig {
        &self.cfg
    }

    /// Packets sent so far.
    pub fn sent(&self) -> u64 {
        self.sent
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

    /// Writes `d` as it goes on the wire, `size` bytes (at least the header).
    pub fn encode_data(d: &CbrData, size: Bytes, out: &mut Vec<u8>) {
        let start = out.len();
        out.push(VERSION);
        out.push(TYPE_DATA);
        out.extend_from_slice(&d.flow.to_be_bytes());
        out.extend_from_slice(&(d.seq as u32).to_be_bytes());
        out.extend_from_slice(&wire_time_us(d.sent_at.0).to_be_bytes());
        out.resize(start + (size.0 as usize).max(HEADER_LEN), 0);
    }
}

impl Endpoint for CbrSender {
    /// Nothing comes back to a CBR source.
    type In = ();
    type Out = CbrData;

    fn start(&mut self, now: Time) {
        if !self.running {
            self.running = true;
            self.next_at = Some(now);
            self.due = true;
        }
    }

    fn stop(&mut self, _now: Time) {
        self.running = false;
        self.due = false;
    }

    fn handle(&mut self, _now: Time, _msg: &(), _arrival: Arrival) {}

    fn handle_datagram(&mut self, _now: Time, _bytes: &[u8], _arrival: Arrival) -> Result<(), Malformed> {
        Err(Malformed("a CBR source receives nothing".into()))
    }

    fn handle_timeout(&mut self, now: Time) {
        if self.running && self.next_at.is_some_and(|t| t <= now) {
            self.due = true;
        }
    }

    fn poll_transmit(&mut self, now: Time) -> Option<Transmit<CbrData>> {
        if !self.running || !self.due || self.cfg.max_packets.is_some_and(|m| self.sent >= m) {
            return None;
        }
        self.due = false;
        let seq = self.sent;
        self.sent += 1;
        let last = self.cfg.max_packets.is_some_and(|m| self.sent >= m);
        self.next_at = if last {
            None
        } else if let Some(fi) = self.cfg.frame_interval {
            Some(now + self.frame_gap(fi))
        } else {
            Some(now + self.jittered(self.cfg.interval))
        };
        let size = self.cfg.packet_size;
        // ns-2 counts the whole packet as the application's (CBR has no header of its own).
        Some(Transmit { size, payload: size, ect: false, msg: CbrData { flow: self.flow, seq, sent_at: now } })
    }

    fn poll_timeout(&self) -> Option<Time> {
        self.next_at.filter(|_| self.running)
    }

    fn encode(&self, t: &Transmit<CbrData>, out: &mut Vec<u8>) {
        CbrSender::encode_data(&t.msg, t.size, out);
    }
}

/// Counters of a CBR sink.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CbrReceiverStats {
    pub received: u64,
    /// Packets that arrived after a later one.
    pub out_of_order: u64,
    /// Sequence numbers jumped over (lost, or late).
    pub skipped: u64,
    /// Packets of another flow.
    pub ignored: u64,
    pub highest_seq: Option<u64>,
}

/// The receiving end: counts what arrives (ns-2's LossMonitor), sends nothing.
#[derive(Debug, Clone)]
pub struct CbrReceiver {
    flow: u32,
    stats: CbrReceiverStats,
}

impl CbrReceiver {
    pub fn new(flow: u32) -> CbrReceiver {
        CbrReceiver { flow, stats: CbrReceiverStats::default() }
    }

    pub fn stats(&self) -> CbrReceiverStats {
        self.stats
    }
}

impl Endpoint for CbrReceiver {
    type In = CbrData;
    type Out = ();

    fn handle(&mut self, _now: Time, d: &CbrData, _arrival: Arrival) {
        if d.flow != self.flow {
            self.stats.ignored += 1;
            return;
        }
        let s = &mut self.stats;
        s.received += 1;
        match s.highest_seq {
            Some(h) if d.seq <= h => s.out_of_order += 1,
            h => {
                s.skipped += h.map_or(d.seq, |h| d.seq - h - 1);
                s.highest_seq = Some(d.seq);
            }
        }
    }

    fn handle_datagram(&mut self, now: Time, b: &[u8], arrival: Arrival) -> Result<(), Malformed> {
        if b.len() < HEADER_LEN {
            return Err(Malformed(format!(
                "CBR packet of {} bytes is shorter than its {HEADER_LEN}-byte header",
                b.len()
            )));
        }
        if b[0] != VERSION || b[1] != TYPE_DATA {
            return Err(Malformed(format!("not a CBR packet (version {}, type {:#x})", b[0], b[1])));
        }
        let be32 = |at: usize| u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]);
        let seq = extend_seq(self.stats.highest_seq.unwrap_or(0), be32(6));
        // The send time only matters to the simulator's delay counts, which it keeps itself.
        let d = CbrData { flow: be32(2), seq, sent_at: now };
        self.handle(now, &d, arrival);
        Ok(())
    }

    fn handle_timeout(&mut self, _now: Time) {}

    fn poll_transmit(&mut self, _now: Time) -> Option<Transmit<()>> {
        None
    }

    fn poll_timeout(&self) -> Option<Time> {
        None
    }

    fn encode(&self, _t: &Transmit<()>, _out: &mut Vec<u8>) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cbr(max: Option<u64>, jitter: bool) -> CbrSender {
        let cfg = CbrConfig {
            packet_size: Bytes(500),
            interval: Dur::from_millis(5),
            jitter,
            max_packets: max,
            frame_interval: None,
        };
        CbrSender::new(cfg, 0, Rng::from_seed(1))
    }

    /// Runs the source as a driver would for `n` packets: (send time, sequence number).
    fn sends(c: &mut CbrSender, n: usize) -> Vec<(Time, u64)> {
        let mut out = vec![];
        let mut now = Time::ZERO;
        c.start(now);
        while out.len() < n {
            while let Some(t) = c.poll_transmit(now) {
                out.push((now, t.msg.seq));
            }
            let Some(next) = c.poll_timeout() else { break };
            now = next;
            c.handle_timeout(now);
        }
        out
    }

    #[test]
    fn cbr_sends_at_its_interval_and_stops_at_max_packets() {
        let mut c = cbr(Some(3), false);
        let s = sends(&mut c, 10);
        assert_eq!(s, [(Time::ZERO, 0), (Time(5_000_000), 1), (Time(10_000_000), 2)]);
        assert_eq!(c.poll_timeout(), None, "nothing after the last");
    }

    #[test]
    fn one_packet_per_timer_and_none_before_it() {
        let mut c = cbr(None, false);
        c.start(Time::ZERO);
        assert!(c.poll_transmit(Time::ZERO).is_some());
        assert!(c.poll_transmit(Time::ZERO).is_none());
        c.handle_timeout(Time(4_999_999));
        assert!(c.poll_transmit(Time(4_999_999)).is_none(), "early timer calls are harmless");
        c.handle_timeout(Time(5_000_000));
        assert_eq!(c.poll_transmit(Time(5_000_000)).map(|t| t.msg.seq), Some(1));
    }

    #[test]
    fn cbr_jitter_stays_within_half_an_interval_and_keeps_the_mean() {
        let mut c = cbr(None, true);
        let n = 20_000;
        let s = sends(&mut c, n);
        let gaps: Vec<f64> = s.windows(2).map(|w| (w[1].0 - w[0].0).as_secs_f64()).collect();
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
        let mut c = CbrSender::new(cfg, 0, Rng::from_seed(1));
        let (mut times, mut sizes) = (vec![], vec![]);
        for (t, _) in sends(&mut c, n) {
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

    #[test]
    fn a_stopped_source_sends_nothing_and_waits_for_nothing() {
        let mut c = cbr(None, false);
        assert!(c.poll_transmit(Time::ZERO).is_none(), "not started");
        c.start(Time::ZERO);
        c.stop(Time::ZERO);
        assert!(c.poll_transmit(Time::ZERO).is_none());
        assert_eq!(c.poll_timeout(), None);
    }

    #[test]
    fn the_sink_counts_gaps_and_reordering() {
        let mut r = CbrReceiver::new(3);
        let a = Arrival::default();
        for seq in [0, 1, 4, 3, 5] {
            r.handle(Time::ZERO, &CbrData { flow: 3, seq, sent_at: Time::ZERO }, a);
        }
        r.handle(Time::ZERO, &CbrData { flow: 9, seq: 6, sent_at: Time::ZERO }, a);
        let s = r.stats();
        assert_eq!((s.received, s.skipped, s.out_of_order, s.ignored, s.highest_seq), (5, 2, 1, 1, Some(5)));
    }

    #[test]
    fn the_header_fills_small_packets_and_pads_large_ones() {
        let d = CbrData { flow: 1, seq: 2, sent_at: Time(3_000) };
        let mut b = vec![];
        CbrSender::encode_data(&d, Bytes(8), &mut b);
        assert_eq!(b, [1, 0x10, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3]);
        b.clear();
        CbrSender::encode_data(&d, Bytes(500), &mut b);
        assert_eq!(b.len(), 500);
    }
}
