//! A simplex link as ns-2 builds one: a queue discipline in front of a store-and-forward
//! transmitter (serialisation = size x 8 / rate), then a constant propagation delay.
//!
//! One event per packet per hop (docs/architecture.md, "Speed is a feature"): the disciplines decide at
//! enqueue and serve first in, first out, so when a packet is admitted its start of service is
//! already known (when the packets ahead of it are done) and with it its arrival at the far end,
//! which is scheduled there and then. A link with many packets in flight (from
//! [`BEHIND_FROM`] on) keeps the further ones in a FIFO instead, with an
//! event for the first only (see [`InFlight`]); the order of events is the same either way.
//! (A FIFO for every link, or from the second packet in flight, was tried: on topologies with
//! thousands of links, reading those many small FIFOs cost more in cache misses than the events
//! saved, and it cost 5-8% at 10 and 100 flows. Only for long queues and fat pipes does it pay:
//! ~10% at 10 000 flows, where the bottleneck holds ~50 000 packets.) The discipline itself is
//! brought up to date lazily: before each arrival (and each sample), [`LinkState::advance`] makes
//! the dequeues that happened since, at the times they happened, including the empty dequeue by
//! which RED learns when the link went idle (ns-2 REDQueue::deque). So the discipline sees the
//! same calls at the same times as in ns-2's Queue/LinkDelay pair.
//!
//! A discipline that decides at dequeue, or serves out of arrival order (CoDel, FQ-CoDel), takes
//! the general path instead ([`LinkState::general`]): a packet's departure is known only when
//! the transmitter takes it, so the simulator keeps an event for the end of each serialisation
//! and asks the discipline then (`Sim::serve`), as ns-2's LinkDelay asks its queue. So does a
//! link with a device queue ([`DeviceQueue`]), whose discipline is asked when the device queue
//! has room rather than when the transmitter is free.

use fairway_aqm::{Departure, Qdisc, QueueDiscipline, QueueStats};
use std::collections::VecDeque;

use fairway_core::{Bytes, Dur, NodeId, PacketRef, Rate, Rng, Time};

use crate::scenario::LinkSpec;
use fairway_model::loss_model::LossProcess;

/// The fields are laid out by use (`repr(C)` keeps the order), for topologies with tens of
/// thousands of links, where each cache line of a link is a miss. A packet that finds the
/// queue empty and the transmitter idle (nearly every packet on an access link) touches only
/// the first two lines: the transmitter's times and its serialisation cache in the first, the
/// discipline's tag and DropTail's count waiting, limit, and arrival and departure counts in
/// the second (DropTail puts these first; its drop counts and buffer follow, from byte 128).
/// It was three lines before (the rate, the loss probability and the FIFO's pointer, needed
/// rarely, sat in between). What an arrival at the far end updates is apart, in [`LinkEnd`].
#[repr(C, align(64))]
pub struct LinkState {
    // -- line 0: touched by every packet --
    /// When the transmitter finishes what it has started (or went idle).
    pub free_at: Time,
    /// When the last admitted packet will have been serialised.
    pub tail_end: Time,
    pub delay: Dur,
    /// Total serialisation time, for utilisation.
    pub busy: Dur,
    /// The last two packet sizes and their serialisation times: a link carries few packet
    /// sizes, and the time is needed twice per packet. (Sizes of 2^32 - 1 bytes or more, which
    /// no scenario allows, are never cached.)
    tx_sizes: [u32; 2],
    tx_durs: [Dur; 2],
    /// Whether the discipline was told (by an empty dequeue) that the link went idle.
    pub idle_noted: bool,
    /// Whether the link's loss model can lose packets on the wire (for Bernoulli, `loss > 0`).
    pub lossy: bool,
    /// The discipline decides at dequeue or is not a FIFO: the general path (see above).
    pub general: bool,
    /// General path: an event for the end of the current serialisation is pending.
    pub tx_pending: bool,
    /// General path: the serialisation's number, which its event carries.
    pub tx_gen: u32,
    // -- line 1 on: the discipline (see above) --
    pub qdisc: Qdisc,
    // -- touched when queues form, or rarely --
    pub rate: Rate,
    /// Random loss on the wire: the link's loss model and its state.
    pub loss: LossProcess,
    /// The packets in flight without an event yet, in order, behind those that have one (see
    /// [`InFlight`]); boxed, since few links ever have any.
    #[allow(clippy::box_collection)]
    behind: Option<Box<VecDeque<InFlight>>>,
    /// The device queue between the discipline and the transmitter (`device_queue`), if the
    /// link has one (general path only); boxed, as few links do.
    pub dev: Option<Box<DeviceQueue>>,
    /// The rate and delay schedule (general path only); boxed, as few links have one.
    pub sched: Option<Box<fairway_model::scenario::LinkSchedule>>,
    /// A scheduled link's latest arrival at its far end.
    pub last_arrival: Time,
    /// The jitter model's random stream (`jitter:` and the link's name), with `jitter` only.
    pub jitter_rng: Option<Box<Rng>>,
    pub integ: QueueIntegral,
    /// The discipline's own random stream (RED draws from it).
    pub rng: Rng,
    /// Packets the loss model took, and its own stream.
    pub lost: u64,
    pub loss_rng: Rng,
    pub from: NodeId,
    pub to: NodeId,
    /// The time packets waited before their serialisation began, summed over the packets
    /// that waited at all, and the longest wait ([`LinkState::sojourn`]).
    pub wait_sum: u128,
    pub wait_max: Dur,
}

