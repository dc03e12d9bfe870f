//! Parameter sweeps: a `[sweep]` table in a scenario file gives lists of candidate values for
//! any of the file's values, and the grid is their cartesian product (the first key varies
//! slowest). The format is documented in docs/scenarios.md ("Sweeps").
//!
//! ```text
//! file --load_sweep--> Sweep { points: base file with each point's values set, each checked
//!                              by parse_scenario }
//!      --run_sweep--> <out>/<label>/ (a normal results folder per point) and <out>/sweep.csv
//! ```
//!
//! Every point is checked, exactly as a scenario file is, before any point runs. Points run on a
//! fixed pool of worker threads pulling indices from a shared counter; results are gathered by
//! index and written in point order, so the output bytes do not depend on scheduling or on the
//! number of workers.

use std::fmt::Write as _;

use std::ops::Range;
use std::path::Path;

use toml_edit::{DocumentMut, ImDocument, Item, Table, TableLike, Value};

use fairway_engine::Scenario;

use crate::reader::Source;
use crate::{parse_scenario, ScenarioError};

mod path;
mod run;

use path::{parse_path, resolve, set_value, Seg};
pub use run::*;

pub use fairway_model::setting::{setting_number, SettingUnit};

/// Largest number of points a sweep may have: a typo such as `seed = [1, 2, ..., 100000]` times
/// another long list should be an error, not a run that never ends.
pub const MAX_POINTS: usize = 100_000;

/// The name of the combined CSV in a sweep's output folder.
pub const SWEEP_CSV: &str = "sweep.csv";

/// The monitored links' totals per point, beside sweep.csv.
pub const SWEEP_LINKS_CSV: &str = "sweep-links.csv";

/// A sweep: the grid of a scenario file's `[sweep]` table, every point checked. A point's
/// scenario is built again when it is needed ([`Sweep::build`]), so that a sweep of 100 000
/// points holds their values and labels, not 100 000 scenarios.
#[derive(Debug, Clone)]
pub struct Sweep {
    /// The file, as it is named in errors.
    pub file: String,
    /// The base scenario's name (every point keeps it).
    pub name: String,
    /// The swept keys, as written in `[sweep]`, in order.
    pub keys: Vec<String>,
    /// The points in grid order (the first key varies slowest).
    pub points: Vec<Point>,
    /// Per key, the unit every one of its values is written with, if they all have one: the
    /// CSVs give such a key a number column beside it ([`Sweep::columns`]).
    pub units: Vec<Option<SettingUnit>>,
    grid: Grid,
}

/// The unit of an axis whose candidates are all strings with the same kind of unit.
fn axis_unit(key: &str, values: &[Value]) -> Option<SettingUnit> {
    let mut unit = None;
    for v in values {
        let (_, u) = setting_number(key, v.as_str()?)?;
        if unit.is_some_and(|x| x != u) {
            return None;
        }
        unit = Some(u);
    }
    unit
}

/// One point of a sweep.
#[derive(Debug, Clone)]
pub struct Point {
    pub index: usize,
    /// One value per key, as written (strings without their quotes).
    pub values: Vec<String>,
    /// The point's folder name: `<index>_<key>=<value>_...`, file-name safe and deterministic.
    pub label: String,
}

/// A point built: its scenario and its file.
#[derive(Debug, Clone)]
pub struct Built {
    pub scenario: Scenario,
    /// The point as a scenario file of its own: the base with its values set, without
    /// `[sweep]`. Written as `scenario.toml` in the point's folder.
    pub text: String,
}

/// What building a point needs: the file and where each key's values go.
#[derive(Debug, Clone)]
struct Grid {
    stem: String,
    /// The file without `[sweep]`: what each point copies, whatever the number of candidates.
    doc: DocumentMut,
    /// The file as written, to name the lines of a point's errors as they are in it.
    full: DocumentMut,
    axes: Vec<Axis>,
}

impl Sweep {
    /// The columns the first `n` keys take in the CSVs: each key as written, and after a key
    /// with a unit ([`Sweep::units`]) its number twin (`flow.cbr.rate`, `flow.cbr.rate_bps`).
    pub fn columns(&self, n: usize) -> Vec<String> {
        let mut out = vec![];
        for (k, u) in self.keys.iter().zip(&self.units).take(n) {
            out.push(k.clone());
            if let Some(u) = u {
                out.push(format!("{k}{}", u.suffix()));
            }
        }
        out
    }

