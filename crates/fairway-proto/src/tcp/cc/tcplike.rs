//! The AIMD window counted in packets acknowledged, on a window of whole packets: DCCP CCID2's
//! (RFC 4341 §5, "TCP-like"), which ns-2 2.35's Agent/DCCP/TCPlike runs too (its
//! `updateCwnd()` and `lostOrMarkedData()`, but for what docs/semantics.md "DCCP with CCID2"
//! names). The same slow start, additive increase and halving
//! as ns-2's TCP window in aimd.rs, in other arithmetic:
//!
//! | | aimd.rs (ns-2's TCP) | here |
//! |---|---|---|
//! | window | fractional | whole packets |
//! | slow start | +1 per ACK | + the packets the sender credits, at most up to ssthresh |
//! | congestion avoidance | +1/cwnd per ACK | +1 once a window of packets is acknowledged |
//! | cut | from the window sent with, cwnd left unrounded | cwnd halved, rounded down |
//!
//! What the sender credits per acknowledgement in slow start is the sender's: CCID2 limits it
//! by its Ack Ratio (dccp/ccid2.rs). So is the floor under ssthresh after a cut (RFC 4341's 2,
//! ns-2's 1), as RFC 5681's floor is TCP's sender's.

use fairway_core::Time;

use super::{Acked, AtCongestion, Congestion, CongestionControl, Window};
use crate::tcp::TcpConfig;

#[derive(Debug, Clone)]
pub struct TcpLike {
    /// Packets acknowledged in congestion avoidance not yet turned into growth (RFC 3465 §2.1's
    /// bytes_acked, in packets; ns-2 `cwnd_frac_`).
    counted: u64,
    /// `maxcwnd_`-style cap on cwnd, packets; 0 = none.
    max_cwnd: u32,
}

impl TcpLike {
    pub fn new(cfg: &TcpConfig) -> TcpLike {
        TcpLike { counted: 0, max_cwnd: cfg.max_cwnd }
    }

    /// Packets counted toward the next increase in congestion avoidance.
    pub fn counted(&self) -> u64 {
        self.counted
    }
}

impl CongestionControl for TcpLike {
    fn name(&self) -> &'static str {
        "tcplike"
    }

    fn on_ack(&mut self, _now: Time, acked: &Acked, w: &mut Window) {
        if acked.packets == 0 {
            return;
        }
        if w.in_slow_start() {
            // RFC 4341 §5 / RFC 5681 §3.1 slow start: one packet per packet credited, not past
            // ssthresh (a window already above it stays where it is).
            w.cwnd = (w.cwnd + acked.packets as f64).min(w.ssthresh.max(w.cwnd));
        } else {
            // RFC 4341 §5: one packet per window of data acknowledged, counted as RFC 3465 §2.1
            // counts bytes: once the count reaches cwnd, cwnd grows by one and the count loses
            // cwnd (at most one packet per acknowledgement).
            self.counted += acked.packets;
            let window = (w.cwnd as u64).max(1);
            if self.counted >= window {
                self.counted -= window;
                w.cwnd += 1.0;
            }
        }
        if self.max_cwnd > 0 && w.cwnd > self.max_cwnd as f64 {
            w.cwnd = self.max_cwnd as f64;
        }
    }

    fn on_congestion(&mut self, _now: Time, event: Congestion, _at: &AtCongestion, w: &mut Window) {
        let half = (w.cwnd / 2.0).floor();
        match event {
            // RFC 4341 §5: a congestion event halves cwnd (rounding down, at least one packet)
            // and sets ssthresh to the halved window.
            Congestion::Loss | Congestion::Ecn => {
                w.cwnd = half.max(1.0);
                w.ssthresh = w.cwnd;
            }
            // RFC 4341 §5 as TCP's timeout: ssthresh = cwnd / 2; the sender restarts at one.
            Congestion::Timeout => w.ssthresh = half,
            Congestion::Restart => {}
        }
        self.counted = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acked(packets: u64) -> Acked {
        Acked { packets, ..Acked::default() }
    }

    fn at(window: f64) -> AtCongestion {
        AtCongestion { window, in_flight: window as u64, after_timeout: false, snd_nxt: 0, conserve: None }
    }

    #[test]
    fn slow_start_adds_the_credited_packets_up_to_ssthresh() {
        let mut c = TcpLike::new(&TcpConfig::default());
        let mut w = Window { cwnd: 3.0, ssthresh: 6.0 };
        c.on_ack(Time::ZERO, &acked(2), &mut w);
        assert_eq!(w.cwnd, 5.0);
        c.on_ack(Time::ZERO, &acked(2), &mut w);
        assert_eq!(w.cwnd, 6.0, "capped at ssthresh; the extra packet is not carried over");
        assert_eq!(c.counted(), 0);
    }

    #[test]
    fn congestion_avoidance_adds_one_per_window_acknowledged() {
        let mut c = TcpLike::new(&TcpConfig::default());
        let mut w = Window { cwnd: 4.0, ssthresh: 4.0 };
        c.on_ack(Time::ZERO, &acked(3), &mut w);
        assert_eq!((w.cwnd, c.counted()), (4.0, 3));
        c.on_ack(Time::ZERO, &acked(2), &mut w);
        assert_eq!((w.cwnd, c.counted()), (5.0, 1), "4 of 5 counted packets make the window");
        // At most one packet per acknowledgement, the rest stays counted.
        c.on_ack(Time::ZERO, &acked(12), &mut w);
        assert_eq!((w.cwnd, c.counted()), (6.0, 8));
    }

    #[test]
    fn a_loss_halves_cwnd_rounding_down_and_a_timeout_halves_ssthresh() {
        let mut c = TcpLike::new(&TcpConfig::default());
        let mut w = Window { cwnd: 7.0, ssthresh: 4.0 };
        c.on_ack(Time::ZERO, &acked(3), &mut w);
        c.on_congestion(Time::ZERO, Congestion::Loss, &at(7.0), &mut w);
        assert_eq!((w.cwnd, w.ssthresh, c.counted()), (3.0, 3.0, 0));
        let mut w = Window { cwnd: 1.0, ssthresh: 4.0 };
        c.on_congestion(Time::ZERO, Congestion::Ecn, &at(1.0), &mut w);
        assert_eq!(
            (w.cwnd, w.ssthresh),
            (1.0, 1.0),
            "never below one packet; the floor under ssthresh is the sender's"
        );
        let mut w = Window { cwnd: 9.0, ssthresh: 4.0 };
        c.on_congestion(Time::ZERO, Congestion::Timeout, &at(9.0), &mut w);
        assert_eq!((w.cwnd, w.ssthresh), (9.0, 4.0), "the sender sets cwnd to one");
    }
}
