//! MPEG_APP's stream (chung-dcbt §5, Figure 7): an MPEG-1 group of pictures replayed at its frame
//! rate, of which each scale value transmits a subset. "Only the transmission policy changes
//! with scale; the encoding does not": every scale reads the same frames, one per frame slot
//! (1/30 s at 30 frames/s), and sends a frame only if the current scale's policy keeps its type
//! at its position in the GOP.
//!
//! Figure 7(a)'s trace is the mean frame size of each type (I 11 000, P 8 000, B 2 000 bytes;
//! the paper's "KB" is 1000 bytes) repeated in the pattern IBBPBBPBB, so a constant-size GOP
//! is the paper's trace exactly. Figure 7(b)'s policies, for five scales:
//! - 4: every frame;
//! - 3: I, every P, one B of each pair ("I B P B P B");
//! - 2: I and every P ("I P P");
//! - 1: I and the first P ("I P": the second P is predicted from the first);
//! - 0: I only.
//!
//! Which B of a pair scale 3 keeps is not stated: the first (reading notes §1.6, a proposal).
//! The text says Figure 7(b) is for the 12-frame GOP, but its policies and rates fit the
//! 9-frame one; the same rules apply to any pattern here (reading notes A3).
//!
//! A frame is split into datagrams of at most `max_datagram` bytes on the wire, each with the
//! 32-byte UDPm header, sent back to back at the frame's slot (a proposal: chung-dcbt §5 only says
//! frames are fragmented at the UDP layer). Frames are numbered as they are sent, so a frame a
//! policy skips is not a loss to the receiver.

use super::wire::DATA_HEADER_LEN;
use fairway_core::{Bytes, Dur, Rate};

use super::scale::{FrameLayout, ScaleTable, MAX_DATAGRAM};
use super::ParamError;

/// The longest GOP pattern accepted.
pub const MAX_GOP: usize = 32;

/// An MPEG-1 frame type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FrameKind {
    /// Intra-coded: decodable alone.
    #[default]
    I,
    /// Predicted from the previous I or P.
    P,
    /// Bidirectionally predicted from the I or P on either side.
    B,
}

/// The scale values of Figure 7(b).
pub const MPEG_SCALES: u8 = 5;

/// The stream MPEG_APP replays: a GOP pattern, the size of each frame type, the frame rate, and
/// the largest datagram.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gop {
    pattern: [FrameKind; MAX_GOP],
    len: u8,
    /// Frame sizes (the trace's bytes, headers not included) of I, P and B frames.
    pub sizes: [Bytes; 3],
    /// One frame slot: 1 / the maximum frame rate.
    pub slot: Dur,
    /// The largest datagram on the wire, header included.
    pub max_datagram: Bytes,
}

impl Gop {
    /// A GOP from its pattern ("IBBPBBPBB"), checked: it starts with an I frame, has only I, P
    /// and B, and at most [`MAX_GOP`] frames.
    pub fn new(pattern: &str, sizes: [Bytes; 3], slot: Dur, max_datagram: Bytes) -> Result<Gop, ParamError> {
        let mut kinds = [FrameKind::I; MAX_GOP];
        let chars: Vec<char> = pattern.chars().collect();
        if chars.is_empty() || chars.len() > MAX_GOP {
            // A pattern too long to be a GOP is not echoed whole: its first frames say enough.
            let shown: String = chars.iter().take(MAX_GOP + 1).collect();
            let more = if chars.len() > MAX_GOP + 1 { "..." } else { "" };
            return Err(ParamError::of(
                "MApp",
                "gop",
                format!("`{shown}{more}` has {} frames: 1 to {MAX_GOP}", chars.len()),
            ));
        }
        for (i, c) in chars.iter().enumerate() {
            kinds[i] = match c {
                'I' => FrameKind::I,
                'P' => FrameKind::P,
                'B' => FrameKind::B,
                other => {
                    return Err(ParamError::of(
                        "MApp",
                        "gop",
                        format!("`{pattern}`: `{other}` is not a frame type (I, P or B)"),
                    ))
                }
            };
        }
        if kinds[0] != FrameKind::I {
            return Err(ParamError::of("MApp", "gop", format!("`{pattern}` must begin with an I frame")));
        }
        let g = Gop { pattern: kinds, len: chars.len() as u8, sizes, slot, max_datagram };
        g.validate()?;
        Ok(g)
    }

