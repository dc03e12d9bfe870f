//! Samples of a running count at fixed moments, for a live run's time series (flows.csv): the
//! loop that owns the count wakes for [`Sampler::next`] and hands the count to
//! [`Sampler::record`]; the moments it slept past get the count it had when it woke.

/// Moments to sample at, in order, and what was taken so far.
#[derive(Debug, Clone)]
pub struct Sampler<K, T> {
    at: Vec<K>,
    taken: Vec<T>,
}

impl<K: Ord + Copy, T: Clone> Sampler<K, T> {
    pub fn new(at: Vec<K>) -> Self {
        debug_assert!(at.windows(2).all(|w| w[0] <= w[1]), "moments in order");
        Sampler { at, taken: Vec::new() }
    }

    /// The next moment to sample at, if any is left.
    pub fn next(&self) -> Option<K> {
        self.at.get(self.taken.len()).copied()
    }

    /// Takes `count()` for every moment that `now` has reached; `count` is called once, and
    /// only if one has.
    pub fn record(&mut self, now: K, count: impl FnOnce() -> T) {
        if self.next().is_some_and(|t| t <= now) {
            let v = count();
            while self.next().is_some_and(|t| t <= now) {
                self.taken.push(v.clone());
            }
        }
    }

    /// The count stays `v` from now on: every moment left takes it.
    pub fn finish(&mut self, v: T) {
        while self.taken.len() < self.at.len() {
            self.taken.push(v.clone());
        }
    }

    pub fn moments(&self) -> &[K] {
        &self.at
    }

    pub fn taken(&self) -> &[T] {
        &self.taken
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moments_slept_past_take_the_count_at_waking_and_finish_fills_the_rest() {
        let mut s = Sampler::new(vec![10, 20, 30, 40]);
        s.record(5, || panic!("no moment reached"));
        assert_eq!(s.next(), Some(10));
        s.record(25, || 7);
        assert_eq!(s.taken(), [7, 7]);
        s.record(30, || 9);
        s.finish(11);
        assert_eq!(s.taken(), [7, 7, 9, 11]);
        assert_eq!(s.next(), None);
    }
}
