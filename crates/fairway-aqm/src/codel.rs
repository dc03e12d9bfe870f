//! CoDel, Controlled Delay (RFC 8289): a FIFO that decides at dequeue, from how long the packet
//! at the head has waited.
//!
//! Each packet is time-stamped on arrival. When one leaves, its sojourn time is compared with
//! the target: once sojourn times have stayed at or above it for an interval (and more than a
//! packet's worth of bytes waits behind), CoDel enters its dropping state and drops at the head,
//! the next drop an interval / sqrt(count) after the last (the control law), until a packet
//! leaves below the target. [`CodelVars`] is that state machine alone, over any source of
//! time-stamped packets, so that FQ-CoDel runs one per flow queue; [`Codel`] is a single FIFO
//! driven by one.
//!
//! With `ecn`, an ECN-capable packet the control law would drop is marked CE and sent instead
//! (RFC 8289 §5: "drop or mark"; Linux's codel_dequeue, the version RFC 8289 §5 follows, marks
//! and keeps the packet, and the next decision waits for the next drop time).
//!
//! The arrival limit counts waiting packets: an arrival finding `limit` packets waiting is
//! refused (RFC 8289 leaves the buffer's size to the implementation; §4.1 "a drop-tail
//! buffer").

use std::collections::VecDeque;

use fairway_core::{Bytes, Dur, PacketRef, Rng, Time};

use crate::{
    Decides, Departure, Discipline, DropReason, Dropped, Fifo, Keys, Limit, OnLink, PacketMeta, ParamError,
    QueueDiscipline, QueueStats, Queued, Read, Verdict,
};

/// CoDel's parameters (RFC 8289 §4.2-4.4 and §5's constants).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CodelParams {
    /// TARGET: the acceptable standing queue delay (5 ms, §4.4).
    pub target: Dur,
    /// INTERVAL: how long sojourn times must stay above the target before a drop, and the
    /// control law's base (100 ms, §4.3).
    pub interval: Dur,
    /// Packets that may wait; an arrival finding this many is refused.
    pub limit: u32,
    /// MAXPACKET: no drop while at most this many bytes wait behind the leaving packet (§5.4's
    /// `bytes() <= MAXPACKET`, "a maximum-size packet").
    pub max_packet: Bytes,
    /// Mark ECN-capable packets instead of dropping them.
    pub ecn: bool,
    /// How `interval / sqrt(count)` is computed.
    pub control_law: ControlLaw,
}

/// How the control law's `interval / sqrt(count)` is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ControlLaw {
    /// In floating point, exactly (RFC 8289 §5.5's pseudocode).
    #[default]
    Sqrt,
    /// As Linux's codel.h and ns-3's CoDelQueueDisc do: a 16-bit fixed-point 1/sqrt(count)
    /// moved by one Newton step each time the count changes (so a count that jumps, on
    /// re-entering the dropping state, is approximated), and interval x that >> 32.
    Newton,
}

impl Default for CodelParams {
    /// RFC 8289's 5 ms and 100 ms, a 1500-byte MAXPACKET, and Linux's limit of 1000 packets.
    fn default() -> Self {
        CodelParams {
            target: Dur::from_millis(5),
            interval: Dur::from_millis(100),
            limit: 1000,
            max_packet: Bytes(1500),
            ecn: false,
            control_law: ControlLaw::Sqrt,
        }
    }
}

impl CodelParams {
    pub fn validate(&self) -> Result<(), ParamError> {
        if self.target.is_zero() {
            return Err(ParamError::new("target", "must be above zero"));
        }
        if self.interval < self.target {
            return Err(ParamError::new(
                "interval",
                format!(
                    "{} s is shorter than the target ({} s): RFC 8289 §4.3 takes an interval of a worst-case RTT, well above the target",
                    self.interval.as_secs_f64(),
                    self.target.as_secs_f64()
                ),
            ));
        }
        if self.limit == 0 {
            return Err(ParamError::new("limit", "must be at least 1 packet"));
        }
        Ok(())
    }
}

