//! Time, durations, rates and sizes as integer types, parsed from the strings people write in
//! ns-2 scripts and papers ("2Mb", "6 Mb/s", "10ms", "0.005s", "1000B", "10KB").
//!
//! Conventions (the ones ns-2 uses, so numbers copied from a Tcl script mean the same here):
//! - rates are in bits per second with SI prefixes: `k`/`K` = 10^3, `M` = 10^6, `G` = 10^9;
//!   a bare `b` or `bps` or `b/s` means bits, `B`, `Bps` or `B/s` means bytes (x 8);
//! - sizes are in bytes; `KB`/`MB`/`GB` are SI (10^3 ...), `KiB`/`MiB`/`GiB` binary (2^10 ...);
//! - times and durations are integer nanoseconds; a bare number means seconds, as in Tcl.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

use thiserror::Error;

const NS_PER_S: u64 = 1_000_000_000;

/// A point in simulated (or wall-clock relative) time, in integer nanoseconds since the start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Time(pub u64);

/// A non-negative span of time in integer nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Dur(pub u64);

/// A data rate in bits per second.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Rate(pub u64);

/// A size in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Bytes(pub u64);

impl Time {
    pub const ZERO: Time = Time(0);
    pub const MAX: Time = Time(u64::MAX);

    pub fn from_secs_f64(s: f64) -> Time {
        Time(Dur::from_secs_f64(s).0)
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NS_PER_S as f64
    }
    pub fn as_nanos(self) -> u64 {
        self.0
    }
    /// The span from `earlier` to `self`, zero if `earlier` is later.
    pub fn saturating_since(self, earlier: Time) -> Dur {
        Dur(self.0.saturating_sub(earlier.0))
    }
}

impl Dur {
    pub const ZERO: Dur = Dur(0);
    pub const MAX: Dur = Dur(u64::MAX);

