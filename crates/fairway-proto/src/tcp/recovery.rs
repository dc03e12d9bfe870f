//! ACK processing of the ns-2 Tahoe, Reno and NewReno senders: new ACKs and RTT samples,
//! duplicate ACKs, fast retransmit (Tahoe: without fast recovery) and fast recovery (RFC 5681
//! §3.2), NewReno partial ACKs (RFC 6582 §3.2), and the ECN response (RFC 3168 §6.1.2).
//! (`tcp.cc` `recv()`, `newack()`, `recv_newack_helper()`, `dupack_action()`, `ecn()`;
//! `tcp-reno.cc` and `tcp-newreno.cc` `recv()` and `dupack_action()`.)

use fairway_core::Time;

use super::cc::Congestion;
use super::sender::{CwndAction, TcpSender};
use super::{TcpAck, TcpVariant};

impl TcpSender {
    /// ns-2 `ecn()`: RFC 3168 §6.1.2, at most one reduction per window of data, no
    /// retransmission.
    pub(super) fn ecn(&mut self, now: Time, seqno: i64) {
        if seqno > self.recover || self.last_action == CwndAction::Timeout {
            self.recover = self.maxseq;
            self.last_action = CwndAction::Ecn;
            if self.cwnd <= 1.0 {
                // ns-2: with cwnd already at one, a second ECN-Echo backs off the timer.
                if self.ecn_backoff {
                    self.rtt.back_off();
                } else {
                    self.ecn_backoff = true;
                }
            } else {
                self.ecn_backoff = false;
            }
            self.congestion(now, Congestion::Ecn);
            self.stats.ecn_reductions += 1;
        }
    }

    // ---- ACK processing -------------------------------------------------------------------

    /// ns-2 `newack()`: a new cumulative ACK; take an RTT sample if it covers the timed
    /// segment, then restart the timer (`timerfix_`).
    pub(super) fn newack(&mut self, now: Time, ack: &TcpAck) {
        self.dupacks = 0;
        self.highest_ack = ack.ackno;
        self.last_ack = ack.ackno;
        if self.t_seqno < ack.ackno + 1 {
            self.t_seqno = ack.ackno + 1;
        }
        if self.cfg.timestamps {
            self.ts_sample(now, ack);
        } else if self.rtt_active && ack.ackno >= self.rtt_seq {
            self.rtt_active = false;
            self.rtt_sample(now, ack, self.rtt_ts);
        }
        self.newtimer(now, ack.ackno);
    }

    /// RFC 7323 §4 (RTTM): with timestamps every ACK that acknowledges new data gives a
    /// sample, now less the TSval it echoes (the sink echoes by §4.3's rules: with delayed ACKs
    /// the earliest unacknowledged segment's, after a hole the segment that filled it). A
    /// retransmission carries a TSval of its own, so Karn's rule is not needed. The caller
    /// makes sure the ACK acknowledges new data.
    pub(super) fn ts_sample(&mut self, now: Time, ack: &TcpAck) {
        if ack.ts_echo <= now {
            self.rtt_sample(now, ack, ack.ts_echo);
        }
    }

    /// An RTT sample for a segment sent at `sent`: the estimator (RFC 6298 §2), the counters, and
    /// what the congestion control is told.
    fn rtt_sample(&mut self, now: Time, ack: &TcpAck, sent: Time) {
        // RFC 6298 §5.7 / Karn: a valid sample ends the backoff, unless ECN keeps cwnd at one
        // (ns-2 ecn_backoff_).
        if !self.ect || !self.ecn_backoff || !ack.ece {
            self.rtt.reset_backoff();
            self.ecn_backoff = false;
        }
        self.rtt.sample(now, sent);
        let sample = now - sent;
        self.stats.rtt_samples += 1;
        self.stats.rtt_sum_ns += sample.0;
        self.last_sample = Some(sample);
        self.min_rtt = Some(self.min_rtt.map_or(sample, |m| m.min(sample)));
    }

    /// ns-2 `recv_newack_helper()`.
    pub(super) fn recv_newack_helper(&mut self, now: Time, ack: &TcpAck) {
        let packets = (ack.ackno - self.highest_ack).max(1) as u64;
        self.recv_newack_delivered(now, ack, packets);
    }

    /// The same for an ACK that delivered `packets`: what the congestion control's growth
    /// counts (RFC 6675's sender: what the ACK newly delivered, not the packets it covers that
    /// were SACKed before).
    pub(super) fn recv_newack_delivered(&mut self, now: Time, ack: &TcpAck, packets: u64) {
        self.last_sample = None;
        self.newack(now, ack);
        // ns-2: an ACK carrying ECN-Echo does not open cwnd once the peer is known to echo.
        if !self.ect || !ack.ece {
            self.opencwnd(now, packets);
        }
        if self.ect && !ack.ece {
            self.ecn_backoff = false;
        }
        if !self.ect && ack.ece {
            self.ect = true;
        }
    }

