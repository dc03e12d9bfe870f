//! Running a sweep's points on a pool of workers and gathering their results in point order;
//! sweep.csv and the terminal table.

use std::fmt::Write as _;
use std::fs;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

use super::{Sweep, SWEEP_CSV, SWEEP_LINKS_CSV};
use fairway_engine::{RunOptions, Scenario};
use fairway_model::results::{RunResult, Summary};

/// Writes one point's results into its folder (fairway-report's `output::write_all`, for one).
pub type PointWriter = fn(&RunResult, &Scenario, &Path) -> std::io::Result<()>;

/// How to run a sweep.
#[derive(Debug, Clone)]
pub struct SweepOptions<'a> {
    /// Worker threads (at least one; never more than the points).
    pub jobs: usize,
    /// Keep every point's whole [`RunResult`] (time series included) in the result, not only its
    /// summary.
    pub keep_runs: bool,
    /// What each point's folder gets beside its scenario.toml.
    pub write: PointWriter,
    /// Set to stop the sweep: no further point starts, and the points running stop where they
    /// are and are left out (their folders keep only scenario.toml).
    pub interrupt: Option<&'a AtomicBool>,
    /// The folder an earlier run of the sweep wrote, to resume: a point whose folder there holds
    /// this point's very scenario.toml and a complete run's summary.json is taken as it is (its
    /// files linked, or copied, into `out`), not run again. The caller vouches that the same
    /// build wrote it.
    pub resume: Option<&'a Path>,
}

/// Writes nothing beside a point's scenario.toml.
pub fn write_nothing(_: &RunResult, _: &Scenario, _: &Path) -> std::io::Result<()> {
    Ok(())
}

impl Default for SweepOptions<'_> {
    fn default() -> Self {
        SweepOptions { jobs: default_jobs(), keep_runs: false, write: write_nothing, interrupt: None, resume: None }
    }
}

/// The default number of workers: the cores available.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// What one point gave.
#[derive(Debug)]
pub struct PointRun {
    /// Its results folder.
    pub dir: PathBuf,
    /// Its summary, or why it failed (the run or writing its folder).
    pub outcome: Result<Summary, String>,
    /// The whole result, with [`SweepOptions::keep_runs`] (none for a point taken from the
    /// folder resumed).
    pub run: Option<RunResult>,
    /// The sweep was interrupted before this point ended (or began); `outcome` says which.
    pub interrupted: bool,
    /// Taken from the folder resumed ([`SweepOptions::resume`]), not run.
    pub taken: bool,
}

impl Sweep {
    /// A sweep with replications ([`replicated`](super::replicated): the seed its last key): its
    /// columns without the seed, and the summaries of the points that ran, grouped by their
    /// values without the seed, in the points' order (replications.csv's rows).
    #[allow(clippy::type_complexity)]
    pub fn replication_groups<'a>(&self, runs: &'a [PointRun]) -> (Vec<String>, Vec<(Vec<String>, Vec<&'a Summary>)>) {
        let n = self.keys.len().saturating_sub(1);
        let mut groups: Vec<(Vec<String>, Vec<&Summary>)> = vec![];
        for (p, r) in self.points.iter().zip(runs) {
            let Ok(s) = &r.outcome else { continue };
            let values = self.column_values(p.index, n);
            match groups.iter_mut().find(|g| g.0 == values) {
                Some(g) => g.1.push(s),
                None => groups.push((values, vec![s])),
            }
        }
        (self.columns(n), groups)
    }
}

