//! Choices of the engine's that must change no result: the in-flight FIFO threshold of links,
//! and leaving the state to the process's exit.

use std::path::Path;

use fairway_engine::{run, RunOptions, Scenario};
use fairway_scenario::{parse_scenario, parse_scenario_file};

fn root() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn run_behind_from(sc: &Scenario, behind_from: Option<u64>) -> String {
    format!("{:?}", run(sc, &RunOptions { behind_from, ..Default::default() }, &mut |_| {}).unwrap())
}

/// Links' in-flight FIFOs change no result: every shipped kind of traffic (TCP, CBR, web,
/// MApp, IFTP, TFRC, a lossy link) gives the same results, to the last bit, whether packets wait
/// in a link's FIFO from the second in flight on, from the default, or never.
#[test]
fn fifo_threshold_changes_no_result() {
    let mut scenarios: Vec<Scenario> = [
        "scenarios/validation/dumbbell-mid.toml",
        "scenarios/validation/droptail-mix.toml",
        "scenarios/kadhum2015/mapp-ftp-web.toml",
        "scenarios/elaarag2002/fig6-table1.toml",
        "scenarios/validation/tfrc-red.toml",
    ]
    .iter()
    .map(|f| parse_scenario_file(&root().join(f)).unwrap())
    .collect();
    let lossy = r#"
name = "lossy"
duration = "20s"
[[link]]
between = ["a", "b"]
rate = "10Mb"
delay = "30ms"
loss = 0.01
[[flow]]
count = 4
app = "ftp"
transport = "newreno"
from = "a"
to = "b"
[[flow]]
app = "cbr"
from = "a"
to = "b"
rate = "2Mb"
"#;
    scenarios.push(parse_scenario("lossy.toml", lossy, "lossy").unwrap());
    for sc in &scenarios {
        let default = run_behind_from(sc, None);
        assert_eq!(run_behind_from(sc, Some(1)), default, "{}: FIFO from the second packet", sc.name);
        assert_eq!(run_behind_from(sc, Some(u64::MAX)), default, "{}: no FIFO", sc.name);
    }
}

/// Leaving the simulator's state to the process's exit gives the same results.
#[test]
fn leaving_the_state_changes_no_result() {
    let sc = parse_scenario_file(&root().join("scenarios/validation/droptail-mix.toml")).unwrap();
    let freed = run(&sc, &RunOptions::default(), &mut |_| {}).unwrap();
    let left = run(&sc, &RunOptions { leave_state: true, ..Default::default() }, &mut |_| {}).unwrap();
    assert_eq!(format!("{freed:?}"), format!("{left:?}"));
}
