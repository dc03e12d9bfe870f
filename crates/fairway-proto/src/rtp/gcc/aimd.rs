//! The delay-based rate controller (draft-ietf-rmcat-gcc-02 §5.5, as WebRTC's
//! `AimdRateControl` runs it): a state machine of increase, hold and decrease driven by the
//! over-use detector's signal.
//!
//! - normal: increase, multiplicatively (8 %/s) while the link capacity is unknown, additively
//!   (about one packet per response time) once an over-use has measured it and the acknowledged
//!   rate is still within three standard deviations of it; never above 1.5 x the acknowledged
//!   rate + 10 kb/s;
//! - over-use: decrease to 0.85 x the acknowledged rate (less 5 kb/s in WebRTC), then hold;
//! - under-use: hold (the queues are draining).

use fairway_core::{Dur, Time};

use super::arrival::diff_ns;
use super::overuse::Usage;

#[cfg(test)]
#[path = "aimd_tests.rs"]
mod tests;

/// beta, the decrease factor on the acknowledged rate (draft §5.5: alpha in [0.8, 0.95], 0.85
/// in §5.6's table; WebRTC's default back-off factor: 0.85).
pub const BETA: f64 = 0.85;
/// eta, the multiplicative increase per second (draft §5.5 and WebRTC: 1.08).
pub const ETA: f64 = 1.08;
/// WebRTC takes this off the decreased rate when it is larger (5 kb/s; not in the draft).
const DECREASE_OFFSET_BPS: f64 = 5_000.0;
/// The smallest multiplicative step, bits per second (WebRTC: 1 kb/s; the draft's additive step
/// has the same floor, 1000 bits).
const MIN_MULTIPLICATIVE_STEP_BPS: f64 = 1_000.0;
/// The increase is capped at 1.5 x the acknowledged rate (draft §5.5) plus 10 kb/s (WebRTC).
const INCREASE_LIMIT_FACTOR: f64 = 1.5;
const INCREASE_LIMIT_OFFSET_BPS: f64 = 10_000.0;
/// The RTT assumed until one is known (WebRTC: 200 ms).
pub const DEFAULT_RTT: Dur = Dur::from_millis(200);
/// Frame rate assumed for the additive step's packet size (draft §5.5 and WebRTC: 30 fps).
const ASSUMED_FPS: f64 = 30.0;
/// Packet size assumed for it (WebRTC: 1200 bytes).
const ASSUMED_PACKET_BYTES: f64 = 1200.0;
/// The over-use detector's own delay in the response time (draft §5.5 and WebRTC: 100 ms).
const DETECTOR_DELAY_MS: f64 = 100.0;
/// The additive increase is at least this, bits per second per second (WebRTC: 4 kb/s/s).
const MIN_ADDITIVE_BPS_PER_S: f64 = 4_000.0;
/// A further decrease while over-using waits for an RTT, clamped to this range (WebRTC: 10 ms
/// to 200 ms)...
const REDUCE_INTERVAL_MIN: Dur = Dur::from_millis(10);
const REDUCE_INTERVAL_MAX: Dur = Dur::from_millis(200);
/// ...unless the acknowledged rate fell below this share of the estimate (WebRTC: 0.5).
const REDUCE_NOW_SHARE: f64 = 0.5;
/// The link capacity estimate's smoothing on each over-use (WebRTC: 0.05; the draft §5.5 says
/// an exponential moving average of the rates at over-use).
const CAPACITY_ALPHA: f64 = 0.05;
/// Its normalised variance stays in this range (WebRTC: 0.4 to 2.5, in kb/s).
const CAPACITY_DEV_MIN: f64 = 0.4;
const CAPACITY_DEV_MAX: f64 = 2.5;
/// "Near the link capacity" is within this many standard deviations of it (draft §5.5 and
/// WebRTC: 3).
const CAPACITY_STD_DEVS: f64 = 3.0;

/// The draft's rate control state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RateState {
    Hold,
    Increase,
    Decrease,
}

/// The average acknowledged rate at over-use and its normalised variance (draft §5.5's "average
/// max bitrate", WebRTC's `LinkCapacityEstimator`), kb/s.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkCapacity {
    estimate_kbps: Option<f64>,
    deviation_kbps: f64,
}

