//! The event loop: links, agents and applications of one scenario, run to its end.
//!
//! Semantics follow ns-2 where results depend on them (docs/architecture.md, "Simulation semantics"):
//! a packet arriving at a link is offered to the queue discipline; if the transmitter is idle
//! the head is taken at once (ns-2 Queue::recv); when serialisation ends the packet propagates
//! for the link's delay and the next one is taken (ns-2 LinkDelay + Queue::resume). Routing is
//! static, per flow; nodes forward in zero time.

use std::sync::atomic::{AtomicBool, Ordering};

use fairway_aqm::{Departure, PacketMeta, QueueDiscipline, Verdict};
use fairway_core::{Bytes, Dur, FlowId, NodeId, PacketRef, Rng, Time};

use fairway_proto::AgentState;

pub(crate) use crate::driver::Side;
use crate::driver::{FlowDriver, Header, Io, Outgoing, TimerId, TransportCounters};
use crate::events::EventQueue;
use crate::link::{DeviceQueue, InFlight, LinkEnd, LinkState, BEHIND_FROM};
use crate::monitor::{FlowCounters, FlowMonitor, LinkCheck};
use crate::ns2_clock;
use crate::packet::{Arena, Packet};
use crate::packet_trace::{PacketOp, PacketTraceSpec, PacketTracer};
use crate::prefetch::{prefetch, prefetch_lines};
use crate::results::{AgentRow, BinRow, QueueRow, SeriesSink};
use crate::routing::Router;
use crate::scenario::Scenario;
use crate::warmup::{Baseline, FlowBase, LinkBase};
use crate::SimError;

use crate::wireless::event_loop::{AirEv, EventLoop};
use crate::wireless::net::Air;

/// Traced state changes handed to the sink at once, at most: a bin's worth of them could be
/// millions with thousands of flows.
const AGENT_BATCH: usize = 1 << 16;

/// Marks the end of a route in the flat route table.
const END_OF_ROUTE: u32 = u32::MAX;

/// A route entry that crosses the wireless network to the scenario node in its low bits.
const AIR: u32 = 1 << 30;

/// In an arrival event's next hop, marks the last hop; the other bits are then the packet's
/// flow (see [`Ev::Arrive`]). Links and flows number fewer than 2^31.
const LAST_HOP: u32 = 1 << 31;

/// What happens next. Small and `Copy`: the event queue moves these around.
#[derive(Debug, Clone, Copy, Default)]
enum Ev {
    /// A packet reaches the far end of a link: (link, packet, next), where next is the link
    /// it takes next or, at its last hop, [`LAST_HOP`] | its flow. Next is looked up in the
    /// route when the packet is admitted, so that the loop can prefetch the next link, or the
    /// flow's state, an event ahead, and the arrival need not wait for the route table (at
    /// thousands of flows, these were cache misses the arrival waited for). It costs nothing in
    /// size: an event is padded to 16 bytes anyway.
    Arrive(u32, u32, u32),
    /// A flow's timer (its driver's [`TimerId`], valid only while `gen` matches: re-armed
    /// timers leave stale entries, which the driver ignores).
    Timer {
        flow: u32,
        conn: u32,
        side: Side,
        gen: u32,
    },
    /// A data packet's source host delay is over: it enters the first link (`send_jitter`).
    Release(u32),
    /// A link on the general path has finished serialising a packet: its discipline gives the
    /// next (see `link.rs`); valid only while the generation (the second field) matches the
    /// link's, as a departure may have been taken earlier by [`Sim::catch_up`].
    TxDone(u32, u32),
    FlowStart(u32),
    FlowStop(u32),
    #[default]
    QueueSample,
    BinEnd(u32),
    /// Traced state changes have gathered a batch ([`AGENT_BATCH`]): hand them to the sink.
    Flush,
    /// One of the wireless stack's events, packed in three words ([`AirEv::pack`]), for
    /// [`Air::handle`].
    Air(u32, u32, u32),
    /// The warm-up is over: the counters as they stand are the summary's zero.
    Measure,
}

// Kept to 16 bytes, the size the event queue's entries are laid out for (a wireless event
// travels as three words, [`AirEv::pack`]).
const _: () = assert!(std::mem::size_of::<Ev>() == 16);

/// A flow's `send_jitter`: the delay's bound, its stream, and when the last packet left (so
/// that none overtakes another).
struct SendJitter {
    max: Dur,
    rng: Rng,
    last: Time,
}

/// A flow's state. `repr(C)` keeps the order, for runs with tens of thousands of flows, where
/// each cache line of a flow is a miss: the routes, the driver and the sender's counters fill
/// the first line (all an acknowledgement and the segments it releases touch), the receiver's
/// counters the next two.
#[repr(C, align(64))]
struct FlowRt {
    fwd: u32,
    rev: u32,
    /// Its endpoints, whatever their protocol.
    drv: Box<dyn FlowDriver>,
    mon: FlowMonitor,
}

pub struct Sim<'a> {
    pub(crate) sc: &'a Scenario,
    now: Time,
    end: Time,
    q: EventQueue<Ev>,
    arena: Arena,
    pub(crate) links: Vec<LinkState>,
    /// Per link, what arrivals at its far end update.
    ends: Vec<LinkEnd>,
    /// Every route, flat: a route is the links of its hops followed by [`END_OF_ROUTE`]; a packet
    /// holds where its route starts.
    routes: Vec<u32>,
    flows: Vec<FlowRt>,
    pub(crate) events: u64,
    bin: Dur,
    nbins: usize,
    /// The rows of the bin that just ended, and the samples just taken, for the sink.
    bin_rows: Vec<BinRow>,
    bin_ready: Option<(usize, Time, Time)>,
    samples: Vec<(usize, QueueRow)>,
    /// Bins whose rows went to the sink.
    bins_emitted: usize,
    /// What a driver's call hands back, emptied by the loop after each call and kept for its
    /// buffers.
    io: Io,
    /// Per flow, its `send_jitter` if it has one; empty when no flow has (then a data packet
    /// goes straight to its first link).
    jitter: Vec<Option<SendJitter>>,
    /// In flight from which a link's further packets wait in its FIFO ([`BEHIND_FROM`]; tests
    /// vary it to show that this changes no result).
    pub(crate) behind_from: u64,
    /// General path: per arena slot, the insertion number reserved for the waiting packet's
    /// arrival at the far end (see `general_arrival`); empty without such links.
    queued_seq: Vec<u64>,
    /// The wireless nodes, their channel and stacks, if the scenario has any.
    air: Option<Box<Air>>,
    /// Per flow, whether its sender's state is traced; empty when nothing is.
    trace: Vec<bool>,
    /// Per flow and connection, the state last traced.
    trace_last: Vec<Vec<AgentState>>,
    /// Traced changes not yet handed to the sink (at most [`AGENT_BATCH`] and a few).
    agent_rows: Vec<AgentRow>,
    /// Per flow, when it starts in this run (its `start`, or drawn after it: `start_spread`).
    starts: Vec<Time>,
    /// Per-packet events on the traced links, when asked for.
    ptrace: Option<Box<PacketTracer>>,
    /// The protocol's packet type of the packet about to be made (`Outgoing::wire_type`), for
    /// the packet tracer: the packet itself has no room for it.
    made_wire_type: Option<u8>,
    /// The counters at the end of the warm-up (`Scenario::measure_from`), once it is over.
    pub(crate) baseline: Option<Box<Baseline>>,
}

