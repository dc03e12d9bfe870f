//! A paper's claims, one by one, with fairway's value, the band within which the two agree and
//! why that band, and a verdict by the rules of docs/reproductions.md ([`super::rules`]).
//! Written as claims.csv (`claim,source,paper,fairway,band,verdict`, then the columns a test
//! checks each verdict with: [`Claims::HEADER`]) and as the table a report closes with.

use std::fmt::Write as _;

use super::rules::{self, Band, Bounds, Phrase, Rule, Value};
use fairway_report::stats::Estimate;

/// How a claim fared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    /// fairway's value is inside the band.
    Reproduced,
    /// The direction is right (the order, the sign, the trend), the number outside the band.
    Shape,
    NotReproduced,
    /// The paper's numbers contradict each other or its stated set-up; the report shows how.
    PaperInconsistent,
}

impl Verdict {
    pub const ALL: [Verdict; 4] =
        [Verdict::Reproduced, Verdict::Shape, Verdict::NotReproduced, Verdict::PaperInconsistent];

    pub fn name(self) -> &'static str {
        match self {
            Verdict::Reproduced => "reproduced",
            Verdict::Shape => "shape",
            Verdict::NotReproduced => "not_reproduced",
            Verdict::PaperInconsistent => "paper_inconsistent",
        }
    }

    /// Inside the band; else the shape if the direction holds; else not reproduced.
    pub fn judge(inside: bool, direction_holds: bool) -> Verdict {
        match (inside, direction_holds) {
            (true, _) => Verdict::Reproduced,
            (false, true) => Verdict::Shape,
            (false, false) => Verdict::NotReproduced,
        }
    }
}

/// One claim of a paper's evaluation.
#[derive(Debug, Clone, PartialEq)]
pub struct Claim {
    /// What the paper says, in words.
    pub claim: String,
    /// Where: section, table, figure.
    pub source: String,
    /// The paper's value as it states it.
    pub paper: String,
    /// fairway's value: a mean over seeds with its 95% confidence interval, or what was seen.
    pub fairway: String,
    /// How far is still agreement, and where that comes from.
    pub band: String,
    pub verdict: Verdict,
    /// The arithmetic behind a verdict other than `reproduced`, for the report (not in the CSV).
    pub why: String,
    /// What claims.csv gives a test to check the verdict with.
    pub check: Check,
}

/// The machine-readable side of a claim (claims.csv's columns after the first six).
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    pub rule: Rule,
    /// The paper's words, for [`Rule::Words`].
    pub phrase: Option<Phrase>,
    /// The reading of the paper's set-up the row rests on ("as stated" where it needs none).
    pub reading: String,
    /// Whether the row counts in the totals: a claim judged under several readings counts once,
    /// under the primary one.
    pub counted: bool,
    /// What the band is on.
    pub quantity: String,
    pub bounds: Bounds,
    pub band: Option<Band>,
    /// Whether a premise of the claim shows in the runs (None: it has none).
    pub premise: Option<bool>,
    /// The paper's number, for [`Rule::OneRun`].
    pub paper_value: Option<f64>,
    /// fairway's value of the quantity.
    pub value: Option<Value>,
}

impl Check {
    fn arithmetic() -> Check {
        Check {
            rule: Rule::Arithmetic,
            phrase: None,
            reading: String::new(),
            counted: true,
            quantity: String::new(),
            bounds: Bounds::FREE,
            band: None,
            premise: None,
            paper_value: None,
            value: None,
        }
    }

    /// The verdict the rules give this row's numbers; None where they do not decide it
    /// ([`Rule::Arithmetic`]).
    pub fn verdict(&self) -> Option<Verdict> {
        match self.rule {
            Rule::OneRun => {
                let (band, paper) = (self.band?, self.paper_value?);
                Some(Verdict::judge(band.contains(paper), false))
            }
            Rule::Words => {
                let (phrase, band, value) = (self.phrase.as_ref()?, self.band?, self.value?);
                Some(rules::judge(&band, phrase.direction().as_ref(), &value, self.premise))
            }
            Rule::Arithmetic => None,
        }
    }
}

