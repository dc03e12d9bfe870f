//! Media scales and pacing: which rate each scale value stands for, and how a sender turns a
//! rate into frames and datagrams.
//!
//! kadhum2015 §2.2: "the sender and the receiver should agree on different sets of transmission
//! strategies ... and associate them with different values of scales (transmission rates)".
//! chung-dcbt §5: the rates "increase linearly as the scale value increases" (Table 1).

use super::wire::DATA_HEADER_LEN;
use fairway_core::{Bytes, Dur, Rate};

use super::mpeg::Gop;
use super::ParamError;

/// The largest UDPm message (header + payload) a sender may emit: the UDP payload limit over
/// IPv4, 65 535 - 20 (IP) - 8 (UDP).
pub const MAX_DATAGRAM: u64 = 65_507;

/// The rates of the scale values 0, 1, ..., top: strictly increasing, all above zero, 1 to 255 of
/// them (the scale travels in one byte). Rates are on-the-wire rates: UDPm header included.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScaleTable {
    rates: Vec<Rate>,
}

impl ScaleTable {
    /// A table from the rates of scale 0, 1, ...; an error names the problem.
    pub fn new(rates: Vec<Rate>) -> Result<ScaleTable, ParamError> {
        if rates.is_empty() {
            return Err(ParamError::of("MApp", "table", "needs at least one rate"));
        }
        if rates.len() > 255 {
            return Err(ParamError::of(
                "MApp",
                "table",
                format!("has {} rates; at most 255 fit the one-byte scale (0 to 254)", rates.len()),
            ));
        }
        if rates[0].bps() == 0 {
            return Err(ParamError::of("MApp", "table", "rate of scale 0 is zero; every rate must be above 0 b/s"));
        }
        for (k, w) in rates.windows(2).enumerate() {
            if w[1] <= w[0] {
                return Err(ParamError::of(
                    "MApp",
                    "table",
                    format!(
                        "rate of scale {} ({}) is not above the rate of scale {} ({}): rates must increase strictly",
                        k + 1,
                        w[1],
                        k,
                        w[0]
                    ),
                ));
            }
        }
        Ok(ScaleTable { rates })
    }

    /// chung-dcbt §5, Table 1 (and §6: "300, 500, 700, 900, 1100 Kbps, for scale 0 to 4"): the five
    /// scales of MM_APP.
    pub fn chung_mm_app() -> ScaleTable {
        ScaleTable { rates: [300, 500, 700, 900, 1100].iter().map(|k| Rate(k * 1_000)).collect() }
    }

    /// The ten scales of kadhum2015's MApp: k x 160 kb/s for k = 1..10 (160 kb/s to 1.6 Mb/s).
    ///
    /// kadhum2015 gives no table. It says MApp has "the ten level media scaling feature (ten
    /// transmission rates)" (§3) and that in both of its scenarios the UDP source generates
    /// 1.6 Mb/s (§4.2); and chung-dcbt §5, whose MM_APP MApp extends, requires rates that grow
    /// linearly with the scale ("the transmission rates resulting from the sets increase linearly
    /// as the scale value increases"). So the top level is 1.6 Mb/s and the levels are linear:
    /// k x 160 kb/s for k = 1..10.
    pub fn kadhum2015() -> ScaleTable {
        ScaleTable { rates: (1..=10).map(|k| Rate(k * 160_000)).collect() }
    }

    /// The rates, scale 0 first.
    pub fn rates(&self) -> &[Rate] {
        &self.rates
    }

    /// How many scale values there are (at least 1).
    pub fn levels(&self) -> usize {
        self.rates.len()
    }

    /// The highest scale value.
    pub fn top(&self) -> u8 {
        (self.rates.len() - 1) as u8
    }

    /// `scale`, or the top scale if `scale` is beyond the table.
    pub fn clamp(&self, scale: u8) -> u8 {
        scale.min(self.top())
    }

    /// The rate of `scale` (clamped to the table).
    pub fn rate(&self, scale: u8) -> Rate {
        self.rates[self.clamp(scale) as usize]
    }
}