impl Default for LinkCapacity {
    fn default() -> Self {
        LinkCapacity { estimate_kbps: None, deviation_kbps: CAPACITY_DEV_MIN }
    }
}

impl LinkCapacity {
    fn std_kbps(&self, est: f64) -> f64 {
        (self.deviation_kbps * est).sqrt()
    }

    /// The estimate plus three standard deviations; unbounded when there is none.
    pub fn upper_bps(&self) -> f64 {
        match self.estimate_kbps {
            Some(e) => (e + CAPACITY_STD_DEVS * self.std_kbps(e)) * 1000.0,
            None => f64::INFINITY,
        }
    }

    /// The estimate less three standard deviations; zero when there is none.
    pub fn lower_bps(&self) -> f64 {
        match self.estimate_kbps {
            Some(e) => (e - CAPACITY_STD_DEVS * self.std_kbps(e)).max(0.0) * 1000.0,
            None => 0.0,
        }
    }

    pub fn estimate_bps(&self) -> Option<f64> {
        self.estimate_kbps.map(|e| e * 1000.0)
    }

    pub fn reset(&mut self) {
        self.estimate_kbps = None;
    }

    /// An over-use at acknowledged rate `rate_bps`.
    pub fn on_overuse(&mut self, rate_bps: f64) {
        let sample = rate_bps / 1000.0;
        let est = match self.estimate_kbps {
            Some(e) => (1.0 - CAPACITY_ALPHA) * e + CAPACITY_ALPHA * sample,
            None => sample,
        };
        let err = est - sample;
        let dev = (1.0 - CAPACITY_ALPHA) * self.deviation_kbps + CAPACITY_ALPHA * err * err / est.max(1.0);
        self.deviation_kbps = dev.clamp(CAPACITY_DEV_MIN, CAPACITY_DEV_MAX);
        self.estimate_kbps = Some(est);
    }
}

/// The additive increase near the link capacity, bits per second per second: one average packet
/// (of a 30 fps stream at `rate_bps` cut into packets of at most 1200 bytes) per response time,
/// the response time being 2 x (RTT + 100 ms). The draft (§5.5) adds
/// 0.5 * min(dt / (RTT + 100 ms), 1) packets per update, the same slope without the cap; WebRTC
/// drops the cap and floors the slope at 4 kb/s/s, which fairway follows.
pub fn near_max_increase_bps_per_s(rate_bps: f64, rtt: Dur) -> f64 {
    let frame_bytes = (rate_bps / ASSUMED_FPS / 8.0).round();
    let packets = (frame_bytes / ASSUMED_PACKET_BYTES).ceil().max(1.0);
    let packet_bits = 8.0 * frame_bytes / packets;
    let response_s = 2.0 * (rtt.as_secs_f64() + DETECTOR_DELAY_MS / 1000.0);
    (packet_bits / response_s).max(MIN_ADDITIVE_BPS_PER_S)
}

/// The controller's state.
#[derive(Debug, Clone)]
pub struct Aimd {
    rate_bps: f64,
    min_bps: f64,
    beta: f64,
    state: RateState,
    last_change: Option<Time>,
    /// The acknowledged rate last given (the start rate before any).
    last_acked_bps: f64,
    link: LinkCapacity,
    rtt: Dur,
}

impl Aimd {
    /// Starts at `start_bps` (WebRTC's delay-based estimate starts at the configured start rate),
    /// never below `min_bps`.
    pub fn new(start_bps: f64, min_bps: f64, beta: f64) -> Aimd {
        Aimd {
            rate_bps: start_bps.max(min_bps),
            min_bps,
            beta,
            state: RateState::Hold,
            last_change: None,
            last_acked_bps: start_bps,
            link: LinkCapacity::default(),
            rtt: DEFAULT_RTT,
        }
    }

    pub fn rate_bps(&self) -> f64 {
        self.rate_bps
    }

    pub fn state(&self) -> RateState {
        self.state
    }

    pub fn link_capacity(&self) -> &LinkCapacity {
        &self.link
    }

    pub fn set_rtt(&mut self, rtt: Dur) {
        self.rtt = rtt;
    }

