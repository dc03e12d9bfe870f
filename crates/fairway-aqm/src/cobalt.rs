//! COBALT, CoDel-BLUE Alternate: the AQM of CAKE (Høiland-Jørgensen, Täht and Morton, "Piece of
//! CAKE: A Comprehensive Queue Management Solution for Home Gateways", IEEE LANMAN 2018), as
//! ns-3.37's CobaltQueueDisc runs it on one FIFO: CoDel's drop scheduling at dequeue for
//! responsive traffic, and BLUE's drop probability beside it for traffic that does not respond.
//!
//! - Enqueue: an arrival that does not fit under `limit` is refused. It is BLUE's congestion
//!   signal (ns-3 `CobaltQueueFull`): the probability rises by `increment`, and CoDel enters its
//!   dropping state with a drop due at once (count at least 1).
//! - Dequeue (ns-3 `CobaltShouldDrop`, in its order), for each packet taken from the head:
//!   1. CoDel. A sojourn above `target` enters the dropping state, if it was off, with the first
//!      drop `interval / sqrt(count)` ahead (count at least 1); a sojourn at or below it leaves
//!      the state. In the state, a drop that is due (count above 0, its time reached) drops the
//!      packet (marks it, with `ecn`, if it is ECN-capable), the count grows by one and the next
//!      drop is `interval / sqrt(count)` after this one. Outside it, every due time passed lowers
//!      the count by one and moves the due time on by the control law: the count decays rather
//!      than being reset (CoDel keeps it until the next dropping state).
//!   2. With `ecn` and a `ce_threshold`, an ECN-capable packet that step 1 did not mark is marked
//!      if its sojourn is above the threshold.
//!   3. BLUE. A sojourn above `blue_threshold` raises the probability by `increment`; then, while
//!      the probability is above zero, the packet is dropped with it (never marked: CAKE's BLUE
//!      ignores ECN on purpose).
//!   4. The due time doubles as an activity timeout: with a count of 0 it is set an interval
//!      ahead; else, if it had passed and the packet is kept, it is set to now.
//!
//!   A dequeue that finds the queue empty leaves the dropping state, lowers the probability by
//!   `decrement` (ns-3 `CobaltQueueEmpty`) and, if a drop was due, lowers the count by one.
//!   BLUE's probability changes at most once per `target` (ns-3 and Linux compare the time since
//!   the last change with the target, not the interval).
//!
//! Unlike CoDel, there is no MAXPACKET test: a packet may be dropped with nothing behind it.
//!
//! `1 / sqrt(count)` is ns-3's (and Linux's) 32-bit fixed point: a table for counts 0 to 15, each
//! entry four Newton steps from the one before, and one Newton step per change above 15. The
//! control law is `t + interval x that >> 32`, in nanoseconds, so the interval must be under
//! 2^32 ns (4.29 s).
//!
//! ns-3.37 keeps the time of BLUE's last change in an unsigned 32-bit count of nanoseconds
//! (`m_lastUpdateTimeBlue` is a `uint32_t`) and compares the current time with it in 64 bits.
//! Once a change happens after 2^32 ns (4.29 s) every later comparison sees more than 4.29 s
//! elapsed, and BLUE changes on every overflow, long sojourn and empty dequeue. `blue_timer_wraps`
//! reproduces that, to compare with ns-3.37; by default the time is kept whole, as Linux's CAKE
//! keeps it and as the algorithm means it.
//!
//! BLUE draws at dequeue, but a discipline is given its random stream only at enqueue: COBALT
//! seeds a stream of its own from one draw of the first arrival's, so a run's draws still follow
//! from its seed. Like ns-3, it draws once per packet leaving while the probability is above zero.
//!
//! Not modelled: ns-3's `UseL4s`, which treats ECT(1) packets apart; fairway's packets carry one
//! ECN-capable bit.

use std::collections::VecDeque;

use fairway_core::{Bytes, Dur, PacketRef, Rng, Time};

use crate::codel::{Stamp, Stamped, StampedFifo};
use crate::{
    Decides, Departure, Discipline, DropReason, Dropped, Keys, Limit, OnLink, PacketMeta, ParamError, QueueDiscipline,
    QueueStats, Read, Verdict,
};

