//! DCCP's byte format: fairway's preamble ([`fairway_core::frame`], type 0x30), then the DCCP
//! packet as RFC 4340 §5 lays it out, always with 48-bit sequence numbers (X = 1):
//!
//! ```text
//! "FW" | 2 | 0x30 or 0x31 | checksum u16 |
//! source port u16 | dest port u16 | data offset u8 | CCVal u4 CsCov u4 | checksum u16 |
//! res u3 type u4 X=1 | reserved u8 | sequence number u48 |          (the generic header, §5.1)
//! [reserved u16 | acknowledgement number u48]                       (every type but Request, Data)
//! [service code u32]                                                (Request, Response; §5.2-5.3)
//! [reset code u8 | data 1 | data 2 | data 3]                        (Reset; §5.6)
//! options, padded to 32 bits (§5.8) | application data ...
//! ```
//!
//! The preamble's type is 0x31 for a packet sent with the ECN nonce set (ECT(1), RFC 3540), which
//! a real network carries in the IP header and a simulated one has nowhere else to put.
//! The port pair carries the flow id (its high and low 16 bits). The preamble's checksum covers
//! the whole DCCP header with its options, which is the coverage of RFC 4340 §9's checksum with
//! CsCov = 1; DCCP's own checksum field is written as zero (no pseudo-header exists sans-IO; on a
//! real network UDP's checksum covers the datagram) and not read.

use fairway_core::frame;

use super::packet::{
    AckVector, FeatureOp, FeatureOpt, LossIntervalOpt, LossIntervals, Options, Packet, PacketType, SEQ_MASK,
};
use crate::endpoint::Malformed;

pub const TYPE_DCCP: u8 = 0x30;
/// The same, sent with ECT(1): the ECN nonce set.
pub const TYPE_DCCP_NONCE: u8 = 0x31;
const O: usize = frame::PREAMBLE_LEN;
/// The generic header with 48-bit sequence numbers (§5.1).
const GENERIC: usize = 16;
/// At most 255 32-bit words of header and options (Data Offset is 8 bits).
pub const MAX_HEADER: usize = 255 * 4;

// Option types (§5.8, Table 3; RFC 4342 §8 for CCID3's).
const OPT_PADDING: u8 = 0;
const OPT_MANDATORY: u8 = 1;
const OPT_NDP_COUNT: u8 = 37;
const OPT_ACK_VECTOR_0: u8 = 38;
const OPT_ACK_VECTOR_1: u8 = 39;
const OPT_TIMESTAMP: u8 = 41;
const OPT_TIMESTAMP_ECHO: u8 = 42;
const OPT_ELAPSED_TIME: u8 = 43;
const OPT_LOSS_EVENT_RATE: u8 = 192;
const OPT_LOSS_INTERVALS: u8 = 193;
const OPT_RECEIVE_RATE: u8 = 194;
/// An Ack Vector option holds at most 253 cells (its length byte counts itself and the type).
pub const MAX_CELLS_PER_OPTION: usize = 253;

/// Bytes of the fixed part of a header of type `kind`: generic header and subheaders (§5).
pub fn fixed_len(kind: PacketType) -> usize {
    let mut n = GENERIC;
    if kind.has_ack() {
        n += 8;
    }
    match kind {
        PacketType::Request | PacketType::Response => n + 4,
        PacketType::Reset => n + 4,
        _ => n,
    }
}

fn ndp_len(v: u64) -> usize {
    // 1 to 6 bytes, the fewest that hold it (§7.7.2).
    (1..=6).find(|n| v >> (8 * n) == 0).unwrap_or(6)
}

fn options_len(o: &Options) -> usize {
    let mut n = 0;
    for f in &o.features {
        n += 3 + f.value.len();
    }
    if let Some(v) = o.ndp_count {
        n += 2 + ndp_len(v);
    }
    if o.timestamp.is_some() {
        n += 6;
    }
    if o.timestamp_echo.is_some() {
        n += 10;
    }
    if o.elapsed_time.is_some() {
        n += 6;
    }
    if let Some(av) = &o.ack_vector {
        let cells = av.cells.len();
        n += cells + 2 * cells.div_ceil(MAX_CELLS_PER_OPTION).max(1);
    }
    if o.loss_event_rate.is_some() {
        n += 6;
    }
    if let Some(li) = &o.loss_intervals {
        n += 3 + 9 * li.intervals.len();
    }
    if o.receive_rate.is_some() {
        n += 6;
    }
    n
}

