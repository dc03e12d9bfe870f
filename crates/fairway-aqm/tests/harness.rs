//! The properties every discipline keeps (issue 13 part 3), checked on random traffic: packets
//! are conserved (arrivals = departures + drops + waiting), `len` and `bytes` are what waits, the
//! stats add up, the same seed gives the same verdicts, a FIFO serves in order and any other
//! discipline only what waits, a packet dropped after it was taken (CoDel at the head) is one
//! that waited, and no packet is dropped while the discipline's own rules say it must be taken
//! or kept. A new discipline joins by a line in `disciplines` and arms in `must_take` and
//! `may_drop_after`.

use std::collections::VecDeque;

use fairway_aqm::{
    Cbt, CbtParams, Class, Cobalt, CobaltParams, Codel, CodelParams, Dcbt, DcbtParams, DropReason, DropTail,
    DropTailParams, FqCodel, FqCodelParams, FqPie, FqPieParams, Fred, FredParams, Limit, PacketMeta, Pie, PieParams,
    Qdisc, QueueDiscipline, Red, RedCore, RedFor, RedParams, Verdict,
};
use fairway_core::{Bytes, Dur, FlowId, PacketRef, Rate, Rng, Time};

fn red_packets() -> RedParams {
    RedParams {
        limit: 40,
        thresh: 5.0,
        maxthresh: 15.0,
        q_weight: 0.02,
        bytes: false,
        queue_in_bytes: false,
        ..RedParams::default()
    }
}

/// Each discipline under test, by name, as the link would build it.
fn disciplines() -> Vec<(&'static str, Qdisc)> {
    let (rate, delay) = (Rate(2_000_000), Dur::from_millis(10));
    vec![
        ("droptail-packets", Qdisc::DropTail(DropTail::new(DropTailParams { limit: Limit::Packets(20) }).unwrap())),
        (
            "droptail-bytes",
            Qdisc::DropTail(DropTail::new(DropTailParams { limit: Limit::Bytes(Bytes(15_000)) }).unwrap()),
        ),
        ("red-packets", Qdisc::Red(Box::new(Red::new(red_packets(), rate, delay).unwrap()))),
        ("red-ns2-default", Qdisc::Red(Box::new(Red::new(RedParams::default(), rate, delay).unwrap()))),
        (
            "red-gentle-ecn",
            Qdisc::Red(Box::new(
                Red::new(RedParams { gentle: true, ecn: true, ..red_packets() }, rate, delay).unwrap(),
            )),
        ),
        (
            "cbt",
            Qdisc::Cbt(Box::new(
                Cbt::new(
                    CbtParams { red: red_packets(), mm_th: 3.0, udp_th: 2.0, weight: None, red_for: RedFor::All },
                    rate,
                    delay,
                )
                .unwrap(),
            )),
        ),
        (
            "cbt-red-for-tcp",
            Qdisc::Cbt(Box::new(
                Cbt::new(
                    CbtParams { red: red_packets(), mm_th: 3.0, udp_th: 2.0, weight: None, red_for: RedFor::Tcp },
                    rate,
                    delay,
                )
                .unwrap(),
            )),
        ),
        ("dcbt", Qdisc::Dcbt(Box::new(Dcbt::new(DcbtParams::new(red_packets()), rate, delay).unwrap()))),
        (
            "fred",
            Qdisc::Fred(Box::new(
                Fred::new(FredParams { red: RedParams { gentle: false, ..red_packets() }, min_q: 2 }, rate, delay)
                    .unwrap(),
            )),
        ),
        ("pie", Qdisc::Pie(Box::new(Pie::new(PieParams { limit: 40, ..PieParams::default() }).unwrap()))),
        (
            "pie-ecn-derandomized-rate",
            Qdisc::Pie(Box::new(
                Pie::new(PieParams {
                    limit: 40,
                    ecn: true,
                    derandomize: true,
                    dq_rate_estimator: true,
                    ..PieParams::default()
                })
                .unwrap(),
            )),
        ),
        ("codel", Qdisc::Codel(Box::new(Codel::new(CodelParams { limit: 40, ..CodelParams::default() }).unwrap()))),
        (
            "codel-ecn",
            Qdisc::Codel(Box::new(Codel::new(CodelParams { limit: 40, ecn: true, ..CodelParams::default() }).unwrap())),
        ),
        (
            "fq_codel",
            Qdisc::FqCodel(Box::new(
                FqCodel::new(FqCodelParams { limit: 40, flows: 4, ecn: false, ..FqCodelParams::default() }).unwrap(),
            )),
        ),
        (
            "fq_codel-ecn",
            Qdisc::FqCodel(Box::new(FqCodel::new(FqCodelParams { limit: 40, ..FqCodelParams::default() }).unwrap())),
        ),
        (
            "cobalt",
            Qdisc::Cobalt(Box::new(
                Cobalt::new(CobaltParams { limit: Limit::Packets(40), ..CobaltParams::default() }).unwrap(),
            )),
        ),
        (
            "cobalt-ecn-bytes-blue",
            Qdisc::Cobalt(Box::new(
                Cobalt::new(CobaltParams {
                    limit: Limit::Bytes(Bytes(30_000)),
                    ecn: true,
                    ce_threshold: Some(Dur::from_millis(2)),
                    blue_threshold: Dur::from_millis(20),
                    ..CobaltParams::default()
                })
                .unwrap(),
            )),
        ),
        (
            "fq_pie",
            Qdisc::FqPie(Box::new(
                FqPie::new(FqPieParams { limit: 40, flows: 4, ecn: false, ..FqPieParams::default() }).unwrap(),
            )),
        ),
        (
            "fq_pie-ecn",
            Qdisc::FqPie(Box::new(FqPie::new(FqPieParams { limit: 40, ..FqPieParams::default() }).unwrap())),
        ),
    ]
}

