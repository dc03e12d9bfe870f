//! `queue = ...` on a link: the kind names a registered fairway-aqm discipline, which reads its
//! own keys (with their defaults and checks) through [`TableKeys`]; an error is placed at its key.

use fairway_aqm::{Keys, OnLink, ParamError, Read, Refused};
use fairway_core::{Bytes, Dur};
use fairway_model::scenario::QueueSpec;

use crate::reader::{Res, ScenarioError, Tbl, Val};

/// A discipline's keys as a scenario gives them: the `queue` table, or none when the queue is
/// named by its kind alone (`queue = "red"`). Keeps the first error, located.
struct TableKeys<'a, 'v> {
    /// The `queue` value: errors and warnings about the settings as a whole go here.
    at: &'v Val<'a>,
    table: Option<Tbl<'a>>,
    error: Option<ScenarioError>,
    warnings: &'v mut Vec<ScenarioError>,
}

impl<'a> TableKeys<'a, '_> {
    fn get(&self, key: &str) -> Option<Val<'a>> {
        self.table.as_ref().and_then(|t| t.get(key))
    }

    /// Reads `key` with the reader's typed accessor, keeping its error.
    fn read<T>(&mut self, key: &str, f: impl FnOnce(&Val<'a>) -> Res<T>) -> Read<Option<T>> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => f(&v).map(Some).map_err(|e| {
                self.error.get_or_insert(e);
                Refused
            }),
        }
    }

    /// An error or warning at `field` if it is given, else at the queue.
    fn located(&self, field: &str, message: String) -> ScenarioError {
        match self.get(field) {
            Some(v) if !field.is_empty() => v.error(message),
            _ if field.is_empty() => self.at.error(message),
            _ => self.at.error(format!("{field}: {message}")),
        }
    }
}

impl Keys for TableKeys<'_, '_> {
    fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }
    fn is_str(&self, key: &str) -> bool {
        self.get(key).is_some_and(|v| v.is_str())
    }
    fn int(&mut self, key: &'static str, min: i64, max: i64) -> Read<Option<i64>> {
        self.read(key, |v| v.int_in(min, max))
    }
    fn float(&mut self, key: &'static str) -> Read<Option<f64>> {
        self.read(key, Val::f64)
    }
    fn boolean(&mut self, key: &'static str) -> Read<Option<bool>> {
        self.read(key, Val::bool)
    }
    fn duration(&mut self, key: &'static str, positive: bool) -> Read<Option<Dur>> {
        self.read(key, |v| if positive { v.dur_pos() } else { v.dur() })
    }
    fn size(&mut self, key: &'static str, positive: bool) -> Read<Option<Bytes>> {
        self.read(key, |v| if positive { v.bytes_pos() } else { v.bytes() })
    }
    fn text(&mut self, key: &'static str) -> Read<Option<String>> {
        self.read(key, Val::string)
    }
    fn refuse(&mut self, e: ParamError) -> Refused {
        let located = self.located(e.field, e.reason);
        self.error.get_or_insert(located);
        Refused
    }
    fn warn(&mut self, field: &'static str, message: String) {
        let w = self.located(field, message);
        self.warnings.push(w);
    }
}

/// The discipline `v` names, read and checked for a link of `link`'s rate and delay; warnings
/// join `warnings`.
pub(crate) fn parse_queue(v: &Val, link: OnLink, warnings: &mut Vec<ScenarioError>) -> Res<QueueSpec> {
    let (kind, table) = if v.is_str() {
        (v.string()?, None)
    } else {
        let t = v.table()?;
        let k = t.req("kind")?.string()?;
        (k, Some(t))
    };
    let mut keys = TableKeys { at: v, table, error: None, warnings };
    let refused = |keys: &mut TableKeys| keys.error.take().unwrap_or_else(|| v.error("refused"));
    let spec = match QueueSpec::read(&kind, &mut keys) {
        None => {
            let kinds = fairway_aqm::KINDS;
            let (last, rest) = kinds.split_last().expect("disciplines are registered");
            let at = keys.table.as_ref().and_then(|t| t.get("kind"));
            let msg = format!("unknown queue kind `{kind}`: expected {} or {last}", rest.join(", "));
            return Err(at.map_or_else(|| v.error(msg.clone()), |k| k.error(msg.clone())));
        }
        Some(Err(Refused)) => return Err(refused(&mut keys)),
        Some(Ok(spec)) => spec,
    };
    if let Some(t) = &keys.table {
        let accepted: Vec<&str> =
            std::iter::once("kind").chain(QueueSpec::keys_of(&kind).unwrap_or_default()).collect();
        t.finish(&accepted)?;
    }
    if spec.check_on_link(link, &mut keys).is_err() {
        return Err(refused(&mut keys));
    }
    Ok(spec)
}
