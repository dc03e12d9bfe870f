//! flows.csv and queue.csv: long format (one row per flow or link per time step), so
//! `pandas.read_csv` gives a frame that pivots or groups by name directly. Empty fields are
//! missing values.

use std::fmt::Write;

use fairway_model::decimal::push_u64 as uint;
use fairway_model::delay_hist::bucket_span;
use fairway_model::results::{AgentRow, BinRow, QueueRow, RunResult, SeriesInfo};
use fairway_model::scenario::Scenario;

/// Appends `v` with `decimals` decimals (nothing for NaN or infinite values: a missing value).
/// Integer arithmetic: float formatting was a tenth of a run's time on large outputs.
fn fixed(s: &mut String, v: f64, decimals: u32) {
    if !v.is_finite() {
        return;
    }
    let scale = 10u64.pow(decimals);
    let x = (v.abs() * scale as f64).round();
    if x >= u64::MAX as f64 {
        // Beyond 64 bits: leave it to the float formatter.
        let _ = write!(s, "{v:.prec$}", prec = decimals as usize);
        return;
    }
    let n = x as u64;
    if v < 0.0 && n > 0 {
        s.push('-');
    }
    uint(s, n / scale);
    if decimals > 0 {
        s.push('.');
        uint_padded(s, n % scale, decimals as usize);
    }
}

/// Appends `n` as exactly `width` digits, zero-padded.
fn uint_padded(s: &mut String, n: u64, width: usize) {
    let mut buf = [b'0'; 20];
    let mut n = n;
    for i in (20 - width..20).rev() {
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
    }
    s.push_str(std::str::from_utf8(&buf[20 - width..]).expect("digits"));
}

/// Appends a time in seconds with microsecond precision, from integer nanoseconds.
fn secs(s: &mut String, ns: u64) {
    let us = (ns + 500) / 1000;
    uint(s, us / 1_000_000);
    s.push('.');
    uint_padded(s, us % 1_000_000, 6);
}

/// flows.csv's columns that every flow has; the protocols' series follow ([`flows_header`]).
pub const FLOWS_COLUMNS: &str = "bin_start_s,bin_end_s,flow,group,class,sent_pkts,recv_pkts,dropped_pkts,throughput_bps,goodput_bps,mean_delay_s,cwnd_pkts";

/// flows.csv's first line: [`FLOWS_COLUMNS`], then a column per series of `series` (the
/// scenario's `monitor.series`).
pub fn flows_header(series: &[SeriesInfo]) -> String {
    let mut s = String::from(FLOWS_COLUMNS);
    for x in series {
        s.push(',');
        s.push_str(x.name);
    }
    s.push('\n');
    s
}

pub const CLASSES_HEADER: &str = "bin_start_s,bin_end_s,class,flows,throughput_bps,jain_index\n";
pub const QUEUE_HEADER: &str = "time_s,link,queue_pkts,queue_bytes,avg_queue_pkts,arrivals_pkts,departures_pkts,departures_bytes,drops_pkts,early_drops_pkts,forced_drops_pkts,overflow_drops_pkts,threshold_drops_pkts,sojourn_drops_pkts,flow_drops_pkts,marks_pkts\n";

pub const AGENTS_HEADER: &str =
    "time_s,flow,conn,cwnd_pkts,ssthresh_pkts,srtt_s,rttvar_s,rto_s,rate_bps,loss_event_rate\n";

/// One row of trace-agents.csv: a traced sender's state after a change, flow by name; a
/// quantity its protocol does not have is left empty.
pub fn agent_row(s: &mut String, sc: &Scenario, r: &AgentRow) {
    secs(s, r.t.0);
    s.push(',');
    s.push_str(sc.flows.get(r.flow as usize).map_or("", |f| f.name.as_str()));
    s.push(',');
    uint(s, r.conn as u64);
    let st = &r.state;
    for v in [st.cwnd_pkts, st.ssthresh_pkts] {
        s.push(',');
        if let Some(v) = v {
            fixed(s, v, 4);
        }
    }
    for d in [st.srtt, st.rttvar, st.rto] {
        s.push(',');
        if let Some(d) = d {
            secs(s, d.0);
        }
    }
    s.push(',');
    if let Some(v) = st.rate_bps {
        fixed(s, v, 1);
    }
    s.push(',');
    if let Some(v) = st.loss_event_rate {
        fixed(s, v, 8);
    }
    s.push('\n');
}

