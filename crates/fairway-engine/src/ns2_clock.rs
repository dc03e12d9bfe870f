//! ns-2's clock, for `clock = "ns2"`: which of two simultaneous events comes first.
//!
//! fairway's times are integer nanoseconds, and events at the same nanosecond run in the order
//! they were scheduled. ns-2's are double-precision seconds (Scheduler::schedule: the event's
//! time is `clock_ + delay`, both doubles), and its calendar queue runs events of the same
//! double in the order they were scheduled (ns-2.35 scheduler.cc, CalendarScheduler::insert
//! walks back from a bucket's tail past later times only). Two events that fall at the same
//! instant in exact arithmetic, as they do on a dumbbell of equal links, often get doubles a
//! few units in the last place apart in ns-2, depending on the sums that led to them, and then
//! the smaller double runs first whatever the order they were scheduled in.
//!
//! With this clock each event also carries the double ns-2 would give it, computed as ns-2
//! computes it where that is known (a link's arrival at `clock_ + (txtime + delay_)`, its next
//! transmission at `clock_ + txtime`, `txtime` = 8 x size / bandwidth: ns-2.35 delay.cc,
//! LinkDelay::recv and txtime) and as `clock_ + delay` from the nanoseconds elsewhere. Events of
//! one nanosecond are then ordered by that double, and events of one double by scheduling order.
//!
//! The double rides in the event key's low word beside the insertion counter: as its distance
//! in units in the last place from the double nearest the event's nanosecond (for positive
//! doubles the bit patterns order as the values do), clamped to [`OFFSET_MAX`] either way. Near
//! time zero, where a unit in the last place is tiny, a double more than about a tenth of a
//! nanosecond from the nanosecond (a non-integer transmission time, rounded by fairway) is
//! clamped and loses its order among the events of its nanosecond; elsewhere nothing is lost.

use fairway_core::Time;

/// Bits of the insertion counter in the key's low word (2^34: 1.7e10 events a run).
pub const SEQ_BITS: u32 = 34;
/// The offset's bound, in units in the last place: 2^29 (30 bits with the sign).
pub const OFFSET_MAX: i64 = (1 << 29) - 1;
const BIAS: i64 = 1 << 29;

/// The double nearest to `t` in seconds.
fn nearest(t: Time) -> f64 {
    t.0 as f64 / 1e9
}

/// The key's low word for an event at `t` whose ns-2 time is `d` seconds, scheduled `seq`-th.
pub fn tie(t: Time, d: f64, seq: u64) -> u64 {
    debug_assert!(seq < 1 << SEQ_BITS, "more events than ns-2's clock can order");
    let off = (d.max(0.0).to_bits() as i64 - nearest(t).to_bits() as i64).clamp(-OFFSET_MAX, OFFSET_MAX);
    ((off + BIAS) as u64) << SEQ_BITS | (seq & ((1 << SEQ_BITS) - 1))
}

/// The ns-2 time of an event at `t` whose key's low word is `low` ([`tie`]).
pub fn double(t: Time, low: u64) -> f64 {
    let off = (low >> SEQ_BITS) as i64 - BIAS;
    f64::from_bits((nearest(t).to_bits() as i64 + off) as u64)
}

/// The nanosecond nearest to ns-2's time `d` seconds.
pub fn nanos(d: f64) -> Time {
    Time((d.max(0.0) * 1e9).round() as u64)
}

/// A span of nanoseconds as ns-2 would have written it in seconds.
pub fn secs(ns: u64) -> f64 {
    ns as f64 / 1e9
}

/// ns-2's LinkDelay::txtime: 8 x size / bandwidth, in that order of operations.
pub fn txtime(size_bytes: u64, rate_bps: u64) -> f64 {
    8.0 * size_bytes as f64 / rate_bps as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_low_word_orders_as_the_doubles_and_gives_them_back() {
        let t = Time(10_075_936_000);
        let d0 = nearest(t);
        let below = f64::from_bits(d0.to_bits() - 3);
        let above = f64::from_bits(d0.to_bits() + 1);
        let (a, b, c) = (tie(t, below, 9), tie(t, d0, 1), tie(t, above, 2));
        assert!(a < b && b < c, "order by double first, whatever the insertion order");
        assert_eq!(double(t, a), below);
        assert_eq!(double(t, c), above);
        // Equal doubles: by insertion order.
        assert!(tie(t, d0, 3) > tie(t, d0, 2));
    }

    #[test]
    fn sums_that_ns2_makes_differ_in_the_last_place() {
        // The same instant reached two ways, as on a dumbbell: ns-2's doubles differ.
        let a = 3.0 + (txtime(540, 10_000_000) + 0.002);
        let b = (3.0 + txtime(540, 10_000_000)) + 0.002;
        assert_ne!(a, b);
        let t = Time(3_002_432_000);
        assert_eq!(tie(t, a, 1) < tie(t, b, 2), a < b);
        assert_eq!(tie(t, a, 2) < tie(t, b, 1), a < b);
    }

    #[test]
    fn far_doubles_are_clamped() {
        let t = Time(1000);
        assert_eq!(tie(t, 1.0, 0) >> SEQ_BITS, (OFFSET_MAX + BIAS) as u64);
        assert_eq!(tie(t, 0.0, 0) >> SEQ_BITS, (BIAS - OFFSET_MAX) as u64);
    }
}
