//! BBR version 1 as Linux's net/ipv4/tcp_bbr.c runs it, described by
//! draft-cardwell-iccrg-bbr-congestion-control-00 (the section numbers cited are that draft's;
//! "DRE" is draft-cheng-iccrg-delivery-rate-estimation-00, which the sender implements in
//! tcp/rate.rs). Windows in packets; the bottleneck bandwidth in packets per second.
//!
//! The model: BtlBw, the largest delivery rate over the last 10 packet-timed round trips
//! (§4.1.1), and RTprop, the smallest RTT over 10 s (§4.1.2). The controls: the pacing rate
//! pacing_gain x BtlBw (§4.2.1) and cwnd up to cwnd_gain x BDP plus a quantization budget
//! (§4.2.3). The states: Startup (gains 2/ln 2) until the bandwidth grew less than 25% in three
//! rounds (§4.3.2), Drain (pacing gain ln 2 / 2) until in flight <= BDP (§4.3.3), ProbeBW's
//! eight-phase gain cycle 5/4, 3/4, 1 x 6 from a random phase other than 3/4 (§4.3.4), and
//! ProbeRTT at 4 packets for max(200 ms, a round) when RTprop is 10 s old (§4.3.5).
//!
//! Where Linux and the draft differ, Linux is followed:
//! - RTprop takes a sample only if strictly smaller (`<`, tcp_bbr.c bbr_update_min_rtt; the
//!   draft's §4.1.2.3 has `<=`), so an unchanging path still sees ProbeRTT every 10 s;
//! - the target window is ceil(gain x BDP) + 3 send quanta, rounded up to an even number, and 2
//!   more in ProbeBW's 5/4 phase (Linux's bbr_quantization_budget); the send quantum is one
//!   packet, since this sender paces every segment alone (the draft's §4.2.2 and Linux's TSO
//!   sizing would take 2 packets above 1.2 Mb/s);
//! - the pacing rate is 1% below pacing_gain x BtlBw (Linux's bbr_pacing_margin_percent);
//! - ECN-Echo does not cut the window (BBR v1 has no ECN response; Linux's CWR state only
//!   saves cwnd);
//! - a timeout resets the full-pipe baseline (Linux's bbr_set_state on TCP_CA_Loss).
//!
//! Loss (§4.2.3.4): on a fast retransmit cwnd is saved, then set to the packets in flight plus
//! the one the third duplicate ACK delivered: the sender's outstanding packets less the
//! duplicates' (`dupack_thresh`), at least 1 (Linux: `tcp_packets_in_flight + acked`, which
//! counts the head as lost); with RFC 6675 recovery, Linux's count itself from the scoreboard
//! ([`AtCongestion::conserve`]: neither SACKed nor lost, plus what the ACK delivered), which
//! leaves out the many losses of a start-up into a full queue. For the first round of recovery cwnd is at least in flight +
//! delivered on every ACK (packet conservation); after it, it grows by the packets delivered as
//! outside recovery. When recovery ends ([`CongestionControl::on_recovery_end`], or, after a
//! timeout or Tahoe's go-back-N, once everything outstanding at the event is delivered) cwnd is
//! restored to at least the saved one. ("Outstanding at the event" is what the last ACK
//! counted in flight, less what SACKs or duplicate ACKs already delivered.) A timeout saves cwnd and the sender restarts from one
//! packet; the model carries on. ssthresh plays no part in BBR: it is held at Linux's
//! TCP_INFINITE_SSTHRESH (2^31 - 1) on every ACK and event, so a cc-independent slow-start
//! test would always see slow start (this sender has none: only the algorithms read it).
//!
//! Not implemented: Linux's long-term bandwidth sampling (policer detection, `lt_bw`), its
//! ACK-aggregation allowance (`extra_acked`, added to the target window since Linux 5.1), the
//! idle restart of §4.3.4.4 (the sender still restarts an idle connection from one packet, as
//! ns-2 does, and BBR restores its window when that packet is acknowledged), and the EDT
//! adjustment of in-flight counts (`bbr_packets_in_net_at_edt`). The BtlBw filter is the exact
//! windowed maximum the draft describes, where Linux keeps Nichols' three-sample approximation.

use std::collections::VecDeque;
use std::f64::consts::LN_2;

