//! RFC 6675's conservative SACK-based loss recovery (`recovery = "rfc6675"`), with RFC 6937's
//! Proportional Rate Reduction (`prr`) deciding how much goes out per ACK in recovery. The
//! alternative to ns-2's Sack1 (sack.rs) for a sender that should behave as today's stacks do.
//!
//! Sequence numbers count packets, as everywhere in this sender: RFC 6675's octets are packets
//! and SMSS is one packet, so "(DupThresh - 1) * SMSS bytes SACKed above" (IsLost) is "DupThresh
//! packets SACKed above", the same count as its "DupThresh discontiguous SACKed sequences".
//! HighACK is the first packet not cumulatively acknowledged (`highest_ack + 1`), HighData the
//! highest sent (`maxseq`).
//!
//! What it does, by the RFC's sections:
//! - §4 Update(): a scoreboard of what the SACK blocks reported, one flag per packet from
//!   HighACK to HighData; IsLost(); SetPipe(); NextSeg() with its rules 1-4.
//! - §5: a duplicate ACK is one that SACKs something new (§2's definition (e)); on the
//!   DupThresh'th, or as soon as IsLost(HighACK) (§5 (2)), loss recovery begins: RecoveryPoint
//!   = HighData, the congestion control sets ssthresh and cwnd from FlightSize less what limited
//!   transmit sent (§5 (4.2), RFC 5681 §3.2), HighACK is retransmitted and becomes HighRxt and
//!   RescueRxt (4.3); then, on every ACK, Update, SetPipe and (C): NextSeg while cwnd - pipe is at
//!   least one packet. Before that, duplicate ACKs send new data while cwnd - pipe allows (§5
//!   (3), limited transmit). A cumulative ACK at or past RecoveryPoint ends recovery (A).
//! - Outside recovery the same rule sends new data: cwnd - pipe >= 1, where pipe is what is
//!   outstanding and not SACKed (without SACK information, everything outstanding, so it is
//!   ns-2's `t_seqno <= highest_ack + window` then).
//! - §5.1, a timeout: RecoveryPoint = HighData, recovery ends, and no new recovery begins until
//!   HighACK passes RecoveryPoint. The scoreboard is kept (RFC 2018 §8 allowed throwing it away
//!   for fear of reneging; RFC 6675 §5.1 leaves keeping it to the implementation, and Linux keeps
//!   it): every packet up to RecoveryPoint that is not SACKed counts as lost, so the sender
//!   resends those in order from one packet of window (RFC 5681 §3.1's loss window), skipping
//!   what the receiver holds, instead of going back N.
//! - PRR (RFC 6937 §3): at the start RecoverFS = snd.nxt - snd.una, prr_delivered = prr_out =
//!   0; on every ACK in recovery, DeliveredData (the change in snd.una plus the change in the
//!   SACKed count) adds to prr_delivered, and cwnd = pipe + sndcnt, with sndcnt the proportional
//!   share `ceil(prr_delivered * ssthresh / RecoverFS) - prr_out` while pipe > ssthresh, and the
//!   reduction bound's ([`PrrBound`]) otherwise. Every segment sent in recovery adds one to
//!   prr_out; at the end cwnd = ssthresh.
//!
//! The congestion control decides ssthresh (and without PRR the window of recovery) at the loss
//! and may change the window when recovery ends, as with every recovery of this sender.

use std::collections::VecDeque;

use fairway_core::{Dur, Time};

use super::cc::Congestion;
use super::rack::Rack;
use super::sender::{CwndAction, TcpSender};
use super::{PrrBound, SackBlocks, TcpAck};

/// RFC 6675 §4's scoreboard: which packets from HighACK to HighData the receiver reported
/// SACKed.
#[derive(Debug, Clone, Default)]
pub(super) struct Board {
    /// One flag per packet from `base` on.
    sacked: VecDeque<bool>,
    /// HighACK: the first packet not cumulatively acknowledged.
    base: i64,
    /// How many flags are set.
    n_sacked: u64,
    /// The highest packet ever SACKed (meaningful while at or above `base`).
    high_sacked: i64,
}

