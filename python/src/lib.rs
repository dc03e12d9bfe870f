//! fairway's Python module, `fairway._native`: a scenario run, checked or swept from Python.
//! The results come back as the very text of the files `fairway run` and `fairway sweep` write
//! (summary.json, flows.csv, sweep.csv, ...), built by the same code, which python/fairway/ reads
//! into pandas: a DataFrame equals the CLI's file by construction. The simulator runs with the
//! GIL released, so Python threads (a Dask worker's) run alongside, and on a thread of its own
//! while the calling thread watches for Ctrl-C.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

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

/// How often a waiting call looks for Ctrl-C (or `cancel`) while the simulator runs.
const WATCH: Duration = Duration::from_millis(50);

/// Runs `work` on a thread of its own with the GIL released; meanwhile this thread checks
/// Python's signals (Ctrl-C raises KeyboardInterrupt on the main thread) and `cancel` (an
/// object with `is_set()`, a `threading.Event`) every [`WATCH`]. Either sets the flag `work` is
/// handed, which stops the simulator at the simulated time reached; the exception (or a
/// RunError saying the call was cancelled) is raised once `work` has returned.
fn interruptible<T: Send>(
    py: Python<'_>,
    cancel: Option<Py<PyAny>>,
    work: impl FnOnce(&AtomicBool) -> T + Send,
) -> PyResult<T> {
    let stop = AtomicBool::new(false);
    let mut raised: Option<PyErr> = None;
    let out = py.allow_threads(|| {
        let waiter = std::thread::current();
        std::thread::scope(|scope| {
            let worker = scope.spawn(|| {
                let out = work(&stop);
                waiter.unpark();
                out
            });
            while !worker.is_finished() {
                std::thread::park_timeout(WATCH);
                if raised.is_some() || worker.is_finished() {
                    continue;
                }
                let stopped = Python::with_gil(|py| -> PyResult<()> {
                    py.check_signals()?;
                    match &cancel {
                        Some(c) if c.bind(py).call_method0("is_set")?.is_truthy()? => {
                            Err(RunError::new_err("cancelled"))
                        }
                        _ => Ok(()),
                    }
                });
                if let Err(e) = stopped {
                    stop.store(true, Ordering::Relaxed);
                    raised = Some(e);
                }
            }
            worker.join()
        })
    });
    match (raised, out) {
        (_, Err(panic)) => std::panic::resume_unwind(panic),
        (Some(e), _) => Err(e),
        (None, Ok(out)) => Ok(out),
    }
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

fn summary_json(s: &Summary) -> String {
    let mut json = serde_json::to_string_pretty(s).expect("a summary serialises");
    json.push('\n');
    json
}

/// Runs one scenario. Returns a dict of texts: `summary` (summary.json), `flows` (flows.csv),
/// `queue`, `links`, `classes`, `trace` (trace-agents.csv when `trace` names flows; an empty list
/// traces all; else None), `logs` (a dict: each series a protocol logs, `<name>.csv`, by name:
/// MApp's `scale`) and `scenario` (the scenario run, values set).
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
        Some(names) => sc.flows_named(names).map_err(|(n, known)| {
            PyValueError::new_err(format!("trace: no flow or [[flow]] entry named `{n}` (flows: {known})"))
        })?,
        None => vec![],
    };
    let files = interruptible(py, None, |stop| {
        let opts = RunOptions { seed, trace_agents, interrupt: Some(stop), ..Default::default() };
        run_files(&sc, &opts, |_| vec![])
    })?
    .map_err(RunError::new_err)?;
    files_dict(py, files, point)
}

