//! The TFRC sender (RFC 5348 §4; ns-2 2.35's Agent/TFRC for [`Flavor::Ns2`]): it sends its
//! application's packets at the allowed rate X, one every s/X_inst, and sets X from each
//! feedback report (and halves it when reports stop coming).

use fairway_core::wire_clock::whole_micros;
use fairway_core::{Dur, Time};

use super::equation::throughput;
use super::receiver::ns2_throughput;
use super::wire::{decode_feedback, encode_data};
use super::{Flavor, InitialWindow, ParamError, RtoRule, TfrcConfig, TfrcData, TfrcFeedback};
use crate::endpoint::{AgentState, Arrival, Endpoint, Malformed, Transmit};
use crate::source::Source;

/// t_mbi, the maximum backoff interval (RFC 5348 §4.3: 64 s).
const T_MBI: f64 = 64.0;
/// The sender's first nofeedback interval before any RTT is known (RFC 5348 §4.2: 2 s).
const INITIAL_NOFEEDBACK: Dur = Dur(2_000_000_000);
/// ns-2's InitRate_: bytes per second before the first report.
const NS2_INIT_RATE: f64 = 300.0;
/// Up to this many recent receive rates are kept (RFC 5348 §8.2.2: N = 3).
const X_RECV_SET_LEN: usize = 3;
/// ns-2's Agent/DCCP/TFRC: the smallest loss event rate it puts in the equation; below it (a
/// report of p = 0) it is in slow start (dccp_tfrc.h).
const DCCP_NS2_SMALLEST_P: f64 = 0.00001;

/// Counters of a sender.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TfrcSenderStats {
    pub sent: u64,
    pub bytes_sent: u64,
    pub feedback_received: u64,
    pub feedback_ignored: u64,
    pub nofeedback_expiries: u64,
    /// Application packets waiting to be sent (the backlog of an application-limited sender).
    pub backlog: u64,
    /// The allowed rate X and the equation's X_Bps at the last report, bytes per second.
    pub rate: f64,
    pub x_bps: f64,
    pub p: f64,
    pub rtt: Option<Dur>,
}

/// TCP's RTO estimator in whole ticks (ns-2's TFRC t_RTO): srtt and rttvar scaled by 8 and 4.
#[derive(Debug, Clone, Copy, Default)]
struct TickRto {
    srtt8: i64,
    rttvar4: i64,
}

impl TickRto {
    fn sample(&mut self, sample: f64, tick: f64) -> f64 {
        let t = ((sample / tick + 0.5) as i64).max(1);
        if self.srtt8 == 0 {
            self.srtt8 = t << 3;
            self.rttvar4 = t << 1;
        } else {
            let mut delta = t - (self.srtt8 >> 3);
            self.srtt8 = (self.srtt8 + delta).max(1);
            delta = delta.abs() - (self.rttvar4 >> 2);
            self.rttvar4 = (self.rttvar4 + delta).max(1);
        }
        (((self.rttvar4 << 3) + self.srtt8) >> 3) as f64 * tick
    }
}

/// RFC 3390's initial window in packets, as ns-2's table has it: 4 up to 1095 B, 3 below
/// 2190 B, else 2.
fn ns2_initial_window(s: f64) -> f64 {
    if s <= 1095.0 {
        4.0
    } else if s < 2190.0 {
        3.0
    } else {
        2.0
    }
}

/// The sending end of one TFRC flow.
pub struct TfrcSender {
    cfg: TfrcConfig,
    source: Box<dyn Source>,
    running: bool,
    seq: u64,
    /// Application packets handed over and not yet sent.
    backlog: u64,
    /// X, the allowed rate (ns-2's rate_), and the instantaneous rate of §4.5.
    x: f64,
    x_inst: f64,
    x_bps: f64,
    p: f64,
    loss_events: u32,
    /// R, sqrt-R's mean, the latest sample, t_RTO.
    r: Option<f64>,
    r_sqmean: f64,
    r_sample: f64,
    t_rto: f64,
    tick_rto: TickRto,
    /// When X last doubled in slow start (tld).
    tld: Option<Time>,
    /// (when, X_recv): the recent receive rates; infinity until the second report.
    x_recv_set: Vec<(Time, f64)>,
    nofeedback_at: Option<Time>,
    /// Nothing sent since the nofeedback timer was set.
    idle_since_timer: bool,
    feedbacks: u32,
    next_send: Time,
    last_send: Option<Time>,
    /// §8.2.1's bookkeeping of when the sender was not data-limited.
    not_limited1: Time,
    not_limited2: Time,
    t_new: Time,
    t_next: Time,
    // ns-2's state (tfrc.cc): slow start, round_id, UrgentFlag, the per-packet ramp, the
    // receive-rate caps, data-limited marks.
    slow_start: bool,
    round: u32,
    urgent: bool,
    oldrate: f64,
    delta: f64,
    last_change: Time,
    maxrate: f64,
    ss_maxrate: f64,
    datalimited: bool,
    lastlimited: Option<Time>,
    all_idle: bool,
    /// ns-2's Agent/DCCP/TFRC: the latest report's X_recv.
    latest_x_recv: f64,
    stats: TfrcSenderStats,
}

