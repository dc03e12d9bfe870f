//! PIE (RFC 8033) in a run: greedy TCP through a large buffer, with and without PIE in front of
//! the bottleneck.

use fairway_engine::{run, RunOptions};
use fairway_model::results::LinkSummary;
use fairway_scenario::parse_scenario;

fn bottleneck(queue: &str, flows: u32) -> LinkSummary {
    let text = format!(
        r#"
name = "pie"
duration = "30s"
[[link]]
between = ["s{{i}}", "r1"]
count = {flows}
rate = "100Mb"
delay = "2ms"
[[link]]
between = ["r1", "r2"]
rate = "10Mb"
delay = "10ms"
queue = {queue}
[[link]]
between = ["r2", "d"]
rate = "100Mb"
delay = "2ms"
[[flow]]
count = {flows}
app = "ftp"
transport = "newreno"
from = "s{{i}}"
to = "d"
window = 1000
[monitor]
links = ["r1->r2"]
"#
    );
    let sc = parse_scenario("pie.toml", &text, "pie").unwrap_or_else(|e| panic!("{e}"));
    let r = run(&sc, &RunOptions::default(), &mut |_| {}).unwrap();
    r.summary.links.into_iter().find(|l| l.name == "r1->r2").unwrap()
}

/// DropTail's 1000 packets fill (832 ms at 10 Mb/s). PIE's PI controller raises the drop
/// probability while delay samples exceed its 15 ms reference and lowers it while they are
/// under (§4.2: the integral term leaves no steady-state error), and it never drops while the
/// delay is under half the reference (§4.1): the mean wait settles between half and twice the
/// reference, start-up included, for 1 to 32 flows; the buffer never overflows.
#[test]
fn pie_holds_the_delay_near_its_reference_where_droptail_fills_the_buffer() {
    for flows in [1, 8, 32] {
        let dt = bottleneck("{ kind = \"droptail\", limit = 1000 }", flows);
        let pie = bottleneck("{ kind = \"pie\", limit = 1000 }", flows);
        let (dt_wait, pie_wait) = (dt.mean_sojourn_s.unwrap(), pie.mean_sojourn_s.unwrap());
        assert!(dt_wait > 0.416, "{flows} flows: DropTail's mean wait {dt_wait} s");
        assert!((0.0075..0.030).contains(&pie_wait), "{flows} flows: PIE's mean wait {pie_wait} s");
        assert!(pie.early_drops_pkts > 0 && pie.overflow_drops_pkts == 0, "{pie:?}");
    }
}

#[test]
fn pie_keys_are_checked_where_they_are_written() {
    let bad = |q: &str| {
        let text = format!(
            "duration = \"1s\"\n[[link]]\nbetween = [\"a\", \"b\"]\nrate = \"1Mb\"\ndelay = \"1ms\"\nqueue = {q}\n"
        );
        parse_scenario("x.toml", &text, "x").unwrap_err().to_string()
    };
    for (q, key) in [
        ("{ kind = \"pie\", target = \"0ms\" }", "target"),
        ("{ kind = \"pie\", alpha = -1 }", "alpha"),
        ("{ kind = \"pie\", mark_ecn_threshold = 1.5 }", "mark_ecn_threshold"),
        ("{ kind = \"pie\", interval = \"1s\" }", "interval"),
    ] {
        let e = bad(q);
        assert!(e.contains(key), "{q}: {e}");
    }
}
