//! SCReAM, Self-Clocked Rate Adaptation for Multimedia (RFC 8298, the experimental v1), as a
//! [`RateController`] behind the RTP sender. RFC 8298 §3 splits the sender in three; the
//! sender's transmission control (§4.1.2.5's send window, §4.1.2.6's pacing) is the RTP
//! sender's, which asks this controller for the window ([`RateController::window`]) and the
//! pacing rate; the two other parts are the files of this module:
//!
//! - [`network`]: the network congestion control of §4.1.2: the self-clocked congestion window
//!   `cwnd`, steered LEDBAT-like (RFC 6817) against the queue-delay target `qdelay_target`,
//!   bytes in flight counted RFC 8298's way, the base one-way delay history, the qdelay trend and
//!   fast increase mode, the reaction to loss and ECN-CE events, the competing-flows
//!   compensation of the target, the send window and the pacing rate;
//! - [`media`]: the media rate control of §4.1.3: the encoder's target bitrate from the measured
//!   transmit and acknowledged rates, ramped up in fast increase mode and cut on loss, ECN and
//!   RTP-queue build-up, and the RTP queue discard.
//!
//! The feedback is RFC 8888's, one [`PacketResult`] per packet: richer than the RFC 3611 blocks
//! RFC 8298 §4.2.1 asks for (received list, the arrival time of the highest received packet, an
//! ECN-CE count), and read down to those: see [`network`] for the choices that reading makes.
//!
//! Choices the RFC leaves open, stated here and again at the lines that make them:
//! - the timers: the qdelay fraction is sampled every 50 ms (§4.1.2) and the target bitrate
//!   adjusted every RATE_ADJUST_INTERVAL (§4.1.3) on the controller's own timer, both starting
//!   at [`RateController::start`] (or the first call, if the sender never calls it);
//! - `target_bitrate` starts at [`ScreamConfig::start_bitrate`] (the RFC's state variable
//!   starts at 0 bps, which its clamp turns into TARGET_BITRATE_MIN at the first adjustment: the
//!   default start is that minimum);
//! - TARGET_BITRATE_MIN and _MAX, which the RFC leaves to the application, default to RFC 8593
//!   §5's example content range, 150 kb/s to 1.5 Mb/s;
//! - the RTP queue discard (§4.1.3: the sender "SHOULD also be equipped with a mechanism that
//!   discards RTP packets when ... RTP packets are excessively delayed", no threshold given)
//!   discards when the queue's oldest packet has waited longer than
//!   [`ScreamConfig::max_rtp_queue_delay`], 0.1 s by default as in the RFC's reference
//!   implementation ([SCReAM-CPP-implementation], `kMaxRtpQueueDelay`);
//! - the "minimum send rate maintained by SCReAM when no feedback is received" (§8; §1's
//!   "augments self-clocking with pacing and a minimum send rate"), which the RFC does not
//!   specify: a window that stays full with nothing sent for [`ScreamConfig::stall_timeout`]
//!   (0.5 s, the reference implementation's) has its packets in flight forgotten
//!   ([`RateController::stall_timeout`]), and sending resumes.

use fairway_core::{Bytes, Dur, Time};

use super::controller::{PacketResult, RateController, SenderView};
use crate::AgentState;

pub mod media;
pub mod network;

pub use media::MediaRateControl;
pub use network::{Congestion, NetSignals, NetworkCongestionControl};

#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;

