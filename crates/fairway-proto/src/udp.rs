//! Plain UDP: the transport without congestion control that ns-2's Agent/UDP is. The sender
//! sends each packet its application hands over at once; the receiver (ns-2's Null or
//! LossMonitor) counts what arrives and sends nothing back. CBR over UDP is the unresponsive
//! traffic every seed competes against.
//!
//! Wire format (fairway's; ns-2's UDP agent carries no header of its own): the preamble of
//! [`fairway_core::frame`] (magic, version, type, header checksum), then big-endian fields, 18
//! bytes in front of zeros up to the packet size:
//!
//! ```text
//! "FW" | 2 | type u8 = 0x10 | checksum u16 | flow u32 | seq u32 | send_time_us u32 | zeros ...
//! ```

use fairway_core::frame;
use fairway_core::wire_clock::{extend_seq, recover_time, whole_micros, wire_time_us};
use fairway_core::{Bytes, Time};

use crate::endpoint::{Arrival, Endpoint, Malformed, Transmit};
use crate::source::Source;

/// Distinct from the other protocols' types, so that none takes another's datagrams.
pub const TYPE_DATA: u8 = 0x10;
/// Bytes of the header. A packet smaller than this still carries all of it on a real socket.
pub const HEADER_LEN: usize = frame::PREAMBLE_LEN + 12;

/// One UDP packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UdpData {
    pub flow: u32,
    pub seq: u64,
    /// When it was sent, in whole microseconds as the wire carries it.
    pub sent_at: Time,
}

/// Counters of a UDP sender.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct UdpSenderStats {
    pub sent: u64,
}

/// The sending end: whatever its application hands over, at once.
pub struct UdpSender {
    flow: u32,
    source: Box<dyn Source>,
    running: bool,
    /// The application's packet is due (the timer fired, or it started): one packet may go. One
    /// packet per timer, so that the packets of a CBR frame leave back to back as separate
    /// events, each after whatever else happens at that instant.
    due: bool,
    sent: u64,
    /// Its packets carry the multimedia tag (chung-dcbt §2's ToS bit).
    tagged: bool,
}

impl UdpSender {
    /// A stopped sender for flow `flow` carrying `source`'s packets.
    pub fn new(flow: u32, source: Box<dyn Source>) -> UdpSender {
        UdpSender { flow, source, running: false, due: false, sent: 0, tagged: false }
    }

    /// Tags its packets as multimedia (chung-dcbt §2), or not.
    pub fn tagged(mut self, on: bool) -> UdpSender {
        self.tagged = on;
        self
    }

    /// Writes `d` as it goes on the wire, `size` bytes (at least the header).
    pub fn encode_data(d: &UdpData, size: Bytes, out: &mut Vec<u8>) {
        let start = frame::begin(out, TYPE_DATA);
        out.extend_from_slice(&d.flow.to_be_bytes());
        out.extend_from_slice(&(d.seq as u32).to_be_bytes());
        out.extend_from_slice(&wire_time_us(d.sent_at.0).to_be_bytes());
        frame::seal(out, start, HEADER_LEN);
        out.resize(start + (size.0 as usize).max(HEADER_LEN), 0);
    }
}

impl Endpoint for UdpSender {
    /// Nothing comes back to a UDP sender.
    type In = ();
    type Out = UdpData;
    type Stats = UdpSenderStats;

    fn start(&mut self, now: Time) {
        if !self.running {
            self.running = true;
            self.source.start(now);
            self.due = true;
        }
    }

    fn stop(&mut self, now: Time) {
        self.running = false;
        self.due = false;
        self.source.stop(now);
    }

    fn handle(&mut self, _now: Time, _msg: &(), _arrival: Arrival) {}

    fn handle_datagram(&mut self, _now: Time, _bytes: &[u8], _arrival: Arrival) -> Result<(), Malformed> {
        Err(Malformed("a UDP sender receives nothing".into()))
    }

    fn handle_timeout(&mut self, now: Time) {
        if self.running && self.source.next_due().is_some_and(|t| t <= now) {
            self.due = true;
        }
    }

    fn poll_transmit(&mut self, now: Time) -> Option<Transmit<UdpData>> {
        if !self.due {
            return None;
        }
        self.due = false;
        let size = self.source.poll(now)?;
        let seq = self.sent;
        self.sent += 1;
        // ns-2 counts the whole packet as the application's (its UDP agent adds no header).
        let msg = UdpData { flow: self.flow, seq, sent_at: whole_micros(now) };
        Some(Transmit { size, payload: size, ect: false, tagged: self.tagged, msg })
    }

    fn poll_timeout(&self) -> Option<Time> {
        self.source.next_due().filter(|_| self.running)
    }

    fn stats(&self) -> UdpSenderStats {
        UdpSenderStats { sent: self.sent }
    }

    fn encode(&self, t: &Transmit<UdpData>, out: &mut Vec<u8>) {
        UdpSender::encode_data(&t.msg, t.size, out);
    }
}

/// Counters of a UDP receiver.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct UdpReceiverStats {
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
pub struct UdpReceiver {
    flow: u32,
    stats: UdpReceiverStats,
}

