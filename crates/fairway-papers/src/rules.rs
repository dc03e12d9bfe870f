//! The one rule set every reproduction's verdicts follow (docs/reproductions.md): the band each
//! phrase of a paper gets, how a number from the paper's single run is judged, how a bounded
//! quantity keeps its band inside its bounds, and when a comparison is `shape` rather than
//! `reproduced`. Every reproduction builds its rows through this module and [`super::claims`];
//! none carries its own variant, and tests/claims_rules.rs checks every shipped claims.csv row
//! against it.

use super::claims::Verdict;
use fairway_report::stats::Estimate;

/// Where a quantity can lie: a throughput cannot be negative, a delivery ratio not above 1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    pub lo: f64,
    pub hi: f64,
}

impl Bounds {
    /// A difference: any sign.
    pub const FREE: Bounds = Bounds { lo: f64::NEG_INFINITY, hi: f64::INFINITY };
    /// Counts, rates, delays, and ratios of them.
    pub const NON_NEGATIVE: Bounds = Bounds { lo: 0.0, hi: f64::INFINITY };
    /// Delivery and loss ratios, utilisation, shares.
    pub const UNIT: Bounds = Bounds { lo: 0.0, hi: 1.0 };
    /// The same in percent.
    pub const PERCENT: Bounds = Bounds { lo: 0.0, hi: 100.0 };

    /// Jain's index of `n` flows: from 1/n (one flow takes all) to 1 (all equal).
    pub fn jain(n: usize) -> Bounds {
        Bounds { lo: 1.0 / n.max(1) as f64, hi: 1.0 }
    }

    /// A count out of `n`.
    pub fn count(n: usize) -> Bounds {
        Bounds { lo: 0.0, hi: n as f64 }
    }

    pub fn contains(&self, x: f64) -> bool {
        x >= self.lo && x <= self.hi
    }

    fn clip(&self, x: f64) -> f64 {
        x.clamp(self.lo, self.hi)
    }
}

/// The values within which fairway and the paper agree. Each end is closed unless it is the
/// neutral point of a direction (0 for a difference, 1 for a ratio), which is excluded.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Band {
    pub lo: f64,
    pub hi: f64,
    pub lo_open: bool,
    pub hi_open: bool,
}

impl Band {
    pub fn closed(lo: f64, hi: f64) -> Band {
        Band { lo, hi, lo_open: false, hi_open: false }
    }

    /// Above `x`, `x` excluded.
    pub fn above(x: f64) -> Band {
        Band { lo: x, hi: f64::INFINITY, lo_open: true, hi_open: false }
    }

    /// Below `x`, `x` excluded.
    pub fn below(x: f64) -> Band {
        Band { lo: f64::NEG_INFINITY, hi: x, lo_open: false, hi_open: true }
    }

    pub fn contains(&self, x: f64) -> bool {
        let lo = if self.lo_open { x > self.lo } else { x >= self.lo };
        let hi = if self.hi_open { x < self.hi } else { x <= self.hi };
        lo && hi && !x.is_nan()
    }

    /// "[]", "(]", "[)" or "()": which ends are closed, for claims.csv.
    pub fn ends(&self) -> &'static str {
        match (self.lo_open, self.hi_open) {
            (false, false) => "[]",
            (true, false) => "(]",
            (false, true) => "[)",
            (true, true) => "()",
        }
    }

    /// The band as a reader writes it: "[0.8, 1.25]", "(0, inf)".
    pub fn show(&self) -> String {
        let e = self.ends();
        // An infinite end is never reached: written open whatever `ends` says.
        let open = if self.lo.is_infinite() { "(" } else { &e[..1] };
        let close = if self.hi.is_infinite() { ")" } else { &e[1..] };
        format!("{open}{}, {}{close}", num(self.lo), num(self.hi))
    }

    /// The band cut to the quantity's bounds.
    pub fn within(self, b: Bounds) -> Band {
        let mut out = self;
        if out.lo < b.lo {
            out.lo = b.lo;
            out.lo_open = false;
        }
        if out.hi > b.hi {
            out.hi = b.hi;
            out.hi_open = false;
        }
        out
    }
}

