//! FQ-PIE, Flow Queue PIE: FQ-CoDel's flow queues and deficit round robin (RFC 8290) with PIE
//! (RFC 8033) in each queue instead of CoDel, as ns-3.37's FqPieQueueDisc runs it (Linux's
//! fq_pie is the same design, Ramakrishnan et al. 2020).
//!
//! - Enqueue: the packet's flow is hashed to a queue. A queue that is in neither list joins the
//!   end of the new list with a quantum of credit. The queue's PIE then decides: its limit is
//!   the whole buffer's, so it refuses the packet only when its queue alone holds `limit`
//!   packets; else an early drop, or a mark below `mark_ecn_threshold` with `ecn`, or the packet
//!   is taken (never dropped early with at most two packets in its queue, ns-3's PIE). If the buffer then holds more than
//!   `limit` packets, the queue with the most bytes (the first built among equals: ns-3 scans its
//!   classes in the order it built them) loses packets from its head, up to half its bytes and at
//!   most `drop_batch` of them (ns-3 `FqPieDrop`, as Linux's fq_codel_drop). Those are taken
//!   straight from the queue: its PIE gets no delay sample from them.
//! - Dequeue: the first queue of the new list, else of the old, is served. One whose credit is
//!   spent gets another quantum and moves to the end of the old list. Otherwise its PIE dequeues
//!   (and takes its delay sample); if the queue is empty, a queue from the new list moves to the
//!   end of the old list and one from the old list leaves the lists. ns-3 moves an emptied new
//!   queue to the old list even when that is empty (RFC 8290 and fq_codel.rs only when it holds
//!   any), so such a queue, busy again at once, is not new again.
//!
//! Each queue's PIE is ns-3.37's PieQueueDisc ([`PieFlavor::Ns3`]), built on the queue's first
//! packet with the PIE parameters below, and kept for the rest of the run. FqPieQueueDisc gives
//! each child its MaxSize (the whole buffer's, in packets), MeanPktSize, A, B, Tupdate, Supdate,
//! DequeueThreshold, QueueDelayReference, MaxBurstAllowance, UseDequeueRateEstimator,
//! UseCapDropAdjustment, UseDerandomization, UseEcn, CeThreshold and UseL4s. Its updates are due
//! from the moment it is built: ns-3 starts the timer in the PieQueueDisc's constructor, so the
//! first update comes at that first packet's time, after its enqueue, and every `t_update` after.
//! What that leaves out:
//! - MarkEcnThreshold: FqPieQueueDisc has the attribute but does not hand it on; its children
//!   keep PieQueueDisc's 0.1. Here `mark_ecn_threshold` reaches every queue (as Linux's fq_pie
//!   applies its ecn_prob); at the default, 0.1, the two agree.
//! - Supdate: ns-3.37's PieQueueDisc schedules its first update in its constructor, before its
//!   attributes are set, so the attribute has no effect; it is not a parameter here.
//! - MeanPktSize: a PIE with a limit in packets never reads it (ns-3 and [`PieFlavor::Ns3`]); the
//!   limit here is in packets.
//! - CeThreshold and UseL4s act only on ECT(1) packets in ns-3's PIE; fairway's packets carry one
//!   ECN-capable bit. The set-associative hash (off by default in ns-3) is not modelled.
//! - With `dq_rate_estimator`, the delay comes from pie.rs's departure-rate estimate (RFC 8033
//!   §5.2), not ns-3's own averaging of the rate.
//!
//! Flows are hashed as in fq_codel.rs (FNV-1a over the flow and `perturbation`); ns-3 hashes the
//! 5-tuple, so the flows that happen to share a queue differ between the two.

use std::collections::VecDeque;

use fairway_core::{Bytes, Dur, FlowId, PacketRef, Rng, Time};

use crate::fq::{self, List};
use crate::pie::{read_controller, Pie, PieFlavor, PieParams, CONTROLLER_KEYS};
use crate::{
    Decides, Departure, Discipline, DropReason, Dropped, Keys, Limit, OnLink, PacketMeta, ParamError, QueueDiscipline,
    QueueStats, Read, Verdict,
};

