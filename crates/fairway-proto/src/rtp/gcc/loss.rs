//! The loss-based controller: the classic rule of draft-ietf-rmcat-gcc-02 §6, as WebRTC's
//! `SendSideBandwidthEstimation` ran it before its LossBasedBweV2:
//!
//! - loss fraction p < 2 % (WebRTC: p <= 2 %): increase, to 1.08 x the smallest target of the
//!   last second + 1 kb/s (the draft: 1.05 x the last estimate);
//! - p > 10 %: decrease to target x (1 - 0.5 p), at most once per loss report and per
//!   300 ms + RTT (WebRTC; the draft has no such spacing);
//! - otherwise hold.
//!
//! Today's WebRTC runs LossBasedBweV2 by default, a maximum-likelihood fit of an inherent loss
//! rate and a loss-limited bandwidth over a window of observations, with candidate rates, padding
//! states and some twenty field-trial parameters. fairway follows the classic rule instead: it is
//! the one the draft (and this task) describe, it is what WebRTC still runs with
//! LossBasedBweV2 disabled, and it can be checked against equations.
//!
//! As in WebRTC, the loss-based target never exceeds the delay-based estimate: every update caps
//! it there (so the final target, min(delay-based, loss-based) of the draft §6, is this
//! controller's value), and for the first 2 s after the first loss report, while no loss has
//! been seen, it follows the delay-based estimate upward as well (WebRTC's start phase).

use std::collections::VecDeque;

use fairway_core::{Dur, Time};

use super::arrival::diff_ns;

#[cfg(test)]
#[path = "loss_tests.rs"]
mod tests;

/// Below or at this loss fraction, increase (draft §6: 2 %; WebRTC: 0.02).
pub const LOW_LOSS: f64 = 0.02;
/// Above this, decrease (draft §6: 10 %; WebRTC: 0.1).
pub const HIGH_LOSS: f64 = 0.10;
/// The increase factor on the smallest target of the last [`INCREASE_INTERVAL`] (WebRTC: 1.08;
/// the draft says 1.05 on the last estimate).
pub const INCREASE_FACTOR: f64 = 1.08;
/// Added on each increase so low rates do not stall (WebRTC: 1 kb/s).
const INCREASE_OFFSET_BPS: f64 = 1_000.0;
/// The increase builds on the smallest target over this long (WebRTC: 1 s).
pub const INCREASE_INTERVAL: Dur = Dur::from_millis(1000);
/// Decreases are at least this plus an RTT apart (WebRTC: 300 ms).
const DECREASE_INTERVAL: Dur = Dur::from_millis(300);
/// A loss fraction is computed over reports at least this far apart (WebRTC's loss update
/// interval with per-packet feedback: 1 s, after RTCP's receiver-report spacing)...
pub const LOSS_UPDATE_INTERVAL: Dur = Dur::from_millis(1000);
/// ...and over at least this many packets (WebRTC: 20).
pub const MIN_PACKETS: u64 = 20;
/// A loss fraction older than this is not acted on (WebRTC: 1.2 x its 5 s longest expected
/// RTCP spacing).
const LOSS_FRESHNESS: Dur = Dur::from_millis(6000);
/// The start phase: this long after the first loss report (WebRTC: 2 s).
const START_PHASE: Dur = Dur::from_millis(2000);

/// The loss fraction in WebRTC's 8-bit fixed point (as RTCP's fraction lost), lost/expected x
/// 256 rounded down, at most 255.
pub fn fraction_q8(lost: u64, expected: u64) -> u8 {
    (lost << 8).checked_div(expected).map_or(0, |q| q.min(255) as u8)
}

/// The classic rule on `rate_bps` with loss fraction `p` (as a real number): the rate the draft
/// §6 gives for one update, with WebRTC's increase factor, where `base_bps` is the rate the
/// increase builds on (WebRTC: the smallest of the last second). `None`: hold.
pub fn classic_rule(rate_bps: f64, base_bps: f64, p: f64) -> Option<f64> {
    if p <= LOW_LOSS {
        Some(base_bps * INCREASE_FACTOR + INCREASE_OFFSET_BPS)
    } else if p <= HIGH_LOSS {
        None
    } else {
        Some(rate_bps * (1.0 - 0.5 * p))
    }
}

/// The controller's state.
#[derive(Debug, Clone)]
pub struct LossBased {
    rate_bps: f64,
    min_bps: f64,
    max_bps: f64,
    delay_limit_bps: Option<f64>,
    // Loss accounting.
    next_loss_update: Option<Time>,
    pending_lost: u64,
    pending_expected: u64,
    first_report: Option<Time>,
    last_report: Option<Time>,
    fraction: u8,
    decreased_since_report: bool,
    last_decrease: Option<Time>,
    /// (time, target) with the targets increasing: the front is the smallest of the last second.
    history: VecDeque<(Time, f64)>,
    rtt: Dur,
}

