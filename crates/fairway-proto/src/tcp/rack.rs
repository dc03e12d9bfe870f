//! RACK-TLP loss detection (RFC 8985, `rack = true`), inside RFC 6675 recovery (rfc6675.rs):
//! time-based loss marks replace IsLost's DupThresh count, and a Tail Loss Probe replaces the
//! timeout at the tail of a flight. Linux runs it by default (net.ipv4.tcp_recovery = 1,
//! tcp_early_retrans = 3).
//!
//! Sequence numbers count packets, as everywhere in this sender: a segment's end_seq is its
//! number plus one, SND.UNA is `highest_ack + 1` and SND.NXT `maxseq + 1`.
//!
//! - RACK (RFC 8985 §6): every packet from SND.UNA to SND.NXT keeps its last transmit time
//!   (§6.1); each ACK updates RACK.min_RTT, RACK.rtt and RACK.xmit_ts from what it newly
//!   delivered (§6.2 steps 1-2), notes reordering (step 3), sets the reordering window (step 4:
//!   min_RTT / 4, no more than SRTT, zero before any reordering is seen once DupThresh packets
//!   are SACKed or in recovery; without D-SACK the multiplier stays 1), and marks lost every
//!   unacknowledged packet sent before the most recently delivered one by more than RACK.rtt +
//!   reo_wnd (step 5), arming the reordering timer for the latest deadline still ahead (the
//!   RFC's max over the remaining times). A lost mark on a retransmitted packet is a lost
//!   retransmission: it is resent again, with no timeout.
//! - The recovery that uses the marks: a packet marked lost and not retransmitted since counts
//!   nothing in pipe, one marked lost and retransmitted counts once, one retransmitted without
//!   a mark (a probe) twice (Linux's packets_out - sacked_out - lost_out + retrans_out); fast
//!   recovery begins as soon as a packet is marked lost; NextSeg sends the lowest marked packet
//!   not yet resent, then new data (RFC 6675's rules (3) and (4) are left out: RFC 8985 §9.2,
//!   RFC 6675's NextSeg cannot resend lost retransmissions; TLP covers the tail, as in Linux).
//!   The window is cut once per recovery (a lost retransmission cuts nothing more, as in Linux).
//! - On a timeout (RFC 8985 §6.3) only SND.UNA and the packets whose RACK deadline has passed
//!   are marked lost; SND.UNA is resent at once (RFC 6298 §5.4), the rest as cwnd allows.
//! - TLP (RFC 8985 §7): with data outstanding, outside recovery and with nothing SACKed, the
//!   probe timer (PTO = 2 SRTT, plus the worst-case delayed ACK of 200 ms when one packet is
//!   outstanding, never past the RTO) restarts whenever new data is sent or an ACK advances
//!   SND.UNA (§7.2). When it fires the sender sends one new packet if it has one and the
//!   receiver's window allows, else resends the highest one sent, whatever cwnd says, and
//!   restarts the RTO (§7.3). One probe per episode (TLP.end_seq); an ACK beyond the episode
//!   after a probe that was a retransmission means the probe repaired a loss, and the window
//!   is cut once (§7.4); a pure duplicate ACK at or past it means nothing was lost.
//! - Two choices follow Linux rather than the RFC's letter (docs/semantics.md): a retransmitted
//!   packet's sample is refused only when shorter than min_RTT (see [`Rack::on_ack`]), and
//!   resending SND.UNA restarts the RTO (rfc6675.rs, `send_much_6675`).

use std::collections::VecDeque;

use fairway_core::{Dur, Time};

use super::cc::Congestion;
use super::sender::TcpSender;
use super::{SackBlocks, TcpAck};

/// RFC 8985 §7.2's WCDelAckT, the worst-case delayed ACK the PTO allows for when one packet
/// is outstanding (Linux adds TCP_RTO_MIN, the same 200 ms).
pub(super) const WC_DEL_ACK: Dur = Dur::from_millis(200);

/// RFC 8985 §5.2's per-segment variables, for one packet from SND.UNA on.
#[derive(Debug, Clone, Copy)]
struct Seg {
    /// Segment.xmit_ts: its last transmission.
    xmit_ts: Time,
    /// Segment.retransmitted: sent more than once.
    retransmitted: bool,
    /// Segment.lost: RACK (or the timeout) marked it lost.
    lost: bool,
    /// A retransmission sent since the last mark is in flight (Linux's TCPCB_SACKED_RETRANS).
    rexmit_out: bool,
}