impl Claim {
    /// The paper's words (`phrase`) on `quantity`, fairway's `value` of it: judged by
    /// [`rules::judge`] when pushed.
    pub fn words(
        claim: impl Into<String>,
        source: impl Into<String>,
        paper: impl Into<String>,
        phrase: Phrase,
        quantity: impl Into<String>,
        bounds: Bounds,
        value: Value,
    ) -> Claim {
        let quantity = quantity.into();
        let band = phrase.band().within(bounds);
        let text = format!(
            "{} on {quantity}: {}; reproduced when the 95% confidence interval is inside, shape when the mean is{}",
            phrase.words(),
            band.show(),
            if phrase.direction().is_some() { " or lies on the paper's side" } else { "" }
        );
        Claim {
            claim: claim.into(),
            source: source.into(),
            paper: paper.into(),
            fairway: String::new(),
            band: text,
            verdict: Verdict::NotReproduced,
            why: String::new(),
            check: Check {
                rule: Rule::Words,
                phrase: Some(phrase),
                reading: String::new(),
                counted: true,
                quantity,
                bounds,
                band: Some(band),
                premise: None,
                paper_value: None,
                value: Some(value),
            },
        }
    }

    /// What the paper states against its own numbers or set-up: `paper_inconsistent`.
    pub fn inconsistent(
        claim: impl Into<String>,
        source: impl Into<String>,
        paper: impl Into<String>,
        fairway: impl Into<String>,
        band: impl Into<String>,
        why: impl Into<String>,
    ) -> Claim {
        let mut c = Claim::arithmetic(claim, source, paper, fairway, band, false).why(why);
        c.verdict = Verdict::PaperInconsistent;
        c
    }

    /// The paper's own arithmetic checked exactly (`inside` its rounding): reproduced or not.
    pub fn arithmetic(
        claim: impl Into<String>,
        source: impl Into<String>,
        paper: impl Into<String>,
        fairway: impl Into<String>,
        band: impl Into<String>,
        inside: bool,
    ) -> Claim {
        Claim {
            claim: claim.into(),
            source: source.into(),
            paper: paper.into(),
            fairway: fairway.into(),
            band: band.into(),
            verdict: Verdict::judge(inside, false),
            why: String::new(),
            check: Check::arithmetic(),
        }
    }

    /// fairway's value as the report shows it.
    pub fn shown(mut self, fairway: impl Into<String>) -> Claim {
        self.fairway = fairway.into();
        self
    }

    /// The arithmetic behind a verdict other than `reproduced`.
    pub fn why(mut self, why: impl Into<String>) -> Claim {
        self.why = why.into();
        self
    }

    /// More on where the band comes from, after the rule's own words.
    pub fn note(mut self, note: impl AsRef<str>) -> Claim {
        self.band = format!("{}; {}", self.band, note.as_ref());
        self
    }

    /// A premise of the claim and whether the runs show it.
    pub fn premise(mut self, holds: bool) -> Claim {
        self.check.premise = Some(holds);
        self
    }

    /// The reading the row rests on, where it is not the paper's reading in force.
    pub fn reading(mut self, reading: impl Into<String>) -> Claim {
        self.check.reading = reading.into();
        self
    }

    /// A row under a second reading: shown, not counted in the totals.
    pub fn uncounted(mut self) -> Claim {
        self.check.counted = false;
        self
    }
}

/// A paper's claims in the order of the paper.
#[derive(Debug, Clone, Default)]
pub struct Claims {
    pub rows: Vec<Claim>,
    /// The reading rows pushed from now on rest on, unless a row names its own.
    pub reading: String,
}

