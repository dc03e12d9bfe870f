//! `fairway plot DIR`: a figure from a sweep's or replications' folder. One figure per measure
//! (`throughput_bps` unless asked otherwise) against one swept setting, a line per flow (or
//! class), each point the mean over the seeds with its 95% confidence interval as an error bar
//! (replications.csv), or, without replications, each run's value as a point (sweep.csv). A
//! `fairway run --reps` folder, with no swept setting, gives each flow's (or class's) mean and
//! interval side by side (`plot-<y>-per-flow.svg`).

use std::fs;
use std::path::{Path, PathBuf};

use fairway_model::setting::{setting_number, SettingUnit};

use super::svg::{Plot, Series, Style};

/// What to draw.
#[derive(Debug, Clone, Default)]
pub struct PlotRequest {
    /// The swept setting on the x axis [default: the first].
    pub x: Option<String>,
    /// The measure on the y axis [default: throughput_bps].
    pub y: Option<String>,
    /// `flow` or `class` rows of replications.csv [default: flow].
    pub rows: Option<String>,
    pub title: Option<String>,
    pub width: Option<u32>,
    pub height: Option<u32>,
    /// Text size in px [default: 11].
    pub font_size: Option<f64>,
}

/// Setting `key`'s value as a number: plain, or with a unit (a rate in b/s, a time in s, a size
/// in bytes, as the CSVs' number columns give it), with the unit's name for the axis.
fn number(key: &str, v: &str) -> Option<(f64, &'static str)> {
    if let Ok(x) = v.parse::<f64>() {
        return Some((x, ""));
    }
    setting_number(key, v).map(|(x, u)| (x, u.axis()))
}

/// Whether column `h` is the number twin of one of the settings `keys` (`flow.cbr.rate_bps`).
fn is_twin(h: &str, keys: &[&str]) -> bool {
    [SettingUnit::Bps, SettingUnit::Seconds, SettingUnit::Bytes]
        .iter()
        .any(|u| h.strip_suffix(u.suffix()).is_some_and(|k| keys.contains(&k)))
}

fn split(line: &str) -> Vec<&str> {
    line.split(',').collect()
}

/// One curve of the plot: (name, [(x, y)], each point's confidence half-width).
type Curve = (String, Vec<(f64, f64)>, Vec<f64>);

/// The figure's file name and SVG text.
pub fn plot(dir: &Path, req: &PlotRequest) -> Result<(PathBuf, String), String> {
    let (file, reps) = match fs::read_to_string(dir.join("replications.csv")) {
        Ok(t) => ("replications.csv", t),
        Err(_) => (
            "sweep.csv",
            fs::read_to_string(dir.join("sweep.csv")).map_err(|_| {
                format!(
                    "{}: no replications.csv or sweep.csv (a folder `fairway sweep` or `fairway run --reps` wrote)",
                    dir.display()
                )
            })?,
        ),
    };
    let mut lines = reps.lines();
    let header = split(lines.next().ok_or(format!("{file} is empty"))?);
    let col = |name: &str| header.iter().position(|h| *h == name);
    // The swept settings: replications.csv's columns before `kind`; sweep.csv's between
    // `point` and `flow` (the seed among them).
    let keys: Vec<&str> = if file == "replications.csv" {
        header[..col("kind").ok_or("replications.csv has no kind column")?].to_vec()
    } else {
        header[1..col("flow").ok_or("sweep.csv has no flow column")?].to_vec()
    };
    // Without the seed, and without the number twins of settings with units.
    let all = keys.clone();
    let keys: Vec<&str> = keys.into_iter().filter(|k| *k != "seed" && !is_twin(k, &all)).collect();
    if keys.is_empty() {
        if file == "replications.csv" {
            // `fairway run --reps`: one point, so each flow (or class) at its own x.
            return per_row(dir, req, &header, lines);
        }
        return Err(format!("{file} has no swept setting to put on the x axis"));
    }
    let x = req.x.as_deref().unwrap_or(keys[0]);
    let xi =
        col(x).filter(|_| keys.contains(&x)).ok_or(format!("--x {x}: not a swept setting ({})", keys.join(", ")))?;
    let y = req.y.as_deref().unwrap_or("throughput_bps");
    let yi = col(y).ok_or_else(|| {
        let measures: Vec<&str> =
            header.iter().copied().filter(|h| !h.ends_with("_ci95") && !all.contains(h)).collect();
        format!("--y {y}: no such column in {file} ({})", measures.join(", "))
    })?;
    let ei = col(&format!("{y}_ci95"));
    let rows = req.rows.as_deref().unwrap_or("flow");
    if rows != "flow" && rows != "class" {
        return Err(format!("--rows {rows}: flow or class"));
    }
    let name_col = if file == "replications.csv" { col("name") } else { col("flow") }.ok_or("no name column")?;
    let kind_col = col("kind");
    // Other settings than x pick a series of their own: "name, key=value".
    let others: Vec<usize> = keys.iter().filter(|k| **k != x).filter_map(|k| col(k)).collect();
    let mut unit = None;
    let mut series: Vec<Curve> = vec![];
    for line in lines.filter(|l| !l.is_empty()) {
        let f = split(line);
        if file == "replications.csv" && kind_col.is_some_and(|k| f.get(k) != Some(&rows)) {
            continue;
        }
        let (xv, u) = number(x, f[xi]).ok_or(format!("--x {x}: the value {} is not a number", f[xi]))?;
        unit.get_or_insert(u);
        let yv: f64 = f.get(yi).and_then(|v| v.parse().ok()).unwrap_or(f64::NAN);
        let ev: f64 = ei.and_then(|e| f.get(e)).and_then(|v| v.parse().ok()).unwrap_or(f64::NAN);
        let mut name = f[name_col].to_string();
        for &o in &others {
            name.push_str(&format!(", {}={}", header[o], f[o]));
        }
        match series.iter_mut().find(|s| s.0 == name) {
            Some(s) => {
                s.1.push((xv, yv));
                s.2.push(ev);
            }
            None => series.push((name, vec![(xv, yv)], vec![ev])),
        }
    }
    if series.is_empty() {
        return Err(format!("{file} has no {rows} rows"));
    }
    for s in &mut series {
        let mut idx: Vec<usize> = (0..s.1.len()).collect();
        idx.sort_by(|&a, &b| s.1[a].0.total_cmp(&s.1[b].0));
        s.1 = idx.iter().map(|&i| s.1[i]).collect();
        s.2 = idx.iter().map(|&i| s.2[i]).collect();
    }
    let x_label = match unit.unwrap_or("") {
        "" => x.to_string(),
        u => format!("{x} ({u})"),
    };
    let what = if ei.is_some() { "mean and 95% confidence interval over the seeds" } else { "each run" };
    let title = req.title.clone().unwrap_or_else(|| format!("{y} against {x} ({what})"));
    let style = if file == "replications.csv" { Style::LinePoints } else { Style::Points };
    let mut p = Plot::new(&title, &x_label, y);
    for (name, pts, errs) in &series {
        let s = Series::new(name, pts, style);
        p = p.series(if ei.is_some() { s.with_errors(errs) } else { s });
    }
    // A margin either side, so that the end points' error bars show whole.
    let xs = series.iter().flat_map(|s| s.1.iter().map(|p| p.0));
    let (lo, hi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| (a.min(x), b.max(x)));
    if hi > lo {
        p = p.x_range(lo - 0.05 * (hi - lo), hi + 0.05 * (hi - lo));
    }
    if req.width.is_some() || req.height.is_some() {
        p = p.size(req.width.unwrap_or(800), req.height.unwrap_or(400));
    }
    if let Some(f) = req.font_size {
        p = p.scale(f / 11.0);
    }
    let name = format!("plot-{}-vs-{}.svg", super::file_safe(y), super::file_safe(x));
    Ok((dir.join(name), p.to_svg()))
}

