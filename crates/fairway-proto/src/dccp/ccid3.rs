//! CCID3, TFRC congestion control on DCCP (RFC 4342). The rate, its equation, slow start, the
//! nofeedback timer (sender) and the loss history, receive rate and first loss interval
//! (receiver) are fairway's TFRC ends (crate::tfrc) themselves; this module carries what DCCP
//! changes around them: the window counter in CCVal (§8.1) that replaces TFRC's timestamps, the
//! RTT taken from the Acknowledgement Number and Elapsed Time (§10.1), feedback as options
//! (§8.2-8.6) with p computed at the sender from the Loss Intervals (§5), loss events grouped
//! by window counters (§10.2), and feedback sent by the window counter rule (§10.3).

use std::collections::VecDeque;

use fairway_core::{Bytes, Dur, Time};

use super::packet::{LossIntervalOpt, LossIntervals, Options};
use crate::endpoint::{AgentState, Arrival, Endpoint};
use crate::source::Source;
use crate::tfrc::loss::weights;
use crate::tfrc::{Observed, ParamError, TfrcConfig, TfrcFeedback, TfrcReceiver, TfrcSender};

/// The window counter's range: CCVal is 4 bits (§8.1).
const WCTRMAX: u64 = 16;
/// Packets sent whose times the sender keeps for RTT samples (§10.1); older ones are forgotten.
const SENT_HISTORY: usize = 4096;
/// The unit of the receiver's window-counter clock: a counter step is this many nanoseconds, so
/// that "more than 4 apart" is "more than an RTT apart" for the loss history (§10.2).
const WC_UNIT: u64 = 1_000_000;
/// The most loss intervals an option carries (§8.6.1).
const MAX_INTERVALS: usize = 28;

/// RFC 4342's settings of TFRC: RFC 5348's sender and receiver with the loss history dated by
/// window counters (§10.2) and no receiver feedback timer (§10.3). The receiver's history
/// starts at the packets it sees (the handshake's sequence numbers are not data).
pub fn rfc4342_tfrc() -> TfrcConfig {
    let mut c = TfrcConfig::rfc5348();
    c.loss.date_by_previous = true;
    c.loss.holes_before_first = false;
    c.feedback_timer = false;
    c
}

/// ns-2 2.35's Agent/DCCP/TFRC's TFRC (dccp_tfrc.cc at its defaults): one packet per RTT after
/// the first feedback (RFC 3448 §4.2), p averaged over zero-filled interval slots, loss events
/// told apart by the 4-bit window counters as they are (modulo 16), its sender's rate rules and
/// nofeedback timer and its first loss interval ([`TfrcConfig::dccp_ns2`]); the rest as RFC 4342.
pub fn ns2_tfrc() -> TfrcConfig {
    let mut c = rfc4342_tfrc();
    c.packet_size = Bytes(500);
    c.initial_window = crate::tfrc::InitialWindow::OnePacket;
    c.loss.zero_filled = true;
    // Its current interval runs from the event's first loss to the newest packet, exclusive.
    c.loss.ns2_average = true;
    // Its receiver tells a new loss event by the window counters modulo 16.
    c.loss.event_wrap = Some(Dur(WCTRMAX * WC_UNIT));
    c.dccp_ns2 = true;
    c
}

/// RFC 5348 §5.4 on reported loss interval lengths, newest (I_0) first: p = 1 / I_mean with
/// I_mean the larger of the weighted means of I_0..I_(k-1) and I_1..I_k; 0 with no interval.
pub fn loss_event_rate(lengths: &[u64], n: usize) -> f64 {
    let Some(&i0) = lengths.first() else { return 0.0 };
    let k = (lengths.len() - 1).min(n);
    if k == 0 {
        return 1.0 / (i0.max(1) as f64);
    }
    let w = weights(n);
    let (mut tot0, mut tot1, mut wt) = (0.0, 0.0, 0.0);
    for i in 0..k {
        tot0 += lengths[i] as f64 * w[i];
        tot1 += lengths[i + 1] as f64 * w[i];
        wt += w[i];
    }
    // Forged lengths of zero cannot make p above one loss per packet.
    (wt / tot0.max(tot1).max(1e-9)).min(1.0)
}

