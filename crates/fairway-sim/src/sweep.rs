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
use std::fs;
use std::ops::Range;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use toml_edit::{DocumentMut, ImDocument, Item, Table, TableLike, Value};

use crate::results::{RunResult, Summary};
use crate::scenario::reader::Source;
use crate::scenario::{parse_scenario, Scenario, ScenarioError};
use crate::{output, RunOptions};

/// Largest number of points a sweep may have: a typo such as `seed = [1, 2, ..., 100000]` times
/// another long list should be an error, not a run that never ends.
pub const MAX_POINTS: usize = 100_000;

/// The name of the combined CSV in a sweep's output folder.
pub const SWEEP_CSV: &str = "sweep.csv";

/// A sweep: the grid of a scenario file's `[sweep]` table, every point checked.
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
}

/// One point of a sweep.
#[derive(Debug, Clone)]
pub struct Point {
    pub index: usize,
    /// One value per key, as written (strings without their quotes).
    pub values: Vec<String>,
    /// The point's folder name: `<index>_<key>=<value>_...`, file-name safe and deterministic.
    pub label: String,
    pub scenario: Scenario,
    /// The point as a scenario file of its own: the base with its values set, without
    /// `[sweep]`. Written as `scenario.toml` in the point's folder.
    pub text: String,
}

impl Sweep {
    /// "flow.udp.rate = 0.3Mb, seed = 2": the values of a point, for messages.
    pub fn describe(&self, point: usize) -> String {
        describe(&self.keys, &self.points[point].values)
    }
}

fn describe(keys: &[String], values: &[String]) -> String {
    if keys.is_empty() {
        return "the base values".to_string();
    }
    keys.iter().zip(values).map(|(k, v)| format!("{k} = {v}")).collect::<Vec<_>>().join(", ")
}

/// Whether a scenario text has a `[sweep]` table (false if it is not valid TOML).
pub fn has_sweep(text: &str) -> bool {
    ImDocument::parse(text).map(|d| d.as_table().contains_key("sweep")).unwrap_or(false)
}

/// Reads a scenario file and checks its sweep and every point of it. A file without `[sweep]`
/// is a sweep of one point.
pub fn load_sweep(path: &Path) -> Result<Sweep, ScenarioError> {
    let file = path.display().to_string();
    let text = fs::read_to_string(path).map_err(|e| ScenarioError {
        file: file.clone(),
        line: 0,
        col: 0,
        field: String::new(),
        message: format!("cannot read the file: {e}"),
    })?;
    points_of_text(&file, &text)
}

/// [`load_sweep`] on text: `file` names it in errors and, without a `name` key, gives the
/// scenario's name (its file stem).
pub fn points_of_text(file: &str, text: &str) -> Result<Sweep, ScenarioError> {
    let stem = Path::new(file).file_stem().and_then(|s| s.to_str()).unwrap_or("scenario");
    // The base values must form a scenario too: it is what `fairway run` runs.
    parse_scenario(file, text, stem)?;
    let src = Source { file, text };
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
    let mut points = Vec::with_capacity(total);
    let mut first_err: Option<ScenarioError> = None;
    let mut invalid = 0usize;
    for index in 0..total {
        // Mixed radix, the last key fastest.
        let mut choice = vec![0; axes.len()];
        let mut rest = index;
        for (k, a) in axes.iter().enumerate().rev() {
            choice[k] = rest % a.values.len();
            rest /= a.values.len();
        }
        let mut d = doc.clone();
        for (a, &c) in axes.iter().zip(&choice) {
            set_value(d.as_item_mut(), &a.steps, &a.values[c]).map_err(|m| a.error(&src, m))?;
        }
        let values: Vec<String> = axes.iter().zip(&choice).map(|(a, &c)| written(&a.values[c])).collect();
        // Checked with `[sweep]` still in place (the parser ignores it), so that lines in errors
        // are the file's own.
        let scenario = match parse_scenario(file, &d.to_string(), stem) {
            Ok(sc) => sc,
            Err(e) => {
                invalid += 1;
                if first_err.is_none() {
                    first_err = Some(point_error(&src, &axes, &choice, index, &keys, &values, e));
                }
                continue;
            }
        };
        if first_err.is_some() {
            continue;
        }
        let root = d.as_table_mut();
        root.remove("sweep");
        if !root.contains_key("name") {
            root.insert("name", toml_edit::value(scenario.name.clone()));
        }
        let mut text = format!("# {file}, sweep point {index}: {}\n", describe(&keys, &values));
        text.push_str(&d.to_string());
        if !text.ends_with('\n') {
            text.push('\n');
        }
        let label = label(index, width, &keys, &values);
        points.push(Point { index, values, label, scenario, text });
    }
    if let Some(mut e) = first_err {
        if invalid > 1 {
            e.message.push_str(&format!(" ({invalid} of {total} points are invalid)"));
        }
        return Err(e);
    }
    let name = points.first().map_or_else(|| stem.to_string(), |p| p.scenario.name.clone());
    Ok(Sweep { file: file.to_string(), name, keys, points })
}