/// RACK's per-connection state (RFC 8985 §5.3) and its segments.
#[derive(Debug, Clone)]
pub(super) struct Rack {
    segs: VecDeque<Seg>,
    /// The first packet `segs` describes: SND.UNA.
    base: i64,
    /// RACK.xmit_ts and RACK.end_seq (as the packet number, end_seq - 1), of the most recently
    /// sent packet delivered.
    xmit_ts: Option<(Time, i64)>,
    /// RACK.rtt.
    rtt: Dur,
    /// RACK.fack: the highest packet delivered (end_seq - 1).
    fack: i64,
    /// RACK.reordering_seen.
    pub(super) reordering_seen: bool,
    /// RACK.reo_wnd, as set on the last ACK.
    pub(super) reo_wnd: Dur,
    /// TLP.end_seq (SND.NXT when the probe went, a packet number one past it) and
    /// TLP.is_retrans: a probe episode in progress.
    pub(super) tlp_end: Option<(i64, bool)>,
    /// Probes sent, and probes whose ACK showed they repaired a loss.
    pub(super) probes: u64,
    pub(super) probe_recoveries: u64,
}

impl Rack {
    pub(super) fn new() -> Rack {
        Rack {
            segs: VecDeque::new(),
            base: 0,
            xmit_ts: None,
            rtt: Dur::ZERO,
            fack: -1,
            reordering_seen: false,
            reo_wnd: Dur::ZERO,
            tlp_end: None,
            probes: 0,
            probe_recoveries: 0,
        }
    }

    fn seg(&self, s: i64) -> Option<&Seg> {
        if s < self.base {
            return None;
        }
        self.segs.get((s - self.base) as usize)
    }

    /// RFC 8985 §6.1: packet `s` leaves now (a new one is `maxseq + 1`).
    pub(super) fn on_send(&mut self, now: Time, s: i64) {
        if s < self.base {
            return;
        }
        let i = (s - self.base) as usize;
        if i >= self.segs.len() {
            self.segs.resize(i + 1, Seg { xmit_ts: now, retransmitted: false, lost: false, rexmit_out: false });
            return;
        }
        let g = &mut self.segs[i];
        g.xmit_ts = now;
        g.retransmitted = true;
        g.rexmit_out = true;
    }

    /// The cumulative ACK reached `ackno`: its packets leave the table.
    pub(super) fn advance(&mut self, ackno: i64) {
        while self.base <= ackno {
            self.segs.pop_front();
            self.base += 1;
        }
    }

    /// Packet `s` is marked lost and not resent since.
    pub(super) fn needs_resend(&self, s: i64) -> bool {
        self.seg(s).is_some_and(|g| g.lost && !g.rexmit_out)
    }

    /// What `s` adds to pipe unless SACKed: one unless lost, one more per retransmission in
    /// flight (RFC 6675 §4 SetPipe with RACK's marks).
    pub(super) fn pipe_of(&self, s: i64) -> i64 {
        self.seg(s).map_or(1, |g| (!g.lost) as i64 + g.rexmit_out as i64)
    }

    /// Any packet from `from` to `to` marked lost and waiting to be resent.
    pub(super) fn first_to_resend(&self, from: i64, to: i64, sacked: impl Fn(i64) -> bool) -> Option<i64> {
        (from.max(self.base)..=to).find(|&s| self.needs_resend(s) && !sacked(s))
    }

    /// RFC 8985 §6.2 steps 2 and 3, before the scoreboard takes this ACK: every packet the ACK
    /// newly delivers (cumulatively, or SACKed and not SACKed before), in ascending order.
    /// `min_rtt` is RACK.min_RTT (step 1, the sender's smallest RTT sample).
    pub(super) fn on_ack(
        &mut self,
        now: Time,
        ack: &TcpAck,
        maxseq: i64,
        min_rtt: Option<Dur>,
        was_sacked: impl Fn(i64) -> bool,
    ) {
        let top = ack.sack.iter().map(|(_, r)| r - 1).max().unwrap_or(-1).max(ack.ackno).min(maxseq);
        for s in self.base..=top {
            let delivered = (s <= ack.ackno || in_blocks(&ack.sack, s)) && !was_sacked(s);
            let Some(&g) = self.seg(s).filter(|_| delivered) else { continue };
            // Step 2, RACK_update(): a retransmitted packet's sample is ambiguous if shorter
            // than the minimum RTT (the original may have been delivered). The step's other
            // test, an ACK whose TSecr is older than the retransmission, is left out, as Linux's
            // tcp_rack_advance leaves it out: by RFC 7323 §4.3 an ACK that SACKs above a hole
            // echoes the last in-order segment, so the test would discard every retransmission
            // SACKed in recovery, and lost retransmissions would wait for the RTO.
            let rtt = now.saturating_since(g.xmit_ts);
            let valid = !g.retransmitted || min_rtt.is_none_or(|m| rtt >= m);
            if valid {
                if self.xmit_ts.is_none_or(|(t, e)| sent_after(g.xmit_ts, s, t, e)) {
                    self.xmit_ts = Some((g.xmit_ts, s));
                    self.rtt = rtt;
                } else if self.xmit_ts.is_some_and(|(t, e)| (t, e) == (g.xmit_ts, s)) {
                    self.rtt = rtt;
                }
            }
            // Step 3, RACK_detect_reordering().
            if s > self.fack {
                self.fack = s;
            } else if !g.retransmitted {
                self.reordering_seen = true;
            }
        }
    }

