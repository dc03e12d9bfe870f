//! The IFTP sender (elaarag2002 §3-§4, Fig. 1): TCP's window bookkeeping turned into a rate by the
//! inter-packet gap, with no retransmission ever (`next` only moves forward).
//!
//! Pacing is expressed through [`IftpSender::poll_timeout`]: within a window, packets leave one
//! per gap, their starts G + tau apart (elaarag2002 §3.1: G is "the time period between transmitting
//! the last bit of one packet until transmitting the first bit of the next packet").
//!
//! Windows are pipelined, one per adjustment period of length R (elaarag2002 §3.1: R "is also equal
//! to the length of each adjustment period for IFTP"; §5.1: T_1 = (lg W_s + 1) x R). Window k
//! starts at start_k and its period ends at the boundary B_k = start_k + R, where the sweep would
//! place its packet n + 1. At B_k window k + 1 begins (n grown by slow start or congestion
//! avoidance) if all ACKs of window k - 1 are in (§4: "when all the ACKs of the packets
//! transmitted in the previous RTT are received"); otherwise it begins when the last of them
//! arrives, so a longer RTT slows the windows down (self-clocking). See `Predecessor` for what
//! stands in for window k - 1 right after a start, a timeout or a loss reaction.

use std::collections::VecDeque;

use fairway_core::{Bytes, Dur, Time};

use crate::endpoint::{AgentState, Arrival, Endpoint, Malformed, Transmit};

use super::rto::RttEstimator;
use super::wire::{whole_micros, DataHeader, Message, HEADER_LEN};
use super::{BackoffReset, IftpAck, IftpConfig, IftpData, ParamError, Reading};

/// Counters of a sender.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct IftpSenderStats {
    /// Data packets sent (each sequence number once).
    pub sent: u64,
    pub bytes_sent: u64,
    /// ACKs accepted (each is an RTT sample).
    pub acks: u64,
    /// ACKs of another flow, for a packet never sent, or echoing an impossible time.
    pub acks_ignored: u64,
    /// ACKs of a packet already acknowledged.
    pub acks_duplicate: u64,
    /// Accepted ACKs of packets in neither the current nor the previous window and below the
    /// loss scoreboard: windows dropped by a loss reaction or a timeout.
    pub acks_late: u64,
    /// Transmit_Window calls that sent something (adjustment periods begun).
    pub windows: u64,
    /// Loss reactions (elaarag2002 §4 "Packet loss"), one per episode.
    pub losses_detected: u64,
    pub loss_phase_exits: u64,
    pub timeouts: u64,
    /// The largest n reached.
    pub max_window: u32,
    /// Data packets handed to the sender as datagrams (it ignores them).
    pub data_ignored: u64,
}

/// Mean and standard deviation of the gap G over a run (elaarag2002 Table I), weighted by time and
/// by packet.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GapSummary {
    /// Each value of G weighted by how long it was in force.
    pub mean: Dur,
    pub stdev: Dur,
    /// Each packet sent with a defined G counted once, with the G in force when it left.
    pub per_packet_mean: Dur,
    pub per_packet_stdev: Dur,
    pub packets: u64,
}

/// The packets of one window and which of them were ACKed (distinct ACKs only).
#[derive(Debug, Clone, Default)]
struct Window {
    first: u64,
    len: u32,
    acked: Vec<u64>,
    count: u32,
}

impl Window {
    /// The window [first, first + len), nothing ACKed; `acked` is a recycled bitmap.
    fn reset(&mut self, first: u64, len: u32) {
        self.first = first;
        self.len = len;
        self.acked.clear();
        self.acked.resize(len.div_ceil(64) as usize, 0);
        self.count = 0;
    }

    fn contains(&self, seq: u64) -> bool {
        seq >= self.first && seq - self.first < u64::from(self.len)
    }

    fn is_acked(&self, seq: u64) -> bool {
        self.contains(seq) && bit(&self.acked, seq - self.first)
    }

    /// Records the first ACK of `seq` (a member not ACKed before).
    fn ack(&mut self, seq: u64) {
        set_bit(&mut self.acked, seq - self.first);
        self.count += 1;
    }

    /// Every packet of the window was ACKed. A window with a lost packet never is: the loss
    /// reaction or the timer moves the sender on and discards it.
    fn complete(&self) -> bool {
        self.count >= self.len
    }
}

