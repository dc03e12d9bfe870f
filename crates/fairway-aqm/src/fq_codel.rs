//! FQ-CoDel, the Flow Queue CoDel packet scheduler and AQM (RFC 8290): packets are hashed by
//! flow into queues, each run by CoDel ([`CodelVars`]), and served by deficit round robin with
//! new flows first.
//!
//! - Enqueue (§4.1): the packet joins its flow's queue; a queue that is in neither list joins the
//!   end of the new list with a quantum of credit. If the buffer then holds more than `limit`
//!   packets, the flow with the largest backlog in bytes loses packets from its head, up to half
//!   its backlog and at most `drop_batch` of them (§4.1.2; Linux's fq_codel_drop).
//! - Dequeue (§4.2): the first queue of the new list, else of the old list, is served. One whose
//!   credit is spent gets another quantum and moves to the end of the old list. Otherwise CoDel
//!   dequeues from it; if that leaves nothing, a new queue moves to the end of the old list (when
//!   the old list holds any, so that new queues cannot starve old ones) and an old queue leaves
//!   the lists; else the packet's size is taken from the credit and it is sent.
//!
//! Flows are told apart by [`PacketMeta::flow`] (what a 5-tuple tells apart on the wire) and
//! hashed into `flows` queues with FNV-1a over the flow and a `perturbation` (§4.1.1: "a hash
//! of the 5-tuple ... with a random perturbation"; here a parameter, so that runs are
//! repeatable): two flows may share a queue, as in RFC 8290.

use std::collections::VecDeque;

use fairway_core::{Bytes, Dur, FlowId, PacketRef, Rng, Time};

use crate::fq::{self, List};
use crate::codel::{read_control_law, CodelParams, CodelSource, CodelVars, ControlLaw, Stamp, Stamped, StampedFifo};
use crate::{
    Decides, Departure, Discipline, DropReason, Dropped, Keys, Limit, OnLink, PacketMeta, ParamError, QueueDiscipline,
    QueueStats, Read, Verdict,
};

/// FQ-CoDel's parameters (RFC 8290 §5.1-5.2; defaults as Linux's fq_codel and the RFC give them).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FqCodelParams {
    /// CoDel's target (5 ms) and interval (100 ms) for every queue.
    pub target: Dur,
    pub interval: Dur,
    /// Packets the whole buffer may hold (10 240, §5.2.1).
    pub limit: u32,
    /// Number of flow queues (1024, §5.2.3).
    pub flows: u32,
    /// DRR quantum in bytes (1514, an Ethernet frame, §5.2.2).
    pub quantum: Bytes,
    /// At most this many packets dropped from the fattest queue when the buffer overflows (64).
    pub drop_batch: u32,
    /// CoDel's MAXPACKET: no drop while at most this many bytes wait in the whole buffer
    /// behind the leaving packet (Linux checks the qdisc's backlog).
    pub max_packet: Bytes,
    /// Mark ECN-capable packets instead of dropping them (on by default, §5.2.7).
    pub ecn: bool,
    /// Mixed into the flow hash.
    pub perturbation: u64,
    /// How CoDel's control law is computed in each queue.
    pub control_law: ControlLaw,
}

impl Default for FqCodelParams {
    fn default() -> Self {
        FqCodelParams {
            target: Dur::from_millis(5),
            interval: Dur::from_millis(100),
            limit: 10_240,
            flows: 1024,
            quantum: Bytes(1514),
            drop_batch: 64,
            max_packet: Bytes(1500),
            ecn: true,
            perturbation: 0,
            control_law: ControlLaw::Sqrt,
        }
    }
}

impl FqCodelParams {
    /// The CoDel parameters every queue runs.
    pub fn codel(&self) -> CodelParams {
        CodelParams {
            target: self.target,
            interval: self.interval,
            limit: self.limit,
            max_packet: self.max_packet,
            ecn: self.ecn,
            control_law: self.control_law,
        }
    }

    pub fn validate(&self) -> Result<(), ParamError> {
        self.codel().validate()?;
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

/// One flow queue: its packets, its CoDel state and its DRR credit.
#[derive(Debug, Clone)]
struct FlowQueue {
    q: StampedFifo,
    vars: CodelVars,
    deficit: i64,
    list: List,
}

/// A flow queue as CoDel sees it: MAXPACKET is checked against the whole buffer's backlog.
struct Source<'a> {
    q: &'a mut StampedFifo,
    total: &'a mut Bytes,
    len: &'a mut usize,
}

impl CodelSource for Source<'_> {
    fn pop(&mut self) -> Option<Stamped> {
        let s = self.q.pop()?;
        *self.total = Bytes(self.total.0 - s.size.0);
        *self.len -= 1;
        Some(s)
    }
    fn backlog(&self) -> Bytes {
        *self.total
    }
}

