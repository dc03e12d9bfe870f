//! AODV agents on an ideal network (every packet to a neighbour arrives a millisecond later):
//! discovery, its expanding ring and retries, and what a broken link does.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::*;

enum Ev {
    Pkt(u32, Packet),
    Timer(u32, TimerWhat),
}

struct Net {
    agents: Vec<Aodv>,
    links: Vec<(u32, u32)>,
    q: BinaryHeap<Reverse<(Time, u64, usize)>>,
    evs: Vec<Option<Ev>>,
    seq: u64,
    forwarded: Vec<(Time, u32, u32, u32)>,
    dropped: Vec<(u32, u32, DropWhy)>,
    flushed: Vec<(u32, u32)>,
    sent: Vec<(Time, u32, Packet)>,
}

const HOP: Dur = Dur::from_millis(1);

impl Net {
    /// A chain 0 - 1 - ... - (n-1).
    fn chain(n: u32) -> Net {
        let mut net = Net {
            agents: (0..n).map(|i| Aodv::new(i, n as usize, Rng::stream(3, &format!("aodv{i}")))).collect(),
            links: (0..n - 1).map(|i| (i, i + 1)).collect(),
            q: BinaryHeap::new(),
            evs: vec![],
            seq: 0,
            forwarded: vec![],
            dropped: vec![],
            flushed: vec![],
            sent: vec![],
        };
        for i in 0..n {
            let mut out = vec![];
            net.agents[i as usize].start(Time::ZERO, &mut out);
            net.apply(Time::ZERO, i, out);
        }
        net
    }

    fn neighbours(&self, a: u32, b: u32) -> bool {
        self.links.contains(&(a, b)) || self.links.contains(&(b, a))
    }

    fn push(&mut self, at: Time, ev: Ev) {
        self.evs.push(Some(ev));
        self.q.push(Reverse((at, self.seq, self.evs.len() - 1)));
        self.seq += 1;
    }

    fn apply(&mut self, now: Time, n: u32, outs: Vec<Out>) {
        for o in outs {
            match o {
                Out::Send { pkt, next, delay } => {
                    self.sent.push((now, n, pkt.clone()));
                    for r in 0..self.agents.len() as u32 {
                        if self.neighbours(n, r) && (next == BROADCAST || next == r) {
                            self.push(now + delay + HOP, Ev::Pkt(r, pkt.clone()));
                        }
                    }
                }
                Out::Forward { pkt, next, delay } => self.forwarded.push((now + delay, n, pkt, next)),
                Out::Drop { pkt, why } => self.dropped.push((n, pkt, why)),
                Out::FlushQueue { next } => self.flushed.push((n, next)),
                Out::Timer { at, what } => self.push(at, Ev::Timer(n, what)),
            }
        }
    }

    fn data(&mut self, now: Time, n: u32, pkt: u32, dst: u32) {
        let mut out = vec![];
        self.agents[n as usize].route_data(now, pkt, dst, true, &mut out);
        self.apply(now, n, out);
    }

    fn run_until(&mut self, end: Time) {
        while let Some(&Reverse((t, _, i))) = self.q.peek() {
            if t > end {
                break;
            }
            self.q.pop();
            let mut out = vec![];
            let n = match self.evs[i].take().unwrap() {
                Ev::Pkt(n, p) => {
                    self.agents[n as usize].recv(t, p, &mut out);
                    n
                }
                Ev::Timer(n, w) => {
                    self.agents[n as usize].timer(t, w, &mut out);
                    n
                }
            };
            self.apply(t, n, out);
        }
    }

    fn count(&self, f: impl Fn(&Msg) -> bool) -> usize {
        self.sent.iter().filter(|(_, _, p)| f(&p.msg)).count()
    }
}

fn secs(s: f64) -> Time {
    Time::from_secs_f64(s)
}

/// A packet for a node three hops away waits for the route: RREQ flooded hop by hop, RREP back
/// along the reverse route, then the packet goes to the first hop, and so do later ones at once.
#[test]
fn discovery_over_three_hops() {
    let mut net = Net::chain(4);
    net.data(secs(1.0), 0, 100, 3);
    net.run_until(secs(1.5));
    assert_eq!(net.forwarded.len(), 1, "{:?}", net.forwarded);
    let (t, n, pkt, next) = net.forwarded[0];
    assert_eq!((n, pkt, next), (0, 100, 1));
    // Three hops out (each within 10 ms of jitter but the first) and three back.
    assert!(t > secs(1.006) && t < secs(1.026), "{t}");
    assert_eq!(net.count(|m| matches!(m, Msg::Rrep { .. })), 3);
    // The RREQ reaches the destination once; node 3 does not rebroadcast it.
    assert!(net.sent.iter().all(|(_, n, p)| !(*n == 3 && matches!(p.msg, Msg::Rreq { .. }))));
    net.data(secs(1.6), 0, 101, 3);
    assert_eq!(net.forwarded.last().map(|f| (f.1, f.2, f.3)), Some((0, 101, 1)));
    // An intermediate node forwards along the learned route.
    let mut out = vec![];
    net.agents[1].route_data(secs(1.6), 101, 3, false, &mut out);
    assert!(matches!(out[..], [Out::Forward { pkt: 101, next: 2, .. }]), "{out:?}");
}

