//! CCID2, TCP-like congestion control (RFC 4341), at the sender: a window of packets, the pipe
//! of packets in flight, losses inferred from the receiver's Ack Vectors, one reduction per
//! congestion event, timeouts as TCP's, and the Ack Ratio that keeps the acknowledgements
//! themselves congestion-controlled. No retransmission: a lost packet is only counted.
//!
//! How the window grows and is cut is a TCP congestion control's (tcp/cc, by default
//! tcp/cc/tcplike.rs, RFC 4341 §5's window counted in packets acknowledged): this file tells it
//! what each acknowledgement credits and when a congestion event or a timeout happens, and keeps
//! what is CCID2's own: the pipe and the record of what was sent, loss inference from Ack
//! Vectors, the Ack Ratio and the slow-start limit it sets, the floor under ssthresh and the
//! timer.

use std::collections::VecDeque;

use fairway_core::{Dur, Time};

use super::packet::{AckState, AckVector};
use super::Flavor;
use crate::endpoint::AgentState;
use crate::tcp::cc::{self, Acked, AtCongestion, Congestion, CongestionControl, Window};
use crate::tcp::TcpConfig;

/// CCID2's settings.
#[derive(Debug, Clone, PartialEq)]
pub struct Ccid2Config {
    /// RFC 4341 as written, or what ns-2 2.35's Agent/DCCP/TCPlike does differently: slow start
    /// adds min(newly acknowledged, Ack Ratio) per acknowledgement; ECN-marked packets count
    /// toward growth; a timeout sets ssthresh to at least 1 and the Ack Ratio to 1.
    pub flavor: Flavor,
    /// The first window, packets (RFC 4341 §5: at most four, by RFC 3390's rule).
    pub initial_cwnd: u32,
    /// The first ssthresh, packets ("arbitrarily high").
    pub initial_ssthresh: u32,
    /// Packets acknowledged after a hole that make it a loss (§5: three).
    pub numdupack: u32,
    /// The retransmission timer: first value, floor and ceiling (RFC 6298 §2; RFC 4341 §5
    /// drops the 1 s floor as a requirement).
    pub initial_rto: Dur,
    pub min_rto: Dur,
    pub max_rto: Dur,
    /// The Ack Ratio at the start (RFC 4340 §11.3: 2).
    pub ack_ratio: u32,
    /// Change the Ack Ratio as RFC 4341 §6.1.2 says; off, it stays where it started.
    pub ack_ratio_control: bool,
    /// The window's congestion control, by its name in `tcp::cc::ALGORITHMS` ("tcplike": RFC
    /// 4341 §5's), and its flavour ("": its default).
    pub cc: &'static str,
    pub cc_flavor: &'static str,
}

impl Default for Ccid2Config {
    fn default() -> Self {
        Ccid2Config {
            flavor: Flavor::Rfc4341,
            initial_cwnd: 3,
            initial_ssthresh: u32::MAX,
            numdupack: 3,
            initial_rto: Dur::from_secs(1),
            min_rto: Dur::from_secs(1),
            max_rto: Dur::from_secs(64),
            ack_ratio: 2,
            ack_ratio_control: true,
            cc: "tcplike",
            cc_flavor: "",
        }
    }
}

impl Ccid2Config {
    /// RFC 3390's initial window for packets of `s` bytes: min(4, max(2, 4380 / s)).
    pub fn rfc3390_window(s: u64) -> u32 {
        (4380 / s.max(1)).clamp(2, 4) as u32
    }