/// What a sweep gave, in point order.
#[derive(Debug)]
pub struct SweepResult {
    /// `<out>/sweep.csv`.
    pub csv: PathBuf,
    pub points: Vec<PointRun>,
    /// The sweep was interrupted: some points did not run to their end.
    pub interrupted: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum SweepError {
    #[error("{}: {source}", .path.display())]
    Io { path: PathBuf, source: std::io::Error },
    /// Some points failed; the others finished and sweep.csv holds their rows.
    #[error("{} of {} sweep points failed:\n{}", .failed.len(), .result.points.len(), .failed.join("\n"))]
    Failed { failed: Vec<String>, result: Box<SweepResult> },
}

/// Runs every point of a sweep on `jobs` worker threads, writes each point's results folder in
/// `out` (its scenario.toml, then what `write` writes) and the combined `out/sweep.csv`.
/// `progress(done, total)` is called on this thread after each point. See [`run_sweep_with`].
pub fn run_sweep(
    s: &Sweep,
    out: &Path,
    jobs: usize,
    write: PointWriter,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<SweepResult, SweepError> {
    run_sweep_with(s, out, &SweepOptions { jobs, write, ..Default::default() }, progress)
}

/// Runs a sweep. A point whose run fails does not stop the others: they finish, sweep.csv is
/// written without the failed points' rows, and the result is [`SweepError::Failed`] naming
/// each failed point's values (it carries the whole result too). An interrupted sweep writes
/// sweep.csv with the points that ended; the points it left are marked `interrupted`, not failed.
pub fn run_sweep_with(
    s: &Sweep,
    out: &Path,
    opts: &SweepOptions,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<SweepResult, SweepError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| SweepError::Io { path, source }
    };
    fs::create_dir_all(out).map_err(io(out))?;
    let n = s.points.len();
    let jobs = opts.jobs.clamp(1, n.max(1));
    let next = AtomicUsize::new(0);
    let mut slots: Vec<Option<PointRun>> = (0..n).map(|_| None).collect();
    progress(0, n);
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel();
        for _ in 0..jobs {
            let (tx, next) = (tx.clone(), &next);
            scope.spawn(move || loop {
                if opts.interrupt.is_some_and(|x| x.load(Ordering::Relaxed)) {
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n || tx.send((i, run_point(s, i, out, opts))).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        let mut done = 0;
        for (i, r) in rx {
            slots[i] = Some(r);
            done += 1;
            progress(done, n);
        }
    });
    let points: Vec<PointRun> = slots
        .into_iter()
        .zip(&s.points)
        .map(|(r, p)| {
            // Every index is taken by exactly one worker, which always sends its result, unless
            // the sweep was interrupted first.
            r.unwrap_or_else(|| PointRun {
                dir: out.join(&p.label),
                outcome: Err("not run: the sweep was interrupted".into()),
                run: None,
                interrupted: true,
                taken: false,
            })
        })
        .collect();
    let csv = out.join(SWEEP_CSV);
    fs::write(&csv, sweep_csv(s, &points)).map_err(io(&csv))?;
    let links = out.join(SWEEP_LINKS_CSV);
    fs::write(&links, sweep_links_csv(s, &points)).map_err(io(&links))?;
    let interrupted = points.iter().any(|p| p.interrupted);
    let failed: Vec<String> = points
        .iter()
        .enumerate()
        .filter(|(_, p)| !p.interrupted)
        .filter_map(|(i, p)| p.outcome.as_ref().err().map(|e| format!("  point {i} ({}): {e}", s.describe(i))))
        .collect();
    let result = SweepResult { csv, points, interrupted };
    if failed.is_empty() {
        Ok(result)
    } else {
        Err(SweepError::Failed { failed, result: Box::new(result) })
    }
}

/// What became of a point that did not fail.
enum Done {
    Ran(RunResult),
    Taken(Summary),
}

/// Runs one point and writes its folder: `scenario.toml` first (so a failed point can be
/// rerun alone), then the normal results. A point whose results cannot be written keeps only
/// its scenario.toml. With [`SweepOptions::resume`], a point finished there is taken instead.
fn run_point(s: &Sweep, i: usize, out: &Path, opts: &SweepOptions) -> PointRun {
    let keep = opts.keep_runs;
    let p = &s.points[i];
    let dir = out.join(&p.label);
    let mut interrupted = false;
    let outcome = catch_unwind(AssertUnwindSafe(|| -> Result<Done, String> {
        let written = |e: std::io::Error| format!("writing {}: {e}", dir.display());
        let b = s.build(i).map_err(|e| e.to_string())?;
        if let Some(earlier) = opts.resume {
            let from = earlier.join(&p.label);
            if let Some(sum) = finished(&from, &b.text) {
                copy_folder(&from, &dir).map_err(written)?;
                return Ok(Done::Taken(sum));
            }
        }
        fs::create_dir_all(&dir).map_err(written)?;
        fs::write(dir.join("scenario.toml"), &b.text).map_err(written)?;
        let run_opts = RunOptions { interrupt: opts.interrupt, ..Default::default() };
        let res = fairway_engine::run(&b.scenario, &run_opts, &mut |_| {}).map_err(|e| e.to_string())?;
        if !res.summary.complete {
            interrupted = true;
            return Err(format!("interrupted at {} s of {}", res.summary.duration_s, b.scenario.duration));
        }
        if let Err(e) = (opts.write)(&res, &b.scenario, &dir) {
            keep_only_scenario(&dir);
            return Err(written(e));
        }
        // What a resumed sweep checks before it takes the point instead of running it.
        let digest = folder_digest(&dir).ok_or_else(|| format!("{}: cannot read back", dir.display()))?;
        fs::write(dir.join(DIGEST), digest).map_err(written)?;
        Ok(Done::Ran(res))
    }))
    .unwrap_or_else(|panic| {
        let msg = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Err(format!("the simulator panicked (a fairway bug; please report it with the scenario): {msg}"))
    });
    let (outcome, run, taken) = match outcome {
        Ok(Done::Ran(res)) if keep => (Ok(res.summary.clone()), Some(res), false),
        Ok(Done::Ran(res)) => (Ok(res.summary), None, false),
        Ok(Done::Taken(sum)) => (Ok(sum), None, true),
        Err(e) => (Err(e), None, false),
    };
    PointRun { dir, outcome, run, interrupted, taken }
}

/// The file of a point's folder that holds the digest of the others, written last.
pub const DIGEST: &str = "files.digest";

/// A digest of every file under `dir` but [`DIGEST`]: their paths, sizes and bytes, in name
/// order, by 64-bit FNV-1a. `None` if a file cannot be read or an entry is neither a file nor a
/// folder (a link planted among the results). It finds edits and lost files; it is no
/// signature against someone who rewrites it too.
pub fn folder_digest(dir: &Path) -> Option<String> {
    fn walk(dir: &Path, rel: &str, h: &mut u64) -> Option<()> {
        let mut entries: Vec<_> = fs::read_dir(dir).ok()?.collect::<Result<_, _>>().ok()?;
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let name = e.file_name().to_string_lossy().into_owned();
            let path = format!("{rel}{name}");
            let kind = e.file_type().ok()?;
            if kind.is_dir() {
                walk(&e.path(), &format!("{path}/"), h)?;
            } else if kind.is_file() {
                if path == DIGEST {
                    continue;
                }
                let bytes = fs::read(e.path()).ok()?;
                for chunk in [path.as_bytes(), &[0], &(bytes.len() as u64).to_le_bytes(), &bytes] {
                    for &b in chunk {
                        *h = (*h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
                    }
                }
            } else {
                return None;
            }
        }
        Some(())
    }
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    walk(dir, "", &mut h)?;
    Some(format!("fnv1a64 {h:016x}\n"))
}

/// The summary of a point finished in `dir`: its scenario.toml is `text`, its files are those
/// its digest was made of, and its summary.json reads back as a complete run's. A point whose
/// results could not be written keeps only its scenario.toml (see [`run_point`]), an interrupted
/// one never wrote them, and one edited, cut short or given a link since is run again.
fn finished(dir: &Path, text: &str) -> Option<Summary> {
    if fs::read_to_string(dir.join("scenario.toml")).ok()? != text {
        return None;
    }
    if fs::read_to_string(dir.join(DIGEST)).ok()? != folder_digest(dir)? {
        return None;
    }
    let sum = Summary::from_json(&fs::read_to_string(dir.join("summary.json")).ok()?).ok()?;
    sum.complete.then_some(sum)
}

/// Puts the files of `from` (a folder of the earlier results) into `to`: hard links, as the
/// two folders lie side by side on one file system, or copies where that fails.
fn copy_folder(from: &Path, to: &Path) -> std::io::Result<()> {
    fs::create_dir_all(to)?;
    for e in fs::read_dir(from)? {
        let e = e?;
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if e.file_type()?.is_dir() {
            copy_folder(&src, &dst)?;
        } else if fs::hard_link(&src, &dst).is_err() {
            fs::copy(&src, &dst)?;
        }
    }
    Ok(())
}

/// Empties a point's folder but for its scenario.toml, as far as it can.
fn keep_only_scenario(dir: &Path) {
    for e in fs::read_dir(dir).into_iter().flatten().flatten() {
        if e.file_name() != "scenario.toml" {
            let p = e.path();
            let _ = if p.is_dir() { fs::remove_dir_all(&p) } else { fs::remove_file(&p) };
        }
    }
}

/// The columns that lead every row of a sweep's CSVs: `point` and the swept keys, each with a
/// unit followed by its number ([`Sweep::columns`]).
fn keys_header(s: &Sweep) -> String {
    let mut out = String::from("point");
    for k in s.columns(s.keys.len()) {
        out.push(',');
        out.push_str(&csv_field(&k));
    }
    out
}

/// A point's values, each after a comma, as [`keys_header`] names them.
fn point_values(s: &Sweep, p: &super::Point) -> String {
    s.column_values(p.index, s.keys.len()).iter().map(|v| format!(",{}", csv_field(v))).collect()
}

/// The combined CSV: one row per point per flow, with the point's values and the first
/// monitored link's totals. Failed points have no rows.
pub fn sweep_csv(s: &Sweep, runs: &[PointRun]) -> String {
    let mut out = sweep_csv_header(s);
    for (p, r) in s.points.iter().zip(runs) {
        if let Ok(sum) = &r.outcome {
            out.push_str(&sweep_csv_rows(s, p.index, sum));
        }
    }
    out
}

/// sweep.csv's header line.
pub fn sweep_csv_header(s: &Sweep) -> String {
    let mut out = keys_header(s);
    out.push_str(
        ",flow,group,class,kind,sent_pkts,recv_pkts,recv_distinct_pkts,dropped_pkts,throughput_bps,goodput_bps,mean_delay_s,jitter_s,link,link_drops_pkts,link_utilization,link_mean_queue_pkts\n",
    );
    out
}

/// Point `index`'s rows of sweep.csv, from its summary: a campaign that ran its points
/// elsewhere puts them together as [`sweep_csv`] does.
pub fn sweep_csv_rows(s: &Sweep, index: usize, sum: &Summary) -> String {
    let mut out = String::new();
    let p = &s.points[index];
    let opt = |v: Option<f64>| v.filter(|v| v.is_finite()).map_or(String::new(), |v| format!("{v:.6}"));
    let values = point_values(s, p);
    let link = match sum.links.iter().find(|l| l.monitored) {
        Some(l) => format!("{},{},{:.6},{:.4}", csv_field(&l.name), l.drops_pkts, l.utilization, l.mean_queue_pkts),
        None => ",,,".to_string(),
    };
    for f in &sum.flows {
        let _ = writeln!(
            out,
            "{}{values},{},{},{},{},{},{},{},{},{:.1},{:.1},{},{},{link}",
            p.index,
            csv_field(&f.name),
            csv_field(&f.group),
            f.class,
            f.kind,
            f.sent_pkts,
            f.recv_pkts,
            f.recv_distinct_pkts,
            f.dropped_pkts,
            f.throughput_bps,
            f.goodput_bps,
            opt(f.mean_delay_s),
            opt(f.jitter_s),
        );
    }
    out
}

/// The monitored links' totals: one row per point per monitored link (sweep.csv repeats only
/// the first's on each flow's row). Failed points have no rows.
pub fn sweep_links_csv(s: &Sweep, runs: &[PointRun]) -> String {
    let mut out = sweep_links_header(s);
    for (p, r) in s.points.iter().zip(runs) {
        if let Ok(sum) = &r.outcome {
            out.push_str(&sweep_links_rows(s, p.index, sum));
        }
    }
    out
}

/// sweep-links.csv's header line.
pub fn sweep_links_header(s: &Sweep) -> String {
    let mut out = keys_header(s);
    out.push_str(
        ",link,queue,arrivals_pkts,departures_pkts,drops_pkts,early_drops_pkts,forced_drops_pkts,marks_pkts,utilization,mean_queue_pkts\n",
    );
    out
}

/// Point `index`'s rows of sweep-links.csv, from its summary.
pub fn sweep_links_rows(s: &Sweep, index: usize, sum: &Summary) -> String {
    let mut out = String::new();
    let p = &s.points[index];
    let values = point_values(s, p);
    for l in sum.links.iter().filter(|l| l.monitored) {
        let _ = writeln!(
            out,
            "{}{values},{},{},{},{},{},{},{},{},{:.6},{:.4}",
            p.index,
            csv_field(&l.name),
            l.queue,
            l.arrivals_pkts,
            l.departures_pkts,
            l.drops_pkts,
            l.early_drops_pkts,
            l.forced_drops_pkts,
            l.marks_pkts,
            l.utilization,
            l.mean_queue_pkts,
        );
    }
    out
}

/// A short table for the terminal: per point its values, each traffic class's delivered
/// throughput and the first monitored link's drops and utilisation.
pub fn table(s: &Sweep, res: &SweepResult) -> String {
    let ok = || res.points.iter().filter_map(|p| p.outcome.as_ref().ok());
    let classes: Vec<&str> = ["tcp", "udp"]
        .into_iter()
        .filter(|c| ok().any(|sum| sum.classes.iter().any(|k| k.class == *c && k.flows > 0)))
        .collect();
    // The first monitored link of each point (as in sweep.csv); named in the header when it is
    // the same link throughout.
    let first = |sum: &Summary| sum.links.iter().find(|l| l.monitored).cloned();
    let mut names: Vec<String> = ok().filter_map(first).map(|l| l.name).collect();
    names.dedup();
    let mut head: Vec<String> = std::iter::once("point".to_string()).chain(s.keys.iter().cloned()).collect();
    head.extend(classes.iter().map(|c| format!("{c} Mb/s")));
    match names.as_slice() {
        [] => {}
        [one] => head.extend([format!("{one} drops"), "util".into()]),
        _ => head.extend(["link".into(), "drops".into(), "util".into()]),
    }
    let mut rows = vec![head];
    for (p, r) in s.points.iter().zip(&res.points) {
        let mut row: Vec<String> = std::iter::once(p.index.to_string()).chain(p.values.iter().cloned()).collect();
        match &r.outcome {
            Ok(sum) => {
                for c in &classes {
                    let bps = sum.classes.iter().find(|k| k.class == *c).map_or(0.0, |k| k.throughput_bps);
                    row.push(format!("{:.3}", bps / 1e6));
                }
                if let Some(l) = first(sum) {
                    if names.len() > 1 {
                        row.push(l.name);
                    }
                    row.push(l.drops_pkts.to_string());
                    row.push(format!("{:.2}", l.utilization));
                }
            }
            Err(_) if r.interrupted => row.push("interrupted".into()),
            Err(_) => row.push("failed".into()),
        }
        rows.push(row);
    }
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let width: Vec<usize> =
        (0..cols).map(|c| rows.iter().filter_map(|r| r.get(c)).map(|v| v.chars().count()).max().unwrap_or(0)).collect();
    let mut out = String::new();
    for r in rows {
        let line: Vec<String> = r.iter().zip(&width).map(|(v, w)| format!("{v:<w$}")).collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out
}

/// `[#########.....]  7/18 points  0:12 elapsed  ETA 0:19`: one line of progress.
pub fn progress_line(done: usize, total: usize, elapsed: std::time::Duration) -> String {
    let clock = |s: f64| {
        let s = s.round() as u64;
        if s >= 3600 {
            format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
        } else {
            format!("{}:{:02}", s / 60, s % 60)
        }
    };
    let frac = if total == 0 { 1.0 } else { done as f64 / total as f64 };
    let n = (frac * 30.0) as usize;
    let el = elapsed.as_secs_f64();
    let eta = if done == 0 { "--".to_string() } else { clock(el / done as f64 * (total - done) as f64) };
    format!("[{}{}] {done}/{total} points  {} elapsed  ETA {eta}   ", "#".repeat(n), ".".repeat(30 - n), clock(el))
}

/// A CSV field, quoted (RFC 4180) when it holds a comma, a quote, a line break or edge spaces.
pub(super) fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) || s.trim() != s {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}
