//! CUBIC as Linux's tcp_cubic runs it (`flavor = "linux"`): RFC 9438's curve with Linux's
//! arithmetic and its own slow-start exit. Each difference from RFC 9438 (cubic.rs), as Linux
//! documents it in net/ipv4/tcp_cubic.c and its module parameters (docs/semantics.md, "CUBIC"):
//!
//! - beta 717/1024 (`beta`) and C 410/1024 (`bic_scale` 41, times 10/1024), not 0.7 and 0.4;
//! - whole packets: W_max (`last_max_cwnd`), the origin and cwnd are integers; ssthresh =
//!   max(cwnd * 717 / 1024, 2) from cwnd (not the flight size);
//! - the target is W_cubic at t + the minimum RTT (`delay_min`), not t + the smoothed RTT;
//! - growth by a counter: one packet per `cnt` packets acked, cnt = cwnd / (target - cwnd)
//!   (100 cwnd when the target is not above cwnd; at most 20 before the first loss; at least 2,
//!   so at most 1.5 cwnd per round trip);
//! - Reno-friendliness (`tcp_friendliness`, on): an estimate of Reno's window that gains one
//!   packet per `cwnd * 15 / 8` packets acked (alpha = 3 (1 - beta) / (1 + beta) with beta
//!   717/1024, never switched to 1 as RFC 9438 §4.3 does at cwnd_prior); when it is above cwnd it
//!   speeds the counter up (cnt at most cwnd / (estimate - cwnd)) instead of setting cwnd to it;
//! - fast convergence (`fast_convergence`, on) as RFC 9438 §4.7, on whole packets;
//! - slow start as Linux's: one packet per packet acked up to ssthresh, the rest counts in
//!   congestion avoidance;
//! - RTT samples in the first second of an epoch are not used for the minimum RTT;
//! - a timeout forgets everything (W_max, the minimum RTT, HyStart's state): `bictcp_reset`;
//! - HyStart (`hystart`, on; Ha and Rhee 2008, not RFC 9406's HyStart++), in slow start once
//!   cwnd >= 16 (`hystart_low_window`), per round (until the cumulative ACK passes what was sent
//!   when the round began): ACK train, when ACKs no more than 2 ms apart (`hystart_ack_delta_us`)
//!   have kept coming for more than half the minimum RTT since the round began; delay, when the
//!   smallest of the round's RTT samples, from the 8th on (`HYSTART_MIN_SAMPLES`), exceeds the
//!   minimum RTT by more than min_rtt / 8 clamped to 4..16 ms. Either sets ssthresh = cwnd.
//!
//! Not modelled: the cube-root table and fixed-point arithmetic (exact cbrt and floats instead;
//! they differ by well under a packet); the 1/32 s caching of the counter between updates
//! (recomputed on every ACK); `tcp_is_cwnd_limited` (this sender, as ns-2's, grows cwnd whatever
//! limits it); shifting the epoch over an idle period (the sender restarts instead, which starts
//! a new epoch); HyStart's allowance for TSO and pacing (`hystart_ack_delay`: this sender does
//! not pace CUBIC).
//!
//! HyStart needs an RTT sample on most ACKs: with `timestamps` every ACK gives one; without, the
//! sender times one segment per round trip (ns-2's way) and the delay test never has 8 samples
//! in a round, though the ACK train still works.

use fairway_core::{Dur, Time};

use super::{Acked, AtCongestion, Congestion, CongestionControl, Window};
use crate::tcp::TcpConfig;

/// `beta` 717 over `BICTCP_BETA_SCALE` 1024.
const BETA: u32 = 717;
const BETA_SCALE_1024: u32 = 1024;
/// `bic_scale` 41: C = 41 * 10 / 1024.
const C: f64 = 410.0 / 1024.0;
/// The counter's bound before the first loss.
const CNT_CLAMP: u32 = 20;
/// `beta_scale` = 8 (1024 + 717) / 3 / (1024 - 717), in integers: 15. The Reno estimate gains
/// a packet per `cwnd * 15 / 8` packets acked.
const BETA_SCALE: u32 = 8 * (BETA_SCALE_1024 + BETA) / 3 / (BETA_SCALE_1024 - BETA);
/// `hystart_low_window`.
const HYSTART_LOW_WINDOW: f64 = 16.0;
/// `hystart_ack_delta_us`.
const HYSTART_ACK_DELTA: Dur = Dur::from_millis(2);
/// `HYSTART_MIN_SAMPLES`.
const HYSTART_MIN_SAMPLES: u32 = 8;
/// `HYSTART_DELAY_MIN`, `HYSTART_DELAY_MAX`: the delay threshold's clamp.
const HYSTART_DELAY_MIN: Dur = Dur::from_millis(4);
const HYSTART_DELAY_MAX: Dur = Dur::from_millis(16);
/// Samples this soon after an epoch starts do not count for the minimum RTT (`HZ`).
const FRESH_EPOCH: Dur = Dur::from_secs(1);

