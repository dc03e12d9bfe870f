//! What a run produces: the summary (schema `fairway.summary/1`) and the time series behind
//! flows.csv and queue.csv. Every number carries its unit in its name.

use serde::{Deserialize, Deserializer, Serialize};

use crate::delay_hist::DelayHist;
use crate::metrics;
use crate::packet_trace::PacketEvent;
use crate::protocol::ProtocolReport;
use crate::scenario::{FlowSpec, Scenario};

use fairway_core::{Dur, Time};

pub const SUMMARY_SCHEMA: &str = "fairway.summary/1";

/// A name from a short fixed list (a kind, a class, a queue). An alias, so that reading a
/// summary back (which keeps such names once: [`interned`]) does not borrow the text it reads.
pub type Name = &'static str;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Summary {
    #[serde(deserialize_with = "schema")]
    pub schema: Name,
    /// "live" for a run on real sockets through the emulated bottleneck (`fairway testbed`);
    /// left out for a simulated run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    pub scenario: String,
    pub seed: u64,
    /// The run carried datagrams as bytes (the scenario's `wire = true`); left out when not.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub wire: bool,
    /// "ns2" when the run ordered simultaneous events as ns-2 does (the scenario's `clock`);
    /// left out on fairway's own clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<String>,
    /// The simulated time the results cover: the scenario's duration, or less when the run was
    /// interrupted.
    pub duration_s: f64,
    /// The end of the warm-up (the scenario's `measure_from`): the figures below count from
    /// here, over `duration_s - measure_from_s`; left out when they cover the whole run.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub measure_from_s: f64,
    /// false when the run was interrupted at `duration_s`, before the scenario's end.
    pub complete: bool,
    /// The scenario's duration, when the run stopped before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario_duration_s: Option<f64>,
    /// Events the simulator processed.
    pub events: u64,
    pub flows: Vec<FlowSummary>,
    /// The monitored links and every link that dropped, marked or lost a packet; the others
    /// (uncongested access links, thousands of them on large topologies) are in links.csv only.
    pub links: Vec<LinkSummary>,
    /// Links left out of `links` (all of them are in links.csv).
    pub links_omitted: u64,
    /// Per traffic class ("tcp", "udp"): the sums the ns-2 comparison uses.
    pub classes: Vec<ClassSummary>,
    /// Jain's index over every flow's throughput, and over the classes' mean per-flow
    /// throughputs (null with fewer than two classes): fairness.rs.
    #[serde(default)]
    pub jain_index_flows: Option<f64>,
    #[serde(default)]
    pub jain_index_classes: Option<f64>,
    /// The wireless nodes' MAC and link-layer counters, when the scenario has wireless nodes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wireless: Option<WirelessSummary>,
}

/// What the wireless part of a run did.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WirelessSummary {
    #[serde(deserialize_with = "interned")]
    pub routing: Name,
    #[serde(deserialize_with = "interned")]
    pub propagation: Name,
    /// The radio's decoding and carrier-sense ranges.
    pub rx_range_m: f64,
    pub cs_range_m: f64,
    pub nodes: Vec<WirelessNodeSummary>,
}

