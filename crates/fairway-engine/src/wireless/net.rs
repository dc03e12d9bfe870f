//! Wireless nodes in the event loop: the shared channel (who hears a frame, at what power,
//! after what propagation delay), the link layer with its delay and ARP, and routing, around
//! each node's MAC (mac.rs).
//!
//! [`Air`] owns all of it. The event loop (sim.rs) calls four entry points: [`Air::new`],
//! [`Air::start`] once before the run, [`Air::originate`] when a flow packet starts a route
//! across the wireless network, and [`Air::handle`] for each of the stack's own events
//! ([`AirEv`]). What the stack needs of the loop goes through [`EventLoop`] (event_loop.rs). A
//! flow packet that reaches the node where it leaves the wireless network is handed back as
//! [`Air::handle`]'s result, for the loop to take on along its wired route or to its sink once
//! the stack is done with the event.
//!
//! A flow packet keeps one arena slot from its source to its sink: the node that holds it
//! (in ARP, the interface queue or the MAC) owns it, and a receiver that decodes a data frame
//! takes it over, leaving the sender a "ghost" to finish its exchange with (the ACK, or
//! retries that the receiver recognises as duplicates). Control messages (ARP) live in a slab
//! while queued, and travel inside the transmission.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use fairway_core::{Dur, NodeId, PacketRef, Rng, Time};

use crate::fasthash::FastMap;
use crate::packet::PktKind;
use crate::wireless::aodv::{self, Aodv, DropWhy, TimerWhat};
use crate::wireless::event_loop::{AirEv, EventLoop, MAX_NODES};
use crate::wireless::ifq::IfqItem;
use crate::wireless::mac::{Frame, Mac, MacOut, MacStats, Outcome, PausedBackoff, TimerKind, BROADCAST};
use crate::wireless::mobility::{MobilitySpec, Motions, Mover};
use crate::wireless::overheard::{self, Heard, Overheard};
use crate::wireless::physics::Batch;
use crate::wireless::propagation::{self, Reach};
use crate::wireless::{NetStats, Radio, Routing, WirelessSpec};

/// A payload that is a control message (its slab index in the low bits), not a flow packet.
const CTRL: u32 = 1 << 31;
/// The payload of a frame whose packet its receiver has already taken.
const GHOST: u32 = u32::MAX;

/// ns-2's ARP: a 28-byte message, 5 µs on its way to the queue, and three requests before a
/// destination is given up (mac/arp.h, ARPTable delay_).
const ARP_SIZE: u32 = 28;
const ARP_DELAY: Dur = Dur::from_micros(5);
const ARP_MAX_REQUESTS: u32 = 3;

/// Kept frames' events a station holds before the past ones are replayed (overheard.rs). A
/// longer list means fewer replays started from the channel's loop; 64 of 64 bytes each is 4 KB a
/// station, 200 KB for 50 (bench/results-wireless.md has 16, 32, 64, 128 and 512 measured).
const KEEP_BEFORE_REPLAY: usize = 64;

#[derive(Debug, Clone, PartialEq)]
enum Ctrl {
    ArpRequest { from: u32, target: u32 },
    ArpReply { from: u32 },
    Aodv(aodv::Packet),
}

#[derive(Debug, Default)]
struct ArpEntry {
    up: bool,
    /// The one packet waiting for the answer (ns-2 keeps one; a newer one replaces it).
    hold: Option<u32>,
    requests: u32,
}

/// A frame on the air, and the control message it carries.
struct AirTx {
    frame: Frame,
    msg: Option<Ctrl>,
}

