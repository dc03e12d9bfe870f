//! The receiver's loss history (RFC 5348 §5): which packets are lost or marked, how they group
//! into loss events, the loss intervals between events, and the loss event rate p from their
//! weighted average, with the optional history discounting (§5.5) and TFRC-SP's counting of
//! losses in short intervals (RFC 4828 §3).
//!
//! A late packet that arrives after its hole was declared lost does not revise the history (the
//! RFC allows, but does not require, recalculating; §6.1's optimisation is left out).

use std::collections::VecDeque;

/// Packets between the oldest unresolved one and the newest that the history holds a slot for.
const MAX_SPAN: u64 = 1 << 16;

use fairway_core::{Dur, Time};

/// How the history counts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LossConfig {
    /// n, the loss intervals averaged (RFC 5348 §5.4: 8 RECOMMENDED).
    pub intervals: usize,
    /// NDUPACK: later packets that must arrive before a hole counts as lost (§5.1: 3).
    pub ndupack: u32,
    /// History discounting (§5.5, optional).
    pub discounting: bool,
    /// TFRC-SP (RFC 4828 §3): a loss interval of at most two RTTs counts its N packets and K
    /// losses as N/K, and the current interval enters the average only after two RTTs.
    pub count_losses_in_short_intervals: bool,
    /// THRESHOLD of §5.5: older intervals are never discounted below this (RFC 5348: 0.25;
    /// ns-2's minDiscountRatio_ and RFC 3448: 0.5).
    pub discount_floor: f64,
    /// Time losses by the interpolated *send* times of the packets around them, not their
    /// arrival times (ns-2's TFRCSink).
    pub send_time_events: bool,
    /// ns-2's averaging (smooth_ 1): the current interval is one packet shorter (S_C - S_A),
    /// and while fewer than n intervals are closed the mean with I_0 also takes the oldest.
    pub ns2_average: bool,
    /// A new loss event also needs a newer sender round (ns-2's PreciseLoss_: the round of the
    /// packet that revealed it must exceed the round of the event before).
    pub round_check: bool,
    /// Sequence numbers below the first packet received are holes too (RFC 5348 §6.3.1's lost
    /// first packet); ns-2 starts its history at the first arrival and never sees them.
    pub holes_before_first: bool,
    /// ns-2 2.35's Agent/DCCP/TFRC: the n + 1 interval slots start at zero and the weighted
    /// sums always run over all of them, divided by the full weight (so p is too high until n
    /// loss events have filled the slots), and p is at most 1.
    pub zero_filled: bool,
    /// Date a lost packet by the packet received just before it, not by interpolation
    /// (RFC 4342 §10.2: CCID3 compares the window counters C(X_prev) and C(Y_prev)).
    pub date_by_previous: bool,
    /// Losses are dated on a clock that wraps with this period, and a loss belongs to the
    /// current event when its date is within an RTT of the event's start modulo the period:
    /// ns-2 2.35's Agent/DCCP/TFRC compares the 4-bit window counters of the two as they are,
    /// so a loss 16 to 20 counters (4 to 5 RTTs) after the start of an event, or 32 to 36, and
    /// so on, joins that event instead of starting one (dccp_tfrc.cc, tfrc_recv_updateLI).
    pub event_wrap: Option<Dur>,
}

impl Default for LossConfig {
    fn default() -> Self {
        LossConfig {
            intervals: 8,
            ndupack: 3,
            discounting: false,
            count_losses_in_short_intervals: false,
            discount_floor: 0.25,
            send_time_events: false,
            ns2_average: false,
            round_check: false,
            holes_before_first: true,
            zero_filled: false,
            date_by_previous: false,
            event_wrap: None,
        }
    }
}

/// The weights of the n most recent intervals (§5.4): 1 for i < n/2, then 2 (n - i)/(n + 2).
pub fn weights(n: usize) -> Vec<f64> {
    (0..n).map(|i| if 2 * i < n { 1.0 } else { 2.0 * (n - i) as f64 / (n + 2) as f64 }).collect()
}

/// One packet of the recent window.
#[derive(Debug, Clone, Copy)]
struct Slot {
    received: bool,
    at: Time,
}

/// A closed loss interval (I_1, I_2, ...).
#[derive(Debug, Clone, Copy)]
struct Closed {
    /// Its size in packets (S_B - S_A), or N/K for a short TFRC-SP interval.
    size: f64,
    /// Packets from its first loss to its last (RFC 4342 §8.6.1's Loss Length).
    loss_len: u64,
    /// DF_i of §5.5.
    df: f64,
}

