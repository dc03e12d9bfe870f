//! Replications (`fairway run --reps N`, `fairway sweep --reps N`): each flow's and each class's
//! figures over the seeds, as the mean and the half-width of its 95% confidence interval
//! (Student's t), in replications.csv and a printed table.

use std::fmt::Write as _;

use fairway_model::results::{ClassSummary, FlowSummary, Summary};

use crate::stats::Estimate;

/// A figure: its column name (as in flows.csv and summary.json) and how to read it.
type Figure<T> = (&'static str, fn(&T) -> Option<f64>);

/// A flow's figures.
const FLOW_FIGURES: [Figure<FlowSummary>; 10] = [
    ("throughput_bps", |f| Some(f.throughput_bps)),
    ("goodput_bps", |f| Some(f.goodput_bps)),
    ("pdr", |f| f.pdr),
    ("plr", |f| f.plr),
    ("mean_delay_s", |f| f.mean_delay_s),
    ("jitter_s", |f| f.jitter_s),
    ("dropped_pkts", |f| Some(f.dropped_pkts as f64)),
    ("retransmits_pkts", |f| Some(f.retransmits_pkts as f64)),
    ("tcp_friendliness", |f| f.tcp_friendliness),
    ("equation_ratio", |f| f.equation_ratio),
];

/// A class's figures.
const CLASS_FIGURES: [Figure<ClassSummary>; 7] = [
    ("throughput_bps", |c| Some(c.throughput_bps)),
    ("pdr", |c| c.pdr),
    ("plr", |c| c.plr),
    ("mean_delay_s", |c| c.mean_delay_s),
    ("jain_index", |c| c.jain_index),
    ("tcp_friendliness", |c| c.tcp_friendliness),
    ("equation_ratio", |c| c.equation_ratio),
];

/// The whole run's figures (a row of kind `run`, name `all`).
const RUN_FIGURES: [Figure<Summary>; 2] =
    [("jain_index_flows", |s| s.jain_index_flows), ("jain_index_classes", |s| s.jain_index_classes)];

/// The figures' names, flows' then those only classes have.
fn figures() -> Vec<&'static str> {
    let mut names: Vec<&str> = FLOW_FIGURES.iter().map(|f| f.0).collect();
    for n in CLASS_FIGURES.iter().map(|f| f.0).chain(RUN_FIGURES.iter().map(|f| f.0)) {
        if !names.contains(&n) {
            names.push(n);
        }
    }
    names
}

/// Every figure's column and its `_ci95` beside it, after the `keys` of a sweep.
fn header(keys: &[String]) -> String {
    let lead: String = keys.iter().map(|k| format!("{},", field(k))).collect();
    let cols: Vec<String> = figures().iter().map(|n| format!("{n},{n}_ci95")).collect();
    format!("{lead}kind,name,class,reps,{}\n", cols.join(","))
}

/// A CSV field, quoted when it holds a comma or a quote.
fn field(v: &str) -> String {
    if v.contains([',', '"', '\n']) {
        format!("\"{}\"", v.replace('"', "\"\""))
    } else {
        v.to_string()
    }
}

fn push(s: &mut String, e: &Estimate) {
    // A figure no run had (a delay without deliveries) stays empty, like a missing value in
    // flows.csv; the interval of a single run is unknown.
    if e.n > 0 {
        let _ = write!(s, ",{}", e.mean);
        if e.n > 1 {
            let _ = write!(s, ",{}", e.ci95());
        } else {
            s.push(',');
        }
    } else {
        s.push_str(",,");
    }
}

/// replications.csv: a row per flow, then a row per class, each figure's mean over the runs and
/// its 95% confidence half-width (`..._ci95`); `reps` is how many runs had the flow.
pub fn csv(runs: &[&Summary]) -> String {
    csv_grouped(&[], &[(vec![], runs.to_vec())])
}

/// replications.csv of a sweep: per point of the grid without its seeds (`keys`, the values
/// leading each row), the rows [`csv`] gives for that point's runs.
pub fn csv_grouped(keys: &[String], groups: &[(Vec<String>, Vec<&Summary>)]) -> String {
    let mut s = header(keys);
    for (values, runs) in groups {
        let lead: String = values.iter().map(|v| format!("{},", field(v))).collect();
        rows(&mut s, &lead, runs);
    }
    s
}

fn rows(s: &mut String, lead: &str, runs: &[&Summary]) {
    let Some(first) = runs.first() else { return };
    let names = figures();
    for (i, f) in first.flows.iter().enumerate() {
        let rows: Vec<&FlowSummary> = runs.iter().filter_map(|r| r.flows.get(i)).collect();
        let _ = write!(s, "{lead}flow,{},{},{}", field(&f.name), f.class, rows.len());
        for n in &names {
            match FLOW_FIGURES.iter().find(|x| x.0 == *n) {
                Some((_, get)) => push(s, &Estimate::of(rows.iter().filter_map(|r| get(r)))),
                None => s.push_str(",,"),
            }
        }
        s.push('\n');
    }
    for (i, c) in first.classes.iter().enumerate() {
        let rows: Vec<&ClassSummary> = runs.iter().filter_map(|r| r.classes.get(i)).collect();
        let _ = write!(s, "{lead}class,{},{},{}", c.class, c.class, rows.len());
        for n in &names {
            match CLASS_FIGURES.iter().find(|x| x.0 == *n) {
                Some((_, get)) => push(s, &Estimate::of(rows.iter().filter_map(|r| get(r)))),
                None => s.push_str(",,"),
            }
        }
        s.push('\n');
    }
    let _ = write!(s, "{lead}run,all,,{}", runs.len());
    for n in &names {
        match RUN_FIGURES.iter().find(|x| x.0 == *n) {
            Some((_, get)) => push(s, &Estimate::of(runs.iter().filter_map(|r| get(r)))),
            None => s.push_str(",,"),
        }
    }
    s.push('\n');
}

/// The printed table: each flow's throughput, delivery ratio and delay as mean ± 95% half-width.
pub fn table(runs: &[&Summary]) -> String {
    let mut s = String::new();
    let Some(first) = runs.first() else { return s };
    let _ = writeln!(
        s,
        "{:<16} {:<6} {:>24} {:>18} {:>22}",
        "flow", "class", "throughput (Mb/s)", "delivery ratio", "mean delay (ms)"
    );
    for (i, f) in first.flows.iter().enumerate() {
        let rows: Vec<&FlowSummary> = runs.iter().filter_map(|r| r.flows.get(i)).collect();
        let est = |get: &dyn Fn(&FlowSummary) -> Option<f64>, k: f64, d: usize| {
            let e = Estimate::of(rows.iter().filter_map(|r| get(r).map(|v| v * k)));
            e.show(d)
        };
        let _ = writeln!(
            s,
            "{:<16} {:<6} {:>24} {:>18} {:>22}",
            f.name,
            f.class,
            est(&|f| Some(f.throughput_bps), 1e-6, 3),
            est(&|f| f.pdr, 1.0, 4),
            est(&|f| f.mean_delay_s, 1e3, 2),
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_figure_has_its_interval_beside_it() {
        let h = header(&[]);
        let cols: Vec<&str> = h.trim_end().split(',').collect();
        assert_eq!(&cols[..4], ["kind", "name", "class", "reps"]);
        for pair in cols[4..].chunks(2) {
            assert_eq!(format!("{}_ci95", pair[0]), pair[1]);
        }
    }
}
