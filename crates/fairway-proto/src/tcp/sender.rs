//! The one-way Tahoe / Reno / NewReno sender of ns-2 2.35 (`tcp.cc`, `tcp-reno.cc`,
//! `tcp-newreno.cc`).
//!
//! State names follow ns-2 so the code can be read against it: `t_seqno` (next to send),
//! `highest_ack`, `last_ack` (equal to it here), `maxseq` (highest sent), `curseq` (what the
//! application has supplied), `recover`, `dupacks`, `dupwnd` (Reno window inflation).

use std::collections::VecDeque;

use fairway_core::{Bytes, Dur, Rng, Time};

use super::cc::{Acked, AtCongestion, Congestion, CongestionControl, Window};
use super::rack::Rack;
use super::rate::RateSampler;
use super::rfc6675::Rfc6675;
use super::rtt::RttEstimator;
use super::scoreboard::Scoreboard;
use super::{SackRecovery, TcpAck, TcpConfig, TcpSegment, TcpVariant};

/// "Unlimited" application data (ns-2 uses `TCP_MAXSEQ` = 2^30 for `send -1`; this is larger
/// so a long run never reaches it).
const UNLIMITED: i64 = i64::MAX / 4;

/// Why cwnd last changed (ns-2 `last_cwnd_action_`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CwndAction {
    None,
    Dupack,
    Timeout,
    Ecn,
    /// Recovery ended (was `Dupack`).
    Exited,
}

/// Counters, named after what they count (ns-2's names in the field docs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TcpSenderStats {
    /// Packets handed to the network, retransmissions and the SYN included (`ndatapack_`).
    pub segments_sent: u64,
    /// Bytes on the wire of those packets.
    pub bytes_sent: u64,
    /// Packets whose sequence number had been sent before (`nrexmitpack_`).
    pub retransmits: u64,
    /// Retransmission timeouts with data outstanding (`nrexmit_`).
    pub timeouts: u64,
    /// Fast retransmits (each entry into fast recovery).
    pub fast_retransmits: u64,
    /// NewReno retransmissions on partial ACKs.
    pub partial_ack_retransmits: u64,
    /// Window reductions on ECN-Echo (`necnresponses_`).
    pub ecn_reductions: u64,
    /// ACKs processed (`nackpack_`).
    pub acks_received: u64,
    /// ACKs ignored because they acknowledge data never sent.
    pub acks_ignored: u64,
    /// RTT samples taken (one timed segment per round trip, Karn's rule) and their sum, ns.
    pub rtt_samples: u64,
    pub rtt_sum_ns: u64,
}