/// A number as claims.csv's keys write it: in full, so that it reads back the same.
fn exact(x: f64) -> String {
    if x.is_infinite() {
        if x > 0.0 { "inf" } else { "-inf" }.to_string()
    } else {
        format!("{x}")
    }
}

/// A number for a reader: "inf", "1.25", "0.00005".
pub fn num(x: f64) -> String {
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let s = super::claims::trim(x);
    if s == "0" && x != 0.0 {
        format!("{x:e}")
    } else {
        s
    }
}

/// fairway's value of the quantity a claim is judged on: the mean over the seeds and the 95%
/// confidence interval of that mean, cut to the quantity's bounds (a mean cannot lie outside
/// them).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Value {
    pub mean: f64,
    pub lo: f64,
    pub hi: f64,
}

impl Value {
    pub fn of(e: &Estimate, b: Bounds) -> Value {
        let h = e.ci95();
        Value { mean: e.mean, lo: b.clip(e.mean - h), hi: b.clip(e.mean + h) }
    }

    /// A value without sampling error: the paper's own arithmetic, or a count over every seed.
    pub fn exact(x: f64) -> Value {
        Value { mean: x, lo: x, hi: x }
    }

    /// `hi - lo` for two estimates from separate runs: the difference of the means, and an
    /// interval from the ends of their two 95% confidence intervals, so that it excludes 0 only
    /// when the two intervals do not overlap.
    pub fn gap(lo: &Estimate, hi: &Estimate) -> Value {
        let (a, b) = (lo.ci95(), hi.ci95());
        Value { mean: hi.mean - lo.mean, lo: (hi.mean - b) - (lo.mean + a), hi: (hi.mean + b) - (lo.mean - a) }
    }

    /// `num / den` for two estimates from separate runs, its interval from the ends of their 95%
    /// confidence intervals (as [`gap`](Self::gap)); both positive.
    pub fn ratio(num: &Estimate, den: &Estimate) -> Value {
        let (a, b) = (num.ci95(), den.ci95());
        let lo = (num.mean - a).max(0.0) / (den.mean + b);
        let hi = if den.mean - b > 0.0 { (num.mean + a) / (den.mean - b) } else { f64::INFINITY };
        Value { mean: num.mean / den.mean, lo, hi }
    }

    /// The least of several (a claim "at every point" holds at its weakest): the least mean and
    /// the least of each end.
    pub fn least(v: &[Value]) -> Value {
        let f = |g: fn(&Value) -> f64| v.iter().map(g).fold(f64::INFINITY, f64::min);
        Value { mean: f(|x| x.mean), lo: f(|x| x.lo), hi: f(|x| x.hi) }
    }

    /// The greatest of several.
    pub fn greatest(v: &[Value]) -> Value {
        let f = |g: fn(&Value) -> f64| v.iter().map(g).fold(f64::NEG_INFINITY, f64::max);
        Value { mean: f(|x| x.mean), lo: f(|x| x.lo), hi: f(|x| x.hi) }
    }

    /// The value plus `k`.
    pub fn offset(self, k: f64) -> Value {
        Value { mean: self.mean + k, lo: self.lo + k, hi: self.hi + k }
    }

    /// A claim that holds "at every point" is as good as its worst point: the point whose
    /// verdict under `phrase` is the worst, the one farthest outside the band among equals.
    pub fn worst(values: &[Value], phrase: &Phrase) -> Value {
        let band = phrase.band();
        let dir = phrase.direction();
        let rank = |v: &Value| match judge(&band, dir.as_ref(), v, None) {
            Verdict::Reproduced => 2,
            Verdict::Shape => 1,
            _ => 0,
        };
        let outside = |v: &Value| (band.lo - v.mean).max(v.mean - band.hi).max(band.lo - v.lo).max(v.hi - band.hi);
        values
            .iter()
            .copied()
            .min_by(|a, b| rank(a).cmp(&rank(b)).then(outside(b).total_cmp(&outside(a))))
            .unwrap_or(Value { mean: f64::NAN, lo: f64::NAN, hi: f64::NAN })
    }
}

