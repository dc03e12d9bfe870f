//! elaarag2002 (ElAarag & Bassiouni 2002, IFTP): the experiments of its §6 and the extended mode of
//! §3.2, each a sweep of a file in scenarios/elaarag2002/ run over several seeds, measured here,
//! checked claim by claim in [`claims`] and written up by [`report`].

pub mod claims;
pub mod model_claims;
mod report;

use std::path::PathBuf;

use super::{run_grid, run_text, scenario_text, ReproduceError, ReproduceOptions, Runs};
use fairway_model::results::{FlowSummary, Summary};
use fairway_report::stats::Estimate;

pub const PAPER: &str = "elaarag2002";

/// elaarag2002 Table I: mean and standard deviation of G for the two IFTP sources, ms.
pub const PAPER_TABLE1: [(f64, f64); 2] = [(22.98, 4.01), (23.75, 4.86)];
/// elaarag2002 Table II: UDP rate (as the sweep writes it) and packets lost per source: UDP, IFTP,
/// TCP.
pub const PAPER_TABLE2: [(&str, f64, f64, f64); 6] = [
    ("1.8Mb", 3760.0, 16.0, 16.0),
    ("1.2Mb", 3573.0, 30.0, 16.0),
    ("0.9Mb", 3353.0, 16.0, 17.0),
    ("0.6Mb", 2882.0, 25.0, 25.0),
    ("0.3Mb", 1545.0, 15.0, 28.0),
    ("0.16Mb", 238.0, 11.0, 12.0),
];
/// elaarag2002 Table III: (delay, jitter) in ms of IFTP and of UDP.
pub const PAPER_TABLE3: [(f64, f64); 2] = [(541.05, 105.42), (990.0, 125.45)];
/// elaarag2002 Table IV: (bottleneck as swept, delay as swept, TCP Mb/s, IFTP Mb/s, utilisation %),
/// per source.
pub const PAPER_TABLE4: [(&str, &str, f64, f64, f64); 6] = [
    ("0.5Mb", "0.003ms", 0.2, 0.06, 100.0),
    ("1.0Mb", "0.003ms", 0.45, 0.05, 100.0),
    ("1.5Mb", "0.003ms", 0.207, 0.38, 100.0),
    ("0.5Mb", "3ms", 0.19, 0.03, 86.0),
    ("1.0Mb", "3ms", 0.212, 0.156, 73.4),
    ("1.5Mb", "3ms", 0.41, 0.07, 60.0),
];

/// The readings of Tables II and III: (file stem, what it assumes).
pub const TABLE2_READINGS: [(&str, &str); 4] = [
    ("table2-3", "as stated: a 50-packet buffer"),
    ("table2-3-buffer", "a 125-packet buffer, fitted to Table III's IFTP delay"),
    ("table2-3-frames", "UDP sent in 40 ms frames of back-to-back packets"),
    ("table2-3-noreset", "IFTP's timer backoff never ends"),
];

/// Which sources a measure is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Iftp,
    Tcp,
    Udp,
}

impl Kind {
    fn of(f: &FlowSummary) -> Option<Kind> {
        match f.kind {
            "iftp" => Some(Kind::Iftp),
            "cbr" => Some(Kind::Udp),
            _ if f.class == "tcp" => Some(Kind::Tcp),
            _ => None,
        }
    }
}

/// The mean over one run's flows of a kind of `v` (NaN when it has none).
pub fn per_source(s: &Summary, kind: Kind, v: impl Fn(&FlowSummary) -> f64) -> f64 {
    let xs: Vec<f64> = s.flows.iter().filter(|f| Kind::of(f) == Some(kind)).map(v).collect();
    if xs.is_empty() {
        f64::NAN
    } else {
        xs.iter().sum::<f64>() / xs.len() as f64
    }
}

/// A source's timeouts: TCP's retransmission timer, or IFTP's (its own report; a flow's
/// `timeouts` counts TCP's only).
pub fn timeouts(f: &FlowSummary) -> f64 {
    if Kind::of(f) == Some(Kind::Iftp) {
        f.report::<fairway_scenario::protocols::IftpSummary>().map_or(f64::NAN, |x| x.timeouts as f64)
    } else {
        f.timeouts as f64
    }
}

/// Bytes sent x 8 over the active time: the bandwidth "at the source" of Fig. 5 (retransmissions
/// and headers included, as a source puts them on the wire).
pub fn at_source(f: &FlowSummary) -> f64 {
    let t = f.stop_s - f.start_s;
    if t > 0.0 {
        f.sent_bytes as f64 * 8.0 / t
    } else {
        0.0
    }
}

/// The estimate over seeds of `v` at the points `at`.
pub fn est(r: &Runs, at: &[(&str, &str)], v: impl Fn(&Summary) -> f64) -> Estimate {
    Estimate::of(r.at(at).into_iter().map(v))
}

