//! Lazy receivers: the frames a station hears and need not decode (unicast frames for others,
//! frames too weak to decode), kept as a list instead of run as events, and replayed in their
//! events' order when the station next has an event of its own.
//!
//! Every frame reaches every station in carrier-sense range as two events, its first bit
//! (`rx_start`) and the end of its reception (the Rx timer, `rx_end`). Such a frame changes
//! nothing at the station but the MAC's receiver state, its Rx timer, its NAV and its backoff's
//! pause and resume: no counter (the MAC counts only decodable frames from or for the station,
//! and broadcasts), no random draw, and no output but timers: the Rx timer, the NAV's timer, and
//! the backoff's resumed count. Nothing outside the station reads that state, so the events can
//! wait until something does: the station's own next event (a timer, a frame it must decode, a
//! packet from its link layer), which first replays the kept events that come before it, in the
//! order the event queue would have run them. The Rx and NAV timers a replay starts are kept
//! with the frames; a backoff resumed goes to the queue, since when it runs out the station
//! sends. So that it is never resumed too late, a station whose backoff waits paused is woken
//! ([`AirEv::Wake`](super::event_loop::AirEv::Wake)) no later than the earliest its backoff could
//! run out ([`Mac::paused_backoff`]). Frames it keeps meanwhile may push that back
//! ([`PausedBackoff::hear`](super::mac::PausedBackoff::hear)); a wake-up that comes before the
//! bound they give only waits for it, without a replay.
//!
//! The order is exact because every event a kept frame leads to takes its insertion number when
//! the frame is sent ([`EventLoop::reserve_rx`](super::event_loop::EventLoop::reserve_rx)), kept
//! or not: a kept event's key is the key it would have had in the queue.

use fairway_core::{Dur, Time};

pub(crate) use crate::events::key;

use super::event_loop::{AirEv, EventLoop};
use super::mac::{Frame, FrameKind, Mac, MacOut, TimerKind};

fn time_of(key: u128) -> Time {
    Time((key >> 64) as u64)
}

/// The plain insertion numbers reserved after a reception's end ([`EventLoop::reserve_rx`]):
/// for the NAV's timer its first bit may start, then the backoff that timer's end may resume;
/// for the NAV's timer or the backoff its end may start, then the backoff that timer's end may
/// resume. A NAV timer's backoff takes the number after the timer's own.
pub(crate) const NAV_AT_FIRST_BIT: u64 = 1;
pub(crate) const TIMER_AT_END: u64 = 3;
/// From a NAV timer's own number to that of the backoff its end may resume.
pub(crate) const BACKOFF_AFTER_NAV: u64 = 1;

/// How many kept frames ahead of the one being replayed a replay asks the caches for.
const AHEAD: usize = 2;

/// A kept frame: the key of its first bit's event here, the insertion number of its
/// reception's end, its power here, and what the MAC reads of a frame it need not decode
/// (kind, addresses, Duration field, time on the air; the channel's transmission slot may be
/// reused before the replay). One cache line: a station's list is mostly out of the cache
/// between its keeps and its replay.
#[derive(Debug, Clone, Copy)]
#[repr(align(64))]
pub(crate) struct Heard {
    pub key: u128,
    pub end_seq: u64,
    pub power: f64,
    txtime: Dur,
    duration: Dur,
    ta: u32,
    ra: u32,
    kind: FrameKind,
}

impl Heard {
    pub(crate) fn new(key: u128, end_seq: u64, f: &Frame, power: f64) -> Heard {
        Heard { key, end_seq, power, txtime: f.txtime, duration: f.duration, ta: f.ta, ra: f.ra, kind: f.kind }
    }

    /// The frame as the MAC sees it; what it never reads of a frame it need not decode (size,
    /// sequence number, payload, transmission) left out.
    fn frame(&self) -> Frame {
        let (ta, ra, txtime, duration) = (self.ta, self.ra, self.txtime, self.duration);
        Frame { kind: self.kind, ta, ra, duration, size: 0, txtime, seqno: 0, payload: u32::MAX, tx: u32::MAX }
    }
}

