//! SCReAM's media rate control (RFC 8298 §4.1.3): the media encoder's target bitrate, adjusted
//! every RATE_ADJUST_INTERVAL from the measured transmit and acknowledged rates, the RTP queue
//! and the qdelay trend, cut at once on loss and ECN events; and the RTP queue discard.
//!
//! Choices the RFC leaves open, stated at their lines:
//! - `delta_rate_t`, "a bitrate change", is read as the change from `target_bitrate` to the
//!   rate the current throughput allows, `current_rate_t * (1 - PRE_CONGESTION_GUARD *
//!   qdelay_trend) - TX_QUEUE_SIZE_FACTOR * rtp_queue_size - target_bitrate`: the pseudocode
//!   omits the last term, and as printed would add the whole current rate to the target at each
//!   adjustment; the RFC's reference implementation ([SCReAM-CPP-implementation], ScreamTx.cpp
//!   at 972a83f, `increment -= targetBitrate`) subtracts it;
//! - rate_transmit and rate_ack are the bits sent and the bits reported received over the last
//!   [`RATE_MEASURE_SPAN_SECS`] (400 ms: the last two adjustment intervals), updated at each
//!   adjustment (§4.1.3: "updated every 200 ms", over a span it does not give): the reference
//!   implementation's span (ScreamTx.cpp at 972a83f: 8 samples of 50 ms averaged). Over one
//!   200 ms interval alone a 25 fps encoder's 4 to 6 frames (RFC 8593's Laplacian frame
//!   intervals and sizes) read as 20 % above or below its rate, and current_rate's dips pull the
//!   target down at once while its rises lift it by at most a ramp-up step;
//! - rate_media, the encoder's output, is not told to the controller: it is the bits sent plus
//!   the RTP queue's growth over the same span (at least 0), so a discarded queue reads as
//!   output not made; rate_media_median ("computed over more than 10 s") is the median of the
//!   samples of the last 10 s and one more;
//! - target_bitrate_last_max is set to the target when congestion is detected (§4.1.3): at a
//!   loss or ECN event (before the cut) and when fast increase mode ends on the qdelay trend;
//! - `rtp_queue_size / current_rate_t` with no rate measured is infinite if the queue holds
//!   anything (and 0 if not);
//! - rtp_queue_size, in the adjustment's two RTP-queue terms (TX_QUEUE_SIZE_FACTOR's and "if
//!   RTP queue builds up"), is the least the queue held at any send, report or timer of the
//!   interval and at the adjustment: the queue that stayed. A frame is queued whole and paced out
//!   over a good part of the frame interval (§4.1.2.6 paces at cwnd / s_rtt, about twice the
//!   media rate), so the queue at one instant holds the newest frame or not by the timer's phase
//!   alone: at 1 Mb/s and 25 fps a frame of 5 kB read as 40 ms of queue, over RTP_QDELAY_TH, at
//!   a fifth of the adjustments through the full stack, each cutting the target by 5 % with
//!   nothing building up. (The reference implementation likewise leaves the newest frame out:
//!   ScreamTx.cpp at 972a83f, `bytesInQueue() - getSizeOfLastFrame()`.)

use std::collections::VecDeque;

use fairway_core::Time;

use super::super::controller::SenderView;
use super::network::{Congestion, NetSignals};
use super::ScreamConfig;

/// rate_media_median's span (§4.1.1.2: "computed over more than 10 s").
pub const RATE_MEDIA_MEDIAN_SPAN_SECS: f64 = 10.0;
/// The span rate_transmit, rate_ack and rate_media are measured over, seconds (the reference
/// implementation's 8 x 50 ms).
pub const RATE_MEASURE_SPAN_SECS: f64 = 0.4;

/// One adjustment interval's measurements: its length (s), bytes sent, bytes reported received,
/// and bytes the encoder made (sent plus the RTP queue's growth).
#[derive(Debug, Clone, Copy)]
struct Interval {
    dt: f64,
    sent: f64,
    acked: f64,
    made: f64,
}

