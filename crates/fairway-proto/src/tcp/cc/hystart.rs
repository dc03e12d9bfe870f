//! HyStart++ (RFC 9406), the slow start RFC 9438 §4.10 recommends for CUBIC (`hystart = true`
//! with RFC 9438's CUBIC): slow start watches each round's smallest RTT sample and, when it has
//! risen by a threshold over the last round's, slows to Conservative Slow Start (CSS: a quarter
//! of the growth) for up to five rounds before congestion avoidance; a CSS round whose minimum
//! falls back below the one that started CSS returns to slow start.
//!
//! Windows in packets (the RFC's SMSS). Where the RFC leaves a choice:
//! - the RTT samples are what the sender gives the algorithm ([`Acked::rtt`]): one per ACK with
//!   `timestamps` (RFC 7323), which is what HyStart++ needs (N_RTT_SAMPLE = 8 per round,
//!   §4.2); without timestamps the sender times one segment per round trip (ns-2's way), a round
//!   never has 8 samples, and HyStart++ changes nothing but the per-ACK limit L;
//! - it runs in the first slow start only: after a congestion event (loss, ECN, timeout) slow
//!   start is Reno's (§4.3 lets an implementation use it after a timeout too; this one does not);
//! - L = 8 (§4.2, not paced).

use fairway_core::Dur;

use super::{Acked, Window};

/// RFC 9406 §4.3's constants.
const MIN_RTT_THRESH: Dur = Dur::from_millis(4);
const MAX_RTT_THRESH: Dur = Dur::from_millis(16);
const MIN_RTT_DIVISOR: u64 = 8;
const N_RTT_SAMPLE: u32 = 8;
const CSS_GROWTH_DIVISOR: f64 = 4.0;
const CSS_ROUNDS: u32 = 5;
/// L, the most an ACK may grow cwnd by, in packets, for a sender that does not pace.
const L: u64 = 8;

#[derive(Debug, Clone, Default)]
pub struct HyStartPlusPlus {
    /// lastRoundMinRTT, currentRoundMinRTT (`None`: infinity), rttSampleCount.
    last_round_min: Option<Dur>,
    current_round_min: Option<Dur>,
    samples: u32,
    /// windowEnd: the round ends when the cumulative ACK reaches it (SND.UNA >= windowEnd).
    window_end: i64,
    /// cssBaselineMinRtt, while in CSS; and the CSS rounds completed.
    css_baseline: Option<Dur>,
    css_rounds: u32,
    /// Over: a congestion event, or CSS ran its rounds.
    done: bool,
}

impl HyStartPlusPlus {
    pub fn new() -> HyStartPlusPlus {
        HyStartPlusPlus::default()
    }

    /// Still shaping slow start.
    pub fn active(&self) -> bool {
        !self.done
    }

    /// In Conservative Slow Start.
    pub fn in_css(&self) -> bool {
        self.css_baseline.is_some()
    }

    /// A congestion event: HyStart++ is over (§4.2: loss or ECN in slow start or CSS goes to
    /// congestion avoidance, which the algorithm's cut takes care of).
    pub fn on_congestion(&mut self) {
        self.done = true;
        self.css_baseline = None;
    }

