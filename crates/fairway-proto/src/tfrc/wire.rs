//! TFRC's byte format (fairway's: RFC 5348 §3.2 names the fields and leaves the layout to the
//! transport). Big-endian; times on the 32-bit microsecond clock of [`fairway_core::udpm`],
//! sequence numbers as their low 32 bits; rates and loss rates as IEEE doubles, so that a
//! decoded report says exactly what the typed one did.
//!
//! ```text
//! data (27 B):     version u8 = 1 | type u8 = 0x20 | flow u32 | seq u32 | ts_us u32 | rtt_us u32
//!                  | t_rto_us u32 | round u32 | flags u8 (bit 0: urgent) | payload ...
//! feedback (34 B): version u8 = 1 | type u8 = 0x21 | flow u32 | echo_us u32 | delay_us u32
//!                  | x_recv f64 | p f64 | loss_events u32
//! ```

use fairway_core::udpm::{extend_seq, recover_time, wire_time_us};
use fairway_core::{Dur, Time};

use super::{TfrcData, TfrcFeedback};
use crate::endpoint::Malformed;

pub const VERSION: u8 = 1;
pub const TYPE_DATA: u8 = 0x20;
pub const TYPE_FEEDBACK: u8 = 0x21;
pub const DATA_LEN: usize = 27;
pub const FEEDBACK_LEN: usize = 34;

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

fn check(b: &[u8], kind: u8, len: usize, what: &str) -> Result<(), Malformed> {
    if b.len() < 2 || b[0] != VERSION || (b[1] != TYPE_DATA && b[1] != TYPE_FEEDBACK) {
        return Err(Malformed(format!("not a TFRC packet ({} bytes)", b.len())));
    }
    if b[1] != kind {
        return Err(Malformed(format!("a TFRC packet of type {:#x} where {what} was expected", b[1])));
    }
    if b.len() < len {
        return Err(Malformed(format!("TFRC {what} of {} bytes is shorter than its {len}-byte header", b.len())));
    }
    Ok(())
}

/// Writes a data packet's header; the caller pads to the packet's size.
pub fn encode_data(d: &TfrcData, out: &mut Vec<u8>) {
    out.push(VERSION);
    out.push(TYPE_DATA);
    out.extend_from_slice(&d.flow.to_be_bytes());
    out.extend_from_slice(&(d.seq as u32).to_be_bytes());
    out.extend_from_slice(&wire_time_us(d.ts.0).to_be_bytes());
    out.extend_from_slice(&micros(d.rtt).to_be_bytes());
    out.extend_from_slice(&micros(d.t_rto).to_be_bytes());
    out.extend_from_slice(&d.round.to_be_bytes());
    out.push(u8::from(d.urgent));
}

/// Reads a data packet: the sequence number extended near `near`, the timestamp recovered near
/// `now`.
pub fn decode_data(b: &[u8], near: u64, now: Time) -> Result<TfrcData, Malformed> {
    check(b, TYPE_DATA, DATA_LEN, "data")?;
    Ok(TfrcData {
        flow: be32(b, 2),
        seq: extend_seq(near, be32(b, 6)),
        ts: recover_time(now, be32(b, 10)),
        rtt: Dur::from_micros(u64::from(be32(b, 14))),
        t_rto: Dur::from_micros(u64::from(be32(b, 18))),
        round: be32(b, 22),
        urgent: b[26] & 1 != 0,
    })
}

/// Writes a feedback packet.
pub fn encode_feedback(f: &TfrcFeedback, out: &mut Vec<u8>) {
    out.push(VERSION);
    out.push(TYPE_FEEDBACK);
    out.extend_from_slice(&f.flow.to_be_bytes());
    out.extend_from_slice(&wire_time_us(f.echo.0).to_be_bytes());
    out.extend_from_slice(&micros(f.t_delay).to_be_bytes());
    out.extend_from_slice(&f.x_recv.to_bits().to_be_bytes());
    out.extend_from_slice(&f.p.to_bits().to_be_bytes());
    out.extend_from_slice(&f.loss_events.to_be_bytes());
}

/// Reads a feedback packet, its echo recovered near `now`.
pub fn decode_feedback(b: &[u8], now: Time) -> Result<TfrcFeedback, Malformed> {
    check(b, TYPE_FEEDBACK, FEEDBACK_LEN, "feedback")?;
    let x_recv = f64::from_bits(be64(b, 14));
    let p = f64::from_bits(be64(b, 22));
    if !(x_recv >= 0.0 && (0.0..=1.0).contains(&p)) {
        return Err(Malformed(format!("TFRC feedback with X_recv {x_recv} and p {p}")));
    }
    Ok(TfrcFeedback {
        flow: be32(b, 2),
        echo: recover_time(now, be32(b, 6)),
        t_delay: Dur::from_micros(u64::from(be32(b, 10))),
        x_recv,
        p,
        loss_events: be32(b, 30),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use fairway_core::udpm::whole_micros;

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
