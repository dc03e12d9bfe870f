//! FRED, Flow Random Early Drop (Lin & Morris, "Dynamics of Random Early Detection", SIGCOMM
//! 1997, §4 and Figure 5), which chung-dcbt §1 describes as the per-flow alternative to its
//! class-based queues: RED's average and drop curve ([`RedCore`]), with per-flow accounting of
//! the packets each active flow (one with packets in the buffer) holds.
//!
//! On an arrival of flow i, holding `qlen_i` packets with `strike_i` strikes:
//! 1. If the buffer is empty, the average decays for the idle time first (as RED's).
//! 2. `maxq` is min_th, or 2 once the average reaches max_th; `avgcq`, the average per active
//!    flow, is the average over the active flows, at least 1.
//! 3. A flow at or above `maxq`, or above 2 `avgcq` while the average is at max_th or more, or
//!    at or above `avgcq` with more than one strike, is over its share: one more strike and the
//!    packet is dropped ([`DropReason::Flow`]). This is how FRED catches a non-adaptive flow.
//! 4. Between min_th and max_th (random-drop mode) the count grows, and only a flow holding at
//!    least max(min_q, avgcq) packets faces RED's early drop (a "robust" flow; fragile flows with
//!    few packets buffered are spared).
//! 5. Below min_th nothing is dropped and the count is reset (to -1); at or above max_th
//!    (drop-tail mode) every arrival is dropped ([`DropReason::Forced`]).
//! 6. An accepted packet makes its flow active if it was not, and the average takes a sample.
//!
//! On a departure the average takes a sample too, and a flow that holds no more packets stops
//! being active; its state (strikes included) is forgotten.
//!
//! The paper's Figure 5 could not be consulted here: these rules follow the project's reading
//! notes (shared/notes/seed003_spec.md §1.4), which give them from Lin & Morris, and agree with
//! ported implementations of it. FRED works in packets: RED's byte modes and its gentle region
//! (which FRED's drop-tail mode above max_th replaces) are refused.

use std::collections::BTreeMap;

use fairway_core::{Bytes, Dur, FlowId, PacketRef, Rate, Rng, Time};

use crate::red::{check_red_on_link, read_red, RED_KEYS};
use crate::{
    Decides, Departure, Discipline, DropReason, Fifo, Keys, Level, Limit, OnLink, PacketMeta, ParamError,
    QueueDiscipline, QueueStats, Queued, Read, RedCore, RedParams, Verdict,
};

/// FRED's parameters: RED's (packet mode, not gentle) and `min_q`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FredParams {
    pub red: RedParams,
    /// The packets any flow may buffer before it faces an early drop (Lin & Morris: 2, or 4 for
    /// large buffers).
    pub min_q: u32,
}

impl Default for FredParams {
    /// RED at min_th 5, max_th 15, w_q 0.002, max_p 0.1 in packets, without `wait` (the paper's
    /// p_a = p_b / (1 - count p_b)), and min_q 2.
    fn default() -> Self {
        FredParams {
            red: RedParams {
                thresh: 5.0,
                maxthresh: 15.0,
                q_weight: 0.002,
                linterm: 10.0,
                bytes: false,
                queue_in_bytes: false,
                gentle: false,
                wait: false,
                ..RedParams::default()
            },
            min_q: 2,
        }
    }
}

impl FredParams {
    pub fn validate(&self) -> Result<(), ParamError> {
        self.red.validate()?;
        if self.red.bytes || self.red.queue_in_bytes {
            return Err(ParamError::new(
                if self.red.bytes { "bytes" } else { "queue_in_bytes" },
                "FRED counts each flow's packets: set bytes = false and queue_in_bytes = false",
            ));
        }
        if self.red.gentle {
            return Err(ParamError::new(
                "gentle",
                "FRED drops every arrival once the average reaches maxthresh: set gentle = false",
            ));
        }
        if self.min_q == 0 {
            return Err(ParamError::new("min_q", "must be at least 1 packet"));
        }
        Ok(())
    }
}

