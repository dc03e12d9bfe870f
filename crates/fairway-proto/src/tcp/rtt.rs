//! The retransmission timer estimator of ns-2's `TcpAgent` (`rtt_init`, `rtt_update`,
//! `rtt_timeout`, `rtt_backoff`): RFC 6298 §2 on a coarse tick clock, in fixed point.
//!
//! - samples are whole ticks of a clock with phase `tick_phase` (ns-2 `boot_time_`):
//!   `rtt = floor((now + phase) / tick) - floor((sent + phase) / tick)`, at least 1;
//! - `srtt` is kept as `8 * srtt` and `rttvar` as `4 * rttvar` (`T_SRTT_BITS` 3,
//!   `T_RTTVAR_BITS` 2), both in ticks, updated with integer arithmetic;
//! - `RTO = (srtt + 2^rttvar_exp * rttvar)` truncated to ticks, `rttvar_exp_` = 2, i.e. the
//!   RFC 6298 §2.3 `SRTT + max(G, K * RTTVAR)` with K = 4 and without the `max(G, .)`;
//! - the min RTO is applied before the backoff multiplier (ns-2 `rfc2988_` true), the result is
//!   capped at `max_rto` and floored at two ticks.

use fairway_core::{Dur, Time};

use super::RtoStyle;

/// ns-2 `T_SRTT_BITS`: srtt is stored times 8.
const T_SRTT_BITS: u32 = 3;
/// ns-2 `T_RTTVAR_BITS`: rttvar is stored times 4.
const T_RTTVAR_BITS: u32 = 2;
/// ns-2 `rttvar_exp_`: RTO = srtt + 2^2 * rttvar (RFC 6298 §2.3, K = 4).
const RTTVAR_EXP: u32 = 2;
/// ns-2 lets `t_backoff_` double while it is below 64, or beyond while the backed-off RTO is
/// still under `maxrto_`. A guard so a degenerate config cannot overflow.
const MAX_BACKOFF: u64 = 1 << 40;
/// Samples are clamped so the fixed-point arithmetic cannot overflow (about 350 years of
/// 10 ms ticks).
const MAX_SAMPLE_TICKS: u64 = 1 << 40;

#[derive(Debug, Clone)]
pub(crate) struct RttEstimator {
    tick: u64,
    phase: u64,
    min_rto: Dur,
    max_rto: Dur,
    /// 8 x smoothed RTT, in ticks; 0 = no estimate (ns-2 `t_srtt_`).
    t_srtt: i64,
    /// 4 x RTT variation, in ticks (ns-2 `t_rttvar_`).
    t_rttvar: i64,
    /// The un-backed-off RTO (ns-2 `t_rtxcur_`).
    rtxcur: Dur,
    /// RTO multiplier, 1 when not backed off (ns-2 `t_backoff_`).
    backoff: u64,
    /// Last sample, in ticks (ns-2 `t_rtt_`).
    last_ticks: i64,
    /// How the RTO follows from srtt and rttvar.
    style: RtoStyle,
}

impl RttEstimator {
    /// ns-2 `rtt_init()`: `srtt_init_` 0, `rttvar_init_` 12 s (only used if a backoff clobbers
    /// srtt before any sample), RTO = `rtxcur_init_`, backoff 1.
    pub(crate) fn new(tick: Dur, phase: Dur, min_rto: Dur, max_rto: Dur, initial_rto: Dur) -> Self {
        let tick = tick.as_nanos().max(1);
        RttEstimator {
            tick,
            phase: phase.as_nanos() % tick,
            min_rto,
            max_rto,
            t_srtt: 0,
            t_rttvar: ((12_000_000_000 / tick) as i64) << T_RTTVAR_BITS,
            rtxcur: initial_rto,
            backoff: 1,
            last_ticks: 0,
            style: RtoStyle::Rfc6298,
        }
    }

    /// The same with the RTO computed in `style`.
    pub(crate) fn with_style(mut self, style: RtoStyle) -> Self {
        self.style = style;
        self
    }

    fn ticks(&self, t: Time) -> u64 {
        t.as_nanos().saturating_add(self.phase) / self.tick
    }

