//! fairway-engine: a deterministic packet-level simulator that follows ns-2's semantics where
//! results depend on them (see docs/semantics.md). It runs a [`Scenario`] (the checked model of
//! a scenario file; fairway-scenario reads the files) and gathers its [`RunResult`]
//! (fairway-report writes it out):
//!
//! ```text
//! scenario file --fairway-scenario--> Scenario --run--> RunResult --fairway-report--> summary.json, csv, svg
//! ```

pub mod events;
pub mod fasthash;
pub mod link;
pub mod monitor;
pub mod ns2_clock;
pub mod packet;
pub mod packet_trace;
mod prefetch;
pub mod routing;
pub mod sim;
mod warmup;
pub mod wireless;

#[cfg(test)]
mod device_queue_tests;

use std::sync::atomic::{AtomicBool, Ordering};

use fairway_core::{Dur, Time};

// The scenario model, the endpoint driver and the result types are fairway-model's, shared with
// the live side; the engine names them by these paths.
use fairway_model::convergence::{self, Convergence, WindowTap};
use fairway_model::{driver, fairness, protocol, results, scenario};

pub use fairway_model::results::{class_names, class_summaries};

pub use results::{Collector, RunResult, SeriesSink, Summary};
pub use scenario::Scenario;

use results::{FlowSummary, LinkMeasures, LinkSummary, SeriesLog, SUMMARY_SCHEMA};
use scenario::AppSpec;
use sim::Sim;

/// Why a run failed after its scenario was accepted.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error("link {0}: {1}")]
    Param(String, fairway_aqm::ParamError),
    #[error("flow {0}: no route")]
    NoRoute(String),
    #[error("flow {0}: {1}")]
    App(String, String),
    /// Wire mode: an endpoint refused its own peer's bytes (encode and decode disagree).
    #[error("flow {0}: {1} of its own datagrams did not decode (a fairway bug; please report it with the scenario)")]
    Wire(String, u64),
    /// A packet was created or lost without being counted: a simulator bug.
    #[error("conservation violated (a fairway bug; please report it with the scenario):\n{0}")]
    Conservation(String),
}

/// How to run a scenario.
#[derive(Debug, Clone, Default)]
pub struct RunOptions<'a> {
    /// Overrides the scenario's seed.
    pub seed: Option<u64>,
    /// Leaves the simulator's state unfreed when the run ends, for a process that exits once
    /// it has the results and returns all its memory at once: with 10 000 flows the state is
    /// tens of thousands of small allocations, ~4 ms to free one by one.
    pub leave_state: bool,
    /// In flight from which a link's further packets wait in its FIFO instead of holding events
    /// of their own (`None`: the engine's choice). A test varies it to show that this changes
    /// no result.
    #[doc(hidden)]
    pub behind_from: Option<u64>,
    /// Every link on the general path (an event per serialisation, the discipline asked at each
    /// departure), FIFOs that decide at enqueue included. A test runs both paths to show they
    /// agree.
    #[doc(hidden)]
    pub general_path: bool,
    /// Every frame a wireless station hears runs as events, none kept for a replay when the
    /// station next acts (wireless/overheard.rs). A test runs both to show they agree, to the
    /// last byte.
    #[doc(hidden)]
    pub hear_eagerly: bool,
    /// How many kept events a wireless station holds before the channel's loop replays them
    /// (wireless/overheard.rs; `None`: the engine's choice). A test varies it to show that
    /// this changes no result.
    #[doc(hidden)]
    pub keep_before_replay: Option<usize>,
    /// Given, receives how many of the run's events wireless stations kept and replayed rather
    /// than ran from the queue (a test shows that lazy receivers engage).
    #[doc(hidden)]
    pub replayed: Option<&'a std::sync::atomic::AtomicU64>,
    /// Set (by a signal handler, say) to stop the run at the simulated time reached; the
    /// results then cover the run up to that time and say they are not complete.
    pub interrupt: Option<&'a AtomicBool>,
    /// The flows (scenario indices) whose senders' congestion-control state is traced at every
    /// change: cwnd, ssthresh, srtt, rttvar and RTO of TCP and window-based protocols, the rate
    /// and loss event rate of rate-based ones. Empty: no trace, and no cost.
    pub trace_agents: Vec<usize>,
    /// Per-packet events (enqueue, dequeue, receive, drop) on wired links, as ns-2's
    /// `trace-all` records them; `None`: no trace, and no cost. The traced links take the
    /// general path: the same results, but for the event count and their mean wait (over
    /// departures rather than admissions).
    pub trace_packets: Option<packet_trace::PacketTraceSpec>,
}

