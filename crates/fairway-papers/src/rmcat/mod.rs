//! `fairway suite rmcat`: RFC 8867's test cases (scenarios/rfc8867/, built in) run with each
//! RMCAT controller (NADA, SCReAM, GCC) over several seeds, with RFC 8868 §3's measures per case
//! and controller ([`measures`]), a report per case (rates against the bottleneck's capacity
//! over time, delay over time and its distribution) and a summary table of cases by controller
//! (report.md, report.html and summary.csv).
//!
//! A case's media flows are its `transport = "rtp"` flows; the suite sets their `cc` to each
//! controller in turn (a case file names one, which the suite overrides). A flow's `prio` is
//! valid for every controller when the flow is coupled (`couple`, RFC 8699's flow state
//! exchange: §6.1's case couples its video flows) and for NADA alone otherwise (its PRIO): a
//! controller that cannot take an uncoupled flow's `prio` runs the case without it, and the
//! report says so. The bottleneck whose capacity the measures divide by is
//! the case's first monitored link (`[monitor] links`).

pub mod ecn;
pub mod measures;
mod report;

use std::path::PathBuf;

use toml_edit::{value, DocumentMut};

use fairway_model::delay_hist::DelayHist;
use fairway_model::results::RunResult;
use fairway_model::scenario::Scenario;

use crate::{run_text, ReproduceError, ReproduceOptions};

/// The controllers the suite knows, in its order.
pub const CONTROLLERS: &[&str] = &["nada", "scream", "gcc"];

/// What `fairway suite rmcat` runs.
#[derive(Debug, Clone)]
pub struct SuiteOptions {
    /// Where the case files come from (`scenarios`: `<dir>/rfc8867/<case>.toml`), where the
    /// reports go, the seeds.
    pub base: ReproduceOptions,
    /// The controllers, each one of [`CONTROLLERS`].
    pub controllers: Vec<String>,
    /// The cases by file stem; empty: all.
    pub cases: Vec<String>,
    /// Runs each case also with ECN (ecn.rs), as RFC 8867 §6.2 asks of "all the basic test
    /// cases", and with the same marking queue dropping instead, the "delay-based variant" §6.2
    /// compares with: variants "ECN" and "CoDel" beside each of its own (not of a case already
    /// ECN-capable).
    pub ecn: bool,
}

/// The case files' stems, built in, in section order.
pub fn cases() -> Vec<&'static str> {
    crate::embedded::stems("rfc8867")
}

/// One run's measures: the case's media flows together.
#[derive(Debug, Clone, Default)]
pub struct Measures {
    /// The media flows' mean throughput at their receivers, b/s.
    pub media_rate_bps: f64,
    /// What the bottleneck carried (every flow's packets) over its capacity, over 1 s windows
    /// while any media flow runs (RFC 8867 §4.1's bandwidth utilisation).
    pub utilisation: Option<f64>,
    /// Their packets' one-way delay: the mean, and percentiles of all their packets together.
    pub delay_mean_s: Option<f64>,
    pub delay_p50_s: Option<f64>,
    pub delay_p95_s: Option<f64>,
    pub delay_p99_s: Option<f64>,
    /// Their packets lost (dropped or lost on the wire) over those sent.
    pub loss: f64,
    /// Their feedback bytes over media bytes received, averaged over the flows.
    pub feedback_overhead: f64,
    /// Jain's index over their mean throughputs (two or more flows).
    pub jain: Option<f64>,
    /// The mean convergence time over the (flow, period) pairs that converged, and how many of
    /// the pairs did, of how many.
    pub convergence_s: Option<f64>,
    pub converged: usize,
    pub periods: usize,
}

/// One case run with one controller: its measures per seed, and the first seed's run for the
/// figures.
pub struct CaseRun {
    pub case: String,
    /// The values of the case's own sweep keys this run took (empty: the case has none).
    pub variant: String,
    pub controller: String,
    pub seeds: Vec<u64>,
    pub measures: Vec<Measures>,
    pub first: RunResult,
    pub scenario: Scenario,
    /// The case set `prio` on an uncoupled flow, which this controller does not take: it ran
    /// without it.
    pub prio_dropped: bool,
}

/// The case's text with every RTP flow's `cc` set to `cc`; true if a `prio` was dropped: an
/// uncoupled flow's, for a controller other than NADA (a coupled flow's priority is its FSE's,
/// valid for every controller).
pub fn with_controller(text: &str, cc: &str) -> Result<(String, bool), String> {
    let mut doc: DocumentMut = text.parse().map_err(|e| format!("{e}"))?;
    let mut dropped = false;
    if let Some(flows) = doc.get_mut("flow").and_then(|f| f.as_array_of_tables_mut()) {
        for f in flows.iter_mut() {
            if f.get("transport").and_then(|t| t.as_str()) == Some("rtp") {
                f.insert("cc", value(cc));
                if cc != "nada" && !f.contains_key("couple") && f.remove("prio").is_some() {
                    dropped = true;
                }
            }
        }
    }
    Ok((doc.to_string(), dropped))
}