/// SCReAM's constants (RFC 8298 §4.1.1.1, the RECOMMENDED values by default) and the choices
/// the RFC leaves to the implementation.
#[derive(Debug, Clone, PartialEq)]
pub struct ScreamConfig {
    /// QDELAY_TARGET_LO (0.1 s): the lowest, and initial, qdelay target.
    pub qdelay_target_lo: Dur,
    /// QDELAY_TARGET_HI (0.4 s): the highest qdelay target the competing-flows compensation
    /// may set.
    pub qdelay_target_hi: Dur,
    /// QDELAY_WEIGHT (0.1): the EWMA weight of qdelay_fraction_avg.
    pub qdelay_weight: f64,
    /// QDELAY_TREND_TH (0.2): the qdelay trend that ends fast increase mode.
    pub qdelay_trend_th: f64,
    /// QDELAY_TREND_LO (0.2): the trend below which fast increase mode may resume.
    pub qdelay_trend_lo: f64,
    /// T_RESUME_FAST_INCREASE (5 s): how long the trend stays below QDELAY_TREND_LO before
    /// fast increase mode resumes.
    pub t_resume_fast_increase: Dur,
    /// MIN_CWND (3000 bytes).
    pub min_cwnd: u64,
    /// MAX_BYTES_IN_FLIGHT_HEAD_ROOM (1.1): cwnd is at most this times max_bytes_in_flight.
    pub max_bytes_in_flight_head_room: f64,
    /// GAIN (1.0): the LEDBAT gain of the cwnd update.
    pub gain: f64,
    /// BETA_LOSS (0.8) and BETA_ECN (0.9): cwnd's scale on a loss and an ECN event; BETA_ECN
    /// also scales the target bitrate on an ECN event (§4.1.3).
    pub beta_loss: f64,
    pub beta_ecn: f64,
    /// BETA_R (0.9): the target bitrate's scale on a loss event.
    pub beta_r: f64,
    /// MSS (1000 bytes): the largest RTP packet.
    pub mss: u64,
    /// RATE_ADJUST_INTERVAL (0.2 s): between target bitrate adjustments.
    pub rate_adjust_interval: Dur,
    /// TARGET_BITRATE_MIN and TARGET_BITRATE_MAX, bits per second (the RFC gives no values:
    /// RFC 8593 §5's R_min and R_max, 150 kb/s and 1.5 Mb/s, by default).
    pub min_bitrate: f64,
    pub max_bitrate: f64,
    /// The target bitrate before the first adjustment (the RFC's target_bitrate starts at
    /// 0 bps and is clamped to TARGET_BITRATE_MIN: the minimum by default).
    pub start_bitrate: f64,
    /// RAMP_UP_SPEED (200000 bps/s): the fastest the target bitrate may rise.
    pub ramp_up_speed: f64,
    /// PRE_CONGESTION_GUARD (0.0..1.0; 0.1 by §4.1.1.1's H264/VP8 experiments).
    pub pre_congestion_guard: f64,
    /// TX_QUEUE_SIZE_FACTOR (0.0..2.0; 1.0 by §4.1.1.1's H264/VP8 experiments).
    pub tx_queue_size_factor: f64,
    /// RTP_QDELAY_TH (0.02 s): the RTP queue delay above which the target is scaled down.
    pub rtp_qdelay_th: Dur,
    /// TARGET_RATE_SCALE_RTP_QDELAY (0.95).
    pub target_rate_scale_rtp_qdelay: f64,
    /// RATE_PACE_MIN (50000 bps): the lowest pacing rate.
    pub rate_pace_min: f64,
    /// The competing-flows compensation of the qdelay target (§4.1.2.3: it "MAY be turned
    /// off"); on by default.
    pub competing_flows_compensation: bool,
    /// How long the RTP queue's oldest packet may wait before the queue is discarded (§4.1.3
    /// gives no value; 0.1 s, the reference implementation's kMaxRtpQueueDelay).
    pub max_rtp_queue_delay: Dur,
    /// How long the window may stay full with nothing sent before the packets in flight are
    /// forgotten and sending resumes: §8's "minimum send rate maintained by SCReAM when no
    /// feedback is received", which the RFC does not specify; 0.5 s, the reference
    /// implementation's "retransmission time out mechanism to avoid deadlock" (ScreamTx.cpp at
    /// 972a83f, `isOkToTransmit`: 32768 NTP units). Without it a window whose packets are all
    /// lost, or whose reports are, never opens again.
    pub stall_timeout: Dur,
    /// The sliding window of max_bytes_in_flight (§4.1.2.2: "the last 5 seconds").
    pub bytes_in_flight_window: Dur,
    /// The base delay history (§4.1.2: qdelay "as outlined in [RFC6817]"; RFC 6817 §4.2 keeps
    /// BASE_HISTORY = 10 one-minute minima).
    pub base_history_len: usize,
    pub base_history_interval: Dur,
    /// The qdelay fraction's sampling interval (§4.1.2: 50 ms).
    pub qdelay_sample_interval: Dur,
}