impl TfrcSender {
    /// A stopped sender carrying `source`'s packets (their size should be `cfg.packet_size`).
    pub fn new(cfg: TfrcConfig, source: Box<dyn Source>) -> Result<TfrcSender, ParamError> {
        cfg.validate()?;
        Ok(TfrcSender {
            cfg,
            source,
            running: false,
            seq: 0,
            backlog: 0,
            x: 0.0,
            x_inst: 0.0,
            x_bps: f64::INFINITY,
            p: 0.0,
            loss_events: 0,
            r: None,
            r_sqmean: 1.0,
            r_sample: 1.0,
            t_rto: 0.0,
            tick_rto: TickRto::default(),
            tld: None,
            x_recv_set: vec![(Time::ZERO, f64::INFINITY)],
            nofeedback_at: None,
            idle_since_timer: true,
            feedbacks: 0,
            next_send: Time::ZERO,
            last_send: None,
            not_limited1: Time::ZERO,
            not_limited2: Time::ZERO,
            t_new: Time::ZERO,
            t_next: Time::ZERO,
            slow_start: true,
            round: 0,
            urgent: true,
            oldrate: 0.0,
            delta: 0.0,
            last_change: Time::ZERO,
            maxrate: 0.0,
            ss_maxrate: 0.0,
            datalimited: false,
            lastlimited: None,
            all_idle: false,
            latest_x_recv: 0.0,
            stats: TfrcSenderStats::default(),
        })
    }

    pub fn config(&self) -> &TfrcConfig {
        &self.cfg
    }

    /// The allowed sending rate X, bytes per second.
    pub fn rate(&self) -> f64 {
        self.x
    }

    /// R, the smoothed round-trip time (none before the first report).
    pub fn rtt(&self) -> Option<Dur> {
        self.r.map(Dur::from_secs_f64)
    }

    fn ns2(&self) -> bool {
        self.cfg.flavor == Flavor::Ns2
    }

    /// s, the application's bytes per packet.
    fn s(&self) -> f64 {
        self.cfg.packet_size.0 as f64
    }

    /// X_Bps from the equation (TFRC-SP: with the nominal segment size, then scaled by
    /// s_true / (s_true + H), RFC 4828 §3).
    fn equation(&self, p: f64) -> f64 {
        let r = self.r.unwrap_or(0.0);
        let s_eq = self.cfg.sp.map_or(self.s(), |sp| sp.nominal_size.0 as f64);
        let x = if self.ns2() {
            ns2_throughput(s_eq, r, p, self.t_rto, self.cfg.b)
        } else {
            throughput(s_eq, r, p, self.t_rto, self.cfg.b)
        };
        match self.cfg.sp {
            Some(sp) => x * self.s() / (self.s() + sp.header.0 as f64),
            None => x,
        }
    }

    /// RFC 5348 §4.2: W_init / R, W_init = min(4s, max(2s, 4380)), or one packet per RTT (RFC
    /// 3448); ns-2's Agent/TFRC: its integer window.
    fn initial_rate(&self) -> f64 {
        let r = self.r.unwrap_or(1.0);
        if self.ns2() {
            return ns2_initial_window(self.s()) * self.s() / r;
        }
        match self.cfg.initial_window {
            InitialWindow::Rfc3390 => (4.0 * self.s()).min((2.0 * self.s()).max(4380.0)) / r,
            InitialWindow::OnePacket => self.s() / r,
        }
    }

    /// The time between packets at the current rate (§4.6: s / X_inst; TFRC-SP at least its
    /// Min Interval); `None` when the rate is too small to schedule.
    fn gap(&mut self) -> Option<Dur> {
        let xrate = if self.ns2() {
            // tfrc.cc nextpkt: in slow start (after the second report) the rate climbs to its
            // new value a step per packet.
            if self.round > 2 && self.slow_start && self.oldrate + 1e-7 < self.x {
                self.oldrate += self.delta;
                self.oldrate
            } else if self.cfg.oscillation_reduction {
                self.x * self.r_sqmean / self.r_sample.sqrt()
            } else {
                self.x
            }
        } else {
            self.x_inst
        };
        if xrate.is_nan() || xrate <= 1e-7 {
            return None;
        }
        let mut g = self.s() / xrate;
        if let Some(sp) = self.cfg.sp {
            g = g.max(sp.min_interval.as_secs_f64());
        }
        Some(Dur::from_secs_f64(g.min(1e6)).max(Dur(1)))
    }

    /// Takes the application's packets that are due.
    fn pull(&mut self, now: Time) {
        if !self.running || self.source.is_greedy() {
            return;
        }
        while self.source.next_due().is_some_and(|t| t <= now) {
            match self.source.poll(now) {
                Some(_) => self.backlog += 1,
                None => break,
            }
        }
    }

