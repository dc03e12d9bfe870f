//! `couple = "name"` on RTP flows (RFC 8699's coupled congestion control): the flows of a group
//! share their rates by `prio` whatever the controller, a group sends from one node, and `prio`
//! outside a group stays NADA's alone.

use fairway_engine::{run, RunOptions};
use fairway_model::results::RunResult;
use fairway_scenario::parse_scenario;

/// Two video flows over a 2 Mb/s bottleneck, from `from1` and `from2`, with `extra` keys on
/// each (`{cc}` and `{prio}` filled per flow).
fn text(cc: &str, from2: &str, keys1: &str, keys2: &str) -> String {
    format!(
        r#"
duration = "60s"
[monitor]
bin = "1s"
[[link]]
between = ["a", "r1"]
rate = "100Mb"
delay = "1ms"
[[link]]
between = ["c", "r1"]
rate = "100Mb"
delay = "1ms"
[[link]]
between = ["r1", "r2"]
rate = "2Mb"
delay = "48ms"
queue = {{ kind = "droptail", limit = "75000B" }}
[[link]]
between = ["r2", "b"]
rate = "100Mb"
delay = "1ms"
[[flow]]
name = "v1"
app = "video"
transport = "rtp"
cc = "{cc}"
from = "a"
to = "b"
{keys1}
[[flow]]
name = "v2"
app = "video"
transport = "rtp"
cc = "{cc}"
from = "{from2}"
to = "b"
{keys2}
"#
    )
}

fn sim(t: &str) -> RunResult {
    let sc = parse_scenario("t.toml", t, "t").unwrap_or_else(|e| panic!("{e}"));
    run(&sc, &RunOptions::default(), &mut |_| {}).unwrap_or_else(|e| panic!("{e}"))
}

fn err(t: &str) -> String {
    parse_scenario("t.toml", t, "t").unwrap_err().to_string()
}

/// Flow `i`'s mean received rate over bins [from, to), b/s.
fn rate(r: &RunResult, i: usize, from: usize, to: usize) -> f64 {
    r.flow_bins[i][from..to].iter().map(|b| b.distinct_bytes as f64 * 8.0).sum::<f64>() / (to - from) as f64
}

/// Priorities 2 and 1 in one group: 2 Mb/s shared 2:1 would be 1.33 and 0.67 Mb/s, within the
/// 1.5 Mb/s maximum. Each controller's priority-2 flow gets over 1.5 times the other's over the
/// last 30 s (2 with some slack for the controllers' own swings), where uncoupled they would
/// share about equally.
#[test]
fn a_coupled_group_shares_by_priority_whatever_the_controller() {
    for cc in ["nada", "scream", "gcc"] {
        let r = sim(&text(cc, "a", "couple = \"g\"\nprio = 2", "couple = \"g\"\nprio = 1"));
        let (x1, x2) = (rate(&r, 0, 30, 60), rate(&r, 1, 30, 60));
        assert!(x1 > 1.5 * x2, "{cc}: {x1:.0} and {x2:.0}");
        assert!(x1 + x2 > 1.2e6, "{cc}: {x1:.0} and {x2:.0} leave the link idle");
    }
}

/// A paused flow leaves its group and joins it again when it resumes; the other runs on.
#[test]
fn a_paused_coupled_flow_leaves_its_group_and_comes_back() {
    let r = sim(&text(
        "gcc",
        "a",
        "couple = \"g\"\nprio = 2\npause = [{ at = \"20s\", until = \"30s\" }]",
        "couple = \"g\"\nprio = 1",
    ));
    assert!(rate(&r, 1, 25, 30) > 0.0);
    assert!(rate(&r, 0, 50, 60) > rate(&r, 1, 50, 60));
}

#[test]
fn a_group_sends_from_one_node() {
    let e = err(&text("scream", "c", "couple = \"g\"", "couple = \"g\""));
    assert!(e.contains("coupled group `g` sends from node `a`"), "{e}");
    assert!(e.contains("this flow from `c`") && e.contains("one sender"), "{e}");
    assert!(e.contains("couple"), "located at the key: {e}");
    // Two groups, one per node, are two senders' groups.
    sim(&text("scream", "c", "couple = \"g\"", "couple = \"h\""));
}

#[test]
fn prio_outside_a_group_is_nadas_alone_and_a_priority_is_above_zero() {
    let e = err(&text("scream", "a", "prio = 2", ""));
    assert!(e.contains("with `couple`"), "{e}");
    let e = err(&text("gcc", "a", "prio = 2", ""));
    assert!(e.contains("with `couple`"), "{e}");
    parse_scenario("t.toml", &text("nada", "a", "prio = 2", ""), "t").unwrap();
    let e = err(&text("gcc", "a", "couple = \"g\"\nprio = 0", "couple = \"g\""));
    assert!(e.contains("above 0"), "{e}");
    let e = err(&text("gcc", "a", "couple = \"\"", ""));
    assert!(e.contains("give a name"), "{e}");
}

/// A coupled group's state is its run's own: the same scenario run twice gives the same bins.
#[test]
fn coupled_runs_are_deterministic() {
    let t = text("gcc", "a", "couple = \"g\"\nprio = 2", "couple = \"g\"\nprio = 1");
    let (a, b) = (sim(&t), sim(&t));
    for i in 0..2 {
        let bytes = |r: &RunResult| r.flow_bins[i].iter().map(|x| x.distinct_bytes).collect::<Vec<_>>();
        assert_eq!(bytes(&a), bytes(&b));
    }
}