/// One wireless node: where it was, and its MAC's and link layer's counters (frames sent by
/// kind, collisions and drops by cause).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WirelessNodeSummary {
    pub name: String,
    pub x_m: f64,
    pub y_m: f64,
    #[serde(flatten)]
    pub mac: crate::wireless::MacStats,
    #[serde(flatten)]
    pub net: crate::wireless::NetStats,
    /// Packets left in its interface queue at the end.
    pub ifq_pkts_end: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FlowSummary {
    pub name: String,
    /// The `[[flow]]` entry it came from.
    pub group: String,
    /// The application: ftp, transfer, web or cbr.
    #[serde(deserialize_with = "interned")]
    pub kind: Name,
    /// newreno, reno or udp.
    #[serde(deserialize_with = "interned")]
    pub transport: Name,
    /// tcp or udp.
    #[serde(deserialize_with = "interned")]
    pub class: Name,
    pub from: String,
    pub to: String,
    pub start_s: f64,
    pub stop_s: f64,
    /// Data packets the source put on the wire, retransmissions included.
    pub sent_pkts: u64,
    pub sent_bytes: u64,
    /// Data packets that reached the sink, duplicates included.
    pub recv_pkts: u64,
    pub recv_bytes: u64,
    /// Distinct data packets that reached the sink (duplicates excluded), sized on the wire.
    pub recv_distinct_pkts: u64,
    pub recv_distinct_bytes: u64,
    /// Data packets dropped by queues on the way.
    pub dropped_pkts: u64,
    /// Data packets still in queues or on links when the run ended.
    pub inflight_pkts: u64,
    /// Packet delivery ratio, recv_pkts / sent_pkts, and packet loss ratio, dropped_pkts /
    /// (recv_pkts + dropped_pkts), of data packets (janani-tfrc §3.1, §3.3; null before any).
    pub pdr: Option<f64>,
    pub plr: Option<f64>,
    /// Distinct bytes delivered x 8 over the flow's active time (start to stop or end of run).
    pub throughput_bps: f64,
    /// Application payload of distinct packets x 8 over the active time.
    pub goodput_bps: f64,
    /// Mean one-way delay of data packets reaching the sink (null if none arrived).
    pub mean_delay_s: Option<f64>,
    /// Mean absolute difference of consecutive one-way delays (RFC 3550 §6.4.1's D, averaged).
    pub jitter_s: Option<f64>,
    /// Standard deviation of the one-way delay (what elaarag2002 §6.3 calls delay jitter).
    pub delay_sd_s: Option<f64>,
    /// The median, 95th and 99th percentiles of the one-way delay (RFC 8868 §3), from the
    /// flow's delay histogram: each within 2^-7 (0.78%) of the sample's, the smallest delay at
    /// least ceil(q n) of the n delays are at or under (delay_hist.rs; null if none arrived).
    #[serde(default)]
    pub delay_p50_s: Option<f64>,
    #[serde(default)]
    pub delay_p95_s: Option<f64>,
    #[serde(default)]
    pub delay_p99_s: Option<f64>,
    /// Its convergence (RFC 8868 §3 item 8; convergence.rs, docs/scenarios.md "Convergence"):
    /// the periods judged (those between changes at its bottleneck long enough to judge, in
    /// which it ran throughout), how many it converged in, and its mean time to converge over
    /// those (null if it converged in none). Both counts are 0 where it is not measured: across
    /// a wireless network, or with a `bin` that does not divide 1 s.
    #[serde(default)]
    pub convergence_periods: u32,
    #[serde(default)]
    pub converged_periods: u32,
    #[serde(default)]
    pub convergence_s: Option<f64>,
    /// TCP only: acknowledgements sent by the sink and dropped on the way back.
    pub acks_sent_pkts: u64,
    pub acks_dropped_pkts: u64,
    pub retransmits_pkts: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub ecn_reductions: u64,
    /// Web flows: sessions started and completed, and the mean completion time.
    pub sessions_started: u64,
    pub sessions_completed: u64,
    pub mean_session_s: Option<f64>,
    /// Finite transfers: when the last packet was acknowledged (null if it was not).
    pub completion_s: Option<f64>,
    /// The nodes its data crosses, source to sink (empty across a wireless network, whose
    /// routes change as the run goes).
    pub path: Vec<String>,
    /// Its propagation round trip: the delays of the links its data crosses and of those its
    /// acknowledgements or feedback cross back, no serialisation or queueing counted (null
    /// across a wireless network).
    pub base_rtt_s: Option<f64>,
    /// Its own RTT measurement: a TCP sender's mean over its samples, a datagram protocol's
    /// smoothed RTT at the end (null for a flow that measures none).
    #[serde(default)]
    pub mean_rtt_s: Option<f64>,
    /// The loss event rate the flow's protocol computed, where it computes one (TFRC, CCID3).
    #[serde(default)]
    pub loss_event_rate: Option<f64>,
    /// Its throughput over the mean of the TCP flows (itself excluded) that share its
    /// bottleneck with a base RTT within 10% of its own, and over the rate RFC 5348 §3.1's
    /// equation gives for its `mean_rtt_s` and loss (its loss event rate, else its `plr`): null
    /// where there is nothing to compare with (fairness.rs; docs/scenarios.md, "Fairness").
    #[serde(default)]
    pub tcp_friendliness: Option<f64>,
    #[serde(default)]
    pub equation_ratio: Option<f64>,
    /// What the flow's datagram protocol reports of itself, under its name: "mapp" (kadhum2015's
    /// media scaling), "iftp" (elaarag2002), ... (see each module of `protocols`).
    #[serde(flatten)]
    pub protocol: Option<ProtocolReport>,
}

