//! `fairway run`: one scenario run into its results folder, with its traces if asked; with
//! `--reps`, the run at several seeds and each figure's mean and confidence interval over them.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use fairway_core::Time;
use fairway_engine::RunOptions;
use fairway_model::packet_trace::PacketOp;
use fairway_report::output;
use fairway_report::output::folder::Staged;
use fairway_report::output::packet_files::PacketOutputs;
use fairway_report::output::stream::StreamWriter;
use fairway_scenario::{estimate, sweep};

use crate::scenario_file::{fits, has_sweep, load, read_scenario};
use crate::sweep::{folder_page, run_points};
use crate::{interrupt, Failure};

/// What `fairway run --trace` can trace.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum TraceKind {
    /// Senders' congestion-control state at every change (trace-agents.csv).
    Agents,
    /// Every packet event on the wired links, in ns-2's trace format (trace.tr).
    Packets,
    /// The packets leaving a link's queue, as a pcap per link (trace-<from>-<to>.pcap).
    Pcap,
}

/// A packet event `--trace-event` keeps (ns-2's letter in brackets).
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum TraceEvent {
    /// Offered to a queue (+).
    Enqueue,
    /// Leaves the queue for the wire (-).
    Dequeue,
    /// Reaches the link's far end (r).
    Receive,
    /// Thrown away by the queue or lost on the wire (d).
    Drop,
}

/// What a run traces, from the command line.
pub(crate) struct TraceArgs {
    pub(crate) kinds: Vec<TraceKind>,
    pub(crate) flows: Vec<String>,
    pub(crate) links: Vec<String>,
    pub(crate) events: Vec<TraceEvent>,
    pub(crate) limit: u64,
}

pub(crate) fn run(
    file: &Path,
    out: Option<PathBuf>,
    seed: Option<u64>,
    quiet: bool,
    trace: &TraceArgs,
    figures: &output::Figures,
) -> Result<(), Failure> {
    let sc = load(file)?;
    output::convert::available(&figures.formats).map_err(Failure::Input)?;
    let trace_agents = if trace.kinds.contains(&TraceKind::Agents) { traced_flows(&sc, &trace.flows)? } else { vec![] };
    let packets = match packet_outputs(&sc, trace)? {
        Some(mut p) => {
            if !trace.flows.is_empty() {
                p.flows = traced_flows(&sc, &trace.flows)?;
            }
            Some(p)
        }
        None => None,
    };
    if !quiet && has_sweep(file) {
        eprintln!(
            "note: {} has a [sweep] table, ignored here: this runs its base values (`fairway sweep` runs the grid)",
            file.display()
        );
    }
    let out = out.unwrap_or_else(|| PathBuf::from("out").join(&sc.name));
    fits(file, &sc, &out)?;
    if !quiet {
        long_run_note(&sc);
    }
    // The folder is checked (and its hidden twin made) before the run, not after it.
    let staged = Staged::begin(&out).map_err(|e| Failure::Input(e.to_string()))?;
    let started = Instant::now();
    let show = !quiet && std::io::stderr().is_terminal();
    let total = sc.duration.as_secs_f64();
    let mut shown = false;
    let mut progress = |t: Time| {
        // A run longer than a second shows progress (docs/architecture.md, "Outputs").
        if show && started.elapsed().as_secs_f64() > 1.0 {
            let frac = (t.as_secs_f64() / total).clamp(0.0, 1.0);
            let n = (frac * 30.0) as usize;
            eprint!(
                "\r  [{}{}] {:>3.0}%  {:.1}/{:.1} s simulated",
                "#".repeat(n),
                ".".repeat(30 - n),
                frac * 100.0,
                t.as_secs_f64(),
                total
            );
            let _ = std::io::stderr().flush();
            shown = true;
        }
    };
    // The command ends soon after the run (see below): the simulator's state is left to the exit.
    let opts = RunOptions {
        seed,
        leave_state: true,
        interrupt: Some(&interrupt::INTERRUPTED),
        trace_agents,
        trace_packets: packets.as_ref().and_then(PacketOutputs::engine_spec),
        ..Default::default()
    };
    // The time series go to their files as the run makes them (memory does not grow with the
    // run's length).
    let kept = if out.exists() { "; the earlier results there are unchanged" } else { "" };
    let mut stream = StreamWriter::create(staged.dir(), &sc)
        .with_context(|| format!("writing results to {}{kept}", out.display()))?;
    if !opts.trace_agents.is_empty() {
        stream
            .trace_agents(staged.dir(), trace.limit)
            .with_context(|| format!("writing results to {}{kept}", out.display()))?;
    }
    if let Some(p) = &packets {
        stream
            .trace_packets(staged.dir(), p, trace.limit)
            .with_context(|| format!("writing results to {}{kept}", out.display()))?;
    }
    let mut res = fairway_engine::run_into(&sc, &opts, &mut progress, &mut stream).context("the run failed")?;
    if shown {
        eprintln!();
    }
    let wall = started.elapsed().as_secs_f64();
    if !res.summary.complete {
        eprintln!(
            "interrupted at {} s of {} s simulated: writing the results so far (summary.json says \"complete\": false)",
            res.summary.duration_s, total
        );
    }
    let traced = stream.finish_trace().with_context(|| format!("writing results to {}{kept}", out.display()))?;
    let written = stream
        .finish(&mut res)
        .and_then(|streamed| {
            let traces: Vec<PathBuf> = traced.iter().map(|t| t.path.clone()).collect();
            output::write_after_stream(&res, &sc, staged.dir(), streamed, &traces, figures)
        })
        .map_err(anyhow::Error::new)
        .and_then(|w| staged.commit().map(|_| w).map_err(anyhow::Error::new))
        .with_context(|| format!("writing results to {}{kept}", out.display()))?;
    if !quiet {
        let s = &res.summary;
        println!(
            "{}: seed {}, {} s simulated, {} events, {:.2} s wall ({:.1} M events/s)",
            s.scenario,
            s.seed,
            s.duration_s,
            s.events,
            wall,
            s.events as f64 / wall.max(1e-9) / 1e6
        );
        if s.measure_from_s > 0.0 {
            println!("figures from {} s on (measure_from): the warm-up before it is left out", s.measure_from_s);
        }
        println!();
        print!("{}", output::table::render(&res));
        println!();
        println!("results in {}/ ({} files: {})", out.display(), written.len(), names(&written));
        for t in traced.iter().filter(|t| t.left_out > 0) {
            let name = t.path.file_name().unwrap_or_default().to_string_lossy();
            let what = if name.ends_with(".csv") { "state changes" } else { "packet events" };
            eprintln!(
                "warning: {name} holds the first {} {what}; {} more were left out (--trace-limit)",
                t.rows, t.left_out
            );
        }
    }
    // The command ends here: with many flows the scenario and the results are tens of
    // thousands of small allocations, which the process's exit returns at once.
    std::mem::forget(res);
    std::mem::forget(sc);
    Ok(())
}

