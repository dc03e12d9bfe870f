//! The figures of a run as a paper needs them: the queue plot marks the discipline's thresholds
//! and limit over the range of each bin; the window plot steps at every change when the run
//! traces agents.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn run(name: &str, extra: &[&str]) -> PathBuf {
    let out = std::env::temp_dir().join(format!("fairway-figures-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&out);
    let o = Command::new(env!("CARGO_BIN_EXE_fairway"))
        .args(["run", "scenarios/tutorial/red-dumbbell.toml", "-q", "--out", out.to_str().unwrap()])
        .args(extra)
        .current_dir(repo())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    out
}

/// The tutorial's bottleneck is RED with thresh 5, maxthresh 15 and limit 30 (its file says so).
#[test]
fn the_queue_plot_marks_thresholds_and_limit_over_each_bins_range() {
    let out = run("queue", &[]);
    let svg = fs::read_to_string(out.join("queue_r1-r2.svg")).unwrap();
    for label in ["queue, range per 100 ms", "average queue (RED)", "RED min_th 5", "RED max_th 15", "limit 30"] {
        assert!(svg.contains(&format!(">{label}</text>")), "legend lacks {label}");
    }
    assert_eq!(svg.matches(r#"fill-opacity="0.35" d="M"#).count(), 1, "one band");
    let cwnd = fs::read_to_string(out.join("cwnd.svg")).unwrap();
    assert!(cwnd.contains("TCP congestion window (end of each bin)"));
    let _ = fs::remove_dir_all(&out);
}

/// Traced, the window plot draws the traced flow's window at each change (trace-agents.csv's
/// rows), not once a bin.
#[test]
fn a_traced_window_is_drawn_at_every_change() {
    let out = run("cwnd", &["--trace", "agents", "--trace-flow", "tcp0"]);
    let svg = fs::read_to_string(out.join("cwnd.svg")).unwrap();
    assert!(svg.contains("TCP congestion window (every change)"));
    assert!(svg.contains(">tcp0</text>") && !svg.contains(">tcp1</text>"), "the traced flow only");
    let rows = fs::read_to_string(out.join("trace-agents.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .filter(|l| l.contains(",tcp0,"))
        .count();
    assert!(rows > 300, "a sawtooth's worth of changes: {rows}");
    let _ = fs::remove_dir_all(&out);
}
