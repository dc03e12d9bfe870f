//! The TFRC receiver (RFC 5348 §6): it keeps the loss history, measures the receive rate, and
//! reports both to the sender once per round-trip time and at once on a new loss event.

use std::collections::VecDeque;

use fairway_core::wire_clock::whole_micros;
use fairway_core::{Bytes, Dur, Time};

use super::equation::loss_rate_for;
use super::loss::LossHistory;
use super::wire::{decode_data, encode_feedback};
use super::{Flavor, ParamError, TfrcConfig, TfrcData, TfrcFeedback};
use crate::endpoint::{Arrival, Endpoint, Malformed, Transmit};

/// Counters of a receiver.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TfrcReceiverStats {
    pub received: u64,
    /// Data of another flow, duplicates and packets older than the history.
    pub ignored: u64,
    pub lost_or_marked: u64,
    pub loss_events: u64,
    pub feedback_sent: u64,
    /// The loss event rate last reported.
    pub p: f64,
}

/// What the receiver reads from one packet of the flow, whatever format carried it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Observed {
    pub seq: u64,
    /// A data packet; a packet without data only fills its place in the sequence.
    pub data: bool,
    /// The timestamp echoed back (t_recvdata).
    pub ts: Time,
    /// The time and round-trip time by which losses group into events (§5.2: arrival or send
    /// times and the sender's R; CCID3: window counters, RFC 4342 §10.2).
    pub loss_time: Time,
    pub loss_rtt: Dur,
    /// R_m, the round-trip time the receiver works with (zero while unknown).
    pub rtt: Dur,
    pub t_rto: Dur,
    pub round: u32,
    pub urgent: bool,
}

/// The receiving end of one TFRC flow.
#[derive(Debug, Clone)]
pub struct TfrcReceiver {
    cfg: TfrcConfig,
    hist: LossHistory,
    /// The latest new packet: its timestamp (t_recvdata) and arrival.
    last_ts: Option<Time>,
    last_arrival: Time,
    /// From the latest data packet: R_m, the sender's t_RTO and round, the packet size s.
    rtt: Dur,
    t_rto: Dur,
    round: u32,
    psize: f64,
    /// Packets and bytes since the last report, and the arrivals of the last round trip.
    pkts_since: u64,
    bytes_since: u64,
    recent: VecDeque<(Time, u64)>,
    last_report: Option<Time>,
    /// The largest receive rate reported (RFC 5348 §6.3.1's X_target).
    max_x_recv: f64,
    p_prev: f64,
    report_due: bool,
    /// RFC 5348 §6.1: the feedback timer last expired with nothing to report.
    silent_expiry: bool,
    timer: Option<Time>,
    stats: TfrcReceiverStats,
}

impl TfrcReceiver {
    pub fn new(cfg: TfrcConfig) -> Result<TfrcReceiver, ParamError> {
        cfg.validate()?;
        Ok(TfrcReceiver {
            hist: LossHistory::new(cfg.loss),
            psize: cfg.packet_size.0 as f64,
            cfg,
            last_ts: None,
            last_arrival: Time::ZERO,
            rtt: Dur::ZERO,
            t_rto: Dur::ZERO,
            round: 0,
            pkts_since: 0,
            bytes_since: 0,
            recent: VecDeque::new(),
            last_report: None,
            max_x_recv: 0.0,
            p_prev: 0.0,
            report_due: false,
            silent_expiry: false,
            timer: None,
            stats: TfrcReceiverStats::default(),
        })
    }

    /// The loss event rate now.
    pub fn loss_event_rate(&self, now: Time) -> f64 {
        self.hist.loss_event_rate(now, self.rtt)
    }

    fn ns2(&self) -> bool {
        self.cfg.flavor == Flavor::Ns2
    }