/// What stands for window k - 1 when deciding whether window k + 1 may begin (elaarag2002 §4: "when
/// all the ACKs of the packets transmitted in the previous RTT are received").
#[derive(Debug, Clone)]
enum Predecessor {
    /// The window before the current one, with its ACKs.
    Window(Window),
    /// None, and none is needed: the current window follows a loss reaction, which is only
    /// triggered by `after_missing_thresh` ACKs that just arrived, so ACKs are known to flow and
    /// the next boundary may pass without waiting (as TCP goes on after fast recovery).
    Flowing,
    /// None, and nothing is known: the current window follows a start or a timeout. The next
    /// window waits until the current one is fully ACKed ("sends one packet and waits for its
    /// ACK"); otherwise a sender whose ACKs are all lost would double blindly every R, where §5.3
    /// has it send one packet per timeout.
    Unknown,
}

/// How a new window relates to the one before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Begin {
    /// At a boundary: the current window becomes the predecessor.
    Next,
    /// After a loss reaction ([`Predecessor::Flowing`]).
    AfterLoss,
    /// After a start or a timeout ([`Predecessor::Unknown`]).
    Fresh,
}

/// The sending end of one IFTP flow.
#[derive(Debug, Clone)]
pub struct IftpSender {
    cfg: IftpConfig,
    /// tau, one packet's transmission time on the access link.
    tau: Dur,
    running: bool,
    /// n, packets per adjustment period in standard-mode bookkeeping.
    n: u32,
    ssthresh: u32,
    /// G (standard mode) and the gap in force, G_m (= G when S = 1), both clamped at 0.
    g: Dur,
    gm: Dur,
    rtt: RttEstimator,
    /// Fig. 1's `next`: the next sequence number to send. Never goes back.
    next: u64,
    /// The current window (k) and what stands for the one before it (k - 1). Memory: two
    /// windows' bitmaps.
    cur: Window,
    prev: Predecessor,
    /// B_k, the end of the current adjustment period: the current window's start + R. `None`
    /// when the window began without an RTT sample (the very first packet): the period then
    /// ends when the window is fully ACKed.
    period_end: Option<Time>,
    /// Packets of the current window still to send, and when the next may leave.
    sweep_left: u32,
    next_send: Time,
    last_send: Option<Time>,
    first_send: Option<Time>,
    // Loss detection: which packets from `base` on were ACKed. `base` is the lowest packet not
    // ACKed and not written off; a hole exists while the board is not empty.
    base: u64,
    board: VecDeque<bool>,
    /// Fig. 1's `after_missing`: distinct ACKs above the lowest missing packet.
    after_missing: u32,
    /// Fig. 1's `prev_last` while a loss episode lasts.
    loss_phase: Option<u64>,
    /// Fig. 1's `una` and `ack_count`, kept by [`Reading::Figure1`] only.
    una: u64,
    ack_count: u32,
    rto_at: Option<Time>,
    /// The packet sent at the last timeout while the backoff it began lasts
    /// ([`BackoffReset::AfterProbe`]).
    probe: Option<u64>,
    finished_at: Option<Time>,
    last_ack_at: Option<Time>,
    /// The latest `now` seen: time that goes backwards is treated as no time passing.
    clock: Time,
    gap_log: Vec<(Time, Dur)>,
    /// Per-packet sums of G in seconds, for [`GapSummary`].
    gap_sum: f64,
    gap_sq_sum: f64,
    gap_packets: u64,
    stats: IftpSenderStats,
}

impl IftpSender {
    /// A stopped sender.
    pub fn new(cfg: IftpConfig) -> Result<IftpSender, ParamError> {
        cfg.validate()?;
        Ok(IftpSender {
            tau: cfg.tau(),
            running: false,
            n: 1,
            ssthresh: cfg.ssthresh,
            g: Dur::ZERO,
            gm: Dur::ZERO,
            rtt: RttEstimator::new(cfg.initial_rto, cfg.max_backoff, cfg.min_rto),
            next: 0,
            cur: Window::default(),
            prev: Predecessor::Unknown,
            period_end: None,
            sweep_left: 0,
            next_send: Time::ZERO,
            last_send: None,
            first_send: None,
            base: 0,
            board: VecDeque::new(),
            after_missing: 0,
            loss_phase: None,
            una: 0,
            ack_count: 0,
            rto_at: None,
            probe: None,
            finished_at: None,
            last_ack_at: None,
            clock: Time::ZERO,
            gap_log: Vec::new(),
            gap_sum: 0.0,
            gap_sq_sum: 0.0,
            gap_packets: 0,
            stats: IftpSenderStats::default(),
            cfg,
        })
    }