pub(crate) struct Air {
    radio: Radio,
    /// The radio's received power and propagation delay at a distance, for the channel.
    reach: Reach,
    routing: Routing,
    ll_delay: Dur,
    arp_on: bool,
    macs: Vec<Mac>,
    /// Per scenario node, its wireless index (`u32::MAX` for wired nodes).
    index: Vec<u32>,
    nodes: Vec<NodeId>,
    /// Each node's current move (a still one when nodes do not move), column by column.
    motions: Motions,
    /// What draws each node's random waypoint moves.
    movers: Vec<Mover>,
    mobility: Option<MobilitySpec>,
    /// Each node's path: where it was at its start and at every change of heading.
    pub(crate) paths: Vec<Vec<(Time, f64, f64)>>,
    next_hop: Vec<Vec<Option<u32>>>,
    arp: Vec<FastMap<u32, ArpEntry>>,
    ctrl: Vec<Option<Ctrl>>,
    ctrl_free: Vec<u32>,
    txs: Vec<Option<AirTx>>,
    tx_free: Vec<u32>,
    /// The slots in use, each with when every receiver is through with it (a nanosecond after
    /// the last one's reception ends): freed at a later sending rather than by an event of
    /// their own, earliest first.
    tx_done: BinaryHeap<Reverse<(Time, u32)>>,
    /// Slots freed so: each counts as the event that freed it, as when it had one.
    pub(crate) frees: u64,
    /// Per transmission slot and node, the power it arrives with, for a first bit run from the
    /// queue (written when it is scheduled: at the sending, or when a kept one goes back).
    rx_power: Vec<f64>,
    /// Per transmission slot and node, the insertion number of the reception's end, reserved
    /// when the frame is sent (overheard.rs); written as `rx_power` is.
    rx_end_seq: Vec<u64>,
    /// The reception's end reserved for the frame whose first bit is being handled.
    rx_end: Option<u64>,
    /// The plain insertion number reserved for the one NAV or backoff timer the event being
    /// handled may start (a frame's first bit, the end of a reception heard in passing, the
    /// NAV's end): the number it has whether the event runs from the queue or is replayed
    /// (overheard.rs). `None`: such a timer takes the next number, as any other.
    slot: Option<u64>,
    /// Per node, the frames it need not decode (unicast frames for others, frames too weak to
    /// decode) that it heard and has not yet replayed, with the timers their replays started
    /// (overheard.rs); `None` when every frame heard is run as events.
    heard: Option<Vec<Overheard>>,
    /// Per node, the key of its pending wake-up (0: none).
    wake_at: Vec<u128>,
    /// Kept events a station holds before the channel's loop replays the past ones
    /// ([`KEEP_BEFORE_REPLAY`] unless a test sets it).
    pub(crate) keep_before_replay: usize,
    /// Per node whose backoff waits paused while it keeps frames, the earliest the backoff could
    /// run out, pushed back as frames are kept: a wake-up that comes before it has nothing to do
    /// but wait for it.
    paused: Vec<Option<PausedBackoff>>,
    /// Wake-ups run: not among the run's events.
    pub(crate) wakes: u64,
    /// Scratch space for a replay's MAC outputs.
    replay_out: Vec<MacOut>,
    /// Events kept and replayed rather than run from the queue: the run's count of events
    /// includes them.
    pub(crate) replayed: u64,
    /// Beyond this distance squared no node senses a frame (the carrier-sense range, with a
    /// margin: the exact test is the power's).
    sense2: f64,
    /// A transmission's numbers: every node's distance, and the stations in range (physics.rs).
    batch: Batch,
    out: Vec<MacOut>,
    pub(crate) stats: Vec<NetStats>,
    /// AODV agents, one per node, when routing is AODV.
    aodv: Vec<Aodv>,
    aodv_out: Vec<aodv::Out>,
    /// Per arena slot, the wireless hops the packet has made (ns-2's num_forwards).
    forwards: Vec<u8>,
    /// Per node, the destination and hop count of the last packet a neighbour took from it,
    /// for a link failure on its frame after that (the ACKs lost).
    handed: Vec<(u32, u8)>,
}

