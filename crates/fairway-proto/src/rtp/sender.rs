//! The RTP media sender: a media source's frames, cut into RTP packets (RFC 3550 §5.1), wait in
//! the sender's queue (NADA's rate-shaping buffer, SCReAM's RTP queue) and leave paced at the
//! congestion controller's rate, within its window if it keeps one; RFC 8888 reports come back
//! and reach the controller as one [`PacketResult`] per packet. The controller's target rate
//! goes to the encoder before each frame.
//!
//! Choices the documents leave open, stated here:
//! - a frame of B bytes becomes ceil(B / `max_payload`) packets of equal size (the last carries
//!   the remainder of the division and the marker bit, RFC 3551 §4.1); all carry the frame's
//!   capture time as their 90 kHz timestamp (RFC 3551 §5);
//! - the controller's rates are of what goes on the wire, RTP header included; the encoder is
//!   asked for the target less the header's share of a full packet (`max_payload` over
//!   `max_payload` + 20);
//! - the pacer lets a packet go `size * 8 / rate` after the one before (RFC 8298 §4.1.2.6's
//!   t_pace), never earlier than the packet was queued: after an idle spell the first packet
//!   leaves at once;
//! - a report's timestamp (RFC 8888 §3.1, the middle 32 bits of the receiver's NTP time) is
//!   unwrapped to the value nearest the previous report's, the first nearest the sender's clock
//!   2^16 s on ([`RECEIVER_EPOCH`]); only differences of arrival times matter to the
//!   controllers, so the two clocks need not agree (reports more than 9 h apart would be);
//! - a packet a report skips (it lay below the report's first sequence number: the report that
//!   covered it was lost) is no longer in flight and is not shown to the controller; one not
//!   covered after 2^15 later packets is forgotten likewise (beyond that its 16-bit number is
//!   ambiguous).
//! - a coupled sender (RFC 8699, [`super::fse`]) registers with its group when it starts or
//!   resumes and leaves it when it stops; it hands the group its controller's rate after each
//!   of the controller's updates (a report, a timer of its own), and takes the rate the group
//!   last computed for it before anything else at each of its events;
//! - a probe cluster the controller asks for ([`RateController::take_probe`], GCC's probing as
//!   WebRTC's pacer sends it) is sent as WebRTC's `BitrateProber` does: its packets at its rate,
//!   each `sent bytes * 8 / rate` after the cluster's first, until it has sent its minimum
//!   packets and bytes; clusters one after another in the order asked, the next starting when
//!   the packet after the last one's last would have been due at its rate; while one runs the
//!   pacing rate does not apply (the pacer sends only on the cluster's schedule). Each packet
//!   is the queue's first media packet or, when the queue is empty, a padding packet: RTP's
//!   padding bit set and a payload of [`PADDING_LEN`] bytes of padding only (RFC 3550 §5.1),
//!   the media stream's SSRC and payload type, the next sequence number, the last media
//!   packet's timestamp (as WebRTC pads), no marker; the receiver records and reports it like
//!   any packet, and having no payload and no marker it counts as no media and no frame. A
//!   cluster that has not started [`PROBE_CLUSTER_TIMEOUT`] after it was asked for (the window
//!   held it) is dropped, as WebRTC's prober drops it; a stopped sender drops its clusters.
//!   (WebRTC's prober waits for a media packet before it starts a cluster; this one starts at
//!   once, with padding if the queue is empty.)

use std::collections::VecDeque;

use fairway_core::{Bytes, Dur, Time};

use super::controller::{PacketResult, ProbeCluster, RateController, SenderView};
use super::fse::FseMember;
use super::header::RtpHeader;
use super::media::MediaSource;
use super::rfc8888::{Feedback, Report};
use crate::endpoint::{AgentState, Arrival, Endpoint, Malformed, Transmit};

/// An RTP media packet as the sender hands it over: its header; the payload is the transmit's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RtpPacket {
    pub header: RtpHeader,
}