    fn tick(&mut self, now: Time) -> Time {
        self.clock = self.clock.max(now);
        self.clock
    }

    pub fn is_running(&self) -> bool {
        self.running
    }

    /// Every packet of a finite transfer was sent (IFTP owes nothing after that: it never
    /// retransmits). An unlimited sender is never done.
    pub fn is_done(&self) -> bool {
        self.cfg.packets.is_some_and(|p| self.next >= p)
    }

    /// When the last packet of a finite transfer was sent.
    pub fn finished_at(&self) -> Option<Time> {
        self.finished_at
    }

    /// When the ACK of the last packet of a finite transfer arrived (never, if it or its packet
    /// was lost).
    pub fn last_ack_at(&self) -> Option<Time> {
        self.last_ack_at
    }

    /// Acts on one ACK (elaarag2002 §4, Fig. 1's main processing phase), then begins the next window
    /// if this ACK completed the one it was waiting for.
    pub fn handle_ack(&mut self, now: Time, ack: &IftpAck) {
        let now = self.tick(now);
        self.take_ack(now, ack);
        self.advance(now);
    }

    fn take_ack(&mut self, now: Time, ack: &IftpAck) {
        // The echo must be one of our send times: not before the first send, not after the last
        // (within the 1 us of the wire's microsecond clock, wire.rs).
        let slack = Dur::from_micros(1);
        let echo_ok = self.first_send.is_some_and(|f| ack.echo + slack >= f)
            && self.last_send.is_some_and(|l| ack.echo <= l + slack);
        if ack.flow != self.cfg.flow || ack.seq >= self.next || !echo_ok {
            self.stats.acks_ignored += 1;
            return;
        }
        let seq = ack.seq;
        let in_cur = self.cur.contains(seq);
        let in_prev = matches!(&self.prev, Predecessor::Window(w) if w.contains(seq));
        let dup_window = self.cur.is_acked(seq) || matches!(&self.prev, Predecessor::Window(w) if w.is_acked(seq));
        let dup_board = seq >= self.base && self.board.get((seq - self.base) as usize) == Some(&true);
        if dup_window || dup_board {
            self.stats.acks_duplicate += 1;
            return;
        }
        self.stats.acks += 1;
        if self.cfg.packets == Some(seq + 1) {
            self.last_ack_at = Some(now);
        }
        // elaarag2002 §4: "The rtt sample is computed as the difference between the current time and
        // a time field in the ACK packet" (eqs. (7)-(8)).
        self.rtt.sample(now - ack.echo);
        // Karn's backoff ends by the configured rule (the paper names none).
        let ends = match self.cfg.backoff_reset {
            BackoffReset::AfterProbe => self.probe.is_none_or(|p| seq > p),
            BackoffReset::Ack => true,
            BackoffReset::Never => false,
        };
        if ends {
            self.rtt.reset_backoff();
            self.probe = None;
        }
        // "If for any reason no ACKs are received for a calculated period of time": the timer
        // counts from the latest ACK (eq. (9)).
        self.arm_rto(now, true);
        if self.cfg.reading == Reading::Figure1 {
            self.figure1_ack(now, seq);
            return;
        }

        // elaarag2002 §4 (prose, not Fig. 1's exit test): "The sender exits the packet loss phase
        // when it receives an ACK with a sequence number greater than or equal to the last one it
        // transmitted before the packet loss phase."
        if self.loss_phase.is_some_and(|prev_last| seq >= prev_last) {
            self.loss_phase = None;
            self.stats.loss_phase_exits += 1;
        }
        // elaarag2002 §4: a new window is sent "when all the ACKs of the packets transmitted in the
        // previous RTT are received" (Fig. 1's ack_count, counting distinct ACKs of the current
        // and the previous window; round(S n) of them in extended mode).
        if in_cur {
            self.cur.ack(seq);
        } else if let Predecessor::Window(w) = &mut self.prev {
            if in_prev {
                w.ack(seq);
            }
        }
        if seq >= self.base {
            self.mark(seq);
            // elaarag2002 §4: "When the number of ACKs received by the sender after the missing one
            // reaches a certain threshold (aftermissing_thresh) it reacts".
            if self.after_missing >= self.cfg.after_missing_thresh {
                self.react_to_loss(now);
            }
        } else if !in_cur && !in_prev {
            self.stats.acks_late += 1;
        }
    }

