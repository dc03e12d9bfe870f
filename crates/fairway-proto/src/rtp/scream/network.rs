//! SCReAM's network congestion control (RFC 8298 §4.1.2): the congestion window `cwnd`, the
//! bytes in flight it bounds, the queue delay `qdelay` it steers by, and what the media rate
//! control reads of them (the qdelay trend, fast increase mode).
//!
//! Reading RFC 8888 feedback ([`PacketResult`]s) as RFC 8298 §4.2.1's elements:
//! - the highest acknowledged sequence number is the highest one reported received; bytes in
//!   flight are the sizes of the packets sent after it, lost ones included (§4.1.2), so a packet
//!   reported lost stays in flight until a later one is reported received;
//! - the qdelay sample of a report (§4.1.2: one per acknowledgement, "as outlined in
//!   [RFC6817]", no smoothing) is the one-way delay of its highest received packet less the
//!   base delay; the one-way delay is the arrival time (receiver's clock) less the send time
//!   (sender's clock), so only its changes matter. Every received packet's one-way delay
//!   updates the base delay history (RFC 6817 §4.2: BASE_HISTORY minima, one per
//!   `base_history_interval`, the base their minimum);
//! - n_ECN is the count of packets reported with ECN-CE: a report with any is an ECN event;
//! - loss detection (§4.1.2.4): the seam reports each packet once, received or not, so the
//!   reordering window the RFC asks for (a SHOULD) is the sender's and receiver's business
//!   before the report: a packet reported not received is lost.
//!
//! Choices the RFC leaves open, stated at their lines: a report with both a loss and an ECN
//! event is a loss event (§4.1.2.2's `if (is loss) ... else`); a congestion event's report runs
//! no `update_cwnd` and resets `bytes_newly_acked`; a report with no packet received is neither
//! an acknowledgement nor a qdelay sample; `loss_event_rate` is an EWMA, weight 1/64, over
//! intervals of one s_rtt of whether a loss was reported in each; the 5 s of low qdelay trend
//! that resume fast increase restart at each congestion event; before the first RTT sample the
//! pacing rate takes s_rtt to be 100 ms.

use std::collections::VecDeque;

use fairway_core::Time;

use super::super::controller::PacketResult;
use super::super::rfc8888::Ecn;
use super::ScreamConfig;

/// The length of qdelay_fraction_hist (§4.1.1.2: the last 20 samples).
pub const QDELAY_FRACTION_HIST_LEN: usize = 20;
/// The length of qdelay_norm_hist and the newest part of it averaged (§4.1.2.3's
/// `VARIANCE(qdelay_norm_history(200))` and `AVERAGE(qdelay_norm_history(50))`; §4.1.1.2's
/// state variable says `qdelay_norm_hist[100]`, which the pseudocode's 200 overrules).
pub const QDELAY_NORM_HIST_LEN: usize = 200;
pub const QDELAY_NORM_AVG_LEN: usize = 50;
/// The weight of a one-s_rtt interval in loss_event_rate (§4.1.1.2 defines it as "the
/// estimated fraction of RTTs with lost packets detected", not how it is estimated).
pub const LOSS_EVENT_RATE_WEIGHT: f64 = 1.0 / 64.0;
/// The s_rtt the pacing rate takes before the first RTT sample (the RFC's s_rtt starts at 0).
pub const S_RTT_BEFORE_SAMPLE: f64 = 0.1;
/// RFC 6298 §2.3's alpha, the weight of a new RTT sample in s_rtt (§4.1.1.2: "computed with a
/// similar method to that described in [RFC6298]").
pub const S_RTT_ALPHA: f64 = 1.0 / 8.0;

/// A congestion event (§4.1.2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Congestion {
    Loss,
    Ecn,
}

/// What a report did, for the media rate control.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FeedbackOutcome {
    /// A loss or ECN event, if the report was one.
    pub congestion: Option<Congestion>,
    /// Fast increase mode ended on the qdelay trend (§4.1.2.2's `update_cwnd`): congestion
    /// detected, which updates target_bitrate_last_max (§4.1.3).
    pub left_fast_increase: bool,
    /// Bytes of the packets reported received (for rate_ack, §4.1.3).
    pub bytes_received: u64,
}

