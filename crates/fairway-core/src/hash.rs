//! FNV-1a, 64 bit (Fowler, Noll, Vo): a small, stable, non-cryptographic hash. It names random
//! streams (`rng::Rng::stream`) and keys the simulator's lookup tables. std's hashers are not
//! stable across releases, and their resistance to chosen collisions is not needed for scenario
//! files.

/// The hash of no bytes: where a hash starts.
pub const FNV1A64_START: u64 = 0xcbf2_9ce4_8422_2325;

/// The hash `h` continued over `bytes` (start from [`FNV1A64_START`]).
#[inline]
pub fn fnv1a64_extend(mut h: u64, bytes: &[u8]) -> u64 {
    for b in bytes {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    h
}

/// The hash of `bytes`.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    fnv1a64_extend(FNV1A64_START, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The published test vectors of FNV-1a 64.
    #[test]
    fn reference_values() {
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
        assert_eq!(fnv1a64_extend(fnv1a64(b"foo"), b"bar"), fnv1a64(b"foobar"));
    }
}
