//! End-to-end checks whose expected values follow from the physics of the set-up (serialisation,
//! propagation, capacity, slow start), not from an earlier run.

use fairway_core::Time;
use fairway_engine::{run, RunOptions, Summary};
use fairway_model::apps::WebSessions;
use fairway_model::results::FlowSummary;
use fairway_model::scenario::AppSpec;
use fairway_scenario::parse_scenario;
use fairway_scenario::protocols::MappSummary;

fn sim(text: &str) -> Summary {
    let sc = parse_scenario("test.toml", text, "test").unwrap_or_else(|e| panic!("{e}"));
    run(&sc, &RunOptions::default(), &mut |_| {}).unwrap_or_else(|e| panic!("{e}")).summary
}

fn flow<'a>(s: &'a Summary, name: &str) -> &'a FlowSummary {
    s.flows.iter().find(|f| f.name == name).unwrap()
}

/// The round trip of a 1040 B segment and its 40 B ACK on `path` with a 10 Mb/s bottleneck and
/// empty queues: 2 x 12 ms of propagation and three serialisations each way at 10 Mb/s.
fn rtt_10mb() -> f64 {
    0.024 + 3.0 * 1040.0 * 8.0 / 10e6 + 3.0 * 40.0 * 8.0 / 10e6
}

/// a --10Mb 1ms-- r1 --{rate} 10ms {queue}-- r2 --10Mb 1ms-- b, plus more hosts if asked.
fn path(rate: &str, queue: &str, duration: &str, flows: &str) -> String {
    format!(
        r#"
duration = "{duration}"
[[link]]
count = 4
between = ["a{{i}}", "r1"]
rate = "10Mb"
delay = "1ms"
[[link]]
between = ["r1", "r2"]
rate = "{rate}"
delay = "10ms"
queue = {queue}
[[link]]
count = 4
between = ["b{{i}}", "r2"]
rate = "10Mb"
delay = "1ms"
{flows}
"#
    )
}

#[test]
fn cbr_below_capacity_loses_nothing_and_its_delay_is_serialisation_plus_propagation() {
    let s = sim(&path(
        "2Mb",
        "\"droptail\"",
        "10s",
        r#"[[flow]]
name = "cbr"
app = "cbr"
from = "a0"
to = "b0"
packet_size = "1000B"
rate = "1Mb"
"#,
    ));
    let f = flow(&s, "cbr");
    // 1 Mb/s of 1000-byte packets is one every 8 ms: 1250 in 10 s (the first at t = 0).
    assert_eq!(f.sent_pkts, 1250);
    assert_eq!(f.dropped_pkts, 0);
    // Delivered: all but those still in flight at the end (delay 17.6 ms < 3 intervals).
    assert!(f.recv_pkts + f.inflight_pkts == 1250 && f.inflight_pkts <= 3, "{f:?}");
    // One-way delay: 1000 B at 10 Mb/s (0.8 ms) + at 2 Mb/s (4 ms) + at 10 Mb/s (0.8 ms)
    // + 1 + 10 + 1 ms propagation = 17.6 ms, with no queueing, hence no jitter.
    assert!((f.mean_delay_s.unwrap() - 0.0176).abs() < 1e-9, "{:?}", f.mean_delay_s);
    assert!(f.jitter_s.unwrap() < 1e-9);
    let bottleneck = s.links.iter().find(|l| l.name == "r1->r2").unwrap();
    // Utilisation: 1 Mb/s over a 2 Mb/s link, from t = 0.
    assert!((bottleneck.utilization - 0.5).abs() < 0.01, "{}", bottleneck.utilization);
    assert_eq!(bottleneck.drops_pkts, 0);
}