impl Default for ScreamConfig {
    fn default() -> Self {
        ScreamConfig {
            qdelay_target_lo: Dur::from_millis(100),
            qdelay_target_hi: Dur::from_millis(400),
            qdelay_weight: 0.1,
            qdelay_trend_th: 0.2,
            qdelay_trend_lo: 0.2,
            t_resume_fast_increase: Dur::from_secs(5),
            min_cwnd: 3000,
            max_bytes_in_flight_head_room: 1.1,
            gain: 1.0,
            beta_loss: 0.8,
            beta_ecn: 0.9,
            beta_r: 0.9,
            mss: 1000,
            rate_adjust_interval: Dur::from_millis(200),
            min_bitrate: 150_000.0,
            max_bitrate: 1_500_000.0,
            start_bitrate: 150_000.0,
            ramp_up_speed: 200_000.0,
            pre_congestion_guard: 0.1,
            tx_queue_size_factor: 1.0,
            rtp_qdelay_th: Dur::from_millis(20),
            target_rate_scale_rtp_qdelay: 0.95,
            rate_pace_min: 50_000.0,
            competing_flows_compensation: true,
            max_rtp_queue_delay: Dur::from_millis(100),
            stall_timeout: Dur::from_millis(500),
            bytes_in_flight_window: Dur::from_secs(5),
            base_history_len: 10,
            base_history_interval: Dur::from_secs(60),
            qdelay_sample_interval: Dur::from_millis(50),
        }
    }
}

impl ScreamConfig {
    /// Whether the values make sense together: an `Err` names the first that does not.
    pub fn check(&self) -> Result<(), String> {
        let positive_durs = [
            ("qdelay_target_lo", self.qdelay_target_lo),
            ("t_resume_fast_increase", self.t_resume_fast_increase),
            ("rate_adjust_interval", self.rate_adjust_interval),
            ("rtp_qdelay_th", self.rtp_qdelay_th),
            ("max_rtp_queue_delay", self.max_rtp_queue_delay),
            ("stall_timeout", self.stall_timeout),
            ("bytes_in_flight_window", self.bytes_in_flight_window),
            ("base_history_interval", self.base_history_interval),
            ("qdelay_sample_interval", self.qdelay_sample_interval),
        ];
        for (name, d) in positive_durs {
            if d.is_zero() {
                return Err(format!("{name} must be positive"));
            }
        }
        if self.qdelay_target_hi < self.qdelay_target_lo {
            return Err(format!(
                "qdelay_target_hi ({}) is below qdelay_target_lo ({})",
                self.qdelay_target_hi, self.qdelay_target_lo
            ));
        }
        let unit = [
            ("qdelay_weight", self.qdelay_weight, false),
            ("beta_loss", self.beta_loss, false),
            ("beta_ecn", self.beta_ecn, false),
            ("beta_r", self.beta_r, false),
            ("target_rate_scale_rtp_qdelay", self.target_rate_scale_rtp_qdelay, false),
            ("pre_congestion_guard", self.pre_congestion_guard, true),
            ("qdelay_trend_th", self.qdelay_trend_th, true),
            ("qdelay_trend_lo", self.qdelay_trend_lo, true),
        ];
        for (name, v, zero_ok) in unit {
            let low_ok = if zero_ok { v >= 0.0 } else { v > 0.0 };
            if !(low_ok && v <= 1.0) {
                let range = if zero_ok { "[0, 1]" } else { "(0, 1]" };
                return Err(format!("{name} ({v}) is outside {range}"));
            }
        }
        if !(self.tx_queue_size_factor >= 0.0 && self.tx_queue_size_factor <= 2.0) {
            return Err(format!("tx_queue_size_factor ({}) is outside [0, 2]", self.tx_queue_size_factor));
        }
        if !(self.gain > 0.0 && self.gain.is_finite()) {
            return Err(format!("gain ({}) must be positive", self.gain));
        }
        if !(self.max_bytes_in_flight_head_room >= 1.0 && self.max_bytes_in_flight_head_room.is_finite()) {
            return Err(format!(
                "max_bytes_in_flight_head_room ({}) must be at least 1",
                self.max_bytes_in_flight_head_room
            ));
        }
        if self.mss == 0 {
            return Err("mss must be positive".into());
        }
        if self.min_cwnd < self.mss {
            return Err(format!("min_cwnd ({}) is below one mss ({})", self.min_cwnd, self.mss));
        }
        for (name, v) in [
            ("min_bitrate", self.min_bitrate),
            ("ramp_up_speed", self.ramp_up_speed),
            ("rate_pace_min", self.rate_pace_min),
        ] {
            if !(v > 0.0 && v.is_finite()) {
                return Err(format!("{name} ({v}) must be positive"));
            }
        }
        if !(self.max_bitrate >= self.min_bitrate && self.max_bitrate.is_finite()) {
            return Err(format!("max_bitrate ({}) is below min_bitrate ({})", self.max_bitrate, self.min_bitrate));
        }
        if !(self.start_bitrate >= self.min_bitrate && self.start_bitrate <= self.max_bitrate) {
            return Err(format!(
                "start_bitrate ({}) is outside [min_bitrate, max_bitrate] = [{}, {}]",
                self.start_bitrate, self.min_bitrate, self.max_bitrate
            ));
        }
        if self.base_history_len == 0 {
            return Err("base_history_len must be positive".into());
        }
        Ok(())
    }
}