/// What CoDel keeps with a waiting packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    /// When it arrived (RFC 8289 §5.2: the time stamp added at enqueue).
    pub at: Time,
    pub ecn_capable: bool,
}

/// A waiting packet and what CoDel needs of it.
pub type Stamped = Queued<Stamp>;

/// A time-stamped FIFO with its byte count.
pub type StampedFifo = Fifo<Stamp>;

/// Where CoDel takes its packets from: a FIFO, or one of FQ-CoDel's flow queues.
pub trait CodelSource {
    /// Takes the packet at the head, if any.
    fn pop(&mut self) -> Option<Stamped>;
    /// The bytes that count against MAXPACKET once the head has been taken.
    fn backlog(&self) -> Bytes;
}

impl CodelSource for StampedFifo {
    fn pop(&mut self) -> Option<Stamped> {
        Fifo::pop(self)
    }
    fn backlog(&self) -> Bytes {
        self.bytes()
    }
}

/// CoDel's state (RFC 8289 §5.2's per-queue variables) and its dequeue decision.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CodelVars {
    /// `first_above_time`: when sojourn times, above the target since, will have been so for an
    /// interval; `None` for RFC 8289's 0 (below the target, or an empty queue).
    first_above: Option<Time>,
    /// `drop_next`: when the next drop is due in the dropping state.
    drop_next: Time,
    /// `count`: drops (and marks) since entering the dropping state.
    count: u32,
    /// `lastcount`: the count the last dropping state began with.
    lastcount: u32,
    /// `dropping`: in the dropping state.
    dropping: bool,
    /// [`ControlLaw::Newton`]'s 1/sqrt(count) in Q0.16 (Linux `rec_inv_sqrt`); 0 before the
    /// first dropping state.
    rec_inv_sqrt: u16,
}

/// What one dequeue through CoDel did besides its departure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CodelOutcome {
    pub drops: u32,
    pub marked: bool,
}

impl CodelVars {
    /// Whether the dropping state is on.
    pub fn dropping(&self) -> bool {
        self.dropping
    }

    /// The count of the current (or last) dropping state.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// RFC 8289 §5.4 `dodequeue`: takes the head and says whether it may be dropped.
    fn dodequeue(&mut self, p: &CodelParams, now: Time, src: &mut impl CodelSource) -> (Option<Stamped>, bool) {
        let Some(s) = src.pop() else {
            self.first_above = None;
            return (None, false);
        };
        let sojourn = now.saturating_since(s.tag.at);
        // §5.4: below the target, or too few bytes behind it to be a standing queue.
        if sojourn < p.target || src.backlog() <= p.max_packet {
            self.first_above = None;
            return (Some(s), false);
        }
        match self.first_above {
            None => {
                self.first_above = Some(now + p.interval);
                (Some(s), false)
            }
            Some(t) => (Some(s), now >= t),
        }
    }

    /// §5.5's control law: `t + interval / sqrt(count)`.
    fn control_law(&self, p: &CodelParams, t: Time) -> Time {
        match p.control_law {
            ControlLaw::Sqrt => t + Dur((p.interval.0 as f64 / (self.count.max(1) as f64).sqrt()) as u64),
            // Linux reciprocal_divide(interval, rec_inv_sqrt << 16).
            ControlLaw::Newton => t + Dur(((p.interval.0 as u128 * ((self.rec_inv_sqrt as u128) << 16)) >> 32) as u64),
        }
    }

    /// Linux codel_Newton_step: rec_inv_sqrt <- rec_inv_sqrt (3 - count rec_inv_sqrt^2) / 2,
    /// in Linux's fixed point.
    fn newton_step(&mut self) {
        let invsqrt = (self.rec_inv_sqrt as u64) << 16;
        let invsqrt2 = (invsqrt * invsqrt) >> 32;
        let val = (3u64 << 32).wrapping_sub(self.count as u64 * invsqrt2);
        let val = ((val >> 2) * invsqrt) >> (32 - 2 + 1);
        self.rec_inv_sqrt = (val >> 16) as u16;
    }

