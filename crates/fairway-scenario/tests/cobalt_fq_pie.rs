//! COBALT and FQ-PIE (ns-3.37's CobaltQueueDisc and FqPieQueueDisc) in a run: four greedy TCP
//! flows beside a CBR flow at 1.5 times the bottleneck's rate, as tests/fq_codel.rs runs
//! FQ-CoDel. FQ-PIE's flow queues share the link; COBALT, a FIFO, cannot, but its BLUE takes the
//! flood's excess that CoDel alone would leave to the buffer's overflows. (ns-3's twin,
//! validation/ns3/aqm.cc, run on this traffic: FQ-PIE's mean wait 0.84 s against fairway's 0.87,
//! its drops within 0.5%, TCP 1.93-1.97 Mb/s a flow; COBALT's wait 13.8 ms against 16.6, the TCP
//! flows starved in both.)

use fairway_engine::{run, RunOptions};
use fairway_model::results::Summary;
use fairway_scenario::parse_scenario;

fn sim(queue: &str) -> Summary {
    let text = format!(
        r#"
name = "flood"
duration = "30s"
[[link]]
between = ["s{{i}}", "r1"]
count = 5
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
name = "tcp{{i}}"
count = 4
app = "ftp"
transport = "newreno"
from = "s{{i}}"
to = "d"
window = 1000
[[flow]]
name = "cbr"
app = "cbr"
from = "s4"
to = "d"
rate = "15Mb"
[monitor]
links = ["r1->r2"]
"#
    );
    let sc = parse_scenario("flood.toml", &text, "flood").unwrap_or_else(|e| panic!("{e}"));
    run(&sc, &RunOptions::default(), &mut |_| {}).unwrap().summary
}

/// Each of the five flows has 2 Mb/s of the 10 in turn. The CBR's own PIE drops its excess at
/// random: its 210-byte packets come at 7.5 times its share, and the probability climbs by at
/// most 0.02 an update above 0.1, so its queue holds near a second of packets (the link's mean
/// wait, most packets being the CBR's), well under the buffer's limit; a TCP flow's PIE holds its
/// own queue near 15 ms.
#[test]
fn fq_pie_gives_tcp_its_share_beside_an_unresponsive_flood() {
    let s = sim("{ kind = \"fq_pie\", ecn = false }");
    for f in s.flows.iter().filter(|f| f.name.starts_with("tcp")) {
        assert!(f.throughput_bps > 0.9 * 2e6, "{}: {} b/s", f.name, f.throughput_bps);
    }
    let cbr = s.flows.iter().find(|f| f.name == "cbr").unwrap();
    assert!(cbr.throughput_bps >= 2e6 * 0.99 && cbr.throughput_bps < 2.5e6, "{}", cbr.throughput_bps);
    let link = s.links.iter().find(|l| l.name == "r1->r2").unwrap();
    // PIE's drops, not the buffer's: 10 240 packets are never reached.
    assert!(link.early_drops_pkts > 0 && link.overflow_drops_pkts == 0, "{link:?}");
    for f in s.flows.iter().filter(|f| f.name.starts_with("tcp")) {
        assert!(f.mean_delay_s.is_some_and(|d| d < 0.1), "{}: {:?} s", f.name, f.mean_delay_s);
    }
}

/// Through COBALT the flood takes nearly the whole link (a FIFO: the TCP flows are starved, as in
/// ns-3), but BLUE, raised by the first overflows, drops the excess at departure, and the
/// buffer's overflows stop: the wait stays near CoDel's target, not the full buffer's a DropTail
/// of the same size keeps.
#[test]
fn cobalts_blue_takes_an_unresponsive_floods_excess() {
    let s = sim("{ kind = \"cobalt\", limit = 1000 }");
    let link = s.links.iter().find(|l| l.name == "r1->r2").unwrap();
    assert!(link.early_drops_pkts > 10 * link.overflow_drops_pkts, "{link:?}");
    assert!(link.overflow_drops_pkts > 0, "{link:?}");
    assert!(link.mean_sojourn_s.unwrap() < 0.03, "{link:?}");
    let tail = sim("{ kind = \"droptail\", limit = 1000 }");
    let tail_link = tail.links.iter().find(|l| l.name == "r1->r2").unwrap();
    assert!(tail_link.mean_sojourn_s.unwrap() > 4.0 * link.mean_sojourn_s.unwrap(), "{tail_link:?}");
}

#[test]
fn cobalt_and_fq_pie_keys_are_checked_where_they_are_written() {
    let bad = |q: &str| {
        let text = format!(
            "duration = \"1s\"\n[[link]]\nbetween = [\"a\", \"b\"]\nrate = \"1Mb\"\ndelay = \"1ms\"\nqueue = {q}\n"
        );
        parse_scenario("x.toml", &text, "x").unwrap_err().to_string()
    };
    for (q, key) in [
        ("{ kind = \"cobalt\", limit = 0 }", "limit"),
        ("{ kind = \"cobalt\", limit = \"0B\" }", "limit"),
        ("{ kind = \"cobalt\", interval = \"5s\" }", "interval"),
        ("{ kind = \"cobalt\", increment = 2 }", "increment"),
        ("{ kind = \"cobalt\", p_drop = -1 }", "p_drop"),
        ("{ kind = \"cobalt\", quantum = \"1500B\" }", "quantum"),
        ("{ kind = \"fq_pie\", flows = 0 }", "flows"),
        ("{ kind = \"fq_pie\", quantum = \"0B\" }", "quantum"),
        ("{ kind = \"fq_pie\", mark_ecn_threshold = 1.5 }", "mark_ecn_threshold"),
        ("{ kind = \"fq_pie\", t_update = \"0s\" }", "t_update"),
        ("{ kind = \"fq_pie\", flavor = \"ns3\" }", "flavor"),
    ] {
        let e = bad(q);
        assert!(e.contains(key), "{q}: {e}");
    }
}
