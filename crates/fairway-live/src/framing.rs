//! How a live datagram carries an endpoint's bytes: a header of fairway's own, then the bytes
//! [`WireEnd::poll_datagram`](fairway_proto::WireEnd) wrote, less the trailing zeros of their
//! padding.
//!
//! The simulator gives a packet a size (IP header included, as ns-2 does) and the application
//! bytes in it; the endpoint pads its encoding to that size. On a socket, the IP and UDP headers
//! (28 bytes) and this header come on top, so the padding they replace is left out: the IP
//! packet is then as long as the simulator's, unless the encoding's meaningful bytes are too
//! many to leave room. The receiver restores the zeros.
//!
//! The header, big-endian:
//!
//! | bytes | field |
//! |---|---|
//! | 0-1 | magic `fw` |
//! | 2 | version (3) |
//! | 3 | kind: 0 data (sender to receiver), 1 feedback (receiver to sender), 2 end of flow |
//! | 4-7 | the flow (its index in the scenario) |
//! | 8-11 | sequence number, per kind, from 0 |
//! | 12-15 | size the simulator would give the packet |
//! | 16-19 | application bytes in it |
//! | 20-23 | length of the endpoint's encoding |
//! | 24-31 | when it was sent, ns of the sender's wall clock |
//! | 32 | flags: bit 0 the data's nonce, bit 1 an echo follows, bit 2 the echo's nonce sum |
//! | 33-35 | zero |
//! | 36-39 | echo: the first data sequence number it covers |
//! | 40-43 | echo: the last |
//! | 44-47 | echo: how many of them did not arrive |
//! | 48-63 | tag: the flow's key's HMAC of the datagram, this field left out ([`Key`]) |
//!
//! The tag makes the datagram the sender's: without the key nobody can write one a receiver
//! takes, and one changed or cut on the way is refused.
//!
//! Size and payload travel beside the bytes as they do beside the message in the simulator: a
//! receiver counts goodput from them, never its protocol's fields.
//!
//! The nonce and its echo catch a receiver that hides losses (elaarag2002 §7, after RFC 3540's ECN
//! nonce): each data datagram carries a random bit; feedback echoes, for a range of data
//! sequence numbers, how many did not arrive and the sum (exclusive or) of the nonces of those
//! that did. A receiver that claims a range arrived whole, when some of it did not, must guess
//! the lost nonces, and is wrong half the time (src/ends.rs checks).

use fairway_core::Bytes;

use crate::key::{Key, TAG_LEN};

pub const MAGIC: [u8; 2] = *b"fw";
pub const VERSION: u8 = 3;
pub const HEADER_LEN: usize = 64;
/// Where the tag is.
const TAG_AT: usize = HEADER_LEN - TAG_LEN;
/// IPv4's and UDP's headers, which the socket adds.
pub const IP_UDP: usize = 28;
/// The largest encoding accepted, as the simulator's largest packet.
pub const MAX_LEN: u32 = 1_000_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Data,
    Feedback,
    /// The sender has stopped; the body holds its totals ([`EndOfFlow`]).
    End,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub kind: Kind,
    pub flow: u32,
    pub seq: u32,
    pub size: Bytes,
    pub payload: Bytes,
    pub len: u32,
    pub sent_ns: u64,
    /// A data datagram's nonce.
    pub nonce: bool,
    /// Feedback's account of the data received.
    pub echo: Option<Echo>,
}

/// What a receiver says of the data sequence numbers `from..=to`: how many did not arrive, and
/// the sum of the nonces of those that did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Echo {
    pub from: u32,
    pub to: u32,
    pub missing: u32,
    pub sum: bool,
}

/// Writes `h` and then `bytes` (the encoding, `h.len` long) into `out`, dropping as many of
/// its trailing zeros as the IP, UDP and this header take, and tags it with `key`.
pub fn write(h: &Header, bytes: &[u8], key: &Key, out: &mut Vec<u8>) {
    debug_assert_eq!(h.len as usize, bytes.len());
    out.clear();
    out.extend_from_slice(&MAGIC);
    out.push(VERSION);
    out.push(match h.kind {
        Kind::Data => 0,
        Kind::Feedback => 1,
        Kind::End => 2,
    });
    for v in [h.flow, h.seq, h.size.0 as u32, h.payload.0 as u32, h.len] {
        out.extend_from_slice(&v.to_be_bytes());
    }
    out.extend_from_slice(&h.sent_ns.to_be_bytes());
    let e = h.echo.unwrap_or(Echo { from: 0, to: 0, missing: 0, sum: false });
    out.extend_from_slice(&[h.nonce as u8 | (h.echo.is_some() as u8) << 1 | (e.sum as u8) << 2, 0, 0, 0]);
    for v in [e.from, e.to, e.missing] {
        out.extend_from_slice(&v.to_be_bytes());
    }
    out.extend_from_slice(&[0; TAG_LEN]);
    let meaningful = bytes.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
    out.extend_from_slice(&bytes[..meaningful.max(room(h)).min(bytes.len())]);
    let tag = key.tag(&[&out[..TAG_AT], &out[HEADER_LEN..]]);
    out[TAG_AT..HEADER_LEN].copy_from_slice(&tag);
}

