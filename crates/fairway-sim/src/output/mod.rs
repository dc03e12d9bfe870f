//! The results folder: summary.json, flows.csv, queue.csv and SVG plots, plus the short table
//! `fairway run` prints. Files are written so that the same run gives the same bytes.

pub mod csv;
pub mod plots;
pub mod svg;
pub mod table;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::results::RunResult;
use crate::scenario::Scenario;

/// Writes every output of a run into `dir` (created if missing) and returns the paths written.
/// The files are built on two threads (the CSVs on one, the summary and the plots on the other):
/// the run itself is single-threaded, and on the benchmark machine's two cores this halves the
/// time spent after it. The bytes do not depend on it.
pub fn write_all(res: &RunResult, sc: &Scenario, dir: &Path) -> io::Result<Vec<PathBuf>> {
    fs::create_dir_all(dir)?;
    let (tables, figures) = std::thread::scope(|scope| {
        let tables = scope.spawn(|| {
            let mut v = vec![
                ("flows.csv".to_string(), csv::flows_csv(res, sc)),
                ("queue.csv".to_string(), csv::queue_csv(res, sc)),
                ("links.csv".to_string(), csv::links_csv(res)),
            ];
            if !res.scale_logs.is_empty() {
                v.push(("scale.csv".to_string(), csv::scale_csv(res, sc)));
            }
            v
        });
        let figures = || -> io::Result<Vec<(String, String)>> {
            let mut json = serde_json::to_string_pretty(&res.summary).map_err(io::Error::other)?;
            json.push('\n');
            let mut v = vec![("summary.json".to_string(), json)];
            v.extend(plots::all(res, sc));
            Ok(v)
        };
        let figures = figures();
        (tables.join(), figures)
    });
    let tables = tables.map_err(|_| io::Error::other("building the CSV files failed"))?;
    let figures = figures?;
    let mut written = vec![];
    // summary.json first, then the tables, then the plots.
    let (summary, plots): (Vec<_>, Vec<_>) = figures.into_iter().partition(|(n, _)| n == "summary.json");
    for (name, body) in summary.into_iter().chain(tables).chain(plots) {
        let p = dir.join(&name);
        fs::write(&p, body)?;
        written.push(p);
    }
    Ok(written)
}

/// A file-name-safe form of a link name: "r1->r2" becomes "r1-r2".
pub fn file_safe(name: &str) -> String {
    name.replace("->", "-")
        .chars()
        .map(|c| if c.is_alphanumeric() || matches!(c, '-' | '_' | '.') { c } else { '_' })
        .collect()
}
