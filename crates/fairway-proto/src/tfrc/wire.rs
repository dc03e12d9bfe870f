//! TFRC's byte format (fairway's: RFC 5348 §3.2 names the fields and leaves the layout to the
//! transport): the preamble of [`fairway_core::frame`] (magic, version, type, header checksum),
//! then big-endian fields; times on the 32-bit microsecond clock of [`fairway_core::wire_clock`],
//! sequence numbers as their low 32 bits; rates and loss rates as IEEE doubles, so that a
//! decoded report says exactly what the typed one did.
//!
//! ```text
//! data (31 B):     "FW" | 2 | type u8 = 0x20 | checksum u16 | flow u32 | seq u32 | ts_us u32
//!                  | rtt_us u32 | t_rto_us u32 | round u32 | flags u8 (bit 0: urgent) | payload ...
//! feedback (38 B): "FW" | 2 | type u8 = 0x21 | checksum u16 | flow u32 | echo_us u32
//!                  | delay_us u32 | x_recv f64 | p f64 | loss_events u32
//! ```

use fairway_core::frame;
use fairway_core::wire_clock::{extend_seq, recover_time, wire_time_us};
use fairway_core::{Dur, Time};

use super::{TfrcData, TfrcFeedback};
use crate::endpoint::Malformed;

pub const TYPE_DATA: u8 = 0x20;
pub const TYPE_FEEDBACK: u8 = 0x21;
pub const DATA_LEN: usize = frame::PREAMBLE_LEN + 25;
pub const FEEDBACK_LEN: usize = frame::PREAMBLE_LEN + 32;
/// Where the fields start.
const O: usize = frame::PREAMBLE_LEN;

fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn be64(b: &[u8], at: usize) -> u64 {
    let mut x = [0u8; 8];
    x.copy_from_slice(&b[at..at + 8]);
    u64::from_be_bytes(x)
}

fn micros(d: Dur) -> u32 {
    (d.0 / 1_000).min(u32::MAX as u64) as u32
}

fn check(b: &[u8], kind: u8, what: &str) -> Result<(), Malformed> {
    let found = frame::open(b, |t| match t {
        TYPE_DATA => Some(DATA_LEN),
        TYPE_FEEDBACK => Some(FEEDBACK_LEN),
        _ => None,
    })
    .map_err(|e| Malformed(format!("not a TFRC packet: {e}")))?;
    if found != kind {
        return Err(Malformed(format!("a TFRC packet of type {found:#x} where {what} was expected")));
    }
    Ok(())
}

/// Writes a data packet's header; the caller pads to the packet's size.
pub fn encode_data(d: &TfrcData, out: &mut Vec<u8>) {
    let start = frame::begin(out, TYPE_DATA);
    out.extend_from_slice(&d.flow.to_be_bytes());
    out.extend_from_slice(&(d.seq as u32).to_be_bytes());
    out.extend_from_slice(&wire_time_us(d.ts.0).to_be_bytes());
    out.extend_from_slice(&micros(d.rtt).to_be_bytes());
    out.extend_from_slice(&micros(d.t_rto).to_be_bytes());
    out.extend_from_slice(&d.round.to_be_bytes());
    out.push(u8::from(d.urgent));
    frame::seal(out, start, DATA_LEN);
}

/// Reads a data packet: the sequence number extended near `near`, the timestamp recovered near
/// `now`.
pub fn decode_data(b: &[u8], near: u64, now: Time) -> Result<TfrcData, Malformed> {
    check(b, TYPE_DATA, "data")?;
    if b[O + 24] & !1 != 0 {
        return Err(Malformed(format!("TFRC data with unknown flags {:#04x}", b[O + 24])));
    }
    Ok(TfrcData {
        flow: be32(b, O),
        seq: extend_seq(near, be32(b, O + 4)),
        ts: recover_time(now, be32(b, O + 8)),
        rtt: Dur::from_micros(u64::from(be32(b, O + 12))),
        t_rto: Dur::from_micros(u64::from(be32(b, O + 16))),
        round: be32(b, O + 20),
        urgent: b[O + 24] & 1 != 0,
    })
}