/// The RTP header's length as the sender writes it (12 fixed, 8 of extension).
pub const HEADER_LEN: u64 = 20;
/// Unreported packets kept for matching reports: half the 16-bit sequence space.
const HISTORY: usize = 1 << 15;
/// Where the sender puts the receiver's clock: 2^16 s (one wrap of the report timestamp) ahead
/// of its own, so that an arrival time (the report's time less at most 8 s) is never negative
/// whatever the receiver's clock reads. Only differences of receiver times mean anything.
pub const RECEIVER_EPOCH: Dur = Dur(65_536 * 1_000_000_000);
const RECEIVER_EPOCH_UNITS: u128 = 1 << 32;
/// The 90 kHz media clock of video (RFC 3551 §5).
const MEDIA_CLOCK_HZ: u128 = 90_000;
/// The padding of a probe's padding packet: WebRTC's largest padding-only payload, 224 bytes
/// (`kMaxPaddingLength` of its RTP sender: RFC 3550's one-byte count allows 255, WebRTC keeps to
/// a multiple of 32 for SRTP). The packet is [`HEADER_LEN`] + 224 = 244 bytes on the wire.
pub const PADDING_LEN: u64 = 224;
/// A probe cluster not started this long after it was asked for is dropped (WebRTC's
/// `kProbeClusterTimeout` in its `BitrateProber`, 5 s).
pub const PROBE_CLUSTER_TIMEOUT: Dur = Dur::from_secs(5);

/// How an RTP sender is set up.
#[derive(Debug, Clone, PartialEq)]
pub struct RtpSenderConfig {
    pub ssrc: u32,
    /// The payload type (a dynamic one, RFC 3551 §3).
    pub payload_type: u8,
    /// Largest media payload per packet.
    pub max_payload: Bytes,
    /// Packets are ECN-capable (ECT(0)).
    pub ecn: bool,
    /// Packets carry the multimedia tag (chung-dcbt §2's ToS bit).
    pub tagged: bool,
}

impl Default for RtpSenderConfig {
    /// 1200 bytes of payload: WebRTC's usual packet, which fits any path's MTU with its headers.
    fn default() -> Self {
        RtpSenderConfig { ssrc: 1, payload_type: 96, max_payload: Bytes(1200), ecn: false, tagged: false }
    }
}

/// A packet waiting in the sender's queue.
#[derive(Debug, Clone, Copy)]
struct Queued {
    payload: Bytes,
    marker: bool,
    timestamp: u32,
    queued_at: Time,
}

/// A packet sent and not yet reported.
#[derive(Debug, Clone, Copy)]
struct Sent {
    size: Bytes,
    sent_at: Time,
    cluster: Option<u32>,
}

/// A probe cluster asked for, waiting its turn or being sent.
#[derive(Debug, Clone, Copy)]
struct Probe {
    req: ProbeCluster,
    asked_at: Time,
    /// When its first packet left.
    started_at: Option<Time>,
    packets: u32,
    bytes: u64,
}

impl Probe {
    /// When its next packet is due (WebRTC's `BitrateProber`: the cluster's start plus the bytes
    /// sent so far at its rate); `None` before it starts.
    fn next_at(&self) -> Option<Time> {
        self.started_at.map(|t| t + Dur::from_secs_f64(self.bytes as f64 * 8.0 / self.req.rate_bps))
    }

    fn done(&self) -> bool {
        self.packets >= self.req.min_packets.max(1) && self.bytes >= self.req.min_bytes
    }
}

/// What an RTP sender did.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RtpSenderStats {
    pub frames: u64,
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub media_bytes_sent: u64,
    /// Packets the controller had discarded from the queue unsent.
    pub packets_discarded: u64,
    /// Packets sent in probe clusters (media and padding), and of them the padding packets and
    /// their bytes on the wire (in `packets_sent` and `bytes_sent` too).
    pub probe_packets_sent: u64,
    pub padding_packets_sent: u64,
    pub padding_bytes_sent: u64,
    /// Probe clusters sent whole, and dropped unstarted.
    pub probe_clusters_sent: u64,
    pub probe_clusters_dropped: u64,
    pub feedback_received: u64,
    /// Packets reports said arrived, and said did not.
    pub reported_received: u64,
    pub reported_lost: u64,
    /// Packets no report covered (their report lost, or never sent).
    pub unreported: u64,
    /// Times the window stayed full for the controller's stall timeout and the packets in
    /// flight were forgotten (SCReAM).
    pub stall_resets: u64,
    pub queue_bytes: u64,
    pub min_rtt: Option<Dur>,
    pub rtt: Option<Dur>,
    /// The controller's target (wire bits per second) and the encoder's rate (media) at the end.
    pub target_bps: f64,
    pub encoder_bps: f64,
}