impl<'a> Sim<'a> {
    /// Builds the network of a checked scenario. `seed` overrides the scenario's.
    pub fn new(sc: &'a Scenario, seed: u64) -> Result<Sim<'a>, SimError> {
        // Far beyond what memory holds (a link's state alone is hundreds of bytes).
        // Links number fewer than 2^30 so that a route entry can say "across the wireless network".
        assert!(sc.links.len() < AIR as usize && sc.flows.len() < LAST_HOP as usize, "2^30 links or 2^31 flows");
        let mut links = Vec::with_capacity(sc.links.len());
        for (i, l) in sc.links.iter().enumerate() {
            let name = || sc.link_name(i);
            let qdisc = l.queue.build(l.rate, l.delay).map_err(|e| SimError::Param(name(), e))?;
            links.push(LinkState::new(l, qdisc, seed, name));
        }
        let pairs: Vec<_> = sc.links.iter().map(|l| (l.from, l.to)).collect();
        let mut router = Router::new(sc.nodes.len(), &pairs);
        // Reserved: with thousands of flows, growing these by doubling copied megabytes.
        let mut routes = Vec::with_capacity(sc.flows.len() * 8);
        let mut flows = Vec::with_capacity(sc.flows.len());
        let nbins = (sc.duration.0.div_ceil(sc.monitor.bin.0)).max(1) as usize;
        let mut path = vec![];
        let air = sc.wireless.as_ref().map(|w| Box::new(Air::new(w, sc.nodes.len(), seed, &sc.nodes)));
        // What this run's flows share (a coupled group's state exchange): this run's alone.
        let shared = crate::protocol::RunShared::new();
        for f in &sc.flows {
            let mut route = |a: fairway_core::NodeId, b: fairway_core::NodeId| -> Result<u32, SimError> {
                if let Some(air) = &air {
                    // Between wireless nodes: across the wireless network, routed hop by hop.
                    if air.has(a) && air.has(b) {
                        let start = routes.len() as u32;
                        routes.push(AIR | b.0);
                        routes.push(END_OF_ROUTE);
                        return Ok(start);
                    }
                }
                path.clear();
                if !router.route_into(a, b, &mut path) {
                    return Err(SimError::NoRoute(f.name.clone()));
                }
                let start = routes.len() as u32;
                routes.extend(path.iter().map(|&l| l as u32));
                routes.push(END_OF_ROUTE);
                Ok(start)
            };
            let fwd = route(f.from, f.to)?;
            let rev = route(f.to, f.from).unwrap_or(u32::MAX);
            let fi = flows.len() as u32;
            let b = crate::protocol::Build { flow: fi, name: &f.name, seed, wire: sc.wire, shared: &shared };
            let drv = f.app.driver(&b).map_err(|e| SimError::App(f.name.clone(), e))?;
            flows.push(FlowRt { fwd, rev, drv, mon: FlowMonitor::new() });
        }
        let starts = sc.flows.iter().map(|f| f.start_with(seed)).collect();
        let jitter = if sc.flows.iter().any(|f| !f.send_jitter.is_zero()) {
            sc.flows
                .iter()
                .map(|f| {
                    (!f.send_jitter.is_zero()).then(|| SendJitter {
                        max: f.send_jitter,
                        rng: Rng::stream(seed, &format!("send_jitter:{}", f.name)),
                        last: Time::ZERO,
                    })
                })
                .collect()
        } else {
            vec![]
        };
        Ok(Sim {
            sc,
            now: Time::ZERO,
            end: Time(sc.duration.0),
            q: EventQueue::default(),
            arena: Arena::default(),
            ends: vec![LinkEnd::default(); links.len()],
            links,
            routes,
            flows,
            events: 0,
            bin: sc.monitor.bin,
            nbins,
            bin_rows: Vec::with_capacity(sc.flows.len()),
            bin_ready: None,
            samples: Vec::with_capacity(sc.monitor.links.len()),
            bins_emitted: 0,
            io: Io::default(),
            jitter,
            behind_from: BEHIND_FROM,
            queued_seq: vec![],
            air,
            trace: vec![],
            trace_last: vec![],
            agent_rows: vec![],
            starts,
            ptrace: None,
            made_wire_type: None,
            baseline: None,
        })
    }

    /// Runs to the end of the scenario. `progress` is called now and then with the simulated
    /// time reached. When `interrupt` is set (checked as often as `progress` is called), the run
    /// stops at the time reached, which becomes its end: the results cover [0, that time).
    /// Returns whether the run reached the scenario's end.
    pub fn run(
        &mut self,
        progress: &mut dyn FnMut(Time),
        interrupt: Option<&AtomicBool>,
        sink: &mut dyn SeriesSink,
    ) -> bool {
        let mut complete = true;
        if !self.sc.measure_from.is_zero() {
            // First in the queue: what happens at the warm-up's end itself is measured.
            self.q.push(Time::ZERO + self.sc.measure_from, Ev::Measure);
        }
        for (i, f) in self.sc.flows.iter().enumerate() {
            self.q.push(self.starts[i], Ev::FlowStart(i as u32));
            if let Some(stop) = f.stop {
                self.q.push(stop, Ev::FlowStop(i as u32));
            }
            // A pause stops the sender's endpoint and a resume starts it again, its session kept.
            for &(at, until) in &f.pauses {
                self.q.push(at, Ev::FlowStop(i as u32));
                self.q.push(until, Ev::FlowStart(i as u32));
            }
        }
        if !self.sc.monitor.links.is_empty() {
            self.q.push(Time::ZERO, Ev::QueueSample);
        }
        self.q.push((Time::ZERO + self.bin).min(self.end), Ev::BinEnd(0));
        if self.air.is_some() {
            self.air_start();
        }
        // The run covers [0, end): like ns-2's `$ns at $end "finish"`, scheduled before the
        // run, nothing else happens at `end` itself but the last samples.
        while let Some(t) = self.q.peek_time() {
            if t > self.end {
                break;
            }
            let (t, ev) = self.q.pop().expect("peeked");
            if t == self.end && !matches!(ev, Ev::QueueSample | Ev::BinEnd(_)) {
                continue;
            }
            self.now = t;
            self.events += 1;
            if self.events & 0xFFFF == 0 {
                if interrupt.is_some_and(|i| i.load(Ordering::Relaxed)) {
                    // The event popped is left undone, like every other at or after `t`.
                    self.events -= 1;
                    self.stop_early(t, sink);
                    complete = false;
                    break;
                }
                progress(t);
            }
            // With thousands of flows, the link end and the packet of the next arrival are
            // rarely in cache: ask for them now, so that fetching them overlaps this event's work.
            if let Some(&Ev::Arrive(l, p, next)) = self.q.peek_hint() {
                if let Some(end) = self.ends.get(l as usize) {
                    prefetch(end);
                }
                if let Some(pkt) = self.arena.try_get(PacketRef(p)) {
                    prefetch(pkt);
                }
                if next & LAST_HOP == 0 {
                    // The two lines an idle DropTail hop touches (see `LinkState`).
                    if let Some(link) = self.links.get(next as usize) {
                        prefetch_lines(link, 2);
                    }
                } else if let Some(f) = self.flows.get((next & !LAST_HOP) as usize) {
                    // The flow's routes, driver and counters (see `FlowRt`).
                    prefetch_lines(f, 3);
                }
            }
            let series = matches!(ev, Ev::BinEnd(_) | Ev::QueueSample | Ev::Flush);
            self.dispatch(ev);
            if series {
                self.flush(sink);
            }
        }
        if let Some(mut air) = self.air.take() {
            // What wireless stations kept and would have run before the end (overheard.rs): the
            // end itself, or the event left undone where the run was stopped. Their wake-ups
            // are not events of the run; a transmission slot freed at a later sending (or due
            // before the end) counts as the event that freed it once.
            let bound = if complete { crate::events::key(self.end, 0) } else { self.q.last_key() };
            air.finish(self, bound);
            self.events = self.events + air.replayed + air.frees - air.wakes;
            self.air = Some(air);
        }
        self.now = self.end;
        for l in 0..self.links.len() {
            self.links[l].advance(self.end);
            self.catch_up(l);
        }
        progress(self.end);
        complete
    }

    /// Every frame a wireless station hears runs as events: none kept for a later replay
    /// (overheard.rs). The results are the same; a test shows it.
    pub(crate) fn hear_eagerly(&mut self) {
        if let Some(air) = &mut self.air {
            air.hear_eagerly();
        }
    }

    /// A wireless station replays what it kept once it holds more than `n` events (overheard.rs).
    /// The results are the same whatever `n`; a test shows it.
    pub(crate) fn keep_before_replay(&mut self, n: usize) {
        if let Some(air) = &mut self.air {
            air.keep_before_replay = n;
        }
    }

    /// Makes `t` the end of the run: the bins up to the one holding `t` end now (a bin whose end
    /// was due at `t` itself among them), the later ones never come.
    fn stop_early(&mut self, t: Time, sink: &mut dyn SeriesSink) {
        self.end = t;
        self.nbins = self.bin_index(t) + 1;
        for k in self.bins_emitted..self.nbins {
            self.bin_end(k);
            self.flush(sink);
        }
    }

    /// Orders simultaneous events as ns-2 does ([`ns2_clock`]): every link on the general path,
    /// a packet's arrival at the far end scheduled when its transmission starts, and the end of
    /// each transmission an event in its place rather than caught up with.
    pub(crate) fn use_ns2_clock(&mut self) {
        self.q.use_ns2_clock();
        self.io.eager = true;
        for l in &mut self.links {
            l.general = true;
        }
    }

    /// When flow `i` starts in this run.
    pub(crate) fn start_of(&self, i: usize) -> Time {
        self.starts[i]
    }

    /// Traces the senders of `flows` (scenario indices) at every change of their state.
    pub(crate) fn trace_agents(&mut self, flows: &[usize]) {
        if flows.is_empty() {
            return;
        }
        self.trace = vec![false; self.flows.len()];
        for &f in flows {
            if let Some(t) = self.trace.get_mut(f) {
                *t = true;
            }
        }
        self.trace_last = vec![Vec::new(); self.flows.len()];
    }

    /// Traces every packet event of `spec`'s flows on its links. Those links take the general
    /// path, where each event is one of the loop's: the same verdicts at the same times as the
    /// fast path.
    pub(crate) fn trace_packets(&mut self, spec: &PacketTraceSpec) {
        let t = PacketTracer::new(spec, self.links.len(), self.flows.len(), self.end);
        for (l, link) in self.links.iter_mut().enumerate() {
            if t.traces_link(l) {
                link.general = true;
            }
        }
        self.ptrace = Some(Box::new(t));
    }

    /// Packet `p` reaches the far end of link `l` (or is lost there): records it, and notes
    /// what reached the end of its route. Out of line: untraced runs never come here.
    #[cold]
    #[inline(never)]
    fn trace_arrival(&mut self, l: usize, p: PacketRef, next: u32) {
        let Some(t) = self.ptrace.as_deref_mut() else { return };
        let pkt = self.arena.get(p);
        let op = if pkt.lost { PacketOp::Drop } else { PacketOp::Receive };
        let full = t.record(op, self.now, l, p.index(), pkt);
        if next & LAST_HOP != 0 && !pkt.lost {
            t.delivered(p.index(), pkt);
        }
        if full {
            self.q.push(self.now, Ev::Flush);
        }
    }

    /// Records `op` at link `l` for packet `p`, if it is traced.
    #[inline]
    fn trace_packet(&mut self, op: PacketOp, l: usize, p: PacketRef) {
        if let Some(t) = self.ptrace.as_deref_mut() {
            if t.record(op, self.now, l, p.index(), self.arena.get(p)) {
                self.q.push(self.now, Ev::Flush);
            }
        }
    }

    fn traced(&self, fi: usize) -> bool {
        self.trace.get(fi).copied().unwrap_or(false)
    }

    /// Keeps a row for flow `fi`'s connection `ci` if its state changed since the last.
    fn trace_state(&mut self, fi: usize, ci: usize, state: AgentState) {
        let last = &mut self.trace_last[fi];
        if last.len() <= ci {
            last.resize(ci + 1, AgentState::default());
        }
        if last[ci] != state {
            last[ci] = state;
            self.agent_rows.push(AgentRow { t: self.now, flow: fi as u32, conn: ci as u32, state });
            // A long bin's changes go to the sink in batches rather than pile up.
            if self.agent_rows.len() == AGENT_BATCH {
                self.q.push(self.now, Ev::Flush);
            }
        }
    }

    /// Hands the bin that ended and the samples taken to the sink.
    fn flush(&mut self, sink: &mut dyn SeriesSink) {
        if !self.agent_rows.is_empty() {
            sink.agent(&self.agent_rows);
            self.agent_rows.clear();
        }
        if let Some(t) = self.ptrace.as_deref_mut().filter(|t| !t.rows.is_empty()) {
            sink.packets(&t.rows);
            t.rows.clear();
        }
        if let Some((k, t0, t1)) = self.bin_ready.take() {
            sink.bin(k, t0, t1, &self.bin_rows);
        }
        for (l, row) in self.samples.drain(..) {
            sink.queue(l, &row);
        }
    }

    fn dispatch(&mut self, ev: Ev) {
        match ev {
            Ev::Arrive(l, p, next) => self.arrive(l as usize, PacketRef(p), next),
            Ev::Timer { flow, conn, side, gen } => self.timer(flow as usize, TimerId { conn, side }, gen),
            Ev::Release(p) => self.release(PacketRef(p)),
            Ev::TxDone(l, gen) => {
                let link = &mut self.links[l as usize];
                if link.tx_pending && link.tx_gen == gen {
                    link.tx_pending = false;
                    self.serve(l as usize);
                }
            }
            Ev::FlowStart(f) => self.flow_start(f as usize),
            Ev::FlowStop(f) => self.flow_stop(f as usize),
            Ev::QueueSample => self.queue_sample(),
            // Not an event of the simulation: the run's count leaves it out.
            Ev::Flush => self.events -= 1,
            Ev::Measure => {
                self.events -= 1;
                self.take_baseline();
            }
            Ev::BinEnd(k) => self.bin_end(k as usize),
            Ev::Air(kind_node, a, b) => self.air_event(kind_node, a, b),
        }
    }

    // ---- links -------------------------------------------------------------------------

    /// A packet is offered to link `l`'s queue.
    fn link_arrival(&mut self, l: usize, p: PacketRef) {
        let now = self.now;
        let pkt = self.arena.get(p);
        let size = Bytes(pkt.size as u64);
        let class = pkt.kind.queue_class(pkt.tagged);
        let meta = PacketMeta { size, ecn_capable: pkt.ect, flow: FlowId(pkt.flow), class };
        let link = &mut self.links[l];
        if link.general {
            self.general_arrival(l, p, &meta);
            return;
        }
        link.advance(now);
        if link.free_at < now {
            // An idle transmitter takes the next packet when it arrives.
            link.free_at = now;
        }
        let idle = link.free_at == now && link.qdisc.is_empty();
        let verdict = match idle.then(|| link.qdisc.pass_through(&meta)).flatten() {
            // Straight to the wire, the queue staying empty (DropTail).
            Some(v) => {
                if v == Verdict::Enqueue {
                    let d = link.tx_time(size);
                    link.free_at = now + d;
                    link.busy += d;
                }
                v
            }
            None => {
                link.integrate(now);
                let v = link.qdisc.enqueue(now, &meta, p, &mut link.rng);
                if v == Verdict::Enqueue || v == Verdict::EnqueueMarked {
                    // Taken at once if the transmitter is free (ns-2 Queue::recv: enque, then
                    // deque when not blocked).
                    link.idle_noted = false;
                    if link.free_at <= now {
                        link.advance(now);
                    }
                }
                link.observe();
                v
            }
        };
        if let Verdict::Drop(_) = verdict {
            self.drop_packet(p);
            return;
        }
        let next = self.next_hop(p, verdict == Verdict::EnqueueMarked);
        let at = self.links[l].admit(now, size);
        let seq = self.q.reserve();
        self.on_wire(l, p, next, at, seq);
    }

    /// The packet leaves its queue for the wire (marked CE if `mark`): one more link has taken
    /// it. Returns where it goes next, as [`Ev::Arrive`] says it.
    #[inline]
    fn next_hop(&mut self, p: PacketRef, mark: bool) -> u32 {
        let pkt = self.arena.get_mut(p);
        pkt.ce |= mark;
        pkt.hop += 1;
        match self.routes[(pkt.route + pkt.hop) as usize] {
            END_OF_ROUTE => LAST_HOP | pkt.flow,
            link => link,
        }
    }

    /// Packet `p`, taken by link `l`, reaches its far end at `at`; among simultaneous events,
    /// in the place of insertion number `seq`, reserved when the link admitted it.
    #[inline]
    fn on_wire(&mut self, l: usize, p: PacketRef, next: u32, at: Time, seq: u64) {
        let link = &mut self.links[l];
        // The loss model draws in the order packets take the wire, as if at the end of each
        // serialisation.
        let lost = link.lossy && link.loss.lose(&mut link.loss_rng);
        let end = &mut self.ends[l];
        if end.behind == 0 && (end.inflight as u64) < self.behind_from {
            self.q.push_reserved(at, seq, Ev::Arrive(l as u32, p.0, next));
        } else {
            link.push_behind(InFlight { at, seq, pkt: p, next });
            end.behind += 1;
        }
        end.inflight += 1;
        if lost {
            self.arena.get_mut(p).lost = true;
        }
    }

    /// The general path's arrival: the discipline takes the packet or not (and may throw others
    /// away); an idle transmitter then asks it for the next packet. With a device queue, see
    /// `device_arrival`.
    fn general_arrival(&mut self, l: usize, p: PacketRef, meta: &PacketMeta) {
        let now = self.now;
        self.catch_up(l);
        self.trace_packet(PacketOp::Enqueue, l, p);
        let link = &mut self.links[l];
        link.integrate(now);
        let v = link.qdisc.enqueue(now, meta, p, &mut link.rng);
        link.observe_general();
        self.drop_taken(l);
        match v {
            Verdict::Drop(_) => {
                self.trace_packet(PacketOp::Drop, l, p);
                self.drop_packet(p);
                if self.links[l].dev.is_some() {
                    self.device_arrival(l);
                }
                return;
            }
            Verdict::EnqueueMarked => self.arena.get_mut(p).ce = true,
            Verdict::Enqueue => {}
        }
        self.arena.get_mut(p).queued_at = now;
        // Its arrival at the far end keeps the place among simultaneous events that the fast
        // path gives it, which reserves it on admission (on ns-2's clock, `transmit` gives it
        // one when its transmission starts, as ns-2 does).
        let slot = p.0 as usize;
        if self.queued_seq.len() <= slot {
            self.queued_seq.resize(slot + 1, 0);
        }
        if self.q.ns2_now().is_none() {
            self.queued_seq[slot] = self.q.reserve();
        }
        if self.links[l].dev.is_some() {
            self.device_arrival(l);
        } else if !self.links[l].tx_pending {
            self.serve(l);
        }
    }

    /// General path, after an arrival at a link with a device queue, admitted or not: the
    /// discipline is asked for packets if the device queue has room (ns-3.37's
    /// TrafficControlLayer::Send runs the queue disc after every enqueue), and an idle
    /// transmitter takes the device queue's head.
    #[inline(never)]
    fn device_arrival(&mut self, l: usize) {
        if self.links[l].dev.as_deref().is_some_and(DeviceQueue::has_room) {
            self.feed_device(l);
        }
        if !self.links[l].tx_pending {
            self.serve_device(l);
        }
    }

    /// General path: link `l`'s transmitter is free now; its discipline gives the next packet,
    /// if any (ns-2 LinkDelay's resume and Queue::deque), or, with a device queue, the device
    /// queue does (`serve_device`).
    fn serve(&mut self, l: usize) {
        if self.links[l].dev.is_some() {
            self.serve_device(l);
            return;
        }
        let now = self.now;
        let link = &mut self.links[l];
        link.integrate(now);
        let dep = link.qdisc.dequeue(now);
        link.observe();
        self.drop_taken(l);
        let Some(dep) = dep else {
            return;
        };
        self.transmit(l, dep);
    }

    /// General path, a link with a device queue: the transmitter takes the device queue's head,
    /// and a device queue that was full asks the discipline for more (ns-3.37's
    /// PointToPointNetDevice::TransmitComplete dequeues from its queue, which wakes the queue
    /// disc when the queue has room again: NetDeviceQueue::PacketDequeued and Wake).
    #[inline(never)]
    fn serve_device(&mut self, l: usize) {
        let now = self.now;
        let link = &mut self.links[l];
        link.integrate(now);
        let dev = link.dev.as_deref_mut().expect("a link with a device queue");
        let was_full = !dev.has_room();
        let Some(dep) = dev.pop() else {
            // Idle until the next arrival.
            return;
        };
        link.observe_general();
        self.transmit(l, dep);
        if was_full {
            self.feed_device(l);
        }
    }

    /// General path, a link with a device queue: the discipline hands it packets while it has
    /// room, asked at least once (so an empty discipline hears of it, as CoDel leaves its dropping
    /// state then) and again only while the discipline still holds packets: ns-3.37's
    /// QueueDisc::Run, Restart and Transmit.
    #[inline(never)]
    fn feed_device(&mut self, l: usize) {
        let now = self.now;
        loop {
            let link = &mut self.links[l];
            link.integrate(now);
            let dep = link.qdisc.dequeue(now);
            let dev = link.dev.as_deref_mut().expect("a link with a device queue");
            if let Some(d) = dep {
                dev.push(d);
            }
            let more = dep.is_some() && dev.has_room() && !link.qdisc.is_empty();
            link.observe_general();
            self.drop_taken(l);
            if !more {
                break;
            }
        }
    }

    /// General path: link `l`'s transmitter starts serialising `dep` now. (Inlined: it was
    /// `serve`'s own code before links could have a device queue.)
    #[inline(always)]
    fn transmit(&mut self, l: usize, dep: Departure) {
        let now = self.now;
        let link = &mut self.links[l];
        let (d, mut at) = if link.sched.is_some() {
            link.scheduled_departure(now, dep.size)
        } else {
            let d = link.tx_time(dep.size);
            (d, now + d + link.delay)
        };
        let mut done = now + d;
        // On ns-2's clock (a link without a schedule), the doubles ns-2 gives the arrival at
        // the far end and the end of the transmission: LinkDelay::recv schedules them at
        // `clock_ + (txtime + delay_)` and `clock_ + txtime` when the transmission starts. Their
        // nanoseconds are taken from them, so that a transmission time of a fraction of a
        // nanosecond does not drift from ns-2's, transmission after transmission.
        let ns2 = match self.q.ns2_now() {
            Some(now_d) if link.sched.is_none() => {
                let txt = ns2_clock::txtime(dep.size.0, link.rate.0);
                let (done_d, at_d) = (now_d + txt, now_d + (txt + ns2_clock::secs(link.delay.0)));
                done = ns2_clock::nanos(done_d).max(now);
                at = ns2_clock::nanos(at_d).max(done);
                Some((done_d, at_d))
            }
            _ => None,
        };
        link.free_at = done;
        link.tail_end = done;
        link.busy += d;
        link.tx_pending = true;
        link.tx_gen = link.tx_gen.wrapping_add(1);
        let waited = now.saturating_since(self.arena.get(dep.pkt).queued_at);
        if !waited.is_zero() {
            link.waited(waited);
        }
        let gen = link.tx_gen;
        let seq = match (ns2, self.q.ns2_now()) {
            // ns-2 schedules the arrival first.
            (Some((done_d, at_d)), _) => {
                let seq = self.q.reserve_at(at, at_d);
                let tie = self.q.reserve_at(done, done_d);
                self.q.push_reserved(done, tie, Ev::TxDone(l as u32, gen));
                seq
            }
            (None, Some(now_d)) => {
                let seq = self.q.reserve_at(at, now_d + ns2_clock::secs(at.0 - now.0));
                self.q.push(done, Ev::TxDone(l as u32, gen));
                seq
            }
            (None, None) => {
                self.q.push(done, Ev::TxDone(l as u32, gen));
                self.queued_seq[dep.pkt.0 as usize]
            }
        };
        let next = self.next_hop(dep.pkt, dep.mark);
        self.trace_packet(PacketOp::Dequeue, l, dep.pkt);
        self.on_wire(l, dep.pkt, next, at, seq);
    }

    /// General path: the serialisations that have ended by now are over before anything else
    /// happens at the link now (an arrival, a sample), whatever the order of their events: the
    /// order the fast path keeps (its dequeues come first, `LinkState::advance`).
    fn catch_up(&mut self, l: usize) {
        // With ns-2's clock each serialisation ends by its own event, in its place among the
        // simultaneous ones, until the run's end, after which no event comes.
        if self.q.ns2_now().is_some() && self.now < self.end {
            return;
        }
        while self.links[l].tx_pending && self.links[l].free_at <= self.now {
            self.links[l].tx_pending = false;
            self.serve(l);
        }
    }

    /// Disposes of the packets link `l`'s discipline threw away after taking them.
    fn drop_taken(&mut self, l: usize) {
        while let Some(d) = self.links[l].qdisc.take_dropped() {
            self.trace_packet(PacketOp::Drop, l, d.pkt);
            self.drop_packet(d.pkt);
        }
    }

    fn arrive(&mut self, l: usize, p: PacketRef, next: u32) {
        if self.ptrace.is_some() {
            self.trace_arrival(l, p, next);
        }
        let end = &mut self.ends[l];
        end.inflight -= 1;
        // Those in flight with an event of their own are the ones not behind. When the last of
        // them is in, the first of those behind is next.
        if end.behind > 0 && end.inflight == end.behind {
            end.behind -= 1;
            let f = self.links[l].pop_behind().expect("the FIFO holds `behind` packets");
            self.q.push_reserved(f.at, f.seq, Ev::Arrive(l as u32, f.pkt.0, f.next));
        }
        let pkt = self.arena.get_mut(p);
        if pkt.lost {
            // The link's loss model: serialised, but it never arrives.
            self.links[l].lost += 1;
            self.drop_packet(p);
            return;
        }
        end.delivered += 1;
        if next & LAST_HOP == 0 {
            self.link_arrival(next as usize, p);
        } else {
            self.deliver(p);
        }
    }

    /// A queue refused packet `p`: count it against its flow (the queue counts it too).
    fn drop_packet(&mut self, p: PacketRef) {
        let pkt = self.arena.get(p);
        let (fi, hdr) = (pkt.flow as usize, header(pkt));
        self.arena.free(p);
        let b = self.bin_index(self.now);
        let f = &mut self.flows[fi];
        if hdr.kind.is_data() {
            f.mon.data_dropped(b);
        } else {
            f.mon.c.acks_dropped += 1;
        }
        f.drv.forget(&hdr);
    }

    /// Puts a new packet on the first link of its route.
    fn inject(&mut self, pkt: Packet) {
        let p = self.alloc(pkt);
        self.enter(p);
    }

    /// A new packet's place in the arena (and its uid, when packets are traced).
    #[inline]
    fn alloc(&mut self, pkt: Packet) -> PacketRef {
        let p = self.arena.alloc(pkt);
        if self.ptrace.is_some() {
            self.trace_made(p);
        }
        p
    }

    #[cold]
    #[inline(never)]
    fn trace_made(&mut self, p: PacketRef) {
        if let Some(t) = self.ptrace.as_deref_mut() {
            t.made(p.index(), self.arena.get(p), self.made_wire_type.take());
        }
    }

    /// A packet starts its route: onto its first link, or into the wireless network.
    #[inline]
    fn enter(&mut self, p: PacketRef) {
        let first = self.routes[self.arena.get(p).route as usize];
        if first != END_OF_ROUTE && first & AIR != 0 {
            self.air_originate(p);
        } else {
            self.link_arrival(first as usize, p);
        }
    }

    /// A data packet leaves its source: at once, or after the flow's `send_jitter` delay.
    /// (Acknowledgements and feedback use [`inject`](Self::inject): the delay models the
    /// sender's host.)
    fn inject_data(&mut self, pkt: Packet) {
        if self.jitter.is_empty() {
            self.inject(pkt);
        } else {
            let p = self.alloc(pkt);
            self.hold_or_send(p);
        }
    }

    /// Floyd & Jacobson's random host processing time: a uniform delay in [0, send_jitter), no
    /// earlier than the flow's previous packet left (the host sends in order).
    fn hold_or_send(&mut self, p: PacketRef) {
        let fi = self.arena.get(p).flow as usize;
        match &mut self.jitter[fi] {
            Some(j) => {
                let at = (self.now + Dur(j.rng.below(j.max.0))).max(j.last);
                j.last = at;
                self.q.push(at, Ev::Release(p.0));
            }
            None => self.release(p),
        }
    }

    /// A packet enters the first link of its route.
    fn release(&mut self, p: PacketRef) {
        self.enter(p);
    }

    // ---- the wireless network (wireless/net.rs) ---------------------------------------
    //
    // The stack is lent out of `self.air` while it works, so that it can reach the loop through
    // `EventLoop`; it is back before anything of the loop's own runs (a packet that leaves the
    // wireless network goes on only then, and may bring another one in: a sink's reply). The
    // dispatch has one arm for all the stack's events, and calls out of line: inlined, the
    // stack's work bloated the dispatch, which every wired event goes through, and slowed wired
    // runs.

    /// AODV and the nodes' moves start, before the first event.
    #[inline(never)]
    fn air_start(&mut self) {
        let mut air = self.air.take().expect("a wireless scenario");
        air.start(self);
        self.air = Some(air);
    }

    /// Packet `p` starts a route across the wireless network, at its source.
    #[inline(never)]
    fn air_originate(&mut self, p: PacketRef) {
        let pkt = self.arena.get(p);
        let f = &self.sc.flows[pkt.flow as usize];
        let from = if pkt.kind.is_data() { f.from } else { f.to };
        let mut air = self.air.take().expect("a wireless scenario");
        air.originate(self, p, from);
        self.air = Some(air);
    }

    /// One of the stack's events, in the words [`AirEv::pack`] put it in.
    #[inline(never)]
    fn air_event(&mut self, kind_node: u32, a: u32, b: u32) {
        let mut air = self.air.take().expect("a wireless scenario");
        let out = air.handle(self, AirEv::unpack([kind_node, a, b]));
        self.air = Some(air);
        if let Some(p) = out {
            self.leave_air(p);
        }
    }

    /// Packet `p` has crossed the wireless network: to its agent, or on to its next link.
    #[inline(never)]
    fn leave_air(&mut self, p: PacketRef) {
        let pkt = self.arena.get_mut(p);
        pkt.hop += 1;
        match self.routes[(pkt.route + pkt.hop) as usize] {
            END_OF_ROUTE => self.deliver(p),
            next => self.link_arrival(next as usize, p),
        }
    }

    pub(crate) fn air_ref(&self) -> Option<&Air> {
        self.air.as_deref()
    }

    fn bin_index(&self, t: Time) -> usize {
        ((t.0 / self.bin.0) as usize).min(self.nbins - 1)
    }

    // ---- delivery to agents ------------------------------------------------------------

    /// Packet `p` reached the end of its route: it leaves the arena (its slot free for what
    /// its driver sends in reply) and its header goes to its driver.
    fn deliver(&mut self, p: PacketRef) {
        let now = self.now;
        let pkt = self.arena.get(p);
        let (fi, hdr) = (pkt.flow as usize, header(pkt));
        self.arena.free(p);
        if !hdr.kind.is_data() {
            self.flows[fi].mon.c.acks_recv += 1;
        }
        let new = self.call(fi, |d, io| d.deliver(now, &hdr, io));
        if hdr.kind.is_data() {
            let b = self.bin_index(now);
            self.flows[fi].mon.arrival(b, &hdr, now, new);
        }
    }

    /// Calls flow `fi`'s driver, then acts on what it handed back, in order: the wake-ups it
    /// asked for, the packets (data through the flow's `send_jitter`, the rest at once), the
    /// traced state.
    ///
    /// The `Io` stays in place (moving it out and back cost two copies of it per call): what
    /// the loop does with a call's packets calls no driver, so no call comes in between.
    fn call<T>(&mut self, fi: usize, f: impl FnOnce(&mut dyn FlowDriver, &mut Io) -> T) -> T {
        let now = self.now;
        debug_assert!(self.io.out.is_empty() && self.io.wakes.is_empty() && self.io.states.is_empty());
        self.io.traced = self.traced(fi);
        let r = f(&mut *self.flows[fi].drv, &mut self.io);
        for i in 0..self.io.wakes.len() {
            let w = self.io.wakes[i];
            self.q.push(w.at, Ev::Timer { flow: fi as u32, conn: w.timer.conn, side: w.timer.side, gen: w.gen });
        }
        self.io.wakes.clear();
        let b = self.bin_index(now);
        for i in 0..self.io.out.len() {
            let Outgoing { conn, kind, size, payload, seq, ack, sent_at, ect, ece, cwr, syn, tagged, wire_type } =
                self.io.out[i];
            let pkt = |route| Packet {
                seq,
                ack,
                ect,
                ece,
                cwr,
                syn,
                tagged,
                ..Packet::new(fi, conn as usize, kind, size, payload, route, sent_at)
            };
            if self.ptrace.is_some() {
                self.made_wire_type = wire_type;
            }
            let f = &mut self.flows[fi];
            if kind.is_data() {
                f.mon.sent(b, size as u64);
                let route = f.fwd;
                self.inject_data(pkt(route));
            } else {
                f.mon.c.acks_sent += 1;
                let route = f.rev;
                self.inject(pkt(route));
            }
        }
        self.io.out.clear();
        for i in 0..self.io.states.len() {
            let (conn, s) = self.io.states[i];
            self.trace_state(fi, conn as usize, s);
        }
        self.io.states.clear();
        r
    }

    fn timer(&mut self, fi: usize, timer: TimerId, gen: u32) {
        let now = self.now;
        self.call(fi, |d, io| d.timeout(now, timer, gen, io));
    }

    // ---- applications -------------------------------------------------------------------

    fn flow_start(&mut self, fi: usize) {
        let now = self.now;
        self.call(fi, |d, io| d.start(now, io));
    }

    fn flow_stop(&mut self, fi: usize) {
        self.flows[fi].drv.stop(self.now);
    }

    // ---- monitoring ---------------------------------------------------------------------

    fn queue_sample(&mut self) {
        let t = self.now;
        for i in 0..self.sc.monitor.links.len() {
            let l = self.sc.monitor.links[i];
            self.links[l].advance(t);
            self.catch_up(l);
            let link = &self.links[l];
            // The link's buffer: the discipline and its device queue, if any.
            let s = link.stats();
            self.samples.push((
                l,
                QueueRow::new(
                    t.as_secs_f64(),
                    link.queue_len() as u32,
                    link.queue_bytes().0,
                    link.qdisc.average_pkts(),
                    &s,
                ),
            ));
        }
        let next = t + self.sc.monitor.queue_interval;
        if next <= self.end {
            self.q.push(next, Ev::QueueSample);
        }
    }

    /// Keeps every flow's and link's counters as they stand now, the zero of the summary's
    /// figures. Brings each link up to now first, as a queue sample does; the dequeues that
    /// makes happen at the times they would have anyway.
    pub(crate) fn take_baseline(&mut self) {
        let now = self.now;
        let in_net = self.in_network();
        let flows = (0..self.flows.len())
            .map(|i| FlowBase {
                counters: self.flows[i].mon.c.clone(),
                transport: self.flows[i].drv.counters(),
                inflight: in_net[i].0,
            })
            .collect();
        let mut links = Vec::with_capacity(self.links.len());
        for l in 0..self.links.len() {
            self.links[l].advance(now);
            self.catch_up(l);
            let link = &mut self.links[l];
            let (len_area, avg_area) = link.integ.areas(now);
            // The packet being serialised now was counted whole when it started.
            let rest = link.free_at.saturating_since(now);
            links.push(LinkBase {
                stats: link.stats(),
                lost: link.lost,
                busy: Dur(link.busy.0 - rest.0.min(link.busy.0)),
                len_area,
                avg_area,
                wait_sum: link.wait_sum,
            });
            // The longest wait is the measured part's.
            link.wait_max = Dur::ZERO;
        }
        self.baseline = Some(Box::new(Baseline { at: now, flows, links }));
    }

    /// Bin `k` has ended: every flow's row, with its window and the series its protocol
    /// reports as they are now, is ready for the sink.
    fn bin_end(&mut self, k: usize) {
        self.bin_rows.clear();
        for f in &mut self.flows {
            let mut row = f.mon.emit(k);
            row.cwnd_pkts = f.drv.window().map_or(f32::NAN, |w| w as f32);
            row.series = f.drv.sample();
            self.bin_rows.push(row);
        }
        let t0 = Time::ZERO + self.bin.saturating_mul(k as u64);
        let t1 = (Time::ZERO + self.bin.saturating_mul(k as u64 + 1)).min(self.end);
        self.bin_ready = Some((k, t0, t1));
        self.bins_emitted = k + 1;
        // Bin k + 1 ends at (k + 2) x bin, or at the end of the run for the last, shorter one.
        if k + 1 < self.nbins {
            let next = (Time::ZERO + self.bin.saturating_mul(k as u64 + 2)).min(self.end);
            self.q.push(next, Ev::BinEnd(k as u32 + 1));
        }
    }

    // ---- end of run ---------------------------------------------------------------------

    /// Per flow: (data, acks) packets still in queues or on links.
    pub(crate) fn in_network(&self) -> Vec<(u64, u64)> {
        let mut v = vec![(0u64, 0u64); self.flows.len()];
        for p in self.arena.live() {
            if p.kind.is_data() {
                v[p.flow as usize].0 += 1;
            } else {
                v[p.flow as usize].1 += 1;
            }
        }
        v
    }

    pub(crate) fn flow_counters(&self, fi: usize) -> &FlowCounters {
        &self.flows[fi].mon.c
    }

    /// Flow `fi`'s delay histogram, taken out (at the end of the run, for its results).
    pub(crate) fn take_delays(&mut self, fi: usize) -> fairway_model::delay_hist::DelayHist {
        std::mem::take(&mut self.flows[fi].mon.c.delays)
    }

    /// Flow `fi`'s driver: its endpoints.
    pub(crate) fn driver(&self, fi: usize) -> &dyn FlowDriver {
        &*self.flows[fi].drv
    }

    /// What flow `fi`'s transport counted so far.
    pub(crate) fn transport_counters(&self, fi: usize) -> TransportCounters {
        self.flows[fi].drv.counters()
    }

    pub(crate) fn link_check(&self, l: usize) -> LinkCheck {
        let link = &self.links[l];
        // With a device queue, its packets have left the discipline but are still waiting: they
        // count among the waiting, not the departed (`LinkState::stats`), and the check shows that
        // they are neither lost nor on the wire twice.
        LinkCheck {
            stats: link.stats(),
            waiting: link.queue_len() as u64,
            // On the fast path the count in flight holds the waiting packets too.
            on_wire: self.ends[l].inflight as u64 - if link.general { 0 } else { link.qdisc.len() as u64 },
            delivered: self.ends[l].delivered,
            lost: link.lost,
        }
    }

    /// Flow `fi`'s wired routes, as link indices: its data's, and its acknowledgements' (`None`
    /// across a wireless network, whose routes change as the run goes, or where there is none).
    pub(crate) fn routes_of(&self, fi: usize) -> (Option<Vec<usize>>, Option<Vec<usize>>) {
        let links = |start: u32| -> Option<Vec<usize>> {
            let from = self.routes.get(start as usize..)?;
            let hops: Vec<u32> = from.iter().copied().take_while(|&l| l != END_OF_ROUTE).collect();
            (!hops.iter().any(|&l| l & AIR != 0)).then(|| hops.iter().map(|&l| l as usize).collect())
        };
        let f = &self.flows[fi];
        (links(f.fwd), links(f.rev))
    }

    pub(crate) fn end(&self) -> Time {
        self.end
    }
}

/// What the wireless stack reaches of the loop (wireless/event_loop.rs).
impl EventLoop for Sim<'_> {
    fn now(&self) -> Time {
        self.now
    }

