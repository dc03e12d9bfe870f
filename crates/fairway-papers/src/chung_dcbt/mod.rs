//! chung-dcbt (Chung & Claypool, Dynamic-CBT): §4's simulation of Parris et al.'s CBT experiment
//! (Figures 4-6, [`cbt_validation`]), §5's test of MM_APP and MPEG_APP under RED (Figures 8-9,
//! with and without flow control) and §6-§7's main experiment, RED against CBT against D-CBT
//! with 55 TCP, 10 MM_APP and 2 CBR flows (Figures 10-12: per-class per-flow throughput and
//! Jain's index per 10 s period). Each file of scenarios/chung-dcbt/ runs over the seeds;
//! [`claims`] puts the paper's statements beside fairway's numbers; [`report`] writes them.

pub mod cbt_validation;
pub mod claims;
mod report;

use std::path::PathBuf;

use super::{run_grid, ReproduceError, ReproduceOptions};
use fairway_model::metrics::jain;
use fairway_model::results::RunResult;
use fairway_report::stats::Estimate;

pub const PAPER: &str = "chung-dcbt";

/// §7's periods.
pub const PERIODS: [(f64, f64); 3] = [(0.0, 10.0), (10.0, 20.0), (20.0, 30.0)];
/// §5's averages leave out the first 5 s; the third flow of each kind joins at 15 s.
pub const MM_PERIODS: [(f64, f64); 2] = [(5.0, 15.0), (15.0, 25.0)];

/// The queues of Figures 11 and 12.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Queue {
    Red,
    Cbt,
    Dcbt,
}

impl Queue {
    pub const ALL: [Queue; 3] = [Queue::Red, Queue::Cbt, Queue::Dcbt];

    pub fn stem(self) -> &'static str {
        match self {
            Queue::Red => "fig11-red",
            Queue::Cbt => "fig11-cbt",
            Queue::Dcbt => "fig11-dcbt",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Queue::Red => "RED",
            Queue::Cbt => "CBT",
            Queue::Dcbt => "D-CBT",
        }
    }
}

/// The classes of chung-dcbt §2-3, told apart by the flows' apps: FTP over TCP, MM_APP (tagged,
/// flow-controlled), CBR (untagged).
pub const CLASSES: [&str; 3] = ["TCP", "tagged", "untagged"];

fn class_of(app: &str) -> usize {
    match app {
        "mm_app" | "mpeg_app" | "mapp" => 1,
        "cbr" => 2,
        _ => 0,
    }
}

/// Each flow's throughput over [a, b) (bytes received, distinct, headers included, per second
/// x 8) with its app, for the flows that ran in it.
pub fn flow_rates(r: &RunResult, a: f64, b: f64) -> Vec<(&'static str, f64)> {
    let bin = r.bin.as_secs_f64();
    let mut out = vec![];
    for (f, bins) in r.summary.flows.iter().zip(&r.flow_bins) {
        if f.start_s >= b || f.stop_s <= a {
            continue;
        }
        let bytes: u64 = bins
            .iter()
            .enumerate()
            .filter(|(k, _)| {
                let t = *k as f64 * bin;
                t >= a - 1e-9 && t < b - 1e-9
            })
            .map(|(_, row)| row.distinct_bytes)
            .sum();
        out.push((f.kind, bytes as f64 * 8.0 / (b - a)));
    }
    out
}

/// One period of one run of the main experiment: the average per-flow throughput of each class
/// (§7: "an average aggregated class throughput divided by the number of flows in the class";
/// `None` for a class with no flow in the period) and Jain's index over every flow (§7, [11]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PeriodMeasure {
    pub per_flow_bps: [Option<f64>; 3],
    pub jain: f64,
}

impl PeriodMeasure {
    pub fn of(r: &RunResult, a: f64, b: f64) -> PeriodMeasure {
        let rates = flow_rates(r, a, b);
        let mut sum = [0.0; 3];
        let mut n = [0usize; 3];
        for (app, x) in &rates {
            let c = class_of(app);
            sum[c] += x;
            n[c] += 1;
        }
        let xs: Vec<f64> = rates.iter().map(|(_, x)| *x).collect();
        PeriodMeasure {
            per_flow_bps: std::array::from_fn(|c| (n[c] > 0).then(|| sum[c] / n[c] as f64)),
            jain: jain(&xs).unwrap_or(f64::NAN),
        }
    }

    /// The largest class per-flow throughput over the smallest: 1 when the classes are served
    /// alike per flow.
    pub fn class_spread(&self) -> f64 {
        let v: Vec<f64> = self.per_flow_bps.iter().flatten().copied().collect();
        let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let min = v.iter().copied().fold(f64::INFINITY, f64::min);
        max / min
    }
}