/// The counts a packet's arrival at a link's far end updates, kept apart from [`LinkState`] in
/// a dense array, four links to a cache line: on a topology with tens of thousands of access
/// links, a link's own lines are out of the caches again by the time its packet has crossed
/// (milliseconds and thousands of events later), and reading one of them there was a cache
/// miss on every hop. Counts fit 32 bits: a packet in flight holds one of the arena's 2^32
/// slots.
#[derive(Debug, Clone, Copy, Default)]
pub struct LinkEnd {
    /// Packets handed to the far node.
    pub delivered: u64,
    /// Admitted packets not yet at the far end (waiting, being serialised or propagating).
    pub inflight: u32,
    /// Of those, the ones waiting in [`LinkState`]'s FIFO (see [`InFlight`]).
    pub behind: u32,
}

/// Packets on their way across a link with many in flight (a long queue, a long fat pipe) wait
/// here rather than in the event queue: a link's packets reach its far end in the order they
/// were admitted, so only the first of them needs an event, and the next is scheduled when it
/// arrives, with the insertion number it was given at admission, so the order of events is
/// exactly as if each had been scheduled then. A sequential buffer per busy link is kinder to
/// the caches than ~10^5 events spread over the event queue's buckets.
#[derive(Debug, Clone, Copy)]
pub struct InFlight {
    pub at: Time,
    pub seq: u64,
    pub pkt: PacketRef,
    /// The link it takes next (see the simulator's `Ev::Arrive`).
    pub next: u32,
}

/// In flight from which a link's further packets wait in [`LinkState::behind`].
pub const BEHIND_FROM: u64 = 128;

/// A FIFO of at most `cap` packets between a link's discipline and its transmitter: the
/// transmit queue of ns-3.37's PointToPointNetDevice under a traffic-control queue disc. The
/// discipline hands it a packet only when it has room (ns-3's NetDeviceQueue is stopped when
/// full, and QueueDisc::Run dequeues only while it is not), so it never drops; the transmitter
/// serialises its head whenever it is free (PointToPointNetDevice::TransmitStart, then
/// TransmitComplete taking the next). `Sim::device_arrival`, `Sim::serve_device` and
/// `Sim::feed_device` run it.
#[derive(Debug)]
pub struct DeviceQueue {
    cap: usize,
    /// The packets as the discipline gave them (with its CE mark), oldest first.
    pkts: VecDeque<Departure>,
    bytes: u64,
}

impl DeviceQueue {
    pub fn new(cap: u32) -> DeviceQueue {
        let cap = cap as usize;
        DeviceQueue { cap, pkts: VecDeque::with_capacity(cap.min(64)), bytes: 0 }
    }

    #[inline]
    pub fn has_room(&self) -> bool {
        self.pkts.len() < self.cap
    }

    /// Takes a packet the discipline gave; the caller checks [`DeviceQueue::has_room`] first.
    #[inline]
    pub fn push(&mut self, d: Departure) {
        debug_assert!(self.has_room(), "a device queue is only fed while it has room");
        self.bytes += d.size.0;
        self.pkts.push_back(d);
    }

    /// The packet the transmitter takes next.
    #[inline]
    pub fn pop(&mut self) -> Option<Departure> {
        let d = self.pkts.pop_front()?;
        self.bytes -= d.size.0;
        Some(d)
    }

    pub fn len(&self) -> usize {
        self.pkts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pkts.is_empty()
    }

    pub fn bytes(&self) -> Bytes {
        Bytes(self.bytes)
    }
}