    fn has_data(&self) -> bool {
        if self.source.is_greedy() {
            self.source.next_due().is_some()
        } else {
            self.backlog > 0
        }
    }

    /// Sends one packet now (the caller checked that one may go).
    fn send(&mut self, now: Time) -> Option<Transmit<TfrcData>> {
        if self.source.is_greedy() {
            self.source.poll(now)?;
        } else {
            self.backlog = self.backlog.checked_sub(1)?;
        }
        let seq = self.seq;
        self.seq += 1;
        self.last_send = Some(now);
        self.idle_since_timer = false;
        self.all_idle = false;
        self.stats.sent += 1;
        self.stats.bytes_sent += self.cfg.packet_size.0;
        // §8.2.1: after sending, more data waiting means the rate, not the application, limits.
        if self.has_data() {
            if self.not_limited1 <= self.t_new {
                self.not_limited1 = now;
            } else if self.not_limited2 <= self.t_next {
                self.not_limited2 = now;
            }
        }
        let d = TfrcData {
            flow: self.cfg.flow,
            seq,
            ts: whole_micros(now),
            rtt: Dur::from_secs_f64(self.r.unwrap_or(0.0)).max(Dur::ZERO),
            t_rto: Dur::from_secs_f64(self.t_rto),
            round: self.round,
            urgent: self.urgent,
        };
        // Whole microseconds, as the wire carries them.
        let d = TfrcData { rtt: Dur(d.rtt.0 - d.rtt.0 % 1_000), t_rto: Dur(d.t_rto.0 - d.t_rto.0 % 1_000), ..d };
        let size = self.cfg.packet_size + self.cfg.header_size;
        Some(Transmit { size, payload: self.cfg.packet_size, ect: self.cfg.ecn, tagged: false, msg: d })
    }

    /// ns-2's nextpkt: send if there is data (else note the sender is data-limited), and re-arm
    /// the send timer a gap from now.
    fn ns2_tick(&mut self, now: Time) -> Option<Transmit<TfrcData>> {
        let out = if self.has_data() {
            self.send(now)
        } else {
            self.datalimited = true;
            None
        };
        match self.gap() {
            Some(g) => self.next_send = now + g,
            None => self.next_send = Time(u64::MAX),
        }
        out
    }

    fn update_rtt(&mut self, sample: f64) {
        match self.r {
            None => {
                self.r = Some(sample);
                self.r_sqmean = sample.sqrt();
            }
            Some(r) => {
                let q = self.cfg.q;
                self.r = Some(q * r + (1.0 - q) * sample);
                self.r_sqmean = q * self.r_sqmean + (1.0 - q) * sample.sqrt();
            }
        }
        self.r_sample = sample;
        let r = self.r.expect("set");
        self.t_rto = match self.cfg.t_rto {
            RtoRule::FourR => 4.0 * r,
            RtoRule::FourRAtLeastOneSecond => (4.0 * r).max(1.0),
            RtoRule::Tcp { tick } => self.tick_rto.sample(sample, tick.as_secs_f64()),
        };
    }

    /// Acts on a feedback report.
    pub fn handle_feedback(&mut self, now: Time, fb: &TfrcFeedback) {
        if fb.flow != self.cfg.flow || !self.running && self.seq == 0 || fb.echo > now {
            self.stats.feedback_ignored += 1;
            return;
        }
        self.stats.feedback_received += 1;
        // §4.3 step 1: R_sample = (t_now - t_recvdata) - t_delay.
        let sample = Dur(now.saturating_since(fb.echo).0.saturating_sub(fb.t_delay.0)).as_secs_f64().max(1e-6);
        let old_x = self.x;
        let p_prev = self.p;
        let new_event = fb.loss_events > self.loss_events;
        self.loss_events = fb.loss_events;
        self.p = fb.p;
        if self.ns2() {
            self.ns2_feedback(now, fb, sample, old_x);
        } else if self.cfg.dccp_ns2 {
            self.dccp_ns2_feedback(now, fb, sample);
        } else {
            self.rfc_feedback(now, fb, sample, old_x, p_prev, new_event);
        }
        self.feedbacks += 1;
        self.idle_since_timer = true;
        self.stats.rate = self.x;
        // The next packet goes a gap after the last at the new rate, or at once if that is past.
        if !self.ns2() {
            if let (Some(last), Some(g)) = (self.last_send, self.gap()) {
                self.next_send = (last + g).max(now).min(self.next_send.max(now));
            }
        }
    }