/// A TCP Reno or NewReno sender: ns-2's one-way `Agent/TCP/Reno` / `Agent/TCP/Newreno`.
#[derive(Debug, Clone)]
pub struct TcpSender {
    pub(super) cfg: TcpConfig,
    /// Next sequence number to send (`t_seqno_`).
    pub(super) t_seqno: i64,
    /// One past the last packet the application supplied (`curseq_`).
    pub(super) curseq: i64,
    /// Highest cumulative ACK (`highest_ack_`).
    pub(super) highest_ack: i64,
    /// The cumulative ACK the window slides from (`last_ack_`): equal to `highest_ack` but in
    /// the SACK sender's recovery, where partial ACKs move only `highest_ack`.
    pub(super) last_ack: i64,
    /// Highest sequence number sent (`maxseq_`).
    pub(super) maxseq: i64,
    /// `maxseq` when cwnd was last cut (`recover_`).
    pub(super) recover: i64,
    pub(super) dupacks: i64,
    /// Reno window inflation during fast recovery (`dupwnd_`).
    pub(super) dupwnd: i64,
    pub(super) cwnd: f64,
    /// Whole packets in ns-2's AIMD family (`TracedInt ssthresh_`).
    pub(super) ssthresh: f64,
    /// How the window grows and is cut (cc/).
    pub(super) cc: Box<dyn CongestionControl>,
    /// `windowInit_`, lowered to 1 if the first packet is lost.
    pub(super) wnd_init: u32,
    pub(super) last_action: CwndAction,
    /// Set CWR on the next packet (`cong_action_`).
    pub(super) cong_action: bool,
    /// The peer has echoed ECN (`ect_`).
    pub(super) ect: bool,
    /// `ecn_backoff_`: back off the timer on a further ECN-Echo while cwnd <= 1.
    pub(super) ecn_backoff: bool,
    /// NewReno: the first partial ACK of this recovery has been seen (`firstpartial_`).
    pub(super) firstpartial: bool,
    /// SACK (sack.rs): in recovery (`fastrecov_`), its estimate of packets in flight
    /// (`pipe_`), a timeout since the last new ACK (`timeout_`), and the scoreboard.
    pub(super) fastrecov: bool,
    pub(super) pipe: i64,
    pub(super) sack_timeout: bool,
    pub(super) scoreboard: Scoreboard,
    /// RFC 6675 recovery's state (rfc6675.rs), for a SACK sender that runs it.
    pub(super) r6675: Option<Box<Rfc6675>>,
    /// RACK-TLP's state (rack.rs), for an RFC 6675 sender with `rack`; its reordering timer
    /// and its probe timer (PTO); new data sent since the probe timer was last considered.
    pub(super) rack: Option<Box<Rack>>,
    pub(super) reo_deadline: Option<Time>,
    pub(super) pto_deadline: Option<Time>,
    pub(super) tlp_new_sent: bool,
    pub(super) rtt: RttEstimator,
    /// One segment per RTT is timed (`rtt_active_`, `rtt_seq_`, `rtt_ts_`).
    pub(super) rtt_active: bool,
    pub(super) rtt_seq: i64,
    pub(super) rtt_ts: Time,
    /// The RTT sample the last new ACK gave, and the smallest so far (for the algorithm).
    pub(super) last_sample: Option<Dur>,
    pub(super) min_rtt: Option<Dur>,
    pub(super) rtx_deadline: Option<Time>,
    /// The retransmission timer as ns-2 keeps it while nothing is outstanding: it fires every
    /// RTO, each time from `.0` on by `.1`, for as long as the sender stays idle. Disarmed here
    /// after a firing that finds the sender idle with nothing to send (`on_rtx_timeout`), and
    /// set again at the series' next firing by any ACK or offer that comes while it is off
    /// ([`idle_rearm`](Self::idle_rearm)).
    pub(super) idle_rtx: Option<(Time, Dur)>,
    /// ns-2's delayed-send timer (`delsnd_timer_`), running while new data waits out its
    /// random `overhead`.
    pub(super) delsnd_deadline: Option<Time>,
    /// Draws the `overhead` delays; untouched when `overhead` is 0.
    pub(super) rng: Rng,
    /// Delivery-rate estimation (rate.rs), only for an algorithm that asks for it.
    pub(super) rate: Option<Box<RateSampler>>,
    /// Pacing, for an algorithm with a pacing rate: the earliest time the next segment may
    /// leave, and the timer armed for it while the window would allow a segment that pacing
    /// holds back.
    pub(super) pace_next: Time,
    pub(super) pace_deadline: Option<Time>,
    pub(super) out: VecDeque<TcpSegment>,
    pub(super) stats: TcpSenderStats,
}

impl TcpSender {
    /// A sender in ns-2's post-`reset()` state: nothing sent, cwnd 1 if `syn` and
    /// `delay_growth` else `window_init`, ssthresh = `window` unless configured; the congestion
    /// control `cfg.cc` names (ns-2's AIMD window for a name not registered).
    pub fn new(cfg: TcpConfig) -> TcpSender {
        let cc = match super::cc::algorithm(cfg.cc) {
            Some(a) => (a.build)(&cfg),
            None => Box::new(super::cc::aimd::Aimd::new(&cfg)),
        };
        TcpSender::with_cc(cfg, cc)
    }

