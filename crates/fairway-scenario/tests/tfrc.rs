//! TFRC in the simulator, checked against what RFC 5348 and RFC 4828 say it does: reasonably
//! fair to TCP (within a factor of two, §1), TFRC-SP's Min Interval and header allowance, and an
//! application-limited sender that sends what its application offers.

use std::path::{Path, PathBuf};

use fairway_engine::{run, RunOptions, Summary};
use fairway_scenario::protocols::TfrcSummary;
use fairway_scenario::{parse_scenario, parse_scenario_file};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn sim(text: &str) -> Summary {
    let sc = parse_scenario("test.toml", text, "test").unwrap_or_else(|e| panic!("{e}"));
    run(&sc, &RunOptions::default(), &mut |_| {}).unwrap_or_else(|e| panic!("{e}")).summary
}

/// RFC 5348 §1: TFRC is "reasonably fair" when its rate is "generally within a factor of two"
/// of a TCP flow's under the same conditions. Through RED (which spreads its drops over the
/// flows), in both flavours, every TFRC flow's mean over three seeds is within a factor of two
/// of the mean NewReno flow's.
#[test]
fn tfrc_is_reasonably_fair_to_newreno_through_red() {
    let text = std::fs::read_to_string(repo().join("scenarios/validation/tfrc-red.toml")).unwrap();
    for flavor in ["ns2", "rfc5348"] {
        let sc =
            parse_scenario("tfrc-red.toml", &text.replace("flavor = \"ns2\"", &format!("flavor = \"{flavor}\"")), "t")
                .unwrap();
        let (mut tfrc, mut tcp) = ([0.0; 2], 0.0);
        for seed in 1..=3 {
            let s = run(&sc, &RunOptions { seed: Some(seed), ..Default::default() }, &mut |_| {}).unwrap().summary;
            for f in &s.flows {
                match f.name.as_str() {
                    "tfrc0" => tfrc[0] += f.throughput_bps,
                    "tfrc1" => tfrc[1] += f.throughput_bps,
                    _ => tcp += f.throughput_bps / 2.0,
                }
            }
        }
        for (i, t) in tfrc.iter().enumerate() {
            let ratio = t / tcp;
            assert!((0.5..=2.0).contains(&ratio), "{flavor}: tfrc{i} / tcp = {ratio:.2}");
        }
    }
}

/// One flow on a 10 Mb/s path with 20 ms of delay each way and room for everything.
fn alone(transport_keys: &str, duration: &str) -> String {
    format!(
        r#"
duration = "{duration}"
[[link]]
between = ["a", "r"]
rate = "10Mb"
delay = "20ms"
queue = {{ kind = "droptail", limit = 1000 }}
[[link]]
between = ["r", "b"]
rate = "10Mb"
delay = "1ms"
queue = {{ kind = "droptail", limit = 1000 }}
[[flow]]
name = "f"
from = "a"
to = "b"
{transport_keys}
"#
    )
}

/// RFC 4828 §4.3: TFRC-SP sends at most one packet per 10 ms, whatever the equation allows.
/// Greedy, on a path with room for far more, a 160 B sender sends 100 packets a second.
#[test]
fn tfrc_sp_keeps_its_min_interval() {
    let s = sim(&alone("app = \"ftp\"\ntransport = \"tfrc-sp\"\npacket_size = \"160B\"", "20s"));
    let f = &s.flows[0];
    let per_s = f.sent_pkts as f64 / 20.0;
    // 100 a second once the rate allows it: slow start from 4 packets a round trip takes under
    // a second to get there; never more.
    assert!(per_s <= 100.0 + 1e-9, "{per_s} packets a second");
    assert!(per_s > 95.0, "{per_s} packets a second");
    assert_eq!(f.dropped_pkts, 0);
}

/// An application-limited sender (app = "cbr") on a path with room: every packet the
/// application offers is sent, nothing waits at the end, and the receiver sees no loss.
#[test]
fn an_application_limited_sender_sends_what_its_application_offers() {
    // janani-tfrc's VoIP: 84 kb/s of 160 B packets.
    let s = sim(&alone("app = \"cbr\"\ntransport = \"tfrc\"\npacket_size = \"160B\"\nrate = \"84kb\"", "30s"));
    let f = &s.flows[0];
    let offered = (30.0 * 84_000.0 / (160.0 * 8.0)) as u64;
    assert!(f.sent_pkts.abs_diff(offered) <= 1, "sent {} of {offered}", f.sent_pkts);
    let t = f.report::<TfrcSummary>().unwrap();
    assert_eq!((t.backlog_pkts, t.lost_or_marked_pkts, t.loss_events), (0, 0, 0));
    // And one that offers more than the path carries queues the rest: 12 Mb/s over 10 Mb/s is
    // 250 packets a second too many, 5 000 in 20 s, less what slow start and the equation
    // leave unsent anyway.
    let s = sim(&alone("app = \"cbr\"\ntransport = \"tfrc\"\npacket_size = \"1000B\"\nrate = \"12Mb\"", "20s"));
    let t = s.flows[0].report::<TfrcSummary>().unwrap();
    assert!(t.backlog_pkts > 3_000, "backlog {}", t.backlog_pkts);
}

/// The ns-2 twins' scenarios parse and name their flavour in the summary.
#[test]
fn the_validation_scenarios_run_the_ns2_flavour() {
    let sc = parse_scenario_file(&repo().join("scenarios/validation/tfrc-lossy.toml")).unwrap();
    let s = run(&sc, &RunOptions::default(), &mut |_| {}).unwrap().summary;
    let t = s.flows[0].report::<TfrcSummary>().unwrap();
    assert_eq!(t.flavor, "ns2");
    assert!(t.loss_events > 50, "1% of about 10 000 packets lost: {}", t.loss_events);
}
