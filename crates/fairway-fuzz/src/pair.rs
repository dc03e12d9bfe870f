//! The pair targets: a datagram protocol's sender and receiver joined by a path, in wire mode
//! (each datagram encoded by one end and decoded by the other, as live mode carries them). The
//! first bytes after the ends' own settings choose the path: its one-way delay, its jitter
//! (which reorders), its loss and its ECN marks, and the rate of a drop-tail bottleneck on the
//! sender's side, 16 to 271 kb/s with room for 50 datagrams (a greedy sender must not flood the
//! run). While the bytes last, every datagram takes one, which decides whether the path drops
//! it, marks it, or holds it back; then the path turns kind: in order, unmarked, and losing only
//! what overflows the bottleneck.
//!
//! What must hold, besides no panic and no endless burst: the ends never spin (a timer due now
//! that stays due, [`SPIN`] times over), and once the path is kind the receiver keeps hearing
//! from a sender that always has data: after [`SETTLE`], never a silence longer than `quiet`
//! (130 s: twice the longest back-off these protocols have, 64 s; ns-2's DCCP and TFRC
//! flavours, which keep ns-2's longer silences, give none and are checked for panics and loops
//! only).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use fairway_core::{Bytes, Dur, Time};
use fairway_proto::{Arrival, Endpoint};

use crate::{Reader, MAX_BURST};

/// How long the kind path runs.
const KIND_FOR: Dur = Dur::from_secs(300);
/// How long the ends have, once the path is kind, before the silences are timed.
const SETTLE: Dur = Dur::from_secs(120);
/// Datagrams the forward path's bottleneck holds, waiting to be sent, at most (drop-tail).
const QUEUE: usize = 50;
/// Steps (an arrival or a timer each) on the hostile path, at most.
const HOSTILE_STEPS: usize = 50_000;
/// Steps at one instant before the ends count as spinning.
const SPIN: usize = 100_000;

/// A packet on a fuzz target's path (here and tcp.rs): out first by arrival time, then in the
/// order it was sent.
pub(crate) struct InFlight<T> {
    pub(crate) at: Time,
    pub(crate) order: u64,
    pub(crate) what: T,
}

impl<T> PartialEq for InFlight<T> {
    fn eq(&self, o: &Self) -> bool {
        (self.at, self.order) == (o.at, o.order)
    }
}
impl<T> Eq for InFlight<T> {}
impl<T> PartialOrd for InFlight<T> {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl<T> Ord for InFlight<T> {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (self.at, self.order).cmp(&(o.at, o.order))
    }
}

/// A datagram, its direction and how it arrives.
struct Datagram {
    to_receiver: bool,
    bytes: Vec<u8>,
    arrival: Arrival,
}

/// Runs sender `s` and receiver `rx` over the path that `r` describes; the receiver may never go
/// silent for longer than `quiet` (if given) once the path has been kind for [`SETTLE`], unless
/// `ended` says the sender has stopped for a reason of the protocol's own (a DCCP Reset, say).
pub fn run<S: Endpoint, R: Endpoint>(mut s: S, mut rx: R, r: &mut Reader, quiet: Option<Dur>, ended: fn(&S) -> bool) {
    let delay = Dur::from_micros(100 + u64::from(r.u8()) * 1000);
    let jitter = Dur::from_micros(u64::from(r.u8()) * 50);
    let loss = r.u8() / 2;
    let marks = r.u8() & 1 == 1;
    let rate_bps = 16_000 + u64::from(r.u8()) * 1000;
    // When the bottleneck is next free, and when each datagram in it leaves.
    let mut free_at = Time::ZERO;
    let mut leaving: std::collections::VecDeque<Time> = Default::default();
    let mut net: BinaryHeap<Reverse<InFlight<Datagram>>> = BinaryHeap::new();
    let mut order = 0u64;
    let mut now = Time::ZERO;
    let mut kind_since: Option<Time> = None;
    let mut heard = Time::ZERO;
    let (mut steps, mut same_instant, mut last_now) = (0usize, 0usize, Time::ZERO);
    s.start(now);
    rx.start(now);
    loop {
        let hostile = kind_since.is_none();
        let mut buf = vec![];
        let mut put = |buf: &mut Vec<u8>, size: Bytes, payload: Bytes, ect: bool, to_receiver: bool, r: &mut Reader| {
            let x = if hostile { r.u8() } else { u8::MAX };
            if x < loss {
                return;
            }
            let extra = if hostile { Dur(jitter.0 * u64::from(x & 15) / 15) } else { Dur::ZERO };
            let mut at = now;
            if to_receiver {
                while leaving.front().is_some_and(|&t| t <= now) {
                    leaving.pop_front();
                }
                if leaving.len() >= QUEUE {
                    return;
                }
                free_at = free_at.max(now) + Dur(size.0.max(1) * 8 * 1_000_000_000 / rate_bps);
                leaving.push_back(free_at);
                at = free_at;
            }
            let ce = hostile && marks && ect && x & 0x80 != 0;
            let arrival = Arrival { ce, size, payload };
            let what = Datagram { to_receiver, bytes: buf.clone(), arrival };
            net.push(Reverse(InFlight { at: at + delay + extra, order, what }));
            order += 1;
        };
        for n in 0.. {
            let Some(t) = s.poll_transmit(now) else { break };
            assert!(n < MAX_BURST, "the sender still sending after {MAX_BURST} datagrams at {now:?}");
            buf.clear();
            s.encode(&t, &mut buf);
            put(&mut buf, t.size, t.payload, t.ect, true, r);
        }
        for n in 0.. {
            let Some(t) = rx.poll_transmit(now) else { break };
            assert!(n < MAX_BURST, "the receiver still sending after {MAX_BURST} datagrams at {now:?}");
            buf.clear();
            rx.encode(&t, &mut buf);
            put(&mut buf, t.size, t.payload, t.ect, false, r);
        }
        steps += 1;
        if kind_since.is_none() && (r.done() || steps > HOSTILE_STEPS) {
            kind_since = Some(now);
            heard = now;
        }
        if kind_since.is_some_and(|since| now >= since + KIND_FOR) || ended(&s) {
            return;
        }
        let next = [net.peek().map(|e| e.0.at), s.poll_timeout(), rx.poll_timeout()].into_iter().flatten().min();
        let Some(t) = next else {
            panic!("nothing pending at {now:?}: the sender went silent for good");
        };
        now = now.max(t);
        same_instant = if now == last_now { same_instant + 1 } else { 0 };
        last_now = now;
        assert!(same_instant < SPIN, "{SPIN} steps at {now:?}: a timer that stays due");
        if let (Some(since), Some(quiet)) = (kind_since, quiet) {
            assert!(
                now < since + SETTLE || now - heard <= quiet,
                "the receiver heard nothing for {:?} on a kind path (from {heard:?})",
                now - heard
            );
        }
        if net.peek().is_some_and(|e| e.0.at <= now) {
            let d = net.pop().expect("peeked").0.what;
            if d.to_receiver {
                if rx.handle_datagram(now, &d.bytes, d.arrival).is_ok() {
                    heard = now;
                }
            } else {
                let _ = s.handle_datagram(now, &d.bytes, d.arrival);
            }
        } else {
            if s.poll_timeout().is_some_and(|d| d <= now) {
                s.handle_timeout(now);
            }
            if rx.poll_timeout().is_some_and(|d| d <= now) {
                rx.handle_timeout(now);
            }
        }
        let _ = (s.stats(), rx.stats());
    }
}