/// One swept key: where it points and its candidate values.
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

/// One step of a path: a key of a table, or an index into a list.
#[derive(Debug, Clone, PartialEq)]
enum Seg {
    Key(String),
    Index(usize),
}

/// `seed`, `link[2].queue.limit`, `flow.udp.rate`, `flow."my flow".rate`.
fn parse_path(p: &str) -> Result<Vec<Seg>, String> {
    let bare = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    let mut segs = vec![];
    let mut it = p.trim().chars().peekable();
    loop {
        match it.peek() {
            Some('"') => {
                it.next();
                let mut k = String::new();
                loop {
                    match it.next() {
                        Some('"') => break,
                        Some(c) => k.push(c),
                        None => return Err(format!("`{p}`: unterminated quote")),
                    }
                }
                segs.push(Seg::Key(k));
            }
            Some(&c) if bare(c) => {
                let mut k = String::new();
                while let Some(&c) = it.peek().filter(|c| bare(**c)) {
                    k.push(c);
                    it.next();
                }
                segs.push(Seg::Key(k));
            }
            _ => return Err(format!("`{p}`: expected a key name")),
        }
        while it.peek() == Some(&'[') {
            it.next();
            let mut n = String::new();
            loop {
                match it.next() {
                    Some(']') => break,
                    Some(c) if c.is_ascii_digit() => n.push(c),
                    _ => return Err(format!("`{p}`: expected an index such as [2]")),
                }
            }
            segs.push(Seg::Index(n.parse().map_err(|_| format!("`{p}`: expected an index such as [2]"))?));
        }
        match it.next() {
            None => return Ok(segs),
            Some('.') => {}
            Some(c) => return Err(format!("`{p}`: unexpected `{c}`")),
        }
    }
}

/// A place in the document being walked, read-only.
#[derive(Clone, Copy)]
enum Node<'a> {
    Table(&'a dyn TableLike),
    Tables(&'a toml_edit::ArrayOfTables),
    Array(&'a toml_edit::Array),
    Scalar,
}

fn node_of_item(i: &Item) -> Node<'_> {
    match i {
        Item::Table(t) => Node::Table(t),
        Item::ArrayOfTables(a) => Node::Tables(a),
        Item::Value(v) => node_of_value(v),
        Item::None => Node::Scalar,
    }
}

fn node_of_value(v: &Value) -> Node<'_> {
    match v {
        Value::InlineTable(t) => Node::Table(t),
        Value::Array(a) => Node::Array(a),
        _ => Node::Scalar,
    }
}

/// The entries of a list: ([[flow]] tables or array elements) as nodes.
fn list<'a>(n: Node<'a>) -> Option<Vec<Node<'a>>> {
    match n {
        Node::Tables(a) => Some(a.iter().map(|t| Node::Table(t)).collect()),
        Node::Array(a) => Some(a.iter().map(node_of_value).collect()),
        _ => None,
    }
}

fn entry_name(n: Node) -> Option<String> {
    match n {
        Node::Table(t) => t.get("name").and_then(|v| v.as_str()).map(str::to_string),
        _ => None,
    }
}

