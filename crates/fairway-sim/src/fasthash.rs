//! A fast hash for the simulator's own lookup tables (node names, link ends, flow names while
//! reading a scenario). std's default, SipHash, resists keys chosen to collide, which matters
//! for tables fed by an adversary over a network; a scenario file is not one, and with ten
//! thousand flows SipHash and its rehashing were a fifth of reading the file. The hash is
//! deterministic, though no result may depend on a table's iteration order anyway.
//!
//! Multiplicative hashing (Knuth, TAOCP vol. 3, 6.4): each 64-bit word of the key is mixed into
//! the state by a rotation, an exclusive or and a multiplication by 2^64 / phi, which spreads
//! every input bit into the high bits; `finish` folds them back into the low bits.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// 2^64 / golden ratio, odd.
const K: u64 = 0x9e37_79b9_7f4a_7c15;

#[derive(Debug, Default, Clone, Copy)]
pub struct FastHasher {
    h: u64,
}

impl FastHasher {
    #[inline]
    fn add(&mut self, w: u64) {
        self.h = (self.h.rotate_left(26) ^ w).wrapping_mul(K);
    }
}

impl Hasher for FastHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            self.add(u64::from_le_bytes(w.try_into().expect("8 bytes")));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(w) ^ (rest.len() as u64) << 59);
        }
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(i as u64);
    }

    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(i as u64);
    }

    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    /// The state with its high bits folded into the low ones: a table picks a bucket from the
    /// low bits of the hash (and a tag from the high bits), and a product's low bits depend
    /// only on the factors' low bits.
    #[inline]
    fn finish(&self) -> u64 {
        let h = (self.h ^ self.h >> 32).wrapping_mul(K);
        h ^ h >> 29
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