    /// Records an ACK on the loss scoreboard and slides it past the packets ACKed in order.
    fn mark(&mut self, seq: u64) {
        let i = (seq - self.base) as usize;
        if i >= self.board.len() {
            self.board.resize(i + 1, false);
        }
        self.board[i] = true;
        self.after_missing += 1;
        while self.board.front() == Some(&true) {
            self.board.pop_front();
            self.base += 1;
            self.after_missing -= 1;
        }
    }

    fn reset_board(&mut self) {
        self.board.clear();
        self.base = self.next;
        self.after_missing = 0;
    }

    /// Begins window k + 1 if the current adjustment period is over and the window before it is
    /// fully ACKed (elaarag2002 §3.1, §4; module docs). Called after every event, so a window that
    /// waits for an ACK begins at that ACK's arrival.
    fn advance(&mut self, now: Time) {
        // Fig. 1 has no period boundaries: its windows begin at an ACK (`figure1_ack`).
        if !self.running || self.is_done() || self.sweep_left > 0 || self.cfg.reading == Reading::Figure1 {
            return;
        }
        let cur_done = self.cur.complete();
        // B_k reached; without an RTT sample when window k began, "when window k is fully ACKed"
        // (§4: it "sends one packet and waits for its ACK to arrive").
        let period_over = self.period_end.map_or(cur_done, |b| now >= b);
        // §4: "all the ACKs of the packets transmitted in the previous RTT are received".
        let before_done = match &self.prev {
            Predecessor::Window(w) => w.complete(),
            Predecessor::Flowing => true,
            Predecessor::Unknown => cur_done,
        };
        if period_over && before_done {
            self.adjust(now);
        }
    }

    /// Window growth at the start of a new adjustment period (elaarag2002 §3.1, §4, Fig. 1).
    fn adjust(&mut self, now: Time) {
        if self.loss_phase.is_some() {
            // No growth while the loss phase lasts: in Fig. 1 the ACKs that arrive then take the
            // `ackIn > una` branch, which never counts towards `ack_count == n`, and TCP, which
            // IFTP emulates, does not open cwnd during fast recovery (RFC 5681 §3.2, RFC 6582
            // §3.2). The window keeps n and the gap is recomputed with the current R.
        } else if self.n < self.ssthresh {
            // Slow start, eqs. (1)-(2): 2n packets in the next period, G = R/(2n) - tau. Capped at
            // ssthresh and W_max (prose: it doubles "until it reaches a threshold", and the window
            // grows "until n reaches the receiver's maximum advertized window").
            self.n = self.n.saturating_mul(2).min(self.ssthresh).min(self.cfg.w_max);
        } else if self.n < self.cfg.w_max {
            // Congestion avoidance, eqs. (3)-(4): n + 1 packets, G = R/(n + 1) - tau.
            self.n += 1;
        }
        // At W_max n stays; G is recomputed with the current R (Fig. 1's `G = srtt/n - τ` follows
        // all three branches).
        self.set_gap(now);
        self.transmit_window(now, Begin::Next);
    }

    /// elaarag2002 §4 "Packet loss" (Fig. 1's `after_missing == after_missing_thresh` branch).
    fn react_to_loss(&mut self, now: Time) {
        self.stats.losses_detected += 1;
        // 1. "halves its ssthresh or sets it to 2 whichever is larger".
        self.ssthresh = (self.ssthresh / 2).max(2);
        // 2. "halves the number of packets to be transmitted in the next RTT" (floored at 1).
        self.n = (self.n / 2).max(1);
        // 3. Eq. (6): G = 2R/n_old - tau, taken as Fig. 1's R/n_new - tau.
        self.set_gap(now);
        // Fig. 1: prev_last = next - 1, the last packet transmitted before the loss phase. Gaps
        // among packets up to it are ignored until the phase ends ("reacts only once").
        self.loss_phase = Some(self.next.saturating_sub(1));
        self.reset_board();
        // The windows whose losses this reacts to are dropped (they would never be fully ACKed);
        // the new window's period is R and the next one follows it without waiting
        // (`Predecessor::Flowing`).
        self.transmit_window(now, Begin::AfterLoss);
    }

