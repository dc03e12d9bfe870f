//! flows.csv and queue.csv: long format (one row per flow or link per time step), so
//! `pandas.read_csv` gives a frame that pivots or groups by name directly. Empty fields are
//! missing values.

use std::fmt::Write;

use crate::results::RunResult;
use crate::scenario::Scenario;

fn opt(v: f64, decimals: usize) -> String {
    if v.is_finite() {
        format!("{v:.decimals$}")
    } else {
        String::new()
    }
}

/// Per flow and bin: bin_start_s, bin_end_s, flow, group, class, sent_pkts, recv_pkts,
/// dropped_pkts, throughput_bps, goodput_bps, mean_delay_s, cwnd_pkts (TCP), scale (MApp).
pub fn flows_csv(res: &RunResult, sc: &Scenario) -> String {
    let mut s = String::from(
        "bin_start_s,bin_end_s,flow,group,class,sent_pkts,recv_pkts,dropped_pkts,throughput_bps,goodput_bps,mean_delay_s,cwnd_pkts,scale\n",
    );
    let bin = res.bin.as_secs_f64();
    let end = res.summary.duration_s;
    for (fi, bins) in res.flow_bins.iter().enumerate() {
        let f = &sc.flows[fi];
        for (k, b) in bins.iter().enumerate() {
            let t0 = k as f64 * bin;
            let t1 = ((k + 1) as f64 * bin).min(end);
            let width = t1 - t0;
            let rate = |bytes: u64| if width > 0.0 { bytes as f64 * 8.0 / width } else { 0.0 };
            let delay = if b.delay_n > 0 { b.delay_sum_s / b.delay_n as f64 } else { f64::NAN };
            let _ = writeln!(
                s,
                "{:.6},{:.6},{},{},{},{},{},{},{:.1},{:.1},{},{},{}",
                t0,
                t1,
                f.name,
                f.group,
                f.class(),
                b.sent_pkts,
                b.recv_pkts,
                b.dropped_pkts,
                rate(b.distinct_bytes),
                rate(b.goodput_bytes),
                opt(delay, 6),
                opt(b.cwnd_pkts as f64, 3),
                opt(b.scale as f64, 0),
            );
        }
    }
    s
}

/// Per monitored link and sample: time_s, link, queue_pkts, queue_bytes, avg_queue_pkts, and
/// cumulative arrivals, departures (packets and bytes), drops (all, early, forced, overflow) and
/// marks.
pub fn queue_csv(res: &RunResult, sc: &Scenario) -> String {
    let mut s = String::from(
        "time_s,link,queue_pkts,queue_bytes,avg_queue_pkts,arrivals_pkts,departures_pkts,departures_bytes,drops_pkts,early_drops_pkts,forced_drops_pkts,overflow_drops_pkts,marks_pkts\n",
    );
    for (l, rows) in &res.queue_samples {
        let name = sc.link_name(*l);
        for r in rows {
            let _ = writeln!(
                s,
                "{:.6},{},{},{},{},{},{},{},{},{},{},{},{}",
                r.t_s,
                name,
                r.queue_pkts,
                r.queue_bytes,
                opt(r.avg_queue_pkts, 4),
                r.arrivals_pkts,
                r.departures_pkts,
                r.departures_bytes,
                r.drops_pkts,
                r.early_drops_pkts,
                r.forced_drops_pkts,
                r.overflow_drops_pkts,
                r.marks_pkts
            );
        }
    }
    s
}

/// Every change of a MApp sender's scale: time_s, flow, scale (the exact sawtooth).
pub fn scale_csv(res: &RunResult, sc: &Scenario) -> String {
    let mut s = String::from("time_s,flow,scale\n");
    for (f, log) in &res.scale_logs {
        for (t, v) in log {
            let _ = writeln!(s, "{t:.6},{},{v}", sc.flows[*f].name);
        }
    }
    s
}
