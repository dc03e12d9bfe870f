//! Files a scenario names (itself, a movement file), read as text to a bound: a path that is a
//! device or a pseudo-file (/dev/zero, a process's pagemap) would otherwise be read until memory
//! runs out.

use std::io::Read;
use std::path::Path;

/// The largest scenario file read, bytes: a generated scenario of some hundred thousand flows.
pub const MAX_SCENARIO_BYTES: u64 = 64 << 20;

/// The text of `path`, if it has at most `limit` bytes; otherwise why not, as a message that
/// names `what` it should have been (and not the path, which the caller's error names).
pub fn read(path: &Path, limit: u64, what: &str) -> Result<String, String> {
    let mut text = String::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(limit + 1).read_to_string(&mut text))
        .map_err(|e| format!("cannot read the file: {e}"))?;
    if text.len() as u64 > limit {
        return Err(format!("larger than the {} MB {what} may have", limit >> 20));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endless_file_is_read_to_the_bound_and_refused() {
        let e = read(Path::new("/dev/zero"), 1 << 20, "a test file").unwrap_err();
        assert_eq!(e, "larger than the 1 MB a test file may have");
        assert!(read(Path::new("/dev/urandom"), 1 << 20, "x").is_err());
        assert!(read(Path::new("/nonexistent"), 1, "x").unwrap_err().starts_with("cannot read the file: "));
        let p = std::env::temp_dir().join(format!("fw-text-{}", std::process::id()));
        std::fs::write(&p, "a = 1\n").unwrap();
        assert_eq!(read(&p, 6, "x").as_deref(), Ok("a = 1\n"));
        assert!(read(&p, 5, "x").is_err());
        let _ = std::fs::remove_file(&p);
    }
}
