//! Lazy receivers: the frames a station hears while it only listens and need not decode (unicast
//! frames for others, frames too weak to decode), kept as a list instead of run as events, and
//! replayed in their events' order when the station next has an event of its own.
//!
//! Every frame reaches every station in carrier-sense range as two events, its first bit
//! (`rx_start`) and the end of its reception (the Rx timer, `rx_end`). At a station with no
//! backoff counting or paused ([`Mac::hears_passively`]), such a frame changes nothing but the
//! MAC's receiver state, its Rx timer and its NAV: no counter (the MAC counts only decodable
//! frames from or for the station, and broadcasts), no random draw, no output but the Rx timer
//! itself. Nothing outside the station reads that state, so its events can wait until something
//! does: the station's own next event (a timer, a frame it must decode, a packet from its link
//! layer), which first replays the kept frames whose events come before it, in the order the
//! event queue would have run them. That order is exact because both events of a frame take
//! their insertion numbers when the frame is sent
//! ([`EventLoop::reserve_rx`](super::event_loop::EventLoop::reserve_rx)), kept or not: a kept
//! event's key is the key it would have had in the queue. When a station stops hearing
//! passively (it starts a backoff), what it still keeps goes into the queue with those keys.

use std::collections::VecDeque;

use fairway_core::Time;

pub(crate) use crate::events::key;

use super::mac::{Frame, Mac, MacOut, TimerKind};

fn time_of(key: u128) -> Time {
    Time((key >> 64) as u64)
}

/// A kept frame: the key of its first bit's event here, the insertion number of its
/// reception's end, and what the first bit brings (the channel's transmission slot may be
/// reused before the replay).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Heard {
    pub key: u128,
    pub end_seq: u64,
    pub frame: Frame,
    pub power: f64,
}

/// The end of a kept frame's reception whose first bit has been replayed: the Rx timer's event,
/// under the generation the MAC gave it (a later, longer frame may have made it stale, as in the
/// queue).
#[derive(Debug, Clone, Copy)]
struct End {
    key: u128,
    gen: u32,
}

/// What a station keeps, each list in key order.
#[derive(Debug, Default)]
pub(crate) struct Overheard {
    /// From `head` on: the first bits not yet replayed (a vector read from the front, emptied
    /// when read through or cut when half read: cheaper than a ring for its one-way traffic).
    first_bits: Vec<Heard>,
    head: usize,
    ends: VecDeque<End>,
}

/// A kept event handed back to the queue: a first bit (the transmission's slot, the power it
/// arrives with and its end's insertion number, for the channel's tables) or an end.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Pending {
    FirstBit { at: Time, seq: u64, tx: u32, power: f64, end_seq: u64 },
    End { at: Time, seq: u64, gen: u32 },
}

/// Inserts `x` into `list`, kept in key order: frames come in nearly in order (only frames
/// sent within a propagation delay of each other can arrive out of it), so from the back.
fn insert_sorted<T>(list: &mut VecDeque<T>, x: T, key: impl Fn(&T) -> u128) {
    let k = key(&x);
    let mut i = list.len();
    while i > 0 && key(&list[i - 1]) > k {
        i -= 1;
    }
    list.insert(i, x);
}

impl Overheard {
    pub(crate) fn is_empty(&self) -> bool {
        self.head == self.first_bits.len() && self.ends.is_empty()
    }

    pub(crate) fn len(&self) -> usize {
        self.first_bits.len() - self.head + self.ends.len()
    }

    pub(crate) fn keep(&mut self, h: Heard) {
        // Mostly in order: at the end.
        if self.first_bits.last().is_none_or(|l| l.key <= h.key) {
            self.first_bits.push(h);
            return;
        }
        let mut i = self.first_bits.len();
        while i > self.head && self.first_bits[i - 1].key > h.key {
            i -= 1;
        }
        self.first_bits.insert(i, h);
    }

    fn next_first_bit(&self) -> Option<&Heard> {
        self.first_bits.get(self.head)
    }

    fn take_first_bit(&mut self) -> Heard {
        let h = self.first_bits[self.head];
        self.head += 1;
        h
    }

    /// After a replay: what was read is let go when all of it was, or once it is half the
    /// vector (a station that always has a frame on its way is never read through).
    fn let_go_of_read(&mut self) {
        if self.head == self.first_bits.len() {
            self.first_bits.clear();
            self.head = 0;
        } else if self.head >= 32 && self.head * 2 >= self.first_bits.len() {
            self.first_bits.drain(..self.head);
            self.head = 0;
        }
    }

