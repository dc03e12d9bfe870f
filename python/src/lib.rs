//! fairway's Python module, `fairway._native`: a scenario run, checked or swept from Python.
//! The results come back as the very text of the files `fairway run` and `fairway sweep` write
//! (summary.json, flows.csv, sweep.csv, ...), built by the same code, which python/fairway/ reads
//! into pandas: a DataFrame equals the CLI's file by construction. The simulator runs with the
//! GIL released, so Python threads (a Dask worker's) run alongside.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use fairway_engine::{RunOptions, Scenario, Summary};
use fairway_report::output;
use fairway_scenario::sweep::{self, SweepError, SweepOptions};
use fairway_scenario::{parse_scenario, parse_scenario_warn};

create_exception!(_native, ScenarioError, PyValueError, "A scenario fairway cannot run, located: `file`, `line`, `col` (1-based; 0 when the error has no place in the text), `field` (a path such as `flow[2].rate`) and `message`.");
create_exception!(_native, RunError, PyRuntimeError, "A run that failed after its scenario was accepted.");

/// A scenario error as a Python exception carrying its place.
fn scenario_error(py: Python<'_>, e: &fairway_scenario::ScenarioError) -> PyErr {
    let err = ScenarioError::new_err(e.to_string());
    let v = err.value(py);
    for (k, val) in [("file", e.file.clone()), ("field", e.field.clone()), ("message", e.message.clone())] {
        let _ = v.setattr(k, val);
    }
    let _ = v.setattr("line", e.line);
    let _ = v.setattr("col", e.col);
    err
}

fn error_dict<'py>(py: Python<'py>, e: &fairway_scenario::ScenarioError) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("file", &e.file)?;
    d.set_item("line", e.line)?;
    d.set_item("col", e.col)?;
    d.set_item("field", &e.field)?;
    d.set_item("message", &e.message)?;
    d.set_item("text", e.to_string())?;
    Ok(d)
}

fn stem(file: &str) -> &str {
    Path::new(file).file_stem().and_then(|s| s.to_str()).unwrap_or("scenario")
}

/// The scenario `text` (`file` names it in errors) with `values` set, each a key as `[sweep]`
/// writes it and a TOML value; and the point's own text.
fn build(
    file: &str,
    text: &str,
    values: &[(String, String)],
) -> Result<(Scenario, String), fairway_scenario::ScenarioError> {
    if values.is_empty() {
        return parse_scenario(file, text, stem(file)).map(|sc| (sc, text.to_string()));
    }
    sweep::with_values(file, text, values).map(|b| (b.scenario, b.text))
}

/// The flows named (a flow's name or its `[[flow]]` entry's), as scenario indices; all of them
/// for an empty list.
fn traced(sc: &Scenario, names: &[String]) -> PyResult<Vec<usize>> {
    if names.is_empty() {
        return Ok((0..sc.flows.len()).collect());
    }
    let mut v = vec![];
    for n in names {
        let hits: Vec<usize> =
            (0..sc.flows.len()).filter(|&i| sc.flows[i].name == *n || sc.flows[i].group == *n).collect();
        if hits.is_empty() {
            let known: Vec<&str> = sc.flows.iter().take(20).map(|f| f.name.as_str()).collect();
            return Err(PyValueError::new_err(format!(
                "trace: no flow or [[flow]] entry named `{n}` (flows: {}{})",
                known.join(", "),
                if sc.flows.len() > 20 { ", ..." } else { "" }
            )));
        }
        v.extend(hits);
    }
    v.sort_unstable();
    v.dedup();
    Ok(v)
}

fn summary_json(s: &Summary) -> String {
    let mut json = serde_json::to_string_pretty(s).expect("a summary serialises");
    json.push('\n');
    json
}

/// Runs one scenario. Returns a dict of texts: `summary` (summary.json), `flows` (flows.csv),
/// `queue`, `links`, `classes`, `scale` (MApp flows; else None), `trace` (trace-agents.csv when
/// `trace` names flows; an empty list traces all) and `scenario` (the scenario run, values set).
#[pyfunction]
#[pyo3(signature = (text, file, seed=None, values=Vec::new(), trace=None))]
fn run<'py>(
    py: Python<'py>,
    text: &str,
    file: &str,
    seed: Option<u64>,
    values: Vec<(String, String)>,
    trace: Option<Vec<String>>,
) -> PyResult<Bound<'py, PyDict>> {
    let (sc, point) = build(file, text, &values).map_err(|e| scenario_error(py, &e))?;
    let trace_agents = match &trace {
        Some(names) => traced(&sc, names)?,
        None => vec![],
    };
    let opts = RunOptions { seed, trace_agents, ..Default::default() };
    let files = py.allow_threads(|| -> Result<Vec<(&'static str, Option<String>)>, String> {
        let res = fairway_engine::run(&sc, &opts, &mut |_| {}).map_err(|e| e.to_string())?;
        Ok(vec![
            ("summary", Some(summary_json(&res.summary))),
            ("flows", Some(output::csv::flows_csv(&res, &sc))),
            ("queue", Some(output::csv::queue_csv(&res, &sc))),
            ("links", Some(output::csv::links_csv(&res))),
            ("classes", Some(output::csv::classes_csv(&res, &sc))),
            ("scale", (!res.scale_logs.is_empty()).then(|| output::csv::scale_csv(&res, &sc))),
            ("trace", output::csv::agents_csv(&res, &sc)),
        ])
    });
    let files = files.map_err(RunError::new_err)?;
    let d = PyDict::new(py);
    for (k, v) in files {
        d.set_item(k, v)?;
    }
    d.set_item("scenario", point)?;
    Ok(d)
}

