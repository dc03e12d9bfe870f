//! NADA, Network-Assisted Dynamic Adaptation (RFC 8698), with the receiver's calculations at the
//! sender (§6.4): the sender reads each packet's arrival time and ECN codepoint from RFC 8888
//! reports and derives what §4.2 has the receiver compute (queueing delay, loss and marking
//! ratios, the receiving rate, the aggregate congestion signal x_curr and the mode rmode), then
//! updates the reference rate r_ref by §4.3 once per report, and splits it into the encoder's
//! target r_vin and the sending rate r_send by §5.2.2.
//!
//! Choices the RFC leaves open, stated here:
//! - §5.1.1: the base delay is the smallest one-way delay seen over the whole run (the RFC's
//!   "tens of minutes" exceed the test cases); d_queue is the minimum of the last 15 raw
//!   samples (§5.1.1's minimum filter);
//! - §5.1.2: a packet a report says did not arrive is lost (reordering is not waited for, as
//!   §5.1.2 recommends for interactive media); p_inst is the lost share of the packets reported
//!   over the last LOGWIN of receiver time (lost packets dated by the report that says so), and
//!   eq. (10) smooths it once per update; p_mark likewise from CE marks among arrivals;
//! - §5.1.3: r_recv is the wire bytes that arrived in the last LOGWIN divided by LOGWIN;
//! - §4.2: loss_int is RFC 5348 §5.4's weighted average of the last eight closed intervals
//!   between lost packets (every lost packet ends an interval: NADA counts packets, not loss
//!   events). §5.4 would also count the open interval when that raises the average, but then
//!   the expiry could never come: the weights sum to 6, so the open interval's own term grows as
//!   since/6 and MULTILOSS x loss_int = 7 (since + rest)/6 stays above since. The warped delay
//!   holds while the packets since the last loss are under MULTILOSS x loss_int, and blends
//!   linearly back to d_queue over the next loss_int packets (§4.2's "transitional period");
//! - x_curr is kept under XMAX, 500 ms, the bound of the reference implementation RFC 8698 §7
//!   names ([NS3-RMCAT]); the RFC itself bounds it only by its 15-bit field of 100 us (§5.3,
//!   3276.7 ms). With the field's bound, a loss ratio that decays from 0.2 to 0.13 over two
//!   reports lowers x_curr from 3277 to 1690 ms, and eq. (7)'s x_diff term then multiplies
//!   r_ref by 1 + 0.5 x 2 x 1587 / 500 = 4.2 in one update (seen on RFC 8867 §5.1 after the
//!   capacity falls at 60 s: 150 kb/s to 1.4 Mb/s in 0.5 s, into a 600 kb/s link);
//! - §4.3: the first update's delta counts from the sender's start (t_last's initial value);
//!   rtt is the sender's latest round-trip measurement, zero before one.
//!
//! Rates are wire bits per second; delays in the equations are in milliseconds as Table 2's.

use std::collections::VecDeque;

use fairway_core::{Bytes, Dur, Time};

use super::controller::{PacketResult, RateController, SenderView};
use super::rfc8888::Ecn;
use crate::AgentState;

/// RFC 8698 Table 2's parameters (delays in milliseconds, rates in bits per second).
#[derive(Debug, Clone, PartialEq)]
pub struct NadaConfig {
    pub prio: f64,
    pub rmin: f64,
    pub rmax: f64,
    pub xref: f64,
    pub kappa: f64,
    pub eta: f64,
    pub tau: f64,
    pub delta: f64,
    pub logwin: f64,
    pub qeps: f64,
    pub dfilt: f64,
    pub gamma_max: f64,
    pub qbound: f64,
    pub multiloss: f64,
    pub qth: f64,
    pub lambda: f64,
    pub plrref: f64,
    pub pmrref: f64,
    pub dloss: f64,
    pub dmark: f64,
    pub beta_s: f64,
    pub beta_v: f64,
    pub alpha: f64,
    /// §5.1.1's minimum filter's window, samples.
    pub filter_len: usize,
    /// The largest x_curr, ms (the reference implementation's XMAX; the module's doc says why).
    pub xmax: f64,
}

impl Default for NadaConfig {
    /// Table 2's defaults.
    fn default() -> Self {
        NadaConfig {
            prio: 1.0,
            rmin: 150e3,
            rmax: 1.5e6,
            xref: 10.0,
            kappa: 0.5,
            eta: 2.0,
            tau: 500.0,
            delta: 100.0,
            logwin: 500.0,
            qeps: 10.0,
            dfilt: 120.0,
            gamma_max: 0.5,
            qbound: 50.0,
            multiloss: 7.0,
            qth: 50.0,
            lambda: 0.5,
            plrref: 0.01,
            pmrref: 0.01,
            dloss: 10.0,
            dmark: 2.0,
            beta_s: 0.1,
            beta_v: 0.1,
            alpha: 0.1,
            filter_len: 15,
            xmax: 500.0,
        }
    }
}