/// Delay and delay jitter of a kind over a set of runs (one seed, all UDP rates), pooled over
/// their packets as Table III pools them over "the arrival rate range": the mean delay of all
/// packets received, and the standard deviation of all of them (within-run variances plus the
/// spread of the runs' means), in seconds.
pub fn pooled_delay(runs: &[&Summary], kind: Kind) -> (f64, f64) {
    let flows: Vec<(f64, f64, f64)> = runs
        .iter()
        .flat_map(|s| s.flows.iter())
        .filter(|f| Kind::of(f) == Some(kind))
        .filter_map(|f| Some((f.recv_pkts as f64, f.mean_delay_s?, f.delay_sd_s.unwrap_or(0.0))))
        .filter(|(n, _, _)| *n > 0.0)
        .collect();
    let n: f64 = flows.iter().map(|f| f.0).sum();
    if n == 0.0 {
        return (f64::NAN, f64::NAN);
    }
    let mean = flows.iter().map(|(k, m, _)| k * m).sum::<f64>() / n;
    let var = flows.iter().map(|(k, m, s)| k * (s * s + (m - mean) * (m - mean))).sum::<f64>() / n;
    (mean, var.sqrt())
}

/// Every experiment's runs.
pub struct Results {
    pub fig5: Runs,
    pub fig6: Runs,
    pub fig6_newreno: Runs,
    /// TCP Reno in IFTP's slots (scenarios/validation/elaarag2002-fig6-reno.toml).
    pub fig6_reno: Runs,
    /// One per [`TABLE2_READINGS`], in its order.
    pub table23: Vec<Runs>,
    pub table4: Runs,
    pub extended: Runs,
    /// §5's model against the sender (scenarios/elaarag2002/section5-*.toml).
    pub model: model_claims::ModelRuns,
    /// The experiments with IFTP in them again, the sender run as Fig. 1's pseudocode reads
    /// ([`FIGURE1_FILES`]).
    pub figure1: Figure1Runs,
}

/// The runs of the Fig. 1 reading: the stated set-up, IFTP's sender as Fig. 1 has it.
pub struct Figure1Runs {
    pub fig6: Runs,
    pub table23: Runs,
    pub table4: Runs,
    pub extended: Runs,
}

/// The files run again under the Fig. 1 reading: every one of the stated set-up with IFTP in it.
pub const FIGURE1_FILES: [&str; 4] = ["fig6-table1", "table2-3", "table4", "extended"];

/// The scenario text with every IFTP flow's sender run as Fig. 1's pseudocode reads
/// (`reading = "figure1"`; docs/scenarios.md).
pub fn as_figure1(text: &str) -> String {
    let Ok(mut doc) = text.parse::<toml_edit::DocumentMut>() else { return text.to_string() };
    if let Some(flows) = doc.get_mut("flow").and_then(|f| f.as_array_of_tables_mut()) {
        for f in flows.iter_mut().filter(|f| f.get("app").and_then(|a| a.as_str()) == Some("iftp")) {
            f.insert("reading", toml_edit::value("figure1"));
        }
    }
    if let Some(name) = doc.get("name").and_then(|n| n.as_str()).map(|n| format!("{n}-figure1")) {
        doc["name"] = toml_edit::value(name);
    }
    doc.to_string()
}

pub fn run_all(opts: &ReproduceOptions, progress: &mut dyn FnMut(&str)) -> Result<Results, ReproduceError> {
    let mut figure1 = vec![];
    for stem in FIGURE1_FILES {
        let (file, text) = scenario_text(opts, PAPER, stem)?;
        figure1.push(run_text(opts, &format!("{stem}-figure1"), &file, &as_figure1(&text), false, progress)?);
    }
    let mut figure1 = figure1.into_iter();
    let mut next = || figure1.next().expect("one per file");
    let figure1 = Figure1Runs { fig6: next(), table23: next(), table4: next(), extended: next() };
    let mut go = |paper: &str, stem: &str| run_grid(opts, paper, stem, false, progress);
    let table23 = TABLE2_READINGS.iter().map(|(stem, _)| go(PAPER, stem)).collect::<Result<Vec<_>, _>>()?;
    let model = model_claims::ModelRuns {
        ideal: go(PAPER, "section5-ideal")?,
        loss: go(PAPER, "section5-loss")?,
        worst: go(PAPER, "section5-worst")?,
    };
    Ok(Results {
        model,
        figure1,
        fig5: go(PAPER, "fig5")?,
        fig6: go(PAPER, "fig6-table1")?,
        fig6_newreno: go(PAPER, "fig6-newreno")?,
        fig6_reno: go("validation", "elaarag2002-fig6-reno")?,
        table23,
        table4: go(PAPER, "table4")?,
        extended: go(PAPER, "extended")?,
    })
}

/// IFTP's bandwidth over TCP's per seed, each the mean per source (Fig. 6, extended mode).
pub fn share_ratio(r: &Runs, at: &[(&str, &str)]) -> Estimate {
    est(r, at, |s| per_source(s, Kind::Iftp, |f| f.throughput_bps) / per_source(s, Kind::Tcp, |f| f.throughput_bps))
}

/// In the Reno-in-IFTP's-slots run, the slots' flows are named iftp0 and iftp1: their bandwidth
/// per source over the other two's.
pub fn slot_ratio(r: &Runs) -> Estimate {
    est(r, &[], |s| {
        let bw = |pre: &str| {
            let v: Vec<f64> = s.flows.iter().filter(|f| f.name.starts_with(pre)).map(|f| f.throughput_bps).collect();
            v.iter().sum::<f64>() / v.len().max(1) as f64
        };
        bw("iftp") / bw("tcp")
    })
}

pub fn reproduce(opts: &ReproduceOptions, progress: &mut dyn FnMut(&str)) -> Result<PathBuf, ReproduceError> {
    let res = run_all(opts, progress)?;
    report::write_all(&res, opts)
}