    /// The same with congestion control `cc`.
    pub fn with_cc(cfg: TcpConfig, cc: Box<dyn CongestionControl>) -> TcpSender {
        let rtt = RttEstimator::new(cfg.tick, cfg.tick_phase, cfg.min_rto, cfg.max_rto, cfg.initial_rto)
            .with_style(cfg.rto_style);
        let r6675 = (cfg.variant == TcpVariant::Sack && cfg.sack_recovery == SackRecovery::Rfc6675)
            .then(|| Box::new(Rfc6675::new()));
        let rack = (r6675.is_some() && cfg.rack).then(|| Box::new(Rack::new()));
        let ssthresh = cfg.initial_ssthresh.unwrap_or(cfg.window) as f64;
        let cwnd = if cfg.syn && cfg.delay_growth { 1.0 } else { cfg.window_init as f64 };
        let rng = Rng::from_seed(cfg.overhead_seed);
        let rate = cc.wants_rate_samples().then(Box::default);
        TcpSender {
            wnd_init: cfg.window_init,
            cfg,
            t_seqno: 0,
            curseq: 0,
            highest_ack: -1,
            last_ack: -1,
            maxseq: -1,
            recover: 0,
            dupacks: 0,
            dupwnd: 0,
            cwnd,
            ssthresh,
            cc,
            last_action: CwndAction::None,
            cong_action: false,
            ect: false,
            ecn_backoff: false,
            firstpartial: false,
            fastrecov: false,
            // ns-2's Sack1 starts it at -1 (unused outside recovery); RFC 6675's sends by it.
            pipe: if r6675.is_some() { 0 } else { -1 },
            sack_timeout: false,
            scoreboard: Scoreboard::new(),
            r6675,
            rack,
            reo_deadline: None,
            pto_deadline: None,
            tlp_new_sent: false,
            rtt,
            rtt_active: false,
            rtt_seq: -1,
            rtt_ts: Time::ZERO,
            last_sample: None,
            min_rtt: None,
            rtx_deadline: None,
            idle_rtx: None,
            delsnd_deadline: None,
            rng,
            rate,
            pace_next: Time::ZERO,
            pace_deadline: None,
            out: VecDeque::new(),
            stats: TcpSenderStats::default(),
        }
    }

    /// Application data: `None` = unlimited (ns-2 FTP `start`, `send -1`); `Some(n)` = `n`
    /// more packets (ns-2 `advanceby n`; the first call is `advance n`). With `syn`, packet 0
    /// is the SYN and data packets are 1..=n.
    pub fn send(&mut self, now: Time, packets: Option<u64>) {
        match packets {
            None => self.curseq = self.curseq.max(UNLIMITED),
            Some(n) => {
                let n = n.min(UNLIMITED as u64) as i64;
                self.curseq = self.curseq.saturating_add(n).min(UNLIMITED.saturating_mul(2));
            }
        }
        self.send_much(now, self.cfg.max_burst);
        self.tlp_rearm(now, false);
        self.idle_rearm(now);
    }

    /// The application stops offering data (a flow's `stop` time): packets not yet sent are
    /// withdrawn; those already sent are still delivered, retransmitted if lost. Once they are
    /// all acknowledged [`is_done`](Self::is_done) turns true.
    pub fn stop(&mut self, _now: Time) {
        self.curseq = self.curseq.min(self.maxseq.saturating_add(1));
    }

    /// An ACK arrived (ns-2 `RenoTcpAgent::recv` / `NewRenoTcpAgent::recv`).
    pub fn on_ack(&mut self, now: Time, ack: &TcpAck) {
        let seqno = ack.ackno;
        // Not in ns-2: an ACK for data never sent (or below -1) would corrupt the state.
        if seqno < -1 || seqno > self.maxseq {
            self.stats.acks_ignored += 1;
            return;
        }
        self.stats.acks_received += 1;
        // Delivery-rate estimation counts what the ACK delivered before recovery changes the
        // state (rate.rs); its sample goes to the algorithm before the sender sends.
        if self.rate.is_some() {
            self.rate_on_ack(now, ack);
        }
        // ns-2 tcp.cc recv(): the ECN response comes before the ACK is processed.
        if ack.ece && self.cfg.ecn {
            self.ecn(now, seqno);
        }
        match self.cfg.variant {
            TcpVariant::Tahoe => self.recv_tahoe(now, ack),
            TcpVariant::Reno => self.recv_reno(now, ack),
            TcpVariant::NewReno => self.recv_newreno(now, ack),
            TcpVariant::Sack if self.r6675.is_some() => self.recv_6675(now, ack),
            TcpVariant::Sack => self.recv_sack(now, ack),
        }
        // An ACK after which the sender sent nothing still hands over its sample.
        self.rate_flush(now);
        self.idle_rearm(now);
    }

