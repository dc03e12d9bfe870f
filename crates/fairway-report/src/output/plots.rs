//! The plots of a run: throughput of each flow over time, actual and average queue of each
//! monitored link, cumulative drops, and TCP congestion windows.

use super::file_safe;
use super::svg::{stack, Plot, Series, Style};
use fairway_engine::results::RunResult;
use fairway_engine::scenario::Scenario;

/// At most this many flows are drawn one by one; beyond it flows are summed per group.
const MAX_FLOW_SERIES: usize = 12;

/// One line to draw: a name and its points.
struct Line {
    name: String,
    pts: Vec<(f64, f64)>,
}

fn plot<'a>(title: &'a str, x: &'a str, y: &'a str, lines: &'a [Line], style: Style) -> Plot<'a> {
    let mut p = Plot::new(title, x, y);
    for l in lines {
        p = p.series(Series::new(&l.name, &l.pts, style));
    }
    p
}

/// Per-bin values of each flow (or of each group summed, when there are many flows).
fn per_flow_or_group(
    res: &RunResult,
    sc: &Scenario,
    value: impl Fn(usize, usize) -> f64,
    cumulative: bool,
) -> Vec<Line> {
    let bin = res.bin.as_secs_f64();
    let end = res.summary.duration_s;
    let nb = res.flow_bins.first().map_or(0, |b| b.len());
    let t_of = |k: usize| (((k + 1) as f64) * bin).min(end);
    let mut members: Vec<(String, Vec<usize>)> = vec![];
    if sc.flows.len() <= MAX_FLOW_SERIES {
        members = sc.flows.iter().enumerate().map(|(i, f)| (f.name.clone(), vec![i])).collect();
    } else {
        for (i, f) in sc.flows.iter().enumerate() {
            match members.iter_mut().find(|(g, _)| *g == f.group) {
                Some((_, v)) => v.push(i),
                None => members.push((f.group.clone(), vec![i])),
            }
        }
        for (g, v) in &mut members {
            if v.len() > 1 {
                *g = format!("{g} ({} flows, sum)", v.len());
            }
        }
    }
    members
        .into_iter()
        .map(|(name, fl)| {
            let mut acc = 0.0;
            let pts = (0..nb)
                .map(|k| {
                    let v: f64 = fl.iter().map(|&f| value(f, k)).sum();
                    acc = if cumulative { acc + v } else { v };
                    (t_of(k), acc)
                })
                .collect();
            Line { name, pts }
        })
        .collect()
}

