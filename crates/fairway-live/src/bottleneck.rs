//! The emulated bottleneck's link, sans-IO: a queue discipline of fairway-aqm in front of a
//! transmitter of `rate`, then `delay` of propagation and a loss model on the wire (Bernoulli or
//! Gilbert-Elliott, fairway-model's `loss_model`), with the
//! simulator's semantics (docs/architecture.md, "Simulation semantics"): store and forward, the queue in
//! front of the link, the discipline asked for the next packet whenever the transmitter frees
//! (an empty dequeue included: that is how RED learns the link went idle, and when).
//!
//! The link keeps its own timeline. Its caller hands it packets as they arrive ([`Link::arrive`])
//! and asks it, whenever it wakes, for those whose time has come ([`Link::release`]); a packet
//! leaves at the exact time its serialisation and propagation end, however late the caller
//! wakes, so the rate holds even when the caller's timers are coarse.

use std::collections::VecDeque;

use fairway_aqm::{PacketMeta, Qdisc, QueueDiscipline, QueueStats, Verdict};
use fairway_core::{Bytes, Dur, PacketRef, Rate, Rng, Time};
use fairway_model::loss_model::{LossModel, LossProcess};
use fairway_model::scenario::LinkSchedule;

/// How one direction of the bottleneck behaves.
#[derive(Debug, Clone)]
pub struct LinkConfig {
    pub rate: Rate,
    pub delay: Dur,
    /// What loses packets on the wire after their serialisation.
    pub loss: LossModel,
    /// A rate and delay that change over time (from the link's start), as the simulator's.
    pub schedule: Option<Box<LinkSchedule>>,
}

/// What a link has done beyond its discipline's counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LinkCounts {
    /// Packets its loss model took on the wire.
    pub lost_pkts: u64,
    /// Packets that reached its far end, and their bytes.
    pub delivered_pkts: u64,
    pub delivered_bytes: u64,
    /// Time its transmitter was busy.
    pub busy: Dur,
    /// Packets whose serialisation began, their summed waits in the queue before it, and the
    /// longest wait (the simulator's sojourn).
    pub waited_pkts: u64,
    pub wait_sum: Dur,
    pub wait_max: Dur,
}

/// A packet and whether the discipline marked it CE.
#[derive(Debug)]
pub struct Packet {
    pub bytes: Vec<u8>,
    pub meta: PacketMeta,
    pub ce: bool,
}

/// A link's queue at a moment: what it holds, the discipline's smoothed queue (RED's average),
/// and its counters so far.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    pub t: Time,
    pub queue_pkts: usize,
    pub queue_bytes: u64,
    pub avg_queue_pkts: Option<f64>,
    pub stats: QueueStats,
}

/// One simplex link of the emulator.
pub struct Link {
    cfg: LinkConfig,
    queue: Qdisc,
    rng: Rng,
    /// The loss model's state (Gilbert-Elliott's chain); it draws from `rng`.
    loss: LossProcess,
    /// The packets the queue holds, by the reference the discipline keeps; free slots reused.
    held: Vec<Option<Packet>>,
    /// When each held packet arrived, by the same slot.
    arrived: Vec<Time>,
    free: Vec<u32>,
    /// The packet being serialised, when that ends and how long it takes.
    on_wire: Option<(Time, Dur, Packet)>,
    /// Packets propagating, in order of arrival at the far end (with a delay schedule or jitter,
    /// none arrives sooner than its serialisation time after the one ahead of it).
    flight: VecDeque<(Time, Packet)>,
    /// The latest arrival at the far end.
    last_arrival: Time,
    counts: LinkCounts,
}

impl Link {
    pub fn new(cfg: LinkConfig, queue: Qdisc, rng: Rng) -> Link {
        Link {
            loss: LossProcess::new(cfg.loss),
            cfg,
            queue,
            rng,
            held: vec![],
            arrived: vec![],
            free: vec![],
            on_wire: None,
            flight: VecDeque::new(),
            last_arrival: Time::ZERO,
            counts: LinkCounts::default(),
        }
    }