    fn rfc_feedback(&mut self, now: Time, fb: &TfrcFeedback, sample: f64, old_x: f64, p_prev: f64, new_event: bool) {
        let first = self.r.is_none();
        // Steps 2-3.
        self.update_rtt(sample);
        let r = self.r.expect("set");
        let s = self.s();
        // Step 3: max(4R, 2s/X), the multiple of R configurable (ns-2 uses 2).
        let rto = (self.cfg.nofeedback_rtts * r).max(2.0 * s / old_x.max(1e-9));
        self.x_bps = if self.p > 0.0 { self.equation(self.p) } else { f64::INFINITY };
        if first {
            // §4.2: the first RTT measurement replaces step 4.
            self.x = self.initial_rate();
            self.tld = Some(now);
        } else {
            // Step 4, with §8.2.1's test of whether the report covers a data-limited interval.
            let limited = fb.x_recv > 0.0 && self.data_limited(now, fb, r);
            let recv_limit = if limited {
                if new_event || self.p > p_prev {
                    for e in self.x_recv_set.iter_mut() {
                        e.1 /= 2.0;
                    }
                    self.maximize_x_recv_set(now, 0.85 * fb.x_recv);
                    self.max_x_recv()
                } else {
                    self.maximize_x_recv_set(now, fb.x_recv);
                    2.0 * self.max_x_recv()
                }
            } else {
                self.update_x_recv_set(now, fb.x_recv, r);
                2.0 * self.max_x_recv()
            };
            if self.p > 0.0 {
                self.x = self.x_bps.min(recv_limit).max(s / T_MBI);
            } else if self.tld.is_none_or(|t| now.saturating_since(t).as_secs_f64() >= r) {
                self.x = (2.0 * self.x).min(recv_limit).max(self.initial_rate());
                self.tld = Some(now);
            }
        }
        // Step 5: §4.5's oscillation reduction.
        self.x_inst = if self.cfg.oscillation_reduction {
            (self.x * self.r_sqmean / sample.sqrt()).max(s / T_MBI)
        } else {
            self.x
        };
        // Step 6: the nofeedback timer, the interval of step 3.
        self.nofeedback_at = Some(now + Dur::from_secs_f64(rto));
    }

    /// ns-2 2.35's Agent/DCCP/TFRC on a report (dccp_tfrc.cc tfrc_send_packet_recv): the RTT
    /// as RFC 5348, X_recv the report's alone, X by [`Self::dccp_ns2_update_x`], the nofeedback
    /// timer max(4R, 2s/X) at the new X.
    fn dccp_ns2_feedback(&mut self, now: Time, fb: &TfrcFeedback, sample: f64) {
        self.update_rtt(sample);
        let r = self.r.expect("set");
        self.latest_x_recv = fb.x_recv;
        // A reported p below its smallest is raised to it; p = 0 stays 0 (slow start).
        if self.p > 0.0 {
            self.p = self.p.max(DCCP_NS2_SMALLEST_P);
        }
        self.dccp_ns2_update_x(now);
        let rto = (self.cfg.nofeedback_rtts * r).max(2.0 * self.s() / self.x.max(1e-9));
        self.nofeedback_at = Some(now + Dur::from_secs_f64(rto));
    }

    /// dccp_tfrc.cc tfrc_updateX. After a loss (p > 0): X = max(min(X_calc, 2 X_recv), s/t_mbi)
    /// and X_inst its oscillation-reduced value, without RFC 5348's floor. Before (p = 0), at most
    /// once an RTT: X = max(min(2X, 2 X_recv), s/R) and X_inst = X, no oscillation reduction.
    /// X_recv is the latest report's (or the nofeedback timer's cut of it), not RFC 5348's set.
    fn dccp_ns2_update_x(&mut self, now: Time) {
        let s = self.s();
        let r = self.r.expect("called after an RTT sample");
        if self.p >= DCCP_NS2_SMALLEST_P {
            self.x_bps = self.equation(self.p);
            self.x = self.x_bps.min(2.0 * self.latest_x_recv).max(s / T_MBI);
            self.x_inst =
                if self.cfg.oscillation_reduction { self.x * self.r_sqmean / self.r_sample.sqrt() } else { self.x };
        } else {
            self.x_bps = f64::INFINITY;
            if self.tld.is_none_or(|t| now.saturating_since(t).as_secs_f64() >= r) {
                self.x = (2.0 * self.x).min(2.0 * self.latest_x_recv).max(s / r);
                self.tld = Some(now);
                self.x_inst = self.x;
            }
        }
    }