    /// Point `point`'s values in [`Sweep::columns`]' order: as written, and their numbers.
    pub fn column_values(&self, point: usize, n: usize) -> Vec<String> {
        let mut out = vec![];
        for ((k, u), v) in self.keys.iter().zip(&self.units).zip(&self.points[point].values).take(n) {
            out.push(v.clone());
            if u.is_some() {
                out.push(setting_number(k, v).map_or(String::new(), |(x, _)| format!("{x}")));
            }
        }
        out
    }

    /// "flow.udp.rate = 0.3Mb, seed = 2": the values of a point, for messages.
    pub fn describe(&self, point: usize) -> String {
        describe(&self.keys, &self.points[point].values)
    }

    /// Point `i`'s scenario and file (checked when the sweep was loaded).
    pub fn build(&self, i: usize) -> Result<Built, ScenarioError> {
        let choice = choice(&self.grid.axes, i);
        let values = &self.points[i].values;
        build(&self.file, None, &self.grid, &self.keys, i, &choice, values)
    }
}

/// The candidate of each axis at point `index`: mixed radix, the last key fastest.
fn choice(axes: &[Axis], index: usize) -> Vec<usize> {
    let mut choice = vec![0; axes.len()];
    let mut rest = index;
    for (k, a) in axes.iter().enumerate().rev() {
        choice[k] = rest % a.values.len();
        rest /= a.values.len();
    }
    choice
}

/// The base with the point's values set, parsed, and its file. Without `[sweep]`, the lines of
/// what follows it would move: an invalid point is parsed again as written, so that the lines
/// in its error are the file's own.
fn build(
    file: &str,
    src: Option<&Source>,
    grid: &Grid,
    keys: &[String],
    index: usize,
    choice: &[usize],
    values: &[String],
) -> Result<Built, ScenarioError> {
    let set = |doc: &DocumentMut| -> Result<DocumentMut, ScenarioError> {
        let mut d = doc.clone();
        for (a, &c) in grid.axes.iter().zip(choice) {
            set_value(d.as_item_mut(), &a.steps, &a.values[c]).map_err(|m| match src {
                Some(src) => a.error(src, m),
                // Not met: the sweep was loaded, so every place was set once already.
                None => {
                    ScenarioError { file: file.to_string(), line: 0, col: 0, field: sweep_field(&a.key), message: m }
                }
            })?;
        }
        Ok(d)
    };
    let mut d = set(&grid.doc)?;
    let scenario = match parse_scenario(file, &d.to_string(), &grid.stem) {
        Ok(sc) => sc,
        Err(_) => return Err(parse_scenario(file, &set(&grid.full)?.to_string(), &grid.stem).expect_err("as above")),
    };
    let root = d.as_table_mut();
    if !root.contains_key("name") {
        root.insert("name", toml_edit::value(scenario.name.clone()));
    }
    let mut text = format!("# {file}, sweep point {index}: {}\n", describe(keys, values));
    text.push_str(&d.to_string());
    if !text.ends_with('\n') {
        text.push('\n');
    }
    Ok(Built { scenario, text })
}

fn describe(keys: &[String], values: &[String]) -> String {
    if keys.is_empty() {
        return "the base values".to_string();
    }
    keys.iter().zip(values).map(|(k, v)| format!("{k} = {v}")).collect::<Vec<_>>().join(", ")
}

/// At most [`BRIEF`] characters of `s`, and how many more there were: an error names a point by
/// its values, and a value may be a million-entry list.
fn brief(s: &str) -> String {
    match s.char_indices().nth(BRIEF) {
        Some((at, _)) => format!("{}... ({} more characters)", &s[..at], s[at..].chars().count()),
        None => s.to_string(),
    }
}

const BRIEF: usize = 200;

/// Whether a scenario text has a `[sweep]` table (false if it is not valid TOML).
pub fn has_sweep(text: &str) -> bool {
    ImDocument::parse(text).map(|d| d.as_table().contains_key("sweep")).unwrap_or(false)
}