/// delay_cdf.csv's first line.
pub const DELAY_CDF_HEADER: &str = "flow,delay_s,cdf\n";

/// delay_cdf.csv: per flow (scenario order), a row per bucket of its delay histogram with a
/// delay in it, shortest first: the longest delay the bucket holds (to the nanosecond) and the
/// fraction of the flow's delays at or under it, exact at that point (the buckets are at most
/// 1/64 of their delay wide: delay_hist.rs). `None` when no flow's delay was measured.
pub fn delay_cdf_csv(res: &RunResult, sc: &Scenario) -> Option<String> {
    if res.delay_hists.iter().all(|h| h.count() == 0) {
        return None;
    }
    let mut s = String::from(DELAY_CDF_HEADER);
    for (f, h) in sc.flows.iter().zip(&res.delay_hists) {
        let (n, mut seen) = (h.count() as f64, 0);
        for (i, c) in h.buckets() {
            seen += c;
            let (lo, w) = bucket_span(i);
            let top = lo + w - 1;
            s.push_str(&f.name);
            s.push(',');
            uint(&mut s, top / 1_000_000_000);
            s.push('.');
            uint_padded(&mut s, top % 1_000_000_000, 9);
            s.push(',');
            fixed(&mut s, seen as f64 / n, 8);
            s.push('\n');
        }
    }
    Some(s)
}

/// trace-agents.csv from a result that kept the trace; `None` when nothing was traced.
pub fn agents_csv(res: &RunResult, sc: &Scenario) -> Option<String> {
    if res.agent_trace.is_empty() {
        return None;
    }
    let mut s = String::from(AGENTS_HEADER);
    for r in &res.agent_trace {
        agent_row(&mut s, sc, r);
    }
    Some(s)
}

/// Each flow's `,name,group,class,` for its rows of flows.csv, made once.
pub fn flow_labels(sc: &Scenario) -> Vec<String> {
    sc.flows.iter().map(|f| format!(",{},{},{},", f.name, f.group, f.class())).collect()
}

/// The rows of flows.csv for one bin, from `t0` to `t1` ns, one per flow (scenario order), with
/// the columns of `series` (the scenario's `monitor.series`) after the window: each empty for a
/// flow that does not report it.
pub fn flows_bin(s: &mut String, labels: &[String], series: &[SeriesInfo], t0: u64, t1: u64, rows: &[BinRow]) {
    let width = (t1 - t0) as f64 / 1e9;
    let rate = |bytes: u64| if width > 0.0 { bytes as f64 * 8.0 / width } else { 0.0 };
    for (b, names) in rows.iter().zip(labels) {
        let delay = if b.delay_n > 0 { b.delay_sum_s / b.delay_n as f64 } else { f64::NAN };
        secs(s, t0);
        s.push(',');
        secs(s, t1);
        s.push_str(names);
        uint(s, b.sent_pkts);
        s.push(',');
        uint(s, b.recv_pkts);
        s.push(',');
        uint(s, b.dropped_pkts);
        s.push(',');
        fixed(s, rate(b.distinct_bytes), 1);
        s.push(',');
        fixed(s, rate(b.goodput_bytes), 1);
        s.push(',');
        fixed(s, delay, 6);
        s.push(',');
        fixed(s, b.cwnd_pkts as f64, 3);
        for x in series {
            s.push(',');
            if let Some(v) = b.series_value(x.name) {
                fixed(s, v, x.decimals);
            }
        }
        s.push('\n');
    }
}