/// An FQ-CoDel queue in front of one simplex link. See the module documentation.
#[derive(Debug, Clone)]
pub struct FqCodel {
    params: FqCodelParams,
    codel: CodelParams,
    queues: Vec<FlowQueue>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    len: usize,
    bytes: Bytes,
    dropped: VecDeque<Dropped>,
    stats: QueueStats,
}

impl FqCodel {
    pub fn new(params: FqCodelParams) -> Result<FqCodel, ParamError> {
        params.validate()?;
        let empty = FlowQueue { q: StampedFifo::default(), vars: CodelVars::default(), deficit: 0, list: List::None };
        Ok(FqCodel {
            params,
            codel: params.codel(),
            queues: vec![empty; params.flows as usize],
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            len: 0,
            bytes: Bytes(0),
            dropped: VecDeque::new(),
            stats: QueueStats::default(),
        })
    }

    pub fn params(&self) -> &FqCodelParams {
        &self.params
    }

    /// The queue `flow` hashes into (RFC 8290 §4.1.1).
    pub fn queue_of(&self, flow: FlowId) -> usize {
        fq::queue_of(flow, self.params.perturbation, self.params.flows)
    }

    /// Packets waiting in the queue of `flow`.
    pub fn flow_len(&self, flow: FlowId) -> usize {
        self.queues[self.queue_of(flow)].q.len()
    }

    /// §4.1.2: the buffer is over its limit; the queue with the most bytes loses packets from
    /// its head, up to half its backlog and at most `drop_batch` (Linux fq_codel_drop).
    fn drop_from_fattest(&mut self) {
        let Some(fat) = (0..self.queues.len()).max_by_key(|&i| (self.queues[i].q.bytes(), std::cmp::Reverse(i))) else {
            return;
        };
        let threshold = self.queues[fat].q.bytes().0 / 2;
        let mut freed = 0;
        for _ in 0..self.params.drop_batch {
            let Some(s) = self.queues[fat].q.pop() else { break };
            self.len -= 1;
            self.bytes = Bytes(self.bytes.0 - s.size.0);
            freed += s.size.0;
            self.stats.count_dropped(DropReason::Overflow);
            self.dropped.push_back(Dropped { pkt: s.pkt, size: s.size, reason: DropReason::Overflow });
            if freed >= threshold {
                break;
            }
        }
    }
}

impl QueueDiscipline for FqCodel {
    fn enqueue(&mut self, now: Time, meta: &PacketMeta, pkt: PacketRef, _rng: &mut Rng) -> Verdict {
        let i = self.queue_of(meta.flow);
        let fq = &mut self.queues[i];
        fq.q.push(pkt, meta.size, Stamp { at: now, ecn_capable: meta.ecn_capable });
        self.len += 1;
        self.bytes += meta.size;
        // §4.1: a queue on neither list joins the new list with a quantum of credit.
        if fq.list == List::None {
            fq.list = List::New;
            fq.deficit = self.params.quantum.0 as i64;
            self.new_flows.push_back(i as u32);
        }
        self.stats.count_verdict(meta, Verdict::Enqueue);
        if self.len > self.params.limit as usize {
            self.drop_from_fattest();
        }
        Verdict::Enqueue
    }