impl Air {
    pub(crate) fn new(spec: &WirelessSpec, n_nodes: usize, seed: u64, names: &[String]) -> Air {
        let n = spec.nodes.len();
        assert!(n < MAX_NODES, "2^28 wireless nodes");
        let mut index = vec![u32::MAX; n_nodes];
        // Random waypoint places the nodes the scenario did not, uniformly in its area (setdest).
        let start: Vec<(f64, f64)> = spec
            .nodes
            .iter()
            .map(|w| match (&spec.mobility, w.placed) {
                (Some(MobilitySpec::RandomWaypoint { width, height, .. }), false) => {
                    let mut rng = Rng::stream(seed, &format!("place:{}", names[w.node.index()]));
                    (rng.uniform() * width, rng.uniform() * height)
                }
                _ => (w.x, w.y),
            })
            .collect();
        let movers = spec
            .nodes
            .iter()
            .map(|w| Mover::new(Rng::stream(seed, &format!("mobility:{}", names[w.node.index()]))))
            .collect();
        for (i, w) in spec.nodes.iter().enumerate() {
            index[w.node.index()] = i as u32;
        }
        let macs = spec
            .nodes
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let rng = Rng::stream(seed, &format!("mac:{}", names[w.node.index()]));
                Mac::new(i as u32, n, spec.mac, spec.radio.capture_ratio, rng)
            })
            .collect();
        Air {
            radio: spec.radio,
            reach: Reach::new(&spec.radio),
            routing: spec.routing,
            ll_delay: spec.ll_delay,
            arp_on: spec.arp,
            macs,
            index,
            nodes: spec.nodes.iter().map(|w| w.node).collect(),
            movers,
            motions: Motions::new(&start),
            mobility: spec.mobility.clone(),
            paths: start.iter().map(|&(x, y)| vec![(Time::ZERO, x, y)]).collect(),
            next_hop: match spec.routing {
                Routing::Static => spec.next_hops(),
                Routing::Direct | Routing::Aodv => vec![],
            },
            arp: (0..n).map(|_| FastMap::default()).collect(),
            ctrl: vec![],
            ctrl_free: vec![],
            txs: vec![],
            tx_free: vec![],
            tx_done: BinaryHeap::new(),
            frees: 0,
            rx_power: vec![],
            rx_end_seq: vec![],
            rx_end: None,
            slot: None,
            heard: Some((0..n).map(|_| Overheard::default()).collect()),
            wake_at: vec![0; n],
            keep_before_replay: KEEP_BEFORE_REPLAY,
            paused: vec![None; n],
            wakes: 0,
            replay_out: vec![],
            batch: Batch::default(),
            replayed: 0,
            sense2: (spec.radio.cs_range() * (1.0 + 1e-6) + 1e-6).powi(2),
            out: vec![],
            stats: vec![NetStats::default(); n],
            aodv: match spec.routing {
                Routing::Aodv => spec
                    .nodes
                    .iter()
                    .enumerate()
                    .map(|(i, w)| Aodv::new(i as u32, n, Rng::stream(seed, &format!("aodv:{}", names[w.node.index()]))))
                    .collect(),
                _ => vec![],
            },
            aodv_out: vec![],
            forwards: vec![],
            handed: vec![(0, 0); n],
        }
    }

    /// Every frame heard is run as events, none kept (a test shows the results are the same).
    pub(crate) fn hear_eagerly(&mut self) {
        self.heard = None;
    }

    /// Where node `n` is at `t`.
    pub(crate) fn position(&self, n: usize, t: Time) -> (f64, f64) {
        self.motions.at(n, t)
    }

    fn forwards(&mut self, p: PacketRef) -> &mut u8 {
        let i = p.index();
        if self.forwards.len() <= i {
            self.forwards.resize(i + 1, 0);
        }
        &mut self.forwards[i]
    }

    /// Whether scenario node `n` is a wireless node.
    pub(crate) fn has(&self, n: NodeId) -> bool {
        self.index.get(n.index()).is_some_and(|&i| i != u32::MAX)
    }

    pub(crate) fn mac_stats(&self, i: usize) -> (MacStats, usize) {
        (self.macs[i].stats, self.macs[i].queue().len())
    }

    /// Node `i`'s link-layer and routing counters.
    pub(crate) fn net_stats(&self, i: usize) -> NetStats {
        let mut s = self.stats[i];
        if let Some(a) = self.aodv.get(i) {
            s.routing_pkts = a.stats.routing_pkts;
            s.routing_bytes = a.stats.routing_bytes;
            s.rreq_sent = a.stats.rreq_sent;
            s.rrep_sent = a.stats.rrep_sent;
            s.rerr_sent = a.stats.rerr_sent;
            s.local_repairs = a.stats.local_repairs;
        }
        s
    }

    fn new_ctrl(&mut self, c: Ctrl) -> u32 {
        match self.ctrl_free.pop() {
            Some(i) => {
                self.ctrl[i as usize] = Some(c);
                CTRL | i
            }
            None => {
                self.ctrl.push(Some(c));
                CTRL | (self.ctrl.len() as u32 - 1)
            }
        }
    }

    fn free_ctrl(&mut self, payload: u32) {
        let i = payload & !CTRL;
        self.ctrl[i as usize] = None;
        self.ctrl_free.push(i);
    }
}

// The entry points, then what they do. The event loop calls these out of line (sim.rs).
impl Air {
    /// Before the run: the nodes' first moves, and AODV on every node (ns-2's `$ragent start`).
    pub(crate) fn start(&mut self, cx: &mut impl EventLoop) {
        let now = cx.now();
        match &self.mobility {
            Some(MobilitySpec::RandomWaypoint { pause, .. }) => {
                for n in 0..self.movers.len() {
                    let at = self.movers[n].first(*pause);
                    cx.schedule(at, AirEv::Waypoint { node: n as u32 });
                }
            }
            Some(MobilitySpec::Moves { moves, .. }) => {
                if let Some(m) = moves.first() {
                    cx.schedule(m.at, AirEv::Command { index: 0 });
                }
            }
            None => {}
        }
        for n in 0..self.aodv.len() as u32 {
            let mut out = std::mem::take(&mut self.aodv_out);
            self.aodv[n as usize].start(now, &mut out);
            self.aodv_outs(cx, n, out);
        }
    }

    /// Flow packet `p` enters the wireless network at scenario node `from`, its source.
    pub(crate) fn originate(&mut self, cx: &mut impl EventLoop, p: PacketRef, from: NodeId) {
        let n = self.index[from.index()];
        let dst = self.index[cx.destination(p).index()];
        *self.forwards(p) = 0;
        self.route(cx, n, p.0, dst, true);
    }

