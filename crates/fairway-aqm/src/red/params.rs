//! RED's parameters: ns-2 2.35's `Queue/RED` knobs, their validation, and the values ns-2
//! derives from the link (`REDQueue::initialize_params` and `REDQueue::reset` in queue/red.cc).

use fairway_core::{Bytes, Dur, Rate};

use crate::ParamError;

/// The knobs of ns-2 2.35's `Queue/RED`, named after its Tcl variables without the trailing
/// underscore. `Default` gives ns-2 2.35's defaults (tcl/lib/ns-default.tcl, checked against
/// Debian's `ns` 2.35).
///
/// Not reproduced (out of scope): Adaptive RED (`adaptive_`, `feng_adaptive_`, `alpha_`,
/// `beta_`, `interval_`, `top_`, `bottom_`) and the experimental `cautious_` modes; `drop_front_`
/// and `drop_rand_` (they drop a packet already in the queue, and a [`crate::Verdict`] is always
/// about the arriving packet), so the behaviour is ns-2's default `drop_tail_ true`; and
/// `ns1_compat_` (the behaviour is ns-2's default `false`: a forced drop resets the count).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RedParams {
    /// ns-2 `thresh_`: min_th in packets. `0` = automatic (ns-2 `initialize_params`):
    /// max(5, targetdelay x ptc / 2). In `queue_in_bytes` mode ns-2 compares the average with
    /// `thresh x mean_pktsize` bytes, and so does this implementation.
    pub thresh: f64,
    /// ns-2 `maxthresh_`: max_th in packets. `0` = automatic: 3 x thresh.
    pub maxthresh: f64,
    /// ns-2 `q_weight_`: the EWMA weight w_q in (0, 1], or one of ns-2's automatic values:
    /// `0`: 1 - exp(-1 / ptc); `-1`: 1 - exp(-1 / (10 x rtt x ptc)) with
    /// rtt = max(0.1 s, 3 x (link delay + 1 / ptc)); `-2`: 1 - exp(-10 / ptc).
    pub q_weight: f64,
    /// ns-2 `linterm_`: 1 / max_p, at least 1.
    pub linterm: f64,
    /// ns-2 `gentle_`: between maxthresh and 2 x maxthresh the probability rises linearly from
    /// max_p to 1 instead of jumping to 1.
    pub gentle: bool,
    /// ns-2 `wait_`: spread drops so that no drop follows another within about 1 / p_b arrivals.
    pub wait: bool,
    /// ns-2 `mean_pktsize_`: the size that converts packets to bytes (thresholds and limit in
    /// `queue_in_bytes` mode, ptc, and the byte-mode probability scaling).
    pub mean_pktsize: Bytes,
    /// ns-2 `idle_pktsize_`. Accepted so ns-2 scripts translate one to one, but it has no effect:
    /// ns-2 2.35 uses it only with `cautious_ 3` (out of scope); the idle-time decay of the
    /// average uses ptc, i.e. `mean_pktsize` (checked against Debian's ns 2.35).
    pub idle_pktsize: Bytes,
    /// ns-2 `bytes_`: byte mode for the drop decision. The count since the last drop is
    /// measured as `count_bytes / mean_pktsize` (integer division) and the probability is
    /// scaled by `size / mean_pktsize` (Floyd & Jacobson 1993 §4, "byte mode").
    pub bytes: bool,
    /// ns-2 `queue_in_bytes_`: the queue, its average, the thresholds and the limit are measured
    /// in bytes (thresholds and limit scaled by `mean_pktsize`).
    pub queue_in_bytes: bool,
    /// ns-2 `setbit_`: mark ECN-capable packets with CE instead of dropping them early
    /// (RFC 3168 §5). Forced and overflow drops stay drops.
    pub ecn: bool,
    /// ns-2 `mark_p_`: with `use_mark_p`, an early decision on an ECN-capable packet marks only
    /// while the curve's probability (ns-2 `prob1_`) is strictly below `mark_p`; above it the
    /// packet is dropped. Must be finite and non-negative.
    pub mark_p: f64,
    /// ns-2 `use_mark_p_`. Also changes what happens above the top of the curve: with
    /// `use_mark_p` ns-2 2.35 does not force the drop but sends the packet through the early
    /// decision with probability one (see the module documentation).
    pub use_mark_p: bool,
    /// ns-2 `limit_` (`qlim_`) in packets: an arrival is refused when `limit` packets are already
    /// waiting (the one being serialised not counted), or in `queue_in_bytes` mode when
    /// `limit x mean_pktsize` bytes or more are waiting.
    pub limit: u32,
    /// ns-2 `targetdelay_`, used only for the automatic `thresh`.
    pub targetdelay: Dur,
}

