//! RTCP feedback for congestion control (RFC 8888): the receiver tells the sender, per RTP
//! stream, which packets of a range of sequence numbers arrived, when, and with which ECN
//! codepoint. One report (§3.1):
//!
//! - the RTCP header: V = 2, P, FMT = 11, PT = 205 (RTPFB), length in 32-bit words less one;
//! - the SSRC of the report's sender;
//! - per stream: its SSRC, `begin_seq` and `num_reports` (16 bits each), then one 16-bit metric
//!   block per sequence number from `begin_seq` on: R (received), ECN (2 bits), ATO (13 bits:
//!   the arrival time as an offset before the report timestamp, in 1/1024 s; 0x1FFE for an
//!   offset too large to code, 0x1FFF for one not available), a block of zeros after an odd
//!   count to keep 32-bit alignment;
//! - the report timestamp: the middle 32 bits of an NTP timestamp (seconds modulo 65536, then
//!   1/65536 s).
//!
//! `num_reports` is read as the number of metric blocks that follow (RFC 8888 erratum 7894
//! concerns this field: the next change here should check its text). Sans-IO, as every codec in
//! this crate: [`Feedback::encode`] and [`Feedback::decode`], and [`Recorder`], which keeps what
//! a receiver has seen and builds the blocks.

use std::collections::BTreeMap;

use fairway_core::{Dur, Time};

use crate::Malformed;

#[cfg(test)]
#[path = "rfc8888_tests.rs"]
mod tests;

/// RTCP packet type of transport-layer feedback (RTPFB, RFC 4585 §6.1).
pub const PT_RTPFB: u8 = 205;
/// RFC 8888's feedback message type.
pub const FMT_CCFB: u8 = 11;
/// ATO units per second (§3.1).
pub const ATO_PER_SEC: u64 = 1024;
/// The largest offset an ATO codes: 0x1FFD units, just under 8 s.
pub const ATO_MAX: u16 = 0x1FFD;
const ATO_OVER_RANGE: u16 = 0x1FFE;
const ATO_UNAVAILABLE: u16 = 0x1FFF;
/// Header (4) and sender SSRC (4), then the report timestamp (4).
const FIXED_LEN: usize = 12;
/// A stream's SSRC, begin_seq and num_reports.
const STREAM_HEADER_LEN: usize = 8;

/// The two ECN bits of the IP header as the packet arrived (RFC 3168 §5), as RFC 8888 reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Ecn {
    #[default]
    NotEct,
    Ect1,
    Ect0,
    Ce,
}

impl Ecn {
    fn bits(self) -> u16 {
        match self {
            Ecn::NotEct => 0b00,
            Ecn::Ect1 => 0b01,
            Ecn::Ect0 => 0b10,
            Ecn::Ce => 0b11,
        }
    }

    fn from_bits(b: u16) -> Ecn {
        match b & 0b11 {
            0b00 => Ecn::NotEct,
            0b01 => Ecn::Ect1,
            0b10 => Ecn::Ect0,
            _ => Ecn::Ce,
        }
    }
}

/// When a reported packet arrived, before the report timestamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ato {
    /// In 1/1024 s, at most [`ATO_MAX`].
    Units(u16),
    /// Longer ago than the field codes.
    OverRange,
    /// The receiver does not say.
    Unavailable,
}

impl Ato {
    /// The offset of an arrival at `arrived` before a report stamped `report_at`, to the nearest
    /// 1/1024 s (RFC 8888 leaves the rounding open).
    pub fn between(arrived: Time, report_at: Time) -> Ato {
        let d = report_at.saturating_since(arrived);
        let units = (d.0 as u128 * ATO_PER_SEC as u128 + 500_000_000) / 1_000_000_000;
        if units > ATO_MAX as u128 {
            Ato::OverRange
        } else {
            Ato::Units(units as u16)
        }
    }

    /// The offset as a duration, if coded.
    pub fn offset(self) -> Option<Dur> {
        match self {
            Ato::Units(u) => Some(Dur((u as u64 * 1_000_000_000 + ATO_PER_SEC / 2) / ATO_PER_SEC)),
            _ => None,
        }
    }