    /// ns-2 2.35's Agent/DCCP/TCPlike defaults (ns-default.tcl): a first window of 3 packets and
    /// ssthresh 65535; an RTO of 3 s at first, at least 1 s, with no ceiling.
    pub fn ns2() -> Ccid2Config {
        Ccid2Config {
            flavor: Flavor::Ns2,
            initial_cwnd: 3,
            initial_ssthresh: 65535,
            initial_rto: Dur::from_secs(3),
            min_rto: Dur::from_secs(1),
            max_rto: Dur::from_secs(1_000_000),
            ..Ccid2Config::default()
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fate {
    InFlight,
    Acked,
    Lost,
}

#[derive(Debug, Clone, Copy)]
struct Sent {
    at: Time,
    data: bool,
    fate: Fate,
}

/// CCID2's counters and state.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Ccid2Stats {
    pub cwnd: u32,
    pub ssthresh: u32,
    pub pipe: u32,
    pub ack_ratio: u32,
    pub srtt: Option<Dur>,
    pub rto: Dur,
    /// Congestion events (halvings) and the lost and marked data packets behind them.
    pub congestion_events: u64,
    pub lost: u64,
    pub marked: u64,
    pub timeouts: u64,
    /// The receiver's packets seen missing (counted as lost acknowledgements, §6.1.1).
    pub acks_lost: u64,
}

/// The sender's half of CCID2.
#[derive(Debug, Clone)]
pub struct Ccid2 {
    cfg: Ccid2Config,
    /// cwnd and ssthresh, packets, which `cc` changes.
    w: Window,
    cc: Box<dyn CongestionControl>,
    pipe: u32,
    /// The sender's packets from `base` on, by sequence number.
    sent: VecDeque<Sent>,
    base: u64,
    /// Newly acknowledged packets in slow start not yet credited to the window (§5: one per
    /// two).
    ss_count: u32,
    /// Losses and marks of packets up to here belong to the congestion event already answered.
    recover_to: Option<u64>,
    srtt: Option<f64>,
    rttvar: f64,
    rto: f64,
    /// The RTT sample the acknowledgement being processed gave, and the smallest so far.
    sample: Option<Dur>,
    min_rtt: Option<Dur>,
    /// The packet timed for the RTT (one per window, §5).
    timed: Option<u64>,
    rto_at: Option<Time>,
    // Ack Ratio control (§6.1.2).
    ack_ratio: u32,
    ack_ratio_pending: bool,
    peer_gsr: Option<u64>,
    /// Data packets acknowledged in the window of data under way.
    acked_in_window: u32,
    ack_loss_in_window: bool,
    clean_windows: u32,
    stats: Ccid2Stats,
}

impl Ccid2 {
    pub fn new(cfg: Ccid2Config) -> Ccid2 {
        let rto = cfg.initial_rto.as_secs_f64();
        Ccid2 {
            w: Window { cwnd: f64::from(cfg.initial_cwnd.max(1)), ssthresh: f64::from(cfg.initial_ssthresh) },
            cc: Ccid2::congestion_control(&cfg),
            ack_ratio: cfg.ack_ratio.max(1),
            cfg,
            pipe: 0,
            sent: VecDeque::new(),
            base: 0,
            ss_count: 0,
            recover_to: None,
            srtt: None,
            rttvar: 0.0,
            rto,
            sample: None,
            min_rtt: None,
            timed: None,
            rto_at: None,
            ack_ratio_pending: false,
            peer_gsr: None,
            acked_in_window: 0,
            ack_loss_in_window: false,
            clean_windows: 0,
            stats: Ccid2Stats::default(),
        }
    }

    /// The congestion control `cfg.cc` names, built with CCID2's window settings (RFC 4341's
    /// for a name not registered).
    fn congestion_control(cfg: &Ccid2Config) -> Box<dyn CongestionControl> {
        let tcp = TcpConfig {
            window_init: cfg.initial_cwnd,
            initial_ssthresh: Some(cfg.initial_ssthresh),
            dupack_thresh: cfg.numdupack,
            min_rto: cfg.min_rto,
            max_rto: cfg.max_rto,
            initial_rto: cfg.initial_rto,
            cc: cfg.cc,
            cc_flavor: cfg.cc_flavor,
            ..TcpConfig::default()
        };
        match cc::algorithm(cfg.cc) {
            Some(a) => (a.build)(&tcp),
            None => Box::new(cc::tcplike::TcpLike::new(&tcp)),
        }
    }

    /// A data packet may go (§5: pipe < cwnd, in whole packets).
    pub fn can_send(&self) -> bool {
        self.pipe < self.cwnd()
    }

    /// The window, threshold and timer's terms, for traces.
    pub fn state(&self) -> AgentState {
        AgentState {
            cwnd_pkts: Some(self.w.cwnd),
            ssthresh_pkts: Some(self.w.ssthresh),
            srtt: self.srtt.map(Dur::from_secs_f64),
            rttvar: self.srtt.map(|_| Dur::from_secs_f64(self.rttvar)),
            rto: Some(Dur::from_secs_f64(self.rto)),
            ..AgentState::default()
        }
    }

    /// The window in whole packets (a window algorithm's fraction does not let a packet go).
    pub fn cwnd(&self) -> u32 {
        self.w.cwnd as u32
    }

    pub fn ack_ratio(&self) -> u32 {
        self.ack_ratio
    }

    /// The Ack Ratio to announce with Change L (§6.1.2, RFC 4340 §11.3), until confirmed.
    pub fn ack_ratio_to_announce(&self) -> Option<u32> {
        self.ack_ratio_pending.then_some(self.ack_ratio)
    }

    /// The receiver confirmed Ack Ratio `r`.
    pub fn ack_ratio_confirmed(&mut self, r: u32) {
        if r == self.ack_ratio {
            self.ack_ratio_pending = false;
        }
    }

    /// When the retransmission timer expires, while packets are in flight.
    pub fn timeout(&self) -> Option<Time> {
        self.rto_at
    }

    /// The sender sent packet `seq` (in order: each one after the last), carrying data or not.
    pub fn on_send(&mut self, now: Time, seq: u64, data: bool) {
        if self.sent.is_empty() {
            self.base = seq;
        }
        // A gap (numbers the connection used for nothing) is filled as already acknowledged.
        while self.base + (self.sent.len() as u64) < seq {
            self.sent.push_back(Sent { at: now, data: false, fate: Fate::Acked });
        }
        self.sent.push_back(Sent { at: now, data, fate: Fate::InFlight });
        if data {
            self.pipe += 1;
            if self.timed.is_none() {
                self.timed = Some(seq);
            }
            if self.rto_at.is_none() {
                self.rto_at = Some(now + self.rto_dur());
            }
        }
    }

    fn rto_dur(&self) -> Dur {
        Dur::from_secs_f64(self.rto)
    }

    fn last_sent(&self) -> Option<u64> {
        (!self.sent.is_empty()).then(|| self.base + self.sent.len() as u64 - 1)
    }

    /// A packet of the receiver's arrived: its sequence number, and whether it is a non-data
    /// packet that was ECN-marked. Gaps in the receiver's numbers are its lost acknowledgements
    /// (§6.1.1, which says to take every lost packet of the receiver's as a non-data one).
    pub fn on_peer_packet(&mut self, seq: u64, marked_nondata: bool) {
        let lost = match self.peer_gsr {
            Some(g) if seq > g + 1 => seq - g - 1,
            _ => 0,
        };
        if self.peer_gsr.is_none_or(|g| seq > g) {
            self.peer_gsr = Some(seq);
        }
        self.stats.acks_lost += lost;
        if lost > 0 || marked_nondata {
            self.ack_loss_in_window = true;
        }
    }

    /// An acknowledgement: its Ack Number and Ack Vector (without one, the Ack Number alone
    /// says that packet arrived).
    pub fn on_ack(&mut self, now: Time, ack: u64, vector: Option<&AckVector>) {
        let Some(last) = self.last_sent() else { return };
        if ack > last || ack < self.base {
            return;
        }
        let mut newly = 0u32;
        let mut acked_data = 0u32;
        let mut acked_new = false;
        let mut marked = false;
        self.sample = None;
        let mut apply = |this: &mut Ccid2, seq: u64, state: AckState| {
            let rec = &mut this.sent[(seq - this.base) as usize];
            if state == AckState::NotReceived || rec.fate == Fate::Acked {
                return;
            }
            let was = rec.fate;
            rec.fate = Fate::Acked;
            let data = rec.data;
            let at = rec.at;
            if was == Fate::InFlight && data {
                this.pipe -= 1;
                acked_new = true;
                acked_data += 1;
                if state == AckState::Received || this.cfg.flavor == Flavor::Ns2 {
                    newly += 1;
                }
            }
            if this.timed == Some(seq) {
                this.timed = None;
                this.rtt_sample(now - at);
            }
            if state == AckState::ReceivedMarked && data {
                // §5: an ECN mark is a congestion event, as a loss is.
                this.stats.marked += 1;
                marked |= this.new_event(seq);
            }
        };
        match vector {
            Some(v) => {
                for (seq, state) in v.iter(ack) {
                    if seq < self.base {
                        break;
                    }
                    apply(self, seq, state);
                }
            }
            None => apply(self, ack, AckState::Received),
        }
        let lost = self.detect_losses();
        let event = match (lost, marked) {
            (true, _) => Some(Congestion::Loss),
            (false, true) => Some(Congestion::Ecn),
            (false, false) => None,
        };
        self.ack_ratio_window(acked_data);
        match (self.cfg.flavor, event) {
            // RFC 4341 grows on acknowledgements that bring no congestion event.
            (Flavor::Rfc4341, Some(e)) => self.congestion(now, e),
            (Flavor::Rfc4341, None) => self.grow(now, newly),
            // ns-2 grows on every one, then halves the grown window.
            (Flavor::Ns2, _) => {
                self.grow(now, newly);
                if let Some(e) = event {
                    self.congestion(now, e);
                }
            }
        }
        if acked_new {
            // RFC 6298 §5.3: restart the timer on an acknowledgement of new data.
            self.rto_at = (self.pipe > 0).then(|| now + self.rto_dur());
        }
        if self.pipe == 0 {
            self.rto_at = None;
        }
        while self.sent.front().is_some_and(|s| s.fate != Fate::InFlight) && self.sent.len() > 1 {
            self.sent.pop_front();
            self.base += 1;
        }
    }

    /// §5: a packet is lost once NUMDUPACK packets sent after it are acknowledged.
    fn detect_losses(&mut self) -> bool {
        let mut later = 0u32;
        let mut event = false;
        for i in (0..self.sent.len()).rev() {
            match self.sent[i].fate {
                Fate::Acked => later += 1,
                Fate::InFlight if later >= self.cfg.numdupack => {
                    self.sent[i].fate = Fate::Lost;
                    let seq = self.base + i as u64;
                    if self.timed == Some(seq) {
                        self.timed = None;
                    }
                    if self.sent[i].data {
                        self.pipe -= 1;
                        self.stats.lost += 1;
                        event |= self.new_event(seq);
                    }
                }
                _ => {}
            }
        }
        event
    }

    /// A loss or mark of packet `seq` is a new congestion event unless an earlier one already
    /// covers it (§5: the packet was sent before that one was detected).
    fn new_event(&self, seq: u64) -> bool {
        self.recover_to.is_none_or(|r| seq > r)
    }

    /// A congestion event: the window's algorithm cuts (§5: cwnd halved, rounding down, at
    /// least 1, and ssthresh set to it), with ssthresh at least 2 (ns-2 at least 1). Losses of
    /// what was sent until now belong to it.
    fn congestion(&mut self, now: Time, event: Congestion) {
        let at = AtCongestion {
            window: self.w.cwnd,
            in_flight: u64::from(self.pipe),
            after_timeout: false,
            snd_nxt: (self.base + self.sent.len() as u64) as i64,
            conserve: None,
        };
        self.cc.on_congestion(now, event, &at, &mut self.w);
        self.w.ssthresh = self.w.ssthresh.max(self.ssthresh_floor());
        self.recover_to = self.last_sent();
        self.ss_count = 0;
        self.stats.congestion_events += 1;
        self.clamp_ack_ratio();
    }

    /// The least ssthresh after a cut: RFC 4341 §5 keeps TCP's 2 (RFC 5681 eq. (4)); ns-2 only
    /// keeps cwnd at 1 or more.
    fn ssthresh_floor(&self) -> f64 {
        match self.cfg.flavor {
            Flavor::Rfc4341 => 2.0,
            Flavor::Ns2 => 1.0,
        }
    }

    /// `newly` data packets acknowledged: what they credit the window's algorithm with. §5: in
    /// slow start one packet per two acknowledged unmarked data packets, at most Ack Ratio / 2
    /// per acknowledgement; in congestion avoidance every one (the algorithm adds one packet
    /// per window of them).
    fn grow(&mut self, now: Time, newly: u32) {
        if newly == 0 {
            return;
        }
        let credited = if self.w.in_slow_start() {
            match self.cfg.flavor {
                Flavor::Rfc4341 => {
                    self.ss_count += newly;
                    let inc = (self.ss_count / 2).min((self.ack_ratio / 2).max(1));
                    self.ss_count = (self.ss_count - 2 * inc).min(1);
                    inc
                }
                // ns-2: one per packet, at most Ack Ratio per acknowledgement.
                Flavor::Ns2 => newly.min(self.ack_ratio),
            }
        } else {
            newly
        };
        if credited == 0 {
            return;
        }
        let acked = Acked {
            packets: u64::from(credited),
            rtt: self.sample,
            min_rtt: self.min_rtt,
            srtt: self.srtt.map(Dur::from_secs_f64),
            in_flight: u64::from(self.pipe),
            // DCCP acknowledges no cumulative point (RFC 4340 §11.4): the oldest packet still in
            // the sent record stands for it, and the next to send for SND.NXT (what a
            // slow-start exit's round boundary, RFC 9406 §4.2, reads).
            highest_ack: self.base as i64 - 1,
            snd_nxt: (self.base + self.sent.len() as u64) as i64,
        };
        self.cc.on_ack(now, &acked, &mut self.w);
    }

    /// RFC 6298 §2 with RFC 4341 §5's floor: alpha 1/8, beta 1/4, K = 4.
    fn rtt_sample(&mut self, sample: Dur) {
        self.sample = Some(sample);
        self.min_rtt = Some(self.min_rtt.map_or(sample, |m| m.min(sample)));
        let r = sample.as_secs_f64();
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2.0;
            }
            Some(s) => {
                self.rttvar = 0.75 * self.rttvar + 0.25 * (s - r).abs();
                self.srtt = Some(0.875 * s + 0.125 * r);
            }
        }
        let rto = self.srtt.unwrap_or(r) + 4.0 * self.rttvar;
        self.rto = rto.clamp(self.cfg.min_rto.as_secs_f64(), self.cfg.max_rto.as_secs_f64());
    }