/// Counters of a CCID3 sender.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Ccid3SenderStats {
    pub feedback_received: u64,
    /// Acknowledgements without the three options that make feedback (RFC 4342 §6).
    pub not_feedback: u64,
    pub nofeedback_expiries: u64,
    /// X, X_Bps, p and R at the end.
    pub rate: f64,
    pub x_bps: f64,
    pub p: f64,
    pub rtt: Option<Dur>,
    /// Loss events the sender counted from the reported intervals.
    pub loss_events: u32,
}

/// The sending side of CCID3 (the HC-Sender's congestion control).
pub struct Ccid3Sender {
    tfrc: TfrcSender,
    /// §8.1: the window counter (unwrapped; CCVal is it mod 16), and when it last moved.
    wc: u64,
    wc_time: Option<Time>,
    /// Packets sent, oldest first: sequence number, time, window counter.
    sent: VecDeque<(u64, Time, u64)>,
    /// The newest interval last reported (its length), to tell a new loss event.
    last_newest: Option<(usize, u64)>,
    loss_events: u32,
    n: usize,
    /// ns-2's feedback: Loss Event Rate and Receive Rate, Elapsed Time optional, p from the
    /// Loss Event Rate.
    ns2: bool,
    stats: Ccid3SenderStats,
}

impl Ccid3Sender {
    /// TFRC's rate, loss event rate and RTT (RFC 4342 §5 leaves them to RFC 5348).
    pub fn state(&self) -> AgentState {
        self.tfrc.state()
    }

    pub fn new(cfg: TfrcConfig, source: Box<dyn Source>, ns2: bool) -> Result<Ccid3Sender, ParamError> {
        let n = cfg.loss.intervals;
        Ok(Ccid3Sender {
            ns2,
            tfrc: TfrcSender::new(cfg, source)?,
            wc: 0,
            wc_time: None,
            sent: VecDeque::new(),
            last_newest: None,
            loss_events: 0,
            n,
            stats: Ccid3SenderStats::default(),
        })
    }

    pub fn start(&mut self, now: Time) {
        self.tfrc.start(now);
    }

    pub fn stop(&mut self, now: Time) {
        self.tfrc.stop(now);
    }

    /// The application bytes of the next data packet, when TFRC's rate lets one go now.
    pub fn poll_data(&mut self, now: Time) -> Option<Bytes> {
        self.tfrc.poll_transmit(now).map(|t| t.payload)
    }

    /// §8.1: the CCVal of a data packet sent now: one more per quarter RTT since it last moved,
    /// at most five at a time (so adjacent packets never wrap); unchanged before an RTT is known.
    pub fn window_counter(&mut self, now: Time) -> u8 {
        let last = *self.wc_time.get_or_insert(now);
        if let Some(r) = self.tfrc.rtt() {
            let quarter = (r.0 / 4).max(1);
            let quarters = now.saturating_since(last).0 / quarter;
            if quarters > 0 {
                self.wc += quarters.min(5);
                self.wc_time = Some(now);
            }
        }
        (self.wc % WCTRMAX) as u8
    }

    /// Notes a packet sent (any type): its time answers a later acknowledgement (§10.1).
    pub fn on_sent(&mut self, now: Time, seq: u64) {
        if self.sent.len() == SENT_HISTORY {
            self.sent.pop_front();
        }
        self.sent.push_back((seq, now, self.wc));
    }

