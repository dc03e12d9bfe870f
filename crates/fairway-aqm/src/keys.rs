//! How a discipline reads its settings: the keys of a scenario's `queue = { kind = ..., ... }`
//! table, through a reader the caller provides. The reader knows the text (units, types,
//! positions); the discipline knows its keys, their defaults and their checks. An error is kept
//! by the reader, located at its key, and the discipline only learns that reading stopped
//! ([`Refused`]).

use fairway_core::{Bytes, Dur};

use crate::ParamError;

/// Reading stopped at an error the reader holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refused;

/// A reading step.
pub type Read<T> = Result<T, Refused>;

/// The settings of one discipline, as its reader offers them. Each getter gives `Ok(None)` for a
/// key that is not given; a value of the wrong type or out of range is refused at its key.
pub trait Keys {
    /// Whether the key is given.
    fn has(&self, key: &str) -> bool;
    /// Whether the key is given as a string (a size with a unit, say, where a bare integer
    /// would count packets).
    fn is_str(&self, key: &str) -> bool;
    /// An integer in `[min, max]`.
    fn int(&mut self, key: &'static str, min: i64, max: i64) -> Read<Option<i64>>;
    /// A finite number.
    fn float(&mut self, key: &'static str) -> Read<Option<f64>>;
    fn boolean(&mut self, key: &'static str) -> Read<Option<bool>>;
    /// A duration ("5ms"); `positive`: zero is refused.
    fn duration(&mut self, key: &'static str, positive: bool) -> Read<Option<Dur>>;
    /// A size ("1500B"); `positive`: zero is refused.
    fn size(&mut self, key: &'static str, positive: bool) -> Read<Option<Bytes>>;
    fn text(&mut self, key: &'static str) -> Read<Option<String>>;
    /// Refuses the settings: `e.field` names the key (the error is placed there when it is
    /// given, else on the table).
    fn refuse(&mut self, e: ParamError) -> Refused;
    /// Accepts the value of `field` but says it is probably not what was meant (an empty
    /// `field`: the settings as a whole).
    fn warn(&mut self, field: &'static str, message: String);
}

impl dyn Keys + '_ {
    /// Sets `into` from an integer key of at least `min`.
    pub fn set_u32(&mut self, key: &'static str, min: u32, into: &mut u32) -> Read<()> {
        if let Some(v) = self.int(key, min as i64, u32::MAX as i64)? {
            *into = v as u32;
        }
        Ok(())
    }

    pub fn set_f64(&mut self, key: &'static str, into: &mut f64) -> Read<()> {
        if let Some(v) = self.float(key)? {
            *into = v;
        }
        Ok(())
    }

    pub fn set_bool(&mut self, key: &'static str, into: &mut bool) -> Read<()> {
        if let Some(v) = self.boolean(key)? {
            *into = v;
        }
        Ok(())
    }

    /// Sets `into` from a duration (zero allowed).
    pub fn set_dur(&mut self, key: &'static str, into: &mut Dur) -> Read<()> {
        if let Some(v) = self.duration(key, false)? {
            *into = v;
        }
        Ok(())
    }

    /// Sets `into` from a duration above zero.
    pub fn set_dur_pos(&mut self, key: &'static str, into: &mut Dur) -> Read<()> {
        if let Some(v) = self.duration(key, true)? {
            *into = v;
        }
        Ok(())
    }

    /// Sets `into` from a size above zero.
    pub fn set_bytes_pos(&mut self, key: &'static str, into: &mut Bytes) -> Read<()> {
        if let Some(v) = self.size(key, true)? {
            *into = v;
        }
        Ok(())
    }

    /// One of several named values: `options` gives each accepted string, its value and what
    /// it means (the error lists them all).
    pub fn choice<T: Copy>(&mut self, key: &'static str, options: &[(&str, T, &str)]) -> Read<Option<T>> {
        let Some(s) = self.text(key)? else { return Ok(None) };
        match options.iter().find(|(name, _, _)| *name == s) {
            Some((_, v, _)) => Ok(Some(*v)),
            None => {
                let accepted: Vec<String> = options.iter().map(|(n, _, what)| format!("\"{n}\" ({what})")).collect();
                Err(self.refuse(ParamError::new(key, format!("`{s}`: expected {}", accepted.join(" or ")))))
            }
        }
    }

    /// A parameter check's outcome, refused at the key it names.
    pub fn check(&mut self, r: Result<(), ParamError>) -> Read<()> {
        r.map_err(|e| self.refuse(e))
    }
}

/// A reader with no keys: a discipline with every default. What it refused and warned of is
/// kept for the caller.
#[derive(Debug, Default)]
pub struct NoKeys {
    pub error: Option<ParamError>,
    pub warnings: Vec<(&'static str, String)>,
}

impl Keys for NoKeys {
    fn has(&self, _: &str) -> bool {
        false
    }
    fn is_str(&self, _: &str) -> bool {
        false
    }
    fn int(&mut self, _: &'static str, _: i64, _: i64) -> Read<Option<i64>> {
        Ok(None)
    }
    fn float(&mut self, _: &'static str) -> Read<Option<f64>> {
        Ok(None)
    }
    fn boolean(&mut self, _: &'static str) -> Read<Option<bool>> {
        Ok(None)
    }
    fn duration(&mut self, _: &'static str, _: bool) -> Read<Option<Dur>> {
        Ok(None)
    }
    fn size(&mut self, _: &'static str, _: bool) -> Read<Option<Bytes>> {
        Ok(None)
    }
    fn text(&mut self, _: &'static str) -> Read<Option<String>> {
        Ok(None)
    }
    fn refuse(&mut self, e: ParamError) -> Refused {
        self.error.get_or_insert(e);
        Refused
    }
    fn warn(&mut self, field: &'static str, message: String) {
        self.warnings.push((field, message));
    }
}