    /// A timer fired: the delayed send of `overhead` (ns-2 `timeout_nonrtx`, which sends what
    /// the window allows), the pacing timer (what pacing held back may go), then the
    /// retransmission timer (ns-2 `RenoTcpAgent::timeout` then `TcpAgent::timeout`). Each is
    /// ignored unless armed and due.
    pub fn on_timeout(&mut self, now: Time) {
        if self.delsnd_deadline.is_some_and(|d| d <= now) {
            self.delsnd_deadline = None;
            self.send_much_forced(now, self.cfg.max_burst, true);
        }
        if self.pace_deadline.is_some_and(|d| d <= now) {
            self.pace_deadline = None;
            self.send_much(now, self.cfg.max_burst);
        }
        if self.rack.is_some() {
            if self.reo_deadline.is_some_and(|d| d <= now) {
                self.reo_deadline = None;
                self.rack_reo_timeout(now);
            }
            if self.pto_deadline.is_some_and(|d| d <= now) {
                self.pto_deadline = None;
                self.tlp_send_probe(now);
            }
        }
        self.on_rtx_timeout(now);
        self.tlp_rearm(now, false);
    }

    fn on_rtx_timeout(&mut self, now: Time) {
        match self.rtx_deadline {
            Some(d) if d <= now => {}
            _ => return,
        }
        self.rtx_deadline = None;
        let rfc6675 = self.r6675.is_some();
        let t_seqno = self.t_seqno;
        if rfc6675 {
            self.on_timeout_6675(now);
        } else if self.cfg.variant == TcpVariant::Sack {
            self.sack_on_timeout();
        }
        // tcp-reno.cc timeout(): leave fast recovery. ns-2's Tahoe (tcp.cc timeout()) keeps its
        // duplicate count. Both: bugFix_, no fast retransmit for losses of the window in flight.
        if self.cfg.variant != TcpVariant::Tahoe {
            self.dupwnd = 0;
            self.dupacks = 0;
        }
        self.recover = self.maxseq;
        if self.cwnd < 1.0 {
            self.cwnd = 1.0;
        }
        // slow_start_restart_ is true: the branch ns-2 takes even when idle.
        if self.highest_ack == -1 && self.wnd_init > 1 {
            // ns-2 bugfix_ss_: the first packet was lost, use an initial window of 1.
            self.wnd_init = 1;
        }
        let idle = self.highest_ack == self.maxseq;
        if idle {
            // ns-2 restart_bugfix_: nothing outstanding, so no ssthresh cut, no backoff.
            self.congestion(now, Congestion::Restart);
        } else if self.highest_ack < self.recover && self.last_action == CwndAction::Ecn {
            // ns-2: already reduced by ECN in this window: cwnd to 1 without a second cut.
            self.congestion(now, Congestion::Restart);
        } else {
            self.stats.timeouts += 1;
            self.last_action = CwndAction::Timeout;
            // RFC 5681 §3.1 eq. (4) and "LW = 1" (ns-2 `wnd_restart_` = 1).
            self.congestion(now, Congestion::Timeout);
        }
        // RFC 6298 §5.5-5.6: back off and restart the timer; go back N (ns-2 `t_seqno_ =
        // highest_ack_ + 1`, resend from the first unacknowledged packet).
        self.reset_rtx_timer(now, false, !idle);
        if rfc6675 {
            // RFC 6675 §5.1 (rfc6675.rs): no going back N; what the scoreboard holds lost is
            // resent first.
            self.after_timeout_6675(now, t_seqno);
        }
        self.last_action = CwndAction::Timeout;
        self.send_much(now, self.cfg.max_burst);
        if idle && self.highest_ack == self.maxseq && self.out.is_empty() {
            // ns-2 re-arms the timer and fires it again every RTO for as long as the sender
            // is idle. A firing changes nothing until an input does: a send re-arms the timer
            // anyway (output() forces it when nothing is outstanding), and an ACK or an offer
            // that sends nothing (an ECN-Echo may have taken cwnd below one packet, which only
            // a firing restores) sets it again where ns-2's series has it. So it is off
            // meanwhile.
            self.idle_rtx = self.rtx_deadline.map(|d| (now, d - now));
            self.rtx_deadline = None;
        }
    }

