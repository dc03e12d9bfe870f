//! The plots of a run: throughput of each flow over time, actual and average queue of each
//! monitored link, cumulative drops, and TCP congestion windows.

use super::file_safe;
use super::svg::{stack, Plot, Series, Style};
use fairway_model::results::RunResult;
use fairway_model::scenario::Scenario;

/// At most this many flows are drawn one by one; beyond it flows are summed per group.
const MAX_FLOW_SERIES: usize = 12;

/// How a run's figures are drawn (`fairway run --figure-size --font-size --no-titles`).
#[derive(Debug, Clone, PartialEq)]
pub struct FigureStyle {
    /// Each figure's size in px (a stacked figure's height is per panel).
    pub width: u32,
    pub height: u32,
    /// Text size in px at that size; 11 is the usual, and lines grow with it.
    pub font_size: f64,
    /// Titles on the figures (off for a paper, whose captions say it).
    pub titles: bool,
}

impl Default for FigureStyle {
    fn default() -> Self {
        FigureStyle { width: 800, height: 400, font_size: 11.0, titles: true }
    }
}

impl FigureStyle {
    /// `p` at this style's size and text size, without its title if titles are off, and with
    /// the warm-up (`warm_up`, from the run's `measure_from`) shaded and left out of its y axis.
    fn apply<'a>(&self, p: Plot<'a>, warm_up: Option<f64>) -> Plot<'a> {
        let p = match warm_up {
            Some(w) => p.fit_from(w),
            None => p,
        };
        self.apply_shaded(p, warm_up)
    }

    /// [`FigureStyle::apply`] with the y axis fitting the warm-up too (cumulative counts).
    fn apply_shaded<'a>(&self, mut p: Plot<'a>, warm_up: Option<f64>) -> Plot<'a> {
        p = p.size(self.width, self.height).scale(self.font_size / 11.0);
        if !self.titles {
            p.title = "";
        }
        if let Some(w) = warm_up {
            p = p.shade(0.0, w, "warm-up");
        }
        p
    }
}

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