    /// Takes a data packet of `payload` application bytes.
    pub fn handle_data(&mut self, now: Time, d: &TfrcData, payload: Bytes, ce: bool) {
        if d.flow != self.cfg.flow {
            self.stats.ignored += 1;
            return;
        }
        // §5.2 times losses by arrivals; ns-2 by the senders' timestamps.
        let loss_time = if self.cfg.loss.send_time_events { d.ts } else { now };
        let o = Observed {
            seq: d.seq,
            data: true,
            ts: d.ts,
            loss_time,
            loss_rtt: d.rtt,
            rtt: d.rtt,
            t_rto: d.t_rto,
            round: d.round,
            urgent: d.urgent,
        };
        self.observe(now, &o, payload, ce);
    }

    /// Takes a packet of the flow, whatever carried it (TFRC's data packets, CCID3's).
    pub fn observe(&mut self, now: Time, o: &Observed, payload: Bytes, ce: bool) {
        let first = self.last_ts.is_none();
        if o.data {
            self.stats.received += 1;
            self.pkts_since += 1;
            self.bytes_since += payload.0;
            self.recent.push_back((now, payload.0));
        }
        let new_highest = self.hist.highest().is_none_or(|h| o.seq > h);
        let before = self.hist.lost_or_marked();
        let det = self.hist.on_packet(o.seq, o.loss_time, ce && self.cfg.ecn && o.data, o.loss_rtt, o.round);
        if self.hist.lost_or_marked() == before && !new_highest && !first && o.data {
            // Neither new nor a revelation: a duplicate or a late packet.
            self.stats.ignored += 1;
        }
        if o.data && (new_highest || first) {
            self.last_ts = Some(o.ts);
            self.last_arrival = now;
            self.rtt = o.rtt;
            self.t_rto = o.t_rto;
            self.round = o.round;
            if payload.0 > 0 {
                self.psize = payload.0 as f64;
            }
        }
        self.stats.lost_or_marked = self.hist.lost_or_marked();
        self.stats.loss_events = self.hist.events();
        if det.first_event {
            let size = self.first_interval(now);
            self.hist.seed_first_interval(size);
        }
        if !o.data {
            if det.new_events > 0 && !first {
                self.report_due = true;
            }
            return;
        }
        if first {
            // §6.3: report at once; the timer runs from here.
            self.report_due = true;
            return;
        }
        if self.ns2() {
            // ns-2's TFRCSink reports on an urgent packet, on every new loss event, and on the
            // first new packet a round trip after the last report.
            let rtt_passed = new_highest
                && !self.rtt.is_zero()
                && self.last_report.is_none_or(|r| now.saturating_since(r) >= self.rtt);
            if o.urgent || det.new_events > 0 || rtt_passed {
                self.report_due = true;
            }
            return;
        }
        if self.rtt.is_zero() || (self.cfg.feedback_timer && self.timer.is_none()) {
            // §6.3: without an RTT estimate, a report for every packet, until one that carries
            // an estimate (whose report starts the feedback timer).
            self.report_due = true;
            return;
        }
        // §6.1 steps 2-4: report early when p rose, or when the timer last found nothing to say.
        if det.new_events > 0 || self.silent_expiry {
            let p = self.hist.loss_event_rate(now, self.rtt);
            if p > self.p_prev || self.silent_expiry {
                self.report_due = true;
            }
        }
    }

    /// Asks for a report at the next poll (CCID3's window counter rule, RFC 4342 §10.3).
    pub fn request_report(&mut self) {
        if self.last_ts.is_some() {
            self.report_due = true;
        }
    }

    /// Packets at the head not yet resolved into an interval (from the oldest open hole).
    pub fn unresolved(&self) -> u64 {
        self.hist.unresolved()
    }

    /// The current loss interval's first packet and last lost or marked one.
    pub fn current_interval(&self) -> Option<(u64, u64)> {
        self.hist.current()
    }

    /// The loss intervals, newest first (RFC 4342 §8.6's Loss Intervals).
    pub fn intervals(&self) -> Vec<super::IntervalReport> {
        self.hist.intervals()
    }