    // Inlined: where the event's variant is known, packing it comes down to its fields' stores.
    #[inline]
    fn schedule(&mut self, at: Time, ev: AirEv) {
        let [kind_node, a, b] = ev.pack();
        self.q.push(at, Ev::Air(kind_node, a, b));
    }

    fn key(&self) -> u128 {
        self.q.last_key()
    }

    /// On ns-2's clock the end's double is ns-2's rx timer's: the first bit's `clock_ + delay`,
    /// then that plus the transmission time (mac-802_11.cc, recv: rxtimer at txtime).
    fn reserve_rx(&mut self, delay: Dur, txtime: Dur) -> (u64, u64) {
        let first = self.now + delay;
        let seqs = match self.q.ns2_now() {
            Some(now) => {
                let first_d = now + ns2_clock::secs(delay.0);
                let a = self.q.reserve_at(first, first_d);
                (a, self.q.reserve_at(first + txtime, first_d + ns2_clock::secs(txtime.0)))
            }
            None => (self.q.reserve(), self.q.reserve()),
        };
        for _ in 0..4 {
            self.q.reserve();
        }
        seqs
    }

    #[inline]
    fn schedule_reserved(&mut self, at: Time, seq: u64, ev: AirEv) {
        let [kind_node, a, b] = ev.pack();
        self.q.push_reserved(at, seq, Ev::Air(kind_node, a, b));
    }