impl Default for RedParams {
    /// ns-2 2.35's defaults (ns-default.tcl): `bytes_ true`, `queue_in_bytes_ true`,
    /// `thresh_ 0`, `maxthresh_ 0`, `mean_pktsize_ 500`, `idle_pktsize_ 100`, `q_weight_ -1`,
    /// `wait_ true`, `linterm_ 10`, `mark_p_ 0.1`, `use_mark_p_ true`, `setbit_ false`,
    /// `gentle_ true`, `targetdelay_ 0.005`, and `Queue set limit_ 50`.
    fn default() -> Self {
        RedParams {
            thresh: 0.0,
            maxthresh: 0.0,
            q_weight: -1.0,
            linterm: 10.0,
            gentle: true,
            wait: true,
            mean_pktsize: Bytes(500),
            idle_pktsize: Bytes(100),
            bytes: true,
            queue_in_bytes: true,
            ecn: false,
            mark_p: 0.1,
            use_mark_p: true,
            limit: 50,
            targetdelay: Dur::from_millis(5),
        }
    }
}

impl RedParams {
    /// Checks each knob on its own (the link-dependent checks happen in [`super::Red::new`]).
    pub fn validate(&self) -> Result<(), ParamError> {
        if !self.thresh.is_finite() || self.thresh < 0.0 {
            return Err(ParamError::new(
                "thresh",
                format!("must be a finite number of packets >= 0 (0 = automatic), got {}", self.thresh),
            ));
        }
        if !self.maxthresh.is_finite() || self.maxthresh < 0.0 {
            return Err(ParamError::new(
                "maxthresh",
                format!("must be a finite number of packets >= 0 (0 = automatic), got {}", self.maxthresh),
            ));
        }
        if self.thresh > 0.0 && self.maxthresh > 0.0 && self.thresh > self.maxthresh {
            return Err(ParamError::new(
                "thresh",
                format!("thresh {} exceeds maxthresh {}", self.thresh, self.maxthresh),
            ));
        }
        let w = self.q_weight;
        // ns-2 red.cc initialize_params(): 0, -1 and -2 are requests for automatic values.
        let automatic = w == 0.0 || w == -1.0 || w == -2.0;
        if !(automatic || (w > 0.0 && w <= 1.0)) {
            return Err(ParamError::new(
                "q_weight",
                format!("must be in (0, 1], or 0, -1 or -2 for ns-2's automatic values; got {w}"),
            ));
        }
        if !self.linterm.is_finite() || self.linterm < 1.0 {
            return Err(ParamError::new(
                "linterm",
                format!("must be at least 1 (it is 1 / max_p), got {}", self.linterm),
            ));
        }
        if self.mean_pktsize.0 == 0 {
            return Err(ParamError::new("mean_pktsize", "must be at least 1 byte"));
        }
        if self.idle_pktsize.0 == 0 {
            return Err(ParamError::new("idle_pktsize", "must be at least 1 byte"));
        }
        if !self.mark_p.is_finite() || self.mark_p < 0.0 {
            return Err(ParamError::new("mark_p", format!("must be a finite probability >= 0, got {}", self.mark_p)));
        }
        if self.limit == 0 {
            return Err(ParamError::new("limit", "must be at least 1 packet"));
        }
        Ok(())
    }

