//! Google Congestion Control as today's WebRTC (libwebrtc's GoogCC, send-side with per-packet
//! feedback) runs it, with draft-ietf-rmcat-gcc-02 as its description, behind the
//! [`RateController`] seam. Two estimates, one target:
//!
//! - delay-based (draft §5): received packets grouped by send time into 5 ms groups
//!   ([`arrival`]); each pair of groups gives a delay variation; WebRTC's trendline filter
//!   ([`trendline`], where the draft has a Kalman filter) turns them into a delay trend; the
//!   over-use detector with its adaptive threshold ([`overuse`]) says over-use, under-use or
//!   normal; the AIMD rate controller ([`aimd`]) moves the estimate, decreasing to 0.85 x the
//!   acknowledged bitrate ([`acked_rate`]) on over-use;
//! - loss-based (draft §6): the classic rule on the loss fraction ([`loss`]), capped by the
//!   delay-based estimate (so the target is min(delay-based, loss-based));
//! - target: that, clipped to [min, max] of [`GccConfig`]; pacing rate: pacing factor (2.5) x
//!   target;
//! - probing (WebRTC's, not in the draft): at the start the sender is asked for probe clusters
//!   at 3 and 6 x the start rate, and for one more at 2 x each estimate that reaches 0.7 of the
//!   last cluster's rate, up to the maximum ([`probe_controller`]); each cluster's reported
//!   packets give a send and a receive rate ([`probe_estimator`]); a report that completes a
//!   valid cluster sets the delay-based estimate to its result unless the detector signals
//!   over-use, no lower than min(last delay-based estimate, 0.85 x acknowledged rate) (WebRTC's
//!   LimitProbesLowerThanThroughputEstimate, on by default), and the loss-based target to it
//!   outright (WebRTC's `SetSendBitrate`). The sender sends a cluster from its queue's media
//!   and, when that runs dry, padding packets ([`super::sender`]).
//!
//! Where WebRTC departs from the draft fairway follows WebRTC, and says so where it does.
//! Left out, with reasons: WebRTC's probing in the application-limited region (off unless the
//! application asks for it) and after a large drop (which WebRTC does only in or just after
//! ALR), and on changes of the maximum or allocated rate (the seam changes neither during a
//! run) (see [`probe_controller`]); its
//! application-limited-region detector (the sender's queue and rates are not all visible to the
//! seam; the delay-based estimate behaves as WebRTC's does outside ALR), its RTT back-off (acts
//! only with RTTs over 3 s), its congestion window and pushback (off for the target in WebRTC's
//! default, which only drops frames), and LossBasedBweV2 (see [`loss`]).
//!
//! RFC 8888 reports arrival times to 1/1024 s, where WebRTC's transport-wide feedback has
//! 250 us: over a cluster of 15 ms at its rate, a receive rate is read to about 7 %.
//!
//! Send times are on the sender's clock, arrival times on the receiver's (from RFC 8888's
//! 1/1024 s offsets): only differences within each clock are used. RTTs come from the reports
//! themselves (as WebRTC does with per-packet feedback), not from [`SenderView`].
//!
//! Checked against the `goog_cc` crate (a Rust port of WebRTC's GoogCC) on shared feedback
//! traces in `referee_tests.rs`.

pub mod acked_rate;
pub mod aimd;
pub mod arrival;
pub mod loss;
pub mod overuse;
pub mod probe_controller;
pub mod probe_estimator;
pub mod trendline;

use std::collections::VecDeque;

use fairway_core::{Dur, Time};

use super::controller::{PacketResult, ProbeCluster, RateController, SenderView};
use crate::AgentState;
use acked_rate::AckedRate;
use aimd::Aimd;
use arrival::{diff_ns, InterArrival};
use loss::LossBased;
use overuse::{OveruseDetector, Usage};
use probe_controller::ProbeController;
use probe_estimator::ProbeEstimator;
use trendline::Trendline;

#[cfg(test)]
#[path = "gcc_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "referee_tests.rs"]
mod referee_tests;

