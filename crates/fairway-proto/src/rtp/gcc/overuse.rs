//! The over-use detector with its adaptive threshold (draft-ietf-rmcat-gcc-02 §5.4, as WebRTC's
//! trendline estimator runs it). The trend from [`super::trendline`] is scaled to
//! m = min(n, 60) * trend * 4 (n the deltas seen so far) and compared with a threshold del_var_th
//! that follows |m|: over-use when m stays above it for more than 10 ms (and for at least two
//! deltas, with a trend not falling), under-use when m is below -del_var_th, normal otherwise.

#[cfg(test)]
#[path = "overuse_tests.rs"]
mod tests;

/// The detector's signal (the draft's "overuse", "underuse", "normal").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Usage {
    #[default]
    Normal,
    Overusing,
    Underusing,
}

/// Gain on the trend (WebRTC's trendline threshold gain, 4; the draft's Kalman m(i) needs none).
pub const THRESHOLD_GAIN: f64 = 4.0;
/// The trend is scaled by the deltas seen, up to this many (WebRTC: 60).
pub const MAX_DELTAS_SCALE: u32 = 60;
/// Threshold gain when |m| is above it (WebRTC: 0.0087 for the trendline; the draft's K_u,
/// 0.01, is for its Kalman estimate).
pub const K_UP: f64 = 0.0087;
/// Threshold gain when |m| is below it (WebRTC: 0.039; the draft's K_d is 0.00018).
pub const K_DOWN: f64 = 0.039;
/// del_var_th(0), ms (draft §5.6 and WebRTC: 12.5).
pub const INITIAL_THRESHOLD: f64 = 12.5;
/// The threshold stays in this range, ms (draft §5.4 and WebRTC: [6, 600]).
pub const THRESHOLD_MIN: f64 = 6.0;
pub const THRESHOLD_MAX: f64 = 600.0;
/// overuse_time_th, ms (draft §5.4, §5.6 and WebRTC: 10 ms).
pub const OVERUSE_TIME_MS: f64 = 10.0;
/// A |m| this far above the threshold does not move it (draft §5.4: 15 ms; WebRTC the same).
pub const MAX_ADAPT_OFFSET: f64 = 15.0;
/// The time step of one threshold update is at most this long, ms (WebRTC: 100 ms).
pub const MAX_ADAPT_STEP_MS: f64 = 100.0;

/// One threshold update (draft §5.4): del_var_th += dt * K * (|m| - del_var_th), K = K_d when
/// |m| < del_var_th else K_u, skipped when |m| - del_var_th > 15 ms, clamped to [6, 600] ms.
pub fn adapt_threshold(threshold: f64, m: f64, dt_ms: f64, k_up: f64, k_down: f64) -> f64 {
    if m.abs() > threshold + MAX_ADAPT_OFFSET {
        return threshold;
    }
    let k = if m.abs() < threshold { k_down } else { k_up };
    let dt = dt_ms.clamp(0.0, MAX_ADAPT_STEP_MS);
    (threshold + k * (m.abs() - threshold) * dt).clamp(THRESHOLD_MIN, THRESHOLD_MAX)
}

/// The detector's state.
#[derive(Debug, Clone)]
pub struct OveruseDetector {
    k_up: f64,
    k_down: f64,
    threshold: f64,
    /// Time m has been above the threshold, ms; `None` when it is not.
    overuse_ms: Option<f64>,
    overuse_count: u32,
    prev_trend: f64,
    last_update_ms: Option<f64>,
    deltas: u32,
    usage: Usage,
    modified_trend: f64,
}

impl Default for OveruseDetector {
    fn default() -> Self {
        OveruseDetector::new(K_UP, K_DOWN)
    }
}

impl OveruseDetector {
    pub fn new(k_up: f64, k_down: f64) -> OveruseDetector {
        OveruseDetector {
            k_up,
            k_down,
            threshold: INITIAL_THRESHOLD,
            overuse_ms: None,
            overuse_count: 0,
            prev_trend: 0.0,
            last_update_ms: None,
            deltas: 0,
            usage: Usage::Normal,
            modified_trend: 0.0,
        }
    }

    /// One group delta's trend; `send_delta_ms` the group's send spacing, `now_ms` the arrival
    /// time of the packet that closed it (receiver's clock).
    pub fn detect(&mut self, trend: f64, send_delta_ms: f64, now_ms: f64) -> Usage {
        // WebRTC counts deltas up to 1000; only min(n, 60) is read.
        self.deltas = (self.deltas + 1).min(1000);
        if self.deltas < 2 {
            self.usage = Usage::Normal;
            return self.usage;
        }
        let m = self.deltas.min(MAX_DELTAS_SCALE) as f64 * trend * THRESHOLD_GAIN;
        self.modified_trend = m;
        if m > self.threshold {
            // Draft §5.4: over-use is signalled once m has stayed above the threshold for
            // overuse_time_th; the time starts at half a send spacing (WebRTC), and WebRTC also
            // wants two deltas above it and a trend that is not falling.
            let t = match self.overuse_ms {
                None => send_delta_ms / 2.0,
                Some(t) => t + send_delta_ms,
            };
            self.overuse_ms = Some(t);
            self.overuse_count += 1;
            if t > OVERUSE_TIME_MS && self.overuse_count > 1 && trend >= self.prev_trend {
                self.overuse_ms = Some(0.0);
                self.overuse_count = 0;
                self.usage = Usage::Overusing;
            }
        } else if m < -self.threshold {
            self.overuse_ms = None;
            self.overuse_count = 0;
            self.usage = Usage::Underusing;
        } else {
            self.overuse_ms = None;
            self.overuse_count = 0;
            self.usage = Usage::Normal;
        }
        self.prev_trend = trend;
        let last = *self.last_update_ms.get_or_insert(now_ms);
        if m.abs() > self.threshold + MAX_ADAPT_OFFSET {
            // Draft §5.4: a spike does not move the threshold (and WebRTC restarts its clock).
            self.last_update_ms = Some(now_ms);
        } else {
            self.threshold = adapt_threshold(self.threshold, m, now_ms - last, self.k_up, self.k_down);
            self.last_update_ms = Some(now_ms);
        }
        self.usage
    }

    pub fn usage(&self) -> Usage {
        self.usage
    }

    /// del_var_th, ms.
    pub fn threshold(&self) -> f64 {
        self.threshold
    }

    /// The latest m, ms.
    pub fn modified_trend(&self) -> f64 {
        self.modified_trend
    }
}