    /// RFC 8289 §5.5 `dequeue`: the packet to send, if any; the packets dropped on the way go
    /// to `dropped`. With `ecn`, an ECN-capable packet due for a drop is marked and sent
    /// instead (Linux codel_dequeue).
    pub fn dequeue(
        &mut self,
        p: &CodelParams,
        now: Time,
        src: &mut impl CodelSource,
        dropped: &mut VecDeque<Dropped>,
    ) -> (Option<Stamped>, CodelOutcome) {
        let mut out = CodelOutcome::default();
        let (mut head, ok_to_drop) = self.dodequeue(p, now, src);
        let Some(mut s) = head else {
            self.dropping = false;
            return (None, out);
        };
        if self.dropping {
            if !ok_to_drop {
                // Sojourn time below the target: leave the dropping state.
                self.dropping = false;
            }
            // Each drop due by now: drop and take the next; a large backlog may make several
            // due at once.
            while self.dropping && now >= self.drop_next {
                self.count = self.count.saturating_add(1);
                self.newton_step();
                if p.ecn && s.tag.ecn_capable {
                    out.marked = true;
                    self.drop_next = self.control_law(p, self.drop_next);
                    return (Some(s), out);
                }
                dropped.push_back(Dropped { pkt: s.pkt, size: s.size, reason: DropReason::Sojourn });
                out.drops += 1;
                let (next, ok) = self.dodequeue(p, now, src);
                head = next;
                match head {
                    Some(n) if ok => {
                        s = n;
                        self.drop_next = self.control_law(p, self.drop_next);
                    }
                    Some(n) => {
                        s = n;
                        self.dropping = false;
                    }
                    None => {
                        self.dropping = false;
                        return (None, out);
                    }
                }
            }
        } else if ok_to_drop {
            // Above the target for an interval: drop (or mark) and enter the dropping state.
            if p.ecn && s.tag.ecn_capable {
                out.marked = true;
            } else {
                dropped.push_back(Dropped { pkt: s.pkt, size: s.size, reason: DropReason::Sojourn });
                out.drops += 1;
                head = self.dodequeue(p, now, src).0;
            }
            self.dropping = true;
            // §5.5: if the last dropping state ended recently, start near its drop rate.
            let delta = self.count.saturating_sub(self.lastcount);
            let recent = (now.0 as i128) - (self.drop_next.0 as i128) < 16 * p.interval.0 as i128;
            if delta > 1 && recent {
                self.count = delta;
                self.newton_step();
            } else {
                self.count = 1;
                self.rec_inv_sqrt = u16::MAX; // Linux: ~0U >> REC_INV_SQRT_SHIFT, 1/sqrt(1)
            }
            self.drop_next = self.control_law(p, now);
            self.lastcount = self.count;
            match head {
                Some(n) => s = n,
                None => return (None, out),
            }
        }
        (Some(s), out)
    }
}

/// A CoDel queue in front of one simplex link. See the module documentation.
#[derive(Debug, Clone)]
pub struct Codel {
    params: CodelParams,
    vars: CodelVars,
    q: StampedFifo,
    dropped: VecDeque<Dropped>,
    stats: QueueStats,
}

impl Codel {
    pub fn new(params: CodelParams) -> Result<Codel, ParamError> {
        params.validate()?;
        Ok(Codel {
            params,
            vars: CodelVars::default(),
            q: StampedFifo::default(),
            dropped: VecDeque::new(),
            stats: QueueStats::default(),
        })
    }

    pub fn params(&self) -> &CodelParams {
        &self.params
    }

    pub fn vars(&self) -> &CodelVars {
        &self.vars
    }

    /// Whether an arrival now would be refused for want of room.
    pub fn would_overflow(&self) -> bool {
        self.q.len() >= self.params.limit as usize
    }
}