/// The smallest rate WebRTC's controller goes to whatever it is configured with: 5 kb/s (its
/// congestion controller minimum bitrate).
pub const FLOOR_BPS: f64 = 5_000.0;
/// The pacing rate over the target (WebRTC's default pace multiplier, 2.5; the draft's §4
/// sending engine paces too).
pub const PACING_FACTOR: f64 = 2.5;
/// How often the loss-based rule runs besides on loss reports (WebRTC's process interval, 25 ms).
pub const PROCESS_INTERVAL: Dur = Dur::from_millis(25);
/// The delay-based side starts over after this long with no feedback (WebRTC's stream time-out,
/// 2 s).
const STREAM_TIMEOUT: Dur = Dur::from_secs(2);
/// RTT samples averaged for the AIMD's response time (WebRTC keeps the largest RTT of each of
/// the last 32 reports and takes their mean).
const RTT_WINDOW: usize = 32;
/// A probe's result is taken no lower than this share of the acknowledged rate (or the
/// delay-based estimate, if lower): WebRTC's `kProbeDropThroughputFraction`, 0.85, of its
/// LimitProbesLowerThanThroughputEstimate (on by default).
const PROBE_DROP_THROUGHPUT_FRACTION: f64 = 0.85;

/// GCC's configuration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GccConfig {
    /// The rate to start at, bits per second (WebRTC's default start bitrate: 300 kb/s).
    pub start_rate_bps: f64,
    /// The target never goes below this (WebRTC's default minimum bitrate for a call: 30 kb/s;
    /// its controller floors whatever is given at 5 kb/s, [`FLOOR_BPS`]).
    pub min_rate_bps: f64,
    /// Nor above this (fairway's default, 10 Mb/s: WebRTC leaves it to the application).
    pub max_rate_bps: f64,
    /// Pacing rate over target ([`PACING_FACTOR`]).
    pub pacing_factor: f64,
    /// The AIMD decrease factor on the acknowledged rate ([`aimd::BETA`]).
    pub beta: f64,
    /// The loss-based rule's timer ([`PROCESS_INTERVAL`]).
    pub process_interval: Dur,
    /// The acknowledged-bitrate estimator's first window ([`acked_rate::INITIAL_WINDOW_MS`],
    /// WebRTC's 500 ms; the goog_cc port's validation turns it into 1000 ms).
    pub acked_initial_window: Dur,
}

impl Default for GccConfig {
    fn default() -> Self {
        GccConfig {
            start_rate_bps: 300_000.0,
            min_rate_bps: 30_000.0,
            max_rate_bps: 10_000_000.0,
            pacing_factor: PACING_FACTOR,
            beta: aimd::BETA,
            process_interval: PROCESS_INTERVAL,
            acked_initial_window: Dur::from_millis(acked_rate::INITIAL_WINDOW_MS as u64),
        }
    }
}

impl GccConfig {
    /// Checks the values: rates finite and positive with min <= start <= max, a pacing factor of
    /// at least 1, 0 < beta < 1, a process interval of 1 ms to 1 s, a first acknowledged-rate
    /// window of 150 ms to 1 s (WebRTC's bounds).
    pub fn check(&self) -> Result<(), String> {
        for (name, v) in [
            ("start_rate_bps", self.start_rate_bps),
            ("min_rate_bps", self.min_rate_bps),
            ("max_rate_bps", self.max_rate_bps),
        ] {
            if !v.is_finite() || v <= 0.0 {
                return Err(format!("gcc: {name} must be finite and positive, not {v}"));
            }
        }
        if self.min_rate_bps > self.max_rate_bps {
            return Err(format!("gcc: min_rate_bps {} is above max_rate_bps {}", self.min_rate_bps, self.max_rate_bps));
        }
        if self.start_rate_bps < self.min_rate_bps || self.start_rate_bps > self.max_rate_bps {
            return Err(format!(
                "gcc: start_rate_bps {} is outside [{}, {}]",
                self.start_rate_bps, self.min_rate_bps, self.max_rate_bps
            ));
        }
        if !self.pacing_factor.is_finite() || self.pacing_factor < 1.0 {
            return Err(format!("gcc: pacing_factor must be at least 1, not {}", self.pacing_factor));
        }
        if !(self.beta > 0.0 && self.beta < 1.0) {
            return Err(format!("gcc: beta must be in (0, 1), not {}", self.beta));
        }
        if self.process_interval < Dur::from_millis(1) || self.process_interval > Dur::from_secs(1) {
            return Err(format!("gcc: process_interval must be 1 ms to 1 s, not {:?}", self.process_interval));
        }
        let w = self.acked_initial_window;
        if w < Dur::from_millis(acked_rate::WINDOW_MS as u64) || w > Dur::from_secs(1) {
            return Err(format!("gcc: acked_initial_window must be 150 ms to 1 s, not {w:?}"));
        }
        Ok(())
    }
}

