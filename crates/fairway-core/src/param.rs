//! The error of a setting that cannot work, shared by every protocol and queue discipline: it
//! names the field, so a scenario reader can place the error at its key.

/// A parameter that failed validation: `field` names it, `of` what it belongs to ("DCCP"; empty
/// for a queue discipline, whose errors the scenario places under `queue`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.describe())]
pub struct ParamError {
    pub of: &'static str,
    pub field: &'static str,
    pub reason: String,
}

impl ParamError {
    pub fn new(field: &'static str, reason: impl Into<String>) -> ParamError {
        ParamError { of: "", field, reason: reason.into() }
    }

    /// A parameter of a protocol: shown as "`of` parameter `field`: reason".
    pub fn of(of: &'static str, field: &'static str, reason: impl Into<String>) -> ParamError {
        ParamError { of, field, reason: reason.into() }
    }

    fn describe(&self) -> String {
        if self.of.is_empty() {
            format!("{}: {}", self.field, self.reason)
        } else {
            format!("{} parameter `{}`: {}", self.of, self.field, self.reason)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn says_what_and_which_field() {
        assert_eq!(ParamError::new("limit", "must be at least 1").to_string(), "limit: must be at least 1");
        assert_eq!(ParamError::of("DCCP", "mss", "too small").to_string(), "DCCP parameter `mss`: too small");
    }
}
