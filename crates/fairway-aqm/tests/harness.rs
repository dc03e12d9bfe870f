//! The properties every discipline keeps (issue 13 part 3), checked on random traffic: packets
//! are conserved (arrivals = departures + drops + waiting), `len` and `bytes` are what waits, the
//! stats add up, the same seed gives the same verdicts, the queue serves in FIFO order (every
//! discipline here is a FIFO), and no packet is dropped while the discipline's own rules say it
//! must be taken. A new discipline joins by a line in `disciplines` and an arm in `must_take`.

use std::collections::VecDeque;

use fairway_aqm::{
    Cbt, CbtParams, Class, Dcbt, DcbtParams, DropTail, DropTailParams, Limit, PacketMeta, Qdisc, QueueDiscipline, Red,
    RedCore, RedFor, RedParams, Verdict,
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
    ]
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
        // Below min_th the class test is off (seed 003 §3): RED's rule is the whole rule.
        Qdisc::Dcbt(d) => {
            red_must_take(d.core(), units(d.core(), d.len(), d.bytes()), units(d.core(), d.len(), d.bytes()))
        }
        Qdisc::Red(r) => {
            red_must_take(r.core(), units(r.core(), r.len(), r.bytes()), units(r.core(), r.len(), r.bytes()))
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

/// Random arrivals and departures through `q`; returns the verdicts. Checks every property on
/// the way.
fn drive(name: &str, mut q: Qdisc, seed: u64) -> Vec<Verdict> {
    let mut rng = Rng::from_seed(seed);
    let mut aqm_rng = Rng::from_seed(seed ^ 0xA5A5);
    let mut waiting: VecDeque<(PacketRef, Bytes)> = VecDeque::new();
    let mut verdicts = vec![];
    let mut now = Time::ZERO;
    let (mut arrivals, mut departures, mut drops) = (0u64, 0u64, 0u64);
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
                Verdict::Enqueue | Verdict::EnqueueMarked => waiting.push_back((PacketRef(i), meta.size)),
                Verdict::Drop(reason) => {
                    drops += 1;
                    assert!(!must, "{name}: arrival {i} dropped ({reason:?}) while its rules say take it");
                }
            }
            if v == Verdict::EnqueueMarked {
                assert!(meta.ecn_capable, "{name}: a packet that is not ECN-capable was marked");
            }
            verdicts.push(v);
        } else {
            match q.dequeue(now) {
                Some((p, size)) => {
                    let (want, want_size) = waiting.pop_front().expect("a packet came out of an empty queue");
                    assert_eq!((p, size), (want, want_size), "{name}: FIFO order");
                    departures += 1;
                }
                None => assert!(waiting.is_empty(), "{name}: nothing came out of a queue holding packets"),
            }
        }
        assert_eq!(q.len(), waiting.len(), "{name}: len");
        assert_eq!(q.bytes().0, waiting.iter().map(|(_, s)| s.0).sum::<u64>(), "{name}: bytes");
        let s = q.stats();
        assert_eq!(s.arrivals_pkts, arrivals, "{name}: arrivals");
        assert_eq!(s.departures_pkts, departures, "{name}: departures");
        assert_eq!(s.drops(), drops, "{name}: drops");
        assert_eq!(s.arrivals_pkts, s.departures_pkts + s.drops() + q.len() as u64, "{name}: conservation");
        assert_eq!(
            s.drops(),
            s.early_drops + s.forced_drops + s.overflow_drops + s.threshold_drops,
            "{name}: drops by reason"
        );
    }
    assert!(drops > 0 && departures > 0, "{name}: the traffic congested the queue ({drops} drops)");
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