    /// Handles one of the stack's events. Returns the flow packet that reached the node where
    /// it leaves the wireless network, if one did: the loop takes it on from there.
    #[inline]
    pub(crate) fn handle(&mut self, cx: &mut impl EventLoop, ev: AirEv) -> Option<PacketRef> {
        match ev {
            AirEv::MacTimer { node, timer, gen } => {
                // A stale timer changes nothing: the station's kept frames wait for its next event.
                if !self.macs[node as usize].live(timer, gen) {
                    // Unless a replay from the channel's loop made it stale (a count paused, a
                    // NAV or a reception prolonged, by frames kept here) and left a backoff paused
                    // with no wake-up: this event was what would have caught the station up, and
                    // comes no later than the backoff could run out (the count's own end, or the
                    // end of a NAV or reception that has only grown). The station is caught up
                    // and settled, as after its own events.
                    let n = node as usize;
                    if self.macs[n].backoff_paused() && self.wake_at[n] <= cx.key() {
                        self.catch_up(cx, node);
                        self.settle(cx, node);
                    }
                    return None;
                }
                self.catch_up(cx, node);
                self.mac_timer(cx, node, timer, gen);
                self.settle(cx, node);
            }
            AirEv::Rx { node, tx } => {
                self.catch_up(cx, node);
                self.rx(cx, node, tx);
                self.settle(cx, node);
            }
            AirEv::LlDown { node, payload, ra } => {
                self.catch_up(cx, node);
                self.ll_down(cx, node, payload, ra);
                self.settle(cx, node);
            }
            AirEv::LlUp { node, payload } => return self.ll_up(cx, node, payload),
            AirEv::RtrOut { node, payload, next } => self.arp_resolve(cx, node, next, payload),
            AirEv::AodvTimer { node, what } => self.aodv_timer(cx, node, what),
            AirEv::Waypoint { node } => self.waypoint(cx, node),
            AirEv::Command { index } => self.command(cx, index),
            AirEv::Wake { node } => {
                self.wakes += 1;
                let n = node as usize;
                if cx.key() != self.wake_at[n] {
                    // An earlier wake-up took its place.
                    return None;
                }
                if let Some(b) = self.paused[n] {
                    let k = overheard::key(b.earliest_expiry(), 0);
                    if k > cx.key() {
                        // Frames kept since pushed the backoff's expiry back: nothing to do yet.
                        self.wake_at[n] = k;
                        cx.schedule_key(k, AirEv::Wake { node });
                        return None;
                    }
                }
                self.catch_up(cx, node);
                self.settle(cx, node);
            }
        }
        None
    }

    /// The routing agent of node `n` sends flow packet `payload` towards wireless node `dst`;
    /// `originated`: it starts here.
    fn route(&mut self, cx: &mut impl EventLoop, n: u32, payload: u32, dst: u32, originated: bool) {
        let nh = match self.routing {
            Routing::Direct => Some(dst),
            Routing::Static => self.next_hop[n as usize][dst as usize],
            Routing::Aodv => {
                let mut out = std::mem::take(&mut self.aodv_out);
                self.aodv[n as usize].route_data(cx.now(), payload, dst, originated, &mut out);
                self.aodv_outs(cx, n, out);
                return;
            }
        };
        match nh {
            Some(nh) => self.arp_resolve(cx, n, nh, payload),
            None => {
                self.stats[n as usize].no_route_drops += 1;
                self.drop_payload(cx, payload);
            }
        }
    }

    /// The link layer: the neighbour's MAC address is known (after ARP, ns-2 ARPTable::
    /// arpresolve), or the packet waits for it.
    fn arp_resolve(&mut self, cx: &mut impl EventLoop, n: u32, nh: u32, payload: u32) {
        let now = cx.now();
        let down = AirEv::LlDown { node: n, payload, ra: nh };
        // Broadcasts need no ARP.
        if !self.arp_on || nh == BROADCAST {
            cx.schedule(now + self.ll_delay, down);
            return;
        }
        let e = self.arp[n as usize].entry(nh).or_default();
        if e.up {
            cx.schedule(now + self.ll_delay, down);
            return;
        }
        if e.requests >= ARP_MAX_REQUESTS {
            e.requests = 0;
            let old = e.hold.take();
            // ns-2 hands both to the routing agent's failure callback, if the packet has one.
            if let Some(h) = old {
                self.xmit_failed(cx, n, h, nh, true);
            }
            self.xmit_failed(cx, n, payload, nh, true);
            return;
        }
        e.requests += 1;
        let old = e.hold.replace(payload);
        if old.is_some() {
            self.stats[n as usize].arp_drops += 1;
        }
        let req = self.new_ctrl(Ctrl::ArpRequest { from: n, target: nh });
        cx.schedule(now + ARP_DELAY, AirEv::LlDown { node: n, payload: req, ra: BROADCAST });
        if let Some(h) = old {
            self.drop_payload(cx, h);
        }
    }

    /// An ARP message reaches node `n` (ns-2 ARPTable::arpinput).
    fn arp_input(&mut self, cx: &mut impl EventLoop, n: u32, msg: Ctrl) {
        let now = cx.now();
        let from = match msg {
            Ctrl::ArpRequest { from, .. } | Ctrl::ArpReply { from } => from,
            Ctrl::Aodv(_) => return,
        };
        let e = self.arp[n as usize].entry(from).or_default();
        e.up = true;
        if let Some(h) = e.hold.take() {
            cx.schedule(now + ARP_DELAY, AirEv::LlDown { node: n, payload: h, ra: from });
        }
        if let Ctrl::ArpRequest { target, .. } = msg {
            if target == n {
                let reply = self.new_ctrl(Ctrl::ArpReply { from: n });
                cx.schedule(now + ARP_DELAY, AirEv::LlDown { node: n, payload: reply, ra: from });
            }
        }
    }

