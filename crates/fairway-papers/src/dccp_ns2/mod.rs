//! dccp-ns2 ("TCP vs DCCP CCID2 vs CCID3 congestion control compared in NS-2"): three clients on
//! a dumbbell (§III, Table 2, the schedule of Table 4), with TCP, CCID2 and CCID3 each, in the
//! default set-up and with one change at a time (§IV: the queue at 100 packets, the bottleneck
//! at 20 Mb/s, its delay at 10 and at 50 ms): per-client throughput over time (Figures 3-17).
//! scenarios/dccp-ns2/ holds one file per transport, the default run; [`Change`] makes the
//! others. [`claims`] puts the paper's statements beside fairway's measures; [`report`] writes
//! them with the figures and ns-2's own runs of the same grid ([`ns2_reference`]).

pub mod claims;
pub mod ns2_reference;
mod report;

use std::path::PathBuf;

use toml_edit::{value, DocumentMut};

use super::rules::{Bounds, Value};
use super::{run_text, scenario_text, ReproduceError, ReproduceOptions};
use fairway_model::metrics::jain;
use fairway_model::results::RunResult;
use fairway_report::stats::Estimate;

pub const PAPER: &str = "dccp-ns2";

/// The transports, one scenario file each.
pub const TRANSPORTS: [&str; 3] = ["tcp", "ccid2", "ccid3"];

/// Where all three clients are active (client 1 stops at 35 s, client 3 starts at 10 s).
pub const ALL_ACTIVE: (f64, f64) = (10.0, 35.0);

/// The runs of §IV: the default set-up and one change at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Default,
    Queue100,
    Rate20,
    Delay10,
    Delay50,
}

impl Change {
    pub const ALL: [Change; 5] = [Change::Default, Change::Queue100, Change::Rate20, Change::Delay10, Change::Delay50];

    pub fn stem(self) -> &'static str {
        match self {
            Change::Default => "default",
            Change::Queue100 => "queue100",
            Change::Rate20 => "rate20",
            Change::Delay10 => "delay10",
            Change::Delay50 => "delay50",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Change::Default => "default (10 Mb/s, 2 ms, queue 20)",
            Change::Queue100 => "queue 100",
            Change::Rate20 => "bottleneck 20 Mb/s",
            Change::Delay10 => "bottleneck delay 10 ms",
            Change::Delay50 => "bottleneck delay 50 ms",
        }
    }

    /// The paper's figure for `transport` (§IV: TCP 3-7, CCID2 8-12, CCID3 13-17).
    pub fn figure(self, transport: &str) -> usize {
        let base = match transport {
            "tcp" => 3,
            "ccid2" => 8,
            _ => 13,
        };
        base + Change::ALL.iter().position(|c| *c == self).expect("in ALL")
    }

    /// The bottleneck (the first `[[link]]`) with this change: (rate Mb/s, delay ms, queue).
    pub fn bottleneck(self) -> (f64, f64, u32) {
        match self {
            Change::Default => (10.0, 2.0, 20),
            Change::Queue100 => (10.0, 2.0, 100),
            Change::Rate20 => (20.0, 2.0, 20),
            Change::Delay10 => (10.0, 10.0, 20),
            Change::Delay50 => (10.0, 50.0, 20),
        }
    }

    /// The scenario text with the change made to its first link, the bottleneck.
    pub fn apply(self, text: &str) -> String {
        let Ok(mut doc) = text.parse::<DocumentMut>() else { return text.to_string() };
        let (rate, delay, limit) = self.bottleneck();
        if let Some(link) = doc.get_mut("link").and_then(|l| l.as_array_of_tables_mut()).and_then(|a| a.get_mut(0)) {
            link["rate"] = value(format!("{rate}Mb"));
            link["delay"] = value(format!("{delay}ms"));
            if let Some(q) = link.get_mut("queue").and_then(|q| q.as_inline_table_mut()) {
                q.insert("limit", i64::from(limit).into());
            }
        }
        if let Some(name) = doc.get("name").and_then(|n| n.as_str()).map(|n| format!("{n}-{}", self.stem())) {
            doc["name"] = value(name);
        }
        doc.to_string()
    }
}