/// A flow's throughput and its class's are over the same kind of time: a lossless 1 Mb/s CBR
/// that starts at 5 s of a 30 s run shows 1 Mb/s in both (over the whole run, its class would
/// show 25/30 of it). With a second CBR from 10 s to 20 s the class is active the same 25 s.
#[test]
fn a_class_and_its_flows_share_one_definition_of_throughput() {
    let cbr = |name: &str, from: &str, to: &str, timing: &str| {
        format!(
            "[[flow]]\nname = \"{name}\"\napp = \"cbr\"\nfrom = \"{from}\"\nto = \"{to}\"\npacket_size = \"1000B\"\nrate = \"1Mb\"\n{timing}\n"
        )
    };
    let s = sim(&path("10Mb", "\"droptail\"", "30s", &cbr("c", "a0", "b0", "start = \"5s\"")));
    let (f, class) = (flow(&s, "c"), s.classes.iter().find(|c| c.class == "udp").unwrap());
    assert_eq!(f.dropped_pkts, 0);
    assert_eq!(class.active_s, 25.0);
    // Bytes over 25 s: 3125 packets of 1000 B, but for the few in flight at the end.
    assert!((f.throughput_bps - 1e6).abs() < 1e6 * 0.002, "{}", f.throughput_bps);
    assert_eq!(class.throughput_bps, f.throughput_bps);
    let two = format!(
        "{}{}",
        cbr("c", "a0", "b0", "start = \"5s\""),
        cbr("d", "a1", "b1", "start = \"10s\"\nstop = \"20s\"")
    );
    let s = sim(&path("10Mb", "\"droptail\"", "30s", &two));
    let class = s.classes.iter().find(|c| c.class == "udp").unwrap();
    assert_eq!(class.active_s, 25.0);
    let bytes = (flow(&s, "c").recv_distinct_bytes + flow(&s, "d").recv_distinct_bytes) as f64;
    assert_eq!(class.throughput_bps, bytes * 8.0 / 25.0);
}

#[test]
fn cbr_above_capacity_is_cut_to_the_link_rate() {
    let s = sim(&path(
        "2Mb",
        "{ kind = \"droptail\", limit = 20 }",
        "20s",
        r#"[[flow]]
name = "cbr"
app = "cbr"
from = "a0"
to = "b0"
packet_size = "1000B"
rate = "3Mb"
"#,
    ));
    let f = flow(&s, "cbr");
    // The bottleneck delivers at most 2 Mb/s; it is saturated after the first packets.
    assert!(f.throughput_bps <= 2.0e6 * 1.0001 && f.throughput_bps > 2.0e6 * 0.99, "{}", f.throughput_bps);
    // A third of what is offered must be dropped.
    let loss = f.dropped_pkts as f64 / f.sent_pkts as f64;
    assert!((loss - 1.0 / 3.0).abs() < 0.01, "{loss}");
    let bottleneck = s.links.iter().find(|l| l.name == "r1->r2").unwrap();
    assert!(bottleneck.utilization > 0.99);
    // DropTail with limit 20: 19 wait (ns-2 counts the one on the wire).
    assert!(bottleneck.mean_queue_pkts > 18.0 && bottleneck.mean_queue_pkts <= 19.0, "{}", bottleneck.mean_queue_pkts);
}

#[test]
fn a_window_limited_tcp_sends_a_window_per_round_trip() {
    // window 5 on a path far from full: throughput = 5 x 1040 B per RTT. RTT = 2 x 12 ms
    // propagation + serialisation of a 1040 B packet at 10, 10, 10 Mb/s (2.5 ms) and its ACK
    // (40 B, 0.1 ms): about 26.6 ms.
    let s = sim(&path(
        "10Mb",
        "\"droptail\"",
        "20s",
        r#"[[flow]]
name = "tcp"
app = "ftp"
from = "a0"
to = "b0"
window = 5
"#,
    ));
    let f = flow(&s, "tcp");
    let rtt = rtt_10mb();
    let expect = 5.0 * 1040.0 * 8.0 / rtt;
    // The first RTTs (handshake, slow start) cost at most 3 RTTs of the 20 s.
    assert!(f.throughput_bps < expect * 1.001 && f.throughput_bps > expect * 0.99, "{} vs {expect}", f.throughput_bps);
    assert_eq!(f.dropped_pkts, 0);
    assert_eq!(f.retransmits_pkts, 0);
}