/// Whether the discipline may drop, for `reason`, a packet it took that has waited `waited`;
/// `over` says the buffer held more than its limit after the arrival (before the drops).
fn may_drop_after(q: &Qdisc, reason: DropReason, waited: Dur, meta: &PacketMeta, over: bool) -> bool {
    // RFC 8289 §5.4: only packets whose sojourn reached the target; with ECN, ECN-capable
    // packets are marked, never dropped.
    let codel =
        |target: Dur, ecn: bool| reason == DropReason::Sojourn && waited >= target && !(ecn && meta.ecn_capable);
    match q {
        Qdisc::DropTail(_) | Qdisc::Red(_) | Qdisc::Cbt(_) | Qdisc::Dcbt(_) | Qdisc::Fred(_) | Qdisc::Pie(_) => false,
        Qdisc::Codel(c) => codel(c.params().target, c.params().ecn),
        // RFC 8290 §4.1.2: an overflow takes packets from the fattest queue, whatever they waited.
        Qdisc::FqCodel(f) => codel(f.params().target, f.params().ecn) || (reason == DropReason::Overflow && over),
        // CoDel's part drops above the target only (strictly, as ns-3 compares), and marks
        // instead with ECN; BLUE's drops any packet while its probability is above zero.
        Qdisc::Cobalt(c) => {
            (reason == DropReason::Sojourn && waited > c.params().target && !(c.params().ecn && meta.ecn_capable))
                || reason == DropReason::Early
        }
        // PIE decides at arrival; an overflow takes packets from the fattest queue.
        Qdisc::FqPie(_) => reason == DropReason::Overflow && over,
    }
}

/// The packets the buffer may hold, for disciplines that take every arrival and drop after.
fn limit_of(q: &Qdisc) -> usize {
    match q {
        Qdisc::FqCodel(f) => f.params().limit as usize,
        Qdisc::FqPie(f) => f.params().limit as usize,
        Qdisc::Cobalt(_)
        | Qdisc::DropTail(_)
        | Qdisc::Red(_)
        | Qdisc::Cbt(_)
        | Qdisc::Dcbt(_)
        | Qdisc::Fred(_)
        | Qdisc::Pie(_)
        | Qdisc::Codel(_) => usize::MAX,
    }
}

