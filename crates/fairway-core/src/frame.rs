//! The preamble every fairway datagram starts with (UDPm, IFTP, UDP and TFRC alike), so that a
//! receiver tells its own messages from anything else that reaches its port:
//!
//! ```text
//! magic u16 = "FW" (0x46 0x57) | version u8 = 2 | type u8 | checksum u16 | the type's fields ...
//! ```
//!
//! The checksum is the Internet checksum (RFC 1071: the ones' complement of the ones' complement
//! sum of 16-bit words) of the header, the checksum field counted as zero; the payload and
//! padding after the header are not covered (UDP's own checksum covers the whole datagram on a
//! real network). Random bytes pass the magic, the version, a known type and the checksum about
//! once in 2^40 tries.
//!
//! Each protocol gives its own type numbers; the ranges do not overlap, so that no protocol
//! takes another's messages.

use thiserror::Error;

pub const MAGIC: [u8; 2] = *b"FW";
pub const VERSION: u8 = 2;
/// Bytes of the preamble; a type's fields start here.
pub const PREAMBLE_LEN: usize = 6;
const CHECKSUM_AT: usize = 4;

/// Why bytes are not a message of the protocol that read them.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FrameError {
    #[error("{len} bytes, shorter than the {need}-byte header")]
    Short { len: usize, need: usize },
    #[error("not a fairway datagram (no \"FW\" magic)")]
    Magic,
    #[error("fairway wire version {0}, expected {VERSION}")]
    Version(u8),
    #[error("message type {0:#04x} is not one of this protocol's")]
    Type(u8),
    #[error("header checksum {found:#06x} where the header sums to {expected:#06x}")]
    Checksum { found: u16, expected: u16 },
}

/// Starts a message of type `kind` at the end of `out`: the preamble with a zero checksum.
/// Returns where the message starts, for [`seal`].
pub fn begin(out: &mut Vec<u8>, kind: u8) -> usize {
    let start = out.len();
    out.extend_from_slice(&MAGIC);
    out.push(VERSION);
    out.push(kind);
    out.extend_from_slice(&[0, 0]);
    start
}

/// Writes the checksum of the header `out[start..start + len]`, once its fields are written
/// and before anything is appended that it does not cover.
pub fn seal(out: &mut [u8], start: usize, len: usize) {
    let sum = checksum(&out[start..start + len]);
    out[start + CHECKSUM_AT..start + CHECKSUM_AT + 2].copy_from_slice(&sum.to_be_bytes());
}

/// Checks the preamble of `b` and the checksum of its header, whose length `header_len` gives
/// for each of the protocol's types (`None`: not one of its types). Returns the type.
pub fn open(b: &[u8], header_len: impl Fn(u8) -> Option<usize>) -> Result<u8, FrameError> {
    if b.len() < PREAMBLE_LEN {
        return Err(FrameError::Short { len: b.len(), need: PREAMBLE_LEN });
    }
    if b[..2] != MAGIC {
        return Err(FrameError::Magic);
    }
    if b[2] != VERSION {
        return Err(FrameError::Version(b[2]));
    }
    let kind = b[3];
    let len = header_len(kind).ok_or(FrameError::Type(kind))?;
    if b.len() < len {
        return Err(FrameError::Short { len: b.len(), need: len });
    }
    let found = u16::from_be_bytes([b[CHECKSUM_AT], b[CHECKSUM_AT + 1]]);
    let expected = checksum(&b[..len]);
    if found != expected {
        return Err(FrameError::Checksum { found, expected });
    }
    Ok(kind)
}

/// RFC 1071 over `h`, its checksum field taken as zero (an odd last byte is padded with zero).
fn checksum(h: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    for (i, pair) in h.chunks(2).enumerate() {
        if i * 2 == CHECKSUM_AT {
            continue;
        }
        let word = u16::from_be_bytes([pair[0], pair.get(1).copied().unwrap_or(0)]);
        sum += u32::from(word);
    }
    while sum > 0xFFFF {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    !(sum as u16)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(kind: u8, fields: &[u8]) -> Vec<u8> {
        let mut out = vec![];
        let start = begin(&mut out, kind);
        out.extend_from_slice(fields);
        let len = out.len();
        seal(&mut out, start, len);
        out
    }

    #[test]
    fn a_sealed_header_opens_and_any_changed_bit_is_caught() {
        let b = message(7, &[1, 2, 3, 4, 5]);
        assert_eq!(b.len(), 11);
        let len = |k: u8| (k == 7).then_some(11);
        assert_eq!(open(&b, len), Ok(7));
        for i in 0..b.len() * 8 {
            let mut c = b.clone();
            c[i / 8] ^= 1 << (i % 8);
            assert!(open(&c, len).is_err(), "bit {i} flipped");
        }
    }

    #[test]
    fn the_checksum_is_rfc_1071s() {
        // RFC 1071 §3's example words 0001 f203 f4f5 f6f7 sum to ddf2 (end-around carry); with
        // the preamble's "FW" 02 07 in front they make the header below.
        let b = message(7, &[0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7]);
        let words = [0x4657u32, 0x0207, 0x0001, 0xf203, 0xf4f5, 0xf6f7];
        let mut s: u32 = words.iter().sum();
        while s > 0xffff {
            s = (s & 0xffff) + (s >> 16);
        }
        assert_eq!(u16::from_be_bytes([b[4], b[5]]), !(s as u16));
    }

    #[test]
    fn what_is_not_a_message_of_ours_says_why() {
        let len = |k: u8| (k == 7).then_some(8);
        let good = message(7, &[9, 9]);
        assert_eq!(open(&good[..5], len), Err(FrameError::Short { len: 5, need: 6 }));
        assert_eq!(open(&[0, 1, 2, 3, 4, 5, 6, 7], len), Err(FrameError::Magic));
        let mut v = good.clone();
        v[2] = 1;
        assert_eq!(open(&v, len), Err(FrameError::Version(1)));
        assert_eq!(open(&message(8, &[9, 9]), len), Err(FrameError::Type(8)));
        assert_eq!(open(&message(7, &[9]), len), Err(FrameError::Short { len: 7, need: 8 }));
    }
}