/// Reads a scenario file and checks its sweep and every point of it. A file without `[sweep]`
/// is a sweep of one point.
pub fn load_sweep(path: &Path) -> Result<Sweep, ScenarioError> {
    let file = path.display().to_string();
    let text = crate::text_file::read(path, crate::text_file::MAX_SCENARIO_BYTES, "a scenario file")
        .map_err(|message| ScenarioError { file: file.clone(), line: 0, col: 0, field: String::new(), message })?;
    points_of_text(&file, &text)
}

/// Replications of a scenario: its base values (a `[sweep]` table it has is left out) at `reps`
/// seeds from `first`, one point each, the seed the only axis.
pub fn replications(file: &str, text: &str, first: u64, reps: usize) -> Result<Sweep, ScenarioError> {
    seeded(file, text, first, reps, false)
}

/// A sweep with replications: the file's grid with `reps` seeds from `first` as its last axis
/// (a `seed` axis the file gives is replaced).
pub fn replicated(file: &str, text: &str, first: u64, reps: usize) -> Result<Sweep, ScenarioError> {
    seeded(file, text, first, reps, true)
}

fn seeded(file: &str, text: &str, first: u64, reps: usize, grid: bool) -> Result<Sweep, ScenarioError> {
    // Before the seeds are listed: 10^12 of them would not fit in memory.
    if reps > MAX_POINTS {
        return Err(ScenarioError {
            file: file.to_string(),
            line: 0,
            col: 0,
            field: "reps".into(),
            message: format!("{reps} seeds; a sweep has at most {MAX_POINTS} points"),
        });
    }
    let mut doc: DocumentMut = match text.parse() {
        Ok(d) => d,
        // Let the scenario's own reading report what is wrong with it.
        Err(_) => return points_of_text(file, text),
    };
    let mut sweep = match doc.remove("sweep") {
        Some(Item::Table(t)) if grid => t,
        _ => Table::new(),
    };
    sweep.remove("seed");
    let seeds: toml_edit::Array = (0..reps as u64).map(|k| first.saturating_add(k) as i64).collect();
    sweep.insert("seed", Item::Value(Value::Array(seeds)));
    doc.insert("sweep", Item::Table(sweep));
    points_of_text(file, &doc.to_string())
}

/// The scenario `text` with `values` set, its `[sweep]` table left out: each value a key as
/// `[sweep]` writes it (`flow.cbr.rate`, `link[2].delay`, `seed`) and a TOML value (`"1Mb"`,
/// `3`). What Python's `fairway.run(..., overrides=...)` runs. An error in a value names the
/// key it was given for.
pub fn with_values(file: &str, text: &str, values: &[(String, String)]) -> Result<Built, ScenarioError> {
    let axes: Vec<(String, Vec<String>)> = values.iter().map(|(k, v)| (k.clone(), vec![v.clone()])).collect();
    points_of_text(file, &with_grid(file, text, &axes)?)?.build(0)
}

/// The scenario `text` with `axes` (each a key as `[sweep]` writes it and its values as TOML
/// values) as its `[sweep]` table, in place of one it has (none for no axes): the grid
/// Python's `fairway.campaign(..., grid=...)` gives.
pub fn with_grid(file: &str, text: &str, axes: &[(String, Vec<String>)]) -> Result<String, ScenarioError> {
    let mut doc: DocumentMut = match text.parse() {
        Ok(d) => d,
        // Let the scenario's own reading report what is wrong with it.
        Err(_) => return points_of_text(file, text).map(|_| text.to_string()),
    };
    doc.remove("sweep");
    if axes.is_empty() {
        return Ok(doc.to_string());
    }
    let mut grid = String::from("[sweep]\n");
    for (k, vs) in axes {
        let refuse =
            |message: String| ScenarioError { file: file.to_string(), line: 0, col: 0, field: k.clone(), message };
        if vs.is_empty() {
            return Err(refuse("no values".into()));
        }
        // One value, not more text: `x = <v>` must be a document of that one key.
        let one = |v: &String| format!("x = {v}").parse::<DocumentMut>().is_ok_and(|d| d.as_table().len() == 1);
        if let Some(v) = vs.iter().find(|v| !one(v)) {
            return Err(refuse(format!("`{v}` is not a TOML value")));
        }
        let key: toml_edit::Key = k.as_str().into();
        let _ = writeln!(grid, "{} = [{}]", key.display_repr(), vs.join(", "));
    }
    let text = format!("{}\n{grid}", doc.to_string().trim_end());
    points_of_text(file, &text)?;
    Ok(text)
}