impl FlowSummary {
    /// Flow `f` of `sc` by its names, ends, times and `path`, every count zero: what the
    /// simulator's summary and the live ones start from, so a field is named in one place.
    pub fn named(sc: &Scenario, f: &FlowSpec, path: Vec<String>, start: Time, stop: Time) -> FlowSummary {
        FlowSummary {
            name: f.name.clone(),
            group: f.group.clone(),
            kind: f.app.name(),
            transport: f.transport(),
            class: f.class(),
            from: sc.node_name(f.from).to_string(),
            to: sc.node_name(f.to).to_string(),
            start_s: start.as_secs_f64(),
            stop_s: stop.as_secs_f64(),
            sent_pkts: 0,
            sent_bytes: 0,
            recv_pkts: 0,
            recv_bytes: 0,
            recv_distinct_pkts: 0,
            recv_distinct_bytes: 0,
            dropped_pkts: 0,
            inflight_pkts: 0,
            pdr: None,
            plr: None,
            throughput_bps: 0.0,
            goodput_bps: 0.0,
            mean_delay_s: None,
            jitter_s: None,
            delay_sd_s: None,
            delay_p50_s: None,
            delay_p95_s: None,
            delay_p99_s: None,
            convergence_periods: 0,
            converged_periods: 0,
            convergence_s: None,
            acks_sent_pkts: 0,
            acks_dropped_pkts: 0,
            retransmits_pkts: 0,
            timeouts: 0,
            fast_retransmits: 0,
            ecn_reductions: 0,
            sessions_started: 0,
            sessions_completed: 0,
            mean_session_s: None,
            completion_s: None,
            path,
            base_rtt_s: None,
            mean_rtt_s: None,
            loss_event_rate: None,
            tcp_friendliness: None,
            equation_ratio: None,
            protocol: None,
        }
    }

    /// Its delay percentiles from `h`, its delays' histogram (null if it holds none).
    pub fn set_delay_percentiles(&mut self, h: &DelayHist) {
        self.delay_p50_s = h.quantile_s(0.50);
        self.delay_p95_s = h.quantile_s(0.95);
        self.delay_p99_s = h.quantile_s(0.99);
    }

    /// Its convergence from `c` (convergence.rs).
    pub fn set_convergence(&mut self, c: &crate::convergence::Convergence) {
        self.convergence_periods = c.periods;
        self.converged_periods = c.converged;
        self.convergence_s = c.mean_s;
    }

