//! The one-way TCP sink of ns-2 2.35 (`tcp-sink.cc`): `Agent/TCPSink` (an ACK for every
//! packet) and `Agent/TCPSink/DelAck` (delayed ACKs), each with SACK blocks as
//! `Agent/TCPSink/Sack1` adds them (RFC 2018).
//!
//! The receive window is kept as the next expected sequence number plus the set of packets
//! received above it, so memory is bounded by the out-of-order data, not by the transfer.

use std::collections::{BTreeSet, VecDeque};

use fairway_core::Time;

use super::quickack::QuickAck;
use super::{SackBlocks, SinkConfig, TcpAck, TcpSegment};

/// What the sink needs of an arriving data packet (the flags of ns-2's `hdr_flags`).
#[derive(Debug, Clone, Copy)]
struct Arrival {
    seq: u64,
    ect: bool,
    ce: bool,
    cwr: bool,
    ece: bool,
    sent_at: Time,
}

/// Counters of the sink.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TcpSinkStats {
    /// Data packets received, duplicates included.
    pub segments_received: u64,
    /// Packets received that had been received before.
    pub duplicates: u64,
    /// ACKs sent.
    pub acks_sent: u64,
}

/// ns-2 `Agent/TCPSink`, or `Agent/TCPSink/DelAck` when `delayed_ack` is set.
#[derive(Debug, Clone)]
pub struct TcpSink {
    cfg: SinkConfig,
    /// Next in-order sequence number expected (ns-2 `Acker::next_`).
    next: u64,
    /// Highest sequence number seen (ns-2 `maxseen_`, 0 before any).
    maxseen: u64,
    /// Packets received above `next`.
    above: BTreeSet<u64>,
    /// The last packet received had been received before (ns-2 `is_dup_`).
    is_dup: bool,
    /// The SACK blocks sent before, most recent first (ns-2's `SackStack`), to repeat in later
    /// ACKs (RFC 2018 §4).
    sack_history: Vec<(i64, i64)>,
    /// ns-2 `ecn_unacked_`: congestion seen and not yet answered by a CWR.
    ecn_unacked: bool,
    /// ns-2 `ts_to_echo_` (with `ts_echo_bugfix_`).
    ts_to_echo: Time,
    /// ns-2 `last_ack_sent_` (0 initially, as in ns-2).
    last_ack_sent: i64,
    /// DelAck: the packet whose ACK is being delayed (ns-2 `save_`).
    saved: Option<Arrival>,
    delack_deadline: Option<Time>,
    out: VecDeque<TcpAck>,
    stats: TcpSinkStats,
    /// Linux's quick ACKs, with [`SinkConfig::quick_ack`] and delayed ACKs.
    quick: Option<Box<QuickAck>>,
}

impl TcpSink {
    pub fn new(cfg: SinkConfig) -> TcpSink {
        TcpSink {
            next: 0,
            maxseen: 0,
            above: BTreeSet::new(),
            is_dup: false,
            sack_history: vec![],
            ecn_unacked: false,
            ts_to_echo: Time::ZERO,
            last_ack_sent: 0,
            saved: None,
            delack_deadline: None,
            out: VecDeque::new(),
            stats: TcpSinkStats::default(),
            quick: (cfg.quick_ack && cfg.delayed_ack.is_some()).then(Box::default),
            cfg,
        }
    }

    /// A data packet arrived, with only the CE mark known: `ect` is taken to be `ce` (a CE
    /// mark is only set on ECN-capable packets) and CWR as absent, so ECN-Echo is set on the
    /// ACK of each CE packet only. Use [`TcpSink::on_segment`] for ns-2's full ECN echo
    /// (ECN-Echo on every ACK from a CE mark until a CWR packet arrives).
    ///
    /// Returns true if `seq` had not been received before.
    pub fn on_data(&mut self, now: Time, seq: u64, ce: bool, sent_at: Time) -> bool {
        self.receive(now, Arrival { seq, ect: ce, ce, cwr: false, ece: false, sent_at })
    }