/// HyStart's round (`bictcp_hystart_reset`).
#[derive(Debug, Clone, Copy)]
struct Round {
    /// `round_start`, `last_ack`: when the round began, the last ACK of the train.
    start: Time,
    last_ack: Time,
    /// `end_seq`: the round ends when the cumulative ACK passes this packet.
    end: i64,
    /// `curr_rtt`, `sample_cnt`: the round's smallest RTT sample so far and their count.
    min_rtt: Option<Dur>,
    samples: u32,
}

#[derive(Debug, Clone)]
pub struct CubicLinux {
    /// `maxcwnd_`: cap on cwnd, packets; 0 = none.
    max_cwnd: u32,
    fast_convergence: bool,
    tcp_friendliness: bool,
    hystart: bool,
    /// `last_max_cwnd`: W_max, 0 before the first loss and after a timeout.
    last_max: u32,
    /// `bic_origin_point`, `bic_K` (seconds).
    origin: u32,
    k: f64,
    /// `delay_min`.
    delay_min: Option<Dur>,
    /// `epoch_start`.
    epoch_start: Option<Time>,
    /// `ack_cnt`, `tcp_cwnd`: packets acked towards the Reno estimate's next packet, and the
    /// estimate.
    ack_cnt: u32,
    tcp_cwnd: u32,
    /// `snd_cwnd_cnt`: packets acked towards the next one-packet increase.
    cwnd_cnt: u32,
    /// HyStart: found the exit (`found`), and the round.
    found: bool,
    round: Option<Round>,
}

impl CubicLinux {
    pub fn new(cfg: &TcpConfig) -> CubicLinux {
        CubicLinux {
            max_cwnd: cfg.max_cwnd,
            fast_convergence: true,
            tcp_friendliness: true,
            hystart: cfg.hystart.unwrap_or(true),
            last_max: 0,
            origin: 0,
            k: 0.0,
            delay_min: None,
            epoch_start: None,
            ack_cnt: 0,
            tcp_cwnd: 0,
            cwnd_cnt: 0,
            found: false,
            round: None,
        }
    }

    /// `bictcp_update`: the counter for cwnd `cwnd` packets after `acked` more were acked.
    fn update(&mut self, now: Time, cwnd: u32, acked: u32) -> u32 {
        self.ack_cnt += acked;
        let start = match self.epoch_start {
            Some(s) => s,
            None => {
                // A new epoch: K = 0 at or above W_max, else the time to climb back to it.
                self.ack_cnt = acked;
                self.tcp_cwnd = cwnd;
                if self.last_max <= cwnd {
                    self.k = 0.0;
                    self.origin = cwnd;
                } else {
                    self.k = ((self.last_max - cwnd) as f64 / C).cbrt();
                    self.origin = self.last_max;
                }
                self.epoch_start = Some(now);
                now
            }
        };
        // W_cubic at t + the minimum RTT, on whole packets.
        let t = (now + self.delay_min.unwrap_or(Dur::ZERO) - start).as_secs_f64();
        let delta = (C * (t - self.k).abs().powi(3)) as u32;
        let target = if t < self.k { self.origin.saturating_sub(delta) } else { self.origin.saturating_add(delta) };
        let mut cnt = if target > cwnd { cwnd / (target - cwnd) } else { 100u32.saturating_mul(cwnd) };
        if self.last_max == 0 {
            cnt = cnt.min(CNT_CLAMP);
        }
        if self.tcp_friendliness {
            // The Reno estimate: one packet per cwnd * 15 / 8 acked.
            let per = (cwnd * BETA_SCALE / 8).max(1);
            while self.ack_cnt > per {
                self.ack_cnt -= per;
                self.tcp_cwnd += 1;
            }
            if self.tcp_cwnd > cwnd {
                cnt = cnt.min(cwnd / (self.tcp_cwnd - cwnd));
            }
        }
        cnt.max(2)
    }

