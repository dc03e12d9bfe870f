//! The run loop's one door to a flow ([`FlowDriver`]): a flow's endpoints, whatever their
//! protocol, and what the loop does for them. The loop carries packets between the flow's ends
//! and keeps its timers; the driver says which packets to send and when to wake it, and reads
//! what arrives. Datagram protocols go through [`DatagramFlow`](crate::datagram::DatagramFlow),
//! a stream transport's (TCP) through [`StreamFlow`](crate::stream::StreamFlow); the loop names
//! neither.
//!
//! A packet carries a header the loop fills from the driver's [`Outgoing`] and hands back as
//! it was ([`Header`]): the driver's number for it (`seq`: a datagram's token, a segment's
//! sequence number), an acknowledgement number and the ECN and SYN bits that queues, traces
//! and pcaps read. What else a message holds waits in the driver until its packet arrives or is
//! dropped.

use std::any::Any;

use fairway_core::{Dur, Time};
use fairway_proto::{AgentState, WireEnd};

use crate::packet_trace::PktKind;
use crate::results::{BinSeries, SeriesInfo};

/// Which end of a flow: the source (data) or the sink (feedback, acknowledgements).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Sender,
    Sink,
}

/// A packet an endpoint handed over, for the run loop to put on the wire: data on the flow's
/// route, the rest on its way back.
#[derive(Debug, Clone, Copy)]
pub struct Outgoing {
    /// The connection within the flow (a web flow opens one per session; others have one).
    pub conn: u32,
    pub kind: PktKind,
    pub size: u32,
    pub payload: u32,
    /// The driver's number for it, which comes back with it: a datagram's token, a segment's
    /// sequence number.
    pub seq: u64,
    /// A stream's acknowledgement number (-1: none).
    pub ack: i64,
    /// When it counts as sent: now for data, the echoed send time for a stream's
    /// acknowledgement.
    pub sent_at: Time,
    pub ect: bool,
    pub ece: bool,
    pub cwr: bool,
    pub syn: bool,
    /// Tagged as multimedia (the ToS bit CBT classifies on).
    pub tagged: bool,
    /// The protocol's packet type, where its header has one that traces name
    /// (`Endpoint::wire_type`: DCCP's).
    pub wire_type: Option<u8>,
}

impl Outgoing {
    /// A packet of `kind` of connection 0 sent now, numbered `seq`: no acknowledgement, no
    /// flags.
    pub fn new(kind: PktKind, size: u32, payload: u32, seq: u64, now: Time) -> Outgoing {
        Outgoing {
            conn: 0,
            kind,
            size,
            payload,
            seq,
            ack: -1,
            sent_at: now,
            ect: false,
            ece: false,
            cwr: false,
            syn: false,
            tagged: false,
            wire_type: None,
        }
    }

    /// Its header as it arrives where no queue marked it.
    pub fn header(&self) -> Header {
        Header {
            conn: self.conn,
            kind: self.kind,
            size: self.size,
            payload: self.payload,
            seq: self.seq,
            ack: self.ack,
            sent_at: self.sent_at,
            ect: self.ect,
            ce: false,
            ece: self.ece,
            cwr: self.cwr,
            syn: self.syn,
        }
    }
}

/// A packet as it arrived (or was dropped): the header it was sent with, and what the path did
/// to it (`ce`).
#[derive(Debug, Clone, Copy)]
pub struct Header {
    pub conn: u32,
    pub kind: PktKind,
    pub size: u32,
    pub payload: u32,
    pub seq: u64,
    pub ack: i64,
    pub sent_at: Time,
    pub ect: bool,
    /// Congestion Experienced: a queue marked it (RFC 3168).
    pub ce: bool,
    pub ece: bool,
    pub cwr: bool,
    pub syn: bool,
}

/// Which of a flow's timers: an end of one of its connections, or its application's ([`APP`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimerId {
    pub conn: u32,
    pub side: Side,
}