/// FQ-PIE's parameters: ns-3.37 FqPieQueueDisc's attributes, with its defaults.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FqPieParams {
    /// MaxSize: packets the whole buffer may hold, and each queue's PIE limit (10 240).
    pub limit: u32,
    /// Flows: the number of queues (1024).
    pub flows: u32,
    /// The DRR quantum in bytes. ns-3 takes the device's MTU when none is set: 1500 on its
    /// point-to-point and CSMA devices (Linux's fq_pie: 1514 on Ethernet).
    pub quantum: Bytes,
    /// DropBatchSize: at most this many packets dropped from the fattest queue at an
    /// overflow (64).
    pub drop_batch: u32,
    /// Perturbation: mixed into the flow hash (0).
    pub perturbation: u64,
    /// QueueDelayReference: PIE's target delay (15 ms).
    pub target: Dur,
    /// Tupdate: PIE's update period (15 ms).
    pub t_update: Dur,
    /// A and B: PIE's gains, in Hz (0.125 and 1.25).
    pub alpha: f64,
    pub beta: f64,
    /// MaxBurstAllowance (150 ms).
    pub max_burst: Dur,
    /// UseEcn: mark ECN-capable packets instead of early drops (on, ns-3's FqPie default).
    pub ecn: bool,
    /// MarkEcnThreshold: marks only while the drop probability is below it (0.1; see the module
    /// documentation).
    pub mark_ecn_threshold: f64,
    /// UseDequeueRateEstimator (off) and DequeueThreshold (16 384 bytes).
    pub dq_rate_estimator: bool,
    pub dq_threshold: Bytes,
    /// UseCapDropAdjustment (on).
    pub cap_drop_adjustment: bool,
    /// UseDerandomization (off).
    pub derandomize: bool,
}

impl Default for FqPieParams {
    fn default() -> Self {
        FqPieParams {
            limit: 10_240,
            flows: 1024,
            quantum: Bytes(1500),
            drop_batch: 64,
            perturbation: 0,
            target: Dur::from_millis(15),
            t_update: Dur::from_millis(15),
            alpha: 0.125,
            beta: 1.25,
            max_burst: Dur::from_millis(150),
            ecn: true,
            mark_ecn_threshold: 0.1,
            dq_rate_estimator: false,
            dq_threshold: Bytes(16_384),
            cap_drop_adjustment: true,
            derandomize: false,
        }
    }
}

impl FqPieParams {
    /// `self` with the controller settings of `pie` (its limit, flavour and mean packet size are
    /// FQ-PIE's own, as [`pie`](Self::pie) sets them).
    fn with_controller(self, pie: &PieParams) -> Self {
        FqPieParams {
            target: pie.target,
            t_update: pie.t_update,
            alpha: pie.alpha,
            beta: pie.beta,
            max_burst: pie.max_burst,
            ecn: pie.ecn,
            mark_ecn_threshold: pie.mark_ecn_threshold,
            dq_rate_estimator: pie.dq_rate_estimator,
            dq_threshold: pie.dq_threshold,
            cap_drop_adjustment: pie.cap_drop_adjustment,
            derandomize: pie.derandomize,
            ..self
        }
    }

    /// The PIE every queue runs: ns-3's PieQueueDisc with the whole buffer as its limit.
    pub fn pie(&self) -> PieParams {
        PieParams {
            target: self.target,
            t_update: self.t_update,
            alpha: self.alpha,
            beta: self.beta,
            max_burst: self.max_burst,
            limit: self.limit,
            ecn: self.ecn,
            mark_ecn_threshold: self.mark_ecn_threshold,
            dq_rate_estimator: self.dq_rate_estimator,
            dq_threshold: self.dq_threshold,
            cap_drop_adjustment: self.cap_drop_adjustment,
            derandomize: self.derandomize,
            flavor: PieFlavor::Ns3,
            ..PieParams::default()
        }
    }

    pub fn validate(&self) -> Result<(), ParamError> {
        self.pie().validate()?;
        self.scheduler().validate()
    }

