//! The seam between the RTP sender ([`super::sender`]) and its congestion controller: RMCAT's
//! NADA, SCReAM and GCC are rate-based (SCReAM adds a window) and read per-packet feedback, so
//! they share this trait, not TCP's congestion-control trait.
//!
//! The sender tells its controller of every packet it sends ([`RateController::on_sent`])
//! and of every RFC 8888 report, turned into one [`PacketResult`] per packet it covers
//! ([`RateController::on_feedback`]); between them it asks for the encoder's target rate, the
//! pacing rate and, for a self-clocked controller, the bytes it may have in flight. A controller
//! that probes (GCC, as WebRTC's does) asks for probe clusters ([`RateController::take_probe`]):
//! bursts sent at a rate of its choosing, whose packets come back marked with the cluster's id
//! ([`PacketResult::cluster`]). All three
//! controllers run at the sender: RFC 8698 §6.4 allows NADA's receiver-side calculations there,
//! and RFC 8888 is the one feedback format (GCC's transport-wide feedback carries the same
//! per-packet arrival times).

use fairway_core::{Bytes, Dur, Time};

use super::rfc8888::Ecn;
use crate::AgentState;

/// One packet (media, or a probe cluster's padding): when and how big it left, and what a report
/// said of it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PacketResult {
    /// Its extended RTP sequence number (fairway's RTP flows carry one stream, so this is also
    /// its transport-wide sequence number).
    pub seq: u64,
    /// Its size on the wire.
    pub size: Bytes,
    /// When the sender sent it, on the sender's clock.
    pub sent_at: Time,
    /// When it arrived, on the receiver's clock (the report's timestamp less the packet's
    /// arrival time offset, to RFC 8888's 1/1024 s); `None`: reported not received.
    pub arrived_at: Option<Time>,
    /// Its ECN codepoint on arrival (`NotEct` when lost).
    pub ecn: Ecn,
    /// The probe cluster it was sent in ([`ProbeCluster::id`]), if any.
    pub cluster: Option<u32>,
}

impl PacketResult {
    pub fn received(&self) -> bool {
        self.arrived_at.is_some()
    }
}

/// A probe cluster a controller asks its sender for (WebRTC's `ProbeClusterConfig` as its
/// pacer's `BitrateProber` takes it): packets sent back to back at `rate_bps`, media from the
/// queue while there is some and padding when it runs dry, until at least `min_packets`
/// packets and `min_bytes` bytes have gone.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProbeCluster {
    /// Its id, carried back in the [`PacketResult`] of each packet sent in it.
    pub id: u32,
    /// The rate its packets are sent at, bits per second of what goes on the wire.
    pub rate_bps: f64,
    pub min_packets: u32,
    pub min_bytes: u64,
}

/// What the controller may read of its sender at a call.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SenderView {
    /// Bytes of media waiting to be sent: NADA's rate-shaping buffer (RFC 8698 §5.2.1), SCReAM's
    /// RTP queue (RFC 8298 §4.1.2), GCC's pacer queue.
    pub queue_bytes: u64,
    /// How long the oldest packet in that queue has waited.
    pub queue_delay: Dur,
    /// Bytes sent and not yet covered by a report (received or lost).
    pub in_flight: u64,
    /// The encoder's nominal frame rate (NADA's FPS, RFC 8698 §5.2.2).
    pub fps: f64,
    /// The smallest round-trip time the sender has measured from its reports, if any.
    pub min_rtt: Option<Dur>,
    /// The latest round-trip time the sender measured: a report's arrival less the send time
    /// of the newest packet it reports received, less the time that packet waited at the
    /// receiver before the report (its arrival time offset).
    pub rtt: Option<Dur>,
}

/// A media congestion controller, driven by the RTP sender. Rates are bits per second of what
/// the sender puts on the wire (RTP headers included).
pub trait RateController: Send {
    /// Its name as scenarios give it (`cc = "nada"`).
    fn name(&self) -> &'static str;

    /// The sender starts at `now`.
    fn start(&mut self, _now: Time) {}

    /// The sender resumes at `now` after a pause (RFC 8867 §5.8): the controller keeps what it
    /// learnt; a timer of its own that measures the time between updates starts again here.
    fn resume(&mut self, _now: Time) {}

    /// A packet of `size` (extended sequence number `seq`; media, or a probe's padding) leaves
    /// at `now`.
    fn on_sent(&mut self, _now: Time, _seq: u64, _size: Bytes, _view: &SenderView) {}

    /// A report arrived at `now`: the packets it covers, each reported once, in sequence order
    /// (a packet whose report was lost is never reported).
    fn on_feedback(&mut self, now: Time, packets: &[PacketResult], view: &SenderView);

    /// The next probe cluster it wants sent, handed over once (the sender asks after starting
    /// the controller and after each report and timer, until it gets `None`, and sends the
    /// clusters in the order it got them, one after another); `None`: none wanted. By default a
    /// controller never probes.
    fn take_probe(&mut self, _now: Time) -> Option<ProbeCluster> {
        None
    }

    /// A timer of its own ([`next_timer`](Self::next_timer)) is due.
    fn on_timer(&mut self, _now: Time, _view: &SenderView) {}

    /// When it next wants [`on_timer`](Self::on_timer); `None`: no timer.
    fn next_timer(&self) -> Option<Time> {
        None
    }

    /// The rate the media encoder should produce (NADA's r_vin, SCReAM's target bitrate, GCC's
    /// target), bits per second.
    fn target_rate(&self, view: &SenderView) -> f64;

    /// The rate the pacer sends the queue at (NADA's r_send), bits per second.
    fn pacing_rate(&self, view: &SenderView) -> f64;

    /// Bytes it allows in flight (SCReAM's send window, RFC 8298 §4.1.2.5, before the bytes in
    /// flight are taken off); `None`: no window. The sender sends a packet only if the bytes in
    /// flight and the packet's size together are within it, or nothing is in flight.
    fn window(&self, _view: &SenderView) -> Option<u64> {
        None
    }

    /// How long a sender whose window is full may go without sending before it forgets the
    /// packets in flight and sends again; `None`: it waits for a report however long.
    fn stall_timeout(&self) -> Option<Dur> {
        None
    }

    /// The sender forgot its packets in flight ([`stall_timeout`](Self::stall_timeout)): the
    /// controller forgets its own count of them too.
    fn forget_in_flight(&mut self, _now: Time) {}

    /// Whether the sender should empty its queue now (SCReAM discards the RTP queue when its
    /// delay grows too long, RFC 8298 §4.1.3); the packets are dropped unsent.
    fn discard_queue(&self, _view: &SenderView) -> bool {
        false
    }

    /// Its state for traces: `rate_bps` the target, the others where it has them.
    fn state(&self, view: &SenderView) -> AgentState;

    /// The rate it hands RFC 8699's flow state exchange at UPDATE (CC_R(f), [`super::fse`]),
    /// bits per second: the rate variable the RFC's application of the FSE to it names. `None`:
    /// it cannot be coupled.
    fn coupled_rate(&self) -> Option<f64> {
        None
    }

    /// The FSE's rate for this flow, FSE_R(f), to run on from `now` in place of the one it
    /// computed (RFC 8699 §5.3.1 step (d)): it becomes the variable
    /// [`coupled_rate`](Self::coupled_rate) reads.
    fn set_coupled_rate(&mut self, _now: Time, _rate: f64) {}

    /// The most its flow's application can use, bits per second: the FSE's desired rate DR(f)
    /// (RFC 8699 §5.2) of a media flow whose encoder tops out there.
    fn max_rate(&self) -> f64 {
        f64::INFINITY
    }
}