    fn bits(self) -> u16 {
        match self {
            Ato::Units(u) => u.min(ATO_MAX),
            Ato::OverRange => ATO_OVER_RANGE,
            Ato::Unavailable => ATO_UNAVAILABLE,
        }
    }

    fn from_bits(b: u16) -> Ato {
        match b & 0x1FFF {
            ATO_OVER_RANGE => Ato::OverRange,
            ATO_UNAVAILABLE => Ato::Unavailable,
            u => Ato::Units(u),
        }
    }
}

/// One sequence number's metric block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Report {
    /// Not received (R = 0; the other 15 bits are zero and ignored on reading).
    Lost,
    Received {
        ecn: Ecn,
        ato: Ato,
    },
}

impl Report {
    fn word(self) -> u16 {
        match self {
            Report::Lost => 0,
            Report::Received { ecn, ato } => 0x8000 | ecn.bits() << 13 | ato.bits(),
        }
    }

    fn from_word(w: u16) -> Report {
        if w & 0x8000 == 0 {
            return Report::Lost;
        }
        Report::Received { ecn: Ecn::from_bits(w >> 13), ato: Ato::from_bits(w) }
    }
}

/// The packets of one RTP stream a report describes: `reports[i]` is sequence number
/// `begin_seq + i` (modulo 2^16).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamReport {
    pub ssrc: u32,
    pub begin_seq: u16,
    pub reports: Vec<Report>,
}

impl StreamReport {
    /// Its length on the wire, alignment included.
    fn len(&self) -> usize {
        STREAM_HEADER_LEN + 2 * (self.reports.len() + self.reports.len() % 2)
    }
}

/// One RFC 8888 report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Feedback {
    pub sender_ssrc: u32,
    pub streams: Vec<StreamReport>,
    /// The middle 32 bits of the NTP time the report was made ([`ntp_middle`]).
    pub report_timestamp: u32,
}

/// The middle 32 bits of the NTP timestamp of `t` (RFC 3550 §4's compact form), counting `t`
/// from the NTP epoch: seconds modulo 2^16 in the high half, 1/65536 s in the low half.
pub fn ntp_middle(t: Time) -> u32 {
    let secs = t.0 / 1_000_000_000;
    let frac = ((t.0 % 1_000_000_000) << 16) / 1_000_000_000;
    ((secs & 0xFFFF) << 16 | frac) as u32
}

impl Feedback {
    /// Its length on the wire.
    pub fn len(&self) -> usize {
        FIXED_LEN + self.streams.iter().map(StreamReport::len).sum::<usize>()
    }

    /// Whether it reports on no stream.
    pub fn is_empty(&self) -> bool {
        self.streams.is_empty()
    }

    /// Appends its wire form to `out`. A stream of more than 65535 reports is cut to that many
    /// (the field's width).
    pub fn encode(&self, out: &mut Vec<u8>) {
        let words = self.len() / 4 - 1;
        out.push(0x80 | FMT_CCFB);
        out.push(PT_RTPFB);
        out.extend_from_slice(&(words as u16).to_be_bytes());
        out.extend_from_slice(&self.sender_ssrc.to_be_bytes());
        for s in &self.streams {
            let n = s.reports.len().min(u16::MAX as usize);
            out.extend_from_slice(&s.ssrc.to_be_bytes());
            out.extend_from_slice(&s.begin_seq.to_be_bytes());
            out.extend_from_slice(&(n as u16).to_be_bytes());
            for r in &s.reports[..n] {
                out.extend_from_slice(&r.word().to_be_bytes());
            }
            if n % 2 == 1 {
                out.extend_from_slice(&[0, 0]);
            }
        }
        out.extend_from_slice(&self.report_timestamp.to_be_bytes());
    }