    fn fire_timer(&mut self, now: Time) {
        let due = matches!(self.rto_at, Some(t) if now >= t);
        if !self.running || !due {
            return;
        }
        self.stats.timeouts += 1;
        // "It drops ssthresh to half the current transmission rate" (n packets per period), with
        // Fig. 1's floor of 2: max(n/2, 2).
        self.ssthresh = (self.n / 2).max(2);
        // "It then resets n to 1 and G to R - tau".
        self.n = 1;
        self.set_gap(now);
        // Karn: "The backoff factor doubles each time a timeout occur to a maximum of 64".
        self.rtt.on_timeout();
        self.loss_phase = None;
        self.reset_board();
        // "A window of size 1 is subsequently transmitted." Nothing is known about the path, so
        // the window after it waits for its ACK (`Predecessor::Unknown`). Its packet is the probe
        // whose ACK does not end the backoff under `BackoffReset::AfterProbe`.
        self.probe = Some(self.next);
        if self.cfg.reading == Reading::Figure1 {
            // Fig. 1's `una = next - 1` after Transmit_Window has sent the one packet: that
            // packet. `ack_count` is not touched in Fig. 1; left as it was, a count above the new
            // n = 1 could never equal it again and the sender would send one packet per timer for
            // ever, so it starts again from 0 with the new window (the one gap filled here).
            // (`reset_board` above zeroed `after_missing`, which Fig. 1 keeps; the same: the
            // next ACK is the packet's own or an older one, both in order, which zero it.)
            self.una = self.next;
            self.ack_count = 0;
        }
        self.transmit_window(now, Begin::Fresh);
        self.arm_rto(now, true);
    }

    /// Fig. 1's main processing phase for one accepted ACK, line by line ([`Reading::Figure1`]):
    /// `ackIn > una` is a packet loss, anything else an ACK in order.
    fn figure1_ack(&mut self, now: Time, seq: u64) {
        let thresh = self.cfg.after_missing_thresh;
        if seq > self.una {
            // `after_missing++`: ACKs above `una` since the last one in order.
            self.after_missing = self.after_missing.saturating_add(1);
            if self.after_missing == thresh {
                self.stats.losses_detected += 1;
                // `ssthresh = max(ssthresh/2, 2); n = n/2; G = srtt/n - τ` (n floored at 1: n/2 of
                // 1 would be 0), `prev_last = next - 1`, `Transmit_Window()`.
                self.ssthresh = (self.ssthresh / 2).max(2);
                self.n = (self.n / 2).max(1);
                self.set_gap(now);
                self.loss_phase = Some(self.next.saturating_sub(1));
                self.transmit_window(now, Begin::AfterLoss);
            }
            // `if (after_missing > after_missing_thresh && ackIn >= prev_last) una = ackIn + 1`:
            // the loss phase ends.
            if self.after_missing > thresh && self.loss_phase.is_some_and(|p| seq >= p) {
                self.una = seq + 1;
                self.loss_phase = None;
                self.stats.loss_phase_exits += 1;
            }
            // `if (ack_count > 0) ack_count = 0`.
            self.ack_count = 0;
        } else {
            self.after_missing = 0;
            self.ack_count += 1;
            // `if (ack_count == n)`: every ACK of the window sent last is in. n is the window's
            // packets (round(S n) in extended mode, fewer at the end of a finite transfer).
            if self.ack_count == self.cur.len {
                self.ack_count = 0;
                if self.n < self.ssthresh {
                    // `n = 2*n`, bare as Fig. 1 has it (it can pass a ssthresh that is not a power
                    // of two), capped at the receiver's W_max, which Fig. 1 leaves implicit.
                    self.n = self.n.saturating_mul(2).min(self.cfg.w_max);
                } else if self.n < self.cfg.w_max {
                    self.n += 1;
                }
                self.set_gap(now);
                self.transmit_window(now, Begin::Next);
            }
            // `una = ackIn + 1`, also for an ACK below `una` (it moves `una` back).
            self.una = seq + 1;
        }
    }

    /// G = R/n - tau (eqs. (2), (4), (6) and the timeout's R - tau) and, for extended mode, G_m =
    /// [G - tau (S - 1)] / S (elaarag2002 §3.2), each clamped at 0 (R/n < tau: the access link bounds
    /// the sender). Without an RTT sample there is no R and G is left alone.
    fn set_gap(&mut self, now: Time) {
        let Some(r) = self.rtt.srtt() else { return };
        let tau = self.tau.0 as f64;
        let g = r.0 as f64 / self.n as f64 - tau;
        let s = self.cfg.scale;
        let gm = (g - tau * (s - 1.0)) / s;
        self.g = clamped_ns(g);
        self.gm = clamped_ns(gm);
        self.gap_log.push((now, self.gm));
    }