/// Checks a scenario (and its `[sweep]`, if it has one) without running it: (errors, warnings),
/// each a list of dicts with `file`, `line`, `col`, `field`, `message` and `text` (the whole
/// message as the command line prints it).
#[pyfunction]
#[pyo3(signature = (text, file, values=Vec::new()))]
fn check<'py>(
    py: Python<'py>,
    text: &str,
    file: &str,
    values: Vec<(String, String)>,
) -> PyResult<(Vec<Bound<'py, PyDict>>, Vec<Bound<'py, PyDict>>)> {
    let outcome = if values.is_empty() {
        parse_scenario_warn(file, text, stem(file)).and_then(|(sc, w)| {
            if sweep::has_sweep(text) {
                sweep::points_of_text(file, text).map(|_| (sc, w))
            } else {
                Ok((sc, w))
            }
        })
    } else {
        sweep::with_values(file, text, &values).and_then(|b| parse_scenario_warn(file, &b.text, stem(file)))
    };
    match outcome {
        Ok((_, warnings)) => Ok((vec![], warnings.iter().map(|w| error_dict(py, w)).collect::<PyResult<_>>()?)),
        Err(e) => Ok((vec![error_dict(py, &e)?], vec![])),
    }
}

/// The scenario `text` with `values` set and its `[sweep]` table left out: the scenario that
/// `run` with these values runs, as a file of its own.
#[pyfunction]
#[pyo3(signature = (text, file, values=Vec::new()))]
fn scenario_text(py: Python<'_>, text: &str, file: &str, values: Vec<(String, String)>) -> PyResult<String> {
    sweep::with_values(file, text, &values).map(|b| b.text).map_err(|e| scenario_error(py, &e))
}

static SCRATCH: AtomicU64 = AtomicU64::new(0);

/// Runs every point of the scenario's `[sweep]` (with `reps`, each at that many seeds from
/// `seed` or the file's) on `jobs` threads, as `fairway sweep` does. With `out`, writes the
/// sweep's folder there as the command does; without, only the tables. Returns (sweep.csv,
/// replications.csv or None, sweep-links.csv).
#[pyfunction]
#[pyo3(signature = (text, file, reps=None, seed=None, jobs=None, out=None))]
fn sweep_points(
    py: Python<'_>,
    text: &str,
    file: &str,
    reps: Option<usize>,
    seed: Option<u64>,
    jobs: Option<usize>,
    out: Option<PathBuf>,
) -> PyResult<(String, Option<String>, String)> {
    let base = parse_scenario(file, text, stem(file)).map_err(|e| scenario_error(py, &e))?;
    let sw = match reps {
        Some(0) => return Err(PyValueError::new_err("reps: at least 1")),
        Some(r) => sweep::replicated(file, text, seed.unwrap_or(base.seed), r),
        None if seed.is_some() => {
            return Err(PyValueError::new_err("seed: give reps too (the seeds are seed, seed + 1, ...)"))
        }
        None => sweep::points_of_text(file, text),
    }
    .map_err(|e| scenario_error(py, &e))?;
    let (dir, scratch) = match out {
        Some(d) => (d, false),
        None => {
            let n = SCRATCH.fetch_add(1, Ordering::Relaxed);
            (std::env::temp_dir().join(format!("fairway-py-sweep-{}-{n}", std::process::id())), true)
        }
    };
    let opts = SweepOptions {
        jobs: jobs.unwrap_or_else(sweep::default_jobs).max(1),
        keep_runs: false,
        write: if scratch { sweep::write_nothing } else { output::write_point },
        interrupt: None,
    };
    let outcome = py.allow_threads(|| {
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let res = match sweep::run_sweep_with(&sw, &dir, &opts, &mut |_, _| {}) {
            Ok(r) => r,
            Err(SweepError::Failed { failed, .. }) => {
                return Err(format!(
                    "{} of {} sweep points failed:\n{}",
                    failed.len(),
                    sw.points.len(),
                    failed.join("\n")
                ))
            }
            Err(e) => return Err(e.to_string()),
        };
        let csv = std::fs::read_to_string(&res.csv).map_err(|e| format!("{}: {e}", res.csv.display()))?;
        let links = sweep::sweep_links_csv(&sw, &res.points);
        let reps_csv = reps.map(|_| output::replications::csv_of_sweep(&sw, &res.points));
        Ok((csv, reps_csv, links))
    });
    if scratch {
        let _ = std::fs::remove_dir_all(&dir);
    }
    outcome.map_err(RunError::new_err)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("RunError", m.py().get_type::<RunError>())?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_points, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_text, m)?)?;
    Ok(())
}
