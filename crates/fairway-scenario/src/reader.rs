//! A checked walk over a TOML document that keeps every value's position, so that each error
//! names the file, line and field (docs/architecture.md, "What passes between the parts").
//!
//! Tables track which keys were read; [`Tbl::finish`] turns any key left over into an "unknown
//! key" error that lists the keys that would have been accepted.

use std::cell::RefCell;
use std::fmt;
use std::ops::Range;
use std::rc::Rc;

use fairway_core::{Bytes, Dur, Rate, Time};
use toml_edit::{Item, TableLike, Value};

/// A scenario file that failed a check. Display: `file:line:col: field: message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioError {
    pub file: String,
    pub line: usize,
    pub col: usize,
    /// The field as a path, e.g. `flow[2].interval` or `link[0].queue.thresh`.
    pub field: String,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            // Not about a place in the text (e.g. the file cannot be read).
            return write!(f, "{}: {}", self.file, self.message);
        }
        if self.field.is_empty() {
            write!(f, "{}:{}:{}: {}", self.file, self.line, self.col, self.message)
        } else {
            write!(f, "{}:{}:{}: {}: {}", self.file, self.line, self.col, self.field, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}

/// The text being read and its name, to turn byte spans into line and column; and the
/// warnings its values gave as they were read (a value without its unit).
pub struct Source<'s> {
    pub file: &'s str,
    pub text: &'s str,
    warnings: RefCell<Vec<ScenarioError>>,
}

impl<'s> Source<'s> {
    pub fn new(file: &'s str, text: &'s str) -> Source<'s> {
        Source { file, text, warnings: RefCell::new(vec![]) }
    }

    /// The warnings given while reading, in reading order, each place once.
    pub fn take_warnings(&self) -> Vec<ScenarioError> {
        self.warnings.take()
    }

    /// A warning at `span`, unless that place already has one (a `count = N` entry reads its
    /// values N times).
    fn warn(&self, span: Option<Range<usize>>, field: &str, message: String) {
        let w = self.error(span, field, message);
        let mut ws = self.warnings.borrow_mut();
        if !ws.iter().any(|x| x.line == w.line && x.col == w.col) {
            ws.push(w);
        }
    }

    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let before = &self.text[..offset];
        let line = before.bytes().filter(|b| *b == b'\n').count() + 1;
        let col = before.rfind('\n').map_or(offset, |nl| offset - nl - 1) + 1;
        (line, col)
    }

    pub fn error(&self, span: Option<Range<usize>>, field: &str, message: impl Into<String>) -> ScenarioError {
        let (line, col) = span.map_or((1, 1), |s| self.line_col(s.start));
        ScenarioError { file: self.file.to_string(), line, col, field: field.to_string(), message: message.into() }
    }
}

pub type Res<T> = Result<T, ScenarioError>;

/// Substitution of `{i}` in strings, for entries declared with `count = N`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Subst {
    pub index: Option<u64>,
}

impl Subst {
    pub fn apply(&self, s: &str) -> String {
        let Some(i) = self.index else { return s.to_string() };
        // By hand rather than `str::replace` or `find`, whose substring search costs more to set
        // up than these short names take to scan, and a `count` group of ten thousand entries
        // substitutes in every one of them.
        let b = s.as_bytes();
        let mut out = String::with_capacity(s.len() + 8);
        let (mut from, mut k) = (0, 0);
        while k + 3 <= b.len() {
            if &b[k..k + 3] == b"{i}" {
                // `{` is ASCII, so `k` is a character boundary.
                out.push_str(&s[from..k]);
                fairway_model::decimal::push_u64(&mut out, i);
                k += 3;
                from = k;
            } else {
                k += 1;
            }
        }
        out.push_str(&s[from..]);
        out
    }
}

/// Where a table sits in the document, e.g. `link[3]` or `flow[1](i=7)`. It becomes a string
/// only for a message: a `count = 10000` group reads its table ten thousand times, and building
/// each field's path on every read was a good part of reading such a file.
#[derive(Debug, Clone, Default)]
pub struct Place {
    base: Rc<str>,
    /// The entry of a `count = N` group.
    index: Option<u64>,
}

impl Place {
    pub fn render(&self) -> String {
        match self.index {
            Some(i) => format!("{}(i={i})", self.base),
            None => self.base.to_string(),
        }
    }