use fairway_core::{Dur, Rate, Rng, Time};

use super::{Acked, AtCongestion, Congestion, CongestionControl, RateSample, Window};
use crate::tcp::{TcpConfig, TcpVariant};

/// §2 BBRHighGain = 2/ln 2, about 2.885: the smallest gain that doubles the rate each round.
pub const HIGH_GAIN: f64 = 2.0 / LN_2;
/// §4.3.3: Drain paces at the inverse, ln 2 / 2.
pub const DRAIN_GAIN: f64 = LN_2 / 2.0;
/// §4.3.4.1: ProbeBW's cwnd_gain.
pub const CWND_GAIN: f64 = 2.0;
/// §4.3.4.1: ProbeBW's pacing gains, phase by phase.
pub const PACING_GAIN_CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
/// §2 BtlBwFilterLen: 10 packet-timed round trips.
pub const BTLBW_FILTER_LEN: u64 = 10;
/// §2 RTpropFilterLen (and ProbeRTTInterval): 10 s.
pub const RTPROP_FILTER_LEN: Dur = Dur::from_secs(10);
/// §2 ProbeRTTDuration: 200 ms.
pub const PROBE_RTT_DURATION: Dur = Dur::from_millis(200);
/// §2 BBRMinPipeCwnd: 4 packets.
pub const MIN_PIPE_CWND: f64 = 4.0;
/// §4.3.2.2: the bandwidth still grows if it reached 1.25 times the baseline...
pub const FULL_BW_THRESH: f64 = 1.25;
/// ...and the pipe is full after this many rounds without it.
pub const FULL_BW_ROUNDS: u32 = 3;
/// Linux's bbr_pacing_margin_percent: pace 1% below the model's rate.
pub const PACING_MARGIN: f64 = 0.01;
/// §4.2.2's send quantum, in packets: this sender sends one segment at a time.
pub const SEND_QUANTUM: f64 = 1.0;
/// Linux's TCP_INFINITE_SSTHRESH, where BBR leaves ssthresh.
pub const INFINITE_SSTHRESH: f64 = 2147483647.0;
/// §4.2.1: the RTT the initial pacing rate assumes before the first sample.
const DEFAULT_RTT: Dur = Dur::from_millis(1);

/// The state machine's states (§3.4), numbered for traces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

impl Mode {
    /// 0 Startup, 1 Drain, 2 ProbeBW, 3 ProbeRTT (Linux's order).
    pub fn number(self) -> f64 {
        match self {
            Mode::Startup => 0.0,
            Mode::Drain => 1.0,
            Mode::ProbeBw => 2.0,
            Mode::ProbeRtt => 3.0,
        }
    }
}

/// A windowed maximum (§4.1.1.2): the largest value whose time (a round count) is within
/// `window` of the latest update's. A value from round r counts through round r + window, as
/// Linux's minmax expires a sample once `t - r > window`.
#[derive(Debug, Clone)]
pub struct MaxFilter {
    window: u64,
    /// Candidates (time, value), values strictly decreasing, times increasing.
    samples: VecDeque<(u64, f64)>,
}

impl MaxFilter {
    pub fn new(window: u64) -> MaxFilter {
        MaxFilter { window, samples: VecDeque::new() }
    }

    /// Adds `value` at time `t` (not before the last one) and returns the maximum.
    pub fn update(&mut self, t: u64, value: f64) -> f64 {
        while self.samples.front().is_some_and(|&(t0, _)| t.saturating_sub(t0) > self.window) {
            self.samples.pop_front();
        }
        while self.samples.back().is_some_and(|&(_, v)| v <= value) {
            self.samples.pop_back();
        }
        self.samples.push_back((t, value));
        self.get()
    }

    /// The maximum as of the last update (0 before any).
    pub fn get(&self) -> f64 {
        self.samples.front().map_or(0.0, |&(_, v)| v)
    }
}

/// Loss recovery as BBR sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Recovery {
    None,
    /// Fast recovery (Linux TCP_CA_Recovery).
    Fast,
    /// After a timeout or a go-back-N (Linux TCP_CA_Loss).
    Rto,
}

