//! Issue 32's hostile scenario files (fuzz/regressions/scenario/), through `fairway check` as a
//! user would run it: each ends quickly in a located error, or is accepted only with an estimate
//! that says how long its run would take. Before the issue they hung, aborted on allocation, or
//! were accepted at an estimate of a fraction of a second.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

#[test]
fn every_hostile_scenario_is_refused_where_it_is_wrong_or_estimated_at_what_it_costs() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/regressions/scenario");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()).collect();
    files.sort();
    assert!(files.len() >= 19, "{} files", files.len());
    let (mut refused, mut estimated) = (0, 0);
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let t = Instant::now();
        let o = Command::new("timeout")
            .args(["60", env!("CARGO_BIN_EXE_fairway"), "check"])
            .arg(f)
            .current_dir(&dir)
            .output()
            .unwrap();
        // `check` is bounded too: the 20 000-node file took 2.3 GB and minutes before.
        assert!(t.elapsed() < Duration::from_secs(30), "{name}: check took {:?}", t.elapsed());
        let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
        match o.status.code() {
            Some(2) => {
                // Located: the file, a line and a column (or, for a run too big for this
                // machine, the estimate that refuses it).
                let line = err.lines().find(|l| l.starts_with("error: ")).unwrap_or_else(|| panic!("{name}: {err}"));
                let rest = &line["error: ".len()..];
                let mut parts = rest.splitn(4, ':');
                let located = parts.next().is_some_and(|p| p.ends_with(&name))
                    && parts.next().is_some_and(|p| p.parse::<u32>().is_ok_and(|n| n > 0))
                    && parts.next().is_some_and(|p| p.parse::<u32>().is_ok_and(|n| n > 0));
                assert!(located || line.contains("in memory"), "{name}: not located: {line}");
                assert!(line.len() < 400, "{name}: an error of {} characters", line.len());
                refused += 1;
            }
            Some(0) => {
                // Accepted: the run it stands for takes at least 10^9 events, and check says so.
                let at = out.find("at most about ").unwrap_or_else(|| panic!("{name}: {out}"));
                let n: f64 = out[at + "at most about ".len()..].split(' ').next().unwrap().parse().unwrap();
                assert!(n >= 1e9, "{name}: estimated at {n} events: {out}");
                assert!(out.contains(" on this machine)"), "{name}: {out}");
                estimated += 1;
            }
            c => panic!("{name}: exit {c:?}\n{out}\n{err}"),
        }
    }
    // Most are refused; the nanosecond timers are valid settings, accepted at their cost.
    assert!(refused >= 14 && estimated >= 3, "{refused} refused, {estimated} estimated");
}
