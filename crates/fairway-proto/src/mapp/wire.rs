//! UDPm: the wire format of the congestion-aware multimedia system of kadhum2015 (Kadhum &
//! Hassanein 2015, §3.2: "the modified UDP ... writing the information received from a MApp
//! object to the header"), carried as the payload of an ordinary UDP datagram.
//!
//! Two message types follow fairway's preamble ([`fairway_core::frame`]: magic, version, type,
//! header checksum) with a flow id; all fields are big-endian:
//!
//! ```text
//! preamble   "FW" | version u8 (= 2) | type u8 (0x01 data, 0x02 feedback) | checksum u16
//!            | flow id u32
//! data       flags u8 | scale u8 | frag index u16 | frag count u16 | seq u32 | frame u32
//!            | send time u32 (us) | rtt u32 (us, 0 = unknown)            -> 32 bytes
//! feedback   scale u8 | flags u8 | echo time u32 (us) | hold u32 (us) | highest seq u32
//!            | lost u32 | marked u32                                      -> 32 bytes
//! ```
//!
//! - `flags` of a data packet: bit 0 is the multimedia tag a router may classify on (kadhum2015 §5:
//!   "multimedia packets can be identified (or labeled) by transport layer"); other bits must be 0.
//! - Times are microseconds on the sender's clock, modulo 2^32 (71 minutes): only differences
//!   are used, with wrapping arithmetic. `rtt` is the sender's current estimate, which the
//!   receiver needs to pace its once-per-RTT decisions (chung-dcbt §5); kadhum2015 does not say how
//!   the receiver learns the RTT, and a receiver cannot measure it alone without synchronised
//!   clocks, so the sender tells it.
//! - A feedback message echoes the send time of the latest data packet and how long the receiver
//!   held it before answering, so the sender measures RTT = now - echo - hold.
//! - `seq` numbers datagrams (a frame split into fragments uses one per fragment); `frame`
//!   numbers application frames. Both wrap modulo 2^32; [`extend_seq`](fairway_core::wire_clock::extend_seq) recovers
//!   64-bit values.
//!
//! Decoding never panics: any malformed input is an [`UdpmError`].

use thiserror::Error;

use fairway_core::frame::{self, FrameError};

pub const PREAMBLE_LEN: usize = frame::PREAMBLE_LEN + 4;
pub const DATA_HEADER_LEN: usize = 32;
pub const FEEDBACK_LEN: usize = 32;
/// IPv4 (20) + UDP (8) header bytes in front of every UDPm message on a real network.
pub const IP_UDP_OVERHEAD: usize = 28;

const TYPE_DATA: u8 = 0x01;
const TYPE_FEEDBACK: u8 = 0x02;

/// Data flag: the packet is multimedia (routers such as CBT classify on it).
pub const FLAG_MULTIMEDIA: u8 = 0x01;
const DATA_FLAGS_KNOWN: u8 = FLAG_MULTIMEDIA;

/// The header of a data datagram; the frame's bytes follow it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DataHeader {
    pub flow: u32,
    pub flags: u8,
    /// The scale the sender is sending at.
    pub scale: u8,
    /// This fragment's index within its frame, from 0.
    pub frag_index: u16,
    /// Fragments in the frame (at least 1).
    pub frag_count: u16,
    /// Datagram sequence number (modulo 2^32).
    pub seq: u32,
    /// Frame number (modulo 2^32).
    pub frame: u32,
    /// Send time, microseconds on the sender's clock (modulo 2^32).
    pub send_time_us: u32,
    /// The sender's smoothed RTT in microseconds; 0 before it has a sample.
    pub rtt_us: u32,
}

/// A feedback message from receiver to sender.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Feedback {
    pub flow: u32,
    /// The scale the receiver expects next.
    pub scale: u8,
    /// Reserved, must be 0.
    pub flags: u8,
    /// `send_time_us` of the latest data packet received.
    pub echo_time_us: u32,
    /// Microseconds between that packet's arrival and this message.
    pub hold_us: u32,
    /// Highest datagram sequence number seen (modulo 2^32).
    pub highest_seq: u32,
    /// Datagrams lost so far (sequence gaps), cumulative.
    pub lost: u32,
    /// Datagrams received with ECN Congestion Experienced, cumulative.
    pub marked: u32,
}