    /// An ACK in slow start: the packets cwnd grows by (§4.2). At the end of CSS's last round
    /// ssthresh becomes cwnd (congestion avoidance) and it grows by nothing.
    pub fn on_ack(&mut self, acked: &Acked, w: &mut Window) -> f64 {
        // SND.UNA >= windowEnd (SND.UNA = the cumulative ACK + 1): a new round.
        if acked.highest_ack + 1 >= self.window_end {
            if self.in_css() {
                self.css_rounds += 1;
                if self.css_rounds >= CSS_ROUNDS {
                    // §4.2: CSS_ROUNDS rounds of CSS: ssthresh = cwnd, congestion avoidance.
                    w.ssthresh = w.cwnd;
                    self.done = true;
                    self.css_baseline = None;
                    return 0.0;
                }
            }
            self.last_round_min = self.current_round_min;
            self.current_round_min = None;
            self.samples = 0;
            self.window_end = acked.snd_nxt;
        }
        if let Some(rtt) = acked.rtt {
            self.current_round_min = Some(self.current_round_min.map_or(rtt, |m| m.min(rtt)));
            self.samples += 1;
        }
        let n = acked.packets.clamp(1, L) as f64;
        let enough = self.samples >= N_RTT_SAMPLE;
        match (self.css_baseline, self.current_round_min, self.last_round_min) {
            (None, Some(cur), Some(last)) if enough => {
                // §4.2: RttThresh = max(MIN_RTT_THRESH, min(lastRoundMinRTT / 8, MAX_RTT_THRESH)).
                let thresh = Dur(last.0 / MIN_RTT_DIVISOR).min(MAX_RTT_THRESH).max(MIN_RTT_THRESH);
                if cur >= last + thresh {
                    // The delay rose: Conservative Slow Start from the next ACK.
                    self.css_baseline = Some(cur);
                    self.css_rounds = 0;
                }
                n
            }
            (None, _, _) => n,
            (Some(base), cur, _) => {
                if enough && cur.is_some_and(|c| c < base) {
                    // §4.2: the rise was spurious: back to slow start.
                    self.css_baseline = None;
                    return n;
                }
                // §4.2: cwnd += min(N, L * SMSS) / CSS_GROWTH_DIVISOR.
                n / CSS_GROWTH_DIVISOR
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(rtt_ms: u64, highest_ack: i64, snd_nxt: i64) -> Acked {
        Acked { packets: 1, rtt: Some(Dur::from_millis(rtt_ms)), highest_ack, snd_nxt, ..Acked::default() }
    }

    /// One round of `n` ACKs with RTT `rtt_ms`, cumulative ACKs `from..from + n`, with SND.NXT
    /// such that the next round begins with the ACK of `from + n`; returns the growth.
    fn round(h: &mut HyStartPlusPlus, w: &mut Window, from: i64, n: i64, rtt_ms: u64) -> f64 {
        let mut grown = 0.0;
        for i in 0..n {
            let g = h.on_ack(&ack(rtt_ms, from + i, from + n + 1), w);
            w.cwnd += g;
            grown += g;
        }
        grown
    }

    #[test]
    fn a_delay_rise_of_the_threshold_enters_css_and_five_rounds_end_slow_start() {
        let mut h = HyStartPlusPlus::new();
        let mut w = Window { cwnd: 10.0, ssthresh: 1e9 };
        // Round 1 at 100 ms, then round 2 at 100 + 12.5 ms = lastRoundMinRTT + 100/8: CSS from
        // the 8th sample of round 2 (the ACK that sees it still grows by one).
        assert_eq!(round(&mut h, &mut w, 0, 10, 100), 10.0);
        let g = round(&mut h, &mut w, 10, 20, 113);
        assert!(h.in_css());
        // 8 ACKs at +1, 12 in CSS at +1/4.
        assert_eq!(g, 8.0 + 12.0 / 4.0);
        // Four more rounds of CSS grow a quarter per ACK; the fifth boundary ends slow start.
        let mut from = 30;
        for _ in 0..4 {
            assert_eq!(round(&mut h, &mut w, from, 8, 113), 2.0);
            from += 8;
        }
        assert!(h.active());
        let cwnd = w.cwnd;
        assert_eq!(h.on_ack(&ack(113, from, from + 10), &mut w), 0.0);
        assert_eq!(w.ssthresh, cwnd);
        assert!(!h.active());
    }

    #[test]
    fn a_smaller_rise_stays_in_slow_start_and_a_fall_leaves_css() {
        let mut h = HyStartPlusPlus::new();
        let mut w = Window { cwnd: 10.0, ssthresh: 1e9 };
        // The threshold is at least 4 ms: 20 ms RTT rising by 3 ms stays in slow start.
        round(&mut h, &mut w, 0, 10, 20);
        assert_eq!(round(&mut h, &mut w, 10, 10, 23), 10.0);
        assert!(!h.in_css());
        // A rise of 4 ms enters CSS; a round whose minimum falls below the baseline leaves it.
        round(&mut h, &mut w, 20, 10, 27);
        assert!(h.in_css());
        assert_eq!(round(&mut h, &mut w, 30, 10, 26), 7.0 / 4.0 + 3.0);
        assert!(!h.in_css() && h.active());
    }

    #[test]
    fn stretch_acks_grow_by_at_most_l() {
        let mut h = HyStartPlusPlus::new();
        let mut w = Window { cwnd: 10.0, ssthresh: 1e9 };
        assert_eq!(h.on_ack(&Acked { packets: 20, ..ack(10, 19, 40) }, &mut w), 8.0);
    }
}