impl NadaConfig {
    /// Positive rates with RMIN <= RMAX, positive scales and windows, ALPHA in (0, 1].
    pub fn check(&self) -> Result<(), String> {
        let positive = [
            ("prio", self.prio),
            ("rmax", self.rmax),
            ("xref", self.xref),
            ("kappa", self.kappa),
            ("tau", self.tau),
            ("delta", self.delta),
            ("logwin", self.logwin),
            ("qth", self.qth),
            ("plrref", self.plrref),
            ("pmrref", self.pmrref),
            ("alpha", self.alpha),
            ("xmax", self.xmax),
        ];
        for (name, v) in positive {
            if !(v.is_finite() && v > 0.0) {
                return Err(format!("{name} = {v} must be a positive number"));
            }
        }
        let non_negative = [
            ("rmin", self.rmin),
            ("eta", self.eta),
            ("qeps", self.qeps),
            ("dfilt", self.dfilt),
            ("gamma_max", self.gamma_max),
            ("qbound", self.qbound),
            ("multiloss", self.multiloss),
            ("lambda", self.lambda),
            ("dloss", self.dloss),
            ("dmark", self.dmark),
            ("beta_s", self.beta_s),
            ("beta_v", self.beta_v),
        ];
        for (name, v) in non_negative {
            if !(v.is_finite() && v >= 0.0) {
                return Err(format!("{name} = {v} must be a number at least 0"));
            }
        }
        if self.rmin > self.rmax {
            return Err(format!("rmin {} is above rmax {}", self.rmin, self.rmax));
        }
        if self.alpha > 1.0 {
            return Err(format!("alpha = {} is a smoothing factor, at most 1", self.alpha));
        }
        if self.filter_len == 0 {
            return Err("filter_len must be at least 1 sample".into());
        }
        Ok(())
    }
}

/// RFC 5348 §5.4's weights of the eight most recent loss intervals.
const INTERVAL_WEIGHTS: [f64; 8] = [1.0, 1.0, 1.0, 1.0, 0.8, 0.6, 0.4, 0.2];

/// A reported packet within the observation window.
#[derive(Debug, Clone, Copy)]
struct Sample {
    /// Receiver time: its arrival, or for a lost packet the report's.
    at: Time,
    size: Bytes,
    lost: bool,
    marked: bool,
    /// Its raw queueing delay d_fwd - d_base, ms (0 when lost).
    qdelay: f64,
}

/// One NADA sender.
#[derive(Debug, Clone)]
pub struct Nada {
    cfg: NadaConfig,
    r_ref: f64,
    x_curr: f64,
    x_prev: f64,
    t_last: Time,
    /// Smallest one-way delay seen (ns, receiver clock less sender clock: may be negative).
    d_base: Option<i128>,
    /// The last raw queueing delays, ms (§5.1.1's minimum filter).
    recent: VecDeque<f64>,
    d_queue: f64,
    window: VecDeque<Sample>,
    /// The newest receiver time seen.
    latest: Time,
    p_loss: f64,
    p_mark: f64,
    r_recv: f64,
    rmode: u8,
    /// Closed loss intervals (packets), newest first, and the packets since the last loss.
    intervals: VecDeque<u64>,
    since_loss: u64,
    updates: u64,
}

impl Nada {
    pub fn new(cfg: NadaConfig) -> Result<Nada, String> {
        cfg.check()?;
        Ok(Nada {
            // §4.3: r_ref starts at RMIN.
            r_ref: cfg.rmin,
            cfg,
            x_curr: 0.0,
            x_prev: 0.0,
            t_last: Time::ZERO,
            d_base: None,
            recent: VecDeque::new(),
            d_queue: 0.0,
            window: VecDeque::new(),
            latest: Time::ZERO,
            p_loss: 0.0,
            p_mark: 0.0,
            r_recv: 0.0,
            rmode: 0,
            intervals: VecDeque::new(),
            since_loss: 0,
            updates: 0,
        })
    }

    /// The reference rate r_ref, bits per second.
    pub fn r_ref(&self) -> f64 {
        self.r_ref
    }

    /// The aggregate congestion signal x_curr, ms.
    pub fn x_curr(&self) -> f64 {
        self.x_curr
    }

    /// The rate adaptation mode: 0 accelerated ramp-up, 1 gradual update.
    pub fn rmode(&self) -> u8 {
        self.rmode
    }

    pub fn p_loss(&self) -> f64 {
        self.p_loss
    }

    pub fn r_recv(&self) -> f64 {
        self.r_recv
    }