/// The encoding's bytes a datagram of `h` carries at least: those the simulator's size leaves
/// after the IP, UDP and this header.
fn room(h: &Header) -> usize {
    (h.size.0 as usize).saturating_sub(IP_UDP + HEADER_LEN)
}

/// Why a datagram is not one of fairway's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// Shorter than the header, another magic or version, or an unknown kind.
    NotFairway,
    /// Its lengths do not add up: a body longer than the encoding it claims, an encoding above
    /// [`MAX_LEN`], a size the encoding could not fill, more payload than size.
    BadLength,
    /// Shorter than its writer made it: cut on the way (or its size field lies).
    Truncated,
    /// Its tag is not the key's: forged, changed on the way, or tagged with another key.
    Forged,
}

/// Reads a datagram tagged with `key`: its header, and its encoding restored into `out`. A
/// datagram whose numbers do not add up, or whose tag is not `key`'s, is refused; so the size it
/// reports is never more than the datagram itself carried (the IP and UDP headers included).
pub fn read(d: &[u8], key: &Key, out: &mut Vec<u8>) -> Result<Header, Refused> {
    if d.len() < HEADER_LEN || d[..2] != MAGIC || d[2] != VERSION {
        return Err(Refused::NotFairway);
    }
    let kind = match d[3] {
        0 => Kind::Data,
        1 => Kind::Feedback,
        2 => Kind::End,
        _ => return Err(Refused::NotFairway),
    };
    let u32_at = |i: usize| u32::from_be_bytes(d[i..i + 4].try_into().unwrap());
    let h = Header {
        kind,
        flow: u32_at(4),
        seq: u32_at(8),
        size: Bytes(u32_at(12) as u64),
        payload: Bytes(u32_at(16) as u64),
        len: u32_at(20),
        sent_ns: u64::from_be_bytes(d[24..32].try_into().unwrap()),
        nonce: d[32] & 1 != 0,
        echo: (d[32] & 2 != 0).then(|| Echo {
            from: u32_at(36),
            to: u32_at(40),
            missing: u32_at(44),
            sum: d[32] & 4 != 0,
        }),
    };
    let body = &d[HEADER_LEN..];
    let len = h.len as usize;
    if h.len > MAX_LEN || body.len() > len || h.size.0 as usize > IP_UDP + HEADER_LEN + len || h.payload > h.size {
        return Err(Refused::BadLength);
    }
    if body.len() < room(&h).min(len) {
        return Err(Refused::Truncated);
    }
    if !key.verify(&[&d[..TAG_AT], body], &d[TAG_AT..HEADER_LEN]) {
        return Err(Refused::Forged);
    }
    out.clear();
    out.extend_from_slice(body);
    out.resize(h.len as usize, 0);
    Ok(h)
}

/// What an end-of-flow datagram's body says: the sender's totals, and how long its
/// application ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EndOfFlow {
    pub sent_pkts: u64,
    pub sent_bytes: u64,
    pub sent_payload: u64,
    pub active_ns: u64,
}

impl EndOfFlow {
    pub const LEN: usize = 32;

    pub fn encode(&self) -> [u8; 32] {
        let mut b = [0u8; 32];
        for (i, v) in [self.sent_pkts, self.sent_bytes, self.sent_payload, self.active_ns].into_iter().enumerate() {
            b[i * 8..i * 8 + 8].copy_from_slice(&v.to_be_bytes());
        }
        b
    }