/// The scenario text without the random wait before each packet (`send_jitter`): the
/// deterministic run, as ns-2's agents give it, on ns-2's clock (`clock = "ns2"`). Every link
/// here is 10 Mb/s with 540 B packets, so packets of different clients reach the bottleneck at
/// exactly the same instant again and again, and ns-2's order of such ties, by the rounding of
/// its double-precision times, decides which client loses (docs/semantics.md, "Phase effects").
pub fn without_jitter(text: &str) -> String {
    let Ok(mut doc) = text.parse::<DocumentMut>() else { return text.to_string() };
    if let Some(flows) = doc.get_mut("flow").and_then(|f| f.as_array_of_tables_mut()) {
        for f in flows.iter_mut() {
            f.remove("send_jitter");
        }
    }
    doc["clock"] = value("ns2");
    doc.to_string()
}

/// What one run shows, from its 1 s bins of delivered payload per client.
#[derive(Debug, Clone, PartialEq)]
pub struct Measure {
    /// Each client's mean over [`ALL_ACTIVE`], bits per second.
    pub mean_bps: [f64; 3],
    /// Jain's index of the three means.
    pub jain: f64,
    /// The coefficient of variation of the 1 s samples over [`ALL_ACTIVE`], averaged over the
    /// clients: the paper's "fluctuation"; and the same over 10-25 s and 25-35 s.
    pub cv: f64,
    pub cv_early: f64,
    pub cv_late: f64,
    /// Seconds from client 3's start until its 3 s moving average first reaches 90% of its mean
    /// over 25-35 s: how long the newcomer takes to "stabilize".
    pub settle_s: f64,
    /// The dominant period of client 3's 1 s series over 15-50 s (the lag of the largest
    /// autocorrelation above 0.3 among lags of 2 to 17 s); none when no such lag.
    pub period_s: Option<f64>,
    /// Clients whose throughput over the last 10 s of their activity is below 5% of the fair
    /// share of the link: stalled.
    pub stalled: usize,
    /// The 1 s series per client, bits per second (bin k covers [k, k + 1) s).
    pub series: [Vec<f64>; 3],
}

/// The clients' 1 s series of delivered payload, bits per second.
fn series(r: &RunResult) -> [Vec<f64>; 3] {
    let bin = r.bin.as_secs_f64();
    std::array::from_fn(|c| {
        r.flow_bins
            .get(c)
            .map(|bins| bins.iter().map(|b| b.goodput_bytes as f64 * 8.0 / bin).collect())
            .unwrap_or_default()
    })
}

fn window(s: &[f64], a: f64, b: f64) -> &[f64] {
    let (i, j) = ((a as usize).min(s.len()), (b as usize).min(s.len()));
    &s[i..j.max(i)]
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.iter().sum::<f64>() / v.len() as f64
}

fn cv(v: &[f64]) -> f64 {
    let m = mean(v);
    if v.len() < 2 || m <= 0.0 {
        return f64::NAN;
    }
    let var = v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (v.len() - 1) as f64;
    var.sqrt() / m
}

/// The lag (in samples) of the largest autocorrelation above 0.3 among lags 2..=17.
fn dominant_period(v: &[f64]) -> Option<f64> {
    let m = mean(v);
    let d: Vec<f64> = v.iter().map(|x| x - m).collect();
    let c0: f64 = d.iter().map(|x| x * x).sum();
    if c0 <= 0.0 {
        return None;
    }
    let acf = |l: usize| d.iter().zip(&d[l..]).map(|(a, b)| a * b).sum::<f64>() / c0;
    (2..=17usize.min(d.len().saturating_sub(2)))
        .map(|l| (l, acf(l)))
        .filter(|&(_, a)| a > 0.3)
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(l, _)| l as f64)
}

impl Measure {
    pub fn of(r: &RunResult, change: Change) -> Measure {
        let s = series(r);
        let (a, b) = ALL_ACTIVE;
        let mean_bps = std::array::from_fn(|c| mean(window(&s[c], a, b)));
        let cvs = |x: f64, y: f64| mean(&(0..3).map(|c| cv(window(&s[c], x, y))).collect::<Vec<_>>());
        let c3 = &s[2];
        let target = 0.9 * mean(window(c3, 25.0, 35.0));
        let settle_s = (10..c3.len().saturating_sub(2))
            .find(|&k| mean(&c3[k..k + 3]) >= target)
            .map_or(f64::NAN, |k| k as f64 + 1.5 - 10.0);
        let fair = change.bottleneck().0 * 1e6 / 3.0;
        let last = [(25.0, 35.0), (40.0, 50.0), (40.0, 50.0)];
        let stalled = (0..3).filter(|&c| mean(window(&s[c], last[c].0, last[c].1)) < 0.05 * fair).count();
        Measure {
            mean_bps,
            jain: jain(&mean_bps).unwrap_or(f64::NAN),
            cv: cvs(a, b),
            cv_early: cvs(10.0, 25.0),
            cv_late: cvs(25.0, 35.0),
            settle_s,
            period_s: dominant_period(window(c3, 15.0, 50.0)),
            stalled,
            series: s,
        }
    }
}

