//! Phase-effect remedies (docs/semantics.md, "Phase effects"): a flow's `send_jitter` (a random
//! host delay before each data packet) and TCP's `overhead` (ns-2's `overhead_`). Expected values
//! follow from the set-up: uniform delays, serialisation and propagation.

use fairway_engine::{run, RunOptions, Summary};
use fairway_model::results::FlowSummary;
use fairway_scenario::parse_scenario;

fn sim(text: &str, seed: u64) -> Summary {
    let sc = parse_scenario("test.toml", text, "test").unwrap_or_else(|e| panic!("{e}"));
    run(&sc, &RunOptions { seed: Some(seed), ..Default::default() }, &mut |_| {})
        .unwrap_or_else(|e| panic!("{e}"))
        .summary
}

fn flow<'a>(s: &'a Summary, name: &str) -> &'a FlowSummary {
    s.flows.iter().find(|f| f.name == name).unwrap()
}

/// a --10Mb 1ms-- r1 --2Mb 10ms-- r2 --10Mb 1ms-- b, 10 s.
fn path(flows: &str) -> String {
    format!(
        r#"
duration = "10s"
[[link]]
between = ["a", "r1"]
rate = "10Mb"
delay = "1ms"
[[link]]
between = ["r1", "r2"]
rate = "2Mb"
delay = "10ms"
[[link]]
between = ["b", "r2"]
rate = "10Mb"
delay = "1ms"
{flows}
"#
    )
}

#[test]
fn send_jitter_adds_half_its_bound_to_the_mean_delay_and_loses_nothing() {
    // A 1 Mb/s CBR of 1000-byte packets (one per 8 ms) with delays uniform in [0, 4 ms): they
    // never catch up with each other, so each packet's delay is 17.6 ms (serialisation and
    // propagation, as in physics.rs) plus its own draw. Mean 2 ms, standard deviation
    // 4/sqrt(12) = 1.15 ms, so over 1250 packets the mean draw has a standard error of 0.033 ms.
    let s = sim(
        &path(
            r#"[[flow]]
name = "cbr"
app = "cbr"
from = "a"
to = "b"
packet_size = "1000B"
rate = "1Mb"
send_jitter = "4ms"
"#,
        ),
        1,
    );
    let f = flow(&s, "cbr");
    assert_eq!(f.sent_pkts, 1250);
    assert_eq!(f.dropped_pkts, 0);
    let d = f.mean_delay_s.unwrap();
    let extra = d - 0.0176;
    assert!((extra - 0.002).abs() < 5.0 * 0.000033, "mean delay {d} s: {extra} s above the base");
    // The standard deviation of the delay is the draw's: 4 ms / sqrt(12).
    let sd = f.delay_sd_s.unwrap();
    assert!((sd - 0.004 / 12f64.sqrt()).abs() < 0.0001, "{sd}");
}

#[test]
fn send_jitter_never_reorders_a_flows_packets() {
    // Delays up to 50 ms against one packet every 8 ms: drawn independently they would reorder
    // most packets, and a TCP receiver would answer with duplicate ACKs and the sender would
    // retransmit on a path that loses nothing. In order, it sends each packet once.
    let s = sim(
        &path(
            r#"[[flow]]
name = "tcp"
app = "ftp"
from = "a"
to = "b"
window = 8
send_jitter = "50ms"
"#,
        ),
        1,
    );
    let f = flow(&s, "tcp");
    assert_eq!(f.dropped_pkts, 0);
    assert_eq!(f.retransmits_pkts, 0, "{f:?}");
    assert_eq!(f.fast_retransmits, 0);
    assert!(f.recv_distinct_pkts > 1000);
}

fn two_tcp(remedy: &str) -> String {
    path(&format!(
        r#"[[flow]]
name = "t0"
app = "ftp"
from = "a"
to = "b"
window = 64
{remedy}
[[flow]]
name = "t1"
app = "ftp"
from = "a"
to = "b"
start = "0.1s"
window = 64
{remedy}
"#
    ))
}

#[test]
fn the_remedies_are_deterministic_per_seed_and_differ_between_seeds() {
    for remedy in ["overhead = \"4ms\"", "send_jitter = \"4ms\""] {
        let text = two_tcp(remedy);
        let a = sim(&text, 7);
        let b = sim(&text, 7);
        assert_eq!(format!("{:?}", a.flows), format!("{:?}", b.flows), "{remedy}: same seed, same results");
        let c = sim(&text, 8);
        assert_ne!(format!("{:?}", a.flows), format!("{:?}", c.flows), "{remedy}: another seed, other draws");
    }
}

#[test]
fn overhead_slows_each_send_by_half_its_bound_on_average() {
    // A TCP with a window of one packet on an uncongested path sends one packet per round trip.
    // With `overhead` each packet waits a draw in [0, 20 ms) once its ACK opens the window, so a
    // round takes the RTT plus 10 ms on average: the rate falls by RTT / (RTT + 10 ms).
    let base = |remedy: &str| {
        let text =
            path(&format!("[[flow]]\nname = \"t\"\napp = \"ftp\"\nfrom = \"a\"\nto = \"b\"\nwindow = 1\n{remedy}\n"));
        flow(&sim(&text, 3), "t").recv_distinct_pkts as f64
    };
    let plain = base("");
    let slowed = base("overhead = \"20ms\"");
    // The RTT: 24 ms of propagation, a 1040 B segment serialised at 10, 2 and 10 Mb/s (5.66 ms)
    // and its 40 B ACK likewise (0.22 ms).
    let rtt = 0.024 + 1040.0 * 8.0 * (2.0 / 10e6 + 1.0 / 2e6) + 40.0 * 8.0 * (2.0 / 10e6 + 1.0 / 2e6);
    let want = rtt / (rtt + 0.010);
    let got = slowed / plain;
    // About 250 rounds, each draw with a standard deviation of 5.8 ms: the mean wait has a
    // standard error of 0.37 ms, 0.9% of a round; the band is three of those.
    assert!((got - want).abs() < 0.027, "rate ratio {got:.3}, expected {want:.3}");
}