/// What one ACK changed on the board.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Update {
    /// Packets newly SACKed.
    pub newly_sacked: u64,
    /// Packets the cumulative ACK covered that had been SACKed before.
    pub was_sacked: u64,
}

impl Board {
    pub(super) fn new() -> Board {
        Board { sacked: VecDeque::new(), base: 0, n_sacked: 0, high_sacked: -1 }
    }

    /// Update() (RFC 6675 §4): the cumulative ACK `ackno` (the last packet received in order)
    /// and the ACK's SACK blocks, with `maxseq` the highest packet sent.
    pub(super) fn update(&mut self, ackno: i64, sack: &SackBlocks, maxseq: i64) -> Update {
        let mut u = Update::default();
        while self.base <= ackno {
            if self.sacked.pop_front() == Some(true) {
                self.n_sacked -= 1;
                u.was_sacked += 1;
            }
            self.base += 1;
        }
        let len = (maxseq + 1 - self.base).max(0) as usize;
        if self.sacked.len() < len {
            self.sacked.resize(len, false);
        }
        for (l, r) in sack.iter() {
            for s in l.max(self.base)..r.min(maxseq + 1) {
                let f = &mut self.sacked[(s - self.base) as usize];
                if !*f {
                    *f = true;
                    self.n_sacked += 1;
                    u.newly_sacked += 1;
                    self.high_sacked = self.high_sacked.max(s);
                }
            }
        }
        u
    }

    pub(super) fn is_sacked(&self, s: i64) -> bool {
        s >= self.base && self.sacked.get((s - self.base) as usize).copied().unwrap_or(false)
    }

    /// Packets SACKed above `s`.
    fn sacked_above(&self, s: i64) -> u64 {
        let upto = (s + 1 - self.base).clamp(0, self.sacked.len() as i64) as usize;
        self.n_sacked - self.sacked.iter().take(upto).filter(|&&f| f).count() as u64
    }

    /// IsLost(s) (RFC 6675 §4): DupThresh packets SACKed above it.
    pub(super) fn is_lost(&self, s: i64, dupthresh: u64) -> bool {
        self.sacked_above(s) >= dupthresh
    }

    /// Packets SACKed.
    pub(super) fn n_sacked(&self) -> u64 {
        self.n_sacked
    }

    /// Packets SACKed.
    #[cfg(test)]
    pub(super) fn sacked(&self) -> u64 {
        self.n_sacked
    }
}

/// Why NextSeg chose a packet (RFC 6675 §4 NextSeg's rules).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Rule {
    /// (1) the first lost packet above HighRxt, below the highest SACKed one (or, after a
    /// timeout, up to RecoveryPoint).
    Lost,
    /// (2) new data.
    New,
    /// (3) the first unSACKed packet above HighRxt and below the highest SACKed one.
    Unsacked,
    /// (4) the rescue retransmission: the highest outstanding unSACKed packet, once per
    /// recovery.
    Rescue,
}

/// RFC 6675 recovery's state beside the sender's.
#[derive(Debug, Clone)]
pub(super) struct Rfc6675 {
    pub(super) board: Board,
    /// HighRxt.
    pub(super) high_rxt: i64,
    /// RescueRxt (`None`: undefined).
    pub(super) rescue_rxt: Option<i64>,
    /// RecoveryPoint.
    pub(super) recovery_point: i64,
    /// In loss recovery (§5 (4) until (A)).
    pub(super) in_recovery: bool,
    /// After a timeout, until HighACK passes it (§5.1): every unSACKed packet up to here is
    /// lost.
    pub(super) lost_to: Option<i64>,
    /// DupAcks.
    pub(super) dupacks: u64,
    /// New packets sent on duplicate ACKs before recovery (§5 (3)), which FlightSize leaves out
    /// at (4.2).
    lt_sent: i64,
    /// The highest packet IsLost() held lost at the last SetPipe (for PRR's "no new loss").
    lost_edge: i64,
    /// Packets RACK marked lost on this ACK (rack.rs).
    rack_marked: u64,
    /// RFC 6937 §3's prr_delivered, prr_out and RecoverFS, packets.
    pub(super) prr_delivered: u64,
    pub(super) prr_out: u64,
    pub(super) recover_fs: u64,
}