#[test]
fn one_tcp_fills_a_bottleneck_whose_buffer_covers_the_bandwidth_delay_product() {
    // 2 Mb/s x 26 ms RTT = 6.5 packets; a 50-packet buffer keeps the link busy through halvings.
    let s = sim(&path(
        "2Mb",
        "{ kind = \"droptail\", limit = 50 }",
        "60s",
        r#"[[flow]]
name = "tcp"
app = "ftp"
from = "a0"
to = "b0"
window = 1000
"#,
    ));
    let f = flow(&s, "tcp");
    let bottleneck = s.links.iter().find(|l| l.name == "r1->r2").unwrap();
    assert!(bottleneck.utilization > 0.97, "{}", bottleneck.utilization);
    assert!(f.dropped_pkts > 0, "an unlimited window must overflow the buffer");
    assert!(f.throughput_bps > 0.95 * 2e6 && f.throughput_bps <= 2e6, "{}", f.throughput_bps);
    // Goodput excludes the 40-byte headers: 1000/1040 of throughput (the SYN has no payload).
    let ratio = f.goodput_bps / f.throughput_bps;
    assert!((ratio - 1000.0 / 1040.0).abs() < 1e-3, "{ratio}");
}

#[test]
fn identical_tcp_flows_share_a_red_bottleneck_fairly() {
    let s = sim(&path(
        "4Mb",
        "{ kind = \"red\", limit = 60, thresh = 10, maxthresh = 30, bytes = false, queue_in_bytes = false }",
        "100s",
        r#"[[flow]]
count = 4
name = "tcp"
app = "ftp"
from = "a{i}"
to = "b{i}"
window = 200
"#,
    ));
    let x: Vec<f64> = (0..4).map(|i| flow(&s, &format!("tcp{i}")).throughput_bps).collect();
    let jain = x.iter().sum::<f64>().powi(2) / (4.0 * x.iter().map(|v| v * v).sum::<f64>());
    assert!(jain > 0.95, "Jain's index {jain} for {x:?}");
    let total: f64 = x.iter().sum();
    assert!(total > 0.9 * 4e6 && total <= 4e6, "{total}");
}

#[test]
fn tcp_beside_unresponsive_cbr_gets_what_the_cbr_leaves() {
    let s = sim(&path(
        "2Mb",
        "{ kind = \"red\", limit = 20, thresh = 5, maxthresh = 10, q_weight = 0.002 }",
        "50s",
        r#"[[flow]]
name = "tcp"
app = "ftp"
from = "a0"
to = "b0"
window = 15
[[flow]]
name = "cbr"
app = "cbr"
from = "a1"
to = "b1"
packet_size = "500B"
interval = "5ms"
"#,
    ));
    let tcp = flow(&s, "tcp");
    let cbr = flow(&s, "cbr");
    // The CBR offers 800 kb/s and loses only what RED drops early: it keeps most of it.
    assert!(cbr.throughput_bps > 0.9 * 800e3 && cbr.throughput_bps <= 800e3 * 1.0001, "{}", cbr.throughput_bps);
    // TCP gets at most the rest of the 2 Mb/s, and well above nothing.
    assert!(tcp.throughput_bps < 2e6 - 0.9 * 800e3, "{}", tcp.throughput_bps);
    assert!(tcp.throughput_bps > 0.5 * (2e6 - 800e3), "{}", tcp.throughput_bps);
    assert!(tcp.throughput_bps + cbr.throughput_bps <= 2e6 * 1.0001);
}

#[test]
fn ecn_capable_tcp_through_an_ecn_red_is_marked_and_backs_off_without_loss() {
    let flows = r#"[[flow]]
count = 2
name = "tcp"
app = "ftp"
from = "a{i}"
to = "b{i}"
window = 100
ecn = true
"#;
    let red = |ecn: bool| {
        format!(
            "{{ kind = \"red\", limit = 100, thresh = 5, maxthresh = 50, linterm = 50, bytes = false, queue_in_bytes = false, ecn = {ecn} }}"
        )
    };
    let marked = sim(&path("2Mb", &red(true), "60s", flows));
    let dropped = sim(&path("2Mb", &red(false), "60s", flows));
    let l = |s: &Summary| s.links.iter().find(|l| l.name == "r1->r2").unwrap().clone();
    let (m, d) = (l(&marked), l(&dropped));
    assert!(m.marks_pkts > 0, "{m:?}");
    assert_eq!(d.marks_pkts, 0);
    // Marks replace early drops: max_p = 1/50 is below mark_p = 0.1, so every early decision
    // on an ECN-capable packet marks while the average stays below about 54 packets (where the
    // gentle slope reaches 0.1), which responsive senders ensure. Without ECN the same
    // decisions drop. (Overflow drops during the first slow start happen in both.)
    assert_eq!(m.early_drops_pkts, 0, "{m:?}");
    assert!(d.early_drops_pkts > 0, "{d:?}");
    let reductions: u64 = marked.flows.iter().map(|f| f.ecn_reductions).sum();
    assert!(reductions > 0);
    // The senders still share the link and fill it.
    assert!(m.utilization > 0.9);
}