/// A paper's value against fairway's replications, for a single number the paper got from one
/// run: [`rules::one_run`]'s band, widened by the precision the paper prints the number with
/// (`rounding`, half its last unit), inside the quantity's `bounds`.
pub fn one_run_band(paper: f64, fairway: &Estimate, rounding: f64, bounds: Bounds) -> (bool, Band, String) {
    let (band, kind) = rules::one_run(fairway, bounds, rounding);
    (band.contains(paper), band, rules::one_run_words(fairway, kind, rounding))
}

/// A number without needless trailing zeros.
pub fn trim(x: f64) -> String {
    let s = format!("{x:.6}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".to_string()
    } else {
        s.to_string()
    }
}

/// Half the last unit the paper prints a number with: "0.2" -> 0.05, "22.98" -> 0.005, "16" ->
/// 0.5.
pub fn rounding(printed: &str) -> f64 {
    match printed.split_once('.') {
        Some((_, d)) => 0.5 * 10f64.powi(-(d.len() as i32)),
        None => 0.5,
    }
}

/// The rounding of a count the paper prints: a number that ends in zeros is taken as rounded at
/// its last non-zero digit (significant figures: "6300" -> 50, "12000" -> 500, "350" -> 5), any
/// other as exact to the unit (0.5).
pub fn count_rounding(printed: &str) -> f64 {
    let digits = printed.trim();
    if digits.contains('.') || !digits.chars().all(|c| c.is_ascii_digit()) {
        return rounding(digits);
    }
    let zeros = digits.len() - digits.trim_end_matches('0').len();
    if zeros == 0 || zeros == digits.len() {
        0.5
    } else {
        0.5 * 10f64.powi(zeros as i32)
    }
}

impl Claims {
    /// Adds a row: a row without a reading of its own takes the one in force; a row the rules
    /// can judge gets their verdict; `why` is kept only for a verdict other than `reproduced`.
    pub fn push(&mut self, mut c: Claim) {
        if c.check.reading.is_empty() {
            c.check.reading = if self.reading.is_empty() { "as stated".into() } else { self.reading.clone() };
        }
        if let Some(v) = c.check.verdict() {
            c.verdict = v;
        }
        if c.verdict == Verdict::Reproduced {
            c.why.clear();
        }
        self.rows.push(c);
    }

    /// A number the paper got from its one run (`printed` as it prints it), against fairway's
    /// seeds: [`one_run_band`] with the paper's rounding, inside the quantity's `bounds`. `why`
    /// is kept only if it is not reproduced.
    #[allow(clippy::too_many_arguments)]
    pub fn cell(
        &mut self,
        claim: String,
        source: &str,
        printed: &str,
        fw: &Estimate,
        digits: usize,
        bounds: Bounds,
        why: String,
    ) {
        self.cell_rounded(claim, source, printed, rounding(printed), fw, digits, bounds, why);
    }

    /// [`cell`](Self::cell) for a count (packets): see [`count_rounding`].
    pub fn count(&mut self, claim: String, source: &str, printed: &str, fw: &Estimate, why: String) {
        self.cell_rounded(claim, source, printed, count_rounding(printed), fw, 0, Bounds::NON_NEGATIVE, why);
    }

    /// [`cell`](Self::cell) with the rounding given.
    #[allow(clippy::too_many_arguments)]
    pub fn cell_rounded(
        &mut self,
        claim: String,
        source: &str,
        printed: &str,
        rounding: f64,
        fw: &Estimate,
        digits: usize,
        bounds: Bounds,
        why: String,
    ) {
        let paper: f64 = printed.parse().unwrap_or(f64::NAN);
        let (inside, band, text) = one_run_band(paper, fw, rounding, bounds);
        let mut fairway = fw.show(digits);
        if fw.n >= 2 {
            fairway = format!("{fairway} (runs {:.*} to {:.*})", digits, fw.min, digits, fw.max);
        }
        self.push(Claim {
            claim,
            source: source.into(),
            paper: printed.into(),
            fairway,
            band: text,
            verdict: Verdict::judge(inside, false),
            why,
            check: Check {
                rule: Rule::OneRun,
                phrase: None,
                reading: String::new(),
                counted: true,
                quantity: "the paper's number".into(),
                bounds,
                band: Some(band),
                premise: None,
                paper_value: Some(paper),
                value: Some(Value::of(fw, bounds)),
            },
        });
    }