/// The delay-based estimator: grouping, trendline, detector, AIMD.
#[derive(Debug, Clone)]
struct DelayBased {
    arrival: InterArrival,
    trendline: Trendline,
    detector: OveruseDetector,
    aimd: Aimd,
    last_report: Option<Time>,
}

impl DelayBased {
    fn restart_detection(&mut self) {
        self.arrival.reset();
        self.trendline = Trendline::default();
        self.detector = OveruseDetector::default();
    }
}

/// GCC's sender side.
#[derive(Debug, Clone)]
pub struct Gcc {
    cfg: GccConfig,
    delay: DelayBased,
    acked: AckedRate,
    loss: LossBased,
    rtts_ms: VecDeque<f64>,
    next_timer: Option<Time>,
    probe: ProbeController,
    probe_estimator: ProbeEstimator,
    /// The target the probe controller was last given.
    probe_told_bps: Option<f64>,
    /// The delay-based estimate of the last report that updated it (WebRTC's
    /// `DelayBasedBwe::last_estimate`: zero before any).
    last_delay_estimate_bps: f64,
}

/// What [`Gcc::on_feedback`] learned from one report's received packets, in arrival order.
#[derive(Debug, Clone, Copy)]
struct Received {
    seq: u64,
    size: u64,
    sent_at: Time,
    arrived_at: Time,
    cluster: Option<u32>,
}

impl Gcc {
    pub fn new(cfg: GccConfig) -> Result<Gcc, String> {
        cfg.check()?;
        let min = cfg.min_rate_bps.max(FLOOR_BPS);
        Ok(Gcc {
            cfg,
            delay: DelayBased {
                arrival: InterArrival::new(),
                trendline: Trendline::default(),
                detector: OveruseDetector::default(),
                aimd: Aimd::new(cfg.start_rate_bps, min, cfg.beta),
                last_report: None,
            },
            acked: AckedRate::new((cfg.acked_initial_window.0 / 1_000_000) as i64, acked_rate::WINDOW_MS),
            loss: LossBased::new(cfg.start_rate_bps, min, cfg.max_rate_bps),
            rtts_ms: VecDeque::with_capacity(RTT_WINDOW + 1),
            next_timer: None,
            probe: ProbeController::new(cfg.max_rate_bps),
            probe_estimator: ProbeEstimator::default(),
            probe_told_bps: None,
            last_delay_estimate_bps: 0.0,
        })
    }

    pub fn config(&self) -> &GccConfig {
        &self.cfg
    }

    /// The delay-based estimate, bits per second.
    pub fn delay_based_bps(&self) -> f64 {
        self.delay.aimd.rate_bps()
    }

    /// The loss-based estimate (already capped by the delay-based), bits per second.
    pub fn loss_based_bps(&self) -> f64 {
        self.loss.rate_bps()
    }

    /// The acknowledged bitrate, once known.
    pub fn acked_bps(&self) -> Option<f64> {
        self.acked.rate_bps()
    }

    /// The over-use detector's latest signal.
    pub fn usage(&self) -> Usage {
        self.delay.detector.usage()
    }

    /// The detector's adaptive threshold, ms.
    pub fn threshold_ms(&self) -> f64 {
        self.delay.detector.threshold()
    }

    /// The latest loss fraction.
    pub fn loss_fraction(&self) -> f64 {
        self.loss.loss_fraction()
    }

    /// The mean RTT the AIMD uses, once known.
    pub fn rtt(&self) -> Option<Dur> {
        if self.rtts_ms.is_empty() {
            None
        } else {
            Some(Dur::from_secs_f64(self.rtts_ms.iter().sum::<f64>() / self.rtts_ms.len() as f64 / 1000.0))
        }
    }

    /// The target, bits per second.
    pub fn target_bps(&self) -> f64 {
        self.loss.rate_bps().clamp(self.cfg.min_rate_bps, self.cfg.max_rate_bps)
    }