    /// ns-2 2.35 dccp_tfrc.cc tfrc_time_no_feedback, its variant of RFC 3448 §4.4. Before any
    /// report: X halved (at least s/t_mbi), X_inst = X, the timer again in max(2 s, 2s/X). After:
    /// unless the sender was idle since the last expiry with X_recv below 4 packets per RTT,
    /// X_recv is halved (at least s/(2 t_mbi)), or set to X_calc/4 when X_calc is at most
    /// 2 X_recv, and X recomputed as on a report; the timer again in max(4R, 2s/X).
    fn dccp_ns2_nofeedback(&mut self, now: Time) {
        let s = self.s();
        let next = match self.r {
            None => {
                self.x = (self.x / 2.0).max(s / T_MBI);
                self.x_inst = self.x;
                (2.0 * s / self.x).max(INITIAL_NOFEEDBACK.as_secs_f64())
            }
            Some(r) => {
                if !self.idle_since_timer || self.latest_x_recv >= 4.0 * s / r {
                    if self.p < DCCP_NS2_SMALLEST_P || self.x_bps > 2.0 * self.latest_x_recv {
                        self.latest_x_recv = (self.latest_x_recv / 2.0).max(s / (2.0 * T_MBI));
                    } else {
                        self.latest_x_recv = self.x_bps / 4.0;
                    }
                    self.dccp_ns2_update_x(now);
                }
                (2.0 * s / self.x.max(1e-9)).max(self.cfg.nofeedback_rtts * r)
            }
        };
        self.nofeedback_at = Some(now + Dur::from_secs_f64(next));
        self.idle_since_timer = true;
    }

    /// §8.2.1: whether the sender was data-limited over the whole interval the report covers.
    fn data_limited(&mut self, now: Time, fb: &TfrcFeedback, r: f64) -> bool {
        self.t_new = fb.echo;
        let t_old = Time(self.t_new.0.saturating_sub(Dur::from_secs_f64(r).0));
        self.t_next = now;
        let in_range = |t: Time| t_old < t && t <= fb.echo;
        let limited = !(in_range(self.not_limited1) || in_range(self.not_limited2));
        if self.not_limited1 <= self.t_new && self.not_limited2 > self.t_new {
            self.not_limited1 = self.not_limited2;
        }
        limited
    }

    fn max_x_recv(&self) -> f64 {
        self.x_recv_set.iter().map(|e| e.1).fold(0.0, f64::max)
    }

    /// §4.3 Maximize X_recv_set: one value, the largest of the set and `x`.
    fn maximize_x_recv_set(&mut self, now: Time, x: f64) {
        let finite = self.x_recv_set.iter().map(|e| e.1).filter(|v| v.is_finite()).fold(x, f64::max);
        self.x_recv_set = vec![(now, finite)];
    }

    /// §4.3 Update X_recv_set: add `x`, drop values older than two RTTs (and the initial
    /// infinity once a second value is in), keep the newest three (§8.2.2).
    fn update_x_recv_set(&mut self, now: Time, x: f64, r: f64) {
        let two_r = Dur::from_secs_f64(2.0 * r);
        self.x_recv_set.retain(|&(t, v)| v.is_finite() && now.saturating_since(t) <= two_r);
        self.x_recv_set.push((now, x));
        let n = self.x_recv_set.len();
        if n > X_RECV_SET_LEN {
            self.x_recv_set.drain(..n - X_RECV_SET_LEN);
        }
    }

    fn ns2_feedback(&mut self, now: Time, fb: &TfrcFeedback, sample: f64, old_x: f64) {
        self.round += 1;
        self.urgent = false;
        let s = self.s();
        if self.round > 1 && fb.x_recv > 0.0 {
            self.ss_maxrate = 2.0 * fb.x_recv;
            self.maxrate = 2.0 * fb.x_recv;
        } else {
            self.ss_maxrate = 0.0;
            self.maxrate = 0.0;
        }
        self.update_rtt(sample);
        let r = self.r.expect("set");
        self.x_bps = self.equation(self.p);
        self.nofeedback_at =
            Some(now + Dur::from_secs_f64((self.cfg.nofeedback_rtts * r).max(2.0 * s / old_x.max(1e-9))));
        if self.round == 1 {
            self.ns2_slowstart(now);
            self.ns2_kick(now);
        } else if self.slow_start {
            if self.p > 0.0 {
                self.slow_start = false;
                self.x = self.x_bps;
                self.oldrate = self.x;
            } else {
                self.ns2_slowstart(now);
                self.ns2_kick(now);
            }
        } else if self.x_bps > self.x {
            // increase_rate: about a packet per RTT per RTT, toward min(X_calc, 2 X_recv).
            let mult = (now.saturating_since(self.last_change).as_secs_f64() / r).min(2.0);
            self.x += mult * s / r;
            let limited = self.datalimited || self.recently_limited(now, r);
            let floor = if limited { ns2_initial_window(s) * s / r } else { s / r };
            let cap = self.maxrate.max(floor).min(self.x_bps);
            self.x = self.x.min(cap);
            self.last_change = now;
        } else {
            // decrease_rate: straight to X_calc, at most max(2 X_recv, s/R). tfrc.cc's
            // decrease_rate also sets last_change_ to now, so the next increase_rate grows the
            // rate by the time since this report (mult), not since the last increase.
            self.x = self.x_bps.min(self.maxrate.max(s / r));
            self.last_change = now;
        }
    }

    fn recently_limited(&self, now: Time, r: f64) -> bool {
        self.lastlimited.is_some_and(|t| t.as_secs_f64() > now.as_secs_f64() - 1.5 * r)
    }