    /// A direction: `value` is the difference the paper's words make positive (A - B for "A
    /// above B"), its interval as [`Value::gap`] or a paired difference gives it.
    #[allow(clippy::too_many_arguments)]
    pub fn higher(
        &mut self,
        claim: &str,
        source: &str,
        paper: &str,
        fairway: String,
        quantity: &str,
        value: Value,
        why: &str,
    ) {
        self.push(
            Claim::words(claim, source, paper, Phrase::Higher, quantity, Bounds::FREE, value).shown(fairway).why(why),
        );
    }

    /// The counted rows.
    pub fn counted(&self) -> impl Iterator<Item = &Claim> {
        self.rows.iter().filter(|c| c.check.counted)
    }

    /// How many counted claims got each verdict, in [`Verdict::ALL`] order.
    pub fn counts(&self) -> [(Verdict, usize); 4] {
        Verdict::ALL.map(|v| (v, self.counted().filter(|c| c.verdict == v).count()))
    }

    /// "Of 41 claims: 12 reproduced, 5 shape, 20 not_reproduced, 4 paper_inconsistent."
    pub fn summary(&self) -> String {
        let parts: Vec<String> = self.counts().iter().map(|(v, n)| format!("{n} {}", v.name())).collect();
        let n = self.counted().count();
        let extra = self.rows.len() - n;
        let more = if extra > 0 {
            let (rows, are) = if extra == 1 { ("row", "is") } else { ("rows", "are") };
            format!(" ({extra} more {rows} under a second reading {are} shown and not counted)")
        } else {
            String::new()
        };
        format!("Of {n} claims: {}.{more}", parts.join(", "))
    }

    /// claims.csv's header.
    pub const HEADER: &'static str = "claim,source,paper,fairway,band,verdict,rule,phrase,reading,counted,quantity,\
bounds_lo,bounds_hi,band_lo,band_hi,band_ends,premise,paper_value,fairway_mean,fairway_lo,fairway_hi";

    /// claims.csv: a header and one row per claim, fields quoted where they need it (RFC 4180);
    /// numbers in full precision, an empty field where there is none.
    pub fn csv(&self) -> String {
        let mut s = format!("{}\n", Self::HEADER);
        let opt = |x: Option<f64>| x.map_or(String::new(), |v| format!("{v}"));
        for c in &self.rows {
            let k = &c.check;
            let fields = [
                c.claim.clone(),
                c.source.clone(),
                c.paper.clone(),
                c.fairway.clone(),
                c.band.clone(),
                c.verdict.name().to_string(),
                k.rule.name().to_string(),
                k.phrase.as_ref().map_or(String::new(), |p| p.key()),
                k.reading.clone(),
                if k.counted { "yes" } else { "no" }.to_string(),
                k.quantity.clone(),
                format!("{}", k.bounds.lo),
                format!("{}", k.bounds.hi),
                opt(k.band.map(|b| b.lo)),
                opt(k.band.map(|b| b.hi)),
                k.band.map_or(String::new(), |b| b.ends().to_string()),
                k.premise.map_or(String::new(), |p| if p { "yes" } else { "no" }.to_string()),
                opt(k.paper_value),
                opt(k.value.map(|v| v.mean)),
                opt(k.value.map(|v| v.lo)),
                opt(k.value.map(|v| v.hi)),
            ];
            let line: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
            s.push_str(&line.join(","));
            s.push('\n');
        }
        s
    }