impl Rfc6675 {
    pub(super) fn new() -> Rfc6675 {
        Rfc6675 {
            board: Board::new(),
            high_rxt: -1,
            rescue_rxt: None,
            recovery_point: -1,
            in_recovery: false,
            lost_to: None,
            dupacks: 0,
            lt_sent: 0,
            lost_edge: -1,
            rack_marked: 0,
            prr_delivered: 0,
            prr_out: 0,
            recover_fs: 0,
        }
    }

    fn lost(&self, s: i64, above: u64, dupthresh: u64) -> bool {
        self.lost_to.is_some_and(|p| s <= p) || above >= dupthresh
    }

    /// SetPipe() (RFC 6675 §4), for packets HighACK..=`maxseq`: each unSACKed packet counts once
    /// unless IsLost, and once more if retransmitted (at or below HighRxt). Also returns the
    /// highest packet held lost, -1 if none.
    pub(super) fn set_pipe(&self, maxseq: i64, dupthresh: u64, rack: Option<&Rack>) -> (i64, i64) {
        if let Some(k) = rack {
            // RFC 8985 with RFC 6675 §4's SetPipe: RACK's marks say what is lost (rack.rs).
            let (mut pipe, mut edge) = (0, -1);
            for s in self.board.base..=maxseq {
                if !self.board.is_sacked(s) {
                    pipe += k.pipe_of(s);
                    if k.needs_resend(s) {
                        edge = s;
                    }
                }
            }
            return (pipe, edge);
        }
        if self.board.n_sacked == 0 && self.lost_to.is_none() && self.high_rxt < self.board.base {
            // Nothing SACKed, nothing lost, nothing retransmitted outstanding: all of it.
            return ((maxseq + 1 - self.board.base).max(0), -1);
        }
        let mut pipe = 0i64;
        let mut above = 0u64;
        let mut edge = -1;
        let mut s = maxseq;
        while s >= self.board.base {
            if self.board.is_sacked(s) {
                above += 1;
            } else {
                let lost = self.lost(s, above, dupthresh);
                if lost {
                    edge = edge.max(s);
                } else {
                    pipe += 1;
                }
                if s <= self.high_rxt {
                    pipe += 1;
                }
            }
            s -= 1;
        }
        (pipe, edge)
    }

    /// NextSeg() (RFC 6675 §4). `new_data`: the packet rule (2) would send, if the application
    /// and the receiver's window allow one. Rules (3) and (4) only in recovery; outside it, rule
    /// (1) only after a timeout (§5.1).
    pub(super) fn next_seg(
        &self,
        maxseq: i64,
        dupthresh: u64,
        new_data: Option<i64>,
        rack: Option<&Rack>,
    ) -> Option<(i64, Rule)> {
        let b = &self.board;
        if let Some(k) = rack {
            // RFC 8985: (1) the lowest packet RACK marked lost and not resent since (a lost
            // retransmission included), then (2) new data; no rules (3) and (4) (rack.rs).
            if let Some(s) = k.first_to_resend(b.base, maxseq, |s| b.is_sacked(s)) {
                return Some((s, Rule::Lost));
            }
            return new_data.map(|s| (s, Rule::New));
        }
        if !self.in_recovery && self.lost_to.is_none() {
            // Outside recovery, and not after a timeout: new data only.
            return new_data.map(|s| (s, Rule::New));
        }
        // The smallest unSACKed packet above HighRxt (rules (1.a) and (3)). IsLost falls as the
        // sequence number rises, so if it is not lost, no later one is.
        let s2 = ((self.high_rxt + 1).max(b.base)..=maxseq).find(|&s| !b.is_sacked(s));
        // (1.b): below the highest SACKed packet.
        let below = s2.filter(|&s| s < b.high_sacked);
        // (1.c) IsLost; after a timeout everything up to RecoveryPoint is (§5.1).
        let by_timeout = s2.filter(|&s| self.lost_to.is_some_and(|p| s <= p));
        if let Some(s) = by_timeout.or(below.filter(|&s| b.is_lost(s, dupthresh))) {
            return Some((s, Rule::Lost));
        }
        if let Some(s) = new_data {
            return Some((s, Rule::New));
        }
        if !self.in_recovery {
            return None;
        }
        if let Some(s) = below {
            return Some((s, Rule::Unsacked));
        }
        // (4): once per recovery (until HighACK passes RescueRxt), the highest outstanding
        // unSACKed packet; HighRxt is not updated.
        if self.rescue_rxt.is_none_or(|r| b.base > r) {
            if let Some(s) = (b.base..=maxseq).rev().find(|&s| !b.is_sacked(s)) {
                return Some((s, Rule::Rescue));
            }
        }
        None
    }
}