/// Runs the suite; returns the summary report's path. `progress` hears each case and
/// controller as it starts.
pub fn run_suite(opts: &SuiteOptions, progress: &mut dyn FnMut(&str)) -> Result<PathBuf, ReproduceError> {
    for c in &opts.controllers {
        if !CONTROLLERS.contains(&c.as_str()) {
            return Err(ReproduceError::NotInSuite(format!(
                "no controller `{c}` in the rmcat suite; known: {}",
                CONTROLLERS.join(", ")
            )));
        }
    }
    let all = cases();
    let chosen: Vec<String> = if opts.cases.is_empty() {
        all.iter().map(|s| s.to_string()).collect()
    } else {
        for c in &opts.cases {
            if !all.contains(&c.as_str()) {
                return Err(ReproduceError::NotInSuite(format!(
                    "no case `{c}` in the rmcat suite; known: {}",
                    all.join(", ")
                )));
            }
        }
        opts.cases.clone()
    };
    let out = &opts.base.out;
    std::fs::create_dir_all(out).map_err(|e| ReproduceError::Io(out.clone(), e))?;
    let mut runs = vec![];
    for case in &chosen {
        let mut case_runs = vec![];
        for cc in &opts.controllers {
            case_runs.extend(run_case(&opts.base, case, cc, progress)?);
            if opts.ecn {
                for ecn in [true, false] {
                    case_runs.extend(run_case_with(&opts.base, case, cc, Some(ecn), progress)?);
                }
            }
        }
        report::write_case(&opts.base, case, &case_runs)?;
        runs.extend(case_runs);
    }
    report::write_summary(&opts.base, &runs)
}