/// Runs a checked scenario to its end and gathers its results, the time series with them.
/// `progress` receives the simulated time reached, now and then.
pub fn run(sc: &Scenario, opts: &RunOptions, progress: &mut dyn FnMut(Time)) -> Result<RunResult, SimError> {
    let mut all = Collector::new(sc.flows.len(), &sc.monitor.links);
    let mut res = run_into(sc, opts, progress, &mut all)?;
    res.flow_bins = all.flow_bins;
    res.queue_samples = all.queue_samples;
    res.agent_trace = all.agent_rows;
    res.packet_trace = all.packet_rows;
    Ok(res)
}

/// [`run`], with the time series handed to `sink` as they are made instead of kept: the
/// result's `flow_bins` and `queue_samples` are empty.
pub fn run_into(
    sc: &Scenario,
    opts: &RunOptions,
    progress: &mut dyn FnMut(Time),
    sink: &mut dyn SeriesSink,
) -> Result<RunResult, SimError> {
    let seed = opts.seed.unwrap_or(sc.seed);
    let mut sim = Sim::new(sc, seed)?;
    if let Some(b) = opts.behind_from {
        sim.behind_from = b;
    }
    if sc.clock == fairway_model::scenario::Clock::Ns2 {
        sim.use_ns2_clock();
    }
    if opts.general_path {
        for l in &mut sim.links {
            l.general = true;
        }
    }
    if opts.hear_eagerly {
        sim.hear_eagerly();
    }
    if let Some(n) = opts.keep_before_replay {
        sim.keep_before_replay(n);
    }
    sim.trace_agents(&opts.trace_agents);
    if let Some(spec) = &opts.trace_packets {
        sim.trace_packets(spec);
    }
    let mut tap = WindowTap::new(sink, sc.flows.len(), sc.monitor.bin);
    let complete = sim.run(progress, opts.interrupt, &mut tap);
    if let (Some(count), Some(air)) = (opts.replayed, sim.air_ref()) {
        count.store(air.replayed, Ordering::Relaxed);
    }
    let conv = convergences(&sim, &tap);
    let res = collect(&mut sim, seed, complete, &conv);
    if opts.leave_state {
        std::mem::forget(sim);
    }
    res
}

/// Each flow's convergence (convergence.rs) from its window rates in `tap`: over the periods
/// its bottleneck's events cut the run into (the slowest link of its data path, the first of
/// equals, as `collect` takes it); none across a wireless network.
fn convergences(sim: &Sim, tap: &WindowTap) -> Vec<Convergence> {
    let sc = sim.sc;
    let end = sim.end();
    let n = sc.flows.len();
    if convergence::bins_per_window(sc.monitor.bin).is_none() {
        return vec![Convergence::default(); n];
    }
    let routes: Vec<Option<Vec<usize>>> = (0..n).map(|i| sim.routes_of(i).0).collect();
    let bottleneck: Vec<Option<usize>> =
        routes.iter().map(|r| r.as_ref().and_then(|r| fairness::bottleneck(sc, r))).collect();
    // The flows crossing each bottleneck, then each bottleneck's judged periods, once.
    let mut crossing: Vec<Option<Vec<usize>>> = vec![None; sc.links.len()];
    for &b in bottleneck.iter().flatten() {
        crossing[b] = Some(vec![]);
    }
    for (j, r) in routes.iter().enumerate() {
        for &l in r.iter().flatten() {
            if let Some(c) = crossing[l].as_mut() {
                c.push(j);
            }
        }
    }
    let periods: Vec<Option<Vec<(f64, f64)>>> = crossing
        .iter()
        .enumerate()
        .map(|(l, c)| {
            let c = c.as_ref()?;
            let ev = convergence::bottleneck_events(sc, l, c.iter().map(|&j| (&sc.flows[j], sim.start_of(j))), end);
            Some(convergence::judged_periods(&ev, end.as_secs_f64()))
        })
        .collect();
    (0..n)
        .map(|i| {
            let Some(p) = bottleneck[i].and_then(|b| periods[b].as_ref()) else { return Convergence::default() };
            let f = &sc.flows[i];
            let active = (sim.start_of(i).as_secs_f64(), f.stop.unwrap_or(end).min(end).as_secs_f64());
            let pauses: Vec<(f64, f64)> = f.pauses.iter().map(|(a, b)| (a.as_secs_f64(), b.as_secs_f64())).collect();
            convergence::convergence(&tap.rates(i, end), p, active, &pauses)
        })
        .collect()
}