/// A decoded UDPm message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Message {
    Data(DataHeader),
    Feedback(Feedback),
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum UdpmError {
    #[error("not a UDPm message: {0}")]
    Frame(#[from] FrameError),
    #[error("fragment count is zero")]
    NoFragments,
    #[error("fragment index {index} is not below the fragment count {count}")]
    FragmentIndex { index: u16, count: u16 },
    #[error("unknown flags {0:#04x}")]
    Flags(u8),
    #[error("feedback of {len} bytes: expected exactly {FEEDBACK_LEN}")]
    FeedbackLength { len: usize },
}

fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

impl DataHeader {
    /// Appends the header's 28 bytes to `out`.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let start = frame::begin(out, TYPE_DATA);
        out.extend_from_slice(&self.flow.to_be_bytes());
        out.push(self.flags);
        out.push(self.scale);
        out.extend_from_slice(&self.frag_index.to_be_bytes());
        out.extend_from_slice(&self.frag_count.to_be_bytes());
        out.extend_from_slice(&self.seq.to_be_bytes());
        out.extend_from_slice(&self.frame.to_be_bytes());
        out.extend_from_slice(&self.send_time_us.to_be_bytes());
        out.extend_from_slice(&self.rtt_us.to_be_bytes());
        frame::seal(out, start, DATA_HEADER_LEN);
    }

    pub fn is_multimedia(&self) -> bool {
        self.flags & FLAG_MULTIMEDIA != 0
    }
}

impl Feedback {
    /// Appends the message's 28 bytes to `out`.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let start = frame::begin(out, TYPE_FEEDBACK);
        out.extend_from_slice(&self.flow.to_be_bytes());
        out.push(self.scale);
        out.push(self.flags);
        out.extend_from_slice(&self.echo_time_us.to_be_bytes());
        out.extend_from_slice(&self.hold_us.to_be_bytes());
        out.extend_from_slice(&self.highest_seq.to_be_bytes());
        out.extend_from_slice(&self.lost.to_be_bytes());
        out.extend_from_slice(&self.marked.to_be_bytes());
        frame::seal(out, start, FEEDBACK_LEN);
    }
}