    /// A data packet arrived: the segment as the sender emitted it, and whether a queue
    /// marked it CE on the way. Returns true if its sequence number is new.
    pub fn on_segment(&mut self, now: Time, seg: &TcpSegment, ce: bool) -> bool {
        self.receive(
            now,
            Arrival { seq: seg.seq, ect: seg.ect, ce: ce && seg.ect, cwr: seg.cwr, ece: seg.ece, sent_at: seg.sent_at },
        )
    }

    /// The delayed-ACK timer fired: ACK the packet held back (ns-2 `DelAckSink::timeout`).
    /// Ignored unless the timer is armed and due.
    pub fn on_timeout(&mut self, now: Time) {
        match self.delack_deadline {
            Some(d) if d <= now => {}
            _ => return,
        }
        self.delack_deadline = None;
        if let Some(s) = self.saved.take() {
            self.ack(s, Some(s));
        }
    }

    /// The next ACK to send (its size is in [`TcpAck::size`]).
    pub fn poll_transmit(&mut self, _now: Time) -> Option<TcpAck> {
        self.out.pop_front()
    }

    /// The delayed-ACK deadline, if one is pending.
    pub fn poll_timeout(&self) -> Option<Time> {
        self.delack_deadline
    }

    /// Packets delivered in order so far: sequence numbers `0..n` (with a sender's `syn`,
    /// packet 0 is the SYN).
    pub fn delivered_in_order(&self) -> u64 {
        self.next
    }

    /// The cumulative ACK number the next ACK would carry (-1 before packet 0).
    pub fn cumulative_ack(&self) -> i64 {
        self.next as i64 - 1
    }

    /// Packets held out of order above the cumulative ACK.
    pub fn out_of_order(&self) -> usize {
        self.above.len()
    }

    pub fn stats(&self) -> TcpSinkStats {
        self.stats
    }

    fn receive(&mut self, now: Time, a: Arrival) -> bool {
        self.stats.segments_received += 1;
        self.update_ts(a.seq, a.sent_at);
        let expected = a.seq == self.next;
        let is_new = self.update(a.seq);
        // Linux's receiver (tcp_event_data_recv) on each segment that arrives in order.
        let next = self.next;
        let quick = expected && self.quick.as_deref_mut().is_some_and(|q| q.on_in_order(now, a.sent_at, next));
        if !is_new {
            self.stats.duplicates += 1;
        }
        let Some(interval) = self.cfg.delayed_ack else {
            // Agent/TCPSink: an ACK for every packet.
            self.ack(a, None);
            return is_new;
        };
        // DelAck: delay only an in-order packet that leaves nothing to ACK beyond it, and
        // only if no ACK is being delayed already (RFC 5681 §4.2: at least every second
        // full-sized segment, and within the interval).
        if self.delack_deadline.is_none() && a.seq as i64 == self.cumulative_ack() {
            let gap_fill = self.cfg.immediate_ack_on_gap_fill && a.seq < self.maxseen;
            let syn = self.cfg.immediate_ack_on_syn && a.seq == 0;
            if !gap_fill && !syn && !quick {
                self.saved = Some(a);
                self.delack_deadline = Some(now + interval);
                return is_new;
            }
        }
        // Second packet, out of order, or filling a gap: ACK at once (RFC 5681 §4.2).
        self.delack_deadline = None;
        let saved = self.saved.take();
        self.ack(a, saved);
        is_new
    }

    /// ns-2 `Acker::update_ts()` with `ts_echo_rfc1323_` off.
    fn update_ts(&mut self, seq: u64, ts: Time) {
        if ts >= self.ts_to_echo && (seq as i64) <= self.last_ack_sent.saturating_add(1) {
            self.ts_to_echo = ts;
        }
    }

