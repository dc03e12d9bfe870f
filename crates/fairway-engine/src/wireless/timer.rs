//! The 802.11 MAC's timers: one-shot timers, and the backoff timer that counts down only while
//! the medium is idle (ns-2 mac/mac-timers.cc semantics). A timer does not hold an event: it
//! says when it expires and under which generation, and the event loop calls back only if the
//! generation still matches (a stopped or restarted timer leaves a stale event behind).

use fairway_core::{Dur, Time};

/// A one-shot timer.
#[derive(Debug, Default, Clone, Copy)]
pub struct Timer {
    busy: bool,
    start: Time,
    len: Dur,
    gen: u32,
}

impl Timer {
    pub fn busy(&self) -> bool {
        self.busy
    }

    /// Starts the timer; returns its expiry and generation, for the event loop.
    pub fn start(&mut self, now: Time, len: Dur) -> (Time, u32) {
        debug_assert!(!self.busy, "timer started while running");
        self.busy = true;
        self.start = now;
        self.len = len;
        self.gen = self.gen.wrapping_add(1);
        (now + len, self.gen)
    }

    /// [`start`](Self::start) then [`fire`](Self::fire) under the generation it gave: the
    /// timer ran its whole length from `now`; returns its expiry.
    #[inline(always)]
    pub fn run(&mut self, now: Time, len: Dur) -> Time {
        debug_assert!(!self.busy, "timer started while running");
        self.start = now;
        self.len = len;
        self.gen = self.gen.wrapping_add(1);
        now + len
    }

    pub fn stop(&mut self) {
        self.busy = false;
        self.gen = self.gen.wrapping_add(1);
    }

    /// Time left until expiry.
    pub fn remaining(&self, now: Time) -> Dur {
        (self.start + self.len).saturating_since(now)
    }

    /// Whether the event of generation `gen` is this timer's live expiry.
    pub fn live(&self, gen: u32) -> bool {
        self.busy && self.gen == gen
    }

    /// The event of generation `gen` fired: whether it is this timer's live expiry (which then
    /// ends it).
    pub fn fire(&mut self, gen: u32) -> bool {
        if self.live(gen) {
            self.busy = false;
            true
        } else {
            false
        }
    }
}

/// The backoff timer: a random number of slots, counted down only while the medium is idle
/// after a DIFS (IEEE 802.11 §9.2.4; ns-2's BackoffTimer, whose pause keeps only whole slots
/// that have passed since the DIFS ended).
#[derive(Debug, Default, Clone, Copy)]
pub struct Backoff {
    busy: bool,
    paused: bool,
    /// When counting (re)started.
    start: Time,
    /// Backoff left.
    left: Dur,
    /// The wait before counting starts (DIFS, or zero).
    difs: Dur,
    gen: u32,
}

impl Backoff {
    pub fn busy(&self) -> bool {
        self.busy
    }

    pub fn paused(&self) -> bool {
        self.paused
    }

    /// The backoff not yet counted.
    pub fn left(&self) -> Dur {
        self.left
    }

    /// Starts a backoff of `slots` slots after `difs`; counting waits if the medium is busy.
    /// Returns the expiry if it counts now.
    pub fn start(&mut self, now: Time, slots: u64, slot: Dur, idle: bool, difs: Dur) -> Option<(Time, u32)> {
        debug_assert!(!self.busy, "backoff started while running");
        self.busy = true;
        self.start = now;
        self.left = Dur(slots * slot.0);
        self.difs = difs;
        self.gen = self.gen.wrapping_add(1);
        if idle {
            self.paused = false;
            Some((now + self.left + difs, self.gen))
        } else {
            self.paused = true;
            None
        }
    }

    /// The medium became busy: keep the whole slots not yet counted.
    pub fn pause(&mut self, now: Time, slot: Dur) {
        debug_assert!(self.busy && !self.paused);
        let counting_since = self.start + self.difs;
        let slots = now.saturating_since(counting_since).0 / slot.0;
        self.left = Dur(self.left.0.saturating_sub(slots * slot.0));
        self.difs = Dur::ZERO;
        self.paused = true;
        self.gen = self.gen.wrapping_add(1);
    }

    /// The medium is idle again: count the rest after another `difs`.
    pub fn resume(&mut self, now: Time, difs: Dur) -> (Time, u32) {
        debug_assert!(self.busy && self.paused);
        self.paused = false;
        self.start = now;
        self.difs = difs;
        self.gen = self.gen.wrapping_add(1);
        (now + self.left + difs, self.gen)
    }

    /// Whether the event of generation `gen` is this count's expiry.
    pub fn live(&self, gen: u32) -> bool {
        self.busy && !self.paused && self.gen == gen
    }

    pub fn fire(&mut self, gen: u32) -> bool {
        if self.live(gen) {
            self.busy = false;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SLOT: Dur = Dur::from_micros(20);
    const DIFS: Dur = Dur::from_micros(50);

    fn us(n: u64) -> Time {
        Time(n * 1000)
    }

    #[test]
    fn a_stopped_timer_ignores_its_event() {
        let mut t = Timer::default();
        let (at, g) = t.start(us(0), Dur::from_micros(10));
        assert_eq!(at, us(10));
        t.stop();
        assert!(!t.fire(g));
        let (_, g2) = t.start(us(5), Dur::from_micros(10));
        assert!(!t.fire(g));
        assert_eq!(t.remaining(us(7)), Dur::from_micros(8));
        assert!(t.fire(g2));
        assert!(!t.busy());
    }

    /// Five slots after a DIFS; the medium turns busy 2.5 slots into the count: two slots are
    /// kept as counted, the partial one is counted again, after a new DIFS.
    #[test]
    fn backoff_keeps_whole_slots_and_waits_a_difs_again() {
        let mut b = Backoff::default();
        let (at, g) = b.start(us(0), 5, SLOT, true, DIFS).unwrap();
        assert_eq!(at, us(150));
        b.pause(us(100), SLOT);
        assert!(!b.fire(g));
        let (at, g) = b.resume(us(300), DIFS);
        assert_eq!(at, us(300 + 50 + 60));
        assert!(b.fire(g));
    }

    /// Busy during the DIFS: nothing was counted.
    #[test]
    fn a_pause_inside_the_difs_counts_nothing() {
        let mut b = Backoff::default();
        b.start(us(0), 3, SLOT, true, DIFS).unwrap();
        b.pause(us(30), SLOT);
        let (at, _) = b.resume(us(100), DIFS);
        assert_eq!(at, us(100 + 50 + 60));
    }

    #[test]
    fn a_backoff_started_on_a_busy_medium_waits_paused() {
        let mut b = Backoff::default();
        assert!(b.start(us(0), 3, SLOT, false, Dur::ZERO).is_none());
        assert!(b.paused() && b.busy());
        let (at, _) = b.resume(us(40), DIFS);
        assert_eq!(at, us(40 + 50 + 60));
    }
}