/// RFC 6937 §3: how many packets PRR lets this ACK send (`sndcnt`; cwnd = pipe + sndcnt).
/// `delivered` is this ACK's DeliveredData, already added to `prr_delivered`; `safe`: it moved
/// the cumulative point and revealed no new loss (for [`PrrBound::Linux`]).
#[allow(clippy::too_many_arguments)]
pub(super) fn prr_sndcnt(
    bound: PrrBound,
    prr_delivered: u64,
    prr_out: u64,
    delivered: u64,
    pipe: i64,
    ssthresh: f64,
    recover_fs: u64,
    safe: bool,
) -> i64 {
    let (pd, po) = (prr_delivered as i64, prr_out as i64);
    let sndcnt = if pipe as f64 > ssthresh {
        // RFC 6937 §3, proportional rate reduction.
        (pd as f64 * ssthresh / recover_fs.max(1) as f64).ceil() as i64 - po
    } else {
        let limit = match bound {
            // RFC 6937 §3, PRR-CRB: packet conservation.
            PrrBound::Crb => pd - po,
            // RFC 6937 §3, PRR-SSRB: at most one packet beyond what this ACK delivered.
            PrrBound::Ssrb => (pd - po).max(delivered as i64) + 1,
            // RFC 9937 (and Linux): CRB's bound raised to DeliveredData, SSRB's extra packet
            // only on a safe ACK.
            PrrBound::Linux => (pd - po).max(delivered as i64) + safe as i64,
        };
        // RFC 6937 §3: catch up towards ssthresh, as far as the bound permits.
        ((ssthresh - pipe as f64).floor() as i64).min(limit)
    };
    match bound {
        // RFC 9937 (Linux likewise): the fast retransmit goes out whatever the bound says.
        PrrBound::Linux if po == 0 => sndcnt.max(1),
        _ => sndcnt,
    }
}