/// RFC 8298 §4.2.2's feedback interval for a media bitrate (bits per second):
/// `1 / min(50, max(2.5, rate_media / 10000))` seconds, 20 ms to 400 ms. For the receiver.
pub fn feedback_interval(rate_media: f64) -> Dur {
    Dur::from_secs_f64(1.0 / (rate_media / 10_000.0).clamp(2.5, 50.0))
}

/// A SCReAM sender's controller: its network congestion control and media rate control.
pub struct Scream {
    cfg: ScreamConfig,
    net: NetworkCongestionControl,
    media: MediaRateControl,
    /// The next qdelay sample (§4.1.2) and target bitrate adjustment (§4.1.3); `None` until
    /// the start.
    next_sample: Option<Time>,
    next_adjust: Option<Time>,
}

impl Scream {
    pub fn new(cfg: ScreamConfig) -> Result<Scream, String> {
        cfg.check()?;
        Ok(Scream {
            net: NetworkCongestionControl::new(&cfg),
            media: MediaRateControl::new(&cfg),
            cfg,
            next_sample: None,
            next_adjust: None,
        })
    }

    pub fn config(&self) -> &ScreamConfig {
        &self.cfg
    }

    pub fn network(&self) -> &NetworkCongestionControl {
        &self.net
    }

    pub fn media(&self) -> &MediaRateControl {
        &self.media
    }

    /// §4.1.2.5's send window: how many more bytes may be sent now (negative: none), against
    /// the bytes in flight as §4.1.2 counts them. [`RateController::window`] gives cwnd alone,
    /// for a sender that compares it with its own in-flight count.
    pub fn send_window(&self) -> i64 {
        self.net.send_window()
    }

    /// The timers start at `now` if they have not: the one choice for a sender that never
    /// calls [`RateController::start`].
    fn ensure_started(&mut self, now: Time) {
        if self.next_sample.is_none() {
            self.next_sample = Some(now + self.cfg.qdelay_sample_interval);
            self.next_adjust = Some(now + self.cfg.rate_adjust_interval);
            self.media.start(now);
        }
    }
}

/// The next deadline of a periodic timer due at `due` with period `every`, handled at `now`:
/// one period on, or a period after `now` if the timer fell more than a period behind.
fn advance(due: Time, every: Dur, now: Time) -> Time {
    let next = due + every;
    if next <= now {
        now + every
    } else {
        next
    }
}

