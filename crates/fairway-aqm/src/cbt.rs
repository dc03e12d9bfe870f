//! CBT, class-based thresholds, "CBT with RED for all" (Parris, Jeffay & Smith 1999, as seed 003
//! §2 describes it): TCP, tagged (multimedia) UDP and untagged UDP share one RED queue; each UDP
//! class keeps a weighted average of its packets in the queue, and an arriving UDP packet whose
//! class average is above the class's threshold is dropped before RED sees it. What passes goes
//! through RED's early-drop test and into the one FIFO.
//!
//! Seed 003 leaves open (reading notes ../shared/notes/seed003_spec.md §1.2, marked there as
//! proposals): the weight of the class averages (RED's w_q by default) and whether the class
//! averages decay over idle periods (they do not: a class average moves only on its class's
//! arrivals, the "unsynchronized" updates seed 003 §7 criticises). RED's own average sees only
//! the packets that reach RED.

use std::collections::VecDeque;

use fairway_core::{Bytes, Dur, PacketRef, Rate, Rng, Time};

use crate::red::{Red, RedParams};
use crate::{Class, DropReason, PacketMeta, ParamError, QueueDiscipline, QueueStats, Verdict};

/// CBT's parameters: RED's, and a threshold per UDP class.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CbtParams {
    pub red: RedParams,
    /// The tagged (multimedia) class's threshold on its average, in packets (seed 003's `mm_th`).
    pub mm_th: f64,
    /// The untagged UDP class's threshold, in packets (seed 003's `udp_th`).
    pub udp_th: f64,
    /// The weight of the class averages; `None`: RED's w_q (a proposal: the paper names none).
    pub weight: Option<f64>,
}

impl CbtParams {
    pub fn validate(&self) -> Result<(), ParamError> {
        self.red.validate()?;
        for (field, th) in [("mm_th", self.mm_th), ("udp_th", self.udp_th)] {
            if !(th >= 0.0 && th.is_finite()) {
                return Err(ParamError::new(field, format!("{th} is not a number of packets (0 or more)")));
            }
        }
        if let Some(w) = self.weight {
            if !(w > 0.0 && w <= 1.0) {
                return Err(ParamError::new("weight", format!("{w} is outside (0, 1]")));
            }
        }
        Ok(())
    }
}

/// A CBT queue in front of one link.
#[derive(Debug, Clone)]
pub struct Cbt {
    params: CbtParams,
    red: Red,
    weight: f64,
    /// Per class (Tcp, Tagged, Untagged): packets in the queue, and the weighted average of
    /// that count (kept for the UDP classes).
    count: [u64; 3],
    avg: [f64; 3],
    /// The class of each waiting packet, in the queue's (FIFO) order.
    classes: VecDeque<Class>,
    stats: QueueStats,
}

fn slot(c: Class) -> usize {
    match c {
        Class::Tcp => 0,
        Class::Tagged => 1,
        Class::Untagged => 2,
    }
}

impl Cbt {
    pub fn new(params: CbtParams, link_rate: Rate, link_delay: Dur) -> Result<Cbt, ParamError> {
        params.validate()?;
        let red = Red::new(params.red, link_rate, link_delay)?;
        let weight = params.weight.unwrap_or(red.resolved().q_weight);
        Ok(Cbt {
            params,
            red,
            weight,
            count: [0; 3],
            avg: [0.0; 3],
            classes: VecDeque::new(),
            stats: QueueStats::default(),
        })
    }

    pub fn params(&self) -> &CbtParams {
        &self.params
    }

    /// The weighted average of `class`'s packets in the queue (0 for TCP, which has none).
    pub fn class_average(&self, class: Class) -> f64 {
        self.avg[slot(class)]
    }

    /// The RED inside.
    pub fn red(&self) -> &Red {
        &self.red
    }
}

impl QueueDiscipline for Cbt {
    fn enqueue(&mut self, now: Time, meta: &PacketMeta, pkt: PacketRef, rng: &mut Rng) -> Verdict {
        let c = slot(meta.class);
        let verdict = match meta.class {
            // seed 003 §2: "TCP packets go straight to RED".
            Class::Tcp => self.red.enqueue(now, meta, pkt, rng),
            Class::Tagged | Class::Untagged => {
                // seed 003 §2: a UDP arrival updates its class's average only, and is dropped
                // when that average is over the class's threshold; otherwise RED decides.
                self.avg[c] = (1.0 - self.weight) * self.avg[c] + self.weight * self.count[c] as f64;
                let th = if meta.class == Class::Tagged { self.params.mm_th } else { self.params.udp_th };
                if self.avg[c] > th {
                    Verdict::Drop(DropReason::Threshold)
                } else {
                    self.red.enqueue(now, meta, pkt, rng)
                }
            }
        };
        if matches!(verdict, Verdict::Enqueue | Verdict::EnqueueMarked) {
            self.count[c] += 1;
            self.classes.push_back(meta.class);
        }
        self.stats.count_verdict(meta, verdict);
        verdict
    }