/// Bytes of the DCCP header of `p`, options and padding included (the Data Offset times 4).
pub fn dccp_header_len(p: &Packet) -> usize {
    (fixed_len(p.kind) + options_len(&p.options)).div_ceil(4) * 4
}

/// Bytes [`encode`] writes before the application data: the preamble and the DCCP header.
pub fn encoded_header_len(p: &Packet) -> usize {
    O + dccp_header_len(p)
}

fn put48(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&(v & SEQ_MASK).to_be_bytes()[2..]);
}

fn get48(b: &[u8], at: usize) -> u64 {
    let mut x = [0u8; 8];
    x[2..].copy_from_slice(&b[at..at + 6]);
    u64::from_be_bytes(x)
}

fn get24(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([0, b[at], b[at + 1], b[at + 2]])
}

fn put24(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.min(0xff_ffff).to_be_bytes()[1..]);
}

/// Writes `p`'s header and options (the caller pads with the application data). Panics if the
/// header would exceed the 1020 bytes Data Offset can describe: the endpoints bound their
/// options below it.
pub fn encode(p: &Packet, out: &mut Vec<u8>) {
    let hlen = dccp_header_len(p);
    assert!(hlen <= MAX_HEADER, "a DCCP header of {hlen} bytes exceeds Data Offset's reach");
    let start = frame::begin(out, if p.ecn_nonce { TYPE_DCCP_NONCE } else { TYPE_DCCP });
    out.extend_from_slice(&((p.flow >> 16) as u16).to_be_bytes());
    out.extend_from_slice(&(p.flow as u16).to_be_bytes());
    out.push((hlen / 4) as u8);
    // CCVal in the high nibble; CsCov = 1, the header only (§9.2).
    out.push((p.ccval & 0x0f) << 4 | 1);
    out.extend_from_slice(&[0, 0]);
    out.push((p.kind as u8) << 1 | 1);
    out.push(0);
    put48(out, p.seq);
    if p.kind.has_ack() {
        out.extend_from_slice(&[0, 0]);
        put48(out, p.ack);
    }
    match p.kind {
        PacketType::Request | PacketType::Response => out.extend_from_slice(&p.service.to_be_bytes()),
        PacketType::Reset => out.extend_from_slice(&[p.reset_code, 0, 0, 0]),
        _ => {}
    }
    let o = &p.options;
    for f in &o.features {
        out.extend_from_slice(&[f.op as u8, (3 + f.value.len()) as u8, f.feature]);
        out.extend_from_slice(&f.value);
    }
    if let Some(v) = o.ndp_count {
        let n = ndp_len(v);
        out.extend_from_slice(&[OPT_NDP_COUNT, (2 + n) as u8]);
        out.extend_from_slice(&v.to_be_bytes()[8 - n..]);
    }
    if let Some(t) = o.timestamp {
        out.extend_from_slice(&[OPT_TIMESTAMP, 6]);
        out.extend_from_slice(&t.to_be_bytes());
    }
    if let Some((echo, elapsed)) = o.timestamp_echo {
        out.extend_from_slice(&[OPT_TIMESTAMP_ECHO, 10]);
        out.extend_from_slice(&echo.to_be_bytes());
        out.extend_from_slice(&elapsed.to_be_bytes());
    }
    if let Some(e) = o.elapsed_time {
        out.extend_from_slice(&[OPT_ELAPSED_TIME, 6]);
        out.extend_from_slice(&e.to_be_bytes());
    }
    if let Some(av) = &o.ack_vector {
        let kind = if av.nonce_echo { OPT_ACK_VECTOR_1 } else { OPT_ACK_VECTOR_0 };
        if av.cells.is_empty() {
            out.extend_from_slice(&[kind, 2]);
        }
        // A vector longer than one option goes in consecutive options (§11.4).
        for chunk in av.cells.chunks(MAX_CELLS_PER_OPTION) {
            out.extend_from_slice(&[kind, (2 + chunk.len()) as u8]);
            out.extend_from_slice(chunk);
        }
    }
    if let Some(r) = o.loss_event_rate {
        out.extend_from_slice(&[OPT_LOSS_EVENT_RATE, 6]);
        out.extend_from_slice(&r.to_be_bytes());
    }
    if let Some(li) = &o.loss_intervals {
        out.extend_from_slice(&[OPT_LOSS_INTERVALS, (3 + 9 * li.intervals.len()) as u8, li.skip]);
        for i in &li.intervals {
            put24(out, i.lossless_length);
            put24(out, i.loss_length.min(0x7f_ffff) | u32::from(i.nonce_echo) << 23);
            put24(out, i.data_length);
        }
    }
    if let Some(r) = o.receive_rate {
        out.extend_from_slice(&[OPT_RECEIVE_RATE, 6]);
        out.extend_from_slice(&r.to_be_bytes());
    }
    while out.len() - start < O + hlen {
        out.push(OPT_PADDING);
    }
    frame::seal(out, start, O + hlen);
}

