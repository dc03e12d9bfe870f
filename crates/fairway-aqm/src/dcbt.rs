//! Dynamic-CBT (chung-dcbt §3, Figures 2 and 3): CBT whose class thresholds follow the number of
//! active flows in each class, with the class averages and RED's updated together.
//!
//! On every arrival (chung-dcbt §3):
//! 1. The active-flow counting unit records the packet's flow in its class's list with the time;
//!    every `refresh` (300 ms in the paper) the flows not seen since the previous traversal are
//!    deleted. n_c is the number of flows in class c's list.
//! 2. RED's average, the tagged average and the untagged average are updated with the same
//!    weight, RED's w_q, each over its own count of waiting packets ("synchronized"); the idle
//!    decay applies to all three alike (a proposal: the paper does not say).
//! 3. Only when RED's average is above its min_th is the threshold test active; then a tagged
//!    packet is dropped if the tagged average exceeds (n_tagged / N) x red_avg, an untagged one
//!    if the untagged average exceeds (n_untagged / N) x (min_th + (max_th - min_th) x a), with
//!    N the active flows of all three classes and a = `untagged_allowance` (0.1, the max_p of
//!    every experiment: the paper ties the two, reading notes §1.3).
//! 4. What passes, and all TCP, goes to RED's decision (with the average of step 2: RED does not
//!    average again) and into the one FIFO.
//!
//! The thresholds are in packets, as the paper's queue is: RED must count packets here.

use std::collections::BTreeMap;

use fairway_core::{Bytes, Dur, PacketRef, Rate, Rng, Time};

use crate::red::{check_red_on_link, read_red, RedCore, RedParams, RED_KEYS};
use crate::{
    Class, Decides, Departure, Discipline, DropReason, Fifo, Keys, Level, Limit, OnLink, PacketMeta, ParamError,
    QueueDiscipline, QueueStats, Read, Verdict,
};

/// D-CBT's parameters: RED's, the untagged allowance and the counting unit's period.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DcbtParams {
    pub red: RedParams,
    /// The fraction of (max_th - min_th) the untagged class shares (Figure 3's 0.1).
    pub untagged_allowance: f64,
    /// How often flows not seen since the last traversal leave the lists (300 ms, chung-dcbt §3).
    pub refresh: Dur,
}

impl DcbtParams {
    /// chung-dcbt's D-CBT on the given RED.
    pub fn new(red: RedParams) -> DcbtParams {
        DcbtParams { red, untagged_allowance: 0.1, refresh: Dur::from_millis(300) }
    }

    pub fn validate(&self) -> Result<(), ParamError> {
        self.red.validate()?;
        if self.red.queue_in_bytes || self.red.bytes {
            return Err(ParamError::new(
                "queue_in_bytes",
                "D-CBT's class thresholds count packets (chung-dcbt §3): set bytes and queue_in_bytes to false",
            ));
        }
        if !(0.0..=1.0).contains(&self.untagged_allowance) {
            return Err(ParamError::new(
                "untagged_allowance",
                format!("{} is outside [0, 1]", self.untagged_allowance),
            ));
        }
        if self.refresh.is_zero() {
            return Err(ParamError::new("refresh", "must be greater than zero"));
        }
        Ok(())
    }
}

/// A D-CBT queue in front of one link.
#[derive(Debug, Clone)]
pub struct Dcbt {
    params: DcbtParams,
    core: RedCore,
    /// Per class (Tcp, Tagged, Untagged): packets waiting, their weighted average (kept for the
    /// UDP classes), and the active flows with when each was last seen.
    count: [u64; 3],
    avg: [f64; 3],
    /// Ordered maps: no hasher, so nothing here draws on unseeded randomness.
    active: [BTreeMap<u32, Time>; 3],
    /// When the counting unit next traverses the lists, and when it last did.
    next_refresh: Time,
    last_refresh: Time,
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

impl Dcbt {
    pub fn new(params: DcbtParams, link_rate: Rate, link_delay: Dur) -> Result<Dcbt, ParamError> {
        params.validate()?;
        Ok(Dcbt {
            params,
            core: RedCore::new(params.red, link_rate, link_delay)?,
            count: [0; 3],
            avg: [0.0; 3],
            active: Default::default(),
            next_refresh: Time::ZERO + params.refresh,
            last_refresh: Time::ZERO,
            q: Fifo::new(),
            stats: QueueStats::default(),
        })
    }

