//! Each flow's one-way delay percentiles (summary.json's delay_p50_s, delay_p95_s,
//! delay_p99_s) and the histogram delay_cdf.csv is written from: a flow that never queues has
//! one delay, every percentile of it; a flow that fills its queue has a tail.

use fairway_engine::{run, RunOptions, RunResult};
use fairway_model::delay_hist::RELATIVE_ERROR;
use fairway_model::results::FlowSummary;
use fairway_scenario::parse_scenario;

fn sim(text: &str) -> RunResult {
    let sc = parse_scenario("test.toml", text, "test").unwrap_or_else(|e| panic!("{e}"));
    run(&sc, &RunOptions::default(), &mut |_| {}).unwrap_or_else(|e| panic!("{e}"))
}

/// a --10Mb 1ms-- r1 --2Mb 10ms {queue}-- r2 --10Mb 1ms-- b, one flow `f` from a to b.
fn path(queue: &str, head: &str, flow: &str) -> String {
    format!(
        r#"
duration = "20s"
{head}
[[link]]
between = ["a", "r1"]
rate = "10Mb"
delay = "1ms"
[[link]]
between = ["r1", "r2"]
rate = "2Mb"
delay = "10ms"
queue = {queue}
[[link]]
between = ["b", "r2"]
rate = "10Mb"
delay = "1ms"
[[flow]]
name = "f"
from = "a"
to = "b"
{flow}
"#
    )
}

fn within(got: Option<f64>, want: f64) -> bool {
    got.is_some_and(|g| (g - want).abs() <= RELATIVE_ERROR * want)
}

#[test]
fn a_cbr_flow_that_never_queues_has_its_path_delay_at_every_percentile() {
    let r = sim(&path("\"droptail\"", "", "app = \"cbr\"\npacket_size = \"1000B\"\nrate = \"1Mb\""));
    let f: &FlowSummary = &r.summary.flows[0];
    // 1000 B serialised at 10, 2 and 10 Mb/s (0.8 + 4 + 0.8 ms) and 12 ms of propagation.
    let d = 0.0176;
    assert!((f.mean_delay_s.unwrap() - d).abs() < 1e-9);
    for p in [f.delay_p50_s, f.delay_p95_s, f.delay_p99_s] {
        assert!(within(p, d), "{p:?} against {d}");
    }
    // Every delivered packet is in the histogram, all in one bucket.
    let h = &r.delay_hists[0];
    assert_eq!(h.count(), f.recv_pkts);
    assert_eq!(h.buckets().count(), 1);
}

#[test]
fn a_tcp_flow_filling_its_queue_has_a_tail() {
    let r = sim(&path("{ kind = \"droptail\", limit = 50 }", "", "app = \"ftp\"\nwindow = 200"));
    let f = &r.summary.flows[0];
    let (p50, p95, p99) = (f.delay_p50_s.unwrap(), f.delay_p95_s.unwrap(), f.delay_p99_s.unwrap());
    assert!(p50 <= p95 && p95 <= p99, "{p50} {p95} {p99}");
    // The queue holds up to 50 packets of 4.16 ms each at 2 Mb/s: the tail waits tens of
    // milliseconds more than the median packet.
    assert!(p99 > p50 * 1.1, "{p50} {p99}");
    assert!(f.dropped_pkts > 0, "the window outgrows the queue");
    assert!(p50 >= 0.0176 * (1.0 - RELATIVE_ERROR), "{p50}");
    assert_eq!(r.delay_hists[0].count(), f.recv_pkts);
}

#[test]
fn a_warm_up_is_left_out_of_the_percentiles() {
    // A second CBR overloads the bottleneck until 9 s, queueing the first's packets; from 10 s,
    // the queue drained, the first's packets only ever see the bare path.
    let flows = "app = \"cbr\"\npacket_size = \"1000B\"\nrate = \"1Mb\"\n[[flow]]\nname = \"g\"\nfrom = \"a\"\nto = \"b\"\napp = \"cbr\"\npacket_size = \"1000B\"\nrate = \"1.5Mb\"\nstop = \"9s\"";
    let whole = sim(&path("\"droptail\"", "", flows));
    let measured = sim(&path("\"droptail\"", "measure_from = \"10s\"", flows));
    let (w, m) = (&whole.summary.flows[0], &measured.summary.flows[0]);
    assert_eq!(measured.delay_hists[0].count(), m.recv_pkts);
    assert!(m.recv_pkts < w.recv_pkts);
    assert!(w.delay_p99_s.unwrap() > 0.05, "{:?}", w.delay_p99_s);
    for p in [m.delay_p50_s, m.delay_p95_s, m.delay_p99_s] {
        assert!(within(p, 0.0176), "{p:?}");
    }
}

#[test]
fn a_flow_that_delivers_nothing_has_no_percentiles() {
    let r =
        sim(&path("\"droptail\"", "", "app = \"cbr\"\npacket_size = \"1000B\"\nrate = \"1Mb\"\nstart = \"19.995s\""));
    let f = &r.summary.flows[0];
    assert_eq!(f.recv_pkts, 0);
    assert_eq!((f.delay_p50_s, f.delay_p95_s, f.delay_p99_s), (None, None, None));
}

#[test]
fn a_class_has_the_percentiles_of_all_its_flows_packets_together() {
    // Two CBR flows of class udp that never meet: f (1000 B at 1 Mb/s, 125 packets a second,
    // 17.6 ms each as above) from a to b, g (200 B at 1 Mb/s, 625 a second: 0.16 + 0.8 + 0.16 ms
    // of serialisation and 12 of propagation, 13.12 ms) from b to a. Five packets in six are g's:
    // the class's median is g's delay, its 95th and 99th percentiles f's.
    let g = "[[flow]]\nname = \"g\"\nfrom = \"b\"\nto = \"a\"\napp = \"cbr\"\npacket_size = \"200B\"\nrate = \"1Mb\"";
    let r = sim(&path("\"droptail\"", "", &format!("app = \"cbr\"\npacket_size = \"1000B\"\nrate = \"1Mb\"\n{g}")));
    let c = r.summary.classes.iter().find(|c| c.class == "udp").unwrap();
    assert!(within(c.delay_p50_s, 0.01312), "{:?}", c.delay_p50_s);
    assert!(within(c.delay_p95_s, 0.0176), "{:?}", c.delay_p95_s);
    assert!(within(c.delay_p99_s, 0.0176), "{:?}", c.delay_p99_s);
    assert!(within(r.summary.flows[1].delay_p99_s, 0.01312));
}
