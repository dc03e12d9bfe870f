//! Frame re-assembly at the receiver (kadhum2015 §3.2: UdpMAgent does "segmentation and
//! re-assembly").
//!
//! A frame is complete when every one of its `frag_count` fragments has arrived. A frame is
//! given up as lost when it can no longer complete: a fragment of a frame more than `window`
//! frames newer arrived, or the flow went idle ([`Reassembly::flush`]). Frames of which no
//! fragment arrived at all are counted from the frame numbers. Memory is bounded: `window + 1`
//! frame slots, each with a bitmap of its fragments (at most 65 535 bits), reused from frame to
//! frame.

use fairway_core::wire_clock::extend_seq;

/// What became of one arriving fragment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FragmentOutcome {
    /// The frame is now complete.
    Completed,
    /// Stored; the frame still misses fragments.
    Partial,
    /// This fragment (or its whole frame) was already received.
    Duplicate,
    /// The frame was already given up (or completed and released).
    Stale,
    /// The fragment count disagrees with the frame's earlier fragments: ignored.
    Inconsistent,
}

#[derive(Debug, Clone, Default)]
struct Slot {
    /// The (extended) frame this slot holds, if `used`.
    frame: u64,
    used: bool,
    count: u16,
    received: u16,
    done: bool,
    bits: Vec<u64>,
}

/// Re-assembles frames from fragments and counts complete and lost frames.
#[derive(Debug, Clone)]
pub struct Reassembly {
    window: u32,
    /// The oldest frame not yet decided (complete and released, or lost).
    base: u64,
    /// The newest frame seen; `None` before the first fragment.
    highest: Option<u64>,
    slots: Vec<Slot>,
    complete: u64,
    lost: u64,
}

impl Reassembly {
    /// A re-assembler that waits for a frame until a frame more than `window` (at least 1)
    /// frames newer shows up.
    pub fn new(window: u32) -> Reassembly {
        let window = window.max(1);
        Reassembly {
            window,
            base: 0,
            highest: None,
            slots: vec![Slot::default(); window as usize + 1],
            complete: 0,
            lost: 0,
        }
    }

    /// Frames completed so far.
    pub fn complete(&self) -> u64 {
        self.complete
    }

    /// Frames given up so far (incomplete, or never seen at all).
    pub fn lost(&self) -> u64 {
        self.lost
    }

    /// Frames held, waiting for fragments.
    pub fn pending(&self) -> usize {
        self.slots.iter().filter(|s| s.used && !s.done).count()
    }

    fn cap(&self) -> u64 {
        self.window as u64 + 1
    }

    fn slot_of(&self, frame: u64) -> usize {
        (frame % self.cap()) as usize
    }

    /// Takes one fragment `index` of `count` of frame `frame` (its number on the wire).
    pub fn on_fragment(&mut self, frame: u32, index: u16, count: u16) -> FragmentOutcome {
        if count == 0 || index >= count {
            return FragmentOutcome::Inconsistent;
        }
        // Frame numbers wrap modulo 2^32 on the wire (wire.rs); extend them like sequence numbers.
        let f = match self.highest {
            None => {
                // Numbering starts at the first frame seen: frames before it are not counted.
                self.base = frame as u64;
                self.highest = Some(frame as u64);
                frame as u64
            }
            Some(h) => extend_seq(h, frame),
        };
        if f < self.base {
            return FragmentOutcome::Stale;
        }
        // kadhum2015 §3.2 / this module: a frame more than `window` frames older than the newest
        // can no longer complete.
        if f >= self.base + self.cap() {
            self.advance_to(f + 1 - self.cap());
        }
        let h = self.highest.get_or_insert(f);
        if f > *h {
            *h = f;
        }
        let i = self.slot_of(f);
        let slot = &mut self.slots[i];
        if !(slot.used && slot.frame == f) {
            slot.used = true;
            slot.frame = f;
            slot.count = count;
            slot.received = 0;
            slot.done = false;
            let words = (count as usize).div_ceil(64);
            slot.bits.clear();
            slot.bits.resize(words, 0);
        }
        if slot.done {
            return FragmentOutcome::Duplicate;
        }
        if slot.count != count {
            return FragmentOutcome::Inconsistent;
        }
        let (w, b) = (index as usize / 64, index as usize % 64);
        if slot.bits[w] & (1 << b) != 0 {
            return FragmentOutcome::Duplicate;
        }
        slot.bits[w] |= 1 << b;
        slot.received += 1;
        if slot.received < slot.count {
            return FragmentOutcome::Partial;
        }
        slot.done = true;
        self.complete += 1;
        // Release completed frames at the front of the window.
        while self.highest.is_some_and(|h| self.base <= h) {
            let j = self.slot_of(self.base);
            let s = &mut self.slots[j];
            if !(s.used && s.frame == self.base && s.done) {
                break;
            }
            s.used = false;
            self.base += 1;
        }
        FragmentOutcome::Completed
    }

