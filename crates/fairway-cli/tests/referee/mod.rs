//! What a test run checked against the tools outside fairway (ns-2, ns-3, chromium, Python,
//! pandas, tcpdump, rsvg-convert, network namespaces), and what it skipped and why. `cargo test`
//! captures a passing test's output, so each check also leaves a line in `target/referees/`, one
//! file per tool and test binary (README, "Tests"). Shared by the test crates that use a referee,
//! each declaring `mod referee;` once (`browser` and `netns` use theirs).

use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

/// Whether the `referee` can be used here: `missing` says why not, or is `None`. Records the
/// outcome. Without the referee the caller's test passes, saying what it skipped, unless the
/// environment variable `require` is set (CI sets one per referee), when it fails.
pub fn available(referee: &str, require: &str, missing: Option<String>) -> bool {
    record(referee, missing.as_deref());
    match missing {
        None => true,
        Some(why) => {
            assert!(std::env::var_os(require).is_none(), "{require} is set, but {referee} cannot run here: {why}");
            eprintln!("skipped {referee}: {why}");
            false
        }
    }
}

/// `target/referees/` of the build this test binary belongs to (target/<profile>/deps/<binary>).
fn folder() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    Some(exe.parent()?.parent()?.parent()?.join("referees"))
}

fn record(referee: &str, missing: Option<&str>) {
    let Some(dir) = folder() else { return };
    let binary = std::env::current_exe()
        .ok()
        .and_then(|e| e.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .map(|s| s.rsplit_once('-').map_or(s.clone(), |(name, _hash)| name.to_string()))
        .unwrap_or_default();
    let at = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let outcome = match missing {
        None => "checked".to_string(),
        Some(why) => format!("skipped: {why}"),
    };
    let file: String = format!("{referee}.{binary}")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '.' { c } else { '-' })
        .collect();
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(dir.join(file), format!("{referee}\t{binary}\t{outcome}\t{at}\n"));
}