    fn dequeue(&mut self, now: Time) -> Option<(PacketRef, Bytes)> {
        let out = self.red.dequeue(now)?;
        // RED serves its FIFO in order: the front class is this packet's.
        if let Some(c) = self.classes.pop_front() {
            self.count[slot(c)] -= 1;
        }
        self.stats.count_departure(out.1);
        Some(out)
    }

    fn len(&self) -> usize {
        self.red.len()
    }

    fn bytes(&self) -> Bytes {
        self.red.bytes()
    }

    fn stats(&self) -> &QueueStats {
        &self.stats
    }

    fn average_pkts(&self) -> Option<f64> {
        self.red.average_pkts()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fairway_core::FlowId;

    fn meta(class: Class) -> PacketMeta {
        PacketMeta { size: Bytes(1000), ecn_capable: false, flow: FlowId(0), class }
    }

    /// Seed 003 §4's validation set: RED 15/30 packets, w_q 0.002, max_p 0.1, limit 60.
    fn params(mm_th: f64, udp_th: f64) -> CbtParams {
        let red = RedParams {
            limit: 60,
            thresh: 15.0,
            maxthresh: 30.0,
            q_weight: 0.002,
            linterm: 10.0,
            gentle: false,
            bytes: false,
            queue_in_bytes: false,
            ..RedParams::default()
        };
        CbtParams { red, mm_th, udp_th, weight: None }
    }

    fn cbt(mm_th: f64, udp_th: f64) -> Cbt {
        Cbt::new(params(mm_th, udp_th), Rate(10_000_000), Dur::from_millis(10)).unwrap()
    }

    #[test]
    fn a_udp_class_over_its_threshold_is_dropped_and_tcp_is_not() {
        // Untagged UDP arrives and never leaves: its count grows one per arrival, its average
        // follows with weight w = 0.002, and from the arrival where the average passes udp_th = 2
        // every untagged packet is dropped, TCP still passing to RED (below RED's min_th).
        let mut q = cbt(10.0, 2.0);
        let mut rng = Rng::from_seed(1);
        let (w, mut avg, mut count) = (0.002, 0.0f64, 0u64);
        let mut first_drop = None;
        for i in 0..200 {
            let v = q.enqueue(Time(i), &meta(Class::Untagged), PacketRef(i as u32), &mut rng);
            avg = (1.0 - w) * avg + w * count as f64;
            if avg > 2.0 {
                assert_eq!(v, Verdict::Drop(DropReason::Threshold), "arrival {i}");
                first_drop.get_or_insert(i);
            } else {
                // RED's average (w_q 0.002) stays far below its min_th of 15 here, and the queue
                // below its limit of 60: RED takes every packet CBT passes.
                assert_eq!(v, Verdict::Enqueue, "arrival {i}");
                count += 1;
            }
            // Serve one packet every other arrival.
            if i % 2 == 1 && q.dequeue(Time(i)).is_some() {
                count -= 1;
            }
            assert!((q.class_average(Class::Untagged) - avg).abs() < 1e-12);
        }
        assert!(first_drop.is_some(), "the threshold was reached");
        assert!(q.stats().threshold_drops > 0);
        assert_eq!(q.enqueue(Time(300), &meta(Class::Tcp), PacketRef(999), &mut rng), Verdict::Enqueue);
        assert_eq!(q.class_average(Class::Tcp), 0.0);
    }

    #[test]
    fn the_counts_follow_the_fifo_and_the_stats_add_up() {
        let mut q = cbt(100.0, 100.0);
        let mut rng = Rng::from_seed(2);
        let order = [Class::Tcp, Class::Tagged, Class::Untagged, Class::Tagged, Class::Tcp];
        for (i, c) in order.iter().enumerate() {
            assert_eq!(q.enqueue(Time(i as u64), &meta(*c), PacketRef(i as u32), &mut rng), Verdict::Enqueue);
        }
        assert_eq!(q.count, [2, 2, 1]);
        for i in 0..order.len() {
            assert_eq!(q.dequeue(Time(10)).unwrap().0, PacketRef(i as u32), "FIFO");
        }
        assert_eq!(q.count, [0, 0, 0]);
        assert!(q.dequeue(Time(11)).is_none());
        let s = q.stats();
        assert_eq!((s.arrivals_pkts, s.departures_pkts, s.drops()), (5, 5, 0));
    }

    #[test]
    fn bad_thresholds_and_weights_name_their_field() {
        let bad = |p: CbtParams| Cbt::new(p, Rate(1_000_000), Dur::ZERO).unwrap_err().field;
        assert_eq!(bad(CbtParams { mm_th: -1.0, ..params(1.0, 1.0) }), "mm_th");
        assert_eq!(bad(CbtParams { udp_th: f64::NAN, ..params(1.0, 1.0) }), "udp_th");
        assert_eq!(bad(CbtParams { weight: Some(0.0), ..params(1.0, 1.0) }), "weight");
    }
}