/// The least and greatest of `samples` in each bin of width `bin` up to `end`, as the lower
/// edge of a band (two points a bin, so that it steps) and its upper edge's values.
fn envelope(samples: impl Iterator<Item = (f64, f64)>, bin: f64, end: f64) -> (Vec<(f64, f64)>, Vec<f64>) {
    let mut bins: Vec<(f64, f64)> = vec![];
    for (t, v) in samples {
        let k = ((t / bin) as usize).min((end / bin).ceil().max(1.0) as usize - 1);
        if bins.len() <= k {
            bins.resize(k + 1, (f64::INFINITY, f64::NEG_INFINITY));
        }
        bins[k] = (bins[k].0.min(v), bins[k].1.max(v));
    }
    let (mut lower, mut upper) = (vec![], vec![]);
    for (k, &(lo, hi)) in bins.iter().enumerate().filter(|(_, b)| b.0 <= b.1) {
        let (t0, t1) = (k as f64 * bin, ((k + 1) as f64 * bin).min(end));
        lower.extend([(t0, lo), (t1, lo)]);
        upper.extend([hi, hi]);
    }
    (lower, upper)
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
pub fn all(res: &RunResult, sc: &Scenario, style: &FigureStyle) -> Vec<(String, String)> {
    let mut out = vec![];
    let warm = Some(res.summary.measure_from_s).filter(|&w| w > 0.0);
    let bin = res.bin.as_secs_f64();
    let end = res.summary.duration_s;
    let nb = res.flow_bins.first().map_or(0, |b| b.len());
    let width = |k: usize| ((((k + 1) as f64) * bin).min(end) - k as f64 * bin).max(1e-12);

    // Throughput.
    let thr =
        per_flow_or_group(res, sc, |f, k| res.flow_bins[f][k].distinct_bytes as f64 * 8.0 / width(k) / 1e6, false);
    let title = format!("{}: throughput per flow ({} ms bins)", sc.name, res.bin.as_secs_f64() * 1e3);
    let p = style.apply(plot(&title, "time (s)", "throughput (Mb/s)", &thr, Style::Line), warm);
    out.push(("throughput.svg".to_string(), p.to_svg()));

    // Wireless nodes: where each went.
    if !res.node_paths.is_empty() {
        let lines: Vec<Line> = res
            .node_paths
            .iter()
            .map(|(name, pts)| Line { name: name.clone(), pts: pts.iter().map(|&(_, x, y)| (x, y)).collect() })
            .collect();
        let title = format!("{}: wireless nodes' paths (a dot at each start, turn and end)", sc.name);
        let p = style.apply(plot(&title, "x (m)", "y (m)", &lines, Style::LinePoints), None);
        out.push(("nodes.svg".to_string(), p.to_svg()));
    }

    // Queue of each monitored link: the least and greatest sample of each bin as a band (the
    // samples themselves, every few ms, would be a solid smear), RED's average, and the
    // discipline's thresholds and limit.
    for (l, rows) in &res.queue_samples {
        let name = sc.link_name(*l);
        let (lower, upper) = envelope(rows.iter().map(|r| (r.t_s, r.queue_pkts as f64)), bin, end);
        let band_name = format!("queue, range per {} ms", bin * 1e3);
        let mut p = Plot::new("", "time (s)", "queue (packets)").series(Series::band(&band_name, &lower, &upper));
        let avg: Vec<(f64, f64)> = rows.iter().map(|r| (r.t_s, r.avg_queue_pkts)).collect();
        if avg.iter().any(|a| a.1.is_finite()) {
            p = p.series(Series::new("average queue (RED)", &avg, Style::Line));
        }
        let marks: Vec<(String, Vec<(f64, f64)>)> = sc.links[*l]
            .queue
            .levels()
            .into_iter()
            .map(|m| (m.label, vec![(0.0, m.packets), (end, m.packets)]))
            .collect();
        for (label, pts) in &marks {
            p = p.series(Series::new(label, pts, Style::Line));
        }
        let title = format!("{}: queue at {name}", sc.name);
        p.title = &title;
        out.push((format!("queue_{}.svg", file_safe(&name)), style.apply(p, warm).to_svg()));
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
    // Cumulative counts: the warm-up is shaded, and the axis still fits all of them.
    if !link_drops.is_empty() {
        panels.push(style.apply_shaded(plot(&t1, "time (s)", "drops (packets)", &link_drops, Style::Step), warm));
    }
    panels.push(style.apply_shaded(plot(&t2, "time (s)", "drops (packets)", &flow_drops, Style::Step), warm));
    out.push(("drops.svg".to_string(), stack(&panels, style.width)));

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
    // Each series a protocol logs (<name>.svg): every change of each flow's, as a step trace
    // held to the end.
    for x in super::csv::logged_series(res) {
        let lines: Vec<Line> = res
            .logs_named(x.name)
            .take(MAX_FLOW_SERIES)
            .map(|l| {
                let mut pts = l.points.clone();
                if let Some(&(_, v)) = pts.last() {
                    pts.push((end, v));
                }
                Line { name: sc.flows[l.flow].name.clone(), pts }
            })
            .collect();
        let title = format!("{}: {}", sc.name, x.title);
        let p = style.apply(plot(&title, "time (s)", x.name, &lines, Style::Step), warm);
        out.push((format!("{}.svg", file_safe(x.name)), p.to_svg()));
    }

    // With an agent trace, the traced senders' windows at every change instead (first
    // connection of each flow; the plot's copy holds the trace's first rows).
    let mut traced: Vec<Line> = vec![];
    for r in res.agent_trace.iter().filter(|r| r.conn == 0) {
        let Some(w) = r.state.cwnd_pkts else { continue };
        let name = &sc.flows[r.flow as usize].name;
        let pt = (r.t.as_secs_f64(), w);
        match traced.iter().position(|l| l.name == *name) {
            Some(i) => traced[i].pts.push(pt),
            None if traced.len() < MAX_FLOW_SERIES => traced.push(Line { name: name.clone(), pts: vec![pt] }),
            None => {}
        }
    }
    // Each window held to the run's end, or, when the plot's copy of the trace stopped short,
    // to the last change it holds (and the title says so).
    let cut = res.agent_trace.len() >= super::stream::PLOT_ROWS as usize;
    let last = if cut { res.agent_trace.last().map_or(end, |r| r.t.as_secs_f64()) } else { end };
    for l in &mut traced {
        if let Some(&(t, w)) = l.pts.last() {
            l.pts.push((last.max(t), w));
        }
    }
    if !traced.is_empty() {
        let upto = if cut { format!(", to {last:.1} s") } else { String::new() };
        let title = format!("{}: TCP congestion window (every change{upto})", sc.name);
        let p = style.apply(plot(&title, "time (s)", "cwnd (packets)", &traced, Style::Step), warm);
        out.push(("cwnd.svg".to_string(), p.to_svg()));
    } else if !cwnd.is_empty() {
        let title = format!("{}: TCP congestion window (end of each bin)", sc.name);
        let p = style.apply(plot(&title, "time (s)", "cwnd (packets)", &cwnd, Style::Step), warm);
        out.push(("cwnd.svg".to_string(), p.to_svg()));
    }

    // With an agent trace, the traced rate-based senders' (TFRC, CCID3) allowed rate at every
    // change, as cwnd.svg draws windows.
    let mut rates: Vec<Line> = vec![];
    for r in res.agent_trace.iter().filter(|r| r.conn == 0) {
        let Some(x) = r.state.rate_bps else { continue };
        let name = &sc.flows[r.flow as usize].name;
        let pt = (r.t.as_secs_f64(), x / 1e6);
        match rates.iter().position(|l| l.name == *name) {
            Some(i) => rates[i].pts.push(pt),
            None if rates.len() < MAX_FLOW_SERIES => rates.push(Line { name: name.clone(), pts: vec![pt] }),
            None => {}
        }
    }
    for l in &mut rates {
        if let Some(&(t, x)) = l.pts.last() {
            l.pts.push((last.max(t), x));
        }
    }
    if !rates.is_empty() {
        let upto = if cut { format!(", to {last:.1} s") } else { String::new() };
        let title = format!("{}: allowed sending rate (every change{upto})", sc.name);
        let p = style.apply(plot(&title, "time (s)", "rate (Mb/s)", &rates, Style::Step), warm);
        out.push(("rate.svg".to_string(), p.to_svg()));
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