#[test]
fn a_finite_transfer_completes_in_the_slow_start_time() {
    // 126 packets on an uncongested 10 Mb/s path: the SYN takes one RTT, then windows of
    // 2, 4, 8, 16, 32, 64 (126 in all) take 6 more. The last window is serialised back to back at
    // 10 Mb/s (64 x 0.83 ms = 53 ms) before its last ACK returns.
    let s = sim(&path(
        "10Mb",
        "{ kind = \"droptail\", limit = 200 }",
        "10s",
        r#"[[flow]]
name = "file"
app = "transfer"
from = "a0"
to = "b0"
size = "126000B"
window = 1000
"#,
    ));
    let f = flow(&s, "file");
    let rtt = rtt_10mb();
    let t = f.completion_s.expect("the transfer completes");
    let lo = 7.0 * rtt;
    let hi = 7.0 * rtt + 126.0 * 1040.0 * 8.0 / 10e6;
    assert!(t >= lo && t <= hi, "completed at {t}, expected between {lo} and {hi}");
    assert_eq!(f.recv_distinct_pkts, 127, "126 data packets and the SYN");
    assert_eq!(f.dropped_pkts, 0);
}

#[test]
fn web_sessions_arrive_as_a_poisson_process_of_the_given_rate() {
    let text = path(
        "100Mb",
        "{ kind = \"droptail\", limit = 1000 }",
        "100s",
        r#"[[flow]]
name = "web"
app = "web"
from = "a0"
to = "b0"
interarrival = "45ms"
mean_size = "10KB"
shape = 1.5
"#,
    );
    let s = sim(&text);
    let f = flow(&s, "web");
    // 100 s / 45 ms = 2222 sessions expected; Poisson sd = sqrt(2222) = 47: allow 4 sd.
    let n = f.sessions_started as f64;
    assert!((n - 2222.2).abs() < 4.0 * 47.1, "{n}");
    // On a fat path almost every session finishes (those started in the last RTTs may not).
    assert!(f.sessions_completed as f64 > 0.99 * n, "{} of {n}", f.sessions_completed);
    // Each session sends at least x_m = 3333 B (4 packets): goodput at least 2222 x 3333 B / 100 s.
    assert!(f.goodput_bps > 0.9 * n * 3333.0 * 8.0 / 100.0, "{}", f.goodput_bps);
    assert!(f.mean_session_s.unwrap() > 0.024, "a session takes at least one RTT");
    // The schedule the testbed runs live is the one the simulator ran: the same sessions.
    let sc = parse_scenario("test.toml", &text, "test").unwrap();
    let spec = sc.flows.iter().find(|f| f.name == "web").unwrap();
    let AppSpec::Web { interarrival, mean_size, shape, .. } = &spec.app else { panic!("a web flow") };
    let mut w = WebSessions::new(*interarrival, *mean_size, *shape, WebSessions::stream(sc.seed, "web"));
    let end = Time::ZERO + sc.duration;
    let schedule = w.schedule(spec.start_with(sc.seed), spec.stop.unwrap_or(end).min(end));
    assert_eq!(schedule.len() as u64, f.sessions_started);
}

#[test]
fn a_stopped_flow_sends_nothing_after_its_stop_time() {
    let s = sim(&path(
        "10Mb",
        "\"droptail\"",
        "10s",
        r#"[[flow]]
name = "cbr"
app = "cbr"
from = "a0"
to = "b0"
start = "2s"
stop = "6s"
packet_size = "1000B"
rate = "1Mb"
[[flow]]
name = "ftp"
app = "ftp"
from = "a1"
to = "b1"
stop = "5s"
"#,
    ));
    let c = flow(&s, "cbr");
    // 4 s at one packet per 8 ms = 500 packets.
    assert_eq!(c.sent_pkts, 500);
    // Throughput is over the active time (2 s to 6 s): 1 Mb/s.
    assert!((c.throughput_bps - 1e6).abs() < 1e6 * 0.01, "{}", c.throughput_bps);
    let f = flow(&s, "ftp");
    assert_eq!(f.inflight_pkts, 0);
    assert!(f.recv_distinct_pkts > 0 && f.recv_distinct_pkts == f.sent_pkts - f.retransmits_pkts);
}

