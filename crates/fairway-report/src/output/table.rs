//! The short table `fairway run` prints: one row per flow (or per group of flows declared with
//! `count`), one per monitored link.

use std::fmt::Write;

use fairway_model::results::{FlowSummary, RunResult};

fn mbps(bps: f64) -> String {
    format!("{:.3}", bps / 1e6)
}

fn ms(s: Option<f64>) -> String {
    s.map_or("-".to_string(), |v| format!("{:.2}", v * 1e3))
}

/// Flows grouped by their `[[flow]]` entry: a group of one prints as the flow itself.
fn groups(flows: &[FlowSummary]) -> Vec<(String, Vec<&FlowSummary>)> {
    let mut out: Vec<(String, Vec<&FlowSummary>)> = vec![];
    for f in flows {
        match out.iter_mut().find(|(g, _)| *g == f.group) {
            Some((_, v)) => v.push(f),
            None => out.push((f.group.clone(), vec![f])),
        }
    }
    out
}

/// One table of the summary: its columns (name and width in the printed table; the first is
/// left-aligned and cut to its width there, the others right-aligned) and rows.
pub struct Section {
    pub columns: Vec<(&'static str, usize)>,
    pub rows: Vec<Vec<String>>,
}

/// The summary's tables: flows (grouped by `[[flow]]` entry), wireless nodes if any, monitored
/// links if any.
pub fn sections(res: &RunResult) -> Vec<Section> {
    let s = &res.summary;
    let mut out = vec![];
    let mut flows = Section {
        columns: vec![
            ("flow", 18),
            ("n", 5),
            ("transport", 9),
            ("sent", 10),
            ("received", 10),
            ("dropped", 8),
            ("wire Mb/s", 9),
            ("goodput Mb/s", 12),
            ("delay ms", 9),
            ("jitter ms", 9),
            ("vs TCP", 7),
        ],
        rows: vec![],
    };
    for (g, fl) in groups(&s.flows) {
        let n = fl.len();
        let name = if n == 1 { fl[0].name.clone() } else { format!("{g}*") };
        let sum = |f: fn(&FlowSummary) -> u64| fl.iter().map(|x| f(x)).sum::<u64>();
        // Throughput counts the bytes on the wire, headers included; goodput the application's.
        let thru: f64 = fl.iter().map(|x| x.throughput_bps).sum();
        let good: f64 = fl.iter().map(|x| x.goodput_bps).sum();
        // Delay and jitter: the mean over the group's flows that received anything.
        let mean = |f: fn(&FlowSummary) -> Option<f64>| {
            let v: Vec<f64> = fl.iter().filter_map(|x| f(x)).collect();
            (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
        };
        flows.rows.push(vec![
            name,
            n.to_string(),
            fl[0].transport.to_string(),
            sum(|x| x.sent_pkts).to_string(),
            sum(|x| x.recv_distinct_pkts).to_string(),
            sum(|x| x.dropped_pkts).to_string(),
            mbps(thru),
            mbps(good),
            ms(mean(|x| x.mean_delay_s)),
            ms(mean(|x| x.jitter_s)),
            // Throughput over that of the TCP flows alike in bottleneck and round trip.
            mean(|x| x.tcp_friendliness).map_or("-".to_string(), |r| format!("{r:.2}")),
        ]);
    }
    out.push(flows);
    if s.jain_index_flows.is_some() {
        let show = |v: Option<f64>| v.map_or("-".to_string(), |j| format!("{j:.3}"));
        out.push(Section {
            columns: vec![("fairness", 18), ("Jain flows", 10), ("Jain classes", 12)],
            rows: vec![vec!["all flows".to_string(), show(s.jain_index_flows), show(s.jain_index_classes)]],
        });
    }
    if let Some(w) = &s.wireless {
        let mut nodes = Section {
            columns: vec![
                ("wireless node", 18),
                ("data tx", 9),
                ("retries", 8),
                ("rts", 6),
                ("collided", 9),
                ("ret drop", 8),
                ("ifq", 6),
                ("arp", 6),
                ("noroute", 6),
            ],
            rows: vec![],
        };
        for n in &w.nodes {
            nodes.rows.push(
                [
                    n.mac.data_frames,
                    n.mac.data_retries,
                    n.mac.rts_frames,
                    n.mac.collisions,
                    n.mac.retry_drops,
                    n.mac.ifq_drops,
                    n.net.arp_drops,
                    n.net.no_route_drops,
                ]
                .iter()
                .fold(vec![n.name.clone()], |mut v, x| {
                    v.push(x.to_string());
                    v
                }),
            );
        }
        out.push(nodes);
    }
    if s.links.iter().any(|l| l.monitored) {
        let mut links = Section {
            columns: vec![
                ("link", 18),
                ("queue", 8),
                ("arrivals", 10),
                ("drops", 8),
                ("early", 7),
                ("marks", 7),
                ("mean q", 9),
                ("mean avg", 9),
                ("util", 6),
            ],
            rows: vec![],
        };
        for l in s.links.iter().filter(|l| l.monitored) {
            links.rows.push(vec![
                l.name.clone(),
                l.queue.to_string(),
                l.arrivals_pkts.to_string(),
                l.drops_pkts.to_string(),
                l.early_drops_pkts.to_string(),
                l.marks_pkts.to_string(),
                format!("{:.2}", l.mean_queue_pkts),
                l.mean_avg_queue_pkts.map_or("-".to_string(), |a| format!("{a:.2}")),
                format!("{:.1}%", l.utilization * 100.0),
            ]);
        }
        out.push(links);
    }
    out
}

/// The tables as `fairway run` prints them, a blank line between two.
pub fn render(res: &RunResult) -> String {
    let mut t = String::new();
    for (i, sec) in sections(res).iter().enumerate() {
        if i > 0 {
            t.push('\n');
        }
        let line = |t: &mut String, cells: &mut dyn Iterator<Item = String>| {
            for (k, (cell, &(_, w))) in cells.zip(&sec.columns).enumerate() {
                if k == 0 {
                    let _ = write!(t, "{:<w$}", truncate(&cell, w));
                } else {
                    let _ = write!(t, " {cell:>w$}");
                }
            }
            t.push('\n');
        };
        line(&mut t, &mut sec.columns.iter().map(|c| c.0.to_string()));
        for r in &sec.rows {
            line(&mut t, &mut r.iter().cloned());
        }
    }
    t
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n - 1).collect();
        t.push('~');
        t
    }
}