#[derive(Debug, Clone)]
pub struct Bbr {
    mode: Mode,
    pacing_gain: f64,
    cwnd_gain: f64,
    /// §4.1.1 BBR.BtlBwFilter, packets per second over round counts.
    btlbw: MaxFilter,
    /// §4.1.2 BBR.RTprop (`None`: infinite, no sample yet) and BBR.rtprop_stamp.
    rtprop: Option<Dur>,
    rtprop_stamp: Time,
    /// §4.1.1.3 round counting.
    round_count: u64,
    round_start: bool,
    next_round_delivered: u64,
    /// §4.3.2.2 the full-pipe estimator.
    filled_pipe: bool,
    full_bw: f64,
    full_bw_count: u32,
    /// §4.3.4.3 gain cycling.
    cycle_index: usize,
    cycle_stamp: Time,
    /// §4.3.5.
    probe_rtt_done_stamp: Option<Time>,
    probe_rtt_round_done: bool,
    /// ProbeRTT asked on this ACK that what is sent be counted app-limited.
    mark_app_limited: bool,
    /// §4.2.3.4.
    packet_conservation: bool,
    prior_cwnd: f64,
    recovery: Recovery,
    /// Recovery is over once this many packets are delivered (everything outstanding at the
    /// event), if the sender does not say so first.
    recovery_until: u64,
    /// A loss was detected since the last ACK (§4.3.4.3's packets_lost > 0).
    loss_pending: bool,
    /// §4.2.1 BBR.pacing_rate, bits per second.
    pacing_rate: f64,
    has_seen_rtt: bool,
    /// C.delivered and the packets in flight as of the last sample.
    delivered: u64,
    in_flight: u64,
    /// Draws the initial ProbeBW phase (§4.3.4.2).
    rng: Rng,
    /// The transport's initial window (`window_init`), packets.
    init_cwnd: f64,
    /// A data packet on the wire, bits: BtlBw x this is the rate in bits per second.
    wire_bits: f64,
    max_cwnd: u32,
    dupack_thresh: u32,
    tahoe: bool,
}

impl Bbr {
    /// BBR for a sender with this configuration. Its random stream (the initial ProbeBW phase)
    /// comes from the configuration's per-connection seeds, `overhead_seed` and `tick_phase`,
    /// which the engine draws from each flow's own stream.
    pub fn new(cfg: &TcpConfig) -> Bbr {
        Bbr::with_seed(cfg, cfg.overhead_seed ^ cfg.tick_phase.0.rotate_left(32))
    }