    /// A packet reaches node `n`'s interface queue.
    fn ll_down(&mut self, cx: &mut impl EventLoop, n: u32, payload: u32, ra: u32) {
        let (size, priority) = if payload & CTRL != 0 {
            match &self.ctrl[(payload & !CTRL) as usize] {
                // PriQueue serves routing packets first.
                Some(Ctrl::Aodv(p)) => (p.size(), true),
                _ => (ARP_SIZE, false),
            }
        } else {
            let pkt = cx.packet(PacketRef(payload));
            // TCP's sizes include its IP header already (ns-2's AODV adds none to them).
            let ip = match pkt.kind {
                PktKind::TcpData | PktKind::TcpAck => 0,
                PktKind::Datagram | PktKind::Feedback => self.routing.ip_header(),
            };
            (pkt.size + ip, false)
        };
        let mut out = std::mem::take(&mut self.out);
        self.macs[n as usize].enqueue(cx.now(), IfqItem { payload, ra, size, priority }, &mut out);
        self.mac_outs(cx, n, out);
    }

    fn aodv_timer(&mut self, cx: &mut impl EventLoop, n: u32, what: TimerWhat) {
        let mut out = std::mem::take(&mut self.aodv_out);
        self.aodv[n as usize].timer(cx.now(), what, &mut out);
        self.aodv_outs(cx, n, out);
    }

    /// Does what node `n`'s AODV agent asked for.
    fn aodv_outs(&mut self, cx: &mut impl EventLoop, n: u32, mut out: Vec<aodv::Out>) {
        let now = cx.now();
        for o in out.drain(..) {
            match o {
                aodv::Out::Send { pkt, next, delay } => {
                    let payload = self.new_ctrl(Ctrl::Aodv(pkt));
                    self.send_after(cx, n, payload, next, delay);
                }
                aodv::Out::Forward { pkt, next, delay } => self.send_after(cx, n, pkt, next, delay),
                aodv::Out::Drop { pkt, why } => {
                    let s = &mut self.stats[n as usize];
                    match why {
                        DropWhy::NoRoute => s.no_route_drops += 1,
                        DropWhy::LinkBroke => s.link_broke_drops += 1,
                        DropWhy::Queue => s.route_queue_drops += 1,
                    }
                    self.drop_payload(cx, pkt);
                }
                aodv::Out::FlushQueue { next } => {
                    let gone = self.macs[n as usize].queue_mut().remove_for(next);
                    for it in gone {
                        if it.payload & CTRL == 0 {
                            self.stats[n as usize].link_broke_drops += 1;
                        }
                        self.drop_payload(cx, it.payload);
                    }
                }
                aodv::Out::Timer { at, what } => cx.schedule(at.max(now), AirEv::AodvTimer { node: n, what }),
            }
        }
        // Hand the buffer back for the next call.
        if self.aodv_out.capacity() < out.capacity() {
            self.aodv_out = out;
        }
    }

    /// The routing agent hands `payload` to the link layer for `next`, now or after `delay`.
    fn send_after(&mut self, cx: &mut impl EventLoop, n: u32, payload: u32, next: u32, delay: Dur) {
        if delay.is_zero() {
            self.arp_resolve(cx, n, next, payload);
        } else {
            cx.schedule(cx.now() + delay, AirEv::RtrOut { node: n, payload, next });
        }
    }

    /// The link layer could not deliver `payload` to neighbour `nh` (the MAC's retry limit, or
    /// ARP unanswered): AODV mends its routes; otherwise the packet is dropped.
    fn xmit_failed(&mut self, cx: &mut impl EventLoop, n: u32, payload: u32, nh: u32, arp: bool) {
        if arp {
            self.stats[n as usize].arp_drops += 1;
        }
        // Only data packets carry AODV's failure callback (ns-2 sets it in rt_resolve).
        let data = payload & CTRL == 0;
        if self.routing != Routing::Aodv || !data || nh == BROADCAST {
            self.drop_payload(cx, payload);
            return;
        }
        let (dst, fwd, pkt) = if payload == GHOST {
            let (d, f) = self.handed[n as usize];
            (d, f, None)
        } else {
            let p = PacketRef(payload);
            (self.index[cx.destination(p).index()], *self.forwards(p), Some(payload))
        };
        let mut out = std::mem::take(&mut self.aodv_out);
        self.aodv[n as usize].link_failed(cx.now(), pkt, dst, fwd as u32, nh, &mut out);
        self.aodv_outs(cx, n, out);
    }

    // `mac_timer` and `rx` are most of the stack's events (a MAC timer; a frame's first bit at
    // each node in carrier-sense range): inlined into `handle`, they save a call each.
    #[inline]
    fn mac_timer(&mut self, cx: &mut impl EventLoop, n: u32, kind: TimerKind, gen: u32) {
        let mac = &mut self.macs[n as usize];
        self.slot = match kind {
            TimerKind::Rx if mac.rx_end_starts_one_timer() => Some(cx.raw(cx.key() as u64) + overheard::TIMER_AT_END),
            TimerKind::Nav => Some(cx.raw(cx.key() as u64) + overheard::BACKOFF_AFTER_NAV),
            _ => None,
        };
        mac.on_timer(cx.now(), kind, gen, &mut self.out);
        self.pending_mac_outs(cx, n);
        self.slot = None;
    }