    pub fn params(&self) -> &DcbtParams {
        &self.params
    }

    /// The RED inside.
    pub fn core(&self) -> &RedCore {
        &self.core
    }

    /// The weighted average of `class`'s waiting packets (0 for TCP, which is not averaged).
    pub fn class_average(&self, class: Class) -> f64 {
        self.avg[slot(class)]
    }

    /// The active flows the counting unit holds for `class`.
    pub fn active_flows(&self, class: Class) -> usize {
        self.active[slot(class)].len()
    }

    /// The threshold `class` is held to now (Figure 3); `None` for TCP, or while RED's average is
    /// at or below min_th (the test is off).
    pub fn threshold(&self, class: Class) -> Option<f64> {
        let res = self.core.resolved();
        let red_avg = self.core.average();
        if class == Class::Tcp || red_avg <= res.th_min {
            return None;
        }
        let total: usize = self.active.iter().map(BTreeMap::len).sum();
        let share = self.active[slot(class)].len() as f64 / total.max(1) as f64;
        Some(match class {
            Class::Tagged => share * red_avg,
            _ => share * (res.th_min + (res.th_max - res.th_min) * self.params.untagged_allowance),
        })
    }

    /// The counting unit's traversals due by `now`: each deletes the flows not seen since the
    /// one before. With no arrival in between, several come to the last one's: the flows not
    /// seen since the boundary before it.
    fn refresh(&mut self, now: Time) {
        if now < self.next_refresh {
            return;
        }
        let period = self.params.refresh;
        let extra = (now - self.next_refresh).0 / period.0;
        let last = self.next_refresh + period.saturating_mul(extra);
        let since = if extra == 0 { self.last_refresh } else { Time(last.0 - period.0) };
        for list in &mut self.active {
            list.retain(|_, seen| *seen >= since);
        }
        self.last_refresh = last;
        self.next_refresh = last + period;
    }
}

impl QueueDiscipline for Dcbt {
    fn enqueue(&mut self, now: Time, meta: &PacketMeta, pkt: PacketRef, rng: &mut Rng) -> Verdict {
        let c = slot(meta.class);
        // 1. The counting unit, for every packet, before any test.
        self.refresh(now);
        self.active[c].insert(meta.flow.0, now);
        // 2. The three averages together, with RED's weight and idle decay.
        let qlen = self.q.len() as u64;
        let m = self.core.arrive(now, qlen);
        for k in [1, 2] {
            self.avg[k] = self.core.ewma(self.avg[k], self.count[k], m);
        }
        // 3. The threshold test, active only above min_th.
        let verdict = match self.threshold(meta.class) {
            Some(th) if self.avg[c] > th => Verdict::Drop(DropReason::Threshold),
            // 4. RED's decision on the average of step 2.
            _ => self.core.decide(meta, qlen, rng),
        };
        if matches!(verdict, Verdict::Enqueue | Verdict::EnqueueMarked) {
            self.q.push(pkt, meta.size, meta.class);
            self.count[c] += 1;
        }
        self.stats.count_verdict(meta, verdict);
        verdict
    }

