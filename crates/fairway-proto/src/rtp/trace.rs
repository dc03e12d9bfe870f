//! RFC 8593 §6's trace-driven model of a live video encoder: frames whose sizes come from a real
//! encoder's output at a ladder of constant target rates (the map `Traces`), interpolated to the
//! rate the congestion controller asks for. Sans-IO: the caller hands it the traces (reading a
//! trace file is the scenario's business), asks for the frame due at
//! [`TraceCodec::next_frame_at`] and hands new target rates to [`TraceCodec::set_target`].
//!
//! The model (§6.2.1):
//! - the requested rate R_v is first clipped to the content's range [`R_min`, `R_max`] (as §5.4
//!   does for the statistical model; §6.1: that range may differ from the traces' own,
//!   [Rf_min, Rf_max]);
//! - r_current is the largest stored rate at or below R_ref = min(Rf_max, max(Rf_min, R_v));
//! - t_current, the index into the frame-size vectors, starts at 0 and advances by one per
//!   frame; past the last frame it wraps to `SkipFrames` (the first frames, the I-frame and the
//!   small P-frames after it, play only once);
//! - a frame's size is, for Rf_min <= R_v < Rf_max, the linear interpolation between
//!   Traces[r_current][t_current] and the same frame at the next stored rate above r_current;
//!   for R_v < Rf_min, Traces[Rf_min][t_current] scaled by w = R_v / Rf_min; for R_v >= Rf_max,
//!   Traces[Rf_max][t_current] scaled by w = R_v / Rf_max; in every case clipped to
//!   [`fs_min`, `fs_max`] (10 bytes and 1 MB, §6.2.1's examples);
//! - §6.2.2's variable step length: the stored rates need not be equally spaced; the step l of
//!   the interpolation is the distance from r_current to the next stored rate;
//! - §6.2.2's I-frames on demand: [`TraceCodec::request_key_frame`] sets t_current to 0.
//!
//! Choices the RFC leaves open, stated here:
//! - frames are due every 1/FPS exactly (§6.1's fixed frame rate; the traces have no timing),
//!   the first at the start time; the k-th at start + k/FPS, so the schedule does not drift;
//! - a frame's size is rounded to whole bytes after the clipping;
//! - §5.1's reaction latency `tau_v` is available but 0 by default: §6.2.1 updates r_current
//!   "upon a change in the value of R_v" with no delay, and a real encoder such as x264 takes a
//!   new target at its next frame. The latency of §5.1 models an encoder that reconfigures
//!   seldom; §7's hybrid model applies it in its transient state. With `tau_v` > 0, a request
//!   within `tau_v` of the last one taken is ignored (not deferred), as in [`super::synthetic`],
//!   and the initial target counts as taken at the start;
//! - [`MediaSource::start`](super::media::MediaSource::start) after a pause resumes with
//!   t_current at 0: a resumed encoder starts a new stream with an I-frame (§6.2.2's reset).
//!   The traces are shared ([`Arc`]): many flows may read one file.

use std::sync::Arc;

use fairway_core::{Bytes, Dur, Rate, Time};

/// RFC 8593 §6's map Traces: for each of a ladder of encoding rates (bits per second, strictly
/// increasing), the sizes of the frames, in bytes and encoding order, that an encoder produced
/// at that constant target; every vector has the same length (`size_traces`).
#[derive(Debug, Clone, PartialEq)]
pub struct Traces {
    rates: Vec<u64>,
    sizes: Vec<Vec<u32>>,
}

impl Traces {
    /// The map from its (rate in b/s, frame sizes) pairs, checked: at least one rate, rates
    /// positive and strictly increasing, every vector non-empty and of the same length.
    pub fn new(traces: Vec<(u64, Vec<u32>)>) -> Result<Traces, String> {
        let Some((first_rate, first)) = traces.first() else {
            return Err("a trace needs at least one rate".into());
        };
        if first.is_empty() {
            return Err(format!("the trace at {first_rate} b/s has no frames"));
        }
        let n = first.len();
        let mut prev: Option<u64> = None;
        for (rate, sizes) in &traces {
            if *rate == 0 {
                return Err("a trace's rate must be positive: 0 b/s".into());
            }
            if let Some(p) = prev.filter(|&p| p >= *rate) {
                return Err(format!("rates must increase: {rate} b/s comes after {p} b/s"));
            }
            if sizes.len() != n {
                return Err(format!(
                    "every rate needs the same number of frames: {rate} b/s has {}, {first_rate} b/s has {n}",
                    sizes.len()
                ));
            }
            prev = Some(*rate);
        }
        let (rates, sizes) = traces.into_iter().unzip();
        Ok(Traces { rates, sizes })
    }