    /// A packet arrives at `now` (no earlier than the last call's `now`): the discipline's
    /// verdict. A refused packet is gone.
    pub fn arrive(&mut self, now: Time, pkt: Packet) -> Verdict {
        self.catch_up(now);
        let slot = match self.free.pop() {
            Some(i) => i,
            None => {
                self.held.push(None);
                self.arrived.push(now);
                (self.held.len() - 1) as u32
            }
        };
        let meta = pkt.meta;
        self.held[slot as usize] = Some(pkt);
        self.arrived[slot as usize] = now;
        let verdict = self.queue.enqueue(now, &meta, PacketRef(slot), &mut self.rng);
        match verdict {
            Verdict::Drop(_) => {
                self.take(slot);
            }
            Verdict::EnqueueMarked => {
                if let Some(p) = self.held[slot as usize].as_mut() {
                    p.ce = true;
                }
            }
            Verdict::Enqueue => {}
        }
        self.discard_dropped();
        if self.on_wire.is_none() {
            self.start_next(now);
        }
        verdict
    }

    fn take(&mut self, slot: u32) -> Option<Packet> {
        let p = self.held.get_mut(slot as usize)?.take();
        self.free.push(slot);
        p
    }

    /// Packets the discipline threw away after taking them (CoDel, FQ-CoDel) are gone too.
    fn discard_dropped(&mut self) {
        while let Some(d) = self.queue.take_dropped() {
            self.take(d.pkt.0);
        }
    }

    /// The transmitter is free at `t`: the discipline gives the next packet, if any.
    fn start_next(&mut self, t: Time) {
        let next = self.queue.dequeue(t);
        self.discard_dropped();
        if let Some(d) = next {
            let wait = t - self.arrived[d.pkt.0 as usize];
            if let Some(mut p) = self.take(d.pkt.0) {
                self.counts.waited_pkts += 1;
                self.counts.wait_sum += wait;
                self.counts.wait_max = self.counts.wait_max.max(wait);
                p.ce |= d.mark;
                // The rate in force as serialisation begins (the simulator's rule).
                let rate = self.cfg.schedule.as_deref().and_then(|s| s.rate_at(t)).unwrap_or(self.cfg.rate);
                let tx = rate.tx_time(Bytes(p.bytes.len() as u64));
                self.counts.busy += tx;
                self.on_wire = Some((t + tx, tx, p));
            }
        }
    }

    /// Runs the link's timeline up to `now`: serialisations that ended put their packet on the
    /// wire (or lose it) and free the transmitter at that very time.
    fn catch_up(&mut self, now: Time) {
        while let Some((end, _, _)) = &self.on_wire {
            let end = *end;
            if end > now {
                break;
            }
            let (_, tx, p) = self.on_wire.take().expect("a packet on the wire");
            if self.cfg.loss.can_lose() && self.loss.lose(&mut self.rng) {
                self.counts.lost_pkts += 1;
            } else {
                // The simulator's rule (its LinkState::scheduled_departure): the delay in force
                // as the packet enters the wire, the jitter model's draw, and no sooner than its
                // serialisation time after the packet ahead (RFC 8868 §4.5.2's NR-BPDV).
                let s = self.cfg.schedule.as_deref();
                let delay = s.and_then(|s| s.delay_at(end)).unwrap_or(self.cfg.delay);
                let extra = s.and_then(|s| s.jitter).map_or(Dur::ZERO, |j| j.sample(&mut self.rng));
                let at = if s.is_some() { (end + delay + extra).max(self.last_arrival + tx) } else { end + delay };
                self.last_arrival = at;
                self.flight.push_back((at, p));
            }
            self.start_next(end);
        }
    }

    /// The next packet to reach the far end by `now`, in order.
    pub fn release(&mut self, now: Time) -> Option<Packet> {
        self.catch_up(now);
        if self.flight.front().is_some_and(|(at, _)| *at <= now) {
            let (_, p) = self.flight.pop_front()?;
            self.counts.delivered_pkts += 1;
            self.counts.delivered_bytes += p.bytes.len() as u64;
            return Some(p);
        }
        None
    }

    /// When the link next has something to do: a serialisation ends or a packet arrives.
    pub fn next_wake(&self) -> Option<Time> {
        let wire = self.on_wire.as_ref().map(|(t, _, _)| *t);
        let far = self.flight.front().map(|(t, _)| *t);
        wire.into_iter().chain(far).min()
    }