/// The rows of classes.csv for one bin: per traffic class (`classes`, in the summary's order),
/// the flows active in the bin, their throughput and Jain's fairness index of their throughputs
/// in the bin (RFC 5166 §2.3; empty when none delivered anything).
pub fn classes_bin(s: &mut String, sc: &Scenario, classes: &[&str], t0: u64, t1: u64, rows: &[BinRow]) {
    let width = (t1 - t0) as f64 / 1e9;
    let mut rates = vec![];
    for class in classes {
        rates.clear();
        let mut bytes = 0u64;
        for (f, b) in sc.flows.iter().zip(rows) {
            // A flow without `stop` runs to the end, which is after t0 whether or not the run
            // was interrupted.
            let stop = f.stop.map_or(u64::MAX, |t| t.0);
            if f.class() != *class || f.start.0 >= t1 || stop <= t0 {
                continue;
            }
            bytes += b.distinct_bytes;
            rates.push(if width > 0.0 { b.distinct_bytes as f64 * 8.0 / width } else { 0.0 });
        }
        secs(s, t0);
        s.push(',');
        secs(s, t1);
        s.push(',');
        s.push_str(class);
        s.push(',');
        uint(s, rates.len() as u64);
        s.push(',');
        fixed(s, if width > 0.0 { bytes as f64 * 8.0 / width } else { 0.0 }, 1);
        s.push(',');
        if let Some(j) = fairway_model::metrics::jain(&rates) {
            fixed(s, j, 6);
        }
        s.push('\n');
    }
}

/// Bin `k`'s span in ns: from k x bin to (k + 1) x bin, the last one cut at the run's end.
fn span(res: &RunResult, k: usize) -> (u64, u64) {
    let end = (res.summary.duration_s * 1e9).round() as u64;
    let bin = res.bin.0;
    (k as u64 * bin, ((k as u64 + 1) * bin).min(end))
}

/// The rows of every flow in bin `k`.
fn bin_rows(res: &RunResult, k: usize) -> Vec<BinRow> {
    res.flow_bins.iter().map(|b| b.get(k).cloned().unwrap_or_default()).collect()
}

/// flows.csv: per bin, per flow: bin_start_s, bin_end_s, flow, group, class, sent_pkts,
/// recv_pkts, dropped_pkts, throughput_bps, goodput_bps, mean_delay_s, cwnd_pkts (TCP), then the
/// protocols' series (the scenario's `monitor.series`). In time order, as a run writes it while it
/// runs.
pub fn flows_csv(res: &RunResult, sc: &Scenario) -> String {
    // About 80 bytes a row; reserved, so that a file of megabytes is not copied as it grows.
    let rows: usize = res.flow_bins.iter().map(Vec::len).sum();
    let mut s = String::with_capacity(128 + rows * 96);
    s.push_str(&flows_header(&sc.monitor.series));
    let labels = flow_labels(sc);
    for k in 0..res.flow_bins.iter().map(Vec::len).max().unwrap_or(0) {
        let (t0, t1) = span(res, k);
        flows_bin(&mut s, &labels, &sc.monitor.series, t0, t1, &bin_rows(res, k));
    }
    s
}

/// classes.csv: per bin, per traffic class (see [`classes_bin`]).
pub fn classes_csv(res: &RunResult, sc: &Scenario) -> String {
    let mut s = String::from(CLASSES_HEADER);
    let classes: Vec<&str> = res.summary.classes.iter().map(|c| c.class).collect();
    for k in 0..res.flow_bins.iter().map(Vec::len).max().unwrap_or(0) {
        let (t0, t1) = span(res, k);
        classes_bin(&mut s, sc, &classes, t0, t1, &bin_rows(res, k));
    }
    s
}

