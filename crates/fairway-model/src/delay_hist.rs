//! One flow's one-way delays as a log-spaced histogram: its percentiles and its CDF (RFC 8868 §3
//! has a run report packet delay's statistics and its histogram or CDF) in memory that does not
//! grow with the packet count.
//!
//! Delays are whole nanoseconds. Delays below 128 ns have a bucket each; above, every octave
//! [2^e, 2^(e+1)) is cut into 64 buckets of equal width 2^(e-6), so a bucket is at most 1/64 of
//! its lower edge wide (the layout of Gil Tene's HdrHistogram: the top bits of the value pick
//! the bucket, with no logarithm taken). A bucket stands for the middle of the nanoseconds it
//! holds, which is less than 2^-7 (0.78%) of any delay in it away from that delay: the
//! [`RELATIVE_ERROR`] of a percentile. Delays from 0 to [`MAX_NS`] (2^40 - 1 ns, 1099.5 s) have
//! buckets, [`BUCKETS`] (2240) in all; a longer delay counts in the last.
//!
//! A flow's histogram keeps only the run of buckets from the shortest to the longest delay it has
//! seen (a delay outside it widens the run at least twofold, so a flow allocates a few dozen
//! times at most); counts are exact, so two histograms add and subtract bucket by bucket.

/// Bits of a delay below its leading one that choose the bucket within its octave: 64 an octave.
const SUB_BITS: u32 = 6;
const SUB: u64 = 1 << SUB_BITS;

/// The longest delay with a bucket of its own, in nanoseconds (2^40 - 1, 1099.5 s).
pub const MAX_NS: u64 = (1 << 40) - 1;

/// How many buckets cover 0 to [`MAX_NS`].
pub const BUCKETS: usize = bucket(MAX_NS) + 1;

/// A percentile's greatest error relative to the true sample quantile (for delays over 127 ns,
/// which below that are exact): half a bucket's width over its lower edge, 2^-7.
pub const RELATIVE_ERROR: f64 = 1.0 / (2 * SUB) as f64;

/// The bucket of a delay of `ns` nanoseconds (at most [`MAX_NS`]): with `e` the position of its
/// leading one, at least `SUB_BITS`, octave `e - SUB_BITS` holds 64 buckets, and the value's
/// `SUB_BITS + 1` top bits (64 to 127) choose among them. Below 128 this is `ns` itself.
#[inline]
pub const fn bucket(ns: u64) -> usize {
    let e = 63 - (ns | SUB).leading_zeros();
    let shift = e - SUB_BITS;
    ((shift as u64) << SUB_BITS) as usize + (ns >> shift) as usize
}

/// The nanoseconds bucket `i` holds: its lowest and its width.
pub const fn bucket_span(i: usize) -> (u64, u64) {
    let k = (i as u64) >> SUB_BITS;
    if k < 2 {
        (i as u64, 1)
    } else {
        // Octave k - 1 above the exact ones: the top bits (64 + the bucket's place) shifted up.
        ((SUB + (i as u64 & (SUB - 1))) << (k - 1), 1 << (k - 1))
    }
}

/// The delay bucket `i` stands for, in seconds: the middle of the nanoseconds it holds.
pub fn bucket_value_s(i: usize) -> f64 {
    let (lo, w) = bucket_span(i);
    (lo as f64 + (w - 1) as f64 / 2.0) / 1e9
}

/// The longest delay bucket `i` holds, in seconds.
pub fn bucket_top_s(i: usize) -> f64 {
    let (lo, w) = bucket_span(i);
    (lo + w - 1) as f64 / 1e9
}

/// The rank of the `q` quantile of `n` samples: the smallest x with at least ceil(q n) of them
/// <= x is the ceil(q n)-th smallest sample (at least the first). A hair under q n is taken as q
/// n, so that 0.95 x 100, which floats make 95.00000000000001, is rank 95.
pub fn rank(q: f64, n: u64) -> u64 {
    let x = q.clamp(0.0, 1.0) * n as f64;
    ((x - x * 1e-12).ceil() as u64).clamp(1, n.max(1))
}

/// A flow's delays, counted per bucket.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DelayHist {
    /// Empty before the first delay; then the index of the first bucket of the run seen so far,
    /// followed by the counts of that bucket and those after it. One allocation, addressed by a
    /// pointer and a length: 16 bytes in a flow's state, where the simulator keeps it.
    b: Box<[u64]>,
}