/// Runs one case with one controller over the seeds: a [`CaseRun`] per variant of the case's
/// own sweep.
pub fn run_case(
    opts: &ReproduceOptions,
    case: &str,
    cc: &str,
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<CaseRun>, ReproduceError> {
    run_case_with(opts, case, cc, None, progress)
}

/// [`run_case`], or with `codel` the case with CoDel at its RTP flows' bottlenecks (ecn.rs),
/// `Some(true)` marking ECN-capable flows, `Some(false)` dropping (none for a case already
/// ECN-capable), each variant's name led by "ECN" or "CoDel" and its runs under
/// `<case>/<cc>-ecn` or `<case>/<cc>-codel`.
pub fn run_case_with(
    opts: &ReproduceOptions,
    case: &str,
    cc: &str,
    codel: Option<bool>,
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<CaseRun>, ReproduceError> {
    let (file, text) = crate::scenario_text(opts, "rfc8867", case)?;
    let mut case_runs = vec![];
    if codel.is_some() && ecn::is_ecn_case(&text) {
        return Ok(case_runs);
    }
    let label = match codel {
        Some(true) => format!("{case}/{cc}-ecn"),
        Some(false) => format!("{case}/{cc}-codel"),
        None => format!("{case}/{cc}"),
    };
    let fail = |e: String| ReproduceError::Run(label.clone(), run_error(&label, e));
    let (mut text, prio_dropped) = with_controller(&text, cc).map_err(fail)?;
    if let Some(ecn) = codel {
        let sc = fairway_scenario::parse_scenario(&file, &text, case).map_err(|e| fail(e.to_string()))?;
        text = ecn::with_codel(&text, &sc, ecn).map_err(fail)?;
    }
    let r = run_text(opts, &label, &file, &text, true, progress)?;
    // A case's own [sweep] (RFC 8867's alternatives: §5.1's two delays, §5.6's two queue
    // sizes) gives variants, each run over the seeds; the seed is the sweep's last axis.
    let seed_key = r.sweep.keys.len() - 1;
    let mut variants: Vec<(Vec<String>, Vec<usize>)> = vec![];
    for (i, p) in r.sweep.points.iter().enumerate() {
        let key = p.values[..seed_key].to_vec();
        match variants.iter_mut().find(|v| v.0 == key) {
            Some(v) => v.1.push(i),
            None => variants.push((key, vec![i])),
        }
    }
    let mut results: Vec<Option<RunResult>> = r.results;
    for (values, points) in variants {
        let scenario = r.sweep.build(points[0])?.scenario;
        let mut names: Vec<String> = values.iter().zip(&r.sweep.keys).map(|(v, k)| format!("{k} = {v}")).collect();
        match codel {
            Some(true) => names.insert(0, "ECN".to_string()),
            Some(false) => names.insert(0, "CoDel".to_string()),
            None => {}
        }
        let variant = names.join(", ");
        let mut measures = vec![];
        let mut first = None;
        for &i in &points {
            let res = results[i].take().expect("the suite keeps its runs");
            measures.push(measure(&scenario, &res));
            first.get_or_insert(res);
        }
        case_runs.push(CaseRun {
            case: case.to_string(),
            variant,
            controller: cc.to_string(),
            seeds: opts.seeds(),
            measures,
            first: first.expect("at least one seed"),
            scenario,
            prio_dropped,
        });
    }
    Ok(case_runs)
}

fn run_error(label: &str, e: String) -> fairway_engine::SimError {
    fairway_engine::SimError::App(label.to_string(), e)
}

/// The bottleneck: the case's first monitored link (`[monitor] links` as written, or the
/// first core link); its capacity as a step function (from s, b/s).
pub fn bottleneck(sc: &Scenario) -> Option<(usize, Vec<(f64, f64)>)> {
    let i = *sc.monitor.links.first()?;
    let l = &sc.links[i];
    let steps = match l.schedule.as_deref() {
        Some(s) if !s.rate.is_empty() => s.rate.iter().map(|(t, r)| (t.as_secs_f64(), r.as_bps_f64())).collect(),
        _ => vec![(0.0, l.rate.as_bps_f64())],
    };
    Some((i, steps))
}

/// The media flows' indices: their transport is RTP.
pub fn media_flows(res: &RunResult) -> Vec<usize> {
    res.summary.flows.iter().enumerate().filter(|(_, f)| f.transport == "rtp").map(|(i, _)| i).collect()
}

/// Flow `i`'s rate over 1 s windows: (window start, b/s).
pub fn window_rates(res: &RunResult, i: usize) -> Vec<(f64, f64)> {
    let bin = res.bin.as_secs_f64();
    let bins: Vec<(f64, f64)> =
        res.flow_bins[i].iter().enumerate().map(|(k, b)| (k as f64 * bin, b.distinct_bytes as f64)).collect();
    measures::windows(&bins, bin, measures::WINDOW_S)
}

/// What left a link's queue over 1 s windows from its samples' cumulative departures: (window
/// start, b/s), each window's bytes the difference of the counters at the last samples at or
/// before its ends.
pub fn link_windows(samples: &[fairway_model::results::QueueRow], end: f64) -> Vec<(f64, f64)> {
    let at = |t: f64| samples.iter().take_while(|r| r.t_s <= t + 1e-9).last().map_or(0, |r| r.departures_bytes);
    let w = measures::WINDOW_S;
    (0..(end / w).floor() as usize)
        .map(|k| {
            let s = k as f64 * w;
            (s, (at(s + w) - at(s)) as f64 * 8.0 / w)
        })
        .collect()
}

/// One run's [`Measures`].
pub fn measure(sc: &Scenario, res: &RunResult) -> Measures {
    let media = media_flows(res);
    let flows = &res.summary.flows;
    let mut m = Measures::default();
    if media.is_empty() {
        return m;
    }
    let n = media.len() as f64;
    m.media_rate_bps = media.iter().map(|&i| flows[i].throughput_bps).sum::<f64>() / n;
    let (sent, lost): (u64, u64) = media.iter().fold((0, 0), |(s, l), &i| {
        (s + flows[i].sent_pkts, l + flows[i].sent_pkts - flows[i].recv_pkts.min(flows[i].sent_pkts))
    });
    m.loss = if sent > 0 { lost as f64 / sent as f64 } else { 0.0 };
    let recv: u64 = media.iter().map(|&i| flows[i].recv_pkts).sum();
    m.delay_mean_s = (recv > 0).then(|| {
        media.iter().map(|&i| flows[i].mean_delay_s.unwrap_or(0.0) * flows[i].recv_pkts as f64).sum::<f64>()
            / recv as f64
    });
    let mut hist = DelayHist::new();
    for &i in &media {
        if let Some(h) = res.delay_hists.get(i) {
            hist.merge(h);
        }
    }
    m.delay_p50_s = hist.quantile_s(0.50);
    m.delay_p95_s = hist.quantile_s(0.95);
    m.delay_p99_s = hist.quantile_s(0.99);
    m.feedback_overhead = media
        .iter()
        .filter_map(|&i| flows[i].protocol.as_ref()?.report.json().get("feedback_overhead")?.as_f64())
        .sum::<f64>()
        / n;
    m.jain = measures::jain(&media.iter().map(|&i| flows[i].throughput_bps).collect::<Vec<_>>());
    let end = res.summary.duration_s;
    if let Some((link, capacity)) = bottleneck(sc) {
        let from = media.iter().map(|&i| flows[i].start_s).fold(f64::INFINITY, f64::min);
        let to = media.iter().map(|&i| flows[i].stop_s).fold(0.0, f64::max);
        if let Some((_, samples)) = res.queue_samples.iter().find(|(l, _)| *l == link) {
            m.utilisation = measures::utilisation(&link_windows(samples, end), &capacity, from, to);
        }
    }
    // Each flow's convergence is in the summary: the mean over the (flow, period) pairs that
    // converged is the flows' means weighted by how many each converged in.
    m.periods = media.iter().map(|&i| flows[i].convergence_periods as usize).sum();
    m.converged = media.iter().map(|&i| flows[i].converged_periods as usize).sum();
    let total: f64 =
        media.iter().map(|&i| flows[i].convergence_s.unwrap_or(0.0) * flows[i].converged_periods as f64).sum();
    m.convergence_s = (m.converged > 0).then(|| total / m.converged as f64);
    m
}