/// COBALT's parameters: ns-3.37 CobaltQueueDisc's attributes, with its defaults.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CobaltParams {
    /// Target: CoDel's acceptable standing delay, and the least time between two changes of
    /// BLUE's probability (5 ms).
    pub target: Dur,
    /// Interval: the control law's base (100 ms).
    pub interval: Dur,
    /// MaxSize: an arrival is refused if the packets (or bytes) waiting and its own would exceed
    /// it (1 500 000 bytes).
    pub limit: Limit,
    /// UseEcn: mark ECN-capable packets instead of CoDel's drops (off).
    pub ecn: bool,
    /// CeThreshold: with `ecn`, mark an ECN-capable packet whose sojourn is above it (`None`,
    /// ns-3's `Time::Max()`: never).
    pub ce_threshold: Option<Dur>,
    /// Pdrop: BLUE's probability at the start (0).
    pub p_drop: f64,
    /// Increment: BLUE's step up (1/256).
    pub increment: f64,
    /// Decrement: BLUE's step down (1/4096).
    pub decrement: f64,
    /// BlueThreshold: a sojourn above it raises BLUE's probability (400 ms).
    pub blue_threshold: Dur,
    /// BLUE's last change kept in 32 bits of nanoseconds, as ns-3.37 keeps it (see the module
    /// documentation); off.
    pub blue_timer_wraps: bool,
}

impl Default for CobaltParams {
    fn default() -> Self {
        CobaltParams {
            target: Dur::from_millis(5),
            interval: Dur::from_millis(100),
            // ns-3 cobalt-queue-disc.h: 1500 x DEFAULT_COBALT_LIMIT (1000) bytes.
            limit: Limit::Bytes(Bytes(1_500_000)),
            ecn: false,
            ce_threshold: None,
            p_drop: 0.0,
            increment: 1.0 / 256.0,
            decrement: 1.0 / 4096.0,
            blue_threshold: Dur::from_millis(400),
            blue_timer_wraps: false,
        }
    }
}

impl CobaltParams {
    pub fn validate(&self) -> Result<(), ParamError> {
        if self.target.is_zero() {
            return Err(ParamError::new("target", "must be above zero"));
        }
        if self.interval < self.target {
            return Err(ParamError::new(
                "interval",
                format!(
                    "{} s is shorter than the target ({} s): the interval is a worst-case RTT, well above the target",
                    self.interval.as_secs_f64(),
                    self.target.as_secs_f64()
                ),
            ));
        }
        if self.interval.0 > u32::MAX as u64 {
            return Err(ParamError::new(
                "interval",
                format!(
                    "{} s: the control law is computed in 32 bits of nanoseconds (under 4.29 s)",
                    self.interval.as_secs_f64()
                ),
            ));
        }
        match self.limit {
            Limit::Packets(0) => return Err(ParamError::new("limit", "must be at least 1 packet")),
            Limit::Bytes(Bytes(0)) => return Err(ParamError::new("limit", "must be at least 1 byte")),
            _ => {}
        }
        for (field, v) in [("p_drop", self.p_drop), ("increment", self.increment), ("decrement", self.decrement)] {
            if !(0.0..=1.0).contains(&v) {
                return Err(ParamError::new(field, format!("{v} is not a probability (0 to 1)")));
            }
        }
        Ok(())
    }
}

/// Entries of the 1/sqrt(count) table (ns-3 `REC_INV_SQRT_CACHE`).
const INV_SQRT_CACHE: usize = 16;

/// One Newton step of 1/sqrt(count) in 32-bit fixed point: rec (3 - count rec^2) / 2, with ns-3's
/// (Linux's) truncations and unsigned wrap-arounds.
fn newton_step(rec: u32, count: u32) -> u32 {
    let inv = rec as u64;
    let inv2 = (inv * inv) >> 32;
    let val = (3u64 << 32).wrapping_sub((count as u64).wrapping_mul(inv2)) >> 2;
    (val.wrapping_mul(inv) >> 31) as u32
}

/// ns-3 `CacheInit`: entry 0 is 1.0 (all ones); entry k is four Newton steps for count k from
/// entry k - 1.
fn inv_sqrt_cache() -> [u32; INV_SQRT_CACHE] {
    let mut cache = [0u32; INV_SQRT_CACHE];
    let mut rec = u32::MAX;
    cache[0] = rec;
    for (count, entry) in cache.iter_mut().enumerate().skip(1) {
        for _ in 0..4 {
            rec = newton_step(rec, count as u32);
        }
        *entry = rec;
    }
    cache
}