impl std::ops::Neg for Value {
    type Output = Value;

    /// The value with its sign turned (a "lower" claim judged as a "higher" one).
    fn neg(self) -> Value {
        Value { mean: -self.mean, lo: -self.hi, hi: -self.lo }
    }
}

/// A paper's words and the band each gets, the same in every reproduction (docs/reproductions.md
/// has the table and the reasons). Ratios are fairway's A / B as the paper's sentence orders
/// them; differences are A - B.
#[derive(Debug, Clone, PartialEq)]
pub enum Phrase {
    /// "almost equal", "fairly", "a fair share", "close", "the same": the smaller within 20% of
    /// the larger, a ratio in [0.8, 1.25].
    AlmostEqual,
    /// "about k times", "about twice", "almost half", "S times": the ratio within 20% of k, the
    /// smaller of the two within 20% of the larger: [0.8 k, 1.25 k].
    About(f64),
    /// "an advantage", "much higher": the ratio beyond the almost-equal band, above 1.25.
    Ahead,
    /// "a little less": below, and almost equal: [0.8, 1).
    ALittleLess,
    /// "higher", "more", "above", "fairer", "increases", "grows": a difference above 0.
    Higher,
    /// "no larger", "no less": a difference of at least 0 (equal counts).
    NotLower,
    /// "most of": more than half, and no more than all: (0.5, 1].
    MostOf,
    /// "almost none", "almost zero": at most 5% of the reference.
    AlmostNone,
    /// "almost all", "fully", "no chance for others": at least 95% of the reference.
    AlmostAll,
    /// "almost consistent", "smooth": a coefficient of variation of at most 0.1, which puts 95%
    /// of the samples of a normal spread within 20% of the mean.
    AlmostConstant,
    /// "k to m orders of magnitude": a ratio in [10^k, 10^(m+1)).
    OrdersOfMagnitude(u32, u32),
    /// "in some": at least one and not all of `n`.
    Some(usize),
    /// "every", "all": all `n`.
    Every(usize),
    /// Words the paper itself calibrates (elaarag2002 calls IFTP / TCP of 1.84 and 0.74 "relatively
    /// close"): the band the paper's own use gives, which wins for that paper.
    Calibrated { lo: f64, hi: f64 },
    /// A range the paper prints ("4-5"), widened by its rounding.
    Printed { lo: f64, hi: f64 },
    /// A threshold the paper's words need and do not give, proposed by the reading notes or the
    /// report and named in the row (a stall: under 5% of a fair share).
    Margin(Band),
}

impl Phrase {
    /// The band on the judged quantity.
    pub fn band(&self) -> Band {
        match *self {
            Phrase::AlmostEqual => Band::closed(0.8, 1.25),
            Phrase::About(k) => Band::closed(0.8 * k, 1.25 * k),
            Phrase::Ahead => Band::above(1.25),
            Phrase::ALittleLess => Band { lo: 0.8, hi: 1.0, lo_open: false, hi_open: true },
            Phrase::Higher => Band::above(0.0),
            Phrase::NotLower => Band::closed(0.0, f64::INFINITY),
            Phrase::MostOf => Band { lo: 0.5, hi: 1.0, lo_open: true, hi_open: false },
            Phrase::AlmostNone => Band::closed(0.0, 0.05),
            Phrase::AlmostAll => Band::closed(0.95, f64::INFINITY),
            Phrase::AlmostConstant => Band::closed(0.0, 0.1),
            Phrase::OrdersOfMagnitude(k, m) => {
                Band { lo: 10f64.powi(k as i32), hi: 10f64.powi(m as i32 + 1), lo_open: false, hi_open: true }
            }
            Phrase::Some(n) => Band::closed(1.0, n.saturating_sub(1) as f64),
            Phrase::Every(n) => Band::closed(n as f64, n as f64),
            Phrase::Calibrated { lo, hi } | Phrase::Printed { lo, hi } => Band::closed(lo, hi),
            Phrase::Margin(b) => b,
        }
    }

