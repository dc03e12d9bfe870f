//! flows.csv and queue.csv: long format (one row per flow or link per time step), so
//! `pandas.read_csv` gives a frame that pivots or groups by name directly. Empty fields are
//! missing values.

use std::fmt::Write;

use fairway_engine::decimal::push_u64 as uint;
use fairway_engine::results::RunResult;
use fairway_engine::scenario::Scenario;

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

/// Per flow and bin: bin_start_s, bin_end_s, flow, group, class, sent_pkts, recv_pkts,
/// dropped_pkts, throughput_bps, goodput_bps, mean_delay_s, cwnd_pkts (TCP), scale (MApp).
pub fn flows_csv(res: &RunResult, sc: &Scenario) -> String {
    // About 80 bytes a row; reserved, so that a file of megabytes is not copied as it grows.
    let rows: usize = res.flow_bins.iter().map(Vec::len).sum();
    let mut s = String::with_capacity(128 + rows * 96);
    s.push_str(
        "bin_start_s,bin_end_s,flow,group,class,sent_pkts,recv_pkts,dropped_pkts,throughput_bps,goodput_bps,mean_delay_s,cwnd_pkts,scale\n",
    );
    let bin = res.bin.0;
    let end = (res.summary.duration_s * 1e9).round() as u64;
    for (fi, bins) in res.flow_bins.iter().enumerate() {
        let f = &sc.flows[fi];
        let names = format!(",{},{},{},", f.name, f.group, f.class());
        for (k, b) in bins.iter().enumerate() {
            let t0 = k as u64 * bin;
            let t1 = ((k as u64 + 1) * bin).min(end);
            let width = (t1 - t0) as f64 / 1e9;
            let rate = |bytes: u64| if width > 0.0 { bytes as f64 * 8.0 / width } else { 0.0 };
            let delay = if b.delay_n > 0 { b.delay_sum_s / b.delay_n as f64 } else { f64::NAN };
            secs(&mut s, t0);
            s.push(',');
            secs(&mut s, t1);
            s.push_str(&names);
            uint(&mut s, b.sent_pkts);
            s.push(',');
            uint(&mut s, b.recv_pkts);
            s.push(',');
            uint(&mut s, b.dropped_pkts);
            s.push(',');
            fixed(&mut s, rate(b.distinct_bytes), 1);
            s.push(',');
            fixed(&mut s, rate(b.goodput_bytes), 1);
            s.push(',');
            fixed(&mut s, delay, 6);
            s.push(',');
            fixed(&mut s, b.cwnd_pkts as f64, 3);
            s.push(',');
            fixed(&mut s, b.scale as f64, 0);
            s.push('\n');
        }
    }
    s
}

/// Per traffic class and bin: bin_start_s, bin_end_s, class, flows (those active in the bin),
/// throughput_bps (their distinct bytes), jain_index (Jain's fairness index of their throughputs
/// in the bin, RFC 5166 §2.3; empty when none delivered anything).
pub fn classes_csv(res: &RunResult, sc: &Scenario) -> String {
    let mut s = String::from("bin_start_s,bin_end_s,class,flows,throughput_bps,jain_index\n");
    let bin = res.bin.0;
    let end = (res.summary.duration_s * 1e9).round() as u64;
    let nbins = res.flow_bins.iter().map(Vec::len).max().unwrap_or(0);
    let classes: Vec<&str> = res.summary.classes.iter().map(|c| c.class).collect();
    let mut rates = vec![];
    for k in 0..nbins {
        let t0 = k as u64 * bin;
        let t1 = ((k as u64 + 1) * bin).min(end);
        let width = (t1 - t0) as f64 / 1e9;
        for class in &classes {
            rates.clear();
            let mut bytes = 0u64;
            for (fi, bins) in res.flow_bins.iter().enumerate() {
                let f = &sc.flows[fi];
                let stop = f.stop.map_or(end, |t| t.0);
                if f.class() != *class || f.start.0 >= t1 || stop <= t0 {
                    continue;
                }
                let b = bins.get(k).map_or(0, |b| b.distinct_bytes);
                bytes += b;
                rates.push(if width > 0.0 { b as f64 * 8.0 / width } else { 0.0 });
            }
            secs(&mut s, t0);
            s.push(',');
            secs(&mut s, t1);
            s.push(',');
            s.push_str(class);
            s.push(',');
            uint(&mut s, rates.len() as u64);
            s.push(',');
            fixed(&mut s, if width > 0.0 { bytes as f64 * 8.0 / width } else { 0.0 }, 1);
            s.push(',');
            if let Some(j) = fairway_engine::metrics::jain(&rates) {
                fixed(&mut s, j, 6);
            }
            s.push('\n');
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
            secs(&mut s, (r.t_s * 1e9).round() as u64);
            s.push(',');
            s.push_str(&name);
            for n in [r.queue_pkts as u64, r.queue_bytes] {
                s.push(',');
                uint(&mut s, n);
            }
            s.push(',');
            fixed(&mut s, r.avg_queue_pkts, 4);
            for n in [
                r.arrivals_pkts,
                r.departures_pkts,
                r.departures_bytes,
                r.drops_pkts,
                r.early_drops_pkts,
                r.forced_drops_pkts,
                r.overflow_drops_pkts,
                r.marks_pkts,
            ] {
                s.push(',');
                uint(&mut s, n);
            }
            s.push('\n');
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

/// Every link's totals, one row per simplex link (summary.json lists only the interesting ones).
pub fn links_csv(res: &RunResult) -> String {
    // About 120 bytes a row (reserved as in flows_csv).
    let mut s = String::with_capacity(256 + res.all_links.len() * 160);
    s.push_str(
        "link,queue,rate_bps,delay_s,monitored,arrivals_pkts,departures_pkts,drops_pkts,early_drops_pkts,forced_drops_pkts,overflow_drops_pkts,marks_pkts,lost_pkts,mean_queue_pkts,mean_avg_queue_pkts,utilization\n",
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
            l.marks_pkts,
            l.lost_pkts,
        ] {
            uint(&mut s, n);
            s.push(',');
        }
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