    /// The protocol's report, if the flow's protocol writes a `T` (`MappSummary`,
    /// `IftpSummary`, ...).
    pub fn report<T: 'static>(&self) -> Option<&T> {
        self.protocol.as_ref()?.report.as_any().downcast_ref()
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LinkSummary {
    /// "from->to".
    pub name: String,
    #[serde(deserialize_with = "interned")]
    pub queue: Name,
    pub rate_bps: u64,
    pub delay_s: f64,
    /// Whether queue.csv samples this link over time.
    pub monitored: bool,
    pub arrivals_pkts: u64,
    pub departures_pkts: u64,
    pub drops_pkts: u64,
    pub early_drops_pkts: u64,
    pub forced_drops_pkts: u64,
    pub overflow_drops_pkts: u64,
    /// Drops of a class over its threshold (CBT).
    pub threshold_drops_pkts: u64,
    /// CoDel's drops at the head of the queue (CoDel, FQ-CoDel).
    pub sojourn_drops_pkts: u64,
    /// Drops of a flow over its share of the buffer (FRED).
    pub flow_drops_pkts: u64,
    pub marks_pkts: u64,
    /// Mean time a packet waited in the queue before its serialisation began (packets that
    /// did not wait count as 0), over the packets the queue admitted; null if none.
    pub mean_sojourn_s: Option<f64>,
    /// The longest such wait.
    pub max_sojourn_s: f64,
    /// Packets the link's random loss model took on the wire.
    pub lost_pkts: u64,
    /// Time-average of the packets waiting (not counting the one on the wire).
    pub mean_queue_pkts: f64,
    /// Time-average of the discipline's smoothed queue (RED's ave_), null for DropTail.
    pub mean_avg_queue_pkts: Option<f64>,
    /// Fraction of the run the transmitter was busy.
    pub utilization: f64,
}

/// What a link measured beside its discipline's counters, for [`LinkSummary::new`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkMeasures {
    pub mean_sojourn_s: Option<f64>,
    pub max_sojourn_s: f64,
    pub lost_pkts: u64,
    pub mean_queue_pkts: f64,
    pub mean_avg_queue_pkts: Option<f64>,
    pub utilization: f64,
}