    /// RFC 8985 §6.2 step 4, RACK_update_reo_wnd() (no D-SACK, so RACK.reo_wnd_mult is 1).
    pub(super) fn update_reo_wnd(
        &mut self,
        in_recovery: bool,
        sacked: u64,
        dupthresh: u64,
        min_rtt: Option<Dur>,
        srtt: Option<Dur>,
    ) {
        self.reo_wnd = if !self.reordering_seen && (in_recovery || sacked >= dupthresh) {
            Dur::ZERO
        } else {
            let q = min_rtt.map_or(Dur::ZERO, |m| Dur(m.0 / 4));
            srtt.map_or(q, |s| q.min(s))
        };
    }

    /// RFC 8985 §6.2 step 5, RACK_detect_loss(): marks lost every unacknowledged, unSACKed
    /// packet sent before RACK.xmit_ts whose deadline (xmit_ts + RACK.rtt + reo_wnd) has
    /// passed. Returns how many it marked and when the next one's deadline falls (the
    /// reordering timer, §6.2's RACK_detect_loss_and_arm_timer()).
    pub(super) fn detect_loss(&mut self, now: Time, sacked: impl Fn(i64) -> bool) -> (u64, Option<Time>) {
        let Some((rt, re)) = self.xmit_ts else { return (0, None) };
        let mut marked = 0;
        let mut timer: Option<Time> = None;
        for i in 0..self.segs.len() {
            let s = self.base + i as i64;
            let g = self.segs[i];
            // A packet marked lost and not resent has xmit_ts INFINITE_TS.
            if (g.lost && !g.rexmit_out) || sacked(s) || !sent_after(rt, re, g.xmit_ts, s) {
                continue;
            }
            let deadline = g.xmit_ts + self.rtt + self.reo_wnd;
            if deadline <= now {
                let g = &mut self.segs[i];
                g.lost = true;
                g.rexmit_out = false;
                marked += 1;
            } else {
                timer = Some(timer.map_or(deadline, |t| t.max(deadline)));
            }
        }
        (marked, timer)
    }

    /// RFC 8985 §6.3, RACK_mark_losses_on_RTO(): SND.UNA and every packet whose RACK deadline
    /// has passed are lost.
    pub(super) fn mark_on_rto(&mut self, now: Time, sacked: impl Fn(i64) -> bool) {
        let una = self.base;
        let (rtt, reo) = (self.rtt, self.reo_wnd);
        for (i, g) in self.segs.iter_mut().enumerate() {
            let s = una + i as i64;
            if sacked(s) {
                continue;
            }
            if s == una || g.xmit_ts + rtt + reo <= now {
                g.lost = true;
                g.rexmit_out = false;
            }
        }
        self.tlp_end = None;
    }

    /// Any packet marked lost and not resent.
    pub(super) fn any_to_resend(&self, sacked: impl Fn(i64) -> bool) -> bool {
        (0..self.segs.len()).any(|i| self.needs_resend(self.base + i as i64) && !sacked(self.base + i as i64))
    }
}

/// RFC 8985 §6.2, RACK_sent_after(t1, seq1, t2, seq2).
fn sent_after(t1: Time, seq1: i64, t2: Time, seq2: i64) -> bool {
    t1 > t2 || (t1 == t2 && seq1 > seq2)
}

fn in_blocks(sack: &SackBlocks, s: i64) -> bool {
    sack.iter().any(|(l, r)| l <= s && s < r)
}

/// RFC 8985 §7.2, TLP_calc_PTO(): 2 SRTT, plus WCDelAckT with one packet in flight (1 s
/// without an SRTT), and never past the RTO's expiry.
pub(super) fn pto(now: Time, srtt: Option<Dur>, flight: u64, rto_expiry: Option<Time>) -> Time {
    let p = match srtt {
        Some(s) => Dur(2 * s.0) + if flight == 1 { WC_DEL_ACK } else { Dur::ZERO },
        None => Dur::from_secs(1),
    };
    let at = now + p;
    rto_expiry.map_or(at, |r| at.min(r))
}