    fn dequeue(&mut self, now: Time) -> Option<Departure> {
        loop {
            // §4.2: the new list first, then the old.
            let (i, from_new) = match self.new_flows.front() {
                Some(&i) => (i as usize, true),
                None => (*self.old_flows.front()? as usize, false),
            };
            let quantum = self.params.quantum.0 as i64;
            if self.queues[i].deficit <= 0 {
                // Credit spent: another quantum, and to the end of the old list.
                self.queues[i].deficit += quantum;
                if from_new {
                    self.new_flows.pop_front();
                } else {
                    self.old_flows.pop_front();
                }
                self.queues[i].list = List::Old;
                self.old_flows.push_back(i as u32);
                continue;
            }
            let before = self.dropped.len();
            let fq = &mut self.queues[i];
            let mut src = Source { q: &mut fq.q, total: &mut self.bytes, len: &mut self.len };
            let (s, out) = fq.vars.dequeue(&self.codel, now, &mut src, &mut self.dropped);
            for k in before..self.dropped.len() {
                let reason = self.dropped[k].reason;
                self.stats.count_dropped(reason);
            }
            let Some(s) = s else {
                // Empty: a new queue goes to the end of the old list if that holds any (so that
                // new queues cannot starve old ones), else it, or an old queue, leaves the lists.
                if from_new {
                    self.new_flows.pop_front();
                    if self.old_flows.is_empty() {
                        self.queues[i].list = List::None;
                    } else {
                        self.queues[i].list = List::Old;
                        self.old_flows.push_back(i as u32);
                    }
                } else {
                    self.old_flows.pop_front();
                    self.queues[i].list = List::None;
                }
                continue;
            };
            self.queues[i].deficit -= s.size.0 as i64;
            if out.marked {
                self.stats.marks += 1;
            }
            self.stats.count_departure(s.size);
            return Some(Departure { pkt: s.pkt, size: s.size, mark: out.marked });
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

impl Discipline for FqCodel {
    type Params = FqCodelParams;
    const KIND: &'static str = "fq_codel";
    const LABEL: Option<&'static str> = Some("FQ-CoDel");
    const DECIDES: Decides = Decides::AtDequeue;
    // RFC 8290 §4.2: flows are served in turn.
    const FIFO: bool = false;
    const DRAWS: bool = false;
    const TRACKS_IDLE: bool = false;
    const KEEPS_AVERAGE: bool = false;

    fn keys() -> Vec<&'static str> {
        [fq::KEYS, &["target", "interval", "max_packet", "ecn", "control_law"]].concat()
    }

    /// What is not given keeps RFC 8290's (and Linux's) value ([`FqCodelParams::default`]).
    fn read(k: &mut dyn Keys) -> Read<FqCodelParams> {
        let d = FqCodelParams::default();
        let mut p = d.with_scheduler(d.scheduler().read(k)?);
        k.set_dur_pos("target", &mut p.target)?;
        k.set_dur_pos("interval", &mut p.interval)?;
        k.set_bytes_pos("max_packet", &mut p.max_packet)?;
        k.set_bool("ecn", &mut p.ecn)?;
        read_control_law(k, &mut p.control_law)?;
        k.check(p.validate())?;
        Ok(p)
    }
    fn build(p: &FqCodelParams, _: OnLink) -> Result<FqCodel, ParamError> {
        FqCodel::new(*p)
    }
    fn limit(p: &FqCodelParams) -> Limit {
        Limit::Packets(p.limit)
    }
    fn marks_ecn(p: &FqCodelParams) -> bool {
        p.ecn
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

    /// Two flows that hash apart, and a third that shares the first's queue, for these
    /// parameters.
    fn flows_apart(q: &FqCodel) -> (u32, u32) {
        let a = 0;
        let b = (1..).find(|&f| q.queue_of(FlowId(f)) != q.queue_of(FlowId(a))).unwrap();
        (a, b)
    }

    #[test]
    fn round_robin_by_bytes_between_two_backlogged_flows() {
        let mut q = FqCodel::new(FqCodelParams::default()).unwrap();
        let (a, b) = flows_apart(&q);
        let mut rng = Rng::from_seed(0);
        // Flow a: 30 packets of 1500 bytes; flow b: 90 of 500.
        for k in 0..30 {
            q.enqueue(Time(0), &meta(a, 1500), PacketRef(k), &mut rng);
        }
        for k in 0..90 {
            q.enqueue(Time(0), &meta(b, 500), PacketRef(100 + k), &mut rng);
        }
        let mut bytes = [0u64; 2];
        for _ in 0..60 {
            let d = q.dequeue(Time(MS)).unwrap();
            bytes[(d.pkt.0 >= 100) as usize] += d.size.0;
        }
        // Each flow gets a quantum a round; a flow may overdraw its credit by up to a packet
        // and a round may be part done, so the two differ by at most a quantum and a packet
        // (DRR's bound, Shreedhar & Varghese 1995), here 1514 + 1500 bytes.
        assert!(bytes[0].abs_diff(bytes[1]) <= 1514 + 1500, "{bytes:?}");
        assert!(bytes[0] + bytes[1] > 30_000);
        assert_eq!(q.stats().drops(), 0);
    }

    #[test]
    fn a_new_flow_is_served_before_the_old_ones() {
        let mut q = FqCodel::new(FqCodelParams::default()).unwrap();
        let (a, b) = flows_apart(&q);
        let mut rng = Rng::from_seed(0);
        for k in 0..20 {
            q.enqueue(Time(0), &meta(a, 1500), PacketRef(k), &mut rng);
        }
        // a spends its first quantum and moves to the old list.
        assert_eq!(q.dequeue(Time(MS)).unwrap().pkt.0, 0);
        assert_eq!(q.dequeue(Time(MS)).unwrap().pkt.0, 1);
        // b arrives: it is new, so it goes first.
        q.enqueue(Time(2 * MS), &meta(b, 100), PacketRef(500), &mut rng);
        assert_eq!(q.dequeue(Time(2 * MS)).unwrap().pkt.0, 500);
        assert_eq!(q.dequeue(Time(2 * MS)).unwrap().pkt.0, 2);
    }

    #[test]
    fn overflow_drops_from_the_fattest_flows_head() {
        let p = FqCodelParams { limit: 20, ..FqCodelParams::default() };
        let mut q = FqCodel::new(p).unwrap();
        let (a, b) = flows_apart(&q);
        let mut rng = Rng::from_seed(0);
        for k in 0..15 {
            q.enqueue(Time(0), &meta(a, 1000), PacketRef(k), &mut rng);
        }
        for k in 0..5 {
            q.enqueue(Time(0), &meta(b, 1000), PacketRef(100 + k), &mut rng);
        }
        // The 21st packet (b's) overflows the buffer: a, the fattest (15 000 bytes), loses
        // packets from its head until half its backlog (7500 bytes) is gone: 8 packets.
        assert_eq!(q.enqueue(Time(0), &meta(b, 1000), PacketRef(105), &mut rng), Verdict::Enqueue);
        let gone: Vec<u32> = std::iter::from_fn(|| q.take_dropped()).map(|d| d.pkt.0).collect();
        assert_eq!(gone, (0..8).collect::<Vec<_>>());
        assert_eq!((q.len(), q.flow_len(FlowId(a)), q.flow_len(FlowId(b))), (13, 7, 6));
        assert_eq!(q.stats().overflow_drops, 8);
        assert_eq!(q.stats().arrivals_pkts, q.stats().drops() + q.len() as u64);
    }

    #[test]
    fn each_flow_has_its_own_codel() {
        // Flow a keeps a standing queue (its packets wait 50 ms), flow b's packets wait 1 ms:
        // CoDel drops only a's.
        let mut q = FqCodel::new(FqCodelParams::default()).unwrap();
        let (a, b) = flows_apart(&q);
        let mut rng = Rng::from_seed(0);
        let mut id = 0;
        for ms in 0..1000u64 {
            for _ in 0..2 {
                q.enqueue(Time(ms * MS), &meta(a, 1000), PacketRef(id), &mut rng);
                id += 1;
            }
            q.enqueue(Time(ms * MS), &meta(b, 100), PacketRef(1_000_000 + id), &mut rng);
            // Serve b's packet and one of a's each millisecond: a's queue grows by one a ms.
            q.dequeue(Time(ms * MS + 10));
            q.dequeue(Time(ms * MS + 20));
        }
        let gone: Vec<u32> = std::iter::from_fn(|| q.take_dropped()).map(|d| d.pkt.0).collect();
        assert!(!gone.is_empty());
        assert!(gone.iter().all(|&p| p < 1_000_000), "only flow a's packets are dropped");
        assert_eq!(q.stats().sojourn_drops, gone.len() as u64);
    }

    #[test]
    fn bad_parameters_name_their_field() {
        let bad = |p: FqCodelParams| FqCodel::new(p).unwrap_err().field;
        assert_eq!(bad(FqCodelParams { flows: 0, ..FqCodelParams::default() }), "flows");
        assert_eq!(bad(FqCodelParams { quantum: Bytes(0), ..FqCodelParams::default() }), "quantum");
        assert_eq!(bad(FqCodelParams { drop_batch: 0, ..FqCodelParams::default() }), "drop_batch");
        assert_eq!(bad(FqCodelParams { limit: 0, ..FqCodelParams::default() }), "limit");
        assert_eq!(bad(FqCodelParams { target: Dur::ZERO, ..FqCodelParams::default() }), "target");
    }
}
