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

fn fairway(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_fairway")).args(args).current_dir(repo()).output().unwrap()
}

/// `fairway plot` on the tutorial's sweep at three seeds: a line per flow against the CBR's
/// rate, each point with its interval; per class on request; PNG and PDF through rsvg-convert
/// (where installed: CI installs it and sets FAIRWAY_REQUIRE_RSVG); and clear refusals.
#[test]
fn plot_draws_a_sweeps_means_with_their_intervals() {
    let dir = std::env::temp_dir().join(format!("fairway-figures-plot-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    let d = dir.to_str().unwrap();
    let o = fairway(&["sweep", "scenarios/tutorial/red-dumbbell-sweep.toml", "--reps", "3", "--out", d, "-q"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    let o = fairway(&["plot", d]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let file = dir.join("plot-throughput_bps-vs-flow.cbr.rate.svg");
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), file.display().to_string());
    let svg = fs::read_to_string(&file).unwrap();
    for label in [">tcp0</text>", ">tcp1</text>", ">cbr</text>", ">flow.cbr.rate (b/s)</text>"] {
        assert!(svg.contains(label), "lacks {label}");
    }
    // One path of error bars per flow (three rates each).
    assert_eq!(svg.matches(r#"stroke-width="1.2" d="#).count(), 3);

    let o = fairway(&["plot", d, "--y", "pdr", "--rows", "class", "--title", "PDR by class"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let svg = fs::read_to_string(dir.join("plot-pdr-vs-flow.cbr.rate.svg")).unwrap();
    assert!(svg.contains(">tcp</text>") && svg.contains(">udp</text>") && svg.contains(">PDR by class</text>"));

    if Command::new("rsvg-convert").arg("--version").output().is_ok() {
        let o = fairway(&["plot", d, "--format", "png", "--format", "pdf"]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let png = fs::read(file.with_extension("png")).unwrap();
        assert_eq!(&png[..4], b"\x89PNG");
        let pdf = fs::read(file.with_extension("pdf")).unwrap();
        assert_eq!(&pdf[..5], b"%PDF-");
    } else {
        assert!(
            std::env::var_os("FAIRWAY_REQUIRE_RSVG").is_none(),
            "FAIRWAY_REQUIRE_RSVG is set but rsvg-convert does not run"
        );
    }

    for (args, want) in [
        (vec!["plot", d, "--x", "nope"], "--x nope: not a swept setting (flow.cbr.rate)"),
        (
            vec!["plot", d, "--y", "nope"],
            "--y nope: no such column in replications.csv (kind, name, class, reps, throughput_bps,",
        ),
        (vec!["plot", "scenarios"], "no replications.csv or sweep.csv"),
    ] {
        let o = fairway(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && err.contains(want), "{args:?}: {err}");
    }
    let _ = fs::remove_dir_all(&dir);
}