/// The media rate control of one SCReAM stream.
#[derive(Debug, Clone)]
pub struct MediaRateControl {
    cfg: ScreamConfig,
    /// §4.1.1.2's state variables, bits per second.
    target_bitrate: f64,
    target_bitrate_last_max: f64,
    rate_transmit: f64,
    rate_ack: f64,
    rate_media: f64,
    rate_media_median: f64,
    rate_media_hist: VecDeque<f64>,
    rate_media_hist_len: usize,
    /// Bytes sent and reported received since the last adjustment, the RTP queue then.
    bytes_sent: u64,
    bytes_acked: u64,
    queue_bytes_then: u64,
    /// The least the RTP queue held in the interval (bytes), of what the controller was shown.
    queue_min: Option<u64>,
    last_adjust: Option<Time>,
    /// The intervals of the last RATE_MEASURE_SPAN_SECS, oldest first, and how many are kept.
    intervals: VecDeque<Interval>,
    intervals_len: usize,
}

impl MediaRateControl {
    pub fn new(cfg: &ScreamConfig) -> MediaRateControl {
        let interval = cfg.rate_adjust_interval.as_secs_f64();
        MediaRateControl {
            target_bitrate: cfg.start_bitrate,
            // §4.1.1.2: target_bitrate_last_max starts at 1 bps.
            target_bitrate_last_max: 1.0,
            rate_transmit: 0.0,
            rate_ack: 0.0,
            rate_media: 0.0,
            rate_media_median: 0.0,
            rate_media_hist: VecDeque::new(),
            rate_media_hist_len: (RATE_MEDIA_MEDIAN_SPAN_SECS / interval).floor() as usize + 1,
            bytes_sent: 0,
            bytes_acked: 0,
            queue_bytes_then: 0,
            queue_min: None,
            last_adjust: None,
            intervals: VecDeque::new(),
            intervals_len: ((RATE_MEASURE_SPAN_SECS / interval).round() as usize).max(1),
            cfg: cfg.clone(),
        }
    }

    /// The measurement intervals start at `now`.
    pub fn start(&mut self, now: Time) {
        self.last_adjust = Some(now);
    }

    pub fn target_bitrate(&self) -> f64 {
        self.target_bitrate
    }
    pub fn target_bitrate_last_max(&self) -> f64 {
        self.target_bitrate_last_max
    }
    pub fn rate_transmit(&self) -> f64 {
        self.rate_transmit
    }
    pub fn rate_ack(&self) -> f64 {
        self.rate_ack
    }
    pub fn rate_media(&self) -> f64 {
        self.rate_media
    }
    pub fn rate_media_median(&self) -> f64 {
        self.rate_media_median
    }

    pub fn on_sent(&mut self, size: u64) {
        self.bytes_sent += size;
    }

    pub fn on_acked(&mut self, bytes: u64) {
        self.bytes_acked += bytes;
    }

    /// The RTP queue holds `bytes` now (at a send, a report or a timer).
    pub fn observe_queue(&mut self, bytes: u64) {
        self.queue_min = Some(self.queue_min.map_or(bytes, |m| m.min(bytes)));
    }

    /// §4.1.3 "on loss" / "on ecn_mark": the target is cut at once, by BETA_R or BETA_ECN,
    /// and the adjustment is "exited" (the regular one runs on at its interval).
    pub fn on_congestion(&mut self, kind: Congestion) {
        self.on_congestion_detected();
        let beta = match kind {
            Congestion::Loss => self.cfg.beta_r,
            Congestion::Ecn => self.cfg.beta_ecn,
        };
        self.target_bitrate = (beta * self.target_bitrate).max(self.cfg.min_bitrate);
    }

    /// Takes RFC 8699's coupled rate as the target bitrate, within [TARGET_BITRATE_MIN,
    /// TARGET_BITRATE_MAX] as every adjustment leaves it.
    pub fn set_coupled_target(&mut self, rate: f64) {
        self.target_bitrate = rate.max(self.cfg.min_bitrate).min(self.cfg.max_bitrate);
    }

    /// §4.1.3: "The target_bitrate_last_max is updated when congestion is detected."
    pub fn on_congestion_detected(&mut self) {
        self.target_bitrate_last_max = self.target_bitrate;
    }

