//! IFTP's wire format, for live use (the simulator carries [`IftpData`] and [`IftpAck`] as they
//! are). The seed gives only the fields (§4: the receiver "merely transmits the sequence number of
//! the packet it receives", and the ACK carries "a time field ... equal to the time the packet was
//! issued"); the layout is fairway's: its preamble ([`fairway_core::frame`]: magic, version,
//! type, header checksum), then big-endian fields, 18 bytes each:
//!
//! ```text
//! data: "FW" | 2 | type u8 = 0x03 | checksum u16 | flow u32 | seq u32 | send_time_us u32 | payload ...
//! ack:  "FW" | 2 | type u8 = 0x04 | checksum u16 | flow u32 | seq u32 | echo_time_us u32
//! ```
//!
//! Sequence numbers are the low 32 bits of the 64-bit counter, and times a wrapping 32-bit
//! microsecond clock, as in [`fairway_core::wire_clock`]; [`DataHeader::to_data`] and
//! [`AckHeader::to_ack`] recover the full values near a reference.

use fairway_core::frame::{self, FrameError};
pub use fairway_core::wire_clock::whole_micros;
use fairway_core::wire_clock::{extend_seq, recover_time, wire_time_us};
use fairway_core::Time;
use thiserror::Error;

use super::{IftpAck, IftpData};

pub const TYPE_DATA: u8 = 0x03;
pub const TYPE_ACK: u8 = 0x04;
/// Bytes of either header.
pub const HEADER_LEN: usize = frame::PREAMBLE_LEN + 12;

/// The header in front of every data packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DataHeader {
    pub flow: u32,
    pub seq: u32,
    pub send_time_us: u32,
}

/// An acknowledgement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AckHeader {
    pub flow: u32,
    pub seq: u32,
    pub echo_time_us: u32,
}

/// A decoded IFTP message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Message {
    Data(DataHeader),
    Ack(AckHeader),
}

/// Why bytes are not an IFTP message.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum WireError {
    #[error("not an IFTP message: {0}")]
    Frame(#[from] FrameError),
}

fn put(out: &mut Vec<u8>, kind: u8, flow: u32, seq: u32, time_us: u32) {
    let start = frame::begin(out, kind);
    out.extend_from_slice(&flow.to_be_bytes());
    out.extend_from_slice(&seq.to_be_bytes());
    out.extend_from_slice(&time_us.to_be_bytes());
    frame::seal(out, start, HEADER_LEN);
}

fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// The time `time_us` stood for on the 32-bit microsecond clock, taken as at most 2^31 us before
/// `now` (times ahead of `now` read as `now`).
impl From<WireError> for crate::endpoint::Malformed {
    fn from(e: WireError) -> Self {
        crate::endpoint::Malformed(e.to_string())
    }
}

impl DataHeader {
    pub fn encode(&self, out: &mut Vec<u8>) {
        put(out, TYPE_DATA, self.flow, self.seq, self.send_time_us);
    }

    pub fn from_data(d: &IftpData) -> DataHeader {
        DataHeader { flow: d.flow, seq: d.seq as u32, send_time_us: wire_time_us(d.sent_at.0) }
    }

    /// The packet with its sequence number extended to the one nearest `near` and its send time
    /// recovered as at most 2^31 us before `now`.
    pub fn to_data(&self, near: u64, now: Time) -> IftpData {
        IftpData { flow: self.flow, seq: extend_seq(near, self.seq), sent_at: recover_time(now, self.send_time_us) }
    }
}

impl AckHeader {
    pub fn encode(&self, out: &mut Vec<u8>) {
        put(out, TYPE_ACK, self.flow, self.seq, self.echo_time_us);
    }

    pub fn from_ack(a: &IftpAck) -> AckHeader {
        AckHeader { flow: a.flow, seq: a.seq as u32, echo_time_us: wire_time_us(a.echo.0) }
    }

    /// The ACK with its sequence number extended to the one nearest `near` and its echo recovered
    /// as at most 2^31 us before `now`.
    pub fn to_ack(&self, near: u64, now: Time) -> IftpAck {
        IftpAck { flow: self.flow, seq: extend_seq(near, self.seq), echo: recover_time(now, self.echo_time_us) }
    }
}

impl Message {
    /// Reads one message from the front of `b`; the rest (a data packet's payload) is returned.
    /// Never panics: short input, no magic, another version, an unknown type or a wrong
    /// checksum is an error.
    pub fn decode(b: &[u8]) -> Result<(Message, &[u8]), WireError> {
        let kind = frame::open(b, |t| matches!(t, TYPE_DATA | TYPE_ACK).then_some(HEADER_LEN))?;
        let o = frame::PREAMBLE_LEN;
        let (flow, seq, time_us) = (be32(b, o), be32(b, o + 4), be32(b, o + 8));
        let m = if kind == TYPE_DATA {
            Message::Data(DataHeader { flow, seq, send_time_us: time_us })
        } else {
            Message::Ack(AckHeader { flow, seq, echo_time_us: time_us })
        };
        Ok((m, &b[HEADER_LEN..]))
    }