    /// §6.3.1: the interval that would give X_target at the current RTT. RFC 5348: X_target is
    /// the largest receive rate reported, at least half a packet per RTT. ns-2 (RFC 3448): the
    /// receive rate now, inverted with its sender's t_RTO by a bisection that stops within 5%,
    /// the interval truncated to whole packets.
    fn first_interval(&mut self, now: Time) -> f64 {
        let r = self.rtt.as_secs_f64();
        let s = self.psize.max(1.0);
        if r <= 0.0 {
            return 1.0;
        }
        if self.ns2() {
            let x = self.receive_rate(now);
            let p = ns2_inverse(x, s, r, self.t_rto.as_secs_f64(), self.cfg.b);
            return (1.0 / p).floor().max(1.0);
        }
        if self.cfg.dccp_ns2 {
            // ns-2 2.35 Agent/DCCP/TFRC (tfrc_recv_calcFirstLI): the receive rate now, inverted
            // by its bisection, 1/p rounded up.
            let x = self.receive_rate(now);
            return (1.0 / super::equation::dccp_ns2_loss_rate_for(x, s, r)).ceil().max(1.0);
        }
        let x_target = self.max_x_recv.max(self.receive_rate(now)).max(0.5 * s / r);
        match loss_rate_for(x_target, s, r, 4.0 * r, self.cfg.b) {
            Some(p) => 1.0 / p,
            None => 1.0,
        }
    }

    /// X_recv in application bytes per second: over the time since the last report if that is at
    /// least an RTT, else over the last RTT (§6.2 step 2 allows either); ns-2 falls back to one
    /// packet per second when there is nothing to count.
    fn receive_rate(&mut self, now: Time) -> f64 {
        let r = self.rtt;
        while self.recent.front().is_some_and(|&(t, _)| t + r < now && !r.is_zero()) {
            self.recent.pop_front();
        }
        if let Some(last) = self.last_report {
            let span = now.saturating_since(last);
            if !r.is_zero() && span >= r && !span.is_zero() {
                return self.bytes_since as f64 / span.as_secs_f64();
            }
        }
        if !r.is_zero() {
            let bytes: u64 = self.recent.iter().map(|&(_, b)| b).sum();
            if bytes > 0 {
                return bytes as f64 / r.as_secs_f64();
            }
        }
        if self.ns2() {
            self.psize
        } else {
            0.0
        }
    }

    fn report(&mut self, now: Time) -> TfrcFeedback {
        let first = self.last_report.is_none();
        let x_recv = if first && !self.ns2() { 0.0 } else { self.receive_rate(now) };
        let p = self.hist.loss_event_rate(now, self.rtt);
        self.max_x_recv = self.max_x_recv.max(x_recv);
        self.p_prev = p;
        self.stats.p = p;
        self.stats.feedback_sent += 1;
        self.last_report = Some(now);
        self.pkts_since = 0;
        self.bytes_since = 0;
        self.silent_expiry = false;
        self.report_due = false;
        // §6.2 step 4 (RFC: R_m; ns-2: 1.5 R as a backup to the reports arrivals trigger).
        let k = if self.ns2() { 1.5 } else { 1.0 };
        self.timer =
            (self.cfg.feedback_timer && !self.rtt.is_zero()).then(|| now + Dur((self.rtt.0 as f64 * k) as u64));
        TfrcFeedback {
            flow: self.cfg.flow,
            echo: self.last_ts.unwrap_or(Time::ZERO),
            t_delay: Dur(whole_micros(Time(now.saturating_since(self.last_arrival).0)).0),
            x_recv,
            p,
            loss_events: self.hist.events().min(u32::MAX as u64) as u32,
        }
    }
}

/// ns-2's b_to_p: a bisection from p = 0.5 with steps of 0.25, halved each time, that stops as
/// soon as the equation gives within 5% of `x`, or after 31 steps.
fn ns2_inverse(x: f64, s: f64, r: f64, t_rto: f64, b: f64) -> f64 {
    let (mut p, mut step) = (0.5, 0.25);
    for _ in 0..31 {
        let y = ns2_throughput(s, r, p, t_rto, b);
        if y > 0.95 * x && y < 1.05 * x {
            break;
        }
        if y > x {
            p += step;
        } else {
            p -= step;
        }
        step /= 2.0;
    }
    p.clamp(1e-12, 1.0)
}

