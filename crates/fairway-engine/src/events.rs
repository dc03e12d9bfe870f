//! The event queue: events come out by time, and simultaneous events in the order they were
//! scheduled (docs/architecture.md, "Determinism"), or with ns-2's clock by the double ns-2 would
//! give each first ([`crate::ns2_clock`]). The key of an event packs its time and an insertion
//! counter (with ns-2's clock, the double's place beside it) into one `u128`, so that order is a
//! single comparison.
//!
//! It is a calendar queue. Time is cut into buckets of 2^shift ns; a ring of 2^14 buckets covers
//! the near future, which is where nearly all of a simulation's events fall (a packet's next
//! hop, the next CBR packet, the next pacing step). An event further out waits in a heap and
//! moves into the ring when the ring reaches it. The ring's events live in one slab of chunks of
//! four, each bucket a linked list of chunks (so memory follows the number of events, not of
//! buckets, and a bucket is read a chunk at a time rather than an entry at a time, which
//! matters once the pending events outgrow the caches). Four, not more: far ahead of the
//! clock buckets are sparse, and chunks of eight were mostly empty. A bucket's head word holds
//! both its first chunk and how full that chunk is, so that a push writes into the chunk without
//! first reading it: with a hundred thousand events pending (10 000 flows), that read was a
//! cache miss on nearly every push. A bucket is gathered and sorted when it becomes the current
//! one, and the few events pushed into the current bucket are inserted in order. A bitmap of
//! non-empty buckets finds the next one. The bucket width adapts to the density of events (as
//! calendar queues do): every so many pops, if buckets hold less than about one event the width
//! doubles, if they hold many it halves, and the events are re-bucketed. Push and pop are then
//! constant time on average, where a heap costs a logarithm and a string of unpredictable
//! branches: the event queue was a third of the simulator's time.
//!
//! An event scheduled before the last one popped is moved up to that time (the clock never runs
//! backwards; its order among events at that time is still its insertion order).

use fairway_core::Time;

use crate::prefetch::prefetch_lines;

/// The initial bucket width, 2^14 ns (16 us), and its bounds.
const INITIAL_SHIFT: u32 = 14;
const MIN_SHIFT: u32 = 4;
const MAX_SHIFT: u32 = 36;
/// Ring size: 2^RING_BITS buckets, whose head words (64 KB) and bitmap stay in the second
/// level cache: a push reads the head word of its bucket, anywhere in the ring. At the widths
/// the tuning settles on with ~10^5 events pending (~1 us) the ring spans ~16 ms; later events
/// wait in the far heap and move into the ring as it reaches them, in the order of their keys
/// whatever the ring's size.
const RING_BITS: u32 = 14;
const RING: u64 = 1 << RING_BITS;
/// Above this many events in the current bucket, later pushes into it go to a heap.
const LATE_ABOVE: usize = 64;
/// Pops between two looks at the density of events.
const TUNE_EVERY: u64 = 1 << 14;

/// An event's key: its time in ns above its insertion number (with ns-2's clock, the low word of
/// [`crate::ns2_clock::tie`]); events come out in key order.
#[inline]
pub fn key(time: Time, seq: u64) -> u128 {
    (time.0 as u128) << 64 | seq as u128
}

#[derive(Clone, Copy)]
struct Entry<E> {
    /// (time in ns) << 64 | insertion counter.
    key: u128,
    ev: E,
}

impl<E> Entry<E> {
    fn time(&self) -> u64 {
        (self.key >> 64) as u64
    }
}

/// No chunk: the end of a bucket's list, and the head word of an empty bucket.
const NIL: u32 = u32::MAX;
/// Entries per chunk, and the bits of a head word that count them.
const CHUNK: usize = 4;
const FILL_BITS: u32 = CHUNK.trailing_zeros();

/// CHUNK events of one bucket and the next chunk of its list. Only a bucket's first chunk may
/// be partly filled (its head word says how far); the rest of its list is full.
#[derive(Clone, Copy)]
struct Chunk<E> {
    items: [Entry<E>; CHUNK],
    next: u32,
}

