//! A paper's claims, one by one, with fairway's value, the band within which the two agree and
//! why that band, and a verdict (DESIGN.md, "Reproductions"). Written as claims.csv
//! (`claim,source,paper,fairway,band,verdict`) and as the table a report opens with.

use std::fmt::Write as _;

use super::stats::Estimate;

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
}

/// A paper's claims in the order of the paper.
#[derive(Debug, Clone, Default)]
pub struct Claims {
    pub rows: Vec<Claim>,
}

/// A paper's value against fairway's replications, for a single number the paper got from one
/// run: agreement when it lies within the 95% prediction interval of one further fairway run,
/// widened by the precision the paper prints the number with (`rounding`, half its last unit).
pub fn one_run_band(paper: f64, fairway: &Estimate, rounding: f64) -> (bool, String) {
    let half = fairway.pi95() + rounding;
    let inside = (paper - fairway.mean).abs() <= half;
    let band = if rounding > 0.0 {
        format!(
            "95% prediction interval of one run from {} seeds ({:.3}) plus the paper's rounding ({})",
            fairway.n,
            fairway.pi95(),
            trim(rounding)
        )
    } else {
        format!("95% prediction interval of one run from {} seeds ({:.3})", fairway.n, fairway.pi95())
    };
    (inside, band)
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
    pub fn push(&mut self, c: Claim) {
        self.rows.push(c);
    }

    /// A number the paper got from its one run (`printed` as it prints it), against fairway's
    /// seeds: [`one_run_band`] with the paper's rounding. `why` is kept only if it is not
    /// reproduced.
    pub fn cell(&mut self, claim: String, source: &str, printed: &str, fw: &Estimate, digits: usize, why: String) {
        self.cell_rounded(claim, source, printed, rounding(printed), fw, digits, why);
    }

    /// [`cell`](Self::cell) for a count (packets): see [`count_rounding`].
    pub fn count(&mut self, claim: String, source: &str, printed: &str, fw: &Estimate, why: String) {
        self.cell_rounded(claim, source, printed, count_rounding(printed), fw, 0, why);
    }

    #[allow(clippy::too_many_arguments)]
    fn cell_rounded(
        &mut self,
        claim: String,
        source: &str,
        printed: &str,
        rounding: f64,
        fw: &Estimate,
        digits: usize,
        why: String,
    ) {
        let paper: f64 = printed.parse().unwrap_or(f64::NAN);
        let (inside, band) = one_run_band(paper, fw, rounding);
        self.push(Claim {
            claim,
            source: source.into(),
            paper: printed.into(),
            fairway: fw.show(digits),
            band,
            verdict: Verdict::judge(inside, false),
            why: if inside { String::new() } else { why },
        });
    }

    /// A direction (an order, a trend): reproduced when it holds for the means and every 95%
    /// confidence interval (`sure`), shape when only for the means (`holds`).
    #[allow(clippy::too_many_arguments)]
    pub fn direction(
        &mut self,
        claim: &str,
        source: &str,
        paper: &str,
        fairway: String,
        holds: bool,
        sure: bool,
        why: &str,
    ) {
        let verdict = match (holds, sure) {
            (true, true) => Verdict::Reproduced,
            (true, false) => Verdict::Shape,
            (false, _) => Verdict::NotReproduced,
        };
        self.push(Claim {
            claim: claim.into(),
            source: source.into(),
            paper: paper.into(),
            fairway,
            band: "the direction; reproduced when every 95% confidence interval agrees, shape when only the means do"
                .into(),
            verdict,
            why: if verdict == Verdict::Reproduced { String::new() } else { why.into() },
        });
    }

    /// How many claims got each verdict, in [`Verdict::ALL`] order.
    pub fn counts(&self) -> [(Verdict, usize); 4] {
        Verdict::ALL.map(|v| (v, self.rows.iter().filter(|c| c.verdict == v).count()))
    }

    /// "Of 41 claims: 12 reproduced, 5 shape, 20 not_reproduced, 4 paper_inconsistent."
    pub fn summary(&self) -> String {
        let parts: Vec<String> = self.counts().iter().map(|(v, n)| format!("{n} {}", v.name())).collect();
        format!("Of {} claims: {}.", self.rows.len(), parts.join(", "))
    }

    /// claims.csv: a header and one row per claim, fields quoted where they need it (RFC 4180).
    pub fn csv(&self) -> String {
        let mut s = String::from("claim,source,paper,fairway,band,verdict\n");
        for c in &self.rows {
            let fields = [&c.claim, &c.source, &c.paper, &c.fairway, &c.band, &c.verdict.name().to_string()];
            let line: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
            s.push_str(&line.join(","));
            s.push('\n');
        }
        s
    }

    /// The report's table of claims, numbered, then the notes that explain each verdict other
    /// than `reproduced`.
    pub fn markdown(&self) -> String {
        let mut s =
            String::from("| # | claim | source | paper | fairway | band | verdict |\n|---|---|---|---|---|---|---|\n");
        for (i, c) in self.rows.iter().enumerate() {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} |",
                i + 1,
                cell(&c.claim),
                cell(&c.source),
                cell(&c.paper),
                cell(&c.fairway),
                cell(&c.band),
                c.verdict.name()
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
        Claim {
            claim: "IFTP and TCP \"almost equal\", TCP higher".into(),
            source: "§6.1, Fig. 6".into(),
            paper: "TCP > IFTP".into(),
            fairway: "1.16 ± 0.05".into(),
            band: "ratio in [0.8, 1.25]".into(),
            verdict,
            why: why.into(),
        }
    }

    #[test]
    fn csv_quotes_what_needs_quoting_and_keeps_the_columns() {
        let mut c = Claims::default();
        c.push(claim(Verdict::Shape, "because"));
        let csv = c.csv();
        let mut lines = csv.lines();
        assert_eq!(lines.next(), Some("claim,source,paper,fairway,band,verdict"));
        let row = lines.next().unwrap();
        assert!(row.starts_with("\"IFTP and TCP \"\"almost equal\"\", TCP higher\",\"§6.1, Fig. 6\","), "{row}");
        assert!(row.ends_with(",shape"));
        assert_eq!(lines.next(), None);
    }

    #[test]
    fn counts_and_notes() {
        let mut c = Claims::default();
        c.push(claim(Verdict::Reproduced, ""));
        c.push(claim(Verdict::NotReproduced, "the arithmetic"));
        c.push(claim(Verdict::NotReproduced, ""));
        assert_eq!(c.summary(), "Of 3 claims: 1 reproduced, 0 shape, 2 not_reproduced, 0 paper_inconsistent.");
        let md = c.markdown();
        assert!(md.contains("| 2 | IFTP and TCP"));
        assert!(md.contains("2. (not_reproduced) the arithmetic"));
        assert!(!md.contains("3. (not_reproduced)"), "no note without a why");
    }

    #[test]
    fn one_run_bands() {
        let e = Estimate::of([100.0, 102.0, 98.0, 101.0, 99.0]);
        let (inside, band) = one_run_band(104.0, &e, 0.0);
        assert!(inside, "{band}: 4 from the mean, PI ~4.4");
        assert!(!one_run_band(106.0, &e, 0.0).0);
        assert!(one_run_band(106.0, &e, 5.0).0, "the paper's rounding widens it");
        assert_eq!(Verdict::judge(false, true), Verdict::Shape);
        assert_eq!(trim(0.5), "0.5");
        assert_eq!(trim(50.0), "50");
        assert_eq!((rounding("0.2"), rounding("22.98"), rounding("16")), (0.05, 0.005, 0.5));
        let counts = ["6300", "12000", "350", "3573", "20", "0", "2.9"].map(count_rounding);
        assert_eq!(counts, [50.0, 500.0, 5.0, 0.5, 5.0, 0.5, 0.05]);
    }
}
