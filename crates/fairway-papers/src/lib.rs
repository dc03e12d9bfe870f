//! fairway-papers: the reproductions of the five seed papers, kadhum2015, dccp-ns2,
//! elaarag2002, chung-dcbt and janani-tfrc, one module each ([`kadhum2015`], [`dccp_ns2`],
//! [`elaarag2002`], [`chung_dcbt`], [`janani_tfrc`]) with its claims and its report page; the
//! claims' rows ([`claims`]) and how each is judged ([`rules`]); and elaarag2002's closed-form
//! model that `fairway model iftp` tabulates ([`iftp_model`]). What a run writes (results
//! folders, CSV, SVG figures, report.html, traces, pcap) is fairway-report's, which this crate
//! uses to draw its figures, write its pages and run its experiments' folders.
//!
//! `fairway reproduce NAME`: run a paper's experiments, several seeds each, and write report.md
//! and claims.csv, which put every claim of the paper beside fairway's value with a band and a
//! verdict (docs/architecture.md, "Reproductions"). One module per paper, named by the paper's
//! short name; the scenario files are built in ([`embedded`]).

pub mod chung_dcbt;
pub mod claims;
pub mod dccp_ns2;
pub mod elaarag2002;
mod embedded;
pub mod iftp_model;
pub mod janani_tfrc;
pub mod kadhum2015;
pub mod rmcat;
pub mod rules;

use std::path::{Path, PathBuf};

use toml_edit::{value, Array, DocumentMut, Item, Table};

use fairway_engine::SimError;
use fairway_model::results::{QueueRow, RunResult, Summary};
use fairway_report::output::svg::{Plot, Series, Style};
use std::sync::atomic::AtomicBool;

use fairway_scenario::sweep::{points_of_text, run_sweep_with, Sweep, SweepOptions};
use fairway_scenario::ScenarioError;

/// Whether `fairway reproduce` can run a paper yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Ready,
    /// To come, with the issue that brings it.
    Planned {
        issue: u32,
    },
}

/// One of the five papers (docs/architecture.md, "Reproductions").
#[derive(Debug, Clone, Copy)]
pub struct Paper {
    pub name: &'static str,
    pub title: &'static str,
    pub status: Status,
}

/// Every paper `fairway reproduce` knows.
pub const PAPERS: &[Paper] = &[
    Paper {
        name: "kadhum2015",
        title: "Kadhum & Hassanein 2015: MApp over UDPm vs CBR over UDP beside TCP, RED bottleneck",
        status: Status::Ready,
    },
    Paper { name: "dccp-ns2", title: "TCP vs DCCP CCID2 and CCID3 in ns-2", status: Status::Ready },
    Paper {
        name: "elaarag2002",
        title: "ElAarag & Bassiouni 2002: IFTP, TCP emulated by the inter-packet gap",
        status: Status::Ready,
    },
    Paper {
        name: "chung-dcbt",
        title: "Chung & Claypool: RED, CBT and Dynamic-CBT with MM_APP and MPEG_APP",
        status: Status::Ready,
    },
    Paper {
        name: "janani-tfrc",
        title: "Janani & Chenna Reddy: TFRC vs TCP vs UDP for VoIP and video",
        status: Status::Ready,
    },
];

/// What `fairway reproduce --help` shows under its options: every paper, ready or not. A test
/// checks it against [`PAPERS`].
pub const HELP: &str = "\
Papers (each named at the top of its scenario files, scenarios/<name>/ in the repository):
  kadhum2015   MApp over UDPm vs CBR over UDP beside TCP, RED bottleneck
  dccp-ns2     TCP vs DCCP CCID2 and CCID3 in ns-2
  elaarag2002  IFTP, TCP emulated by the inter-packet gap
  chung-dcbt   RED, CBT and Dynamic-CBT with MM_APP/MPEG_APP
  janani-tfrc  TFRC vs TCP vs UDP for VoIP and video, wired and ad hoc

Writes DIR/report.md (the counts of claims by verdict first), DIR/claims.csv
(claim,source,paper,fairway,band,verdict, then the columns that let a test check
each verdict) and each experiment's runs beside them. How a claim is judged:
docs/reproductions.md.
The scenario files are built in; --scenarios reads edited copies instead.";