    /// The report's table of claims, numbered, then the notes that explain each verdict other
    /// than `reproduced`.
    pub fn markdown(&self) -> String {
        let mut s = String::from(
            "| # | claim | source | paper | fairway | band | reading | verdict |\n|---|---|---|---|---|---|---|---|\n",
        );
        for (i, c) in self.rows.iter().enumerate() {
            let verdict = if c.check.counted {
                c.verdict.name().to_string()
            } else {
                format!("{} (not counted)", c.verdict.name())
            };
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} | {} |",
                i + 1,
                cell(&c.claim),
                cell(&c.source),
                cell(&c.paper),
                cell(&c.fairway),
                cell(&c.band),
                cell(&c.check.reading),
                verdict
            );
        }
        let notes: Vec<(usize, &Claim)> =
            self.rows.iter().enumerate().filter(|(_, c)| !c.why.is_empty()).map(|(i, c)| (i + 1, c)).collect();
        if !notes.is_empty() {
            s.push_str("\nWhy, claim by claim:\n\n");
            for (i, c) in notes {
                let _ = writeln!(s, "{i}. ({}) {}", c.verdict.name(), c.why);
            }
        }
        s
    }
}

/// claims.csv read back: one map of column to field per row (RFC 4180 quoting), for tests and
/// for anyone checking a reproduction's verdicts.
pub fn read_csv(text: &str) -> Result<Vec<std::collections::BTreeMap<String, String>>, String> {
    let mut records: Vec<Vec<String>> = vec![];
    let (mut field, mut record, mut quoted) = (String::new(), vec![], false);
    let mut chars = text.chars().peekable();
    while let Some(ch) = chars.next() {
        match (ch, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            ('"', true) => quoted = false,
            ('"', false) if field.is_empty() => quoted = true,
            (',', false) => record.push(std::mem::take(&mut field)),
            ('\n', false) => {
                record.push(std::mem::take(&mut field));
                records.push(std::mem::take(&mut record));
            }
            (c, _) => field.push(c),
        }
    }
    if quoted {
        return Err("an unclosed quote".into());
    }
    if !field.is_empty() || !record.is_empty() {
        record.push(field);
        records.push(record);
    }
    let mut it = records.into_iter();
    let header = it.next().ok_or("no header")?;
    it.enumerate()
        .map(|(i, r)| {
            if r.len() != header.len() {
                return Err(format!("row {}: {} fields, the header has {}", i + 1, r.len(), header.len()));
            }
            Ok(header.iter().cloned().zip(r).collect())
        })
        .collect()
}

