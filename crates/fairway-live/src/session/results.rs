//! A live run's results folder, the one a simulated run writes (fairway-report's write_all),
//! from a [`RunResult`] made of what the live run counted: each flow's summary, its counts
//! taken at the simulator's bin edges while it ran (flows.csv, classes.csv), the bottleneck's
//! counters and queue samples (links.csv, queue.csv). summary.json is marked `"mode": "live"`
//! and carries what only a live run has beside the simulated fields.
//!
//! Live counts differ from simulated ones where the live ends cannot see what the simulator
//! sees: `dropped_pkts` is, for a datagram flow, what its sender sent in the bin less what its
//! receiver got (at least 0; a packet in flight across an edge counts in the bin it left), and
//! for a TCP flow the retransmissions Linux made in it; a TCP flow has no delay column.

use std::path::Path;

use fairway_core::{Dur, Time};
use fairway_model::convergence;
use fairway_model::delay_hist::DelayHist;
use fairway_model::results::{
    BinRow, BinSeries, FlowSummary, LinkSummary, QueueRow, RunResult, SeriesInfo, SeriesLog, SUMMARY_SCHEMA,
};
use fairway_model::scenario::Scenario;
use fairway_model::Summary;
use fairway_report::output;
use serde_json::Value;

use super::link::LiveLink;
use super::Failure;
use crate::ends::EndCounts;
use crate::tcp::TcpCounts;
use crate::Sample;

/// The bins' ends, as the simulator cuts them: every `bin` from the start, the last at the
/// run's end.
pub fn edges(sc: &Scenario) -> Vec<Time> {
    let end = Time::ZERO + sc.duration;
    let n = sc.duration.0.div_ceil(sc.monitor.bin.0).max(1);
    (1..=n).map(|k| (Time::ZERO + sc.monitor.bin.saturating_mul(k)).min(end)).collect()
}

