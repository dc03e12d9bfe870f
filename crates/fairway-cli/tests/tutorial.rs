//! docs/tutorial.md as a user follows it: the scenario it shows is the shipped file, its sweep
//! file is that file with the `[sweep]` table it shows, every `fairway` command in it runs, and
//! its Python reads what the commands wrote (where pandas is installed; CI installs it and sets
//! FAIRWAY_REQUIRE_PANDAS).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

mod referee;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The code blocks of a markdown text: (language, body).
fn blocks(md: &str) -> Vec<(String, String)> {
    let mut out = vec![];
    let mut open: Option<(String, String)> = None;
    for line in md.lines() {
        match (&mut open, line.strip_prefix("```")) {
            (None, Some(lang)) => open = Some((lang.trim().to_string(), String::new())),
            (Some(_), Some(_)) => out.push(open.take().expect("open")),
            (Some((_, body)), None) => {
                body.push_str(line);
                body.push('\n');
            }
            (None, None) => {}
        }
    }
    out
}

/// A Python with pandas: the one on PATH, or Debian's.
fn python_with_pandas() -> Option<&'static str> {
    ["python3", "/usr/bin/python3"]
        .into_iter()
        .find(|py| Command::new(py).args(["-c", "import pandas"]).output().is_ok_and(|o| o.status.success()))
}

#[test]
fn the_tutorial_runs_as_written() {
    let md = fs::read_to_string(repo().join("docs/tutorial.md")).unwrap();
    let blocks = blocks(&md);
    let base = fs::read_to_string(repo().join("scenarios/tutorial/red-dumbbell.toml")).unwrap();
    let sweep = fs::read_to_string(repo().join("scenarios/tutorial/red-dumbbell-sweep.toml")).unwrap();
    let toml: Vec<&String> = blocks.iter().filter(|b| b.0 == "toml").map(|b| &b.1).collect();
    assert_eq!(toml.len(), 2);
    assert_eq!(*toml[0], base, "the tutorial shows scenarios/tutorial/red-dumbbell.toml as it is");
    // The sweep file: the same scenario after its own first comment line, and the table shown.
    let body = |text: &str, header_lines: usize| text.splitn(header_lines + 1, '\n').last().unwrap_or("").to_string();
    assert_eq!(body(&sweep, 1), format!("{}\n{}", body(&base, 2), toml[1]));

    // Every command, in order, from a folder of its own holding the scenarios.
    let dir = std::env::temp_dir().join(format!("fairway-tutorial-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(dir.join("scenarios/tutorial")).unwrap();
    for f in ["red-dumbbell.toml", "red-dumbbell-sweep.toml"] {
        fs::copy(repo().join("scenarios/tutorial").join(f), dir.join("scenarios/tutorial").join(f)).unwrap();
    }
    let mut ran = 0;
    for (_, body) in blocks.iter().filter(|b| b.0 == "sh") {
        for line in body.lines().filter(|l| l.starts_with("fairway ")) {
            let args: Vec<&str> = line.split_whitespace().skip(1).collect();
            let o = Command::new(env!("CARGO_BIN_EXE_fairway")).args(&args).current_dir(&dir).output().unwrap();
            assert!(o.status.success(), "{line}: {}", String::from_utf8_lossy(&o.stderr));
            ran += 1;
        }
    }
    assert_eq!(ran, 5, "run, run --trace, run --reps, sweep, plot");
    for f in [
        "out/red-dumbbell/summary.json",
        "out/red-dumbbell/flows.csv",
        "out/red-dumbbell/classes.csv",
        "out/red-dumbbell/queue.csv",
        "out/red-dumbbell/links.csv",
        "out/red-dumbbell/trace-agents.csv",
        "out/red-dumbbell/trace.tr",
        "out/red-dumbbell/trace-r1-r2.pcap",
        "out/red-dumbbell-reps/replications.csv",
        "out/red-dumbbell-sweep/sweep.csv",
        "out/red-dumbbell-sweep/plot-throughput_bps-vs-flow.cbr.rate.svg",
        "out/red-dumbbell-sweep/report.html",
    ] {
        assert!(dir.join(f).is_file(), "{f}");
    }

    // The Python, as one script, where pandas is.
    match python_with_pandas() {
        Some(py) => {
            referee::available("pandas", "FAIRWAY_REQUIRE_PANDAS", None);
            let mut script: String = blocks.iter().filter(|b| b.0 == "python").map(|b| b.1.as_str()).collect();
            // The per-flow means it shows are over each flow's active bins: each within 3% of
            // summary.json's throughput (the CBR's mean over every bin is 7% below its own).
            script.push_str(
                "for f in summary['flows']:\n    \
                 assert abs(means[f['name']] / f['throughput_bps'] - 1) < 0.03, (f['name'], means[f['name']], f['throughput_bps'])\n",
            );
            let o = Command::new(py).args(["-c", &script]).current_dir(&dir).output().unwrap();
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        }
        None => {
            let missing = "pandas is not installed: the tutorial's Python was not run".to_string();
            referee::available("pandas", "FAIRWAY_REQUIRE_PANDAS", Some(missing));
        }
    }
    let _ = fs::remove_dir_all(&dir);
}
