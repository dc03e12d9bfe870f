//! The `fairway` command. Thin: arguments, output paths and printing; the work is in the
//! libraries (DESIGN.md).

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use clap::{Parser, Subcommand};
use fairway_core::Time;
use fairway_sim::{output, parse_scenario_file, sweep, RunOptions};

#[derive(Parser)]
#[command(name = "fairway", version, about = "TCP-friendly multimedia over UDP: simulate, compare, reproduce")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run a scenario file and write its results folder.
    Run {
        /// The scenario (TOML).
        file: PathBuf,
        /// Results folder [default: out/<scenario name>].
        #[arg(long)]
        out: Option<PathBuf>,
        /// Override the scenario's seed.
        #[arg(long)]
        seed: Option<u64>,
        /// Print nothing but errors.
        #[arg(long, short)]
        quiet: bool,
    },
    /// Check a scenario file without running it.
    Check { file: PathBuf },
    /// Run every point of a scenario's [sweep] grid in parallel; write each point's results
    /// folder and one combined sweep.csv.
    Sweep {
        /// The scenario (TOML) with a [sweep] table.
        file: PathBuf,
        /// Output folder [default: out/<scenario name>-sweep].
        #[arg(long)]
        out: Option<PathBuf>,
        /// Worker threads [default: the available cores].
        #[arg(long, short, value_parser = clap::value_parser!(u64).range(1..))]
        jobs: Option<u64>,
        /// Print nothing but errors.
        #[arg(long, short)]
        quiet: bool,
    },
    /// Run a paper's scenarios and write a report beside the paper's numbers.
    Reproduce {
        /// Which paper: kadhum2015.
        name: String,
        /// Report folder [default: out/<name>].
        #[arg(long)]
        out: Option<PathBuf>,
        /// The scenarios folder.
        #[arg(long, default_value = "scenarios")]
        scenarios: PathBuf,
        /// Override the scenarios' seed.
        #[arg(long)]
        seed: Option<u64>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.cmd {
        Cmd::Run { file, out, seed, quiet } => run(&file, out, seed, quiet),
        Cmd::Check { file } => check(&file),
        Cmd::Sweep { file, out, jobs, quiet } => run_sweep(&file, out, jobs, quiet),
        Cmd::Reproduce { name, out, scenarios, seed } => reproduce(&name, out, scenarios, seed),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Input(msg)) => {
            eprintln!("error: {msg}");
            ExitCode::from(2)
        }
        Err(Failure::Other(e)) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

enum Failure {
    /// The user's input is wrong (exit code 2).
    Input(String),
    Other(anyhow::Error),
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Self {
        Failure::Other(e)
    }
}

fn check(file: &Path) -> Result<(), Failure> {
    let sc = parse_scenario_file(file).map_err(|e| Failure::Input(e.to_string()))?;
    let sweep =
        if has_sweep(file) { Some(sweep::load_sweep(file).map_err(|e| Failure::Input(e.to_string()))?) } else { None };
    println!(
        "{}: ok ({} nodes, {} simplex links, {} flows, {} simulated)",
        file.display(),
        sc.nodes.len(),
        sc.links.len(),
        sc.flows.len(),
        sc.duration
    );
    if let Some(sw) = sweep {
        println!("{}: sweep ok ({} points over {})", file.display(), sw.points.len(), sw.keys.join(", "));
    }
    Ok(())
}

fn has_sweep(file: &Path) -> bool {
    std::fs::read_to_string(file).is_ok_and(|t| sweep::has_sweep(&t))
}

fn run_sweep(file: &Path, out: Option<PathBuf>, jobs: Option<u64>, quiet: bool) -> Result<(), Failure> {
    use sweep::SweepError;
    let sw = sweep::load_sweep(file).map_err(|e| Failure::Input(e.to_string()))?;
    let out = out.unwrap_or_else(|| PathBuf::from("out").join(format!("{}-sweep", sw.name)));
    let jobs = jobs.map_or_else(sweep::default_jobs, |j| j as usize);
    let started = Instant::now();
    let show = !quiet && std::io::stderr().is_terminal();
    let mut progress = |done: usize, total: usize| {
        if show {
            eprint!("\r  {}", sweep::progress_line(done, total, started.elapsed()));
            let _ = std::io::stderr().flush();
        }
    };
    let (res, failed) = match sweep::run_sweep(&sw, &out, jobs, &mut progress) {
        Ok(res) => (res, None),
        Err(SweepError::Failed { failed, result }) => (*result, Some(failed)),
        Err(e) => return Err(anyhow::Error::new(e).context("the sweep failed").into()),
    };
    if show {
        eprintln!();
    }
    if !quiet {
        print!("{}", sweep::table(&sw, &res));
        println!();
        println!(
            "{} points in {:.1} s on {} workers; results in {}/ ({} and a folder per point)",
            sw.points.len(),
            started.elapsed().as_secs_f64(),
            jobs.min(sw.points.len()),
            out.display(),
            sweep::SWEEP_CSV
        );
    }
    match failed {
        None => Ok(()),
        Some(f) => {
            Err(anyhow::anyhow!("{} of {} sweep points failed:\n{}", f.len(), sw.points.len(), f.join("\n")).into())
        }
    }
}

fn run(file: &Path, out: Option<PathBuf>, seed: Option<u64>, quiet: bool) -> Result<(), Failure> {
    let sc = parse_scenario_file(file).map_err(|e| Failure::Input(e.to_string()))?;
    if !quiet && has_sweep(file) {
        eprintln!(
            "note: {} has a [sweep] table, ignored here: this runs its base values (`fairway sweep` runs the grid)",
            file.display()
        );
    }
    let out = out.unwrap_or_else(|| PathBuf::from("out").join(&sc.name));
    let started = Instant::now();
    let show = !quiet && std::io::stderr().is_terminal();
    let total = sc.duration.as_secs_f64();
    let mut shown = false;
    let mut progress = |t: Time| {
        // A run longer than a second shows progress (DESIGN.md, "Outputs").
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
    let res = fairway_sim::run(&sc, &RunOptions { seed }, &mut progress).context("the run failed")?;
    if shown {
        eprintln!();
    }
    let wall = started.elapsed().as_secs_f64();
    let written =
        output::write_all(&res, &sc, &out).with_context(|| format!("writing results to {}", out.display()))?;
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
        println!();
        print!("{}", output::table::render(&res));
        println!();
        println!("results in {}/ ({} files: {})", out.display(), written.len(), names(&written));
    }
    Ok(())
}

fn reproduce(name: &str, out: Option<PathBuf>, scenarios: PathBuf, seed: Option<u64>) -> Result<(), Failure> {
    use fairway_sim::reproduce::{self, ReproduceError, ReproduceOptions};
    let out = out.unwrap_or_else(|| PathBuf::from("out").join(name));
    let opts = ReproduceOptions { scenarios, out, seed };
    let started = Instant::now();
    let report = reproduce::reproduce(name, &opts, &mut |stem| eprintln!("  running {stem}")).map_err(|e| match e {
        ReproduceError::Unknown(_) | ReproduceError::Scenario(_) => Failure::Input(e.to_string()),
        other => Failure::Other(anyhow::Error::new(other)),
    })?;
    println!("report: {} ({:.1} s)", report.display(), started.elapsed().as_secs_f64());
    Ok(())
}

fn names(paths: &[PathBuf]) -> String {
    paths.iter().filter_map(|p| p.file_name()?.to_str().map(str::to_string)).collect::<Vec<_>>().join(", ")
}