/// RFC 6817 §4.2's base delay: the minima of the one-way delay over the last `len` intervals.
#[derive(Debug, Clone)]
struct BaseDelayHistory {
    /// (start of the interval, its minimum), oldest first.
    minima: VecDeque<(Time, f64)>,
    len: usize,
    interval: fairway_core::Dur,
}

impl BaseDelayHistory {
    fn update(&mut self, now: Time, owd: f64) {
        match self.minima.back_mut() {
            // RFC 6817 §4.2 update_base_delay: a new interval starts a new minimum ...
            Some((start, _)) if now - *start >= self.interval => {
                self.minima.push_back((now, owd));
                // ... and the oldest beyond BASE_HISTORY is forgotten.
                if self.minima.len() > self.len {
                    self.minima.pop_front();
                }
            }
            Some((_, min)) => *min = min.min(owd),
            None => self.minima.push_back((now, owd)),
        }
    }

    fn base(&self) -> Option<f64> {
        self.minima.iter().map(|&(_, m)| m).reduce(f64::min)
    }
}

/// What the media rate control reads of the network congestion control (§4.1.3).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct NetSignals {
    pub in_fast_increase: bool,
    pub qdelay_trend: f64,
    pub qdelay_trend_mem: f64,
}

/// A packet sent and not yet below the highest acknowledged sequence number.
#[derive(Debug, Clone, Copy)]
struct Sent {
    seq: u64,
    size: u64,
}

/// The network congestion control of one SCReAM sender.
#[derive(Debug, Clone)]
pub struct NetworkCongestionControl {
    cfg: ScreamConfig,
    /// §4.1.1.2's state variables, times in seconds.
    qdelay_target: f64,
    qdelay_fraction_avg: f64,
    qdelay_fraction_hist: VecDeque<f64>,
    qdelay_trend: f64,
    qdelay_trend_mem: f64,
    qdelay_norm_hist: VecDeque<f64>,
    in_fast_increase: bool,
    cwnd: f64,
    bytes_newly_acked: u64,
    s_rtt: Option<f64>,
    loss_event_rate: f64,
    /// The latest qdelay sample (0 before the first).
    qdelay: f64,
    base: BaseDelayHistory,
    /// Sent packets above the highest acknowledged sequence number, and their total size.
    in_flight: VecDeque<Sent>,
    bytes_in_flight: u64,
    highest_acked: Option<u64>,
    /// (when, bytes in flight) after each send, decreasing: the front is max_bytes_in_flight
    /// over `bytes_in_flight_window`.
    bif_max: VecDeque<(Time, u64)>,
    last_loss_event: Option<Time>,
    last_ecn_event: Option<Time>,
    /// The current loss_event_rate interval: its start and whether a loss was reported in it.
    loss_interval: Option<(Time, bool)>,
    /// Since when qdelay_trend has been below QDELAY_TREND_LO (§4.1.2.7).
    trend_low_since: Option<Time>,
}

impl NetworkCongestionControl {
    pub fn new(cfg: &ScreamConfig) -> NetworkCongestionControl {
        NetworkCongestionControl {
            // §4.1.1.2's initial values.
            qdelay_target: cfg.qdelay_target_lo.as_secs_f64(),
            qdelay_fraction_avg: 0.0,
            qdelay_fraction_hist: VecDeque::from(vec![0.0; QDELAY_FRACTION_HIST_LEN]),
            qdelay_trend: 0.0,
            qdelay_trend_mem: 0.0,
            qdelay_norm_hist: VecDeque::from(vec![0.0; QDELAY_NORM_HIST_LEN]),
            in_fast_increase: true,
            cwnd: cfg.min_cwnd as f64,
            bytes_newly_acked: 0,
            s_rtt: None,
            loss_event_rate: 0.0,
            qdelay: 0.0,
            base: BaseDelayHistory {
                minima: VecDeque::new(),
                len: cfg.base_history_len,
                interval: cfg.base_history_interval,
            },
            in_flight: VecDeque::new(),
            bytes_in_flight: 0,
            highest_acked: None,
            bif_max: VecDeque::new(),
            last_loss_event: None,
            last_ecn_event: None,
            loss_interval: None,
            trend_low_since: None,
            cfg: cfg.clone(),
        }
    }