    /// The stored rates (b/s), increasing.
    pub fn rates(&self) -> &[u64] {
        &self.rates
    }

    /// The frame sizes stored for the `i`-th rate.
    pub fn sizes(&self, i: usize) -> &[u32] {
        &self.sizes[i]
    }

    /// size_traces: the frames in every vector.
    pub fn frames(&self) -> usize {
        self.sizes[0].len()
    }

    /// Rf_min and Rf_max, the lowest and highest stored rates (b/s).
    pub fn range(&self) -> (f64, f64) {
        (self.rates[0] as f64, self.rates[self.rates.len() - 1] as f64)
    }

    /// The index of r_current for a rate `r_ref` within [Rf_min, Rf_max]: the largest stored
    /// rate at or below it.
    fn at_or_below(&self, r_ref: f64) -> usize {
        self.rates.partition_point(|&r| r as f64 <= r_ref).saturating_sub(1)
    }
}

/// The trace-driven encoder's parameters beside its traces.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceCodecConfig {
    /// The fixed frame rate (§6.1: 30 fps), frames per second.
    pub fps: f64,
    /// SkipFrames: the frames at the start of the vectors played only once (§6.2.1: 20).
    pub skip_frames: usize,
    /// fs_min and fs_max, the range a frame's size is clipped to (§6.2.1: 10 bytes, 1 MB).
    pub fs_min: Bytes,
    pub fs_max: Bytes,
    /// §5.1's reaction latency (0: every request is taken; see the module's notes).
    pub tau_v: Dur,
    /// R_min and R_max, the content's rate range: the requested rate is clipped to it.
    pub r_min: Rate,
    pub r_max: Rate,
}

impl Default for TraceCodecConfig {
    /// RFC 8593's example values (§6.1, §6.2.1, Figure 2's rate range); no reaction latency.
    fn default() -> Self {
        TraceCodecConfig {
            fps: 30.0,
            skip_frames: 20,
            fs_min: Bytes(10),
            fs_max: Bytes(1_000_000),
            tau_v: Dur::ZERO,
            r_min: Rate::from_bps(150_000),
            r_max: Rate::from_bps(1_500_000),
        }
    }
}

impl TraceCodecConfig {
    /// Checks the values: a positive frame rate, fs_min <= fs_max, R_min <= R_max.
    pub fn check(&self) -> Result<(), String> {
        if !(self.fps.is_finite() && self.fps > 0.0) {
            return Err(format!("fps {} is not a positive frame rate", self.fps));
        }
        if self.fs_min > self.fs_max {
            return Err(format!("fs_min {} is above fs_max {}", self.fs_min, self.fs_max));
        }
        if self.r_min > self.r_max {
            return Err(format!("r_min {} is above r_max {}", self.r_min, self.r_max));
        }
        Ok(())
    }
}

/// One trace-driven encoder.
#[derive(Debug, Clone)]
pub struct TraceCodec {
    cfg: TraceCodecConfig,
    traces: Arc<Traces>,
    /// R_v, the requested rate clipped to the content's range (b/s).
    r_v: f64,
    /// t_current.
    t: usize,
    /// When it last took a target (for `tau_v`).
    reacted_at: Time,
    /// The start of the current run of frames and the frames since it.
    epoch: Time,
    since_epoch: u64,
    frames: u64,
}

impl TraceCodec {
    /// An encoder starting at `start` at `target` (clipped), its first frame (t_current = 0)
    /// due at once. Refuses traces with no more frames than `skip_frames` (nothing to loop over).
    pub fn new(cfg: TraceCodecConfig, traces: Arc<Traces>, start: Time, target: Rate) -> Result<TraceCodec, String> {
        cfg.check()?;
        if traces.frames() <= cfg.skip_frames {
            return Err(format!(
                "skip_frames {} leaves nothing to loop over in a trace of {} frames",
                cfg.skip_frames,
                traces.frames()
            ));
        }
        let mut c =
            TraceCodec { r_v: 0.0, cfg, traces, t: 0, reacted_at: start, epoch: start, since_epoch: 0, frames: 0 };
        c.r_v = c.clip(target.as_bps_f64());
        Ok(c)
    }

    fn clip(&self, r: f64) -> f64 {
        r.clamp(self.cfg.r_min.as_bps_f64(), self.cfg.r_max.as_bps_f64())
    }

