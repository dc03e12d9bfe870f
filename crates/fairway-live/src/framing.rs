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
//! | 2 | version (2) |
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
//!
//! Size and payload travel beside the bytes as they do beside the message in the simulator: a
//! receiver counts goodput from them, never its protocol's fields.
//!
//! The nonce and its echo catch a receiver that hides losses (seed 002 §7, after RFC 3540's ECN
//! nonce): each data datagram carries a random bit; feedback echoes, for a range of data
//! sequence numbers, how many did not arrive and the sum (exclusive or) of the nonces of those
//! that did. A receiver that claims a range arrived whole, when some of it did not, must guess
//! the lost nonces, and is wrong half the time (src/ends.rs checks).

use fairway_core::Bytes;

pub const MAGIC: [u8; 2] = *b"fw";
pub const VERSION: u8 = 2;
pub const HEADER_LEN: usize = 48;
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
/// its trailing zeros as the IP, UDP and this header take.
pub fn write(h: &Header, bytes: &[u8], out: &mut Vec<u8>) {
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
    let meaningful = bytes.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
    let room = (h.size.0 as usize).saturating_sub(IP_UDP + HEADER_LEN);
    out.extend_from_slice(&bytes[..meaningful.max(room).min(bytes.len())]);
}

/// Why a datagram is not one of fairway's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// Shorter than the header, another magic or version, or an unknown kind.
    NotFairway,
    /// Its lengths do not add up: a body longer than the encoding it claims, or an encoding
    /// above [`MAX_LEN`].
    BadLength,
}

/// Reads a datagram: its header, and its encoding restored into `out`.
pub fn read(d: &[u8], out: &mut Vec<u8>) -> Result<Header, Refused> {
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
    if h.len > MAX_LEN || body.len() > h.len as usize {
        return Err(Refused::BadLength);
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
        write(&h, &enc, &mut d);
        assert_eq!(d.len() + IP_UDP, 1000);
        let mut back = vec![];
        assert_eq!(read(&d, &mut back), Ok(h));
        assert_eq!(back, enc);
    }

    #[test]
    fn meaningful_bytes_are_never_dropped() {
        // A small packet whose encoding fills it: the datagram is longer than the simulator's.
        let enc: Vec<u8> = (1..=40).collect();
        let h = header(40, 40);
        let mut d = vec![];
        write(&h, &enc, &mut d);
        assert_eq!(d.len(), HEADER_LEN + 40);
        let mut back = vec![];
        read(&d, &mut back).unwrap();
        assert_eq!(back, enc);
    }

    #[test]
    fn strangers_are_refused() {
        let mut back = vec![];
        assert_eq!(read(b"GET / HTTP/1.1\r\n\r\n", &mut back), Err(Refused::NotFairway));
        let mut d = vec![];
        write(&header(100, 10), &[1; 10], &mut d);
        let mut bad = d.clone();
        bad[3] = 9;
        assert_eq!(read(&bad, &mut back), Err(Refused::NotFairway));
        // A body longer than the encoding it claims.
        let mut long = d.clone();
        long[20..24].copy_from_slice(&5u32.to_be_bytes());
        assert_eq!(read(&long, &mut back), Err(Refused::BadLength));
        long[20..24].copy_from_slice(&(MAX_LEN + 1).to_be_bytes());
        assert_eq!(read(&long, &mut back), Err(Refused::BadLength));
        assert_eq!(read(&d[..HEADER_LEN - 1], &mut back), Err(Refused::NotFairway));
    }

    #[test]
    fn end_of_flow_round_trips() {
        let e = EndOfFlow { sent_pkts: 1, sent_bytes: u64::MAX, sent_payload: 3, active_ns: 4 };
        assert_eq!(EndOfFlow::decode(&e.encode()), Some(e));
        assert_eq!(EndOfFlow::decode(&[0; 31]), None);
    }
}
