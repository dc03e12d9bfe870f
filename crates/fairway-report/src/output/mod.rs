//! The results folder: summary.json, flows.csv, queue.csv and SVG plots, plus the short table
//! `fairway run` prints. Files are written so that the same run gives the same bytes.

pub mod bounded;
pub mod convert;
pub mod csv;
pub mod folder;
pub mod html;
pub mod html_pages;
pub mod ns2_trace;
pub mod packet_files;
pub mod pcap;
pub mod plots;
pub mod replications;
pub mod side_by_side;
pub mod stream;
pub mod svg;
pub mod sweep_plot;
pub mod table;
pub mod topology;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use fairway_model::results::RunResult;
use fairway_model::scenario::Scenario;

/// Writes every output of a run into `dir` (created if missing) and returns the paths written:
/// summary.json first, then the tables, then the plots. The files are built and written on two
/// threads, the tables on one and the summary and the plots on the other, which comes out about
/// even both for thousands of flows and links (large flows.csv, links.csv and summary.json) and
/// for long runs (large flows.csv, queue.csv and plots): the run itself is single-threaded, and
/// on the benchmark machine's two cores this halves the time spent after it. The bytes do not
/// depend on it.
pub fn write_all(res: &RunResult, sc: &Scenario, dir: &Path) -> io::Result<Vec<PathBuf>> {
    write_all_with(res, sc, dir, &Figures::default())
}

/// How a run's figures come out: their style, and the formats besides SVG.
#[derive(Debug, Clone, Default)]
pub struct Figures {
    pub style: plots::FigureStyle,
    pub formats: Vec<convert::Format>,
}

/// The figures `figures` (name, SVG) written into `dir`, with their other formats.
fn write_figures(dir: &Path, figures: &[(String, String)], how: &Figures) -> io::Result<Vec<PathBuf>> {
    let mut v = vec![];
    for (name, body) in figures {
        let p = dir.join(name);
        fs::write(&p, body)?;
        v.push(p.clone());
        // Every figure, topology.svg's diagram too: a paper takes it in the same format.
        v.extend(convert::convert(&p, &how.formats)?);
    }
    Ok(v)
}

/// The files written besides the tables (summary.json, then the plots), and the figures drawn
/// as (file name, SVG).
type Written = (Vec<PathBuf>, Vec<(String, String)>);

/// [`write_all`], the figures drawn as `how` says.
pub fn write_all_with(res: &RunResult, sc: &Scenario, dir: &Path, how: &Figures) -> io::Result<Vec<PathBuf>> {
    fs::create_dir_all(dir)?;
    let write = |name: &str, body: Vec<u8>| -> io::Result<PathBuf> {
        let p = dir.join(name);
        fs::write(&p, body)?;
        Ok(p)
    };
    let (tables, others) = std::thread::scope(|scope| {
        let tables = scope.spawn(|| -> io::Result<Vec<PathBuf>> {
            let mut v = vec![
                write("flows.csv", csv::flows_csv(res, sc).into_bytes())?,
                write("queue.csv", csv::queue_csv(res, sc).into_bytes())?,
                write("links.csv", csv::links_csv(res).into_bytes())?,
                write("classes.csv", csv::classes_csv(res, sc).into_bytes())?,
            ];
            for (name, text) in csv::series_logs_csv(res, sc) {
                v.push(write(&name, text.into_bytes())?);
            }
            if let Some(nodes) = csv::nodes_csv(res) {
                v.push(write("nodes.csv", nodes.into_bytes())?);
            }
            if let Some(trace) = csv::agents_csv(res, sc) {
                v.push(write("trace-agents.csv", trace.into_bytes())?);
            }
            if let Some(cdf) = csv::delay_cdf_csv(res, sc) {
                v.push(write("delay_cdf.csv", cdf.into_bytes())?);
            }
            Ok(v)
        });
        let others = || -> io::Result<Written> {
            // About 900 bytes a flow and 500 a link listed; reserved, so that ten megabytes
            // (10 000 flows) are not copied as they grow.
            let s = &res.summary;
            let mut json = Vec::with_capacity(4096 + s.flows.len() * 1024 + s.links.len() * 640);
            serde_json::to_writer_pretty(&mut json, s).map_err(io::Error::other)?;
            json.push(b'\n');
            let mut v = vec![write("summary.json", json)?];
            let figures = plots::all(res, sc, &how.style);
            v.extend(write_figures(dir, &figures, how)?);
            Ok((v, figures))
        };
        let others = others();
        (tables.join(), others)
    });
    let tables = tables.map_err(|_| io::Error::other("building the CSV files failed"))??;
    // summary.json, flows.csv, queue.csv, links.csv, classes.csv [, the series' logs] [,
    // nodes.csv] [, trace-agents.csv] [, delay_cdf.csv], the plots, then report.html.
    let (mut others, figures) = others?;
    let plots = others.split_off(1);
    let mut v: Vec<PathBuf> = others.into_iter().chain(tables).chain(plots).collect();
    v.push(write_report(res, sc, dir, &figures, &v)?);
    Ok(v)
}

