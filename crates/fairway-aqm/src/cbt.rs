//! CBT, class-based thresholds (Parris, Jeffay & Smith 1999, as chung-dcbt §2 describes it): TCP,
//! tagged (multimedia) UDP and untagged UDP share one queue; each UDP class keeps a weighted
//! average of its packets in the queue, and an arriving UDP packet whose class average is above
//! the class's threshold is dropped. chung-dcbt §2 describes two variants:
//! - "CBT with RED for all" ([`RedFor::All`], the one chung-dcbt simulates): what passes the class
//!   test goes through RED's early-drop test, on RED's average of the whole queue;
//! - "CBT with RED for TCP" ([`RedFor::Tcp`]): only TCP packets meet RED's early-drop test, RED's
//!   average is "computed from the number of enqueued TCP packets only", and UDP packets that pass
//!   their class test are enqueued directly (subject only to the buffer's limit).
//!
//! chung-dcbt leaves open (reading notes ../shared/notes/seed003_spec.md §1.2, marked there as
//! proposals): the weight of the class averages (RED's w_q by default) and whether the class
//! averages decay over idle periods (they do not: a class average moves only on its class's
//! arrivals, the "unsynchronized" updates chung-dcbt §7 criticises). RED's own average sees only
//! the packets that reach RED. With RED for TCP, the buffer's limit still counts every waiting
//! packet (one physical queue), and RED's idle decay follows the link going idle (a reading: the
//! paper does not say what idle means for a TCP-only average).

use fairway_core::{Bytes, Dur, PacketRef, Rate, Rng, Time};

use crate::red::{check_red_on_link, read_red, RedCore, RedParams, RED_KEYS};
use crate::{
    Class, Decides, Departure, Discipline, DropReason, Fifo, Keys, Level, Limit, OnLink, PacketMeta, ParamError,
    QueueDiscipline, QueueStats, Read, Verdict,
};

/// Which packets meet RED's early-drop test (chung-dcbt §2's two variants).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RedFor {
    /// "CBT with RED for all": every packet that passes its class test; RED averages the whole
    /// queue.
    #[default]
    All,
    /// "CBT with RED for TCP": TCP packets only; RED averages the TCP packets waiting.
    Tcp,
}