    /// An acknowledgement of `ack` with `opts`: feedback when it carries Elapsed Time (or a
    /// Timestamp Echo), Receive Rate and Loss Intervals (§6); anything else is not feedback.
    /// ns-2: Loss Event Rate and Receive Rate, the Elapsed Time 0 when absent.
    pub fn on_ack(&mut self, now: Time, ack: u64, opts: &Options) {
        let elapsed = opts.elapsed_time.or(opts.timestamp_echo.map(|(_, e)| e));
        let feedback = if self.ns2 {
            opts.loss_event_rate.zip(opts.receive_rate).map(|(ler, rr)| (elapsed.unwrap_or(0), rr, Err(ler)))
        } else {
            match (elapsed, opts.receive_rate, opts.loss_intervals.as_ref()) {
                (Some(e), Some(rr), Some(li)) => Some((e, rr, Ok(li))),
                _ => None,
            }
        };
        let Some((elapsed, x_recv, loss)) = feedback else {
            self.stats.not_feedback += 1;
            return;
        };
        // §10.1: the RTT from the acknowledged packet's send time and the time it waited.
        let Some(&(_, sent_at, wc)) = self.sent.iter().rev().find(|e| e.0 == ack) else {
            self.stats.not_feedback += 1;
            return;
        };
        self.sent.retain(|e| e.0 >= ack);
        // §8.1: packets after an acknowledgement of counter WC carry at least WC + 4.
        if self.wc < wc + 4 {
            self.wc = wc + 4;
            self.wc_time = Some(now);
        }
        let p = match loss {
            Ok(li) => {
                // §5: p from the intervals' data lengths (§6.1.1).
                let lengths: Vec<u64> = li.intervals.iter().map(|i| u64::from(i.data_length)).collect();
                let newest = lengths.first().map(|&l| (lengths.len(), l));
                if let (Some((n, l)), prev) = (newest, self.last_newest) {
                    if prev.is_none_or(|(pn, pl)| n > pn || l < pl) {
                        self.loss_events += 1;
                    }
                }
                self.last_newest = newest;
                loss_event_rate(&lengths, self.n)
            }
            // ns-2: the receiver's p, 1 / (the option's whole packets per interval).
            Err(ler) => {
                if ler == u32::MAX || ler == 0 {
                    0.0
                } else {
                    1.0 / f64::from(ler)
                }
            }
        };
        self.stats.feedback_received += 1;
        let fb = TfrcFeedback {
            flow: self.tfrc.config().flow,
            echo: sent_at,
            t_delay: Dur(u64::from(elapsed) * 10_000),
            x_recv: f64::from(x_recv),
            p,
            loss_events: self.loss_events,
        };
        self.tfrc.handle_feedback(now, &fb);
    }

    pub fn timeout(&self) -> Option<Time> {
        self.tfrc.poll_timeout()
    }

    pub fn on_timeout(&mut self, now: Time) {
        self.tfrc.handle_timeout(now);
    }

    pub fn stats(&self) -> Ccid3SenderStats {
        let t = self.tfrc.stats();
        Ccid3SenderStats {
            nofeedback_expiries: t.nofeedback_expiries,
            rate: t.rate,
            x_bps: t.x_bps,
            p: t.p,
            rtt: t.rtt,
            loss_events: self.loss_events,
            ..self.stats
        }
    }
}

/// The receiving side of CCID3 (the HC-Receiver's congestion control).
pub struct Ccid3Receiver {
    tfrc: TfrcReceiver,
    /// The greatest sequence number received, its arrival, and the window counter unwrapped
    /// (with its last CCVal).
    gsr: Option<u64>,
    gsr_arrival: Time,
    wc: u64,
    last_ccval: u8,
    /// §8.1: T(I), the first arrival of each recent counter value, and the RTT estimate from them.
    first_arrival: VecDeque<(u64, Time)>,
    rtt: Dur,
    /// §10.3: the greatest counter received before the last feedback, and since.
    last_counter: Option<u64>,
    max_counter_since: Option<u64>,
    /// ns-2's feedback: Loss Event Rate (1/p rounded down) and Receive Rate only.
    ns2: bool,
    /// ns-2: the RTT of the handshake (Response to the Ack that answers it), which stands in
    /// for the window-counter estimate until there is one.
    handshake_rtt: Dur,
    echoes: IntervalEchoes,
    /// n, the closed intervals the history keeps (and their echoes kept beside them).
    n: usize,
}

/// RFC 4342 §8.6.1's ECN Nonce Echo of each loss interval: the one-bit sum of the nonces of the
/// data packets received in its lossless part (after its last lost or marked packet).
#[derive(Debug, Default)]
struct IntervalEchoes {
    /// The current interval's first packet and last loss, as the history last said.
    current: Option<(u64, u64)>,
    /// The data packets received after the current interval's last loss: (seq, nonce), in
    /// sequence order; past [`ECHO_KEPT`] the oldest fold into `folded`.
    after: VecDeque<(u64, bool)>,
    folded: bool,
    /// The closed intervals' echoes, newest first (the synthetic first interval's is 0).
    closed: VecDeque<bool>,
}

/// Data packets after the last loss kept one by one (a later loss of the same event, within a
/// round trip, moves some of them into the lossy part).
const ECHO_KEPT: usize = 1 << 14;