/// Each wireless node's path: its waypoints and where it is at the end.
fn node_paths(sim: &Sim) -> Vec<results::NodePath> {
    let (Some(spec), Some(air)) = (sim.sc.wireless.as_ref(), sim.air_ref()) else { return vec![] };
    let end = sim.end();
    spec.nodes
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let mut pts: Vec<(f64, f64, f64)> = air.paths[i].iter().map(|&(t, x, y)| (t.as_secs_f64(), x, y)).collect();
            let (x, y) = air.position(i, end);
            pts.push((end.as_secs_f64(), x, y));
            (sim.sc.node_name(w.node).to_string(), pts)
        })
        .collect()
}

fn wireless_summary(sim: &Sim) -> Option<results::WirelessSummary> {
    let spec = sim.sc.wireless.as_ref()?;
    let air = sim.air_ref()?;
    let nodes = spec
        .nodes
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let (mac, ifq) = air.mac_stats(i);
            let (_, x, y) = air.paths[i][0];
            results::WirelessNodeSummary {
                name: sim.sc.node_name(w.node).to_string(),
                x_m: x,
                y_m: y,
                mac,
                net: air.net_stats(i),
                ifq_pkts_end: ifq as u64,
            }
        })
        .collect();
    Some(results::WirelessSummary {
        routing: spec.routing.name(),
        propagation: spec.radio.model.name(),
        rx_range_m: spec.radio.rx_range(),
        cs_range_m: spec.radio.cs_range(),
        nodes,
    })
}