/// The papers, one line each, for error messages.
pub fn known() -> String {
    PAPERS
        .iter()
        .map(|p| match p.status {
            Status::Ready => p.name.to_string(),
            Status::Planned { issue } => format!("{} (to come with issue {issue})", p.name),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[derive(Debug, Clone)]
pub struct ReproduceOptions {
    /// A folder holding `<paper>/<file>.toml` to read instead of the built-in scenarios.
    pub scenarios: Option<PathBuf>,
    /// Where the report, claims.csv and the runs' folders go.
    pub out: PathBuf,
    /// The first seed; each experiment runs `reps` seeds from it.
    pub first_seed: u64,
    /// Independent runs per experiment point (docs/architecture.md asks for at least five).
    pub reps: usize,
    /// Set to stop: the experiment running is abandoned and the reproduction ends with
    /// [`ReproduceError::Interrupted`].
    pub interrupt: Option<&'static AtomicBool>,
}

impl ReproduceOptions {
    /// The built-in scenarios, seeds 1 to 5.
    pub fn new(out: PathBuf) -> ReproduceOptions {
        ReproduceOptions { scenarios: None, out, first_seed: 1, reps: DEFAULT_REPS, interrupt: None }
    }

    pub fn seeds(&self) -> Vec<u64> {
        (0..self.reps as u64).map(|k| self.first_seed.saturating_add(k)).collect()
    }
}

/// docs/architecture.md: "Figures run at least five seeds".
pub const DEFAULT_REPS: usize = 5;

#[derive(Debug, thiserror::Error)]
pub enum ReproduceError {
    #[error("no reproduction named `{0}`; known: {known}", known = known())]
    Unknown(String),
    #[error("`{0}` is not reproduced yet: it comes with issue {1}. Ready now: {ready}", ready = ready())]
    Planned(String, u32),
    #[error("{0}")]
    Scenario(#[from] ScenarioError),
    #[error("{0}: {1}")]
    Run(String, SimError),
    #[error("writing {0}: {1}")]
    Io(PathBuf, std::io::Error),
    #[error("interrupted during {0}")]
    Interrupted(String),
    /// A suite asked for something it does not have (a controller, a case).
    #[error("{0}")]
    NotInSuite(String),
}

fn ready() -> String {
    PAPERS.iter().filter(|p| p.status == Status::Ready).map(|p| p.name).collect::<Vec<_>>().join(", ")
}

/// Whether `name` is a paper that can be reproduced now.
pub fn check_ready(name: &str) -> Result<(), ReproduceError> {
    let paper = PAPERS.iter().find(|p| p.name == name).ok_or_else(|| ReproduceError::Unknown(name.to_string()))?;
    if let Status::Planned { issue } = paper.status {
        return Err(ReproduceError::Planned(name.to_string(), issue));
    }
    Ok(())
}

/// Runs the reproduction `name`; returns the path of the report written. `progress` hears
/// which experiment is running.
pub fn reproduce(
    name: &str,
    opts: &ReproduceOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<PathBuf, ReproduceError> {
    check_ready(name)?;
    std::fs::create_dir_all(&opts.out).map_err(|e| ReproduceError::Io(opts.out.clone(), e))?;
    let md = match name {
        "kadhum2015" => kadhum2015::reproduce(opts, progress),
        "elaarag2002" => elaarag2002::reproduce(opts, progress),
        "janani-tfrc" => janani_tfrc::reproduce(opts, progress),
        "chung-dcbt" => chung_dcbt::reproduce(opts, progress),
        "dccp-ns2" => dccp_ns2::reproduce(opts, progress),
        other => Err(ReproduceError::Unknown(other.to_string())),
    }?;
    // The same report as a page, its figures inline.
    fairway_report::output::html_pages::write_markdown_page(&md, &format!("fairway reproduce {name}"))
        .map_err(|e| ReproduceError::Io(md.with_extension("html"), e))?;
    Ok(md)
}

/// One experiment's runs: a scenario file's sweep with the seeds added as its last axis, every
/// point's summary (and its whole result when kept), in point order.
pub struct Runs {
    pub sweep: Sweep,
    pub summaries: Vec<Summary>,
    /// Whole results, when the experiment keeps them (time series for plots).
    pub results: Vec<Option<RunResult>>,
}

impl Runs {
    /// The value of sweep key `key` at point `i`.
    pub fn value(&self, i: usize, key: &str) -> &str {
        let k = self.sweep.keys.iter().position(|x| x == key).unwrap_or_else(|| panic!("`{key}` is not swept"));
        &self.sweep.points[i].values[k]
    }

    /// The distinct values of `key`, in point order.
    pub fn values(&self, key: &str) -> Vec<String> {
        let mut v: Vec<String> = vec![];
        for i in 0..self.summaries.len() {
            let x = self.value(i, key);
            if !v.iter().any(|y| y == x) {
                v.push(x.to_string());
            }
        }
        v
    }

    /// The points (one per seed) where every (key, value) pair holds.
    pub fn select(&self, at: &[(&str, &str)]) -> Vec<usize> {
        (0..self.summaries.len()).filter(|&i| at.iter().all(|(k, v)| self.value(i, k) == *v)).collect()
    }

    /// The summaries of [`select`](Self::select).
    pub fn at(&self, at: &[(&str, &str)]) -> Vec<&Summary> {
        self.select(at).into_iter().map(|i| &self.summaries[i]).collect()
    }
}

/// The text of a paper's scenario file: from `--scenarios` if given, else built in.
pub fn scenario_text(opts: &ReproduceOptions, paper: &str, stem: &str) -> Result<(String, String), ReproduceError> {
    match &opts.scenarios {
        Some(dir) => {
            let path = dir.join(paper).join(format!("{stem}.toml"));
            let text = fairway_scenario::text_file::read(
                &path,
                fairway_scenario::text_file::MAX_SCENARIO_BYTES,
                "a scenario file",
            )
            .map_err(|message| ScenarioError {
                file: path.display().to_string(),
                line: 0,
                col: 0,
                field: String::new(),
                message,
            })?;
            Ok((path.display().to_string(), text))
        }
        None => {
            let text = embedded::file(paper, stem).ok_or_else(|| ScenarioError {
                file: format!("scenarios/{paper}/{stem}.toml"),
                line: 0,
                col: 0,
                field: String::new(),
                message: "no such built-in scenario".into(),
            })?;
            Ok((format!("scenarios/{paper}/{stem}.toml{}", fairway_scenario::parse::BUILT_IN), text.to_string()))
        }
    }
}

/// The scenario text with `seed = [seeds]` as the last axis of its `[sweep]` (added if it has
/// none; a seed list the file gives is replaced).
pub fn with_seeds(text: &str, seeds: &[u64]) -> String {
    let Ok(mut doc) = text.parse::<DocumentMut>() else { return text.to_string() };
    if !doc.contains_key("sweep") {
        doc.insert("sweep", Item::Table(Table::new()));
    }
    if let Some(t) = doc["sweep"].as_table_like_mut() {
        t.remove("seed");
        let mut a = Array::new();
        for s in seeds {
            a.push(*s as i64);
        }
        t.insert("seed", value(a));
    }
    doc.to_string()
}

/// Runs scenarios/<paper>/<stem>.toml over the seeds into `<out>/<stem>/`.
pub fn run_grid(
    opts: &ReproduceOptions,
    paper: &str,
    stem: &str,
    keep: bool,
    progress: &mut dyn FnMut(&str),
) -> Result<Runs, ReproduceError> {
    let (file, text) = scenario_text(opts, paper, stem)?;
    run_text(opts, stem, &file, &text, keep, progress)
}

/// Runs the scenario `text` (read from `file`) over the seeds into `<out>/<label>/`.
pub fn run_text(
    opts: &ReproduceOptions,
    label: &str,
    file: &str,
    text: &str,
    keep: bool,
    progress: &mut dyn FnMut(&str),
) -> Result<Runs, ReproduceError> {
    let stem = label;
    progress(stem);
    let sweep = points_of_text(file, &with_seeds(text, &opts.seeds()))?;
    let out = opts.out.join(stem);
    let jobs = fairway_scenario::sweep::default_jobs();
    let fail = |e: String| ReproduceError::Run(stem.to_string(), SimError::App(stem.to_string(), e));
    let res = run_sweep_with(
        &sweep,
        &out,
        &SweepOptions {
            jobs,
            keep_runs: keep,
            write: fairway_report::output::write_point,
            interrupt: opts.interrupt,
            resume: None,
        },
        &mut |_, _| {},
    )
    .map_err(|e| fail(e.to_string()))?;
    if res.interrupted {
        return Err(ReproduceError::Interrupted(stem.to_string()));
    }
    let mut summaries = Vec::with_capacity(res.points.len());
    let mut results = Vec::with_capacity(res.points.len());
    for p in res.points {
        summaries.push(p.outcome.map_err(fail)?);
        results.push(p.run);
    }
    Ok(Runs { sweep, summaries, results })
}

pub(crate) fn write(path: &Path, body: &str) -> Result<(), ReproduceError> {
    std::fs::write(path, body).map_err(|e| ReproduceError::Io(path.to_path_buf(), e))
}

/// Ends a report with its figures, each under its caption, and writes it as report.md; returns
/// its path.
pub(crate) fn write_report(
    opts: &ReproduceOptions,
    mut body: String,
    figs: &[(&str, String)],
) -> Result<PathBuf, ReproduceError> {
    body.push_str("## Figures\n\n");
    for (f, caption) in figs {
        body.push_str(&format!("{caption}\n\n![{caption}]({f})\n\n"));
    }
    let path = opts.out.join("report.md");
    write(&path, &body)?;
    Ok(path)
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
        p = p.series(Series::new(&l.name, &l.pts, l.style));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_help_lists_every_paper_with_its_status() {
        for p in PAPERS {
            let line =
                HELP.lines().find(|l| l.trim_start().starts_with(p.name)).unwrap_or_else(|| panic!("{}", p.name));
            match p.status {
                Status::Ready => assert!(!line.contains("to come"), "{line}"),
                Status::Planned { issue } => assert!(line.contains(&format!("issue {issue}")), "{line}"),
            }
        }
        assert_eq!(PAPERS.len(), 5);
        // What it points to is in the repository.
        let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        for p in PAPERS {
            assert!(repo.join("scenarios").join(p.name).is_dir(), "{}", p.name);
        }
        assert!(HELP.contains("docs/reproductions.md") && repo.join("docs/reproductions.md").is_file());
        assert!(!HELP.contains("shared/"), "a clone has no shared/: {HELP}");
    }

    #[test]
    fn unknown_and_planned_names_say_what_there_is() {
        let o = ReproduceOptions::new(std::env::temp_dir().join("fairway-never-written"));
        let e = reproduce("kadhum", &o, &mut |_| {}).unwrap_err().to_string();
        for p in PAPERS {
            assert!(e.contains(p.name), "{e}");
        }
        assert!(!o.out.exists(), "nothing written for a name that cannot run");
        // Every paper is ready: a planned one would name its issue and the ready ones.
        assert!(PAPERS.iter().all(|p| p.status == Status::Ready));
        let e = ReproduceError::Planned("x".into(), 15).to_string();
        assert!(e.contains("issue 15") && e.contains("dccp-ns2") && e.contains("chung-dcbt"), "{e}");
    }

    #[test]
    fn seeds_become_the_last_axis_of_the_sweep() {
        let t = with_seeds("name = \"x\"\n[sweep]\n\"flow.a.rate\" = [\"1Mb\"]\nseed = [9]\n", &[1, 2, 3]);
        let doc: DocumentMut = t.parse().unwrap();
        let keys: Vec<&str> = doc["sweep"].as_table().unwrap().iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["flow.a.rate", "seed"]);
        assert_eq!(doc["sweep"]["seed"].as_array().unwrap().len(), 3);
        let t = with_seeds("name = \"x\"\n", &[4]);
        assert!(t.contains("[sweep]") && t.contains("seed = [4]"), "{t}");
        assert_eq!(ReproduceOptions { first_seed: 7, reps: 3, ..ReproduceOptions::new("o".into()) }.seeds(), [7, 8, 9]);
    }
}
