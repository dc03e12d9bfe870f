//! Agent traces (`RunOptions::trace_agents`): every change of a sender's congestion-control
//! state, for the flows asked for only, without changing the run.

use fairway_core::Time;
use fairway_engine::{run, run_into, RunOptions};
use fairway_model::results::{AgentRow, BinRow, QueueRow, RunResult, SeriesSink};
use fairway_scenario::parse_scenario;

/// kadhum2015's comparison run: a NewReno FTP (window 15) and 800 kb/s of CBR through a 2 Mb/s
/// RED bottleneck, where the FTP loses packets; flow 0 is the FTP, flow 1 the CBR.
const RED: &str = r#"
duration = "20s"
[[link]]
between = ["s1", "r1"]
rate = "6Mb"
delay = "2ms"
[[link]]
between = ["s2", "r1"]
rate = "6Mb"
delay = "2ms"
[[link]]
between = ["r1", "r2"]
rate = "2Mb"
delay = "10ms"
queue = { kind = "red", limit = 20, thresh = 5, maxthresh = 10, q_weight = 0.002, bytes = false, queue_in_bytes = false }
[[link]]
between = ["r2", "s3"]
rate = "6Mb"
delay = "2ms"
[[flow]]
name = "ftp"
app = "ftp"
transport = "newreno"
from = "s2"
to = "s3"
window = 15
packet_size = "1000B"
[[flow]]
name = "cbr"
app = "cbr"
from = "s1"
to = "s3"
start = "1s"
packet_size = "500B"
interval = "4ms"
"#;

fn traced(text: &str, flows: &[usize]) -> RunResult {
    let sc = parse_scenario("t.toml", text, "t").unwrap_or_else(|e| panic!("{e}"));
    run(&sc, &RunOptions { trace_agents: flows.to_vec(), ..Default::default() }, &mut |_| {}).unwrap()
}

fn rows_of(res: &RunResult, flow: u32) -> Vec<AgentRow> {
    res.agent_trace.iter().filter(|r| r.flow == flow).copied().collect()
}

/// Each row is a change: in time order, and never the same state twice in a row.
#[test]
fn every_row_is_a_change_in_time_order() {
    let res = traced(RED, &[0]);
    let rows = rows_of(&res, 0);
    assert!(rows.len() > 100, "{} rows", rows.len());
    for w in rows.windows(2) {
        assert!(w[0].t <= w[1].t);
        assert_ne!(w[0].state, w[1].state, "at {:?}", w[1].t);
    }
}

/// The window the bins sample at each bin's end is the one the trace last wrote before it (or
/// one written at that very instant, by an event that came before the bin's end), so the trace
/// holds every change, not a subsample.
#[test]
fn the_trace_agrees_with_the_sampled_window_at_every_bin_end() {
    let res = traced(RED, &[0]);
    let rows = rows_of(&res, 0);
    let mut checked = 0;
    for (k, b) in res.flow_bins[0].iter().enumerate() {
        let end = res.bin.0 * (k as u64 + 1);
        let Some(before) = rows.iter().rev().find(|r| r.t.0 < end) else { continue };
        if b.cwnd_pkts.is_finite() {
            let cwnd = |r: &AgentRow| r.state.cwnd_pkts.unwrap() as f32;
            let at_end: Vec<f32> = rows.iter().filter(|r| r.t.0 == end).map(cwnd).collect();
            assert!(
                b.cwnd_pkts == cwnd(before) || at_end.contains(&b.cwnd_pkts),
                "bin {k}: {} vs {}",
                b.cwnd_pkts,
                cwnd(before)
            );
            checked += 1;
        }
    }
    assert!(checked > 10);
}

/// NewReno (RFC 6582, as ns-2): a loss sets ssthresh to half the flight and the window to it,
/// or the window to 1 after a timeout; between losses it only grows. So every fall of the
/// traced window lands at most at half its height before, plus one packet of rounding.
#[test]
fn the_window_only_falls_by_halving_or_to_one() {
    let res = traced(RED, &[0]);
    let rows = rows_of(&res, 0);
    let mut falls = 0;
    for w in rows.windows(2) {
        let (a, b) = (w[0].state.cwnd_pkts.unwrap(), w[1].state.cwnd_pkts.unwrap());
        if b < a {
            falls += 1;
            assert!(b <= a / 2.0 + 1.0 || b == 1.0, "{a} -> {b} at {:?}", w[1].t);
        }
    }
    assert!(falls >= 2, "the FTP should lose packets at this bottleneck: {falls} falls");
}