/// Checks every row of a claims.csv against the rules (docs/reproductions.md): the header; a
/// reading named; a band inside the quantity's bounds; a phrase's band the one the rules give
/// it; a verdict the row's own numbers give; no run counted twice against two paper values.
/// Returns the counted rows' verdict counts, or every problem found.
pub fn check_csv(text: &str) -> Result<[(Verdict, usize); 4], Vec<String>> {
    let mut problems = vec![];
    if text.lines().next() != Some(Claims::HEADER) {
        problems.push(format!("the header is not claims.csv's: {:?}", text.lines().next()));
        return Err(problems);
    }
    let rows = read_csv(text).map_err(|e| vec![e])?;
    let num = |r: &std::collections::BTreeMap<String, String>, k: &str| -> Option<f64> {
        let v = r.get(k)?;
        if v.is_empty() {
            None
        } else {
            v.parse::<f64>().ok().or(Some(f64::NAN))
        }
    };
    let mut counts = Verdict::ALL.map(|v| (v, 0));
    let mut seen: Vec<(String, [u64; 3], String, usize)> = vec![];
    for (i, r) in rows.iter().enumerate() {
        let at = format!("row {} ({})", i + 1, r["claim"]);
        let mut bad = |m: String| problems.push(format!("{at}: {m}"));
        let Some(verdict) = Verdict::ALL.into_iter().find(|v| v.name() == r["verdict"]) else {
            bad(format!("unknown verdict {}", r["verdict"]));
            continue;
        };
        let Some(rule) = Rule::from_name(&r["rule"]) else {
            bad(format!("unknown rule {}", r["rule"]));
            continue;
        };
        if r["reading"].trim().is_empty() {
            bad("no reading named".into());
        }
        let counted = match r["counted"].as_str() {
            "yes" => true,
            "no" => false,
            x => {
                bad(format!("counted is {x}"));
                continue;
            }
        };
        if counted {
            for c in counts.iter_mut().filter(|c| c.0 == verdict) {
                c.1 += 1;
            }
        }
        let bounds =
            Bounds { lo: num(r, "bounds_lo").unwrap_or(f64::NAN), hi: num(r, "bounds_hi").unwrap_or(f64::NAN) };
        // Reported unless lo <= hi: a missing bound (NaN) fails too, where `lo > hi` would pass it.
        #[allow(clippy::neg_cmp_op_on_partial_ord)]
        let disordered = !(bounds.lo <= bounds.hi);
        if disordered {
            bad(format!("bounds {} to {}", bounds.lo, bounds.hi));
        }
        let band = match (num(r, "band_lo"), num(r, "band_hi"), r["band_ends"].as_str()) {
            (Some(lo), Some(hi), e) if ["[]", "(]", "[)", "()"].contains(&e) => {
                Some(Band { lo, hi, lo_open: e.starts_with('('), hi_open: e.ends_with(')') })
            }
            (None, None, "") => None,
            _ => {
                bad("a band without both ends".into());
                None
            }
        };
        if let Some(b) = band {
            if !(bounds.lo <= b.lo && b.lo <= b.hi && b.hi <= bounds.hi) {
                bad(format!("the band {} leaves the bounds [{}, {}]", b.show(), bounds.lo, bounds.hi));
            }
        }
        let value = match (num(r, "fairway_mean"), num(r, "fairway_lo"), num(r, "fairway_hi")) {
            (Some(mean), Some(lo), Some(hi)) => Some(Value { mean, lo, hi }),
            _ => None,
        };
        if let Some(v) = value {
            if !(v.lo <= v.mean && v.mean <= v.hi) && verdict != Verdict::NotReproduced {
                bad(format!("fairway's interval {} to {} does not hold its mean {}", v.lo, v.hi, v.mean));
            }
        }
        let premise = match r["premise"].as_str() {
            "yes" => Some(true),
            "no" => Some(false),
            _ => None,
        };
        let phrase = if r["phrase"].is_empty() { None } else { Phrase::from_key(&r["phrase"]) };
        if !r["phrase"].is_empty() && phrase.is_none() {
            bad(format!("unknown phrase {}", r["phrase"]));
        }
        // The verdict the row's own numbers give, by the rules that wrote it.
        let check = Check {
            rule,
            phrase,
            reading: r["reading"].clone(),
            counted,
            quantity: r["quantity"].clone(),
            bounds,
            band,
            premise,
            paper_value: num(r, "paper_value"),
            value,
        };
        if let Some(got) = check.verdict() {
            if got != verdict {
                bad(format!("the rules give {}, the row says {}", got.name(), verdict.name()));
            }
        }
        match rule {
            Rule::Words => {
                let (Some(p), Some(b), Some(_)) = (&check.phrase, band, value) else {
                    bad("words without a phrase, band or value".into());
                    continue;
                };
                let want = p.band().within(bounds);
                if want != b {
                    bad(format!("the band {} is not {}'s {}", b.show(), p.key(), want.show()));
                }
            }
            Rule::OneRun => {
                if band.is_none() || check.paper_value.is_none() {
                    bad("a one-run number without a band or a paper value".into());
                    continue;
                }
                if let (Some(v), true) = (value, counted) {
                    let key = [v.mean.to_bits(), v.lo.to_bits(), v.hi.to_bits()];
                    if let Some(prev) =
                        seen.iter().find(|s| s.1 == key && s.0 == r["reading"] && s.2 != r["paper_value"])
                    {
                        bad(format!("one run counted against two paper values (row {} too)", prev.3));
                    }
                    seen.push((r["reading"].clone(), key, r["paper_value"].clone(), i + 1));
                }
            }
            Rule::Arithmetic => {
                if check.phrase.is_some() || band.is_some() {
                    bad("the paper's arithmetic has no phrase or band".into());
                }
                if ![Verdict::PaperInconsistent, Verdict::Reproduced, Verdict::NotReproduced].contains(&verdict) {
                    bad(format!("the paper's arithmetic gives {}", verdict.name()));
                }
            }
        }
    }
    if problems.is_empty() {
        Ok(counts)
    } else {
        Err(problems)
    }
}

