//! fairway-aqm: router queue disciplines as sans-IO state machines.
//!
//! A discipline never reads a clock, never opens a socket and never draws unseeded randomness:
//! every entry point takes `now` (and `&mut Rng` where it draws) and returns a verdict
//! (docs/architecture.md, "The sans-IO shape"). The simulator (and later the live bottleneck) owns the
//! packets; a queue stores only [`PacketRef`]s with the sizes it needs.
//!
//! Each discipline is one module that implements [`QueueDiscipline`] (its state machine) and
//! [`Discipline`] (its settings and what the rest of fairway asks of it), registered by one
//! line in the list below, which puts it behind the [`Qdisc`] enum so the hot path has no
//! `Box<dyn>`.

#[macro_use]
mod registry;
pub mod fifo;
mod fq;
pub mod keys;

// The registered disciplines, one line each (see registry.rs): the first is stored inline.
disciplines! {
    DropTail(droptail::DropTail),
    Red(red::Red),
    Cbt(cbt::Cbt),
    Dcbt(dcbt::Dcbt),
    Codel(codel::Codel),
    FqCodel(fq_codel::FqCodel),
    Fred(fred::Fred),
    Pie(pie::Pie),
    Cobalt(cobalt::Cobalt),
    FqPie(fq_pie::FqPie),
}

pub use fairway_core::ParamError;
use fairway_core::{Bytes, FlowId, PacketRef, Rng, Time};

pub use cbt::{Cbt, CbtParams, RedFor};
pub use cobalt::{Cobalt, CobaltParams};
pub use codel::{Codel, CodelParams, CodelVars, ControlLaw};
pub use dcbt::{Dcbt, DcbtParams};
pub use droptail::{DropTail, DropTailParams, Limit};
pub use fifo::{Fifo, Queued};
pub use fq_codel::{FqCodel, FqCodelParams};
pub use fq_pie::{FqPie, FqPieParams};
pub use fred::{Fred, FredParams};
pub use keys::{Keys, NoKeys, Read, Refused};
pub use pie::{Pie, PieFlavor, PieParams};
pub use red::{Red, RedCore, RedParams, RedResolved};
pub use registry::{Discipline, Level, OnLink};

/// What a discipline may look at when a packet arrives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PacketMeta {
    /// Size on the wire (headers included), as the link serialises it.
    pub size: Bytes,
    /// ECN-capable transport (ECT set): RED may mark it instead of dropping early.
    pub ecn_capable: bool,
    /// The flow the packet belongs to (per-flow disciplines such as FRED use it).
    pub flow: FlowId,
    /// Its traffic class, as a class-based queue (CBT) classifies it.
    pub class: Class,
}

/// The classes of chung-dcbt §2: TCP, UDP tagged as multimedia (the ToS bit its source sets) and
/// other, untagged UDP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Class {
    #[default]
    Tcp,
    Tagged,
    Untagged,
}

/// Why a packet was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DropReason {
    /// RED's probabilistic drop between the thresholds (an "unforced" drop in ns-2's words), and
    /// the other disciplines' drops by a probability: PIE's at arrival, COBALT's BLUE's at
    /// departure.
    Early,
    /// A drop the algorithm could not avoid: RED's average above maxthresh (non-gentle) or above
    /// 2 x maxthresh (gentle). Only with `use_mark_p = false`: with ns-2 2.35's default
    /// (`use_mark_p_ true`) those arrivals go through the early decision with probability one and
    /// ns-2, like fairway, counts them as early drops.
    Forced,
    /// The buffer is full (the queue limit).
    Overflow,
    /// The packet's class is over its share: CBT's per-class threshold (chung-dcbt §2).
    Threshold,
    /// CoDel's control law dropped it at the head of the queue, its sojourn time having stayed
    /// above the target for an interval (RFC 8289 §5.4).
    Sojourn,
    /// Its flow is over its share of the buffer: FRED's per-flow limits (Lin & Morris 1997).
    Flow,
}

/// A packet leaving the queue for the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Departure {
    pub pkt: PacketRef,
    pub size: Bytes,
    /// The discipline set CE as the packet left (CoDel's ECN marking, RFC 8289 §5.5).
    pub mark: bool,
}

impl Departure {
    /// A departure with no mark.
    #[inline]
    pub fn plain(pkt: PacketRef, size: Bytes) -> Departure {
        Departure { pkt, size, mark: false }
    }
}

