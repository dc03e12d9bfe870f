//! `fairway sweep`: every point of a scenario's [sweep] grid run in parallel, into one folder with
//! sweep.csv and report.html; `--resume` keeps the points an earlier run of this build finished.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use fairway_report::output;
use fairway_report::output::folder::Staged;
use fairway_scenario::sweep;

use crate::scenario_file::{load, read_scenario};
use crate::{interrupt, Failure, BUILD};

pub(crate) fn run_sweep(
    file: &Path,
    out: Option<PathBuf>,
    jobs: Option<u64>,
    quiet: bool,
    reps: Option<u64>,
    resume: bool,
) -> Result<(), Failure> {
    let sw = sweep::load_sweep(file).map_err(|e| Failure::Input(e.to_string()))?;
    // With replications: the grid, and the seeds from the file's as its last axis.
    let sw = match reps {
        None => sw,
        Some(reps) => {
            let first = load(file)?.seed;
            if first.checked_add(reps - 1).is_none_or(|last| last > i64::MAX as u64) {
                return Err(Failure::Input(format!("seed {first}, --reps {reps}: the seeds must stay below 2^63")));
            }
            let text = read_scenario(file)?;
            sweep::replicated(&file.display().to_string(), &text, first, reps as usize)
                .map_err(|e| Failure::Input(e.to_string()))?
        }
    };
    let out = out.unwrap_or_else(|| PathBuf::from("out").join(format!("{}-sweep", sw.name)));
    let staged = Staged::begin(&out).map_err(|e| Failure::Input(e.to_string()))?;
    let earlier = if resume { resumable(&out, quiet)? } else { None };
    let jobs = jobs.map_or_else(sweep::default_jobs, |j| j as usize);
    let started = Instant::now();
    let (res, failed) = run_points(&sw, staged.dir(), earlier, jobs, quiet, started, "the sweep failed")?;
    let taken = res.points.iter().filter(|p| p.taken).count();
    write_sweep_json(staged.dir(), file, &res, taken)?;
    if reps.is_some() {
        // Per point of the grid without the seed (the last key): its runs' means and intervals.
        let csv = staged.dir().join("replications.csv");
        let (keys, groups) = sw.replication_groups(&res.points);
        std::fs::write(&csv, output::replications::csv_grouped(&keys, &groups))
            .with_context(|| format!("writing {}", csv.display()))?;
    }
    folder_page(staged.dir(), &format!("fairway sweep {}", file.display()))?;
    staged.commit().context("the sweep's results are complete but could not take their folder's place")?;
    if res.interrupted {
        let done = res.points.iter().filter(|p| p.outcome.is_ok()).count();
        eprintln!(
            "interrupted: {done} of {} points ended; {}/{} has their rows, the others are left out \
(`fairway sweep {} --out {} --resume` runs them)",
            sw.points.len(),
            out.display(),
            sweep::SWEEP_CSV,
            file.display(),
            out.display(),
        );
    }
    if !quiet {
        print!("{}", sweep::table(&sw, &res));
        println!();
        let kept = if taken > 0 { format!(" ({taken} kept from the earlier run)") } else { String::new() };
        println!(
            "{} points{kept} in {:.1} s on {} workers; results in {}/ ({}{} and a folder per point)",
            sw.points.len(),
            started.elapsed().as_secs_f64(),
            jobs.min(sw.points.len()),
            out.display(),
            sweep::SWEEP_CSV,
            if reps.is_some() { ", replications.csv" } else { "" }
        );
    }
    match failed {
        None => Ok(()),
        Some(f) => {
            Err(anyhow::anyhow!("{} of {} sweep points failed:\n{}", f.len(), sw.points.len(), f.join("\n")).into())
        }
    }
}