    /// ns-2's derived values for a link of `link_rate` and `link_delay`
    /// (red.cc `command("link")`, `initialize_params()` and `reset()`).
    pub fn resolve(&self, link_rate: Rate, link_delay: Dur) -> Result<RedResolved, ParamError> {
        self.validate()?;
        if link_rate.0 == 0 {
            return Err(ParamError::new("link_rate", "RED needs a link rate above 0 b/s"));
        }
        let mean = self.mean_pktsize.0 as f64;
        // ns-2 red.cc command("link") and reset(): ptc = bandwidth / (8 x mean_pktsize),
        // the packets of mean size the link sends per second.
        let ptc = link_rate.as_bps_f64() / (8.0 * mean);
        let delay = link_delay.as_secs_f64();

        // ns-2 red.cc initialize_params(): automatic q_weight. `exp` is the platform's (glibc on
        // Linux, as for ns-2); it is evaluated once, at construction.
        let q_weight = if self.q_weight == 0.0 {
            1.0 - libm::exp(-1.0 / ptc)
        } else if self.q_weight == -1.0 {
            // rtt = 3 x (delay + 1/ptc), at least 100 ms; w = 1 - exp(-1 / (10 rtt ptc)).
            let mut rtt = 3.0 * (delay + 1.0 / ptc);
            if rtt < 0.1 {
                rtt = 0.1;
            }
            1.0 - libm::exp(-1.0 / (10.0 * rtt * ptc))
        } else if self.q_weight == -2.0 {
            1.0 - libm::exp(-10.0 / ptc)
        } else {
            self.q_weight
        };
        if !(q_weight > 0.0 && q_weight <= 1.0) {
            return Err(ParamError::new(
                "q_weight",
                format!("the automatic q_weight for this link is {q_weight}, outside (0, 1]"),
            ));
        }

        // ns-2 red.cc initialize_params(): thresh_ 0 means max(5, targetdelay x ptc / 2).
        let thresh_pkts = if self.thresh == 0.0 {
            let mut th = 5.0;
            let targetqueue = self.targetdelay.as_secs_f64() * ptc;
            if th < targetqueue / 2.0 {
                th = targetqueue / 2.0;
            }
            th
        } else {
            self.thresh
        };
        // ns-2 red.cc initialize_params() and reset(): maxthresh_ 0 means 3 x thresh.
        let maxthresh_pkts = if self.maxthresh == 0.0 { 3.0 * thresh_pkts } else { self.maxthresh };
        if thresh_pkts > maxthresh_pkts {
            return Err(ParamError::new(
                "thresh",
                format!(
                    "the automatic thresh for this link is {thresh_pkts} packets, above maxthresh {maxthresh_pkts}"
                ),
            ));
        }

        // ns-2 red.cc reset(): in queue_in_bytes mode the thresholds are scaled to bytes.
        let (th_min, th_max) = if self.queue_in_bytes {
            (thresh_pkts * mean, maxthresh_pkts * mean)
        } else {
            (thresh_pkts, maxthresh_pkts)
        };
        if !th_max.is_finite() {
            return Err(ParamError::new("maxthresh", "too large once scaled to bytes"));
        }
        // ns-2 red.cc enque(): qlim = queue_in_bytes ? qlim_ x mean_pktsize : qlim_.
        let qlim = if self.queue_in_bytes {
            u64::from(self.limit).saturating_mul(self.mean_pktsize.0)
        } else {
            u64::from(self.limit)
        };

        Ok(RedResolved { ptc, q_weight, thresh_pkts, maxthresh_pkts, th_min, th_max, max_p: 1.0 / self.linterm, qlim })
    }
}

/// The parameters after ns-2's automatic values are filled in for the link, as the algorithm
/// uses them. Read-only, for monitoring and for comparing with ns-2 (`$q set q_weight_` etc.
/// after the link is built).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RedResolved {
    /// ns-2 `ptc`: packets of `mean_pktsize` the link sends per second,
    /// bandwidth / (8 x mean_pktsize).
    pub ptc: f64,
    /// The EWMA weight w_q actually used.
    pub q_weight: f64,
    /// min_th in packets (ns-2 `thresh_` after `initialize_params`).
    pub thresh_pkts: f64,
    /// max_th in packets (ns-2 `maxthresh_` after `initialize_params`).
    pub maxthresh_pkts: f64,
    /// min_th in the queue's unit (bytes in `queue_in_bytes` mode, else packets): ns-2 `th_min`.
    pub th_min: f64,
    /// max_th in the queue's unit: ns-2 `th_max`.
    pub th_max: f64,
    /// max_p = 1 / linterm (ns-2 `cur_max_p_`, constant without Adaptive RED).
    pub max_p: f64,
    /// The queue limit in the queue's unit: ns-2's `qlim` in `enque`.
    pub qlim: u64,
}