/// [`load_sweep`] on text: `file` names it in errors and, without a `name` key, gives the
/// scenario's name (its file stem).
pub fn points_of_text(file: &str, text: &str) -> Result<Sweep, ScenarioError> {
    let stem = Path::new(file).file_stem().and_then(|s| s.to_str()).unwrap_or("scenario");
    // The base values must form a scenario too: it is what `fairway run` runs.
    parse_scenario(file, text, stem)?;
    let src = Source::new(file, text);
    let im = ImDocument::parse(text).map_err(|e| {
        let msg = e.message().trim().to_string();
        src.error(e.span(), "", format!("not valid TOML: {msg}"))
    })?;
    let doc: DocumentMut = im.clone().into_mut();
    let axes = axes(&src, im.as_table(), doc.as_table())?;

    let total = axes.iter().try_fold(1usize, |n, a| n.checked_mul(a.values.len())).filter(|n| *n <= MAX_POINTS);
    let Some(total) = total else {
        let sizes: Vec<String> = axes.iter().map(|a| a.values.len().to_string()).collect();
        let n = axes.iter().fold(1u128, |n, a| n.saturating_mul(a.values.len() as u128));
        let at = im.as_table().key("sweep").and_then(|k| k.span());
        let msg = format!("{} = {n} points; a sweep has at most {MAX_POINTS}", sizes.join(" x "));
        return Err(src.error(at, "sweep", msg));
    };

    let keys: Vec<String> = axes.iter().map(|a| a.key.clone()).collect();
    let width = (total.max(1) - 1).to_string().len();
    let mut base = doc.clone();
    base.as_table_mut().remove("sweep");
    let grid = Grid { stem: stem.to_string(), doc: base, full: doc, axes };
    let mut points = Vec::with_capacity(total);
    let mut name = None;
    let mut first_err: Option<ScenarioError> = None;
    let mut invalid = 0usize;
    // Every point is built and checked, one at a time, and only its values are kept.
    for index in 0..total {
        let choice = choice(&grid.axes, index);
        let values: Vec<String> = grid.axes.iter().zip(&choice).map(|(a, &c)| written(&a.values[c])).collect();
        match build(file, Some(&src), &grid, &keys, index, &choice, &values) {
            Ok(b) => {
                name.get_or_insert(b.scenario.name);
            }
            Err(e) => {
                invalid += 1;
                if first_err.is_none() {
                    first_err = Some(point_error(&src, &grid.axes, &choice, index, &keys, &values, e));
                }
                continue;
            }
        }
        if first_err.is_some() {
            continue;
        }
        let label = label(index, width, &keys, &values);
        points.push(Point { index, values, label });
    }
    if let Some(mut e) = first_err {
        if invalid > 1 {
            e.message.push_str(&format!(" ({invalid} of {total} points are invalid)"));
        }
        return Err(e);
    }
    let name = name.unwrap_or_else(|| stem.to_string());
    let units = grid.axes.iter().map(|a| axis_unit(&a.key, &a.values)).collect();
    Ok(Sweep { file: file.to_string(), name, keys, points, units, grid })
}

/// One swept key: where it points and its candidate values.
#[derive(Debug, Clone)]
struct Axis {
    key: String,
    key_span: Option<Range<usize>>,
    /// The resolved place: keys and indices from the document's root.
    steps: Vec<Seg>,
    /// The place as the parser names fields (`flow[1].rate`), to recognise its errors.
    field: String,
    values: Vec<Value>,
    value_spans: Vec<Option<Range<usize>>>,
}

impl Axis {
    fn error(&self, src: &Source, message: impl Into<String>) -> ScenarioError {
        src.error(self.key_span.clone(), &sweep_field(&self.key), message)
    }
}

fn sweep_field(key: &str) -> String {
    if key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        format!("sweep.{key}")
    } else {
        format!("sweep.\"{key}\"")
    }
}