/// The connection number of a flow's application timer (a web flow's next session).
pub const APP: u32 = u32::MAX;

/// A wake-up the loop is asked for: call [`FlowDriver::timeout`] with `timer` and `gen` at `at`.
#[derive(Debug, Clone, Copy)]
pub struct Wake {
    pub at: Time,
    pub timer: TimerId,
    pub gen: u32,
}

/// What a call on a driver hands back to the loop, in the order the loop is to act on it:
/// first the wake-ups, then the packets, then the sender's state for its trace.
#[derive(Debug, Default)]
pub struct Io {
    pub out: Vec<Outgoing>,
    pub wakes: Vec<Wake>,
    /// Set by the loop: whether the flow's sender's state is traced.
    pub traced: bool,
    /// The state of the connection whose sender the call drained, if `traced` (a list, not an
    /// `Option`, to keep `Io` small).
    pub states: Vec<(u32, AgentState)>,
    /// Set by the loop on ns-2's clock: a timer whose deadline moves later is re-armed at once,
    /// as ns-2 reschedules it, so that its wake-up is made when ns-2 makes it (its place among
    /// simultaneous events, and its double-precision time, follow from that).
    pub eager: bool,
}

impl Io {
    /// Asks for a wake-up of `timer` at `deadline` through `slot`, if it is earlier than the one
    /// pending (or none is; with `eager`, if it differs): at most one live wake-up per timer, the
    /// others found stale by [`TimerSlot::fire`].
    pub fn arm(&mut self, slot: &mut TimerSlot, timer: TimerId, deadline: Option<Time>) {
        let Some(d) = deadline else { return };
        match slot.armed {
            Some(a) if a == d || (a < d && !self.eager) => {}
            _ => {
                slot.gen = slot.gen.wrapping_add(1);
                slot.armed = Some(d);
                self.wakes.push(Wake { at: d, timer, gen: slot.gen });
            }
        }
    }
}

/// A timer's pending wake-up, if any, and its generation.
#[derive(Debug, Default, Clone, Copy)]
pub struct TimerSlot {
    armed: Option<Time>,
    gen: u32,
}

impl TimerSlot {
    /// The wake-up of generation `gen` came: whether it is the live one (which it then
    /// consumes) rather than one a later arming superseded.
    pub fn fire(&mut self, gen: u32) -> bool {
        if self.gen != gen || self.armed.is_none() {
            return false;
        }
        self.armed = None;
        true
    }
}

/// What a flow's transport counted, summed over its connections, for its summary: every field
/// one a protocol may count (zero where it does not).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct TransportCounters {
    /// Packets sent again.
    pub retransmits: u64,
    /// Retransmission timeouts with data outstanding.
    pub timeouts: u64,
    /// Fast retransmits (entries into loss recovery on duplicate ACKs).
    pub fast_retransmits: u64,
    /// Window reductions on ECN-Echo.
    pub ecn_reductions: u64,
    /// RTT samples and their sum, ns: the summary's mean RTT where the flow takes samples.
    pub rtt_samples: u64,
    pub rtt_sum_ns: u64,
    /// Sessions (web flows) started and completed, and the completed ones' summed durations.
    pub sessions_started: u64,
    pub sessions_completed: u64,
    pub session_time_sum: Dur,
}

impl TransportCounters {
    /// The counts since `then` (the warm-up's end).
    pub fn since(&self, then: &TransportCounters) -> TransportCounters {
        TransportCounters {
            retransmits: self.retransmits - then.retransmits,
            timeouts: self.timeouts - then.timeouts,
            fast_retransmits: self.fast_retransmits - then.fast_retransmits,
            ecn_reductions: self.ecn_reductions - then.ecn_reductions,
            rtt_samples: self.rtt_samples - then.rtt_samples,
            rtt_sum_ns: self.rtt_sum_ns - then.rtt_sum_ns,
            sessions_started: self.sessions_started - then.sessions_started,
            sessions_completed: self.sessions_completed - then.sessions_completed,
            session_time_sum: self.session_time_sum - then.session_time_sum,
        }
    }