impl TcpSender {
    /// An ACK, after the ECN response: RFC 6675 §5.
    pub(super) fn recv_6675(&mut self, now: Time, ack: &TcpAck) {
        let Some(mut r) = self.r6675.take() else { return };
        let nd = self.numdupacks() as u64;
        let old = self.highest_ack;
        let advanced = ack.ackno > old;
        // RFC 8985 §6.2 step 1: RACK.min_RTT with this ACK's sample (RFC 7323 §4).
        let min_rtt = match (advanced && self.cfg.timestamps && ack.ts_echo <= now, self.min_rtt) {
            (true, Some(m)) => Some(m.min(now - ack.ts_echo)),
            (true, None) => Some(now - ack.ts_echo),
            (false, m) => m,
        };
        if let Some(k) = self.rack.as_deref_mut() {
            // RFC 8985 §6.2 steps 2-3, from what this ACK newly delivers.
            k.on_ack(now, ack, self.maxseq, min_rtt, |s| r.board.is_sacked(s));
        }
        // §5: every ACK updates the scoreboard.
        let u = r.board.update(ack.ackno.max(old), &ack.sack, self.maxseq);
        r.rack_marked = 0;
        if let Some(k) = self.rack.as_deref_mut() {
            k.advance(ack.ackno.max(old));
            // RFC 8985 §6.2 step 4, then step 5 and the reordering timer.
            let srtt = self.rtt.srtt();
            k.update_reo_wnd(r.in_recovery || r.lost_to.is_some(), r.board.n_sacked(), nd, min_rtt, srtt);
            let (marked, timer) = k.detect_loss(now, |s| r.board.is_sacked(s));
            r.rack_marked = marked;
            self.reo_deadline = timer;
        }
        // RFC 6937 §3: DeliveredData = change in snd.una + change in SACKed.
        let delivered = ((ack.ackno - old).max(0) as u64 + u.newly_sacked).saturating_sub(u.was_sacked);
        // §2 (e): a duplicate ACK SACKs something not SACKed before, with data outstanding.
        let dup = ack.ackno == old && u.newly_sacked > 0 && self.maxseq > old;
        if advanced {
            // §5: a cumulative ACK resets DupAcks.
            r.dupacks = 0;
            r.lt_sent = 0;
        }
        if r.in_recovery {
            if ack.ackno >= r.recovery_point {
                // (A): everything up to RecoveryPoint is acknowledged: recovery is over. The
                // scoreboard above is kept.
                r.in_recovery = false;
                self.fastrecov = false;
                if self.prr_window().is_some() {
                    // RFC 6937 §3: at the end of recovery, cwnd = ssthresh.
                    self.cwnd = self.ssthresh;
                }
                self.last_action = CwndAction::Exited;
                self.recovery_end(now);
                self.last_sample = None;
                self.newack(now, ack);
            } else {
                if advanced {
                    // A partial ACK: RFC 6298 §5.3 restarts the timer; with timestamps it
                    // gives an RTT sample (RFC 7323 §4).
                    self.last_sample = None;
                    self.newack(now, ack);
                }
                // (B): Update (above) and SetPipe, then PRR's window and (C) when sending.
                self.recovery_ack(&mut r, delivered, advanced);
            }
        } else {
            if advanced {
                // The window grows by what the ACK delivered (RFC 6937 §3's DeliveredData, as
                // Linux's and ns-3's senders count it), not by the packets it covers that were
                // SACKed before: after a timeout the ACK of the first hole's retransmission may
                // cover hundreds of them, and a slow start counting those would leap (a
                // byte-counting one, RFC 3465, by all of them at once).
                self.recv_newack_delivered(now, ack, delivered.max(1));
                if self.highest_ack == 0 && self.cfg.delay_growth {
                    self.cwnd = self.initial_window();
                }
                if r.lost_to.is_some_and(|p| self.highest_ack >= p) {
                    // §5.1: the recovery of the timeout is over.
                    r.lost_to = None;
                }
            } else if dup && r.lost_to.is_none() {
                // §5.1: no new recovery until HighACK passes the timeout's RecoveryPoint.
                r.dupacks += 1;
                self.dupacks = r.dupacks as i64;
                // §5 (1), (2): DupThresh duplicates, or IsLost(HighACK); with RACK, a packet
                // RACK marked lost (RFC 8985 §6.2 step 5).
                let lost = match self.rack.as_deref() {
                    Some(k) => k.any_to_resend(|s| r.board.is_sacked(s)),
                    None => r.dupacks >= nd || r.board.is_lost(self.highest_ack + 1, nd),
                };
                if lost {
                    self.enter_6675_recovery(now, &mut r, delivered);
                } else {
                    // §5 (3.1): limited transmit; (3.2)-(3.3) happen when sending.
                    r.high_rxt = self.highest_ack;
                }
            }
            if !self.cfg.limited_transmit && !r.in_recovery && r.dupacks > 0 && self.rack.is_none() {
                // Without limited transmit nothing new goes out on duplicate ACKs.
                self.pipe = self.outstanding() as i64;
                self.r6675 = Some(r);
                return;
            }
        }
        if self.rack.is_some() {
            // RFC 8985 §7.4: the ACK of a loss probe.
            self.tlp_on_ack(now, ack, advanced, u.newly_sacked > 0, r.in_recovery || r.lost_to.is_some());
            // RFC 8985 §6.2 step 5 marked a loss on an ACK that was not a duplicate, or after
            // recovery ended: fast recovery begins (Linux's tcp_time_to_recover, lost_out > 0).
            let k = self.rack.as_deref().expect("checked");
            if !r.in_recovery && r.lost_to.is_none() && k.any_to_resend(|s| r.board.is_sacked(s)) {
                self.enter_6675_recovery(now, &mut r, delivered);
            }
        }
        self.pipe = r.set_pipe(self.maxseq, nd, self.rack.as_deref()).0;
        self.r6675 = Some(r);
        self.send_much(now, self.cfg.max_burst);
        self.tlp_rearm(now, advanced);
    }

