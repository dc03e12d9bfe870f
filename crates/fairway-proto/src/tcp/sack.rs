//! ACK processing and sending of ns-2's SACK sender, `Agent/TCP/Sack1` (`tcp-sack1.cc`), with
//! its defaults (`partial_ack_` off, `LimTransmitFix_` off, F-RTO off): loss recovery from the
//! receiver's SACK blocks (RFC 2018), as RFC 6675 later wrote it down, in ns-2's form:
//!
//! - a duplicate ACK counts only if its SACK blocks tell the sender something new;
//! - on the third, the window is cut as Reno cuts it (the congestion control's `Loss`), the
//!   first unacknowledged packet is resent, and recovery begins with `pipe`, ns-2's estimate
//!   of packets in flight, at `maxseq - highest_ack - 3`;
//! - in recovery every ACK takes one packet from `pipe` (a partial ACK two), and the sender
//!   sends while `pipe < cwnd`: first the holes below the highest SACKed packet
//!   ([`Scoreboard`](super::scoreboard::Scoreboard)), then new data within the receiver's
//!   window; each packet sent adds one to `pipe`;
//! - recovery ends with the ACK of everything sent before it began; the window is then what
//!   the cut left (no inflation to undo);
//! - after a timeout, duplicate ACKs are ignored until a new ACK arrives.
//!
//! ns-2 keeps `last_ack_` (the cumulative point the window slides from) apart from
//! `highest_ack_` here: a partial ACK in recovery moves only the latter.

use fairway_core::Time;

use super::cc::Congestion;
use super::sender::{CwndAction, TcpSender};
use super::TcpAck;

impl TcpSender {
    /// ns-2 `Sack1TcpAgent::recv()`, after the ECN response.
    pub(super) fn recv_sack(&mut self, now: Time, ack: &TcpAck) {
        let seqno = ack.ackno;
        let nd = self.numdupacks();
        if !self.fastrecov {
            if seqno > self.last_ack {
                self.firstpartial = false;
                self.recv_newack_helper(now, ack);
                self.sack_timeout = false;
                self.scoreboard.clear();
                if self.last_ack == 0 && self.cfg.delay_growth {
                    self.cwnd = self.initial_window();
                }
            } else if seqno == self.last_ack && !self.sack_timeout {
                self.scoreboard.update(self.highest_ack, &ack.sack);
                if self.scoreboard.changed() {
                    self.dupacks += 1;
                    if self.dupacks == nd {
                        self.dupack_action_sack(now);
                    } else if self.dupacks < nd && self.cfg.limited_transmit {
                        self.send_one(now);
                    }
                }
            }
            // ns-2 (aggressive_maxburst_): even an old ACK may clock out data.
            if self.dupacks == 0 {
                self.send_much(now, self.cfg.max_burst);
            }
        } else {
            self.pipe -= 1;
            if seqno >= self.recover {
                // Everything sent before the loss is acknowledged: recovery is over.
                self.recover = 0;
                self.fastrecov = false;
                self.recovery_end(now);
                self.newack(now, ack);
                self.sack_timeout = false;
                self.scoreboard.clear();
            } else if seqno > self.highest_ack {
                // A partial ACK: the cumulative point the window slides from stays.
                self.highest_ack = seqno;
                self.scoreboard.update(self.highest_ack, &ack.sack);
                // ns-2: one more packet leaves `pipe`, so that recovery never does worse than
                // slow start; the timer restarts and its backoff ends.
                self.pipe -= 1;
                self.newtimer(now, seqno);
                self.rtt.reset_backoff();
                if self.cfg.timestamps {
                    // RFC 7323 §4: a sample from every ACK of new data.
                    self.ts_sample(now, ack);
                }
            } else if !self.sack_timeout {
                self.scoreboard.update(self.highest_ack, &ack.sack);
                if self.scoreboard.changed() && self.dupacks > 0 {
                    self.dupacks += 1;
                }
            }
            self.send_much(now, self.cfg.max_burst);
        }
    }