/// The sending end of an RTP media flow.
pub struct RtpSender {
    cfg: RtpSenderConfig,
    source: Box<dyn MediaSource>,
    cc: Box<dyn RateController>,
    running: bool,
    started_at: Time,
    queue: VecDeque<Queued>,
    queue_bytes: u64,
    /// When the pacer lets the next packet go.
    next_send: Time,
    next_seq: u64,
    /// Unreported packets from `sent_base` on, in sequence order.
    sent: VecDeque<Sent>,
    sent_base: u64,
    in_flight: u64,
    /// When the last packet was sent.
    last_sent_at: Option<Time>,
    min_rtt: Option<Dur>,
    rtt: Option<Dur>,
    stats: RtpSenderStats,
    /// The controller's target at each change (wire bits per second), the first at the start.
    target_log: Vec<(Time, f64)>,
    /// The previous report's unwrapped time, units of 2^-16 s.
    last_report: Option<u128>,
    /// Reused for each report's results.
    results: Vec<PacketResult>,
    /// Its flow group's state exchange, if it is coupled.
    coupling: Option<FseMember>,
    /// Probe clusters asked for, the one being sent first.
    probes: VecDeque<Probe>,
    /// The next cluster starts no sooner than this: when the packet after the last cluster's
    /// last would have been due at its rate (WebRTC's prober).
    probe_free_at: Time,
    /// The media timestamp of the last media packet sent (a padding packet's).
    last_timestamp: u32,
}

impl RtpSender {
    pub fn new(
        cfg: RtpSenderConfig,
        source: Box<dyn MediaSource>,
        cc: Box<dyn RateController>,
    ) -> Result<RtpSender, String> {
        if cfg.max_payload.0 == 0 {
            return Err("max_payload must be at least one byte".into());
        }
        if cfg.payload_type > 127 {
            return Err(format!("payload type {} does not fit RTP's 7 bits", cfg.payload_type));
        }
        Ok(RtpSender {
            cfg,
            source,
            cc,
            running: false,
            started_at: Time::ZERO,
            queue: VecDeque::new(),
            queue_bytes: 0,
            next_send: Time::ZERO,
            next_seq: 0,
            sent: VecDeque::new(),
            sent_base: 0,
            in_flight: 0,
            last_sent_at: None,
            min_rtt: None,
            rtt: None,
            stats: RtpSenderStats::default(),
            target_log: vec![],
            last_report: None,
            results: vec![],
            coupling: None,
            probes: VecDeque::new(),
            probe_free_at: Time::ZERO,
            last_timestamp: 0,
        })
    }

    /// Couples the sender's controller with the other flows of `member`'s group (RFC 8699).
    pub fn with_coupling(mut self, member: FseMember) -> Result<RtpSender, String> {
        if self.cc.coupled_rate().is_none() {
            return Err(format!("{} cannot be coupled (RFC 8699)", self.cc.name()));
        }
        self.coupling = Some(member);
        Ok(self)
    }

    /// Its group's state exchange, if coupled.
    pub fn coupling(&self) -> Option<&FseMember> {
        self.coupling.as_ref()
    }

    /// RFC 8699 §5.3.1 step (d): the rate the group computed for this flow since it last took
    /// one, if any, becomes its controller's (and its target is logged).
    fn take_coupled_rate(&mut self, now: Time) {
        if let Some(r) = self.coupling.as_mut().and_then(|m| m.pending()) {
            self.cc.set_coupled_rate(now, r);
            self.log_target(now);
        }
    }

    /// RFC 8699 §5.3.1 step (3): after the controller's update, its rate goes to the group and
    /// the group's rate for this flow comes back.
    fn give_coupled_rate(&mut self, now: Time) {
        let Some(m) = self.coupling.as_mut() else { return };
        let Some(cc_rate) = self.cc.coupled_rate() else { return };
        let r = m.update(cc_rate, self.cc.max_rate());
        if r != cc_rate {
            self.cc.set_coupled_rate(now, r);
        }
    }

