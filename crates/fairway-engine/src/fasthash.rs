//! A fast hash for the simulator's own lookup tables (node names, link ends, flow names while
//! reading a scenario): fairway-core's FNV-1a, the hash that names random streams. std's default,
//! SipHash, resists keys chosen to collide, which matters for tables fed by an adversary over a
//! network; a scenario file is not one, and with ten thousand flows SipHash and its rehashing
//! were a fifth of reading the file. No result may depend on a table's iteration order anyway.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use fairway_core::hash::{fnv1a64_extend, FNV1A64_START};

#[derive(Debug, Clone, Copy)]
pub struct FastHasher {
    h: u64,
}

impl Default for FastHasher {
    fn default() -> Self {
        FastHasher { h: FNV1A64_START }
    }
}

impl Hasher for FastHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        self.h = fnv1a64_extend(self.h, bytes);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.h
    }
}

/// A `HashMap` with [`FastHasher`].
pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::{BuildHasher, Hash};

    fn hash<T: Hash>(x: T) -> u64 {
        BuildHasherDefault::<FastHasher>::default().hash_one(x)
    }

    /// Names that differ in one character, or only in length, hash apart; and both ends of the
    /// hash, the low bits that pick a table's bucket and the high bits of its tag, are spread:
    /// 20 000 host names fall into most of 2^16 bins taken from either end.
    #[test]
    fn near_names_spread() {
        assert_ne!(hash("ts1"), hash("ts2"));
        assert_ne!(hash("ab"), hash("ab\0"));
        let names: Vec<String> = (0..10_000).flat_map(|i| [format!("ts{i}"), format!("td{i}")]).collect();
        // 20 000 balls in 65 536 bins: about 17 700 bins are hit if the hash is uniform.
        for (end, shift) in [("low", 0), ("high", 48)] {
            let seen: std::collections::HashSet<u64> = names.iter().map(|n| hash(n) >> shift & 0xffff).collect();
            assert!(seen.len() > 16_500, "{} distinct {end} 16-bit values", seen.len());
        }
        // Node pairs (link ends) too.
        let pairs: std::collections::HashSet<u64> = (0..20_000u32).map(|i| hash((i, i % 7)) & 0xffff).collect();
        assert!(pairs.len() > 16_500, "{} distinct low 16-bit values", pairs.len());
    }

    #[test]
    fn tables_work() {
        let mut m: FastMap<String, usize> = FastMap::default();
        for i in 0..1000 {
            m.insert(format!("n{i}"), i);
        }
        assert!((0..1000).all(|i| m[&format!("n{i}")] == i));
    }
}
