//! Wire mode (`wire = true`): every datagram goes through its protocol's byte format, each end
//! decoding what arrives as it would from a socket. Every shipped scenario gives the same results
//! both ways, to the byte: the typed messages of struct mode carry exactly what the bytes carry
//! (IFTP stamps its packets in the wire's whole microseconds; MApp's messages are its UDPm
//! headers), and TCP has no wire format of its own here. A difference would mean an encoder and
//! its decoder disagree, which is what live mode would suffer.

use std::path::{Path, PathBuf};

use fairway_engine::{run, RunOptions, RunResult, Scenario};
use fairway_report::output::csv::{flows_csv, links_csv, queue_csv, series_logs_csv};
use fairway_scenario::parse_scenario_file;

fn shipped() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut files = vec![];
    for dir in std::fs::read_dir(&root).unwrap() {
        for f in std::fs::read_dir(dir.unwrap().path()).unwrap() {
            let p = f.unwrap().path();
            if p.extension().is_some_and(|e| e == "toml") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

/// Everything a run writes but its plots (drawn from the same rows).
fn outputs(res: &RunResult, sc: &Scenario) -> Vec<String> {
    let mut summary = res.summary.clone();
    summary.wire = false;
    let mut v =
        vec![serde_json::to_string_pretty(&summary).unwrap(), flows_csv(res, sc), queue_csv(res, sc), links_csv(res)];
    v.extend(series_logs_csv(res, sc).into_iter().map(|(name, text)| format!("{name}\n{text}")));
    v
}

#[test]
fn every_shipped_scenario_gives_the_same_bytes_in_wire_mode() {
    let files = shipped();
    assert!(files.len() >= 25, "{} scenario files", files.len());
    let mut datagram_flows = 0;
    for f in files {
        let mut sc = parse_scenario_file(&f).unwrap();
        let opts = RunOptions::default();
        let typed = run(&sc, &opts, &mut |_| {}).unwrap();
        sc.wire = true;
        let bytes = run(&sc, &opts, &mut |_| {}).unwrap();
        assert!(bytes.summary.wire);
        for (k, (a, b)) in outputs(&typed, &sc).iter().zip(outputs(&bytes, &sc)).enumerate() {
            if *a != b {
                let line = a.lines().zip(b.lines()).position(|(x, y)| x != y).unwrap_or(0);
                panic!(
                    "{}: output {k} differs from line {line}:\n  struct: {}\n  wire:   {}",
                    f.display(),
                    a.lines().nth(line).unwrap_or(""),
                    b.lines().nth(line).unwrap_or("")
                );
            }
        }
        datagram_flows += typed.summary.flows.iter().filter(|f| f.class != "tcp").count();
    }
    assert!(datagram_flows > 100, "the scenarios exercise CBR, MApp and IFTP");
}