impl TcpSender {
    /// RFC 8985 §6.2's RACK_detect_loss_and_arm_timer() when the reordering timer fires, then
    /// what Linux's tcp_rack_reo_timeout does: fast recovery if it is not on, and the lost
    /// packets resent as the window allows.
    pub(super) fn rack_reo_timeout(&mut self, now: Time) {
        let (Some(mut r), Some(k)) = (self.r6675.take(), self.rack.as_deref_mut()) else { return };
        let nd = self.cfg.dupack_thresh as u64;
        let (marked, timer) = k.detect_loss(now, |s| r.board.is_sacked(s));
        self.reo_deadline = timer;
        if marked > 0 && !r.in_recovery && r.lost_to.is_none() {
            self.enter_6675_recovery(now, &mut r, 0);
        }
        self.pipe = r.set_pipe(self.maxseq, nd, self.rack.as_deref()).0;
        self.r6675 = Some(r);
        if marked > 0 {
            self.send_much(now, self.cfg.max_burst);
        }
    }

    /// RFC 8985 §7.2: (re)start the probe timer after new data went out or an ACK advanced
    /// SND.UNA (`acked_new`), if the sender is outside fast and RTO recovery, has nothing
    /// SACKed, no probe episode open and data outstanding; otherwise it is not armed.
    pub(super) fn tlp_rearm(&mut self, now: Time, acked_new: bool) {
        if self.rack.is_none() {
            return;
        }
        let trigger = acked_new || std::mem::take(&mut self.tlp_new_sent);
        let (Some(r), Some(k)) = (self.r6675.as_deref(), self.rack.as_deref()) else { return };
        let eligible = self.cfg.tlp
            && !r.in_recovery
            && r.lost_to.is_none()
            && r.board.n_sacked() == 0
            && k.tlp_end.is_none()
            && self.maxseq > self.highest_ack;
        if !eligible {
            self.pto_deadline = None;
        } else if trigger || self.pto_deadline.is_none() {
            self.pto_deadline = Some(pto(now, self.rtt.srtt(), self.outstanding(), self.rtx_deadline));
        }
    }

    /// RFC 8985 §7.3, TLP_send_probe(): one new packet if there is one and the receiver's
    /// window allows it, else the highest packet sent again, whatever cwnd and pacing say; the
    /// probe episode begins (TLP.end_seq = SND.NXT) and the RTO restarts.
    pub(super) fn tlp_send_probe(&mut self, now: Time) {
        let (Some(r), Some(k)) = (self.r6675.as_deref(), self.rack.as_deref()) else { return };
        if r.in_recovery || r.lost_to.is_some() || k.tlp_end.is_some() || self.maxseq <= self.highest_ack {
            return;
        }
        let new = self.t_seqno == self.maxseq + 1
            && self.t_seqno < self.curseq
            && self.t_seqno <= self.highest_ack.saturating_add(self.cfg.window as i64);
        if new {
            self.output(now, self.t_seqno);
            self.t_seqno += 1;
        } else {
            self.output(now, self.maxseq);
        }
        // A probe restarts no probe timer (§7.2: "not itself a loss probe").
        self.tlp_new_sent = false;
        self.pipe += 1;
        let k = self.rack.as_deref_mut().expect("checked");
        k.tlp_end = Some((self.maxseq + 1, !new));
        k.probes += 1;
        // §7.3: the RTO, not another probe, covers the probe.
        self.set_rtx_timer(now);
    }

    /// RFC 8985 §7.4, TLP_process_ack(): the episode ends when an ACK reaches TLP.end_seq
    /// after a probe of new data; after a probe that was a retransmission, when an ACK goes
    /// beyond it (the probe repaired a loss: the window is cut once, as Linux's
    /// tcp_process_tlp_ack enters and leaves CWR) or is a pure duplicate (both copies arrived,
    /// nothing was lost). Without D-SACK the third case of the RFC does not arise.
    pub(super) fn tlp_on_ack(&mut self, now: Time, ack: &TcpAck, advanced: bool, sacked_new: bool, recovering: bool) {
        let Some(k) = self.rack.as_deref_mut() else { return };
        let Some((end, is_retrans)) = k.tlp_end else { return };
        // The ACK number (RFC 793's, one past the last packet received in order).
        let acknum = ack.ackno + 1;
        if acknum < end {
            return;
        }
        if !is_retrans {
            k.tlp_end = None;
        } else if acknum > end {
            k.tlp_end = None;
            k.probe_recoveries += 1;
            if !recovering {
                let flight = self.outstanding().max(1) as f64;
                self.congestion_from(now, Congestion::Loss, flight.min(self.windowd()));
                if self.prr_window().is_some() {
                    self.cwnd = self.ssthresh;
                }
                self.recovery_end(now);
            }
        } else if !advanced && !sacked_new {
            k.tlp_end = None;
        }
    }

    /// Loss probes sent, and those whose ACK showed they repaired a loss (RFC 8985 §7).
    pub fn tlp_probes(&self) -> (u64, u64) {
        self.rack.as_deref().map_or((0, 0), |k| (k.probes, k.probe_recoveries))
    }
}