impl LinkSummary {
    /// The summary of link `name` (`spec`, a one-way delay of `delay`): its discipline's
    /// counters `s` and what it measured, `m`. The simulator's and the emulator's links alike.
    pub fn new(
        name: String,
        spec: &crate::scenario::LinkSpec,
        delay: Dur,
        monitored: bool,
        s: &fairway_aqm::QueueStats,
        m: LinkMeasures,
    ) -> LinkSummary {
        LinkSummary {
            name,
            queue: spec.queue.kind(),
            rate_bps: spec.rate.0,
            delay_s: delay.as_secs_f64(),
            monitored,
            arrivals_pkts: s.arrivals_pkts,
            departures_pkts: s.departures_pkts,
            drops_pkts: s.drops(),
            early_drops_pkts: s.early_drops,
            forced_drops_pkts: s.forced_drops,
            overflow_drops_pkts: s.overflow_drops,
            threshold_drops_pkts: s.threshold_drops,
            sojourn_drops_pkts: s.sojourn_drops,
            flow_drops_pkts: s.flow_drops,
            marks_pkts: s.marks,
            mean_sojourn_s: m.mean_sojourn_s,
            max_sojourn_s: m.max_sojourn_s,
            lost_pkts: m.lost_pkts,
            mean_queue_pkts: m.mean_queue_pkts,
            mean_avg_queue_pkts: m.mean_avg_queue_pkts,
            utilization: m.utilization,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ClassSummary {
    #[serde(deserialize_with = "interned")]
    pub class: Name,
    pub flows: u64,
    pub recv_distinct_bytes: u64,
    /// The time at least one of its flows was active (each flow from its start to its stop or
    /// the run's end).
    pub active_s: f64,
    /// recv_distinct_bytes x 8 / active_s: over the class's active time, as a flow's throughput
    /// is over its own.
    pub throughput_bps: f64,
    pub dropped_pkts: u64,
    pub sent_pkts: u64,
    pub recv_pkts: u64,
    /// The class's packet delivery and loss ratios (its packets pooled), and its mean one-way
    /// delay over every data packet received (janani-tfrc §3).
    pub pdr: Option<f64>,
    pub plr: Option<f64>,
    pub mean_delay_s: Option<f64>,
    /// Jain's fairness index of its flows' throughputs, (sum x)^2 / (n sum x^2) (RFC 5166
    /// §2.3): 1 when all are equal, 1/n when one takes all.
    pub jain_index: Option<f64>,
    /// The means of its flows' `tcp_friendliness` and `equation_ratio`, where they have them.
    #[serde(default)]
    pub tcp_friendliness: Option<f64>,
    #[serde(default)]
    pub equation_ratio: Option<f64>,
    /// The 50th, 95th and 99th percentiles of the one-way delays of all its flows' packets
    /// together (their histograms merged; the relative error of one, 2^-7).
    #[serde(default)]
    pub delay_p50_s: Option<f64>,
    #[serde(default)]
    pub delay_p95_s: Option<f64>,
    #[serde(default)]
    pub delay_p99_s: Option<f64>,
}

/// What a quantity a protocol reports of its flows is, as the outputs name it (a media
/// application's quality level, a rate controller's target). The protocol declares it with how
/// to read it from its flow's two ends ([`crate::datagram::Series`]); the engine samples it into
/// every bin and keeps its change log without knowing what it is, and the outputs write it under
/// its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeriesInfo {
    /// Its column in flows.csv, and its change log's files (`<name>.csv`, `<name>.svg`).
    pub name: &'static str,
    /// What a figure's title calls it.
    pub title: &'static str,
    /// The decimals its values are written with.
    pub decimals: u32,
}

/// The most series one flow may report.
pub const MAX_SERIES: usize = 4;

/// A flow's series at the end of one bin: (which, its value), in its protocol's order. A bin's
/// row holds it boxed, and only for a flow that reports some ([`BinRow::series`]), so that the
/// rows of the others stay as small as they were.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct BinSeries([Option<(&'static SeriesInfo, f64)>; MAX_SERIES]);

impl BinSeries {
    /// The value of the series named `name`, if the flow reports it.
    pub fn get(&self, name: &str) -> Option<f64> {
        self.iter().find(|(s, _)| s.name == name).map(|(_, v)| v)
    }

    /// Sets its protocol's series `i` (below [`MAX_SERIES`]) to `value`.
    pub fn set(&mut self, i: usize, series: &'static SeriesInfo, value: f64) {
        self.0[i] = Some((series, value));
    }

    /// The series it holds and their values.
    pub fn iter(&self) -> impl Iterator<Item = (&'static SeriesInfo, f64)> + '_ {
        self.0.iter().flatten().copied()
    }
}

/// One flow's change log of one series: (time s, value) at every change, the first value
/// from when the flow started.
#[derive(Debug, Clone, PartialEq)]
pub struct SeriesLog {
    /// The flow's index in the scenario.
    pub flow: usize,
    pub series: SeriesInfo,
    pub points: Vec<(f64, f64)>,
}

/// One throughput bin of one flow.
#[derive(Debug, Clone)]
pub struct BinRow {
    pub sent_pkts: u64,
    pub recv_pkts: u64,
    pub dropped_pkts: u64,
    pub distinct_bytes: u64,
    pub goodput_bytes: u64,
    pub delay_sum_s: f64,
    pub delay_n: u64,
    /// Congestion window at the end of the bin, in packets (NaN when not a single TCP sender).
    pub cwnd_pkts: f32,
    /// The series its protocol reports, at the end of the bin (`None`: it reports none).
    pub series: Option<Box<BinSeries>>,
}

impl BinRow {
    /// The value at the end of the bin of the series named `name`, if the flow reports it.
    pub fn series_value(&self, name: &str) -> Option<f64> {
        self.series.as_ref().and_then(|s| s.get(name))
    }
}

impl Default for BinRow {
    fn default() -> Self {
        BinRow {
            sent_pkts: 0,
            recv_pkts: 0,
            dropped_pkts: 0,
            distinct_bytes: 0,
            goodput_bytes: 0,
            delay_sum_s: 0.0,
            delay_n: 0,
            cwnd_pkts: f32::NAN,
            series: None,
        }
    }
}

/// One sample of one link's queue; counters are cumulative since the start.
#[derive(Debug, Clone, Copy)]
pub struct QueueRow {
    pub t_s: f64,
    pub queue_pkts: u32,
    pub queue_bytes: u64,
    pub avg_queue_pkts: f64,
    pub arrivals_pkts: u64,
    pub departures_pkts: u64,
    pub departures_bytes: u64,
    pub drops_pkts: u64,
    pub early_drops_pkts: u64,
    pub forced_drops_pkts: u64,
    pub overflow_drops_pkts: u64,
    pub threshold_drops_pkts: u64,
    pub sojourn_drops_pkts: u64,
    pub flow_drops_pkts: u64,
    pub marks_pkts: u64,
}

impl QueueRow {
    /// A sample at `t_s`: what the queue holds, the discipline's smoothed queue (NaN if it has
    /// none), and its counters so far.
    pub fn new(t_s: f64, queue_pkts: u32, queue_bytes: u64, avg: Option<f64>, s: &fairway_aqm::QueueStats) -> QueueRow {
        QueueRow {
            t_s,
            queue_pkts,
            queue_bytes,
            avg_queue_pkts: avg.unwrap_or(f64::NAN),
            arrivals_pkts: s.arrivals_pkts,
            departures_pkts: s.departures_pkts,
            departures_bytes: s.departures_bytes,
            drops_pkts: s.drops(),
            early_drops_pkts: s.early_drops,
            forced_drops_pkts: s.forced_drops,
            overflow_drops_pkts: s.overflow_drops,
            threshold_drops_pkts: s.threshold_drops,
            sojourn_drops_pkts: s.sojourn_drops,
            flow_drops_pkts: s.flow_drops,
            marks_pkts: s.marks,
        }
    }
}

/// Where a run's time series go as they are made: each bin of every flow when the bin ends,
/// each queue sample when it is taken. A sink that writes them to files keeps a run's memory
/// independent of its length; [`Collector`] keeps them all (fairway-engine's `run`).
pub trait SeriesSink {
    /// Bin `k`, from `t0` to `t1` (the last one ends with the run), of every flow in scenario
    /// order.
    fn bin(&mut self, k: usize, t0: Time, t1: Time, rows: &[BinRow]);
    /// A sample of monitored link `link` (its index in the scenario's links).
    fn queue(&mut self, link: usize, row: &QueueRow);
    /// Traced senders' state changes since the last call, in time order (only when the run
    /// traces agents: fairway-engine's `RunOptions::trace_agents`).
    fn agent(&mut self, _rows: &[AgentRow]) {}
    /// Traced packet events since the last call, in time order (only when the run traces
    /// packets: fairway-engine's `RunOptions::trace_packets`).
    fn packets(&mut self, _rows: &[PacketEvent]) {}
}

/// A traced sender's congestion-control state after a change: flow `flow` (scenario order),
/// connection `conn` of it (0 for all but web flows' TCP sessions), at `t`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AgentRow {
    pub t: Time,
    pub flow: u32,
    pub conn: u32,
    pub state: fairway_proto::AgentState,
}

/// Keeps every bin and sample, as [`RunResult`] holds them.
#[derive(Debug, Clone, Default)]
pub struct Collector {
    pub flow_bins: Vec<Vec<BinRow>>,
    pub queue_samples: Vec<(usize, Vec<QueueRow>)>,
    pub agent_rows: Vec<AgentRow>,
    pub packet_rows: Vec<PacketEvent>,
    /// Per link, its place in `queue_samples` (usize::MAX: not monitored).
    place: Vec<usize>,
}

impl Collector {
    /// For a run of `flows` flows monitoring `links`, in that order.
    pub fn new(flows: usize, links: &[usize]) -> Collector {
        let mut place = vec![usize::MAX; links.iter().max().map_or(0, |m| m + 1)];
        for (i, &l) in links.iter().enumerate() {
            place[l] = i;
        }
        Collector {
            flow_bins: vec![Vec::new(); flows],
            queue_samples: links.iter().map(|&l| (l, Vec::new())).collect(),
            agent_rows: Vec::new(),
            packet_rows: Vec::new(),
            place,
        }
    }
}

impl SeriesSink for Collector {
    fn bin(&mut self, _k: usize, _t0: Time, _t1: Time, rows: &[BinRow]) {
        for (bins, r) in self.flow_bins.iter_mut().zip(rows) {
            bins.push(r.clone());
        }
    }

    fn queue(&mut self, link: usize, row: &QueueRow) {
        if let Some(&i) = self.place.get(link).filter(|&&i| i != usize::MAX) {
            self.queue_samples[i].1.push(*row);
        }
    }

    fn agent(&mut self, rows: &[AgentRow]) {
        self.agent_rows.extend_from_slice(rows);
    }

    fn packets(&mut self, rows: &[PacketEvent]) {
        self.packet_rows.extend_from_slice(rows);
    }
}

/// One wireless node's path: (name, [(time s, x m, y m)]) where it started, at every change of
/// heading, and at the end.
pub type NodePath = (String, Vec<(f64, f64, f64)>);

/// Everything a run produced.
#[derive(Debug, Clone)]
pub struct RunResult {
    pub summary: Summary,
    /// Every link, in scenario order (links.csv).
    pub all_links: Vec<LinkSummary>,
    pub bin: Dur,
    /// Per flow (scenario order), per bin.
    pub flow_bins: Vec<Vec<BinRow>>,
    /// Per monitored link: (link index, samples).
    pub queue_samples: Vec<(usize, Vec<QueueRow>)>,
    /// The change log of every series a flow's protocol logs, in flow order, then its
    /// protocol's.
    pub series_logs: Vec<SeriesLog>,
    /// Per wireless node, its path.
    pub node_paths: Vec<NodePath>,
    /// The traced senders' state changes, in time order (empty unless traced; a sink that
    /// writes them as they come leaves this empty).
    pub agent_trace: Vec<AgentRow>,
    /// The traced packet events, in time order (as `agent_trace`).
    pub packet_trace: Vec<PacketEvent>,
    /// Per flow (scenario order), the one-way delays of its data packets over the measured part
    /// (delay_cdf.csv); empty for a flow whose delays are not measured (a live TCP flow's).
    pub delay_hists: Vec<DelayHist>,
}

impl RunResult {
    /// The change logs of the series named `name`, in flow order.
    pub fn logs_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a SeriesLog> + 'a {
        self.series_logs.iter().filter(move |l| l.series.name == name)
    }
}

/// A summary read back from its summary.json (as a sweep that resumes reads its finished
/// points). It serialises to the same bytes; a protocol's part is kept as the JSON it was, so
/// [`FlowSummary::report`] finds no typed report in it.
impl Summary {
    pub fn from_json(json: &str) -> Result<Summary, serde_json::Error> {
        serde_json::from_str(json)
    }
}

/// summary.json's `schema`, which must be this build's.
fn schema<'de, D: Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    let s = String::deserialize(d)?;
    if s == SUMMARY_SCHEMA {
        Ok(SUMMARY_SCHEMA)
    } else {
        Err(serde::de::Error::custom(format!("schema `{s}`: this fairway reads `{SUMMARY_SCHEMA}`")))
    }
}