/// report.html in `dir`, listing `files` (and itself).
fn write_report(
    res: &RunResult,
    sc: &Scenario,
    dir: &Path,
    figures: &[(String, String)],
    files: &[PathBuf],
) -> io::Result<PathBuf> {
    let mut names: Vec<String> =
        files.iter().filter_map(|p| p.file_name()).map(|n| n.to_string_lossy().into_owned()).collect();
    names.push("report.html".into());
    let p = dir.join("report.html");
    fs::write(&p, html::run_page(res, sc, figures, &names))?;
    Ok(p)
}

/// What [`write_all`] writes but the series a [`stream::StreamWriter`] wrote while the run
/// ran (`streamed`: flows.csv, queue.csv, classes.csv): summary.json, links.csv, the series'
/// logs, the plots (from the series `res` keeps for them) and report.html, which lists `traces` (the
/// trace files the writer wrote) too. Returns every path, in [`write_all`]'s order, the traces
/// before report.html.
pub fn write_after_stream(
    res: &RunResult,
    sc: &Scenario,
    dir: &Path,
    streamed: [PathBuf; 3],
    traces: &[PathBuf],
    how: &Figures,
) -> io::Result<Vec<PathBuf>> {
    let write = |name: &str, body: Vec<u8>| -> io::Result<PathBuf> {
        let p = dir.join(name);
        fs::write(&p, body)?;
        Ok(p)
    };
    let s = &res.summary;
    let mut json = Vec::with_capacity(4096 + s.flows.len() * 1024 + s.links.len() * 640);
    serde_json::to_writer_pretty(&mut json, s).map_err(io::Error::other)?;
    json.push(b'\n');
    let [flows, queue, classes] = streamed;
    let mut v = vec![write("summary.json", json)?, flows, queue];
    v.push(write("links.csv", csv::links_csv(res).into_bytes())?);
    v.push(classes);
    for (name, text) in csv::series_logs_csv(res, sc) {
        v.push(write(&name, text.into_bytes())?);
    }
    if let Some(nodes) = csv::nodes_csv(res) {
        v.push(write("nodes.csv", nodes.into_bytes())?);
    }
    if let Some(cdf) = csv::delay_cdf_csv(res, sc) {
        v.push(write("delay_cdf.csv", cdf.into_bytes())?);
    }
    let figures = plots::all(res, sc, &how.style);
    v.extend(write_figures(dir, &figures, how)?);
    v.extend(traces.iter().cloned());
    v.push(write_report(res, sc, dir, &figures, &v)?);
    Ok(v)
}

/// [`write_all`] in the shape a sweep's point writer takes (fairway-scenario's `sweep::PointWriter`).
pub fn write_point(res: &RunResult, sc: &Scenario, dir: &Path) -> io::Result<()> {
    write_all(res, sc, dir).map(|_| ())
}

/// A file-name-safe form of a link name: "r1->r2" becomes "r1-r2".
pub fn file_safe(name: &str) -> String {
    name.replace("->", "-")
        .chars()
        .map(|c| if c.is_alphanumeric() || matches!(c, '-' | '_' | '.') { c } else { '_' })
        .collect()
}