    /// After an input: if the retransmission timer is off for an idle sender, it is set at
    /// the next firing of ns-2's series, after `now` (see `idle_rtx`).
    fn idle_rearm(&mut self, now: Time) {
        if self.rtx_deadline.is_some() {
            return;
        }
        if let Some((from, every)) = self.idle_rtx.take() {
            let k = (now - from).0 / every.0.max(1) + 1;
            self.rtx_deadline = Some(from + Dur(every.0.max(1).saturating_mul(k)));
        }
    }

    /// The next packet to put on the wire.
    pub fn poll_transmit(&mut self, _now: Time) -> Option<TcpSegment> {
        self.out.pop_front()
    }

    /// The earliest armed timer: the retransmission timer, the delayed send of `overhead`, the
    /// pacing timer, RACK's reordering timer or TLP's probe timer.
    pub fn poll_timeout(&self) -> Option<Time> {
        [self.delsnd_deadline, self.pace_deadline, self.reo_deadline, self.pto_deadline].into_iter().fold(
            self.rtx_deadline,
            |d, x| match (d, x) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
        )
    }

    /// A finite transfer is fully acknowledged (ns-2 calls `finish` at this point).
    pub fn is_done(&self) -> bool {
        self.curseq < UNLIMITED && self.highest_ack >= self.curseq - 1
    }

    pub fn stats(&self) -> TcpSenderStats {
        self.stats
    }

    /// Congestion window in packets, without fast-recovery inflation (ns-2 `cwnd_`).
    pub fn cwnd(&self) -> f64 {
        self.cwnd
    }

    pub fn ssthresh(&self) -> f64 {
        self.ssthresh
    }

    /// Its congestion control.
    pub fn cc(&self) -> &dyn CongestionControl {
        self.cc.as_ref()
    }

    /// Smoothed RTT (tick-granular), once there is a sample.
    pub fn srtt(&self) -> Option<Dur> {
        self.rtt.srtt()
    }

    /// RTT variation estimate.
    pub fn rttvar(&self) -> Dur {
        self.rtt.rttvar()
    }

    /// The last RTT sample, in whole ticks (ns-2 `rtt_`).
    pub fn last_rtt(&self) -> Dur {
        self.rtt.last_sample()
    }

    /// The RTO the timer would be armed with now, backoff included.
    pub fn rto(&self) -> Dur {
        self.rtt.timeout()
    }

    /// The window, threshold and timer's terms, for traces.
    pub fn state(&self) -> crate::AgentState {
        crate::AgentState {
            cwnd_pkts: Some(self.cwnd),
            ssthresh_pkts: Some(self.ssthresh()),
            srtt: self.srtt(),
            // Before the first sample rttvar holds ns-2's `rttvar_init_` (12 s), which the
            // first sample replaces unread: no estimate yet, as srtt.
            rttvar: self.srtt().map(|_| self.rttvar()),
            rto: Some(self.rto()),
            ..Default::default()
        }
    }

    /// The RTO backoff multiplier (ns-2 `backoff_`).
    pub fn backoff(&self) -> u64 {
        self.rtt.backoff()
    }

    /// The usable window in packets: `min(int(cwnd) + dupwnd, window)`.
    pub fn window(&self) -> u64 {
        self.win().max(0) as u64
    }

    /// Highest cumulative ACK received, -1 before any (ns-2 `ack_`).
    pub fn highest_ack(&self) -> i64 {
        self.highest_ack
    }