    /// The probe controller's state.
    pub fn probe_state(&self) -> probe_controller::ProbeState {
        self.probe.state()
    }

    /// Tells the probe controller the target (after a report that updated the delay-based
    /// estimate, or a timer that changed the target: WebRTC tells it whenever its target
    /// changes).
    fn tell_probe_controller(&mut self, now: Time) {
        let t = self.target_bps();
        let delay_increased = matches!(self.usage(), Usage::Overusing | Usage::Underusing);
        self.probe.on_estimate(now, t, delay_increased);
        self.probe_told_bps = Some(t);
    }

    /// The delay-based side's handling of one report (WebRTC's DelayBasedBwe): the received
    /// packets through grouping, trendline and detector, then one AIMD update, or the probe's
    /// result `probe` taken as the estimate when not over-using. Returns the estimate, if
    /// updated, and whether it is the probe's.
    fn delay_based(&mut self, now: Time, received: &[Received], probe: Option<f64>) -> Option<(f64, bool)> {
        if received.is_empty() {
            return None;
        }
        let d = &mut self.delay;
        if d.last_report.is_some_and(|t| diff_ns(now, t) > STREAM_TIMEOUT.0 as i64) {
            d.restart_detection();
        }
        d.last_report = Some(now);
        for p in received {
            if let Some(g) = d.arrival.on_packet(p.sent_at, p.arrived_at, now, p.size) {
                // WebRTC stamps the trendline's points and the threshold's clock in whole
                // milliseconds (the deltas themselves stay fractional).
                let at_ms = ((p.arrived_at.0 + 500_000) / 1_000_000) as f64;
                let trend = d.trendline.update(g.arrival_ms, g.send_ms, at_ms);
                d.detector.detect(trend, g.send_ms, at_ms);
            }
        }
        let acked = self.acked.rate_bps();
        let aimd = &mut d.aimd;
        match d.detector.usage() {
            Usage::Overusing => match acked {
                Some(a) => {
                    aimd.time_to_reduce_further(now, a).then(|| (aimd.update(Usage::Overusing, Some(a), now), false))
                }
                None => {
                    // Over-use before any acknowledged rate: halve (WebRTC), no faster than the
                    // further-decrease spacing.
                    let r = aimd.rate_bps();
                    aimd.time_to_reduce_further(now, r / 2.0 - 1.0).then(|| {
                        aimd.set_estimate(r / 2.0, now);
                        (aimd.rate_bps(), false)
                    })
                }
            },
            _ if probe.is_some() => {
                aimd.set_estimate(probe.expect("a probe result"), now);
                Some((aimd.rate_bps(), true))
            }
            usage => Some((aimd.update(usage, acked, now), false)),
        }
    }
}