    /// tfrc.cc slowstart. Each branch that changes the rate starts its per-packet ramp from the
    /// old rate (oldrate_, delta_) and sets last_change_ to now, as ns-2's does; a report that
    /// changes nothing (the rate below 2 X_recv but less than an RTT since the last change) keeps
    /// the ramp as it was.
    fn ns2_slowstart(&mut self, now: Time) {
        let r = self.r.expect("called after an RTT sample");
        let s = self.s();
        let init = ns2_initial_window(s) * s / r;
        if self.round <= 1 || (self.round == 2 && ns2_initial_window(s) > 1.0) {
            // No good rate report yet: keep to the initial rate.
            self.oldrate = self.x;
            self.x = self.x.max(init);
            self.ns2_ramp(now, r);
        } else if self.ss_maxrate > 0.0 {
            let limited = self.datalimited || self.recently_limited(now, r);
            if limited && self.ss_maxrate < init {
                // Data-limited lately and 2 X_recv small: not below the initial rate.
                self.oldrate = self.x;
                self.x = self.x.max(init);
                self.ns2_ramp(now, r);
            } else if self.x < self.ss_maxrate && now.saturating_since(self.last_change).as_secs_f64() > r {
                // Double, at most to 2 X_recv, at least a packet per RTT.
                self.oldrate = self.x;
                self.x = (2.0 * self.x).min(self.ss_maxrate).max(s / r);
                self.ns2_ramp(now, r);
            } else if self.x > self.ss_maxrate {
                self.x = self.ss_maxrate / 2.0;
                self.oldrate = self.x;
                self.delta = 0.0;
                self.last_change = now;
            }
        } else {
            // A receive rate of zero: back to a packet per RTT.
            self.oldrate = self.x;
            self.x = s / r;
            self.delta = 0.0;
            self.last_change = now;
        }
    }

    /// The per-packet step from oldrate_ to the new rate over one RTT's packets (delta_), and
    /// last_change_.
    fn ns2_ramp(&mut self, now: Time, r: f64) {
        let s = self.s();
        self.delta = if self.x > 0.0 { (self.x - self.oldrate) / (self.x * r / s) } else { 0.0 };
        self.last_change = now;
    }

    /// ns-2's immediate nextpkt after a report in slow start: a packet now, the timer re-armed.
    fn ns2_kick(&mut self, now: Time) {
        self.next_send = now;
    }

    /// The nofeedback timer expired (RFC 5348 §4.4; ns-2's reduce_rate_on_no_feedback).
    fn on_nofeedback(&mut self, now: Time) {
        self.stats.nofeedback_expiries += 1;
        if self.cfg.dccp_ns2 {
            self.dccp_ns2_nofeedback(now);
            return;
        }
        let s = self.s();
        if self.ns2() {
            let r = self.r.unwrap_or(0.0);
            let w = ns2_initial_window(s);
            if !self.all_idle && !self.datalimited {
                self.x *= 0.5;
            } else if r > 0.0 {
                if self.x > 2.0 * w * s / r {
                    self.x *= 0.5;
                } else if self.x > w * s / r {
                    self.x = w * s / r;
                }
            }
            self.urgent = true;
            self.round += 1;
            self.nofeedback_at = Some(now + Dur::from_secs_f64((2.0 * r).max(2.0 * s / self.x.max(1e-9))));
            self.all_idle = self.datalimited;
            self.next_send = now;
            return;
        }
        let idle = self.idle_since_timer;
        let x_recv = self.max_x_recv();
        match self.r {
            None => {
                if !idle || self.feedbacks == 0 {
                    self.x = (self.x / 2.0).max(s / T_MBI);
                }
            }
            Some(r) => {
                let recover = self.initial_rate();
                let p = self.p;
                if ((p > 0.0 && x_recv < recover) || (p == 0.0 && self.x < 2.0 * recover)) && idle {
                    // An idle sender keeps at least the recover rate.
                } else if p == 0.0 {
                    self.x = (self.x / 2.0).max(s / T_MBI);
                } else if self.x_bps > 2.0 * x_recv {
                    self.update_limits(x_recv, r);
                } else {
                    self.update_limits(self.x_bps / 2.0, r);
                }
            }
        }
        self.x_inst = self.x;
        let r = self.r.map_or(0.0, |r| self.cfg.nofeedback_rtts * r);
        self.nofeedback_at = Some(now + Dur::from_secs_f64(r.max(2.0 * s / self.x.max(1e-9))));
        self.idle_since_timer = true;
    }

    /// §4.4 Update_Limits: the receive-rate set becomes half the limit, and X follows step 4.
    fn update_limits(&mut self, limit: f64, _r: f64) {
        let s = self.s();
        let limit = limit.max(s / T_MBI);
        self.x_recv_set = vec![(Time::ZERO, limit / 2.0)];
        let recv_limit = 2.0 * self.max_x_recv();
        self.x = self.x_bps.min(recv_limit).max(s / T_MBI);
    }
}