    /// ns-2 `RenoTcpAgent::recv()`.
    pub(super) fn recv_reno(&mut self, now: Time, ack: &TcpAck) {
        let nd = self.numdupacks();
        if ack.ackno > self.highest_ack {
            // RFC 5681 §3.2 step 6: any new ACK ends fast recovery; deflate the window.
            if self.last_action == CwndAction::Dupack {
                self.last_action = CwndAction::Exited;
                self.recovery_end(now);
            }
            self.dupwnd = 0;
            self.recv_newack_helper(now, ack);
            if self.highest_ack == 0 && self.cfg.delay_growth {
                self.cwnd = self.initial_window();
            }
        } else if ack.ackno == self.highest_ack {
            self.on_dupack(now, nd);
        }
        // ns-2 (aggressive_maxburst_): even an old ACK may clock out data.
        if self.dupacks == 0 || self.dupacks > nd - 1 {
            self.send_much(now, self.cfg.max_burst);
        }
    }

    /// A duplicate ACK, alike in Reno and NewReno: fast retransmit at the `nd`th (RFC 5681 §3.2
    /// steps 1-3, via `dupack_action`), then one packet of window inflation per further one
    /// (step 4; RFC 6582 §3.2 step 4), and before the `nd`th a new packet if limited transmit is
    /// on (RFC 3042).
    fn on_dupack(&mut self, now: Time, nd: i64) {
        self.dupacks += 1;
        if self.dupacks == nd {
            self.dupack_action(now);
        } else if self.dupacks > nd && self.last_action == CwndAction::Dupack {
            self.dupwnd += 1;
        } else if self.dupacks < nd && self.cfg.limited_transmit {
            self.send_one(now);
        }
    }

    /// ns-2 `TcpAgent::recv()`, the Tahoe sender: no window inflation, and on the `nd`th
    /// duplicate the Tahoe action ([`dupack_action_tahoe`](Self::dupack_action_tahoe)).
    pub(super) fn recv_tahoe(&mut self, now: Time, ack: &TcpAck) {
        let nd = self.numdupacks();
        if ack.ackno > self.highest_ack {
            self.recv_newack_helper(now, ack);
            if self.highest_ack == 0 && self.cfg.delay_growth {
                self.cwnd = self.initial_window();
            }
        } else if ack.ackno == self.highest_ack {
            self.dupacks += 1;
            if self.dupacks == nd {
                self.dupack_action_tahoe(now);
            } else if self.dupacks < nd && self.cfg.limited_transmit {
                self.send_one(now);
            }
        }
        // ns-2: only an ACK not below the highest one clocks out data.
        if ack.ackno >= self.highest_ack {
            self.send_much(now, self.cfg.max_burst);
        }
    }

    /// ns-2 `TcpAgent::dupack_action()` (`bugFix_` on): unless the window was already reduced,
    /// ssthresh halves, cwnd returns to one packet and the sender goes back to the first
    /// unacknowledged packet (`reset_rtx_timer(0, 0)`), which the next `send_much` retransmits
    /// (RFC 5681 §3.2 steps 1-2, without fast recovery).
    pub(super) fn dupack_action_tahoe(&mut self, now: Time) {
        let recovered = self.highest_ack > self.recover;
        // ns-2 bugfix_ss_: allow it when only the SYN (packet 0) has been acknowledged.
        if recovered || self.highest_ack == 0 {
            self.recover = self.maxseq;
            self.last_action = CwndAction::Dupack;
            // Tahoe restarts from one packet after the cut.
            self.congestion(now, Congestion::Loss);
            self.cwnd = 1.0;
            self.reset_rtx_timer(now, false, false);
            self.stats.fast_retransmits += 1;
        } else if self.cfg.ecn && self.last_action == CwndAction::Ecn {
            // ns-2: ECN already halved this window: back to one packet without a second cut.
            self.last_action = CwndAction::Dupack;
            self.congestion(now, Congestion::Restart);
            self.reset_rtx_timer(now, false, false);
        }
        // Otherwise (bugFix_): no second fast retransmit in one window.
    }