    /// The controller, for reports and tests.
    pub fn controller(&self) -> &dyn RateController {
        self.cc.as_ref()
    }

    /// The controller's target (wire bits per second) at each change, the first at the start.
    pub fn target_log(&self) -> &[(Time, f64)] {
        &self.target_log
    }

    /// The controller's target now (wire bits per second).
    pub fn target(&self) -> f64 {
        self.target_log.last().map_or(0.0, |x| x.1)
    }

    /// Logs the target if it changed.
    fn log_target(&mut self, now: Time) {
        let t = self.cc.target_rate(&self.view(now));
        if self.target_log.last().is_none_or(|x| x.1 != t) {
            self.target_log.push((now, t));
        }
    }

    /// What the controller sees now.
    pub fn view(&self, now: Time) -> SenderView {
        SenderView {
            queue_bytes: self.queue_bytes,
            queue_delay: self.queue.front().map_or(Dur::ZERO, |q| now.saturating_since(q.queued_at)),
            in_flight: self.in_flight,
            fps: self.source.fps(),
            min_rtt: self.min_rtt,
            rtt: self.rtt,
        }
    }

    /// Takes the probe clusters the controller now asks for.
    fn take_probes(&mut self, now: Time) {
        while let Some(req) = self.cc.take_probe(now) {
            // A rate that cannot pace anything is no cluster.
            if req.rate_bps.is_finite() && req.rate_bps > 0.0 {
                self.probes.push_back(Probe { req, asked_at: now, started_at: None, packets: 0, bytes: 0 });
            }
        }
    }

    /// The probe cluster to send from now, if any: clusters not started within
    /// [`PROBE_CLUSTER_TIMEOUT`] are dropped first.
    fn current_probe(&mut self, now: Time) -> Option<Probe> {
        while let Some(p) = self.probes.front() {
            if p.started_at.is_none() && now.saturating_since(p.asked_at) > PROBE_CLUSTER_TIMEOUT {
                self.probes.pop_front();
                self.stats.probe_clusters_dropped += 1;
            } else {
                break;
            }
        }
        self.probes.front().copied()
    }

    /// The size on the wire of the next packet: the queue's first, or padding.
    fn next_size(&self, probing: bool) -> Option<u64> {
        match self.queue.front() {
            Some(q) => Some(q.payload.0 + HEADER_LEN),
            None => probing.then_some(HEADER_LEN + PADDING_LEN),
        }
    }

    /// The share of a full packet's wire bytes that is media.
    fn payload_share(&self) -> f64 {
        let p = self.cfg.max_payload.0 as f64;
        p / (p + HEADER_LEN as f64)
    }

    /// The 90 kHz timestamp of a frame captured at `at`.
    fn media_timestamp(&self, at: Time) -> u32 {
        (at.saturating_since(self.started_at).0 as u128 * MEDIA_CLOCK_HZ / 1_000_000_000) as u32
    }

    /// Produces every frame due by `now` into the queue. Frames more than one frame interval
    /// late (the sender was not run for a while: a stalled host, a timer far behind) are not
    /// made: a live encoder captures what is in front of it now, not what it missed.
    fn produce(&mut self, now: Time) {
        let late = Dur::from_secs_f64(1.0 / self.source.fps().max(1e-9));
        if self.source.next_frame_at().is_some_and(|t| t.0.saturating_add(late.0) < now.0) {
            self.source.skip_to(now);
        }
        let mut last = None;
        while let Some(at) = self.source.next_frame_at().filter(|&t| t <= now) {
            // A frame clock that no longer advances (it reached the end of time) makes one frame.
            if last == Some(at) {
                break;
            }
            last = Some(at);
            let view = self.view(now);
            let target = self.cc.target_rate(&view) * self.payload_share();
            self.source.set_target(now, target);
            let size = self.source.frame(now);
            self.stats.frames += 1;
            let timestamp = self.media_timestamp(at);
            let max = self.cfg.max_payload.0;
            let n = size.0.div_ceil(max).max(1);
            let each = size.0 / n;
            for i in 0..n {
                let payload = if i + 1 == n { size.0 - each * (n - 1) } else { each };
                self.queue.push_back(Queued { payload: Bytes(payload), marker: i + 1 == n, timestamp, queued_at: now });
                self.queue_bytes += payload + HEADER_LEN;
            }
        }
    }