impl IntervalEchoes {
    /// A data packet arrived (before the history took it): its nonce counts if it lies after
    /// the current interval's last loss (`nonce` false when marked or not ECN-capable).
    fn arrived(&mut self, seq: u64, nonce: bool) {
        if self.current.is_some_and(|(_, last)| seq <= last) {
            return;
        }
        let at = self.after.partition_point(|&(s, _)| s < seq);
        if self.after.get(at).is_some_and(|&(s, _)| s == seq) {
            return;
        }
        self.after.insert(at, (seq, nonce));
        if self.after.len() > ECHO_KEPT {
            let (_, n) = self.after.pop_front().expect("not empty");
            self.folded ^= n;
        }
    }

    /// Takes the packets before `upto` out, returning the sum of their nonces.
    fn sum_before(&mut self, upto: u64) -> bool {
        let mut e = std::mem::take(&mut self.folded);
        while self.after.front().is_some_and(|&(s, _)| s < upto) {
            e ^= self.after.pop_front().expect("not empty").1;
        }
        e
    }

    /// The history's current interval after the arrival: a new one closes the old one's echo;
    /// a later loss in the same one takes the packets up to it out of the lossless part.
    fn update(&mut self, now: Option<(u64, u64)>, intervals: usize) {
        match (self.current, now) {
            (None, Some((_, last))) => {
                // The first loss event: the interval before it is the synthetic one (§6.3.1).
                self.closed.push_front(false);
                self.sum_before(last + 1);
            }
            (Some((start, _)), Some((new_start, last))) if new_start != start => {
                let e = self.sum_before(new_start);
                self.closed.push_front(e);
                self.sum_before(last + 1);
            }
            (Some((_, old_last)), Some((_, last))) if last != old_last => {
                self.sum_before(last + 1);
            }
            _ => {}
        }
        self.closed.truncate(intervals);
        self.current = now;
    }

    /// The current interval's echo up to (not including) `end`.
    fn open_before(&self, end: u64) -> bool {
        self.after.iter().take_while(|&&(s, _)| s < end).fold(self.folded, |e, &(_, n)| e ^ n)
    }
}

impl Ccid3Receiver {
    pub fn new(cfg: TfrcConfig, ns2: bool) -> Result<Ccid3Receiver, ParamError> {
        Ok(Ccid3Receiver {
            ns2,
            handshake_rtt: Dur::ZERO,
            echoes: IntervalEchoes::default(),
            n: cfg.loss.intervals,
            tfrc: TfrcReceiver::new(cfg)?,
            gsr: None,
            gsr_arrival: Time::ZERO,
            wc: 0,
            last_ccval: 0,
            first_arrival: VecDeque::new(),
            rtt: Dur::ZERO,
            last_counter: None,
            max_counter_since: None,
        })
    }

    /// The receiver's RTT estimate from window counters (zero until it has one).
    pub fn rtt(&self) -> Dur {
        self.rtt
    }

    /// The handshake's RTT, measured by the DCCP receiver. ns-2 2.35's Agent/DCCP/TFRC uses it
    /// until the window counters give an estimate (dccp_tfrc.cc sampleRTT, dccp.cc
    /// rtt_conn_est_); RFC 4342 has no such fallback, so only the `ns2` flavour does.
    pub fn set_handshake_rtt(&mut self, rtt: Dur) {
        if self.ns2 {
            self.handshake_rtt = rtt;
        }
    }

    /// Takes a packet of the connection from the sender: `data` with `ccval` and its ECN
    /// `nonce`, or a packet without data (which only fills its place in the sequence).
    pub fn on_packet(&mut self, now: Time, seq: u64, ccval: u8, data: bool, nonce: bool, arrival: Arrival) {
        let newest = self.gsr.is_none_or(|g| seq > g);
        // The counter unwrapped: forward from the newest packet's, or back for a late one.
        let wc = if !data {
            self.wc
        } else if self.gsr.is_none() {
            u64::from(ccval)
        } else if newest {
            self.wc + u64::from(ccval.wrapping_sub(self.last_ccval) & 0x0f)
        } else {
            self.wc.saturating_sub(u64::from(self.last_ccval.wrapping_sub(ccval) & 0x0f))
        };
        if newest {
            self.gsr = Some(seq);
            self.gsr_arrival = now;
            if data {
                self.wc = wc;
                self.last_ccval = ccval;
                self.estimate_rtt(now, wc);
            }
        }
        let rtt = if self.rtt.is_zero() { self.handshake_rtt } else { self.rtt };
        let o = Observed {
            seq,
            data,
            ts: now,
            loss_time: Time(wc * WC_UNIT),
            loss_rtt: Dur(4 * WC_UNIT),
            rtt,
            t_rto: Dur(4 * rtt.0),
            round: 0,
            urgent: false,
        };
        if data {
            self.echoes.arrived(seq, nonce && !arrival.ce);
        }
        self.tfrc.observe(now, &o, arrival.payload, arrival.ce);
        self.echoes.update(self.tfrc.current_interval(), self.n);
        if data {
            // §10.3: feedback when a packet's counter is at least 4 past the last feedback's.
            if self.last_counter.is_some_and(|c| wc >= c + 4) {
                self.tfrc.request_report();
            }
            self.max_counter_since = Some(self.max_counter_since.map_or(wc, |m| m.max(wc)));
        }
    }

