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

/// The general path (an event at the end of each serialisation, the discipline asked at each
/// departure), which CoDel and FQ-CoDel need, gives what the fast path gives for the FIFOs that
/// decide at enqueue: the same verdicts at the same times, so the same results, but for the
/// count of events and the mean wait (over departures there, over admissions on the fast path).
#[test]
fn the_general_path_agrees_with_the_fast_path() {
    let files = [
        "scenarios/validation/dumbbell-mid.toml",
        "scenarios/validation/droptail-mix.toml",
        "scenarios/kadhum2015/mapp-ftp-web.toml",
        "scenarios/validation/tfrc-red.toml",
        "scenarios/chung-dcbt/fig11-red.toml",
        "scenarios/chung-dcbt/fig11-cbt.toml",
        "scenarios/chung-dcbt/fig11-dcbt.toml",
    ];
    for f in files {
        let sc = parse_scenario_file(&root().join(f)).unwrap();
        let show = |general_path: bool| {
            let mut r = run(&sc, &RunOptions { general_path, ..Default::default() }, &mut |_| {}).unwrap();
            r.summary.events = 0;
            for l in r.summary.links.iter_mut().chain(r.all_links.iter_mut()) {
                l.mean_sojourn_s = None;
            }
            format!("{r:?}")
        };
        let (general, fast) = (show(true), show(false));
        if general != fast {
            let at = general.bytes().zip(fast.bytes()).position(|(a, b)| a != b).unwrap_or(0);
            let around = |s: &str| s[at.saturating_sub(300)..(at + 200).min(s.len())].to_string();
            panic!("{f}: the paths differ\ngeneral: ...{}\nfast:    ...{}", around(&general), around(&fast));
        }
    }
}