    /// Packets in a window: round(S x n) in extended mode (halves away from zero, at least 1);
    /// one packet while there is no R to pace a window with.
    fn packets_per_window(&self) -> u32 {
        if self.rtt.srtt().is_none() {
            return 1;
        }
        ((self.cfg.scale * self.n as f64).round() as u32).max(1)
    }

    /// Fig. 1's Transmit_Window: begins a sweep of the next window's packets, replacing any sweep
    /// in progress (its unsent rest is not sent; `next` just goes on), and sets the end of its
    /// adjustment period.
    fn transmit_window(&mut self, now: Time, begin: Begin) {
        let remaining = self.cfg.packets.map_or(u64::MAX, |p| p.saturating_sub(self.next));
        let len = u64::from(self.packets_per_window()).min(remaining) as u32;
        // The current window becomes the predecessor at a boundary; after a loss reaction or a
        // timeout it is dropped (with the one before it). One bitmap is recycled.
        let old_cur = std::mem::take(&mut self.cur);
        let old_prev = match begin {
            Begin::Next => std::mem::replace(&mut self.prev, Predecessor::Window(old_cur)),
            Begin::AfterLoss => std::mem::replace(&mut self.prev, Predecessor::Flowing),
            Begin::Fresh => std::mem::replace(&mut self.prev, Predecessor::Unknown),
        };
        if let Predecessor::Window(w) = old_prev {
            self.cur = w;
        }
        self.cur.reset(self.next, len);
        self.sweep_left = len;
        // The first packet goes at once, or when the previous one has left the access link.
        self.next_send = self.last_send.map_or(now, |t| (t + self.tau).max(now));
        // Fig. 1 has no adjustment period: its next window waits for ACKs alone.
        self.period_end = match self.cfg.reading {
            Reading::Prose => self.period(len).map(|p| self.next_send + p),
            Reading::Figure1 => None,
        };
        if len > 0 {
            self.stats.windows += 1;
            self.stats.max_window = self.stats.max_window.max(self.n);
        }
    }

    /// The length of an adjustment period of `len` packets: the time from the window's first send
    /// to where the sweep would place packet len + 1, len x (G_m + tau) with the exact G_m + tau =
    /// max(R/(S n), tau). That is R (elaarag2002 §3.1: n x (G_i + tau) = R, eqs. (1)-(6)), computed
    /// as (len x R)/(S x n) so that it is exactly R in standard mode (the gap itself is rounded
    /// to the ns). It exceeds R only where the access link bounds the sender (R/n < tau: n tau),
    /// and in extended mode it is R x round(S n)/(S n), which keeps the rate at S n/R. `None`
    /// before the first RTT sample.
    fn period(&self, len: u32) -> Option<Dur> {
        let r = self.rtt.srtt()?.0 as f64;
        let len = len as f64;
        let paced = len * r / (self.cfg.scale * self.n as f64);
        Some(clamped_ns(paced.max(len * self.tau.0 as f64)))
    }

    fn arm_rto(&mut self, now: Time, restart: bool) {
        if !self.running || self.is_done() {
            self.rto_at = None;
        } else if restart || self.rto_at.is_none() {
            // elaarag2002 eq. (9): timeout timer = current time + backoff x (srtt + 4 rttvar + 1).
            self.rto_at = Some(now + self.rtt.interval());
        }
    }

    /// n, the window of standard-mode bookkeeping.
    pub fn window(&self) -> u32 {
        self.n
    }

    pub fn ssthresh(&self) -> u32 {
        self.ssthresh
    }

    /// Packets in the current window (round(S x n), or fewer at the end of a finite transfer).
    pub fn window_packets(&self) -> u32 {
        self.cur.len
    }

    /// The end of the current adjustment period (the current window's start + R), if it began
    /// with an RTT sample.
    pub fn period_end(&self) -> Option<Time> {
        self.period_end
    }

    /// Packets of the current window not sent yet.
    pub fn sweep_left(&self) -> u32 {
        self.sweep_left
    }

    /// The gap in force: G, or G_m in extended mode (0 before the first RTT sample).
    pub fn gap(&self) -> Dur {
        self.gm
    }