/// A folder of replications without a swept setting (`fairway run --reps`): each flow's (or
/// class's) mean over the seeds with its 95% confidence interval, the flows one beside the
/// other in their order, numbered on the x axis and named in the legend.
fn per_row<'a>(
    dir: &Path,
    req: &PlotRequest,
    header: &[&str],
    lines: impl Iterator<Item = &'a str>,
) -> Result<(PathBuf, String), String> {
    let col = |name: &str| header.iter().position(|h| *h == name);
    if let Some(x) = &req.x {
        return Err(format!(
            "--x {x}: replications.csv has no swept setting (a `fairway run --reps` folder is one point): leave --x out to draw each flow's mean"
        ));
    }
    let y = req.y.as_deref().unwrap_or("throughput_bps");
    let yi = col(y).ok_or_else(|| {
        let measures: Vec<&str> = header.iter().copied().skip(4).filter(|h| !h.ends_with("_ci95")).collect();
        format!("--y {y}: no such column in replications.csv ({})", measures.join(", "))
    })?;
    let ei = col(&format!("{y}_ci95"));
    let rows = req.rows.as_deref().unwrap_or("flow");
    if rows != "flow" && rows != "class" {
        return Err(format!("--rows {rows}: flow or class"));
    }
    let (kind, name) =
        (col("kind").ok_or("replications.csv has no kind column")?, col("name").ok_or("no name column")?);
    // Each row's name, its point at its own x, and its interval.
    struct Row {
        name: String,
        pt: [(f64, f64); 1],
        err: [f64; 1],
    }
    let mut found: Vec<Row> = vec![];
    for line in lines.filter(|l| !l.is_empty()) {
        let f = split(line);
        if f.get(kind) != Some(&rows) {
            continue;
        }
        let x = found.len() as f64 + 1.0;
        let yv: f64 = f.get(yi).and_then(|v| v.parse().ok()).unwrap_or(f64::NAN);
        let ev: f64 = ei.and_then(|e| f.get(e)).and_then(|v| v.parse().ok()).unwrap_or(f64::NAN);
        found.push(Row { name: f[name].to_string(), pt: [(x, yv)], err: [ev] });
    }
    if found.is_empty() {
        return Err(format!("replications.csv has no {rows} rows"));
    }
    // The numbers named on the axis when they fit; the legend names them anyway.
    let named: Vec<String> = found.iter().enumerate().map(|(i, r)| format!("{} = {}", i + 1, r.name)).collect();
    let x_label = if found.len() <= 6 {
        format!("{rows} ({})", named.join(", "))
    } else {
        format!("{rows}, numbered as in the legend")
    };
    let title = req
        .title
        .clone()
        .unwrap_or_else(|| format!("{y} per {rows} (mean and 95% confidence interval over the seeds)"));
    let mut p = Plot::new(&title, &x_label, y).x_range(0.5, found.len() as f64 + 0.5).x_whole();
    for r in &found {
        let s = Series::new(&r.name, &r.pt, Style::Points);
        p = p.series(if ei.is_some() { s.with_errors(&r.err) } else { s });
    }
    if req.width.is_some() || req.height.is_some() {
        p = p.size(req.width.unwrap_or(800), req.height.unwrap_or(400));
    }
    if let Some(f) = req.font_size {
        p = p.scale(f / 11.0);
    }
    let file = format!("plot-{}-per-{rows}.svg", super::file_safe(y));
    Ok((dir.join(file), p.to_svg()))
}