    /// Empties the queue if the controller says so.
    fn maybe_discard(&mut self, now: Time) {
        if !self.queue.is_empty() && self.cc.discard_queue(&self.view(now)) {
            self.stats.packets_discarded += self.queue.len() as u64;
            self.queue.clear();
            self.queue_bytes = 0;
        }
    }

    /// When a full window counts as stalled: the controller's stall timeout after the last
    /// packet sent, and strictly after it (`None`: never).
    fn stalled_at(&self) -> Option<Time> {
        let wait = self.cc.stall_timeout()?;
        Some(self.last_sent_at? + wait + Dur(1))
    }

    /// Whether the window (if any) lets a packet of `size` go now; a stalled window does, once
    /// its packets in flight are forgotten (`poll_transmit`).
    fn window_allows(&self, now: Time, size: u64) -> bool {
        match self.cc.window(&self.view(now)) {
            Some(w) => self.in_flight == 0 || self.in_flight + size <= w || self.stalled_at().is_some_and(|t| now >= t),
            None => true,
        }
    }

    /// The extended sequence number of a report's 16-bit `seq`: the latest sent packet's number
    /// or one before it.
    fn extend(&self, seq: u16) -> Option<u64> {
        let last = self.next_seq.checked_sub(1)?;
        let cand = (last & !0xFFFF) | seq as u64;
        if cand <= last {
            Some(cand)
        } else {
            cand.checked_sub(1 << 16)
        }
    }

    /// The receiver's time of a report stamped `ts` (units of 2^-16 s, seconds modulo 2^16):
    /// unwrapped to the value nearest the previous report's (the first, nearest the sender's
    /// `now`), counted from [`RECEIVER_EPOCH`] so that no arrival before it is negative.
    fn unwrap_report_time(&mut self, now: Time, ts: u32) -> Time {
        let near = self.last_report.unwrap_or_else(|| (now.0 as u128) * 65_536 / 1_000_000_000 + RECEIVER_EPOCH_UNITS);
        let cand = (near & !0xFFFF_FFFF) | ts as u128;
        let best = [cand.checked_sub(1 << 32), Some(cand), Some(cand + (1 << 32))]
            .into_iter()
            .flatten()
            .min_by_key(|c| c.abs_diff(near))
            .expect("a candidate");
        self.last_report = Some(best);
        Time((best * 1_000_000_000 / 65_536) as u64)
    }

    /// Forgets the unreported packets below `seq`.
    fn skip_to(&mut self, seq: u64) {
        while self.sent_base < seq {
            let Some(s) = self.sent.pop_front() else {
                self.sent_base = seq;
                break;
            };
            self.in_flight -= s.size.0;
            self.stats.unreported += 1;
            self.sent_base += 1;
        }
    }