    /// Runs on `mac` the kept events whose keys are below `bound`, in key order, as the queue
    /// would have; returns how many it ran (the run's count of events includes them). `out` is
    /// scratch space.
    pub(crate) fn replay(&mut self, mac: &mut Mac, rx_threshold: f64, bound: u128, out: &mut Vec<MacOut>) -> u64 {
        let mut ran = 0;
        loop {
            let first = self.next_first_bit().map_or(u128::MAX, |h| h.key);
            let end = self.ends.front().map_or(u128::MAX, |e| e.key);
            if first.min(end) >= bound {
                self.let_go_of_read();
                return ran;
            }
            if first < end {
                let h = self.take_first_bit();
                let now = time_of(h.key);
                // Mostly a frame is heard whole before anything else: both its events at once.
                let end_key = key(now + h.frame.txtime, h.end_seq);
                let next = self.next_first_bit().map_or(u128::MAX, |h| h.key);
                if end_key < bound && end_key < next && end_key < end && mac.receiver_idle() {
                    mac.hear_whole(now, h.frame, h.power >= rx_threshold);
                    ran += 2;
                    continue;
                }
                ran += 1;
                mac.rx_start(now, h.frame, h.power, h.power >= rx_threshold, out);
                for o in out.drain(..) {
                    match o {
                        MacOut::Arm { timer: TimerKind::Rx, at, gen } => {
                            insert_sorted(&mut self.ends, End { key: key(at, h.end_seq), gen }, |e| e.key)
                        }
                        o => unreachable!("a station hearing passively asked for {o:?}"),
                    }
                }
            } else {
                ran += 1;
                let e = self.ends.pop_front().expect("an end");
                mac.on_timer(time_of(e.key), TimerKind::Rx, e.gen, out);
                assert!(out.is_empty(), "a station hearing passively asked for {out:?}");
            }
        }
    }

    /// Empties the lists into events for the queue, in key order within each.
    pub(crate) fn drain(&mut self) -> impl Iterator<Item = Pending> + '_ {
        let head = std::mem::take(&mut self.head);
        let firsts = self.first_bits.drain(..).skip(head).map(|h| Pending::FirstBit {
            at: time_of(h.key),
            seq: h.key as u64,
            tx: h.frame.tx,
            power: h.power,
            end_seq: h.end_seq,
        });
        let ends = self.ends.drain(..).map(|e| Pending::End { at: time_of(e.key), seq: e.key as u64, gen: e.gen });
        firsts.chain(ends)
    }
}

#[cfg(test)]
mod tests {
    use fairway_core::{Dur, Rng};

    use super::*;
    use crate::wireless::mac::{FrameKind, MacParams};

    fn frame(ta: u32, ra: u32, txtime_us: u64, tx: u32) -> Frame {
        Frame {
            kind: FrameKind::Data,
            ta,
            ra,
            duration: Dur::from_micros(300),
            size: 1000,
            txtime: Dur::from_micros(txtime_us),
            seqno: 1,
            payload: 9,
            tx,
        }
    }

    fn us(n: u64) -> Time {
        Time(n * 1000)
    }

    /// Two overlapping frames kept out of order: the replay runs them in key order, stops at
    /// the bound, and what is left comes back for the queue with the keys reserved for it (the
    /// longer frame's end; the shorter one, lost in the collision, never started a timer).
    #[test]
    fn a_replay_runs_in_key_order_up_to_its_bound_and_hands_back_the_rest() {
        let mut mac = Mac::new(0, 3, MacParams::default(), 10.0, Rng::stream(1, "overheard"));
        assert!(mac.hears_passively());
        let mut h = Overheard::default();
        let long = Heard { key: key(us(10), 5), end_seq: 6, frame: frame(1, 2, 100, 0), power: 1e-9 };
        let short = Heard { key: key(us(50), 7), end_seq: 8, frame: frame(2, 1, 20, 1), power: 1e-9 };
        h.keep(short);
        h.keep(long);
        assert_eq!(h.len(), 2);
        let mut out = vec![];
        // Nothing before the first key.
        assert_eq!(h.replay(&mut mac, 1e-10, key(us(10), 5), &mut out), 0);
        // Both first bits, not the end at 110 us.
        assert_eq!(h.replay(&mut mac, 1e-10, key(us(60), 0), &mut out), 2);
        let left: Vec<Pending> = h.drain().collect();
        assert_eq!(left.len(), 1);
        let Pending::End { at, seq, .. } = left[0] else { panic!("an end: {left:?}") };
        assert_eq!((at, seq), (us(110), 6));
        assert!(h.is_empty() && mac.hears_passively());
    }

    /// A station that always has a frame on its way is never read through: what it has replayed
    /// is still let go.
    #[test]
    fn a_list_never_read_through_stays_short() {
        let mut mac = Mac::new(0, 3, MacParams::default(), 10.0, Rng::stream(1, "overheard"));
        let mut h = Overheard::default();
        let mut out = vec![];
        let mut ran = 0;
        let heard =
            |i: u64| Heard { key: key(us(100 * i), 2 * i), end_seq: 2 * i + 1, frame: frame(1, 2, 50, 0), power: 1e-9 };
        h.keep(heard(1));
        for i in 1..=10_000u64 {
            // The next frame is on its way when this one is replayed, up to its first bit.
            h.keep(heard(i + 1));
            ran += h.replay(&mut mac, 1e-10, key(us(100 * i), 2 * i + 1), &mut out);
            assert!(h.first_bits.len() <= 64, "{} kept after {i} frames", h.first_bits.len());
        }
        assert!(ran >= 2 * 9_999 - 1, "{ran} events replayed");
    }

    /// A first bit not yet reached, handed back: the queue gets it with its reserved number and
    /// its transmission slot.
    #[test]
    fn a_first_bit_not_reached_goes_back_to_the_queue_whole() {
        let mut h = Overheard::default();
        h.keep(Heard { key: key(us(5), 3), end_seq: 4, frame: frame(1, 2, 100, 7), power: 1e-9 });
        let left: Vec<Pending> = h.drain().collect();
        assert_eq!(left, vec![Pending::FirstBit { at: us(5), seq: 3, tx: 7, power: 1e-9, end_seq: 4 }]);
    }
}