    #[inline]
    fn reserve_raw(&mut self) -> u64 {
        self.q.reserve()
    }

    #[inline]
    fn raw(&self, low: u64) -> u64 {
        self.q.raw(low)
    }

    #[inline]
    fn key_after(&self, from: u128, at: Time, raw: u64) -> u128 {
        match self.q.ns2_now() {
            Some(_) => ns2_key_after(from, at, raw),
            None => crate::events::key(at, raw),
        }
    }

    #[inline]
    fn schedule_key(&mut self, key: u128, ev: AirEv) {
        let [kind_node, a, b] = ev.pack();
        self.q.push_reserved(Time((key >> 64) as u64), key as u64, Ev::Air(kind_node, a, b));
    }

    fn packet(&self, p: PacketRef) -> &Packet {
        self.arena.get(p)
    }

    /// The scenario node its route's entry across the wireless network names.
    fn destination(&self, p: PacketRef) -> NodeId {
        let pkt = self.arena.get(p);
        NodeId(self.routes[(pkt.route + pkt.hop) as usize] & !AIR)
    }

    fn drop_packet(&mut self, p: PacketRef) {
        Sim::drop_packet(self, p);
    }
}

/// [`EventLoop::key_after`] on ns-2's clock. Not inlined: inlined, its divisions were worked
/// out ahead of the branch on the clock in the replay's loop, on fairway's clock too.
#[inline(never)]
fn ns2_key_after(from: u128, at: Time, raw: u64) -> u128 {
    let t = Time((from >> 64) as u64);
    let d = ns2_clock::double(t, from as u64) + ns2_clock::secs(at.0 - t.0);
    crate::events::key(at, ns2_clock::tie(at, d, raw))
}