/// A head word: the first chunk's index in the slab and its number of entries less one.
fn head(chunk: u32, len: usize) -> u32 {
    chunk << FILL_BITS | (len as u32 - 1)
}

fn head_parts(h: u32) -> (u32, usize) {
    (h >> FILL_BITS, (h & ((1 << FILL_BITS) - 1)) as usize + 1)
}

pub struct EventQueue<E> {
    /// Per ring slot, the head word of its list (see [`head`]; NIL if empty).
    heads: Vec<u32>,
    /// The ring's events in chunks; freed chunks are reused.
    slab: Vec<Chunk<E>>,
    free: Vec<u32>,
    /// One bit per ring slot: the slot holds events.
    occupied: Vec<u64>,
    /// The absolute number of the current bucket; the ring holds buckets cur .. cur + RING.
    cur: u64,
    /// The current bucket's events, sorted with the earliest last (popped from the end).
    now_list: Vec<Entry<E>>,
    /// Events pushed into the current bucket while `now_list` is long (when ten thousand flows
    /// start at once, say), as a min-heap: inserting each into the sorted list would move the
    /// whole list every time.
    now_late: Vec<Entry<E>>,
    /// Events beyond the ring, as a min-heap on the key.
    far: Vec<Entry<E>>,
    seq: u64,
    len: usize,
    /// Time of the last event popped.
    last: u64,
    /// Key of the last event popped: what came before it in the order of events has happened.
    last_key: u128,
    /// Bucket width: 2^shift ns.
    shift: u32,
    /// Pops and bucket switches since the last look at the density.
    pops: u64,
    switches: u64,
    /// With ns-2's clock ([`crate::ns2_clock`]): the ns-2 time of the last event popped.
    ns2_now: Option<f64>,
    /// The bits of a key's low word that hold the insertion number: all of them, or with ns-2's
    /// clock those below the double's place ([`Self::raw`]).
    raw_mask: u64,
}

impl<E: Copy + Default> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue {
            heads: Vec::new(),
            slab: Vec::new(),
            free: Vec::new(),
            occupied: vec![0; (RING / 64) as usize],
            cur: 0,
            now_list: Vec::new(),
            now_late: Vec::new(),
            far: Vec::new(),
            seq: 0,
            len: 0,
            last: 0,
            last_key: 0,
            shift: INITIAL_SHIFT,
            pops: 0,
            switches: 0,
            ns2_now: None,
            raw_mask: u64::MAX,
        }
    }
}

impl<E: Copy + Default> EventQueue<E> {
    /// Orders simultaneous events by ns-2's clock ([`crate::ns2_clock`]) from now on; to be
    /// called before the first push.
    pub fn use_ns2_clock(&mut self) {
        debug_assert!(self.len == 0 && self.seq == 0);
        self.ns2_now = Some(0.0);
        self.raw_mask = (1 << crate::ns2_clock::SEQ_BITS) - 1;
    }

    /// The plain insertion number in a key's low word, without a branch on the clock.
    #[inline]
    pub fn raw(&self, low: u64) -> u64 {
        low & self.raw_mask
    }

    /// With ns-2's clock, the ns-2 time of the event just popped.
    pub fn ns2_now(&self) -> Option<f64> {
        self.ns2_now
    }

    /// With ns-2's clock, the insertion number for an event at `time` whose ns-2 time is `d`
    /// ([`crate::ns2_clock::tie`]), for [`push_reserved`](Self::push_reserved); without it,
    /// [`reserve`](Self::reserve)'s.
    pub fn reserve_at(&mut self, time: Time, d: f64) -> u64 {
        let seq = self.reserve();
        match self.ns2_now {
            Some(_) => crate::ns2_clock::tie(time, d, seq),
            None => seq,
        }
    }

    pub fn push(&mut self, time: Time, ev: E) {
        let seq = match self.ns2_now {
            // ns-2's `clock_ + delay` with the delay from the nanoseconds.
            Some(now) => {
                let d = now + crate::ns2_clock::secs(time.0.saturating_sub(self.last));
                self.reserve_at(time, d)
            }
            None => self.reserve(),
        };
        self.push_reserved(time, seq, ev);
    }