/// Writes `p` as a datagram of `size` bytes: the header, then zeros for the application data
/// (at least the header, whatever `size` says).
pub fn encode_sized(p: &Packet, size: u64, out: &mut Vec<u8>) {
    let start = out.len();
    encode(p, out);
    out.resize(start + (size as usize).max(out.len() - start), 0);
}

fn bad(why: impl Into<String>) -> Malformed {
    Malformed(format!("not a DCCP packet: {}", why.into()))
}

/// Reads a packet written by [`encode`] (or by anyone following the layout above).
pub fn decode(b: &[u8]) -> Result<Packet, Malformed> {
    // The Data Offset says how long the header is: read it before the preamble's checksum.
    let hlen = match b.get(O + 4) {
        Some(&words) => usize::from(words) * 4,
        None => return Err(bad(format!("{} bytes, shorter than the generic header", b.len()))),
    };
    let t = frame::open(b, |t| (t == TYPE_DCCP || t == TYPE_DCCP_NONCE).then_some(O + hlen))
        .map_err(|e| bad(e.to_string()))?;
    let h = &b[O..O + hlen];
    if h.len() < GENERIC {
        return Err(bad(format!("Data Offset {} words, shorter than the 4-word generic header", hlen / 4)));
    }
    if h[8] & 1 == 0 {
        return Err(bad("short (24-bit) sequence numbers, which fairway's DCCP does not use (§5.1, X = 0)"));
    }
    let code = (h[8] >> 1) & 0x0f;
    let kind = PacketType::from_code(code).ok_or_else(|| bad(format!("reserved packet type {code} (§5.1)")))?;
    let fixed = fixed_len(kind);
    if hlen < fixed {
        return Err(bad(format!("a {} header of {hlen} bytes, shorter than its {fixed}-byte fixed part", kind.name())));
    }
    let mut p = Packet::new(
        kind,
        u32::from(u16::from_be_bytes([h[0], h[1]])) << 16 | u32::from(u16::from_be_bytes([h[2], h[3]])),
        get48(h, 10),
    );
    p.ccval = h[5] >> 4;
    p.ecn_nonce = t == TYPE_DCCP_NONCE;
    let mut at = GENERIC;
    if kind.has_ack() {
        p.ack = get48(h, at + 2);
        at += 8;
    }
    match kind {
        PacketType::Request | PacketType::Response => {
            p.service = u32::from_be_bytes([h[at], h[at + 1], h[at + 2], h[at + 3]]);
            at += 4;
        }
        PacketType::Reset => {
            p.reset_code = h[at];
            at += 4;
        }
        _ => {}
    }
    p.options = decode_options(&h[at..])?;
    Ok(p)
}

fn decode_options(b: &[u8]) -> Result<Options, Malformed> {
    let mut o = Options::default();
    let mut i = 0;
    let mut mandatory = false;
    while i < b.len() {
        let t = b[i];
        if t < 32 {
            // Single-byte options (§5.8): Padding, Mandatory, Slow Receiver and reserved ones.
            if mandatory {
                return Err(bad(format!("Mandatory before single-byte option {t}, which fairway does not act on")));
            }
            mandatory = t == OPT_MANDATORY;
            i += 1;
            continue;
        }
        let len = *b.get(i + 1).ok_or_else(|| bad(format!("option {t} has no length byte")))? as usize;
        if len < 2 || i + len > b.len() {
            return Err(bad(format!("option {t} of length {len} runs past the header (§5.8)")));
        }
        let d = &b[i + 2..i + len];
        let known = decode_option(&mut o, t, d)?;
        if mandatory && !known {
            // §5.8.2: a Mandatory option before one the receiver does not understand.
            return Err(bad(format!("Mandatory option {t}, which fairway does not understand")));
        }
        mandatory = false;
        i += len;
    }
    if mandatory {
        return Err(bad("Mandatory as the last option (§5.8.2)"));
    }
    Ok(o)
}

fn be32(d: &[u8]) -> u32 {
    u32::from_be_bytes([d[0], d[1], d[2], d[3]])
}