    /// Where fairway's mean shows the paper's direction though not its size: `shape` there
    /// (docs/reproductions.md, "shape"). A size word's direction starts beyond the almost-equal
    /// band ("about twice" met by 1.5 is more than equal, not twice; by 1.05 it is equal). None
    /// for words without a direction, and for "an advantage", whose band is the direction.
    pub fn direction(&self) -> Option<Band> {
        match *self {
            Phrase::About(k) if k > 1.25 => Some(Band::above(1.25)),
            Phrase::About(k) if k < 0.8 => Some(Band { lo: 0.0, hi: 0.8, lo_open: false, hi_open: true }),
            Phrase::OrdersOfMagnitude(..) => Some(Band::above(1.25)),
            Phrase::ALittleLess => Some(Band::below(1.0)),
            Phrase::MostOf => Some(Band::above(0.5)),
            _ => None,
        }
    }

    /// The key claims.csv gives: the phrase and its parameters.
    pub fn key(&self) -> String {
        match self {
            Phrase::AlmostEqual => "almost_equal".into(),
            Phrase::About(k) => format!("about({})", exact(*k)),
            Phrase::Ahead => "ahead".into(),
            Phrase::ALittleLess => "a_little_less".into(),
            Phrase::Higher => "higher".into(),
            Phrase::NotLower => "not_lower".into(),
            Phrase::MostOf => "most_of".into(),
            Phrase::AlmostNone => "almost_none".into(),
            Phrase::AlmostAll => "almost_all".into(),
            Phrase::AlmostConstant => "almost_constant".into(),
            Phrase::OrdersOfMagnitude(k, m) => format!("orders_of_magnitude({k},{m})"),
            Phrase::Some(n) => format!("some({n})"),
            Phrase::Every(n) => format!("every({n})"),
            Phrase::Calibrated { lo, hi } => format!("calibrated({},{})", exact(*lo), exact(*hi)),
            Phrase::Printed { lo, hi } => format!("printed({},{})", exact(*lo), exact(*hi)),
            Phrase::Margin(b) => {
                let e = b.ends();
                format!("margin{}{},{}{}", &e[..1], exact(b.lo), exact(b.hi), &e[1..])
            }
        }
    }

    /// The phrase from its key, for the test that reads claims.csv.
    pub fn from_key(key: &str) -> Option<Phrase> {
        let args = |s: &str| -> Option<Vec<f64>> {
            let inner = s.split_once('(')?.1.strip_suffix(')')?;
            inner.split(',').map(|x| x.trim().parse::<f64>().ok()).collect()
        };
        Some(match key {
            "almost_equal" => Phrase::AlmostEqual,
            "ahead" => Phrase::Ahead,
            "a_little_less" => Phrase::ALittleLess,
            "higher" => Phrase::Higher,
            "not_lower" => Phrase::NotLower,
            "most_of" => Phrase::MostOf,
            "almost_none" => Phrase::AlmostNone,
            "almost_all" => Phrase::AlmostAll,
            "almost_constant" => Phrase::AlmostConstant,
            k if k.starts_with("about(") => Phrase::About(*args(k)?.first()?),
            k if k.starts_with("orders_of_magnitude(") => {
                let a = args(k)?;
                Phrase::OrdersOfMagnitude(*a.first()? as u32, *a.get(1)? as u32)
            }
            k if k.starts_with("some(") => Phrase::Some(*args(k)?.first()? as usize),
            k if k.starts_with("every(") => Phrase::Every(*args(k)?.first()? as usize),
            k if k.starts_with("calibrated(") => {
                let a = args(k)?;
                Phrase::Calibrated { lo: *a.first()?, hi: *a.get(1)? }
            }
            k if k.starts_with("printed(") => {
                let a = args(k)?;
                Phrase::Printed { lo: *a.first()?, hi: *a.get(1)? }
            }
            k if k.starts_with("margin") => {
                let s = &k["margin".len()..];
                let (lo_open, hi_open) = (s.starts_with('('), s.ends_with(')'));
                let inner = s.get(1..s.len().checked_sub(1)?)?;
                let (a, b) = inner.split_once(',')?;
                let p = |x: &str| -> Option<f64> {
                    match x.trim() {
                        "inf" => Some(f64::INFINITY),
                        "-inf" => Some(f64::NEG_INFINITY),
                        v => v.parse().ok(),
                    }
                };
                Phrase::Margin(Band { lo: p(a)?, hi: p(b)?, lo_open, hi_open })
            }
            _ => return None,
        })
    }

