//! DropTail: a FIFO that refuses arrivals when full.
//!
//! The limit follows ns-2's Queue/DropTail (queue/drop-tail.cc, `enque`): an arrival is dropped
//! when `waiting + 1 >= limit` (packets), or when `waiting_bytes + size >= limit_bytes` (bytes).
//! ns-2 does not count the packet being serialised as waiting, so a limit of N holds N - 1
//! waiting packets plus the one on the wire: N in all. docs/semantics.md repeats this.

use fairway_core::{Bytes, PacketRef, Rng, Time};

use crate::{
    Decides, Departure, Discipline, DropReason, Fifo, Keys, OnLink, PacketMeta, ParamError, QueueDiscipline, QueueStats,
    Read, Verdict,
};

/// How a buffer's size is bounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// ns-2's `limit_` / `queue-limit` in packets (counting the one on the wire).
    Packets(u32),
    /// A byte budget (ns-2 with `queue_in_bytes_`: `limit_ x mean_pktsize_`).
    Bytes(Bytes),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DropTailParams {
    pub limit: Limit,
}

impl Default for DropTailParams {
    /// ns-2's default `Queue set limit_ 50`.
    fn default() -> Self {
        DropTailParams { limit: Limit::Packets(50) }
    }
}

impl DropTailParams {
    pub fn validate(&self) -> Result<(), ParamError> {
        match self.limit {
            Limit::Packets(0) => Err(ParamError::new("limit", "must be at least 1 packet")),
            Limit::Bytes(Bytes(0)) => Err(ParamError::new("limit", "must be at least 1 byte")),
            _ => Ok(()),
        }
    }
}

/// `repr(C)`, in this order: what an arrival to an empty queue reads and counts (the number
/// waiting, the limit, the arrival and departure counts) comes first, in 56 bytes, so that a
/// simulator can keep it in one cache line with the little else such an arrival needs
/// (fairway-engine's `LinkState`); the drop counts, the buffer and its byte count after.
#[derive(Debug, Clone)]
#[repr(C)]
pub struct DropTail {
    /// Packets waiting: `q.len()`, kept here too, at the front, for the arrivals that find the
    /// queue empty (nearly all, on an access link), which then need not read the buffer's
    /// fields. At most 2^32 - 1: a packet waiting holds one of a simulator's 2^32 references.
    len: u32,
    params: DropTailParams,
    stats: QueueStats,
    q: Fifo,
}

impl DropTail {
    /// How many bytes from its start a DropTail's arrival to an empty queue touches
    /// ([`DropTail::pass_through`]): the count waiting, the limit, and the arrival and
    /// departure counts.
    pub const PASS_THROUGH_BYTES: usize = std::mem::offset_of!(DropTail, stats) + 4 * std::mem::size_of::<u64>();

    pub fn new(params: DropTailParams) -> Result<DropTail, ParamError> {
        params.validate()?;
        Ok(DropTail { len: 0, params, stats: QueueStats::default(), q: Fifo::new() })
    }

    pub fn params(&self) -> &DropTailParams {
        &self.params
    }

    /// Would an arrival of `size` overflow the buffer? (ns-2 drop-tail.cc `enque`.)
    pub fn would_overflow(&self, size: Bytes) -> bool {
        match self.params.limit {
            Limit::Packets(n) => self.len as u64 + 1 >= n as u64,
            Limit::Bytes(b) => self.q.bytes().0 + size.0 >= b.0,
        }
    }
}


impl QueueDiscipline for DropTail {
    fn enqueue(&mut self, _now: Time, meta: &PacketMeta, pkt: PacketRef, _rng: &mut Rng) -> Verdict {
        let v = if self.would_overflow(meta.size) {
            Verdict::Drop(DropReason::Overflow)
        } else {
            self.q.push(pkt, meta.size, ());
            self.len += 1;
            Verdict::Enqueue
        };
        self.stats.count_verdict(meta, v);
        v
    }

    fn dequeue(&mut self, _now: Time) -> Option<Departure> {
        let e = self.q.pop()?;
        self.len -= 1;
        self.stats.count_departure(e.size);
        Some(Departure::plain(e.pkt, e.size))
    }

    fn len(&self) -> usize {
        debug_assert_eq!(self.len as usize, self.q.len());
        self.len as usize
    }

    fn bytes(&self) -> Bytes {
        self.q.bytes()
    }

    fn stats(&self) -> &QueueStats {
        &self.stats
    }
}

impl Discipline for DropTail {
    type Params = DropTailParams;
    const KIND: &'static str = "droptail";
    const LABEL: Option<&'static str> = None;
    const DECIDES: Decides = Decides::AtEnqueue;
    const FIFO: bool = true;
    const DRAWS: bool = false;
    const TRACKS_IDLE: bool = false;
    const KEEPS_AVERAGE: bool = false;