    /// The measurements of the interval ending at `now`.
    fn measure(&mut self, now: Time, view: &SenderView) {
        let dt = self.last_adjust.map_or(0.0, |t| (now - t).as_secs_f64());
        self.last_adjust = Some(now);
        if dt > 0.0 {
            let made = self.bytes_sent as f64 + view.queue_bytes as f64 - self.queue_bytes_then as f64;
            self.intervals.push_back(Interval {
                dt,
                sent: self.bytes_sent as f64,
                acked: self.bytes_acked as f64,
                made,
            });
            if self.intervals.len() > self.intervals_len {
                self.intervals.pop_front();
            }
            let sum = |f: fn(&Interval) -> f64| self.intervals.iter().map(f).sum::<f64>();
            let span = sum(|i| i.dt);
            self.rate_transmit = sum(|i| i.sent) * 8.0 / span;
            self.rate_ack = sum(|i| i.acked) * 8.0 / span;
            self.rate_media = sum(|i| i.made).max(0.0) * 8.0 / span;
            self.rate_media_hist.push_back(self.rate_media);
            if self.rate_media_hist.len() > self.rate_media_hist_len {
                self.rate_media_hist.pop_front();
            }
            self.rate_media_median = median(self.rate_media_hist.iter().copied());
        }
        self.bytes_sent = 0;
        self.bytes_acked = 0;
        self.queue_bytes_then = view.queue_bytes;
    }

    /// §4.1.3's regular adjustment at `now`, one RATE_ADJUST_INTERVAL after the previous.
    pub fn adjust(&mut self, now: Time, view: &SenderView, net: NetSignals) {
        self.measure(now, view);
        let interval = self.cfg.rate_adjust_interval.as_secs_f64();
        let ramp_up_speed = self.cfg.ramp_up_speed.min(self.target_bitrate / 2.0);
        let last_max = self.target_bitrate_last_max;
        // The closer to the last known congestion point, the slower the increase (at least 0.2
        // of it, lest the rate lock to it).
        let scale = ((self.target_bitrate - last_max) / last_max * 4.0).powi(2).clamp(0.2, 1.0);
        let current_rate = self.rate_transmit.max(self.rate_ack);
        if net.in_fast_increase {
            self.target_bitrate += ramp_up_speed * interval * scale;
        } else {
            // The queue that stayed through the interval (see the module's notes).
            let rtp_queue_size = self.queue_min.map_or(view.queue_bytes, |m| m.min(view.queue_bytes)) as f64 * 8.0;
            // The change to the rate the throughput allows (the RFC's pseudocode omits
            // `- target_bitrate`: see the module's notes).
            let mut delta = current_rate * (1.0 - self.cfg.pre_congestion_guard * net.qdelay_trend)
                - self.cfg.tx_queue_size_factor * rtp_queue_size
                - self.target_bitrate;
            if delta > 0.0 {
                // A positive change is limited near target_bitrate_last_max and by the ramp-up.
                delta = (delta * scale).min(ramp_up_speed * interval);
            }
            self.target_bitrate += delta;
            // A slight reduction if the RTP queue builds up.
            let rtp_queue_delay = if rtp_queue_size == 0.0 {
                0.0
            } else if current_rate > 0.0 {
                rtp_queue_size / current_rate
            } else {
                f64::INFINITY
            };
            if rtp_queue_delay > self.cfg.rtp_qdelay_th.as_secs_f64() {
                self.target_bitrate *= self.cfg.target_rate_scale_rtp_qdelay;
            }
        }
        // At most (2 - qdelay_trend_mem) times what is measured.
        let limit = current_rate.max(self.rate_media.max(self.rate_media_median)) * (2.0 - net.qdelay_trend_mem);
        self.target_bitrate = self.target_bitrate.min(limit);
        self.target_bitrate = self.target_bitrate.max(self.cfg.min_bitrate).min(self.cfg.max_bitrate);
        self.queue_min = None;
    }

    /// §4.1.3: "The sender SHOULD also be equipped with a mechanism that discards RTP packets
    /// when the network throughput becomes very low and RTP packets are excessively delayed":
    /// the queue goes when its oldest packet has waited longer than `max_rtp_queue_delay` (a
    /// choice: the reference implementation's threshold, 0.1 s; that implementation also
    /// discards at most once a second, checking as each frame arrives (ScreamTx.cpp at 972a83f,
    /// `kMinRtpQueueDiscardInterval_ntp`), which this does not: it discards whenever asked).
    pub fn discard_queue(&self, view: &SenderView) -> bool {
        view.queue_bytes > 0 && view.queue_delay > self.cfg.max_rtp_queue_delay
    }
}

/// The median (the mean of the middle two of an even count); 0 of nothing.
fn median(it: impl Iterator<Item = f64>) -> f64 {
    let mut v: Vec<f64> = it.collect();
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

#[cfg(test)]
#[path = "media_tests.rs"]
mod tests;