    /// Sets the estimate outright (the halving on over-use before any acknowledged rate).
    pub fn set_estimate(&mut self, rate_bps: f64, now: Time) {
        self.rate_bps = rate_bps.max(self.min_bps);
        self.last_change = Some(now);
    }

    /// Takes RFC 8699's coupled rate as the estimate (Appendix A: FSE_R(i) is used as A_hat),
    /// floored at the minimum. The time of the last change stays: the increase counts from the
    /// controller's own last update, not from when another flow's update moved this one.
    pub fn set_coupled(&mut self, rate_bps: f64) {
        self.rate_bps = rate_bps.max(self.min_bps);
    }

    /// While over-using: whether to decrease again at `now` given acknowledged rate `acked_bps`
    /// (an RTT, clamped to 10..200 ms, has passed since the last change, or the acknowledged
    /// rate is below half the estimate; WebRTC).
    pub fn time_to_reduce_further(&self, now: Time, acked_bps: f64) -> bool {
        let interval = self.rtt.clamp(REDUCE_INTERVAL_MIN, REDUCE_INTERVAL_MAX);
        match self.last_change {
            None => true,
            Some(t) if diff_ns(now, t) >= interval.0 as i64 => true,
            _ => acked_bps < REDUCE_NOW_SHARE * self.rate_bps,
        }
    }

    /// Draft §5.5's state transitions: over-use always decreases; normal turns hold into
    /// increase; under-use holds.
    fn transition(&mut self, usage: Usage, now: Time) {
        match usage {
            Usage::Normal => {
                if self.state == RateState::Hold {
                    self.last_change = Some(now);
                    self.state = RateState::Increase;
                }
            }
            Usage::Overusing => self.state = RateState::Decrease,
            Usage::Underusing => self.state = RateState::Hold,
        }
    }

    /// One update with the detector's `usage` and the acknowledged rate, if known; returns the
    /// new estimate.
    pub fn update(&mut self, usage: Usage, acked_bps: Option<f64>, now: Time) -> f64 {
        if let Some(a) = acked_bps {
            self.last_acked_bps = a;
        }
        let acked = self.last_acked_bps;
        self.transition(usage, now);
        let mut new_rate = self.rate_bps;
        match self.state {
            RateState::Hold => {}
            RateState::Increase => {
                if acked > self.link.upper_bps() {
                    // The acknowledged rate left the capacity estimate behind: the capacity
                    // is unknown again, so ramp multiplicatively.
                    self.link.reset();
                }
                let limit = INCREASE_LIMIT_FACTOR * acked + INCREASE_LIMIT_OFFSET_BPS;
                if self.rate_bps < limit {
                    let dt_s = self.last_change.map_or(0.0, |t| diff_ns(now, t).max(0) as f64 / 1e9);
                    let step = if self.link.estimate_bps().is_some() {
                        near_max_increase_bps_per_s(self.rate_bps, self.rtt) * dt_s
                    } else {
                        // Draft §5.5: eta^min(dt, 1 s); the first step, with no time since a
                        // change, is a whole second's (WebRTC).
                        let eta = match self.last_change {
                            Some(_) => ETA.powf(dt_s.min(1.0)),
                            None => ETA,
                        };
                        (self.rate_bps * (eta - 1.0)).max(MIN_MULTIPLICATIVE_STEP_BPS)
                    };
                    new_rate = (self.rate_bps + step).min(limit);
                }
                self.last_change = Some(now);
            }
            RateState::Decrease => {
                // Draft §5.5: A = beta * R_hat, to let the queue drain; WebRTC takes another
                // 5 kb/s off, and falls back to beta x the capacity estimate if that would be an
                // increase.
                let mut d = self.beta * acked;
                if d > DECREASE_OFFSET_BPS {
                    d -= DECREASE_OFFSET_BPS;
                }
                if d > self.rate_bps {
                    if let Some(c) = self.link.estimate_bps() {
                        d = self.beta * c;
                    }
                }
                if d < self.rate_bps {
                    new_rate = d;
                }
                if acked < self.link.lower_bps() {
                    self.link.reset();
                }
                self.link.on_overuse(acked);
                self.state = RateState::Hold;
                self.last_change = Some(now);
            }
        }
        self.rate_bps = new_rate.max(self.min_bps);
        self.rate_bps
    }
}