    /// The retransmission timer expired (§5: pipe = 0; ssthresh = cwnd / 2, cwnd = 1; the timer
    /// backs off as TCP's).
    pub fn on_timeout(&mut self, now: Time) {
        match self.rto_at {
            Some(t) if t <= now => {}
            _ => return,
        }
        self.stats.timeouts += 1;
        // §5: ssthresh = cwnd / 2 (the algorithm's cut, at least 2; ns-2 at least 1), cwnd = 1.
        let at = AtCongestion {
            window: self.w.cwnd,
            in_flight: u64::from(self.pipe),
            after_timeout: false,
            snd_nxt: (self.base + self.sent.len() as u64) as i64,
            conserve: None,
        };
        self.cc.on_congestion(now, Congestion::Timeout, &at, &mut self.w);
        self.w.ssthresh = self.w.ssthresh.max(self.ssthresh_floor());
        self.w.cwnd = 1.0;
        for s in self.sent.iter_mut() {
            if s.fate == Fate::InFlight {
                s.fate = Fate::Lost;
            }
        }
        self.pipe = 0;
        if self.cfg.flavor == Flavor::Ns2 && self.cfg.ack_ratio_control {
            // ns-2 sets the Ack Ratio to 1 at a timeout (then keeps it within §6.1.2's bounds).
            self.set_ack_ratio(1);
        }
        self.ss_count = 0;
        self.recover_to = self.last_sent();
        self.timed = None;
        // RFC 6298 §5.5: back off.
        self.rto = (self.rto * 2.0).min(self.cfg.max_rto.as_secs_f64());
        self.rto_at = None;
        self.clamp_ack_ratio();
    }