/// The header packet `pkt` was sent with, as its driver reads it.
fn header(pkt: &Packet) -> Header {
    Header {
        conn: pkt.conn,
        kind: pkt.kind,
        size: pkt.size,
        payload: pkt.payload,
        seq: pkt.seq,
        ack: pkt.ack,
        sent_at: pkt.sent_at,
        ect: pkt.ect,
        ce: pkt.ce,
        ece: pkt.ece,
        cwr: pkt.cwr,
        syn: pkt.syn,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    /// The layout `FlowRt`'s comment describes: the routes, the driver and the sender's
    /// counters (`FlowMonitor` puts them first) in the first cache line; the receiver's
    /// counters, the bin's delay sum and the bin number within the next two.
    /// An arrival carries its next link at no cost in size (see [`Ev::Arrive`]): the timer
    /// event is as big.
    #[test]
    fn an_event_is_sixteen_bytes() {
        assert_eq!(size_of::<Ev>(), 16);
    }

    #[test]
    fn a_flows_hot_fields_fit_three_cache_lines() {
        assert_eq!(std::mem::align_of::<FlowRt>(), 64);
        assert!(offset_of!(FlowRt, drv) + size_of::<Box<dyn FlowDriver>>() <= offset_of!(FlowRt, mon));
        let counters = offset_of!(FlowRt, mon) + offset_of!(FlowMonitor, c);
        let senders_end = counters + offset_of!(FlowCounters, acks_dropped) + size_of::<u64>();
        assert!(senders_end <= 64, "the sender's counters end at byte {senders_end}");
        // The bin's delay sum and the bin number follow the counters (monitor.rs checks that).
        let receivers_end = counters + size_of::<FlowCounters>() + size_of::<f64>() + size_of::<u32>();
        assert!(receivers_end <= 3 * 64, "the receiver's counters end at byte {receivers_end}");
    }
}