    /// ns-2 `Sack1TcpAgent::dupack_action()` (`bugFix_` on): enter recovery unless the
    /// duplicates are for a window already cut.
    fn dupack_action_sack(&mut self, now: Time) {
        let recovered = self.highest_ack > self.recover;
        // ns-2 bugfix_ss_: allow it when only the SYN (packet 0) has been acknowledged.
        if recovered || self.highest_ack == 0 {
            self.recover = self.maxseq;
            self.enter_sack_recovery(now);
            self.last_action = CwndAction::Dupack;
            self.congestion(now, Congestion::Loss);
            self.stats.fast_retransmits += 1;
            self.output(now, self.last_ack + 1);
        } else if self.cfg.ecn && self.last_action == CwndAction::Ecn {
            // ns-2: ECN already cut this window; recover without a second cut.
            self.last_action = CwndAction::Dupack;
            self.enter_sack_recovery(now);
            self.stats.fast_retransmits += 1;
            self.output(now, self.last_ack + 1);
        }
        // Otherwise (bugFix_): no second fast retransmit in one window.
    }

    /// Recovery begins: `pipe` counts what is outstanding less the three duplicates' packets,
    /// which have left the network (ns-2's third choice, for a data-limited sender too).
    fn enter_sack_recovery(&mut self, now: Time) {
        self.pipe = self.maxseq - self.highest_ack - self.numdupacks();
        self.reset_rtx_timer(now, true, false);
        self.fastrecov = true;
        self.scoreboard.mark_retransmitted(self.highest_ack + 1);
    }

    /// ns-2 `Sack1TcpAgent::send_much()`: outside recovery as much as the window allows from
    /// `last_ack`; in recovery while `pipe < cwnd`. Holes first, then new data; a hole is
    /// resent only in recovery and within the receiver's window.
    pub(super) fn send_much_sack(&mut self, now: Time, maxburst: u32) {
        let mut win = self.win();
        let wnd = self.cfg.window as i64;
        let mut n = 0u32;
        loop {
            let open = if self.fastrecov {
                self.pipe < self.cwnd as i64
            } else {
                self.t_seqno <= self.last_ack.saturating_add(win)
            };
            if !open || self.last_ack + 1 >= self.curseq {
                break;
            }
            // Pacing (a BBR draft §4.2.1 release time) may hold the next segment back.
            if self.pacing_holds(now) {
                break;
            }
            let xmit = match self.scoreboard.next_retransmit() {
                None => {
                    let room = if self.fastrecov { wnd } else { win };
                    if self.t_seqno <= self.highest_ack.saturating_add(room) && self.t_seqno < self.curseq {
                        let s = self.t_seqno;
                        self.t_seqno += 1;
                        Some(s)
                    } else {
                        None
                    }
                }
                Some(s) if self.recover > 0 && s <= self.highest_ack + wnd => {
                    self.scoreboard.mark_retransmitted(s);
                    win = self.win();
                    Some(s)
                }
                Some(_) => None,
            };
            let Some(s) = xmit else { break };
            self.output(now, s);
            if self.t_seqno <= s {
                self.t_seqno = s + 1;
            }
            n += 1;
            self.pipe += 1;
            if maxburst > 0 && n == maxburst {
                break;
            }
        }
    }

    /// Sack1's part of a retransmission timeout, before the common one: recovery ends, the
    /// scoreboard is forgotten, and duplicate ACKs are ignored until a new ACK.
    pub(super) fn sack_on_timeout(&mut self) {
        self.dupacks = 0;
        self.fastrecov = false;
        self.sack_timeout = true;
        if self.highest_ack > self.last_ack {
            self.last_ack = self.highest_ack;
        }
        self.recover = self.maxseq;
        self.scoreboard.clear();
    }
}