    /// The flow-queue scheduler's settings.
    pub(crate) fn scheduler(&self) -> fq::Scheduler {
        fq::Scheduler {
            limit: self.limit,
            flows: self.flows,
            quantum: self.quantum,
            drop_batch: self.drop_batch,
            perturbation: self.perturbation,
        }
    }

    /// `self` with the scheduler's settings `s`.
    fn with_scheduler(self, s: fq::Scheduler) -> Self {
        let fq::Scheduler { limit, flows, quantum, drop_batch, perturbation } = s;
        Self { limit, flows, quantum, drop_batch, perturbation, ..self }
    }
}

/// One flow queue: its PIE (with its packets), built on its first packet, and its DRR credit.
#[derive(Debug, Clone)]
struct FlowQueue {
    pie: Option<Box<Pie>>,
    deficit: i64,
    list: List,
}

/// An FQ-PIE queue in front of one simplex link. See the module documentation.
#[derive(Debug, Clone)]
pub struct FqPie {
    params: FqPieParams,
    pie: PieParams,
    queues: Vec<FlowQueue>,
    /// The queues whose PIE has been built, in the order they were (ns-3's classes).
    built: Vec<u32>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    len: usize,
    bytes: Bytes,
    dropped: VecDeque<Dropped>,
    stats: QueueStats,
}

impl FqPie {
    pub fn new(params: FqPieParams) -> Result<FqPie, ParamError> {
        params.validate()?;
        let empty = FlowQueue { pie: None, deficit: 0, list: List::None };
        Ok(FqPie {
            params,
            pie: params.pie(),
            queues: vec![empty; params.flows as usize],
            built: Vec::new(),
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            len: 0,
            bytes: Bytes(0),
            dropped: VecDeque::new(),
            stats: QueueStats::default(),
        })
    }

    pub fn params(&self) -> &FqPieParams {
        &self.params
    }

    /// The queue `flow` hashes into (RFC 8290 §4.1.1).
    pub fn queue_of(&self, flow: FlowId) -> usize {
        fq::queue_of(flow, self.params.perturbation, self.params.flows)
    }

    /// Packets waiting in the queue of `flow`.
    pub fn flow_len(&self, flow: FlowId) -> usize {
        self.queues[self.queue_of(flow)].pie.as_ref().map_or(0, |p| p.len())
    }

    /// The drop probability of the queue of `flow` as of its last update, if it has a PIE.
    pub fn flow_drop_prob(&self, flow: FlowId) -> Option<f64> {
        self.queues[self.queue_of(flow)].pie.as_ref().map(|p| p.drop_prob())
    }

    /// ns-3 `FqPieDrop`: the buffer is over its limit; the queue with the most bytes loses
    /// packets from its head until half its bytes are gone, at most `drop_batch` of them.
    fn drop_from_fattest(&mut self, now: Time) {
        let mut fat = None;
        let mut most = 0;
        for &i in &self.built {
            let b = self.queues[i as usize].pie.as_ref().map_or(0, |p| p.bytes().0);
            // Strictly more: the first built wins a tie.
            if b > most {
                most = b;
                fat = Some(i as usize);
            }
        }
        let Some(fat) = fat else { return };
        let threshold = most / 2;
        let pie = self.queues[fat].pie.as_mut().expect("a queue in `built` has its PIE");
        let (mut freed, mut count) = (0, 0);
        while let Some((pkt, size)) = pie.drop_head(now) {
            self.len -= 1;
            self.bytes = Bytes(self.bytes.0 - size.0);
            freed += size.0;
            count += 1;
            self.stats.count_dropped(DropReason::Overflow);
            self.dropped.push_back(Dropped { pkt, size, reason: DropReason::Overflow });
            if count >= self.params.drop_batch || freed >= threshold {
                break;
            }
        }
    }
}