/// Resolves a path against the file: the steps to the value (flows by name become indices) and
/// the field as the parser names it. The last key may be missing if its table exists (it is
/// then added, e.g. `stop` to a flow); anything else missing is an error.
fn resolve(root: &Table, segs: &[Seg]) -> Result<(Vec<Seg>, String), String> {
    let mut node = Node::Table(root);
    let mut field = String::new();
    let mut steps = vec![];
    for (i, seg) in segs.iter().enumerate() {
        let last = i + 1 == segs.len();
        let entries = list(node);
        match (seg, node, entries) {
            (Seg::Key(k), Node::Table(t), _) => {
                let f = if field.is_empty() { k.clone() } else { format!("{field}.{k}") };
                match t.get(k) {
                    Some(item) if last && !item.is_value() => {
                        return Err(format!("`{f}` is a table or a list of tables; sweep a value inside it"));
                    }
                    Some(item) => node = node_of_item(item),
                    None if last => node = Node::Scalar,
                    None => return Err(format!("`{f}` is not in the file")),
                }
                steps.push(seg.clone());
                field = f;
            }
            (Seg::Key(name), _, Some(entries)) => {
                let names: Vec<Option<String>> = entries.iter().map(|e| entry_name(*e)).collect();
                let matches = |n: &str| n == name || n.replace("{i}", "") == *name;
                let Some(j) = names.iter().position(|n| n.as_deref().is_some_and(matches)) else {
                    let known: Vec<&str> = names.iter().flatten().map(String::as_str).collect();
                    let known = if known.is_empty() { "none has a name".to_string() } else { known.join(", ") };
                    return Err(format!("no entry of `{field}` is named `{name}` (names: {known})"));
                };
                if last {
                    return Err(format!("`{field}.{name}` is a whole entry; sweep one of its values"));
                }
                node = entries[j];
                steps.push(Seg::Index(j));
                field = format!("{field}[{j}]");
            }
            (Seg::Index(j), _, Some(entries)) => {
                let Some(e) = entries.get(*j) else {
                    return Err(format!(
                        "`{field}` has {} entries (indices 0 to {})",
                        entries.len(),
                        entries.len() - 1
                    ));
                };
                if last && matches!(node, Node::Tables(_)) {
                    return Err(format!("`{field}[{j}]` is a whole entry; sweep one of its values"));
                }
                node = *e;
                steps.push(seg.clone());
                field = format!("{field}[{j}]");
            }
            (Seg::Index(_), _, None) => return Err(format!("`{field}` is not a list")),
            (Seg::Key(k), _, None) => {
                return Err(format!("`{field}` is a value, not a table: it has no `{k}`"));
            }
        }
    }
    Ok((steps, field))
}

/// A place in the document being edited.
enum Cur<'a> {
    Item(&'a mut Item),
    Value(&'a mut Value),
    Table(&'a mut Table),
}

fn step<'a>(c: Cur<'a>, s: &Seg) -> Option<Cur<'a>> {
    match (c, s) {
        (Cur::Item(i), Seg::Key(k)) => i.as_table_like_mut()?.get_mut(k).map(Cur::Item),
        (Cur::Item(Item::ArrayOfTables(a)), Seg::Index(j)) => a.get_mut(*j).map(Cur::Table),
        (Cur::Item(i), Seg::Index(j)) => i.as_array_mut()?.get_mut(*j).map(Cur::Value),
        (Cur::Value(v), Seg::Key(k)) => v.as_inline_table_mut()?.get_mut(k).map(Cur::Value),
        (Cur::Value(v), Seg::Index(j)) => v.as_array_mut()?.get_mut(*j).map(Cur::Value),
        (Cur::Table(t), Seg::Key(k)) => t.get_mut(k).map(Cur::Item),
        (Cur::Table(_), Seg::Index(_)) => None,
    }
}

/// Replaces a value, keeping the old one's surrounding whitespace and comments.
fn replace(old: &mut Value, new: &Value) {
    let decor = old.decor().clone();
    *old = new.clone();
    *old.decor_mut() = decor;
}