/// An unreachable destination never found before: RREQs to the network's diameter (ns-2
/// starts there for a route it never had), each timeout 2 x 30 x 30 ms times the attempt, then
/// after RREQ_RETRIES the waiting packet is dropped.
#[test]
fn an_unreachable_destination_is_given_up() {
    let mut net = Net::chain(3);
    net.links.clear();
    net.data(secs(1.0), 0, 7, 2);
    net.run_until(secs(60.0));
    let rreqs: Vec<(Time, u8)> = net.sent.iter().filter(|(_, n, _)| *n == 0).map(|(t, _, p)| (*t, p.ttl)).collect();
    assert_eq!(rreqs.iter().map(|r| r.1).collect::<Vec<_>>(), vec![30; 4], "{rreqs:?}");
    // Each retry waits for the next purge (every 0.5 s) after the last one's timeout.
    let waits: Vec<f64> = rreqs.windows(2).map(|w| (w[1].0 - w[0].0).as_secs_f64()).collect();
    for (i, w) in waits.iter().enumerate() {
        let timeout = 1.8 * (i + 1) as f64;
        assert!(*w >= timeout && *w < timeout + 0.5 + 1e-9, "{waits:?}");
    }
    assert_eq!(net.dropped, vec![(0, 7, DropWhy::NoRoute)]);
}

/// A route that broke is looked for again with an expanding ring: its last hop count plus two.
#[test]
fn a_rediscovery_starts_from_the_last_hop_count() {
    let mut net = Net::chain(4);
    net.data(secs(1.0), 0, 1, 3);
    net.run_until(secs(1.5));
    let mut out = vec![];
    net.agents[0].link_failed(secs(1.6), Some(1), 3, 0, 1, &mut out);
    net.sent.clear();
    net.data(secs(1.7), 0, 2, 3);
    let ttl = net.sent.iter().find(|(_, n, p)| *n == 0 && matches!(p.msg, Msg::Rreq { .. })).map(|(_, _, p)| p.ttl);
    assert_eq!(ttl, Some(3 + 2));
}

/// The source's first link breaks: the route goes down, what was queued for that neighbour is
/// flushed, and a RERR goes out.
#[test]
fn a_broken_first_link_brings_the_route_down() {
    let mut net = Net::chain(4);
    net.data(secs(1.0), 0, 1, 3);
    net.run_until(secs(1.5));
    let mut out = vec![];
    net.agents[0].link_failed(secs(1.6), Some(1), 3, 0, 1, &mut out);
    assert!(out.contains(&Out::Drop { pkt: 1, why: DropWhy::LinkBroke }));
    assert!(out.contains(&Out::FlushQueue { next: 1 }));
    assert!(out.iter().any(|o| matches!(o, Out::Send { pkt: Packet { msg: Msg::Rerr { .. }, .. }, .. })));
    // A new packet needs a new discovery.
    let mut out = vec![];
    net.agents[0].route_data(secs(1.7), 2, 3, true, &mut out);
    assert!(out.iter().any(|o| matches!(o, Out::Send { pkt: Packet { msg: Msg::Rreq { .. }, .. }, .. })), "{out:?}");
}

/// A break nearer the destination than the source is repaired locally: the packet waits and
/// the node sends its own RREQ.
#[test]
fn a_break_near_the_destination_is_repaired_locally() {
    let mut net = Net::chain(5);
    net.data(secs(1.0), 0, 1, 4);
    net.run_until(secs(1.5));
    // Node 3 (one hop from 4) loses its link after the packet has come three hops.
    let mut out = vec![];
    net.agents[3].link_failed(secs(1.6), Some(1), 4, 3, 4, &mut out);
    assert!(
        out.iter().any(|o| matches!(o, Out::Send { pkt: Packet { msg: Msg::Rreq { dst: 4, .. }, .. }, .. })),
        "{out:?}"
    );
    assert!(!out.iter().any(|o| matches!(o, Out::Drop { .. })));
    assert_eq!(net.agents[3].waiting(), 1);
    assert_eq!(net.agents[3].stats.local_repairs, 1);
}

#[test]
fn routing_packet_sizes_are_ns2s() {
    let p = |msg| Packet { msg, src: 0, dst: BROADCAST, ttl: 1 };
    let rreq =
        Msg::Rreq { hop_count: 1, bcast_id: 1, dst: 1, dst_seqno: 0, src: 0, src_seqno: 2, timestamp: Time::ZERO };
    let rrep = Msg::Rrep { hop_count: 1, dst: 1, dst_seqno: 2, src: 1, lifetime: 10, timestamp: Time::ZERO };
    assert_eq!(p(rreq).size(), 48);
    assert_eq!(p(rrep).size(), 44);
    assert_eq!(p(Msg::Rerr { unreachable: vec![(1, 3), (2, 5)] }).size(), 40);
}