/// (file name, SVG) for every plot of the run.
pub fn all(res: &RunResult, sc: &Scenario) -> Vec<(String, String)> {
    let mut out = vec![];
    let bin = res.bin.as_secs_f64();
    let end = res.summary.duration_s;
    let nb = res.flow_bins.first().map_or(0, |b| b.len());
    let width = |k: usize| ((((k + 1) as f64) * bin).min(end) - k as f64 * bin).max(1e-12);

    // Throughput.
    let thr =
        per_flow_or_group(res, sc, |f, k| res.flow_bins[f][k].distinct_bytes as f64 * 8.0 / width(k) / 1e6, false);
    let title = format!("{}: throughput per flow ({} ms bins)", sc.name, res.bin.as_secs_f64() * 1e3);
    out.push(("throughput.svg".to_string(), plot(&title, "time (s)", "throughput (Mb/s)", &thr, Style::Line).to_svg()));

    // Wireless nodes: where each went.
    if !res.node_paths.is_empty() {
        let lines: Vec<Line> = res
            .node_paths
            .iter()
            .map(|(name, pts)| Line { name: name.clone(), pts: pts.iter().map(|&(_, x, y)| (x, y)).collect() })
            .collect();
        let title = format!("{}: wireless nodes' paths (a dot at each start, turn and end)", sc.name);
        out.push(("nodes.svg".to_string(), plot(&title, "x (m)", "y (m)", &lines, Style::LinePoints).to_svg()));
    }

    // Queue of each monitored link.
    for (l, rows) in &res.queue_samples {
        let name = sc.link_name(*l);
        let mut lines = vec![Line {
            name: "actual queue".into(),
            pts: rows.iter().map(|r| (r.t_s, r.queue_pkts as f64)).collect(),
        }];
        if rows.iter().any(|r| r.avg_queue_pkts.is_finite()) {
            lines.push(Line {
                name: "average queue (RED)".into(),
                pts: rows.iter().map(|r| (r.t_s, r.avg_queue_pkts)).collect(),
            });
        }
        let title = format!("{}: queue at {name}", sc.name);
        let svg = plot(&title, "time (s)", "queue (packets)", &lines, Style::Line).to_svg();
        out.push((format!("queue_{}.svg", file_safe(&name)), svg));
    }

    // Cumulative drops: per monitored link, and per flow (or group).
    let link_drops: Vec<Line> = res
        .queue_samples
        .iter()
        .map(|(l, rows)| Line {
            name: sc.link_name(*l),
            pts: rows.iter().map(|r| (r.t_s, r.drops_pkts as f64)).collect(),
        })
        .collect();
    let flow_drops = per_flow_or_group(res, sc, |f, k| res.flow_bins[f][k].dropped_pkts as f64, true);
    let t1 = format!("{}: cumulative drops per link", sc.name);
    let t2 = format!("{}: cumulative drops per flow", sc.name);
    let mut panels = vec![];
    if !link_drops.is_empty() {
        panels.push(plot(&t1, "time (s)", "drops (packets)", &link_drops, Style::Step));
    }
    panels.push(plot(&t2, "time (s)", "drops (packets)", &flow_drops, Style::Step));
    out.push(("drops.svg".to_string(), stack(&panels, 900)));

    // Congestion windows of single-connection TCP flows.
    let cwnd: Vec<Line> = sc
        .flows
        .iter()
        .enumerate()
        .filter(|(f, _)| res.flow_bins[*f].iter().any(|b| b.cwnd_pkts.is_finite()))
        .take(MAX_FLOW_SERIES)
        .map(|(f, spec)| Line {
            name: spec.name.clone(),
            pts: (0..nb).map(|k| ((((k + 1) as f64) * bin).min(end), res.flow_bins[f][k].cwnd_pkts as f64)).collect(),
        })
        .collect();
    // MApp's scale: the sender's every change, as a step trace.
    let scales: Vec<Line> = res
        .scale_logs
        .iter()
        .take(MAX_FLOW_SERIES)
        .map(|(f, log)| {
            let mut pts: Vec<(f64, f64)> = log.iter().map(|(t, v)| (*t, *v as f64)).collect();
            if let Some(&(_, v)) = pts.last() {
                pts.push((end, v));
            }
            Line { name: sc.flows[*f].name.clone(), pts }
        })
        .collect();
    if !scales.is_empty() {
        let title = format!("{}: MApp media scale", sc.name);
        out.push(("scale.svg".to_string(), plot(&title, "time (s)", "scale", &scales, Style::Step).to_svg()));
    }

    if !cwnd.is_empty() {
        let title = format!("{}: TCP congestion window (end of each bin)", sc.name);
        out.push(("cwnd.svg".to_string(), plot(&title, "time (s)", "cwnd (packets)", &cwnd, Style::Step).to_svg()));
    }

    // The network, with each [[flow]] entry's path (its first flow's).
    let index: std::collections::HashMap<&str, usize> =
        sc.nodes.iter().enumerate().map(|(i, n)| (n.as_str(), i)).collect();
    let mut paths: Vec<(String, Vec<usize>)> = vec![];
    for f in &res.summary.flows {
        if f.path.is_empty() || paths.iter().any(|(g, _)| *g == f.group) {
            continue;
        }
        paths.push((f.group.clone(), f.path.iter().filter_map(|n| index.get(n.as_str()).copied()).collect()));
    }
    if let Some(svg) = super::topology::svg(sc, &paths) {
        out.push(("topology.svg".to_string(), svg));
    }
    out
}