/// One row of queue.csv: a sample of link `name`.
pub fn queue_row(s: &mut String, name: &str, r: &QueueRow) {
    secs(s, (r.t_s * 1e9).round() as u64);
    s.push(',');
    s.push_str(name);
    for n in [r.queue_pkts as u64, r.queue_bytes] {
        s.push(',');
        uint(s, n);
    }
    s.push(',');
    fixed(s, r.avg_queue_pkts, 4);
    for n in [
        r.arrivals_pkts,
        r.departures_pkts,
        r.departures_bytes,
        r.drops_pkts,
        r.early_drops_pkts,
        r.forced_drops_pkts,
        r.overflow_drops_pkts,
        r.threshold_drops_pkts,
        r.sojourn_drops_pkts,
        r.flow_drops_pkts,
        r.marks_pkts,
    ] {
        s.push(',');
        uint(s, n);
    }
    s.push('\n');
}

/// queue.csv: per sample time, per monitored link: time_s, link, queue_pkts, queue_bytes,
/// avg_queue_pkts, and cumulative arrivals, departures (packets and bytes), drops (all, early,
/// forced, overflow, threshold, sojourn, flow) and marks. In time order, as a run writes it while it runs.
pub fn queue_csv(res: &RunResult, sc: &Scenario) -> String {
    let mut s = String::from(QUEUE_HEADER);
    let names: Vec<String> = res.queue_samples.iter().map(|(l, _)| sc.link_name(*l)).collect();
    let n = res.queue_samples.iter().map(|(_, rows)| rows.len()).max().unwrap_or(0);
    for i in 0..n {
        for ((_, rows), name) in res.queue_samples.iter().zip(&names) {
            if let Some(r) = rows.get(i) {
                queue_row(&mut s, name, r);
            }
        }
    }
    s
}

/// The series that `res` holds change logs of, each once, in the order of their first log.
pub fn logged_series(res: &RunResult) -> Vec<SeriesInfo> {
    let mut v: Vec<SeriesInfo> = vec![];
    for l in &res.series_logs {
        if !v.iter().any(|s| s.name == l.series.name) {
            v.push(l.series);
        }
    }
    v
}

/// Each logged series' file, (file name, text): `<name>.csv`, every change of the series in
/// each flow that logs it (time_s, flow, <name>), flow after flow.
pub fn series_logs_csv(res: &RunResult, sc: &Scenario) -> Vec<(String, String)> {
    logged_series(res)
        .into_iter()
        .map(|x| {
            let mut s = series_log_header(&x);
            for l in res.logs_named(x.name) {
                series_log_rows(&mut s, &x, &sc.flows[l.flow].name, &l.points);
            }
            (series_log_file(&x), s)
        })
        .collect()
}

/// The file a series' change log goes into: `<name>.csv`.
pub fn series_log_file(x: &SeriesInfo) -> String {
    format!("{}.csv", super::file_safe(x.name))
}

/// A series' change log file's first line: time_s, flow, <name>.
pub fn series_log_header(x: &SeriesInfo) -> String {
    format!("time_s,flow,{}\n", x.name)
}

/// The rows of a series' change log file for one flow's log: (seconds, value).
pub fn series_log_rows(s: &mut String, x: &SeriesInfo, flow: &str, log: &[(f64, f64)]) {
    for &(t, v) in log {
        let _ = write!(s, "{t:.6},{flow},");
        fixed(s, v, x.decimals);
        s.push('\n');
    }
}

/// nodes.csv: per wireless node, where it stood and what its MAC and link layer counted
/// (`None` without wireless nodes).
pub fn nodes_csv(res: &RunResult) -> Option<String> {
    let w = res.summary.wireless.as_ref()?;
    let mut s = String::with_capacity(256 + w.nodes.len() * 128);
    s.push_str("node,x_m,y_m,data_frames,data_retries,rts_frames,cts_frames,ack_frames,collisions,retry_drops,ifq_drops,busy_drops,duplicates,rts_failures,ack_failures,arp_drops,no_route_drops,received,ifq_pkts_end\n");
    for n in &w.nodes {
        s.push_str(&n.name);
        s.push(',');
        fixed(&mut s, n.x_m, 3);
        s.push(',');
        fixed(&mut s, n.y_m, 3);
        let m = &n.mac;
        for v in [
            m.data_frames,
            m.data_retries,
            m.rts_frames,
            m.cts_frames,
            m.ack_frames,
            m.collisions,
            m.retry_drops,
            m.ifq_drops,
            m.busy_drops,
            m.duplicates,
            m.rts_failures,
            m.ack_failures,
            n.net.arp_drops,
            n.net.no_route_drops,
            n.net.received,
            n.ifq_pkts_end,
        ] {
            s.push(',');
            uint(&mut s, v);
        }
        s.push('\n');
    }
    Some(s)
}