    /// §5 (4): enter loss recovery on the ACK that delivered `delivered` packets.
    pub(super) fn enter_6675_recovery(&mut self, now: Time, r: &mut Rfc6675, delivered: u64) {
        let una = self.highest_ack + 1;
        // (4.1)
        r.recovery_point = self.maxseq;
        r.in_recovery = true;
        self.fastrecov = true;
        // ECN already cut the window for this flight (RFC 3168 §6.1.2: once per window).
        let ecn_cut = self.cfg.ecn && self.last_action == CwndAction::Ecn && self.highest_ack < self.recover;
        self.recover = self.maxseq;
        self.last_action = CwndAction::Dupack;
        if !ecn_cut {
            // (4.2): ssthresh (and cwnd) from FlightSize, less what limited transmit sent
            // (RFC 5681 §3.2), as the congestion control computes them.
            let flight = (self.outstanding() as i64 - r.lt_sent).max(1) as f64;
            // The pipe before the retransmission, for an algorithm that conserves packets.
            let nd = self.numdupacks() as u64;
            let pipe = r.set_pipe(self.maxseq, nd, self.rack.as_deref()).0.max(0) as u64;
            self.congestion_at(now, Congestion::Loss, flight.min(self.windowd()), Some(pipe + delivered));
        }
        self.stats.fast_retransmits += 1;
        // RFC 6937 §3: at the beginning of recovery.
        r.recover_fs = self.outstanding();
        r.prr_delivered = 0;
        r.prr_out = 0;
        // The timer restarts with the retransmission (as ns-2's senders do).
        self.reset_rtx_timer(now, true, false);
        // PRR's window for this ACK, from the pipe before the retransmission.
        r.high_rxt = self.highest_ack;
        self.recovery_ack(r, delivered, false);
        // (4.3): retransmit HighACK; HighRxt and RescueRxt become it. With RACK, the lowest
        // packet it marked lost (RFC 8985 §6.2 step 5), and the probe episode is over.
        let first = match self.rack.as_deref_mut() {
            Some(k) => {
                k.tlp_end = None;
                k.first_to_resend(una, self.maxseq, |s| r.board.is_sacked(s))
            }
            None => Some(una),
        };
        self.pto_deadline = None;
        let Some(first) = first else { return };
        self.output(now, first);
        r.high_rxt = first;
        r.rescue_rxt = Some(first);
        if self.cfg.prr.is_some() {
            r.prr_out += 1;
        }
    }

    /// (B.2) SetPipe and, with PRR, this ACK's window (RFC 6937 §3).
    fn recovery_ack(&mut self, r: &mut Rfc6675, delivered: u64, advanced: bool) {
        let nd = self.numdupacks() as u64;
        let (pipe, edge) = r.set_pipe(self.maxseq, nd, self.rack.as_deref());
        // A loss is new if IsLost now reaches an unSACKed packet it did not before; with RACK,
        // if this ACK marked one.
        let newly_lost = if self.rack.is_some() {
            r.rack_marked > 0
        } else {
            edge > r.lost_edge && (r.lost_edge.max(r.board.base - 1) + 1..=edge).any(|s| !r.board.is_sacked(s))
        };
        r.lost_edge = edge;
        self.pipe = pipe;
        let Some(bound) = self.prr_window() else { return };
        r.prr_delivered += delivered;
        let sndcnt = prr_sndcnt(
            bound,
            r.prr_delivered,
            r.prr_out,
            delivered,
            pipe,
            self.ssthresh,
            r.recover_fs,
            advanced && !newly_lost,
        );
        self.cwnd = (pipe + sndcnt).max(0) as f64;
    }