/// A timer a replay started (the end of a kept frame's reception, or the NAV's), under the
/// generation the MAC gave it (a later timer may have made it stale, as in the queue).
#[derive(Debug, Clone, Copy)]
struct Kept {
    key: u128,
    kind: TimerKind,
    gen: u32,
}

/// What a station keeps, each list in key order.
#[derive(Debug, Default)]
pub(crate) struct Overheard {
    /// From `head` on: the first bits not yet replayed (a vector read from the front, emptied
    /// when read through or cut when half read: cheaper than a ring for its one-way traffic).
    first_bits: Vec<Heard>,
    head: usize,
    /// The latest first bit's key in `first_bits` (0 when empty): a keep compares with it here
    /// rather than at the vector's tail, which is mostly out of the cache by then.
    latest: u128,
    /// The Rx and NAV timers replays started, and the backoff's they resumed that run out before
    /// the replay's end; the earliest last (a few at a time).
    timers: Vec<Kept>,
}

/// Puts `x` into `list`, the earliest last: mostly it is the latest, at the front.
fn insert_sorted(list: &mut Vec<Kept>, x: Kept) {
    let i = list.iter().position(|t| t.key < x.key).unwrap_or(list.len());
    list.insert(i, x);
}

impl Overheard {
    pub(crate) fn is_empty(&self) -> bool {
        self.head == self.first_bits.len() && self.timers.is_empty()
    }

    pub(crate) fn len(&self) -> usize {
        self.first_bits.len() - self.head + self.timers.len()
    }

    pub(crate) fn keep(&mut self, h: Heard) {
        // Mostly in order: at the end.
        if self.latest <= h.key {
            self.latest = h.key;
            self.first_bits.push(h);
            return;
        }
        let mut i = self.first_bits.len();
        while i > self.head && self.first_bits[i - 1].key > h.key {
            i -= 1;
        }
        self.first_bits.insert(i, h);
    }

    /// Until when at least the frames kept and not yet replayed keep the medium busy here
    /// (`Time::ZERO` if none): each until its end and the NAV it sets at least
    /// ([`Mac::nav_floor`]).
    pub(crate) fn busy_until(&self, mac: &Mac, rx_threshold: f64) -> Time {
        let until = |h: &Heard| time_of(h.key) + h.txtime + mac.nav_floor(&h.frame(), h.power >= rx_threshold);
        self.first_bits[self.head..].iter().map(until).max().unwrap_or(Time::ZERO)
    }

    /// The key of the earliest timer kept (`u128::MAX` if none).
    fn next_timer(&self) -> u128 {
        self.timers.last().map_or(u128::MAX, |e| e.key)
    }

    /// After a replay: what was read is let go when all of it was, or once it is half the
    /// vector (a station that always has a frame on its way is never read through).
    fn let_go_of_read(&mut self) {
        if self.head == self.first_bits.len() {
            self.first_bits.clear();
            self.head = 0;
            self.latest = 0;
        } else if self.head >= 32 && self.head * 2 >= self.first_bits.len() {
            self.first_bits.drain(..self.head);
            self.head = 0;
        }
    }