/// ns-2's p_to_b: the equation with 3 sqrt(3bp/8) capped at 1 and the rate at 25 MB/s.
pub(super) fn ns2_throughput(s: f64, r: f64, p: f64, t_rto: f64, b: f64) -> f64 {
    const MAXRATE: f64 = 25_000_000.0;
    if p < 0.0 || r < 0.0 {
        return MAXRATE;
    }
    let term = (3.0 * (3.0 * b * p / 8.0).sqrt()).min(1.0);
    let denom = r * (2.0 * b * p / 3.0).sqrt() + term * t_rto * p * (1.0 + 32.0 * p * p);
    if denom < 1e-7 {
        return MAXRATE;
    }
    (s / denom).min(MAXRATE)
}

impl Endpoint for TfrcReceiver {
    type In = TfrcData;
    type Out = TfrcFeedback;
    type Stats = TfrcReceiverStats;

    fn handle(&mut self, now: Time, d: &TfrcData, arrival: Arrival) {
        self.handle_data(now, d, arrival.payload, arrival.ce);
    }

    fn handle_datagram(&mut self, now: Time, bytes: &[u8], arrival: Arrival) -> Result<(), Malformed> {
        let near = self.hist.highest().unwrap_or(0);
        let d = decode_data(bytes, near, now)?;
        self.handle_data(now, &d, arrival.payload, arrival.ce);
        Ok(())
    }

    fn handle_timeout(&mut self, now: Time) {
        let Some(t) = self.timer else { return };
        if now < t {
            return;
        }
        // §6.2: report if data arrived since the last report; else say nothing, and restart.
        if self.pkts_since > 0 {
            self.report_due = true;
        } else {
            self.silent_expiry = true;
            let k = if self.ns2() { 1.5 } else { 1.0 };
            self.timer = Some(now + Dur((self.rtt.0 as f64 * k) as u64));
        }
    }

    fn poll_transmit(&mut self, now: Time) -> Option<Transmit<TfrcFeedback>> {
        if !self.report_due {
            return None;
        }
        let fb = self.report(now);
        Some(Transmit { size: self.cfg.feedback_size, payload: Bytes(0), ect: false, tagged: false, msg: fb })
    }

    fn poll_timeout(&self) -> Option<Time> {
        self.timer
    }

    fn stats(&self) -> TfrcReceiverStats {
        self.stats
    }