    /// The path of `key` in this table.
    fn field(&self, key: &str) -> String {
        match (self.base.is_empty(), self.index) {
            (true, _) => key.to_string(),
            (false, None) => format!("{}.{key}", self.base),
            (false, Some(i)) => format!("{}(i={i}).{key}", self.base),
        }
    }
}

/// The kind of a value with a unit, for the warning about one written without it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    Time,
    Rate,
    Size,
}

/// A table (standard or inline) being read.
pub struct Tbl<'a> {
    src: &'a Source<'a>,
    place: Place,
    table: &'a dyn TableLike,
    span: Option<Range<usize>>,
    subst: Subst,
    /// The keys read so far.
    used: RefCell<Vec<&'a str>>,
}

/// One value being read, with where it came from: key `key` of the table at `place`.
pub struct Val<'a> {
    src: &'a Source<'a>,
    place: Place,
    key: &'a str,
    item: &'a Item,
    span: Option<Range<usize>>,
    subst: Subst,
}

impl<'a> Tbl<'a> {
    pub fn root(src: &'a Source<'a>, table: &'a dyn TableLike, span: Option<Range<usize>>) -> Tbl<'a> {
        Tbl { src, place: Place::default(), table, span, subst: Subst::default(), used: RefCell::new(vec![]) }
    }

    pub fn with_subst(mut self, subst: Subst) -> Tbl<'a> {
        self.subst = subst;
        self
    }

    /// This table's path, e.g. `link[3]` or `flow[1](i=7)`.
    pub fn path(&self) -> String {
        self.place.render()
    }

    /// Where this table is, cheap to keep: [`Place::render`] makes it the path.
    pub fn place(&self) -> Place {
        self.place.clone()
    }

    pub fn subst(&self) -> Subst {
        self.subst
    }

    /// An error located at this table.
    pub fn error(&self, message: impl Into<String>) -> ScenarioError {
        self.src.error(self.span.clone(), &self.place.render(), message)
    }

    pub fn has(&self, key: &str) -> bool {
        self.table.get(key).is_some()
    }

    pub fn get(&self, key: &str) -> Option<Val<'a>> {
        let (k, item) = self.table.get_key_value(key)?;
        self.used.borrow_mut().push(k.get());
        let span = item.span().or_else(|| k.span());
        Some(Val { src: self.src, place: self.place.clone(), key: k.get(), item, span, subst: self.subst })
    }

    pub fn req(&self, key: &str) -> Res<Val<'a>> {
        self.get(key).ok_or_else(|| self.src.error(self.span.clone(), &self.place.field(key), "missing required key"))
    }

    /// The same table, read afresh (keys read so far are forgotten).
    pub fn instance_plain(&self) -> Tbl<'a> {
        Tbl {
            src: self.src,
            place: self.place.clone(),
            table: self.table,
            span: self.span.clone(),
            subst: self.subst,
            used: RefCell::new(vec![]),
        }
    }

    /// The same table read again as entry `i` of a `count = N` group: `{i}` in its strings
    /// becomes `i`.
    pub fn instance(&self, i: u64) -> Tbl<'a> {
        Tbl {
            src: self.src,
            place: Place { base: self.place.base.clone(), index: Some(i) },
            table: self.table,
            span: self.span.clone(),
            subst: Subst { index: Some(i) },
            // Room for every key of the entry, so that reading them does not regrow it.
            used: RefCell::new(Vec::with_capacity(self.table.len())),
        }
    }

    /// The keys whose values contain `pat` in a string anywhere inside them (in arrays and
    /// nested tables too).
    pub fn keys_mentioning(&self, pat: &str) -> Vec<&'a str> {
        fn value_has(v: &Value, pat: &str) -> bool {
            match v {
                Value::String(s) => s.value().contains(pat),
                Value::Array(a) => a.iter().any(|v| value_has(v, pat)),
                Value::InlineTable(t) => t.iter().any(|(_, v)| value_has(v, pat)),
                _ => false,
            }
        }
        fn item_has(i: &Item, pat: &str) -> bool {
            match i {
                Item::Value(v) => value_has(v, pat),
                Item::Table(t) => t.iter().any(|(_, i)| item_has(i, pat)),
                Item::ArrayOfTables(a) => a.iter().any(|t| t.iter().any(|(_, i)| item_has(i, pat))),
                Item::None => false,
            }
        }
        self.table.iter().filter(|(_, item)| item_has(item, pat)).map(|(k, _)| k).collect()
    }

    /// Fails on the first key that was never read, naming the keys this table accepts.
    pub fn finish(&self, accepted: &[&str]) -> Res<()> {
        let used = self.used.borrow();
        for (key, item) in self.table.iter() {
            if used.contains(&key) {
                continue;
            }
            let span = self.table.get_key_value(key).and_then(|(k, _)| k.span()).or_else(|| item.span());
            let mut msg = format!("unknown key `{key}`");
            if let Some(close) = closest(key, accepted) {
                msg.push_str(&format!(" (did you mean `{close}`?)"));
            }
            if !accepted.is_empty() {
                msg.push_str(&format!("; accepted here: {}", accepted.join(", ")));
            }
            return Err(self.src.error(span, &self.place.field(key), msg));
        }
        Ok(())
    }
}