    /// The first bit of transmission `tx` reaches node `n`.
    #[inline]
    fn rx(&mut self, cx: &mut impl EventLoop, n: u32, tx: u32) {
        let t = self.txs[tx as usize].as_ref().expect("a transmission on the air");
        let at = tx as usize * self.motions.len() + n as usize;
        let power = self.rx_power[at];
        let decodable = power >= self.radio.rx_threshold;
        let frame = t.frame;
        let end_seq = self.rx_end_seq[at];
        self.rx_end = Some(end_seq);
        self.slot = Some(cx.raw(end_seq) + overheard::NAV_AT_FIRST_BIT);
        self.macs[n as usize].rx_start(cx.now(), frame, power, decodable, &mut self.out);
        self.pending_mac_outs(cx, n);
        self.rx_end = None;
        self.slot = None;
    }

    /// Before node `n`'s event: the frames it kept whose events come before this one, replayed
    /// (overheard.rs).
    #[inline]
    fn catch_up(&mut self, cx: &mut impl EventLoop, n: u32) {
        if let Some(heard) = &mut self.heard {
            let h = &mut heard[n as usize];
            if !h.is_empty() {
                let mac = &mut self.macs[n as usize];
                let bound = cx.key();
                self.replayed += h.replay(cx, n, mac, self.radio.rx_threshold, bound, &mut self.replay_out);
            }
        }
    }

    /// After node `n`'s event: if its backoff waits paused while it keeps frames, it is woken
    /// no later than the backoff could run out (overheard.rs), a bound kept for the frames it
    /// keeps next to push back. A wake-up comes before every other event of its time (its key's
    /// insertion number is 0, which no event takes).
    #[inline]
    fn settle(&mut self, cx: &mut impl EventLoop, n: u32) {
        let Some(heard) = &self.heard else { return };
        let h = &heard[n as usize];
        let mac = &self.macs[n as usize];
        let paused =
            if h.is_empty() { None } else { mac.paused_backoff(cx.now(), h.busy_until(mac, self.radio.rx_threshold)) };
        self.paused[n as usize] = paused;
        let Some(b) = paused else { return };
        let k = overheard::key(b.earliest_expiry(), 0);
        let pending = &mut self.wake_at[n as usize];
        if *pending > cx.key() && *pending <= k {
            return;
        }
        *pending = k;
        cx.schedule_key(k, AirEv::Wake { node: n });
    }

    /// At the run's end (or where it stopped): the kept events before `bound` (the first event
    /// not run), replayed, so that every station's state and the count of events are what
    /// running them all from the queue gives.
    pub(crate) fn finish(&mut self, cx: &mut impl EventLoop, bound: u128) {
        // The slots that would have been freed before the end (the run's events).
        let end = Time((bound >> 64) as u64);
        self.frees += self.tx_done.iter().filter(|Reverse((done, _))| *done < end).count() as u64;
        if let Some(heard) = &mut self.heard {
            for (n, (h, mac)) in heard.iter_mut().zip(&mut self.macs).enumerate() {
                self.replayed += h.replay(cx, n as u32, mac, self.radio.rx_threshold, bound, &mut self.replay_out);
            }
        }
    }

    /// Schedules node `n`'s MAC timer; a reception's end in the place reserved for it when its
    /// frame was sent.
    #[inline]
    fn arm(&mut self, cx: &mut impl EventLoop, n: u32, timer: TimerKind, at: Time, gen: u32) {
        let ev = AirEv::MacTimer { node: n, timer, gen };
        match timer {
            TimerKind::Rx => {
                let seq = self.rx_end.take().expect("an Rx timer starts at a frame's first bit");
                cx.schedule_reserved(at, seq, ev);
            }
            TimerKind::Nav | TimerKind::Backoff if self.slot.is_some() => {
                let raw = self.slot.take().expect("a slot");
                cx.schedule_key(cx.key_after(cx.key(), at, raw), ev);
            }
            TimerKind::Nav => {
                cx.schedule(at, ev);
                // The number after its own, for the backoff its end may resume.
                cx.reserve_raw();
            }
            _ => cx.schedule(at, ev),
        }
    }

    /// Does what node `n`'s MAC asked for in `self.out`. Most of its events (a frame's first
    /// bit, the end of a reception, a stale timer) ask for one timer or nothing: those are done
    /// here, inlined, and the rest goes through [`Self::mac_outs`] as before.
    #[inline]
    fn pending_mac_outs(&mut self, cx: &mut impl EventLoop, n: u32) {
        match self.out[..] {
            [] => {}
            [MacOut::Arm { timer, at, gen }] => {
                self.out.clear();
                self.arm(cx, n, timer, at, gen);
            }
            _ => {
                let out = std::mem::take(&mut self.out);
                self.mac_outs(cx, n, out);
            }
        }
    }

    /// Frees the slots every receiver is through with by `now`.
    fn free_txs(&mut self, now: Time) {
        while let Some(&Reverse((done, tx))) = self.tx_done.peek() {
            if done > now {
                break;
            }
            self.tx_done.pop();
            self.txs[tx as usize] = None;
            self.tx_free.push(tx);
            self.frees += 1;
        }
    }

