//! The window of ns-2's Tahoe, Reno and NewReno senders (tcp.cc `opencwnd()` with
//! `windowOption_` 1, `slowdown()` with `precisionReduce_`): RFC 5681's slow start and additive
//! increase, counted per ACK as ns-2 counts, and the multiplicative decrease from the window the
//! sender was sending with. Linux calls the same algorithm "reno".

use fairway_core::Time;

use super::{Acked, AtCongestion, Congestion, CongestionControl, Window};
use crate::tcp::TcpConfig;

#[derive(Debug, Clone)]
pub struct Aimd {
    /// `increase_num_`: congestion avoidance adds this over cwnd per ACK (1).
    increase_num: f64,
    /// `decrease_num_`: the cut after the first one (0.5).
    decrease_num: f64,
    /// `maxcwnd_`: cap on cwnd, packets; 0 = none.
    max_cwnd: u32,
    /// No cut yet (ns-2 `first_decrease_`): the first one always halves.
    first_decrease: bool,
}

impl Aimd {
    pub fn new(cfg: &TcpConfig) -> Aimd {
        Aimd {
            increase_num: cfg.increase_num,
            decrease_num: cfg.decrease_num,
            max_cwnd: cfg.max_cwnd,
            first_decrease: true,
        }
    }
}

impl CongestionControl for Aimd {
    fn name(&self) -> &'static str {
        "reno"
    }

    fn on_ack(&mut self, _now: Time, _acked: &Acked, w: &mut Window) {
        if w.in_slow_start() {
            // RFC 5681 §3.1 slow start: +1 packet per new ACK (ns-2 counts ACKs, not bytes).
            w.cwnd += 1.0;
        } else {
            // RFC 5681 §3.1 eq. (3): cwnd += 1/cwnd per new ACK (increase_num_ = 1).
            w.cwnd += self.increase_num / w.cwnd;
        }
        if self.max_cwnd > 0 && (w.cwnd as i64) > self.max_cwnd as i64 {
            w.cwnd = self.max_cwnd as f64;
        }
    }

    fn on_congestion(&mut self, _now: Time, event: Congestion, at: &AtCongestion, w: &mut Window) {
        if event != Congestion::Restart {
            let slowstart = w.in_slow_start();
            let halfwin = at.window / 2.0;
            let decreasewin = self.decrease_num * at.window;
            // RFC 5681 eq. (4) ssthresh = FlightSize / 2, with ns-2's min(cwnd + inflation,
            // window_) for FlightSize, truncated to whole packets.
            let v = if self.first_decrease || slowstart || at.after_timeout { halfwin } else { decreasewin };
            w.ssthresh = (v as i64) as f64;
            if event != Congestion::Timeout {
                // ns-2: cwnd = the same half, unrounded (RFC 5681 §3.2 step 2 would add 3).
                w.cwnd =
                    if self.first_decrease || slowstart || self.decrease_num == 0.5 { halfwin } else { decreasewin };
            }
        }
        self.first_decrease = false;
    }
}
