//! CoDel (RFC 8289) in a run: the same greedy TCP traffic through a large buffer, with and
//! without CoDel in front of the bottleneck.

use fairway_engine::{run, RunOptions};
use fairway_model::results::LinkSummary;
use fairway_scenario::parse_scenario;

fn bottleneck(queue: &str, flows: u32) -> LinkSummary {
    bottleneck_ecn(queue, flows, false)
}

fn bottleneck_ecn(queue: &str, flows: u32, ecn: bool) -> LinkSummary {
    let text = format!(
        r#"
name = "codel"
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
ecn = {ecn}
[monitor]
links = ["r1->r2"]
"#
    );
    let sc = parse_scenario("codel.toml", &text, "codel").unwrap_or_else(|e| panic!("{e}"));
    let r = run(&sc, &RunOptions::default(), &mut |_| {}).unwrap();
    r.summary.links.into_iter().find(|l| l.name == "r1->r2").unwrap()
}

/// A 1000-packet buffer fills under greedy TCP: 1000 packets of 1040 bytes are 832 ms at 10
/// Mb/s, and DropTail's mean wait is more than half of that. CoDel drops from the head once
/// waits have stayed above its 5 ms target for an interval (100 ms), and a TCP flow halves
/// within an RTT of a drop, so no wait stands for much more than an interval and the mean is
/// below it, start-up included (the slow starts fill the buffer for the first second; the
/// steady queue is some ten to twenty packets, 8-17 ms, for eight flows); no packet is refused
/// for want of room. Utilisation: one Reno flow's window saws between W/2 and W =
/// C x (RTT + queue), about 35 + 6 packets (28 ms of base RTT, some 5 ms of queue), so the link
/// idles while the window is under 35 packets: (14.5 RTTs at 79% on average + 6 at 100%) / 20.5,
/// about 85%; eight flows halve one at a time and keep it busy.
#[test]
fn codel_keeps_the_standing_queue_near_its_target_where_droptail_fills_the_buffer() {
    for (flows, busy) in [(1, 0.8), (8, 0.95)] {
        let dt = bottleneck("{ kind = \"droptail\", limit = 1000 }", flows);
        let cd = bottleneck("{ kind = \"codel\", limit = 1000 }", flows);
        let (dt_wait, cd_wait) = (dt.mean_sojourn_s.unwrap(), cd.mean_sojourn_s.unwrap());
        assert!(dt_wait > 0.416, "{flows} flows: DropTail's mean wait {dt_wait} s");
        assert!(cd_wait < 0.1, "{flows} flows: CoDel's mean wait {cd_wait} s, an interval");
        assert!(cd_wait > 0.005 / 2.0, "{flows} flows: CoDel's mean wait {cd_wait} s, half the target");
        assert!(cd.sojourn_drops_pkts > 0 && cd.overflow_drops_pkts == 0, "{cd:?}");
        assert_eq!(cd.drops_pkts, cd.sojourn_drops_pkts);
        assert!(cd.utilization > busy, "{flows} flows: utilisation {}", cd.utilization);
    }
}

/// With ECN, CoDel marks ECN-capable TCP instead of dropping it: no drops at all, marks instead,
/// and the same control of the wait.
#[test]
fn codel_with_ecn_marks_instead_of_dropping() {
    let codel_ecn = "{ kind = \"codel\", limit = 1000, ecn = true }";
    let cd = bottleneck_ecn(codel_ecn, 4, true);
    assert!(cd.marks_pkts > 0 && cd.drops_pkts == 0, "{cd:?}");
    assert!(cd.mean_sojourn_s.unwrap() < 0.1, "{cd:?}");
    // TCP that is not ECN-capable is dropped all the same.
    let cd = bottleneck_ecn(codel_ecn, 4, false);
    assert!(cd.sojourn_drops_pkts > 0 && cd.marks_pkts == 0, "{cd:?}");
}

#[test]
fn codel_keys_are_checked_where_they_are_written() {
    let bad = |q: &str| {
        let text = format!(
            "duration = \"1s\"\n[[link]]\nbetween = [\"a\", \"b\"]\nrate = \"1Mb\"\ndelay = \"1ms\"\nqueue = {q}\n"
        );
        parse_scenario("x.toml", &text, "x").unwrap_err().to_string()
    };
    let e = bad("{ kind = \"codel\", interval = \"1ms\" }");
    assert!(e.contains("interval") && e.contains("shorter than the target"), "{e}");
    let e = bad("{ kind = \"codel\", target = \"0ms\" }");
    assert!(e.contains("target"), "{e}");
    let e = bad("{ kind = \"codel\", thresh = 5 }");
    assert!(e.contains("thresh"), "{e}");
    let e = bad("{ kind = \"kodel\" }");
    assert!(e.contains("codel"), "{e}");
}