    /// cwnd, bytes.
    pub fn cwnd(&self) -> u64 {
        self.cwnd as u64
    }
    pub fn bytes_in_flight(&self) -> u64 {
        self.bytes_in_flight
    }
    /// The latest qdelay sample and the current target, seconds.
    pub fn qdelay(&self) -> f64 {
        self.qdelay
    }
    pub fn qdelay_target(&self) -> f64 {
        self.qdelay_target
    }
    pub fn qdelay_trend(&self) -> f64 {
        self.qdelay_trend
    }
    pub fn qdelay_trend_mem(&self) -> f64 {
        self.qdelay_trend_mem
    }
    pub fn in_fast_increase(&self) -> bool {
        self.in_fast_increase
    }
    pub fn signals(&self) -> NetSignals {
        NetSignals {
            in_fast_increase: self.in_fast_increase,
            qdelay_trend: self.qdelay_trend,
            qdelay_trend_mem: self.qdelay_trend_mem,
        }
    }
    /// s_rtt, seconds; `None` before the first RTT sample.
    pub fn s_rtt(&self) -> Option<f64> {
        self.s_rtt
    }
    pub fn loss_event_rate(&self) -> f64 {
        self.loss_event_rate
    }
    /// The base one-way delay, seconds (on the receiver-less-sender clock offset).
    pub fn base_delay(&self) -> Option<f64> {
        self.base.base()
    }

    /// max_bytes_in_flight: the most bytes in flight after any send of the last
    /// `bytes_in_flight_window` (§4.1.2.2: "over the last 5 seconds").
    pub fn max_bytes_in_flight(&self) -> u64 {
        self.bif_max.front().map_or(0, |&(_, b)| b)
    }

    fn expire_bif_max(&mut self, now: Time) {
        while let Some(&(t, _)) = self.bif_max.front() {
            if now - t > self.cfg.bytes_in_flight_window {
                self.bif_max.pop_front();
            } else {
                break;
            }
        }
    }

    /// A packet of `size` bytes, sequence number `seq`, is sent at `now`.
    pub fn on_sent(&mut self, now: Time, seq: u64, size: u64) {
        // §4.1.2: bytes_in_flight counts every packet sent above the highest acknowledged.
        self.in_flight.push_back(Sent { seq, size });
        self.bytes_in_flight += size;
        self.expire_bif_max(now);
        while self.bif_max.back().is_some_and(|&(_, b)| b <= self.bytes_in_flight) {
            self.bif_max.pop_back();
        }
        self.bif_max.push_back((now, self.bytes_in_flight));
    }