/// CBT's parameters: RED's, and a threshold per UDP class.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CbtParams {
    pub red: RedParams,
    /// The tagged (multimedia) class's threshold on its average, in packets (chung-dcbt's `mm_th`).
    pub mm_th: f64,
    /// The untagged UDP class's threshold, in packets (chung-dcbt's `udp_th`).
    pub udp_th: f64,
    /// The weight of the class averages; `None`: RED's w_q (a proposal: the paper names none).
    pub weight: Option<f64>,
    /// The variant.
    pub red_for: RedFor,
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
    core: RedCore,
    weight: f64,
    /// Per class (Tcp, Tagged, Untagged): packets and bytes waiting, and the weighted average
    /// of the packet count (kept for the UDP classes).
    count: [u64; 3],
    class_bytes: [u64; 3],
    avg: [f64; 3],
    q: Fifo<Class>,
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
        let core = RedCore::new(params.red, link_rate, link_delay)?;
        let weight = params.weight.unwrap_or(core.resolved().q_weight);
        Ok(Cbt {
            params,
            core,
            weight,
            count: [0; 3],
            class_bytes: [0; 3],
            avg: [0.0; 3],
            q: Fifo::new(),
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
    pub fn core(&self) -> &RedCore {
        &self.core
    }

    /// What waits, in RED's unit (packets, or bytes with `queue_in_bytes`): all of the queue,
    /// or with RED for TCP only the TCP packets when `for_red`.
    pub fn units(&self, for_red: bool) -> u64 {
        let tcp_only = for_red && self.params.red_for == RedFor::Tcp;
        match (self.params.red.queue_in_bytes, tcp_only) {
            (false, false) => self.q.len() as u64,
            (true, false) => self.q.bytes().0,
            (false, true) => self.count[0],
            (true, true) => self.class_bytes[0],
        }
    }

    /// RED's estimator and decision on an arrival.
    fn red(&mut self, now: Time, meta: &PacketMeta, rng: &mut Rng) -> Verdict {
        let qlen = self.units(true);
        self.core.arrive(now, qlen);
        let verdict = self.core.decide(meta, qlen, rng);
        // RED for TCP: RED saw the TCP packets only; the buffer holds every class.
        if self.params.red_for == RedFor::Tcp && self.units(false) >= self.core.resolved().qlim {
            return Verdict::Drop(DropReason::Overflow);
        }
        verdict
    }
}

impl QueueDiscipline for Cbt {
    fn enqueue(&mut self, now: Time, meta: &PacketMeta, pkt: PacketRef, rng: &mut Rng) -> Verdict {
        let c = slot(meta.class);
        let verdict = match meta.class {
            // chung-dcbt §2: "TCP packets go straight to RED".
            Class::Tcp => self.red(now, meta, rng),
            Class::Tagged | Class::Untagged => {
                // chung-dcbt §2: a UDP arrival updates its class's average only, and is dropped
                // when that average is over the class's threshold.
                self.avg[c] = (1.0 - self.weight) * self.avg[c] + self.weight * self.count[c] as f64;
                let th = if meta.class == Class::Tagged { self.params.mm_th } else { self.params.udp_th };
                if self.avg[c] > th {
                    Verdict::Drop(DropReason::Threshold)
                } else {
                    match self.params.red_for {
                        // RED for all: RED decides.
                        RedFor::All => self.red(now, meta, rng),
                        // RED for TCP: enqueued directly, if the buffer has room.
                        RedFor::Tcp if self.units(false) >= self.core.resolved().qlim => {
                            Verdict::Drop(DropReason::Overflow)
                        }
                        RedFor::Tcp => Verdict::Enqueue,
                    }
                }
            }
        };
        if matches!(verdict, Verdict::Enqueue | Verdict::EnqueueMarked) {
            self.count[c] += 1;
            self.class_bytes[c] += meta.size.0;
            self.q.push(pkt, meta.size, meta.class);
        }
        self.stats.count_verdict(meta, verdict);
        verdict
    }

    /// ns-2 red.cc deque(): an empty queue marks the link idle from `now`.
    fn dequeue(&mut self, now: Time) -> Option<Departure> {
        match self.q.pop() {
            Some(e) => {
                self.core.departed();
                self.count[slot(e.tag)] -= 1;
                self.class_bytes[slot(e.tag)] -= e.size.0;
                self.stats.count_departure(e.size);
                Some(Departure::plain(e.pkt, e.size))
            }
            None => {
                self.core.went_idle(now);
                None
            }
        }
    }

    fn len(&self) -> usize {
        self.q.len()
    }

    fn bytes(&self) -> Bytes {
        self.q.bytes()
    }

    fn stats(&self) -> &QueueStats {
        &self.stats
    }

    /// RED's average in packets (with RED for TCP, of the TCP packets).
    fn average_pkts(&self) -> Option<f64> {
        Some(self.core.average_pkts(&self.stats))
    }
}

/// CBT's keys beside RED's.
const CBT_KEYS: &[&str] = &["mm_th", "udp_th", "weight", "red_for"];

impl Discipline for Cbt {
    type Params = CbtParams;
    const KIND: &'static str = "cbt";
    const LABEL: Option<&'static str> = Some("CBT");
    const DECIDES: Decides = Decides::AtEnqueue;
    const FIFO: bool = true;
    const DRAWS: bool = true;
    const TRACKS_IDLE: bool = true;
    const KEEPS_AVERAGE: bool = true;

    fn keys() -> Vec<&'static str> {
        [RED_KEYS, CBT_KEYS].concat()
    }

    /// chung-dcbt §2: RED's keys, and a threshold per UDP class (required: the paper gives no
    /// default).
    fn read(k: &mut dyn Keys) -> Read<CbtParams> {
        let red = read_red(k, RedParams::default())?;
        let th = |k: &mut dyn Keys, key: &'static str| -> Read<f64> {
            match k.float(key)? {
                Some(x) => Ok(x),
                None => Err(k.refuse(ParamError::new(
                    key,
                    "CBT needs its class thresholds: queue = { kind = \"cbt\", mm_th = ..., udp_th = ... }",
                ))),
            }
        };
        let (mm_th, udp_th) = (th(k, "mm_th")?, th(k, "udp_th")?);
        let weight = k.float("weight")?;
        // chung-dcbt §2's two variants: RED for all (the default, the one it simulates) or RED
        // for TCP only.
        let red_for = k
            .choice("red_for", &[("all", RedFor::All, "RED for all"), ("tcp", RedFor::Tcp, "RED for TCP only")])?
            .unwrap_or_default();
        let p = CbtParams { red, mm_th, udp_th, weight, red_for };
        k.check(p.validate())?;
        Ok(p)
    }
    fn check_on_link(p: &CbtParams, link: OnLink, k: &mut dyn Keys) -> Read<()> {
        check_red_on_link(&p.red, link, k)
    }
    fn build(p: &CbtParams, link: OnLink) -> Result<Cbt, ParamError> {
        Cbt::new(*p, link.rate, link.delay)
    }
    fn limit(p: &CbtParams) -> Limit {
        Limit::Packets(p.red.limit)
    }
    fn marks_ecn(p: &CbtParams) -> bool {
        p.red.ecn
    }
    fn levels(_: &CbtParams) -> Vec<Level> {
        vec![]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fairway_core::FlowId;

    fn meta(class: Class) -> PacketMeta {
        PacketMeta { size: Bytes(1000), ecn_capable: false, flow: FlowId(0), class }
    }

    /// chung-dcbt §4's validation set: RED 15/30 packets, w_q 0.002, max_p 0.1, limit 60.
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
        CbtParams { red, mm_th, udp_th, weight: None, red_for: RedFor::All }
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
            assert_eq!(q.dequeue(Time(10)).unwrap().pkt, PacketRef(i as u32), "FIFO");
        }
        assert_eq!(q.count, [0, 0, 0]);
        assert!(q.dequeue(Time(11)).is_none());
        let s = q.stats();
        assert_eq!((s.arrivals_pkts, s.departures_pkts, s.drops()), (5, 5, 0));
    }

    #[test]
    fn red_for_tcp_averages_tcp_only_and_lets_udp_past_red() {
        // 59 tagged packets wait (mm_th is out of the way) and nothing leaves. With RED for all,
        // RED's average of the whole queue climbs with every arrival, and with w_q = 0.2 passes
        // max_th = 30 before the 50th, so that tagged arrivals meet early drops; with RED for
        // TCP, RED's average counts TCP packets only: it stays 0, no tagged arrival meets RED,
        // and a TCP arrival is taken.
        let fast = |red_for| {
            let mut p = params(1000.0, 1000.0);
            p.red.q_weight = 0.2;
            p.red_for = red_for;
            Cbt::new(p, Rate(10_000_000), Dur::from_millis(10)).unwrap()
        };
        let mut rng = Rng::from_seed(3);
        let mut all = fast(RedFor::All);
        let mut tcp = fast(RedFor::Tcp);
        let mut red_drops = 0;
        for i in 0..59u32 {
            if all.enqueue(Time(i as u64), &meta(Class::Tagged), PacketRef(i), &mut rng) != Verdict::Enqueue {
                red_drops += 1;
            }
            assert_eq!(tcp.enqueue(Time(i as u64), &meta(Class::Tagged), PacketRef(i), &mut rng), Verdict::Enqueue);
        }
        assert!(red_drops > 0, "RED for all drops tagged packets early once its average is up");
        assert_eq!(tcp.core().average(), 0.0);
        assert_eq!(tcp.len(), 59);
        assert_eq!(tcp.enqueue(Time(100), &meta(Class::Tcp), PacketRef(100), &mut rng), Verdict::Enqueue);
        // It saw no TCP packet waiting, though 59 packets do (twice max_th).
        assert_eq!(tcp.core().average(), 0.0);
        // The buffer is one: at the limit of 60 waiting, UDP and TCP alike overflow.
        assert_eq!(tcp.len(), 60);
        assert_eq!(
            tcp.enqueue(Time(101), &meta(Class::Untagged), PacketRef(101), &mut rng),
            Verdict::Drop(DropReason::Overflow)
        );
        assert_eq!(
            tcp.enqueue(Time(102), &meta(Class::Tcp), PacketRef(102), &mut rng),
            Verdict::Drop(DropReason::Overflow)
        );
    }

    #[test]
    fn bad_thresholds_and_weights_name_their_field() {
        let bad = |p: CbtParams| Cbt::new(p, Rate(1_000_000), Dur::ZERO).unwrap_err().field;
        assert_eq!(bad(CbtParams { mm_th: -1.0, ..params(1.0, 1.0) }), "mm_th");
        assert_eq!(bad(CbtParams { udp_th: f64::NAN, ..params(1.0, 1.0) }), "udp_th");
        assert_eq!(bad(CbtParams { weight: Some(0.0), ..params(1.0, 1.0) }), "weight");
    }
}