    /// ns-2 `rtt_update()` with `timestamps_` off: one sample for a segment sent at `sent`.
    pub(crate) fn sample(&mut self, now: Time, sent: Time) {
        // Tick-granular measurement, at least one tick (RFC 6298 §2 clock granularity G).
        let rtt = self.ticks(now).saturating_sub(self.ticks(sent)).clamp(1, MAX_SAMPLE_TICKS) as i64;
        self.last_ticks = rtt;
        if self.t_srtt != 0 {
            // RFC 6298 §2.3: SRTT <- 7/8 SRTT + 1/8 R' (in units of SRTT/8).
            let mut delta = rtt - (self.t_srtt >> T_SRTT_BITS);
            self.t_srtt += delta;
            if self.t_srtt <= 0 {
                self.t_srtt = 1;
            }
            // RFC 6298 §2.3: RTTVAR <- 3/4 RTTVAR + 1/4 |SRTT - R'| (in units of RTTVAR/4).
            delta = delta.abs() - (self.t_rttvar >> T_RTTVAR_BITS);
            self.t_rttvar += delta;
            if self.t_rttvar <= 0 {
                self.t_rttvar = 1;
            }
        } else {
            // RFC 6298 §2.2: SRTT <- R, RTTVAR <- R/2.
            self.t_srtt = rtt << T_SRTT_BITS;
            self.t_rttvar = rtt << (T_RTTVAR_BITS - 1);
        }
        self.rtxcur = match self.style {
            RtoStyle::Rfc6298 => {
                // RFC 6298 §2.3: RTO <- SRTT + 4 RTTVAR, truncated to whole ticks (ns-2).
                let ticks =
                    ((self.t_rttvar << (RTTVAR_EXP + T_SRTT_BITS - T_RTTVAR_BITS)) + self.t_srtt) >> T_SRTT_BITS;
                Dur((ticks.max(0) as u64).saturating_mul(self.tick))
            }
            RtoStyle::Linux => {
                // Linux: SRTT + max(4 RTTVAR, min RTO): the minimum bounds the variation term
                // (t_rttvar holds 4 RTTVAR in ticks).
                let srtt = Dur(((self.t_srtt >> T_SRTT_BITS).max(0) as u64).saturating_mul(self.tick));
                let var = Dur((self.t_rttvar.max(0) as u64).saturating_mul(self.tick));
                srtt + var.max(self.min_rto)
            }
        };
    }

    /// ns-2 `rtt_timeout()`: the RTO to arm the timer with, backoff included.
    pub(crate) fn timeout(&self) -> Dur {
        // RFC 6298 §2.4 minimum, applied before the backoff (ns-2 `rfc2988_`).
        let base = if self.rtxcur < self.min_rto { self.min_rto } else { self.rtxcur };
        // RFC 6298 §5.5 backoff, §2.5 maximum.
        let mut rto = base.saturating_mul(self.backoff).min(self.max_rto);
        // ns-2: never less than two ticks.
        let floor = Dur(self.tick.saturating_mul(2));
        if rto < floor {
            rto = floor;
        }
        rto
    }

    /// ns-2 `rtt_backoff()`: double the multiplier (RFC 6298 §5.5) until the RTO reaches
    /// `max_rto` (and at least to 64); after more than 3 backoffs forget srtt, folding it into
    /// rttvar, so the next sample starts the estimate afresh.
    pub(crate) fn back_off(&mut self) {
        if (self.backoff < 64 || self.timeout() < self.max_rto) && self.backoff < MAX_BACKOFF {
            self.backoff <<= 1;
        }
        if self.backoff > 8 {
            self.t_rttvar += self.t_srtt >> T_SRTT_BITS;
            self.t_srtt = 0;
        }
    }

    /// A valid sample ends the backoff (RFC 6298 §5.7 via Karn's algorithm).
    pub(crate) fn reset_backoff(&mut self) {
        self.backoff = 1;
    }

    pub(crate) fn backoff(&self) -> u64 {
        self.backoff
    }

    /// Smoothed RTT, if there is an estimate.
    pub(crate) fn srtt(&self) -> Option<Dur> {
        if self.t_srtt > 0 {
            let ns = (self.t_srtt as u128 * self.tick as u128) >> T_SRTT_BITS;
            Some(Dur(ns.min(u64::MAX as u128) as u64))
        } else {
            None
        }
    }

    /// RTT variation (ns-2 prints `t_rttvar_ * tick / 4`).
    pub(crate) fn rttvar(&self) -> Dur {
        let ns = (self.t_rttvar.max(0) as u128 * self.tick as u128) >> T_RTTVAR_BITS;
        Dur(ns.min(u64::MAX as u128) as u64)
    }

    /// The last sample, rounded to ticks.
    pub(crate) fn last_sample(&self) -> Dur {
        Dur((self.last_ticks.max(0) as u64).saturating_mul(self.tick))
    }
}