    /// §8.1: (T(K+D) - T(K)) 4/D from the first arrivals of counter values, D = 4 preferred,
    /// then 3 and 2.
    fn estimate_rtt(&mut self, now: Time, wc: u64) {
        if self.first_arrival.back().is_some_and(|&(c, _)| c >= wc) {
            return;
        }
        self.first_arrival.push_back((wc, now));
        while self.first_arrival.front().is_some_and(|&(c, _)| c + 8 < wc) {
            self.first_arrival.pop_front();
        }
        for d in [4, 3, 2] {
            if let Some(&(_, t)) = self.first_arrival.iter().find(|&&(c, _)| c + d == wc) {
                self.rtt = Dur(now.saturating_since(t).0 * 4 / d);
                return;
            }
        }
    }

    /// The feedback due now, as the options of an Ack acknowledging the greatest sequence number
    /// received (§6: Elapsed Time, Receive Rate, Loss Intervals; and Loss Event Rate, §8.5).
    pub fn poll_feedback(&mut self, now: Time) -> Option<(u64, Options)> {
        let fb = self.tfrc.poll_transmit(now)?.msg;
        self.last_counter = self.max_counter_since.take().or(self.last_counter);
        let receive_rate = Some(fb.x_recv.min(f64::from(u32::MAX)) as u32);
        let opts = if self.ns2 {
            let inv =
                if fb.p > 0.0 { (1.0 / fb.p).floor().clamp(1.0, f64::from(u32::MAX - 1)) as u32 } else { u32::MAX };
            Options { receive_rate, loss_event_rate: Some(inv), ..Options::default() }
        } else {
            Options {
                // §8.2 (in RFC 4340 §13.2's units of 10 microseconds).
                elapsed_time: Some((now.saturating_since(self.gsr_arrival).0 / 10_000).min(u64::from(u32::MAX)) as u32),
                receive_rate,
                // §8.5: 1/p rounded up; all ones before any loss.
                loss_event_rate: Some(if fb.p > 0.0 {
                    (1.0 / fb.p).ceil().min(f64::from(u32::MAX - 1)) as u32
                } else {
                    u32::MAX
                }),
                loss_intervals: Some(self.loss_intervals()),
                ..Options::default()
            }
        };
        Some((self.gsr.unwrap_or(0), opts))
    }

    /// §8.6: the intervals newest first (the current one up to the newest packet, so Skip
    /// Length is 0), with their ECN Nonce Echoes; a data length counts every sequence number of
    /// the interval.
    fn loss_intervals(&self) -> LossIntervals {
        // §8.6.1: Skip Length leaves out the newest packets from the oldest hole not yet
        // declared lost: the current interval ends before it.
        let skip = self.tfrc.unresolved().min(255);
        let end = self.gsr.map_or(0, |g| g + 1).saturating_sub(skip);
        let intervals = self
            .tfrc
            .intervals()
            .into_iter()
            .take(MAX_INTERVALS)
            .enumerate()
            .map(|(k, i)| {
                let length = if k == 0 { i.length.saturating_sub(skip) } else { i.length };
                let data = length.min(0xff_ffff) as u32;
                let loss = i.loss_length.min(length).min(0x7f_ffff) as u32;
                // §8.6.1: the echo of the lossless part (0 when it is empty).
                let echo = match k {
                    0 => self.echoes.open_before(end),
                    _ => self.echoes.closed.get(k - 1).copied().unwrap_or(false),
                };
                LossIntervalOpt {
                    lossless_length: data - loss,
                    nonce_echo: echo && data > loss,
                    loss_length: loss,
                    data_length: data,
                }
            })
            .collect();
        LossIntervals { skip: skip as u8, intervals }
    }