/// Every run's measures: per transport ([`TRANSPORTS`] order), per change ([`Change::ALL`]
/// order), per seed.
pub struct Results {
    pub m: Vec<Vec<Vec<Measure>>>,
    /// The same without the random wait, one run each (every seed gives the same run).
    pub deterministic: Vec<Vec<Measure>>,
    pub reps: usize,
    /// Whether the runs are deterministic (the same in every seed): their values have no
    /// sampling error, and a claim is judged on the number itself (docs/reproductions.md).
    pub exact: bool,
}

impl Results {
    /// The runs without the random wait as a set of their own, one run per set-up: the paper's
    /// reading, deterministic as ns-2's agents are.
    pub fn without_wait(&self) -> Results {
        Results {
            m: self.deterministic.iter().map(|t| t.iter().map(|m| vec![m.clone()]).collect()).collect(),
            deterministic: self.deterministic.clone(),
            reps: 1,
            exact: true,
        }
    }

    /// fairway's value of a quantity: exact for deterministic runs, else the mean over the seeds
    /// with its 95% confidence interval inside `bounds`.
    pub fn value(&self, e: &Estimate, bounds: Bounds) -> Value {
        if self.exact {
            Value::exact(e.mean)
        } else {
            Value::of(e, bounds)
        }
    }

    pub fn runs(&self, t: &str, c: Change) -> &[Measure] {
        let i = TRANSPORTS.iter().position(|x| *x == t).expect("a transport");
        let j = Change::ALL.iter().position(|x| *x == c).expect("a change");
        &self.m[i][j]
    }

    /// A quantity of one run over the seeds.
    pub fn est(&self, t: &str, c: Change, f: impl Fn(&Measure) -> f64) -> Estimate {
        Estimate::of(self.runs(t, c).iter().map(f))
    }

    /// The difference f(a) - f(b) over the seeds, run by run.
    pub fn diff(&self, a: (&str, Change), b: (&str, Change), f: impl Fn(&Measure) -> f64) -> Estimate {
        Estimate::of(self.runs(a.0, a.1).iter().zip(self.runs(b.0, b.1)).map(|(x, y)| f(x) - f(y)))
    }

    /// f(run a, run b) over the seeds, run by run.
    pub fn pair(&self, a: (&str, Change), b: (&str, Change), f: impl Fn(&Measure, &Measure) -> f64) -> Estimate {
        Estimate::of(self.runs(a.0, a.1).iter().zip(self.runs(b.0, b.1)).map(|(x, y)| f(x, y)))
    }

    /// The run without the random wait.
    pub fn deterministic(&self, t: &str, c: Change) -> &Measure {
        let i = TRANSPORTS.iter().position(|x| *x == t).expect("a transport");
        let j = Change::ALL.iter().position(|x| *x == c).expect("a change");
        &self.deterministic[i][j]
    }

    /// The first seed's run, for the figures.
    pub fn first(&self, t: &str, c: Change) -> Option<&Measure> {
        self.runs(t, c).first()
    }
}

pub fn reproduce(opts: &ReproduceOptions, progress: &mut dyn FnMut(&str)) -> Result<PathBuf, ReproduceError> {
    report::write_all(&measure(opts, progress)?, opts)
}