impl LossBased {
    pub fn new(start_bps: f64, min_bps: f64, max_bps: f64) -> LossBased {
        LossBased {
            rate_bps: start_bps.clamp(min_bps, max_bps),
            min_bps,
            max_bps,
            delay_limit_bps: None,
            next_loss_update: None,
            pending_lost: 0,
            pending_expected: 0,
            first_report: None,
            last_report: None,
            fraction: 0,
            decreased_since_report: false,
            last_decrease: None,
            history: VecDeque::new(),
            rtt: Dur::ZERO,
        }
    }

    /// The target, bits per second.
    pub fn rate_bps(&self) -> f64 {
        self.rate_bps
    }

    /// The latest loss fraction (0..1).
    pub fn loss_fraction(&self) -> f64 {
        self.fraction as f64 / 256.0
    }

    pub fn set_rtt(&mut self, rtt: Dur) {
        self.rtt = rtt;
    }

    /// Sets the target, capped by the delay-based estimate and the maximum, floored at the
    /// minimum.
    fn set_rate(&mut self, rate_bps: f64) {
        let cap = self.delay_limit_bps.unwrap_or(f64::INFINITY).min(self.max_bps);
        self.rate_bps = rate_bps.min(cap).max(self.min_bps);
    }

    /// The delay-based side took a probe's result (WebRTC's `SetSendBitrate`): the target
    /// becomes `rate_bps` outright (within the minimum and the maximum, no longer capped by the
    /// previous delay-based estimate), and the increase's history of the last second starts
    /// again from it.
    pub fn on_probe(&mut self, rate_bps: f64) {
        self.delay_limit_bps = None;
        self.set_rate(rate_bps);
        self.history.clear();
    }

    /// A new delay-based estimate.
    pub fn on_delay_based(&mut self, rate_bps: f64) {
        self.delay_limit_bps = Some(rate_bps);
        self.set_rate(self.rate_bps);
    }

    /// A feedback report at `now` covering `expected` packets of which `lost` were lost.
    /// Counts them; once per [`LOSS_UPDATE_INTERVAL`] (the first at once) hands the counts to
    /// the loss fraction, which is recomputed once it covers [`MIN_PACKETS`].
    pub fn on_report(&mut self, now: Time, lost: u64, expected: u64) {
        self.pending_lost += lost;
        self.pending_expected += expected;
        if self.next_loss_update.is_some_and(|t| now <= t) {
            return;
        }
        self.next_loss_update = Some(now + LOSS_UPDATE_INTERVAL);
        self.first_report.get_or_insert(now);
        if self.pending_expected == 0 || self.pending_expected < MIN_PACKETS {
            return;
        }
        self.fraction = fraction_q8(self.pending_lost, self.pending_expected);
        self.decreased_since_report = false;
        self.pending_lost = 0;
        self.pending_expected = 0;
        self.last_report = Some(now);
        self.update(now);
    }

    fn in_start_phase(&self, now: Time) -> bool {
        match self.first_report {
            None => true,
            Some(t) => diff_ns(now, t) < START_PHASE.0 as i64,
        }
    }

    /// Keeps `history` to the last second, increasing from front to back, ending with the
    /// current target.
    fn update_history(&mut self, now: Time) {
        while let Some(&(t, _)) = self.history.front() {
            // WebRTC keeps this in ms and adds 1 ms so that a sample just under 1 s old goes.
            if diff_ns(now, t) + 1_000_000 > INCREASE_INTERVAL.0 as i64 {
                self.history.pop_front();
            } else {
                break;
            }
        }
        while self.history.back().is_some_and(|&(_, r)| self.rate_bps <= r) {
            self.history.pop_back();
        }
        self.history.push_back((now, self.rate_bps));
    }

    /// Runs the rule at `now` (on every loss report and every process interval).
    pub fn update(&mut self, now: Time) {
        if self.fraction == 0 && self.in_start_phase(now) {
            let mut r = self.rate_bps;
            if let Some(d) = self.delay_limit_bps {
                r = r.max(d);
            }
            if r != self.rate_bps {
                self.history.clear();
                self.history.push_back((now, self.rate_bps));
                self.set_rate(r);
                return;
            }
        }
        self.update_history(now);
        let Some(last_report) = self.last_report else {
            self.set_rate(self.rate_bps);
            return;
        };
        if diff_ns(now, last_report) < LOSS_FRESHNESS.0 as i64 {
            let p = self.loss_fraction();
            let base = self.history.front().map_or(self.rate_bps, |&(_, r)| r);
            if p <= LOW_LOSS {
                if let Some(r) = classic_rule(self.rate_bps, base, p) {
                    self.set_rate(r);
                    return;
                }
            } else if p > HIGH_LOSS {
                let spaced =
                    self.last_decrease.is_none_or(|t| diff_ns(now, t) >= (DECREASE_INTERVAL + self.rtt).0 as i64);
                if !self.decreased_since_report && spaced {
                    self.last_decrease = Some(now);
                    // WebRTC computes it in the fixed point: rate x (512 - p_q8) / 512.
                    let r = self.rate_bps * (512.0 - self.fraction as f64) / 512.0;
                    self.decreased_since_report = true;
                    self.set_rate(r);
                    return;
                }
            }
        }
        self.set_rate(self.rate_bps);
    }
}