    /// The key of the last event popped (its time above its insertion number): an event
    /// reserved with a smaller key would have come before it.
    #[inline]
    pub fn last_key(&self) -> u128 {
        self.last_key
    }

    /// Takes the insertion number that a `push` now would give, for an event that will be
    /// pushed later with [`push_reserved`](Self::push_reserved) but must keep its place among
    /// simultaneous events as if pushed now.
    #[inline]
    pub fn reserve(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// Pushes `ev` with an insertion number from [`reserve`](Self::reserve). Its order is then
    /// exactly what pushing it at reservation would have given, provided it is pushed before
    /// anything later than it is popped.
    #[inline]
    pub fn push_reserved(&mut self, time: Time, seq: u64, ev: E) {
        let e = Entry { key: key(Time(time.0.max(self.last)), seq), ev };
        self.len += 1;
        self.place(e);
    }

    fn bucket(&self, e: &Entry<E>) -> u64 {
        e.time() >> self.shift
    }

    /// Inlined so that the entry goes from registers to its slot. Passed by reference, it was
    /// written to the stack field by field and read back in 16-byte loads, and the profile put
    /// most of `place`'s time on those loads, likely stores that could not be forwarded to
    /// them; inlined, 3% fewer cycles at 10 and at 10 000 flows.
    #[inline(always)]
    fn place(&mut self, e: Entry<E>) {
        let b = self.bucket(&e);
        if b <= self.cur {
            // The current bucket: keep it sorted, earliest last (keys are unique, so the place
            // is exact, whether the insertion number is new or was reserved earlier).
            if self.now_list.len() < LATE_ABOVE {
                let i = self.now_list.partition_point(|x| x.key > e.key);
                self.now_list.insert(i, e);
            } else {
                heap_push(&mut self.now_late, e);
            }
        } else if b < self.cur + RING {
            if self.heads.is_empty() {
                self.heads = vec![NIL; RING as usize];
            }
            let slot = (b & (RING - 1)) as usize;
            let h = self.heads[slot];
            match (h != NIL).then(|| head_parts(h)) {
                Some((c, len)) if len < CHUNK => {
                    self.slab[c as usize].items[len] = e;
                    self.heads[slot] = head(c, len + 1);
                }
                full_or_empty => {
                    let next = full_or_empty.map_or(NIL, |(c, _)| c);
                    let c = match self.free.pop() {
                        Some(c) => {
                            let chunk = &mut self.slab[c as usize];
                            chunk.items[0] = e;
                            chunk.next = next;
                            c
                        }
                        None => {
                            let mut items = [Entry { key: 0, ev: E::default() }; CHUNK];
                            items[0] = e;
                            self.slab.push(Chunk { items, next });
                            self.slab.len() as u32 - 1
                        }
                    };
                    assert!(c < NIL >> FILL_BITS, "event queue: too many pending events");
                    self.heads[slot] = head(c, 1);
                    self.occupied[slot / 64] |= 1 << (slot % 64);
                }
            }
        } else {
            heap_push(&mut self.far, e);
        }
    }

    pub fn pop(&mut self) -> Option<(Time, E)> {
        if self.now_list.is_empty() && self.now_late.is_empty() && !self.advance() {
            return None;
        }
        let e = match (self.now_list.last(), self.now_late.first()) {
            (Some(a), Some(b)) if b.key < a.key => heap_pop(&mut self.now_late)?,
            (Some(_), _) => self.now_list.pop()?,
            (None, _) => heap_pop(&mut self.now_late)?,
        };
        self.len -= 1;
        self.last = e.time();
        self.last_key = e.key;
        if self.ns2_now.is_some() {
            self.ns2_now = Some(crate::ns2_clock::double(Time(self.last), e.key as u64));
        }
        self.pops += 1;
        if self.pops == TUNE_EVERY {
            self.tune();
        }
        Some((Time(e.time()), e.ev))
    }

    /// Adapts the bucket width to the events' density: about three to twelve events per bucket
    /// visited keeps both the scan for the next bucket and the sorting short.
    fn tune(&mut self) {
        let per_bucket = self.pops as f64 / self.switches.max(1) as f64;
        let shift = if per_bucket < 3.0 && self.shift < MAX_SHIFT {
            self.shift + 1
        } else if per_bucket > 12.0 && self.shift > MIN_SHIFT {
            self.shift - 1
        } else {
            self.shift
        };
        self.pops = 0;
        self.switches = 0;
        if shift == self.shift {
            return;
        }
        let mut all: Vec<Entry<E>> = std::mem::take(&mut self.now_list);
        all.append(&mut self.now_late);
        for slot in 0..self.heads.len() {
            self.drain_slot(slot, &mut all, false);
        }
        self.slab.clear();
        self.free.clear();
        all.append(&mut self.far);
        self.occupied.iter_mut().for_each(|w| *w = 0);
        self.shift = shift;
        self.cur = self.last >> shift;
        for e in all {
            self.place(e);
        }
    }

    /// The event that will most likely be popped next, if the current bucket has it at hand: a
    /// hint for prefetching what it will touch, never for logic (an event pushed before then,
    /// or waiting in the late heap, may come first).
    #[inline]
    pub fn peek_hint(&self) -> Option<&E> {
        self.now_list.last().map(|e| &e.ev)
    }

    pub fn peek_time(&mut self) -> Option<Time> {
        if self.now_list.is_empty() && self.now_late.is_empty() && !self.advance() {
            return None;
        }
        let a = self.now_list.last().map(|e| e.key);
        let b = self.now_late.first().map(|e| e.key);
        let key = match (a, b) {
            (Some(a), Some(b)) => a.min(b),
            (a, b) => a.or(b)?,
        };
        Some(Time((key >> 64) as u64))
    }

    /// Makes the next non-empty bucket current; false when nothing is left.
    fn advance(&mut self) -> bool {
        if self.len == 0 {
            return false;
        }
        loop {
            match self.next_occupied(self.cur + 1) {
                Some(b) => {
                    self.switches += 1;
                    self.cur = b;
                    let slot = (b & (RING - 1)) as usize;
                    self.occupied[slot / 64] &= !(1 << (slot % 64));
                    let mut now_list = std::mem::take(&mut self.now_list);
                    self.drain_slot(slot, &mut now_list, true);
                    self.now_list = now_list;
                    if self.now_list.len() <= 32 {
                        self.now_list.sort_unstable_by_key(|e| std::cmp::Reverse(e.key));
                    } else {
                        sort_long(&mut self.now_list);
                    }
                    // Far events the ring now reaches (none of them in this bucket).
                    self.migrate_far();
                    self.prefetch_ahead();
                    return true;
                }
                None => {
                    // The ring is empty: jump to the earliest far event.
                    let Some(first) = self.far.first() else { return false };
                    self.cur = self.bucket(first);
                    self.migrate_far();
                    if !self.now_list.is_empty() || !self.now_late.is_empty() {
                        return true;
                    }
                }
            }
        }
    }

    /// Empties ring slot `slot` into `out`, returning its chunks to the free list if `reuse`
    /// (a retune clears the whole slab instead).
    fn drain_slot(&mut self, slot: usize, out: &mut Vec<Entry<E>>, reuse: bool) {
        let h = std::mem::replace(&mut self.heads[slot], NIL);
        if h == NIL {
            return;
        }
        let (mut i, mut len) = head_parts(h);
        while i != NIL {
            let c = &self.slab[i as usize];
            // Newest first: events mostly arrive in time order, so this hands the sort (latest
            // first) a nearly sorted list, where insertion sort costs next to nothing.
            out.extend(c.items[..len].iter().rev());
            if reuse {
                self.free.push(i);
            }
            i = c.next;
            len = CHUNK;
        }
    }

    /// Asks for the event chunks of the next non-empty buckets, written long ago and by now
    /// out of the caches when many events are pending, so that they arrive while this bucket's
    /// events are handled: the first chunk of the bucket after next, and the second chunk of
    /// the next (whose first was asked for at the last switch, and gives the second's place).
    /// Buckets hold 1.7 chunks on average at 10 000 flows. A hint only: events pushed meanwhile
    /// may change which buckets come next.
    fn prefetch_ahead(&self) {
        let Some(b1) = self.next_occupied(self.cur + 1) else { return };
        let (c1, _) = head_parts(self.heads[(b1 & (RING - 1)) as usize]);
        let second = self.slab[c1 as usize].next;
        if second != NIL {
            self.prefetch_chunk(second);
        }
        if let Some(b2) = self.next_occupied(b1 + 1) {
            self.prefetch_chunk(head_parts(self.heads[(b2 & (RING - 1)) as usize]).0);
        }
    }

    fn prefetch_chunk(&self, c: u32) {
        prefetch_lines(&self.slab[c as usize], std::mem::size_of::<Chunk<E>>().div_ceil(64));
    }

    /// Moves far events that the ring now covers into it (or into the current bucket).
    fn migrate_far(&mut self) {
        while let Some(first) = self.far.first() {
            if self.bucket(first) >= self.cur + RING {
                break;
            }
            let e = heap_pop(&mut self.far).expect("non-empty");
            self.place(e);
        }
    }

    /// The first non-empty bucket from `start` on (`start` after the current one), within the
    /// ring.
    fn next_occupied(&self, start: u64) -> Option<u64> {
        let words = (RING / 64) as usize;
        let mut slot = (start & (RING - 1)) as usize;
        let mut scanned = 0u64;
        let span = self.cur + RING - start;
        while scanned < span {
            let w = slot / 64;
            let bits = self.occupied[w] >> (slot % 64);
            if bits != 0 {
                let off = bits.trailing_zeros() as u64;
                if scanned + off >= span {
                    return None;
                }
                return Some(start + scanned + off);
            }
            let step = 64 - (slot % 64) as u64;
            scanned += step;
            slot = ((w + 1) % words) * 64;
        }
        None
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Sorts a long bucket, latest first, with a merge sort, which takes runs already in order as
/// they are. At 10 000 flows a fifth of the events pass through buckets of 500 to 1 000 (a
/// thousand CBR sources started together send at the same instants, scheduled in order), and
/// there the merge sort took 48 M fewer instructions than quicksort. Keys are unique, so the
/// order is the same either way. (`a_crowd_at_one_instant` below goes through here.)
#[cold]
#[inline(never)]
fn sort_long<E: Copy>(list: &mut [Entry<E>]) {
    list.sort_by_key(|e| std::cmp::Reverse(e.key));
}

fn heap_push<E: Copy>(h: &mut Vec<Entry<E>>, e: Entry<E>) {
    h.push(e);
    let mut i = h.len() - 1;
    while i > 0 {
        let p = (i - 1) / 2;
        if h[p].key <= h[i].key {
            break;
        }
        h.swap(p, i);
        i = p;
    }
}

fn heap_pop<E: Copy>(h: &mut Vec<Entry<E>>) -> Option<Entry<E>> {
    let last = h.pop()?;
    if h.is_empty() {
        return Some(last);
    }
    let top = std::mem::replace(&mut h[0], last);
    let n = h.len();
    let mut i = 0;
    loop {
        let (l, r) = (2 * i + 1, 2 * i + 2);
        let mut m = i;
        if l < n && h[l].key < h[m].key {
            m = l;
        }
        if r < n && h[r].key < h[m].key {
            m = r;
        }
        if m == i {
            break;
        }
        h.swap(i, m);
        i = m;
    }
    Some(top)
}

#[cfg(test)]
mod tests {
    use super::*;
    use fairway_core::Rng;

    #[test]
    fn earliest_first_and_ties_in_insertion_order() {
        let mut q = EventQueue::default();
        q.push(Time(5), 'a');
        q.push(Time(1), 'b');
        q.push(Time(5), 'c');
        q.push(Time(1), 'd');
        q.push(Time(3), 'e');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['b', 'd', 'e', 'a', 'c']);
    }

    /// Against a sorted list, with times spread over microseconds to seconds so that events
    /// land in the current bucket, the ring and the far heap, and cross the ring's wrap.
    #[test]
    fn agrees_with_a_sort_on_random_interleavings() {
        for (seed, spread) in [(4u64, 50u64), (5, 5_000), (6, 2_000_000), (7, 500_000_000)] {
            let mut rng = Rng::from_seed(seed);
            let mut q = EventQueue::default();
            let mut model: Vec<(u64, u64)> = vec![];
            let mut n = 0u64;
            let mut now = 0u64;
            let mut out = vec![];
            let mut expect = vec![];
            for _ in 0..30_000 {
                if rng.bernoulli(0.55) {
                    // Ties are common with small spreads; some events land exactly at `now`.
                    let t = now + if rng.bernoulli(0.1) { 0 } else { rng.below(spread) };
                    n += 1;
                    q.push(Time(t), n);
                    model.push((t, n));
                } else if let Some((t, e)) = q.pop() {
                    now = t.0;
                    out.push((t.0, e));
                    model.sort();
                    expect.push(model.remove(0));
                }
                assert_eq!(q.len(), model.len());
            }
            while let Some((t, e)) = q.pop() {
                out.push((t.0, e));
            }
            model.sort();
            expect.extend(model);
            assert_eq!(out, expect, "spread {spread}");
            assert!(q.is_empty() && q.peek_time().is_none());
        }
    }

    /// Ten thousand events at one instant (flows that all start at 0 s), each answered by an
    /// event a little later but still in the current bucket: the long current bucket sends the
    /// answers to the late heap, and the order must still be time, then insertion.
    #[test]
    fn a_crowd_at_one_instant() {
        let mut q = EventQueue::default();
        for i in 0..10_000u64 {
            q.push(Time(0), i);
        }
        let mut out = vec![];
        while let Some((t, e)) = q.pop() {
            out.push((t.0, e));
            if e < 10_000 {
                q.push(Time(800 + e % 7), 10_000 + e);
            }
        }
        let mut expect: Vec<(u64, u64)> = (0..10_000).map(|i| (0, i)).collect();
        let mut answers: Vec<(u64, u64)> = (0..10_000).map(|e| (800 + e % 7, 10_000 + e)).collect();
        answers.sort();
        expect.extend(answers);
        assert_eq!(out, expect);
    }

    #[test]
    fn the_clock_never_runs_backwards() {
        let mut q = EventQueue::default();
        q.push(Time(1_000_000), 1);
        assert_eq!(q.pop(), Some((Time(1_000_000), 1)));
        q.push(Time(10), 2); // in the past: runs now, after what is already due now
        q.push(Time(1_000_000), 3);
        assert_eq!(q.pop(), Some((Time(1_000_000), 2)));
        assert_eq!(q.pop(), Some((Time(1_000_000), 3)));
    }

    /// Long runs re-tune the bucket width (dense bursts, then sparse stretches) and must keep
    /// the order through every re-bucketing.
    #[test]
    fn order_survives_retuning() {
        let mut rng = Rng::from_seed(8);
        let mut q = EventQueue::default();
        let mut now = 0u64;
        let mut last = (0u64, 0u64);
        let mut n = 0u64;
        let mut shifts = std::collections::BTreeSet::new();
        for round in 0..40 {
            // Alternate dense (ns apart) and sparse (ms apart) phases.
            let spread = if round % 2 == 0 { 200 } else { 50_000_000 };
            for _ in 0..20_000 {
                n += 1;
                q.push(Time(now + rng.below(spread)), n);
                if let Some((t, e)) = q.pop() {
                    assert!((t.0, e) > last || (t.0 > last.0), "out of order: {:?} after {last:?}", (t.0, e));
                    assert!(t.0 >= now);
                    now = t.0;
                    last = (t.0, e);
                }
            }
            shifts.insert(q.shift);
        }
        assert!(shifts.len() > 2, "the width never adapted: {shifts:?}");
    }

    #[test]
    fn far_events_and_an_empty_ring() {
        let mut q = EventQueue::default();
        for (i, t) in [120_000_000_000u64, 5, 60_000_000_000, 70_000_000, 70_000_001].into_iter().enumerate() {
            q.push(Time(t), i);
        }
        let got: Vec<u64> = std::iter::from_fn(|| q.pop().map(|(t, _)| t.0)).collect();
        assert_eq!(got, vec![5, 70_000_000, 70_000_001, 60_000_000_000, 120_000_000_000]);
    }
}