    /// A report arrived at `now` with `packets` (in sequence order, each once) and, if the
    /// sender measured one, a new RTT sample.
    pub fn on_feedback(
        &mut self,
        now: Time,
        packets: &[PacketResult],
        rtt: Option<fairway_core::Dur>,
    ) -> FeedbackOutcome {
        let mut out = FeedbackOutcome::default();
        if let Some(r) = rtt {
            // s_rtt as RFC 6298 §2.2-2.3's SRTT.
            let r = r.as_secs_f64();
            self.s_rtt = Some(match self.s_rtt {
                None => r,
                Some(s) => (1.0 - S_RTT_ALPHA) * s + S_RTT_ALPHA * r,
            });
        }

        let mut newest_owd = None;
        let mut highest_received = None;
        let mut lost = 0usize;
        let mut ce = 0usize;
        for p in packets {
            match p.arrived_at {
                Some(at) => {
                    let owd = (at.as_nanos() as f64 - p.sent_at.as_nanos() as f64) * 1e-9;
                    self.base.update(now, owd);
                    newest_owd = Some(owd);
                    highest_received = Some(p.seq);
                    out.bytes_received += p.size.as_u64();
                    if p.ecn == Ecn::Ce {
                        ce += 1;
                    }
                }
                None => lost += 1,
            }
        }

        // §4.1.2: bytes_newly_acked grows by the sizes of the packets up to the new highest
        // acknowledged sequence number, lost ones included; they leave bytes_in_flight.
        if let Some(h) = highest_received.filter(|&h| self.highest_acked.is_none_or(|a| h > a)) {
            self.highest_acked = Some(h);
            while let Some(s) = self.in_flight.front().copied().filter(|s| s.seq <= h) {
                self.in_flight.pop_front();
                self.bytes_in_flight -= s.size;
                self.bytes_newly_acked += s.size;
            }
        }
        if let (Some(owd), Some(base)) = (newest_owd, self.base.base()) {
            self.qdelay = (owd - base).max(0.0);
        }

        self.update_loss_event_rate(now, lost > 0);

        // §4.1.2.1: further losses (ECN marks) are ignored for one s_rtt after a loss (ECN)
        // event.
        let within_s_rtt = |last: Option<Time>| match (last, self.s_rtt) {
            (Some(t), Some(s)) => (now - t).as_secs_f64() < s,
            _ => false,
        };
        let loss_event = lost > 0 && !within_s_rtt(self.last_loss_event);
        let ecn_event = ce > 0 && !within_s_rtt(self.last_ecn_event);
        if loss_event {
            self.last_loss_event = Some(now);
        }
        if ecn_event {
            self.last_ecn_event = Some(now);
        }
        // §4.1.2.2 "if (is loss) ... else ... ECN": a report with both is a loss event.
        let congestion = if loss_event {
            Some(Congestion::Loss)
        } else if ecn_event {
            Some(Congestion::Ecn)
        } else {
            None
        };
        let acked = newest_owd.is_some();
        match congestion {
            Some(kind) => self.on_congestion_event(now, kind, acked),
            // A report with no packet received is no acknowledgement (a choice: it carries no
            // qdelay sample and acknowledges nothing).
            None if acked => out.left_fast_increase = self.on_acknowledgement(now),
            None => {}
        }
        out.congestion = congestion;
        out
    }

    /// loss_event_rate (§4.1.1.2: "the estimated fraction of RTTs with lost packets
    /// detected"): an EWMA of weight LOSS_EVENT_RATE_WEIGHT over s_rtt-long intervals, each 1
    /// if a loss was reported in it, else 0. An interval closes at the first report at least
    /// s_rtt after it opened (each report closes one before the first RTT sample).
    fn update_loss_event_rate(&mut self, now: Time, lost: bool) {
        let (start, any) = self.loss_interval.get_or_insert((now, false));
        *any |= lost;
        let long = match self.s_rtt {
            Some(s) => (now - *start).as_secs_f64() >= s,
            None => true,
        };
        if long {
            let x = if *any { 1.0 } else { 0.0 };
            self.loss_event_rate = (1.0 - LOSS_EVENT_RATE_WEIGHT) * self.loss_event_rate + LOSS_EVENT_RATE_WEIGHT * x;
            self.loss_interval = Some((now, false));
        }
    }

    /// §4.1.2.2 "on congestion event(qdelay)".
    fn on_congestion_event(&mut self, now: Time, kind: Congestion, qdelay_sample: bool) {
        self.in_fast_increase = false;
        let beta = match kind {
            Congestion::Loss => self.cfg.beta_loss,
            Congestion::Ecn => self.cfg.beta_ecn,
        };
        self.cwnd = (self.cwnd * beta).max(self.cfg.min_cwnd as f64);
        // The event's report runs no update_cwnd, but cwnd was updated: bytes_newly_acked is
        // reset ("reset to zero after a CWND update", §4.1.2) (a choice).
        self.bytes_newly_acked = 0;
        if qdelay_sample {
            self.adjust_qdelay_target(self.qdelay);
        }
        // calculate_send_window: the send window is computed when asked ([`Self::send_window`]).
        // A choice: the T_RESUME_FAST_INCREASE of low trend restarts at a congestion event,
        // lest fast increase resume at the next acknowledgement.
        self.trend_low_since = Some(now);
    }

