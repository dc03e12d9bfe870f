//! AODV (RFC 3561) as ns-2.35 implements it (aodv/aodv.cc, with AODV_LINK_LAYER_DETECTION and
//! AODV_LOCAL_REPAIR on, as ns-2 is built): route discovery by expanding-ring RREQ floods, RREP
//! back along the reverse route, RERR when the MAC gives up on a next hop, local repair when
//! the break is nearer the destination than the source, a 64-packet buffer for packets waiting
//! for a route. No HELLO messages: the MAC's failures are the link sensing. Sans-IO: every
//! entry point takes `now` and pushes what must happen onto `out`; `net.rs` does it.
//!
//! Where ns-2 differs from the RFC, this follows ns-2, the referee of janani-tfrc's results:
//! route lifetimes (10 s active, 6 s reverse), a RREQ's timeout of 2 x TTL x the measured
//! per-hop discovery time, buffered packets released 10 ms apart once a route is found, and a
//! local repair whose give-up timer is scheduled at the repair's absolute timeout used as a
//! delay (ns-2 passes `rt_req_timeout`, a time, where a delay is expected).

use fairway_core::{Dur, Rng, Time};

use super::mac::BROADCAST;

/// ns-2's constants (aodv/aodv.h).
const ACTIVE_ROUTE_TIMEOUT: Dur = Dur::from_secs(10);
const REV_ROUTE_LIFE: Dur = Dur::from_secs(6);
const BCAST_ID_SAVE: Dur = Dur::from_secs(6);
const MY_ROUTE_TIMEOUT: u32 = 10;
const RREQ_RETRIES: u32 = 3;
const MAX_RREQ_TIMEOUT: Dur = Dur::from_secs(10);
const TTL_START: u8 = 5;
const TTL_THRESHOLD: u8 = 7;
const TTL_INCREMENT: u8 = 2;
const NODE_TRAVERSAL_TIME: f64 = 0.03;
pub const NETWORK_DIAMETER: u8 = 30;
/// Spacing of buffered packets released at once (ns-2's ARP_DELAY, 10 ms).
const RELEASE_SPACING: Dur = Dur::from_millis(10);
/// Broadcast jitter bound (10 ms).
const JITTER: u64 = 10_000_000;
const PURGE_EVERY: Dur = Dur::from_millis(500);
const QUEUE_LEN: usize = 64;
const QUEUE_TIMEOUT: Dur = Dur::from_secs(30);
const INFINITY: u8 = 0xff;
const MAX_HISTORY: usize = 3;

/// An AODV message (RFC 3561 §5), with the fields ns-2 carries.
#[derive(Debug, Clone, PartialEq)]
pub enum Msg {
    Rreq { hop_count: u8, bcast_id: u32, dst: u32, dst_seqno: u32, src: u32, src_seqno: u32, timestamp: Time },
    Rrep { hop_count: u8, dst: u32, dst_seqno: u32, src: u32, lifetime: u32, timestamp: Time },
    Rerr { unreachable: Vec<(u32, u32)> },
}

/// A routing packet: the message and its IP header.
#[derive(Debug, Clone, PartialEq)]
pub struct Packet {
    pub msg: Msg,
    /// IP source: the node that sent it last (RREQs are re-sourced at every hop).
    pub src: u32,
    /// IP destination, or [`BROADCAST`].
    pub dst: u32,
    pub ttl: u8,
}

impl Packet {
    /// Size at the routing layer, IP header included (ns-2: IP_HDR_LEN + the header's size()).
    pub fn size(&self) -> u32 {
        20 + match &self.msg {
            Msg::Rreq { .. } => 28,
            Msg::Rrep { .. } => 24,
            Msg::Rerr { unreachable } => (unreachable.len() as u32 * 2 + 1) * 4,
        }
    }
}

/// Why AODV dropped a data packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DropWhy {
    /// No route, and not the source (RTR NRTE); or discovery gave up.
    NoRoute,
    /// The link to the next hop broke (RTR CBK).
    LinkBroke,
    /// The buffer of packets waiting for a route overflowed or timed out.
    Queue,
}

