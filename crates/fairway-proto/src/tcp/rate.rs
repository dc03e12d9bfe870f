//! The sender's delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation-00 §3), kept
//! only for a congestion control that asks for it
//! ([`wants_rate_samples`](super::cc::CongestionControl::wants_rate_samples)): per packet sent,
//! the connection's delivered count and times at its send; per ACK that newly delivers packets,
//! a rate sample from the most recently sent of them, handed to the algorithm's
//! [`on_delivery`](super::cc::CongestionControl::on_delivery).
//!
//! What counts as delivered, in packets as Linux counts them (`tp->delivered`):
//! - a cumulative ACK's packets, less those already counted;
//! - with SACK (the Sack1 sender), each packet an ACK's blocks newly cover;
//! - without SACK, one packet per duplicate ACK (at most all but one outstanding, Linux's
//!   `tcp_add_reno_sack`), so that the cumulative ACK ending a recovery counts only what the
//!   duplicates did not (`max(acked - dupacks, 1)`, Linux's `tcp_remove_reno_sacks`). A
//!   duplicate ACK names no packet, so its sample carries no rate.

use std::collections::VecDeque;

use fairway_core::{Dur, Time};

use super::cc::{RateSample, Window};
use super::sender::TcpSender;
use super::{TcpAck, TcpVariant};

/// What a packet remembers of the connection when it was (last) sent (§3.1.2, "P").
#[derive(Debug, Clone, Copy)]
struct PacketState {
    /// P.delivered.
    delivered: u64,
    /// P.delivered_time.
    delivered_time: Time,
    /// P.first_sent_time.
    first_sent_time: Time,
    /// P.sent_time.
    sent_time: Time,
    /// P.is_app_limited.
    app_limited: bool,
    /// Sent more than once: its RTT is ambiguous (Karn).
    retransmitted: bool,
    /// Counted delivered by a SACK block; not a sample again when cumulatively acknowledged.
    sacked: bool,
}

/// The connection's side (§3.1.1, "C") and the packets not yet cumulatively acknowledged.
#[derive(Debug, Clone, Default)]
pub(super) struct RateSampler {
    /// One record per packet from `base` to the highest sent, in order.
    packets: VecDeque<PacketState>,
    /// The sequence number of `packets[0]`: one past the cumulative ACK.
    base: i64,
    /// C.delivered.
    delivered: u64,
    /// C.delivered_time.
    delivered_time: Time,
    /// C.first_sent_time.
    first_sent_time: Time,
    /// C.app_limited: 0, or the delivered count at which the app-limited bubble is gone.
    app_limited: u64,
    /// Packets counted delivered above the cumulative ACK: SACKed ones, or one per duplicate ACK
    /// without SACK (Linux's `sacked_out`).
    sacked_out: u64,
    /// The smallest RTT the samples gave, under which an interval is not trusted (§3.3).
    min_rtt: Option<Dur>,
    /// The sample of the ACK being processed, handed over before the sender sends.
    pending: Option<RateSample>,
}

impl TcpSender {
    /// Packets in flight as the rate sampler and its algorithm see them: outstanding less those
    /// counted delivered above the cumulative ACK; in SACK recovery the sender's own `pipe`.
    pub(super) fn rate_in_flight(&self) -> u64 {
        let Some(r) = self.rate.as_deref() else { return self.outstanding() };
        if self.cfg.variant == TcpVariant::Sack && self.fastrecov {
            return self.pipe.max(0) as u64;
        }
        self.outstanding().saturating_sub(r.sacked_out)
    }

    /// §3.2, upon sending packet `seqno` (new or not): remember the connection's delivery state.
    /// `idle`: nothing was outstanding before it.
    pub(super) fn rate_on_send(&mut self, now: Time, seqno: i64, idle: bool) {
        let Some(r) = self.rate.as_deref_mut() else { return };
        // §3.2: with nothing in flight, the send and delivery clocks start over now.
        if idle {
            r.first_sent_time = now;
            r.delivered_time = now;
        }
        let p = PacketState {
            delivered: r.delivered,
            delivered_time: r.delivered_time,
            first_sent_time: r.first_sent_time,
            sent_time: now,
            app_limited: r.app_limited != 0,
            retransmitted: false,
            sacked: false,
        };
        let end = r.base + r.packets.len() as i64;
        if seqno == end {
            r.packets.push_back(p);
        } else if seqno >= r.base && seqno < end {
            // A retransmission: the record describes its latest send (Linux tcp_rate_skb_sent).
            let q = &mut r.packets[(seqno - r.base) as usize];
            *q = PacketState { retransmitted: true, sacked: q.sacked, ..p };
        }
    }