    pub const fn from_nanos(ns: u64) -> Dur {
        Dur(ns)
    }
    pub const fn from_micros(us: u64) -> Dur {
        Dur(us * 1_000)
    }
    pub const fn from_millis(ms: u64) -> Dur {
        Dur(ms * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> Dur {
        Dur(s * NS_PER_S)
    }
    /// Rounds to the nearest nanosecond; negative or NaN input gives zero.
    pub fn from_secs_f64(s: f64) -> Dur {
        if s.is_nan() || s <= 0.0 {
            return Dur(0);
        }
        let ns = (s * NS_PER_S as f64).round();
        if ns >= u64::MAX as f64 {
            Dur(u64::MAX)
        } else {
            Dur(ns as u64)
        }
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NS_PER_S as f64
    }
    pub fn as_nanos(self) -> u64 {
        self.0
    }
    pub fn is_zero(self) -> bool {
        self.0 == 0
    }
    pub fn saturating_mul(self, k: u64) -> Dur {
        Dur(self.0.saturating_mul(k))
    }
}

impl Rate {
    pub const fn from_bps(bps: u64) -> Rate {
        Rate(bps)
    }
    pub fn bps(self) -> u64 {
        self.0
    }
    pub fn as_bps_f64(self) -> f64 {
        self.0 as f64
    }
    /// Serialisation time of `size` at this rate: size x 8 / rate, rounded to the nearest
    /// nanosecond (ns-2 computes it in double precision; the rounding error is below 1 ns).
    /// A zero rate never finishes: `Dur::MAX`.
    pub fn tx_time(self, size: Bytes) -> Dur {
        if self.0 == 0 {
            return Dur::MAX;
        }
        // The simulator calls this twice per packet per hop: stay in 64 bits when the product
        // fits (2^30 x 8e9 + 2^61 < 2^64), with the same result as below.
        if size.0 < (1 << 30) && self.0 < (1 << 62) {
            return Dur((size.0 * 8 * NS_PER_S + self.0 / 2) / self.0);
        }
        let bits = size.0 as u128 * 8 * NS_PER_S as u128;
        let r = self.0 as u128;
        let ns = (bits + r / 2) / r;
        Dur(ns.min(u64::MAX as u128) as u64)
    }
    /// Bytes that pass in `d` at this rate (rounded down).
    pub fn bytes_in(self, d: Dur) -> Bytes {
        Bytes((self.0 as u128 * d.0 as u128 / 8 / NS_PER_S as u128) as u64)
    }
}

impl Bytes {
    pub const ZERO: Bytes = Bytes(0);
    pub fn as_u64(self) -> u64 {
        self.0
    }
    pub fn bits(self) -> u64 {
        self.0 * 8
    }
}

impl Add<Dur> for Time {
    type Output = Time;
    fn add(self, d: Dur) -> Time {
        Time(self.0.saturating_add(d.0))
    }
}
impl AddAssign<Dur> for Time {
    fn add_assign(&mut self, d: Dur) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Sub<Time> for Time {
    type Output = Dur;
    /// Saturating: a later `rhs` gives zero.
    fn sub(self, rhs: Time) -> Dur {
        Dur(self.0.saturating_sub(rhs.0))
    }
}
impl Add for Dur {
    type Output = Dur;
    fn add(self, d: Dur) -> Dur {
        Dur(self.0.saturating_add(d.0))
    }
}
impl AddAssign for Dur {
    fn add_assign(&mut self, d: Dur) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Sub for Dur {
    type Output = Dur;
    fn sub(self, d: Dur) -> Dur {
        Dur(self.0.saturating_sub(d.0))
    }
}
impl Add for Bytes {
    type Output = Bytes;
    fn add(self, b: Bytes) -> Bytes {
        Bytes(self.0 + b.0)
    }
}
impl AddAssign for Bytes {
    fn add_assign(&mut self, b: Bytes) {
        self.0 += b.0;
    }
}

fn fmt_secs(f: &mut fmt::Formatter<'_>, ns: u64) -> fmt::Result {
    if ns.is_multiple_of(NS_PER_S) {
        write!(f, "{}s", ns / NS_PER_S)
    } else if ns.is_multiple_of(1_000_000) {
        write!(f, "{}ms", ns / 1_000_000)
    } else if ns.is_multiple_of(1_000) {
        write!(f, "{}us", ns / 1_000)
    } else {
        write!(f, "{}ns", ns)
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_secs(f, self.0)
    }
}
impl fmt::Display for Dur {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_secs(f, self.0)
    }
}
impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        if b >= 1_000_000_000 && b.is_multiple_of(1_000_000) {
            write!(f, "{}Gb/s", b as f64 / 1e9)
        } else if b >= 1_000_000 && b.is_multiple_of(1_000) {
            write!(f, "{}Mb/s", b as f64 / 1e6)
        } else if b >= 1_000 {
            write!(f, "{}kb/s", b as f64 / 1e3)
        } else {
            write!(f, "{}b/s", b)
        }
    }
}
impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}B", self.0)
    }
}