impl RateController for Scream {
    fn name(&self) -> &'static str {
        "scream"
    }

    fn start(&mut self, now: Time) {
        self.ensure_started(now);
    }

    fn on_sent(&mut self, now: Time, seq: u64, size: Bytes, view: &SenderView) {
        self.ensure_started(now);
        self.net.on_sent(now, seq, size.as_u64());
        self.media.on_sent(size.as_u64());
        self.media.observe_queue(view.queue_bytes);
    }

    fn on_feedback(&mut self, now: Time, packets: &[PacketResult], view: &SenderView) {
        self.ensure_started(now);
        let out = self.net.on_feedback(now, packets, view.rtt);
        self.media.on_acked(out.bytes_received);
        self.media.observe_queue(view.queue_bytes);
        match out.congestion {
            // §4.1.3: "with the exception of a prompt reaction to loss events": the loss and
            // ECN cuts of the target are made at once, not at the next adjustment.
            Some(kind) => self.media.on_congestion(kind),
            None if out.left_fast_increase => self.media.on_congestion_detected(),
            None => {}
        }
    }

    fn on_timer(&mut self, now: Time, view: &SenderView) {
        self.ensure_started(now);
        self.media.observe_queue(view.queue_bytes);
        if let Some(due) = self.next_sample.filter(|&t| t <= now) {
            self.net.sample_qdelay(now);
            self.next_sample = Some(advance(due, self.cfg.qdelay_sample_interval, now));
        }
        if let Some(due) = self.next_adjust.filter(|&t| t <= now) {
            self.media.adjust(now, view, self.net.signals());
            self.next_adjust = Some(advance(due, self.cfg.rate_adjust_interval, now));
        }
    }

    fn next_timer(&self) -> Option<Time> {
        match (self.next_sample, self.next_adjust) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn target_rate(&self, _view: &SenderView) -> f64 {
        self.media.target_bitrate()
    }

    fn pacing_rate(&self, _view: &SenderView) -> f64 {
        self.net.pace_bitrate()
    }

    /// cwnd, bytes (the send window's extra MSS while qdelay is under target, §4.1.2.5, is in
    /// [`Scream::send_window`]).
    /// §4.1.2.5: the sender sends while its bytes in flight and the packet fit in this.
    fn window(&self, _view: &SenderView) -> Option<u64> {
        Some(self.net.window_bytes())
    }

    fn discard_queue(&self, view: &SenderView) -> bool {
        self.media.discard_queue(view)
    }

    fn stall_timeout(&self) -> Option<Dur> {
        Some(self.cfg.stall_timeout)
    }

    fn forget_in_flight(&mut self, _now: Time) {
        self.net.forget_in_flight();
    }

    /// RFC 8699 gives no application to SCReAM; its FSE exchanges rates (§5.2: FSE_R(f) and
    /// DR(f) in bits per second), and SCReAM's rate is the media rate control's target bitrate
    /// (RFC 8298 §4.1.3), the rate the encoder is given: the FSE gets that. The self-clocked
    /// window stays the flow's own (§6.2's stateful algorithms: its state is per path and
    /// per flow), limiting what is in flight against the qdelay target as before.
    fn coupled_rate(&self) -> Option<f64> {
        Some(self.media.target_bitrate())
    }

    /// The FSE's rate becomes the target bitrate (within TARGET_BITRATE_MIN and _MAX).
    fn set_coupled_rate(&mut self, _now: Time, rate: f64) {
        self.media.set_coupled_target(rate);
    }

    /// TARGET_BITRATE_MAX.
    fn max_rate(&self) -> f64 {
        self.cfg.max_bitrate
    }

    fn state(&self, _view: &SenderView) -> AgentState {
        AgentState {
            cwnd_pkts: Some(self.net.cwnd() as f64 / self.cfg.mss as f64),
            srtt: self.net.s_rtt().map(Dur::from_secs_f64),
            rate_bps: Some(self.media.target_bitrate()),
            loss_event_rate: Some(self.net.loss_event_rate()),
            ..AgentState::default()
        }
    }
}
