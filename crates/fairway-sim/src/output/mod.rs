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
pub fn write_all(res: &RunResult, sc: &Scenario, dir: &Path) -> io::Result<Vec<PathBuf>> {
    fs::create_dir_all(dir)?;
    let mut written = vec![];
    let mut put = |name: &str, body: String| -> io::Result<()> {
        let p = dir.join(name);
        fs::write(&p, body)?;
        written.push(p);
        Ok(())
    };
    let mut json = serde_json::to_string_pretty(&res.summary).map_err(io::Error::other)?;
    json.push('\n');
    put("summary.json", json)?;
    put("flows.csv", csv::flows_csv(res, sc))?;
    put("queue.csv", csv::queue_csv(res, sc))?;
    if !res.scale_logs.is_empty() {
        put("scale.csv", csv::scale_csv(res, sc))?;
    }
    for (name, svg) in plots::all(res, sc) {
        put(&name, svg)?;
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