/// The accepted key nearest to a misspelt one (edit distance at most 2).
fn closest<'k>(key: &str, accepted: &[&'k str]) -> Option<&'k str> {
    fn dist(a: &str, b: &str) -> usize {
        let a: Vec<char> = a.chars().collect();
        let b: Vec<char> = b.chars().collect();
        let mut prev: Vec<usize> = (0..=b.len()).collect();
        for i in 1..=a.len() {
            let mut cur = vec![i; b.len() + 1];
            for j in 1..=b.len() {
                let c = usize::from(a[i - 1] != b[j - 1]);
                cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + c);
            }
            prev = cur;
        }
        prev[b.len()]
    }
    accepted.iter().map(|a| (dist(key, a), *a)).filter(|(d, _)| *d <= 2).min().map(|(_, a)| a)
}

impl<'a> Val<'a> {
    /// This value's path, e.g. `link[0].queue.thresh`.
    pub fn path(&self) -> String {
        self.place.field(self.key)
    }

    pub fn error(&self, message: impl Into<String>) -> ScenarioError {
        self.src.error(self.span.clone(), &self.path(), message)
    }

    fn value(&self) -> Option<&'a Value> {
        self.item.as_value()
    }

    fn kind(&self) -> &'static str {
        match self.item {
            Item::None => "nothing",
            Item::Table(_) => "a table",
            Item::ArrayOfTables(_) => "an array of tables",
            Item::Value(v) => match v {
                Value::String(_) => "a string",
                Value::Integer(_) => "an integer",
                Value::Float(_) => "a float",
                Value::Boolean(_) => "a boolean",
                Value::Datetime(_) => "a date",
                Value::Array(_) => "an array",
                Value::InlineTable(_) => "an inline table",
            },
        }
    }

    fn expected(&self, what: &str) -> ScenarioError {
        self.error(format!("expected {what}, found {}", self.kind()))
    }

    pub fn is_str(&self) -> bool {
        matches!(self.value(), Some(Value::String(_)))
    }

    pub fn is_table(&self) -> bool {
        self.item.is_table_like()
    }

    /// An array, of values or of tables.
    pub fn is_array(&self) -> bool {
        matches!(self.item, Item::ArrayOfTables(_) | Item::Value(Value::Array(_)))
    }

    /// The string as written, without `{i}` substitution.
    pub fn raw_string(&self) -> Res<&'a str> {
        match self.value() {
            Some(Value::String(s)) => Ok(s.value()),
            _ => Err(self.expected("a string")),
        }
    }

    pub fn string(&self) -> Res<String> {
        match self.value() {
            Some(Value::String(s)) => Ok(self.subst.apply(s.value())),
            _ => Err(self.expected("a string")),
        }
    }

    /// A non-empty identifier-like name (letters, digits, `_`, `-`, `.`).
    pub fn name(&self) -> Res<String> {
        let s = self.string()?;
        if s.is_empty() {
            return Err(self.error("must not be empty"));
        }
        if s.chars().all(|c| c == '.') {
            // A scenario's name is its default results folder: `..` would be the parent.
            return Err(self.error(format!("`{s}` is not a name (it would be a folder of the path)")));
        }
        if let Some(c) = s.chars().find(|c| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))) {
            return Err(
                self.error(format!("`{s}`: character `{c}` is not allowed in a name (use letters, digits, _ - .)"))
            );
        }
        Ok(s)
    }

    pub fn bool(&self) -> Res<bool> {
        match self.value() {
            Some(Value::Boolean(b)) => Ok(*b.value()),
            _ => Err(self.expected("true or false")),
        }
    }

    pub fn int(&self) -> Res<i64> {
        match self.value() {
            Some(Value::Integer(i)) => Ok(*i.value()),
            _ => Err(self.expected("an integer")),
        }
    }

    /// An integer in `[min, max]`.
    pub fn int_in(&self, min: i64, max: i64) -> Res<i64> {
        let v = self.int()?;
        if v < min || v > max {
            return Err(self.error(format!("{v} is out of range: expected {min} to {max}")));
        }
        Ok(v)
    }

    pub fn u32_min(&self, min: u32) -> Res<u32> {
        Ok(self.int_in(min as i64, u32::MAX as i64)? as u32)
    }

    pub fn u64(&self) -> Res<u64> {
        Ok(self.int_in(0, i64::MAX)? as u64)
    }

    /// A finite number (integer or float).
    pub fn f64(&self) -> Res<f64> {
        let v = match self.value() {
            Some(Value::Integer(i)) => *i.value() as f64,
            Some(Value::Float(f)) => *f.value(),
            _ => return Err(self.expected("a number")),
        };
        if !v.is_finite() {
            return Err(self.error("must be a finite number"));
        }
        Ok(v)
    }

    /// A value with a unit, as a string ("10ms") or a bare number in the base unit (seconds,
    /// b/s, bytes). Both go through the same parser, so a number is held to the same range.
    /// A value other than zero without its unit is read in the base unit with a warning that
    /// says so (`delay = "10"` is ten seconds), except a size given as a bare number: a size
    /// has bytes for its one usual unit, and ns-2's scripts write it so.
    fn unit<T>(&self, what: Unit, parse: impl Fn(&str) -> Result<T, fairway_core::UnitError>) -> Res<T> {
        match self.value() {
            Some(Value::String(s)) => {
                let text = self.subst.apply(s.value());
                let t = parse(&text).map_err(|e| self.error(e.to_string()))?;
                if let Ok(v) = text.trim().parse::<f64>() {
                    self.unitless(what, v, &format!("\"{}\"", text.trim()));
                }
                Ok(t)
            }
            Some(Value::Integer(_)) | Some(Value::Float(_)) => {
                let v = self.f64()?;
                if what != Unit::Size {
                    self.unitless(what, v, &format!("{v}"));
                }
                if v < 0.0 {
                    return Err(self.error(format!("{v} is negative")));
                }
                // `{v}` writes every digit (1e300 as 1 and 300 zeros): the error shows `{v:e}`.
                parse(&format!("{v}")).map_err(|e| {
                    self.error(match e {
                        fairway_core::UnitError::TooLarge { .. } => format!("{v:e} is too large"),
                        fairway_core::UnitError::Fractional { unit, .. } => {
                            format!("{v} is not a whole number of {unit}")
                        }
                        e => e.to_string(),
                    })
                })
            }
            _ => Err(self.expected("a string with a unit")),
        }
    }

    /// The warning for a value without its unit, `v` as written.
    fn unitless(&self, what: Unit, v: f64, written: &str) {
        if v == 0.0 {
            return;
        }
        let (unit, e1, e2) = match what {
            Unit::Time => ("seconds", "s", "ms"),
            Unit::Rate => ("bits per second", "Mb", "kb"),
            Unit::Size => ("bytes", "B", "KB"),
        };
        self.src.warn(
            self.span.clone(),
            &self.path(),
            format!("{written} has no unit, so it is read as {v} {unit}; write the unit to say which (\"{v}{e1}\", \"{v}{e2}\", ...)"),
        );
    }

    /// A duration: "10ms", "0.005s"; a bare number is seconds.
    pub fn dur(&self) -> Res<Dur> {
        self.unit(Unit::Time, Dur::parse)
    }

    pub fn time(&self) -> Res<Time> {
        self.dur().map(|d| Time(d.0))
    }

    /// A positive duration.
    pub fn dur_pos(&self) -> Res<Dur> {
        let d = self.dur()?;
        if d.is_zero() {
            return Err(self.error("must be greater than zero"));
        }
        Ok(d)
    }

    /// A rate: "2Mb", "6 Mb/s"; a bare number is bits per second.
    pub fn rate(&self) -> Res<Rate> {
        self.unit(Unit::Rate, Rate::parse)
    }

    /// A rate above zero.
    pub fn rate_pos(&self) -> Res<Rate> {
        let r = self.rate()?;
        if r.0 == 0 {
            return Err(self.error("must be greater than zero"));
        }
        Ok(r)
    }

    /// A size: "1000B", "10KB"; a bare integer is bytes.
    pub fn bytes(&self) -> Res<Bytes> {
        self.unit(Unit::Size, Bytes::parse)
    }

    pub fn bytes_pos(&self) -> Res<Bytes> {
        let b = self.bytes()?;
        if b.0 == 0 {
            return Err(self.error("must be greater than zero"));
        }
        Ok(b)
    }

    pub fn table(&self) -> Res<Tbl<'a>> {
        let t = self.item.as_table_like().ok_or_else(|| self.expected("a table"))?;
        Ok(Tbl {
            src: self.src,
            place: Place { base: self.path().into(), index: None },
            table: t,
            span: self.span.clone(),
            subst: self.subst,
            used: RefCell::new(vec![]),
        })
    }

    /// The entries of an array of tables (`[[flow]]`) or an array of inline tables.
    pub fn tables(&self) -> Res<Vec<Tbl<'a>>> {
        let mut out = vec![];
        match self.item {
            Item::ArrayOfTables(a) => {
                let path = self.path();
                for (i, t) in a.iter().enumerate() {
                    out.push(Tbl {
                        src: self.src,
                        place: Place { base: format!("{path}[{i}]").into(), index: None },
                        table: t,
                        span: t.span(),
                        subst: self.subst,
                        used: RefCell::new(vec![]),
                    });
                }
            }
            Item::Value(Value::Array(a)) => {
                let path = self.path();
                for (i, v) in a.iter().enumerate() {
                    let t = v.as_inline_table().ok_or_else(|| self.error(format!("entry {i} is not a table")))?;
                    out.push(Tbl {
                        src: self.src,
                        place: Place { base: format!("{path}[{i}]").into(), index: None },
                        table: t,
                        span: v.span(),
                        subst: self.subst,
                        used: RefCell::new(vec![]),
                    });
                }
            }
            _ => return Err(self.expected("an array of tables")),
        }
        Ok(out)
    }

    /// An array of finite numbers.
    pub fn numbers(&self) -> Res<Vec<f64>> {
        match self.value() {
            Some(Value::Array(a)) => a
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    let x = match v {
                        Value::Integer(n) => *n.value() as f64,
                        Value::Float(f) => *f.value(),
                        _ => f64::NAN,
                    };
                    if x.is_finite() {
                        Ok(x)
                    } else {
                        Err(self.src.error(
                            v.span().or(self.span.clone()),
                            &format!("{}[{i}]", self.path()),
                            "expected a finite number",
                        ))
                    }
                })
                .collect(),
            _ => Err(self.expected("an array of numbers")),
        }
    }

    /// An array of strings.
    pub fn strings(&self) -> Res<Vec<String>> {
        match self.value() {
            Some(Value::Array(a)) => a
                .iter()
                .enumerate()
                .map(|(i, v)| match v {
                    Value::String(s) => Ok(self.subst.apply(s.value())),
                    _ => Err(self.src.error(
                        v.span().or(self.span.clone()),
                        &format!("{}[{i}]", self.path()),
                        "expected a string",
                    )),
                })
                .collect(),
            _ => Err(self.expected("an array of strings")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column() {
        let src = Source::new("x.toml", "a = 1\nbb = 2\n");
        assert_eq!(src.line_col(0), (1, 1));
        assert_eq!(src.line_col(6), (2, 1));
        assert_eq!(src.line_col(9), (2, 4));
    }

    #[test]
    fn subst_replaces_every_index_mark() {
        let s = Subst { index: Some(120) };
        assert_eq!(s.apply("h{i}"), "h120");
        assert_eq!(s.apply("{i}-{i}x"), "120-120x");
        assert_eq!(s.apply("plain"), "plain");
        assert_eq!(Subst { index: Some(0) }.apply("n{i}"), "n0");
        assert_eq!(Subst { index: Some(u64::MAX) }.apply("{i}"), u64::MAX.to_string());
        assert_eq!(Subst { index: None }.apply("n{i}"), "n{i}");
        assert_eq!(s.apply("{i"), "{i");
        assert_eq!(s.apply("é{i}ü{"), "é120ü{");
    }

    #[test]
    fn closest_suggests_near_misses_only() {
        assert_eq!(closest("treshold", &["thresh", "threshold"]), Some("threshold"));
        assert_eq!(closest("qweight", &["q_weight", "limit"]), Some("q_weight"));
        assert_eq!(closest("banana", &["q_weight", "limit"]), None);
    }
}