/// How a sender realises a scale's rate. In both modes the table's rates are on-the-wire rates
/// (UDPm header + payload; the 28 bytes of IPv4 + UDP in front of it on a real network are not
/// counted, as ns-2 does not count them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pacing {
    /// kadhum2015 §2.2: "every set uses same sized packets"; ns-2 mm-app.cc: one `pktsize_` packet
    /// every `pktsize_ x 8 / rate[scale]` seconds. Each frame is one datagram of exactly
    /// `packet_size` bytes (header included); the interval changes with the scale.
    ConstantSize { packet_size: Bytes },
    /// kadhum2015 §1.3: VoIP "prefers constant packet rate", so "the data rate is changed by
    /// adjusting the size of each compressed audio frame". One frame every `interval`; the frame
    /// is rate x interval / 8 bytes on the wire, split into ceil(bytes / `max_datagram`)
    /// datagrams of near-equal size, each with its own 32-byte header (kadhum2015 §3.2:
    /// "segmentation and re-assembly").
    ConstantRate { interval: Dur, max_datagram: Bytes },
    /// chung-dcbt §5's MPEG_APP: one frame slot after another, each sending its GOP position's
    /// frame if the scale's policy keeps it ([`Gop`]); the scale changes which frames are sent,
    /// not their sizes.
    Mpeg(Gop),
}

impl Default for Pacing {
    /// kadhum2015's appendix: `$mapp_s set pktsize_ 1000`.
    fn default() -> Self {
        Pacing::ConstantSize { packet_size: Bytes(1000) }
    }
}

/// The datagrams of one frame: `fragments` datagrams whose sizes add up to `total`; the first
/// `total % fragments` of them are one byte longer than the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameLayout {
    pub fragments: u16,
    pub total: Bytes,
}

impl FrameLayout {
    /// Size on the wire (header included) of fragment `index`.
    pub fn fragment_len(&self, index: u16) -> Bytes {
        let n = self.fragments.max(1) as u64;
        let base = self.total.0 / n;
        let extra = self.total.0 % n;
        Bytes(base + u64::from((index as u64) < extra))
    }

    /// The smallest fragment.
    pub fn min_fragment(&self) -> Bytes {
        Bytes(self.total.0 / self.fragments.max(1) as u64)
    }
}

impl Pacing {
    /// The frame due at frame slot `slot` (counted from the start) at `scale`, whose rate is
    /// `rate`: its datagrams, or `None` if the policy skips it; and the time to the next slot.
    pub fn frame(&self, scale: u8, rate: Rate, slot: u64) -> (Option<FrameLayout>, Dur) {
        match self {
            Pacing::Mpeg(g) => {
                let pos = (slot % g.pattern().len() as u64) as usize;
                (g.keeps(scale, pos).then(|| g.layout(pos)), g.slot)
            }
            _ => (Some(self.layout(rate)), self.interval(rate)),
        }
    }

    /// The time between frames at `rate` (between frame slots with MPEG).
    pub fn interval(&self, rate: Rate) -> Dur {
        match *self {
            Pacing::Mpeg(g) => g.slot,
            // ns-2 mm-app.cc next_snd_time: interval_ = (pktsize_ << 3) / rate[scale_]
            // (tx_time rounds size x 8 / rate to the nearest nanosecond).
            Pacing::ConstantSize { packet_size } => rate.tx_time(packet_size),
            Pacing::ConstantRate { interval, .. } => interval,
        }
    }

    /// The datagrams of a frame sent at `rate` (with MPEG, of the GOP's first frame: see
    /// [`Pacing::frame`]).
    pub fn layout(&self, rate: Rate) -> FrameLayout {
        match *self {
            Pacing::Mpeg(g) => g.layout(0),
            Pacing::ConstantSize { packet_size } => FrameLayout { fragments: 1, total: packet_size },
            Pacing::ConstantRate { interval, max_datagram } => {
                // bytes = rate x interval / 8, rounded down.
                let total = rate.bytes_in(interval);
                let n = total.0.div_ceil(max_datagram.0.max(1)).clamp(1, u16::MAX as u64);
                FrameLayout { fragments: n as u16, total }
            }
        }
    }

    /// chung-dcbt §5's Max_Intrvl, "the longest possible frame transmission interval": scale 0's
    /// interval with constant-size packets, the fixed interval with a constant packet rate.
    /// Jitter (ns-2 mm-app.cc: interval x (1 + U(-0.5, 0.5))) stretches it by up to half.
    pub fn max_interval(&self, table: &ScaleTable, jitter: bool) -> Dur {
        let longest = match self {
            // MPEG: the longest run of slots between two frames scale 0 sends.
            Pacing::Mpeg(g) => g.max_interval(),
            _ => self.interval(table.rate(0)),
        };
        if jitter {
            longest + Dur(longest.0 / 2)
        } else {
            longest
        }
    }

