//! Wireless nodes in the event loop: the shared channel (who hears a frame, at what power,
//! after what propagation delay), the link layer with its delay and ARP, and routing, around
//! each node's MAC (mac.rs). A child of `sim`, whose loop it extends.
//!
//! A flow packet keeps one arena slot from its source to its sink: the node that holds it
//! (in ARP, the interface queue or the MAC) owns it, and a receiver that decodes a data frame
//! takes it over, leaving the sender a "ghost" to finish its exchange with (the ACK, or
//! retries that the receiver recognises as duplicates). Control messages (ARP) live in a slab
//! while queued, and travel inside the transmission.

use fairway_core::{Dur, NodeId, PacketRef, Rng, Time};

use super::{Ev, Sim, END_OF_ROUTE};
use crate::fasthash::FastMap;
use crate::packet::PktKind;
use crate::wireless::aodv::{self, Aodv, DropWhy};
use crate::wireless::ifq::IfqItem;
use crate::wireless::mac::{Frame, Mac, MacOut, MacStats, Outcome, TimerKind, BROADCAST};
use crate::wireless::mobility::{MobilitySpec, Mover};
use crate::wireless::{propagation, NetStats, Radio, Routing, WirelessSpec};

/// A route entry that crosses the wireless network to the scenario node in its low bits.
pub(super) const AIR: u32 = 1 << 30;
/// A payload that is a control message (its slab index in the low bits), not a flow packet.
const CTRL: u32 = 1 << 31;
/// The payload of a frame whose packet its receiver has already taken.
const GHOST: u32 = u32::MAX;