    /// §4.1.2.2 "on acknowledgement(qdelay)"; whether fast increase mode ended.
    fn on_acknowledgement(&mut self, now: Time) -> bool {
        let left = self.update_cwnd(now);
        self.adjust_qdelay_target(self.qdelay);
        // calculate_send_window: computed when asked.
        self.check_to_resume_fast_increase(now);
        left
    }

    /// §4.1.2.2 update_cwnd(bytes_newly_acked); whether it ended fast increase mode.
    fn update_cwnd(&mut self, now: Time) -> bool {
        let acked = self.bytes_newly_acked as f64;
        let bif = self.bytes_in_flight as f64;
        self.bytes_newly_acked = 0;
        let mut left = false;
        if self.in_fast_increase {
            if self.qdelay_trend >= self.cfg.qdelay_trend_th {
                // Incipient congestion: fast increase ends, and the LEDBAT update follows.
                self.in_fast_increase = false;
                left = true;
            } else {
                // Grow by the bytes acknowledged if cwnd is used enough (bytes_newly_acked is
                // the slack for sparse feedback).
                if bif * 1.5 + acked > self.cwnd {
                    self.cwnd += acked;
                }
                return false;
            }
        }
        // off_target as LEDBAT's (RFC 6817 §2.4.2), without its ALLOWED_INCREASE cap.
        let off_target = (self.qdelay_target - self.qdelay) / self.qdelay_target;
        let mut cwnd_delta = self.cfg.gain * off_target * acked * self.cfg.mss as f64 / self.cwnd;
        if off_target > 0.0 && bif * 1.25 + acked <= self.cwnd {
            // No increase while the window is underused.
            cwnd_delta = 0.0;
        }
        self.cwnd += cwnd_delta;
        // cwnd is at most MAX_BYTES_IN_FLIGHT_HEAD_ROOM times max_bytes_in_flight, at least
        // MIN_CWND.
        self.expire_bif_max(now);
        let cap = self.max_bytes_in_flight() as f64 * self.cfg.max_bytes_in_flight_head_room;
        self.cwnd = self.cwnd.min(cap).max(self.cfg.min_cwnd as f64);
        left
    }

    /// §4.1.2.3 adjust_qdelay_target(qdelay): the competing-flows compensation (off: the
    /// target stays QDELAY_TARGET_LO).
    fn adjust_qdelay_target(&mut self, qdelay: f64) {
        if !self.cfg.competing_flows_compensation {
            return;
        }
        let lo = self.cfg.qdelay_target_lo.as_secs_f64();
        let hi = self.cfg.qdelay_target_hi.as_secs_f64();
        self.qdelay_norm_hist.pop_front();
        self.qdelay_norm_hist.push_back(qdelay / lo);
        let var = variance(self.qdelay_norm_hist.iter().copied());
        let avg = mean(self.qdelay_norm_hist.iter().skip(QDELAY_NORM_HIST_LEN - QDELAY_NORM_AVG_LEN).copied());
        let new_target = (avg + var.sqrt()) * lo;
        if self.loss_event_rate > 0.002 {
            // Losses: a competing loss-based flow may hold the queue.
            self.qdelay_target = 1.5 * new_target;
        } else if var < 0.2 {
            // A steady queue delay: reasonably safe to set the target to it.
            self.qdelay_target = new_target;
        } else if new_target < lo {
            // The queue delay is below target: decrease quickly ...
            self.qdelay_target = (self.qdelay_target * 0.5).max(new_target);
        } else {
            // ... else slowly.
            self.qdelay_target *= 0.9;
        }
        self.qdelay_target = self.qdelay_target.clamp(lo, hi);
    }

    /// §4.1.2.7: fast increase resumes after qdelay_trend has stayed below QDELAY_TREND_LO
    /// for T_RESUME_FAST_INCREASE.
    fn check_to_resume_fast_increase(&mut self, now: Time) {
        if let Some(since) = self.trend_low_since {
            if now - since >= self.cfg.t_resume_fast_increase {
                self.in_fast_increase = true;
            }
        }
    }

