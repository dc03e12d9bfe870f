//! The acknowledged bitrate: the rate at which the receiver got the sender's packets, from the
//! reported arrival times and sizes. The draft (draft-ietf-rmcat-gcc-02 §5.5) measures R_hat,
//! the incoming bitrate, over a 0.5 to 1 s window; WebRTC's default estimator (its
//! `AcknowledgedBitrateEstimator` over `BitrateEstimator`; the newer robust throughput estimator
//! is off by default) keeps a Bayesian estimate fed by one sample per 150 ms window of arrivals
//! (the first window 500 ms), each sample weighted down the further it lies from the estimate.
//! fairway follows WebRTC.

use fairway_core::Time;

#[cfg(test)]
#[path = "acked_rate_tests.rs"]
mod tests;

/// The window of the first sample, ms (WebRTC: 500 ms).
pub const INITIAL_WINDOW_MS: i64 = 500;
/// The window of every later sample, ms (WebRTC: 150 ms).
pub const WINDOW_MS: i64 = 150;
/// Scales a sample's uncertainty (WebRTC: 10).
pub const UNCERTAINTY_SCALE: f64 = 10.0;
/// The estimate's variance at the start, (kb/s)^2 (WebRTC: 50).
const INITIAL_VARIANCE: f64 = 50.0;
/// Variance added before each sample, for the rate drifting (WebRTC: 5).
const DRIFT_VARIANCE: f64 = 5.0;

/// The estimator's state.
#[derive(Debug, Clone)]
pub struct AckedRate {
    initial_window_ms: i64,
    window_ms: i64,
    /// Bytes in the window being filled.
    sum: u64,
    /// Time covered by the window being filled, ms.
    covered_ms: i64,
    prev_ms: Option<i64>,
    estimate_kbps: Option<f64>,
    variance: f64,
}

impl Default for AckedRate {
    fn default() -> Self {
        AckedRate::new(INITIAL_WINDOW_MS, WINDOW_MS)
    }
}

/// Whole milliseconds, to the nearest (WebRTC keeps these windows in ms).
fn ms(t: Time) -> i64 {
    ((t.0 + 500_000) / 1_000_000) as i64
}

/// One Bayesian update: the estimate moves toward `sample` by the ratio of the predicted
/// variance to the sum of it and the sample's, the sample's variance being
/// (scale * |estimate - sample| / (estimate + sample))^2. Returns (estimate, variance).
pub fn bayes_update(estimate: f64, variance: f64, sample: f64, scale: f64) -> (f64, f64) {
    let denom = estimate + sample;
    let u = if denom > 0.0 { scale * (estimate - sample).abs() / denom } else { 0.0 };
    let sample_var = u * u;
    let pred_var = variance + DRIFT_VARIANCE;
    let est = (sample_var * estimate + pred_var * sample) / (sample_var + pred_var);
    (est.max(0.0), sample_var * pred_var / (sample_var + pred_var))
}

impl AckedRate {
    pub fn new(initial_window_ms: i64, window_ms: i64) -> AckedRate {
        AckedRate {
            initial_window_ms: initial_window_ms.max(1),
            window_ms: window_ms.max(1),
            sum: 0,
            covered_ms: 0,
            prev_ms: None,
            estimate_kbps: None,
            variance: INITIAL_VARIANCE,
        }
    }

    /// A packet of `bytes` arrived at `arrived` (receiver's clock); fed in arrival order.
    pub fn on_packet(&mut self, arrived: Time, bytes: u64) {
        let window = if self.estimate_kbps.is_none() { self.initial_window_ms } else { self.window_ms };
        let Some(sample) = self.sample(ms(arrived), bytes, window) else { return };
        match self.estimate_kbps {
            None => self.estimate_kbps = Some(sample),
            Some(est) => {
                let (e, v) = bayes_update(est, self.variance, sample, UNCERTAINTY_SCALE);
                self.estimate_kbps = Some(e);
                self.variance = v;
            }
        }
    }

    /// Adds a packet to the window; when the window is full, returns its rate (kb/s) and starts
    /// the next with this packet.
    fn sample(&mut self, now_ms: i64, bytes: u64, window: i64) -> Option<f64> {
        if let Some(prev) = self.prev_ms {
            if now_ms < prev {
                // Time went backwards: start over.
                self.sum = 0;
                self.covered_ms = 0;
            } else {
                self.covered_ms += now_ms - prev;
                if now_ms - prev > window {
                    // Nothing for a whole window: what it held is stale.
                    self.sum = 0;
                    self.covered_ms %= window;
                }
            }
        }
        self.prev_ms = Some(now_ms);
        let mut out = None;
        if self.covered_ms >= window {
            out = Some(8.0 * self.sum as f64 / window as f64);
            self.covered_ms -= window;
            self.sum = 0;
        }
        self.sum += bytes;
        out
    }

    /// The estimate, bits per second.
    pub fn rate_bps(&self) -> Option<f64> {
        self.estimate_kbps.map(|k| k * 1000.0)
    }
}
