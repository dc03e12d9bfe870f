//! The testbed's page (`fairway testbed`): one scenario simulated and run live, side by side.
//! Its tables are the caller's (each flow's throughput both ways, the bottleneck's counters);
//! its figures are drawn from the two runs' flows.csv and queue.csv, which have the same
//! columns and bins: each flow's throughput, the bottleneck's queue, TCP's windows and the series
//! protocols report, simulated and live on the same axes.

use std::fmt::Write;

use super::html::{close, escape, figure, open, section_table};
use super::html_pages::csv_rows;
use super::svg::{stack, Plot, Series, Style};
use super::table::Section;
use fairway_model::results::SeriesInfo;

/// At most this many flows get a panel of their own in a figure.
const MAX_PANELS: usize = 12;

/// One run's time series, as its results folder holds them.
pub struct RunSeries<'a> {
    pub flows_csv: &'a str,
    pub queue_csv: &'a str,
}

/// What the page shows.
pub struct SideBySide<'a> {
    pub scenario: &'a str,
    /// The bottleneck, as queue.csv names it.
    pub link: &'a str,
    /// What ran, as (what, value) pairs.
    pub facts: &'a [(String, String)],
    pub flows: &'a Section,
    pub bottleneck: &'a Section,
    pub simulated: RunSeries<'a>,
    pub live: RunSeries<'a>,
    /// The protocols' series flows.csv has columns for (the scenario's `monitor.series`): a figure
    /// of each that some flow reports.
    pub series: &'a [SeriesInfo],
    /// Files of the folder to link to: (path, what it is).
    pub files: &'a [(&'a str, &'a str)],
}

/// A CSV text's rows as maps from its header's names.
struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    fn parse(text: &str) -> Table {
        let mut rows = csv_rows(text);
        let header = if rows.is_empty() { vec![] } else { rows.remove(0) };
        Table { header, rows }
    }

    fn col(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }

    /// (x, y) of the rows whose `key` column is `key_value`; cells that are not numbers are
    /// left out.
    fn points(&self, key: &str, key_value: &str, x: &str, y: &str, scale: f64) -> Vec<(f64, f64)> {
        let (Some(k), Some(x), Some(y)) = (self.col(key), self.col(x), self.col(y)) else { return vec![] };
        self.rows
            .iter()
            .filter(|r| r.get(k).is_some_and(|v| v == key_value))
            .filter_map(|r| Some((r.get(x)?.parse::<f64>().ok()?, r.get(y)?.parse::<f64>().ok()? * scale)))
            .collect()
    }

    /// The values of column `name`, each once, in the order they first appear.
    fn distinct(&self, name: &str) -> Vec<String> {
        let Some(c) = self.col(name) else { return vec![] };
        let mut v: Vec<String> = vec![];
        for r in &self.rows {
            if let Some(x) = r.get(c) {
                if !v.contains(x) {
                    v.push(x.clone());
                }
            }
        }
        v
    }
}

/// One flow's panel: (flow, simulated points, live points).
type FlowPanel = (String, Vec<(f64, f64)>, Vec<(f64, f64)>);

/// A panel per flow (at most [`MAX_PANELS`]) of one flows.csv column, simulated and live; only
/// the flows whose simulated column has numbers.
fn per_flow(
    title: &str,
    y_label: &str,
    column: &str,
    scale: f64,
    style: Style,
    sim: &Table,
    live: &Table,
) -> Option<String> {
    let series: Vec<FlowPanel> = sim
        .distinct("flow")
        .into_iter()
        .map(|f| {
            let s = sim.points("flow", &f, "bin_end_s", column, scale);
            let l = live.points("flow", &f, "bin_end_s", column, scale);
            (f, s, l)
        })
        .filter(|(_, s, _)| !s.is_empty())
        .take(MAX_PANELS)
        .collect();
    if series.is_empty() {
        return None;
    }
    let titles: Vec<String> = series.iter().map(|(f, ..)| format!("{title}: {f}")).collect();
    let panels: Vec<Plot> = series
        .iter()
        .zip(&titles)
        .map(|((_, s, l), t)| {
            Plot::new(t, "time (s)", y_label)
                .series(Series::new("simulated", s, style))
                .series(Series::new("live", l, style))
                .size(800, 260)
        })
        .collect();
    Some(stack(&panels, 800))
}

/// The mean of `samples` (time, value) in each bin of width `bin`, at the bin's end.
fn bin_means(samples: &[(f64, f64)], bin: f64) -> Vec<(f64, f64)> {
    let mut sums: Vec<(f64, u32)> = vec![];
    for &(t, v) in samples {
        let k = (t / bin).floor().max(0.0) as usize;
        if sums.len() <= k {
            sums.resize(k + 1, (0.0, 0));
        }
        sums[k].0 += v;
        sums[k].1 += 1;
    }
    sums.iter().enumerate().filter(|(_, s)| s.1 > 0).map(|(k, s)| ((k + 1) as f64 * bin, s.0 / s.1 as f64)).collect()
}

