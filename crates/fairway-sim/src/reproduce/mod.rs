//! `fairway reproduce NAME`: run a paper's scenarios and write a report that puts the paper's
//! numbers beside fairway's. One module per paper, named as DESIGN.md names the seeds.

pub mod elaarag2002;
pub mod kadhum2015;

use std::path::{Path, PathBuf};

use crate::output::svg::{Plot, Series, Style};
use crate::results::{QueueRow, RunResult};
use crate::scenario::Scenario;
use crate::{parse_scenario_file, run, RunOptions, ScenarioError, SimError};

/// The papers `fairway reproduce` knows.
pub const PAPERS: &[(&str, &str)] =
    &[("kadhum2015", "seed 000: MApp over UDPm vs CBR over UDP beside TCP (Kadhum & Hassanein 2015)")];

#[derive(Debug, Clone)]
pub struct ReproduceOptions {
    /// The scenarios folder (the paper's files are in `<scenarios>/<name>/`).
    pub scenarios: PathBuf,
    /// Where the report and the runs' results folders go.
    pub out: PathBuf,
    /// Overrides the scenarios' seed.
    pub seed: Option<u64>,
}

#[derive(Debug, thiserror::Error)]
pub enum ReproduceError {
    #[error("no reproduction named `{0}`; known: {known}", known = PAPERS.iter().map(|p| p.0).collect::<Vec<_>>().join(", "))]
    Unknown(String),
    #[error("{0}")]
    Scenario(#[from] ScenarioError),
    #[error("{0}: {1}")]
    Run(String, SimError),
    #[error("writing {0}: {1}")]
    Io(PathBuf, std::io::Error),
}

/// Runs the reproduction `name`; returns the path of the report written. `progress` hears
/// which scenario is running.
pub fn reproduce(
    name: &str,
    opts: &ReproduceOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<PathBuf, ReproduceError> {
    match name {
        "kadhum2015" => kadhum2015::reproduce(opts, progress),
        "elaarag2002" => elaarag2002::reproduce(opts, progress),
        other => Err(ReproduceError::Unknown(other.to_string())),
    }
}

/// Parses, runs and writes the results folder of one scenario of a reproduction.
pub(crate) fn run_one(path: &Path, out: &Path, seed: Option<u64>) -> Result<(Scenario, RunResult), ReproduceError> {
    let sc = parse_scenario_file(path)?;
    let res = run(&sc, &RunOptions { seed, ..Default::default() }, &mut |_| {})
        .map_err(|e| ReproduceError::Run(sc.name.clone(), e))?;
    crate::output::write_all(&res, &sc, out).map_err(|e| ReproduceError::Io(out.to_path_buf(), e))?;
    Ok((sc, res))
}

pub(crate) fn write(path: &Path, body: &str) -> Result<(), ReproduceError> {
    std::fs::write(path, body).map_err(|e| ReproduceError::Io(path.to_path_buf(), e))
}

/// A named series of points, owned, for building plots.
pub(crate) struct Line {
    pub name: String,
    pub pts: Vec<(f64, f64)>,
    pub style: Style,
}

pub(crate) fn plot<'a>(title: &'a str, y: &'a str, lines: &'a [Line]) -> Plot<'a> {
    let mut p = Plot::new(title, "time (s)", y);
    for l in lines {
        p = p.series(Series { name: &l.name, points: &l.pts, style: l.style });
    }
    p
}

/// Rate of a cumulative counter over windows of `window` seconds: (window end, per second).
pub(crate) fn rate_of(rows: &[QueueRow], window: f64, value: impl Fn(&QueueRow) -> f64) -> Vec<(f64, f64)> {
    let mut out = vec![];
    let mut last: Option<&QueueRow> = None;
    for r in rows {
        match last {
            None => last = Some(r),
            Some(l) if r.t_s - l.t_s >= window - 1e-9 => {
                out.push((r.t_s, (value(r) - value(l)) / (r.t_s - l.t_s)));
                last = Some(r);
            }
            _ => {}
        }
    }
    out
}