    /// The same with its own seed.
    pub fn with_seed(cfg: &TcpConfig, seed: u64) -> Bbr {
        let mut b = Bbr {
            mode: Mode::Startup,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            btlbw: MaxFilter::new(BTLBW_FILTER_LEN),
            rtprop: None,
            rtprop_stamp: Time::ZERO,
            round_count: 0,
            round_start: false,
            next_round_delivered: 0,
            filled_pipe: false,
            full_bw: 0.0,
            full_bw_count: 0,
            cycle_index: 0,
            cycle_stamp: Time::ZERO,
            probe_rtt_done_stamp: None,
            probe_rtt_round_done: false,
            mark_app_limited: false,
            packet_conservation: false,
            prior_cwnd: 0.0,
            recovery: Recovery::None,
            recovery_until: 0,
            loss_pending: false,
            pacing_rate: 0.0,
            has_seen_rtt: false,
            delivered: 0,
            in_flight: 0,
            rng: Rng::stream(seed, "tcp:bbr"),
            init_cwnd: cfg.window_init.max(1) as f64,
            wire_bits: (cfg.packet_size.0 + cfg.header_size.0).max(1) as f64 * 8.0,
            max_cwnd: cfg.max_cwnd,
            dupack_thresh: cfg.dupack_thresh,
            tahoe: cfg.variant == TcpVariant::Tahoe,
        };
        // §4.3.1 BBRInit: no RTT yet, so the initial pacing rate assumes 1 ms (§4.2.1).
        b.init_pacing_rate(DEFAULT_RTT);
        b.enter_startup();
        b
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// BBR.BtlBw, packets per second.
    pub fn btlbw(&self) -> f64 {
        self.btlbw.get()
    }

    /// BBR.RTprop.
    pub fn rtprop(&self) -> Option<Dur> {
        self.rtprop
    }

    pub fn pacing_gain(&self) -> f64 {
        self.pacing_gain
    }

    pub fn cwnd_gain(&self) -> f64 {
        self.cwnd_gain
    }

    /// BBR.round_count.
    pub fn round_count(&self) -> u64 {
        self.round_count
    }

    /// BBR.filled_pipe.
    pub fn filled_pipe(&self) -> bool {
        self.filled_pipe
    }

    /// BBR.cycle_index (meaningful in ProbeBW).
    pub fn cycle_index(&self) -> usize {
        self.cycle_index
    }

    /// BBR.pacing_rate, bits per second.
    pub fn pacing_rate_bps(&self) -> f64 {
        self.pacing_rate
    }

    /// §4.2.3.2 BBRInflight(gain): gain x BDP plus the quantization budget, packets.
    pub fn inflight(&self, gain: f64) -> f64 {
        let Some(rtprop) = self.rtprop else {
            // §4.2.3.2: no valid RTT sample yet.
            return self.init_cwnd;
        };
        let bdp = self.btlbw() * rtprop.as_secs_f64();
        // Linux bbr_bdp rounds up. Rates come from nanosecond intervals, so a thousandth of a
        // packet above a whole number is noise, not a packet.
        let mut w = (gain * bdp - 1e-3).ceil().max(0.0);
        // §4.2.3.2 quanta = 3 send quanta; Linux bbr_quantization_budget then rounds up to an
        // even number (fewer delayed-ACK stalls) and adds 2 in the probing phase, so that even
        // a small BDP probes above it.
        w += 3.0 * SEND_QUANTUM;
        w = 2.0 * (w / 2.0).ceil();
        if self.mode == Mode::ProbeBw && self.cycle_index == 0 {
            w += 2.0;
        }
        w
    }

    /// The pacing rate, bits per second, for bandwidth `bw` (packets per second) and `gain`,
    /// with Linux's 1% margin.
    fn rate_with_gain(&self, bw: f64, gain: f64) -> f64 {
        gain * bw * self.wire_bits * (1.0 - PACING_MARGIN)
    }

    /// §4.2.1 BBRInitPacingRate: nominal bandwidth = InitialCwnd / RTT, times the gain.
    fn init_pacing_rate(&mut self, rtt: Dur) {
        let rtt = rtt.as_secs_f64().max(1e-6);
        self.pacing_rate = self.rate_with_gain(self.init_cwnd / rtt, HIGH_GAIN);
    }

    // ---- states -------------------------------------------------------------------------

    /// §4.3.2.1 BBREnterStartup.
    fn enter_startup(&mut self) {
        self.mode = Mode::Startup;
        self.update_gains();
    }

    /// §4.3.3 BBREnterDrain.
    fn enter_drain(&mut self) {
        self.mode = Mode::Drain;
        self.update_gains();
    }

    /// §4.3.4.3 BBREnterProbeBW: a random phase among all but the 3/4 one (§4.3.4.2): the
    /// index drawn is 7 - r for r in 0..=6, which the advance turns into 2..=7 or 0.
    fn enter_probe_bw(&mut self, now: Time) {
        self.mode = Mode::ProbeBw;
        self.cycle_index = PACING_GAIN_CYCLE.len() - 1 - self.rng.below(7) as usize;
        self.advance_cycle_phase(now);
    }

    /// §4.3.4.3 BBRAdvanceCyclePhase.
    fn advance_cycle_phase(&mut self, now: Time) {
        self.cycle_stamp = now;
        self.cycle_index = (self.cycle_index + 1) % PACING_GAIN_CYCLE.len();
        self.update_gains();
    }

    /// §4.3.5 BBREnterProbeRTT.
    fn enter_probe_rtt(&mut self) {
        self.mode = Mode::ProbeRtt;
        self.update_gains();
    }

    /// §4.3.5 BBRExitProbeRTT.
    fn exit_probe_rtt(&mut self, now: Time) {
        if self.filled_pipe {
            self.enter_probe_bw(now);
        } else {
            self.enter_startup();
        }
    }

    /// The gains of the current state (Linux bbr_update_gains; §4.3.2.1, §4.3.3, §4.3.4.1,
    /// §4.3.5).
    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (HIGH_GAIN, HIGH_GAIN),
            Mode::Drain => (DRAIN_GAIN, HIGH_GAIN),
            Mode::ProbeBw => (PACING_GAIN_CYCLE[self.cycle_index], CWND_GAIN),
            Mode::ProbeRtt => (1.0, 1.0),
        };
    }

    // ---- the model, per ACK (§3.5.2) ----------------------------------------------------

    /// §4.1.1.5 BBRUpdateBtlBw with §4.1.1.3 BBRUpdateRound. A sample without a valid
    /// interval counts for nothing, not even the round (Linux bbr_update_bw).
    fn update_btlbw(&mut self, rs: &RateSample) {
        self.round_start = false;
        let (Some(rate), Some(prior)) = (rs.delivery_rate(), rs.prior_delivered) else { return };
        if prior >= self.next_round_delivered {
            self.next_round_delivered = rs.total_delivered;
            self.round_count += 1;
            self.round_start = true;
            // §4.2.3.4: packet conservation lasts the first round of recovery.
            self.packet_conservation = false;
        }
        // §4.1.1.4: app-limited samples only if they raise the estimate.
        if !rs.is_app_limited || rate >= self.btlbw() {
            self.btlbw.update(self.round_count, rate);
        }
    }

    /// §4.3.4.3 BBRCheckCyclePhase / BBRIsNextCyclePhase.
    fn check_cycle_phase(&mut self, now: Time, rs: &RateSample, lost: bool) {
        if self.mode != Mode::ProbeBw {
            return;
        }
        let rtprop = self.rtprop.unwrap_or(Dur::ZERO);
        let is_full_length = now.saturating_since(self.cycle_stamp) > rtprop;
        let prior_inflight = rs.prior_in_flight as f64;
        let next = if self.pacing_gain == 1.0 {
            is_full_length
        } else if self.pacing_gain > 1.0 {
            is_full_length && (lost || prior_inflight >= self.inflight(self.pacing_gain))
        } else {
            is_full_length || prior_inflight <= self.inflight(1.0)
        };
        if next {
            self.advance_cycle_phase(now);
        }
    }

    /// §4.3.2.2 BBRCheckFullPipe.
    fn check_full_pipe(&mut self, rs: &RateSample) {
        if self.filled_pipe || !self.round_start || rs.is_app_limited {
            return;
        }
        let bw = self.btlbw();
        if bw >= self.full_bw * FULL_BW_THRESH {
            self.full_bw = bw;
            self.full_bw_count = 0;
            return;
        }
        self.full_bw_count += 1;
        if self.full_bw_count >= FULL_BW_ROUNDS {
            self.filled_pipe = true;
        }
    }

    /// §4.3.3 BBRCheckDrain.
    fn check_drain(&mut self, now: Time, rs: &RateSample) {
        if self.mode == Mode::Startup && self.filled_pipe {
            self.enter_drain();
        }
        if self.mode == Mode::Drain && rs.in_flight as f64 <= self.inflight(1.0) {
            self.enter_probe_bw(now);
        }
    }

    /// §4.1.2.3 BBRUpdateRTprop and §4.3.5 BBRCheckProbeRTT, combined as Linux's
    /// bbr_update_min_rtt.
    fn update_rtprop(&mut self, now: Time, rs: &RateSample, w: &mut Window) {
        // The filter expires 10 s after its sample (never before the first one).
        let expired = self.rtprop.is_some() && now > self.rtprop_stamp + RTPROP_FILTER_LEN;
        if let Some(rtt) = rs.rtt {
            if self.rtprop.is_none_or(|m| rtt < m) || expired {
                self.rtprop = Some(rtt);
                self.rtprop_stamp = now;
            }
        }
        if expired && self.mode != Mode::ProbeRtt {
            self.enter_probe_rtt();
            self.prior_cwnd = self.save_cwnd(w.cwnd);
            self.probe_rtt_done_stamp = None;
        }
        if self.mode != Mode::ProbeRtt {
            return;
        }
        // §4.3.5 BBRHandleProbeRTT: ignore the low rates of this state's sends.
        self.mark_app_limited = true;
        match self.probe_rtt_done_stamp {
            None if rs.in_flight as f64 <= MIN_PIPE_CWND => {
                self.probe_rtt_done_stamp = Some(now + PROBE_RTT_DURATION);
                self.probe_rtt_round_done = false;
                self.next_round_delivered = self.delivered;
            }
            None => {}
            Some(done) => {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done && now > done {
                    self.rtprop_stamp = now;
                    w.cwnd = self.restore_cwnd(w.cwnd);
                    self.exit_probe_rtt(now);
                }
            }
        }
    }

    // ---- the controls -------------------------------------------------------------------

    /// §4.2.1 BBRSetPacingRate: before the pipe is full the rate only rises.
    fn set_pacing_rate(&mut self, rs: &RateSample) {
        if !self.has_seen_rtt {
            if let Some(rtt) = rs.rtt {
                // §4.2.1: the initial rate from the first RTT (Linux
                // bbr_init_pacing_rate_from_rtt).
                self.has_seen_rtt = true;
                self.init_pacing_rate(rtt);
            }
        }
        let rate = self.rate_with_gain(self.btlbw(), self.pacing_gain);
        if self.filled_pipe || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    /// §4.2.3.6 BBRSetCwnd with §4.2.3.4's recovery and §4.2.3.5's ProbeRTT bounds.
    fn set_cwnd(&mut self, rs: &RateSample, w: &mut Window) {
        let acked = rs.newly_delivered as f64;
        let mut cwnd = w.cwnd;
        if acked > 0.0 {
            if self.recovery != Recovery::None && self.delivered >= self.recovery_until {
                // Everything outstanding at the loss or timeout is delivered.
                cwnd = self.end_recovery(cwnd);
            }
            if self.packet_conservation {
                // §4.2.3.4 BBRModulateCwndForRecovery.
                cwnd = cwnd.max(rs.in_flight as f64 + acked);
            } else {
                let target = self.inflight(self.cwnd_gain);
                if self.filled_pipe {
                    cwnd = (cwnd + acked).min(target);
                } else if cwnd < target || (self.delivered as f64) < self.init_cwnd {
                    cwnd += acked;
                }
                // §4.2.3.3.
                cwnd = cwnd.max(MIN_PIPE_CWND);
            }
        }
        if self.max_cwnd > 0 {
            cwnd = cwnd.min(self.max_cwnd as f64);
        }
        if self.mode == Mode::ProbeRtt {
            // §4.2.3.5 BBRModulateCwndForProbeRTT.
            cwnd = cwnd.min(MIN_PIPE_CWND);
        }
        w.cwnd = cwnd;
    }

    /// §4.2.3.4 BBRSaveCwnd: the last cwnd not modulated by recovery or ProbeRTT.
    fn save_cwnd(&self, cwnd: f64) -> f64 {
        if self.recovery == Recovery::None && self.mode != Mode::ProbeRtt {
            cwnd
        } else {
            self.prior_cwnd.max(cwnd)
        }
    }

    /// §4.2.3.4 BBRRestoreCwnd.
    fn restore_cwnd(&self, cwnd: f64) -> f64 {
        cwnd.max(self.prior_cwnd)
    }

    /// §4.2.3.4, upon exiting loss recovery.
    fn end_recovery(&mut self, cwnd: f64) -> f64 {
        self.recovery = Recovery::None;
        self.packet_conservation = false;
        self.restore_cwnd(cwnd)
    }

    /// Loss recovery begins: fast recovery, which the sender ends
    /// ([`CongestionControl::on_recovery_end`]; `outstanding` more deliveries end it too, a
    /// fallback that comes later), or the recovery after a timeout or go-back-N, over once what
    /// is in flight now has been delivered: the last sample's count, which leaves out the packets
    /// SACKs and duplicate ACKs already delivered, as Linux's end of TCP_CA_Loss at `high_seq`.
    fn begin_recovery(&mut self, kind: Recovery, cwnd: f64, outstanding: u64) {
        self.prior_cwnd = self.save_cwnd(cwnd);
        self.recovery = kind;
        let left = if kind == Recovery::Fast { outstanding } else { self.in_flight };
        self.recovery_until = self.delivered + left;
    }
}