/// Why a unit string did not parse. The message says what was expected.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum UnitError {
    #[error("empty value: expected {expected}")]
    Empty { expected: &'static str },
    #[error("`{input}` has no number: expected {expected}")]
    NoNumber { input: String, expected: &'static str },
    #[error("`{input}`: unknown unit `{unit}`, expected {expected}")]
    BadUnit { input: String, unit: String, expected: &'static str },
    #[error("`{input}` is negative: {what} cannot be")]
    Negative { input: String, what: &'static str },
    #[error("`{input}` is not a finite number")]
    NotFinite { input: String },
    #[error("`{input}` is too large")]
    TooLarge { input: String },
    #[error("`{input}` is not a whole number of {unit}")]
    Fractional { input: String, unit: &'static str },
}

const TIME_UNITS: &str = "a time such as \"10ms\", \"0.005s\", \"250us\" or \"2min\"";
const RATE_UNITS: &str = "a rate such as \"2Mb\", \"2Mbps\", \"6 Mb/s\", \"100kb/s\" or \"1Gb\"";
const SIZE_UNITS: &str = "a size such as \"1000B\", \"10KB\", \"1.5KiB\" or \"1MB\"";

/// Splits "6 Mb/s" into (6.0, "Mb/s"). The number may have a sign, decimals and an exponent.
fn split_number(input: &str, expected: &'static str) -> Result<(f64, String), UnitError> {
    let s = input.trim();
    if s.is_empty() {
        return Err(UnitError::Empty { expected });
    }
    let bytes = s.as_bytes();
    let mut end = 0;
    let mut seen_digit = false;
    let mut seen_e = false;
    while end < bytes.len() {
        let c = bytes[end];
        let ok = c.is_ascii_digit()
            || c == b'.'
            || ((c == b'+' || c == b'-') && (end == 0 || matches!(bytes[end - 1], b'e' | b'E')))
            // An exponent only if a digit follows (so "1e3" parses, while "1em" is a unit).
            || ((c == b'e' || c == b'E')
                && seen_digit
                && !seen_e
                && bytes
                    .get(end + 1)
                    .is_some_and(|n| n.is_ascii_digit() || *n == b'-' || *n == b'+'));
        if !ok {
            break;
        }
        if c.is_ascii_digit() {
            seen_digit = true;
        }
        if c == b'e' || c == b'E' {
            seen_e = true;
        }
        end += 1;
    }
    if !seen_digit {
        return Err(UnitError::NoNumber { input: input.to_string(), expected });
    }
    let num: f64 = s[..end].parse().map_err(|_| UnitError::NoNumber { input: input.to_string(), expected })?;
    if !num.is_finite() {
        return Err(UnitError::NotFinite { input: input.to_string() });
    }
    let unit: String = s[end..].chars().filter(|c| !c.is_whitespace()).collect();
    Ok((num, unit))
}

fn check_scaled(input: &str, value: f64, what: &'static str) -> Result<f64, UnitError> {
    if value < 0.0 {
        return Err(UnitError::Negative { input: input.to_string(), what });
    }
    if value >= u64::MAX as f64 {
        return Err(UnitError::TooLarge { input: input.to_string() });
    }
    Ok(value)
}

impl Dur {
    /// Parses "10ms", "0.005s", "0.005", "250us", "100ns", "2min", "1h". A bare number is seconds.
    pub fn parse(input: &str) -> Result<Dur, UnitError> {
        let (num, unit) = split_number(input, TIME_UNITS)?;
        let scale = match unit.as_str() {
            "" | "s" | "sec" | "secs" | "second" | "seconds" => 1e9,
            "ms" | "msec" => 1e6,
            "us" | "µs" | "usec" => 1e3,
            "ns" | "nsec" => 1.0,
            "min" => 60e9,
            "h" => 3600e9,
            _ => return Err(UnitError::BadUnit { input: input.to_string(), unit, expected: TIME_UNITS }),
        };
        let ns = check_scaled(input, num * scale, "a time")?;
        Ok(Dur(ns.round() as u64))
    }
}

impl Time {
    /// Parses a time since the start of the run; same syntax as [`Dur::parse`].
    pub fn parse(input: &str) -> Result<Time, UnitError> {
        Dur::parse(input).map(|d| Time(d.0))
    }
}

impl Rate {
    /// Parses "2Mb", "2Mbps", "6 Mb/s", "448Kb", "1.5Mb", "100kbit/s", "1GB/s". A bare number is
    /// bits per second (as in ns-2). Prefixes are SI, as ns-2 reads them.
    pub fn parse(input: &str) -> Result<Rate, UnitError> {
        let (num, unit) = split_number(input, RATE_UNITS)?;
        let bad = || UnitError::BadUnit { input: input.to_string(), unit: unit.clone(), expected: RATE_UNITS };
        let (prefix, rest) = match unit.chars().next() {
            Some('k') | Some('K') => (1e3, &unit[1..]),
            Some('M') => (1e6, &unit[1..]),
            Some('G') => (1e9, &unit[1..]),
            Some('T') => (1e12, &unit[1..]),
            _ => (1.0, unit.as_str()),
        };
        let per_unit = match rest {
            "" | "b" | "bps" | "b/s" | "bit" | "bit/s" | "bits/s" | "bits" => 1.0,
            "B" | "Bps" | "B/s" | "byte/s" | "bytes/s" => 8.0,
            _ => return Err(bad()),
        };
        let bps = check_scaled(input, num * prefix * per_unit, "a rate")?;
        Ok(Rate(bps.round() as u64))
    }
}

impl Bytes {
    /// Parses "1000B", "1000", "10KB" (10 000), "1.5KiB" (1536), "1MB", "2MiB". A bare number is
    /// bytes. The result must be a whole number of bytes.
    pub fn parse(input: &str) -> Result<Bytes, UnitError> {
        let (num, unit) = split_number(input, SIZE_UNITS)?;
        let scale = match unit.as_str() {
            "" | "B" | "byte" | "bytes" => 1.0,
            "KB" | "kB" => 1e3,
            "MB" => 1e6,
            "GB" => 1e9,
            "KiB" => 1024.0,
            "MiB" => 1024.0 * 1024.0,
            "GiB" => 1024.0 * 1024.0 * 1024.0,
            _ => return Err(UnitError::BadUnit { input: input.to_string(), unit, expected: SIZE_UNITS }),
        };
        let b = check_scaled(input, num * scale, "a size")?;
        if (b - b.round()).abs() > 1e-6 {
            return Err(UnitError::Fractional { input: input.to_string(), unit: "bytes" });
        }
        Ok(Bytes(b.round() as u64))
    }
}

impl std::str::FromStr for Dur {
    type Err = UnitError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Dur::parse(s)
    }
}
impl std::str::FromStr for Time {
    type Err = UnitError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Time::parse(s)
    }
}
impl std::str::FromStr for Rate {
    type Err = UnitError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Rate::parse(s)
    }
}
impl std::str::FromStr for Bytes {
    type Err = UnitError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Bytes::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ns2_and_paper_rates() {
        assert_eq!(Rate::parse("2Mb").unwrap(), Rate(2_000_000));
        assert_eq!(Rate::parse("2Mbps").unwrap(), Rate(2_000_000));
        assert_eq!(Rate::parse("6 Mb/s").unwrap(), Rate(6_000_000));
        assert_eq!(Rate::parse("1.5Mb").unwrap(), Rate(1_500_000));
        assert_eq!(Rate::parse("448Kb").unwrap(), Rate(448_000));
        assert_eq!(Rate::parse("100kb/s").unwrap(), Rate(100_000));
        assert_eq!(Rate::parse("1Gb").unwrap(), Rate(1_000_000_000));
        assert_eq!(Rate::parse("10Gb").unwrap(), Rate(10_000_000_000));
        assert_eq!(Rate::parse("1MB/s").unwrap(), Rate(8_000_000));
        assert_eq!(Rate::parse("64000").unwrap(), Rate(64_000));
        assert_eq!(Rate::parse("1e6").unwrap(), Rate(1_000_000));
    }

    #[test]
    fn parses_times() {
        assert_eq!(Dur::parse("10ms").unwrap(), Dur::from_millis(10));
        assert_eq!(Dur::parse("0.005s").unwrap(), Dur::from_millis(5));
        assert_eq!(Dur::parse("0.005").unwrap(), Dur::from_millis(5));
        assert_eq!(Dur::parse("250us").unwrap(), Dur::from_micros(250));
        assert_eq!(Dur::parse("0.003 ms").unwrap(), Dur::from_nanos(3_000));
        assert_eq!(Dur::parse("2min").unwrap(), Dur::from_secs(120));
        assert_eq!(Time::parse("50s").unwrap(), Time(50 * NS_PER_S));
        assert_eq!(Dur::parse("1e-3s").unwrap(), Dur::from_millis(1));
    }

    #[test]
    fn parses_sizes() {
        assert_eq!(Bytes::parse("1000B").unwrap(), Bytes(1000));
        assert_eq!(Bytes::parse("1000").unwrap(), Bytes(1000));
        assert_eq!(Bytes::parse("10KB").unwrap(), Bytes(10_000));
        assert_eq!(Bytes::parse("10KiB").unwrap(), Bytes(10_240));
        assert_eq!(Bytes::parse("1.5KiB").unwrap(), Bytes(1536));
        assert!(matches!(Bytes::parse("1.5B"), Err(UnitError::Fractional { .. })));
    }

    #[test]
    fn rejects_bad_input_with_a_reason() {
        assert!(matches!(Rate::parse("2 parsecs"), Err(UnitError::BadUnit { .. })));
        assert!(matches!(Rate::parse("-2Mb"), Err(UnitError::Negative { .. })));
        assert!(matches!(Rate::parse("Mb"), Err(UnitError::NoNumber { .. })));
        assert!(matches!(Rate::parse(""), Err(UnitError::Empty { .. })));
        assert!(matches!(Dur::parse("10 lightyears"), Err(UnitError::BadUnit { .. })));
        assert!(matches!(Dur::parse("-1s"), Err(UnitError::Negative { .. })));
        assert!(matches!(Bytes::parse("10 KBps"), Err(UnitError::BadUnit { .. })));
        assert!(matches!(Dur::parse("1e999s"), Err(UnitError::NotFinite { .. }) | Err(UnitError::TooLarge { .. })));
        assert!(Rate::parse("nan").is_err());
        assert!(Rate::parse("inf").is_err());
        // The message names what was expected.
        let msg = Rate::parse("2 parsecs").unwrap_err().to_string();
        assert!(msg.contains("parsecs") && msg.contains("Mb"), "{msg}");
    }

    #[test]
    fn tx_time_is_size_times_8_over_rate() {
        // 1040 B at 2 Mb/s = 4.16 ms
        assert_eq!(Rate(2_000_000).tx_time(Bytes(1040)), Dur(4_160_000));
        // 1000 B at 1 Gb/s = 8 us
        assert_eq!(Rate(1_000_000_000).tx_time(Bytes(1000)), Dur(8_000));
        // 40 B at 10 Gb/s = 32 ns
        assert_eq!(Rate(10_000_000_000).tx_time(Bytes(40)), Dur(32));
        assert_eq!(Rate(0).tx_time(Bytes(1)), Dur::MAX);
        // The 64-bit fast path and the 128-bit path agree at their border.
        let r = Rate((1 << 62) - 1);
        for b in [1u64, 1040, (1 << 30) - 1, 1 << 30, 1 << 33] {
            let exact = ((b as u128 * 8 * NS_PER_S as u128 + r.0 as u128 / 2) / r.0 as u128) as u64;
            assert_eq!(r.tx_time(Bytes(b)), Dur(exact), "{b}");
        }
        assert_eq!(Rate(8_000).bytes_in(Dur::from_secs(1)), Bytes(1000));
    }

    #[test]
    fn time_arithmetic_saturates() {
        assert_eq!(Time(5) - Time(9), Dur(0));
        assert_eq!(Time(u64::MAX) + Dur(1), Time(u64::MAX));
        assert_eq!(Dur(3) - Dur(5), Dur(0));
    }

    #[test]
    fn display_round_trips() {
        for s in ["10ms", "2s", "250us", "7ns"] {
            assert_eq!(Dur::parse(s).unwrap().to_string(), s);
        }
        assert_eq!(Rate(2_000_000).to_string(), "2Mb/s");
    }
}
