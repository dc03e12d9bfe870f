//! docs/cookbook.md as a user follows it: every line of its shell blocks runs in `sh`, in order,
//! from a folder holding the tutorial's scenarios, with the `fairway` built here first on PATH
//! (tcpdump's line where tcpdump is installed: CI installs it and sets FAIRWAY_REQUIRE_TCPDUMP;
//! rsvg-convert's likewise, FAIRWAY_REQUIRE_RSVG); then its Python blocks, as one script, where
//! pandas is (FAIRWAY_REQUIRE_PANDAS). Every recipe writes under out/, and nothing beside it.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

mod referee;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn runs(tool: &str, require: &str) -> bool {
    let missing = Command::new(tool).arg("--version").output().is_err().then(|| format!("`{tool}` does not run"));
    referee::available(tool, require, missing)
}

#[test]
fn every_recipe_runs_as_written() {
    let md = fs::read_to_string(repo().join("docs/cookbook.md")).unwrap();
    let dir = std::env::temp_dir().join(format!("fairway-cookbook-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(dir.join("scenarios/tutorial")).unwrap();
    for f in ["red-dumbbell.toml", "red-dumbbell-sweep.toml"] {
        fs::copy(repo().join("scenarios/tutorial").join(f), dir.join("scenarios/tutorial").join(f)).unwrap();
    }
    let bin = Path::new(env!("CARGO_BIN_EXE_fairway")).parent().unwrap().to_path_buf();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let (tcpdump, rsvg) = (runs("tcpdump", "FAIRWAY_REQUIRE_TCPDUMP"), runs("rsvg-convert", "FAIRWAY_REQUIRE_RSVG"));
    let mut ran = 0;
    let mut in_sh = false;
    for line in md.lines() {
        if let Some(lang) = line.strip_prefix("```") {
            in_sh = !in_sh && lang == "sh";
            continue;
        }
        if !in_sh || line.trim().is_empty() {
            continue;
        }
        if (line.starts_with("tcpdump") && !tcpdump) || (line.contains("--format") && !rsvg) {
            continue;
        }
        let o = Command::new("sh").args(["-c", line]).env("PATH", &path).current_dir(&dir).output().unwrap();
        assert!(o.status.success(), "{line}: {}", String::from_utf8_lossy(&o.stderr));
        if line.starts_with("awk") {
            let out = String::from_utf8_lossy(&o.stdout);
            assert_eq!(out.lines().count(), 3, "drops for each of the three flows: {out}");
        }
        ran += 1;
    }
    assert!(ran >= 10, "{ran} lines ran");
    let mut py = String::new();
    let mut in_py = false;
    for line in md.lines() {
        if let Some(lang) = line.strip_prefix("```") {
            in_py = !in_py && lang == "python";
            continue;
        }
        if in_py {
            py.push_str(line);
            py.push('\n');
        }
    }
    let python = ["python3", "/usr/bin/python3"]
        .into_iter()
        .find(|p| Command::new(p).args(["-c", "import pandas"]).output().is_ok_and(|o| o.status.success()));
    match python {
        Some(p) => {
            referee::available("pandas", "FAIRWAY_REQUIRE_PANDAS", None);
            // Each expression's value printed, as an interactive session shows it.
            let script = py
                .lines()
                .map(|l| {
                    if l.starts_with("c[") || l.starts_with("c.") {
                        format!("print({})", l.split('#').next().unwrap().trim())
                    } else {
                        l.to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join("\n");
            let o = Command::new(p).args(["-c", &script]).current_dir(&dir).output().unwrap();
            assert!(o.status.success(), "{script}: {}", String::from_utf8_lossy(&o.stderr));
            let out = String::from_utf8_lossy(&o.stdout);
            assert!(out.contains("not_reproduced") && out.contains("claim"), "{out}");
        }
        None => {
            let missing = "pandas is not installed: the cookbook's Python was not run".to_string();
            referee::available("pandas", "FAIRWAY_REQUIRE_PANDAS", Some(missing));
        }
    }
    for f in [
        "out/red-dumbbell/trace-agents.csv",
        "out/drops/trace.tr",
        "out/tcp0/trace-r1-r2.pcap",
        "out/reps/replications.csv",
        "out/reps/plot-throughput_bps-per-flow.svg",
        "out/sweep/plot-throughput_bps-vs-flow.cbr.rate.svg",
        "out/kadhum2015/report.html",
    ] {
        assert!(dir.join(f).is_file(), "{f}");
    }
    // Everything went under out/: the folder the recipes ran from holds nothing new.
    let mut top: Vec<String> =
        fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    top.sort();
    assert_eq!(top, ["out", "scenarios"], "the recipes left files beside out/");
    let _ = fs::remove_dir_all(&dir);
}