impl DelayHist {
    pub fn new() -> DelayHist {
        DelayHist::default()
    }

    #[inline]
    fn first(&self) -> usize {
        self.b.first().map_or(0, |&f| f as usize)
    }

    fn counts(&self) -> &[u64] {
        self.b.get(1..).unwrap_or(&[])
    }

    /// Counts a delay of `ns` nanoseconds. One add, and an allocation only when the delay falls
    /// outside every bucket seen so far.
    #[inline]
    pub fn record_ns(&mut self, ns: u64) {
        let i = bucket(ns.min(MAX_NS));
        // Below the first bucket wraps round to a huge offset, out of range as above the end is.
        let j = i.wrapping_sub(self.first());
        match self.b.get_mut(1..).and_then(|c| c.get_mut(j)) {
            Some(c) => *c += 1,
            None => self.add_outside(i, 1),
        }
    }

    /// Counts a delay of `s` seconds, to the nearest nanosecond (a negative delay, which
    /// disagreeing clocks can give, as 0).
    pub fn record_s(&mut self, s: f64) {
        self.record_ns(if s > 0.0 { (s * 1e9).round().min(MAX_NS as f64) as u64 } else { 0 });
    }

    /// Widens the run of buckets to take bucket `i`, at least doubling it towards `i`, and adds
    /// `c` to it.
    #[cold]
    fn add_outside(&mut self, i: usize, c: u64) {
        let (first, counts) = (self.first(), self.counts());
        let len = counts.len();
        let (lo, hi) = if len == 0 {
            (i, i + 1)
        } else if i < first {
            (i.min(first.saturating_sub(len)), first + len)
        } else {
            (first, (i + 1).max(first + 2 * len).min(BUCKETS))
        };
        let mut b = vec![0; 1 + hi - lo];
        b[0] = lo as u64;
        if len > 0 {
            b[1 + first - lo..1 + first - lo + len].copy_from_slice(counts);
        }
        b[1 + i - lo] += c;
        self.b = b.into_boxed_slice();
    }

    /// How many delays it holds.
    pub fn count(&self) -> u64 {
        self.counts().iter().sum()
    }

    /// Every bucket with a delay in it, shortest first: (bucket, count).
    pub fn buckets(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        let first = self.first();
        self.counts().iter().enumerate().filter(|(_, &c)| c > 0).map(move |(j, &c)| (first + j, c))
    }

    /// The `q` quantile in seconds (see [`rank`]), within [`RELATIVE_ERROR`] of the sample's:
    /// the value of the bucket the rank-th shortest delay is in. None if it holds none.
    pub fn quantile_s(&self, q: f64) -> Option<f64> {
        let n = self.count();
        if n == 0 {
            return None;
        }
        let r = rank(q, n);
        let mut seen = 0;
        for (i, c) in self.buckets() {
            seen += c;
            if seen >= r {
                return Some(bucket_value_s(i));
            }
        }
        unreachable!("the counts add up to n")
    }

    /// Adds `other`'s delays to its own (a class's flows, or replications, pooled).
    pub fn merge(&mut self, other: &DelayHist) {
        for (i, c) in other.buckets() {
            let j = i.wrapping_sub(self.first());
            match self.b.get_mut(1..).and_then(|x| x.get_mut(j)) {
                Some(x) => *x += c,
                None => self.add_outside(i, c),
            }
        }
    }