    /// The filtered queueing delay d_queue, ms.
    pub fn d_queue(&self) -> f64 {
        self.d_queue
    }

    /// Rate updates made.
    pub fn updates(&self) -> u64 {
        self.updates
    }

    /// §4.2 eq. (1): the warped queueing delay d_tilde.
    pub fn warp(&self, d_queue: f64) -> f64 {
        let qth = self.cfg.qth;
        if d_queue < qth {
            d_queue
        } else {
            qth * (-self.cfg.lambda * (d_queue - qth) / qth).exp()
        }
    }

    /// RFC 5348 §5.4's weighted mean of the last eight closed loss intervals (packets); `None`
    /// before the first loss.
    pub fn loss_interval(&self) -> Option<f64> {
        if self.intervals.is_empty() {
            return None;
        }
        let (mut sum, mut w) = (0.0, 0.0);
        for (&x, wi) in self.intervals.iter().zip(INTERVAL_WEIGHTS) {
            sum += x as f64 * wi;
            w += wi;
        }
        Some(sum / w)
    }

    /// §4.2: d_tilde where a loss is recent, d_queue where none is, and between them the linear
    /// blend over one loss interval.
    fn delay_term(&self) -> f64 {
        let Some(loss_int) = self.loss_interval() else { return self.d_queue };
        let since = self.since_loss as f64;
        let expiry = self.cfg.multiloss * loss_int;
        let warped = self.warp(self.d_queue);
        if since < expiry {
            warped
        } else if since < expiry + loss_int {
            let a = (since - expiry) / loss_int;
            a * self.d_queue + (1.0 - a) * warped
        } else {
            self.d_queue
        }
    }

    /// Takes one reported packet into the per-packet statistics.
    fn observe(&mut self, p: &PacketResult, report_at: Time) {
        match p.arrived_at {
            Some(at) => {
                // §4.2: d_fwd = t_curr - t_sent, d_base its minimum, d_queue the difference.
                let d_fwd = at.0 as i128 - p.sent_at.0 as i128;
                let base = self.d_base.map_or(d_fwd, |b| b.min(d_fwd));
                self.d_base = Some(base);
                let raw = (d_fwd - base) as f64 / 1e6;
                self.recent.push_back(raw);
                if self.recent.len() > self.cfg.filter_len {
                    self.recent.pop_front();
                }
                self.d_queue = self.recent.iter().copied().fold(f64::INFINITY, f64::min);
                self.since_loss += 1;
                self.latest = self.latest.max(at);
                self.window.push_back(Sample { at, size: p.size, lost: false, marked: p.ecn == Ecn::Ce, qdelay: raw });
            }
            None => {
                if !self.intervals.is_empty() || self.since_loss > 0 {
                    self.intervals.push_front(self.since_loss);
                    self.intervals.truncate(INTERVAL_WEIGHTS.len());
                }
                self.since_loss = 0;
                self.window.push_back(Sample { at: report_at, size: p.size, lost: true, marked: false, qdelay: 0.0 });
            }
        }
    }

    /// Drops samples older than LOGWIN before the newest receiver time, then derives §5.1's
    /// ratios and rate and §4.2's mode over what is left.
    fn window_stats(&mut self) -> (f64, f64, u8) {
        let logwin = Dur::from_secs_f64(self.cfg.logwin / 1e3);
        let from = Time(self.latest.0.saturating_sub(logwin.0));
        while self.window.front().is_some_and(|s| s.at < from) {
            self.window.pop_front();
        }
        let (mut n, mut lost, mut received, mut marked, mut bytes) = (0u64, 0u64, 0u64, 0u64, 0u64);
        let mut building = false;
        for s in &self.window {
            n += 1;
            if s.lost {
                lost += 1;
            } else {
                received += 1;
                marked += s.marked as u64;
                bytes += s.size.0;
                building |= s.qdelay >= self.cfg.qeps;
            }
        }
        self.r_recv = bytes as f64 * 8.0 / logwin.as_secs_f64();
        let p_inst = if n > 0 { lost as f64 / n as f64 } else { 0.0 };
        let m_inst = if received > 0 { marked as f64 / received as f64 } else { 0.0 };
        // The end of §4.2: accelerated ramp-up only without losses and without queue build-up
        // over the window.
        let rmode = if lost > 0 || building { 1 } else { 0 };
        (p_inst, m_inst, rmode)
    }