    /// Highest sequence number sent, -1 before any (ns-2 `maxseq_`).
    pub fn max_seq_sent(&self) -> i64 {
        self.maxseq
    }

    /// Packets sent and not yet cumulatively acknowledged.
    pub fn outstanding(&self) -> u64 {
        (self.maxseq - self.highest_ack).max(0) as u64
    }

    /// In fast recovery (after a fast retransmit, until a new ACK ends it).
    pub fn in_recovery(&self) -> bool {
        match self.cfg.variant {
            TcpVariant::Sack => self.fastrecov,
            _ => self.last_action == CwndAction::Dupack,
        }
    }

    pub fn config(&self) -> &TcpConfig {
        &self.cfg
    }

    /// PRR's bound when PRR sets the window in recovery and cwnd = ssthresh ends it: PRR is on
    /// and the congestion control does not set the window itself.
    pub(super) fn prr_window(&self) -> Option<crate::tcp::PrrBound> {
        self.cfg.prr.filter(|_| !self.cc.sets_own_window())
    }

    // ---- windows ----------------------------------------------------------------------

    pub(super) fn numdupacks(&self) -> i64 {
        self.cfg.dupack_thresh as i64
    }

    pub(super) fn wnd(&self) -> f64 {
        self.cfg.window as f64
    }

    /// ns-2 `RenoTcpAgent::window()`: integer cwnd plus inflation, capped by `window_`.
    pub(super) fn win(&self) -> i64 {
        ((self.cwnd as i64) + self.dupwnd).min(self.cfg.window as i64)
    }

    /// ns-2 `RenoTcpAgent::windowd()`: the same, unrounded.
    pub(super) fn windowd(&self) -> f64 {
        (self.cwnd + self.dupwnd as f64).min(self.wnd())
    }

    pub(super) fn initial_window(&self) -> f64 {
        self.wnd_init as f64
    }

    // ---- sending ------------------------------------------------------------------------

    /// ns-2 `send_much()`: send while `t_seqno <= highest_ack + window` and data remain.
    pub(super) fn send_much(&mut self, now: Time, maxburst: u32) {
        self.send_much_forced(now, maxburst, false);
    }

    /// ns-2 `send_much(force, ...)`: with `overhead`, an unforced call that finds the window open
    /// arms the delayed send at a uniform random time in [0, overhead) and sends nothing; the
    /// delayed send, when it fires, is forced and sends all the window allows. While it is
    /// pending, unforced calls send nothing.
    fn send_much_forced(&mut self, now: Time, maxburst: u32, force: bool) {
        // The ACK being processed (if any) hands its rate sample to the algorithm now: after
        // loss recovery has seen the ACK, before anything is sent (Linux's order).
        self.rate_flush(now);
        if !force && self.delsnd_deadline.is_some() {
            return;
        }
        // Re-armed below if pacing still holds a segment back.
        self.pace_deadline = None;
        if self.r6675.is_some() {
            self.send_much_6675(now, maxburst, force);
            self.rate_check_app_limited();
            return;
        }
        if self.cfg.variant == TcpVariant::Sack {
            let open = if self.fastrecov {
                self.pipe < self.cwnd as i64
            } else {
                self.t_seqno <= self.last_ack.saturating_add(self.win())
            };
            if !(force || self.cfg.overhead.is_zero()) && open && self.last_ack + 1 < self.curseq {
                self.delsnd_deadline = Some(now + Dur(self.rng.below(self.cfg.overhead.0)));
                return;
            }
            self.send_much_sack(now, maxburst);
            self.rate_check_app_limited();
            return;
        }
        let mut win = self.win();
        let mut n = 0u32;
        while self.t_seqno <= self.highest_ack.saturating_add(win) && self.t_seqno < self.curseq {
            if !(force || self.cfg.overhead.is_zero()) {
                // ns-2 `Random::uniform(overhead_)`, on the nanosecond grid.
                self.delsnd_deadline = Some(now + Dur(self.rng.below(self.cfg.overhead.0)));
                return;
            }
            if self.pacing_holds(now) {
                break;
            }
            self.output(now, self.t_seqno);
            n += 1;
            self.t_seqno += 1;
            win = self.win();
            if maxburst > 0 && n == maxburst {
                break;
            }
        }
        self.rate_check_app_limited();
    }