    /// The delays it holds that `earlier`, an earlier state of itself, did not: those counted
    /// since then.
    pub fn since(&self, earlier: &DelayHist) -> DelayHist {
        let mut d = self.clone();
        let first = d.first();
        for (i, c) in earlier.buckets() {
            d.b[1 + i - first] -= c;
        }
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rank-th smallest of `xs` (sorted), the quantile `quantile_s` estimates.
    fn exact(sorted: &[u64], q: f64) -> f64 {
        sorted[rank(q, sorted.len() as u64) as usize - 1] as f64 * 1e-9
    }

    fn check(xs: &mut [u64]) {
        let mut h = DelayHist::new();
        for &x in xs.iter() {
            h.record_ns(x);
        }
        xs.sort_unstable();
        assert_eq!(h.count(), xs.len() as u64);
        for q in [0.0, 0.01, 0.25, 0.5, 0.9, 0.95, 0.99, 0.999, 1.0] {
            let (got, want) = (h.quantile_s(q).unwrap(), exact(xs, q));
            assert!((got - want).abs() <= RELATIVE_ERROR * want, "q {q}: {got} against {want}");
        }
    }

    /// A small generator of its own (xorshift64*), so the test draws the same samples always.
    fn draws(n: usize) -> impl Iterator<Item = f64> {
        let mut s: u64 = 0x9E37_79B9_7F4A_7C15;
        (0..n).map(move |_| {
            s ^= s >> 12;
            s ^= s << 25;
            s ^= s >> 27;
            (s.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
        })
    }

    #[test]
    fn buckets_tile_the_range_and_are_at_most_a_64th_wide() {
        let mut next = 0;
        for i in 0..BUCKETS {
            let (lo, w) = bucket_span(i);
            assert_eq!(lo, next, "bucket {i} starts where the one before ends");
            assert_eq!(bucket(lo), i);
            assert_eq!(bucket(lo + w - 1), i);
            assert!(w == 1 || w * SUB <= lo, "bucket {i}: {w} wide at {lo}");
            next = lo + w;
        }
        assert_eq!(next, MAX_NS + 1);
        assert_eq!(BUCKETS, 2240);
    }

    #[test]
    fn quantiles_of_uniform_delays_are_within_the_error() {
        // 10^5 delays uniform on 1 ms to 201 ms.
        let mut xs: Vec<u64> = draws(100_000).map(|u| 1_000_000 + (u * 200e6) as u64).collect();
        check(&mut xs);
    }

    #[test]
    fn quantiles_of_exponential_delays_are_within_the_error() {
        // 10^5 delays of 10 ms plus an exponential of mean 20 ms, and a long tail of a few seconds.
        let mut xs: Vec<u64> = draws(100_000).map(|u| 10_000_000 + (-(1.0 - u).ln() * 20e6) as u64).collect();
        check(&mut xs);
        // Spread over nine decades: 1 ns to about 1000 s.
        let mut wide: Vec<u64> = draws(100_000).map(|u| 10f64.powf(12.0 * u) as u64).collect();
        check(&mut wide);
    }

    #[test]
    fn no_delays_no_quantile_and_one_delay_is_every_quantile() {
        let h = DelayHist::new();
        assert_eq!(h.quantile_s(0.5), None);
        assert_eq!((h.buckets().count(), h.count()), (0, 0));
        let mut h = DelayHist::new();
        h.record_s(0.0123);
        for q in [0.0, 0.5, 0.99, 1.0] {
            let v = h.quantile_s(q).unwrap();
            assert!((v - 0.0123).abs() <= RELATIVE_ERROR * 0.0123);
        }
        // A negative delay counts as 0, one beyond the last bucket in the last.
        let mut h = DelayHist::new();
        h.record_s(-1.0);
        h.record_s(5000.0);
        assert_eq!(h.buckets().collect::<Vec<_>>(), vec![(0, 1), (BUCKETS - 1, 1)]);
    }

    #[test]
    fn merged_and_subtracted_histograms_are_those_of_the_delays_pooled_or_left() {
        let xs: Vec<u64> = draws(20_000).map(|u| (u * 1e9) as u64 + 50).collect();
        let (a, b) = xs.split_at(7_000);
        let (mut ha, mut hb, mut all) = (DelayHist::new(), DelayHist::new(), DelayHist::new());
        a.iter().for_each(|&x| ha.record_ns(x));
        b.iter().for_each(|&x| hb.record_ns(x));
        xs.iter().for_each(|&x| all.record_ns(x));
        let mut m = ha.clone();
        m.merge(&hb);
        assert_eq!(m.buckets().collect::<Vec<_>>(), all.buckets().collect::<Vec<_>>());
        assert_eq!(m.count(), all.count());
        let left = all.since(&ha);
        assert_eq!(left.buckets().collect::<Vec<_>>(), hb.buckets().collect::<Vec<_>>());
        assert_eq!(left.count(), hb.count());
    }

    #[test]
    fn the_rank_is_ceil_q_n() {
        assert_eq!(rank(0.95, 100), 95);
        assert_eq!(rank(0.5, 3), 2);
        assert_eq!(rank(0.0, 10), 1);
        assert_eq!(rank(1.0, 10), 10);
        assert_eq!(rank(0.99, 1), 1);
    }
}