    /// ns-2 `NewRenoTcpAgent::recv()`.
    pub(super) fn recv_newreno(&mut self, now: Time, ack: &TcpAck) {
        let nd = self.numdupacks();
        if ack.ackno > self.highest_ack {
            if ack.ackno >= self.recover || self.last_action != CwndAction::Dupack {
                // RFC 6582 §3.2 step 6, full acknowledgment: deflate the window to cwnd.
                // ns-2 (exit_recovery_fix_ 0) keeps cwnd as partial-ACK deflation left it,
                // where the RFC sets ssthresh or min(ssthresh, FlightSize + 1 packet).
                if self.dupwnd > 0 {
                    self.dupwnd = 0;
                    if self.last_action == CwndAction::Dupack {
                        self.last_action = CwndAction::Exited;
                        self.recovery_end(now);
                    }
                }
                self.firstpartial = false;
                self.recv_newack_helper(now, ack);
                if self.highest_ack == 0 && self.cfg.delay_growth {
                    self.cwnd = self.initial_window();
                }
            } else {
                if !self.cfg.partial_window_deflation {
                    self.dupwnd = 0;
                }
                self.partial_ack(now, ack);
            }
        } else if ack.ackno == self.highest_ack {
            self.on_dupack(now, nd);
        }
        if self.dupacks == 0 {
            self.send_much(now, self.cfg.max_burst);
        } else if self.dupacks > nd - 1 {
            // ns-2 newreno_changes_ 0: in recovery at most 2 packets per ACK.
            self.send_much(now, 2);
        }
    }

    /// ns-2 `partialnewack_helper()` + `partialnewack()`: RFC 6582 §3.2 step 5.
    pub(super) fn partial_ack(&mut self, now: Time, ack: &TcpAck) {
        if !self.cfg.newreno_impatient || !self.firstpartial {
            // RFC 6582 §4.1: the Impatient variant resets the timer on the first partial ACK
            // only.
            self.firstpartial = true;
            self.newtimer(now, ack.ackno);
        }
        if self.cfg.partial_window_deflation {
            // Deflate by the amount acknowledged, add back one packet.
            let deflate = ack.ackno - self.highest_ack;
            if self.dupwnd > deflate {
                self.dupwnd -= deflate - 1;
            } else {
                self.cwnd -= (deflate - self.dupwnd) as f64;
                // ns-2 keeps dupwnd > 0 as the "in fast recovery" flag.
                self.dupwnd = 1;
            }
            if self.cwnd < 1.0 {
                self.cwnd = 1.0;
            }
        }
        self.highest_ack = ack.ackno;
        if self.t_seqno < ack.ackno + 1 {
            self.t_seqno = ack.ackno + 1;
        }
        if self.cfg.timestamps {
            // RFC 7323 §4: the echoed TSval tells which transmission this ACK answers.
            self.ts_sample(now, ack);
        } else if self.rtt_active && ack.ackno >= self.rtt_seq {
            // ns-2: no sample (the ACK may be for a retransmission), but end the backoff.
            self.rtt_active = false;
            self.rtt.reset_backoff();
        }
        // Retransmit the first unacknowledged packet.
        self.stats.partial_ack_retransmits += 1;
        self.output(now, self.highest_ack + 1);
    }

    /// ns-2 `dupack_action()` of Reno and NewReno (`bugFix_` on): fast retransmit unless the
    /// duplicates are for a window already reduced (RFC 6582 §3.2 step 2 / §4.1 "careful").
    pub(super) fn dupack_action(&mut self, now: Time) {
        let recovered = self.highest_ack > self.recover;
        // Reno: ns-2 allow_fast_retransmit() when last action was a fast retransmit.
        let allow = self.cfg.variant == TcpVariant::Reno && self.last_action == CwndAction::Dupack;
        // ns-2 bugfix_ss_: allow it when only the SYN (packet 0) has been acknowledged.
        if recovered || allow || self.highest_ack == 0 {
            self.fast_retransmit(now);
            return;
        }
        if self.cfg.ecn && self.last_action == CwndAction::Ecn {
            // ns-2: ECN already cut cwnd for this window; retransmit without a second cut.
            self.last_action = CwndAction::Dupack;
            self.reset_rtx_timer(now, true, false);
            self.stats.fast_retransmits += 1;
            self.output(now, self.highest_ack + 1);
            self.dupwnd = self.numdupacks();
        }
        // Otherwise (bugFix_): no second fast retransmit in one window.
    }

    /// RFC 5681 §3.2 steps 2-3 as ns-2 does them ("reno_action").
    pub(super) fn fast_retransmit(&mut self, now: Time) {
        self.recover = self.maxseq;
        self.last_action = CwndAction::Dupack;
        self.congestion(now, Congestion::Loss);
        self.reset_rtx_timer(now, true, false);
        self.stats.fast_retransmits += 1;
        self.output(now, self.highest_ack + 1);
        // RFC 5681 §3.2 step 2: inflate by the three duplicates.
        self.dupwnd = self.numdupacks();
    }
}