    /// Reads one report from `b`, which holds it and nothing after its length.
    pub fn decode(b: &[u8]) -> Result<Feedback, Malformed> {
        let bad = |why: &str| Malformed(format!("RFC 8888 feedback: {why}"));
        if b.len() < FIXED_LEN {
            return Err(bad(&format!("{} bytes, under the {FIXED_LEN} of an empty report", b.len())));
        }
        if b[0] >> 6 != 2 {
            return Err(bad(&format!("version {}, not 2", b[0] >> 6)));
        }
        if b[0] & 0x1F != FMT_CCFB || b[1] != PT_RTPFB {
            return Err(bad(&format!("FMT {} PT {}, not {FMT_CCFB} and {PT_RTPFB}", b[0] & 0x1F, b[1])));
        }
        let len = 4 * (u16::from_be_bytes([b[2], b[3]]) as usize + 1);
        if len != b.len() {
            return Err(bad(&format!("its length field says {len} bytes, the datagram has {}", b.len())));
        }
        let u32_at = |i: usize| u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        let u16_at = |i: usize| u16::from_be_bytes([b[i], b[i + 1]]);
        let sender_ssrc = u32_at(4);
        let end = len - 4;
        let mut at = 8;
        let mut streams = vec![];
        while at < end {
            if end - at < STREAM_HEADER_LEN {
                return Err(bad("a stream's header runs past the report"));
            }
            let (ssrc, begin_seq, n) = (u32_at(at), u16_at(at + 4), u16_at(at + 6) as usize);
            let blocks = n + n % 2;
            if end - at - STREAM_HEADER_LEN < 2 * blocks {
                return Err(bad(&format!("{n} reports run past the report")));
            }
            let reports = (0..n).map(|i| Report::from_word(u16_at(at + STREAM_HEADER_LEN + 2 * i))).collect();
            streams.push(StreamReport { ssrc, begin_seq, reports });
            at += STREAM_HEADER_LEN + 2 * blocks;
        }
        Ok(Feedback { sender_ssrc, streams, report_timestamp: u32_at(end) })
    }
}

/// What a receiver has seen of one RTP stream and not yet reported: arrivals by extended
/// sequence number (RFC 3550 Appendix A.1's extension of the 16-bit number by its wraps).
#[derive(Debug, Clone, Default)]
pub struct Recorder {
    ssrc: u32,
    /// Arrival time and ECN of each packet from `next` on.
    seen: BTreeMap<u64, (Time, Ecn)>,
    /// The first extended sequence number not yet reported (before the first report, the lowest
    /// received).
    next: Option<u64>,
    /// A report was made: `next` no longer moves down.
    reported: bool,
    /// The highest extended sequence number received.
    highest: Option<u64>,
}

impl Recorder {
    pub fn new(ssrc: u32) -> Recorder {
        Recorder { ssrc, ..Recorder::default() }
    }

    /// Extends `seq` to the value nearest the highest received (a jump of under 2^15 either way).
    fn extend(&self, seq: u16) -> u64 {
        let Some(h) = self.highest else { return seq as u64 + (1 << 16) };
        let cand = (h & !0xFFFF) | seq as u64;
        let options = [cand.wrapping_sub(1 << 16), cand, cand + (1 << 16)];
        *options.iter().min_by_key(|&&c| c.abs_diff(h)).expect("three candidates")
    }

    /// Packet `seq` arrived at `at` with `ecn`. A packet below what was reported already, or
    /// seen before, changes nothing.
    pub fn record(&mut self, seq: u16, at: Time, ecn: Ecn) {
        let x = self.extend(seq);
        if self.reported && self.next.is_some_and(|n| x < n) {
            return;
        }
        self.seen.entry(x).or_insert((at, ecn));
        self.highest = Some(self.highest.map_or(x, |h| h.max(x)));
        self.next = Some(self.next.map_or(x, |n| n.min(x)));
    }

    /// The block of a report made at `now`: every sequence number from the first not reported to
    /// the highest received, at most `max` of them (the oldest first), arrivals as offsets
    /// before `now`; `None` when there is nothing new. What it covers is not reported again.
    pub fn report(&mut self, now: Time, max: usize) -> Option<StreamReport> {
        let (next, highest) = (self.next?, self.highest?);
        if next > highest || max == 0 {
            return None;
        }
        let last = highest.min(next + max as u64 - 1);
        let reports = (next..=last)
            .map(|x| match self.seen.remove(&x) {
                Some((at, ecn)) => Report::Received { ecn, ato: Ato::between(at, now) },
                None => Report::Lost,
            })
            .collect();
        self.next = Some(last + 1);
        self.reported = true;
        Some(StreamReport { ssrc: self.ssrc, begin_seq: next as u16, reports })
    }
}