    pub fn decode(b: &[u8]) -> Option<EndOfFlow> {
        if b.len() != Self::LEN {
            return None;
        }
        let at = |i: usize| u64::from_be_bytes(b[i * 8..i * 8 + 8].try_into().unwrap());
        Some(EndOfFlow { sent_pkts: at(0), sent_bytes: at(1), sent_payload: at(2), active_ns: at(3) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> Key {
        Key::from_bytes([7; 32])
    }

    fn header(size: u64, len: u32) -> Header {
        Header {
            kind: Kind::Data,
            flow: 7,
            seq: 3,
            size: Bytes(size),
            payload: Bytes(size - 40),
            len,
            sent_ns: 1 << 40,
            nonce: true,
            echo: Some(Echo { from: 9, to: 1 << 31, missing: 5, sum: true }),
        }
    }

    #[test]
    fn padding_makes_room_for_the_headers_and_comes_back() {
        // A 1000-byte packet whose encoding has 20 meaningful bytes: the socket carries
        // 1000 - 28 bytes, so the IP packet is the simulator's size.
        let mut enc = vec![0u8; 1000];
        enc[..20].fill(9);
        let h = header(1000, 1000);
        let mut d = vec![];
        write(&h, &enc, &key(), &mut d);
        assert_eq!(d.len() + IP_UDP, 1000);
        let mut back = vec![];
        assert_eq!(read(&d, &key(), &mut back), Ok(h));
        assert_eq!(back, enc);
    }

    #[test]
    fn meaningful_bytes_are_never_dropped() {
        // A small packet whose encoding fills it: the datagram is longer than the simulator's.
        let enc: Vec<u8> = (1..=40).collect();
        let h = header(40, 40);
        let mut d = vec![];
        write(&h, &enc, &key(), &mut d);
        assert_eq!(d.len(), HEADER_LEN + 40);
        let mut back = vec![];
        read(&d, &key(), &mut back).unwrap();
        assert_eq!(back, enc);
    }

    #[test]
    fn strangers_are_refused() {
        let (k, mut back) = (key(), vec![]);
        assert_eq!(read(b"GET / HTTP/1.1\r\n\r\n", &k, &mut back), Err(Refused::NotFairway));
        let mut d = vec![];
        write(&header(100, 10), &[1; 10], &k, &mut d);
        assert!(read(&d, &k, &mut back).is_ok());
        let mut bad = d.clone();
        bad[3] = 9;
        assert_eq!(read(&bad, &k, &mut back), Err(Refused::NotFairway));
        // A body longer than the encoding it claims.
        let mut long = d.clone();
        long[20..24].copy_from_slice(&5u32.to_be_bytes());
        assert_eq!(read(&long, &k, &mut back), Err(Refused::BadLength));
        long[20..24].copy_from_slice(&(MAX_LEN + 1).to_be_bytes());
        assert_eq!(read(&long, &k, &mut back), Err(Refused::BadLength));
        assert_eq!(read(&d[..HEADER_LEN - 1], &k, &mut back), Err(Refused::NotFairway));
    }

    /// The size a receiver counts is bounded by what the datagram carried: 4294967295 bytes in
    /// a 74-byte datagram is refused before the tag is looked at.
    #[test]
    fn a_size_the_datagram_cannot_hold_is_refused() {
        let (k, mut back) = (key(), vec![]);
        let mut d = vec![];
        write(&header(100, 10), &[1; 10], &k, &mut d);
        let mut big = d.clone();
        big[12..16].copy_from_slice(&u32::MAX.to_be_bytes());
        assert_eq!(read(&big, &k, &mut back), Err(Refused::BadLength));
        // More application bytes than the packet has.
        let mut payload = d.clone();
        payload[16..20].copy_from_slice(&101u32.to_be_bytes());
        assert_eq!(read(&payload, &k, &mut back), Err(Refused::BadLength));
    }

    #[test]
    fn a_cut_datagram_is_truncated_and_a_changed_or_foreign_one_forged() {
        let (k, mut back) = (key(), vec![]);
        let mut enc = vec![0u8; 1000];
        enc[..20].fill(9);
        let mut d = vec![];
        write(&header(1000, 1000), &enc, &k, &mut d);
        // Cut anywhere in the body (the receiver would zero-pad what is missing).
        for cut in [d.len() - 1, d.len() - 500, HEADER_LEN] {
            assert_eq!(read(&d[..cut], &k, &mut back), Err(Refused::Truncated), "cut at {cut}");
        }
        // One bit changed anywhere: in the header, the tag, the body.
        for at in [4, 8, 12, 24, 32, 47, TAG_AT, HEADER_LEN - 1, HEADER_LEN, d.len() - 1] {
            let mut bad = d.clone();
            bad[at] ^= 1;
            let r = read(&bad, &k, &mut back);
            assert!(matches!(r, Err(Refused::Forged | Refused::BadLength)), "bit at {at}: {r:?}");
        }
        assert_eq!(read(&d, &Key::from_bytes([8; 32]), &mut back), Err(Refused::Forged), "another key");
    }

    #[test]
    fn end_of_flow_round_trips() {
        let e = EndOfFlow { sent_pkts: 1, sent_bytes: u64::MAX, sent_payload: 3, active_ns: 4 };
        assert_eq!(EndOfFlow::decode(&e.encode()), Some(e));
        assert_eq!(EndOfFlow::decode(&[0; 31]), None);
    }
}