    /// Does what node `n`'s MAC asked for.
    fn mac_outs(&mut self, cx: &mut impl EventLoop, n: u32, mut out: Vec<MacOut>) {
        for o in out.drain(..) {
            match o {
                MacOut::Arm { timer, at, gen } => self.arm(cx, n, timer, at, gen),
                MacOut::Transmit(f) => self.transmit(cx, n, f),
                MacOut::Up(f) => self.up(cx, n, f),
                MacOut::Done { payload, outcome, ra } => match outcome {
                    Outcome::Sent => {
                        if payload == GHOST {
                        } else if payload & CTRL != 0 {
                            self.free_ctrl(payload);
                        } else {
                            // Acknowledged, yet its receiver never took it: only a wrapped
                            // sequence number mistaken for a duplicate does this.
                            self.drop_payload(cx, payload);
                        }
                    }
                    Outcome::RetryLimit => {
                        self.xmit_failed(cx, n, payload, ra, false);
                        let mut more = vec![];
                        self.macs[n as usize].failure_handled(cx.now(), &mut more);
                        self.mac_outs(cx, n, more);
                    }
                    Outcome::QueueFull => self.drop_payload(cx, payload),
                },
            }
        }
        // Hand the buffer back for the next call.
        if self.out.capacity() < out.capacity() {
            self.out = out;
        }
    }

    /// Node `n` puts `f` on the air: every node that senses it gets its first bit after the
    /// propagation delay (ns-2 WirelessChannel::sendUp; below the carrier-sense threshold a
    /// node never notices it).
    fn transmit(&mut self, cx: &mut impl EventLoop, n: u32, mut f: Frame) {
        let now = cx.now();
        let msg = (f.payload & CTRL != 0 && f.payload != GHOST)
            .then(|| self.ctrl[(f.payload & !CTRL) as usize].clone())
            .flatten();
        self.free_txs(now);
        let slot = match self.tx_free.pop() {
            Some(i) => i,
            None => {
                self.txs.push(None);
                self.txs.len() as u32 - 1
            }
        };
        f.tx = slot;
        let (x, y) = self.position(n as usize, now);
        self.txs[slot as usize] = Some(AirTx { frame: f, msg });
        let nodes = self.motions.len();
        let base = slot as usize * nodes;
        if self.rx_power.len() < base + nodes {
            self.rx_power.resize(base + nodes, 0.0);
        }
        if self.rx_end_seq.len() < base + nodes {
            self.rx_end_seq.resize(base + nodes, 0);
        }
        let mut last = Dur::ZERO;
        // A unicast frame: only its receiver needs it.
        let for_one = f.ra != BROADCAST;
        // The loop's fields apart, each station's entries side by side.
        let keep_before_replay = self.keep_before_replay;
        let Air {
            motions,
            macs,
            heard,
            reach,
            radio,
            sense2,
            rx_power,
            rx_end_seq,
            replay_out,
            replayed,
            batch,
            paused,
            ..
        } = self;
        let (rx_power, rx_end_seq) = (&mut rx_power[base..base + nodes], &mut rx_end_seq[base..base + nodes]);
        let mut heard = heard.as_deref_mut();
        // First the physics, every node at once (physics.rs); then the stations in range.
        let in_range = batch.fill(motions, reach, now, (n as usize, x, y), (*sense2, radio.cs_threshold));
        for j in 0..in_range {
            if batch.sensed[j] == 0 {
                continue;
            }
            let r = batch.node[j] as usize;
            let mut power = batch.power[j];
            if power.is_nan() {
                // Within the crossover distance (or in free space): Friis.
                power = reach.power(batch.near_d2[j].sqrt());
                if power < radio.cs_threshold {
                    continue;
                }
            }
            let delay = Reach::whole_ns(batch.delay[j]).unwrap_or_else(|| propagation::delay(batch.near_d2[j].sqrt()));
            last = last.max(delay);
            let (first_seq, end_seq) = cx.reserve_rx(delay, f.txtime);
            if let Some(heard) = heard.as_deref_mut() {
                // A frame that is not for it, or that it cannot decode, only occupies the
                // medium here (overheard.rs).
                let passing = (for_one && f.ra != r as u32) || power < radio.rx_threshold;
                if passing {
                    let h = &mut heard[r];
                    h.keep(Heard::new(overheard::key(now + delay, first_seq), end_seq, &f, power));
                    if let Some(b) = &mut paused[r] {
                        b.hear(now + delay, f.txtime, f.duration, power >= radio.rx_threshold);
                    }
                    // A station that hears for long keeps its list short: what is past, replayed.
                    if h.len() > keep_before_replay {
                        let bound = cx.key();
                        *replayed += h.replay(cx, r as u32, &mut macs[r], radio.rx_threshold, bound, replay_out);
                    }
                    continue;
                }
            }
            rx_power[r] = power;
            rx_end_seq[r] = end_seq;
            cx.schedule_reserved(now + delay, first_seq, AirEv::Rx { node: r as u32, tx: slot });
        }
        // Kept until every receiver is through with it: a nanosecond after the last one's
        // reception ends.
        self.tx_done.push(Reverse((now + last + f.txtime + Dur(1), slot)));
    }