    /// chung-dcbt Figure 7(a): IBBPBBPBB at 30 frames/s, I 11 000, P 8 000 and B 2 000 bytes, in
    /// datagrams of at most 1500 bytes (§5: "the maximum packet size of UDP ... 1500 bytes").
    pub fn chung_figure7() -> Gop {
        Gop::new("IBBPBBPBB", [Bytes(11_000), Bytes(8_000), Bytes(2_000)], Dur(1_000_000_000 / 30), Bytes(1500))
            .expect("Figure 7's GOP is valid")
    }

    fn validate(&self) -> Result<(), ParamError> {
        if self.slot.is_zero() {
            return Err(ParamError::of("MApp", "fps", "the frame slot must be above zero"));
        }
        let min = DATA_HEADER_LEN as u64 + 1;
        if self.max_datagram.0 < min || self.max_datagram.0 > MAX_DATAGRAM {
            return Err(ParamError::of(
                "MApp",
                "packet_size",
                format!("{} is outside {min}..={MAX_DATAGRAM} bytes", self.max_datagram),
            ));
        }
        for (name, s) in ["i_size", "p_size", "b_size"].iter().zip(self.sizes) {
            if s.0 == 0 {
                return Err(ParamError::of("MApp", name, "a frame must have at least one byte"));
            }
            if self.fragments(s) > u16::MAX as u64 {
                return Err(ParamError::of("MApp", name, format!("{s} needs more than 65535 datagrams")));
            }
        }
        Ok(())
    }

    /// The frames of the pattern.
    pub fn pattern(&self) -> &[FrameKind] {
        &self.pattern[..self.len as usize]
    }

    fn size(&self, kind: FrameKind) -> Bytes {
        match kind {
            FrameKind::I => self.sizes[0],
            FrameKind::P => self.sizes[1],
            FrameKind::B => self.sizes[2],
        }
    }

    fn fragments(&self, size: Bytes) -> u64 {
        size.0.div_ceil(self.max_datagram.0 - DATA_HEADER_LEN as u64)
    }

    /// Whether `scale`'s policy sends the frame at `pos` of the GOP (Figure 7(b)).
    pub fn keeps(&self, scale: u8, pos: usize) -> bool {
        let p = self.pattern();
        let kind = p[pos % p.len()];
        let pos = pos % p.len();
        match (scale.min(MPEG_SCALES - 1), kind) {
            (_, FrameKind::I) => true,
            (4, _) => true,
            // One B of each run: the first (a reading; Figure 7(b) shows one of each pair).
            (3, FrameKind::B) => pos == 0 || p[pos - 1] != FrameKind::B,
            (2 | 3, FrameKind::P) => true,
            // "I P": the first P of the GOP only.
            (1, FrameKind::P) => !p[..pos].contains(&FrameKind::P),
            _ => false,
        }
    }

    /// The datagrams of the frame at `pos`: the frame's bytes plus a header per datagram.
    pub fn layout(&self, pos: usize) -> FrameLayout {
        let p = self.pattern();
        let size = self.size(p[pos % p.len()]);
        let n = self.fragments(size);
        FrameLayout { fragments: n as u16, total: Bytes(size.0 + n * DATA_HEADER_LEN as u64) }
    }

    /// The long-run rate on the wire of `scale` (headers included): the bytes it sends per GOP
    /// over the GOP's duration. Figure 7(b)'s rates count the first second only (1056 kb/s at
    /// scale 4 against 1040 here without headers; reading notes §1.6).
    pub fn rate(&self, scale: u8) -> Rate {
        let bytes: u64 = (0..self.len as usize).filter(|&i| self.keeps(scale, i)).map(|i| self.layout(i).total.0).sum();
        let gop = self.slot.0 as u128 * self.len as u128;
        Rate(((bytes as u128 * 8 * 1_000_000_000 + gop / 2) / gop) as u64)
    }

    /// The five scales' rates, for reports.
    pub fn table(&self) -> ScaleTable {
        ScaleTable::new((0..MPEG_SCALES).map(|s| self.rate(s)).collect())
            .unwrap_or_else(|_| ScaleTable::new(vec![self.rate(MPEG_SCALES - 1)]).expect("one rate above zero"))
    }