    /// Sending in RFC 6675 mode: while cwnd - pipe is at least one packet, what NextSeg offers
    /// (§5 (C), (3.3), and outside recovery new data alone).
    pub(super) fn send_much_6675(&mut self, now: Time, maxburst: u32, force: bool) {
        let Some(mut r) = self.r6675.take() else { return };
        let nd = self.numdupacks() as u64;
        let mut n = 0u32;
        loop {
            // int(cwnd), as ns-2's window.
            if (self.cwnd as i64) - self.pipe < 1 {
                break;
            }
            let wnd = self.cfg.window as i64;
            let new_data = (self.t_seqno < self.curseq && self.t_seqno <= self.highest_ack.saturating_add(wnd))
                .then_some(self.t_seqno);
            let Some((s, rule)) = r.next_seg(self.maxseq, nd, new_data, self.rack.as_deref()) else { break };
            if rule == Rule::New && !(force || self.cfg.overhead.is_zero()) {
                // ns-2 `overhead_`: new data waits a random time (send_much_forced).
                self.delsnd_deadline = Some(now + Dur(self.rng.below(self.cfg.overhead.0)));
                break;
            }
            if self.pacing_holds(now) {
                break;
            }
            self.output(now, s);
            if self.rack.is_some() && rule == Rule::Lost && s == self.highest_ack + 1 {
                // With RACK, as Linux's tcp_xmit_retransmit_queue: resending SND.UNA restarts
                // the RTO, so a lost retransmission of the head has a round trip for RACK to
                // find it (RFC 8985 §6.2) before the timer fires.
                self.set_rtx_timer(now);
            }
            // (C.4)
            self.pipe += 1;
            if r.in_recovery && self.cfg.prr.is_some() {
                r.prr_out += 1;
            }
            match rule {
                Rule::New => {
                    // (C.3)
                    self.t_seqno = s + 1;
                    if !r.in_recovery && r.dupacks > 0 {
                        r.lt_sent += 1;
                    }
                }
                // (C.2): HighRxt, except for the rescue retransmission.
                Rule::Lost | Rule::Unsacked => r.high_rxt = r.high_rxt.max(s),
                Rule::Rescue => r.rescue_rxt = Some(r.recovery_point),
            }
            n += 1;
            if maxburst > 0 && n == maxburst {
                break;
            }
        }
        self.r6675 = Some(r);
    }

    /// §5.1, a retransmission timeout, before the common part: recovery ends, RecoveryPoint =
    /// HighData, and every unSACKed packet up to it counts as lost.
    pub(super) fn on_timeout_6675(&mut self, now: Time) {
        let Some(r) = self.r6675.as_deref_mut() else { return };
        r.in_recovery = false;
        self.fastrecov = false;
        r.recovery_point = self.maxseq;
        r.lost_to = (self.maxseq > self.highest_ack).then_some(self.maxseq);
        r.high_rxt = self.highest_ack;
        r.rescue_rxt = None;
        r.dupacks = 0;
        r.lt_sent = 0;
        self.dupacks = 0;
        if let Some(k) = self.rack.as_deref_mut() {
            // RFC 8985 §6.3: SND.UNA and what RACK's deadlines say are lost; no probe, no
            // reordering timer (the timeout replaces both).
            let b = &r.board;
            k.mark_on_rto(now, |s| b.is_sacked(s));
            self.reo_deadline = None;
            self.pto_deadline = None;
        }
    }

    /// After the common timeout handling: pipe anew (everything lost but what was SACKed), and
    /// no going back N: the lost packets are resent through NextSeg's rule (1).
    pub(super) fn after_timeout_6675(&mut self, now: Time, t_seqno: i64) {
        let nd = self.numdupacks() as u64;
        let Some(r) = self.r6675.as_deref() else { return };
        self.t_seqno = t_seqno;
        self.pipe = r.set_pipe(self.maxseq, nd, self.rack.as_deref()).0;
        // RFC 6298 §5.4 with RACK (RFC 8985 §6.3): the earliest unacknowledged packet goes now,
        // whatever pipe says of the packets RACK does not yet hold lost.
        let una = self.highest_ack + 1;
        if self.rack.as_deref().is_some_and(|k| k.needs_resend(una)) && !r.board.is_sacked(una) {
            self.output(now, una);
            self.pipe += 1;
            if let Some(r) = self.r6675.as_deref_mut() {
                r.high_rxt = r.high_rxt.max(una);
            }
        }
    }
}