    /// Runs on `mac`, station `node`, the kept events whose keys are below `bound`, in key order,
    /// as the queue would have; returns how many it ran (the run's count of events includes
    /// them). A backoff they resume goes to `cx`'s queue. `out` is scratch space.
    pub(crate) fn replay(
        &mut self,
        cx: &mut impl EventLoop,
        node: u32,
        mac: &mut Mac,
        rx_threshold: f64,
        bound: u128,
        out: &mut Vec<MacOut>,
    ) -> u64 {
        let mut ran = 0;
        loop {
            // The first bits before the next kept timer and the bound, in a tight loop.
            let mut lim = self.next_timer().min(bound);
            if mac.quiet() {
                ran += self.hear_quietly(mac, rx_threshold, lim, out);
            }
            while let Some(&h) = self.first_bits.get(self.head) {
                if h.key >= lim {
                    break;
                }
                self.head += 1;
                // The frames a replay reads next are mostly out of the first-level cache.
                crate::prefetch::prefetch_ptr(self.first_bits.as_ptr().wrapping_add(self.head + AHEAD));
                let now = time_of(h.key);
                // Mostly a frame is heard whole before anything else: both its events at once.
                let end_key = key(now + h.txtime, h.end_seq);
                let next = self.first_bits.get(self.head).map_or(u128::MAX, |n| n.key);
                if end_key < lim && end_key < next && mac.hears_whole() {
                    ran += 2;
                    mac.hear_whole(now, h.frame(), h.power >= rx_threshold, out);
                    assert!(out.len() <= 1, "a frame heard whole started {out:?}");
                    if let Some(o) = out.pop() {
                        self.started(cx, node, o, end_key, cx.raw(h.end_seq) + TIMER_AT_END, bound);
                        lim = self.next_timer().min(bound);
                    }
                    continue;
                }
                ran += 1;
                mac.rx_start(now, h.frame(), h.power, h.power >= rx_threshold, out);
                let nav = cx.raw(h.end_seq) + NAV_AT_FIRST_BIT;
                for o in out.drain(..) {
                    match o {
                        MacOut::Arm { timer: TimerKind::Rx, at, gen } => {
                            insert_sorted(&mut self.timers, Kept { key: key(at, h.end_seq), kind: TimerKind::Rx, gen })
                        }
                        MacOut::Arm { timer: TimerKind::Nav, at, gen } => insert_sorted(
                            &mut self.timers,
                            Kept { key: cx.key_after(h.key, at, nav), kind: TimerKind::Nav, gen },
                        ),
                        o => unreachable!("a frame's first bit heard in passing asked for {o:?}"),
                    }
                }
                lim = self.next_timer().min(bound);
            }
            // Then the next timer, if it comes before the next first bit and the bound.
            let first = self.first_bits.get(self.head).map_or(u128::MAX, |h| h.key);
            let timer = self.next_timer();
            if first.min(timer) >= bound {
                self.let_go_of_read();
                return ran;
            }
            if first < timer {
                continue;
            }
            ran += 1;
            let e = self.timers.pop().expect("a timer");
            let raw = cx.raw(e.key as u64);
            let slot = match e.kind {
                TimerKind::Rx => {
                    assert!(mac.rx_end_starts_one_timer(), "a kept reception's end that may start more than one timer");
                    raw + TIMER_AT_END
                }
                TimerKind::Nav => raw + BACKOFF_AFTER_NAV,
                _ => {
                    // A resumed count that a frame kept here paused again before its end.
                    assert!(!mac.backoff_runs_out(e.gen), "a station woke after its backoff ran out");
                    0
                }
            };
            mac.on_timer(time_of(e.key), e.kind, e.gen, out);
            assert!(out.len() <= 1, "a kept event started {out:?}");
            if let Some(o) = out.pop() {
                self.started(cx, node, o, e.key, slot, bound);
            }
        }
    }