    /// §6.1.2: per window of data (cwnd data packets acknowledged), double the Ack Ratio after
    /// lost or marked acknowledgements; after cwnd / (R^2 - R) clean windows, lower it by one.
    fn ack_ratio_window(&mut self, acked: u32) {
        if !self.cfg.ack_ratio_control {
            return;
        }
        self.acked_in_window += acked;
        let cwnd = self.cwnd();
        if self.acked_in_window < cwnd {
            return;
        }
        self.acked_in_window = 0;
        let r = self.ack_ratio;
        if self.ack_loss_in_window {
            self.set_ack_ratio(r.saturating_mul(2));
            self.clean_windows = 0;
        } else if r > 1 {
            self.clean_windows += 1;
            let needed = (f64::from(cwnd) / f64::from(r * r - r)).max(1.0);
            if f64::from(self.clean_windows) >= needed {
                self.set_ack_ratio(r - 1);
                self.clean_windows = 0;
            }
        }
        self.ack_loss_in_window = false;
    }

    /// A new Ack Ratio, within §6.1.2's constraints: announced only if that differs from the
    /// one in force (a decrease to 1 that the constraints put back at 2 is no change).
    fn set_ack_ratio(&mut self, r: u32) {
        let (before, pending) = (self.ack_ratio, self.ack_ratio_pending);
        self.ack_ratio = r;
        self.clamp_ack_ratio();
        self.ack_ratio_pending = pending || self.ack_ratio != before;
    }