    /// Adds `b`'s counts (another connection's).
    pub fn add(&mut self, b: &TransportCounters) {
        self.retransmits += b.retransmits;
        self.timeouts += b.timeouts;
        self.fast_retransmits += b.fast_retransmits;
        self.ecn_reductions += b.ecn_reductions;
        self.rtt_samples += b.rtt_samples;
        self.rtt_sum_ns += b.rtt_sum_ns;
        self.sessions_started += b.sessions_started;
        self.sessions_completed += b.sessions_completed;
        self.session_time_sum += b.session_time_sum;
    }
}

/// What the run loop needs of a flow. Each call that can make an end send ends by draining it,
/// as the endpoint contract asks (fairway-proto's `endpoint.rs`): what it sends and the
/// wake-ups it wants go into `io`, which the loop then acts on in that order.
pub trait FlowDriver {
    /// The application starts.
    fn start(&mut self, now: Time, io: &mut Io);
    /// The application stops: it offers nothing more (what a stream already took is still
    /// sent).
    fn stop(&mut self, now: Time);
    /// A packet of the flow reached the end its kind travels to (data the sink, the rest the
    /// sender). Returns whether it brought the sink data it did not have (a duplicate does not;
    /// a datagram always does).
    fn deliver(&mut self, now: Time, pkt: &Header, io: &mut Io) -> bool;
    /// A packet of the flow was dropped: what waited for it goes.
    fn forget(&mut self, pkt: &Header);
    /// A wake-up the driver asked for is due; a stale one (superseded) does nothing.
    fn timeout(&mut self, now: Time, timer: TimerId, gen: u32, io: &mut Io);
    /// The series its protocol reports, as they are now, for a bin's row; `None` (and no
    /// allocation) for a protocol that reports none.
    fn sample(&self) -> Option<Box<BinSeries>>;
    /// The congestion window now, packets, for a bin's row (flows.csv's `cwnd_pkts`); `None`
    /// where there is none to show.
    fn window(&self) -> Option<f64> {
        None
    }
    /// The change log of each series its protocol logs: (which, [(when it took effect, value)]).
    fn logs(&self) -> Vec<(&'static SeriesInfo, Vec<(Time, f64)>)>;
    /// Wire mode: datagrams the receiving end refused (its own peer's bytes: a fairway bug).
    fn malformed(&self) -> u64 {
        0
    }
    /// The sender's congestion control now (a stream's first connection's).
    fn state(&self) -> AgentState;
    /// What the summary takes the smoothed RTT and loss event rate from: the sender's state at
    /// the end, or (`None`) nothing, for a flow whose summary takes its RTT from its samples
    /// ([`TransportCounters::rtt_samples`]).
    fn summary_state(&self) -> Option<AgentState> {
        Some(self.state())
    }
    /// What its transport counted so far.
    fn counters(&self) -> TransportCounters {
        TransportCounters::default()
    }
    /// When its application finished (a transfer's last byte acknowledged), if it has.
    fn done_at(&self) -> Option<Time> {
        None
    }
    /// What its transport adds to the flow's summary under its own name (a stream transport's;
    /// a datagram protocol's settings report instead, `DatagramSpec::report`).
    fn report(&self) -> Option<crate::protocol::ProtocolReport> {
        None
    }
    /// For the results: the concrete flow, to read its endpoints' statistics.
    fn as_any(&self) -> &dyn Any;
    /// Its two ends (sender, receiver) for a driver that carries their bytes itself (live
    /// mode); `None` for a flow whose ends live mode does not run (a stream: the kernel's).
    fn ends(&mut self) -> Option<(&mut dyn WireEnd, &mut dyn WireEnd)> {
        None
    }
}