/// A schedule's jitter model.
fn s_jitter(s: Option<&fairway_model::scenario::LinkSchedule>) -> Option<fairway_model::scenario::Jitter> {
    s.and_then(|s| s.jitter)
}

impl LinkState {
    /// The link `spec` with its discipline; its random streams (the discipline's, the loss
    /// model's) derive from the scenario seed and the link's name (`name` gives it). A stream
    /// that can never be drawn from (DropTail's; the loss model's when there is no loss) is left
    /// underived: with tens of thousands of access links, naming and hashing them all was a
    /// visible part of setting up a run, and a stream never drawn changes no result.
    pub fn new(spec: &LinkSpec, qdisc: Qdisc, seed: u64, name: impl Fn() -> String) -> LinkState {
        let unused = || Rng::from_seed(0);
        let rng = if qdisc.draws() { Rng::stream(seed, &format!("queue:{}", name())) } else { unused() };
        let loss_rng = if spec.loss.can_lose() { Rng::stream(seed, &format!("loss:{}", name())) } else { unused() };
        let dev = (spec.device_queue > 0).then(|| Box::new(DeviceQueue::new(spec.device_queue)));
        // A schedule changes the rate between a packet's admission and its serialisation, which
        // only the general path (each departure computed when the transmitter takes it) follows.
        let general = !qdisc.departure_known_on_admission() || dev.is_some() || spec.schedule.is_some();
        LinkState {
            general,
            tx_pending: false,
            tx_gen: 0,
            wait_sum: 0,
            wait_max: Dur::ZERO,
            from: spec.from,
            to: spec.to,
            rate: spec.rate,
            delay: spec.delay,
            qdisc,
            rng,
            free_at: Time::ZERO,
            tail_end: Time::ZERO,
            idle_noted: true,
            loss: LossProcess::new(spec.loss),
            lossy: spec.loss.can_lose(),
            lost: 0,
            loss_rng,
            busy: Dur::ZERO,
            integ: QueueIntegral::default(),
            tx_sizes: [u32::MAX; 2],
            tx_durs: [Dur::ZERO; 2],
            behind: None,
            dev,
            jitter_rng: spec
                .schedule
                .as_ref()
                .and_then(|s| s.jitter)
                .map(|_| Box::new(Rng::stream(seed, &format!("jitter:{}", name())))),
            sched: spec.schedule.clone(),
            last_arrival: Time::ZERO,
        }
    }

    /// A scheduled link at `now`, as the transmitter takes a packet of `size`: the rate in
    /// force now serialises it (a change during its serialisation takes effect with the next
    /// packet), the delay in force as it enters the wire propagates it, plus the jitter model's
    /// draw if there is one, and it arrives no sooner than its serialisation time after the
    /// packet before it, the wire being a FIFO (a fall in delay or a smaller draw does not let a
    /// packet overtake: RFC 8868 §4.5.2's NR-BPDV). Its serialisation time and arrival.
    #[inline(never)]
    pub fn scheduled_departure(&mut self, now: Time, size: fairway_core::Bytes) -> (Dur, Time) {
        let s = self.sched.as_deref().expect("a scheduled link");
        if let Some(r) = s.rate_at(now) {
            if r != self.rate {
                self.rate = r;
                self.tx_sizes = [u32::MAX; 2];
            }
        }
        let d = self.tx_time(size);
        if let Some(delay) = self.sched.as_deref().and_then(|s| s.delay_at(now + d)) {
            self.delay = delay;
        }
        let extra = match (s_jitter(self.sched.as_deref()), self.jitter_rng.as_deref_mut()) {
            (Some(j), Some(rng)) => j.sample(rng),
            _ => Dur::ZERO,
        };
        let at = (now + d + self.delay + extra).max(self.last_arrival + d);
        self.last_arrival = at;
        (d, at)
    }

    /// Serialisation time of `size` bytes on this link.
    #[inline]
    pub fn tx_time(&mut self, size: fairway_core::Bytes) -> Dur {
        let key = u32::try_from(size.0).unwrap_or(u32::MAX);
        if key == u32::MAX {
            return self.rate.tx_time(size);
        }
        if self.tx_sizes[0] == key {
            return self.tx_durs[0];
        }
        if self.tx_sizes[1] != key {
            self.tx_sizes[1] = key;
            self.tx_durs[1] = self.rate.tx_time(size);
        }
        self.tx_sizes.swap(0, 1);
        self.tx_durs.swap(0, 1);
        self.tx_durs[0]
    }