    /// §6.1.2's constraints: at most cwnd / 2 rounded up (2 is always allowed), at least 2
    /// when cwnd >= 4, at least 1.
    fn clamp_ack_ratio(&mut self) {
        if !self.cfg.ack_ratio_control {
            return;
        }
        let before = self.ack_ratio;
        let cwnd = self.cwnd();
        let max = cwnd.div_ceil(2).max(2);
        let min = if cwnd >= 4 { 2 } else { 1 };
        self.ack_ratio = self.ack_ratio.clamp(min, max);
        if self.ack_ratio != before {
            self.ack_ratio_pending = true;
        }
    }

    pub fn stats(&self) -> Ccid2Stats {
        Ccid2Stats {
            cwnd: self.cwnd(),
            ssthresh: self.w.ssthresh as u32,
            pipe: self.pipe,
            ack_ratio: self.ack_ratio,
            srtt: self.srtt.map(Dur::from_secs_f64),
            rto: self.rto_dur(),
            ..self.stats
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Time {
        Time::ZERO + Dur::from_millis(n)
    }

    /// A vector saying every packet from `from` to `to` arrived, except those in `holes`.
    fn vector(from: u64, to: u64, holes: &[u64]) -> AckVector {
        let mut r = super::super::ackvec::AckRecord::default();
        for s in from..=to {
            if !holes.contains(&s) {
                r.record(s, false, false);
            }
        }
        r.vector()
    }

    fn sender(cwnd: u32) -> Ccid2 {
        Ccid2::new(Ccid2Config { initial_cwnd: cwnd, ack_ratio_control: false, ..Ccid2Config::default() })
    }

    #[test]
    fn pipe_bounds_what_is_sent() {
        let mut c = sender(3);
        for s in 0..3 {
            assert!(c.can_send());
            c.on_send(ms(0), s, true);
        }
        assert!(!c.can_send(), "pipe 3 = cwnd 3 (§5: MUST NOT send)");
        c.on_ack(ms(10), 0, Some(&vector(0, 0, &[])));
        assert!(c.can_send());
        assert_eq!(c.stats().pipe, 2);
    }

    #[test]
    fn slow_start_adds_one_per_two_acknowledged_and_ack_ratio_caps_it() {
        let mut c = sender(4);
        for s in 0..4 {
            c.on_send(ms(0), s, true);
        }
        // One ack for all four with Ack Ratio 2: at most 2 / 2 = 1 packet of growth.
        c.on_ack(ms(10), 3, Some(&vector(0, 3, &[])));
        assert_eq!(c.cwnd(), 5);
        let mut c = sender(4);
        for s in 0..4 {
            c.on_send(ms(0), s, true);
        }
        c.on_ack(ms(10), 1, Some(&vector(0, 1, &[])));
        c.on_ack(ms(11), 3, Some(&vector(0, 3, &[])));
        assert_eq!(c.cwnd(), 6, "two acks of two packets: one each");
    }

    #[test]
    fn ns2_slow_start_adds_one_per_packet_up_to_the_ack_ratio_and_counts_marks() {
        let mut c = Ccid2::new(Ccid2Config { ack_ratio_control: false, ..Ccid2Config::ns2() });
        assert_eq!((c.cwnd(), c.stats().ssthresh, c.timeout()), (3, 65535, None));
        for s in 0..3 {
            c.on_send(ms(0), s, true);
        }
        assert_eq!(c.timeout(), Some(ms(3000)), "ns-2's first RTO, 3 s");
        // Three packets in one acknowledgement with Ack Ratio 2: +2 (RFC 4341 would give +1).
        c.on_ack(ms(10), 2, Some(&vector(0, 2, &[])));
        assert_eq!(c.cwnd(), 5);
        for s in 3..5 {
            c.on_send(ms(10), s, true);
        }
        // A mark: the two packets grow the window, then the event halves it (7 / 2).
        let v = AckVector { nonce_echo: false, cells: vec![0x40, 0x00] };
        c.on_ack(ms(20), 4, Some(&v));
        assert_eq!((c.cwnd(), c.stats().ssthresh, c.stats().marked), (3, 3, 1));
    }

    #[test]
    fn congestion_avoidance_adds_one_per_window() {
        let mut c = Ccid2::new(Ccid2Config {
            initial_cwnd: 4,
            initial_ssthresh: 4,
            ack_ratio_control: false,
            ..Default::default()
        });
        for s in 0..4 {
            c.on_send(ms(0), s, true);
        }
        c.on_ack(ms(10), 2, Some(&vector(0, 2, &[])));
        assert_eq!(c.cwnd(), 4);
        c.on_ack(ms(11), 3, Some(&vector(0, 3, &[])));
        assert_eq!(c.cwnd(), 5);
    }

    #[test]
    fn a_hole_with_three_later_arrivals_is_one_loss_and_one_halving() {
        let mut c = Ccid2::new(Ccid2Config {
            initial_cwnd: 10,
            initial_ssthresh: 10,
            ack_ratio_control: false,
            ..Default::default()
        });
        for s in 0..10 {
            c.on_send(ms(0), s, true);
        }
        // 2 and 4 missing: after 3 later arrivals each is lost, in one event (§5).
        c.on_ack(ms(10), 5, Some(&vector(0, 5, &[2, 4])));
        assert_eq!(c.stats().lost, 0, "only 5 and 3 after the hole at 2, 5 after 4");
        c.on_ack(ms(11), 7, Some(&vector(0, 7, &[2, 4])));
        let st = c.stats();
        assert_eq!((st.lost, st.congestion_events), (2, 1));
        assert_eq!((st.cwnd, st.ssthresh), (5, 5));
        assert_eq!(st.pipe, 2, "8 and 9 still in flight");
        // A late report that 2 did arrive does not touch pipe again (§5).
        c.on_ack(ms(12), 7, Some(&vector(0, 7, &[4])));
        assert_eq!(c.stats().pipe, 2);
        // A packet sent after the event was detected starts a new one when lost.
        for s in 10..14 {
            c.on_send(ms(12), s, true);
        }
        c.on_ack(ms(20), 13, Some(&vector(0, 13, &[4, 10])));
        assert_eq!(c.stats().congestion_events, 2);
        assert_eq!(c.cwnd(), 2);
    }

    #[test]
    fn the_window_grows_and_is_cut_by_the_congestion_control_it_names() {
        // Ten packets in congestion avoidance, the first lost: RFC 4341 §5's window halves 10
        // to 5; CUBIC's (RFC 9438 §4.6) cuts it to 7; ns-2's TCP window halves it too.
        for (cc, cwnd) in [("tcplike", 5), ("cubic", 7), ("reno", 5)] {
            let mut c = Ccid2::new(Ccid2Config {
                initial_cwnd: 10,
                initial_ssthresh: 10,
                ack_ratio_control: false,
                cc,
                ..Default::default()
            });
            for s in 0..10 {
                c.on_send(ms(0), s, true);
            }
            c.on_ack(ms(10), 3, Some(&vector(0, 3, &[0])));
            assert_eq!((c.stats().congestion_events, c.cwnd()), (1, cwnd), "{cc}");
        }
    }

    #[test]
    fn the_floor_under_ssthresh_is_the_flavours() {
        // A halving of a one-packet window: RFC 4341 keeps ssthresh at 2, ns-2 lets it be 1.
        for (cfg, ssthresh) in [(Ccid2Config::default(), 2), (Ccid2Config::ns2(), 1)] {
            let mut c =
                Ccid2::new(Ccid2Config { initial_cwnd: 1, initial_ssthresh: 1, ack_ratio_control: false, ..cfg });
            c.on_send(ms(0), 0, true);
            let at = c.timeout().unwrap();
            c.on_timeout(at);
            for s in 1..5 {
                c.on_send(at, s, true);
            }
            c.on_ack(at + Dur::from_millis(10), 4, Some(&vector(1, 4, &[1])));
            let st = c.stats();
            assert_eq!((st.timeouts, st.congestion_events, st.cwnd, st.ssthresh), (1, 1, 1, ssthresh));
        }
    }

    #[test]
    fn an_ecn_mark_is_a_congestion_event() {
        let mut c = sender(8);
        for s in 0..4 {
            c.on_send(ms(0), s, true);
        }
        let v = AckVector { nonce_echo: false, cells: vec![0x01, 0x40, 0x00] };
        c.on_ack(ms(10), 3, Some(&v));
        let st = c.stats();
        assert_eq!((st.marked, st.congestion_events, st.cwnd, st.pipe), (1, 1, 4, 0));
    }

    #[test]
    fn a_timeout_empties_the_pipe_and_restarts_from_one() {
        let mut c = sender(6);
        for s in 0..6 {
            c.on_send(ms(0), s, true);
        }
        let at = c.timeout().unwrap();
        assert_eq!(at, ms(1000), "RFC 6298's first RTO, 1 s");
        c.on_timeout(Time(at.0 - 1));
        assert_eq!(c.stats().timeouts, 0, "not yet due");
        c.on_timeout(at);
        let st = c.stats();
        assert_eq!((st.cwnd, st.ssthresh, st.pipe, st.timeouts), (1, 3, 0, 1));
        assert_eq!(st.rto, Dur::from_secs(2), "backed off");
        // Late news of the old packets neither lowers pipe nor halves again.
        c.on_send(ms(1000), 6, true);
        c.on_ack(ms(1010), 6, Some(&vector(0, 6, &[])));
        assert_eq!((c.stats().pipe, c.stats().congestion_events), (0, 0));
    }

    #[test]
    fn the_rtt_is_timed_once_per_window_as_rfc_6298_says() {
        let mut c = Ccid2::new(Ccid2Config { min_rto: Dur::ZERO, ack_ratio_control: false, ..Default::default() });
        c.on_send(ms(0), 0, true);
        c.on_send(ms(5), 1, true);
        c.on_ack(ms(100), 1, Some(&vector(0, 1, &[])));
        let st = c.stats();
        assert_eq!(st.srtt, Some(Dur::from_millis(100)), "packet 0 was timed, not 1");
        // RTO = srtt + 4 * (srtt / 2) = 3 srtt.
        assert_eq!(st.rto, Dur::from_millis(300));
    }

    #[test]
    fn lost_acknowledgements_double_the_ack_ratio_and_clean_windows_lower_it() {
        let mut c = Ccid2::new(Ccid2Config { initial_cwnd: 20, initial_ssthresh: 20, ..Default::default() });
        let mut seq = 0;
        let mut send_window = |c: &mut Ccid2, t: u64| {
            let first = seq;
            while c.can_send() {
                c.on_send(ms(t), seq, true);
                seq += 1;
            }
            (first, seq - 1)
        };
        let (a, b) = send_window(&mut c, 0);
        c.on_peer_packet(1, false);
        c.on_peer_packet(3, false); // the receiver's packet 2 went missing
        c.on_ack(ms(10), b, Some(&vector(a, b, &[])));
        assert_eq!(c.ack_ratio(), 4);
        assert_eq!(c.ack_ratio_to_announce(), Some(4));
        c.ack_ratio_confirmed(4);
        assert_eq!(c.ack_ratio_to_announce(), None);
        // Clean windows: cwnd / (R^2 - R) = 21 / 12 and 22 / 12 -> the second window goes from
        // 4 to 3.
        let mut peer = 3;
        for w in 0..2 {
            let (a, b) = send_window(&mut c, 20 + 10 * w);
            peer += 1;
            c.on_peer_packet(peer, false);
            c.on_ack(ms(25 + 10 * w), b, Some(&vector(a, b, &[])));
        }
        assert_eq!(c.ack_ratio(), 3);
    }

    #[test]
    fn a_decrease_the_constraints_undo_is_not_announced() {
        // Ack Ratio 2 and cwnd 4 or more: clean windows lower it to 1, which §6.1.2's floor of 2
        // puts back. Nothing changed, so no Change L goes out.
        let mut c = Ccid2::new(Ccid2Config { initial_cwnd: 4, initial_ssthresh: 4, ..Default::default() });
        assert_eq!(c.ack_ratio(), 2);
        let mut seq = 0;
        for w in 0..8 {
            let first = seq;
            while c.can_send() {
                c.on_send(ms(10 * w), seq, true);
                seq += 1;
            }
            c.on_peer_packet(w + 1, false);
            c.on_ack(ms(10 * w + 5), seq - 1, Some(&vector(first, seq - 1, &[])));
            assert_eq!((c.ack_ratio(), c.ack_ratio_to_announce()), (2, None), "window {w}, cwnd {}", c.cwnd());
        }
        assert!(c.cwnd() >= 8, "the windows grew: the decrease rule had its chances");
    }
}
