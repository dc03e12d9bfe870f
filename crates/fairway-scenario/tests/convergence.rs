//! Each flow's convergence in a run's summary (docs/scenarios.md, "Convergence"): the periods
//! its bottleneck's events cut the run into, judged where long enough and where the flow ran
//! throughout; a constant-rate flow converges at once in each.

use fairway_engine::{run, RunOptions, RunResult};
use fairway_scenario::parse_scenario;

fn sim(text: &str) -> RunResult {
    let sc = parse_scenario("test.toml", text, "test").unwrap_or_else(|e| panic!("{e}"));
    run(&sc, &RunOptions::default(), &mut |_| {}).unwrap_or_else(|e| panic!("{e}"))
}

/// a, c -- r1 --(2 Mb/s, 4 Mb/s from 20 s)-- r2 -- b, and a separate d -- e at 1 Mb/s. Flows:
/// `f1` a->b CBR 500 kb/s throughout, `f2` c->b CBR 500 kb/s from 10 s, `g` a->b NADA at most
/// 500 kb/s paused 25-32 s, `h` d->e CBR 500 kb/s: never more than 1.5 Mb/s on 2 Mb/s, so the
/// CBR flows deliver their rate in every window.
fn scenario(monitor: &str) -> String {
    format!(
        r#"
duration = "40s"
{monitor}
[[link]]
between = ["a", "r1"]
rate = "10Mb"
delay = "1ms"
[[link]]
between = ["c", "r1"]
rate = "10Mb"
delay = "1ms"
[[link]]
between = ["r1", "r2"]
rate = [{{ at = "0s", rate = "2Mb" }}, {{ at = "20s", rate = "4Mb" }}]
delay = "10ms"
[[link]]
between = ["b", "r2"]
rate = "10Mb"
delay = "1ms"
[[link]]
between = ["d", "e"]
rate = "1Mb"
delay = "10ms"
[[flow]]
name = "f1"
from = "a"
to = "b"
app = "cbr"
packet_size = "1000B"
rate = "500kb"
[[flow]]
name = "f2"
from = "c"
to = "b"
app = "cbr"
packet_size = "1000B"
rate = "500kb"
start = "10s"
[[flow]]
name = "g"
from = "a"
to = "b"
transport = "rtp"
app = "video"
cc = "nada"
max_rate = "500kb"
pause = [{{ at = "25s", until = "32s" }}]
[[flow]]
name = "h"
from = "d"
to = "e"
app = "cbr"
packet_size = "1000B"
rate = "500kb"
"#
    )
}

#[test]
fn each_flow_is_judged_over_its_bottlenecks_periods_and_a_steady_one_converges_at_once() {
    let r = sim(&scenario(""));
    let f = |name: &str| r.summary.flows.iter().find(|f| f.name == name).unwrap();
    // The shared bottleneck's events: its capacity at 20 s, f2's start at 10 s, g's pause at 25
    // and 32 s: periods 0-10, 10-20, 20-25 (under 6 s: not judged), 25-32, 32-40.
    // f1 runs through all four judged ones, steady: converged at once in each.
    let f1 = f("f1");
    assert_eq!((f1.convergence_periods, f1.converged_periods, f1.convergence_s), (4, 4, Some(0.0)));
    // f2 from 10 s: three.
    let f2 = f("f2");
    assert_eq!((f2.convergence_periods, f2.converged_periods, f2.convergence_s), (3, 3, Some(0.0)));
    // g is paused over 25-32: 0-10, 10-20 and 32-40 are judged.
    assert_eq!(f("g").convergence_periods, 3);
    // h's bottleneck has no event but its own start and the run's end: one period.
    let h = f("h");
    assert_eq!((h.convergence_periods, h.converged_periods, h.convergence_s), (1, 1, Some(0.0)));
}

#[test]
fn a_bin_that_does_not_divide_a_second_measures_no_convergence() {
    let r = sim(&scenario("[monitor]\nbin = \"300ms\""));
    for f in &r.summary.flows {
        assert_eq!((f.convergence_periods, f.converged_periods, f.convergence_s), (0, 0, None), "{}", f.name);
    }
}