impl QueueDiscipline for FqPie {
    fn enqueue(&mut self, now: Time, meta: &PacketMeta, pkt: PacketRef, rng: &mut Rng) -> Verdict {
        let i = self.queue_of(meta.flow);
        let fresh = self.queues[i].pie.is_none();
        if fresh {
            // Built now; its first update is due now too, after this enqueue (ns-3 schedules it
            // as a new event at the same time), so the timer is set one period on and that
            // update is made below.
            let pie = Pie::with_first_update(self.pie, now + self.params.t_update).expect("checked by validate");
            self.queues[i].pie = Some(Box::new(pie));
            self.built.push(i as u32);
        }
        let fq = &mut self.queues[i];
        if fq.list == List::None {
            fq.list = List::New;
            fq.deficit = self.params.quantum.0 as i64;
            self.new_flows.push_back(i as u32);
        }
        let pie = fq.pie.as_mut().expect("built above");
        let v = pie.enqueue(now, meta, pkt, rng);
        if fresh {
            pie.update();
        }
        if matches!(v, Verdict::Enqueue | Verdict::EnqueueMarked) {
            self.len += 1;
            self.bytes += meta.size;
        }
        self.stats.count_verdict(meta, v);
        if self.len > self.params.limit as usize {
            self.drop_from_fattest(now);
        }
        v
    }

    fn dequeue(&mut self, now: Time) -> Option<Departure> {
        loop {
            // The new list first, then the old.
            let (i, from_new) = match self.new_flows.front() {
                Some(&i) => (i as usize, true),
                None => (*self.old_flows.front()? as usize, false),
            };
            if self.queues[i].deficit <= 0 {
                // Credit spent: another quantum, and to the end of the old list.
                self.queues[i].deficit += self.params.quantum.0 as i64;
                if from_new {
                    self.new_flows.pop_front();
                } else {
                    self.old_flows.pop_front();
                }
                self.queues[i].list = List::Old;
                self.old_flows.push_back(i as u32);
                continue;
            }
            let pie = self.queues[i].pie.as_mut().expect("a listed queue has its PIE");
            let Some(d) = pie.dequeue(now) else {
                // Empty: a new queue goes to the end of the old list, an old one leaves the lists.
                if from_new {
                    self.new_flows.pop_front();
                    self.queues[i].list = List::Old;
                    self.old_flows.push_back(i as u32);
                } else {
                    self.old_flows.pop_front();
                    self.queues[i].list = List::None;
                }
                continue;
            };
            self.queues[i].deficit -= d.size.0 as i64;
            self.len -= 1;
            self.bytes = Bytes(self.bytes.0 - d.size.0);
            self.stats.count_departure(d.size);
            return Some(Departure::plain(d.pkt, d.size));
        }
    }

    fn take_dropped(&mut self) -> Option<Dropped> {
        self.dropped.pop_front()
    }

    fn len(&self) -> usize {
        self.len
    }

    fn bytes(&self) -> Bytes {
        self.bytes
    }

    fn stats(&self) -> &QueueStats {
        &self.stats
    }
}

impl Discipline for FqPie {
    type Params = FqPieParams;
    const KIND: &'static str = "fq_pie";
    const LABEL: Option<&'static str> = Some("FQ-PIE");
    // Each queue's PIE decides on arrival, and the overflow drops from the fattest queue happen
    // then too.
    const DECIDES: Decides = Decides::AtEnqueue;
    // Flows are served in turn (deficit round robin).
    const FIFO: bool = false;
    const DRAWS: bool = true;
    // Each PIE's delay samples come with departures; an idle link leaves them nothing to learn.
    const TRACKS_IDLE: bool = false;
    const KEEPS_AVERAGE: bool = false;