/// The names a summary holds as `&'static str` (kinds, transports, classes, queues), read back:
/// each distinct name is kept once for the life of the process. They come from short fixed
/// lists, so a file with more distinct names than [`MAX_NAMES`] is refused rather than kept.
pub(crate) fn interned<'de, D: Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    static NAMES: std::sync::Mutex<std::collections::BTreeSet<&'static str>> =
        std::sync::Mutex::new(std::collections::BTreeSet::new());
    let s = String::deserialize(d)?;
    let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&k) = names.get(s.as_str()) {
        return Ok(k);
    }
    if names.len() >= MAX_NAMES {
        return Err(serde::de::Error::custom(format!(
            "`{s}`: more than {MAX_NAMES} distinct kind, class or queue names"
        )));
    }
    let k: &'static str = Box::leak(s.into_boxed_str());
    names.insert(k);
    Ok(k)
}

/// How many distinct names [`interned`] keeps.
const MAX_NAMES: usize = 1024;

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

/// The traffic classes of a run's summary, in its order: those its flows have, "tcp" and
/// "udp" first, then the others in flow order. A class without flows is left out.
pub fn class_names(sc: &Scenario) -> Vec<&'static str> {
    let mut names: Vec<&'static str> =
        ["tcp", "udp"].into_iter().filter(|c| sc.flows.iter().any(|f| f.class() == *c)).collect();
    for f in &sc.flows {
        if !names.contains(&f.class()) {
            names.push(f.class());
        }
    }
    names
}