    /// At a [`quiet`](Mac::quiet) station, the kept frames before `lim`, overlapping or not,
    /// with no output: with no backoff, a first bit or a reception's end changes only the
    /// receiver, the Rx timer and the NAV, so the Rx timer a first bit starts is followed here
    /// rather than kept in `timers`. A frame that ends before anything else comes is heard
    /// whole ([`Mac::hear_whole_quiet`]); the others go through `rx_start` and the Rx timer's
    /// event as in the queue. An Rx timer still running at `lim`, or made stale by a longer
    /// frame and due at or after `lim`, is kept in `timers` for what follows. Returns the
    /// events run.
    fn hear_quietly(&mut self, mac: &mut Mac, rx_threshold: f64, lim: u128, out: &mut Vec<MacOut>) -> u64 {
        let mut ran = 0;
        // The Rx timer started here and running: its event's key and generation.
        let mut rx: Option<(u128, u32)> = None;
        loop {
            let first = self.first_bits.get(self.head).map_or(u128::MAX, |h| h.key);
            let end = rx.map_or(u128::MAX, |(k, _)| k);
            if first.min(end) >= lim {
                break;
            }
            if end < first {
                let (k, gen) = rx.take().expect("a reception under way");
                ran += 1;
                mac.on_timer(time_of(k), TimerKind::Rx, gen, out);
                assert!(out.is_empty(), "a quiet station's reception's end started {out:?}");
                continue;
            }
            let h = &self.first_bits[self.head];
            self.head += 1;
            crate::prefetch::prefetch_ptr(self.first_bits.as_ptr().wrapping_add(self.head + AHEAD));
            let start = time_of(h.key);
            let end_key = key(start + h.txtime, h.end_seq);
            if rx.is_none() {
                // A frame heard whole: it ends before the next first bit and before `lim` (so
                // its first bit is before `lim` too).
                let next = self.first_bits.get(self.head).map_or(u128::MAX, |n| n.key);
                if end_key < lim && end_key < next {
                    mac.hear_whole_quiet(start, h.txtime, h.duration, h.power >= rx_threshold);
                    ran += 2;
                    continue;
                }
            }
            ran += 1;
            mac.rx_start(start, h.frame(), h.power, h.power >= rx_threshold, out);
            let end_seq = h.end_seq;
            match out.pop() {
                None => {}
                Some(MacOut::Arm { timer: TimerKind::Rx, at, gen }) => {
                    if let Some((stale, gen)) = rx.replace((key(at, end_seq), gen)) {
                        // The shorter frame's end, its timer stopped: an event all the same.
                        if stale < lim {
                            ran += 1;
                        } else {
                            insert_sorted(&mut self.timers, Kept { key: stale, kind: TimerKind::Rx, gen });
                        }
                    }
                }
                Some(o) => unreachable!("a quiet station's first bit asked for {o:?}"),
            }
            assert!(out.is_empty(), "a quiet station's first bit asked for {out:?}");
        }
        if let Some((k, gen)) = rx {
            insert_sorted(&mut self.timers, Kept { key: k, kind: TimerKind::Rx, gen });
        }
        ran
    }

