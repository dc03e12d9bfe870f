//! The RTP media receiver: records each packet's arrival time and ECN codepoint and reports them
//! to the sender in RFC 8888 feedback at an interval, fixed or (RFC 8298 §4.2.2) following the
//! media rate.
//!
//! Choices left open, stated here:
//! - the first report is due one interval after the first packet arrives; afterwards one each
//!   interval while there is something new, and the timer rests while nothing arrives (a report
//!   of nothing tells the sender nothing RFC 8888 can say); the first packet after a rest makes
//!   the next report due one interval (at the current rate) after it;
//! - under RFC 8298 §4.2.2's media-rate interval, the media rate is the wire bits received over
//!   the last [`MEDIA_RATE_WINDOW`] (or since the first packet, if sooner): over one 20 ms
//!   interval alone a 25 fps source's rate reads as zero half the time, and each zero stretched
//!   the next interval to 400 ms;
//! - a report covers at most [`MAX_REPORTS`] packets so that it fits a 1500-byte datagram;
//!   more waiting go in further reports at the same instant;
//! - a packet's ECN codepoint is CE if a queue marked it, else ECT(0) if the flow is ECN-capable,
//!   else Not-ECT (fairway's packets carry no ECT(1)).

use std::collections::VecDeque;

use fairway_core::{Bytes, Dur, Time};

use super::header::RtpHeader;
use super::rfc8888::{ntp_middle, Ecn, Feedback, Recorder};
use super::sender::RtpPacket;
use crate::endpoint::{Arrival, Endpoint, Malformed, Transmit};

/// Metric blocks per report: (1500 - 28 of IP and UDP - 12 fixed - 8 of stream header) / 2,
/// rounded down to an even count.
pub const MAX_REPORTS: usize = 726;

/// The span of arrivals the media-rate interval's rate is measured over (a choice: several
/// frames of any usual frame rate, short against the 10 s of rate changes RMCAT tests for).
pub const MEDIA_RATE_WINDOW: Dur = Dur(1_000_000_000);

/// When the receiver reports.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FeedbackInterval {
    Fixed(Dur),
    /// RFC 8298 §4.2.2: 1 / min(50, max(2.5, rate / 10000)) s, the rate being what arrived
    /// (wire bits per second) over the last interval.
    MediaRate,
}

impl FeedbackInterval {
    /// The interval when `rate_bps` arrives.
    pub fn at(self, rate_bps: f64) -> Dur {
        match self {
            FeedbackInterval::Fixed(d) => d,
            FeedbackInterval::MediaRate => Dur::from_secs_f64(1.0 / (rate_bps / 10_000.0).clamp(2.5, 50.0)),
        }
    }
}

/// How an RTP receiver is set up.
#[derive(Debug, Clone, PartialEq)]
pub struct RtpReceiverConfig {
    /// The media stream it reports on.
    pub ssrc: u32,
    /// Its own SSRC, the report's sender.
    pub own_ssrc: u32,
    pub interval: FeedbackInterval,
    /// The flow is ECN-capable: unmarked packets arrived ECT(0).
    pub ecn: bool,
}

/// What an RTP receiver saw.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RtpReceiverStats {
    pub packets_received: u64,
    pub bytes_received: u64,
    pub media_bytes_received: u64,
    pub ce_marked: u64,
    /// Packets of another stream.
    pub ignored: u64,
    pub feedback_sent: u64,
    pub feedback_bytes: u64,
    /// Frames whose last packet (marker) arrived.
    pub frames_completed: u64,
}

/// The receiving end of an RTP media flow.
pub struct RtpReceiver {
    cfg: RtpReceiverConfig,
    rec: Recorder,
    next_report: Option<Time>,
    pending: Vec<Feedback>,
    /// Arrivals (time, wire bytes) of the last [`MEDIA_RATE_WINDOW`], their total, and the
    /// first arrival ever, for the media-rate interval.
    arrivals: VecDeque<(Time, u64)>,
    window_bytes: u64,
    first_arrival: Option<Time>,
    stats: RtpReceiverStats,
}