/// Every link's totals, one row per simplex link (summary.json lists only the interesting ones).
pub fn links_csv(res: &RunResult) -> String {
    // About 120 bytes a row (reserved as in flows_csv).
    let mut s = String::with_capacity(256 + res.all_links.len() * 160);
    s.push_str(
        "link,queue,rate_bps,delay_s,monitored,arrivals_pkts,departures_pkts,drops_pkts,early_drops_pkts,forced_drops_pkts,overflow_drops_pkts,threshold_drops_pkts,sojourn_drops_pkts,flow_drops_pkts,marks_pkts,mean_sojourn_s,max_sojourn_s,lost_pkts,mean_queue_pkts,mean_avg_queue_pkts,utilization\n",
    );
    for l in &res.all_links {
        s.push_str(&l.name);
        s.push(',');
        s.push_str(l.queue);
        s.push(',');
        uint(&mut s, l.rate_bps);
        s.push(',');
        fixed(&mut s, l.delay_s, 9);
        s.push_str(if l.monitored { ",true," } else { ",false," });
        for n in [
            l.arrivals_pkts,
            l.departures_pkts,
            l.drops_pkts,
            l.early_drops_pkts,
            l.forced_drops_pkts,
            l.overflow_drops_pkts,
            l.threshold_drops_pkts,
            l.sojourn_drops_pkts,
            l.flow_drops_pkts,
            l.marks_pkts,
        ] {
            uint(&mut s, n);
            s.push(',');
        }
        // Seconds to the nanosecond.
        fixed(&mut s, l.mean_sojourn_s.unwrap_or(f64::NAN), 9);
        s.push(',');
        fixed(&mut s, l.max_sojourn_s, 9);
        s.push(',');
        uint(&mut s, l.lost_pkts);
        s.push(',');
        fixed(&mut s, l.mean_queue_pkts, 4);
        s.push(',');
        fixed(&mut s, l.mean_avg_queue_pkts.unwrap_or(f64::NAN), 4);
        s.push(',');
        fixed(&mut s, l.utilization, 6);
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_point_formatting_matches_the_usual_rounding() {
        let f = |v: f64, d: u32| {
            let mut s = String::new();
            fixed(&mut s, v, d);
            s
        };
        assert_eq!(f(1234.56, 1), "1234.6");
        assert_eq!(f(0.0, 1), "0.0");
        assert_eq!(f(0.0234567, 6), "0.023457");
        assert_eq!(f(-2.5e-3, 4), "-0.0025");
        assert_eq!(f(7.0, 0), "7");
        assert_eq!(f(f64::NAN, 3), "");
        assert_eq!(f(f64::INFINITY, 3), "");
        assert_eq!(f(-0.00001, 2), "0.00");
        assert_eq!(f(3e30, 1), format!("{:.1}", 3e30));
        let t = |ns: u64| {
            let mut s = String::new();
            secs(&mut s, ns);
            s
        };
        assert_eq!(t(0), "0.000000");
        assert_eq!(t(100_000_000), "0.100000");
        assert_eq!(t(50_000_000_000), "50.000000");
        assert_eq!(t(1_499), "0.000001");
        let u = |n: u64| {
            let mut s = String::new();
            uint(&mut s, n);
            s
        };
        assert_eq!(
            (u(0), u(7), u(1_000_000), u(u64::MAX)),
            ("0".into(), "7".into(), "1000000".into(), u64::MAX.to_string())
        );
    }
}