/// A datagram flow's bins from its sender's and receiver's counts at the edges, and the change
/// logs of the series its protocol logs (each value from when it took effect): a series is read
/// at each edge from its log, as the live ends cannot be sampled while they run; one its
/// protocol reports but does not log is left out.
pub fn datagram_bins(
    snd: &[EndCounts],
    rcv: &[EndCounts],
    edges: &[Time],
    logs: &[(&'static SeriesInfo, Vec<(Time, f64)>)],
) -> Vec<BinRow> {
    let zero = EndCounts::default();
    (0..edges.len())
        .map(|k| {
            let (s0, r0) = if k == 0 { (&zero, &zero) } else { (&snd[k - 1], &rcv[k - 1]) };
            let (s1, r1) = (&snd[k], &rcv[k]);
            let sent = s1.sent_pkts - s0.sent_pkts;
            let recv = r1.recv_pkts - r0.recv_pkts;
            BinRow {
                sent_pkts: sent,
                recv_pkts: recv,
                dropped_pkts: sent.saturating_sub(r1.recv_distinct_pkts - r0.recv_distinct_pkts),
                distinct_bytes: r1.recv_distinct_bytes - r0.recv_distinct_bytes,
                goodput_bytes: r1.recv_distinct_payload - r0.recv_distinct_payload,
                delay_sum_s: r1.delays.sum_s - r0.delays.sum_s,
                delay_n: r1.delays.n - r0.delays.n,
                series: series_at(logs, edges[k]),
                ..BinRow::default()
            }
        })
        .collect()
}

/// Each logged series' value in effect at `t` (none for an empty log); `None` without logs.
fn series_at(logs: &[(&'static SeriesInfo, Vec<(Time, f64)>)], t: Time) -> Option<Box<BinSeries>> {
    if logs.is_empty() {
        return None;
    }
    let mut b = BinSeries::default();
    for (i, (x, log)) in logs.iter().take(fairway_model::results::MAX_SERIES).enumerate() {
        if let Some(v) = value_at(log, t) {
            b.set(i, x, v);
        }
    }
    Some(Box::new(b))
}

/// The value in effect at `t`: the last to take effect by then, or the first (the value the
/// flow starts with) before any did.
fn value_at(log: &[(Time, f64)], t: Time) -> Option<f64> {
    let i = log.partition_point(|&(at, _)| at <= t);
    log.get(i.saturating_sub(1)).map(|&(_, v)| v)
}

/// A TCP flow's bins from Linux's counts at the edges: the sender's (segments, retransmissions,
/// window) and the bytes its receiver read. Packets are bytes over the segment `mss`, each
/// `wire` bytes as the simulator counts them.
pub fn tcp_bins(sent: &[TcpCounts], received: &[u64], mss: u64, wire: u64) -> Vec<BinRow> {
    let zero = TcpCounts::default();
    (0..sent.len().min(received.len()))
        .map(|k| {
            let (s0, b0) = if k == 0 { (&zero, 0) } else { (&sent[k - 1], received[k - 1]) };
            let (s1, b1) = (&sent[k], received[k]);
            let pkts = |b: u64| b.div_ceil(mss);
            BinRow {
                sent_pkts: s1.segs_out - s0.segs_out,
                recv_pkts: pkts(b1) - pkts(b0),
                dropped_pkts: s1.retransmits - s0.retransmits,
                distinct_bytes: (b1 - b0) * wire / mss,
                goodput_bytes: b1 - b0,
                cwnd_pkts: s1.cwnd as f32,
                ..BinRow::default()
            }
        })
        .collect()
}

/// What a live run did, for its results folder.
pub struct LiveRun<'a> {
    pub flows: Vec<FlowSummary>,
    /// The bottleneck's two directions, forward first, and the forward one's queue samples.
    pub links: Vec<LinkSummary>,
    pub samples: &'a [Sample],
    pub bins: Vec<Vec<BinRow>>,
    pub series_logs: Vec<SeriesLog>,
    /// Per flow, the one-way delays its receiver saw (empty for a TCP flow).
    pub delay_hists: Vec<DelayHist>,
    /// Whether it ran to the scenario's end (not stopped by Ctrl-C).
    pub complete: bool,
}

/// The run as the simulator's result: what the results folder is written from.
pub fn run_result(sc: &Scenario, bottleneck: usize, run: LiveRun) -> RunResult {
    let to_deliver: Vec<u64> = run.flows.iter().map(|f| f.sent_pkts).collect();
    let mut classes = fairway_model::results::class_summaries(sc, &run.flows, &to_deliver, 0.0, &run.delay_hists);
    let mut flows = run.flows;
    // Convergence over the periods the emulated bottleneck's events cut the run into.
    let end = Time::ZERO + sc.duration;
    let starts = flows.iter().map(|f| Time::ZERO + Dur::from_secs_f64(f.start_s));
    let ev = convergence::bottleneck_events(sc, bottleneck, sc.flows.iter().zip(starts), end);
    let periods = convergence::judged_periods(&ev, end.as_secs_f64());
    let measured = convergence::bins_per_window(sc.monitor.bin).is_some();
    for ((f, spec), bins) in flows.iter_mut().zip(&sc.flows).zip(&run.bins).filter(|_| measured) {
        let pauses: Vec<(f64, f64)> = spec.pauses.iter().map(|(a, b)| (a.as_secs_f64(), b.as_secs_f64())).collect();
        let rates = convergence::bin_rates(bins, sc.monitor.bin, end);
        f.set_convergence(&convergence::convergence(&rates, &periods, (f.start_s, f.stop_s), &pauses));
    }
    // The bottleneck the live run emulates is every flow's.
    let bottlenecks = vec![Some(bottleneck); flows.len()];
    let (jain_index_flows, jain_index_classes) =
        fairway_model::fairness::annotate(&mut flows, &bottlenecks, &mut classes);
    let rows = run
        .samples
        .iter()
        .map(|m| QueueRow::new(m.t.as_secs_f64(), m.queue_pkts as u32, m.queue_bytes, m.avg_queue_pkts, &m.stats))
        .collect();
    RunResult {
        summary: Summary {
            schema: SUMMARY_SCHEMA,
            mode: Some("live".to_string()),
            scenario: sc.name.clone(),
            seed: sc.seed,
            wire: false,
            clock: None,
            duration_s: sc.duration.as_secs_f64(),
            measure_from_s: 0.0,
            complete: run.complete,
            scenario_duration_s: None,
            events: 0,
            flows,
            links: run.links.clone(),
            links_omitted: 0,
            classes,
            jain_index_flows,
            jain_index_classes,
            wireless: None,
        },
        all_links: run.links,
        bin: sc.monitor.bin,
        flow_bins: run.bins,
        queue_samples: vec![(bottleneck, rows)],
        series_logs: run.series_logs,
        node_paths: vec![],
        agent_trace: vec![],
        packet_trace: vec![],
        delay_hists: run.delay_hists,
    }
}

/// Writes the results folder `dir` for `res`, then adds `extra`'s fields to summary.json: its
/// top-level fields, and in each of `links` the fields of the live link of the same name that
/// the simulated summary has no field for.
pub fn write_folder(
    dir: &Path,
    sc: &Scenario,
    res: &RunResult,
    extra: serde_json::Map<String, Value>,
    links: &[LiveLink],
) -> Result<(), Failure> {
    let fail = |e: &dyn std::fmt::Display| Failure::Other(format!("{}: {e}", dir.display()));
    output::write_all(res, sc, dir).map_err(|e| fail(&e))?;
    let p = dir.join("summary.json");
    let text = std::fs::read_to_string(&p).map_err(|e| fail(&e))?;
    let mut v: Value = serde_json::from_str(&text).map_err(|e| fail(&e))?;
    let Value::Object(top) = &mut v else { return Err(fail(&"summary.json is not an object")) };
    for (k, x) in extra {
        top.insert(k, x);
    }
    if let Some(Value::Array(ls)) = top.get_mut("links") {
        for l in ls.iter_mut().filter_map(Value::as_object_mut) {
            let Some(live) =
                links.iter().find(|x| Some(x.summary.name.as_str()) == l.get("name").and_then(Value::as_str))
            else {
                continue;
            };
            if let Value::Object(more) = serde_json::to_value(live).map_err(|e| fail(&e))? {
                for (k, x) in more {
                    l.entry(k).or_insert(x);
                }
            }
        }
    }
    super::write_json(&p, &v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_are_the_differences_of_the_counts_at_their_edges() {
        let at = |sent, recv, bytes, payload| EndCounts {
            sent_pkts: sent,
            recv_pkts: recv,
            recv_distinct_pkts: recv,
            recv_distinct_bytes: bytes,
            recv_distinct_payload: payload,
            ..EndCounts::default()
        };
        let snd = [at(10, 0, 0, 0), at(25, 0, 0, 0)];
        let rcv = [at(0, 8, 8000, 7000), at(0, 20, 20000, 17500)];
        let edges = [Time(1_000_000_000), Time(2_000_000_000)];
        const LEVEL: SeriesInfo = SeriesInfo { name: "level", title: "a level", decimals: 0 };
        let log = vec![(Time(500_000_000), 7.0), (Time(1_500_000_000), 6.0)];
        let b = datagram_bins(&snd, &rcv, &edges, &[(&LEVEL, log.clone())]);
        assert_eq!((b[0].sent_pkts, b[0].recv_pkts, b[0].dropped_pkts, b[0].distinct_bytes), (10, 8, 2, 8000));
        assert_eq!((b[1].sent_pkts, b[1].recv_pkts, b[1].dropped_pkts, b[1].goodput_bytes), (15, 12, 3, 10500));
        assert_eq!((b[0].series_value("level"), b[1].series_value("level")), (Some(7.0), Some(6.0)));
        assert_eq!(value_at(&log, Time(0)), Some(7.0), "before the first entry: the value it starts with");
        assert_eq!(datagram_bins(&snd, &rcv, &edges, &[])[0].series, None);

        let c = |segs, retrans, cwnd| TcpCounts { segs_out: segs, retransmits: retrans, cwnd, ..TcpCounts::default() };
        let t = tcp_bins(&[c(10, 0, 4), c(30, 2, 8)], &[10_000, 25_000], 1000, 1040);
        assert_eq!((t[0].recv_pkts, t[0].distinct_bytes, t[0].cwnd_pkts), (10, 10_400, 4.0));
        assert_eq!((t[1].sent_pkts, t[1].recv_pkts, t[1].dropped_pkts, t[1].goodput_bytes), (20, 15, 2, 15_000));
    }
}