    fn keys() -> Vec<&'static str> {
        [fq::KEYS, CONTROLLER_KEYS].concat()
    }

    /// What is not given keeps ns-3.37's value ([`FqPieParams::default`]).
    fn read(k: &mut dyn Keys) -> Read<FqPieParams> {
        let d = FqPieParams::default();
        let p = d.with_scheduler(d.scheduler().read(k)?);
        let mut pie = p.pie();
        read_controller(k, &mut pie)?;
        let p = p.with_controller(&pie);
        k.check(p.validate())?;
        Ok(p)
    }
    fn build(p: &FqPieParams, _: OnLink) -> Result<FqPie, ParamError> {
        FqPie::new(*p)
    }
    fn limit(p: &FqPieParams) -> Limit {
        Limit::Packets(p.limit)
    }
    fn marks_ecn(p: &FqPieParams) -> bool {
        p.ecn
    }
    /// A PIE update every `t_update` in each flow queue in use: at most one queue a flow.
    fn timers_per_s(p: &FqPieParams, flows: usize) -> f64 {
        (p.flows as usize).min(flows) as f64 / p.t_update.as_secs_f64().max(1e-9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Class;

    const MS: u64 = 1_000_000;

    fn meta(flow: u32, size: u64) -> PacketMeta {
        PacketMeta { size: Bytes(size), ecn_capable: false, flow: FlowId(flow), class: Class::Tcp }
    }

    /// `n` flows that hash to different queues, for these parameters.
    fn flows_apart(q: &FqPie, n: usize) -> Vec<u32> {
        let mut out: Vec<u32> = vec![];
        for f in 0.. {
            if out.len() == n {
                break;
            }
            if out.iter().all(|&g| q.queue_of(FlowId(g)) != q.queue_of(FlowId(f))) {
                out.push(f);
            }
        }
        out
    }

    fn pie_of(q: &mut FqPie, flow: u32) -> &mut Pie {
        let i = q.queue_of(FlowId(flow));
        q.queues[i].pie.as_mut().unwrap()
    }

    #[test]
    fn round_robin_by_bytes_between_two_backlogged_flows() {
        let mut q = FqPie::new(FqPieParams::default()).unwrap();
        let f = flows_apart(&q, 2);
        let mut rng = Rng::from_seed(0);
        // Flow a: 30 packets of 1500 bytes; flow b: 90 of 500.
        for k in 0..30 {
            q.enqueue(Time(0), &meta(f[0], 1500), PacketRef(k), &mut rng);
        }
        for k in 0..90 {
            q.enqueue(Time(0), &meta(f[1], 500), PacketRef(100 + k), &mut rng);
        }
        let mut bytes = [0u64; 2];
        for _ in 0..60 {
            let d = q.dequeue(Time(MS)).unwrap();
            bytes[(d.pkt.0 >= 100) as usize] += d.size.0;
        }
        // DRR's bound (Shreedhar & Varghese 1995): within a quantum and a packet.
        assert!(bytes[0].abs_diff(bytes[1]) <= 1500 + 1500, "{bytes:?}");
        assert!(bytes[0] + bytes[1] > 30_000);
        assert_eq!(q.stats().drops(), 0, "PIE takes everything in its burst allowance");
    }

    #[test]
    fn a_new_flow_is_served_before_the_old_ones() {
        let mut q = FqPie::new(FqPieParams::default()).unwrap();
        let f = flows_apart(&q, 2);
        let mut rng = Rng::from_seed(0);
        for k in 0..20 {
            q.enqueue(Time(0), &meta(f[0], 1000), PacketRef(k), &mut rng);
        }
        // a spends its quantum (1500 bytes: two packets) and moves to the old list.
        assert_eq!(q.dequeue(Time(MS)).unwrap().pkt.0, 0);
        assert_eq!(q.dequeue(Time(MS)).unwrap().pkt.0, 1);
        q.enqueue(Time(2 * MS), &meta(f[1], 100), PacketRef(500), &mut rng);
        assert_eq!(q.dequeue(Time(2 * MS)).unwrap().pkt.0, 500);
        assert_eq!(q.dequeue(Time(2 * MS)).unwrap().pkt.0, 2);
    }

    #[test]
    fn an_emptied_new_queue_moves_to_the_old_list_even_if_that_is_empty() {
        // a sends one packet, b many: a is served first, found empty at the next dequeue and
        // moved to the (empty) old list, and b is served. a's next packet finds a on the old list,
        // so a later new flow c goes before it once b's credit is spent. (RFC 8290 would have
        // taken a off the lists, and a's packet would have made it new again, ahead of c.)
        let mut q = FqPie::new(FqPieParams::default()).unwrap();
        let f = flows_apart(&q, 3);
        let (a, b, c) = (f[0], f[1], f[2]);
        let mut rng = Rng::from_seed(0);
        q.enqueue(Time(0), &meta(a, 1000), PacketRef(0), &mut rng);
        for k in 0..10 {
            q.enqueue(Time(0), &meta(b, 1000), PacketRef(100 + k), &mut rng);
        }
        assert_eq!(q.dequeue(Time(MS)).unwrap().pkt.0, 0);
        assert_eq!(q.dequeue(Time(MS)).unwrap().pkt.0, 100);
        q.enqueue(Time(2 * MS), &meta(a, 1000), PacketRef(1), &mut rng);
        q.enqueue(Time(2 * MS), &meta(c, 1000), PacketRef(200), &mut rng);
        // b's quantum (1500) allows a second packet; then c (new), then a (old), then b.
        let order: Vec<u32> = (0..5).map(|_| q.dequeue(Time(3 * MS)).unwrap().pkt.0).collect();
        assert_eq!(order, [101, 200, 1, 102, 103]);
    }

    #[test]
    fn each_flow_has_its_own_pie() {
        // Flow a keeps a standing queue (its packets wait 50 ms and more), flow b's wait about a
        // ms: only a's PIE drops, and only once a's burst allowance is spent.
        let mut q = FqPie::new(FqPieParams::default()).unwrap();
        let f = flows_apart(&q, 2);
        let (a, b) = (f[0], f[1]);
        let mut rng = Rng::from_seed(3);
        let mut id = 0;
        let mut drops = [0u32; 2];
        for ms in 0..3000u64 {
            for (k, flow) in [a, a, b].into_iter().enumerate() {
                if let Verdict::Drop(r) = q.enqueue(Time(ms * MS), &meta(flow, 1000), PacketRef(id), &mut rng) {
                    assert_eq!(r, DropReason::Early);
                    drops[(k == 2) as usize] += 1;
                }
                id += 1;
            }
            q.dequeue(Time(ms * MS + 10));
            q.dequeue(Time(ms * MS + 20));
        }
        assert!(drops[0] > 100, "{drops:?}");
        assert_eq!(drops[1], 0, "{drops:?}");
        assert!(q.flow_drop_prob(FlowId(a)).unwrap() > 0.0);
        assert_eq!(q.flow_drop_prob(FlowId(b)), Some(0.0));
        assert_eq!(q.stats().early_drops, drops[0] as u64);
    }

    #[test]
    fn a_queues_updates_run_from_its_first_packet() {
        // Built at 7 ms: its first packet arms the 150 ms allowance, then updates at 7, 22, ...
        // take 15 ms each, the tenth (at 142 ms) leaving none.
        let mut q = FqPie::new(FqPieParams::default()).unwrap();
        let mut rng = Rng::from_seed(0);
        q.enqueue(Time(7 * MS), &meta(1, 1000), PacketRef(0), &mut rng);
        let pie = pie_of(&mut q, 1);
        assert!(pie.in_burst());
        pie.catch_up(Time(142 * MS - 1));
        assert!(pie.in_burst());
        pie.catch_up(Time(142 * MS));
        assert!(!pie.in_burst());
        // A PIE of its own from time zero (ns-3's standalone PieQueueDisc) would have its
        // updates at 0, 15, ...: the first at 15 ms, after the arrival, the allowance gone at 150.
        let mut alone = Pie::new(FqPieParams::default().pie()).unwrap();
        alone.enqueue(Time(7 * MS), &meta(1, 1000), PacketRef(0), &mut rng);
        alone.catch_up(Time(150 * MS - 1));
        assert!(alone.in_burst());
        alone.catch_up(Time(150 * MS));
        assert!(!alone.in_burst());
    }

    #[test]
    fn overflow_drops_from_the_fattest_flows_head() {
        let p = FqPieParams { limit: 20, ..FqPieParams::default() };
        let mut q = FqPie::new(p).unwrap();
        let f = flows_apart(&q, 2);
        let (a, b) = (f[0], f[1]);
        let mut rng = Rng::from_seed(0);
        for k in 0..15 {
            q.enqueue(Time(0), &meta(a, 1000), PacketRef(k), &mut rng);
        }
        for k in 0..5 {
            q.enqueue(Time(0), &meta(b, 1000), PacketRef(100 + k), &mut rng);
        }
        // The 21st packet (b's) overflows the buffer: a, the fattest (15 000 bytes), loses
        // packets from its head until half its bytes (7500) are gone: 8 packets.
        assert_eq!(q.enqueue(Time(0), &meta(b, 1000), PacketRef(105), &mut rng), Verdict::Enqueue);
        let gone: Vec<u32> = std::iter::from_fn(|| q.take_dropped()).map(|d| d.pkt.0).collect();
        assert_eq!(gone, (0..8).collect::<Vec<_>>());
        assert_eq!((q.len(), q.flow_len(FlowId(a)), q.flow_len(FlowId(b))), (13, 7, 6));
        assert_eq!(q.stats().overflow_drops, 8);
        assert_eq!(q.stats().arrivals_pkts, q.stats().drops() + q.len() as u64);
    }

    #[test]
    fn among_equally_fat_flows_the_first_built_loses() {
        let p = FqPieParams { limit: 4, drop_batch: 1, ..FqPieParams::default() };
        let mut q = FqPie::new(p).unwrap();
        let f = flows_apart(&q, 2);
        // b built first, though its queue may come after a's.
        let (first, second) =
            if q.queue_of(FlowId(f[0])) > q.queue_of(FlowId(f[1])) { (f[0], f[1]) } else { (f[1], f[0]) };
        let mut rng = Rng::from_seed(0);
        q.enqueue(Time(0), &meta(first, 1000), PacketRef(0), &mut rng);
        q.enqueue(Time(0), &meta(second, 1000), PacketRef(10), &mut rng);
        q.enqueue(Time(0), &meta(first, 1000), PacketRef(1), &mut rng);
        q.enqueue(Time(0), &meta(second, 1000), PacketRef(11), &mut rng);
        // Another of second's: second is now the fattest.
        q.enqueue(Time(0), &meta(second, 1000), PacketRef(12), &mut rng);
        assert_eq!(q.take_dropped().unwrap().pkt.0, 10);
        // A third flow's packet with both at 2 packets: the first built loses its head.
        let third =
            (0..).find(|&g| ![first, second].iter().any(|&h| q.queue_of(FlowId(g)) == q.queue_of(FlowId(h)))).unwrap();
        q.enqueue(Time(0), &meta(third, 1000), PacketRef(20), &mut rng);
        assert_eq!(q.take_dropped().unwrap().pkt.0, 0);
    }

    #[test]
    fn a_flow_holding_the_whole_buffer_is_refused_by_its_pie() {
        let p = FqPieParams { limit: 5, ..FqPieParams::default() };
        let mut q = FqPie::new(p).unwrap();
        let mut rng = Rng::from_seed(0);
        for k in 0..5 {
            assert_eq!(q.enqueue(Time(0), &meta(1, 1000), PacketRef(k), &mut rng), Verdict::Enqueue);
        }
        // Its PIE's limit is the buffer's: the arrival is refused and nothing else is dropped.
        assert_eq!(q.enqueue(Time(0), &meta(1, 1000), PacketRef(5), &mut rng), Verdict::Drop(DropReason::Overflow));
        assert!(q.take_dropped().is_none());
        assert_eq!(q.len(), 5);
    }

    #[test]
    fn bad_parameters_name_their_field() {
        let bad = |p: FqPieParams| FqPie::new(p).unwrap_err().field;
        let d = FqPieParams::default();
        assert_eq!(bad(FqPieParams { flows: 0, ..d }), "flows");
        assert_eq!(bad(FqPieParams { quantum: Bytes(0), ..d }), "quantum");
        assert_eq!(bad(FqPieParams { drop_batch: 0, ..d }), "drop_batch");
        assert_eq!(bad(FqPieParams { limit: 0, ..d }), "limit");
        assert_eq!(bad(FqPieParams { target: Dur::ZERO, ..d }), "target");
        assert_eq!(bad(FqPieParams { t_update: Dur::ZERO, ..d }), "t_update");
        assert_eq!(bad(FqPieParams { alpha: -1.0, ..d }), "alpha");
        assert_eq!(bad(FqPieParams { mark_ecn_threshold: 1.5, ..d }), "mark_ecn_threshold");
    }
}