/// What the event loop must do.
#[derive(Debug, Clone, PartialEq)]
pub enum Out {
    /// Send a routing packet to `next` (a neighbour, or [`BROADCAST`]) after `delay`.
    Send {
        pkt: Packet,
        next: u32,
        delay: Dur,
    },
    /// Send data packet `pkt` to neighbour `next` after `delay`.
    Forward {
        pkt: u32,
        next: u32,
        delay: Dur,
    },
    Drop {
        pkt: u32,
        why: DropWhy,
    },
    /// Drop every packet in the interface queue for neighbour `next`.
    FlushQueue {
        next: u32,
    },
    /// Call [`Aodv::timer`] with `what` at `at`.
    Timer {
        at: Time,
        what: TimerWhat,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimerWhat {
    /// Every 0.5 s: expire routes, send what waits for routes that are up (ns-2 rt_purge).
    Purge,
    /// Every 6 s: forget old broadcast ids.
    BcastIds,
    /// A local repair's deadline, for destination `dst`.
    Repair(u32),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flags {
    Down,
    Up,
    InRepair,
}

#[derive(Debug, Clone)]
struct Route {
    seqno: u32,
    hops: u8,
    last_hops: u8,
    next: u32,
    flags: Flags,
    expire: Time,
    req_timeout: Time,
    req_cnt: u32,
    req_last_ttl: u8,
    disc_latency: [f64; MAX_HISTORY],
    hist: usize,
    /// Neighbours that route through this node to the destination (RERR goes to them).
    precursors: Vec<u32>,
}

impl Route {
    fn new() -> Route {
        Route {
            seqno: 0,
            hops: INFINITY,
            last_hops: INFINITY,
            next: 0,
            flags: Flags::Down,
            expire: Time::ZERO,
            req_timeout: Time::ZERO,
            req_cnt: 0,
            req_last_ttl: 0,
            disc_latency: [0.0; MAX_HISTORY],
            hist: 0,
            precursors: vec![],
        }
    }

    fn update(&mut self, seqno: u32, hops: u8, next: u32, expire: Time) {
        self.seqno = seqno;
        self.hops = hops;
        self.flags = Flags::Up;
        self.next = next;
        self.expire = expire;
    }

    fn down(&mut self) {
        if self.flags == Flags::Down {
            return;
        }
        self.last_hops = self.hops;
        self.hops = INFINITY;
        self.flags = Flags::Down;
        self.next = 0;
        self.expire = Time::ZERO;
    }

    fn add_precursor(&mut self, n: u32) {
        if !self.precursors.contains(&n) {
            self.precursors.push(n);
        }
    }

    /// The mean discovery time per hop of the last discoveries, or NODE_TRAVERSAL_TIME.
    fn per_hop_time(&self) -> f64 {
        let v: Vec<f64> = self.disc_latency.iter().copied().filter(|&l| l > 0.0).collect();
        if v.is_empty() {
            NODE_TRAVERSAL_TIME
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Waiting {
    pkt: u32,
    dst: u32,
    expire: Time,
}

/// Counters of one node's routing agent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct AodvStats {
    pub rreq_sent: u64,
    pub rrep_sent: u64,
    pub rerr_sent: u64,
    /// Routing packets sent or forwarded, and their bytes (IP header included).
    pub routing_pkts: u64,
    pub routing_bytes: u64,
    pub local_repairs: u64,
}

/// One node's AODV agent.
pub struct Aodv {
    me: u32,
    seqno: u32,
    bcast_id: u32,
    routes: Vec<Option<Route>>,
    heard: Vec<(u32, u32, Time)>,
    queue: std::collections::VecDeque<Waiting>,
    rng: Rng,
    pub stats: AodvStats,
}

impl Aodv {
    pub fn new(me: u32, nodes: usize, rng: Rng) -> Aodv {
        Aodv {
            me,
            seqno: 2,
            bcast_id: 1,
            routes: vec![None; nodes],
            heard: vec![],
            queue: Default::default(),
            rng,
            stats: AodvStats::default(),
        }
    }

    /// ns-2's `start`: the periodic purges begin now.
    pub fn start(&mut self, now: Time, out: &mut Vec<Out>) {
        self.timer(now, TimerWhat::BcastIds, out);
        self.timer(now, TimerWhat::Purge, out);
    }

    fn rt(&mut self, dst: u32) -> &mut Route {
        self.routes[dst as usize].get_or_insert_with(Route::new)
    }

    fn send(&mut self, pkt: Packet, next: u32, delay: Dur, out: &mut Vec<Out>) {
        self.stats.routing_pkts += 1;
        self.stats.routing_bytes += pkt.size() as u64;
        out.push(Out::Send { pkt, next, delay });
    }

    fn jitter(&mut self) -> Dur {
        Dur((self.rng.uniform() * JITTER as f64) as u64)
    }

    // ---- the buffer of packets waiting for a route -------------------------------------------

    /// Drops the packets that waited past their time (ns-2 purge). Each enters with the same
    /// timeout at the back and leaves keeping the others' order, so the expired ones are the
    /// first: taken from the front, in order.
    fn purge_queue(&mut self, now: Time, out: &mut Vec<Out>) {
        while let Some(w) = self.queue.front().filter(|w| w.expire < now) {
            out.push(Out::Drop { pkt: w.pkt, why: DropWhy::Queue });
            self.queue.pop_front();
        }
        debug_assert!(self.queue.iter().all(|w| w.expire >= now));
    }

    fn enqueue(&mut self, now: Time, pkt: u32, dst: u32, out: &mut Vec<Out>) {
        self.purge_queue(now, out);
        if self.queue.len() == QUEUE_LEN {
            let w = self.queue.pop_front().expect("full");
            out.push(Out::Drop { pkt: w.pkt, why: DropWhy::Queue });
        }
        self.queue.push_back(Waiting { pkt, dst, expire: now + QUEUE_TIMEOUT });
    }

    fn dequeue(&mut self, now: Time, dst: u32, out: &mut Vec<Out>) -> Option<u32> {
        self.purge_queue(now, out);
        let i = self.queue.iter().position(|w| w.dst == dst)?;
        self.queue.remove(i).map(|w| w.pkt)
    }

    // ---- data --------------------------------------------------------------------------------

    /// A data packet for `dst` at this node: from its source here (`originated`), or to be
    /// forwarded (ns-2 rt_resolve).
    pub fn route_data(&mut self, now: Time, pkt: u32, dst: u32, originated: bool, out: &mut Vec<Out>) {
        let rt = self.rt(dst);
        match rt.flags {
            Flags::Up => {
                rt.expire = now + ACTIVE_ROUTE_TIMEOUT;
                let next = rt.next;
                out.push(Out::Forward { pkt, next, delay: Dur::ZERO });
            }
            _ if originated => {
                self.enqueue(now, pkt, dst, out);
                self.send_request(now, dst, out);
            }
            Flags::InRepair => self.enqueue(now, pkt, dst, out),
            Flags::Down => {
                // Not the source and no route: tell the neighbours, drop the packet.
                let seqno = rt.seqno;
                self.send_error(vec![(dst, seqno)], false, out);
                out.push(Out::Drop { pkt, why: DropWhy::NoRoute });
            }
        }
    }

    /// The MAC gave up on a data packet for `dst` to neighbour `broken`, after `forwards` hops
    /// (ns-2 rt_ll_failed). `pkt` is `None` when the neighbour had received it after all (its
    /// ACKs were lost): the route is mended the same, with nothing to resend.
    pub fn link_failed(
        &mut self,
        now: Time,
        pkt: Option<u32>,
        dst: u32,
        forwards: u32,
        broken: u32,
        out: &mut Vec<Out>,
    ) {
        let Some(rt) = self.routes[dst as usize].as_mut() else {
            if let Some(p) = pkt {
                out.push(Out::Drop { pkt: p, why: DropWhy::LinkBroke });
            }
            return;
        };
        // Local repair when the break is nearer the destination than the source.
        if forwards > rt.hops as u32 {
            self.stats.local_repairs += 1;
            if let Some(p) = pkt {
                self.enqueue(now, p, dst, out);
            }
            let rt = self.rt(dst);
            rt.flags = Flags::InRepair;
            self.send_request(now, dst, out);
            let deadline = self.rt(dst).req_timeout;
            // ns-2 schedules the give-up timer with the timeout's absolute time as its delay.
            out.push(Out::Timer { at: now + Dur(deadline.0), what: TimerWhat::Repair(dst) });
            return;
        }
        if let Some(p) = pkt {
            out.push(Out::Drop { pkt: p, why: DropWhy::LinkBroke });
        }
        out.push(Out::FlushQueue { next: broken });
        // nb_delete: the neighbour set changed.
        self.seqno += 2;
        self.handle_link_failure(broken, out);
    }

    /// Every route through `broken` goes down; its destinations go out in one RERR.
    fn handle_link_failure(&mut self, broken: u32, out: &mut Vec<Out>) {
        let mut unreachable = vec![];
        for (d, r) in self.routes.iter_mut().enumerate() {
            let Some(rt) = r else { continue };
            if rt.hops != INFINITY && rt.next == broken {
                rt.seqno += 1;
                unreachable.push((d as u32, rt.seqno));
                rt.down();
            }
            rt.precursors.retain(|&p| p != broken);
        }
        if !unreachable.is_empty() {
            self.send_error(unreachable, false, out);
        }
    }

    // ---- control -----------------------------------------------------------------------------

    /// A RREQ for `dst`, rate-limited and with an expanding ring (ns-2 sendRequest).
    fn send_request(&mut self, now: Time, dst: u32, out: &mut Vec<Out>) {
        let me = self.me;
        let rt = self.rt(dst);
        if rt.flags == Flags::Up || rt.req_timeout > now {
            return;
        }
        if rt.req_cnt > RREQ_RETRIES {
            rt.req_timeout = now + MAX_RREQ_TIMEOUT;
            rt.req_cnt = 0;
            while let Some(p) = self.dequeue(now, dst, out) {
                out.push(Out::Drop { pkt: p, why: DropWhy::NoRoute });
            }
            return;
        }
        let rt = self.rt(dst);
        // A route never found has last_hops = INFINITY: ns-2 then starts at the network's
        // diameter, not TTL_START (its expanding ring serves rediscoveries only).
        rt.req_last_ttl = rt.req_last_ttl.max(rt.last_hops);
        let ttl = if rt.req_last_ttl == 0 {
            TTL_START
        } else if rt.req_last_ttl < TTL_THRESHOLD {
            rt.req_last_ttl + TTL_INCREMENT
        } else {
            rt.req_cnt += 1;
            NETWORK_DIAMETER
        };
        rt.req_last_ttl = ttl;
        let mut timeout = 2.0 * ttl as f64 * rt.per_hop_time();
        if rt.req_cnt > 0 {
            timeout *= rt.req_cnt as f64;
        }
        rt.req_timeout = (now + Dur::from_secs_f64(timeout)).min(now + MAX_RREQ_TIMEOUT);
        rt.expire = Time::ZERO;
        let dst_seqno = rt.seqno;
        self.seqno += 2;
        let bcast_id = self.bcast_id;
        self.bcast_id += 1;
        self.stats.rreq_sent += 1;
        let msg = Msg::Rreq { hop_count: 1, bcast_id, dst, dst_seqno, src: me, src_seqno: self.seqno, timestamp: now };
        self.send(Packet { msg, src: me, dst: BROADCAST, ttl }, BROADCAST, Dur::ZERO, out);
    }

    #[allow(clippy::too_many_arguments)]
    fn send_reply(
        &mut self,
        to: u32,
        hop_count: u8,
        dst: u32,
        dst_seqno: u32,
        lifetime: u32,
        timestamp: Time,
        out: &mut Vec<Out>,
    ) {
        let me = self.me;
        let next = self.rt(to).next;
        self.stats.rrep_sent += 1;
        let msg = Msg::Rrep { hop_count, dst, dst_seqno, src: me, lifetime, timestamp };
        self.send(Packet { msg, src: me, dst: to, ttl: NETWORK_DIAMETER }, next, Dur::ZERO, out);
    }

    fn send_error(&mut self, unreachable: Vec<(u32, u32)>, jitter: bool, out: &mut Vec<Out>) {
        let delay = if jitter { self.jitter() } else { Dur::ZERO };
        self.stats.rerr_sent += 1;
        let me = self.me;
        self.send(Packet { msg: Msg::Rerr { unreachable }, src: me, dst: BROADCAST, ttl: 1 }, BROADCAST, delay, out);
    }

    /// Sends routing packet `p` on: by its route if unicast, to all with jitter if broadcast
    /// (ns-2 forward for AODV packets).
    fn forward(&mut self, now: Time, p: Packet, route_to: Option<u32>, out: &mut Vec<Out>) {
        if p.ttl == 0 {
            return;
        }
        match route_to {
            Some(d) => {
                let rt = self.rt(d);
                rt.expire = now + ACTIVE_ROUTE_TIMEOUT;
                let next = rt.next;
                self.send(p, next, Dur::ZERO, out);
            }
            None => {
                let delay = self.jitter();
                self.send(p, BROADCAST, delay, out);
            }
        }
    }

    /// Releases the packets waiting for `dst`, whose route is up, `spacing` apart.
    fn release(&mut self, now: Time, dst: u32, spacing: Dur, out: &mut Vec<Out>) {
        let mut delay = Dur::ZERO;
        while let Some(p) = self.dequeue(now, dst, out) {
            let rt = self.rt(dst);
            if rt.hops == INFINITY {
                continue;
            }
            rt.expire = now + ACTIVE_ROUTE_TIMEOUT;
            let next = rt.next;
            out.push(Out::Forward { pkt: p, next, delay });
            delay += spacing;
        }
    }

    /// A routing packet arrives from neighbour `from` (its IP source is `p.src`).
    pub fn recv(&mut self, now: Time, mut p: Packet, out: &mut Vec<Out>) {
        p.ttl = p.ttl.saturating_sub(1);
        match p.msg.clone() {
            Msg::Rreq { hop_count, bcast_id, dst, dst_seqno, src, src_seqno, timestamp } => {
                self.recv_request(now, p, (hop_count, bcast_id, dst, dst_seqno, src, src_seqno, timestamp), out)
            }
            Msg::Rrep { hop_count, dst, dst_seqno, lifetime, .. } => {
                self.recv_reply(now, p, hop_count, dst, dst_seqno, lifetime, out)
            }
            Msg::Rerr { unreachable } => self.recv_error(now, p.src, &unreachable, out),
        }
    }

    #[allow(clippy::type_complexity)]
    fn recv_request(
        &mut self,
        now: Time,
        mut p: Packet,
        (hop_count, bcast_id, dst, dst_seqno, src, src_seqno, timestamp): (u8, u32, u32, u32, u32, u32, Time),
        out: &mut Vec<Out>,
    ) {
        // Latest first: a copy of a request comes mostly from neighbours rebroadcasting it just
        // now.
        if src == self.me || self.heard.iter().rev().any(|&(s, b, _)| s == src && b == bcast_id) {
            return;
        }
        self.heard.push((src, bcast_id, now + BCAST_ID_SAVE));
        // The reverse route to the RREQ's source, through the neighbour it came from.
        let prev = p.src;
        let rt0 = self.rt(src);
        rt0.expire = rt0.expire.max(now + REV_ROUTE_LIFE);
        if src_seqno > rt0.seqno || (src_seqno == rt0.seqno && hop_count < rt0.hops) {
            let expire = rt0.expire.max(now + REV_ROUTE_LIFE);
            rt0.update(src_seqno, hop_count, prev, expire);
            if rt0.req_timeout > Time::ZERO {
                rt0.req_cnt = 0;
                rt0.req_timeout = Time::ZERO;
                rt0.req_last_ttl = hop_count;
                rt0.expire = now + ACTIVE_ROUTE_TIMEOUT;
            }
            self.release(now, src, Dur::ZERO, out);
        }
        let rt0_next = self.rt(src).next;
        if dst == self.me {
            // RFC 3561 §6.6.1: the destination answers with a fresh, even sequence number.
            self.seqno = self.seqno.max(dst_seqno) + 1;
            if self.seqno % 2 == 1 {
                self.seqno += 1;
            }
            let seqno = self.seqno;
            self.send_reply(src, 1, self.me, seqno, MY_ROUTE_TIMEOUT, timestamp, out);
            return;
        }
        let known = self.routes[dst as usize].as_ref().map(|r| (r.hops, r.seqno, r.expire, r.next));
        match known {
            Some((hops, seqno, expire, next)) if hops != INFINITY && seqno >= dst_seqno => {
                // An intermediate node with a fresh enough route answers for the destination.
                let lifetime = expire.saturating_since(now).as_secs_f64() as u32;
                self.send_reply(src, hops + 1, dst, seqno, lifetime, timestamp, out);
                self.rt(dst).add_precursor(rt0_next);
                self.rt(src).add_precursor(next);
            }
            _ => {
                p.src = self.me;
                let dst_seqno = known.map_or(dst_seqno, |(_, s, _, _)| s.max(dst_seqno));
                p.msg = Msg::Rreq { hop_count: hop_count + 1, bcast_id, dst, dst_seqno, src, src_seqno, timestamp };
                self.forward(now, p, None, out);
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn recv_reply(
        &mut self,
        now: Time,
        mut p: Packet,
        hop_count: u8,
        dst: u32,
        dst_seqno: u32,
        lifetime: u32,
        out: &mut Vec<Out>,
    ) {
        let from = match p.msg {
            Msg::Rrep { src, .. } => src,
            _ => unreachable!(),
        };
        let me = self.me;
        let rt = self.rt(dst);
        let mut suppress = false;
        if rt.seqno < dst_seqno || (rt.seqno == dst_seqno && rt.hops > hop_count) {
            rt.update(dst_seqno, hop_count, from, now + Dur::from_secs(lifetime as u64));
            rt.req_cnt = 0;
            rt.req_timeout = Time::ZERO;
            rt.req_last_ttl = hop_count;
            if p.dst == me {
                if let Msg::Rrep { timestamp, .. } = p.msg {
                    let h = rt.hist;
                    rt.disc_latency[h] = now.saturating_since(timestamp).as_secs_f64() / hop_count.max(1) as f64;
                    rt.hist = (h + 1) % MAX_HISTORY;
                }
            }
            self.release(now, dst, RELEASE_SPACING, out);
        } else {
            suppress = true;
        }
        if p.dst == me || suppress {
            return;
        }
        let to = p.dst;
        let back = self.routes[to as usize].as_ref().map(|r| (r.hops, r.next));
        if let Some((hops, next)) = back {
            if hops != INFINITY {
                if let Msg::Rrep { hop_count: h, src, .. } = &mut p.msg {
                    *h += 1;
                    *src = me;
                }
                self.forward(now, p, Some(to), out);
                self.rt(dst).add_precursor(next);
            }
        }
    }

    fn recv_error(&mut self, now: Time, from: u32, unreachable: &[(u32, u32)], out: &mut Vec<Out>) {
        let _ = now;
        let mut onward = vec![];
        for &(d, seqno) in unreachable {
            let Some(rt) = self.routes[d as usize].as_mut() else { continue };
            if rt.hops != INFINITY && rt.next == from && rt.seqno <= seqno {
                rt.seqno = seqno;
                rt.down();
                out.push(Out::FlushQueue { next: from });
                if !rt.precursors.is_empty() {
                    onward.push((d, rt.seqno));
                    rt.precursors.clear();
                }
            }
        }
        if !onward.is_empty() {
            self.send_error(onward, true, out);
        }
    }

    /// A timer of this agent fires.
    pub fn timer(&mut self, now: Time, what: TimerWhat, out: &mut Vec<Out>) {
        match what {
            TimerWhat::BcastIds => {
                self.heard.retain(|&(_, _, exp)| exp > now);
                out.push(Out::Timer { at: now + BCAST_ID_SAVE, what });
            }
            TimerWhat::Purge => {
                self.purge_routes(now, out);
                out.push(Out::Timer { at: now + PURGE_EVERY, what });
            }
            TimerWhat::Repair(dst) => {
                if let Some(rt) = self.routes[dst as usize].as_mut() {
                    if rt.flags != Flags::Up {
                        rt.down();
                    }
                }
            }
        }
    }

    /// ns-2 rt_purge: routes past their lifetime go down (and what waits for them is dropped);
    /// what waits for routes that are up is sent; a route still wanted is asked for again.
    fn purge_routes(&mut self, now: Time, out: &mut Vec<Out>) {
        for d in 0..self.routes.len() as u32 {
            let Some(rt) = self.routes[d as usize].as_ref() else { continue };
            let (flags, expire) = (rt.flags, rt.expire);
            if flags == Flags::Up && expire < now {
                while let Some(p) = self.dequeue(now, d, out) {
                    out.push(Out::Drop { pkt: p, why: DropWhy::NoRoute });
                }
                let rt = self.rt(d);
                rt.seqno += 1;
                rt.down();
            } else if flags == Flags::Up {
                self.release(now, d, RELEASE_SPACING, out);
            } else if self.queue.iter().any(|w| w.dst == d) {
                self.send_request(now, d, out);
            }
        }
    }

    /// Packets waiting for routes.
    pub fn waiting(&self) -> usize {
        self.queue.len()
    }
}

#[cfg(test)]
#[path = "aodv_tests.rs"]
mod tests;