/// Writes a feedback packet.
pub fn encode_feedback(f: &TfrcFeedback, out: &mut Vec<u8>) {
    let start = frame::begin(out, TYPE_FEEDBACK);
    out.extend_from_slice(&f.flow.to_be_bytes());
    out.extend_from_slice(&wire_time_us(f.echo.0).to_be_bytes());
    out.extend_from_slice(&micros(f.t_delay).to_be_bytes());
    out.extend_from_slice(&f.x_recv.to_bits().to_be_bytes());
    out.extend_from_slice(&f.p.to_bits().to_be_bytes());
    out.extend_from_slice(&f.loss_events.to_be_bytes());
    frame::seal(out, start, FEEDBACK_LEN);
}

/// Reads a feedback packet, its echo recovered near `now`.
pub fn decode_feedback(b: &[u8], now: Time) -> Result<TfrcFeedback, Malformed> {
    check(b, TYPE_FEEDBACK, "feedback")?;
    let x_recv = f64::from_bits(be64(b, O + 12));
    let p = f64::from_bits(be64(b, O + 20));
    if !(x_recv >= 0.0 && x_recv.is_finite() && (0.0..=1.0).contains(&p)) {
        return Err(Malformed(format!("TFRC feedback with X_recv {x_recv} and p {p}")));
    }
    Ok(TfrcFeedback {
        flow: be32(b, O),
        echo: recover_time(now, be32(b, O + 4)),
        t_delay: Dur::from_micros(u64::from(be32(b, O + 8))),
        x_recv,
        p,
        loss_events: be32(b, O + 28),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use fairway_core::wire_clock::whole_micros;

    #[test]
    fn both_messages_round_trip() {
        let d = TfrcData {
            flow: 7,
            seq: (1 << 32) + 9,
            ts: whole_micros(Time(5_123_456_789)),
            rtt: Dur::from_micros(61_234),
            t_rto: Dur::from_micros(300_000),
            round: 12,
            urgent: true,
        };
        let mut b = vec![];
        encode_data(&d, &mut b);
        assert_eq!(b.len(), DATA_LEN);
        assert_eq!(decode_data(&b, 1 << 32, Time(5_200_000_000)).unwrap(), d);
        let f = TfrcFeedback {
            flow: 7,
            echo: d.ts,
            t_delay: Dur::from_micros(1_500),
            x_recv: 123_456.789,
            p: 0.012_345,
            loss_events: 4,
        };
        let mut b = vec![];
        encode_feedback(&f, &mut b);
        assert_eq!(b.len(), FEEDBACK_LEN);
        assert_eq!(decode_feedback(&b, Time(5_300_000_000)).unwrap(), f);
    }

    #[test]
    fn the_wrong_kind_short_or_absurd_bytes_are_refused() {
        let f = TfrcFeedback { flow: 1, echo: Time(0), t_delay: Dur(0), x_recv: 1.0, p: 0.5, loss_events: 0 };
        let mut b = vec![];
        encode_feedback(&f, &mut b);
        assert!(decode_data(&b, 0, Time(0)).is_err(), "feedback is not data");
        assert!(decode_feedback(&b[..FEEDBACK_LEN - 1], Time(0)).is_err());
        let mut bad = b.clone();
        bad[22..30].copy_from_slice(&2.0f64.to_bits().to_be_bytes());
        assert!(decode_feedback(&bad, Time(0)).is_err(), "p = 2");
        bad[22..30].copy_from_slice(&f64::NAN.to_bits().to_be_bytes());
        assert!(decode_feedback(&bad, Time(0)).is_err(), "p = NaN");
        assert!(decode_feedback(&[], Time(0)).is_err());
        assert!(decode_feedback(&[1, 0x10, 0, 0], Time(0)).is_err(), "a UDP packet");
    }
}