impl Endpoint for TfrcSender {
    type In = TfrcFeedback;
    type Out = TfrcData;
    type Stats = TfrcSenderStats;

    fn state(&self) -> AgentState {
        AgentState {
            srtt: self.rtt(),
            // t_RTO of the throughput equation (RFC 5348 §4.3), once there is an RTT.
            rto: self.r.map(|_| Dur::from_secs_f64(self.t_rto)),
            rate_bps: Some(self.x * 8.0),
            loss_event_rate: Some(self.p),
            ..AgentState::default()
        }
    }

    fn start(&mut self, now: Time) {
        if self.running {
            return;
        }
        self.running = true;
        self.source.start(now);
        // RFC 5348 §4.2: s bytes per second and a 2 s timer before an RTT is known; ns-2:
        // InitRate_ and a timer of 2 s/X.
        if self.r.is_none() {
            self.x = if self.ns2() { NS2_INIT_RATE } else { self.s() };
            self.x_inst = self.x;
            self.oldrate = self.x;
            let t = if self.ns2() { Dur::from_secs_f64(2.0 * self.s() / self.x) } else { INITIAL_NOFEEDBACK };
            self.nofeedback_at = Some(now + t);
        }
        self.next_send = now;
    }

    fn stop(&mut self, now: Time) {
        self.pull(now);
        self.running = false;
        self.datalimited = true;
        self.source.stop(now);
    }

    fn handle(&mut self, now: Time, fb: &TfrcFeedback, _arrival: Arrival) {
        self.handle_feedback(now, fb);
    }

    fn handle_datagram(&mut self, now: Time, bytes: &[u8], _arrival: Arrival) -> Result<(), Malformed> {
        let fb = decode_feedback(bytes, now)?;
        self.handle_feedback(now, &fb);
        Ok(())
    }

    fn handle_timeout(&mut self, now: Time) {
        self.pull(now);
        if self.nofeedback_at.is_some_and(|t| t <= now) {
            self.on_nofeedback(now);
        }
    }

    fn poll_transmit(&mut self, now: Time) -> Option<Transmit<TfrcData>> {
        self.pull(now);
        if !self.running {
            return None;
        }
        if now == Time::MAX && self.last_send == Some(now) {
            // The clock is at its end: the next send time saturates to now, and the packets
            // would follow one another forever.
            return None;
        }
        if self.ns2() {
            if self.datalimited && self.has_data() {
                // tfrc.cc advanceby: new data after a dry spell goes at once; the timer keeps
                // its schedule.
                self.datalimited = false;
                self.lastlimited = Some(now);
                self.all_idle = false;
                return self.send(now);
            }
            if now >= self.next_send {
                return self.ns2_tick(now);
            }
            return None;
        }
        if now < self.next_send || !self.has_data() {
            return None;
        }
        let t = self.send(now)?;
        self.next_send = match self.gap() {
            // At least a nanosecond: a forged X_recv of 10^15 b/s must not make a zero gap.
            Some(g) => now + g.max(Dur(1)),
            None => Time(u64::MAX),
        };
        Some(t)
    }

    fn poll_timeout(&self) -> Option<Time> {
        if !self.running {
            return None;
        }
        // ns-2's send timer ticks whether or not there is data; RFC 5348's waits for data.
        let send = if self.ns2() || self.has_data() { Some(self.next_send) } else { None };
        let app = if self.source.is_greedy() { None } else { self.source.next_due() };
        [send, app, self.nofeedback_at].into_iter().flatten().filter(|&t| t != Time(u64::MAX)).min()
    }

    fn stats(&self) -> TfrcSenderStats {
        TfrcSenderStats {
            backlog: self.backlog,
            rate: self.x,
            x_bps: self.x_bps,
            p: self.p,
            rtt: self.r.map(Dur::from_secs_f64),
            ..self.stats
        }
    }