    /// draft-cardwell-iccrg-bbr-congestion-control-00 §4.2.1: a paced segment may not leave
    /// before the previous one's release plus its size over the pacing rate; if it would, arm the
    /// pacing timer for that time. (Never true without a pacing rate: `pace_next` stays 0.)
    pub(super) fn pacing_holds(&mut self, now: Time) -> bool {
        if self.pace_next > now && self.cc.pacing_rate().is_some() {
            self.pace_deadline = Some(self.pace_next);
            return true;
        }
        false
    }

    /// ns-2 `send_one()`: RFC 3042 limited transmit on the first duplicate ACKs, allowing
    /// `cwnd + dupacks` (unrounded) beyond the cumulative ACK.
    pub(super) fn send_one(&mut self, now: Time) {
        if (self.t_seqno as f64) <= self.highest_ack as f64 + self.wnd()
            && self.t_seqno < self.curseq
            && (self.t_seqno as f64) <= self.highest_ack as f64 + self.cwnd + self.dupacks as f64
        {
            self.output(now, self.t_seqno);
            self.t_seqno += 1;
        }
    }

    /// ns-2 `output()`: emit packet `seqno`, time it if it is new and nothing is being timed,
    /// and make sure the retransmission timer runs.
    pub(super) fn output(&mut self, now: Time, seqno: i64) {
        let retransmit = seqno <= self.maxseq;
        let syn = seqno == 0 && self.cfg.syn;
        let size = if syn {
            self.cfg.header_size
        } else if seqno == 0 {
            // ns-2 output(): packet 0 never gets the header added, SYN or not.
            self.cfg.packet_size
        } else {
            Bytes(self.cfg.packet_size.0.saturating_add(self.cfg.header_size.0))
        };
        if syn && self.maxseq == -1 {
            // ns-2: the SYN takes a sequence number of its own, so the data still fit.
            self.curseq = self.curseq.saturating_add(1);
        }
        // ns-2: CWR goes on the next packet after a reduction, retransmissions included
        // (SetCWRonRetransmit_); RFC 3168 §6.1.2.
        let cwr = std::mem::take(&mut self.cong_action);
        // ns-2 sets ECT on every data packet when ecn_ is on, retransmissions included
        // (RFC 3168 §6.1.5 says not on retransmissions); packet 0 (the SYN) carries ECE
        // instead (§6.1.1), in ns-2 even when it is not a SYN.
        let ect = self.cfg.ecn && seqno != 0;
        let ece = self.cfg.ecn && seqno == 0;
        // ns-2: with nothing outstanding the timer is (re)started even if pending.
        let force_timer = self.highest_ack == self.maxseq;
        // §4.2.1 of the BBR draft: next_send_time = release + size / pacing_rate. Forced sends
        // (fast and partial-ACK retransmissions, limited transmit) are not held back, but they
        // use up the pacing budget as every segment does.
        if let Some(rate) = self.cc.pacing_rate() {
            self.pace_next = self.pace_next.max(now) + rate.tx_time(size);
        }
        if self.rate.is_some() {
            self.rate_on_send(now, seqno, force_timer);
        }
        if let Some(k) = self.rack.as_deref_mut() {
            // RFC 8985 §6.1: the packet's transmit time.
            k.on_send(now, seqno);
            self.tlp_new_sent |= seqno > self.maxseq;
        }
        self.out.push_back(TcpSegment { seq: seqno.max(0) as u64, size, ect, cwr, ece, syn, retransmit, sent_at: now });
        self.stats.segments_sent += 1;
        self.stats.bytes_sent += size.0;
        if seqno > self.maxseq {
            self.maxseq = seqno;
            // Karn: only new data is timed, one segment at a time (RFC 6298 §3).
            if !self.rtt_active {
                self.rtt_active = true;
                if seqno > self.rtt_seq {
                    self.rtt_seq = seqno;
                    self.rtt_ts = now;
                }
            }
        } else {
            self.stats.retransmits += 1;
        }
        // RFC 6298 §5.1: start the timer if it is not running.
        if self.rtx_deadline.is_none() || force_timer {
            self.set_rtx_timer(now);
        }
    }

