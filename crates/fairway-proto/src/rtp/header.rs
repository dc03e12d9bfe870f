//! The RTP header (RFC 3550 §5.1) with the transport-wide sequence number in a one-byte header
//! extension (RFC 8285 §4.2; the element of draft-holmer-rmcat-transport-wide-cc-extensions-01
//! §2, two bytes). What a media packet carries for congestion control: the stream's sequence
//! number (what RFC 8888 reports on), its media timestamp, its SSRC and, for GCC's feedback, a
//! sequence number across all of a sender's streams.
//!
//! Writing: V = 2, no CSRCs; the extension (profile 0xBEDE) only with a transport-wide number,
//! its one element padded to a 32-bit word; the P bit when the packet ends in padding (the
//! sender's probe padding, a packet of padding only: RFC 3550 §5.1 has its last byte count the
//! padding, which whoever writes the packet's end puts there). Reading takes what RFC 3550
//! allows: padding (its count in the last byte), CSRCs, any extension, and in a one-byte
//! extension any elements beside ours (RFC 8285: ID 0 is padding, ID 15 ends the list).

use crate::Malformed;

/// The fixed header's length.
pub const FIXED_LEN: usize = 12;
/// RFC 8285's profile value of a one-byte-header extension.
const ONE_BYTE_PROFILE: u16 = 0xBEDE;
/// The element ID this implementation gives the transport-wide sequence number (a session
/// negotiates it in SDP, RFC 8285 §5; fairway's two ends agree on it).
pub const TRANSPORT_SEQ_ID: u8 = 1;

/// The header fields fairway's media transport uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RtpHeader {
    /// P: the packet ends in padding, its count in its last byte (RFC 3550 §5.1).
    pub padding: bool,
    /// M: the last packet of a video frame (RFC 3551 §4.1's use for video).
    pub marker: bool,
    /// PT, 7 bits.
    pub payload_type: u8,
    pub seq: u16,
    /// The media timestamp (90 kHz for video, RFC 3551 §5).
    pub timestamp: u32,
    pub ssrc: u32,
    /// The transport-wide sequence number, if carried.
    pub transport_seq: Option<u16>,
}

impl RtpHeader {
    /// Its length as written: 12 bytes, 20 with the transport-wide number (4 of extension
    /// header, 3 of element, 1 of padding).
    pub fn len(&self) -> usize {
        FIXED_LEN + if self.transport_seq.is_some() { 8 } else { 0 }
    }

    /// Whether it writes nothing (never: the fixed header is always there).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Appends the header to `out`.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let x = self.transport_seq.is_some() as u8;
        out.push(0x80 | (self.padding as u8) << 5 | x << 4);
        out.push((self.marker as u8) << 7 | (self.payload_type & 0x7F));
        out.extend_from_slice(&self.seq.to_be_bytes());
        out.extend_from_slice(&self.timestamp.to_be_bytes());
        out.extend_from_slice(&self.ssrc.to_be_bytes());
        if let Some(t) = self.transport_seq {
            out.extend_from_slice(&ONE_BYTE_PROFILE.to_be_bytes());
            out.extend_from_slice(&1u16.to_be_bytes());
            // ID, then L = length - 1 = 1.
            out.push(TRANSPORT_SEQ_ID << 4 | 1);
            out.extend_from_slice(&t.to_be_bytes());
            out.push(0);
        }
    }

    /// Reads a packet: its header and its payload (padding removed).
    pub fn decode(b: &[u8]) -> Result<(RtpHeader, &[u8]), Malformed> {
        let bad = |why: String| Malformed(format!("RTP: {why}"));
        if b.len() < FIXED_LEN {
            return Err(bad(format!("{} bytes, under the fixed header's {FIXED_LEN}", b.len())));
        }
        if b[0] >> 6 != 2 {
            return Err(bad(format!("version {}, not 2", b[0] >> 6)));
        }
        let (padding, extension, csrcs) = (b[0] & 0x20 != 0, b[0] & 0x10 != 0, (b[0] & 0x0F) as usize);
        let mut end = b.len();
        if padding {
            // §5.1: the last byte counts the padding, itself included.
            let n = b[end - 1] as usize;
            if n == 0 || n > end - FIXED_LEN {
                return Err(bad(format!("{n} bytes of padding in a packet of {end}")));
            }
            end -= n;
        }
        let mut at = FIXED_LEN + 4 * csrcs;
        if at > end {
            return Err(bad(format!("{csrcs} CSRCs run past the packet")));
        }
        let mut transport_seq = None;
        if extension {
            if end - at < 4 {
                return Err(bad("the extension's header runs past the packet".into()));
            }
            let profile = u16::from_be_bytes([b[at], b[at + 1]]);
            let words = u16::from_be_bytes([b[at + 2], b[at + 3]]) as usize;
            let ext = &b[at + 4..];
            if end - at - 4 < 4 * words {
                return Err(bad(format!("an extension of {words} words runs past the packet")));
            }
            if profile == ONE_BYTE_PROFILE {
                transport_seq = one_byte_element(&ext[..4 * words], TRANSPORT_SEQ_ID)
                    .and_then(|e| (e.len() == 2).then(|| u16::from_be_bytes([e[0], e[1]])));
            }
            at += 4 + 4 * words;
        }
        let header = RtpHeader {
            padding,
            marker: b[1] & 0x80 != 0,
            payload_type: b[1] & 0x7F,
            seq: u16::from_be_bytes([b[2], b[3]]),
            timestamp: u32::from_be_bytes([b[4], b[5], b[6], b[7]]),
            ssrc: u32::from_be_bytes([b[8], b[9], b[10], b[11]]),
            transport_seq,
        };
        Ok((header, &b[at..end]))
    }
}

/// The data of element `id` in a one-byte-header extension's elements (RFC 8285 §4.2), if there.
fn one_byte_element(mut e: &[u8], id: u8) -> Option<&[u8]> {
    while let Some(&first) = e.first() {
        let (this, len) = (first >> 4, (first & 0x0F) as usize + 1);
        match this {
            0 => e = &e[1..],
            15 => return None,
            _ => {
                let data = e.get(1..1 + len)?;
                if this == id {
                    return Some(data);
                }
                e = &e[1 + len..];
            }
        }
    }
    None
}

#[cfg(test)]
#[path = "header_tests.rs"]
mod tests;