type Files = Vec<(&'static str, Option<String>)>;

/// A run's files as text: by name, and the series' logs by their series' names.
struct RunFiles {
    files: Files,
    logs: Vec<(&'static str, String)>,
}

/// Runs `sc` and makes the files `fairway run` writes of it, as text, with those `more` makes
/// from the summary.
fn run_files(sc: &Scenario, opts: &RunOptions, more: impl FnOnce(&Summary) -> Files) -> Result<RunFiles, String> {
    let res = fairway_engine::run(sc, opts, &mut |_| {}).map_err(|e| e.to_string())?;
    let mut v = vec![
        ("summary", Some(summary_json(&res.summary))),
        ("flows", Some(output::csv::flows_csv(&res, sc))),
        ("queue", Some(output::csv::queue_csv(&res, sc))),
        ("links", Some(output::csv::links_csv(&res))),
        ("classes", Some(output::csv::classes_csv(&res, sc))),
        ("trace", output::csv::agents_csv(&res, sc)),
    ];
    v.extend(more(&res.summary));
    let names = output::csv::logged_series(&res).into_iter().map(|x| x.name);
    let logs = names.zip(output::csv::series_logs_csv(&res, sc)).map(|(n, (_, text))| (n, text)).collect();
    Ok(RunFiles { files: v, logs })
}

fn files_dict(py: Python<'_>, files: RunFiles, scenario: String) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    for (k, v) in files.files {
        d.set_item(k, v)?;
    }
    let logs = PyDict::new(py);
    for (k, v) in files.logs {
        logs.set_item(k, v)?;
    }
    d.set_item("logs", logs)?;
    d.set_item("scenario", scenario)?;
    Ok(d)
}

/// The sweep of `text`: its `[sweep]` grid, each point at `reps` seeds from `seed` (or the
/// file's) when given.
fn sweep_of(py: Python<'_>, text: &str, file: &str, reps: Option<usize>, seed: Option<u64>) -> PyResult<sweep::Sweep> {
    let base = parse_scenario(file, text, stem(file)).map_err(|e| scenario_error(py, &e))?;
    match reps {
        Some(0) => Err(PyValueError::new_err("reps: at least 1")),
        Some(r) => sweep::replicated(file, text, seed.unwrap_or(base.seed), r).map_err(|e| scenario_error(py, &e)),
        None if seed.is_some() => Err(PyValueError::new_err("seed: give reps too (the seeds are seed, seed + 1, ...)")),
        None => sweep::points_of_text(file, text).map_err(|e| scenario_error(py, &e)),
    }
}

/// The scenario `text` with `axes` (key, [TOML values]) as its `[sweep]` grid.
#[pyfunction]
fn with_grid(py: Python<'_>, text: &str, file: &str, axes: Vec<(String, Vec<String>)>) -> PyResult<String> {
    sweep::with_grid(file, text, &axes).map_err(|e| scenario_error(py, &e))
}

/// A sweep's points, for a campaign to run one by one: a dict of `keys`, `points` (each with
/// `index`, `label`, `values` and `text`, its scenario file), and the headers of sweep.csv and
/// sweep-links.csv.
#[pyfunction]
#[pyo3(signature = (text, file, reps=None, seed=None))]
fn plan<'py>(
    py: Python<'py>,
    text: &str,
    file: &str,
    reps: Option<usize>,
    seed: Option<u64>,
) -> PyResult<Bound<'py, PyDict>> {
    let sw = sweep_of(py, text, file, reps, seed)?;
    let points = pyo3::types::PyList::empty(py);
    for p in &sw.points {
        let b = sw.build(p.index).map_err(|e| scenario_error(py, &e))?;
        let d = PyDict::new(py);
        d.set_item("index", p.index)?;
        d.set_item("label", &p.label)?;
        d.set_item("values", &p.values)?;
        d.set_item("text", b.text)?;
        points.append(d)?;
    }
    let d = PyDict::new(py);
    d.set_item("keys", &sw.keys)?;
    d.set_item("points", points)?;
    d.set_item("sweep_header", sweep::sweep_csv_header(&sw))?;
    d.set_item("links_header", sweep::sweep_links_header(&sw))?;
    Ok(d)
}

