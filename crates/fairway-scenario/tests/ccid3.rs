//! `transport = "ccid3"` in a scenario: its keys, and three flows through dccp-ns2's dumbbell.

use fairway_engine::{run, RunOptions, Summary};
use fairway_scenario::parse_scenario;

fn dumbbell(extra: &str) -> String {
    format!(
        r#"duration = "50s"
[[link]]
between = ["r1", "r2"]
rate = "10Mb"
delay = "2ms"
queue = {{ kind = "droptail", limit = 20 }}
[[link]]
count = 3
between = ["s{{i}}", "r1"]
rate = "10Mb"
delay = "2ms"
[[link]]
count = 3
between = ["r2", "k{{i}}"]
rate = "10Mb"
delay = "2ms"
[[flow]]
name = "c{{i}}"
count = 3
app = "ftp"
transport = "ccid3"
packet_size = "500B"
from = "s{{i}}"
to = "k{{i}}"
start = "{{i}}0ms"
{extra}
[monitor]
links = ["r1->r2"]
"#
    )
}

fn sim(text: &str) -> Summary {
    let sc = parse_scenario("ccid3.toml", text, "ccid3").unwrap_or_else(|e| panic!("{e}"));
    run(&sc, &RunOptions::default(), &mut |_| {}).unwrap().summary
}

#[test]
fn three_ccid3_flows_fill_the_bottleneck_and_report_consistently() {
    let s = sim(&dumbbell(""));
    let link = s.links.iter().find(|l| l.name == "r1->r2").unwrap();
    // Smooth rates into a 20-packet buffer keep the link busy.
    assert!(link.utilization > 0.99, "{}", link.utilization);
    let class = s.classes.iter().find(|c| c.class == "ccid3").expect("its own class");
    assert_eq!(class.flows, 3);
    for f in &s.flows {
        let j = serde_json::to_value(f).unwrap();
        let c = &j["ccid3"];
        let num = |k: &str| c[k].as_f64().unwrap_or_else(|| panic!("{k} in {c}"));
        // Every loss is the network's (no reverse-path loss): the receiver saw each drop, the
        // sender each report but one still on its way at the end.
        assert_eq!(num("lost_or_marked_pkts"), f.dropped_pkts as f64, "{c}");
        assert!(num("loss_events") >= 1.0 && num("loss_events") <= num("lost_or_marked_pkts"), "{c}");
        assert!((0.0..=1.0).contains(&(num("feedback_sent") - num("feedback_received"))), "{c}");
        assert_eq!(num("nofeedback_expiries"), 0.0);
        // The path's 12 ms of propagation plus at most the 20-packet buffer (536 B at 10 Mb/s:
        // 8.6 ms) and the three links' serialisation (1.3 ms).
        let rtt = num("rtt_s");
        assert!((0.012..0.022).contains(&rtt), "{rtt}");
        // The receiver's window-counter estimate has a quarter-RTT's resolution (RFC 4342 §8.1).
        assert!((num("receiver_rtt_s") / rtt - 1.0).abs() <= 0.25, "{c}");
        // Between the last report and the end the current interval grows by under one RTT of
        // packets (about 20 of an I_mean near 200, weight 1 of 6): a few percent; a tenth
        // leaves room for the intervals' whole-packet rounding.
        assert!((num("p_reported") - num("p_final")).abs() <= 0.1 * num("p_final"), "{c}");
    }
}

#[test]
fn ccid3_keys_are_checked() {
    let e = parse_scenario("c.toml", &dumbbell("ack_ratio = 2"), "c").unwrap_err().to_string();
    assert!(e.contains("ack_ratio"), "{e}");
    let e = parse_scenario("c.toml", &dumbbell("q = 1.5"), "c").unwrap_err().to_string();
    assert!(e.contains(".q: 1.5 is outside [0, 1)"), "{e}");
    // TFRC's rate keys apply: without oscillation reduction the run differs.
    let plain = sim(&dumbbell(""));
    let no_osc = sim(&dumbbell("oscillation_reduction = false"));
    assert_ne!(format!("{:?}", plain.flows), format!("{:?}", no_osc.flows));
}