impl RtpReceiver {
    pub fn new(cfg: RtpReceiverConfig) -> Result<RtpReceiver, String> {
        if let FeedbackInterval::Fixed(d) = cfg.interval {
            if d.is_zero() {
                return Err("the feedback interval must be longer than zero".into());
            }
        }
        Ok(RtpReceiver {
            rec: Recorder::new(cfg.ssrc),
            cfg,
            next_report: None,
            pending: vec![],
            arrivals: VecDeque::new(),
            window_bytes: 0,
            first_arrival: None,
            stats: RtpReceiverStats::default(),
        })
    }

    fn on_packet(&mut self, now: Time, h: &RtpHeader, size: Bytes, payload: Bytes, ce: bool) {
        if h.ssrc != self.cfg.ssrc {
            self.stats.ignored += 1;
            return;
        }
        let ecn = if ce {
            self.stats.ce_marked += 1;
            Ecn::Ce
        } else if self.cfg.ecn {
            Ecn::Ect0
        } else {
            Ecn::NotEct
        };
        self.rec.record(h.seq, now, ecn);
        self.stats.packets_received += 1;
        self.stats.bytes_received += size.0;
        self.stats.media_bytes_received += payload.0;
        self.stats.frames_completed += h.marker as u64;
        if let FeedbackInterval::MediaRate = self.cfg.interval {
            self.arrivals.push_back((now, size.0));
            self.window_bytes += size.0;
        }
        let first = *self.first_arrival.get_or_insert(now);
        if self.next_report.is_none() {
            // The first report: one interval at no rate (nothing measured yet); after a rest,
            // one interval at the rate of the last MEDIA_RATE_WINDOW.
            let rate = if first == now { 0.0 } else { self.media_rate(now) };
            self.next_report = Some(now + self.cfg.interval.at(rate));
        }
    }

    /// Wire bits per second received over the last [`MEDIA_RATE_WINDOW`] (since the first
    /// arrival, if that is sooner).
    fn media_rate(&mut self, now: Time) -> f64 {
        while let Some(&(t, b)) = self.arrivals.front() {
            if now.saturating_since(t) > MEDIA_RATE_WINDOW {
                self.arrivals.pop_front();
                self.window_bytes -= b;
            } else {
                break;
            }
        }
        let since = self.first_arrival.map_or(Dur::ZERO, |f| now.saturating_since(f));
        let span = since.min(MEDIA_RATE_WINDOW).as_secs_f64();
        if span > 0.0 {
            self.window_bytes as f64 * 8.0 / span
        } else {
            0.0
        }
    }

    fn report(&mut self, now: Time) {
        let mut any = false;
        while let Some(s) = self.rec.report(now, MAX_REPORTS) {
            let fb = Feedback { sender_ssrc: self.cfg.own_ssrc, streams: vec![s], report_timestamp: ntp_middle(now) };
            self.pending.push(fb);
            any = true;
        }
        let rate = self.media_rate(now);
        self.next_report = any.then(|| now + self.cfg.interval.at(rate));
    }
}

impl Endpoint for RtpReceiver {
    type In = RtpPacket;
    type Out = Feedback;
    type Stats = RtpReceiverStats;

    fn handle(&mut self, now: Time, msg: &RtpPacket, arrival: Arrival) {
        self.on_packet(now, &msg.header, arrival.size, arrival.payload, arrival.ce);
    }

    fn handle_datagram(&mut self, now: Time, bytes: &[u8], arrival: Arrival) -> Result<(), Malformed> {
        let (h, payload) = RtpHeader::decode(bytes)?;
        self.on_packet(now, &h, Bytes(bytes.len() as u64), Bytes(payload.len() as u64), arrival.ce);
        Ok(())
    }

    fn handle_timeout(&mut self, now: Time) {
        if self.next_report.is_some_and(|t| t <= now) {
            self.report(now);
        }
    }

    fn poll_transmit(&mut self, _now: Time) -> Option<Transmit<Feedback>> {
        if self.pending.is_empty() {
            return None;
        }
        let fb = self.pending.remove(0);
        let size = Bytes(fb.len() as u64);
        self.stats.feedback_sent += 1;
        self.stats.feedback_bytes += size.0;
        Some(Transmit { size, payload: Bytes(0), ect: false, tagged: false, msg: fb })
    }

    fn poll_timeout(&self) -> Option<Time> {
        self.next_report
    }

    fn stats(&self) -> RtpReceiverStats {
        self.stats
    }

    fn encode(&self, t: &Transmit<Feedback>, out: &mut Vec<u8>) {
        t.msg.encode(out);
    }
}