fn csv_field(f: &str) -> String {
    if f.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", f.replace('"', "\"\""))
    } else {
        f.to_string()
    }
}

/// A markdown table cell: pipes escaped, line breaks flattened.
fn cell(f: &str) -> String {
    f.replace('|', "\\|").replace(['\n', '\r'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claim(verdict: Verdict, why: &str) -> Claim {
        Claim::inconsistent(
            "IFTP and TCP \"almost equal\", TCP higher",
            "§6.1, Fig. 6",
            "TCP > IFTP",
            "1.16 ± 0.05",
            "ratio in [0.8, 1.25]",
            why,
        )
        .with_verdict(verdict)
    }

    impl Claim {
        fn with_verdict(mut self, v: Verdict) -> Claim {
            self.verdict = v;
            self
        }
    }

    #[test]
    fn csv_quotes_what_needs_quoting_and_keeps_the_columns() {
        let mut c = Claims::default();
        c.push(claim(Verdict::Shape, "because"));
        let csv = c.csv();
        let mut lines = csv.lines();
        let header = lines.next().unwrap();
        assert!(header.starts_with("claim,source,paper,fairway,band,verdict,rule,phrase,reading,counted,"), "{header}");
        let row = lines.next().unwrap();
        assert!(row.starts_with("\"IFTP and TCP \"\"almost equal\"\", TCP higher\",\"§6.1, Fig. 6\","), "{row}");
        assert!(row.contains(",shape,arithmetic,,as stated,yes,"), "{row}");
        let back = read_csv(&csv).unwrap();
        assert_eq!((back.len(), back[0].len()), (1, header.split(',').count()));
        assert_eq!(back[0]["band"], "ratio in [0.8, 1.25]");
        assert_eq!(lines.next(), None);
    }

    #[test]
    fn counts_notes_and_second_readings() {
        let mut c = Claims::default();
        c.push(claim(Verdict::Reproduced, "dropped: reproduced needs no why"));
        c.push(claim(Verdict::NotReproduced, "the arithmetic"));
        c.push(claim(Verdict::NotReproduced, ""));
        c.push(claim(Verdict::NotReproduced, "").reading("B").uncounted());
        assert_eq!(
            c.summary(),
            "Of 3 claims: 1 reproduced, 0 shape, 2 not_reproduced, 0 paper_inconsistent. (1 more row under a second \
reading is shown and not counted)"
        );
        let md = c.markdown();
        assert!(md.contains("| 2 | IFTP and TCP"));
        assert!(md.contains("2. (not_reproduced) the arithmetic"));
        assert!(!md.contains("1. (reproduced)"));
        assert!(!md.contains("3. (not_reproduced)"), "no note without a why");
        assert!(md.contains("| B | not_reproduced (not counted) |"), "{md}");
    }

    #[test]
    fn the_check_reads_back_what_was_written_and_finds_a_kind_verdict() {
        let mut c = Claims { reading: "A".into(), ..Claims::default() };
        let e = Estimate::of([0.0021, 0.0008, 0.0035, 0.0012, 0.0029]);
        c.cell("PLR, \"N = 6\"".into(), "Table 1", "0.0005", &e, 5, Bounds::UNIT, "why".into());
        c.push(Claim::words("twice", "s", "2", Phrase::About(2.0), "ratio", Bounds::NON_NEGATIVE, Value::exact(2.1)));
        c.push(claim(Verdict::PaperInconsistent, "x"));
        let csv = c.csv();
        let counts = check_csv(&csv).unwrap_or_else(|p| panic!("{p:#?}"));
        assert_eq!(counts.map(|x| x.1), [1, 0, 1, 1]);
        assert_eq!(read_csv(&csv).unwrap()[0]["claim"], "PLR, \"N = 6\"");
        // A row that says reproduced where its numbers do not: found.
        let kind = csv.replacen(",not_reproduced,one_run,", ",reproduced,one_run,", 1);
        let p = check_csv(&kind).unwrap_err();
        assert!(p[0].contains("the rules give not_reproduced"), "{p:?}");
        // A band that leaves its bounds: found.
        let mut c2 = Claims::default();
        c2.push(Claim::words("x", "s", "p", Phrase::MostOf, "share", Bounds::NON_NEGATIVE, Value::exact(0.7)));
        let wide = c2.csv().replace(",0.5,1,(],", ",-0.5,1,(],");
        assert!(check_csv(&wide).unwrap_err()[0].contains("leaves the bounds"));
        // The same run counted against two paper values: found.
        let mut c3 = Claims::default();
        c3.cell("a".into(), "Table 1", "0.0030", &e, 5, Bounds::UNIT, String::new());
        c3.cell("b".into(), "Table 3", "0.0021", &e, 5, Bounds::UNIT, String::new());
        assert!(check_csv(&c3.csv()).unwrap_err()[0].contains("one run counted against two paper values"));
        c3.rows[1].check.counted = false;
        assert!(check_csv(&c3.csv()).is_ok());
    }

    #[test]
    fn rows_are_judged_by_the_rules_when_pushed() {
        let mut c = Claims { reading: "A".into(), ..Claims::default() };
        let e = Estimate::of([100.0, 102.0, 98.0, 101.0, 99.0]);
        c.cell("x".into(), "s", "104", &e, 1, Bounds::NON_NEGATIVE, "why".into());
        c.cell("x".into(), "s", "106", &e, 1, Bounds::NON_NEGATIVE, "why".into());
        c.count("x".into(), "s", "100", &e, "why".into());
        assert_eq!(
            c.rows.iter().map(|r| r.verdict).collect::<Vec<_>>(),
            [Verdict::Reproduced, Verdict::NotReproduced, Verdict::Reproduced]
        );
        assert!(c.rows[0].why.is_empty() && c.rows[1].why == "why");
        assert_eq!(c.rows[0].check.reading, "A");
        let v = Value::exact(1.57);
        c.push(Claim::words("twice", "s", "2", Phrase::About(2.0), "ratio", Bounds::NON_NEGATIVE, v));
        assert_eq!(c.rows[3].verdict, Verdict::Shape);
        for r in &c.rows {
            assert_eq!(r.check.verdict(), Some(r.verdict));
        }
        assert_eq!(Verdict::judge(false, true), Verdict::Shape);
        assert_eq!(trim(0.5), "0.5");
        assert_eq!(trim(50.0), "50");
        assert_eq!((rounding("0.2"), rounding("22.98"), rounding("16")), (0.05, 0.005, 0.5));
        let counts = ["6300", "12000", "350", "3573", "20", "0", "2.9"].map(count_rounding);
        assert_eq!(counts, [50.0, 500.0, 5.0, 0.5, 5.0, 0.5, 0.05]);
    }
}