    fn keys() -> Vec<&'static str> {
        vec!["limit"]
    }

    /// `limit`: packets, or a size with a unit ("64KB") for a byte budget.
    fn read(k: &mut dyn Keys) -> Read<DropTailParams> {
        let mut p = DropTailParams::default();
        if k.is_str("limit") {
            if let Some(b) = k.size("limit", true)? {
                p.limit = Limit::Bytes(b);
            }
        } else if let Some(n) = k.int("limit", 1, u32::MAX as i64)? {
            p.limit = Limit::Packets(n as u32);
        }
        k.check(p.validate())?;
        Ok(p)
    }
    fn build(p: &DropTailParams, _: OnLink) -> Result<DropTail, ParamError> {
        DropTail::new(*p)
    }
    fn limit(p: &DropTailParams) -> Limit {
        p.limit
    }
    fn marks_ecn(_: &DropTailParams) -> bool {
        false
    }

    /// The verdict and the counts of an enqueue followed at once by a dequeue, without the
    /// round trip through the buffer. The caller guarantees the queue is empty.
    #[inline]
    fn pass_through(&mut self, meta: &PacketMeta) -> Option<Verdict> {
        debug_assert!(self.len == 0 && self.q.is_empty());
        let v = if self.would_overflow(meta.size) { Verdict::Drop(DropReason::Overflow) } else { Verdict::Enqueue };
        self.stats.count_verdict(meta, v);
        if v == Verdict::Enqueue {
            self.stats.count_departure(meta.size);
        }
        Some(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fairway_core::FlowId;

    fn meta(size: u64) -> PacketMeta {
        PacketMeta { size: Bytes(size), ecn_capable: false, flow: FlowId(0), class: crate::Class::Tcp }
    }

    #[test]
    fn limit_counts_the_packet_on_the_wire_like_ns2() {
        let mut q = DropTail::new(DropTailParams { limit: Limit::Packets(3) }).unwrap();
        let mut rng = Rng::from_seed(0);
        let t = Time(0);
        assert_eq!(q.enqueue(t, &meta(100), PacketRef(0), &mut rng), Verdict::Enqueue);
        assert_eq!(q.enqueue(t, &meta(100), PacketRef(1), &mut rng), Verdict::Enqueue);
        // Two waiting: 2 + 1 >= 3, so the third is refused.
        assert_eq!(q.enqueue(t, &meta(100), PacketRef(2), &mut rng), Verdict::Drop(DropReason::Overflow));
        assert_eq!(q.dequeue(t), Some(Departure::plain(PacketRef(0), Bytes(100))));
        assert_eq!(q.enqueue(t, &meta(100), PacketRef(3), &mut rng), Verdict::Enqueue);
        assert_eq!(q.len(), 2);
        assert_eq!(q.stats().overflow_drops, 1);
        assert_eq!(q.stats().arrivals_pkts, 4);
        assert_eq!(q.stats().departures_pkts, 1);
    }

    #[test]
    fn byte_limit() {
        let mut q = DropTail::new(DropTailParams { limit: Limit::Bytes(Bytes(1000)) }).unwrap();
        let mut rng = Rng::from_seed(0);
        assert_eq!(q.enqueue(Time(0), &meta(600), PacketRef(0), &mut rng), Verdict::Enqueue);
        assert_eq!(q.enqueue(Time(0), &meta(400), PacketRef(1), &mut rng), Verdict::Drop(DropReason::Overflow));
        assert_eq!(q.enqueue(Time(0), &meta(399), PacketRef(2), &mut rng), Verdict::Enqueue);
        assert_eq!(q.bytes(), Bytes(999));
    }

    #[test]
    fn fifo_order_and_conservation() {
        let mut q = DropTail::new(DropTailParams::default()).unwrap();
        let mut rng = Rng::from_seed(0);
        for i in 0..100 {
            q.enqueue(Time(i), &meta(10), PacketRef(i as u32), &mut rng);
        }
        let mut out = vec![];
        while let Some(Departure { pkt: p, .. }) = q.dequeue(Time(200)) {
            out.push(p.0);
        }
        assert_eq!(out, (0..49).collect::<Vec<_>>());
        let s = q.stats();
        assert_eq!(s.arrivals_pkts, s.departures_pkts + s.drops() + q.len() as u64);
    }

    #[test]
    fn pass_through_counts_like_enqueue_then_dequeue() {
        let mut a = DropTail::new(DropTailParams::default()).unwrap();
        let mut b = DropTail::new(DropTailParams::default()).unwrap();
        let mut rng = Rng::from_seed(0);
        assert_eq!(a.pass_through(&meta(100)), Some(Verdict::Enqueue));
        assert_eq!(b.enqueue(Time(0), &meta(100), PacketRef(0), &mut rng), Verdict::Enqueue);
        b.dequeue(Time(0));
        assert_eq!(a.stats(), b.stats());
        assert!(a.is_empty());
        // ns-2's limit of 1 refuses even an arrival to an empty queue.
        let mut one = DropTail::new(DropTailParams { limit: Limit::Packets(1) }).unwrap();
        assert_eq!(one.pass_through(&meta(100)), Some(Verdict::Drop(DropReason::Overflow)));
        assert_eq!(one.stats().overflow_drops, 1);
    }

    #[test]
    fn zero_limit_is_an_error_naming_the_field() {
        let e = DropTail::new(DropTailParams { limit: Limit::Packets(0) }).unwrap_err();
        assert_eq!(e.field, "limit");
    }
}