    /// The one timer a kept reception's end or a kept NAV timer's end started, under its
    /// reserved number `raw`: the NAV's kept; a backoff's to the queue, unless it runs out
    /// before `bound`, the replay's end. The station is woken before its backoff could run out
    /// (`Mac::paused_backoff`), so such a count was paused again by a frame kept here after it
    /// resumed, and its event, kept and replayed, finds it stale, as the queue's would have.
    fn started(&mut self, cx: &mut impl EventLoop, node: u32, o: MacOut, from: u128, raw: u64, bound: u128) {
        let MacOut::Arm { timer, at, gen } = o else { unreachable!("a kept event asked for {o:?}") };
        let k = cx.key_after(from, at, raw);
        match timer {
            TimerKind::Nav => insert_sorted(&mut self.timers, Kept { key: k, kind: timer, gen }),
            TimerKind::Backoff if k < bound => insert_sorted(&mut self.timers, Kept { key: k, kind: timer, gen }),
            TimerKind::Backoff => cx.schedule_key(k, AirEv::MacTimer { node, timer, gen }),
            _ => unreachable!("a kept event started {timer:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use fairway_core::{NodeId, PacketRef, Rng};

    use super::*;
    use crate::packet::Packet;
    use crate::wireless::ifq::IfqItem;
    use crate::wireless::mac::MacParams;

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

    /// The earliest a paused backoff could run out, frames on their way here keeping the medium
    /// busy until `busy_until` ([`Mac::paused_backoff`]); `None` if no backoff waits paused.
    fn earliest_expiry(mac: &Mac, now: Time, busy_until: Time) -> Option<Time> {
        mac.paused_backoff(now, busy_until).map(|b| b.earliest_expiry())
    }

    /// An event loop that only keeps what is scheduled under a key (fairway's clock).
    #[derive(Default)]
    struct Queue {
        key: u128,
        seq: u64,
        keyed: Vec<(u128, AirEv)>,
    }

    impl EventLoop for Queue {
        fn now(&self) -> Time {
            time_of(self.key)
        }
        fn schedule(&mut self, _: Time, _: AirEv) {
            unreachable!("a replay schedules under reserved keys only")
        }
        fn key(&self) -> u128 {
            self.key
        }
        fn reserve_rx(&mut self, _: Dur, _: Dur) -> (u64, u64) {
            self.seq += 6;
            (self.seq - 5, self.seq - 4)
        }
        fn schedule_reserved(&mut self, _: Time, _: u64, _: AirEv) {
            unreachable!("a replay schedules under keys")
        }
        fn reserve_raw(&mut self) -> u64 {
            self.seq += 1;
            self.seq
        }
        fn raw(&self, low: u64) -> u64 {
            low
        }
        fn key_after(&self, _: u128, at: Time, raw: u64) -> u128 {
            key(at, raw)
        }
        fn schedule_key(&mut self, key: u128, ev: AirEv) {
            self.keyed.push((key, ev));
        }
        fn packet(&self, _: PacketRef) -> &Packet {
            unreachable!()
        }
        fn destination(&self, _: PacketRef) -> NodeId {
            unreachable!()
        }
        fn drop_packet(&mut self, _: PacketRef) {
            unreachable!()
        }
    }

    /// Two overlapping frames kept out of order: the replay runs them in key order and stops at
    /// the bound; the longer frame's end stays kept, under the number reserved for it (the
    /// shorter one, lost in the collision, never started a timer).
    #[test]
    fn a_replay_runs_in_key_order_up_to_its_bound() {
        let mut mac = Mac::new(0, 3, MacParams::default(), 10.0, Rng::stream(1, "overheard"));
        let mut q = Queue::default();
        let mut h = Overheard::default();
        let long = Heard::new(key(us(10), 5), 6, &frame(1, 2, 100, 0), 1e-9);
        let short = Heard::new(key(us(50), 11), 12, &frame(2, 1, 20, 1), 1e-9);
        h.keep(short);
        h.keep(long);
        assert_eq!(h.len(), 2);
        let mut out = vec![];
        // Nothing before the first key.
        assert_eq!(h.replay(&mut q, 0, &mut mac, 1e-10, key(us(10), 5), &mut out), 0);
        // Both first bits, not the end at 110 us.
        assert_eq!(h.replay(&mut q, 0, &mut mac, 1e-10, key(us(60), 0), &mut out), 2);
        assert_eq!(h.len(), 1);
        assert_eq!(h.timers.last().map(|t| (t.key, t.kind)), Some((key(us(110), 6), TimerKind::Rx)));
        assert!(q.keyed.is_empty());
        // The end, which sets the NAV for an EIFS after a collision; no backoff waits on it.
        assert_eq!(h.replay(&mut q, 0, &mut mac, 1e-10, key(us(200), 0), &mut out), 1);
        assert!(h.is_empty() && q.keyed.is_empty());
    }

    /// A quiet station (nothing to send) replaying overlapping frames follows the Rx timer
    /// itself (`hear_quietly`): the MAC ends as running every event from the queue leaves it,
    /// with the same count of events, a stale Rx timer's included, and an Rx timer still
    /// running at the bound kept for the next replay.
    #[test]
    fn a_quiet_station_hears_overlapping_frames_as_the_queue_would() {
        let new_mac = || Mac::new(0, 3, MacParams::default(), 10.0, Rng::stream(1, "overheard"));
        // A from 10 to 110 us; B from 50 to 250 us, as strong (a collision: B's longer
        // reception stops A's Rx timer); C from 400 to 450 us, alone; D from 600 us, beyond the
        // first replay's bound at 620 us.
        let frames = [(10, 100, 1e-9, 1), (50, 200, 1e-9, 7), (400, 50, 1e-9, 13), (600, 100, 1e-9, 19)];
        let mut h = Overheard::default();
        for &(at, len, power, seq) in &frames {
            h.keep(Heard::new(key(us(at), seq), seq + 1, &frame(1, 2, len, 0), power));
        }
        let (mut mac, mut q, mut out) = (new_mac(), Queue::default(), vec![]);
        assert!(mac.quiet());
        // First bits of A, B, C, D; A's stopped Rx timer, B's and C's ends.
        assert_eq!(h.replay(&mut q, 0, &mut mac, 1e-10, key(us(620), 0), &mut out), 7);
        assert_eq!(h.timers.last().map(|t| (t.key, t.kind)), Some((key(us(700), 20), TimerKind::Rx)));
        assert_eq!(h.replay(&mut q, 0, &mut mac, 1e-10, key(us(800), 0), &mut out), 1);
        assert!(h.is_empty() && q.keyed.is_empty());

        // The same frames as the queue runs them, event by event, in key order.
        let mut reference = new_mac();
        let mut events: Vec<(u128, Option<Heard>)> = vec![];
        for &(at, len, power, seq) in &frames {
            events.push((key(us(at), seq), Some(Heard::new(key(us(at), seq), seq + 1, &frame(1, 2, len, 0), power))));
        }
        events.sort_by_key(|e| std::cmp::Reverse(e.0));
        let mut ran = 0;
        while let Some((k, e)) = events.pop() {
            ran += 1;
            let mut o = vec![];
            match e {
                Some(h) => reference.rx_start(time_of(k), h.frame(), h.power, true, &mut o),
                None => reference.on_timer(time_of(k), TimerKind::Rx, k as u64 as u32, &mut o),
            }
            for x in o {
                let MacOut::Arm { timer: TimerKind::Rx, at, gen } = x else { panic!("{x:?}") };
                // The Rx timer's event, its generation in the key's low word for this test.
                events.push((key(at, gen as u64), None));
                events.sort_by_key(|e| std::cmp::Reverse(e.0));
            }
        }
        assert_eq!(ran, 8);
        // Both MACs alike: the NAV (an EIFS after B's collision, then C's Duration and D's) and
        // the timers' generations, as a packet arriving now sees them.
        let packet = IfqItem { payload: 1, ra: 2, size: 100, priority: false };
        let (mut a, mut b) = (vec![], vec![]);
        mac.enqueue(us(800), packet, &mut a);
        reference.enqueue(us(800), packet, &mut b);
        assert_eq!(a, b);
        assert!(!a.is_empty());
    }

    /// A station that always has a frame on its way is never read through: what it has replayed
    /// is still let go.
    #[test]
    fn a_list_never_read_through_stays_short() {
        let mut mac = Mac::new(0, 3, MacParams::default(), 10.0, Rng::stream(1, "overheard"));
        let mut q = Queue::default();
        let mut h = Overheard::default();
        let mut out = vec![];
        let mut ran = 0;
        let heard = |i: u64| Heard::new(key(us(100 * i), 6 * i), 6 * i + 1, &frame(1, 2, 50, 0), 1e-9);
        h.keep(heard(1));
        for i in 1..=10_000u64 {
            // The next frame is on its way when this one is replayed, up to its first bit.
            h.keep(heard(i + 1));
            ran += h.replay(&mut q, 0, &mut mac, 1e-10, key(us(100 * i), 6 * i + 1), &mut out);
            assert!(h.first_bits.len() <= 64, "{} kept after {i} frames", h.first_bits.len());
        }
        assert!(ran >= 2 * 9_999 - 1, "{ran} events replayed");
    }

    /// A station whose backoff waits paused, and what the tests below need of it.
    struct Paused {
        p: MacParams,
        mac: Mac,
        q: Queue,
        h: Overheard,
        out: Vec<MacOut>,
        /// The generation of the NAV's timer, armed in the queue by the packet's arrival.
        nav_gen: u32,
    }

    /// The NAV to 410 us (a frame heard whole to 110 us, Duration 300 us), then at 200 us a
    /// packet, whose backoff waits for the medium, paused.
    fn paused() -> Paused {
        let p = MacParams::default();
        let mut mac = Mac::new(0, 3, p, 10.0, Rng::stream(1, "overheard"));
        let mut q = Queue::default();
        let mut h = Overheard::default();
        let mut out = vec![];
        h.keep(Heard::new(key(us(10), 1), 2, &frame(1, 2, 100, 0), 1e-9));
        assert_eq!(h.replay(&mut q, 0, &mut mac, 1e-10, key(us(200), 0), &mut out), 2);
        q.key = key(us(200), 0);
        mac.enqueue(us(200), IfqItem { payload: 1, ra: 2, size: 100, priority: false }, &mut out);
        let [MacOut::Arm { timer: TimerKind::Nav, at, gen: nav_gen }] = out[..] else {
            panic!("the NAV's timer: {out:?}")
        };
        assert_eq!(at, us(410));
        out.clear();
        assert!(earliest_expiry(&mac, us(200), Time::ZERO).is_some(), "the backoff waits paused");
        Paused { p, mac, q, h, out, nav_gen }
    }

    /// A station whose backoff waits paused keeps a frame for another station: its replay sets
    /// the NAV for the frame's Duration, keeps the NAV's timer under the number reserved after
    /// the frame's end, and at the NAV's end resumes the backoff into the queue under the next
    /// number, no earlier than `Mac::paused_backoff` said before the replay.
    #[test]
    fn a_paused_backoff_resumes_into_the_queue_under_its_reserved_number() {
        let Paused { p, mut mac, mut q, mut h, mut out, .. } = paused();
        // The next frame: first bit at 500 us, its end at 600 us, Duration 300 us.
        let f = Heard::new(key(us(500), 7), 8, &frame(1, 2, 100, 0), 1e-9);
        h.keep(f);
        let earliest = earliest_expiry(&mac, us(200), h.busy_until(&mac, 1e-10)).unwrap();
        assert_eq!(
            earliest,
            us(600 + 300)
                + p.difs()
                + earliest_expiry(&mac, us(200), Time::ZERO).unwrap().saturating_since(us(410) + p.difs())
        );
        // Up to the wake-up at that time: first bit, end, the NAV's end.
        assert_eq!(h.replay(&mut q, 0, &mut mac, 1e-10, key(earliest, 0), &mut out), 3);
        let [(k, AirEv::MacTimer { node: 0, timer: TimerKind::Backoff, .. })] = q.keyed[..] else {
            panic!("one backoff resumed: {:?}", q.keyed)
        };
        assert_eq!(k as u64, 8 + TIMER_AT_END + 1);
        assert_eq!(time_of(k), earliest);
        assert!(h.is_empty());
    }

    /// A frame kept here whose first bit comes within a DIFS of the NAV's end pauses the count
    /// that end resumed: that count's event, before the replay's end, is kept and found stale
    /// (it is an event of the run all the same); the count resumed after the frame's own NAV
    /// goes to the queue.
    #[test]
    fn a_count_paused_again_is_kept_and_found_stale() {
        let Paused { p, mut mac, mut q, mut h, mut out, nav_gen } = paused();
        let left = earliest_expiry(&mac, us(200), Time::ZERO).unwrap().saturating_since(us(410) + p.difs());
        // A frame 1 us after the NAV's end: to 511 us, then its NAV to 811 us.
        h.keep(Heard::new(key(us(411), 7), 8, &frame(1, 2, 100, 0), 1e-9));
        let after = earliest_expiry(&mac, us(200), h.busy_until(&mac, 1e-10)).unwrap();
        assert_eq!(after, us(811) + p.difs() + left);
        // The NAV's timer is the queue's (the packet's arrival armed it): run as the queue would.
        mac.on_timer(us(410), TimerKind::Nav, nav_gen, &mut out);
        let Some(MacOut::Arm { timer: TimerKind::Backoff, at, gen }) = out.pop() else { panic!("{out:?}") };
        assert!(at < after && at > us(411));
        h.timers.push(Kept { key: key(at, 5), kind: TimerKind::Backoff, gen });
        // Up to the wake-up at `after`: the first bit, the end, the frame's NAV's end and the
        // stale count, in their order.
        assert_eq!(h.replay(&mut q, 0, &mut mac, 1e-10, key(after, 0), &mut out), 4);
        let [(k, AirEv::MacTimer { timer: TimerKind::Backoff, .. })] = q.keyed[..] else { panic!("{:?}", q.keyed) };
        assert_eq!((time_of(k), k as u64), (after, 8 + TIMER_AT_END + 1));
        assert!(h.is_empty());
    }

    /// A paused count's bound as frames are kept (`PausedBackoff::hear`, which lets a wake-up
    /// that comes before it wait): a frame within a DIFS of the medium's busy end pushes it back
    /// to what the frames kept give (`Mac::paused_backoff`); a frame after a longer gap leaves
    /// it, since the count resumed in the gap and kept fewer slots when that frame paused it. A
    /// wake-up at the bound replays every frame and finds the count still waiting, and the count
    /// runs out when the arithmetic says.
    #[test]
    fn a_paused_count_bound_follows_frames_within_a_difs() {
        let Paused { p, mut mac, mut q, mut h, mut out, nav_gen } = paused();
        let mut bound = mac.paused_backoff(us(200), Time::ZERO).unwrap();
        let left = bound.earliest_expiry().saturating_since(us(410) + p.difs());
        assert!(left.0 >= 3 * p.slot.0, "this seed's count is long enough to move: {left:?}");
        // A: 20 us after the NAV's end (within its DIFS), to 530 us; its NAV to 830 us.
        h.keep(Heard::new(key(us(430), 7), 8, &frame(1, 2, 100, 0), 1e-9));
        bound.hear(us(430), Dur::from_micros(100), Dur::from_micros(300), true);
        let after_a = earliest_expiry(&mac, us(200), h.busy_until(&mac, 1e-10)).unwrap();
        assert_eq!(bound.earliest_expiry(), after_a);
        assert_eq!(after_a, us(830) + p.difs() + left);
        // B: two slots into the count after A's NAV: the bound stays.
        let b_start = us(830) + p.difs() + Dur(2 * p.slot.0);
        h.keep(Heard::new(key(b_start, 13), 14, &frame(1, 2, 100, 0), 1e-9));
        bound.hear(b_start, Dur::from_micros(100), Dur::from_micros(300), true);
        assert_eq!(bound.earliest_expiry(), after_a);
        // As the queue runs it: the NAV's end at 410 us resumes the count, which A pauses.
        mac.on_timer(us(410), TimerKind::Nav, nav_gen, &mut out);
        let Some(MacOut::Arm { timer: TimerKind::Backoff, at, gen }) = out.pop() else { panic!("{out:?}") };
        h.timers.push(Kept { key: key(at, 5), kind: TimerKind::Backoff, gen });
        // The wake-up at the bound: the replay finds no count that ran out before it.
        h.replay(&mut q, 0, &mut mac, 1e-10, key(after_a, 0), &mut out);
        // The count A's NAV resumed, due at the bound, into the queue and paused by B; the one
        // B's NAV resumes runs out after a DIFS and two slots fewer than it had: past the bound,
        // and earlier than B's end would have put it.
        h.replay(&mut q, 0, &mut mac, 1e-10, key(us(5000), 0), &mut out);
        let [(k1, AirEv::MacTimer { timer: TimerKind::Backoff, gen: g1, .. }), (k2, AirEv::MacTimer { timer: TimerKind::Backoff, gen: g2, .. })] =
            q.keyed[..]
        else {
            panic!("{:?}", q.keyed)
        };
        assert_eq!(time_of(k1), after_a);
        assert!(!mac.backoff_runs_out(g1) && mac.backoff_runs_out(g2));
        let expiry = b_start + Dur::from_micros(400) + p.difs() + Dur(left.0 - 2 * p.slot.0);
        assert_eq!(time_of(k2), expiry);
        assert!(expiry > after_a && expiry < b_start + Dur::from_micros(400) + p.difs() + left);
    }
}
