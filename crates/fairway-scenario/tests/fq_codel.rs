//! FQ-CoDel (RFC 8290) in a run: four greedy TCP flows beside a CBR flow at 1.5 times the
//! bottleneck's rate. A FIFO, CoDel or DropTail, lets the unresponsive flow take the link; the
//! flow queues share it.

use fairway_engine::{run, RunOptions};
use fairway_model::results::Summary;
use fairway_scenario::parse_scenario;

fn sim(queue: &str) -> Summary {
    let text = format!(
        r#"
name = "fq"
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
    let sc = parse_scenario("fq.toml", &text, "fq").unwrap_or_else(|e| panic!("{e}"));
    run(&sc, &RunOptions::default(), &mut |_| {}).unwrap().summary
}

/// RFC 8290 §4.2: backlogged queues are served a quantum each in turn, so each of the five
/// flows has 2 Mb/s of the 10. A TCP flow's own CoDel (5 ms target, 28 ms base RTT) empties its
/// queue for part of each sawtooth, as it would leave a link of its own idle: about 85% busy
/// (tests/codel.rs works it out), and the CBR takes those turns. So each TCP flow gets at least
/// 85% of its share; through a FIFO the CBR, unresponsive at 15 Mb/s, takes nearly all.
#[test]
fn flow_queues_give_tcp_its_share_beside_an_unresponsive_flood() {
    let fq = sim("{ kind = \"fq_codel\" }");
    for f in fq.flows.iter().filter(|f| f.name.starts_with("tcp")) {
        assert!(f.throughput_bps > 0.85 * 2e6, "{}: {} b/s", f.name, f.throughput_bps);
    }
    let cbr = fq.flows.iter().find(|f| f.name == "cbr").unwrap();
    assert!(cbr.throughput_bps >= 2e6 * 0.99 && cbr.throughput_bps < 4e6, "{}", cbr.throughput_bps);
    let link = fq.links.iter().find(|l| l.name == "r1->r2").unwrap();
    // The flood fills the buffer: its queue loses packets from the head when the buffer is
    // full; CoDel drops in every queue.
    assert!(link.overflow_drops_pkts > 0 && link.sojourn_drops_pkts > 0, "{link:?}");
    for fifo in ["{ kind = \"codel\", limit = 1000 }", "{ kind = \"droptail\", limit = 1000 }"] {
        let s = sim(fifo);
        let tcp: f64 = s.flows.iter().filter(|f| f.name.starts_with("tcp")).map(|f| f.throughput_bps).sum();
        assert!(tcp < 0.1 * 10e6, "{fifo}: TCP got {tcp} b/s");
    }
}

#[test]
fn fq_codel_keys_are_checked_where_they_are_written() {
    let bad = |q: &str| {
        let text = format!(
            "duration = \"1s\"\n[[link]]\nbetween = [\"a\", \"b\"]\nrate = \"1Mb\"\ndelay = \"1ms\"\nqueue = {q}\n"
        );
        parse_scenario("x.toml", &text, "x").unwrap_err().to_string()
    };
    for (q, key) in [
        ("{ kind = \"fq_codel\", flows = 0 }", "flows"),
        ("{ kind = \"fq_codel\", quantum = \"0B\" }", "quantum"),
        ("{ kind = \"fq_codel\", drop_batch = 0 }", "drop_batch"),
        ("{ kind = \"fq_codel\", mm_th = 2 }", "mm_th"),
    ] {
        let e = bad(q);
        assert!(e.contains(key), "{q}: {e}");
    }
}