/// The current loss interval I_0: from the first packet of the latest loss event.
#[derive(Debug, Clone, Copy)]
struct Current {
    start_seq: u64,
    /// T_old: the (interpolated) arrival time of the event's first packet.
    start_at: Time,
    /// Packets lost or marked in it (TFRC-SP's K), and the last of them.
    losses: u32,
    last_loss: u64,
    /// The sender's round when it began.
    round: u32,
}

/// What one arrival did to the history.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Detected {
    /// Packets newly found lost (holes) or marked.
    pub lost_or_marked: u32,
    /// Loss events that began.
    pub new_events: u32,
    /// The very first loss event began: the caller seeds the first interval (§6.3.1).
    pub first_event: bool,
}

/// One loss interval as CCID3's Loss Intervals option reports it (RFC 4342 §8.6.1), in packets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IntervalReport {
    /// The interval's packets: closed, S_B - S_A; the current one, up to the newest packet.
    pub length: u64,
    /// From its first lost or marked packet to its last.
    pub loss_length: u64,
}

/// The packet and loss history of one TFRC receiver.
#[derive(Debug, Clone)]
pub struct LossHistory {
    cfg: LossConfig,
    w: Vec<f64>,
    /// Packets from `base` up to the highest sequence number seen.
    window: VecDeque<Slot>,
    base: u64,
    /// The last packet that arrived below `base`: S_before for the next hole.
    before: Option<(u64, Time)>,
    highest: Option<u64>,
    current: Option<Current>,
    /// I_1, I_2, ... newest first; at most n kept.
    closed: VecDeque<Closed>,
    /// The first interval waits for its synthetic size (§6.3.1).
    needs_seed: bool,
    events: u64,
    lost: u64,
}

impl LossHistory {
    pub fn new(cfg: LossConfig) -> LossHistory {
        let n = cfg.intervals.max(1);
        LossHistory {
            cfg: LossConfig { intervals: n, ..cfg },
            w: weights(n),
            window: VecDeque::new(),
            base: 0,
            before: None,
            highest: None,
            current: None,
            closed: VecDeque::new(),
            needs_seed: false,
            events: 0,
            lost: 0,
        }
    }

    /// Loss events so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// Packets found lost or marked so far.
    pub fn lost_or_marked(&self) -> u64 {
        self.lost
    }

    /// The highest sequence number received.
    pub fn highest(&self) -> Option<u64> {
        self.highest
    }

    /// Whether a loss event has been seen (before that, p = 0).
    pub fn has_loss(&self) -> bool {
        self.current.is_some()
    }

    /// Takes packet `seq` arriving at `now`, `marked` if it carries CE; `rtt` is the sender's
    /// estimate (the one the packet carries), which decides whether a loss starts a new event
    /// (§5.2).
    pub fn on_packet(&mut self, seq: u64, now: Time, marked: bool, rtt: Dur, round: u32) -> Detected {
        let mut d = Detected::default();
        if self.highest.is_none() && !self.cfg.holes_before_first {
            self.base = seq;
        }
        if seq < self.base {
            // Late: its hole was resolved already (or a duplicate).
            return d;
        }
        let mut idx = seq - self.base;
        if idx > MAX_SPAN {
            // A jump past anything a sender has in flight (a long outage, or a forged sequence
            // number): what lies between counts as one loss, and the history goes on from this
            // packet, rather than holding a slot for each of billions of packets.
            self.congestion(self.base, now, rtt, round, &mut d);
            self.window.clear();
            self.base = seq;
            self.before = None;
            idx = 0;
        }
        let idx = idx as usize;
        while self.window.len() <= idx {
            self.window.push_back(Slot { received: false, at: now });
        }
        if self.window[idx].received {
            return d; // duplicate
        }
        self.window[idx] = Slot { received: true, at: now };
        self.highest = Some(self.highest.map_or(seq, |h| h.max(seq)));
        // §5.1: a marked packet is a congestion event at once; holes before it are losses now.
        self.resolve(marked.then_some(seq), rtt, round, &mut d);
        d
    }