/// A run that may take more than `LONG_RUN_S` says so before it starts. The calibration that
/// prices an event takes some tens of milliseconds, so it is made only for runs of at least 10^9
/// events, which take tens of seconds anyway.
fn long_run_note(sc: &fairway_engine::Scenario) {
    const LONG_RUN_S: f64 = 600.0;
    let events = estimate::events(sc);
    if events < 1e9 {
        return;
    }
    let secs = events * estimate::ns_per_event() * estimate::COST_MARGIN * 1e-9;
    if secs > LONG_RUN_S {
        eprintln!(
            "note: this run may take up to about {} on this machine (at most about {events:.2e} events); Ctrl-C stops it and writes what it has",
            estimate::human_time(secs)
        );
    }
}

fn names(paths: &[PathBuf]) -> String {
    paths.iter().filter_map(|p| p.file_name()?.to_str().map(str::to_string)).collect::<Vec<_>>().join(", ")
}

/// The flows a trace covers (scenario indices): those named, by flow or by [[flow]] entry, or
/// every flow when none is.
fn traced_flows(sc: &fairway_model::scenario::Scenario, names: &[String]) -> Result<Vec<usize>, Failure> {
    sc.flows_named(names).map_err(|(n, known)| {
        Failure::Input(format!("--trace-flow {n}: no flow or [[flow]] entry of that name (flows: {known})"))
    })
}

/// The links a packet trace covers (scenario indices), by their names.
fn traced_links(sc: &fairway_model::scenario::Scenario, names: &[String]) -> Result<Vec<usize>, Failure> {
    let mut v = vec![];
    for n in names {
        let Some(l) = (0..sc.links.len()).find(|&l| sc.link_name(l) == *n) else {
            let mut known: Vec<String> = (0..sc.links.len().min(20)).map(|l| sc.link_name(l)).collect();
            if sc.links.len() > 20 {
                known.push("...".into());
            }
            return Err(Failure::Input(if sc.links.is_empty() {
                format!("--trace-link {n}: the scenario has no wired links")
            } else {
                format!("--trace-link {n}: no link of that name (links: {})", known.join(", "))
            }));
        };
        v.push(l);
    }
    v.sort_unstable();
    v.dedup();
    Ok(v)
}