    /// §4.3's update at `now`, `rtt` ms, with the aggregate signal already computed.
    fn update_rate(&mut self, now: Time, rtt_ms: f64) {
        let c = &self.cfg;
        let delta = now.saturating_since(self.t_last).as_secs_f64() * 1e3;
        if self.rmode == 0 {
            // Eq. (3) and (4).
            let gamma = c.gamma_max.min(c.qbound / (rtt_ms + c.delta + c.dfilt));
            self.r_ref = self.r_ref.max((1.0 + gamma) * self.r_recv);
        } else {
            // Eq. (5) to (7).
            let x_offset = self.x_curr - c.prio * c.xref * c.rmax / self.r_ref;
            let x_diff = self.x_curr - self.x_prev;
            self.r_ref = self.r_ref
                - c.kappa * (delta / c.tau) * (x_offset / c.tau) * self.r_ref
                - c.kappa * c.eta * (x_diff / c.tau) * self.r_ref;
        }
        // Eq. (8) and (9).
        self.r_ref = self.r_ref.min(c.rmax).max(c.rmin);
        self.x_prev = self.x_curr;
        self.t_last = now;
        self.updates += 1;
    }

    /// Eq. (11) and (13): the encoder's target.
    pub fn r_vin(&self, buffer_bytes: u64, fps: f64) -> f64 {
        let r_diff_v = (0.05 * self.r_ref).min(self.cfg.beta_v * 8.0 * buffer_bytes as f64 * fps);
        self.cfg.rmin.max(self.r_ref - r_diff_v)
    }

    /// Eq. (12) and (14): the sending rate.
    pub fn r_send(&self, buffer_bytes: u64, fps: f64) -> f64 {
        let r_diff_s = (0.05 * self.r_ref).min(self.cfg.beta_s * 8.0 * buffer_bytes as f64 * fps);
        self.cfg.rmax.min(self.r_ref + r_diff_s)
    }
}

impl RateController for Nada {
    fn name(&self) -> &'static str {
        "nada"
    }

    fn start(&mut self, now: Time) {
        // §4.3: t_last starts at the current time.
        self.t_last = now;
    }

    /// A pause is no feedback interval: §4.3's delta counts from the resumption (our choice;
    /// the RFC has no pauses), so that eq. (7)'s offset term does not take the whole pause as
    /// one interval.
    fn resume(&mut self, now: Time) {
        self.t_last = now;
    }

    fn on_feedback(&mut self, now: Time, packets: &[PacketResult], view: &SenderView) {
        // The report's own receiver time dates its losses: the latest arrival it reports, or
        // the newest seen before it.
        let report_at = packets.iter().filter_map(|p| p.arrived_at).max().unwrap_or(self.latest).max(self.latest);
        for p in packets {
            self.observe(p, report_at);
        }
        self.latest = report_at;
        let (p_inst, m_inst, rmode) = self.window_stats();
        // Eq. (10), and its twin for marking.
        self.p_loss = self.cfg.alpha * p_inst + (1.0 - self.cfg.alpha) * self.p_loss;
        self.p_mark = self.cfg.alpha * m_inst + (1.0 - self.cfg.alpha) * self.p_mark;
        self.rmode = rmode;
        // Eq. (2).
        let c = &self.cfg;
        let x =
            self.delay_term() + c.dmark * (self.p_mark / c.pmrref).powi(2) + c.dloss * (self.p_loss / c.plrref).powi(2);
        self.x_curr = x.min(self.cfg.xmax);
        let rtt_ms = view.rtt.map_or(0.0, |d| d.as_secs_f64() * 1e3);
        self.update_rate(now, rtt_ms);
    }

    fn target_rate(&self, view: &SenderView) -> f64 {
        self.r_vin(view.queue_bytes, view.fps)
    }

    fn pacing_rate(&self, view: &SenderView) -> f64 {
        self.r_send(view.queue_bytes, view.fps)
    }

    /// RFC 8699 §6.1: "the UPDATE function call ... gives the FSE NADA's reference rate r_ref".
    fn coupled_rate(&self) -> Option<f64> {
        Some(self.r_ref)
    }

    /// RFC 8699 §6.1: FSE_R(i) "is used as their reference rate r_ref"; r_vin and r_send follow
    /// from it by §5.2.2 as always. It is taken as given, not clamped to [RMIN, RMAX] (eq. (8)
    /// and (9) clamp the next update's result): a clamped r_ref would make the next CC_R count
    /// the clamp as a change of rate and move S_CR by it. The FSE gives no flow more than
    /// RMAX, its desired rate; the encoder's r_vin stays at least RMIN by eq. (13).
    fn set_coupled_rate(&mut self, _now: Time, rate: f64) {
        self.r_ref = rate;
    }

    /// RMAX.
    fn max_rate(&self) -> f64 {
        self.cfg.rmax
    }

    fn state(&self, view: &SenderView) -> AgentState {
        AgentState {
            rate_bps: Some(self.r_vin(view.queue_bytes, view.fps)),
            loss_event_rate: Some(self.p_loss),
            srtt: view.rtt,
            ..AgentState::default()
        }
    }
}

#[cfg(test)]
#[path = "nada_tests.rs"]
mod tests;