    fn encode(&self, t: &Transmit<TfrcData>, out: &mut Vec<u8>) {
        let start = out.len();
        encode_data(&t.msg, out);
        let len = out.len() - start;
        out.resize(start + (t.size.0 as usize).max(len), 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Greedy;
    use fairway_core::Bytes;

    #[test]
    fn the_tick_rto_is_ns2s_three_ticks_for_short_rtts() {
        let mut t = TickRto::default();
        assert!((t.sample(0.05, 0.1) - 0.3).abs() < 1e-12);
        for _ in 0..100 {
            assert!((t.sample(0.06, 0.1) - 0.3).abs() < 1e-12, "rttvar never decays below its floor");
        }
        let mut t = TickRto::default();
        // 0.5 s: 5 ticks, rttvar 2.5: 5 + 4 x 2.5 = 15 ticks.
        assert!((t.sample(0.5, 0.1) - 1.5).abs() < 1e-12);
    }

    /// tfrc.cc: decrease_rate sets last_change_ too, so the increase at the next report adds
    /// s/R times the RTTs since that decrease (here one), not since the last increase (two,
    /// the cap, when it was long ago).
    #[test]
    fn ns2s_increase_after_a_decrease_counts_from_the_decrease() {
        const MS: u64 = 1_000_000;
        let mut s = TfrcSender::new(TfrcConfig::ns2(), Box::new(Greedy::new(Bytes(1000), None))).unwrap();
        s.start(Time::ZERO);
        s.r = Some(0.1);
        s.r_sqmean = 0.1f64.sqrt();
        s.slow_start = false;
        s.round = 10;
        s.x = 1e9;
        let fb = |p: f64, at_ms: u64| TfrcFeedback {
            flow: 0,
            echo: Time((at_ms - 100) * MS),
            t_delay: Dur::ZERO,
            x_recv: 1e6,
            p,
            loss_events: 1,
        };
        // At 1 s, p = 0.05: X_calc (about 40 kB/s) is below X, a decrease straight to it.
        s.handle_feedback(Time(1000 * MS), &fb(0.05, 1000));
        let after_decrease = s.x;
        assert!((after_decrease - s.x_bps).abs() < 1e-9 && after_decrease < 50_000.0, "{after_decrease}");
        assert_eq!(s.last_change, Time(1000 * MS));
        // An RTT later, p = 0.001: X_calc is far above, an increase by one s/R.
        s.handle_feedback(Time(1100 * MS), &fb(0.001, 1100));
        let r = s.r.unwrap();
        let want = after_decrease + (0.1 / r) * 1000.0 / r;
        assert!((s.x - want).abs() < 1e-6, "{} vs {want}", s.x);
    }

    /// ns-2's Agent/DCCP/TFRC: before the first loss X_inst = X (no oscillation reduction);
    /// after it, X is limited by twice the latest X_recv alone and X_inst is oscillation-reduced.
    #[test]
    fn dccp_ns2s_rate_follows_the_latest_receive_rate_and_reduces_oscillation_after_a_loss() {
        const MS: u64 = 1_000_000;
        let cfg = TfrcConfig { packet_size: Bytes(500), dccp_ns2: true, ..TfrcConfig::rfc5348() };
        let mut s = TfrcSender::new(cfg, Box::new(Greedy::new(Bytes(500), None))).unwrap();
        s.start(Time::ZERO);
        let fb = |at_ms: u64, rtt_ms: u64, x_recv: f64, p: f64| TfrcFeedback {
            flow: 0,
            echo: Time((at_ms - rtt_ms) * MS),
            t_delay: Dur::ZERO,
            x_recv,
            p,
            loss_events: u32::from(p > 0.0),
        };
        // The first report (X_recv 0): one packet per RTT.
        s.handle_feedback(Time(100 * MS), &fb(100, 20, 0.0, 0.0));
        assert!((s.x - 500.0 / 0.02).abs() < 1e-6, "{}", s.x);
        // A longer RTT sample in slow start: X doubles, X_inst = X all the same.
        s.handle_feedback(Time(200 * MS), &fb(200, 40, 1e6, 0.0));
        assert!((s.x - 50_000.0).abs() < 1e-6 && s.x_inst == s.x, "{} {}", s.x, s.x_inst);
        // A loss: X = min(X_calc, 2 X_recv) with the latest X_recv (10 kB/s) though an earlier
        // report said 1 MB/s; X_inst scaled by sqrt-R's mean over the sample's root.
        s.handle_feedback(Time(300 * MS), &fb(300, 40, 10_000.0, 0.01));
        assert!((s.x - 20_000.0).abs() < 1e-6, "{}", s.x);
        let want = s.x * s.r_sqmean / 0.04f64.sqrt();
        assert!((s.x_inst - want).abs() < 1e-9 && s.x_inst != s.x, "{} {want}", s.x_inst);
    }

    #[test]
    fn the_initial_rate_is_rfc_3390s_window_per_rtt() {
        let mut s = TfrcSender::new(TfrcConfig::rfc5348(), Box::new(Greedy::new(Bytes(1000), None))).unwrap();
        s.r = Some(0.1);
        // W_init = min(4s, max(2s, 4380)): 4000 B for s = 1000.
        assert!((s.initial_rate() - 40_000.0).abs() < 1e-9);
        s.cfg.packet_size = Bytes(1460);
        assert!((s.initial_rate() - 43_800.0).abs() < 1e-9, "4380 B for s = 1460");
        s.cfg.packet_size = Bytes(160);
        assert!((s.initial_rate() - 6_400.0).abs() < 1e-9, "4 s for small packets");
        s.cfg.packet_size = Bytes(3000);
        assert!((s.initial_rate() - 60_000.0).abs() < 1e-9, "2 s for large ones");
        // ns-2's table: 4, 3, 2 packets.
        assert_eq!(
            (ns2_initial_window(1000.0), ns2_initial_window(1460.0), ns2_initial_window(2500.0)),
            (4.0, 3.0, 2.0)
        );
    }
}