    pub fn stats(&self) -> &QueueStats {
        self.queue.stats()
    }

    pub fn counts(&self) -> LinkCounts {
        self.counts
    }

    /// Packets waiting in the queue (not the one on the wire).
    pub fn queue_len(&self) -> usize {
        self.queue.len()
    }

    /// The queue's state and counters at `now`, as the simulator's monitor samples them.
    pub fn sample(&mut self, now: Time) -> Sample {
        self.catch_up(now);
        Sample {
            t: now,
            queue_pkts: self.queue.len(),
            queue_bytes: self.queue.bytes().0,
            avg_queue_pkts: self.queue.average_pkts(),
            stats: *self.queue.stats(),
        }
    }

    /// Packets past the queue and not yet delivered: the one on the wire and those
    /// propagating.
    pub fn in_flight(&self) -> usize {
        self.on_wire.is_some() as usize + self.flight.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fairway_aqm::{Class, DropTail, DropTailParams, Limit};
    use fairway_core::FlowId;

    fn link(rate_bps: u64, delay_ms: u64, limit: u32, loss: f64) -> Link {
        let q = DropTail::new(DropTailParams { limit: Limit::Packets(limit) }).unwrap();
        let cfg = LinkConfig {
            rate: Rate::from_bps(rate_bps),
            delay: Dur::from_millis(delay_ms),
            loss: LossModel::Bernoulli(loss),
            schedule: None,
        };
        Link::new(cfg, Qdisc::DropTail(q), Rng::stream(1, "test"))
    }

    fn packet(n: u8, size: usize) -> Packet {
        let meta = PacketMeta { size: Bytes(size as u64), ecn_capable: false, flow: FlowId(0), class: Class::Tcp };
        Packet { bytes: vec![n; size], meta, ce: false }
    }

    fn ms(t: u64) -> Time {
        Time(t * 1_000_000)
    }

    #[test]
    fn packets_leave_when_serialisation_and_delay_end_in_order_however_late_asked() {
        // 1250 B at 1 Mb/s: 10 ms each; 10 ms of delay. Ten arrive at once: one goes on the
        // wire and four wait (ns-2's DropTail holds limit - 1 beside the one on the wire), five
        // are refused.
        let mut l = link(1_000_000, 10, 5, 0.0);
        let verdicts: Vec<Verdict> = (0..10).map(|n| l.arrive(Time(0), packet(n, 1250))).collect();
        assert_eq!(verdicts.iter().filter(|v| matches!(v, Verdict::Drop(_))).count(), 5);
        assert_eq!(l.next_wake(), Some(ms(10)), "the first serialisation ends");
        assert!(l.release(ms(19)).is_none(), "not before its delay has passed");
        assert_eq!(l.release(ms(20)).map(|p| p.bytes[0]), Some(0));
        // Asked only at 100 ms: the others left at 30, 40, 50 and 60 ms, in order.
        let late: Vec<u8> = std::iter::from_fn(|| l.release(ms(100))).map(|p| p.bytes[0]).collect();
        assert_eq!(late, [1, 2, 3, 4]);
        assert_eq!(l.counts().busy, Dur::from_millis(50));
        // The first did not wait; the others waited 10, 20, 30 and 40 ms for the transmitter.
        let c = l.counts();
        assert_eq!((c.waited_pkts, c.wait_sum, c.wait_max), (5, Dur::from_millis(100), Dur::from_millis(40)));
        assert_eq!(l.next_wake(), None);
        let s = l.stats();
        assert_eq!((s.arrivals_pkts, s.departures_pkts, s.overflow_drops), (10, 5, 5));
    }

    #[test]
    fn a_schedule_sets_the_rate_at_each_serialisation_and_a_fall_in_delay_reorders_nothing() {
        // 1250 B: 10 ms at 1 Mb/s, 5 ms at 2 Mb/s from 15 ms; delay 30 ms, then 0 from 25 ms.
        let q = DropTail::new(DropTailParams { limit: Limit::Packets(10) }).unwrap();
        let schedule = LinkSchedule {
            rate: vec![(Time(0), Rate::from_bps(1_000_000)), (ms(15), Rate::from_bps(2_000_000))],
            delay: vec![(Time(0), Dur::from_millis(30)), (ms(25), Dur::ZERO)],
            jitter: None,
        };
        let cfg = LinkConfig {
            rate: Rate::from_bps(1_000_000),
            delay: Dur::from_millis(30),
            loss: LossModel::NONE,
            schedule: Some(Box::new(schedule)),
        };
        let mut l = Link::new(cfg, Qdisc::DropTail(q), Rng::stream(1, "test"));
        for n in 0..4 {
            l.arrive(Time(0), packet(n, 1250));
        }
        // Serialisations: 0-10 and 10-20 ms at 1 Mb/s (the second began before 15 ms), then
        // 20-25 and 25-30 ms at 2 Mb/s. On the wire: 10 + 30 = 40 ms, 20 + 30 = 50 ms; the third
        // enters at 25 ms with no delay, but arrives its own 5 ms of serialisation after the
        // second, at 55 ms; the fourth 5 ms after that, at 60 ms.
        assert_eq!(l.release(ms(40)).map(|p| p.bytes[0]), Some(0));
        assert_eq!(l.release(ms(50)).map(|p| p.bytes[0]), Some(1));
        assert_eq!(l.next_wake(), Some(ms(55)), "the third arrives behind the second");
        assert_eq!(l.release(ms(54)).map(|p| p.bytes[0]), None);
        assert_eq!(l.release(ms(55)).map(|p| p.bytes[0]), Some(2));
        assert_eq!(l.next_wake(), Some(ms(60)), "and the fourth behind the third");
        assert_eq!(l.release(ms(60)).map(|p| p.bytes[0]), Some(3));
        assert_eq!(l.counts().busy, Dur::from_millis(30));
        assert!(l.release(ms(100)).is_none());
    }

    #[test]
    fn an_idle_link_starts_at_the_arrival_and_a_busy_one_when_it_frees() {
        let mut l = link(1_000_000, 0, 10, 0.0);
        l.arrive(ms(5), packet(0, 1250));
        l.arrive(ms(8), packet(1, 1250));
        assert_eq!(l.next_wake(), Some(ms(15)));
        assert_eq!(l.release(ms(15)).map(|p| p.bytes[0]), Some(0));
        assert_eq!(l.next_wake(), Some(ms(25)), "the second waited for the first");
        // Idle from 25 to 40 ms: the next starts when it arrives.
        assert_eq!(l.release(ms(40)).map(|p| p.bytes[0]), Some(1));
        l.arrive(ms(40), packet(2, 125));
        assert_eq!(l.next_wake(), Some(ms(41)));
    }

    #[test]
    fn the_loss_model_takes_packets_after_their_serialisation() {
        let mut l = link(8_000_000, 1, 100, 1.0);
        for n in 0..5 {
            l.arrive(Time(0), packet(n, 1000));
        }
        assert!(l.release(ms(100)).is_none());
        assert_eq!(l.counts().lost_pkts, 5);
        assert_eq!(l.counts().busy, Dur::from_millis(5), "each still took its time on the wire");
    }

    /// A Gilbert-Elliott chain that changes state at every packet (p = r = 1) and loses all in
    /// Bad only (k = 1, h = 0): starting in Good, every second packet is lost, so the link keeps
    /// the chain's state from packet to packet.
    #[test]
    fn a_gilbert_elliott_link_loses_by_its_chains_state() {
        use fairway_model::loss_model::GilbertElliott;
        let mut l = link(8_000_000, 1, 100, 0.0);
        l.cfg.loss = LossModel::GilbertElliott(GilbertElliott::new(1.0, 1.0, 1.0, 0.0).unwrap());
        l.loss = LossProcess::new(l.cfg.loss);
        for n in 0..5 {
            l.arrive(Time(0), packet(n, 1000));
        }
        let kept: Vec<u8> = std::iter::from_fn(|| l.release(ms(100))).map(|p| p.bytes[0]).collect();
        assert_eq!(kept, [0, 2, 4]);
        assert_eq!(l.counts().lost_pkts, 2);
    }
}