/// COBALT's state: CoDel's (count, due time, dropping) and BLUE's (probability, last change).
#[derive(Debug, Clone, Copy, PartialEq)]
struct CobaltVars {
    count: u32,
    /// When the next drop is due, in nanoseconds (signed: ns-3 compares differences with 0).
    drop_next: i64,
    dropping: bool,
    /// 1/sqrt(count) in Q0.32.
    rec_inv_sqrt: u32,
    p_drop: f64,
    /// BLUE's last change, as ns-3 stores it (see `blue_timer_wraps`).
    blue_last: i64,
}

/// A COBALT queue in front of one simplex link. See the module documentation.
#[derive(Debug, Clone)]
pub struct Cobalt {
    params: CobaltParams,
    vars: CobaltVars,
    cache: [u32; INV_SQRT_CACHE],
    q: StampedFifo,
    /// BLUE's stream, seeded by the first arrival's.
    rng: Rng,
    seeded: bool,
    dropped: VecDeque<Dropped>,
    stats: QueueStats,
}

/// A time in ns-3's CoDel representation (signed nanoseconds).
fn ns(t: Time) -> i64 {
    t.0 as i64
}

impl Cobalt {
    pub fn new(params: CobaltParams) -> Result<Cobalt, ParamError> {
        params.validate()?;
        let vars = CobaltVars {
            count: 0,
            drop_next: 0,
            dropping: false,
            rec_inv_sqrt: u32::MAX,
            p_drop: params.p_drop,
            blue_last: 0,
        };
        Ok(Cobalt {
            params,
            vars,
            cache: inv_sqrt_cache(),
            q: StampedFifo::default(),
            rng: Rng::from_seed(0),
            seeded: false,
            dropped: VecDeque::new(),
            stats: QueueStats::default(),
        })
    }

    pub fn params(&self) -> &CobaltParams {
        &self.params
    }

    /// BLUE's drop probability now.
    pub fn p_drop(&self) -> f64 {
        self.vars.p_drop
    }

    /// CoDel's count now.
    pub fn count(&self) -> u32 {
        self.vars.count
    }

    /// Whether CoDel's dropping state is on.
    pub fn dropping(&self) -> bool {
        self.vars.dropping
    }

    /// Whether an arrival of `size` now would be refused for want of room (ns-3:
    /// `GetCurrentSize() + item > GetMaxSize()`).
    pub fn would_overflow(&self, size: Bytes) -> bool {
        match self.params.limit {
            Limit::Packets(n) => self.q.len() as u64 + 1 > n as u64,
            Limit::Bytes(b) => self.q.bytes().0 + size.0 > b.0,
        }
    }

    /// ns-3 `InvSqrt`: the table below its end, a Newton step from the last value above.
    fn inv_sqrt(&mut self) {
        let v = &mut self.vars;
        v.rec_inv_sqrt = match self.cache.get(v.count as usize) {
            Some(&r) => r,
            None => newton_step(v.rec_inv_sqrt, v.count),
        };
    }

    /// ns-3 `ControlLaw`: `t + interval / sqrt(count)` as a reciprocal multiply in 32 bits.
    fn control_law(&self, t: i64) -> i64 {
        let step = (self.params.interval.0 * self.vars.rec_inv_sqrt as u64) >> 32;
        t + step as i64
    }

    /// Whether BLUE may change: more than a target since its last change, as ns-3 measures it.
    fn blue_due(&self, now: i64) -> bool {
        now - self.vars.blue_last > self.params.target.0 as i64
    }

    /// Records a change of BLUE's probability at `now`.
    fn blue_changed(&mut self, now: i64) {
        // ns-3.37 stores the time in a uint32_t (see `blue_timer_wraps`).
        self.vars.blue_last = if self.params.blue_timer_wraps { now as u32 as i64 } else { now };
    }

    /// ns-3 `CobaltQueueFull`: an arrival was refused for want of room.
    fn queue_full(&mut self, now: i64) {
        if self.blue_due(now) {
            self.vars.p_drop = (self.vars.p_drop + self.params.increment).min(1.0);
            self.blue_changed(now);
        }
        let v = &mut self.vars;
        v.dropping = true;
        v.drop_next = now;
        if v.count == 0 {
            v.count = 1;
        }
    }

    /// ns-3 `CobaltQueueEmpty`: a dequeue found nothing to send.
    fn queue_empty(&mut self, now: i64) {
        if self.vars.p_drop > 0.0 && self.blue_due(now) {
            self.vars.p_drop = (self.vars.p_drop - self.params.decrement).max(0.0);
            self.blue_changed(now);
        }
        self.vars.dropping = false;
        if self.vars.count > 0 && now - self.vars.drop_next >= 0 {
            self.vars.count -= 1;
            self.inv_sqrt();
            self.vars.drop_next = self.control_law(self.vars.drop_next);
        }
    }