    /// §3.3, the first half, as an ACK arrives and before loss recovery looks at it: count what
    /// it newly delivered and build its sample, kept until [`rate_flush`](Self::rate_flush).
    pub(super) fn rate_on_ack(&mut self, now: Time, ack: &TcpAck) {
        let prior_in_flight = self.rate_in_flight();
        let outstanding = self.outstanding();
        let sack = self.cfg.variant == TcpVariant::Sack;
        let Some(r) = self.rate.as_deref_mut() else { return };
        let mut newly = 0u64;
        // The most recently sent packet delivered (the sample's P) and the newest that was never
        // retransmitted (its RTT).
        let mut newest: Option<PacketState> = None;
        let mut newest_clean: Option<Time> = None;
        let mut consider = |p: &PacketState| {
            if newest.is_none_or(|n| p.sent_time >= n.sent_time) {
                newest = Some(*p);
            }
            if !p.retransmitted && newest_clean.is_none_or(|t| p.sent_time > t) {
                newest_clean = Some(p.sent_time);
            }
        };
        let acked = (ack.ackno + 1 - r.base).max(0) as u64;
        if acked > 0 {
            // Popped packets not SACKed before (without SACK, all of them).
            let mut fresh = 0u64;
            for _ in 0..acked {
                let Some(p) = r.packets.pop_front() else { break };
                if p.sacked {
                    r.sacked_out = r.sacked_out.saturating_sub(1);
                    continue;
                }
                fresh += 1;
                consider(&p);
            }
            if sack {
                newly += fresh;
            } else if r.sacked_out > 0 {
                // Linux tcp_remove_reno_sacks: the duplicates counted all but the hole.
                newly += acked.saturating_sub(r.sacked_out).max(1);
                r.sacked_out -= r.sacked_out.min(acked - 1);
            } else {
                newly += acked;
            }
            r.base = ack.ackno + 1;
        }
        if sack {
            // Newly SACKed packets (RFC 2018 blocks [left, right)).
            for (left, right) in ack.sack.iter() {
                let end = r.base + r.packets.len() as i64;
                for s in left.max(r.base)..right.min(end) {
                    let p = &mut r.packets[(s - r.base) as usize];
                    if !p.sacked {
                        p.sacked = true;
                        r.sacked_out += 1;
                        newly += 1;
                        consider(p);
                    }
                }
            }
        } else if acked == 0 && outstanding > 0 && r.sacked_out + 1 < outstanding {
            // A duplicate ACK without SACK: one packet left the network (Linux tcp_add_reno_sack,
            // at most all but one outstanding).
            r.sacked_out += 1;
            newly += 1;
        }
        if newly == 0 {
            return;
        }
        r.delivered += newly;
        r.delivered_time = now;
        // §3.3: the app-limited bubble is gone once delivered passes it.
        if r.app_limited != 0 && r.delivered > r.app_limited {
            r.app_limited = 0;
        }
        let rtt = newest_clean.map(|t| now - t);
        if let Some(rtt) = rtt {
            r.min_rtt = Some(r.min_rtt.map_or(rtt, |m| m.min(rtt)));
        }
        let mut rs = RateSample {
            newly_delivered: newly,
            total_delivered: r.delivered,
            rtt,
            prior_in_flight,
            ..RateSample::default()
        };
        if let Some(p) = newest {
            // §3.3 UpdateRateSample / GenerateRateSample.
            rs.prior_delivered = Some(p.delivered);
            rs.is_app_limited = p.app_limited;
            rs.delivered = r.delivered - p.delivered;
            let send_elapsed = p.sent_time - p.first_sent_time;
            let ack_elapsed = now - p.delivered_time;
            r.first_sent_time = p.sent_time;
            // §3.3: the longer of the two, so neither ACK compression nor a burst of sends
            // overstates the rate; an interval under the minimum RTT is not trusted.
            let interval = send_elapsed.max(ack_elapsed);
            if !interval.is_zero() && r.min_rtt.is_none_or(|m| interval >= m) {
                rs.interval = Some(interval);
            }
        }
        r.pending = Some(rs);
    }

    /// §3.3, the second half: once loss recovery has processed the ACK and before the sender
    /// sends, hand its sample to the algorithm with the packets then in flight.
    /// Inlined, as its callers (twice per ACK) mostly find nothing to hand over.
    #[inline]
    pub(super) fn rate_flush(&mut self, now: Time) {
        if self.rate.as_deref().is_some_and(|r| r.pending.is_some()) {
            self.rate_hand_over(now);
        }
    }

    fn rate_hand_over(&mut self, now: Time) {
        let Some(mut rs) = self.rate.as_deref_mut().and_then(|r| r.pending.take()) else { return };
        rs.in_flight = self.rate_in_flight();
        let mut w = Window { cwnd: self.cwnd, ssthresh: self.ssthresh };
        self.cc.on_delivery(now, &rs, &mut w);
        self.cwnd = w.cwnd;
        self.ssthresh = w.ssthresh;
        if self.cc.marks_app_limited() {
            self.rate_mark_app_limited();
        }
    }

    /// §3.4: what is sent from now on until the packets in flight are delivered is
    /// application-limited.
    fn rate_mark_app_limited(&mut self) {
        let in_flight = self.rate_in_flight();
        if let Some(r) = self.rate.as_deref_mut() {
            r.app_limited = (r.delivered + in_flight).max(1);
        }
    }

    /// §3.4, after sending: the sender had room in its window and nothing left to send (the
    /// application supplied no more data), so the samples of what follows are app-limited. An
    /// unlimited source never is.
    pub(super) fn rate_check_app_limited(&mut self) {
        if self.rate.is_some() && self.t_seqno >= self.curseq && (self.rate_in_flight() as f64) < self.cwnd {
            self.rate_mark_app_limited();
        }
    }
}
