//! The clock and counters fairway's wire formats share (UDPm's and IFTP's): times as
//! microseconds modulo 2^32 and sequence numbers modulo 2^32, both extended back to 64 bits by
//! the receiver.

use crate::Time;

/// The 64-bit sequence number nearest to `last` whose low 32 bits are `wire` (serial-number
/// arithmetic, RFC 1982): recovers a counter that wrapped on the wire.
pub fn extend_seq(last: u64, wire: u32) -> u64 {
    let base = last & !0xFFFF_FFFF;
    let cand = base | wire as u64;
    let fwd = wire.wrapping_sub(last as u32) as i32;
    // fwd is the signed distance from last to wire modulo 2^32.
    if fwd >= 0 {
        if cand >= last {
            cand
        } else {
            // Saturating: a counter at the top of u64 stays there rather than wrapping to 0.
            cand.saturating_add(1 << 32)
        }
    } else if cand <= last {
        cand
    } else {
        cand.saturating_sub(1 << 32)
    }
}

/// Microseconds on a 32-bit wrapping clock from nanoseconds.
pub fn wire_time_us(ns: u64) -> u32 {
    (ns / 1_000) as u32
}

/// `later - earlier` on the 32-bit microsecond clock.
pub fn wire_elapsed_us(later: u32, earlier: u32) -> u32 {
    later.wrapping_sub(earlier)
}

/// `t` as the microsecond clock carries it (whole microseconds). A sender stamps its packets
/// with this, so that a typed packet says what its bytes say.
pub fn whole_micros(t: Time) -> Time {
    Time(t.0 - t.0 % 1_000)
}

/// The time `time_us` stood for on the 32-bit microsecond clock, taken as at most 2^31 us before
/// `now` (times ahead of `now` read as `now`). Counted back from `now` as the clock reads it, so
/// that a time sent in whole microseconds comes back exactly.
pub fn recover_time(now: Time, time_us: u32) -> Time {
    let back = wire_elapsed_us(wire_time_us(now.0), time_us);
    if back >= 1 << 31 {
        return now;
    }
    Time(whole_micros(now).0.saturating_sub(u64::from(back) * 1_000))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequence_extension_saturates_at_the_top() {
        assert_eq!(extend_seq(u64::MAX, 5), u64::MAX);
        assert_eq!(extend_seq(u64::MAX - 3, u32::MAX), u64::MAX);
    }

    #[test]
    fn sequence_extension_survives_wrap() {
        assert_eq!(extend_seq(0, 5), 5);
        assert_eq!(extend_seq(10, 5), 5, "a late packet stays behind");
        assert_eq!(extend_seq(0xFFFF_FFF0, 0x10), 0x1_0000_0010, "forward across the wrap");
        assert_eq!(extend_seq(0x1_0000_0010, 0xFFFF_FFF0), 0xFFFF_FFF0, "backward across the wrap");
        assert_eq!(extend_seq(5, 0xFFFF_FFFF), 0, "never below zero");
        assert_eq!(wire_elapsed_us(5, 0xFFFF_FFFB), 10);
        assert_eq!(wire_time_us(4_294_967_296_000), 0);
    }
}