/// Whether the discipline's own rules oblige it to take this arrival (before the arrival).
fn must_take(q: &Qdisc, meta: &PacketMeta) -> bool {
    match q {
        // A packet limit counts the one being sent (ns-2): N - 1 may wait.
        Qdisc::DropTail(d) => !d.would_overflow(meta.size),
        Qdisc::Cbt(c) => {
            let class_ok = match meta.class {
                Class::Tcp => true,
                // The class average after this arrival moves toward the class count by w: it
                // stays under the threshold if both are.
                Class::Tagged => {
                    c.class_average(Class::Tagged) < c.params().mm_th && (c.len() as f64) < c.params().mm_th
                }
                Class::Untagged => {
                    c.class_average(Class::Untagged) < c.params().udp_th && (c.len() as f64) < c.params().udp_th
                }
            };
            // RED for TCP: UDP that passes its class test only has to fit in the buffer.
            let red_ok = match (meta.class, c.params().red_for) {
                (Class::Tcp, _) | (_, RedFor::All) => red_must_take(c.core(), c.units(true), c.units(false)),
                (_, RedFor::Tcp) => c.units(false) + 1 < c.core().resolved().qlim,
            };
            class_ok && red_ok
        }
        // Below min_th the class test is off (chung-dcbt §3): RED's rule is the whole rule.
        Qdisc::Dcbt(d) => {
            red_must_take(d.core(), units(d.core(), d.len(), d.bytes()), units(d.core(), d.len(), d.bytes()))
        }
        Qdisc::Red(r) => {
            red_must_take(r.core(), units(r.core(), r.len(), r.bytes()), units(r.core(), r.len(), r.bytes()))
        }
        // Lin & Morris: below min_th no flow is dropped unless it holds min_th packets, or holds
        // its share (at least one) with more than one strike; and the buffer has room.
        Qdisc::Fred(f) => {
            let res = f.core().resolved();
            let qi = f.flow_len(meta.flow) as f64;
            f.core().average() < res.th_min
                && qi < res.th_min
                && (f.strikes(meta.flow) <= 1 || qi < 1.0)
                && (f.len() as u64) + 1 < res.qlim
        }
        // RFC 8033 §4.1: "work conserving" with at most two mean packets' bytes waiting.
        Qdisc::Pie(p) => !p.would_overflow() && p.bytes().0 <= 2 * p.params().mean_pktsize.0,
        Qdisc::Codel(c) => !c.would_overflow(),
        // Every arrival is taken; an overflow drops from the fattest queue after.
        Qdisc::FqCodel(_) => true,
        Qdisc::Cobalt(c) => !c.would_overflow(meta.size),
        // ns-3's PIE never drops early with at most two packets in the flow's queue, whose limit
        // is the whole buffer's.
        Qdisc::FqPie(f) => {
            let n = f.flow_len(meta.flow);
            n <= 2 && n < f.params().limit as usize
        }
    }
}

/// What waits in RED's unit.
fn units(r: &RedCore, len: usize, bytes: Bytes) -> u64 {
    if r.params().queue_in_bytes {
        bytes.0
    } else {
        len as u64
    }
}

/// RED's obligation to take an arrival: `red_units` waiting as RED counts them, `total` in the
/// buffer (the same unless RED sees only part of the queue).
fn red_must_take(r: &RedCore, red_units: u64, total: u64) -> bool {
    let res = r.resolved();
    // The new average is a weighted mean of the old one and the queue now: below th_min if
    // both are; and the queue is under its limit.
    r.average() < res.th_min && (red_units as f64) < res.th_min && total + 1 < res.qlim
}

/// A packet the discipline holds, as the harness saw it arrive.
#[derive(Clone, Copy)]
struct Held {
    pkt: PacketRef,
    meta: PacketMeta,
    at: Time,
}

/// Takes the packets `q` dropped after taking them out of `waiting`, checking each was there
/// and could be dropped; returns how many.
fn collect_dropped(name: &str, q: &mut Qdisc, waiting: &mut VecDeque<Held>, now: Time) -> u64 {
    let mut n = 0;
    let over = waiting.len() > limit_of(q);
    while let Some(d) = q.take_dropped() {
        let i = waiting
            .iter()
            .position(|h| h.pkt == d.pkt)
            .unwrap_or_else(|| panic!("{name}: dropped a packet it did not hold"));
        if q.fifo() {
            assert_eq!(i, 0, "{name}: a FIFO drops what it took from its head");
        }
        let h = waiting.remove(i).expect("found");
        assert_eq!(h.meta.size, d.size, "{name}: the dropped packet's size");
        assert!(
            may_drop_after(q, d.reason, now.saturating_since(h.at), &h.meta, over),
            "{name}: dropped a packet that waited {:?} ({:?})",
            now.saturating_since(h.at),
            d.reason
        );
        n += 1;
    }
    n
}