    /// §4.1.2 update_variables(qdelay), run every 50 ms on the latest qdelay sample (the RFC:
    /// "the same qdelay is sampled several times" when feedback is sparser), at `now`.
    pub fn sample_qdelay(&mut self, now: Time) {
        let qdelay_fraction = self.qdelay / self.qdelay_target;
        let w = self.cfg.qdelay_weight;
        self.qdelay_fraction_avg = (1.0 - w) * self.qdelay_fraction_avg + w * qdelay_fraction;
        self.qdelay_fraction_hist.pop_front();
        self.qdelay_fraction_hist.push_back(qdelay_fraction);
        let a = prediction_coefficient(self.qdelay_fraction_hist.make_contiguous());
        self.qdelay_trend = (a * self.qdelay_fraction_avg).clamp(0.0, 1.0);
        // The peak-hold memory of past congestion.
        self.qdelay_trend_mem = (0.99 * self.qdelay_trend_mem).max(self.qdelay_trend);
        // §4.1.2.7's clock: since when the trend has been low.
        if self.qdelay_trend < self.cfg.qdelay_trend_lo {
            self.trend_low_since.get_or_insert(now);
        } else {
            self.trend_low_since = None;
        }
    }

    /// The sender gave up on its packets in flight (`ScreamConfig::stall_timeout`): they leave
    /// bytes_in_flight unacknowledged, and a report that covers them later finds them gone.
    pub fn forget_in_flight(&mut self) {
        self.in_flight.clear();
        self.bytes_in_flight = 0;
    }

    /// §4.1.2.5 calculate_send_window: the relaxed rule (one MSS more) while qdelay is at most
    /// its target, the strict one above.
    pub fn send_window(&self) -> i64 {
        let cwnd = self.cwnd as i64;
        let bif = self.bytes_in_flight as i64;
        if self.qdelay <= self.qdelay_target {
            cwnd + self.cfg.mss as i64 - bif
        } else {
            cwnd - bif
        }
    }

    /// §4.1.2.5's send window before the bytes in flight are taken off: cwnd and one MSS more
    /// while qdelay is at most its target, cwnd above it.
    pub fn window_bytes(&self) -> u64 {
        let extra = if self.qdelay <= self.qdelay_target { self.cfg.mss } else { 0 };
        self.cwnd as u64 + extra
    }

    /// §4.1.2.6: pace_bitrate = max(RATE_PACE_MIN, cwnd * 8 / s_rtt), bits per second (s_rtt
    /// taken as S_RTT_BEFORE_SAMPLE before the first RTT sample).
    pub fn pace_bitrate(&self) -> f64 {
        let s_rtt = self.s_rtt.unwrap_or(S_RTT_BEFORE_SAMPLE).max(1e-6);
        (self.cwnd * 8.0 / s_rtt).max(self.cfg.rate_pace_min)
    }
}

/// §4.1.2's `a_t = R(x - avg, 1) / R(x - avg, 0)`, R the biased autocorrelation
/// `R(x, k) = sum_{n=1}^{N-k} x(n) x(n+k)`; 0 when R(x - avg, 0) is 0 to rounding (a flat history:
/// no trend).
pub fn prediction_coefficient(x: &[f64]) -> f64 {
    let avg = mean(x.iter().copied());
    let d: Vec<f64> = x.iter().map(|v| v - avg).collect();
    let r = |k: usize| d.iter().zip(&d[k..]).map(|(a, b)| a * b).sum::<f64>();
    let r0 = r(0);
    // Flat to rounding (the mean of equal values need not be exactly them): no trend.
    let scale = x.iter().map(|v| v * v).sum::<f64>();
    if r0 > 1e-12 * scale {
        r(1) / r0
    } else {
        0.0
    }
}

fn mean(it: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = it.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    if n == 0 {
        0.0
    } else {
        sum / n as f64
    }
}

/// The population variance (§4.1.2.3's VARIANCE does not say which; the history is the whole
/// population it speaks of).
fn variance(it: impl Iterator<Item = f64> + Clone) -> f64 {
    let m = mean(it.clone());
    mean(it.map(|v| (v - m) * (v - m)))
}

#[cfg(test)]
#[path = "network_tests.rs"]
mod tests;