    /// chung-dcbt §5's Max_Intrvl, "the longest possible frame transmission interval": the longest
    /// run of slots between two frames scale 0 sends (the whole GOP, with one I per GOP).
    pub fn max_interval(&self) -> Dur {
        let n = self.len as usize;
        let kept: Vec<usize> = (0..n).filter(|&i| self.keeps(0, i)).collect();
        let longest = kept.iter().enumerate().map(|(k, &i)| (kept[(k + 1) % kept.len()] + n - i - 1) % n + 1).max();
        self.slot.saturating_mul(longest.unwrap_or(n) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figure_7b_policies_on_the_9_frame_gop() {
        let g = Gop::chung_figure7();
        let sent =
            |s: u8| -> String { (0..9).filter(|&i| g.keeps(s, i)).map(|i| format!("{:?}", g.pattern()[i])).collect() };
        assert_eq!(sent(4), "IBBPBBPBB");
        assert_eq!(sent(3), "IBPBPB");
        assert_eq!(sent(2), "IPP");
        assert_eq!(sent(1), "IP");
        assert_eq!(sent(0), "I");
        // Scale 3 keeps the first B of each pair, scale 1 the first P.
        assert!(g.keeps(3, 1) && !g.keeps(3, 2) && g.keeps(1, 3) && !g.keeps(1, 6));
    }

    #[test]
    fn rates_are_the_long_run_averages_of_the_trace() {
        // Reading notes §1.6: per 0.3 s GOP, scale 0 sends 11 000 B = 293.3 kb/s; scale 4
        // 11 000 + 2 x 8 000 + 6 x 2 000 = 39 000 B = 1040 kb/s, before headers. On the wire
        // each datagram adds 32 bytes: an I frame is 8 datagrams of at most 1468 payload bytes
        // (11 000 / 1468 = 7.5), a P frame 6, a B frame 2.
        let g = Gop::chung_figure7();
        assert_eq!(g.layout(0), FrameLayout { fragments: 8, total: Bytes(11_000 + 8 * 32) });
        assert_eq!(g.layout(3), FrameLayout { fragments: 6, total: Bytes(8_000 + 6 * 32) });
        assert_eq!(g.layout(1), FrameLayout { fragments: 2, total: Bytes(2_000 + 2 * 32) });
        let gop_s = 0.3;
        let expect = |payload: f64, datagrams: f64| ((payload + 32.0 * datagrams) * 8.0 / gop_s).round() as u64;
        assert_eq!(g.rate(0).bps(), expect(11_000.0, 8.0));
        assert_eq!(g.rate(1).bps(), expect(19_000.0, 14.0));
        assert_eq!(g.rate(2).bps(), expect(27_000.0, 20.0));
        assert_eq!(g.rate(3).bps(), expect(33_000.0, 26.0));
        assert_eq!(g.rate(4).bps(), expect(39_000.0, 32.0));
        assert_eq!(g.table().levels(), 5);
        // Every fragment fits 1500 bytes.
        for i in 0..9 {
            let l = g.layout(i);
            assert!((0..l.fragments).all(|k| l.fragment_len(k).0 <= 1500));
        }
    }

    #[test]
    fn max_interval_is_the_longest_gap_at_scale_0() {
        // One I per 9-frame GOP: 9 slots of 1/30 s = 0.3 s.
        assert_eq!(Gop::chung_figure7().max_interval(), Dur(9 * (1_000_000_000 / 30)));
        let g = Gop::new("IPBI", [Bytes(100); 3], Dur::from_millis(10), Bytes(1500)).unwrap();
        // I at 0 and 3: gaps of 3 slots then 1.
        assert_eq!(g.max_interval(), Dur::from_millis(30));
    }

    #[test]
    fn bad_gops_name_their_field() {
        let s = [Bytes(100); 3];
        let bad = |p: &str, sizes: [Bytes; 3], slot: Dur, max: Bytes| Gop::new(p, sizes, slot, max).unwrap_err().field;
        assert_eq!(bad("", s, Dur(1), Bytes(1500)), "gop");
        assert_eq!(bad("PBB", s, Dur(1), Bytes(1500)), "gop");
        assert_eq!(bad("IXB", s, Dur(1), Bytes(1500)), "gop");
        assert_eq!(bad(&"I".repeat(33), s, Dur(1), Bytes(1500)), "gop");
        // A huge pattern is not echoed whole in the error.
        let e = Gop::new(&"IBB".repeat(1_000_000), s, Dur(1), Bytes(1500)).unwrap_err();
        assert!(e.reason.len() < 100 && e.reason.contains("3000000 frames"), "{}", e.reason);
        assert_eq!(bad("IBB", s, Dur::ZERO, Bytes(1500)), "fps");
        assert_eq!(bad("IBB", s, Dur(1), Bytes(32)), "packet_size");
        assert_eq!(bad("IBB", [Bytes(0), Bytes(1), Bytes(1)], Dur(1), Bytes(1500)), "i_size");
    }
}