/// A constant-rate source has no state to trace; an untraced flow leaves no rows; and tracing
/// changes nothing of the run.
#[test]
fn only_the_flows_asked_for_and_the_run_unchanged() {
    let res = traced(RED, &[1]);
    assert!(res.agent_trace.is_empty(), "CBR has no congestion control: {} rows", res.agent_trace.len());
    let with = traced(RED, &[0]);
    let without = traced(RED, &[]);
    assert!(without.agent_trace.is_empty());
    assert_eq!(serde_json::to_string(&with.summary).unwrap(), serde_json::to_string(&without.summary).unwrap());
}

/// TFRC's rows carry its allowed rate and loss event rate; once there are losses p is above 0,
/// and the rate follows the throughput equation down from its slow start.
#[test]
fn a_tfrc_sender_traces_its_rate_and_loss_event_rate() {
    let text = RED.replace("transport = \"newreno\"\nfrom", "transport = \"tfrc\"\nfrom").replace("window = 15\n", "");
    let res = traced(&text, &[0]);
    let rows = rows_of(&res, 0);
    assert!(rows.len() > 50, "{} rows", rows.len());
    assert!(rows.iter().all(|r| r.state.rate_bps.is_some() && r.state.cwnd_pkts.is_none()));
    let p_max = rows.iter().filter_map(|r| r.state.loss_event_rate).fold(0.0, f64::max);
    assert!(p_max > 0.0, "no loss event traced");
    let rate_max = rows.iter().filter_map(|r| r.state.rate_bps).fold(0.0, f64::max);
    assert!(rate_max > 100e3 && rate_max < 20e6, "rate {rate_max}");
}

/// A bin's worth of changes can be millions: they reach the sink in batches as they gather,
/// the same rows in the same order whatever the bin. dumbbell-mid's 100 TCP flows make about
/// 90 000 changes in 20 s, more than one batch, all in one bin here.
#[test]
fn the_rows_are_the_same_whatever_the_bin() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let text = std::fs::read_to_string(root.join("scenarios/validation/dumbbell-mid.toml")).unwrap();
    let one_bin = text.replace("bin = \"100ms\"", "bin = \"20s\"");
    assert_ne!(one_bin, text);
    let flows: Vec<usize> = (0..100).collect();
    let (a, b) = (traced(&text, &flows), traced(&one_bin, &flows));
    assert!(a.agent_trace.len() > 1 << 16, "{} rows", a.agent_trace.len());
    assert!(a.agent_trace == b.agent_trace);
    // The hand-overs are not events of the simulation.
    let plain = {
        let sc = parse_scenario("t.toml", &one_bin, "t").unwrap();
        run(&sc, &RunOptions::default(), &mut |_| {}).unwrap().summary
    };
    assert_eq!(serde_json::to_string(&plain).unwrap(), serde_json::to_string(&b.summary).unwrap());

    /// Counts the rows of each hand-over.
    #[derive(Default)]
    struct Batches(Vec<usize>);
    impl SeriesSink for Batches {
        fn bin(&mut self, _: usize, _: Time, _: Time, _: &[BinRow]) {}
        fn queue(&mut self, _: usize, _: &QueueRow) {}
        fn agent(&mut self, rows: &[AgentRow]) {
            self.0.push(rows.len());
        }
    }
    let sc = parse_scenario("t.toml", &one_bin, "t").unwrap();
    let mut sink = Batches::default();
    run_into(&sc, &RunOptions { trace_agents: flows, ..Default::default() }, &mut |_| {}, &mut sink).unwrap();
    assert!(sink.0.len() >= 2, "one bin, yet handed over in {} batches", sink.0.len());
    assert!(sink.0.iter().all(|&n| n <= (1 << 16) + 100), "{:?}", sink.0);
    assert_eq!(sink.0.iter().sum::<usize>(), a.agent_trace.len());
}

/// srtt and rttvar are estimates of the samples: both empty until the first, then both there.
/// (Before it, TCP's rttvar holds ns-2's initial 12 s, which the first sample replaces unread.)
#[test]
fn rttvar_is_empty_until_the_first_sample_as_srtt_is() {
    let res = traced(RED, &[0]);
    let rows = rows_of(&res, 0);
    assert!(rows[0].state.srtt.is_none() && rows[0].state.rttvar.is_none(), "{:?}", rows[0]);
    assert!(rows.iter().any(|r| r.state.srtt.is_some()));
    for r in &rows {
        assert_eq!(r.state.srtt.is_some(), r.state.rttvar.is_some(), "{r:?}");
        assert!(r.state.rttvar.is_none_or(|v| v.as_secs_f64() < 1.0), "{r:?}");
    }
}