    /// Puts a packet in flight at the back of the FIFO ([`LinkEnd::behind`] counts them).
    pub fn push_behind(&mut self, f: InFlight) {
        self.behind.get_or_insert_with(Default::default).push_back(f);
    }

    /// The first packet of the FIFO, if any.
    #[inline]
    pub fn pop_behind(&mut self) -> Option<InFlight> {
        self.behind.as_mut()?.pop_front()
    }

    /// Makes the dequeues that have happened by `now`: each waiting packet leaves the queue when
    /// the transmitter takes it, at `free_at`; an emptied queue is dequeued once more when the
    /// transmitter goes idle. Calls must come in time order.
    #[inline]
    pub fn advance(&mut self, now: Time) {
        // Nothing to do, the common case on an access link: the transmitter is busy, or idle
        // with an empty queue that knows it. Checked apart from the loop: compiled together,
        // the loop's loads of the queue integrals were hoisted in front of it, two cache lines
        // read on every call, needed or not. Apart, the run at 10 000 flows has 11% fewer
        // last-level read misses (valgrind's cachegrind, 16 MB cache).
        if self.free_at > now || (self.qdisc.is_empty() && (self.idle_noted || !self.qdisc.tracks_idle())) {
            return;
        }
        self.dequeue_until(now);
    }

    #[inline(never)]
    fn dequeue_until(&mut self, now: Time) {
        if self.general {
            // Dequeues happen as events there, not here.
            return;
        }
        while self.free_at <= now {
            let t = self.free_at;
            if self.qdisc.is_empty() {
                if !self.idle_noted && self.qdisc.tracks_idle() {
                    // ns-2 REDQueue::deque on an empty queue: the link is idle since t. Only once:
                    // a later empty dequeue would move RED's idle time.
                    self.integ.advance(t);
                    let _ = self.qdisc.dequeue(t);
                    self.idle_noted = true;
                    self.integ.len = 0;
                }
                break;
            }
            self.integ.advance(t);
            if let Some(dep) = self.qdisc.dequeue(t) {
                let d = self.tx_time(dep.size);
                self.free_at = t + d;
                self.busy += d;
            }
            // A dequeue changes the queue, not the discipline's average (RED's moves on arrivals).
            self.integ.len = self.qdisc.len() as u64;
        }
    }

    /// Admits a packet the discipline accepted at `now`: the time it reaches the far end
    /// (after the packets ahead of it and its own serialisation, then the delay).
    pub fn admit(&mut self, now: Time, size: fairway_core::Bytes) -> Time {
        self.idle_noted = false;
        let start = self.tail_end.max(now);
        if start > now {
            self.waited(start - now);
        }
        self.tail_end = start + self.tx_time(size);
        self.tail_end + self.delay
    }

    /// A packet waited `d` before its serialisation began.
    #[inline]
    pub fn waited(&mut self, d: Dur) {
        self.wait_sum += d.0 as u128;
        self.wait_max = self.wait_max.max(d);
    }

    /// Call before the queue changes: accumulates the time-weighted queue and average.
    #[inline]
    pub fn integrate(&mut self, now: Time) {
        self.integ.advance(now);
    }

    /// Call after the queue changed.
    #[inline]
    pub fn observe(&mut self) {
        self.integ.len = self.qdisc.len() as u64;
        if let Some(a) = self.qdisc.average_pkts() {
            self.integ.avg = a;
        }
    }

    /// [`LinkState::observe`] on the general path, where a device queue's packets count among
    /// those waiting. (Always inlined, as `observe` is where it is called: out of line, its
    /// call cost the general path 0.6% more instructions.)
    #[inline(always)]
    pub fn observe_general(&mut self) {
        self.observe();
        if let Some(dev) = &self.dev {
            self.integ.len += dev.len() as u64;
        }
    }

    /// Packets waiting for the transmitter: in the discipline and in the device queue.
    pub fn queue_len(&self) -> usize {
        self.qdisc.len() + self.dev.as_ref().map_or(0, |d| d.len())
    }

    /// Their bytes.
    pub fn queue_bytes(&self) -> Bytes {
        Bytes(self.qdisc.bytes().0 + self.dev.as_ref().map_or(0, |d| d.bytes().0))
    }

    /// The discipline's counters, the link's buffer being the discipline and the device queue:
    /// a packet departs when its serialisation starts, not when the discipline hands it to the
    /// device queue.
    pub fn stats(&self) -> QueueStats {
        let mut s = *self.qdisc.stats();
        if let Some(dev) = &self.dev {
            s.departures_pkts -= dev.len() as u64;
            s.departures_bytes -= dev.bytes().0;
        }
        s
    }
}