    /// The words, for the band column.
    pub fn words(&self) -> String {
        match self {
            Phrase::AlmostEqual => "'almost equal': the smaller within 20% of the larger".into(),
            Phrase::About(k) => format!("'about {} times': within 20% of {}", num(*k), num(*k)),
            Phrase::Ahead => "'an advantage': beyond the almost-equal band, above 1.25".into(),
            Phrase::ALittleLess => "'a little less': below, and within 20%".into(),
            Phrase::Higher => "the direction: above 0".into(),
            Phrase::NotLower => "'no less': at least 0".into(),
            Phrase::MostOf => "'most of': more than half, no more than all".into(),
            Phrase::AlmostNone => "'almost none': at most 5%".into(),
            Phrase::AlmostAll => "'almost all': at least 95%".into(),
            Phrase::AlmostConstant => {
                "'almost constant': coefficient of variation at most 0.1 (95% of samples within 20%)".into()
            }
            Phrase::OrdersOfMagnitude(k, m) => format!("'{k} to {m} orders of magnitude'"),
            Phrase::Some(n) => format!("'some': at least one and not all {n}"),
            Phrase::Every(n) => format!("'every': all {n}"),
            Phrase::Calibrated { .. } => "the paper's own use of these words".into(),
            Phrase::Printed { .. } => "the range the paper prints, with its rounding".into(),
            Phrase::Margin(_) => "a margin the paper does not give".into(),
        }
    }
}

/// How a row was judged (claims.csv's `rule`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// A number from the paper's single run against one more fairway run ([`one_run`]).
    OneRun,
    /// The paper's words against fairway's mean and its confidence interval ([`judge`]).
    Words,
    /// The paper's own numbers against each other or its stated set-up: `paper_inconsistent`,
    /// or the paper's arithmetic checked exactly.
    Arithmetic,
}

impl Rule {
    pub fn name(self) -> &'static str {
        match self {
            Rule::OneRun => "one_run",
            Rule::Words => "words",
            Rule::Arithmetic => "arithmetic",
        }
    }

    pub fn from_name(s: &str) -> Option<Rule> {
        [Rule::OneRun, Rule::Words, Rule::Arithmetic].into_iter().find(|r| r.name() == s)
    }
}

/// The verdict of words: `reproduced` when the 95% confidence interval of fairway's mean lies
/// inside the band; `shape` when only the mean does, or when the mean lies outside the band on
/// the paper's side (the direction right, the size not); `not_reproduced` otherwise. A premise
/// the runs do not show (the paper contrasts a fair state with an unfair one, and both are fair)
/// makes a `reproduced` a `shape`.
pub fn judge(band: &Band, direction: Option<&Band>, v: &Value, premise: Option<bool>) -> Verdict {
    let verdict = if band.contains(v.lo) && band.contains(v.hi) && band.contains(v.mean) {
        Verdict::Reproduced
    } else if band.contains(v.mean) || direction.is_some_and(|d| d.contains(v.mean)) {
        Verdict::Shape
    } else {
        Verdict::NotReproduced
    };
    if premise == Some(false) && verdict == Verdict::Reproduced {
        Verdict::Shape
    } else {
        verdict
    }
}

/// A trend ("grows with", "the higher ..., the more ...") over a series of points in the order of
/// the paper's x: the change from the first point to the last ([`Value::gap`]), and whether no
/// step between goes surely the other way (its premise: a dip within the noise does not break
/// a trend, a step whose intervals part does).
pub fn trend(series: &[Estimate]) -> (Value, bool) {
    let (Some(first), Some(last)) = (series.first(), series.last()) else {
        return (Value { mean: f64::NAN, lo: f64::NAN, hi: f64::NAN }, false);
    };
    let steady = series.windows(2).all(|w| Value::gap(&w[0], &w[1]).hi > 0.0);
    (Value::gap(first, last), steady)
}