    /// ns-3 `CobaltShouldDrop` for the packet `s` leaving at `now`: whether it is dropped (and
    /// by whose decision) and whether it is marked.
    fn should_drop(&mut self, s: &Stamped, now: i64) -> (Option<DropReason>, bool) {
        let p = self.params;
        let sojourn = now - ns(s.tag.at);
        let mut schedule = now - self.vars.drop_next;
        let over_target = sojourn > p.target.0 as i64;
        let mut next_due = self.vars.count > 0 && schedule >= 0;
        let mut marked = false;
        let mut codel_drop = false;

        // CoDel's state follows this packet's sojourn.
        if over_target {
            if !self.vars.dropping {
                self.vars.dropping = true;
                self.vars.drop_next = self.control_law(now);
            }
            if self.vars.count == 0 {
                self.vars.count = 1;
            }
        } else if self.vars.dropping {
            self.vars.dropping = false;
        }

        if next_due && self.vars.dropping {
            // A drop is due: mark if the router and the packet both do ECN, else drop.
            marked = p.ecn && s.tag.ecn_capable;
            codel_drop = !marked;
            self.vars.count = self.vars.count.saturating_add(1);
            self.inv_sqrt();
            self.vars.drop_next = self.control_law(self.vars.drop_next);
            schedule = now - self.vars.drop_next;
        } else {
            // Not dropping: each due time passed takes one off the count.
            while next_due {
                self.vars.count -= 1;
                self.inv_sqrt();
                self.vars.drop_next = self.control_law(self.vars.drop_next);
                schedule = now - self.vars.drop_next;
                next_due = self.vars.count > 0 && schedule >= 0;
            }
        }

        // The CE threshold marks what CoDel did not (ns-3 skips it once a packet is marked).
        if !marked && p.ecn && s.tag.ecn_capable && p.ce_threshold.is_some_and(|c| sojourn > c.0 as i64) {
            marked = true;
        }

        // BLUE's own signal: a very long sojourn.
        if sojourn > p.blue_threshold.0 as i64 && self.blue_due(now) {
            self.vars.p_drop = (self.vars.p_drop + p.increment).min(1.0);
            self.blue_changed(now);
        }

        // BLUE's drop, whatever CoDel decided (ns-3: drop |= u < Pdrop).
        let mut blue_drop = false;
        if self.vars.p_drop > 0.0 {
            blue_drop = self.rng.uniform() < self.vars.p_drop;
        }
        let drop = codel_drop || blue_drop;

        // The due time as an activity timeout.
        if self.vars.count == 0 {
            self.vars.drop_next = now + p.interval.0 as i64;
        } else if schedule > 0 && !drop {
            self.vars.drop_next = now;
        }

        let reason = if codel_drop {
            Some(DropReason::Sojourn)
        } else if blue_drop {
            Some(DropReason::Early)
        } else {
            None
        };
        (reason, marked)
    }
}

impl QueueDiscipline for Cobalt {
    fn enqueue(&mut self, now: Time, meta: &PacketMeta, pkt: PacketRef, rng: &mut Rng) -> Verdict {
        if !self.seeded {
            self.rng = Rng::from_seed(rng.next_u64());
            self.seeded = true;
        }
        let v = if self.would_overflow(meta.size) {
            self.queue_full(ns(now));
            Verdict::Drop(DropReason::Overflow)
        } else {
            self.q.push(pkt, meta.size, Stamp { at: now, ecn_capable: meta.ecn_capable });
            Verdict::Enqueue
        };
        self.stats.count_verdict(meta, v);
        v
    }