    pub fn timeout(&self) -> Option<Time> {
        self.tfrc.poll_timeout()
    }

    pub fn on_timeout(&mut self, now: Time) {
        self.tfrc.handle_timeout(now);
    }

    /// The loss event rate now.
    pub fn loss_event_rate(&self, now: Time) -> f64 {
        self.tfrc.loss_event_rate(now)
    }

    pub fn stats(&self) -> crate::tfrc::TfrcReceiverStats {
        self.tfrc.stats()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn p_from_the_intervals_is_rfc_5348s_weighted_mean() {
        assert_eq!(loss_event_rate(&[], 8), 0.0);
        assert_eq!(loss_event_rate(&[20], 8), 1.0 / 20.0);
        // I_0 = 20, I_1 = 15, I_2 = 100: k = 2, max(20 + 15, 15 + 100) / 2.
        assert!((loss_event_rate(&[20, 15, 100], 8) - 2.0 / 115.0).abs() < 1e-12);
        // Nine intervals of 30 with a short I_0: the newest eight closed ones count.
        let mut l = vec![5];
        l.extend([30; 9]);
        assert!((loss_event_rate(&l, 8) - 1.0 / 30.0).abs() < 1e-12);
    }

    fn arrival(payload: u64) -> Arrival {
        Arrival { ce: false, size: Bytes(payload + 32), payload: Bytes(payload) }
    }

    /// §8.1's example: the first packets with counters K and K + 4 arrive an RTT apart.
    #[test]
    fn the_receiver_estimates_the_rtt_from_window_counters() {
        let mut r = Ccid3Receiver::new(rfc4342_tfrc(), false).unwrap();
        let ms = |m: u64| Time(m * 1_000_000);
        // Counters 14, 15, 0, 1, 2 (wrapping), a packet every 25 ms, a counter per packet.
        for (i, cc) in [14u8, 15, 0, 1, 2].into_iter().enumerate() {
            r.on_packet(ms(25 * i as u64), i as u64, cc, true, false, arrival(1000));
        }
        assert_eq!(r.rtt(), Dur::from_millis(100));
        // A second packet of counter 2 does not move T(2).
        r.on_packet(ms(140), 5, 2, true, false, arrival(1000));
        assert_eq!(r.rtt(), Dur::from_millis(100));
    }

    /// §10.2: losses whose previous packets' counters are at most 4 apart are one event.
    #[test]
    fn losses_group_by_window_counter() {
        let mut r = Ccid3Receiver::new(rfc4342_tfrc(), false).unwrap();
        // A counter step every two packets; packets 10 and 14 lost (previous counters 4 and 6:
        // one event), then 30 (previous counter 14: a second event).
        let mut now = 0;
        for seq in 0..60u64 {
            now += 10_000_000;
            if [10, 14, 30].contains(&seq) {
                continue;
            }
            r.on_packet(Time(now), seq, ((seq / 2) % 16) as u8, true, false, arrival(1000));
        }
        let s = r.stats();
        assert_eq!((s.lost_or_marked, s.loss_events), (3, 2));
    }

    /// §10.3: after a report, the next goes when a packet's counter is 4 past the last one's.
    #[test]
    fn feedback_follows_the_window_counter() {
        let mut r = Ccid3Receiver::new(rfc4342_tfrc(), false).unwrap();
        let ms = |m: u64| Time(m * 1_000_000);
        r.on_packet(ms(0), 0, 0, true, false, arrival(1000));
        let (ack, o) = r.poll_feedback(ms(0)).expect("the first packet is reported at once");
        assert_eq!((ack, o.receive_rate, o.loss_event_rate), (0, Some(0), Some(u32::MAX)));
        let mut reports = vec![];
        // Two packets per counter step, 10 ms apart.
        for seq in 1..40u64 {
            r.on_packet(ms(10 * seq), seq, ((seq / 2) % 16) as u8, true, false, arrival(1000));
            if r.poll_feedback(ms(10 * seq)).is_some() {
                reports.push(seq);
            }
        }
        // Packets 1-3 (counters 0, 1, 1) come before any RTT estimate and are each reported
        // (§6.3); packet 4 (counter 2) gives one, (T(2) - T(0)) x 4/2. The last report saw
        // counter 1 at most, so the next goes with the first counter 5 (packet 10), then every
        // 4 counters, 8 packets.
        assert_eq!(reports, [1, 2, 3, 10, 18, 26, 34]);
    }
}