impl RateController for Gcc {
    fn name(&self) -> &'static str {
        "gcc"
    }

    fn start(&mut self, now: Time) {
        self.next_timer = Some(now + self.cfg.process_interval);
        self.probe.start(now, self.cfg.start_rate_bps);
    }

    fn take_probe(&mut self, _now: Time) -> Option<ProbeCluster> {
        let c = self.probe.take()?;
        self.probe_estimator.expect(&c);
        Some(c)
    }

    fn on_feedback(&mut self, now: Time, packets: &[PacketResult], _view: &SenderView) {
        if packets.is_empty() {
            return;
        }
        let mut received: Vec<Received> = packets
            .iter()
            .filter_map(|p| {
                p.arrived_at.map(|a| Received {
                    seq: p.seq,
                    size: p.size.0,
                    sent_at: p.sent_at,
                    arrived_at: a,
                    cluster: p.cluster,
                })
            })
            .collect();
        // WebRTC reads a report's packets in arrival order (then send order, then sequence).
        received.sort_by_key(|p| (p.arrived_at, p.sent_at, p.seq));

        // RTTs (WebRTC with per-packet feedback only): the report's largest RTT feeds the
        // AIMD's mean; its smallest less the wait at the receiver spaces the loss decreases.
        if let Some(last_arrival) = received.iter().map(|p| p.arrived_at).max() {
            let mut max_rtt = i64::MIN;
            let mut min_rtt = i64::MAX;
            for p in &received {
                let rtt = diff_ns(now, p.sent_at);
                max_rtt = max_rtt.max(rtt);
                min_rtt = min_rtt.min(rtt - diff_ns(last_arrival, p.arrived_at));
            }
            self.rtts_ms.push_back(max_rtt as f64 / 1e6);
            if self.rtts_ms.len() > RTT_WINDOW {
                self.rtts_ms.pop_front();
            }
            if let Some(rtt) = self.rtt() {
                self.delay.aimd.set_rtt(rtt);
            }
            if min_rtt > 0 {
                self.loss.set_rtt(Dur(min_rtt as u64));
            }
        }

        let lost = (packets.len() - received.len()) as u64;
        self.loss.on_report(now, lost, packets.len() as u64);

        for p in &received {
            self.acked.on_packet(p.arrived_at, p.size);
        }

        // The probe clusters' packets, in arrival order: the last valid cluster's estimate is
        // the report's (WebRTC), taken no lower than min(the delay-based estimate, 0.85 x the
        // acknowledged rate).
        for p in &received {
            if let Some(id) = p.cluster {
                self.probe_estimator.on_packet(id, p.sent_at, p.arrived_at, p.size);
            }
        }
        let mut probe = self.probe_estimator.take_estimate();
        if let (Some(r), Some(a)) = (probe, self.acked.rate_bps()) {
            let floor = self.last_delay_estimate_bps.min(PROBE_DROP_THROUGHPUT_FRACTION * a);
            probe = Some(r.max(floor));
        }

        if let Some((rate, probed)) = self.delay_based(now, &received, probe) {
            self.last_delay_estimate_bps = rate;
            if probed {
                self.loss.on_probe(rate);
            }
            self.loss.on_delay_based(rate);
            self.tell_probe_controller(now);
        }
    }

    fn on_timer(&mut self, now: Time, _view: &SenderView) {
        self.loss.update(now);
        self.probe.process(now);
        if self.probe_told_bps != Some(self.target_bps()) {
            self.tell_probe_controller(now);
        }
        let step = self.cfg.process_interval;
        // The first tick of the timer's grid after `now` (ticks missed while the sender was
        // held up are not made up).
        let mut next = self.next_timer.unwrap_or(now) + step;
        if next <= now && !step.is_zero() {
            let missed = (now.0 - next.0) / step.0 + 1;
            next = Time(next.0.saturating_add(missed.saturating_mul(step.0)));
        }
        self.next_timer = Some(next);
    }

    fn next_timer(&self) -> Option<Time> {
        self.next_timer
    }

    fn target_rate(&self, _view: &SenderView) -> f64 {
        self.target_bps()
    }

    fn pacing_rate(&self, _view: &SenderView) -> f64 {
        self.cfg.pacing_factor * self.target_bps()
    }

    /// RFC 8699 Appendix A: "the UPDATE function call ... gives the FSE GCC's estimate of
    /// available bandwidth A_hat": the delay-based estimate (draft-ietf-rmcat-gcc-02 §5.5's
    /// A_hat, the AIMD's rate). The target stays GCC's own, min(A_hat, loss-based) within
    /// [min, max]. (Not the target: the AIMD's increase reaches the target only at the
    /// loss-based rule's next tick, and a redistribution by another flow in between would set
    /// the estimate back to the FSE's rate, losing the increase.)
    fn coupled_rate(&self) -> Option<f64> {
        Some(self.delay.aimd.rate_bps())
    }

    /// RFC 8699 Appendix A: FSE_R(i) "is used as the estimate of available bandwidth A_hat":
    /// the AIMD's rate, and so the cap the loss-based target keeps under.
    fn set_coupled_rate(&mut self, _now: Time, rate: f64) {
        self.delay.aimd.set_coupled(rate);
        self.loss.on_delay_based(self.delay.aimd.rate_bps());
    }

    /// The maximum bitrate.
    fn max_rate(&self) -> f64 {
        self.cfg.max_rate_bps
    }

    fn state(&self, _view: &SenderView) -> AgentState {
        AgentState {
            srtt: self.rtt(),
            rate_bps: Some(self.target_bps()),
            loss_event_rate: Some(self.loss_fraction()),
            ..AgentState::default()
        }
    }
}