/// Sets the value at a resolved place (adding the last key if its table lacks it).
fn set_value(root: &mut Item, steps: &[Seg], v: &Value) -> Result<(), String> {
    let fail = || "cannot set this value (the file's structure differs from the path)".to_string();
    let (last, walk) = steps.split_last().ok_or_else(fail)?;
    let mut cur = Cur::Item(root);
    for s in walk {
        cur = step(cur, s).ok_or_else(fail)?;
    }
    match last {
        Seg::Key(k) => {
            let t: &mut dyn TableLike = match cur {
                Cur::Item(i) => i.as_table_like_mut().ok_or_else(fail)?,
                Cur::Value(val) => val.as_inline_table_mut().ok_or_else(fail)?,
                Cur::Table(t) => t,
            };
            if t.contains_key(k) {
                replace(t.get_mut(k).and_then(Item::as_value_mut).ok_or_else(fail)?, v);
            } else {
                t.insert(k, Item::Value(v.clone().decorated(" ", "")));
            }
        }
        Seg::Index(j) => {
            let arr = match cur {
                Cur::Item(i) => i.as_array_mut(),
                Cur::Value(val) => val.as_array_mut(),
                Cur::Table(_) => None,
            };
            replace(arr.and_then(|a| a.get_mut(*j)).ok_or_else(fail)?, v);
        }
    }
    Ok(())
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
        message: format!("sweep point {index} ({}): {inner}", describe(keys, values)),
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

/// How to run a sweep.
#[derive(Debug, Clone)]
pub struct SweepOptions {
    /// Worker threads (at least one; never more than the points).
    pub jobs: usize,
    /// Keep every point's whole [`RunResult`] (time series included) in the result, not only its
    /// summary.
    pub keep_runs: bool,
}

impl Default for SweepOptions {
    fn default() -> Self {
        SweepOptions { jobs: default_jobs(), keep_runs: false }
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
    /// The whole result, with [`SweepOptions::keep_runs`].
    pub run: Option<RunResult>,
}

/// What a sweep gave, in point order.
#[derive(Debug)]
pub struct SweepResult {
    /// `<out>/sweep.csv`.
    pub csv: PathBuf,
    pub points: Vec<PointRun>,
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
/// `out` and the combined `out/sweep.csv`. `progress(done, total)` is called on this thread
/// after each point. See [`run_sweep_with`].
pub fn run_sweep(
    s: &Sweep,
    out: &Path,
    jobs: usize,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<SweepResult, SweepError> {
    run_sweep_with(s, out, &SweepOptions { jobs, keep_runs: false }, progress)
}

/// Runs a sweep. A point whose run fails does not stop the others: they finish, sweep.csv is
/// written without the failed points' rows, and the result is [`SweepError::Failed`] naming
/// each failed point's values (it carries the whole result too).
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
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n || tx.send((i, run_point(s, i, out, opts.keep_runs))).is_err() {
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
            // Every index is taken by exactly one worker, which always sends its result.
            r.unwrap_or_else(|| PointRun {
                dir: out.join(&p.label),
                outcome: Err("not run (a worker stopped early)".into()),
                run: None,
            })
        })
        .collect();
    let csv = out.join(SWEEP_CSV);
    fs::write(&csv, sweep_csv(s, &points)).map_err(io(&csv))?;
    let failed: Vec<String> = points
        .iter()
        .enumerate()
        .filter_map(|(i, p)| p.outcome.as_ref().err().map(|e| format!("  point {i} ({}): {e}", s.describe(i))))
        .collect();
    let result = SweepResult { csv, points };
    if failed.is_empty() {
        Ok(result)
    } else {
        Err(SweepError::Failed { failed, result: Box::new(result) })
    }
}

/// Runs one point and writes its folder: `scenario.toml` first (so a failed point can be
/// rerun alone), then the normal results.
fn run_point(s: &Sweep, i: usize, out: &Path, keep: bool) -> PointRun {
    let p = &s.points[i];
    let dir = out.join(&p.label);
    let outcome = catch_unwind(AssertUnwindSafe(|| -> Result<RunResult, String> {
        let written = |e: std::io::Error| format!("writing {}: {e}", dir.display());
        fs::create_dir_all(&dir).map_err(written)?;
        fs::write(dir.join("scenario.toml"), &p.text).map_err(written)?;
        let res = crate::run(&p.scenario, &RunOptions::default(), &mut |_| {}).map_err(|e| e.to_string())?;
        output::write_all(&res, &p.scenario, &dir).map_err(written)?;
        Ok(res)
    }))
    .unwrap_or_else(|panic| {
        let msg = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Err(format!("the simulator panicked (a fairway bug; please report it with the scenario): {msg}"))
    });
    match outcome {
        Ok(res) if keep => PointRun { dir, outcome: Ok(res.summary.clone()), run: Some(res) },
        Ok(res) => PointRun { dir, outcome: Ok(res.summary), run: None },
        Err(e) => PointRun { dir, outcome: Err(e), run: None },
    }
}

/// The combined CSV: one row per point per flow, with the point's values and the first
/// monitored link's totals. Failed points have no rows.
pub fn sweep_csv(s: &Sweep, runs: &[PointRun]) -> String {
    let mut out = String::from("point");
    for k in &s.keys {
        out.push(',');
        out.push_str(&csv_field(k));
    }
    out.push_str(
        ",flow,group,class,kind,sent_pkts,recv_pkts,recv_distinct_pkts,dropped_pkts,throughput_bps,goodput_bps,mean_delay_s,jitter_s,link,link_drops_pkts,link_utilization,link_mean_queue_pkts\n",
    );
    let opt = |v: Option<f64>| v.filter(|v| v.is_finite()).map_or(String::new(), |v| format!("{v:.6}"));
    for (p, r) in s.points.iter().zip(runs) {
        let Ok(sum) = &r.outcome else { continue };
        let values: String = p.values.iter().map(|v| format!(",{}", csv_field(v))).collect();
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
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) || s.trim() != s {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
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