#[test]
fn mapp_reacts_to_ecn_marks_from_red_instead_of_losses() {
    let flows = |ecn: bool| {
        format!(
            r#"[[flow]]
name = "mapp"
app = "mapp"
from = "a0"
to = "b0"
scales = "kadhum2015"
ecn = {ecn}
"#
        )
    };
    // use_mark_p off: every early decision on an ECN-capable packet marks (with ns-2's default
    // it marks only while the drop probability is below mark_p = 0.1).
    let red = "{ kind = \"red\", limit = 100, thresh = 5, maxthresh = 50, linterm = 50, q_weight = 0.02, use_mark_p = false, bytes = false, queue_in_bytes = false, ecn = true }";
    let marked = sim(&path("1Mb", red, "60s", &flows(true)));
    let plain = sim(&path("1Mb", red, "60s", &flows(false)));
    let link = |s: &Summary| s.links.iter().find(|l| l.name == "r1->r2").unwrap().clone();
    let (lm, lp) = (link(&marked), link(&plain));
    let (m, p) = (flow(&marked, "mapp"), flow(&plain, "mapp"));
    let (mm, pm) = (m.report::<MappSummary>().unwrap(), p.report::<MappSummary>().unwrap());
    // MApp's top rate (1.6 Mb/s) exceeds the 1 Mb/s link, so it must back off either way.
    assert!(mm.scale_decreases > 10 && pm.scale_decreases > 10);
    // With ECT set, RED marks where it would drop early, and every mark reaches the receiver
    // (nothing after the bottleneck drops); without ECT the same decisions are early drops, and
    // the receiver sees each drop as a gap.
    assert!(lm.marks_pkts > 0 && lm.early_drops_pkts == 0, "{lm:?}");
    assert_eq!(mm.marked_pkts_seen, lm.marks_pkts);
    assert!(lp.marks_pkts == 0 && lp.early_drops_pkts > 0, "{lp:?}");
    assert_eq!(pm.marked_pkts_seen, 0);
    // (Only drops after the last arrival can go unseen.)
    assert!(pm.lost_pkts_seen <= p.dropped_pkts && pm.lost_pkts_seen + 5 >= p.dropped_pkts, "{pm:?} {p:?}");
    // Either way MApp stays below the link rate on average and uses most of it.
    for f in [m, p] {
        assert!(f.throughput_bps < 1e6 && f.throughput_bps > 0.5e6, "{}", f.throughput_bps);
    }
}

#[test]
fn a_lossy_link_loses_its_fraction_on_the_wire() {
    let text = r#"
duration = "100s"
[[link]]
between = ["a", "r"]
rate = "10Mb"
delay = "1ms"
[[link]]
from = "r"
to = "b"
rate = "10Mb"
delay = "5ms"
loss = 0.1
[[link]]
from = "b"
to = "r"
rate = "10Mb"
delay = "5ms"
[[flow]]
name = "cbr"
app = "cbr"
from = "a"
to = "b"
packet_size = "1000B"
rate = "1Mb"
"#;
    let s = sim(text);
    let f = flow(&s, "cbr");
    let lossy = s.links.iter().find(|l| l.name == "r->b").unwrap();
    // 12 500 packets, each lost with probability 0.1: sd = sqrt(12500 x 0.1 x 0.9) = 33.5.
    let n = f.sent_pkts as f64;
    assert_eq!(n, 12_500.0);
    assert!((lossy.lost_pkts as f64 - 0.1 * n).abs() < 4.0 * 33.5, "{lossy:?}");
    assert_eq!(f.dropped_pkts, lossy.lost_pkts, "the only drops are the wire's");
    assert_eq!(lossy.drops_pkts, 0, "the queue itself drops nothing");
    // The lost packets still used the wire: utilisation counts them.
    assert!((lossy.utilization - 0.1).abs() < 0.001, "{}", lossy.utilization);
    let clean = s.links.iter().find(|l| l.name == "a->r").unwrap();
    assert_eq!(clean.lost_pkts, 0);
}