/// What FRED keeps for an active flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct FlowState {
    qlen: u32,
    strike: u32,
}

/// A FRED queue in front of one simplex link. See the module documentation.
#[derive(Debug, Clone)]
pub struct Fred {
    params: FredParams,
    core: RedCore,
    q: Fifo<FlowId>,
    /// The active flows (ordered, so that nothing depends on a hasher's seed).
    flows: BTreeMap<u32, FlowState>,
    /// Arrivals since the last drop in random-drop mode; -1 below min_th.
    count: i64,
    /// The average per active flow, at least 1.
    avgcq: f64,
    stats: QueueStats,
}

impl Fred {
    pub fn new(params: FredParams, link_rate: Rate, link_delay: Dur) -> Result<Fred, ParamError> {
        params.validate()?;
        Ok(Fred {
            params,
            core: RedCore::new(params.red, link_rate, link_delay)?,
            q: Fifo::new(),
            flows: BTreeMap::new(),
            count: -1,
            avgcq: 1.0,
            stats: QueueStats::default(),
        })
    }

    pub fn params(&self) -> &FredParams {
        &self.params
    }

    pub fn core(&self) -> &RedCore {
        &self.core
    }

    /// The packets `flow` holds in the buffer.
    pub fn flow_len(&self, flow: FlowId) -> u32 {
        self.flows.get(&flow.0).map_or(0, |s| s.qlen)
    }

    /// `flow`'s strikes (forgotten when it holds no packet).
    pub fn strikes(&self, flow: FlowId) -> u32 {
        self.flows.get(&flow.0).map_or(0, |s| s.strike)
    }

    /// The flows holding packets.
    pub fn active(&self) -> usize {
        self.flows.len()
    }

    /// Lin & Morris: avgcq = avg / nactive (avg with no active flow), at least one packet.
    fn update_avgcq(&mut self) {
        let n = self.flows.len();
        let avg = self.core.average();
        self.avgcq = if n > 0 { avg / n as f64 } else { avg }.max(1.0);
    }
}

impl QueueDiscipline for Fred {
    fn enqueue(&mut self, now: Time, meta: &PacketMeta, pkt: PacketRef, rng: &mut Rng) -> Verdict {
        let qlen = self.q.len() as u64;
        if qlen == 0 {
            // Figure 5: the average after an idle period is computed on the first arrival.
            self.core.arrive(now, 0);
            self.update_avgcq();
        }
        let res = *self.core.resolved();
        let avg = self.core.average();
        let st = self.flows.get(&meta.flow.0).copied().unwrap_or_default();
        let (qi, avgcq) = (st.qlen as f64, self.avgcq);
        let maxq = if avg >= res.th_max { 2.0 } else { res.th_min };
        let verdict = if qi >= maxq || (avg >= res.th_max && qi > 2.0 * avgcq) || (qi >= avgcq && st.strike > 1) {
            // Non-adaptive or over its share: a strike, and the packet goes.
            if let Some(s) = self.flows.get_mut(&meta.flow.0) {
                s.strike += 1;
            }
            Verdict::Drop(DropReason::Flow)
        } else if avg >= res.th_min && avg < res.th_max {
            // Random-drop mode: only robust flows face RED's early drop.
            self.count += 1;
            if qi >= (self.params.min_q as f64).max(avgcq) {
                let p = self.core.early_probability(self.count.max(0) as u64, meta.size);
                if self.core.draw(p, rng) {
                    self.count = 0;
                    if self.params.red.ecn && meta.ecn_capable {
                        Verdict::EnqueueMarked
                    } else {
                        Verdict::Drop(DropReason::Early)
                    }
                } else {
                    Verdict::Enqueue
                }
            } else {
                Verdict::Enqueue
            }
        } else if avg < res.th_min {
            // No-drop mode.
            self.count = -1;
            Verdict::Enqueue
        } else {
            // Drop-tail mode.
            self.count = 0;
            Verdict::Drop(DropReason::Forced)
        };
        // The buffer's own limit (RED's: `limit` packets waiting).
        let verdict = if matches!(verdict, Verdict::Enqueue | Verdict::EnqueueMarked) && qlen >= res.qlim {
            Verdict::Drop(DropReason::Overflow)
        } else {
            verdict
        };
        if matches!(verdict, Verdict::Enqueue | Verdict::EnqueueMarked) {
            let s = self.flows.entry(meta.flow.0).or_default();
            s.qlen += 1;
            self.q.push(pkt, meta.size, meta.flow);
            if qlen > 0 {
                // Figure 5: an accepted packet moves the average (with the queue it found).
                self.core.arrive(now, qlen);
            }
            self.update_avgcq();
        }
        self.stats.count_verdict(meta, verdict);
        verdict
    }