    fn on_feedback(&mut self, now: Time, fb: &Feedback) {
        self.stats.feedback_received += 1;
        let report_at = self.unwrap_report_time(now, fb.report_timestamp);
        let mut results = std::mem::take(&mut self.results);
        results.clear();
        let mut newest: Option<(Time, Dur)> = None;
        let ssrc = self.cfg.ssrc;
        for s in fb.streams.iter().filter(|s| s.ssrc == ssrc) {
            let Some(begin) = self.extend(s.begin_seq) else { continue };
            for (i, r) in s.reports.iter().enumerate() {
                let seq = begin + i as u64;
                if seq < self.sent_base || seq >= self.next_seq {
                    continue;
                }
                self.skip_to(seq);
                let p = self.sent.pop_front().expect("the packet at sent_base");
                self.sent_base += 1;
                self.in_flight -= p.size.0;
                let (arrived_at, ecn) = match *r {
                    Report::Lost => (None, Default::default()),
                    Report::Received { ecn, ato } => match ato.offset() {
                        Some(off) => {
                            newest = Some((p.sent_at, off));
                            (Some(Time(report_at.0.saturating_sub(off.0))), ecn)
                        }
                        // An arrival without a usable time: received, when unknown; counted
                        // received but given the report's own time.
                        None => (Some(report_at), ecn),
                    },
                };
                if arrived_at.is_some() {
                    self.stats.reported_received += 1;
                } else {
                    self.stats.reported_lost += 1;
                }
                results.push(PacketResult {
                    seq,
                    size: p.size,
                    sent_at: p.sent_at,
                    arrived_at,
                    ecn,
                    cluster: p.cluster,
                });
            }
        }
        // The round trip of the newest packet received: from its sending to the report's
        // arrival, less its wait at the receiver before the report.
        if let Some((sent_at, waited)) = newest {
            let rtt = Dur(now.saturating_since(sent_at).0.saturating_sub(waited.0));
            self.rtt = Some(rtt);
            self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
        }
        if !results.is_empty() {
            self.take_coupled_rate(now);
            let view = self.view(now);
            self.cc.on_feedback(now, &results, &view);
            self.give_coupled_rate(now);
            self.take_probes(now);
        }
        self.results = results;
        self.maybe_discard(now);
        self.log_target(now);
    }
}

impl Endpoint for RtpSender {
    type In = Feedback;
    type Out = RtpPacket;
    type Stats = RtpSenderStats;

    fn start(&mut self, now: Time) {
        if self.running {
            return;
        }
        self.running = true;
        if self.stats.frames == 0 {
            self.started_at = now;
            self.cc.start(now);
        } else {
            self.cc.resume(now);
        }
        self.take_probes(now);
        if let (Some(m), Some(rate)) = (self.coupling.as_mut(), self.cc.coupled_rate()) {
            m.join(rate, self.cc.max_rate());
        }
        let target = self.cc.target_rate(&self.view(now)) * self.payload_share();
        self.source.start(now, target);
        self.log_target(now);
        self.next_send = self.next_send.max(now);
    }

    /// Stops the source; what is queued is dropped, what is in flight stays so that its reports
    /// still count.
    fn stop(&mut self, _now: Time) {
        self.running = false;
        if let Some(m) = self.coupling.as_mut() {
            m.leave();
        }
        self.queue.clear();
        self.queue_bytes = 0;
        self.probes.clear();
    }

    fn handle(&mut self, now: Time, msg: &Feedback, _arrival: Arrival) {
        self.on_feedback(now, msg);
    }

    fn handle_datagram(&mut self, now: Time, bytes: &[u8], _arrival: Arrival) -> Result<(), Malformed> {
        let fb = Feedback::decode(bytes)?;
        self.on_feedback(now, &fb);
        Ok(())
    }

    fn handle_timeout(&mut self, now: Time) {
        if !self.running {
            return;
        }
        self.take_coupled_rate(now);
        if self.cc.next_timer().is_some_and(|t| t <= now) {
            let view = self.view(now);
            self.cc.on_timer(now, &view);
            self.give_coupled_rate(now);
            self.take_probes(now);
            self.log_target(now);
        }
        self.produce(now);
        self.maybe_discard(now);
    }

