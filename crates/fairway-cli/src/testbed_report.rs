//! What `fairway testbed` writes beside its two runs: comparison.csv and comparison.md (each
//! flow's throughput simulated and live), and report.html, the two runs side by side with
//! figures of both over time (fairway-report's side_by_side).

use std::fmt::Write as _;
use std::path::Path;

use fairway_model::results::{FlowSummary, LinkSummary};
use fairway_model::scenario::Scenario;
use fairway_report::output::side_by_side::{self, RunSeries, SideBySide};
use fairway_report::output::table::Section;

use crate::Failure;

fn ratio(live: f64, simulated: f64) -> f64 {
    if simulated > 0.0 {
        live / simulated
    } else {
        f64::NAN
    }
}

/// comparison.csv and comparison.md: each flow's throughput simulated and live, and the
/// bottleneck's arrivals and drops.
pub(crate) fn comparison(
    sc: &Scenario,
    sim: &[FlowSummary],
    live: &[FlowSummary],
    sim_link: Option<&LinkSummary>,
    live_link: &LinkSummary,
) -> (String, String) {
    let mut csv = String::from("flow,class,simulated_bps,live_bps,live_over_simulated\n");
    let mut md = format!(
        "# {}: simulated and live\n\n| flow | class | simulated (kb/s) | live (kb/s) | live / simulated |\n|---|---|---:|---:|---:|\n",
        sc.name
    );
    for (s, l) in sim.iter().zip(live) {
        let (a, b) = (s.throughput_bps, l.throughput_bps);
        let r = ratio(b, a);
        let _ = writeln!(csv, "{},{},{a:.1},{b:.1},{r:.4}", s.name, s.class);
        let _ = writeln!(md, "| {} | {} | {:.1} | {:.1} | {r:.3} |", s.name, s.class, a / 1e3, b / 1e3);
    }
    if let Some(sl) = sim_link {
        let _ = write!(
            md,
            "\nBottleneck {}: simulated {} packets in, {} dropped; live {} in, {} dropped.\n",
            live_link.name, sl.arrivals_pkts, sl.drops_pkts, live_link.arrivals_pkts, live_link.drops_pkts
        );
    }
    (csv, md)
}

fn opt_ms(v: Option<f64>) -> String {
    v.map_or("-".to_string(), |s| format!("{:.1}", s * 1e3))
}

/// The page's flow table: throughput, drops and delay, simulated beside live.
fn flow_section(sim: &[FlowSummary], live: &[FlowSummary]) -> Section {
    let columns = vec![
        ("flow", 12),
        ("class", 6),
        ("simulated Mb/s", 10),
        ("live Mb/s", 10),
        ("live / simulated", 8),
        ("simulated dropped", 8),
        ("live dropped", 8),
        ("simulated delay ms", 8),
        ("live delay ms", 8),
    ];
    let rows = sim
        .iter()
        .zip(live)
        .map(|(s, l)| {
            vec![
                s.name.clone(),
                s.class.to_string(),
                format!("{:.3}", s.throughput_bps / 1e6),
                format!("{:.3}", l.throughput_bps / 1e6),
                format!("{:.3}", ratio(l.throughput_bps, s.throughput_bps)),
                s.dropped_pkts.to_string(),
                l.dropped_pkts.to_string(),
                opt_ms(s.mean_delay_s),
                opt_ms(l.mean_delay_s),
            ]
        })
        .collect();
    Section { columns, rows }
}

/// The page's bottleneck table: its counters, simulated beside live.
fn link_section(sim: Option<&LinkSummary>, live: &LinkSummary) -> Section {
    let columns = vec![("", 20), ("simulated", 10), ("live", 10)];
    let row = |what: &str, f: &dyn Fn(&LinkSummary) -> String| {
        vec![what.to_string(), sim.map_or("-".to_string(), f), f(live)]
    };
    let count = |f: fn(&LinkSummary) -> u64| move |l: &LinkSummary| f(l).to_string();
    let rows = vec![
        row("packets in", &count(|l| l.arrivals_pkts)),
        row("packets out", &count(|l| l.departures_pkts)),
        row("dropped", &count(|l| l.drops_pkts)),
        row("early drops", &count(|l| l.early_drops_pkts)),
        row("forced drops", &count(|l| l.forced_drops_pkts)),
        row("overflow drops", &count(|l| l.overflow_drops_pkts)),
        row("marked", &count(|l| l.marks_pkts)),
        row("mean queue (packets)", &|l| format!("{:.2}", l.mean_queue_pkts)),
        row("mean wait (ms)", &|l| opt_ms(l.mean_sojourn_s)),
        row("utilisation", &|l| format!("{:.3}", l.utilization)),
    ];
    Section { columns, rows }
}

/// DIR/report.html and its figures, from the two runs' folders DIR/simulated and DIR/live.
pub(crate) fn write_page(
    out: &Path,
    sc: &Scenario,
    link: &str,
    facts: &[(String, String)],
    (sim, live): (&[FlowSummary], &[FlowSummary]),
    (sim_link, live_link): (Option<&LinkSummary>, &LinkSummary),
) -> Result<(), Failure> {
    let read = |p: &str| {
        std::fs::read_to_string(out.join(p))
            .map_err(|e| Failure::Other(anyhow::anyhow!("{}: {e}", out.join(p).display())))
    };
    let (sf, sq, lf, lq) =
        (read("simulated/flows.csv")?, read("simulated/queue.csv")?, read("live/flows.csv")?, read("live/queue.csv")?);
    let (flows, bottleneck) = (flow_section(sim, live), link_section(sim_link, live_link));
    let files = [
        ("simulated/report.html", "the simulated run's own page, with all its figures"),
        ("simulated/summary.json", "the simulated run's summary"),
        ("live/summary.json", "the live run's summary (\"mode\": \"live\")"),
        ("simulated/flows.csv", "each flow over time, simulated"),
        ("live/flows.csv", "each flow over time, live"),
        ("simulated/queue.csv", "the queues over time, simulated"),
        ("live/queue.csv", "the bottleneck's queue over time, live"),
        ("comparison.csv", "each flow's throughput, simulated and live"),
    ];
    let page = SideBySide {
        scenario: &sc.name,
        link,
        facts,
        flows: &flows,
        bottleneck: &bottleneck,
        simulated: RunSeries { flows_csv: &sf, queue_csv: &sq },
        live: RunSeries { flows_csv: &lf, queue_csv: &lq },
        series: &sc.monitor.series,
        files: &files,
    };
    let figures = side_by_side::figures(&page);
    let write = |name: &str, text: &str| {
        std::fs::write(out.join(name), text).map_err(|e| Failure::Other(anyhow::anyhow!("{name}: {e}")))
    };
    for (name, svg) in &figures {
        write(name, svg)?;
    }
    write("report.html", &side_by_side::page(&page, &figures))
}