/// §5's measures of one period of one run: the average per-flow throughput of FTP, MM_APP and
/// MPEG_APP flows.
pub fn mm_measure(r: &RunResult, a: f64, b: f64) -> [f64; 3] {
    let rates = flow_rates(r, a, b);
    std::array::from_fn(|k| {
        let app = ["ftp", "mm_app", "mpeg_app"][k];
        let v: Vec<f64> = rates.iter().filter(|(x, _)| *x == app).map(|(_, y)| *y).collect();
        v.iter().sum::<f64>() / v.len().max(1) as f64
    })
}

/// Every measure, per seed.
pub struct Results {
    /// Per queue (Queue::ALL order), per seed, per period.
    pub main: Vec<Vec<[PeriodMeasure; 3]>>,
    /// Per run (flow control, then without), per seed, per period: [FTP, MM_APP, MPEG_APP].
    pub mm: [Vec<[[f64; 3]; 2]>; 2],
    /// §4: per queue (RED, CBT), per seed.
    pub fig6: [Vec<cbt_validation::Fig6Measure>; 2],
    pub reps: usize,
}

impl Results {
    /// A quantity of the main experiment over the seeds.
    pub fn est(&self, q: Queue, f: impl Fn(&[PeriodMeasure; 3]) -> f64) -> Estimate {
        let i = Queue::ALL.iter().position(|x| *x == q).expect("a queue of ALL");
        Estimate::of(self.main[i].iter().map(f))
    }

    /// The difference a - b over the seeds (the runs of one seed share their traffic).
    pub fn diff(&self, a: Queue, b: Queue, f: impl Fn(&[PeriodMeasure; 3]) -> f64) -> Estimate {
        let (i, j) = (
            Queue::ALL.iter().position(|x| *x == a).expect("a queue of ALL"),
            Queue::ALL.iter().position(|x| *x == b).expect("a queue of ALL"),
        );
        Estimate::of(self.main[i].iter().zip(&self.main[j]).map(|(x, y)| f(x) - f(y)))
    }
}

fn kept(runs: &super::Runs) -> impl Iterator<Item = &RunResult> {
    runs.results.iter().map(|r| r.as_ref().expect("the runs were kept"))
}

pub fn reproduce(opts: &ReproduceOptions, progress: &mut dyn FnMut(&str)) -> Result<PathBuf, ReproduceError> {
    let mut fig6: [Vec<cbt_validation::Fig6Measure>; 2] = [vec![], vec![]];
    for (k, stem) in cbt_validation::STEMS.iter().enumerate() {
        let runs = run_grid(opts, PAPER, stem, true, progress)?;
        fig6[k] = kept(&runs).map(cbt_validation::Fig6Measure::of).collect();
    }
    let mut main = vec![];
    for q in Queue::ALL {
        let runs = run_grid(opts, PAPER, q.stem(), true, progress)?;
        main.push(kept(&runs).map(|r| PERIODS.map(|(a, b)| PeriodMeasure::of(r, a, b))).collect());
    }
    let mut mm: [Vec<[[f64; 3]; 2]>; 2] = [vec![], vec![]];
    for (k, stem) in ["fig9-flow-control", "fig9-no-flow-control"].iter().enumerate() {
        let runs = run_grid(opts, PAPER, stem, true, progress)?;
        mm[k] = kept(&runs).map(|r| MM_PERIODS.map(|(a, b)| mm_measure(r, a, b))).collect();
    }
    let r = Results { main, mm, fig6, reps: opts.reps };
    report::write_all(&r, opts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_is_built_in_and_reads() {
        let others = ["fig9-flow-control", "fig9-no-flow-control", "fig6-red", "fig6-cbt"];
        for stem in Queue::ALL.map(Queue::stem).iter().chain(&others) {
            let text = super::super::embedded::file(PAPER, stem).unwrap_or_else(|| panic!("{stem}"));
            let sc = fairway_scenario::parse_scenario(stem, text, "x").unwrap_or_else(|e| panic!("{e}"));
            assert!(!sc.flows.is_empty());
        }
    }

    #[test]
    fn class_spread_and_classes() {
        let m = PeriodMeasure { per_flow_bps: [Some(100.0), Some(200.0), None], jain: 1.0 };
        assert_eq!(m.class_spread(), 2.0);
        assert_eq!((class_of("ftp"), class_of("mm_app"), class_of("cbr")), (0, 1, 2));
    }
}