/// Runs point `index` of the sweep of `text` (see `plan`): `run`'s files, with the point's rows
/// of sweep.csv (`sweep_rows`) and sweep-links.csv (`sweep_links_rows`). `cancel.is_set()`
/// (a `threading.Event`) stops it: a campaign's workers stop when its caller is interrupted.
#[pyfunction]
#[pyo3(signature = (text, file, index, reps=None, seed=None, cancel=None))]
fn run_point<'py>(
    py: Python<'py>,
    text: &str,
    file: &str,
    index: usize,
    reps: Option<usize>,
    seed: Option<u64>,
    cancel: Option<Py<PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let sw = sweep_of(py, text, file, reps, seed)?;
    if index >= sw.points.len() {
        return Err(PyValueError::new_err(format!("index {index}: the sweep has {} points", sw.points.len())));
    }
    let b = sw.build(index).map_err(|e| scenario_error(py, &e))?;
    let files = interruptible(py, cancel, |stop| {
        run_files(&b.scenario, &RunOptions { interrupt: Some(stop), ..Default::default() }, |sum| {
            vec![
                ("sweep_rows", Some(sweep::sweep_csv_rows(&sw, index, sum))),
                ("sweep_links_rows", Some(sweep::sweep_links_rows(&sw, index, sum))),
            ]
        })
    })?
    .map_err(|e| RunError::new_err(format!("point {index} ({}): {e}", sw.describe(index))))?;
    files_dict(py, files, b.text)
}

/// A list of Python dicts.
type Dicts<'py> = Vec<Bound<'py, PyDict>>;

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
) -> PyResult<(Dicts<'py>, Dicts<'py>)> {
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
    let sw = sweep_of(py, text, file, reps, seed)?;
    // With `out`, the folder follows the command line's rules: only an empty folder or one marked
    // as fairway's is replaced, whole, once the sweep has ended.
    let staged = match &out {
        Some(d) => Some(output::folder::Staged::begin(d).map_err(|e| PyValueError::new_err(e.to_string()))?),
        None => None,
    };
    let (dir, scratch) = match &staged {
        Some(s) => (s.dir().to_path_buf(), false),
        None => {
            let n = SCRATCH.fetch_add(1, Ordering::Relaxed);
            (std::env::temp_dir().join(format!("fairway-py-sweep-{}-{n}", std::process::id())), true)
        }
    };
    let outcome = interruptible(py, None, |stop| {
        let opts = SweepOptions {
            jobs: jobs.unwrap_or_else(sweep::default_jobs).max(1),
            keep_runs: false,
            write: if scratch { sweep::write_nothing } else { output::write_point },
            interrupt: Some(stop),
            resume: None,
        };
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
        let reps_csv = reps.map(|_| {
            let (keys, groups) = sw.replication_groups(&res.points);
            output::replications::csv_grouped(&keys, &groups)
        });
        Ok((csv, reps_csv, links))
    });
    if scratch {
        let _ = std::fs::remove_dir_all(&dir);
    }
    let tables = outcome?.map_err(RunError::new_err)?;
    if let Some(s) = staged {
        s.commit().map_err(|e| RunError::new_err(e.to_string()))?;
    }
    Ok(tables)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // The package version and the commit (and edits) it was built from: crates/fairway-cli/build.rs.
    m.add("__build__", env!("FAIRWAY_BUILD"))?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("RunError", m.py().get_type::<RunError>())?;
    // The bounds the command line applies, for the package's own checks of its arguments.
    m.add("MAX_SCENARIO_BYTES", fairway_scenario::text_file::MAX_SCENARIO_BYTES)?;
    m.add("MAX_POINTS", sweep::MAX_POINTS)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_points, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_text, m)?)?;
    m.add_function(wrap_pyfunction!(with_grid, m)?)?;
    m.add_function(wrap_pyfunction!(plan, m)?)?;
    m.add_function(wrap_pyfunction!(run_point, m)?)?;
    Ok(())
}