impl UdpReceiver {
    pub fn new(flow: u32) -> UdpReceiver {
        UdpReceiver { flow, stats: UdpReceiverStats::default() }
    }
}

impl Endpoint for UdpReceiver {
    type In = UdpData;
    type Out = ();
    type Stats = UdpReceiverStats;

    fn handle(&mut self, _now: Time, d: &UdpData, _arrival: Arrival) {
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
        frame::open(b, |t| (t == TYPE_DATA).then_some(HEADER_LEN))
            .map_err(|e| Malformed(format!("not a UDP data packet: {e}")))?;
        let be32 = |at: usize| u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]);
        let o = frame::PREAMBLE_LEN;
        let seq = extend_seq(self.stats.highest_seq.unwrap_or(0), be32(o + 4));
        let d = UdpData { flow: be32(o), seq, sent_at: recover_time(now, be32(o + 8)) };
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

    fn stats(&self) -> UdpReceiverStats {
        self.stats
    }

    fn encode(&self, _t: &Transmit<()>, _out: &mut Vec<u8>) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{Cbr, CbrConfig, Greedy};
    use fairway_core::{Dur, Rng};

    fn cbr(max: Option<u64>) -> UdpSender {
        let cfg = CbrConfig {
            packet_size: Bytes(500),
            interval: Dur::from_millis(5),
            jitter: false,
            max_packets: max,
            frame_interval: None,
        };
        UdpSender::new(0, Box::new(Cbr::new(cfg, Rng::from_seed(1))))
    }

    #[test]
    fn one_packet_per_timer_and_none_before_it() {
        let mut c = cbr(None);
        assert!(c.poll_transmit(Time::ZERO).is_none(), "not started");
        c.start(Time::ZERO);
        let t = c.poll_transmit(Time::ZERO).unwrap();
        assert_eq!((t.size, t.payload, t.msg.seq), (Bytes(500), Bytes(500), 0));
        assert!(c.poll_transmit(Time::ZERO).is_none());
        assert_eq!(c.poll_timeout(), Some(Time(5_000_000)));
        c.handle_timeout(Time(4_999_999));
        assert!(c.poll_transmit(Time(4_999_999)).is_none(), "early timer calls are harmless");
        c.handle_timeout(Time(5_000_000));
        assert_eq!(c.poll_transmit(Time(5_000_000)).map(|t| t.msg.seq), Some(1));
    }

    #[test]
    fn a_stopped_sender_sends_nothing_and_waits_for_nothing() {
        let mut c = cbr(None);
        c.start(Time::ZERO);
        c.stop(Time::ZERO);
        assert!(c.poll_transmit(Time::ZERO).is_none());
        assert_eq!(c.poll_timeout(), None);
        let mut done = cbr(Some(1));
        done.start(Time::ZERO);
        assert!(done.poll_transmit(Time::ZERO).is_some());
        assert_eq!(done.poll_timeout(), None, "nothing after the last packet");
    }

    #[test]
    fn a_greedy_application_over_udp_is_paced_by_nothing_but_the_timer() {
        // Each timer lets one packet go: a driver that keeps calling would flood, which is why
        // greedy applications belong on rate-controlled transports.
        let mut u = UdpSender::new(0, Box::new(Greedy::new(Bytes(100), Some(2))));
        u.start(Time::ZERO);
        assert!(u.poll_transmit(Time::ZERO).is_some());
        assert!(u.poll_transmit(Time::ZERO).is_none());
        u.handle_timeout(Time::ZERO);
        assert!(u.poll_transmit(Time::ZERO).is_some());
        u.handle_timeout(Time::ZERO);
        assert!(u.poll_transmit(Time::ZERO).is_none() && u.poll_timeout().is_none());
    }

    #[test]
    fn the_receiver_counts_gaps_and_reordering() {
        let mut r = UdpReceiver::new(3);
        let a = Arrival::default();
        for seq in [0, 1, 4, 3, 5] {
            r.handle(Time::ZERO, &UdpData { flow: 3, seq, sent_at: Time::ZERO }, a);
        }
        r.handle(Time::ZERO, &UdpData { flow: 9, seq: 6, sent_at: Time::ZERO }, a);
        let s = r.stats();
        assert_eq!((s.received, s.skipped, s.out_of_order, s.ignored, s.highest_seq), (5, 2, 1, 1, Some(5)));
    }

    #[test]
    fn the_header_fills_small_packets_and_pads_large_ones() {
        let d = UdpData { flow: 1, seq: 2, sent_at: Time(3_000) };
        let mut b = vec![];
        UdpSender::encode_data(&d, Bytes(8), &mut b);
        assert_eq!(b[..4], [b'F', b'W', 2, 0x10]);
        assert_eq!(b[6..], [0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3]);
        b.clear();
        UdpSender::encode_data(&d, Bytes(500), &mut b);
        assert_eq!(b.len(), 500);
        let mut r = UdpReceiver::new(1);
        r.handle_datagram(Time(9_000_500), &b, Arrival::default()).unwrap();
        assert!(r.handle_datagram(Time(9_000_500), &b[..17], Arrival::default()).is_err());
        assert_eq!(r.stats().highest_seq, Some(2));
    }
}