    /// Checks the pacing against a table: every datagram must hold the 32-byte header plus at
    /// least one payload byte and fit a UDP datagram, every interval must be above zero.
    pub(crate) fn validate(&self, table: &ScaleTable) -> Result<(), ParamError> {
        let min_len = DATA_HEADER_LEN as u64 + 1;
        match *self {
            // The GOP checked itself when built; its scales are Figure 7(b)'s five.
            Pacing::Mpeg(g) => {
                if *table != g.table() {
                    return Err(ParamError::of(
                        "MApp",
                        "table",
                        "an MPEG stream's scales are its GOP's policies (Gop::table)",
                    ));
                }
            }
            Pacing::ConstantSize { packet_size } => {
                if packet_size.0 < min_len || packet_size.0 > MAX_DATAGRAM {
                    return Err(ParamError::of("MApp", 
                        "pacing.packet_size",
                        format!(
                            "{packet_size} is outside {min_len}..={MAX_DATAGRAM} bytes (the {DATA_HEADER_LEN}-byte header, a \
                             payload, and a UDP datagram's limit)"
                        ),
                    ));
                }
                let top = table.rate(table.top());
                if self.interval(top).is_zero() {
                    return Err(ParamError::of(
                        "MApp",
                        "pacing.packet_size",
                        format!("{packet_size} at {top} takes under half a nanosecond: the interval would be zero"),
                    ));
                }
            }
            Pacing::ConstantRate { interval, max_datagram } => {
                if interval.is_zero() {
                    return Err(ParamError::of("MApp", "pacing.interval", "must be above zero"));
                }
                if max_datagram.0 < min_len || max_datagram.0 > MAX_DATAGRAM {
                    return Err(ParamError::of(
                        "MApp",
                        "pacing.max_datagram",
                        format!("{max_datagram} is outside {min_len}..={MAX_DATAGRAM} bytes"),
                    ));
                }
                for (k, &rate) in table.rates().iter().enumerate() {
                    let total = rate.bytes_in(interval);
                    let n = total.0.div_ceil(max_datagram.0);
                    if n > u16::MAX as u64 {
                        return Err(ParamError::of(
                            "MApp",
                            "pacing.max_datagram",
                            format!(
                                "scale {k}'s frame of {total} needs {n} datagrams of at most {max_datagram}; \
                                 at most 65535 fit the fragment count"
                            ),
                        ));
                    }
                    let layout = self.layout(rate);
                    if layout.min_fragment().0 < min_len {
                        return Err(ParamError::of(
                            "MApp",
                            "pacing.interval",
                            format!(
                                "at scale {k} ({rate}) a frame every {interval} is {total}, too small for datagrams \
                                 of at least {min_len} bytes ({DATA_HEADER_LEN}-byte header and a payload)"
                            ),
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_from_the_papers() {
        let c = ScaleTable::chung_mm_app();
        assert_eq!(c.rates(), &[Rate(300_000), Rate(500_000), Rate(700_000), Rate(900_000), Rate(1_100_000)]);
        assert_eq!(c.top(), 4);
        let k = ScaleTable::kadhum2015();
        assert_eq!(k.levels(), 10);
        assert_eq!(k.rate(0), Rate(160_000));
        assert_eq!(k.rate(9), Rate(1_600_000));
        // Linear: equal steps.
        assert!(k.rates().windows(2).all(|w| w[1].0 - w[0].0 == 160_000));
        assert_eq!(k.rate(200), Rate(1_600_000), "beyond the table clamps to the top");
        assert_eq!(k.clamp(17), 9);
    }

    #[test]
    fn bad_tables_are_errors_naming_the_problem() {
        let e = ScaleTable::new(vec![]).unwrap_err();
        assert_eq!(e.field, "table");
        assert!(e.reason.contains("at least one"), "{e}");
        let e = ScaleTable::new(vec![Rate(0), Rate(5)]).unwrap_err();
        assert!(e.reason.contains("zero"), "{e}");
        let e = ScaleTable::new(vec![Rate(100), Rate(300), Rate(300)]).unwrap_err();
        assert!(e.reason.contains("scale 2") && e.reason.contains("strictly"), "{e}");
        let e = ScaleTable::new((1..=256).map(Rate).collect()).unwrap_err();
        assert!(e.reason.contains("256"), "{e}");
        assert_eq!(ScaleTable::new((1..=255).map(Rate).collect()).unwrap().top(), 254);
        assert_eq!(ScaleTable::new(vec![Rate(1)]).unwrap().top(), 0);
    }

    #[test]
    fn constant_size_interval_is_size_times_8_over_rate() {
        let p = Pacing::ConstantSize { packet_size: Bytes(1000) };
        let k = ScaleTable::kadhum2015();
        // 8000 bits / 160 kb/s = 50 ms; / 320 kb/s = 25 ms; / 1.6 Mb/s = 5 ms.
        assert_eq!(p.interval(k.rate(0)), Dur::from_millis(50));
        assert_eq!(p.interval(k.rate(1)), Dur::from_millis(25));
        assert_eq!(p.interval(k.rate(9)), Dur::from_millis(5));
        // 8000 bits / 480 kb/s = 16.666... ms, to the nearest ns.
        assert_eq!(p.interval(k.rate(2)), Dur(16_666_667));
        assert_eq!(p.layout(k.rate(4)), FrameLayout { fragments: 1, total: Bytes(1000) });
        assert_eq!(p.max_interval(&k, false), Dur::from_millis(50));
        assert_eq!(p.max_interval(&k, true), Dur::from_millis(75));
    }

    #[test]
    fn constant_rate_frames_split_into_near_equal_fragments() {
        let p = Pacing::ConstantRate { interval: Dur::from_millis(20), max_datagram: Bytes(1200) };
        // 1.1 Mb/s x 20 ms = 2750 B -> 3 datagrams: 917, 917, 916.
        let l = p.layout(Rate(1_100_000));
        assert_eq!(l, FrameLayout { fragments: 3, total: Bytes(2750) });
        assert_eq!((0..3).map(|i| l.fragment_len(i).0).collect::<Vec<_>>(), [917, 917, 916]);
        // 300 kb/s x 20 ms = 750 B -> one datagram.
        let l = p.layout(Rate(300_000));
        assert_eq!(l, FrameLayout { fragments: 1, total: Bytes(750) });
        assert_eq!(l.fragment_len(0), Bytes(750));
        // Exactly two full datagrams.
        let l = p.layout(Rate(960_000));
        assert_eq!((l.fragments, l.fragment_len(0), l.fragment_len(1)), (2, Bytes(1200), Bytes(1200)));
        assert_eq!(p.interval(Rate(1)), Dur::from_millis(20));
        assert_eq!(p.max_interval(&ScaleTable::chung_mm_app(), false), Dur::from_millis(20));
        assert!(p.validate(&ScaleTable::chung_mm_app()).is_ok());
    }

    #[test]
    fn pacing_that_cannot_carry_the_header_is_an_error() {
        let t = ScaleTable::chung_mm_app();
        let e = Pacing::ConstantSize { packet_size: Bytes(28) }.validate(&t).unwrap_err();
        assert_eq!(e.field, "pacing.packet_size");
        let e = Pacing::ConstantSize { packet_size: Bytes(70_000) }.validate(&t).unwrap_err();
        assert_eq!(e.field, "pacing.packet_size");
        // 300 kb/s x 0.5 ms = 18 B: smaller than a header.
        let e = Pacing::ConstantRate { interval: Dur::from_micros(500), max_datagram: Bytes(1000) }
            .validate(&t)
            .unwrap_err();
        assert_eq!(e.field, "pacing.interval");
        assert!(e.reason.contains("scale 0"), "{e}");
        let e = Pacing::ConstantRate { interval: Dur::ZERO, max_datagram: Bytes(1000) }.validate(&t).unwrap_err();
        assert_eq!(e.field, "pacing.interval");
        let e =
            Pacing::ConstantRate { interval: Dur::from_millis(20), max_datagram: Bytes(20) }.validate(&t).unwrap_err();
        assert_eq!(e.field, "pacing.max_datagram");
        // 1 Tb/s for 1 s needs far more than 65535 fragments of 1000 B.
        let huge = ScaleTable::new(vec![Rate(1_000_000_000_000)]).unwrap();
        let e = Pacing::ConstantRate { interval: Dur::from_secs(1), max_datagram: Bytes(1000) }
            .validate(&huge)
            .unwrap_err();
        assert_eq!(e.field, "pacing.max_datagram");
        // A 33-byte packet at 1 Tb/s would leave a zero interval.
        let e = Pacing::ConstantSize { packet_size: Bytes(33) }.validate(&huge).unwrap_err();
        assert!(e.reason.contains("zero"), "{e}");
    }
}