/// The swept keys of `[sweep]`, checked and resolved against the file. `im` gives positions,
/// `doc` the values (the same text, so the two walk alike).
fn axes(src: &Source, im: &Table, doc: &Table) -> Result<Vec<Axis>, ScenarioError> {
    let (Some((key, im_item)), Some(doc_item)) = (im.get_key_value("sweep"), doc.get("sweep")) else {
        return Ok(vec![]);
    };
    let (Some(im_t), Some(doc_t)) = (im_item.as_table_like(), doc_item.as_table_like()) else {
        return Err(src.error(
            key.span(),
            "sweep",
            "`sweep` must be a table of lists, e.g. [sweep] with seed = [1, 2, 3]",
        ));
    };
    let (mut im_leaves, mut doc_leaves) = (vec![], vec![]);
    flatten(im_t, "", &mut im_leaves);
    flatten(doc_t, "", &mut doc_leaves);
    let mut out: Vec<Axis> = vec![];
    for ((key, key_span, im_item), (_, _, doc_item)) in im_leaves.into_iter().zip(doc_leaves) {
        let err = |m: String| src.error(key_span.clone(), &sweep_field(&key), m);
        let (Some(im_arr), Some(doc_arr)) = (im_item.as_array(), doc_item.as_array()) else {
            return Err(err("expected a list of candidate values, e.g. [1, 2, 3]".into()));
        };
        if doc_arr.is_empty() {
            return Err(err("an empty list gives no points".into()));
        }
        let segs = parse_path(&key).map_err(|m| {
            err(format!(
                "{m}; a sweep key is a path to a value of this file, e.g. `seed`, `link[2].rate`, `flow.udp.rate`"
            ))
        })?;
        if matches!(segs.first(), Some(Seg::Key(k)) if k == "sweep") {
            return Err(err("`sweep` cannot sweep itself".into()));
        }
        let (steps, field) = resolve(im, &segs).map_err(err)?;
        if let Some(prev) = out.iter().find(|a| a.field == field) {
            return Err(err(format!("`{key}` and `{}` are the same value ({field})", prev.key)));
        }
        out.push(Axis {
            key,
            key_span,
            steps,
            field,
            values: doc_arr.iter().cloned().collect(),
            value_spans: im_arr.iter().map(|v| v.span()).collect(),
        });
    }
    Ok(out)
}

/// The leaves of the sweep table: `"flow.udp.rate" = [...]` and the dotted form
/// `flow.udp.rate = [...]` both give the key `flow.udp.rate`.
fn flatten<'a>(t: &'a dyn TableLike, prefix: &str, out: &mut Vec<(String, Option<Range<usize>>, &'a Item)>) {
    for (k, item) in t.iter() {
        let path = if prefix.is_empty() { k.to_string() } else { format!("{prefix}.{k}") };
        match item.as_table_like() {
            Some(sub) => flatten(sub, &path, out),
            None => {
                let span = t.get_key_value(k).and_then(|(key, _)| key.span()).or_else(|| item.span());
                out.push((path, span, item));
            }
        }
    }
}
/// A value as the user wrote it: strings without their quotes, anything else in TOML.
fn written(v: &Value) -> String {
    match v.as_str() {
        Some(s) => s.to_string(),
        None => v.clone().decorated("", "").to_string().trim().to_string(),
    }
}

/// An invalid point: the parser's error, prefixed with the point's values. If the error is
/// about a swept value, it points at that candidate in `[sweep]`.
fn point_error(
    src: &Source,
    axes: &[Axis],
    choice: &[usize],
    index: usize,
    keys: &[String],
    values: &[String],
    e: ScenarioError,
) -> ScenarioError {
    let field = strip_count_instances(&e.field);
    let about = axes.iter().zip(choice).find(|(a, _)| {
        field == a.field || field.starts_with(&format!("{}.", a.field)) || field.starts_with(&format!("{}[", a.field))
    });
    let (line, col) = match about {
        Some((a, &c)) => a.value_spans[c].clone().map_or((e.line, e.col), |s| src.line_col(s.start)),
        None => (e.line, e.col),
    };
    let inner = if e.field.is_empty() { e.message } else { format!("{}: {}", e.field, e.message) };
    ScenarioError {
        file: e.file,
        line,
        col,
        field: String::new(),
        message: format!("sweep point {index} ({}): {inner}", brief(&describe(keys, values))),
    }
}

