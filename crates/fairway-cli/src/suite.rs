//! `fairway suite rmcat`: RFC 8867's test cases with each RMCAT controller, and their report.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use fairway_report::output::folder::Staged;

use crate::{interrupt, Failure};

/// What `fairway suite rmcat` was asked for.
pub(crate) struct RmcatArgs {
    pub controllers: Vec<String>,
    pub cases: Vec<String>,
    pub out: Option<PathBuf>,
    pub scenarios: Option<PathBuf>,
    pub seed: u64,
    pub reps: u64,
    pub ecn: bool,
}

pub(crate) fn rmcat(args: RmcatArgs) -> Result<(), Failure> {
    use fairway_papers::rmcat::{run_suite, SuiteOptions};
    let RmcatArgs { controllers, cases, out, scenarios, seed, reps, ecn } = args;
    use fairway_papers::{ReproduceError, ReproduceOptions};
    let out = out.unwrap_or_else(|| PathBuf::from("out").join("rmcat"));
    let staged = Staged::begin(&out).map_err(|e| Failure::Input(e.to_string()))?;
    let opts = SuiteOptions {
        base: ReproduceOptions {
            scenarios,
            out: staged.dir().to_path_buf(),
            first_seed: seed,
            reps: reps as usize,
            interrupt: Some(&interrupt::INTERRUPTED),
        },
        controllers,
        cases,
        ecn,
    };
    let started = Instant::now();
    let kept =
        if out.exists() { format!("; the earlier report in {} is unchanged", out.display()) } else { String::new() };
    let report = run_suite(&opts, &mut |label| eprintln!("  running {label}")).map_err(|e| match e {
        ReproduceError::Unknown(_)
        | ReproduceError::Planned(..)
        | ReproduceError::Scenario(_)
        | ReproduceError::NotInSuite(_) => Failure::Input(e.to_string()),
        ReproduceError::Interrupted(_) => Failure::Interrupted(format!("{e}: nothing written{kept}")),
        other => Failure::Other(anyhow::Error::new(other).context(format!("the suite failed{kept}"))),
    })?;
    let report = out.join(report.strip_prefix(staged.dir()).unwrap_or(&report));
    staged.commit().context("the report is complete but could not take its folder's place")?;
    println!("report: {} ({:.1} s)", report.display(), started.elapsed().as_secs_f64());
    Ok(())
}
