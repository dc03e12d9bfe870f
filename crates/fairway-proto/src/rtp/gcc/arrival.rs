//! Inter-group deltas (draft-ietf-rmcat-gcc-02 §5.1, §5.2; WebRTC's `InterArrivalDelta`):
//! packets sent within [`GROUP_LENGTH`] of the first packet of a group form one group; when a
//! packet opens the next group, the previous two complete groups give one sample: the difference
//! of their last send times and of their last arrival times. The one-way delay variation of the
//! draft, d(i) = t(i) - t(i-1) - (T(i) - T(i-1)), is the arrival delta less the send delta.
//!
//! Send times are on the sender's clock and arrival times on the receiver's: only differences
//! within each clock are taken.

use fairway_core::{Dur, Time};

#[cfg(test)]
#[path = "arrival_tests.rs"]
mod tests;

/// A group spans the packets sent within this long of its first (draft §5.1's burst_time,
/// 5 ms; WebRTC's send-time group length, 5 ms).
pub const GROUP_LENGTH: Dur = Dur::from_millis(5);
/// A packet arriving at most this long after the group's last, sooner than its send spacing
/// would have it, joins that group as part of a burst (draft §5.2: "less than burst_time";
/// WebRTC: 5 ms).
const BURST_ARRIVAL: Dur = Dur::from_millis(5);
/// A burst that has gone on this long takes no more packets (WebRTC: 100 ms; the draft has no
/// such bound).
const MAX_BURST: Dur = Dur::from_millis(100);
/// This many groups in a row arriving before the group ahead of them reset the grouping (WebRTC:
/// 3; the draft does not say).
const REORDER_RESET: u32 = 3;
/// The receiver's arrival deltas outrunning the sender's own clock (the feedback times) by this
/// much means the receiver's clock jumped: reset (WebRTC: 3 s).
const CLOCK_JUMP_NS: i64 = 3_000_000_000;

/// Signed nanoseconds from `b` to `a`.
pub(crate) fn diff_ns(a: Time, b: Time) -> i64 {
    (a.0 as i128 - b.0 as i128) as i64
}

/// One sample: the spacing of two consecutive groups at the sender and at the receiver.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GroupDelta {
    /// Last send time of the newer group less that of the older, ms.
    pub send_ms: f64,
    /// Last arrival time of the newer group less that of the older, ms.
    pub arrival_ms: f64,
    /// Bytes of the newer group less those of the older.
    pub size_delta: i64,
}

impl GroupDelta {
    /// d(i) of the draft (§5.1), ms.
    pub fn delay_variation_ms(&self) -> f64 {
        self.arrival_ms - self.send_ms
    }
}

#[derive(Debug, Clone, Copy)]
struct Group {
    first_send: Time,
    last_send: Time,
    first_arrival: Time,
    last_arrival: Time,
    /// When the feedback that carried its last packet reached the sender.
    last_report: Time,
    bytes: u64,
}

impl Group {
    fn open(sent: Time, arrived: Time) -> Group {
        Group {
            first_send: sent,
            last_send: sent,
            first_arrival: arrived,
            last_arrival: arrived,
            last_report: Time::ZERO,
            bytes: 0,
        }
    }
}

/// Groups received packets (fed in arrival order) and yields a [`GroupDelta`] each time a group
/// closes and one before it is known.
#[derive(Debug, Clone, Default)]
pub struct InterArrival {
    current: Option<Group>,
    previous: Option<Group>,
    reordered: u32,
}

impl InterArrival {
    pub fn new() -> InterArrival {
        InterArrival::default()
    }

    /// A packet of `size` bytes sent at `sent`, arrived at `arrived`, reported to the sender at
    /// `reported`.
    pub fn on_packet(&mut self, sent: Time, arrived: Time, reported: Time, size: u64) -> Option<GroupDelta> {
        let mut out = None;
        match self.current {
            None => self.current = Some(Group::open(sent, arrived)),
            Some(cur) => {
                if sent < cur.first_send {
                    // Sent before the group being filled: it belongs to a group already
                    // closed, and is left out (WebRTC does the same).
                    return None;
                }
                if self.opens_new_group(&cur, sent, arrived) {
                    if let Some(prev) = self.previous {
                        let send_ns = diff_ns(cur.last_send, prev.last_send);
                        let arrival_ns = diff_ns(cur.last_arrival, prev.last_arrival);
                        let report_ns = diff_ns(cur.last_report, prev.last_report);
                        if arrival_ns - report_ns >= CLOCK_JUMP_NS {
                            self.reset();
                            return None;
                        }
                        if arrival_ns < 0 {
                            // The newer group arrived first: no sample, and the packet is not
                            // counted (WebRTC); a run of these means the path reorders whole
                            // groups, so start over.
                            self.reordered += 1;
                            if self.reordered >= REORDER_RESET {
                                self.reset();
                            }
                            return None;
                        }
                        self.reordered = 0;
                        out = Some(GroupDelta {
                            send_ms: send_ns as f64 / 1e6,
                            arrival_ms: arrival_ns as f64 / 1e6,
                            size_delta: cur.bytes as i64 - prev.bytes as i64,
                        });
                    }
                    self.previous = Some(cur);
                    self.current = Some(Group::open(sent, arrived));
                } else if let Some(c) = self.current.as_mut() {
                    c.last_send = c.last_send.max(sent);
                }
            }
        }
        let c = self.current.as_mut().expect("a group is open");
        c.bytes += size;
        c.last_arrival = arrived;
        c.last_report = reported;
        out
    }

    /// Whether a packet sent at `sent` and arrived at `arrived` starts a new group.
    fn opens_new_group(&self, cur: &Group, sent: Time, arrived: Time) -> bool {
        if Self::in_burst(cur, sent, arrived) {
            return false;
        }
        // Draft §5.1: a packet sent more than burst_time after the group's first opens the next.
        diff_ns(sent, cur.first_send) > GROUP_LENGTH.0 as i64
    }

    /// Draft §5.2's burst rule: a packet that arrives within burst_time of the group's last and
    /// with a negative delay variation against it was queued behind it, so joins it. WebRTC also
    /// counts a packet with the same send time as the group's last, and caps a burst at
    /// [`MAX_BURST`].
    fn in_burst(cur: &Group, sent: Time, arrived: Time) -> bool {
        let arrival_delta = diff_ns(arrived, cur.last_arrival);
        let send_delta = diff_ns(sent, cur.last_send);
        if send_delta == 0 {
            return true;
        }
        let propagation_delta = arrival_delta - send_delta;
        propagation_delta < 0
            && arrival_delta <= BURST_ARRIVAL.0 as i64
            && diff_ns(arrived, cur.first_arrival) < MAX_BURST.0 as i64
    }

    /// Forgets all groups.
    pub fn reset(&mut self) {
        *self = InterArrival::default();
    }
}