    pub fn encode(&self, out: &mut Vec<u8>) {
        match self {
            Message::Data(d) => d.encode(out),
            Message::Ack(a) => a.encode(out),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fairway_core::{Dur, Rng};

    #[test]
    fn byte_exact_layout() {
        let mut b = vec![];
        DataHeader { flow: 0x0102_0304, seq: 0x0506_0708, send_time_us: 0x090A_0B0C }.encode(&mut b);
        assert_eq!(b[..4], [b'F', b'W', 2, TYPE_DATA]);
        assert_eq!(b[6..], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
        let mut b = vec![];
        AckHeader { flow: 0xDEAD_BEEF, seq: 1, echo_time_us: u32::MAX }.encode(&mut b);
        assert_eq!(b[..4], [b'F', b'W', 2, TYPE_ACK]);
        assert_eq!(b[6..], [0xDE, 0xAD, 0xBE, 0xEF, 0, 0, 0, 1, 0xFF, 0xFF, 0xFF, 0xFF]);
    }

    #[test]
    fn round_trips_and_payload_is_returned() {
        let mut rng = Rng::from_seed(5);
        for _ in 0..1000 {
            let (flow, seq, t) = (rng.next_u64() as u32, rng.next_u64() as u32, rng.next_u64() as u32);
            for m in [
                Message::Data(DataHeader { flow, seq, send_time_us: t }),
                Message::Ack(AckHeader { flow, seq, echo_time_us: t }),
            ] {
                let mut b = vec![];
                m.encode(&mut b);
                assert_eq!(b.len(), HEADER_LEN);
                b.extend_from_slice(&[7, 7, 7]);
                let (back, rest) = Message::decode(&b).unwrap();
                assert_eq!((back, rest), (m, &[7u8, 7, 7][..]));
            }
        }
    }

    #[test]
    fn malformed_input_is_an_error_never_a_panic() {
        let mut b = vec![];
        AckHeader { flow: 1, seq: 2, echo_time_us: 3 }.encode(&mut b);
        for len in 0..HEADER_LEN {
            let need = if len < frame::PREAMBLE_LEN { frame::PREAMBLE_LEN } else { HEADER_LEN };
            assert_eq!(Message::decode(&b[..len]), Err(WireError::Frame(FrameError::Short { len, need })));
        }
        let mut v = b.clone();
        v[2] = 1;
        assert_eq!(Message::decode(&v), Err(WireError::Frame(FrameError::Version(1))));
        let mut t = b.clone();
        t[3] = 9;
        assert_eq!(Message::decode(&t), Err(WireError::Frame(FrameError::Type(9))));
        assert!(WireError::Frame(FrameError::Type(9)).to_string().contains("0x09"));
        // The seed's complaint: 14 bytes starting 01 00 were an IFTP datagram. Random headers
        // with the right preamble now fail the checksum but about once in 65 536.
        let mut rng = Rng::from_seed(6);
        let mut taken = 0;
        for _ in 0..20_000 {
            let len = rng.below(40) as usize;
            let mut g: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
            if len >= 4 && rng.bernoulli(0.5) {
                g[..3].copy_from_slice(&[b'F', b'W', frame::VERSION]);
                g[3] = TYPE_DATA + rng.below(2) as u8;
            }
            taken += usize::from(Message::decode(&g).is_ok());
        }
        assert!(taken <= 2, "{taken} random datagrams taken as IFTP");
    }

    #[test]
    fn sequence_and_time_recovered_across_the_32_bit_wraps() {
        let sent = Time(((1u64 << 32) - 10) * 1_000 + 123); // 10 us before the us clock wraps
        let d = IftpData { flow: 3, seq: (1 << 32) + 5, sent_at: sent };
        let h = DataHeader::from_data(&d);
        assert_eq!((h.seq, h.send_time_us), (5, u32::MAX - 9));
        let now = sent + Dur::from_millis(30);
        let back = h.to_data((1 << 32) - 2, now);
        assert_eq!(back.seq, d.seq);
        assert_eq!(back.sent_at, whole_micros(sent), "the microsecond it was sent in, whatever now's ns");
        let a = IftpAck { flow: 3, seq: d.seq, echo: back.sent_at };
        let ha = AckHeader::from_ack(&a);
        assert_eq!(ha.echo_time_us, h.send_time_us, "the echo keeps the data's wire time");
        let ack = ha.to_ack((1 << 32) + 9, now + Dur::from_millis(30));
        assert_eq!((ack.seq, ack.echo), (d.seq, back.sent_at));
        // An echo ahead of `now` (garbage) reads as `now`.
        assert_eq!(AckHeader { flow: 0, seq: 0, echo_time_us: 5_000 }.to_ack(0, Time(1_000_000)).echo, Time(1_000_000));
    }
}