    fn encode(&self, t: &Transmit<TfrcFeedback>, out: &mut Vec<u8>) {
        let start = out.len();
        encode_feedback(&t.msg, out);
        out.resize(start + (t.size.0 as usize).max(out.len() - start), 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tfrc::equation::throughput;

    const MS: u64 = 1_000_000;

    fn data(seq: u64, ts_ms: u64, rtt_ms: u64) -> TfrcData {
        TfrcData {
            flow: 0,
            seq,
            ts: Time(ts_ms * MS),
            rtt: Dur(rtt_ms * MS),
            t_rto: Dur(4 * rtt_ms * MS),
            round: 1,
            urgent: false,
        }
    }

    fn rx() -> TfrcReceiver {
        TfrcReceiver::new(TfrcConfig::rfc5348()).unwrap()
    }

    fn take(r: &mut TfrcReceiver, now: Time) -> Option<TfrcFeedback> {
        r.poll_transmit(now).map(|t| t.msg)
    }

    /// §6.3: the first packet is reported at once, with p = 0 and X_recv = 0, and the timer
    /// runs an RTT from then; §6.2: then a report per RTT while data arrives.
    #[test]
    fn the_first_packet_is_reported_at_once_then_once_per_rtt() {
        let mut r = rx();
        r.handle_data(Time(30 * MS), &data(0, 0, 60), Bytes(1000), false);
        let f = take(&mut r, Time(30 * MS)).unwrap();
        assert_eq!((f.x_recv, f.p, f.echo, f.t_delay), (0.0, 0.0, Time(0), Dur(0)));
        assert_eq!(r.poll_timeout(), Some(Time(90 * MS)));
        assert!(take(&mut r, Time(30 * MS)).is_none(), "once");
        // Packets every 10 ms: nothing until the timer.
        for k in 1..6 {
            r.handle_data(Time((30 + 10 * k) * MS), &data(k, 10 * k, 60), Bytes(1000), false);
            assert!(take(&mut r, Time((30 + 10 * k) * MS)).is_none());
        }
        r.handle_timeout(Time(90 * MS));
        let f = take(&mut r, Time(90 * MS)).unwrap();
        // Five packets of 1000 B over the 60 ms since the last report; the last arrived at 80 ms.
        assert!((f.x_recv - 5000.0 / 0.060).abs() < 1e-6, "{}", f.x_recv);
        assert_eq!((f.echo, f.t_delay), (Time(50 * MS), Dur(10 * MS)));
        assert_eq!(r.poll_timeout(), Some(Time(150 * MS)));
        // §6.2: no data since the last report: no report, the timer restarts.
        r.handle_timeout(Time(150 * MS));
        assert!(take(&mut r, Time(150 * MS)).is_none());
        assert_eq!(r.poll_timeout(), Some(Time(210 * MS)));
        // §6.1: data after a silent expiry is reported at once.
        r.handle_data(Time(160 * MS), &data(6, 130, 60), Bytes(1000), false);
        assert!(take(&mut r, Time(160 * MS)).is_some());
    }

    /// §6.1 step 4 and §6.3.1: a new loss event that raises p is reported at once, with the
    /// first interval seeded from X_target (the largest receive rate reported).
    #[test]
    fn a_new_loss_event_is_reported_at_once_with_a_seeded_history() {
        let mut r = rx();
        let mut now = 0;
        for seq in 0..40u64 {
            now = 30 + 10 * seq;
            if seq != 25 {
                r.handle_data(Time(now * MS), &data(seq, 10 * seq, 60), Bytes(1000), false);
            }
            if seq != 28 {
                r.handle_timeout(Time(now * MS));
                take(&mut r, Time(now * MS));
            } else {
                // Packet 28 is the third after the hole: the loss is found and reported now.
                let f = take(&mut r, Time(now * MS)).expect("an early report");
                assert!(f.p > 0.0 && f.loss_events == 1);
                // X_target = 100 kB/s (a packet per 10 ms), R = 60 ms: the seed is 1/p for the p
                // that gives 100 kB/s.
                let p_seed = loss_rate_for(100_000.0, 1000.0, 0.06, 0.24, 1.0).unwrap();
                assert!((f.p * (1.0 / p_seed) - 1.0).abs() < 0.02, "p {} seed 1/{}", f.p, 1.0 / p_seed);
            }
        }
        assert!(now > 0);
    }

    #[test]
    fn ns2s_inverse_stops_within_five_percent() {
        for x in [1e3, 5e4, 2e5, 1e6] {
            let p = ns2_inverse(x, 1000.0, 0.05, 0.3, 1.0);
            let y = ns2_throughput(1000.0, 0.05, p, 0.3, 1.0);
            assert!((y / x - 1.0).abs() < 0.05, "{x}: {y}");
        }
        // The cap on 3 sqrt(3bp/8) matters only above p = 8/27.
        assert_eq!(ns2_throughput(1000.0, 0.1, 0.01, 0.3, 1.0), throughput(1000.0, 0.1, 0.01, 0.3, 1.0));
        assert!(ns2_throughput(1000.0, 0.1, 0.5, 0.3, 1.0) > throughput(1000.0, 0.1, 0.5, 0.3, 1.0));
        assert_eq!(ns2_throughput(1000.0, 0.1, 0.0, 0.3, 1.0), 25e6);
        // The notes' worked example: p = 0.5, R = 0.1 s, t_RTO = 0.3 s, s = 1000 B.
        assert!((ns2_throughput(1000.0, 0.1, 0.5, 0.3, 1.0) - 710.4).abs() < 0.05);
        assert!((throughput(1000.0, 0.1, 0.5, 0.3, 1.0) - 552.0).abs() < 0.05);
    }
}