    /// Decides every frame below `new_base`: incomplete ones and unseen ones are lost.
    fn advance_to(&mut self, new_base: u64) {
        if new_base <= self.base {
            return;
        }
        let held_end = new_base.min(self.base + self.cap());
        for f in self.base..held_end {
            let j = self.slot_of(f);
            let s = &mut self.slots[j];
            if s.used && s.frame == f {
                if !s.done {
                    self.lost += 1;
                }
                s.used = false;
            } else {
                // No fragment of this frame ever arrived.
                self.lost += 1;
            }
        }
        // Frames beyond the held range were never seen (a jump ahead): count them in bulk.
        self.lost += new_base - held_end;
        self.base = new_base;
    }

    /// The flow went idle: every frame up to the newest seen that is still incomplete is lost.
    pub fn flush(&mut self) {
        if let Some(h) = self.highest {
            self.advance_to(h + 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use FragmentOutcome::*;

    #[test]
    fn a_frame_completes_when_all_fragments_arrive_in_any_order() {
        let mut r = Reassembly::new(4);
        assert_eq!(r.on_fragment(0, 2, 3), Partial);
        assert_eq!(r.on_fragment(0, 0, 3), Partial);
        assert_eq!(r.on_fragment(0, 0, 3), Duplicate);
        assert_eq!(r.pending(), 1);
        assert_eq!(r.on_fragment(0, 1, 3), Completed);
        assert_eq!(r.on_fragment(0, 1, 3), Stale, "released once complete");
        assert_eq!((r.complete(), r.lost(), r.pending()), (1, 0, 0));
        // Single-fragment frames complete at once.
        assert_eq!(r.on_fragment(1, 0, 1), Completed);
        assert_eq!(r.on_fragment(1, 0, 1), Stale);
        assert_eq!(r.complete(), 2);
    }

    #[test]
    fn an_incomplete_frame_is_lost_once_a_frame_more_than_window_ahead_arrives() {
        let mut r = Reassembly::new(4);
        assert_eq!(r.on_fragment(10, 0, 2), Partial);
        for f in 11..=14 {
            assert_eq!(r.on_fragment(f, 0, 1), Completed);
        }
        // Frame 14 is 4 ahead of 10: frame 10 may still complete.
        assert_eq!(r.lost(), 0);
        assert_eq!(r.on_fragment(15, 0, 1), Completed);
        // 15 is 5 > 4 ahead: frame 10 is given up, and 11..=15 are released.
        assert_eq!((r.complete(), r.lost(), r.pending()), (5, 1, 0));
        assert_eq!(r.on_fragment(10, 1, 2), Stale);
    }

    #[test]
    fn frames_never_seen_are_counted_from_the_numbers_even_after_a_jump() {
        let mut r = Reassembly::new(4);
        r.on_fragment(0, 0, 1);
        r.on_fragment(3, 0, 1); // 1 and 2 missing, but could still arrive
        assert_eq!(r.lost(), 0);
        r.on_fragment(2, 0, 1);
        r.on_fragment(1_000_000, 0, 1);
        // 0, 2, 3 and 1_000_000 complete; 1 and 4..=999_995 are lost; 999_996..=999_999 are
        // within the window of 1_000_000 and may still arrive.
        assert_eq!((r.complete(), r.lost()), (4, 1 + 999_992));
        assert_eq!(r.slots.len(), 5, "memory stays bounded");
        r.flush();
        assert_eq!(r.lost(), 1 + 999_996);
    }

    #[test]
    fn flush_gives_up_incomplete_frames() {
        let mut r = Reassembly::new(4);
        r.on_fragment(7, 0, 3);
        r.on_fragment(8, 1, 3);
        r.on_fragment(9, 0, 1);
        r.flush();
        assert_eq!((r.complete(), r.lost(), r.pending()), (1, 2, 0));
        r.flush();
        assert_eq!(r.lost(), 2, "flushing twice counts nothing twice");
        assert_eq!(r.on_fragment(10, 0, 1), Completed);
    }

    #[test]
    fn wrapped_frame_numbers_and_inconsistent_counts() {
        let mut r = Reassembly::new(2);
        r.on_fragment(u32::MAX - 1, 0, 1);
        r.on_fragment(u32::MAX, 0, 1);
        assert_eq!(r.on_fragment(0, 0, 1), Completed);
        assert_eq!(r.on_fragment(1, 0, 2), Partial);
        assert_eq!(r.on_fragment(1, 1, 3), Inconsistent);
        assert_eq!(r.on_fragment(1, 5, 2), Inconsistent);
        assert_eq!(r.on_fragment(1, 1, 2), Completed);
        assert_eq!((r.complete(), r.lost()), (4, 0));
        // A large fragment count uses a multi-word bitmap.
        for i in (0..200).rev() {
            let o = r.on_fragment(2, i, 200);
            assert_eq!(o, if i == 0 { Completed } else { Partial });
        }
    }
}