/// The packet trace's files a run writes, from the command line; `None` when it writes none.
fn packet_outputs(sc: &fairway_model::scenario::Scenario, trace: &TraceArgs) -> Result<Option<PacketOutputs>, Failure> {
    let text = trace.kinds.contains(&TraceKind::Packets);
    let pcap = trace.kinds.contains(&TraceKind::Pcap);
    if !text && !pcap {
        if !trace.links.is_empty() || !trace.events.is_empty() {
            return Err(Failure::Input(
                "--trace-link and --trace-event choose what a packet trace holds: add --trace packets or --trace pcap"
                    .into(),
            ));
        }
        return Ok(None);
    }
    if !text && !trace.events.is_empty() {
        return Err(Failure::Input(
            "--trace-event chooses the events trace.tr holds (a pcap holds the packets leaving the queue): add --trace packets".into(),
        ));
    }
    if sc.links.is_empty() {
        return Err(Failure::Input(
            "--trace packets and --trace pcap cover wired links, and this scenario has none (wireless packet traces are not built yet: docs/not-yet.md)".into(),
        ));
    }
    let links = traced_links(sc, &trace.links)?;
    let pcap_links = if !pcap {
        vec![]
    } else if !links.is_empty() {
        links.clone()
    } else if !sc.monitor.links.is_empty() {
        sc.monitor.links.clone()
    } else {
        return Err(Failure::Input(
            "--trace pcap: name the links to capture with --trace-link FROM->TO (the scenario monitors none)".into(),
        ));
    };
    let ops = trace
        .events
        .iter()
        .map(|e| match e {
            TraceEvent::Enqueue => PacketOp::Enqueue,
            TraceEvent::Dequeue => PacketOp::Dequeue,
            TraceEvent::Receive => PacketOp::Receive,
            TraceEvent::Drop => PacketOp::Drop,
        })
        .collect();
    Ok(Some(PacketOutputs { text, text_links: links, ops, pcap_links, flows: vec![] }))
}

/// `fairway run --reps N`: the scenario's base values at N seeds, run like a sweep's points,
/// then each figure's mean and 95% confidence half-width over them.
pub(crate) fn run_reps(
    file: &Path,
    out: Option<PathBuf>,
    seed: Option<u64>,
    reps: u64,
    jobs: Option<u64>,
    quiet: bool,
) -> Result<(), Failure> {
    let sc = load(file)?;
    let first = seed.unwrap_or(sc.seed);
    if first.checked_add(reps - 1).is_none_or(|last| last > i64::MAX as u64) {
        return Err(Failure::Input(format!("--seed {first} --reps {reps}: the seeds must stay below 2^63")));
    }
    let text = read_scenario(file)?;
    if !quiet && sweep::has_sweep(&text) {
        eprintln!("note: {} has a [sweep] table, ignored here: the replications run its base values", file.display());
    }
    let sw = sweep::replications(&file.display().to_string(), &text, first, reps as usize)
        .map_err(|e| Failure::Input(e.to_string()))?;
    let out = out.unwrap_or_else(|| PathBuf::from("out").join(format!("{}-reps", sc.name)));
    fits(file, &sc, &out)?;
    let staged = Staged::begin(&out).map_err(|e| Failure::Input(e.to_string()))?;
    let jobs = jobs.map_or_else(sweep::default_jobs, |j| j as usize);
    let started = Instant::now();
    let (res, failed) = run_points(&sw, staged.dir(), None, jobs, quiet, started, "the replications failed")?;
    let runs: Vec<&fairway_engine::Summary> = res.points.iter().filter_map(|p| p.outcome.as_ref().ok()).collect();
    let csv = staged.dir().join("replications.csv");
    std::fs::write(&csv, output::replications::csv(&runs)).with_context(|| format!("writing {}", csv.display()))?;
    folder_page(staged.dir(), &format!("fairway run {} --reps {reps}", file.display()))?;
    staged.commit().context("the replications' results are complete but could not take their folder's place")?;
    if res.interrupted {
        eprintln!("interrupted: {} of {reps} replications ended; replications.csv covers those", runs.len());
    }
    if !quiet {
        print!("{}", output::replications::table(&runs));
        println!();
        println!(
            "{} replications (seeds {first} to {}) in {:.1} s on {} workers: mean ± 95% confidence half-width; results \
in {}/ (replications.csv, sweep.csv and a folder per seed)",
            runs.len(),
            first + reps - 1,
            started.elapsed().as_secs_f64(),
            jobs.min(reps as usize),
            out.display()
        );
    }
    match failed {
        None => Ok(()),
        Some(f) => Err(anyhow::anyhow!("{} of {reps} replications failed:\n{}", f.len(), f.join("\n")).into()),
    }
}

/// `--trace` traces one run; with `--reps` it would write a trace per seed, which nothing reads
/// together: the error says how to trace one of the replications instead.
pub(crate) fn refuse_trace_with_reps(trace: &[TraceKind], seed: Option<u64>, reps: u64) -> Result<(), Failure> {
    if trace.is_empty() {
        return Ok(());
    }
    let from = seed.map_or("the file's seed".to_string(), |s| format!("seed {s}"));
    Err(Failure::Input(format!(
        "--trace traces one run, and --reps {reps} makes {reps} (seeds from {from} on), which would each write a trace: \
run the replications without --trace, then trace the one to look into with `fairway run FILE --seed S --trace ...`"
    )))
}