    /// Resolves the front of the window: received packets leave it; a hole with NDUPACK packets
    /// after it (or any hole before `force_to`) is a loss; the packet `force_to` itself, marked,
    /// is one too.
    fn resolve(&mut self, force_to: Option<u64>, rtt: Dur, round: u32, d: &mut Detected) {
        while let Some(front) = self.window.front().copied() {
            let seq = self.base;
            if front.received {
                self.window.pop_front();
                self.base += 1;
                self.before = Some((seq, front.at));
                if force_to == Some(seq) {
                    self.congestion(seq, front.at, rtt, round, d);
                }
                continue;
            }
            let forced = force_to.is_some_and(|f| seq < f);
            let after = self.window.iter().skip(1).filter(|s| s.received).count() as u32;
            if !forced && after < self.cfg.ndupack {
                break;
            }
            // §5.2: T_loss interpolated between S_before and S_after.
            let (s_after, t_after) = self
                .window
                .iter()
                .enumerate()
                .skip(1)
                .find(|(_, s)| s.received)
                .map(|(i, s)| (seq + i as u64, s.at))
                .expect("a hole is resolved only with a packet after it");
            let t_loss = match self.before {
                Some((_, t_before)) if self.cfg.date_by_previous => t_before,
                Some((s_before, t_before)) => {
                    let frac = (seq - s_before) as f64 / (s_after - s_before) as f64;
                    t_before + Dur(((t_after - t_before).0 as f64 * frac) as u64)
                }
                // Nothing before it arrived: it is lost as of the first arrival after it.
                None => t_after,
            };
            self.window.pop_front();
            self.base += 1;
            self.congestion(seq, t_loss, rtt, round, d);
        }
        // A marked packet beyond the front (holes before it still open) was handled above when
        // the front reached it; one that is not in the window any more cannot be here.
    }

    /// Packet `seq`, lost or marked at (nominal) time `at`: part of the current loss event or
    /// the start of a new one (§5.2: new if T_old + R < T_new).
    fn congestion(&mut self, seq: u64, at: Time, rtt: Dur, round: u32, d: &mut Detected) {
        d.lost_or_marked += 1;
        self.lost += 1;
        match self.current {
            None => {
                self.current = Some(Current { start_seq: seq, start_at: at, losses: 1, last_loss: seq, round });
                self.needs_seed = true;
                self.events += 1;
                d.new_events += 1;
                d.first_event = true;
            }
            Some(ref mut c)
                if c.start_at + rtt >= at
                    || (self.cfg.round_check && round <= c.round)
                    || self
                        .cfg
                        .event_wrap
                        .is_some_and(|w| Dur(at.saturating_since(c.start_at).0 % w.0.max(1)) <= rtt) =>
            {
                c.losses += 1;
                c.last_loss = seq;
            }
            Some(c) => {
                // Close I_0 (S_B - S_A packets) and start a new one at this packet.
                let n_pkts = (seq - c.start_seq) as f64;
                let short = self.cfg.count_losses_in_short_intervals
                    && at.saturating_since(c.start_at) <= rtt.saturating_mul(2);
                let size = if short { n_pkts / c.losses.max(1) as f64 } else { n_pkts };
                let df = if self.cfg.discounting { self.discount_now(c.start_seq) } else { 1.0 };
                // §5.5: fold DF into the discount array, then shift.
                for cl in self.closed.iter_mut() {
                    cl.df *= df;
                }
                let loss_len = c.last_loss - c.start_seq + 1;
                self.closed.push_front(Closed { size: size.max(f64::MIN_POSITIVE), loss_len, df: 1.0 });
                self.closed.truncate(self.cfg.intervals);
                self.current = Some(Current { start_seq: seq, start_at: at, losses: 1, last_loss: seq, round });
                self.events += 1;
                d.new_events += 1;
            }
        }
    }

    /// Whether the first interval still waits for [`seed_first_interval`](Self::seed_first_interval).
    pub fn needs_seed(&self) -> bool {
        self.needs_seed
    }

    /// §6.3.1: the interval before the first loss event is replaced by the synthetic one the
    /// receiver computed from the receive rate (1/p for the p that gives X_target).
    pub fn seed_first_interval(&mut self, size: f64) {
        if self.needs_seed {
            self.needs_seed = false;
            // The synthetic interval has no losses of its own.
            self.closed.push_back(Closed { size: size.max(1.0), loss_len: 0, df: 1.0 });
            self.closed.truncate(self.cfg.intervals);
        }
    }

    /// Packets from the oldest hole not yet declared lost to the newest received (0 when none):
    /// what cannot be put in an interval yet.
    pub fn unresolved(&self) -> u64 {
        self.window.len() as u64
    }

