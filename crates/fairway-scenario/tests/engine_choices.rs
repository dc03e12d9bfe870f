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

/// Every shipped scenario with wireless nodes (any folder, one level down).
fn shipped_wireless() -> Vec<Scenario> {
    let mut files = vec![];
    for dir in std::fs::read_dir(root().join("scenarios")).unwrap() {
        for f in std::fs::read_dir(dir.unwrap().path()).unwrap() {
            let p = f.unwrap().path();
            if p.extension().is_some_and(|e| e == "toml") {
                files.push(p);
            }
        }
    }
    files.sort();
    files.iter().map(|f| parse_scenario_file(f).unwrap()).filter(|sc| sc.wireless.is_some()).collect()
}

/// Lazy receivers (wireless/overheard.rs) change no result: every shipped wireless scenario
/// gives the same results, the count of events included, to the last byte, whether stations
/// that only listen keep the frames they overhear and replay them when they next act, or run
/// every frame they hear as events, however many kept events start a replay from the channel's
/// loop; also on ns-2's clock, and for a run stopped before its end
/// (where kept frames are replayed up to the event left undone).
#[test]
fn lazy_receivers_change_no_result() {
    use std::sync::atomic::{AtomicBool, AtomicU64};
    let scenarios = shipped_wireless();
    assert!(scenarios.len() >= 15, "the shipped wireless scenarios: {}", scenarios.len());
    // The results as text, and how many events the stations kept.
    let show_with = |sc: &Scenario, hear_eagerly: bool, interrupt: Option<&AtomicBool>, keep: Option<usize>| {
        let replayed = AtomicU64::new(0);
        let opts = RunOptions {
            hear_eagerly,
            interrupt,
            replayed: Some(&replayed),
            keep_before_replay: keep,
            ..Default::default()
        };
        let r = run(sc, &opts, &mut |_| {}).unwrap();
        (format!("{r:?}"), replayed.into_inner())
    };
    let show = |sc: &Scenario, hear_eagerly: bool, interrupt: Option<&AtomicBool>| {
        show_with(sc, hear_eagerly, interrupt, None)
    };
    let same = |name: &str, lazy: &str, eager: &str| {
        if lazy != eager {
            let at = lazy.bytes().zip(eager.bytes()).position(|(a, b)| a != b).unwrap_or(0);
            let around = |s: &str| s[at.saturating_sub(300)..(at + 200).min(s.len())].to_string();
            panic!("{name}: lazy and eager receivers differ\nlazy:  ...{}\neager: ...{}", around(lazy), around(eager));
        }
    };
    for sc in &scenarios {
        let (lazy, kept) = show(sc, false, None);
        let (eager, none) = show(sc, true, None);
        same(&sc.name, &lazy, &eager);
        // Stations that replay what they keep far more often, from the channel's loop: a replay
        // there may leave a backoff paused (a count paused, a NAV or a reception made longer)
        // whose event in the queue it made stale, and the station must still be woken.
        for keep in [4, 16] {
            same(
                &format!("{}, replays beyond {keep} kept", sc.name),
                &show_with(sc, false, None, Some(keep)).0,
                &eager,
            );
        }
        // Else this compares nothing (two stations only ever hear each other's frames for them).
        let stations = sc.wireless.as_ref().unwrap().nodes.len();
        assert!(none == 0 && (kept > 0 || stations < 3), "{}: {kept} events kept lazily, {none} eagerly", sc.name);
    }
    // janani-tfrc's Table 5 set-up at 50 nodes and 80 s pauses, seed 1: a station there resumes
    // its backoff at a NAV's end and a frame kept before its wake-up pauses it again within the
    // DIFS (overheard.rs keeps that count's event rather than queue it in the past).
    let text = std::fs::read_to_string(root().join("scenarios/janani-tfrc/wireless-voip-udp.toml")).unwrap();
    let table5 = text.replacen("count = 10", "count = 50", 1).replacen("pause = \"10s\"", "pause = \"80s\"", 1);
    let table5 = parse_scenario("wireless-voip-udp.toml", &table5, "table5").unwrap();
    assert_eq!(table5.wireless.as_ref().unwrap().nodes.len(), 50);
    same("janani-tfrc Table 5 at 50 nodes, pause 80 s", &show(&table5, false, None).0, &show(&table5, true, None).0);
    // ns-2's clock orders simultaneous events by ns-2's doubles: kept events keep theirs.
    let mut ns2 = scenarios.iter().find(|sc| sc.name.contains("mobile")).expect("a mobile scenario").clone();
    ns2.clock = fairway_model::scenario::Clock::Ns2;
    same("on ns-2's clock", &show(&ns2, false, None).0, &show(&ns2, true, None).0);
    // Stopped at the first look at the flag (after 2^16 events run from the queue): the results
    // are those of a run whose end is where it stopped, the kept events before it counted.
    let busiest = scenarios.iter().max_by_key(|sc| sc.wireless.as_ref().unwrap().nodes.len()).unwrap();
    let stop = AtomicBool::new(true);
    let opts = RunOptions { interrupt: Some(&stop), ..Default::default() };
    let mut stopped = run(busiest, &opts, &mut |_| {}).unwrap();
    assert!(!stopped.summary.complete, "{}: the run was not stopped", busiest.name);
    let mut short = busiest.clone();
    short.duration = fairway_core::Dur((stopped.summary.duration_s * 1e9).round() as u64);
    let mut eager = run(&short, &RunOptions { hear_eagerly: true, ..Default::default() }, &mut |_| {}).unwrap();
    assert!(eager.summary.events > 1 << 16, "{}: {} events", busiest.name, eager.summary.events);
    (stopped.summary.complete, stopped.summary.scenario_duration_s) = (true, None);
    eager.summary.scenario_duration_s = None;
    // The shorter run ends its last bin with an event at its end; the stopped one ends it
    // without (Sim::stop_early).
    eager.summary.events -= 1;
    same("stopped early", &format!("{stopped:?}"), &format!("{eager:?}"));
}