/// The lost packets of the one CBR flow over a 100 s run whose `r->b` link has `loss`:
/// (packets sent, the lost ones' numbers in order, read from a packet trace of the link's drops).
fn cbr_losses(loss: &str) -> (u64, Vec<i64>) {
    use fairway_engine::RunOptions;
    use fairway_model::packet_trace::{PacketOp, PacketTraceSpec};
    let text = format!(
        r#"
duration = "100s"
[[link]]
between = ["a", "r"]
rate = "10Mb"
delay = "1ms"
[[link]]
from = "r"
to = "b"
rate = "10Mb"
delay = "5ms"
loss = {loss}
[[link]]
from = "b"
to = "r"
rate = "10Mb"
delay = "5ms"
[[flow]]
name = "cbr"
app = "cbr"
from = "a"
to = "b"
packet_size = "1000B"
rate = "8Mb"
"#
    );
    let sc = parse_scenario("test.toml", &text, "test").unwrap_or_else(|e| panic!("{e}"));
    let l = (0..sc.links.len()).find(|&l| sc.link_name(l) == "r->b").unwrap();
    let spec = PacketTraceSpec { links: vec![l], flows: vec![0], ops: vec![PacketOp::Drop] };
    let res = run(&sc, &RunOptions { trace_packets: Some(spec), ..Default::default() }, &mut |_| {}).unwrap();
    let lossy = res.summary.links.iter().find(|l| l.name == "r->b").unwrap();
    assert_eq!(lossy.drops_pkts, 0, "the queue itself drops nothing");
    let lost: Vec<i64> = res.packet_trace.iter().map(|e| e.seq).collect();
    assert_eq!(lost.len() as u64, lossy.lost_pkts, "every loss is on the wire of r->b");
    (flow(&res.summary, "cbr").sent_pkts, lost)
}

/// Mean length of the runs of consecutive numbers in `lost` (increasing).
fn mean_run(lost: &[i64]) -> f64 {
    let runs = 1 + lost.windows(2).filter(|w| w[1] != w[0] + 1).count();
    lost.len() as f64 / runs as f64
}

/// Gilbert-Elliott loss with Gilbert's k = 1, h = 0, p = 0.01, r = 0.25 on the wire of a link
/// that 100 000 CBR packets cross (8 Mb/s of 1000 B for 100 s): the chain's stationary rate,
/// p / (p + r) = 0.0385, in runs of consecutive losses of mean 1 / r = 4 packets, where
/// Bernoulli loss at the same rate gives runs of 1 / (1 - 0.0385) = 1.04.
///
/// Bands, five standard errors. The rate: the lost/kept sequence is the chain's state, whose
/// sample mean has variance pi_B (1 - pi_B) / n (1 + l) / (1 - l), l = 1 - p - r = 0.74:
/// SE = sqrt(0.0370 x 6.69 / 10^5) = 1.6e-3, a band of 8e-3. The runs: about n pi_B r = 960,
/// geometric with sd sqrt(1 - r) / r = 3.46, SE 0.11, a band of 0.56 packets.
#[test]
fn a_gilbert_elliott_link_loses_at_its_stationary_rate_in_bursts() {
    let (sent, lost) = cbr_losses(r#"{ model = "gilbert-elliott", p = 0.01, r = 0.25 }"#);
    assert_eq!(sent, 100_000);
    let rate = lost.len() as f64 / sent as f64;
    let expected = 0.01 / 0.26;
    assert!((rate - expected).abs() < 8e-3, "loss rate {rate}, expected {expected}");
    let run = mean_run(&lost);
    assert!((run - 4.0).abs() < 0.56, "mean run of losses {run}, expected 4");
    // The same rate, independent: runs of about one packet (about 3 700 runs, sd sqrt(0.0385) /
    // 0.96 = 0.2, SE 0.003; the band of 0.05 is loose, and still far from the chain's 4).
    let (_, lost) = cbr_losses(&format!("{expected}"));
    let run = mean_run(&lost);
    assert!((run - 1.0 / (1.0 - expected)).abs() < 0.05, "Bernoulli's mean run {run}");
}