/// A packet the discipline threw away after having taken it: CoDel's drops at the head when it
/// dequeues, FQ-CoDel's from its fattest flow when an arrival overflows the buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dropped {
    pub pkt: PacketRef,
    pub size: Bytes,
    pub reason: DropReason,
}

/// When a discipline decides a packet's fate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decides {
    /// Once, when the packet arrives (DropTail, RED, CBT, D-CBT, FRED, PIE): a FIFO that
    /// decides here knows each admitted packet's departure when it admits it.
    AtEnqueue,
    /// (Also) when it leaves (CoDel, FQ-CoDel): its departure is known only then.
    AtDequeue,
}

/// The decision on an arriving packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Stored unchanged.
    Enqueue,
    /// Stored with its ECN field set to CE (Congestion Experienced), RFC 3168 §5.
    EnqueueMarked,
    /// Refused; the caller disposes of the packet.
    Drop(DropReason),
}

/// Counters every discipline keeps. Drops are of arriving packets. `repr(C)`: the counts every
/// packet changes first, the drops and marks last (see [`DropTail`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(C)]
pub struct QueueStats {
    pub arrivals_pkts: u64,
    pub arrivals_bytes: u64,
    pub departures_pkts: u64,
    pub departures_bytes: u64,
    pub early_drops: u64,
    pub forced_drops: u64,
    pub overflow_drops: u64,
    pub marks: u64,
    /// Drops of a class over its threshold (CBT).
    pub threshold_drops: u64,
    /// CoDel's drops at the head of the queue (counted when they happen, at a dequeue).
    pub sojourn_drops: u64,
    /// Drops of a flow over its share of the buffer (FRED).
    pub flow_drops: u64,
}

impl QueueStats {
    pub fn drops(&self) -> u64 {
        self.early_drops
            + self.forced_drops
            + self.overflow_drops
            + self.threshold_drops
            + self.sojourn_drops
            + self.flow_drops
    }
    /// Counts a drop of a packet the queue had taken (see [`Dropped`]).
    pub(crate) fn count_dropped(&mut self, reason: DropReason) {
        self.count_reason(reason);
    }
    fn count_reason(&mut self, reason: DropReason) {
        match reason {
            DropReason::Early => self.early_drops += 1,
            DropReason::Forced => self.forced_drops += 1,
            DropReason::Overflow => self.overflow_drops += 1,
            DropReason::Threshold => self.threshold_drops += 1,
            DropReason::Sojourn => self.sojourn_drops += 1,
            DropReason::Flow => self.flow_drops += 1,
        }
    }
    pub(crate) fn count_verdict(&mut self, meta: &PacketMeta, v: Verdict) {
        self.arrivals_pkts += 1;
        self.arrivals_bytes += meta.size.0;
        match v {
            Verdict::Enqueue => {}
            Verdict::EnqueueMarked => self.marks += 1,
            Verdict::Drop(reason) => self.count_reason(reason),
        }
    }
    pub(crate) fn count_departure(&mut self, size: Bytes) {
        self.departures_pkts += 1;
        self.departures_bytes += size.0;
    }
}

/// The interface of a queue discipline in front of one simplex link.
///
/// The caller's contract (the same as ns-2's Queue/LinkDelay pair): on each arrival call
/// `enqueue`; whenever the link is free call `dequeue` (also when the queue may be empty: an
/// empty dequeue is how RED learns that the link went idle, and when). After each call, take
/// every packet [`take_dropped`](Self::take_dropped) gives: a discipline may throw away packets
/// it had taken (CoDel at a dequeue, FQ-CoDel at an arrival), and only the caller can dispose
/// of them.
pub trait QueueDiscipline {
    fn enqueue(&mut self, now: Time, meta: &PacketMeta, pkt: PacketRef, rng: &mut Rng) -> Verdict;
    fn dequeue(&mut self, now: Time) -> Option<Departure>;
    /// The next packet this discipline dropped after taking it, oldest first.
    fn take_dropped(&mut self) -> Option<Dropped> {
        None
    }
    /// Packets waiting (not counting one being serialised on the link).
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Bytes waiting.
    fn bytes(&self) -> Bytes;
    fn stats(&self) -> &QueueStats;
    /// The smoothed queue estimate in packets, for disciplines that keep one (RED's `ave_`;
    /// in byte mode converted with the mean size of the packets that arrived).
    fn average_pkts(&self) -> Option<f64> {
        None
    }
}