/// Gathers the results of a finished run; takes the per-bin rows out of `sim` rather than
/// copying them.
fn collect(sim: &mut Sim, seed: u64, complete: bool, conv: &[Convergence]) -> Result<RunResult, SimError> {
    let sc = sim.sc;
    let end = sim.end();
    let in_net = sim.in_network();
    let mut problems = vec![];
    // The figures count from the warm-up's end (`measure_from`); a run stopped before then
    // measured nothing.
    if !sc.measure_from.is_zero() && sim.baseline.is_none() {
        sim.take_baseline();
    }
    // Out of `sim`, so that the flows' delay histograms can be taken from it below.
    let baseline = sim.baseline.take();
    let base = baseline.as_deref();
    let from = base.map_or(Time::ZERO, |b| b.at);
    let measured_s = end.saturating_since(from).as_secs_f64();

    let mut flows = Vec::with_capacity(sc.flows.len());
    let mut to_deliver_of = Vec::with_capacity(sc.flows.len());
    let mut bottlenecks = Vec::with_capacity(sc.flows.len());
    let mut delay_hists = Vec::with_capacity(sc.flows.len());
    for (i, f) in sc.flows.iter().enumerate() {
        let all = sim.flow_counters(i);
        if let Err(e) = all.check(in_net[i].0, in_net[i].1) {
            problems.push(format!("flow {}: {e}", f.name));
        }
        let fb = base.map(|b| &b.flows[i]);
        let c = match fb {
            Some(b) => std::borrow::Cow::Owned(warmup::counters_since(all, &b.counters)),
            None => std::borrow::Cow::Borrowed(all),
        };
        // What the measured part had to deliver: what it sent, and what was on its way then.
        let to_deliver = c.data_sent + fb.map_or(0, |b| b.inflight);
        to_deliver_of.push(to_deliver);
        let refused = sim.driver(i).malformed();
        if refused > 0 {
            return Err(SimError::Wire(f.name.clone(), refused));
        }
        let stop = f.stop.unwrap_or(end).min(end);
        let start = sim.start_of(i);
        let active = stop.saturating_since(start.max(from)).as_secs_f64();
        let per_s = |bytes: u64| if active > 0.0 { bytes as f64 * 8.0 / active } else { 0.0 };
        let all_tc = sim.transport_counters(i);
        let tc = fb.map_or(all_tc, |b| all_tc.since(&b.transport));
        let (fwd, rev) = sim.routes_of(i);
        let delays = |r: &[usize]| r.iter().map(|&l| sc.links[l].delay.as_secs_f64()).sum::<f64>();
        let path = fwd.as_ref().map_or(vec![], |r| {
            let mut p = vec![sc.node_name(f.from).to_string()];
            p.extend(r.iter().map(|&l| sc.node_name(sc.links[l].to).to_string()));
            p
        });
        let base_rtt_s = fwd.as_ref().zip(rev.as_ref()).map(|(a, b)| delays(a) + delays(b));
        // The slowest link of the data path, the first of equals (fairness.rs's bottleneck).
        bottlenecks.push(fwd.as_ref().and_then(|r| fairness::bottleneck(sc, r)));
        let state = sim.driver(i).summary_state();
        let mean_rtt_s = match state {
            Some(s) => s.srtt.map(|d| d.as_secs_f64()),
            None => (tc.rtt_samples > 0).then(|| tc.rtt_sum_ns as f64 / tc.rtt_samples as f64 / 1e9),
        };
        let mut summary = FlowSummary {
            sent_pkts: c.data_sent,
            sent_bytes: c.data_sent_bytes,
            recv_pkts: c.data_recv,
            recv_bytes: c.data_recv_bytes,
            recv_distinct_pkts: c.distinct,
            recv_distinct_bytes: c.distinct_bytes,
            dropped_pkts: c.data_dropped,
            inflight_pkts: in_net[i].0,
            pdr: (to_deliver > 0).then(|| c.data_recv as f64 / to_deliver as f64),
            plr: (c.data_recv + c.data_dropped > 0)
                .then(|| c.data_dropped as f64 / (c.data_recv + c.data_dropped) as f64),
            throughput_bps: per_s(c.distinct_bytes),
            goodput_bps: per_s(c.goodput_bytes),
            mean_delay_s: (c.delay_n > 0).then(|| c.delay_sum_s / c.delay_n as f64),
            jitter_s: (c.jitter_n > 0).then(|| c.jitter_sum_s / c.jitter_n as f64),
            delay_sd_s: (c.delay_n > 1).then(|| {
                let n = c.delay_n as f64;
                let mean = c.delay_sum_s / n;
                (c.delay_sq_sum_s2 / n - mean * mean).max(0.0).sqrt()
            }),
            acks_sent_pkts: c.acks_sent,
            acks_dropped_pkts: c.acks_dropped,
            retransmits_pkts: tc.retransmits,
            timeouts: tc.timeouts,
            fast_retransmits: tc.fast_retransmits,
            ecn_reductions: tc.ecn_reductions,
            sessions_started: tc.sessions_started,
            sessions_completed: tc.sessions_completed,
            mean_session_s: (tc.sessions_completed > 0)
                .then(|| Dur(tc.session_time_sum.0 / tc.sessions_completed).as_secs_f64()),
            completion_s: match f.app {
                AppSpec::Transfer { .. } => sim.driver(i).done_at().map(|t| t.as_secs_f64()),
                _ => None,
            },
            base_rtt_s,
            mean_rtt_s,
            loss_event_rate: state.and_then(|s| s.loss_event_rate),
            protocol: match &f.app {
                AppSpec::Datagram(d) => {
                    d.spec.report(sim.driver(i), &protocol::ReportContext { start: start.max(from), stop, end })
                }
                _ => sim.driver(i).report(),
            },
            ..FlowSummary::named(sc, f, path, start, stop)
        };
        summary.set_delay_percentiles(&c.delays);
        summary.set_convergence(&conv[i]);
        flows.push(summary);
        // The measured part's histogram, or without a warm-up the flow's own, taken rather than
        // copied (the run is over).
        delay_hists.push(match c {
            std::borrow::Cow::Owned(o) => o.delays,
            std::borrow::Cow::Borrowed(_) => sim.take_delays(i),
        });
    }

    let monitored: Vec<bool> = (0..sc.links.len()).map(|l| sc.monitor.links.contains(&l)).collect();
    let mut links = Vec::with_capacity(sc.links.len());
    for (l, spec) in sc.links.iter().enumerate() {
        let chk = sim.link_check(l);
        if let Err(e) = chk.check() {
            problems.push(format!("link {}: {e}", sc.link_name(l)));
        }
        let link = &sim.links[l];
        let lb = base.map_or_else(warmup::LinkBase::default, |b| b.links[l].clone());
        let (mean_q, mean_avg) = link.integ.means_since(from, (lb.len_area, lb.avg_area), end);
        let s = warmup::queue_since(&chk.stats, &lb.stats);
        let lost = chk.lost - lb.lost;
        // Busy time within the run: a packet being serialised at the end counted whole.
        let busy = link.busy.0 - link.free_at.saturating_since(end).0.min(link.busy.0) - lb.busy.0;
        // The fast path knows each admitted packet's wait when it admits it; the general path
        // when the packet leaves.
        let waits = if link.general { s.departures_pkts } else { s.arrivals_pkts - s.drops() };
        let mean_wait = (waits > 0).then(|| Dur(((link.wait_sum - lb.wait_sum) / waits as u128) as u64));
        let max_wait = link.wait_max;
        let measured = LinkMeasures {
            mean_sojourn_s: mean_wait.map(|d| d.as_secs_f64()),
            max_sojourn_s: max_wait.as_secs_f64(),
            lost_pkts: lost,
            mean_queue_pkts: mean_q,
            mean_avg_queue_pkts: spec.queue.keeps_average().then_some(mean_avg),
            utilization: if measured_s > 0.0 { (Dur(busy).as_secs_f64() / measured_s).min(1.0) } else { 0.0 },
        };
        links.push(LinkSummary::new(sc.link_name(l), spec, spec.delay, monitored[l], &s, measured));
    }
    if !problems.is_empty() {
        return Err(SimError::Conservation(problems.join("\n")));
    }

    let mut classes = class_summaries(sc, &flows, &to_deliver_of, from.as_secs_f64(), &delay_hists);
    let (jain_index_flows, jain_index_classes) = fairness::annotate(&mut flows, &bottlenecks, &mut classes);

    let shown: Vec<LinkSummary> = links
        .iter()
        .filter(|l| l.monitored || l.drops_pkts > 0 || l.marks_pkts > 0 || l.lost_pkts > 0)
        .cloned()
        .collect();
    let summary = Summary {
        schema: SUMMARY_SCHEMA,
        scenario: sc.name.clone(),
        seed,
        wire: sc.wire,
        clock: (sc.clock == fairway_model::scenario::Clock::Ns2).then(|| "ns2".to_string()),
        duration_s: end.as_secs_f64(),
        measure_from_s: from.as_secs_f64(),
        complete,
        scenario_duration_s: (!complete).then(|| sc.duration.as_secs_f64()),
        events: sim.events,
        flows,
        links_omitted: (links.len() - shown.len()) as u64,
        links: shown,
        classes,
        jain_index_flows,
        jain_index_classes,
        wireless: wireless_summary(sim),
        mode: None,
    };
    let series_logs = (0..sc.flows.len())
        .map(|i| (i, sim.driver(i).logs()))
        .flat_map(|(flow, logs)| {
            logs.into_iter().map(move |(s, log)| SeriesLog {
                flow,
                series: *s,
                points: log.iter().map(|&(t, v)| (t.as_secs_f64(), v)).collect(),
            })
        })
        .collect();
    Ok(RunResult {
        summary,
        all_links: links,
        bin: sc.monitor.bin,
        flow_bins: vec![],
        queue_samples: vec![],
        series_logs,
        node_paths: node_paths(sim),
        agent_trace: Vec::new(),
        packet_trace: Vec::new(),
        delay_hists,
    })
}
