//! RFC 8593 §5's statistical model of a live video encoder: frames at a target rate set by the
//! congestion controller, with the encoder's delayed reaction, its burst after a rate change and
//! its frame-to-frame fluctuation. Sans-IO: the caller asks for the frame due at
//! [`SyntheticCodec::next_frame_at`] and hands new target rates to
//! [`SyntheticCodec::set_target`].
//!
//! The model (Figure 2's parameters):
//! - §5.1: a target-rate request is taken only if `tau_v` has passed since the encoder last
//!   reacted; one within `tau_v` is ignored (not deferred);
//! - §5.4: the rate used is the target clipped to [`R_min`, `R_max`];
//! - §5.3: frame intervals t0 (1 + D_t) and frame sizes B0 (1 + D_B), with t0 = 1/FPS,
//!   B0 = R/8/FPS and D_t, D_B independent zero-mean Laplacian deviations of scale `SCALE_t`,
//!   `SCALE_B`;
//! - §5.2: a reaction to an abrupt change (one of more than `burst_threshold` of the rate before
//!   it, 10% by default: §7's example criterion for the transient state) starts a burst of
//!   `K_d` frames whose sizes sum to what `K_d` frames at
//!   the new rate would (the transient's mean rate is the target), the first `K_B` and the rest
//!   sharing what remains equally: the RFC gives the burst's length and first size and says the
//!   large frame is followed by smaller-than-average ones, not their shape. A `K_B` above the
//!   burst's whole budget is cut to it (the others then get nothing but their header). The
//!   burst's frames take no Laplacian deviation in size.
//!
//! Choices the RFC leaves open, stated here: deviations are drawn by the inverse of the
//! Laplacian CDF from the codec's own random stream, a frame's interval is at least a tenth of
//! t0 and its size at least one byte (a Laplacian of scale 0.15 goes below -0.9 with probability
//! 0.0001); the first frame is at the start time, and the initial target counts as a reaction
//! at the start (so a request in the first `tau_v` is ignored, and there is no burst at the
//! start: the encoder starts at its target).

use fairway_core::{Bytes, Dur, Rate, Rng, Time};

/// RFC 8593 Figure 2's tunable parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct SyntheticCodecConfig {
    /// FPS, the target frame rate.
    pub fps: f64,
    /// tau_v, the encoder's reaction latency.
    pub tau_v: Dur,
    /// K_d, the frames in a burst after a rate change (0: no burst).
    pub burst_frames: u32,
    /// K_B, the size of the burst's first frame.
    pub burst_size: Bytes,
    /// The relative change of rate that counts as abrupt and starts a burst (§7: 10%).
    pub burst_threshold: f64,
    /// SCALE_t and SCALE_B, the Laplacian scales of the normalised frame interval and size.
    pub scale_t: f64,
    pub scale_b: f64,
    /// R_min and R_max, the content's rate range.
    pub r_min: Rate,
    pub r_max: Rate,
}

impl Default for SyntheticCodecConfig {
    /// Figure 2's example values.
    fn default() -> Self {
        SyntheticCodecConfig {
            fps: 30.0,
            tau_v: Dur::from_millis(200),
            burst_frames: 8,
            burst_size: Bytes(13_500),
            burst_threshold: 0.1,
            scale_t: 0.15,
            scale_b: 0.15,
            r_min: Rate::from_bps(150_000),
            r_max: Rate::from_bps(1_500_000),
        }
    }
}

impl SyntheticCodecConfig {
    /// Checks the values: a positive frame rate, non-negative scales, R_min <= R_max.
    pub fn check(&self) -> Result<(), String> {
        if !(self.fps.is_finite() && self.fps > 0.0) {
            return Err(format!("fps {} is not a positive frame rate", self.fps));
        }
        for (name, s) in [("scale_t", self.scale_t), ("scale_b", self.scale_b)] {
            if !(s.is_finite() && s >= 0.0) {
                return Err(format!("{name} {s} is not a non-negative scale"));
            }
        }
        if !(self.burst_threshold.is_finite() && self.burst_threshold >= 0.0) {
            return Err(format!("burst_threshold {} is not a non-negative ratio", self.burst_threshold));
        }
        if self.r_min > self.r_max {
            return Err(format!("r_min {} is above r_max {}", self.r_min, self.r_max));
        }
        Ok(())
    }
}

/// One encoder.
#[derive(Debug, Clone)]
pub struct SyntheticCodec {
    cfg: SyntheticCodecConfig,
    rng: Rng,
    /// The rate it encodes at, clipped (b/s).
    rate: f64,
    /// When it last reacted to a target.
    reacted_at: Time,
    /// The burst in progress: frames left and the size of each after the first.
    burst_left: u32,
    burst_rest: f64,
    next_at: Time,
    frames: u64,
}