/// Per traffic class (the order of [`class_names`]), the sums of its flows' summaries:
/// `to_deliver[i]` is what flow i had to deliver (what it sent, and what was on its way when
/// the measurement began), `from_s` when the measurement began, `delay_hists[i]` flow i's
/// delays (missing or empty for a flow whose delays are not measured). A live run's results
/// use it too.
pub fn class_summaries(
    sc: &Scenario,
    flows: &[FlowSummary],
    to_deliver: &[u64],
    from_s: f64,
    delay_hists: &[DelayHist],
) -> Vec<ClassSummary> {
    class_names(sc)
        .into_iter()
        .map(|class| {
            let fl: Vec<&FlowSummary> = flows.iter().filter(|f| f.class == class).collect();
            let to_deliver: u64 = flows.iter().zip(to_deliver).filter(|(f, _)| f.class == class).map(|(_, n)| n).sum();
            let bytes: u64 = fl.iter().map(|f| f.recv_distinct_bytes).sum();
            let sent: u64 = fl.iter().map(|f| f.sent_pkts).sum();
            let recv: u64 = fl.iter().map(|f| f.recv_pkts).sum();
            let dropped: u64 = fl.iter().map(|f| f.dropped_pkts).sum();
            let delay_sum: f64 = fl.iter().filter_map(|f| f.mean_delay_s.map(|d| d * f.recv_pkts as f64)).sum();
            let rates: Vec<f64> = fl.iter().map(|f| f.throughput_bps).collect();
            // A class's throughput is over its active time, as a flow's is: the time at least
            // one of its flows was active.
            let active = metrics::union_length(fl.iter().map(|f| (f.start_s.max(from_s), f.stop_s)));
            let mut hist = DelayHist::new();
            for (_, h) in flows.iter().zip(delay_hists).filter(|(f, _)| f.class == class) {
                hist.merge(h);
            }
            ClassSummary {
                class,
                flows: fl.len() as u64,
                recv_distinct_bytes: bytes,
                active_s: active,
                throughput_bps: if active > 0.0 { bytes as f64 * 8.0 / active } else { 0.0 },
                dropped_pkts: dropped,
                sent_pkts: sent,
                recv_pkts: recv,
                pdr: (to_deliver > 0).then(|| recv as f64 / to_deliver as f64),
                plr: (recv + dropped > 0).then(|| dropped as f64 / (recv + dropped) as f64),
                mean_delay_s: (recv > 0).then(|| delay_sum / recv as f64),
                jain_index: metrics::jain(&rates),
                tcp_friendliness: None,
                equation_ratio: None,
                delay_p50_s: hist.quantile_s(0.50),
                delay_p95_s: hist.quantile_s(0.95),
                delay_p99_s: hist.quantile_s(0.99),
            }
        })
        .collect()
}