/// Time integrals of the instantaneous queue (packets waiting) and of the discipline's average,
/// both piecewise constant between arrivals and departures. The queue's integral is kept exactly,
/// in packet-nanoseconds; the average's in packet-nanoseconds as a float. No division on the way
/// (this runs several times per packet).
#[derive(Debug, Clone, Default)]
pub struct QueueIntegral {
    pub last: Time,
    pub len: u64,
    pub avg: f64,
    pub len_area: u128,
    pub avg_area: f64,
}

impl QueueIntegral {
    #[inline]
    pub fn advance(&mut self, now: Time) {
        let dt = now.0.saturating_sub(self.last.0);
        self.len_area += self.len as u128 * dt as u128;
        self.avg_area += self.avg * dt as f64;
        self.last = now;
    }

    /// The integrals over [0, t] (`t` at or after the last change).
    pub fn areas(&self, t: Time) -> (u128, f64) {
        let mut c = self.clone();
        c.advance(t);
        (c.len_area, c.avg_area)
    }

    /// Time-averages over [from, end], given the integrals up to `from` (`areas(from)`).
    pub fn means_since(&self, from: Time, base: (u128, f64), end: Time) -> (f64, f64) {
        let (len, avg) = self.areas(end);
        let span = end.0.saturating_sub(from.0);
        if span == 0 {
            return (0.0, 0.0);
        }
        ((len - base.0) as f64 / span as f64, (avg - base.1) / span as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    /// RFC 8868 §4.5.2's NR-BPDV on a link: packets taken back to back get their draws (0 to
    /// 15 ms) but none arrives sooner than its serialisation time after the one ahead, so the
    /// arrivals never reorder; and the draws do delay them (some arrive later than the path's
    /// constant part).
    #[test]
    fn jittered_departures_keep_their_order_and_spacing() {
        use fairway_model::scenario::{Jitter, LinkSchedule, LinkSpec};
        let spec = LinkSpec {
            from: fairway_core::NodeId(0),
            to: fairway_core::NodeId(1),
            rate: fairway_core::Rate::from_bps(10_000_000),
            delay: Dur::from_millis(10),
            queue: fairway_aqm::QueueSpec::default(),
            loss: fairway_model::scenario::LossModel::NONE,
            device_queue: 0,
            schedule: Some(Box::new(LinkSchedule { jitter: Some(Jitter::RFC8868), ..LinkSchedule::default() })),
        };
        let qdisc = spec.queue.build(spec.rate, spec.delay).unwrap();
        let mut l = LinkState::new(&spec, qdisc, 1, || "a->b".into());
        assert!(l.general);
        let d = Dur(800_000); // 1000 B at 10 Mb/s
        let (mut last, mut later) = (Time::ZERO, 0);
        for k in 0..10_000u64 {
            let now = Time(k * d.0);
            let (tx, at) = l.scheduled_departure(now, fairway_core::Bytes(1000));
            assert_eq!(tx, d);
            assert!(at >= last + d, "packet {k} at {at} within a serialisation of the one before at {last}");
            assert!(at >= now + d + spec.delay);
            if at > now + d + spec.delay + Dur::from_millis(1) {
                later += 1;
            }
            last = at;
        }
        assert!(later > 5_000, "{later} of 10 000 delayed by the draws");
    }

    /// The layout `LinkState`'s comment describes: what a packet touches on a link with an
    /// empty DropTail queue and an idle transmitter fits the first two cache lines, the
    /// transmitter's fields the first, the discipline's tag and DropTail's first fields the
    /// second.
    #[test]
    fn an_idle_links_fields_fit_two_cache_lines() {
        use fairway_aqm::DropTail;
        assert_eq!(std::mem::align_of::<LinkState>(), 64);
        assert!(offset_of!(LinkState, lossy) < 64, "the transmitter's fields end in the first line");
        assert_eq!(offset_of!(LinkState, qdisc), 64);
        // `repr(u8)`: the tag, then DropTail (the largest variant) at its alignment.
        let droptail_at = size_of::<Qdisc>() - size_of::<DropTail>();
        assert_eq!(droptail_at, std::mem::align_of::<DropTail>());
        let touched_end = 64 + droptail_at + DropTail::PASS_THROUGH_BYTES;
        assert!(touched_end <= 2 * 64, "DropTail's fields for an arrival end at byte {touched_end}");
    }
}