/// How a one-run band was built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OneRunKind {
    /// The normal 95% prediction interval of one more run.
    Prediction,
    /// The range of the runs: the normal interval left the quantity's bounds, or there were
    /// fewer than two runs.
    Range,
}

/// The band for a number the paper got from its one run: the normal 95% prediction interval of
/// one further fairway run where it stays inside the quantity's bounds; where it does not (a
/// loss ratio near 0, a delivery ratio near 1: the spread is skewed and the normal model fails
/// visibly), or with fewer than two runs, the range of the runs, whose chance of holding one
/// further run is (n - 1) / (n + 1) without any model of the spread. Either is widened by half
/// the last unit the paper prints (`rounding`) and cut to the bounds.
pub fn one_run(e: &Estimate, bounds: Bounds, rounding: f64) -> (Band, OneRunKind) {
    let pi = e.pi95();
    let (lo, hi, kind) = if e.n >= 2 && bounds.contains(e.mean - pi) && bounds.contains(e.mean + pi) {
        (e.mean - pi, e.mean + pi, OneRunKind::Prediction)
    } else {
        (e.min, e.max, OneRunKind::Range)
    };
    (Band::closed(lo - rounding, hi + rounding).within(bounds), kind)
}

/// The band column's text for a one-run band.
pub fn one_run_words(e: &Estimate, kind: OneRunKind, rounding: f64) -> String {
    let base = match kind {
        OneRunKind::Prediction => {
            format!("95% prediction interval of one run from {} seeds (± {})", e.n, num(e.pi95()))
        }
        OneRunKind::Range => format!(
            "the range of fairway's {} runs (the normal interval leaves the quantity's bounds): a further run falls inside with probability {:.2}",
            e.n,
            (e.n as f64 - 1.0) / (e.n as f64 + 1.0)
        ),
    };
    if rounding > 0.0 {
        format!("{base}, plus the paper's rounding ({})", num(rounding))
    } else {
        base
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_phrase_key_reads_back() {
        let all = [
            Phrase::AlmostEqual,
            Phrase::About(2.0),
            Phrase::About(0.5),
            Phrase::Ahead,
            Phrase::ALittleLess,
            Phrase::Higher,
            Phrase::NotLower,
            Phrase::MostOf,
            Phrase::AlmostNone,
            Phrase::AlmostAll,
            Phrase::AlmostConstant,
            Phrase::OrdersOfMagnitude(1, 2),
            Phrase::Some(6),
            Phrase::Every(7),
            Phrase::Calibrated { lo: 15.0 / 28.0, hi: 1.84 },
            Phrase::Printed { lo: 3.5, hi: 5.5 },
            Phrase::Margin(Band::closed(0.0, 0.05)),
            Phrase::Margin(Band::above(1.0)),
        ];
        for p in all {
            assert_eq!(Phrase::from_key(&p.key()), Some(p.clone()), "{}", p.key());
        }
        assert_eq!(Phrase::from_key("fairly"), None);
    }

    #[test]
    fn the_bands_of_the_words() {
        // "about twice" no longer takes 1.57 (the printed 2 with its rounding of 0.5 did).
        assert!(!Phrase::About(2.0).band().contains(1.57));
        assert!(Phrase::About(2.0).band().contains(1.6) && Phrase::About(2.0).band().contains(2.5));
        // "most of" is bounded above: 1.33 times the share is more than "most of" it.
        assert!(!Phrase::MostOf.band().contains(1.33) && !Phrase::MostOf.band().contains(0.5));
        assert!(Phrase::AlmostEqual.band().contains(0.8) && !Phrase::AlmostEqual.band().contains(1.26));
        assert!(!Phrase::Higher.band().contains(0.0));
        assert_eq!(Phrase::OrdersOfMagnitude(1, 2).band().show(), "[10, 1000)");
    }

    #[test]
    fn verdicts_of_words() {
        let b = Phrase::About(2.0).band();
        let d = Phrase::About(2.0).direction();
        let v = |mean, h| Value { mean, lo: mean - h, hi: mean + h };
        assert_eq!(judge(&b, d.as_ref(), &v(2.0, 0.1), None), Verdict::Reproduced);
        assert_eq!(judge(&b, d.as_ref(), &v(1.65, 0.1), None), Verdict::Shape, "the mean inside, the interval not");
        assert_eq!(judge(&b, d.as_ref(), &v(1.57, 0.01), None), Verdict::Shape, "more, but not twice");
        assert_eq!(judge(&b, d.as_ref(), &v(0.9, 0.01), None), Verdict::NotReproduced);
        assert_eq!(judge(&b, d.as_ref(), &v(1.05, 0.01), None), Verdict::NotReproduced, "almost equal, not more");
        let ahead = Phrase::Ahead;
        assert_eq!(judge(&ahead.band(), ahead.direction().as_ref(), &v(1.0003, 0.0001), None), Verdict::NotReproduced);
        assert_eq!(judge(&b, d.as_ref(), &v(2.0, 0.1), Some(false)), Verdict::Shape, "the premise absent");
        let higher = Phrase::Higher.band();
        assert_eq!(judge(&higher, None, &Value::exact(0.0), None), Verdict::NotReproduced);
    }

    #[test]
    fn a_one_run_band_stays_inside_the_bounds() {
        // Loss ratios of five runs with a wide spread: the normal interval reaches below 0, so
        // the band is the runs' range, and a paper value below every run is outside it.
        let e = Estimate::of([0.0021, 0.0008, 0.0035, 0.0012, 0.0029]);
        assert!(e.mean - e.pi95() < 0.0);
        let (band, kind) = one_run(&e, Bounds::UNIT, 0.00005);
        assert_eq!(kind, OneRunKind::Range);
        assert!(band.lo >= 0.0 && !band.contains(0.0005) && band.contains(0.0008));
        // A delivery ratio whose interval would pass 1 keeps its band at or below 1.
        let e = Estimate::of([0.9999, 0.9990, 0.9985, 1.0, 0.9970]);
        let (band, _) = one_run(&e, Bounds::UNIT, 0.000005);
        assert!(band.hi <= 1.0);
        // Where the interval stays inside, it is the prediction interval.
        let e = Estimate::of([100.0, 102.0, 98.0, 101.0, 99.0]);
        let (band, kind) = one_run(&e, Bounds::NON_NEGATIVE, 0.0);
        assert_eq!(kind, OneRunKind::Prediction);
        assert!(band.contains(104.0) && !band.contains(106.0));
        // One run: its value and the paper's rounding, never everything.
        let (band, kind) = one_run(&Estimate::of([5.0]), Bounds::NON_NEGATIVE, 0.5);
        assert_eq!((kind, band.lo, band.hi), (OneRunKind::Range, 4.5, 5.5));
    }

    #[test]
    fn values_of_several_points() {
        let a = Estimate::of([1.0, 1.2, 0.8]);
        let b = Estimate::of([3.0, 3.1, 2.9]);
        let g = Value::gap(&a, &b);
        assert!((g.mean - 2.0).abs() < 1e-12 && g.lo > 0.0);
        assert!(g.lo < g.mean && g.mean < g.hi);
        let l = Value::least(&[g, Value::exact(0.5)]);
        assert_eq!((l.mean, l.lo), (0.5, 0.5f64.min(g.lo)));
        assert_eq!((-Value::exact(2.0)).mean, -2.0);
        let p = Phrase::Calibrated { lo: 0.5, hi: 2.0 };
        let w = Value::worst(&[Value::exact(1.0), Value::exact(3.0), Value::exact(2.5), g], &p);
        assert_eq!(w.mean, 3.0, "the point farthest outside");
        let (t, steady) = trend(&[a.clone(), b.clone(), Estimate::of([2.0, 2.1, 1.9])]);
        assert!(t.mean > 0.0 && !steady, "the last step falls surely");
        let (_, steady) = trend(&[a, Estimate::of([0.9, 1.3, 1.0]), b]);
        assert!(steady);
        assert_eq!(num(0.00005), "0.00005");
        assert_eq!(num(f64::INFINITY), "inf");
    }
}