impl QueueDiscipline for Codel {
    fn enqueue(&mut self, now: Time, meta: &PacketMeta, pkt: PacketRef, _rng: &mut Rng) -> Verdict {
        let v = if self.would_overflow() {
            Verdict::Drop(DropReason::Overflow)
        } else {
            self.q.push(pkt, meta.size, Stamp { at: now, ecn_capable: meta.ecn_capable });
            Verdict::Enqueue
        };
        self.stats.count_verdict(meta, v);
        v
    }

    fn dequeue(&mut self, now: Time) -> Option<Departure> {
        let before = self.dropped.len();
        let (s, out) = self.vars.dequeue(&self.params, now, &mut self.q, &mut self.dropped);
        for d in self.dropped.range(before..) {
            self.stats.count_dropped(d.reason);
        }
        let s = s?;
        if out.marked {
            self.stats.marks += 1;
        }
        self.stats.count_departure(s.size);
        Some(Departure { pkt: s.pkt, size: s.size, mark: out.marked })
    }

    fn take_dropped(&mut self) -> Option<Dropped> {
        self.dropped.pop_front()
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
}

/// `control_law = "sqrt"` (RFC 8289's, exact) or `"newton"` (Linux's and ns-3's fixed point).
pub(crate) fn read_control_law(k: &mut dyn Keys, into: &mut ControlLaw) -> Read<()> {
    if let Some(law) = k.choice(
        "control_law",
        &[
            ("sqrt", ControlLaw::Sqrt, "RFC 8289, exact"),
            ("newton", ControlLaw::Newton, "Linux's and ns-3's fixed-point 1/sqrt"),
        ],
    )? {
        *into = law;
    }
    Ok(())
}

impl Discipline for Codel {
    type Params = CodelParams;
    const KIND: &'static str = "codel";
    const LABEL: Option<&'static str> = Some("CoDel");
    const DECIDES: Decides = Decides::AtDequeue;
    const FIFO: bool = true;
    const DRAWS: bool = false;
    const TRACKS_IDLE: bool = false;
    const KEEPS_AVERAGE: bool = false;

    fn keys() -> Vec<&'static str> {
        vec!["limit", "target", "interval", "max_packet", "ecn", "control_law"]
    }