/// The folder `fairway sweep --resume` takes finished points from: `out`, when it holds a
/// sweep this build wrote (sweep.json says which build); otherwise every point runs, and a note
/// says why.
fn resumable(out: &Path, quiet: bool) -> Result<Option<&Path>, Failure> {
    let note = |why: String| {
        if !quiet {
            eprintln!("note: {why}: every point runs");
        }
        Ok(None)
    };
    let json = out.join(SWEEP_JSON);
    if !out.join(sweep::SWEEP_CSV).is_file() {
        return note(format!("{} holds no sweep to resume", out.display()));
    }
    let Ok(text) = std::fs::read_to_string(&json) else {
        return note(format!("{} is missing, so the build that wrote the sweep is unknown", json.display()));
    };
    let v: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| Failure::Input(format!("{}: {e}", json.display())))?;
    match v.get("fairway").and_then(|b| b.as_str()) {
        Some(BUILD) => Ok(Some(out)),
        Some(other) => note(format!("{} was written by fairway {other}; this is {BUILD}", out.display())),
        None => note(format!("{}: no `fairway` build named", json.display())),
    }
}

/// A sweep folder's record of itself: the build that wrote it (what `--resume` checks), the
/// scenario, and how its points ended.
const SWEEP_JSON: &str = "sweep.json";

fn write_sweep_json(dir: &Path, file: &Path, res: &sweep::SweepResult, taken: usize) -> Result<(), Failure> {
    let count = |f: fn(&sweep::PointRun) -> bool| res.points.iter().filter(|p| f(p)).count();
    let json = serde_json::json!({
        "fairway": BUILD,
        "scenario": file.display().to_string(),
        "points": res.points.len(),
        "finished": count(|p| p.outcome.is_ok()),
        "kept_from_earlier_run": taken,
        "failed": count(|p| p.outcome.is_err() && !p.interrupted),
        "interrupted": count(|p| p.interrupted),
    });
    let path = dir.join(SWEEP_JSON);
    let mut text = serde_json::to_string_pretty(&json).map_err(anyhow::Error::new)?;
    text.push('\n');
    std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

/// Runs a sweep's points into `dir` on `jobs` workers, with a progress line on a terminal: the
/// result, and the points that failed (the others still ran).
pub(crate) fn run_points(
    sw: &sweep::Sweep,
    dir: &Path,
    resume: Option<&Path>,
    jobs: usize,
    quiet: bool,
    started: Instant,
    what: &'static str,
) -> Result<(sweep::SweepResult, Option<Vec<String>>), Failure> {
    let show = !quiet && std::io::stderr().is_terminal();
    let mut progress = |done: usize, total: usize| {
        if show {
            eprint!("\r  {}", sweep::progress_line(done, total, started.elapsed()));
            let _ = std::io::stderr().flush();
        }
    };
    let opts = sweep::SweepOptions {
        jobs,
        keep_runs: false,
        write: output::write_point,
        interrupt: Some(&interrupt::INTERRUPTED),
        resume,
    };
    let res = match sweep::run_sweep_with(sw, dir, &opts, &mut progress) {
        Ok(res) => (res, None),
        Err(sweep::SweepError::Failed { failed, result }) => (*result, Some(failed)),
        Err(e) => return Err(anyhow::Error::new(e).context(what).into()),
    };
    if show {
        eprintln!();
    }
    Ok(res)
}

/// report.html of a sweep's or replications' folder: `fairway plot`'s figure of it (each flow's
/// throughput against the first swept setting, with intervals over the seeds), its tables, and
/// each point's page.
pub(crate) fn folder_page(dir: &Path, title: &str) -> Result<(), Failure> {
    let tables = ["replications.csv", sweep::SWEEP_CSV, "sweep-links.csv"];
    let mut figures = vec![];
    let mut why = None;
    match output::sweep_plot::plot(dir, &Default::default()) {
        Ok((path, svg)) => {
            std::fs::write(&path, &svg).with_context(|| format!("writing {}", path.display()))?;
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            figures.push((name, svg));
        }
        Err(e) => why = Some(e),
    }
    output::html_pages::write_folder_page(dir, title, &figures, why.as_deref(), &tables)
        .with_context(|| format!("writing {}", dir.join("report.html").display()))?;
    Ok(())
}
