//! TCP's congestion controls in a run, by their physics: BBR alone fills its bottleneck with
//! little standing queue; CUBIC and BBR flows finish what they send through losses.

use fairway_engine::{run, RunOptions};
use fairway_model::Summary;
use fairway_scenario::parse_scenario;

/// `n` greedy flows with `cc` (and `extra` keys) through a 10 Mb/s bottleneck with a 40 ms
/// propagation round trip and a `limit`-packet DropTail.
fn dumbbell(cc: &str, extra: &str, n: u32, limit: u32, seconds: u32) -> Summary {
    dumbbell_app("app = \"ftp\"", cc, extra, n, limit, seconds)
}

/// The same with the application `app` (its keys).
fn dumbbell_app(app: &str, cc: &str, extra: &str, n: u32, limit: u32, seconds: u32) -> Summary {
    let text = format!(
        r#"
name = "cc"
duration = "{seconds}s"
[[link]]
between = ["s{{i}}", "r1"]
count = {n}
rate = "100Mb"
delay = "1ms"
[[link]]
between = ["r1", "r2"]
rate = "10Mb"
delay = "18ms"
queue = {{ kind = "droptail", limit = {limit} }}
[[link]]
between = ["r2", "d{{i}}"]
count = {n}
rate = "100Mb"
delay = "1ms"
[[flow]]
name = "f{{i}}"
count = {n}
{app}
cc = "{cc}"
{extra}
from = "s{{i}}"
to = "d{{i}}"
start = "{{i}}00ms"
window = 1000
[monitor]
links = ["r1->r2"]
"#
    );
    let sc = parse_scenario("cc.toml", &text, "cc").unwrap_or_else(|e| panic!("{e}"));
    run(&sc, &RunOptions::default(), &mut |_| {}).unwrap().summary
}

#[test]
fn bbr_alone_fills_the_link_with_little_queue() {
    // BDP: 10 Mb/s x 40 ms = 50 000 B, 48 packets of 1040 B. In ProbeBW BBR v1 keeps about
    // one BDP in flight, a quarter more for one RTT in eight: its standing queue stays far below
    // the 100-packet buffer (a quarter of a BDP on average, 12 packets), it loses nothing, and
    // the link is busy but for Startup's first round trips and ProbeRTT's 200 ms each 10 s.
    let s = dumbbell("bbr", "", 1, 100, 30);
    let l = s.links.iter().find(|l| l.name == "r1->r2").unwrap();
    assert!(l.utilization > 0.95, "{}", l.utilization);
    assert_eq!(l.drops_pkts, 0);
    assert!(l.mean_queue_pkts < 12.0, "{}", l.mean_queue_pkts);
    // Loss-based CUBIC fills the buffer instead: its mean queue is several times BBR's.
    let c = dumbbell("cubic", "", 1, 100, 30);
    let lc = c.links.iter().find(|l| l.name == "r1->r2").unwrap();
    assert!(lc.drops_pkts > 0 && lc.mean_queue_pkts > 3.0 * l.mean_queue_pkts, "{lc:?}");
}

#[test]
fn no_congestion_control_starves_a_flow_through_losses() {
    // BBR only with SACK, as Linux runs it: over ns-2's NewReno recovery it starves a flow here
    // (docs/semantics.md, "BBR": about 10% of packets lost, and a timeout cycle).
    for (cc, extra) in [("cubic", ""), ("cubic", "sack = true"), ("cubic", "flavor = \"ns3\""), ("bbr", "sack = true")]
    {
        let s = dumbbell(cc, extra, 4, 30, 20);
        let l = s.links.iter().find(|l| l.name == "r1->r2").unwrap();
        // Four flows into 30 packets of buffer (0.6 BDP): losses, and no flow starved: each
        // gets at least a fifth of an equal share (2.5 Mb/s), where a flow stuck in repeated
        // timeouts would get a small fraction of that.
        assert!(l.drops_pkts > 0, "{cc} {extra}");
        for f in &s.flows {
            assert!(f.throughput_bps > 0.5e6, "{cc} {extra}: {} {}", f.name, f.throughput_bps);
        }
    }
}