    /// ns-2 `Acker::update()`: record `seq`, advance the cumulative point. True if new.
    fn update(&mut self, seq: u64) -> bool {
        self.is_dup = false;
        if seq > self.maxseen {
            self.maxseen = seq;
        }
        if seq < self.next {
            self.is_dup = true;
            return false;
        }
        if seq > self.next {
            let new = self.above.insert(seq);
            self.is_dup = !new;
            return new;
        }
        self.next += 1;
        while self.above.first() == Some(&self.next) {
            self.above.pop_first();
            self.next += 1;
        }
        true
    }

    /// ns-2 `TcpSink::ack()`: build the cumulative ACK for `of`, with `sf` the packet whose
    /// ACK was delayed, if any. ECN-Echo follows RFC 3168 §6.1.3: set from a CE mark until a
    /// packet with CWR arrives.
    fn ack(&mut self, of: Arrival, sf: Option<Arrival>) {
        let s_cwr = sf.is_some_and(|s| s.cwr);
        let s_ect = sf.is_some_and(|s| s.ect);
        let s_ce = sf.is_some_and(|s| s.ect && s.ce);
        if s_cwr || of.cwr {
            self.ecn_unacked = false;
        }
        if s_ce || (of.ect && of.ce) {
            self.ecn_unacked = true;
        }
        let mut ece = false;
        if s_ect || of.ect {
            ece = self.ecn_unacked;
        }
        // An ECN-setup SYN (ECE without ECT) is answered with ECE (RFC 3168 §6.1.1).
        if (!of.ect && of.ece) || sf.is_some_and(|s| !s.ect && s.ece) {
            ece = true;
        }
        let ackno = self.cumulative_ack();
        self.last_ack_sent = ackno;
        self.stats.acks_sent += 1;
        let sack = if self.cfg.sack { self.sack_blocks(of.seq as i64) } else { SackBlocks::default() };
        let size = super::Bytes(self.cfg.ack_size.0 + 8 * sack.len() as u64);
        self.out.push_back(TcpAck { ackno, ece, ts_echo: self.ts_to_echo, size, sack });
    }

    fn seen(&self, seq: i64) -> bool {
        seq >= 0 && ((seq as u64) < self.next || self.above.contains(&(seq as u64)))
    }

    /// The SACK blocks of the ACK for packet `got` (ns-2 `Sacker::append_ack`, without D-SACK,
    /// which ns-2 leaves off): first the block holding `got` (RFC 2018 §4: the most recently
    /// received segment), then the blocks of earlier ACKs that it does not cover, most recent
    /// first, while they are still above the cumulative ACK.
    fn sack_blocks(&mut self, got: i64) -> SackBlocks {
        let mut out = SackBlocks::default();
        let cum = self.cumulative_ack();
        let maxseen = self.maxseen as i64;
        if cum >= maxseen {
            // Nothing out of order: no blocks, and no history to repeat.
            self.sack_history.clear();
            return out;
        }
        if !(cum < maxseen || self.is_dup) {
            return out;
        }
        // The block around `got`: up to the first hole to its right, back to the first hole
        // to its left.
        let right = (got..=maxseen).find(|&i| !self.seen(i)).unwrap_or(maxseen + 1);
        let recorded = got > cum;
        let mut left = -1;
        if recorded {
            left = ((cum + 1)..right).rev().find(|&i| !self.seen(i)).map_or(-1, |i| i + 1);
            out.push(left, right);
        }
        // Earlier blocks, newest first; one the new block covers is forgotten.
        let mut k = 0;
        while out.len() < SackBlocks::MAX && k < self.sack_history.len() {
            let (l, r) = self.sack_history[k];
            if l < 0 || r < 0 || r > maxseen + 1 {
                break;
            }
            if left <= l && right >= r {
                self.sack_history.remove(k);
                continue;
            }
            out.push(l, r);
            k += 1;
        }
        if recorded {
            self.sack_history.insert(0, (left, right));
            self.sack_history.truncate(SackBlocks::MAX);
        }
        out
    }
}