/// Reads one multi-byte option into `o`; `false` for types fairway skips.
fn decode_option(o: &mut Options, t: u8, d: &[u8]) -> Result<bool, Malformed> {
    let wrong = |what: &str| bad(format!("{what} option with {} bytes of data", d.len()));
    match t {
        32..=35 => {
            let op = FeatureOp::from_code(t).expect("32..=35 are the feature options");
            let (&feature, value) = d.split_first().ok_or_else(|| wrong("a feature"))?;
            o.features.push(FeatureOpt { op, feature, value: value.to_vec() });
        }
        OPT_NDP_COUNT => {
            if d.is_empty() || d.len() > 6 {
                return Err(wrong("an NDP Count"));
            }
            o.ndp_count = Some(d.iter().fold(0u64, |v, &x| v << 8 | u64::from(x)));
        }
        OPT_ACK_VECTOR_0 | OPT_ACK_VECTOR_1 => {
            let echo = t == OPT_ACK_VECTOR_1;
            let av = o.ack_vector.get_or_insert_with(|| AckVector { nonce_echo: echo, cells: vec![] });
            if av.nonce_echo != echo {
                return Err(bad("Ack Vector options with different nonce echoes"));
            }
            av.cells.extend_from_slice(d);
        }
        OPT_TIMESTAMP => {
            if d.len() != 4 {
                return Err(wrong("a Timestamp"));
            }
            o.timestamp = Some(be32(d));
        }
        OPT_TIMESTAMP_ECHO => {
            // §13.3: the echo alone, or with an elapsed time of 2 or 4 bytes.
            let elapsed = match d.len() {
                4 => 0,
                6 => u32::from(u16::from_be_bytes([d[4], d[5]])),
                8 => be32(&d[4..]),
                _ => return Err(wrong("a Timestamp Echo")),
            };
            o.timestamp_echo = Some((be32(d), elapsed));
        }
        OPT_ELAPSED_TIME => {
            o.elapsed_time = Some(match d.len() {
                2 => u32::from(u16::from_be_bytes([d[0], d[1]])),
                4 => be32(d),
                _ => return Err(wrong("an Elapsed Time")),
            });
        }
        OPT_LOSS_EVENT_RATE => {
            if d.len() != 4 {
                return Err(wrong("a Loss Event Rate"));
            }
            o.loss_event_rate = Some(be32(d));
        }
        OPT_RECEIVE_RATE => {
            if d.len() != 4 {
                return Err(wrong("a Receive Rate"));
            }
            o.receive_rate = Some(be32(d));
        }
        OPT_LOSS_INTERVALS => {
            if d.is_empty() || !(d.len() - 1).is_multiple_of(9) {
                return Err(wrong("a Loss Intervals"));
            }
            let intervals = d[1..]
                .chunks(9)
                .map(|c| {
                    let l = get24(c, 3);
                    LossIntervalOpt {
                        lossless_length: get24(c, 0),
                        nonce_echo: l >> 23 != 0,
                        loss_length: l & 0x7f_ffff,
                        data_length: get24(c, 6),
                    }
                })
                .collect();
            o.loss_intervals = Some(LossIntervals { skip: d[0], intervals });
        }
        _ => return Ok(false),
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::super::packet::{feature, AckState};
    use super::*;

    fn sample() -> Packet {
        let mut p = Packet::new(PacketType::DataAck, 0x0001_0203, 0x1234_5678_9abc);
        p.ack = 0xfedc_ba98_7654;
        p.ccval = 9;
        p.options.features.push(FeatureOpt { op: FeatureOp::ChangeL, feature: feature::ACK_RATIO, value: vec![0, 3] });
        p.options.ndp_count = Some(300);
        p.options.timestamp = Some(77);
        p.options.timestamp_echo = Some((76, 5));
        p.options.elapsed_time = Some(1234);
        p.options.ack_vector = Some(AckVector { nonce_echo: true, cells: (0..300).map(|i| (i % 256) as u8).collect() });
        p.options.loss_event_rate = Some(1000);
        p.options.loss_intervals = Some(LossIntervals {
            skip: 2,
            intervals: vec![LossIntervalOpt { lossless_length: 40, nonce_echo: true, loss_length: 3, data_length: 44 }],
        });
        p.options.receive_rate = Some(125_000);
        p
    }

    #[test]
    fn every_field_and_option_survives_the_round_trip() {
        let p = sample();
        let mut b = vec![];
        encode(&p, &mut b);
        assert_eq!(b.len(), encoded_header_len(&p));
        assert_eq!((b.len() - O) % 4, 0, "the header is whole 32-bit words (§5.1)");
        assert_eq!(decode(&b).unwrap(), p);
        for kind in PacketType::ALL {
            let mut q = Packet::new(kind, 7, 1);
            if kind.has_ack() {
                q.ack = 5;
            }
            q.service = if matches!(kind, PacketType::Request | PacketType::Response) { 42 } else { 0 };
            q.reset_code = if kind == PacketType::Reset { 3 } else { 0 };
            let mut b = vec![];
            encode(&q, &mut b);
            assert_eq!(decode(&b).unwrap(), q, "{}", kind.name());
        }
    }

    #[test]
    fn the_generic_header_is_where_rfc_4340_puts_it() {
        let p = Packet::new(PacketType::Data, 0x0005_0006, 0x0102_0304_0506);
        let mut b = vec![];
        encode(&p, &mut b);
        let h = &b[O..];
        assert_eq!(&h[0..4], &[0, 5, 0, 6], "ports");
        assert_eq!(h[4], 4, "a Data packet's header is 4 words");
        assert_eq!(h[8], 2 << 1 | 1, "type 2, X = 1");
        assert_eq!(&h[10..16], &[1, 2, 3, 4, 5, 6]);
        let mut a = Packet::new(PacketType::Ack, 1, 1);
        a.ack = 0x0a0b_0c0d_0e0f;
        let mut b = vec![];
        encode(&a, &mut b);
        assert_eq!(&b[O + 18..O + 24], &[0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f], "the ack subheader (§5.3)");
    }

    #[test]
    fn an_ack_vector_reads_back_as_rfc_4340_s_example() {
        // §11.4's example, Ack Number 100: 100 received; 99 lost; 98-95 received; 94 ECN
        // marked; 93-88 received.
        let av = AckVector { nonce_echo: false, cells: vec![0x00, 0xc0, 0x03, 0x40, 0x05] };
        let got: Vec<(u64, AckState)> = av.iter(100).collect();
        use AckState::*;
        let mut want = vec![(100, Received), (99, NotReceived)];
        want.extend((95..=98).rev().map(|s| (s, Received)));
        want.push((94, ReceivedMarked));
        want.extend((88..=93).rev().map(|s| (s, Received)));
        assert_eq!(got, want);
        assert_eq!(av.span(), 13);
    }

    #[test]
    fn broken_headers_are_refused_with_a_reason() {
        let mut b = vec![];
        encode(&sample(), &mut b);
        // Any flipped bit in the header is caught by the preamble's checksum.
        for i in 0..b.len() * 8 {
            let mut c = b.clone();
            c[i / 8] ^= 1 << (i % 8);
            assert!(decode(&c).is_err(), "bit {i}");
        }
        for cut in 0..b.len() {
            assert!(decode(&b[..cut]).is_err(), "cut at {cut}");
        }
        // Hand-built headers that seal but break DCCP's rules.
        let build = |mutate: &dyn Fn(&mut Vec<u8>)| {
            let mut b = vec![];
            encode(&Packet::new(PacketType::Data, 1, 1), &mut b);
            mutate(&mut b);
            let n = b.len();
            frame::seal(&mut b, 0, n);
            decode(&b).unwrap_err().0
        };
        assert!(build(&|b| b[O + 8] &= !1).contains("short"));
        assert!(build(&|b| b[O + 8] = 12 << 1 | 1).contains("reserved packet type 12"));
        assert!(build(&|b| b[O + 8] = 3 << 1 | 1).contains("shorter than its 24-byte"));
        assert!(build(&|b| {
            b[O + 4] = 5;
            b.extend_from_slice(&[OPT_TIMESTAMP, 9, 0, 0]);
        })
        .contains("runs past"));
        assert!(build(&|b| {
            b[O + 4] = 5;
            b.extend_from_slice(&[OPT_MANDATORY, 200, 2, 0]);
        })
        .contains("Mandatory option 200"));
        // An unknown option without Mandatory is skipped (§5.8).
        let mut b = vec![];
        encode(&Packet::new(PacketType::Data, 1, 1), &mut b);
        b[O + 4] = 5;
        b.extend_from_slice(&[200, 4, 9, 9]);
        let n = b.len();
        frame::seal(&mut b, 0, n);
        assert_eq!(decode(&b).unwrap(), Packet::new(PacketType::Data, 1, 1));
    }
}