impl Message {
    /// Decodes a datagram. For data, returns the header and the payload after it.
    pub fn decode(b: &[u8]) -> Result<(Message, &[u8]), UdpmError> {
        let kind = frame::open(b, |t| match t {
            TYPE_DATA => Some(DATA_HEADER_LEN),
            TYPE_FEEDBACK => Some(FEEDBACK_LEN),
            _ => None,
        })?;
        let o = frame::PREAMBLE_LEN;
        let flow = be32(b, o);
        if kind == TYPE_DATA {
            let h = DataHeader {
                flow,
                flags: b[o + 4],
                scale: b[o + 5],
                frag_index: be16(b, o + 6),
                frag_count: be16(b, o + 8),
                seq: be32(b, o + 10),
                frame: be32(b, o + 14),
                send_time_us: be32(b, o + 18),
                rtt_us: be32(b, o + 22),
            };
            if h.flags & !DATA_FLAGS_KNOWN != 0 {
                return Err(UdpmError::Flags(h.flags));
            }
            if h.frag_count == 0 {
                return Err(UdpmError::NoFragments);
            }
            if h.frag_index >= h.frag_count {
                return Err(UdpmError::FragmentIndex { index: h.frag_index, count: h.frag_count });
            }
            Ok((Message::Data(h), &b[DATA_HEADER_LEN..]))
        } else {
            if b.len() != FEEDBACK_LEN {
                return Err(UdpmError::FeedbackLength { len: b.len() });
            }
            let f = Feedback {
                flow,
                scale: b[o + 4],
                flags: b[o + 5],
                echo_time_us: be32(b, o + 6),
                hold_us: be32(b, o + 10),
                highest_seq: be32(b, o + 14),
                lost: be32(b, o + 18),
                marked: be32(b, o + 22),
            };
            if f.flags != 0 {
                return Err(UdpmError::Flags(f.flags));
            }
            Ok((Message::Feedback(f), &b[FEEDBACK_LEN..]))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fairway_core::Rng;

    fn data() -> DataHeader {
        DataHeader {
            flow: 0xDEAD_BEEF,
            flags: FLAG_MULTIMEDIA,
            scale: 7,
            frag_index: 2,
            frag_count: 3,
            seq: 0x0102_0304,
            frame: 99,
            send_time_us: 4_000_000_000,
            rtt_us: 41_500,
        }
    }

    #[test]
    fn data_round_trip_with_payload() {
        let mut b = vec![];
        data().encode(&mut b);
        assert_eq!(b.len(), DATA_HEADER_LEN);
        b.extend_from_slice(b"frame bytes");
        let (m, payload) = Message::decode(&b).unwrap();
        assert_eq!(m, Message::Data(data()));
        assert_eq!(payload, b"frame bytes");
        assert!(data().is_multimedia());
    }

    #[test]
    fn byte_exact_layout() {
        let mut b = vec![];
        data().encode(&mut b);
        assert_eq!(&b[..4], [b'F', b'W', 2, 0x01], "magic, version, type");
        assert_eq!(
            b[6..],
            [
                0xDE, 0xAD, 0xBE, 0xEF, // flow
                0x01, 7, 0, 2, 0, 3, // flags, scale, frag index, frag count
                1, 2, 3, 4, 0, 0, 0, 99, // seq, frame
                0xEE, 0x6B, 0x28, 0x00, 0, 0, 0xA2, 0x1C, // send time 4e9 us, rtt 41 500 us
            ]
        );
        let f =
            Feedback { flow: 1, scale: 3, flags: 0, echo_time_us: 2, hold_us: 3, highest_seq: 4, lost: 5, marked: 6 };
        let mut b = vec![];
        f.encode(&mut b);
        assert_eq!(&b[..4], [b'F', b'W', 2, 0x02]);
        assert_eq!(b[6..], [0, 0, 0, 1, 3, 0, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 5, 0, 0, 0, 6]);
        assert_eq!(Message::decode(&b).unwrap().0, Message::Feedback(f));
    }

    /// `b` with byte `at` set to `v` and its checksum made right again: a well-formed header
    /// that says something out of range.
    fn forged(b: &[u8], at: usize, v: u8) -> Vec<u8> {
        let mut b = b.to_vec();
        b[at] = v;
        let len = b.len().min(DATA_HEADER_LEN);
        frame::seal(&mut b, 0, len);
        b
    }

    #[test]
    fn malformed_datagrams_are_errors() {
        let mut good = vec![];
        data().encode(&mut good);
        let short = |len, need| Err(UdpmError::Frame(FrameError::Short { len, need }));
        assert_eq!(Message::decode(&[]), short(0, frame::PREAMBLE_LEN));
        assert_eq!(Message::decode(&good[..20]), short(20, DATA_HEADER_LEN));
        let mut b = good.clone();
        b[2] = 1;
        assert_eq!(Message::decode(&b), Err(UdpmError::Frame(FrameError::Version(1))));
        let mut b = good.clone();
        b[3] = 9;
        assert_eq!(Message::decode(&b), Err(UdpmError::Frame(FrameError::Type(9))));
        let mut b = good.clone();
        b[20] ^= 1;
        assert!(matches!(Message::decode(&b), Err(UdpmError::Frame(FrameError::Checksum { .. }))));
        // Sealed again, so that the range checks are what refuses them.
        let b = forged(&forged(&good, 14, 0), 15, 0);
        assert_eq!(Message::decode(&b), Err(UdpmError::NoFragments));
        assert_eq!(Message::decode(&forged(&good, 13, 3)), Err(UdpmError::FragmentIndex { index: 3, count: 3 }));
        assert_eq!(Message::decode(&forged(&good, 10, 0x80)), Err(UdpmError::Flags(0x80)));
        let mut fb = vec![];
        Feedback::default().encode(&mut fb);
        fb.push(0);
        assert_eq!(Message::decode(&fb), Err(UdpmError::FeedbackLength { len: 33 }));
    }

    #[test]
    fn garbage_never_panics_and_what_decodes_re_encodes_identically() {
        let mut rng = Rng::from_seed(77);
        let mut decoded = 0;
        for _ in 0..200_000 {
            // A valid message with a random payload, then one random change: a byte
            // overwritten, the datagram cut, or nothing.
            let mut b = vec![];
            if rng.bernoulli(0.5) {
                let count = 1 + rng.below(4) as u16;
                DataHeader {
                    flow: rng.next_u64() as u32,
                    flags: rng.below(2) as u8,
                    scale: rng.next_u64() as u8,
                    frag_index: rng.below(count as u64) as u16,
                    frag_count: count,
                    seq: rng.next_u64() as u32,
                    frame: rng.next_u64() as u32,
                    send_time_us: rng.next_u64() as u32,
                    rtt_us: rng.next_u64() as u32,
                }
                .encode(&mut b);
                for _ in 0..rng.below(16) {
                    b.push(rng.next_u64() as u8);
                }
            } else {
                Feedback { flow: rng.next_u64() as u32, lost: rng.next_u64() as u32, ..Default::default() }
                    .encode(&mut b);
            }
            match rng.below(3) {
                0 => {
                    let i = rng.below(b.len() as u64) as usize;
                    b[i] = rng.next_u64() as u8;
                }
                1 => b.truncate(rng.below(b.len() as u64) as usize),
                _ => {}
            }
            if let Ok((m, payload)) = Message::decode(&b) {
                decoded += 1;
                let mut again = vec![];
                match m {
                    Message::Data(h) => h.encode(&mut again),
                    Message::Feedback(f) => f.encode(&mut again),
                }
                again.extend_from_slice(payload);
                assert_eq!(again, b);
            }
        }
        assert!(decoded > 50_000, "{decoded}");
    }
}