    /// The current loss interval's first packet and its last lost or marked one.
    pub fn current(&self) -> Option<(u64, u64)> {
        self.current.map(|c| (c.start_seq, c.last_loss))
    }

    /// The loss intervals, newest (the current one) first, as many as the history keeps.
    pub fn intervals(&self) -> Vec<IntervalReport> {
        let mut out = vec![];
        if let (Some(c), Some(h)) = (self.current, self.highest) {
            out.push(IntervalReport {
                length: h.saturating_sub(c.start_seq) + 1,
                loss_length: c.last_loss - c.start_seq + 1,
            });
        }
        for cl in &self.closed {
            out.push(IntervalReport { length: cl.size.round() as u64, loss_length: cl.loss_len });
        }
        out
    }

    /// I_0: from the start of the current loss event to the highest packet received (ns-2's is
    /// one packet shorter).
    fn i0(&self) -> Option<f64> {
        let c = self.current?;
        let extra = if self.cfg.ns2_average { 0 } else { 1 };
        Some((self.highest?.saturating_sub(c.start_seq) + extra) as f64)
    }

    /// DF of §5.5 for the current interval starting at `start`: 2 I_mean / I_0 when I_0 is more
    /// than twice the discounted mean of the closed intervals, never below a quarter; else 1.
    fn discount_now(&self, start: u64) -> f64 {
        let i0 = (self.highest.unwrap_or(start).saturating_sub(start) + 1) as f64;
        let (mut it, mut wt) = (0.0, 0.0);
        for (i, c) in self.closed.iter().enumerate() {
            wt += self.w[i] * c.df;
            it += c.size * self.w[i] * c.df;
        }
        if wt <= 0.0 {
            return 1.0;
        }
        let mean = it / wt;
        if i0 > 2.0 * mean {
            (2.0 * mean / i0).max(self.cfg.discount_floor)
        } else {
            1.0
        }
    }