    /// `hystart_update` for an ACK with RTT sample `delay` in slow start.
    fn hystart_update(&mut self, now: Time, delay: Dur, w: &mut Window) {
        let (Some(r), Some(min)) = (self.round.as_mut(), self.delay_min) else { return };
        // ACK train: ACKs close together since the round began, for over half the minimum RTT.
        if now - r.last_ack <= HYSTART_ACK_DELTA {
            r.last_ack = now;
            if now - r.start > Dur(min.0 / 2) {
                self.found = true;
            }
        }
        // Delay: the round's smallest sample, from the 8th on, above min + clamp(min / 8).
        r.min_rtt = Some(r.min_rtt.map_or(delay, |m| m.min(delay)));
        if r.samples < HYSTART_MIN_SAMPLES {
            r.samples += 1;
        } else {
            let thresh = Dur(min.0 / 8).max(HYSTART_DELAY_MIN).min(HYSTART_DELAY_MAX);
            if r.min_rtt.is_some_and(|m| m > min + thresh) {
                self.found = true;
            }
        }
        if self.found {
            w.ssthresh = w.cwnd;
        }
    }

    fn reset(&mut self) {
        let keep = (self.max_cwnd, self.fast_convergence, self.tcp_friendliness, self.hystart);
        let cfg = TcpConfig { max_cwnd: keep.0, hystart: Some(keep.3), ..TcpConfig::default() };
        *self = CubicLinux { fast_convergence: keep.1, tcp_friendliness: keep.2, ..CubicLinux::new(&cfg) };
    }
}

impl CongestionControl for CubicLinux {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn has_hystart(&self) -> bool {
        true
    }

    fn on_ack(&mut self, now: Time, acked: &Acked, w: &mut Window) {
        let in_ss = w.in_slow_start();
        if self.hystart && in_ss && self.round.is_none_or(|r| acked.highest_ack > r.end) {
            // A new HyStart round.
            self.round = Some(Round { start: now, last_ack: now, end: acked.snd_nxt - 1, min_rtt: None, samples: 0 });
        }
        // `bictcp_acked`: the minimum RTT (not right after an epoch starts), then HyStart.
        if let Some(rtt) = acked.rtt {
            let fresh = self.epoch_start.is_some_and(|s| now - s < FRESH_EPOCH);
            if !fresh {
                let rtt = rtt.max(Dur(1));
                if self.delay_min.is_none_or(|m| rtt < m) {
                    self.delay_min = Some(rtt);
                }
                if self.hystart && !self.found && in_ss && w.cwnd >= HYSTART_LOW_WINDOW {
                    self.hystart_update(now, rtt, w);
                }
            }
        }
        let mut segs = acked.packets.max(1) as u32;
        if w.in_slow_start() {
            // `tcp_slow_start`: one packet per packet acked up to ssthresh.
            let room = (w.ssthresh - w.cwnd).max(0.0) as u32;
            let used = segs.min(room.max(1));
            w.cwnd += used as f64;
            segs -= used;
        }
        if segs > 0 && !w.in_slow_start() {
            let cwnd = w.cwnd.max(1.0) as u32;
            let cnt = self.update(now, cwnd, segs);
            // `tcp_cong_avoid_ai`: one packet per cnt acked.
            if self.cwnd_cnt >= cnt {
                self.cwnd_cnt = 0;
                w.cwnd += 1.0;
            }
            self.cwnd_cnt += segs;
            if self.cwnd_cnt >= cnt {
                let d = self.cwnd_cnt / cnt;
                self.cwnd_cnt -= d * cnt;
                w.cwnd += d as f64;
            }
        }
        if self.max_cwnd > 0 && (w.cwnd as i64) > self.max_cwnd as i64 {
            w.cwnd = self.max_cwnd as f64;
        }
    }

    fn on_congestion(&mut self, _now: Time, event: Congestion, _at: &AtCongestion, w: &mut Window) {
        if event == Congestion::Restart {
            return;
        }
        // `bictcp_recalc_ssthresh`: from cwnd in whole packets.
        let cwnd = w.cwnd.max(0.0) as u32;
        self.epoch_start = None;
        self.last_max = if self.fast_convergence && cwnd < self.last_max {
            cwnd * (BETA_SCALE_1024 + BETA) / (2 * BETA_SCALE_1024)
        } else {
            cwnd
        };
        let ssthresh = (cwnd * BETA / BETA_SCALE_1024).max(2) as f64;
        w.ssthresh = ssthresh;
        match event {
            Congestion::Loss | Congestion::Ecn => w.cwnd = ssthresh,
            // `bictcp_state(TCP_CA_Loss)`: everything is forgotten; the sender restarts from
            // one packet.
            Congestion::Timeout => self.reset(),
            Congestion::Restart => {}
        }
    }