    fn dequeue(&mut self, now: Time) -> Option<Departure> {
        loop {
            let Some(s) = self.q.pop() else {
                self.vars.dropping = false;
                self.queue_empty(ns(now));
                return None;
            };
            match self.should_drop(&s, ns(now)) {
                // A packet both marked and then dropped by BLUE counts as a drop only.
                (Some(reason), _) => {
                    self.stats.count_dropped(reason);
                    self.dropped.push_back(Dropped { pkt: s.pkt, size: s.size, reason });
                }
                (None, mark) => {
                    if mark {
                        self.stats.marks += 1;
                    }
                    self.stats.count_departure(s.size);
                    return Some(Departure { pkt: s.pkt, size: s.size, mark });
                }
            }
        }
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

impl Discipline for Cobalt {
    type Params = CobaltParams;
    const KIND: &'static str = "cobalt";
    const LABEL: Option<&'static str> = Some("COBALT");
    const DECIDES: Decides = Decides::AtDequeue;
    const FIFO: bool = true;
    // BLUE draws when a packet leaves (from a stream seeded at the first arrival).
    const DRAWS: bool = true;
    // BLUE's probability falls at a dequeue that finds the queue empty (ns-3 CobaltQueueEmpty).
    const TRACKS_IDLE: bool = true;
    const KEEPS_AVERAGE: bool = false;

    fn keys() -> Vec<&'static str> {
        vec![
            "limit",
            "target",
            "interval",
            "ecn",
            "ce_threshold",
            "p_drop",
            "increment",
            "decrement",
            "blue_threshold",
            "blue_timer_wraps",
        ]
    }

    /// What is not given keeps ns-3.37's value ([`CobaltParams::default`]); `limit` is packets
    /// (a number) or bytes (a size, ns-3's default `"1500000B"`).
    fn read(k: &mut dyn Keys) -> Read<CobaltParams> {
        let mut p = CobaltParams::default();
        if k.is_str("limit") {
            if let Some(b) = k.size("limit", true)? {
                p.limit = Limit::Bytes(b);
            }
        } else if let Some(n) = k.int("limit", 1, u32::MAX as i64)? {
            p.limit = Limit::Packets(n as u32);
        }
        k.set_dur_pos("target", &mut p.target)?;
        k.set_dur_pos("interval", &mut p.interval)?;
        k.set_dur("blue_threshold", &mut p.blue_threshold)?;
        if let Some(c) = k.duration("ce_threshold", false)? {
            p.ce_threshold = Some(c);
        }
        k.set_f64("p_drop", &mut p.p_drop)?;
        k.set_f64("increment", &mut p.increment)?;
        k.set_f64("decrement", &mut p.decrement)?;
        k.set_bool("ecn", &mut p.ecn)?;
        k.set_bool("blue_timer_wraps", &mut p.blue_timer_wraps)?;
        k.check(p.validate())?;
        Ok(p)
    }
    fn build(p: &CobaltParams, _: OnLink) -> Result<Cobalt, ParamError> {
        Cobalt::new(*p)
    }
    fn limit(p: &CobaltParams) -> Limit {
        p.limit
    }
    fn marks_ecn(p: &CobaltParams) -> bool {
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

    fn cobalt(p: CobaltParams) -> Cobalt {
        Cobalt::new(p).unwrap()
    }

    fn fill(q: &mut Cobalt, at: Time, n: u32, first: u32, ecn: bool) {
        let mut rng = Rng::from_seed(0);
        for i in 0..n {
            assert_eq!(q.enqueue(at, &meta(ecn), PacketRef(first + i), &mut rng), Verdict::Enqueue);
        }
    }

    /// Dequeues one packet a ms over [from, to) ms; the times of CoDel's drops.
    fn serve(q: &mut Cobalt, from: u64, to: u64) -> Vec<u64> {
        let mut times = vec![];
        for ms in from..to {
            let before = q.stats().sojourn_drops;
            q.dequeue(Time(ms * MS));
            for _ in before..q.stats().sojourn_drops {
                times.push(ms);
            }
        }
        times
    }

    #[test]
    fn the_inverse_square_root_table_is_within_a_thousandth() {
        let cache = inv_sqrt_cache();
        // Entries 0 and 1 are (as near as 32 bits allow) 1.0, as Linux's cake.c says of its own.
        assert_eq!(cache[0], u32::MAX);
        assert!(cache[1] >= u32::MAX - 4, "{:#x}", cache[1]);
        for (k, &r) in cache.iter().enumerate().skip(1) {
            let exact = 1.0 / (k as f64).sqrt();
            let got = r as f64 / 4_294_967_296.0;
            assert!((got - exact).abs() < 1e-3 * exact, "count {k}: {got} against {exact}");
        }
        // Above the table, one Newton step per count up from 15 keeps within 1%.
        let mut rec = cache[15];
        for count in 16..2000u32 {
            rec = newton_step(rec, count);
            let err = rec as f64 / 4_294_967_296.0 * (count as f64).sqrt() - 1.0;
            assert!(err.abs() < 0.01, "count {count}: {err}");
        }
    }

    /// Due times of a dropping state entered at `start_ms` with count 1 (1.0 is 2^32 - 1 in the
    /// fixed point, so the first is a nanosecond short of an interval), each next one interval /
    /// sqrt(count) after the last, as whole-ms dequeues see them, before `end_ms`.
    fn due_times(first_due_ns: f64, end_ms: u64) -> Vec<u64> {
        let mut expect = vec![];
        let mut due = first_due_ns;
        for count in 1.. {
            if due >= (end_ms * MS) as f64 {
                break;
            }
            expect.push((due / MS as f64).ceil() as u64);
            due += 100.0 * MS as f64 / ((count + 1) as f64).sqrt();
        }
        expect
    }

    #[test]
    fn a_standing_queue_is_dropped_at_the_control_laws_times() {
        // A packet that waits 1 ms arms the activity timeout (count 0: the due time an interval
        // after that dequeue). Then 1000 packets at 1 ms, one served a ms from 11 ms: every
        // sojourn is above 5 ms (and under BLUE's 400 ms). The first enters the dropping state
        // with a drop due an interval later; each next one comes interval / sqrt(count) after the
        // last due time, the table giving 1/sqrt(2) at once (CoDel's single Newton step from 1
        // gives 0.5).
        let mut q = cobalt(CobaltParams::default());
        fill(&mut q, Time(0), 1, 0, false);
        assert!(q.dequeue(Time(MS)).is_some());
        fill(&mut q, Time(MS), 1000, 1, false);
        let times = serve(&mut q, 11, 400);
        let expect = due_times((111 * MS) as f64 - 1.0, 400);
        assert_eq!(times, expect);
        assert_eq!(&times[..3], &[111, 182, 240]);
        assert!(q.dropping());
        assert_eq!(q.count() as usize, times.len() + 1);
        assert_eq!(q.p_drop(), 0.0, "BLUE stays at zero without an overflow or a 400 ms sojourn");
        assert_eq!(q.stats().early_drops, 0);
        assert_eq!(std::iter::from_fn(|| q.take_dropped()).count(), times.len());
    }

    #[test]
    fn after_an_interval_without_a_dequeue_the_first_drop_is_due_at_once() {
        // The due time doubles as an activity timeout: at the start (due time 0), or when more
        // than an interval has passed since the last dequeue, the first packet above the target
        // finds it passed, and sets it to now: the next packet above the target is dropped.
        let mut q = cobalt(CobaltParams::default());
        fill(&mut q, Time(0), 1000, 0, false);
        let times = serve(&mut q, 10, 400);
        // Due at 10 ms, taken by the dequeue at 11; the law runs from the due time.
        let mut expect = due_times((10 * MS) as f64, 400);
        expect[0] = 11;
        assert_eq!(times, expect);
        assert_eq!(&times[..3], &[11, 81, 139]);
    }

    #[test]
    fn below_the_target_the_count_decays_one_due_time_at_a_time() {
        // A dropping state from 10 ms to 300 ms (entered from a cold start: the first drop due
        // at once), drops at 11, 81, 139, 189, 234 and 274 ms: count 7.
        let mut q = cobalt(CobaltParams::default());
        fill(&mut q, Time(0), 300, 0, false);
        assert_eq!(serve(&mut q, 10, 300), [11, 81, 139, 189, 234, 274]);
        let count = q.count();
        assert_eq!(count, 7);
        while q.len() > 0 {
            q.dequeue(Time(300 * MS));
        }
        // Fresh packets that leave 1 ms after they came: the dropping state ends at once, and a
        // dequeue past a due time takes one off the count, the next due time interval /
        // sqrt(count) on (CoDel would keep the count until its next dropping state).
        let mut last = count;
        let mut decays = vec![];
        for ms in 301..1500u64 {
            fill(&mut q, Time(ms * MS - MS), 1, 10_000 + ms as u32, false);
            assert!(q.dequeue(Time(ms * MS)).is_some());
            assert!(!q.dropping());
            assert!(q.count() == last || q.count() + 1 == last, "one at a time");
            if q.count() < last {
                decays.push(ms);
            }
            last = q.count();
        }
        // The last drop was due at 273.99 ms: the next due time is 100/sqrt(7) ms later (311.79),
        // then + 100/sqrt(6), + 100/sqrt(5), ..., + 100/sqrt(1): seven steps down to 0.
        let mut expect = vec![];
        let mut due = 273.99 + 100.0 / 7f64.sqrt();
        for k in (0..7).rev() {
            expect.push(due.ceil() as u64);
            if k > 0 {
                due += 100.0 / (k as f64).sqrt();
            }
        }
        assert_eq!(decays, expect);
        assert_eq!(q.count(), 0);
        assert_eq!(q.stats().sojourn_drops, count as u64 - 1, "the state's drops, none after");
    }

    #[test]
    fn an_overflow_raises_blue_at_most_once_a_target_and_makes_a_drop_due() {
        let p = CobaltParams { limit: Limit::Packets(3), blue_timer_wraps: false, ..CobaltParams::default() };
        let mut q = cobalt(p);
        let mut rng = Rng::from_seed(0);
        fill(&mut q, Time(10 * MS), 3, 0, false);
        assert_eq!(q.enqueue(Time(10 * MS), &meta(false), PacketRef(3), &mut rng), Verdict::Drop(DropReason::Overflow));
        assert_eq!(q.p_drop(), 1.0 / 256.0);
        assert!(q.dropping());
        assert_eq!(q.count(), 1);
        // Within the target of the last change: no change.
        q.enqueue(Time(15 * MS), &meta(false), PacketRef(4), &mut rng);
        assert_eq!(q.p_drop(), 1.0 / 256.0);
        q.enqueue(Time(15 * MS + 1), &meta(false), PacketRef(5), &mut rng);
        assert_eq!(q.p_drop(), 2.0 / 256.0);
        assert_eq!(q.stats().overflow_drops, 3);
        // The next packet above the target is dropped at once (the drop was due at the overflow).
        let before = q.stats().sojourn_drops;
        q.dequeue(Time(30 * MS));
        assert_eq!(q.stats().sojourn_drops, before + 1);
    }

    #[test]
    fn an_empty_dequeue_lowers_blue_at_most_once_a_target() {
        let p = CobaltParams { p_drop: 0.5, blue_timer_wraps: false, ..CobaltParams::default() };
        let mut q = cobalt(p);
        assert!(q.dequeue(Time(10 * MS)).is_none());
        assert_eq!(q.p_drop(), 0.5 - 1.0 / 4096.0);
        assert!(q.dequeue(Time(12 * MS)).is_none());
        assert_eq!(q.p_drop(), 0.5 - 1.0 / 4096.0);
        assert!(q.dequeue(Time(16 * MS)).is_none());
        assert_eq!(q.p_drop(), 0.5 - 2.0 / 4096.0);
        // It stops at zero.
        let mut q = cobalt(CobaltParams { p_drop: 1.0 / 8192.0, ..CobaltParams::default() });
        q.dequeue(Time(10 * MS));
        assert_eq!(q.p_drop(), 0.0);
    }

    #[test]
    fn a_sojourn_above_the_blue_threshold_raises_blue() {
        let mut q = cobalt(CobaltParams::default());
        fill(&mut q, Time(0), 5, 0, false);
        q.dequeue(Time(400 * MS));
        assert_eq!(q.p_drop(), 0.0, "400 ms is not above the threshold");
        q.dequeue(Time(400 * MS + 1));
        assert_eq!(q.p_drop(), 1.0 / 256.0);
    }

    #[test]
    fn blue_drops_at_its_probability_whatever_the_delay() {
        // A probability of 0.3 from the start; packets that wait 1 ms (CoDel never drops them).
        let p = CobaltParams { p_drop: 0.3, decrement: 0.0, ecn: true, ..CobaltParams::default() };
        let mut q = cobalt(p);
        let mut rng = Rng::from_seed(7);
        let n = 20_000u32;
        for i in 0..n {
            q.enqueue(Time(i as u64 * MS), &meta(true), PacketRef(i), &mut rng);
            q.dequeue(Time(i as u64 * MS + MS));
        }
        let s = *q.stats();
        assert_eq!(s.sojourn_drops, 0);
        let share = s.early_drops as f64 / n as f64;
        assert!((share - 0.3).abs() < 0.02, "{share}");
        // BLUE drops ECN-capable packets too: it never marks.
        assert_eq!(s.marks, 0);
        // The same seed, the same drops.
        let mut again = cobalt(p);
        let mut rng = Rng::from_seed(7);
        for i in 0..n {
            again.enqueue(Time(i as u64 * MS), &meta(true), PacketRef(i), &mut rng);
            again.dequeue(Time(i as u64 * MS + MS));
        }
        assert_eq!(again.stats(), &s);
    }

    #[test]
    fn ns3s_32_bit_blue_timer_stops_limiting_changes_after_4_29_s() {
        let run = |wraps: bool, at: u64| {
            let p = CobaltParams { limit: Limit::Packets(1), blue_timer_wraps: wraps, ..CobaltParams::default() };
            let mut q = cobalt(p);
            let mut rng = Rng::from_seed(0);
            q.enqueue(Time(at), &meta(false), PacketRef(0), &mut rng);
            // Ten overflows 1 ms apart.
            for k in 1..=10u64 {
                q.enqueue(Time(at + k * MS), &meta(false), PacketRef(k as u32), &mut rng);
            }
            (q.p_drop() * 256.0).round() as u32
        };
        // At 1 s both keep the limit: changes at 1.001 s and 1.007 s.
        assert_eq!(run(true, 1_000 * MS), 2);
        assert_eq!(run(false, 1_000 * MS), 2);
        // At 5 s the wrapped timer sees each overflow as 4.29 s after the last change.
        assert_eq!(run(true, 5_000 * MS), 10);
        assert_eq!(run(false, 5_000 * MS), 2);
    }

    #[test]
    fn with_ecn_capable_packets_codels_drops_become_marks() {
        let mut q = cobalt(CobaltParams { ecn: true, ..CobaltParams::default() });
        fill(&mut q, Time(0), 1000, 0, true);
        let mut marks = 0;
        for ms in 10..400u64 {
            if q.dequeue(Time(ms * MS)).unwrap().mark {
                marks += 1;
            }
        }
        assert!(marks >= 6, "{marks}");
        assert_eq!(q.stats().marks, marks);
        assert_eq!(q.stats().drops(), 0);
        // Packets that are not ECN-capable are still dropped.
        let mut q = cobalt(CobaltParams { ecn: true, ..CobaltParams::default() });
        fill(&mut q, Time(0), 1000, 0, false);
        assert!(!serve(&mut q, 10, 400).is_empty());
        assert_eq!(q.stats().marks, 0);
    }

    #[test]
    fn the_ce_threshold_marks_ecn_capable_packets_above_it() {
        let p = CobaltParams { ecn: true, ce_threshold: Some(Dur::from_millis(2)), ..CobaltParams::default() };
        let mut q = cobalt(p);
        fill(&mut q, Time(0), 2, 0, true);
        fill(&mut q, Time(0), 1, 2, false);
        assert!(!q.dequeue(Time(2 * MS)).unwrap().mark, "2 ms is not above the threshold");
        assert!(q.dequeue(Time(3 * MS)).unwrap().mark);
        assert!(!q.dequeue(Time(3 * MS)).unwrap().mark, "not ECN-capable");
        // Without ECN the threshold does nothing.
        let mut q = cobalt(CobaltParams { ce_threshold: Some(Dur::from_millis(2)), ..CobaltParams::default() });
        fill(&mut q, Time(0), 1, 0, true);
        assert!(!q.dequeue(Time(3 * MS)).unwrap().mark);
    }

    #[test]
    fn limits_in_bytes_and_packets_count_the_arrival() {
        let mut rng = Rng::from_seed(0);
        let mut q = cobalt(CobaltParams { limit: Limit::Bytes(Bytes(2500)), ..CobaltParams::default() });
        assert_eq!(q.enqueue(Time(0), &meta(false), PacketRef(0), &mut rng), Verdict::Enqueue);
        assert_eq!(q.enqueue(Time(0), &meta(false), PacketRef(1), &mut rng), Verdict::Enqueue);
        assert!(q.would_overflow(Bytes(501)));
        assert!(!q.would_overflow(Bytes(500)));
        let mut q = cobalt(CobaltParams { limit: Limit::Packets(2), ..CobaltParams::default() });
        fill(&mut q, Time(0), 2, 0, false);
        assert_eq!(q.enqueue(Time(0), &meta(false), PacketRef(2), &mut rng), Verdict::Drop(DropReason::Overflow));
    }

    #[test]
    fn bad_parameters_name_their_field() {
        let bad = |p: CobaltParams| Cobalt::new(p).unwrap_err().field;
        let d = CobaltParams::default();
        assert_eq!(bad(CobaltParams { target: Dur::ZERO, ..d }), "target");
        assert_eq!(bad(CobaltParams { interval: Dur::from_millis(1), ..d }), "interval");
        assert_eq!(bad(CobaltParams { interval: Dur::from_secs(5), ..d }), "interval");
        assert_eq!(bad(CobaltParams { limit: Limit::Packets(0), ..d }), "limit");
        assert_eq!(bad(CobaltParams { p_drop: 1.5, ..d }), "p_drop");
        assert_eq!(bad(CobaltParams { increment: -0.1, ..d }), "increment");
        assert_eq!(bad(CobaltParams { decrement: f64::NAN, ..d }), "decrement");
    }
}