/// Random arrivals and departures through `q`; returns the verdicts. Checks every property on
/// the way.
fn drive(name: &str, mut q: Qdisc, seed: u64) -> Vec<Verdict> {
    let mut rng = Rng::from_seed(seed);
    let mut aqm_rng = Rng::from_seed(seed ^ 0xA5A5);
    let mut waiting: VecDeque<Held> = VecDeque::new();
    let mut verdicts = vec![];
    let mut now = Time::ZERO;
    let (mut arrivals, mut departures, mut drops, mut marks) = (0u64, 0u64, 0u64, 0u64);
    for i in 0..20_000u32 {
        now += Dur::from_micros(rng.below(4_000));
        // Bursts of arrivals against a steady service, so that queues build and drain.
        let arrive = rng.below(100) < 55;
        if arrive {
            let class = [Class::Tcp, Class::Tagged, Class::Untagged][rng.below(3) as usize];
            let meta = PacketMeta {
                size: Bytes(40 + rng.below(1461)),
                ecn_capable: rng.bernoulli(0.3),
                flow: FlowId(rng.below(8) as u32),
                class,
            };
            let must = must_take(&q, &meta);
            let v = q.enqueue(now, &meta, PacketRef(i), &mut aqm_rng);
            arrivals += 1;
            match v {
                Verdict::Enqueue | Verdict::EnqueueMarked => {
                    waiting.push_back(Held { pkt: PacketRef(i), meta, at: now })
                }
                Verdict::Drop(reason) => {
                    drops += 1;
                    assert!(!must, "{name}: arrival {i} dropped ({reason:?}) while its rules say take it");
                }
            }
            if v == Verdict::EnqueueMarked {
                assert!(meta.ecn_capable, "{name}: a packet that is not ECN-capable was marked");
                marks += 1;
            }
            drops += collect_dropped(name, &mut q, &mut waiting, now);
            verdicts.push(v);
        } else {
            let d = q.dequeue(now);
            drops += collect_dropped(name, &mut q, &mut waiting, now);
            match d {
                Some(d) => {
                    let i = waiting
                        .iter()
                        .position(|h| h.pkt == d.pkt)
                        .unwrap_or_else(|| panic!("{name}: sent a packet it did not hold"));
                    if q.fifo() {
                        assert_eq!(i, 0, "{name}: FIFO order");
                    }
                    let h = waiting.remove(i).expect("found");
                    assert_eq!(h.meta.size, d.size, "{name}: the departure's size");
                    if d.mark {
                        assert!(h.meta.ecn_capable, "{name}: a packet that is not ECN-capable was marked");
                        marks += 1;
                    }
                    departures += 1;
                }
                None => assert!(waiting.is_empty(), "{name}: nothing came out of a queue holding packets"),
            }
        }
        assert_eq!(q.len(), waiting.len(), "{name}: len");
        assert_eq!(q.bytes().0, waiting.iter().map(|h| h.meta.size.0).sum::<u64>(), "{name}: bytes");
        let s = q.stats();
        assert_eq!(s.arrivals_pkts, arrivals, "{name}: arrivals");
        assert_eq!(s.departures_pkts, departures, "{name}: departures");
        assert_eq!(s.drops(), drops, "{name}: drops");
        assert_eq!(s.marks, marks, "{name}: marks");
        assert_eq!(s.arrivals_pkts, s.departures_pkts + s.drops() + q.len() as u64, "{name}: conservation");
        assert_eq!(
            s.drops(),
            s.early_drops + s.forced_drops + s.overflow_drops + s.threshold_drops + s.sojourn_drops + s.flow_drops,
            "{name}: drops by reason"
        );
    }
    assert!(drops > 0 && departures > 0, "{name}: the traffic congested the queue ({drops} drops)");
    let s = q.stats();
    let own = match &q {
        Qdisc::DropTail(_) => s.overflow_drops,
        Qdisc::Red(_) | Qdisc::Dcbt(_) => s.early_drops + s.marks,
        Qdisc::Fred(_) => s.flow_drops,
        Qdisc::Pie(_) => s.early_drops + s.marks,
        Qdisc::Cbt(_) => s.threshold_drops,
        Qdisc::Codel(_) => s.sojourn_drops + s.marks,
        Qdisc::FqCodel(_) => s.sojourn_drops + s.marks + s.overflow_drops,
        Qdisc::Cobalt(_) => s.sojourn_drops + s.early_drops + s.marks,
        Qdisc::FqPie(_) => s.early_drops + s.marks + s.overflow_drops,
    };
    assert!(own > 0, "{name}: the traffic exercised the discipline's own rule ({s:?})");
    verdicts
}

#[test]
fn every_discipline_keeps_the_properties() {
    for seed in 1..=5 {
        for (name, q) in disciplines() {
            let once = drive(name, q.clone(), seed);
            assert_eq!(once, drive(name, q, seed), "{name}: the same seed, the same verdicts");
        }
    }
}