    fn dequeue(&mut self, now: Time) -> Option<Departure> {
        let Some(Queued { pkt, size, tag: flow }) = self.q.pop() else {
            self.core.went_idle(now);
            return None;
        };
        // Figure 5: the average also moves on departures.
        self.core.sample(self.q.len() as u64);
        self.core.departed();
        if let Some(s) = self.flows.get_mut(&flow.0) {
            s.qlen -= 1;
            if s.qlen == 0 {
                self.flows.remove(&flow.0);
            }
        }
        self.update_avgcq();
        self.stats.count_departure(size);
        Some(Departure::plain(pkt, size))
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

impl Discipline for Fred {
    type Params = FredParams;
    const KIND: &'static str = "fred";
    const LABEL: Option<&'static str> = Some("FRED");
    const DECIDES: Decides = Decides::AtEnqueue;
    const FIFO: bool = true;
    const DRAWS: bool = true;
    const TRACKS_IDLE: bool = true;
    const KEEPS_AVERAGE: bool = true;

    fn keys() -> Vec<&'static str> {
        [RED_KEYS, &["min_q"]].concat()
    }

    /// Lin & Morris 1997: RED's keys over FRED's own defaults (packets, not gentle), and min_q.
    fn read(k: &mut dyn Keys) -> Read<FredParams> {
        let base = FredParams::default();
        let mut p = FredParams { red: read_red(k, base.red)?, ..base };
        k.set_u32("min_q", 1, &mut p.min_q)?;
        k.check(p.validate())?;
        Ok(p)
    }
    fn check_on_link(p: &FredParams, link: OnLink, k: &mut dyn Keys) -> Read<()> {
        check_red_on_link(&p.red, link, k)
    }
    fn build(p: &FredParams, link: OnLink) -> Result<Fred, ParamError> {
        Fred::new(*p, link.rate, link.delay)
    }
    fn limit(p: &FredParams) -> Limit {
        Limit::Packets(p.red.limit)
    }
    fn marks_ecn(p: &FredParams) -> bool {
        p.red.ecn
    }
    fn levels(_: &FredParams) -> Vec<Level> {
        vec![]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Class;

    fn meta(flow: u32) -> PacketMeta {
        PacketMeta { size: Bytes(1000), ecn_capable: false, flow: FlowId(flow), class: Class::Tcp }
    }

    fn fred(w: f64) -> Fred {
        let mut p = FredParams::default();
        p.red.q_weight = w;
        p.red.limit = 100;
        Fred::new(p, Rate(10_000_000), Dur::from_millis(10)).unwrap()
    }

    #[test]
    fn a_flow_may_not_hold_more_than_min_th_packets() {
        // One flow filling an idle buffer: the average stays near zero (w_q 0.002), so FRED is
        // in no-drop mode, yet maxq = min_th = 5 caps what one flow may hold.
        let mut q = fred(0.002);
        let mut rng = Rng::from_seed(1);
        let v: Vec<Verdict> = (0..8).map(|k| q.enqueue(Time(0), &meta(7), PacketRef(k), &mut rng)).collect();
        assert!(v[..5].iter().all(|v| *v == Verdict::Enqueue), "{v:?}");
        assert!(v[5..].iter().all(|v| *v == Verdict::Drop(DropReason::Flow)), "{v:?}");
        assert_eq!((q.flow_len(FlowId(7)), q.strikes(FlowId(7))), (5, 3));
        // Another flow is not affected.
        assert_eq!(q.enqueue(Time(0), &meta(8), PacketRef(100), &mut rng), Verdict::Enqueue);
        assert_eq!(q.active(), 2);
        assert_eq!(q.stats().flow_drops, 3);
    }

    #[test]
    fn a_flow_with_strikes_is_held_to_the_average_per_flow() {
        // Two strikes, then a flow at or above avgcq (1 here) loses every further packet.
        let mut q = fred(0.002);
        let mut rng = Rng::from_seed(1);
        for k in 0..7 {
            q.enqueue(Time(0), &meta(1), PacketRef(k), &mut rng);
        }
        assert_eq!(q.strikes(FlowId(1)), 2);
        // Drain to one packet of flow 1: it is at avgcq = 1 and has two strikes.
        for _ in 0..4 {
            q.dequeue(Time(1));
        }
        assert_eq!(q.flow_len(FlowId(1)), 1);
        assert_eq!(q.enqueue(Time(2), &meta(1), PacketRef(50), &mut rng), Verdict::Drop(DropReason::Flow));
        // Once its packets are gone, so is its state: it starts afresh.
        q.dequeue(Time(3));
        assert_eq!((q.active(), q.strikes(FlowId(1))), (0, 0));
        assert_eq!(q.enqueue(Time(4), &meta(1), PacketRef(51), &mut rng), Verdict::Enqueue);
    }

    #[test]
    fn drop_tail_mode_above_max_th_and_early_drops_only_for_robust_flows() {
        // A fast average (w_q 0.5) driven above max_th by twenty flows of two packets each:
        // drop-tail mode then refuses everything (maxq 2: also a flow drop for flows at two).
        let mut q = fred(0.5);
        let mut rng = Rng::from_seed(3);
        let mut id = 0;
        for f in 0..20 {
            for _ in 0..2 {
                q.enqueue(Time(0), &meta(f), PacketRef(id), &mut rng);
                id += 1;
            }
        }
        assert!(q.core().average() >= 15.0, "{}", q.core().average());
        let v = q.enqueue(Time(0), &meta(99), PacketRef(id), &mut rng);
        assert_eq!(v, Verdict::Drop(DropReason::Forced));
        // Between the thresholds a fragile flow (fewer than max(min_q, avgcq) packets) is never
        // dropped early, whatever the draw.
        let mut q = fred(0.5);
        let mut id = 0;
        for f in 0..5 {
            for _ in 0..2 {
                q.enqueue(Time(0), &meta(f), PacketRef(id), &mut rng);
                id += 1;
            }
        }
        let avg = q.core().average();
        assert!((5.0..15.0).contains(&avg), "{avg}");
        for k in 0..50 {
            assert_ne!(q.enqueue(Time(0), &meta(1000 + k), PacketRef(id), &mut rng), Verdict::Drop(DropReason::Early));
            id += 1;
            q.dequeue(Time(0));
        }
    }

    #[test]
    fn byte_mode_and_gentle_are_refused_by_name() {
        let bad = |f: fn(&mut FredParams)| {
            let mut p = FredParams::default();
            f(&mut p);
            Fred::new(p, Rate(1_000_000), Dur::from_millis(1)).unwrap_err().field
        };
        assert_eq!(bad(|p| p.red.bytes = true), "bytes");
        assert_eq!(bad(|p| p.red.gentle = true), "gentle");
        assert_eq!(bad(|p| p.min_q = 0), "min_q");
    }
}