    fn dequeue(&mut self, now: Time) -> Option<Departure> {
        match self.q.pop() {
            Some(e) => {
                self.core.departed();
                self.count[slot(e.tag)] -= 1;
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

    fn average_pkts(&self) -> Option<f64> {
        Some(self.core.average())
    }
}

impl Discipline for Dcbt {
    type Params = DcbtParams;
    const KIND: &'static str = "dcbt";
    const LABEL: Option<&'static str> = Some("D-CBT");
    const DECIDES: Decides = Decides::AtEnqueue;
    const FIFO: bool = true;
    const DRAWS: bool = true;
    const TRACKS_IDLE: bool = true;
    const KEEPS_AVERAGE: bool = true;

    fn keys() -> Vec<&'static str> {
        [RED_KEYS, &["untagged_allowance", "refresh"]].concat()
    }

    /// chung-dcbt §3: RED's keys (counting packets); the class thresholds follow the active flows.
    fn read(k: &mut dyn Keys) -> Read<DcbtParams> {
        let mut p = DcbtParams::new(read_red(k, RedParams::default())?);
        k.set_f64("untagged_allowance", &mut p.untagged_allowance)?;
        k.set_dur_pos("refresh", &mut p.refresh)?;
        k.check(p.validate())?;
        Ok(p)
    }
    fn check_on_link(p: &DcbtParams, link: OnLink, k: &mut dyn Keys) -> Read<()> {
        check_red_on_link(&p.red, link, k)
    }
    fn build(p: &DcbtParams, link: OnLink) -> Result<Dcbt, ParamError> {
        Dcbt::new(*p, link.rate, link.delay)
    }
    fn limit(p: &DcbtParams) -> Limit {
        Limit::Packets(p.red.limit)
    }
    fn marks_ecn(p: &DcbtParams) -> bool {
        p.red.ecn
    }
    fn levels(_: &DcbtParams) -> Vec<Level> {
        vec![]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fairway_core::FlowId;

    fn red() -> RedParams {
        RedParams {
            limit: 60,
            thresh: 5.0,
            maxthresh: 15.0,
            q_weight: 0.002,
            linterm: 10.0,
            gentle: false,
            bytes: false,
            queue_in_bytes: false,
            ..RedParams::default()
        }
    }

    fn meta(class: Class, flow: u32) -> PacketMeta {
        PacketMeta { size: Bytes(1000), ecn_capable: false, flow: FlowId(flow), class }
    }

    #[test]
    fn flows_are_counted_per_class_and_leave_after_a_silent_period() {
        let mut q = Dcbt::new(DcbtParams::new(red()), Rate(10_000_000), Dur::from_millis(10)).unwrap();
        let mut rng = Rng::from_seed(1);
        let ms = |x: u64| Time(x * 1_000_000);
        q.enqueue(ms(10), &meta(Class::Tcp, 1), PacketRef(0), &mut rng);
        q.enqueue(ms(20), &meta(Class::Tcp, 2), PacketRef(1), &mut rng);
        q.enqueue(ms(30), &meta(Class::Tagged, 3), PacketRef(2), &mut rng);
        q.enqueue(ms(40), &meta(Class::Tagged, 3), PacketRef(3), &mut rng);
        assert_eq!((q.active_flows(Class::Tcp), q.active_flows(Class::Tagged)), (2, 1));
        // Flow 2 keeps sending; flows 1 and 3 fall silent. The traversal at 600 ms deletes what
        // was not seen since the one at 300 ms.
        q.enqueue(ms(350), &meta(Class::Tcp, 2), PacketRef(4), &mut rng);
        q.enqueue(ms(650), &meta(Class::Tcp, 2), PacketRef(5), &mut rng);
        assert_eq!((q.active_flows(Class::Tcp), q.active_flows(Class::Tagged)), (1, 0));
    }

    #[test]
    fn the_thresholds_are_figure_3s_and_off_below_min_th() {
        let mut q = Dcbt::new(DcbtParams::new(red()), Rate(10_000_000), Dur::from_millis(10)).unwrap();
        let mut rng = Rng::from_seed(2);
        // Three TCP flows, one tagged, two untagged: N = 6.
        for (i, (c, f)) in [
            (Class::Tcp, 1),
            (Class::Tcp, 2),
            (Class::Tcp, 3),
            (Class::Tagged, 4),
            (Class::Untagged, 5),
            (Class::Untagged, 6),
        ]
        .into_iter()
        .enumerate()
        {
            q.enqueue(Time(i as u64), &meta(c, f), PacketRef(i as u32), &mut rng);
        }
        assert_eq!(q.threshold(Class::Tagged), None, "RED's average is below min_th");
        // Fill the queue until RED's average passes min_th (5 packets), serving nothing.
        let mut i = 6;
        while q.core().average() <= 5.0 {
            q.enqueue(Time(i), &meta(Class::Tcp, 1), PacketRef(i as u32), &mut rng);
            i += 1;
            assert!(i < 100_000);
        }
        let avg = q.core().average();
        let tagged = q.threshold(Class::Tagged).unwrap();
        let untagged = q.threshold(Class::Untagged).unwrap();
        assert!((tagged - avg / 6.0).abs() < 1e-12, "{tagged}");
        assert!((untagged - 2.0 / 6.0 * (5.0 + 10.0 * 0.1)).abs() < 1e-12, "{untagged}");
        assert_eq!(q.threshold(Class::Tcp), None);
    }

    #[test]
    fn a_byte_mode_red_is_refused() {
        let e = Dcbt::new(DcbtParams::new(RedParams::default()), Rate(1_000_000), Dur::ZERO).unwrap_err();
        assert_eq!(e.field, "queue_in_bytes");
    }
}
