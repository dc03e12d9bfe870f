//! Random start times (`start = "uniform(A, B)"`): drawn per run from the seed, inside [A, B),
//! so that replications of a deterministic DropTail scenario differ; checked like every key.

use fairway_engine::{run, RunOptions, Summary};
use fairway_scenario::parse_scenario;

fn dumbbell(start: &str, stop: &str) -> String {
    format!(
        r#"
duration = "10s"
[[link]]
between = ["a", "r"]
rate = "10Mb"
delay = "2ms"
[[link]]
between = ["r", "b"]
rate = "1Mb"
delay = "20ms"
[[flow]]
name = "tcp{{i}}"
count = 3
app = "ftp"
from = "a"
to = "b"
start = {start}
{stop}
"#
    )
}

fn sim(text: &str, seed: u64) -> Summary {
    let sc = parse_scenario("t.toml", text, "t").unwrap_or_else(|e| panic!("{e}"));
    run(&sc, &RunOptions { seed: Some(seed), ..Default::default() }, &mut |_| {}).unwrap().summary
}

fn error(text: &str) -> String {
    match parse_scenario("t.toml", text, "t") {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn each_seed_draws_its_own_starts_inside_the_interval() {
    let text = dumbbell("\"uniform(1s, 2s)\"", "");
    let starts = |seed| -> Vec<f64> { sim(&text, seed).flows.iter().map(|f| f.start_s).collect() };
    let (a, b) = (starts(1), starts(2));
    assert_eq!(a, starts(1), "the same seed gives the same starts");
    assert_ne!(a, b);
    for s in a.iter().chain(&b) {
        assert!((1.0..2.0).contains(s), "{s}");
    }
    // Three flows of one entry draw three times.
    assert!(a[0] != a[1] && a[1] != a[2], "{a:?}");
}

/// Constant-rate sources through DropTail with fixed starts: nothing is random, every seed
/// gives the same run. Random starts make the seeds differ, which replications need.
#[test]
fn random_starts_make_a_deterministic_run_depend_on_its_seed() {
    let cbr = |start: &str| {
        dumbbell(start, "").replace("app = \"ftp\"", "app = \"cbr\"\nrate = \"0.5Mb\"\npacket_size = \"1000B\"")
    };
    let recv = |text: &str, seed| -> Vec<u64> { sim(text, seed).flows.iter().map(|f| f.recv_pkts).collect() };
    let fixed = cbr("\"1s\"");
    assert_eq!(recv(&fixed, 1), recv(&fixed, 2));
    let random = cbr("\"uniform(0s, 1s)\"");
    assert_ne!(recv(&random, 1), recv(&random, 2));
}

#[test]
fn a_bad_interval_is_an_error_naming_the_field() {
    for (start, stop, want) in [
        ("\"uniform(2s, 1s)\"", "", "expected uniform(A, B)"),
        ("\"uniform(1s)\"", "", "expected uniform(A, B)"),
        ("\"uniform(1s, 2x)\"", "", "uniform(A, B)"),
        ("\"uniform(1s, 10s)\"", "", "at or after the end of the run"),
        ("\"uniform(1s, 3s)\"", "stop = \"2s\"", "not after it may start"),
    ] {
        let e = error(&dumbbell(start, stop));
        let field = if stop.is_empty() { ".start" } else { ".stop" };
        assert!(e.contains(want) && e.contains(field), "{start} {stop}: {e}");
    }
}