    fn trace(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("w_max", self.last_max as f64),
            ("k_s", self.k),
            ("epoch_start_s", self.epoch_start.map_or(f64::NAN, |s| s.as_secs_f64())),
            ("reno_estimate", self.tcp_cwnd as f64),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acked(packets: u64, rtt_ms: u64, highest_ack: i64, snd_nxt: i64) -> Acked {
        Acked { packets, rtt: Some(Dur::from_millis(rtt_ms)), highest_ack, snd_nxt, ..Acked::default() }
    }

    #[test]
    fn the_cut_is_717_over_1024_of_cwnd_with_fast_convergence_on_whole_packets() {
        let mut c = CubicLinux::new(&TcpConfig::default());
        let at = AtCongestion { window: 100.0, in_flight: 100, after_timeout: false, snd_nxt: 0, conserve: None };
        let mut w = Window { cwnd: 100.0, ssthresh: 1000.0 };
        c.on_congestion(Time::ZERO, Congestion::Loss, &at, &mut w);
        // 100 x 717 / 1024 = 70.02 -> 70; W_max = 100.
        assert_eq!((w.ssthresh, w.cwnd, c.last_max), (70.0, 70.0, 100));
        // A loss below W_max: W_max = 80 x 1741 / 2048 = 68.00 -> 68 (fast convergence).
        let mut w = Window { cwnd: 80.0, ssthresh: 70.0 };
        c.on_congestion(Time::ZERO, Congestion::Loss, &at, &mut w);
        assert_eq!((c.last_max, w.ssthresh), (68, 56.0));
        // A timeout forgets W_max and the minimum RTT.
        c.delay_min = Some(Dur::from_millis(10));
        c.on_congestion(Time::ZERO, Congestion::Timeout, &at, &mut w);
        assert_eq!((c.last_max, c.delay_min), (0, None));
    }

    #[test]
    fn the_reno_estimate_speeds_the_counter_up() {
        let mut c = CubicLinux::new(&TcpConfig::default());
        c.last_max = 100;
        c.delay_min = Some(Dur::from_millis(100));
        // An epoch starting at cwnd 100 = W_max: K = 0, the curve is flat at first, so cnt
        // would be 100 cwnd; the Reno estimate starts at cwnd too.
        let t0 = Time::from_secs_f64(10.0);
        assert_eq!(c.update(t0, 100, 1), 100 * 100);
        // 100 x 15 / 8 = 187 packets acked per estimate packet: after 376 more the estimate is
        // 102, two above cwnd, so cnt = 100 / 2 = 50 (the curve's 0.4 x 0.1^3 is no packet).
        assert_eq!(c.update(t0, 100, 376), 50);
        assert_eq!(c.tcp_cwnd, 102);
    }

    #[test]
    fn hystart_ack_train_ends_slow_start_after_half_the_minimum_rtt() {
        let mut c = CubicLinux::new(&TcpConfig::default());
        let mut w = Window { cwnd: 32.0, ssthresh: 1e9 };
        // A round of ACKs 1 ms apart with RTT 40 ms: the train passes 20 ms (half the minimum
        // RTT) at its 22nd ACK (21 ms after the first), and ssthresh becomes cwnd then.
        let mut now = Time::from_secs_f64(1.0);
        let mut exit = None;
        for i in 0..32 {
            c.on_ack(now, &acked(1, 40, 100 + i, 140), &mut w);
            if exit.is_none() && w.ssthresh < 1e9 {
                exit = Some(i);
            }
            now += Dur::from_millis(1);
        }
        assert_eq!(exit, Some(21));
        assert!(!w.in_slow_start());
    }

    #[test]
    fn hystart_delay_ends_slow_start_when_the_round_minimum_rises() {
        let mut c = CubicLinux::new(&TcpConfig::default());
        c.delay_min = Some(Dur::from_millis(40));
        let mut w = Window { cwnd: 32.0, ssthresh: 1e9 };
        // ACKs 5 ms apart (no train), RTT 40 + 6 ms: the threshold is max(40 / 8, 4) = 5 ms,
        // so the round's minimum 46 ms is above it from the 9th sample on.
        let mut now = Time::from_secs_f64(1.0);
        for i in 0..8 {
            c.on_ack(now, &acked(1, 46, 100 + i, 200), &mut w);
            assert!(w.in_slow_start(), "sample {i}");
            now += Dur::from_millis(5);
        }
        c.on_ack(now, &acked(1, 46, 108, 200), &mut w);
        assert!(!w.in_slow_start());
        // 4 ms more would not have been enough: a fresh flow at 44 ms stays in slow start.
        let mut c = CubicLinux::new(&TcpConfig::default());
        c.delay_min = Some(Dur::from_millis(40));
        let mut w = Window { cwnd: 32.0, ssthresh: 1e9 };
        for i in 0..20 {
            c.on_ack(Time::from_secs_f64(1.0) + Dur::from_millis(5 * i as u64), &acked(1, 44, 100 + i, 200), &mut w);
        }
        assert!(w.in_slow_start());
    }
}