/// The page's figures: (file name, SVG).
pub fn figures(s: &SideBySide) -> Vec<(String, String)> {
    let (sf, lf) = (Table::parse(s.simulated.flows_csv), Table::parse(s.live.flows_csv));
    let mut out = vec![];
    let bins = "per bin of flows.csv";
    if let Some(svg) = per_flow(&format!("throughput ({bins})"), "Mb/s", "throughput_bps", 1e-6, Style::Line, &sf, &lf)
    {
        out.push(("throughput.svg".to_string(), svg));
    }
    // The queue, sampled every few ms, would be two solid smears on top of each other: each
    // run's mean in each of flows.csv's bins instead.
    let first = sf.distinct("flow").into_iter().next().unwrap_or_default();
    let bin = sf.points("flow", &first, "bin_start_s", "bin_end_s", 1.0).first().map_or(0.1, |(a, b)| b - a);
    let (sq, lq) = (Table::parse(s.simulated.queue_csv), Table::parse(s.live.queue_csv));
    let (qs, ql) = (
        bin_means(&sq.points("link", s.link, "time_s", "queue_pkts", 1.0), bin),
        bin_means(&lq.points("link", s.link, "time_s", "queue_pkts", 1.0), bin),
    );
    if !qs.is_empty() || !ql.is_empty() {
        let title = format!("{}: queue at {} (mean per {} ms bin)", s.scenario, s.link, (bin * 1e3).round());
        let p = Plot::new(&title, "time (s)", "queue (packets)")
            .series(Series::new("simulated", &qs, Style::Line))
            .series(Series::new("live", &ql, Style::Line));
        out.push(("queue.svg".to_string(), p.to_svg()));
    }
    if let Some(svg) =
        per_flow("TCP congestion window (end of each bin)", "packets", "cwnd_pkts", 1.0, Style::Step, &sf, &lf)
    {
        out.push(("cwnd.svg".to_string(), svg));
    }
    for x in s.series {
        let title = format!("{} (end of each bin)", x.title);
        if let Some(svg) = per_flow(&title, x.name, x.name, 1.0, Style::Step, &sf, &lf) {
            out.push((format!("{}.svg", super::file_safe(x.name)), svg));
        }
    }
    out
}

/// report.html: what ran, the tables, the figures, and links to both runs' files.
pub fn page(s: &SideBySide, figures: &[(String, String)]) -> String {
    let mut p = open(&format!("fairway testbed: {}, simulated and live", s.scenario));
    p.push_str("<dl>\n");
    for (k, v) in s.facts {
        let _ = writeln!(p, "<dt>{}</dt><dd>{}</dd>", escape(k), escape(v));
    }
    p.push_str("</dl>\n<h2>Each flow</h2>\n");
    section_table(&mut p, s.flows);
    let _ = writeln!(p, "<h2>The bottleneck, {}</h2>", escape(s.link));
    section_table(&mut p, s.bottleneck);
    p.push_str("<h2>Over time</h2>\n");
    for (name, svg) in figures {
        figure(&mut p, name, svg);
    }
    p.push_str("<h2>Files</h2>\n<ul>\n");
    for (path, what) in s.files {
        let _ = writeln!(p, "<li><a href=\"{}\">{}</a>: {}</li>", escape(path), escape(path), escape(what));
    }
    p.push_str("</ul>\n");
    close(&mut p);
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    const FLOWS: &str = "bin_start_s,bin_end_s,flow,group,class,sent_pkts,recv_pkts,dropped_pkts,throughput_bps,goodput_bps,mean_delay_s,cwnd_pkts,scale
0.0,1.0,ftp,ftp,tcp,1,1,0,1000000.0,900000.0,,5.000,
0.0,1.0,mapp,mapp,udp,1,1,0,500000.0,400000.0,0.01,,7
1.0,2.0,ftp,ftp,tcp,1,1,0,2000000.0,1800000.0,,6.000,
1.0,2.0,mapp,mapp,udp,1,1,0,250000.0,200000.0,0.01,,6
";

    #[test]
    fn each_figure_draws_both_runs_and_only_the_flows_that_have_the_column() {
        let t = Table::parse(FLOWS);
        assert_eq!(t.points("flow", "ftp", "bin_end_s", "throughput_bps", 1e-6), [(1.0, 1.0), (2.0, 2.0)]);
        assert_eq!(t.points("flow", "mapp", "bin_end_s", "cwnd_pkts", 1.0), [], "no window for MApp");
        let queue = "time_s,link,queue_pkts\n0.0,r1->r2,3\n0.5,r1->r2,4\n0.5,r2->r1,9\n1.5,r1->r2,8\n";
        let q = Table::parse(queue).points("link", "r1->r2", "time_s", "queue_pkts", 1.0);
        assert_eq!(bin_means(&q, 1.0), [(1.0, 3.5), (2.0, 8.0)]);
        let empty = Section { columns: vec![], rows: vec![] };
        let s = SideBySide {
            scenario: "t",
            link: "r1->r2",
            facts: &[],
            flows: &empty,
            bottleneck: &empty,
            simulated: RunSeries { flows_csv: FLOWS, queue_csv: queue },
            live: RunSeries { flows_csv: FLOWS, queue_csv: queue },
            series: &[SeriesInfo { name: "scale", title: "MApp media scale", decimals: 0 }],
            files: &[("simulated/report.html", "the simulated run's own page")],
        };
        let f = figures(&s);
        let names: Vec<&str> = f.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["throughput.svg", "queue.svg", "cwnd.svg", "scale.svg"]);
        assert!(f.iter().all(|(_, svg)| svg.contains("simulated") && svg.contains("live")));
        // The window figure has a panel for ftp only; the scale's for mapp only.
        assert!(f[2].1.contains("window (end of each bin): ftp") && !f[2].1.contains(": mapp"));
        assert!(f[3].1.contains("scale (end of each bin): mapp") && !f[3].1.contains(": ftp"));
        let html = page(&s, &f);
        assert!(html.contains("<figure data-figure=\"queue.svg\"") && html.contains("href=\"simulated/report.html\""));
    }
}