impl SyntheticCodec {
    /// An encoder starting at `start` at `target` (clipped), its first frame due at once.
    pub fn new(cfg: SyntheticCodecConfig, rng: Rng, start: Time, target: Rate) -> Result<SyntheticCodec, String> {
        cfg.check()?;
        let rate = Self::clip(&cfg, target);
        Ok(SyntheticCodec {
            cfg,
            rng,
            rate,
            reacted_at: start,
            burst_left: 0,
            burst_rest: 0.0,
            next_at: start,
            frames: 0,
        })
    }

    fn clip(cfg: &SyntheticCodecConfig, r: Rate) -> f64 {
        r.as_bps_f64().clamp(cfg.r_min.as_bps_f64(), cfg.r_max.as_bps_f64())
    }

    /// The rate it encodes at now, clipped to the content's range.
    pub fn rate(&self) -> Rate {
        Rate::from_bps(self.rate.round() as u64)
    }

    /// When the next frame is due.
    pub fn next_frame_at(&self) -> Time {
        self.next_at
    }

    /// Frames produced so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// §5.1: the controller asks for `target` at `now`; taken only if `tau_v` has passed since the
    /// last reaction, and then (§5.2) a burst begins. True if taken.
    pub fn set_target(&mut self, now: Time, target: Rate) -> bool {
        if now.saturating_since(self.reacted_at) < self.cfg.tau_v {
            return false;
        }
        self.reacted_at = now;
        let rate = Self::clip(&self.cfg, target);
        let abrupt = (rate - self.rate).abs() > self.cfg.burst_threshold * self.rate;
        self.rate = rate;
        if abrupt && self.cfg.burst_frames > 0 {
            self.burst_left = self.cfg.burst_frames;
        }
        true
    }

    /// B0 = R/8/FPS, bytes.
    fn reference_size(&self) -> f64 {
        self.rate / 8.0 / self.cfg.fps
    }

    /// A zero-mean Laplacian deviation of scale `b` (inverse CDF).
    fn laplacian(&mut self, b: f64) -> f64 {
        if b == 0.0 {
            return 0.0;
        }
        let u = self.rng.uniform() - 0.5;
        // 1 - 2|u| is in [0, 1]; 0 (u = -0.5, a draw of exactly 0) would be an infinite deviation.
        -b * u.signum() * (1.0 - 2.0 * u.abs()).max(f64::MIN_POSITIVE).ln()
    }

    /// The frame due at [`next_frame_at`](Self::next_frame_at) (call at or after it): its size;
    /// the next one is scheduled.
    pub fn frame(&mut self) -> Bytes {
        let b0 = self.reference_size();
        let size = if self.burst_left > 0 {
            let k = self.cfg.burst_frames as f64;
            let budget = k * b0;
            let size = if self.burst_left == self.cfg.burst_frames {
                let first = (self.cfg.burst_size.0 as f64).min(budget);
                self.burst_rest = if k > 1.0 { (budget - first) / (k - 1.0) } else { 0.0 };
                first
            } else {
                self.burst_rest
            };
            self.burst_left -= 1;
            size
        } else {
            b0 * (1.0 + self.laplacian(self.cfg.scale_b))
        };
        let t0 = 1.0 / self.cfg.fps;
        let interval = (t0 * (1.0 + self.laplacian(self.cfg.scale_t))).max(0.1 * t0);
        self.next_at = Time(self.next_at.0.saturating_add(Dur::from_secs_f64(interval).0));
        self.frames += 1;
        Bytes(size.round().max(1.0) as u64)
    }
}

impl super::media::MediaSource for SyntheticCodec {
    /// Restarts the model at `now`: the target counts as a reaction then, with no burst (as at
    /// construction).
    fn start(&mut self, now: Time, target: f64) {
        self.rate = Self::clip(&self.cfg, Rate::from_bps(target.max(0.0).round() as u64));
        self.reacted_at = now;
        self.burst_left = 0;
        self.next_at = now;
    }

    fn next_frame_at(&self) -> Option<Time> {
        Some(self.next_at)
    }

    fn frame(&mut self, _now: Time) -> Bytes {
        SyntheticCodec::frame(self)
    }

    fn skip_to(&mut self, now: Time) {
        self.next_at = self.next_at.max(now);
    }

    fn set_target(&mut self, now: Time, target: f64) {
        SyntheticCodec::set_target(self, now, Rate::from_bps(target.max(0.0).round() as u64));
    }

    fn rate(&self) -> f64 {
        self.rate
    }

    fn fps(&self) -> f64 {
        self.cfg.fps
    }
}

#[cfg(test)]
#[path = "synthetic_tests.rs"]
mod tests;