    /// The rate it encodes at now (R_v, clipped to the content's range).
    pub fn rate(&self) -> Rate {
        Rate::from_bps(self.r_v.round() as u64)
    }

    /// r_current: the largest stored rate at or below R_ref = min(Rf_max, max(Rf_min, R_v)).
    pub fn r_current(&self) -> u64 {
        let (lo, hi) = self.traces.range();
        self.traces.rates()[self.traces.at_or_below(self.r_v.clamp(lo, hi))]
    }

    /// t_current: the index of the next frame in the vectors.
    pub fn t_current(&self) -> usize {
        self.t
    }

    /// When the next frame is due.
    pub fn next_frame_at(&self) -> Time {
        Time(self.epoch.0.saturating_add(Dur::from_secs_f64(self.since_epoch as f64 / self.cfg.fps).0))
    }

    /// Frames produced so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// The controller asks for `target` at `now`: taken unless within `tau_v` of the last one
    /// taken. True if taken.
    pub fn set_target(&mut self, now: Time, target: Rate) -> bool {
        if !self.cfg.tau_v.is_zero() && now.saturating_since(self.reacted_at) < self.cfg.tau_v {
            return false;
        }
        self.reacted_at = now;
        self.r_v = self.clip(target.as_bps_f64());
        true
    }

    /// §6.2.2's I-frame on demand: the next frame is the vectors' first.
    pub fn request_key_frame(&mut self) {
        self.t = 0;
    }

    /// §6.2.1's frame size at t_current for the rate R_v, before rounding (bytes).
    fn size_at(&self, t: usize) -> f64 {
        let tr = &self.traces;
        let (lo, hi) = tr.range();
        let r_v = self.r_v;
        let size = if r_v < lo {
            // b) Scaled from the lowest rate.
            r_v / lo * tr.sizes[0][t] as f64
        } else if r_v >= hi {
            // c) Scaled from the highest rate.
            r_v / hi * tr.sizes[tr.rates.len() - 1][t] as f64
        } else {
            // a) Between r_current and the next stored rate (which exists: R_v < Rf_max).
            let i = tr.at_or_below(r_v);
            let (r_lo, r_hi) = (tr.rates[i] as f64, tr.rates[i + 1] as f64);
            let distance_lo = (r_v - r_lo) / (r_hi - r_lo);
            tr.sizes[i + 1][t] as f64 * distance_lo + tr.sizes[i][t] as f64 * (1.0 - distance_lo)
        };
        size.clamp(self.cfg.fs_min.0 as f64, self.cfg.fs_max.0 as f64)
    }

    /// t_current's update (§6.2.1), wrapping past the end to `SkipFrames`.
    fn advance(&mut self) {
        let skip = self.cfg.skip_frames;
        let n = self.traces.frames();
        self.t = if self.t < skip { self.t + 1 } else { (self.t + 1 - skip) % (n - skip) + skip };
    }

    /// The frame due at [`next_frame_at`](Self::next_frame_at) (call at or after it): its size;
    /// t_current advances and the next frame is scheduled 1/FPS on.
    pub fn frame(&mut self) -> Bytes {
        let size = self.size_at(self.t);
        self.advance();
        self.since_epoch += 1;
        self.frames += 1;
        Bytes(size.round() as u64)
    }
}

impl super::media::MediaSource for TraceCodec {
    /// Starts (or, after a pause, restarts) at `now`: t_current at 0, the target taken then.
    fn start(&mut self, now: Time, target: f64) {
        self.r_v = self.clip(target.max(0.0));
        self.reacted_at = now;
        self.epoch = now;
        self.since_epoch = 0;
        self.t = 0;
    }

    fn next_frame_at(&self) -> Option<Time> {
        Some(TraceCodec::next_frame_at(self))
    }

    fn frame(&mut self, _now: Time) -> Bytes {
        TraceCodec::frame(self)
    }

    /// The frame clock starts again at `now`; the trace goes on from the frame it was at.
    fn skip_to(&mut self, now: Time) {
        if TraceCodec::next_frame_at(self) < now {
            self.epoch = now;
            self.since_epoch = 0;
        }
    }

    fn set_target(&mut self, now: Time, target: f64) {
        TraceCodec::set_target(self, now, Rate::from_bps(target.max(0.0).round() as u64));
    }

    fn rate(&self) -> f64 {
        self.r_v
    }

    fn fps(&self) -> f64 {
        self.cfg.fps
    }
}

#[cfg(test)]
#[path = "trace_tests.rs"]
mod tests;