    // ---- timer --------------------------------------------------------------------------

    pub(super) fn set_rtx_timer(&mut self, now: Time) {
        self.rtx_deadline = Some(now + self.rtt.timeout());
        self.idle_rtx = None;
    }

    /// ns-2 `reset_rtx_timer(mild, backoff)`: optionally back off, restart the timer, and
    /// unless `mild` go back to the first unacknowledged packet. Stops RTT timing (Karn).
    pub(super) fn reset_rtx_timer(&mut self, now: Time, mild: bool, backoff: bool) {
        if backoff {
            self.rtt.back_off();
        }
        self.set_rtx_timer(now);
        if !mild {
            self.t_seqno = self.highest_ack + 1;
        }
        self.rtt_active = false;
    }

    /// ns-2 `newtimer()` after a new ACK. `t_seqno > ackno` always holds by then, so this
    /// restarts the timer (RFC 6298 §5.3) even when everything is acknowledged.
    pub(super) fn newtimer(&mut self, now: Time, ackno: i64) {
        if self.t_seqno > ackno || ackno < self.maxseq || self.cwnd < 1.0 {
            self.set_rtx_timer(now);
        } else {
            self.rtx_deadline = None;
            self.idle_rtx = None;
        }
    }

    // ---- congestion window ----------------------------------------------------------------

    /// ns-2 `opencwnd()`: a new ACK outside recovery grows the window as the algorithm says.
    pub(super) fn opencwnd(&mut self, now: Time, packets: u64) {
        let acked = Acked {
            packets,
            rtt: self.last_sample,
            min_rtt: self.min_rtt,
            srtt: self.rtt.srtt(),
            in_flight: self.outstanding(),
            highest_ack: self.highest_ack,
            snd_nxt: self.maxseq + 1,
        };
        let mut w = Window { cwnd: self.cwnd, ssthresh: self.ssthresh };
        self.cc.on_ack(now, &acked, &mut w);
        self.cwnd = w.cwnd;
        self.ssthresh = w.ssthresh;
    }

    /// Fast recovery ended: the algorithm may restore its window (BBR does).
    pub(super) fn recovery_end(&mut self, now: Time) {
        let mut w = Window { cwnd: self.cwnd, ssthresh: self.ssthresh };
        self.cc.on_recovery_end(now, &mut w);
        self.cwnd = w.cwnd;
        self.ssthresh = w.ssthresh;
    }

    /// ns-2 `slowdown()`: the algorithm cuts the threshold (and for a loss or ECN the window);
    /// after a timeout or a restart the window is one packet (RFC 5681 §3.1's loss window).
    /// Every call changes the window, so the next packet carries CWR.
    pub(super) fn congestion(&mut self, now: Time, event: Congestion) {
        self.congestion_from(now, event, self.windowd());
    }

    /// The same, from a window of `window` packets (RFC 6675 recovery's FlightSize).
    pub(super) fn congestion_from(&mut self, now: Time, event: Congestion, window: f64) {
        self.congestion_at(now, event, window, None);
    }

    /// The same, with [`AtCongestion::conserve`].
    pub(super) fn congestion_at(&mut self, now: Time, event: Congestion, window: f64, conserve: Option<u64>) {
        let at = AtCongestion {
            window,
            in_flight: self.outstanding(),
            after_timeout: self.last_action == CwndAction::Timeout,
            snd_nxt: self.maxseq + 1,
            conserve,
        };
        let mut w = Window { cwnd: self.cwnd, ssthresh: self.ssthresh };
        self.cc.on_congestion(now, event, &at, &mut w);
        if matches!(event, Congestion::Timeout | Congestion::Restart) {
            w.cwnd = 1.0;
        }
        self.cwnd = w.cwnd;
        // RFC 5681 eq. (4): at least two segments.
        self.ssthresh = w.ssthresh.max(2.0);
        self.cong_action = true;
    }
}