/// The fairness measures (fairway-model's fairness.rs) in a run's summary: flows with the same
/// bottleneck and round trip are each other's peers, and the ratios are the throughputs' ratios.
#[test]
fn the_summary_carries_tcp_friendliness_and_jain_over_flows() {
    let s = dumbbell("newreno", "", 3, 30, 20);
    let f = &s.flows;
    // Each flow against the other two (same bottleneck, same base RTT).
    for (i, fi) in f.iter().enumerate() {
        let others: Vec<f64> = f.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, x)| x.throughput_bps).collect();
        let want = fi.throughput_bps / (others.iter().sum::<f64>() / others.len() as f64);
        assert!((fi.tcp_friendliness.unwrap() - want).abs() < 1e-12, "{}", fi.name);
        // The sender's mean RTT: at least the propagation round trip, at most it plus a full
        // 30-packet queue at 10 Mb/s (25 ms) and the ticks of ns-2's 10 ms RTT clock.
        let (rtt, base) = (fi.mean_rtt_s.unwrap(), fi.base_rtt_s.unwrap());
        assert!(rtt >= base - 0.010 && rtt <= base + 0.025 + 0.020, "{rtt} {base}");
        assert!(fi.equation_ratio.is_some());
    }
    let x: Vec<f64> = f.iter().map(|x| x.throughput_bps).collect();
    let jain = x.iter().sum::<f64>().powi(2) / (3.0 * x.iter().map(|v| v * v).sum::<f64>());
    assert!((s.jain_index_flows.unwrap() - jain).abs() < 1e-12);
    assert_eq!(s.jain_index_classes, None, "one class");
}

#[test]
fn each_tcp_flow_reports_its_setup_and_end_state_under_tcp() {
    let json = |s: &Summary| serde_json::to_value(s).unwrap();
    // "As Linux would": CUBIC's Linux flavour, RFC 6675 recovery with Linux's PRR bound,
    // RACK-TLP, timestamps, IW10, 40 ms delayed ACKs, a 200 ms minimum RTO; the open
    // connection's window and CUBIC's own W_max at the end.
    let s = dumbbell("cubic", "options = \"linux\"", 1, 100, 5);
    let t = &json(&s)["flows"][0]["tcp"];
    assert_eq!(t["cc"], "cubic");
    assert_eq!(t["flavor"], "linux");
    assert_eq!(t["recovery"], "rfc6675");
    assert_eq!((t["sack"].as_bool(), t["rack"].as_bool(), t["tlp"].as_bool()), (Some(true), Some(true), Some(true)));
    assert_eq!(t["prr"], "linux");
    assert_eq!(t["window_init_pkts"], 10);
    assert_eq!(t["delayed_ack_s"], 0.04);
    assert_eq!(t["min_rto_s"], 0.2);
    let cwnd = t["cwnd_pkts"].as_f64().unwrap();
    assert!((2.0..=1000.0).contains(&cwnd), "{cwnd}");
    assert!(t["srtt_s"].as_f64().unwrap() >= 0.040, "at least the 40 ms propagation round trip: {t}");
    assert!(t["cc_state"]["w_max"].as_f64().is_some(), "{t}");
    // CUBIC with no flavour given reports its default, RFC 9438's.
    let s = dumbbell("cubic", "", 1, 100, 5);
    assert_eq!(json(&s)["flows"][0]["tcp"]["flavor"], "rfc9438");
    // ns-2's NewReno (the default): the AIMD window under its registry name, ns-2's NewReno
    // recovery, no SACK, no delayed ACKs, ns-2's 1 s minimum RTO... and no algorithm state.
    let s = dumbbell("newreno", "", 1, 100, 5);
    let t = &json(&s)["flows"][0]["tcp"];
    assert_eq!((t["cc"].as_str(), t["recovery"].as_str()), (Some("reno"), Some("newreno")));
    assert_eq!((t["sack"].as_bool(), t["prr"].is_null(), t["delayed_ack_s"].is_null()), (Some(false), true, true));
    assert_eq!(t["cc_state"], serde_json::json!({}));
    // A transfer that finished has no connection open: its state is empty, its setup is kept.
    let s = dumbbell_app("app = \"transfer\"\nsize = \"100KB\"", "newreno", "", 1, 100, 5);
    let t = &json(&s)["flows"][0]["tcp"];
    assert!(t["cwnd_pkts"].is_null() && t["srtt_s"].is_null(), "{t}");
    assert_eq!(t["recovery"], "newreno");
}