/// `flow[1](i=3).rate` (an entry of a `count` group) as `flow[1].rate`.
fn strip_count_instances(field: &str) -> String {
    let mut out = String::with_capacity(field.len());
    let mut rest = field;
    while let Some(at) = rest.find("(i=") {
        out.push_str(&rest[..at]);
        rest = rest[at..].find(')').map_or("", |end| &rest[at + end + 1..]);
    }
    out.push_str(rest);
    out
}

/// `<index>_<key>=<value>_...`: ASCII letters, digits and `-_.+=` only; the index (zero-padded
/// so that folders sort in point order) keeps labels unique.
fn label(index: usize, width: usize, keys: &[String], values: &[String]) -> String {
    fn safe(s: &str, max: usize) -> String {
        let mut out = String::new();
        for c in s.replace("->", "-").chars().filter(|c| !matches!(c, '[' | ']' | '"' | '\'')) {
            let c = if c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '+') { c } else { '_' };
            if !(c == '_' && (out.is_empty() || out.ends_with('_'))) {
                out.push(c);
            }
        }
        out.truncate(max);
        out.trim_end_matches('_').to_string()
    }
    let mut s = format!("{index:0width$}");
    for (k, v) in keys.iter().zip(values) {
        let _ = write!(s, "_{}={}", safe(k, 40), safe(v, 40));
    }
    s.truncate(200);
    s
}

#[cfg(test)]
mod tests {
    use super::run::csv_field;
    use super::*;

    #[test]
    fn paths_parse_into_keys_and_indices() {
        use Seg::*;
        assert_eq!(parse_path("seed").unwrap(), vec![Key("seed".into())]);
        assert_eq!(
            parse_path("link[2].queue.limit").unwrap(),
            vec![Key("link".into()), Index(2), Key("queue".into()), Key("limit".into())]
        );
        assert_eq!(
            parse_path("flow.\"my.flow\".rate").unwrap(),
            vec![Key("flow".into()), Key("my.flow".into()), Key("rate".into())]
        );
        assert_eq!(parse_path("monitor.links[0]").unwrap(), vec![Key("monitor".into()), Key("links".into()), Index(0)]);
        for bad in ["", "link[x].rate", "link[2", "a..b", "a.", "a b", "\"open"] {
            assert!(parse_path(bad).is_err(), "{bad}");
        }
    }

    /// Replications leave a file's own grid out: the seed is their only axis.
    #[test]
    fn replications_are_the_base_values_at_consecutive_seeds() {
        let text = "duration = \"1s\"\n[[link]]\nbetween = [\"a\", \"b\"]\nrate = \"1Mb\"\ndelay = \"1ms\"\n\
[[flow]]\nname = \"u\"\napp = \"cbr\"\nfrom = \"a\"\nto = \"b\"\nrate = \"0.1Mb\"\n\
[sweep]\n\"flow.u.rate\" = [\"0.2Mb\", \"0.3Mb\"]\nseed = [9]\n";
        assert_eq!(points_of_text("t.toml", text).unwrap().points.len(), 2);
        let s = replications("t.toml", text, 7, 3).unwrap();
        assert_eq!(s.keys, ["seed"]);
        let seeds: Vec<&str> = s.points.iter().map(|p| p.values[0].as_str()).collect();
        assert_eq!(seeds, ["7", "8", "9"]);
        let built = s.build(1).unwrap();
        assert_eq!(built.scenario.seed, 8);
        assert_eq!(built.scenario.flows[0].name, "u");
    }

    /// A sweep with replications keeps its grid and puts the seeds last, in place of its own.
    #[test]
    fn a_replicated_sweep_keeps_its_grid_with_the_seeds_last() {
        let text = "duration = \"1s\"\n[[link]]\nbetween = [\"a\", \"b\"]\nrate = \"1Mb\"\ndelay = \"1ms\"\n\
[[flow]]\nname = \"u\"\napp = \"cbr\"\nfrom = \"a\"\nto = \"b\"\nrate = \"0.1Mb\"\n\
[sweep]\nseed = [9]\n\"flow.u.rate\" = [\"0.2Mb\", \"0.3Mb\"]\n";
        let s = replicated("t.toml", text, 1, 2).unwrap();
        assert_eq!(s.keys, ["flow.u.rate", "seed"]);
        let values: Vec<Vec<&str>> = s.points.iter().map(|p| p.values.iter().map(String::as_str).collect()).collect();
        assert_eq!(values, [["0.2Mb", "1"], ["0.2Mb", "2"], ["0.3Mb", "1"], ["0.3Mb", "2"]]);
    }