    /// G of standard mode (equal to [`gap`](Self::gap) when S = 1).
    pub fn gap_standard(&self) -> Dur {
        self.g
    }

    /// tau, one packet's transmission time on the access link.
    pub fn tau(&self) -> Dur {
        self.tau
    }

    /// R, the smoothed RTT.
    pub fn srtt(&self) -> Option<Dur> {
        self.rtt.srtt()
    }

    pub fn rttvar(&self) -> Dur {
        self.rtt.rttvar()
    }

    pub fn backoff(&self) -> u32 {
        self.rtt.backoff()
    }

    /// The timer interval eq. (9) would set now.
    pub fn rto(&self) -> Dur {
        self.rtt.interval()
    }

    /// When the timer fires, if it runs.
    pub fn rto_deadline(&self) -> Option<Time> {
        self.rto_at
    }

    /// The last packet sent before the current loss episode began, while one lasts.
    pub fn loss_phase(&self) -> Option<u64> {
        self.loss_phase
    }

    /// The next sequence number to be sent.
    pub fn next_seq(&self) -> u64 {
        self.next
    }

    pub fn config(&self) -> &IftpConfig {
        &self.cfg
    }

    /// Every value the gap in force took and when (one entry per adjustment period, loss reaction
    /// or timeout).
    pub fn gap_log(&self) -> &[(Time, Dur)] {
        &self.gap_log
    }

    /// Mean and standard deviation of G up to `until` (elaarag2002 Table I), `None` before G was
    /// first set.
    pub fn gap_summary(&self, until: Time) -> Option<GapSummary> {
        let (mut w, mut s, mut s2) = (0.0, 0.0, 0.0);
        for (i, &(t, g)) in self.gap_log.iter().enumerate() {
            let end = self.gap_log.get(i + 1).map_or(until, |e| e.0).min(until);
            let dt = (end - t).as_secs_f64();
            let g = g.as_secs_f64();
            w += dt;
            s += g * dt;
            s2 += g * g * dt;
        }
        let (mean, var) = if w > 0.0 {
            (s / w, s2 / w - (s / w) * (s / w))
        } else {
            let g = self.gap_log.last()?.1.as_secs_f64();
            (g, 0.0)
        };
        let k = self.gap_packets.max(1) as f64;
        let pm = self.gap_sum / k;
        Some(GapSummary {
            mean: Dur::from_secs_f64(mean),
            stdev: Dur::from_secs_f64(var.max(0.0).sqrt()),
            per_packet_mean: Dur::from_secs_f64(pm),
            per_packet_stdev: Dur::from_secs_f64((self.gap_sq_sum / k - pm * pm).max(0.0).sqrt()),
            packets: self.gap_packets,
        })
    }
}

impl Endpoint for IftpSender {
    type In = IftpAck;
    type Out = IftpData;
    type Stats = IftpSenderStats;

    /// n and ssthresh of standard mode's bookkeeping (elaarag2002 §4), and the timer's terms.
    fn state(&self) -> AgentState {
        AgentState {
            cwnd_pkts: Some(self.window() as f64),
            ssthresh_pkts: Some(self.ssthresh() as f64),
            srtt: self.srtt(),
            // No estimate before the first sample, as srtt.
            rttvar: self.srtt().map(|_| self.rttvar()),
            rto: Some(self.rto()),
            ..AgentState::default()
        }
    }

    /// Starts sending. elaarag2002 §4: "The Internet friendly scheme starts by setting n to 1. It
    /// sends one packet and waits for its ACK to arrive to set the initial value of the round trip
    /// time". A restart after [`stop`](Self::stop) begins the same way; numbering continues.
    fn start(&mut self, now: Time) {
        let now = self.tick(now);
        if self.running || self.is_done() {
            self.advance(now);
            return;
        }
        self.running = true;
        self.n = 1;
        self.ssthresh = self.cfg.ssthresh;
        self.rtt = RttEstimator::new(self.cfg.initial_rto, self.cfg.max_backoff, self.cfg.min_rto);
        self.probe = None;
        self.loss_phase = None;
        self.reset_board();
        self.una = self.next;
        self.ack_count = 0;
        self.transmit_window(now, Begin::Fresh);
    }

    /// Stops sending and the timers; ACKs are still taken (for the statistics).
    fn stop(&mut self, now: Time) {
        self.tick(now);
        self.running = false;
        self.sweep_left = 0;
        self.rto_at = None;
    }