    /// The loss event rate p (§5.4, §5.5): 0 before the first loss event. `now` and `rtt` decide
    /// for TFRC-SP whether the current interval is still short (then it does not count).
    ///
    /// With I_0 the current interval and I_1..I_k the closed ones (k <= n), p is the smaller of
    /// the two weighted means' inverses: I_0..I_(k-1) with weights w_0.., and I_1..I_k with
    /// w_0... History discounting scales the older terms by DF_i (and the first mean's by DF).
    pub fn loss_event_rate(&self, now: Time, rtt: Dur) -> f64 {
        let (Some(c), Some(i0)) = (self.current, self.i0()) else { return 0.0 };
        let k = self.closed.len();
        if self.cfg.zero_filled {
            // I_tot0 over I_0..I_(n-1), I_tot1 over I_1..I_n, the slots not filled yet zero.
            let n = self.cfg.intervals;
            let slot = |i: usize| if i == 0 { i0 } else { self.closed.get(i - 1).map_or(0.0, |c| c.size) };
            let tot0: f64 = (0..n).map(|i| self.w[i] * slot(i)).sum();
            let tot1: f64 = (0..n).map(|i| self.w[i] * slot(i + 1)).sum();
            let wt: f64 = self.w.iter().sum();
            return wt / tot0.max(tot1).max(wt);
        }
        if k == 0 {
            // Not seeded yet: only the current interval.
            return 1.0 / i0.max(1.0);
        }
        let w = &self.w;
        let df = if self.cfg.discounting { self.discount_now(c.start_seq) } else { 1.0 };
        // ns-2 (smooth_ 1) takes I_0..I_k while fewer than n intervals are closed.
        let last0 = if self.cfg.ns2_average && k < self.cfg.intervals { k } else { k - 1 };
        let (mut it0, mut wt0) = (i0 * w[0], w[0]);
        for (cl, wi) in self.closed.iter().take(last0).zip(&w[1..]) {
            it0 += cl.size * wi * cl.df * df;
            wt0 += wi * cl.df * df;
        }
        let (mut it1, mut wt1) = (0.0, 0.0);
        for i in 1..=k {
            let cl = self.closed[i - 1];
            it1 += cl.size * w[i - 1] * cl.df;
            wt1 += w[i - 1] * cl.df;
        }
        let p1 = wt1 / it1;
        // RFC 4828 §3: a short current interval does not enter the average.
        let short0 =
            self.cfg.count_losses_in_short_intervals && now.saturating_since(c.start_at) <= rtt.saturating_mul(2);
        if short0 {
            p1
        } else {
            (wt0 / it0).min(p1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;
    const R: Dur = Dur(100 * MS);

    fn hist() -> LossHistory {
        LossHistory::new(LossConfig::default())
    }

    /// Packets 0.. arrive 10 ms apart except those in `lost`.
    fn feed(h: &mut LossHistory, upto: u64, lost: &[u64]) -> Vec<(u64, Detected)> {
        let mut out = vec![];
        for s in 0..upto {
            if !lost.contains(&s) {
                let d = h.on_packet(s, Time(s * 10 * MS), false, R, 0);
                if d != Detected::default() {
                    out.push((s, d));
                }
            }
        }
        out
    }

    #[test]
    fn the_weights_are_the_rfcs() {
        assert_eq!(weights(8), [1.0, 1.0, 1.0, 1.0, 0.8, 0.6, 0.4, 0.2]);
        assert_eq!(weights(4), [1.0, 1.0, 2.0 * 2.0 / 6.0, 2.0 / 6.0]);
    }

    #[test]
    fn a_hole_is_a_loss_once_three_later_packets_arrived() {
        let mut h = hist();
        let got = feed(&mut h, 20, &[5]);
        // Packets 6, 7, 8 arrive: the loss is detected at 8.
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].0, 8);
        assert_eq!(got[0].1, Detected { lost_or_marked: 1, new_events: 1, first_event: true });
        assert!(h.needs_seed() && h.has_loss());
        // Unseeded: p from I_0 alone, packets 5..=19.
        assert!((h.loss_event_rate(Time(200 * MS), R) - 1.0 / 15.0).abs() < 1e-12);
    }

    #[test]
    fn losses_within_an_rtt_of_the_first_make_one_event() {
        let mut h = hist();
        // 10 ms apart, R = 100 ms: 5, 9 and 14 (within 100 ms of 5's 50 ms) are one event; 20
        // (at 200 ms) starts another.
        feed(&mut h, 40, &[5, 9, 14, 20]);
        assert_eq!((h.events(), h.lost_or_marked()), (2, 4));
        h.seed_first_interval(100.0);
        // Closed: I_1 = 20 - 5 = 15, I_2 = 100 (seed). I_0 = 39 - 20 + 1 = 20.
        // k = 2: I_tot0 = 20 + 15, I_tot1 = 15 + 100; W = 2: p = 2 / 115.
        assert!((h.loss_event_rate(Time(400 * MS), R) - 2.0 / 115.0).abs() < 1e-12);
    }

    /// ns-2's Agent/DCCP/TFRC compares 4-bit counters: with a period of 4 RTTs (400 ms here), a
    /// loss 4 to 5 RTTs after an event's start joins it, one 5.5 RTTs after starts a new one.
    #[test]
    fn a_wrapping_clock_joins_losses_a_whole_period_after_the_start() {
        let mut h = LossHistory::new(LossConfig { event_wrap: Some(Dur(400 * MS)), ..LossConfig::default() });
        // 10 ms apart: 5 at 50 ms; 47 at 470 ms (420 ms on: 20 ms past the period) joins it;
        // 60 at 600 ms (550 ms on: 150 ms past) starts the second event.
        feed(&mut h, 80, &[5, 47, 60]);
        assert_eq!((h.events(), h.lost_or_marked()), (2, 3));
        let mut plain = hist();
        feed(&mut plain, 80, &[5, 47, 60]);
        assert_eq!(plain.events(), 3);
    }

    #[test]
    fn the_current_interval_counts_only_when_it_raises_the_mean() {
        let mut h = hist();
        feed(&mut h, 12, &[5]);
        h.seed_first_interval(10.0);
        // I_0 = 11 - 5 + 1 = 7 < I_1 = 10: p = 1/10.
        assert!((h.loss_event_rate(Time(0), R) - 0.1).abs() < 1e-12);
        feed_from(&mut h, 12, 40);
        // I_0 = 35: p = 1/35.
        assert!((h.loss_event_rate(Time(0), R) - 1.0 / 35.0).abs() < 1e-12);
    }

    fn feed_from(h: &mut LossHistory, from: u64, to: u64) {
        for s in from..to {
            h.on_packet(s, Time(s * 10 * MS), false, R, 0);
        }
    }

    /// Nine intervals of known sizes: the average uses the newest eight with the RFC's weights.
    #[test]
    fn the_average_of_eight_intervals_uses_the_weights() {
        let mut h = hist();
        // Losses every 30 packets (300 ms apart: separate events).
        let lost: Vec<u64> = (1..=10).map(|k| 30 * k).collect();
        feed(&mut h, 30 * 10 + 5, &lost);
        h.seed_first_interval(1000.0);
        // Closed: nine of 30 (the newest eight kept) ... the seed fell off; I_0 = 304 - 300 + 1 = 5.
        let w = weights(8);
        let wt: f64 = w.iter().sum();
        let it0 = 5.0 * w[0] + 30.0 * w[1..].iter().sum::<f64>();
        let it1 = 30.0 * wt;
        let p = wt / it0.max(it1);
        assert!((h.loss_event_rate(Time(0), R) - p).abs() < 1e-12, "{}", h.loss_event_rate(Time(0), R));
        assert!((p - 1.0 / 30.0).abs() < 1e-12);
    }

    #[test]
    fn a_marked_packet_is_an_event_at_once_after_the_holes_before_it() {
        let mut h = hist();
        feed(&mut h, 10, &[]);
        // 10 is missing; 11 arrives unmarked, 12 marked: 10 is lost now, and 12 is marked.
        h.on_packet(11, Time(110 * MS), false, R, 0);
        let d = h.on_packet(12, Time(120 * MS), true, R, 0);
        assert_eq!(d, Detected { lost_or_marked: 2, new_events: 1, first_event: true });
        assert_eq!(h.events(), 1, "one event: the mark is within an RTT of the loss");
    }

    /// ns-2's averaging while the history is short: I_0 one packet shorter, and the mean with
    /// I_0 takes I_0..I_k (the notes' run: I_0 = 46, I_1..I_3 = 20, 30, 85 gives 1/45.25 where
    /// the RFC gives 1/45).
    #[test]
    fn ns2_averages_one_more_interval_until_the_history_is_full() {
        let mut h = LossHistory::new(LossConfig { ns2_average: true, ..LossConfig::default() });
        // Loss events at 100, 130 and 215, the first interval seeded with 20.
        feed(&mut h, 262, &[100, 130, 215]);
        h.seed_first_interval(20.0);
        // Closed newest first: 215 - 130 = 85, 130 - 100 = 30, seed 20. I_0 = 261 - 215 = 46.
        let p = h.loss_event_rate(Time(0), R);
        let want = 1.0 / ((46.0 + 85.0 + 30.0 + 20.0) / 4.0_f64).max((85.0 + 30.0 + 20.0) / 3.0);
        assert!((p - want).abs() < 1e-12, "{p} vs {want}");
        let mut rfc = hist();
        feed(&mut rfc, 262, &[100, 130, 215]);
        rfc.seed_first_interval(20.0);
        // RFC: I_0 = 47; max(47 + 85 + 30, 85 + 30 + 20) / 3.
        let want = 3.0 / (47.0 + 85.0 + 30.0_f64).max(85.0 + 30.0 + 20.0);
        assert!((rfc.loss_event_rate(Time(0), R) - want).abs() < 1e-12);
    }

    /// ns-2's Agent/DCCP/TFRC divides by all eight weights from the first loss on: with the
    /// seeded interval and the current one only, p = 6 / (I_1 + I_0), about six times the
    /// RFC's; with the slots full it is the RFC's mean.
    #[test]
    fn zero_filled_slots_count_from_the_first_loss() {
        let cfg = LossConfig { zero_filled: true, ns2_average: true, ..LossConfig::default() };
        let mut h = LossHistory::new(cfg);
        feed(&mut h, 106, &[100]);
        h.seed_first_interval(342.0);
        // I_0 = 105 - 100 = 5, I_1 = 342: I_tot0 = 5 + 342, I_tot1 = 342.
        assert!((h.loss_event_rate(Time(0), R) - 6.0 / 347.0).abs() < 1e-12);
        // Losses every 30 packets from there fill the slots: the RFC's weighted mean.
        let lost: Vec<u64> = (0..12).map(|k| 100 + 30 * k).collect();
        let mut full = LossHistory::new(cfg);
        feed(&mut full, 100 + 30 * 11 + 20, &lost);
        full.seed_first_interval(342.0);
        let w = weights(8);
        let tot0 = 19.0 * w[0] + 30.0 * w[1..].iter().sum::<f64>();
        let tot1 = 30.0 * w.iter().sum::<f64>();
        assert!((full.loss_event_rate(Time(0), R) - 6.0 / tot0.max(tot1)).abs() < 1e-12);
    }

    #[test]
    fn duplicates_and_late_packets_change_nothing() {
        let mut h = hist();
        feed(&mut h, 20, &[5]);
        let before = (h.events(), h.lost_or_marked(), h.highest());
        assert_eq!(h.on_packet(5, Time(300 * MS), false, R, 0), Detected::default());
        assert_eq!(h.on_packet(7, Time(300 * MS), false, R, 0), Detected::default());
        assert_eq!((h.events(), h.lost_or_marked(), h.highest()), before);
    }

    /// §5.5: a long quiet interval after short ones discounts the old ones (never below 0.25).
    #[test]
    fn discounting_lets_a_long_quiet_interval_count_more() {
        let cfg = LossConfig { discounting: true, ..LossConfig::default() };
        let (mut plain, mut disc) = (hist(), LossHistory::new(cfg));
        let lost: Vec<u64> = (1..=9).map(|k| 20 * k).collect();
        for h in [&mut plain, &mut disc] {
            feed(h, 1000, &lost);
            h.seed_first_interval(20.0);
        }
        // I_0 = 999 - 180 + 1 = 820, the others 20: the plain average takes I_0 once (its max);
        // discounting weights the old ones by 2 x 20 / 820 < 0.25, so 0.25.
        let pp = plain.loss_event_rate(Time(0), R);
        let pd = disc.loss_event_rate(Time(0), R);
        assert!(pd < pp, "{pd} vs {pp}");
        let w = weights(8);
        let it0 = 820.0 + 20.0 * 0.25 * w[1..].iter().sum::<f64>();
        let wt0 = 1.0 + 0.25 * w[1..].iter().sum::<f64>();
        let want = (wt0 / it0).min(1.0 / 20.0);
        assert!((pd - want).abs() < 1e-12, "{pd} vs {want}");
    }

    /// RFC 4828 §3: an interval of at most two RTTs with N packets and K losses counts as N/K.
    #[test]
    fn tfrc_sp_counts_the_losses_of_a_short_interval() {
        let cfg = LossConfig { count_losses_in_short_intervals: true, ..LossConfig::default() };
        let mut h = LossHistory::new(cfg);
        // Event 1 at 5 (50 ms) with a second loss at 8 (80 ms); event 2 at 20 (200 ms): the first
        // interval spans 150 ms <= 2 R, 15 packets, 2 losses: 7.5.
        feed(&mut h, 200, &[5, 8, 20]);
        h.seed_first_interval(100.0);
        // I_0 = 199 - 20 + 1 = 180 began at 200 ms. At 2 s, more than 2 R later, it counts:
        // k = 2: I_tot0 = 180 + 7.5, I_tot1 = 7.5 + 100: p = 2 / 187.5.
        assert!((h.loss_event_rate(Time(2_000 * MS), R) - 2.0 / 187.5).abs() < 1e-12);
        // Within 2 R of its start it does not, though it would raise the mean: p = 2 / 107.5.
        assert!((h.loss_event_rate(Time(300 * MS), R) - 2.0 / 107.5).abs() < 1e-12);
        let mut plain = hist();
        feed(&mut plain, 200, &[5, 8, 20]);
        plain.seed_first_interval(100.0);
        let p = plain.loss_event_rate(Time(300 * MS), R);
        assert!((p - 2.0 / 195.0).abs() < 1e-12, "standard TFRC: 15 packets, I_0 counts: {p}");
    }

    #[test]
    fn a_jump_past_the_span_is_one_loss_and_no_slot_per_packet() {
        let mut h = LossHistory::new(LossConfig::default());
        let rtt = Dur::from_millis(50);
        h.on_packet(0, Time(1_000_000), false, rtt, 0);
        // A forged (or outage-long) jump of 2^40 packets: one loss, a history of one slot.
        let d = h.on_packet(1 << 40, Time(2_000_000), false, rtt, 0);
        assert_eq!((d.lost_or_marked, h.lost_or_marked()), (1, 1));
        assert!(h.window.len() <= 1, "{}", h.window.len());
        // And it goes on from there.
        h.on_packet((1 << 40) + 1, Time(3_000_000), false, rtt, 0);
        assert_eq!(h.highest(), Some((1 << 40) + 1));
    }
}
