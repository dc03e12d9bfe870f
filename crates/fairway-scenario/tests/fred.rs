//! FRED (Lin & Morris 1997) in a run: four greedy TCP flows beside a CBR flow at 1.5 times the
//! bottleneck's rate, through RED and through FRED with the same thresholds and buffer.

use fairway_engine::{run, RunOptions};
use fairway_model::results::Summary;
use fairway_scenario::parse_scenario;

fn sim(queue: &str) -> Summary {
    let text = format!(
        r#"
name = "fred"
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
    let sc = parse_scenario("fred.toml", &text, "fred").unwrap_or_else(|e| panic!("{e}"));
    run(&sc, &RunOptions::default(), &mut |_| {}).unwrap().summary
}

/// chung-dcbt §1 on FRED: a flow "marked non-TCP-friendly has all packets dropped while it is
/// above its fair share". FRED holds a flow with strikes to avgcq packets, the average per active
/// flow, and any flow to 2 avgcq once the average reaches max_th; in a FIFO a flow's share of the
/// link is its share of the buffer, so the CBR gets at most twice the fair share (2 Mb/s of 10
/// among five flows) and the TCP flows the rest. Through RED the unresponsive flow takes nearly
/// all of the link.
#[test]
fn fred_holds_an_unresponsive_flow_to_its_share_where_red_does_not() {
    let fred = sim("{ kind = \"fred\", limit = 60 }");
    let cbr = |s: &Summary| s.flows.iter().find(|f| f.name == "cbr").unwrap().throughput_bps;
    assert!(cbr(&fred) <= 2.0 * 2e6, "FRED: the CBR got {} b/s", cbr(&fred));
    let link = fred.links.iter().find(|l| l.name == "r1->r2").unwrap();
    assert!(link.flow_drops_pkts > 0 && link.utilization > 0.95, "{link:?}");
    let red = sim(
        "{ kind = \"red\", bytes = false, queue_in_bytes = false, limit = 60, thresh = 5, maxthresh = 15, gentle = false }",
    );
    assert!(cbr(&red) > 0.9 * 10e6, "RED: the CBR got {} b/s", cbr(&red));
}

#[test]
fn fred_keys_are_checked_where_they_are_written() {
    let bad = |q: &str| {
        let text = format!(
            "duration = \"1s\"\n[[link]]\nbetween = [\"a\", \"b\"]\nrate = \"1Mb\"\ndelay = \"1ms\"\nqueue = {q}\n"
        );
        parse_scenario("x.toml", &text, "x").unwrap_err().to_string()
    };
    for (q, key) in [
        ("{ kind = \"fred\", gentle = true }", "gentle"),
        ("{ kind = \"fred\", bytes = true }", "bytes"),
        ("{ kind = \"fred\", min_q = 0 }", "min_q"),
        ("{ kind = \"fred\", mm_th = 2 }", "mm_th"),
    ] {
        let e = bad(q);
        assert!(e.contains(key), "{q}: {e}");
    }
    // FRED's defaults are a queue a user can start from: `queue = "fred"` runs.
    let text = "duration = \"1s\"\n[[link]]\nbetween = [\"a\", \"b\"]\nrate = \"1Mb\"\ndelay = \"1ms\"\nqueue = \"fred\"\n[[flow]]\napp = \"ftp\"\nfrom = \"a\"\nto = \"b\"\n";
    let sc = parse_scenario("x.toml", text, "x").unwrap_or_else(|e| panic!("{e}"));
    run(&sc, &RunOptions::default(), &mut |_| {}).unwrap();
}
