//! The IFTP receiver (elaarag2002 §4): "Unlike a TCP receiver, an IFTP receiver does not use
//! cumulative ACKs. An IFTP receiver merely transmits the sequence number of the packet it
//! receives", with the packet's send time echoed for the sender's RTT samples.

use std::collections::VecDeque;

use fairway_core::{Bytes, Dur, Time};

use super::wire::{AckHeader, Message, HEADER_LEN};
use super::{IftpAck, IftpData};
use crate::endpoint::{Arrival, Endpoint, Malformed, Transmit};

/// An ACK's size on the wire (elaarag2002 §6.1: "ACK size = 40 bytes").
pub const ACK_SIZE: Bytes = Bytes(40);

/// Counters of a receiver, and the running sums of one-way delay (elaarag2002 §6.3: "the time a
/// packet is issued at the source till the time it is received").
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct IftpReceiverStats {
    /// Data packets of this flow received (late and duplicate ones included).
    pub received: u64,
    pub acks_sent: u64,
    /// Packets at or below the highest sequence number already seen (late or duplicate).
    pub out_of_order: u64,
    /// Packets skipped by forward jumps of the sequence number (lost, or late and counted again in
    /// `out_of_order` when they arrive).
    pub skipped: u64,
    pub highest_seq: Option<u64>,
    /// Data packets of other flows, and ACKs handed to the receiver.
    pub ignored: u64,
    /// Sum of one-way delays, in seconds.
    pub delay_sum_s: f64,
    /// Sum of squared one-way delays, in s^2.
    pub delay_sq_sum_s2: f64,
}

impl IftpReceiverStats {
    /// Mean one-way delay and its standard deviation (the "delay jitter" of elaarag2002 §6.3).
    pub fn delay_mean_stdev(&self) -> Option<(Dur, Dur)> {
        if self.received == 0 {
            return None;
        }
        let k = self.received as f64;
        let mean = self.delay_sum_s / k;
        let var = (self.delay_sq_sum_s2 / k - mean * mean).max(0.0);
        Some((Dur::from_secs_f64(mean), Dur::from_secs_f64(var.sqrt())))
    }
}

/// The receiving end of one IFTP flow.
#[derive(Debug, Clone)]
pub struct IftpReceiver {
    flow: u32,
    /// ACKs waiting for `poll_transmit`, one per data packet.
    pending: VecDeque<IftpAck>,
    stats: IftpReceiverStats,
}

impl IftpReceiver {
    pub fn new(flow: u32) -> IftpReceiver {
        IftpReceiver { flow, pending: VecDeque::new(), stats: IftpReceiverStats::default() }
    }

    /// Acknowledges `d` (every packet, duplicates and late ones included: the sender sorts them).
    pub fn handle_data(&mut self, now: Time, d: &IftpData) {
        if d.flow != self.flow {
            self.stats.ignored += 1;
            return;
        }
        let s = &mut self.stats;
        s.received += 1;
        match s.highest_seq {
            Some(h) if d.seq <= h => s.out_of_order += 1,
            h => {
                s.skipped += h.map_or(0, |h| d.seq - h - 1);
                s.highest_seq = Some(d.seq);
            }
        }
        let delay = (now - d.sent_at).as_secs_f64();
        s.delay_sum_s += delay;
        s.delay_sq_sum_s2 += delay * delay;
        // elaarag2002 §4: the ACK carries the packet's sequence number and "a time field ... equal to
        // the time the packet was issued".
        self.pending.push_back(IftpAck { flow: self.flow, seq: d.seq, echo: d.sent_at });
    }

    pub fn flow(&self) -> u32 {
        self.flow
    }
}

impl Endpoint for IftpReceiver {
    type In = IftpData;
    type Out = IftpAck;
    type Stats = IftpReceiverStats;

    /// A data packet: [`handle_data`](IftpReceiver::handle_data).
    fn handle(&mut self, now: Time, d: &IftpData, _arrival: Arrival) {
        self.handle_data(now, d);
    }

    /// Decodes and handles one datagram: data is acknowledged, an ACK is counted as ignored.
    fn handle_datagram(&mut self, now: Time, b: &[u8], _arrival: Arrival) -> Result<(), Malformed> {
        match Message::decode(b).map_err(Malformed::from)?.0 {
            Message::Data(h) => {
                let d = h.to_data(self.stats.highest_seq.unwrap_or(0), now);
                self.handle_data(now, &d);
            }
            Message::Ack(_) => self.stats.ignored += 1,
        }
        Ok(())
    }