    /// What is not given keeps RFC 8289's value ([`CodelParams::default`]).
    fn read(k: &mut dyn Keys) -> Read<CodelParams> {
        let mut p = CodelParams::default();
        k.set_u32("limit", 1, &mut p.limit)?;
        k.set_dur_pos("target", &mut p.target)?;
        k.set_dur_pos("interval", &mut p.interval)?;
        k.set_bytes_pos("max_packet", &mut p.max_packet)?;
        k.set_bool("ecn", &mut p.ecn)?;
        read_control_law(k, &mut p.control_law)?;
        k.check(p.validate())?;
        Ok(p)
    }
    fn build(p: &CodelParams, _: OnLink) -> Result<Codel, ParamError> {
        Codel::new(*p)
    }
    fn limit(p: &CodelParams) -> Limit {
        Limit::Packets(p.limit)
    }
    fn marks_ecn(p: &CodelParams) -> bool {
        p.ecn
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Class;
    use fairway_core::FlowId;

    const MS: u64 = 1_000_000;

    fn meta(ecn: bool) -> PacketMeta {
        PacketMeta { size: Bytes(1000), ecn_capable: ecn, flow: FlowId(0), class: Class::Tcp }
    }

    fn codel(ecn: bool) -> Codel {
        Codel::new(CodelParams { ecn, ..CodelParams::default() }).unwrap()
    }

    fn fill(q: &mut Codel, at: Time, n: u32, first: u32, ecn: bool) {
        let mut rng = Rng::from_seed(0);
        for i in 0..n {
            assert_eq!(q.enqueue(at, &meta(ecn), PacketRef(first + i), &mut rng), Verdict::Enqueue);
        }
    }

    fn drops(q: &mut Codel) -> Vec<u32> {
        std::iter::from_fn(|| q.take_dropped()).map(|d| d.pkt.0).collect()
    }

    #[test]
    fn below_the_target_nothing_is_dropped() {
        let mut q = codel(false);
        fill(&mut q, Time(0), 100, 0, false);
        // Every packet leaves 4 ms after it came: below the 5 ms target.
        for i in 0..100u32 {
            let d = q.dequeue(Time(4 * MS)).unwrap();
            assert_eq!(d.pkt.0, i);
        }
        assert!(drops(&mut q).is_empty());
        assert_eq!(q.stats().drops(), 0);
    }

    #[test]
    fn an_interval_above_the_target_starts_dropping_at_the_control_laws_times() {
        // A standing queue: 1000 packets from time 0, one served per ms from 10 ms on, every
        // sojourn above 5 ms. The first sojourn above the target (at 10 ms) arms the interval;
        // the first dequeue at or after 110 ms drops the head and enters the dropping state
        // (RFC 8289 §5.5), count 1, the next drop 100 ms later, then 100/sqrt(2) ms, ...
        let mut q = codel(false);
        fill(&mut q, Time(0), 1000, 0, false);
        let mut drop_times = vec![];
        for ms in 10..500u64 {
            let before = q.stats().sojourn_drops;
            q.dequeue(Time(ms * MS)).unwrap();
            if q.stats().sojourn_drops > before {
                assert_eq!(q.stats().sojourn_drops, before + 1, "one drop per dequeue at this rate");
                drop_times.push(ms);
            }
        }
        // Drops at 110, then each interval / sqrt(count) after the last due time, count being
        // the drops so far: +100, +70.7, +57.7, +50, +44.7, ... rounded up to the next whole-ms
        // dequeue.
        let mut expect = vec![110u64];
        let mut next = 110.0 * MS as f64;
        for count in 1.. {
            next += (100.0 * MS as f64 / (count as f64).sqrt()).floor();
            if next >= 500.0 * MS as f64 {
                break;
            }
            expect.push((next / MS as f64).ceil() as u64);
        }
        assert_eq!(drop_times, expect);
        assert!(q.vars().dropping());
        assert_eq!(drops(&mut q).len(), expect.len());
    }

    #[test]
    fn a_packet_below_the_target_ends_the_dropping_state_and_a_quick_return_resumes_the_rate() {
        let mut q = codel(false);
        fill(&mut q, Time(0), 400, 0, false);
        for ms in 10..300u64 {
            q.dequeue(Time(ms * MS));
        }
        assert!(q.vars().dropping());
        // Fresh packets behind the old ones; the old ones leave at 301 ms.
        fill(&mut q, Time(300 * MS), 50, 1000, false);
        while q.len() > 50 {
            q.dequeue(Time(301 * MS));
        }
        assert!(q.vars().dropping());
        let count = q.vars().count();
        assert!(count >= 3, "{count}");
        // The next head waited 3 ms, below the target, with 49 packets behind: the state ends
        // and the packet leaves.
        let d = q.dequeue(Time(303 * MS)).unwrap();
        assert_eq!(d.pkt.0, 1000);
        assert!(!q.vars().dropping());
        // Back above the target within 16 intervals: the new state starts from count -
        // lastcount (§5.5), the last state having begun with a count of 1.
        fill(&mut q, Time(310 * MS), 300, 2000, false);
        let mut entered = None;
        for ms in 320..600u64 {
            q.dequeue(Time(ms * MS));
            if q.vars().dropping() {
                entered = Some(ms);
                break;
            }
        }
        assert!(entered.is_some());
        assert_eq!(q.vars().count(), count - 1);
    }

    #[test]
    fn newtons_fixed_point_follows_one_over_sqrt_count_step_by_step() {
        // One Newton step per count, from 1 (0xFFFF): the first step lands on 0.5 for count 2
        // (1 x (3 - 2) / 2), not 0.707, so Linux's and ns-3's second drop comes 50 ms after the
        // first instead of 70.7; from count 3 on the estimate is within 3%, from 7 within 1%.
        let mut v = CodelVars { rec_inv_sqrt: u16::MAX, count: 1, ..CodelVars::default() };
        for count in 2..200u32 {
            v.count = count;
            v.newton_step();
            let approx = v.rec_inv_sqrt as f64 / 65536.0;
            let err = approx * (count as f64).sqrt() - 1.0;
            match count {
                2 => assert!((approx - 0.5).abs() < 1e-3, "{approx}"),
                3..=6 => assert!(err.abs() < 0.03, "count {count}: {err}"),
                _ => assert!(err.abs() < 0.01, "count {count}: {err}"),
            }
        }
        // In a standing queue the two laws' first drops come at 110 ms and 210 ms alike; the
        // third after 50 ms with Newton, 70.7 with the exact law.
        let drop_times = |law: ControlLaw| {
            let mut q = Codel::new(CodelParams { control_law: law, ..CodelParams::default() }).unwrap();
            fill(&mut q, Time(0), 900, 0, false);
            let mut times = vec![];
            for ms in 10..400u64 {
                let before = q.stats().sojourn_drops;
                q.dequeue(Time(ms * MS));
                if q.stats().sojourn_drops > before {
                    times.push(ms);
                }
            }
            times
        };
        assert_eq!(drop_times(ControlLaw::Sqrt)[..3], [110, 210, 281]);
        assert_eq!(drop_times(ControlLaw::Newton)[..3], [110, 210, 260]);
    }

    #[test]
    fn with_ecn_capable_packets_marks_replace_drops() {
        let mut q = codel(true);
        fill(&mut q, Time(0), 1000, 0, true);
        let mut marked = 0;
        for ms in 10..500u64 {
            if q.dequeue(Time(ms * MS)).unwrap().mark {
                marked += 1;
            }
        }
        assert!(marked >= 5, "{marked}");
        assert_eq!(q.stats().marks, marked);
        assert_eq!(q.stats().drops(), 0);
        assert!(drops(&mut q).is_empty());
        // Packets that are not ECN-capable are still dropped with ecn on.
        let mut q = codel(true);
        fill(&mut q, Time(0), 1000, 0, false);
        for ms in 10..500u64 {
            assert!(!q.dequeue(Time(ms * MS)).unwrap().mark);
        }
        assert!(q.stats().sojourn_drops >= 5);
    }

    #[test]
    fn no_drop_with_at_most_a_packet_behind() {
        // Two packets, each waiting 200 ms: the first leaves with 1000 bytes behind it, fewer
        // than MAXPACKET (1500), so no standing queue.
        let mut q = codel(false);
        fill(&mut q, Time(0), 2, 0, false);
        assert_eq!(q.dequeue(Time(200 * MS)).unwrap().pkt.0, 0);
        assert_eq!(q.dequeue(Time(400 * MS)).unwrap().pkt.0, 1);
        assert_eq!(q.stats().drops(), 0);
    }

    #[test]
    fn the_limit_refuses_arrivals_and_bad_parameters_name_their_field() {
        let mut q = Codel::new(CodelParams { limit: 2, ..CodelParams::default() }).unwrap();
        let mut rng = Rng::from_seed(0);
        q.enqueue(Time(0), &meta(false), PacketRef(0), &mut rng);
        q.enqueue(Time(0), &meta(false), PacketRef(1), &mut rng);
        assert_eq!(q.enqueue(Time(0), &meta(false), PacketRef(2), &mut rng), Verdict::Drop(DropReason::Overflow));
        let bad = |p: CodelParams| Codel::new(p).unwrap_err().field;
        assert_eq!(bad(CodelParams { target: Dur::ZERO, ..CodelParams::default() }), "target");
        assert_eq!(bad(CodelParams { interval: Dur::from_millis(1), ..CodelParams::default() }), "interval");
        assert_eq!(bad(CodelParams { limit: 0, ..CodelParams::default() }), "limit");
    }
}