    /// Values set by key: the point's own file has them and no `[sweep]`; a bad value is
    /// refused under its key, and a key that names nothing too.
    #[test]
    fn values_set_by_key_make_a_scenario_of_their_own() {
        let text = "duration = \"1s\"\n[[link]]\nbetween = [\"a\", \"b\"]\nrate = \"1Mb\"\ndelay = \"1ms\"\n\
[[flow]]\nname = \"u\"\napp = \"cbr\"\nfrom = \"a\"\nto = \"b\"\nrate = \"0.1Mb\"\n\
[sweep]\n\"flow.u.rate\" = [\"0.2Mb\", \"0.3Mb\"]\n";
        let values = [("flow.u.rate".to_string(), "\"0.5Mb\"".to_string()), ("seed".to_string(), "4".to_string())];
        let b = with_values("t.toml", text, &values).unwrap();
        assert_eq!(b.scenario.seed, 4);
        assert!(!b.text.contains("[sweep]") && b.text.contains("rate = \"0.5Mb\""), "{}", b.text);
        let plain = with_values("t.toml", text, &[]).unwrap();
        assert!(!plain.text.contains("[sweep]") && plain.text.contains("rate = \"0.1Mb\""));
        let e = with_values("t.toml", text, &[("flow.u.rate".into(), "\"fast\"".into())]).unwrap_err();
        assert!(e.to_string().contains("flow.u.rate"), "{e}");
        let e = with_values("t.toml", text, &[("flow.nope.rate".into(), "\"1Mb\"".into())]).unwrap_err();
        assert!(e.to_string().contains("nope"), "{e}");
        for bad in ["[oops", "1\nduration = \"9s\""] {
            let e = with_values("t.toml", text, &[("seed".into(), bad.into())]).unwrap_err();
            assert_eq!((e.field.as_str(), e.message.clone()), ("seed", format!("`{bad}` is not a TOML value")));
        }
        let grid = [("flow.u.rate".to_string(), vec!["\"0.2Mb\"".to_string(), "\"0.4Mb\"".to_string()])];
        let g = with_grid("t.toml", text, &grid).unwrap();
        assert_eq!(points_of_text("t.toml", &g).unwrap().points.len(), 2);
        assert_eq!(with_grid("t.toml", text, &[("seed".into(), vec![])]).unwrap_err().message, "no values");
    }

    #[test]
    fn count_instances_are_stripped_from_fields() {
        assert_eq!(strip_count_instances("flow[1](i=3).rate"), "flow[1].rate");
        assert_eq!(strip_count_instances("link[0].queue.thresh"), "link[0].queue.thresh");
    }

    #[test]
    fn labels_are_file_name_safe_and_sorted_by_index() {
        let keys = vec!["link[2].rate".to_string(), "flow.udp.rate".to_string()];
        let values = vec!["1.5 Mb/s".to_string(), "0.3Mb".to_string()];
        assert_eq!(label(3, 2, &keys, &values), "03_link2.rate=1.5_Mb_s_flow.udp.rate=0.3Mb");
        assert_eq!(label(1, 1, &["monitor.links[0]".to_string()], &["r1->r2".to_string()]), "1_monitor.links0=r1-r2");
        assert_eq!(label(0, 1, &[], &[]), "0");
        let queue = vec!["{ kind = \"red\", q_weight = 0.002 }".to_string()];
        assert_eq!(label(7, 1, &["link[2].queue".to_string()], &queue), "7_link2.queue=kind_red_q_weight_0.002");
    }

    #[test]
    fn csv_fields_with_commas_or_quotes_are_quoted() {
        assert_eq!(csv_field("0.3Mb"), "0.3Mb");
        assert_eq!(csv_field("[1, 2]"), "\"[1, 2]\"");
        assert_eq!(csv_field("a\"b"), "\"a\"\"b\"");
    }
}