    /// Node `n`'s MAC received a data frame for it (or a broadcast).
    fn up(&mut self, cx: &mut impl EventLoop, n: u32, f: Frame) {
        let now = cx.now();
        if f.payload & CTRL != 0 && f.payload != GHOST {
            let msg = self.txs[f.tx as usize].as_ref().and_then(|t| t.msg.clone());
            match msg {
                Some(Ctrl::Aodv(p)) => {
                    // Up through the link layer to the routing agent.
                    let id = self.new_ctrl(Ctrl::Aodv(p));
                    cx.schedule(now + self.ll_delay, AirEv::LlUp { node: n, payload: id });
                }
                Some(arp) => self.arp_input(cx, n, arp),
                None => {}
            }
            return;
        }
        // The packet moves to this node, unless an earlier copy of the frame brought it.
        let sender = &mut self.macs[f.ta as usize];
        let current = sender.pending().is_some_and(|p| p.payload == f.payload && p.seqno == f.seqno);
        if f.payload == GHOST || !current {
            return;
        }
        sender.hand_over(f.payload, GHOST);
        // What a link failure at the sender needs to know once the packet is gone.
        let p = PacketRef(f.payload);
        let fwd = self.forwards(p);
        *fwd = fwd.saturating_add(1);
        let fwd = *fwd;
        self.handed[f.ta as usize] = (self.index[cx.destination(p).index()], fwd - 1);
        self.stats[n as usize].received += 1;
        cx.schedule(now + self.ll_delay, AirEv::LlUp { node: n, payload: f.payload });
    }

    /// A packet reaches node `n`'s routing agent: a control message, or a flow packet at its
    /// destination (returned: it leaves the wireless network) or at a hop on the way.
    fn ll_up(&mut self, cx: &mut impl EventLoop, n: u32, payload: u32) -> Option<PacketRef> {
        if payload & CTRL != 0 {
            let i = (payload & !CTRL) as usize;
            let msg = self.ctrl[i].take();
            self.free_ctrl(payload);
            if let Some(Ctrl::Aodv(p)) = msg {
                let mut out = std::mem::take(&mut self.aodv_out);
                self.aodv[n as usize].recv(cx.now(), p, &mut out);
                self.aodv_outs(cx, n, out);
            }
            return None;
        }
        let p = PacketRef(payload);
        let dst_node = cx.destination(p);
        if self.nodes[n as usize] == dst_node {
            return Some(p);
        }
        let dst = self.index[dst_node.index()];
        // The hop limit (ns-2: TTL from NETWORK_DIAMETER, less one at each forwarder).
        if self.routing == Routing::Aodv && *self.forwards(p) >= aodv::NETWORK_DIAMETER {
            self.stats[n as usize].ttl_drops += 1;
            self.drop_payload(cx, payload);
            return None;
        }
        self.route(cx, n, payload, dst, false);
        None
    }

    /// Random waypoint: node `n`'s pause or move ends; it heads for its next waypoint or
    /// pauses there.
    fn waypoint(&mut self, cx: &mut impl EventLoop, n: u32) {
        let now = cx.now();
        if let Some(MobilitySpec::RandomWaypoint { width, height, speed, pause }) = &self.mobility {
            let i = n as usize;
            let mut motion = self.motions.get(i);
            let end = self.movers[i].next(&mut motion, now, *width, *height, *speed, *pause);
            self.motions.set(i, motion);
            let (x, y) = self.position(i, now);
            self.paths[i].push((now, x, y));
            cx.schedule(end, AirEv::Waypoint { node: n });
        }
    }

    /// Command `index` of the scenario's list of moves is due.
    fn command(&mut self, cx: &mut impl EventLoop, index: u32) {
        let now = cx.now();
        // Borrowed, not cloned: a movement file's list is read one command at a time.
        if let Some(MobilitySpec::Moves { width, height, moves }) = &self.mobility {
            let m = moves[index as usize];
            // ns-2's set_destination ignores a destination on or beyond the edges.
            if m.node < self.motions.len() && m.x > 0.0 && m.x < *width && m.y > 0.0 && m.y < *height {
                let (x, y) = self.position(m.node, now);
                self.paths[m.node].push((now, x, y));
                let mut motion = self.motions.get(m.node);
                motion.head_for(now, m.x, m.y, m.speed);
                self.motions.set(m.node, motion);
            }
            if let Some(next) = moves.get(index as usize + 1) {
                cx.schedule(next.at, AirEv::Command { index: index + 1 });
            }
        }
    }

    /// Drops what a wireless node could not send on.
    fn drop_payload(&mut self, cx: &mut impl EventLoop, payload: u32) {
        if payload == GHOST {
            return;
        }
        if payload & CTRL != 0 {
            self.free_ctrl(payload);
        } else {
            cx.drop_packet(PacketRef(payload));
        }
    }
}