/// ns-2's ARP: a 28-byte message, 5 µs on its way to the queue, and three requests before a
/// destination is given up (mac/arp.h, ARPTable delay_).
const ARP_SIZE: u32 = 28;
const ARP_DELAY: Dur = Dur::from_micros(5);
const ARP_MAX_REQUESTS: u32 = 3;

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
    routing: Routing,
    ll_delay: Dur,
    arp_on: bool,
    macs: Vec<Mac>,
    /// Per scenario node, its wireless index (`u32::MAX` for wired nodes).
    index: Vec<u32>,
    nodes: Vec<NodeId>,
    /// Each node's current move (a still one when nodes do not move).
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
    /// Per transmission slot and node, the power it arrives with (taken when it is sent).
    rx_power: Vec<f64>,
    /// Beyond this distance squared no node senses a frame (the carrier-sense range, with a
    /// margin: the exact test is the power's).
    sense2: f64,
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
    pub(super) fn new(spec: &WirelessSpec, n_nodes: usize, seed: u64, names: &[String]) -> Air {
        let n = spec.nodes.len();
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
            .zip(&start)
            .map(|(w, &(x, y))| Mover::new(x, y, Rng::stream(seed, &format!("mobility:{}", names[w.node.index()]))))
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
            routing: spec.routing,
            ll_delay: spec.ll_delay,
            arp_on: spec.arp,
            macs,
            index,
            nodes: spec.nodes.iter().map(|w| w.node).collect(),
            movers,
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
            rx_power: vec![],
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

    /// Where node `n` is at `t`.
    pub(crate) fn position(&self, n: usize, t: Time) -> (f64, f64) {
        self.movers[n].motion.at(t)
    }

    fn forwards(&mut self, p: PacketRef) -> &mut u8 {
        let i = p.index();
        if self.forwards.len() <= i {
            self.forwards.resize(i + 1, 0);
        }
        &mut self.forwards[i]
    }

    /// Whether scenario node `n` is a wireless node.
    pub(super) fn has(&self, n: NodeId) -> bool {
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

// The entry points from the event loop are kept out of line (`inline(never)`): inlined, they
// bloated the loop's dispatch and slowed wired runs by 8%.
impl Sim<'_> {
    fn air(&mut self) -> &mut Air {
        self.air.as_deref_mut().expect("a wireless scenario")
    }

    /// A flow packet enters the wireless network at its source (or the end of a wired part).
    #[inline(never)]
    pub(super) fn air_originate(&mut self, p: PacketRef) {
        let pkt = *self.arena.get(p);
        let f = &self.sc.flows[pkt.flow as usize];
        let here = if pkt.kind.is_data() { f.from } else { f.to };
        let dst_node = self.routes[(pkt.route + pkt.hop) as usize] & !AIR;
        let air = self.air();
        let n = air.index[here.index()];
        let dst = air.index[dst_node as usize];
        *air.forwards(p) = 0;
        self.air_route(n, p.0, dst, true);
    }

    /// AODV starts on every node at time 0 (ns-2's `$ragent start`).
    #[inline(never)]
    pub(super) fn air_start(&mut self) {
        let now = self.now;
        let Some(air) = self.air.as_deref_mut() else { return };
        match &air.mobility {
            Some(MobilitySpec::RandomWaypoint { pause, .. }) => {
                for n in 0..air.movers.len() {
                    let at = air.movers[n].first(*pause);
                    self.q.push(at, Ev::Move(n as u32, 0));
                }
            }
            Some(MobilitySpec::Moves { moves, .. }) => {
                if let Some(m) = moves.first() {
                    self.q.push(m.at, Ev::Move(0, 1));
                }
            }
            None => {}
        }
        let Some(air) = self.air.as_deref_mut() else { return };
        for n in 0..air.aodv.len() as u32 {
            let air = self.air.as_deref_mut().expect("wireless");
            let mut out = std::mem::take(&mut air.aodv_out);
            air.aodv[n as usize].start(now, &mut out);
            self.aodv_outs(n, out);
        }
    }

    /// The routing agent of node `n` sends flow packet `payload` towards wireless node `dst`;
    /// `originated`: it starts here.
    fn air_route(&mut self, n: u32, payload: u32, dst: u32, originated: bool) {
        let now = self.now;
        let air = self.air.as_deref_mut().expect("wireless");
        let nh = match air.routing {
            Routing::Direct => Some(dst),
            Routing::Static => air.next_hop[n as usize][dst as usize],
            Routing::Aodv => {
                let mut out = std::mem::take(&mut air.aodv_out);
                air.aodv[n as usize].route_data(now, payload, dst, originated, &mut out);
                self.aodv_outs(n, out);
                return;
            }
        };
        match nh {
            Some(nh) => self.arp_resolve(n, nh, payload),
            None => {
                self.air().stats[n as usize].no_route_drops += 1;
                self.drop_payload(payload);
            }
        }
    }

    /// The link layer: the neighbour's MAC address is known (after ARP, ns-2 ARPTable::
    /// arpresolve), or the packet waits for it.
    fn arp_resolve(&mut self, n: u32, nh: u32, payload: u32) {
        let now = self.now;
        let air = self.air();
        // Broadcasts need no ARP.
        if !air.arp_on || nh == BROADCAST {
            let at = now + air.ll_delay;
            self.q.push(at, Ev::LlDown(n, payload, nh));
            return;
        }
        let e = air.arp[n as usize].entry(nh).or_default();
        if e.up {
            let at = now + air.ll_delay;
            self.q.push(at, Ev::LlDown(n, payload, nh));
            return;
        }
        if e.requests >= ARP_MAX_REQUESTS {
            e.requests = 0;
            let old = e.hold.take();
            // ns-2 hands both to the routing agent's failure callback, if the packet has one.
            if let Some(h) = old {
                self.xmit_failed(n, h, nh, true);
            }
            self.xmit_failed(n, payload, nh, true);
            return;
        }
        e.requests += 1;
        let old = e.hold.replace(payload);
        if old.is_some() {
            air.stats[n as usize].arp_drops += 1;
        }
        let req = air.new_ctrl(Ctrl::ArpRequest { from: n, target: nh });
        self.q.push(now + ARP_DELAY, Ev::LlDown(n, req, BROADCAST));
        if let Some(h) = old {
            self.drop_payload(h);
        }
    }

    /// An ARP message reaches node `n` (ns-2 ARPTable::arpinput).
    fn arp_input(&mut self, n: u32, msg: Ctrl) {
        let now = self.now;
        let from = match msg {
            Ctrl::ArpRequest { from, .. } | Ctrl::ArpReply { from } => from,
            Ctrl::Aodv(_) => return,
        };
        let air = self.air();
        let e = air.arp[n as usize].entry(from).or_default();
        e.up = true;
        if let Some(h) = e.hold.take() {
            self.q.push(now + ARP_DELAY, Ev::LlDown(n, h, from));
        }
        if let Ctrl::ArpRequest { target, .. } = msg {
            if target == n {
                let reply = self.air().new_ctrl(Ctrl::ArpReply { from: n });
                self.q.push(now + ARP_DELAY, Ev::LlDown(n, reply, from));
            }
        }
    }

    /// A packet reaches node `n`'s interface queue.
    #[inline(never)]
    pub(super) fn ll_down(&mut self, n: u32, payload: u32, ra: u32) {
        let air = self.air.as_deref_mut().expect("wireless");
        let (size, priority) = if payload & CTRL != 0 {
            match &air.ctrl[(payload & !CTRL) as usize] {
                // PriQueue serves routing packets first.
                Some(Ctrl::Aodv(p)) => (p.size(), true),
                _ => (ARP_SIZE, false),
            }
        } else {
            let pkt = self.arena.get(PacketRef(payload));
            // TCP's sizes include its IP header already (ns-2's AODV adds none to them).
            let ip = match pkt.kind {
                PktKind::TcpData | PktKind::TcpAck => 0,
                PktKind::Datagram | PktKind::Feedback => air.routing.ip_header(),
            };
            (pkt.size + ip, false)
        };
        let now = self.now;
        let mut out = std::mem::take(&mut air.out);
        air.macs[n as usize].enqueue(now, IfqItem { payload, ra, size, priority }, &mut out);
        self.mac_outs(n, out);
    }

    /// A delayed send of the routing agent reaches the link layer.
    #[inline(never)]
    pub(super) fn rtr_out(&mut self, n: u32, payload: u32, nh: u32) {
        self.arp_resolve(n, nh, payload);
    }

    #[inline(never)]
    pub(super) fn aodv_timer(&mut self, n: u32, kind: u32, dst: u32) {
        let what = match kind {
            0 => aodv::TimerWhat::Purge,
            1 => aodv::TimerWhat::BcastIds,
            _ => aodv::TimerWhat::Repair(dst),
        };
        let now = self.now;
        let air = self.air.as_deref_mut().expect("wireless");
        let mut out = std::mem::take(&mut air.aodv_out);
        air.aodv[n as usize].timer(now, what, &mut out);
        self.aodv_outs(n, out);
    }

    /// Does what node `n`'s AODV agent asked for.
    fn aodv_outs(&mut self, n: u32, mut out: Vec<aodv::Out>) {
        let now = self.now;
        for o in out.drain(..) {
            match o {
                aodv::Out::Send { pkt, next, delay } => {
                    let payload = self.air().new_ctrl(Ctrl::Aodv(pkt));
                    self.send_after(n, payload, next, delay);
                }
                aodv::Out::Forward { pkt, next, delay } => self.send_after(n, pkt, next, delay),
                aodv::Out::Drop { pkt, why } => {
                    let s = &mut self.air().stats[n as usize];
                    match why {
                        DropWhy::NoRoute => s.no_route_drops += 1,
                        DropWhy::LinkBroke => s.link_broke_drops += 1,
                        DropWhy::Queue => s.route_queue_drops += 1,
                    }
                    self.drop_payload(pkt);
                }
                aodv::Out::FlushQueue { next } => {
                    let gone = self.air().macs[n as usize].queue_mut().remove_for(next);
                    for it in gone {
                        if it.payload & CTRL == 0 {
                            self.air().stats[n as usize].link_broke_drops += 1;
                        }
                        self.drop_payload(it.payload);
                    }
                }
                aodv::Out::Timer { at, what } => {
                    let (kind, dst) = match what {
                        aodv::TimerWhat::Purge => (0, 0),
                        aodv::TimerWhat::BcastIds => (1, 0),
                        aodv::TimerWhat::Repair(d) => (2, d),
                    };
                    self.q.push(at.max(now), Ev::AodvTimer(n, kind, dst));
                }
            }
        }
        if let Some(air) = self.air.as_deref_mut() {
            if air.aodv_out.capacity() < out.capacity() {
                air.aodv_out = out;
            }
        }
    }

    /// The routing agent hands `payload` to the link layer for `next`, now or after `delay`.
    fn send_after(&mut self, n: u32, payload: u32, next: u32, delay: Dur) {
        if delay.is_zero() {
            self.arp_resolve(n, next, payload);
        } else {
            self.q.push(self.now + delay, Ev::RtrOut(n, payload, next));
        }
    }

    /// The link layer could not deliver `payload` to neighbour `nh` (the MAC's retry limit, or
    /// ARP unanswered): AODV mends its routes; otherwise the packet is dropped.
    fn xmit_failed(&mut self, n: u32, payload: u32, nh: u32, arp: bool) {
        let now = self.now;
        let air = self.air.as_deref_mut().expect("wireless");
        if arp {
            air.stats[n as usize].arp_drops += 1;
        }
        // Only data packets carry AODV's failure callback (ns-2 sets it in rt_resolve).
        let data = payload & CTRL == 0;
        if air.routing != Routing::Aodv || !data || nh == BROADCAST {
            self.drop_payload(payload);
            return;
        }
        let (dst, fwd, pkt) = if payload == GHOST {
            let (d, f) = air.handed[n as usize];
            (d, f, None)
        } else {
            let p = PacketRef(payload);
            let dst_node = self.routes[(self.arena.get(p).route + self.arena.get(p).hop) as usize] & !AIR;
            let air = self.air.as_deref_mut().expect("wireless");
            (air.index[dst_node as usize], *air.forwards(p), Some(payload))
        };
        let air = self.air.as_deref_mut().expect("wireless");
        let mut out = std::mem::take(&mut air.aodv_out);
        air.aodv[n as usize].link_failed(now, pkt, dst, fwd as u32, nh, &mut out);
        self.aodv_outs(n, out);
    }

    #[inline(never)]
    pub(super) fn mac_timer(&mut self, n: u32, kind: u32, gen: u32) {
        let Some(kind) = TimerKind::from_u8(kind as u8) else { return };
        let now = self.now;
        let air = self.air.as_deref_mut().expect("wireless");
        let mut out = std::mem::take(&mut air.out);
        air.macs[n as usize].on_timer(now, kind, gen, &mut out);
        self.mac_outs(n, out);
    }

    /// The first bit of transmission `tx` reaches node `n`.
    #[inline(never)]
    pub(super) fn air_rx(&mut self, n: u32, tx: u32) {
        let now = self.now;
        let air = self.air.as_deref_mut().expect("wireless");
        let t = air.txs[tx as usize].as_ref().expect("a transmission on the air");
        let power = air.rx_power[tx as usize * air.movers.len() + n as usize];
        let decodable = power >= air.radio.rx_threshold;
        let frame = t.frame;
        let mut out = std::mem::take(&mut air.out);
        air.macs[n as usize].rx_start(now, frame, power, decodable, &mut out);
        self.mac_outs(n, out);
    }

    #[inline(never)]
    pub(super) fn air_free(&mut self, tx: u32) {
        let air = self.air();
        air.txs[tx as usize] = None;
        air.tx_free.push(tx);
    }

    /// Does what node `n`'s MAC asked for.
    fn mac_outs(&mut self, n: u32, mut out: Vec<MacOut>) {
        for o in out.drain(..) {
            match o {
                MacOut::Arm { timer, at, gen } => self.q.push(at, Ev::MacTimer(n, timer as u32, gen)),
                MacOut::Transmit(f) => self.air_transmit(n, f),
                MacOut::Up(f) => self.air_up(n, f),
                MacOut::Done { payload, outcome, ra } => match outcome {
                    Outcome::Sent => {
                        if payload == GHOST {
                        } else if payload & CTRL != 0 {
                            self.air().free_ctrl(payload);
                        } else {
                            // Acknowledged, yet its receiver never took it: only a wrapped
                            // sequence number mistaken for a duplicate does this.
                            self.drop_payload(payload);
                        }
                    }
                    Outcome::RetryLimit => self.xmit_failed(n, payload, ra, false),
                    Outcome::QueueFull => self.drop_payload(payload),
                },
            }
        }
        // Hand the buffer back for the next call.
        if let Some(air) = self.air.as_deref_mut() {
            if air.out.capacity() < out.capacity() {
                air.out = out;
            }
        }
    }

    /// Node `n` puts `f` on the air: every node that senses it gets its first bit after the
    /// propagation delay (ns-2 WirelessChannel::sendUp; below the carrier-sense threshold a
    /// node never notices it).
    fn air_transmit(&mut self, n: u32, mut f: Frame) {
        let now = self.now;
        let air = self.air.as_deref_mut().expect("wireless");
        let msg = (f.payload & CTRL != 0 && f.payload != GHOST)
            .then(|| air.ctrl[(f.payload & !CTRL) as usize].clone())
            .flatten();
        let slot = match air.tx_free.pop() {
            Some(i) => i,
            None => {
                air.txs.push(None);
                air.txs.len() as u32 - 1
            }
        };
        f.tx = slot;
        let (x, y) = air.position(n as usize, now);
        air.txs[slot as usize] = Some(AirTx { frame: f, msg });
        let nodes = air.movers.len();
        let base = slot as usize * nodes;
        if air.rx_power.len() < base + nodes {
            air.rx_power.resize(base + nodes, 0.0);
        }
        let mut last = Dur::ZERO;
        for r in 0..nodes as u32 {
            if r == n {
                continue;
            }
            let (rx, ry) = air.position(r as usize, now);
            let d2 = (rx - x) * (rx - x) + (ry - y) * (ry - y);
            if d2 > air.sense2 {
                continue;
            }
            let d = d2.sqrt();
            let power = air.radio.received_power(d);
            if power < air.radio.cs_threshold {
                continue;
            }
            air.rx_power[base + r as usize] = power;
            let delay = propagation::delay(d);
            last = last.max(delay);
            self.q.push(now + delay, Ev::AirRx(r, slot));
        }
        // Kept until every receiver is through with it: a nanosecond after the last one's
        // reception ends.
        self.q.push(now + last + f.txtime + Dur(1), Ev::AirFree(slot));
    }

    /// Node `n`'s MAC received a data frame for it (or a broadcast).
    fn air_up(&mut self, n: u32, f: Frame) {
        let now = self.now;
        if f.payload & CTRL != 0 && f.payload != GHOST {
            let msg = self.air().txs[f.tx as usize].as_ref().and_then(|t| t.msg.clone());
            match msg {
                Some(Ctrl::Aodv(p)) => {
                    // Up through the link layer to the routing agent.
                    let air = self.air();
                    let id = air.new_ctrl(Ctrl::Aodv(p));
                    let at = now + air.ll_delay;
                    self.q.push(at, Ev::LlUp(n, id));
                }
                Some(arp) => self.arp_input(n, arp),
                None => {}
            }
            return;
        }
        let air = self.air();
        // The packet moves to this node, unless an earlier copy of the frame brought it.
        let sender = &mut air.macs[f.ta as usize];
        let current = sender.pending().is_some_and(|p| p.payload == f.payload && p.seqno == f.seqno);
        if f.payload == GHOST || !current {
            return;
        }
        sender.hand_over(f.payload, GHOST);
        // What a link failure at the sender needs to know once the packet is gone.
        let p = PacketRef(f.payload);
        let fwd = air.forwards(p);
        *fwd = fwd.saturating_add(1);
        let fwd = *fwd;
        let dst_node = self.routes[(self.arena.get(p).route + self.arena.get(p).hop) as usize] & !AIR;
        let air = self.air.as_deref_mut().expect("wireless");
        air.handed[f.ta as usize] = (air.index[dst_node as usize], fwd - 1);
        air.stats[n as usize].received += 1;
        let at = now + air.ll_delay;
        self.q.push(at, Ev::LlUp(n, f.payload));
    }

    /// A flow packet reaches node `n`'s routing agent: its destination, or a hop on the way.
    #[inline(never)]
    pub(super) fn ll_up(&mut self, n: u32, payload: u32) {
        if payload & CTRL != 0 {
            let now = self.now;
            let air = self.air.as_deref_mut().expect("wireless");
            let i = (payload & !CTRL) as usize;
            let msg = air.ctrl[i].take();
            air.free_ctrl(payload);
            if let Some(Ctrl::Aodv(p)) = msg {
                let mut out = std::mem::take(&mut air.aodv_out);
                air.aodv[n as usize].recv(now, p, &mut out);
                self.aodv_outs(n, out);
            }
            return;
        }
        let p = PacketRef(payload);
        let pkt = *self.arena.get(p);
        let dst_node = self.routes[(pkt.route + pkt.hop) as usize] & !AIR;
        let air = self.air();
        if air.nodes[n as usize].0 != dst_node {
            let dst = air.index[dst_node as usize];
            // The hop limit (ns-2: TTL from NETWORK_DIAMETER, less one at each forwarder).
            if air.routing == Routing::Aodv && *air.forwards(p) >= aodv::NETWORK_DIAMETER {
                air.stats[n as usize].ttl_drops += 1;
                self.drop_payload(payload);
                return;
            }
            self.air_route(n, payload, dst, false);
            return;
        }
        // Out of the wireless network: to the agent, or on to the next link.
        let pkt = self.arena.get_mut(p);
        pkt.hop += 1;
        match self.routes[(pkt.route + pkt.hop) as usize] {
            END_OF_ROUTE => {
                let pkt = *self.arena.get(p);
                self.arena.free(p);
                self.deliver(pkt);
            }
            next => self.link_arrival(next as usize, p),
        }
    }

    /// A node's pause or move ends (random waypoint, `kind` 0, node `a`), or movement command
    /// `a` of the scenario's list is due (`kind` 1).
    #[inline(never)]
    pub(super) fn air_move(&mut self, a: u32, kind: u32) {
        let now = self.now;
        let air = self.air.as_deref_mut().expect("wireless");
        // Borrowed, not cloned: a movement file's list is read one command at a time.
        match &air.mobility {
            Some(MobilitySpec::RandomWaypoint { width, height, speed, pause }) if kind == 0 => {
                let n = a as usize;
                let end = air.movers[n].next(now, *width, *height, *speed, *pause);
                let (x, y) = air.position(n, now);
                air.paths[n].push((now, x, y));
                self.q.push(end, Ev::Move(a, 0));
            }
            Some(MobilitySpec::Moves { width, height, moves }) if kind == 1 => {
                let m = moves[a as usize];
                // ns-2's set_destination ignores a destination on or beyond the edges.
                if m.node < air.movers.len() && m.x > 0.0 && m.x < *width && m.y > 0.0 && m.y < *height {
                    let (x, y) = air.position(m.node, now);
                    air.paths[m.node].push((now, x, y));
                    air.movers[m.node].motion.head_for(now, m.x, m.y, m.speed);
                }
                if let Some(next) = moves.get(a as usize + 1) {
                    self.q.push(next.at, Ev::Move(a + 1, 1));
                }
            }
            _ => {}
        }
    }

    /// Drops what a wireless node could not send on.
    fn drop_payload(&mut self, payload: u32) {
        if payload == GHOST {
            return;
        }
        if payload & CTRL != 0 {
            self.air().free_ctrl(payload);
        } else {
            self.drop_packet(PacketRef(payload));
        }
    }

    pub(crate) fn air_ref(&self) -> Option<&Air> {
        self.air.as_deref()
    }
}