impl CongestionControl for Bbr {
    fn name(&self) -> &'static str {
        "bbr"
    }

    /// BBR does everything in [`on_delivery`](CongestionControl::on_delivery).
    fn on_ack(&mut self, _now: Time, _acked: &Acked, _w: &mut Window) {}

    fn on_delivery(&mut self, now: Time, rs: &RateSample, w: &mut Window) {
        self.delivered = rs.total_delivered;
        self.in_flight = rs.in_flight;
        self.mark_app_limited = false;
        let lost = std::mem::take(&mut self.loss_pending);
        // §3.5.2 BBRUpdateModelAndState (Linux bbr_update_model's order).
        self.update_btlbw(rs);
        self.check_cycle_phase(now, rs, lost);
        self.check_full_pipe(rs);
        self.check_drain(now, rs);
        self.update_rtprop(now, rs, w);
        self.update_gains();
        // §3.5.2 BBRUpdateControlParameters (the send quantum is fixed: SEND_QUANTUM).
        self.set_pacing_rate(rs);
        self.set_cwnd(rs, w);
        w.ssthresh = INFINITE_SSTHRESH;
    }

    fn on_congestion(&mut self, _now: Time, event: Congestion, at: &AtCongestion, w: &mut Window) {
        match event {
            Congestion::Loss if !self.tahoe => {
                // §4.2.3.4, upon entering fast recovery: save cwnd, then cwnd = packets in
                // flight + the packet the third duplicate delivered, which is what is
                // outstanding less the duplicates' packets; packet conservation for a round,
                // which starts now (Linux: next_rtt_delivered = delivered).
                self.begin_recovery(Recovery::Fast, w.cwnd, at.in_flight);
                self.packet_conservation = true;
                self.next_round_delivered = self.delivered;
                self.loss_pending = true;
                // With a scoreboard, Linux's count: what is neither SACKed nor lost, plus
                // what this ACK delivered.
                let conserve = at.conserve.map_or(at.in_flight as f64 - self.dupack_thresh as f64, |c| c as f64);
                w.cwnd = conserve.max(1.0);
            }
            Congestion::Loss | Congestion::Timeout => {
                // §4.2.3.4, upon a timeout (and Tahoe's go-back-N, which the sender runs from
                // one packet likewise): save cwnd; the sender sets it to 1. After a timeout
                // Linux also forgets the full-pipe baseline (bbr_set_state, TCP_CA_Loss).
                self.begin_recovery(Recovery::Rto, w.cwnd, at.in_flight);
                self.packet_conservation = false;
                if event == Congestion::Timeout {
                    self.full_bw = 0.0;
                }
                self.loss_pending = true;
            }
            Congestion::Restart => {
                // One packet again without a loss (idle, or after an ECN cut): the window is
                // restored once what was outstanding is delivered.
                self.begin_recovery(Recovery::Rto, w.cwnd, at.in_flight);
                self.packet_conservation = false;
            }
            Congestion::Ecn => {
                // BBR v1 does not respond to ECN; Linux's CWR state only saves cwnd.
                self.prior_cwnd = self.save_cwnd(w.cwnd);
            }
        }
        w.ssthresh = INFINITE_SSTHRESH;
    }

    fn on_recovery_end(&mut self, _now: Time, w: &mut Window) {
        if self.recovery != Recovery::None {
            w.cwnd = self.end_recovery(w.cwnd);
        }
    }

    fn pacing_rate(&self) -> Option<Rate> {
        Some(Rate(self.pacing_rate.round().max(1.0) as u64))
    }

    /// Linux's tcp_bbr is a `cong_control` algorithm: its ssthresh stays infinite, and its
    /// window in recovery is its own packet conservation (bbr_set_cwnd_to_recover_or_restore).
    fn sets_own_window(&self) -> bool {
        true
    }

    fn wants_rate_samples(&self) -> bool {
        true
    }

    fn marks_app_limited(&self) -> bool {
        self.mark_app_limited
    }

    fn trace(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("btlbw_bps", self.btlbw() * self.wire_bits),
            ("rtprop_s", self.rtprop.map_or(f64::NAN, Dur::as_secs_f64)),
            ("mode", self.mode.number()),
            ("pacing_gain", self.pacing_gain),
            ("cwnd_gain", self.cwnd_gain),
        ]
    }
}