/// Runs the grid (and each run once more without the random wait) and measures it.
pub fn measure(opts: &ReproduceOptions, progress: &mut dyn FnMut(&str)) -> Result<Results, ReproduceError> {
    let (mut m, mut deterministic) = (vec![], vec![]);
    let one = ReproduceOptions { reps: 1, ..opts.clone() };
    for t in TRANSPORTS {
        let (file, text) = scenario_text(opts, PAPER, t)?;
        let (mut per_change, mut det) = (vec![], vec![]);
        for c in Change::ALL {
            let label = format!("{t}-{}", c.stem());
            let runs = run_text(opts, &label, &file, &c.apply(&text), true, progress)?;
            per_change
                .push(runs.results.iter().map(|r| Measure::of(r.as_ref().expect("the runs were kept"), c)).collect());
            let label = format!("{t}-{}-no-wait", c.stem());
            let runs = run_text(&one, &label, &file, &without_jitter(&c.apply(&text)), true, progress)?;
            det.push(Measure::of(runs.results[0].as_ref().expect("the run was kept"), c));
        }
        m.push(per_change);
        deterministic.push(det);
    }
    Ok(Results { m, deterministic, reps: opts.reps, exact: false })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_is_built_in_and_each_change_reads() {
        for t in TRANSPORTS {
            let text = super::super::embedded::file(PAPER, t).unwrap_or_else(|| panic!("{t}"));
            for c in Change::ALL {
                let sc = fairway_scenario::parse_scenario(t, &c.apply(text), "x").unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(sc.flows.len(), 3);
                let (rate, delay, limit) = c.bottleneck();
                let l = &sc.links[0];
                assert_eq!(l.rate.0 as f64, rate * 1e6, "{c:?}");
                assert_eq!(l.delay.as_secs_f64(), delay / 1e3, "{c:?}");
                assert!(format!("{:?}", l.queue).contains(&format!("limit: Packets({limit})")), "{:?}", l.queue);
            }
        }
    }

    /// TCP limited by its window of 20 packets sends the same stream in any simulator: without
    /// the random wait fairway's runs are ns-2's (the built-in reference) within 1% per client
    /// wherever the window, not the queue, limits (every run but the default's). And the
    /// report and its 31 claims under each of the two readings are written.
    #[test]
    fn window_limited_tcp_is_ns2s_and_the_report_is_written() {
        let dir = std::env::temp_dir().join(format!("fairway-dccp-ns2-{}", std::process::id()));
        let opts = ReproduceOptions { reps: 2, ..ReproduceOptions::new(dir.clone()) };
        std::fs::create_dir_all(&dir).unwrap();
        let r = measure(&opts, &mut |_| {}).unwrap();
        let ns2 = ns2_reference::Reference::load();
        for c in [Change::Queue100, Change::Rate20, Change::Delay10, Change::Delay50] {
            let n = &ns2.runs("tcp", c.stem(), false)[0];
            let f = r.deterministic("tcp", c);
            for k in 0..3 {
                let rel = f.mean_bps[k] / n.mean_bps[k] - 1.0;
                assert!(rel.abs() < 0.01, "{c:?} client {}: {} vs {}", k + 1, f.mean_bps[k], n.mean_bps[k]);
            }
        }
        // An RFC 4342 CCID3 does not stall at 50 ms (ns-2's does, by its nonce check).
        assert_eq!(r.est("ccid3", Change::Delay50, |m| m.stalled as f64).max, 0.0);
        report::write_all(&r, &opts).unwrap();
        let csv = std::fs::read_to_string(dir.join("claims.csv")).unwrap();
        let rows = super::super::claims::read_csv(&csv).unwrap();
        assert_eq!(rows.len(), 62, "31 claims under each reading");
        // The primary reading, counted, is the deterministic run: values without an interval.
        for (i, row) in rows.iter().enumerate() {
            let primary = i < 31;
            assert_eq!(row["counted"], if primary { "yes" } else { "no" }, "row {}", i + 1);
            let want = if primary { claims::NO_WAIT } else { claims::JITTERED };
            assert_eq!(row["reading"], want, "row {}", i + 1);
            if primary && row["rule"] == "words" && row["fairway_mean"] != "NaN" {
                assert_eq!(row["fairway_lo"], row["fairway_hi"], "row {}: {}", i + 1, row["claim"]);
            }
        }
        assert!(std::fs::read_to_string(dir.join("report.md")).unwrap().contains("## ns-2.35's runs of the same grid"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_measures_of_a_known_series() {
        assert!((cv(&[1.0, 1.0, 1.0]) - 0.0).abs() < 1e-12);
        assert!((cv(&[1.0, 3.0]) - 2f64.sqrt() / 2.0).abs() < 1e-12);
        // A sawtooth of period 5 s.
        let saw: Vec<f64> = (0..35).map(|k| (k % 5) as f64).collect();
        assert_eq!(dominant_period(&saw), Some(5.0));
        assert_eq!(dominant_period(&[2.0; 35]), None);
    }
}