    /// An ACK: [`handle_ack`](IftpSender::handle_ack).
    fn handle(&mut self, now: Time, ack: &IftpAck, _arrival: Arrival) {
        self.handle_ack(now, ack);
    }

    /// Decodes one datagram: an ACK is handled, data is counted and ignored.
    fn handle_datagram(&mut self, now: Time, b: &[u8], _arrival: Arrival) -> Result<(), Malformed> {
        match Message::decode(b).map_err(Malformed::from)?.0 {
            Message::Ack(h) => {
                let ack = h.to_ack(self.next.saturating_sub(1), now.max(self.clock));
                self.handle_ack(now, &ack);
            }
            Message::Data(_) => self.stats.data_ignored += 1,
        }
        Ok(())
    }

    /// Fires the timer if it is due (elaarag2002 §4 timeout, Fig. 1's `Timeout:` routine).
    /// Also begins the next window when its boundary is due.
    fn handle_timeout(&mut self, now: Time) {
        let now = self.tick(now);
        self.fire_timer(now);
        self.advance(now);
    }

    /// The next data packet, if one is due.
    fn poll_transmit(&mut self, now: Time) -> Option<Transmit<IftpData>> {
        let now = self.tick(now);
        // A boundary due now begins its window here too (every call that moves the clock checks
        // it, which is what lets `poll_timeout` leave out a boundary already passed).
        self.advance(now);
        if !self.running || self.sweep_left == 0 || now < self.next_send || self.is_done() {
            return None;
        }
        let seq = self.next;
        self.next += 1; // Fig. 1: `next` is "always advancing forward".
        self.sweep_left -= 1;
        self.last_send = Some(now);
        self.first_send.get_or_insert(now);
        // "Pause (inter-packet gap)": the next start is G + tau after this one.
        self.next_send = now + self.gm + self.tau;
        self.stats.sent += 1;
        self.stats.bytes_sent += self.cfg.packet_size.0;
        if !self.gap_log.is_empty() {
            let g = self.gm.as_secs_f64();
            self.gap_sum += g;
            self.gap_sq_sum += g * g;
            self.gap_packets += 1;
        }
        if self.is_done() {
            self.finished_at = Some(now);
            self.sweep_left = 0;
        }
        self.arm_rto(now, false);
        // A boundary already due when the sweep ends (only where the gap's rounding puts it there).
        self.advance(now);
        let size = self.cfg.packet_size;
        let payload = Bytes(size.0.saturating_sub(HEADER_LEN as u64));
        Some(Transmit {
            size,
            payload,
            ect: false,
            tagged: false,
            msg: IftpData { flow: self.cfg.flow, seq, sent_at: whole_micros(now) },
        })
    }

    /// When to call [`handle_timeout`](Self::handle_timeout) or poll again: the earliest of the
    /// next packet's time (in the past while one is due), the end of the adjustment period while
    /// the sweep is over and the period is not (a boundary already passed waits for an ACK, not
    /// for time), and the timer.
    fn poll_timeout(&self) -> Option<Time> {
        if !self.running {
            return None;
        }
        let send = (self.sweep_left > 0).then_some(self.next_send);
        let boundary = self.period_end.filter(|&b| self.sweep_left == 0 && b > self.clock && !self.is_done());
        [send, boundary, self.rto_at].into_iter().flatten().min()
    }

    /// Writes `d` as it goes on the wire: the header, then zeros up to the packet size.
    fn stats(&self) -> IftpSenderStats {
        self.stats
    }

    fn encode(&self, t: &Transmit<IftpData>, out: &mut Vec<u8>) {
        let start = out.len();
        DataHeader::from_data(&t.msg).encode(out);
        out.resize(start + t.size.0 as usize, 0);
    }
}

/// Nanoseconds rounded to the nearest; below zero (or NaN) gives zero.
fn clamped_ns(x: f64) -> Dur {
    if x.is_nan() || x <= 0.0 {
        Dur::ZERO
    } else {
        Dur(x.round().min(u64::MAX as f64) as u64)
    }
}

fn bit(v: &[u64], i: u64) -> bool {
    v.get((i / 64) as usize).is_some_and(|w| w >> (i % 64) & 1 == 1)
}

fn set_bit(v: &mut [u64], i: u64) {
    if let Some(w) = v.get_mut((i / 64) as usize) {
        *w |= 1 << (i % 64);
    }
}