    fn poll_transmit(&mut self, now: Time) -> Option<Transmit<RtpPacket>> {
        if !self.running {
            return None;
        }
        // While a probe cluster runs, the pacer sends on its schedule only.
        let probe = self.current_probe(now);
        let due = match probe {
            Some(p) => p.next_at().unwrap_or(self.probe_free_at),
            None => self.next_send,
        };
        if now < due {
            return None;
        }
        self.take_coupled_rate(now);
        let size = self.next_size(probe.is_some())?;
        if !self.window_allows(now, size) {
            return None;
        }
        let full = self.cc.window(&self.view(now)).is_some_and(|w| self.in_flight > 0 && self.in_flight + size > w);
        if full {
            // Stalled: nothing sent for the stall timeout, the window full of packets no report
            // will cover (all lost, or their reports). They are forgotten, here and in the
            // controller, and sending resumes.
            self.skip_to(self.next_seq);
            self.cc.forget_in_flight(now);
            self.stats.stall_resets += 1;
        }
        // A media packet, or (probing with the queue empty) padding.
        let (q, padding) = match self.queue.pop_front() {
            Some(q) => {
                self.queue_bytes -= size;
                self.last_timestamp = q.timestamp;
                (q, false)
            }
            None => (Queued { payload: Bytes(0), marker: false, timestamp: self.last_timestamp, queued_at: now }, true),
        };
        let cluster = probe.map(|p| p.req.id);
        if let Some(p) = self.probes.front_mut().filter(|_| probe.is_some()) {
            p.started_at.get_or_insert(now);
            p.packets += 1;
            p.bytes += size;
            self.stats.probe_packets_sent += 1;
            if padding {
                self.stats.padding_packets_sent += 1;
                self.stats.padding_bytes_sent += size;
            }
            if p.done() {
                self.probe_free_at = p.next_at().unwrap_or(now);
                self.probes.pop_front();
                self.stats.probe_clusters_sent += 1;
            }
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        if self.sent.len() == HISTORY {
            self.skip_to(self.sent_base + 1);
        }
        self.sent.push_back(Sent { size: Bytes(size), sent_at: now, cluster });
        self.in_flight += size;
        self.last_sent_at = Some(now);
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += size;
        self.stats.media_bytes_sent += q.payload.0;
        let view = self.view(now);
        self.cc.on_sent(now, seq, Bytes(size), &view);
        // RFC 8298 §4.1.2.6: the next packet no sooner than this one's size at the pacing rate.
        let rate = self.cc.pacing_rate(&self.view(now)).max(1.0);
        self.next_send = now + Dur::from_secs_f64(size as f64 * 8.0 / rate);
        let header = RtpHeader {
            padding,
            marker: q.marker,
            payload_type: self.cfg.payload_type,
            seq: seq as u16,
            timestamp: q.timestamp,
            ssrc: self.cfg.ssrc,
            transport_seq: Some(seq as u16),
        };
        Some(Transmit {
            size: Bytes(size),
            payload: q.payload,
            ect: self.cfg.ecn,
            tagged: self.cfg.tagged,
            msg: RtpPacket { header },
        })
    }

    fn poll_timeout(&self) -> Option<Time> {
        if !self.running {
            return None;
        }
        let mut t = self.source.next_frame_at();
        if let Some(c) = self.cc.next_timer() {
            t = Some(t.map_or(c, |x| x.min(c)));
        }
        // A probe cluster's next packet (at once if it has not started), else the queue's first
        // at the pacer's time; a packet waiting for the window waits for a report, not a time.
        let probe = self.probes.front();
        let due = match probe {
            Some(p) => p.next_at().unwrap_or(self.probe_free_at.max(p.asked_at)),
            None => self.next_send,
        };
        if let Some(size) = self.next_size(probe.is_some()) {
            // A packet the window holds back waits for a report, or for the window to count as
            // stalled.
            let due = if self.window_allows(due, size) { Some(due) } else { self.stalled_at().map(|s| s.max(due)) };
            if let Some(due) = due {
                t = Some(t.map_or(due, |x| x.min(due)));
            }
        }
        t
    }

    fn stats(&self) -> RtpSenderStats {
        let view = self.view(self.next_send);
        RtpSenderStats {
            queue_bytes: self.queue_bytes,
            min_rtt: self.min_rtt,
            rtt: self.rtt,
            target_bps: self.cc.target_rate(&view),
            encoder_bps: self.source.rate(),
            ..self.stats
        }
    }

    fn state(&self) -> AgentState {
        self.cc.state(&self.view(self.next_send))
    }

    fn encode(&self, t: &Transmit<RtpPacket>, out: &mut Vec<u8>) {
        let start = out.len();
        t.msg.header.encode(out);
        out.resize(start + (t.size.0 as usize).max(t.msg.header.len()), 0);
        // RFC 3550 §5.1: the last byte counts the padding, itself included (all that follows
        // the header: a padding packet carries no payload).
        let n = out.len() - start - t.msg.header.len();
        if t.msg.header.padding && n > 0 {
            *out.last_mut().expect("a byte") = n.min(255) as u8;
        }
    }
}

#[cfg(test)]
#[path = "sender_tests.rs"]
mod tests;