    /// The receiver has no timers.
    fn handle_timeout(&mut self, _now: Time) {}

    /// The next ACK to send, if any: [`ACK_SIZE`] on the wire, no application bytes.
    fn poll_transmit(&mut self, _now: Time) -> Option<Transmit<IftpAck>> {
        let a = self.pending.pop_front()?;
        self.stats.acks_sent += 1;
        Some(Transmit { size: ACK_SIZE, payload: Bytes(0), ect: false, tagged: false, msg: a })
    }

    fn poll_timeout(&self) -> Option<Time> {
        None
    }

    /// Writes an ACK as it goes on the wire: the header, then zeros up to its size.
    fn stats(&self) -> IftpReceiverStats {
        self.stats
    }

    fn encode(&self, t: &Transmit<IftpAck>, out: &mut Vec<u8>) {
        let start = out.len();
        AckHeader::from_ack(&t.msg).encode(out);
        out.resize(start + (t.size.0 as usize).max(HEADER_LEN), 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iftp::wire::DataHeader;

    fn data(seq: u64, ms: u64) -> IftpData {
        IftpData { flow: 7, seq, sent_at: Time(ms * 1_000_000) }
    }

    #[test]
    fn acks_every_packet_with_its_seq_and_echo() {
        let mut r = IftpReceiver::new(7);
        assert!(r.poll_transmit(Time(0)).is_none());
        let arrivals = [(0, 0, 30), (1, 10, 40), (3, 20, 55), (2, 15, 60), (3, 20, 61), (9, 70, 100)];
        for &(seq, sent, at) in &arrivals {
            r.handle_data(Time(at * 1_000_000), &data(seq, sent));
        }
        r.handle_data(Time(0), &IftpData { flow: 8, ..data(4, 0) });
        let acks: Vec<IftpAck> = std::iter::from_fn(|| r.poll_transmit(Time(0)).map(|t| t.msg)).collect();
        let want: Vec<IftpAck> =
            arrivals.iter().map(|&(seq, sent, _)| IftpAck { flow: 7, seq, echo: Time(sent * 1_000_000) }).collect();
        assert_eq!(acks, want, "one ACK per packet, in arrival order, duplicates included");
        let s = r.stats();
        assert_eq!((s.received, s.acks_sent, s.ignored), (6, 6, 1));
        assert_eq!((s.out_of_order, s.skipped, s.highest_seq), (2, 1 + 5, Some(9)));
        // Delays 30, 30, 35, 45, 41, 30 ms: mean 35.1667 ms.
        let (mean, sd) = s.delay_mean_stdev().unwrap();
        assert!((mean.as_secs_f64() - 0.211 / 6.0).abs() < 1e-9, "{mean}");
        let m = 0.211 / 6.0;
        let var = [30.0f64, 30.0, 35.0, 45.0, 41.0, 30.0].iter().map(|d| (d / 1e3 - m).powi(2)).sum::<f64>() / 6.0;
        assert!((sd.as_secs_f64() - var.sqrt()).abs() < 1e-8, "{sd}");
    }

    #[test]
    fn datagrams_in_and_acks_out() {
        let mut r = IftpReceiver::new(7);
        let mut b = vec![];
        DataHeader { flow: 7, seq: 5, send_time_us: 1_000 }.encode(&mut b);
        b.resize(1000, 0);
        r.handle_datagram(Time(3_000_000), &b, Arrival::default()).unwrap();
        assert!(r.handle_datagram(Time(3_000_000), &b[..5], Arrival::default()).is_err());
        let mut a = vec![];
        AckHeader { flow: 7, seq: 5, echo_time_us: 1_000 }.encode(&mut a);
        r.handle_datagram(Time(3_000_000), &a, Arrival::default()).unwrap();
        let ack = r.poll_transmit(Time(3_000_000)).unwrap();
        assert_eq!(ack.msg, IftpAck { flow: 7, seq: 5, echo: Time(1_000_000) });
        assert_eq!((ack.size, ack.payload), (ACK_SIZE, Bytes(0)), "elaarag2002 §6.1: 40-byte ACKs");
        let mut out = vec![];
        r.encode(&ack, &mut out);
        assert_eq!(out.len(), 40);
        assert_eq!(out[..a.len()], a, "the ACK echoes the data's wire time exactly");
        assert_eq!((r.stats().received, r.stats().ignored), (1, 1));
        assert!(r.poll_transmit(Time(3_000_000)).is_none() && r.poll_timeout().is_none());
    }
}
