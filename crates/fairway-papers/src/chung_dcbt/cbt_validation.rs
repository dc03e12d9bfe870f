//! chung-dcbt §4: the simulation of Parris et al.'s CBT experiment (Figures 4-6), 240 TCP flows, 6
//! ProShare flows and a UDP blast from 60 to 110 s through RED and through CBT. What §4 states:
//! CBT's thresholds leave TCP about 8.7 Mb/s (1088 KB/s) beside ProShare and 7.9 Mb/s (988 KB/s)
//! once the blast joins, the blast held to about 0.8 Mb/s, and ProShare's threshold not binding.

use fairway_model::results::RunResult;

use super::flow_rates;

/// The queues of Figure 6.
pub const STEMS: [&str; 2] = ["fig6-red", "fig6-cbt"];

/// The blast's schedule (the scenario files' reading of Figure 5).
pub const BLAST: (f64, f64) = (60.0, 110.0);

/// The periods measured: ProShare alone (after TCP's start-up), the blast (after its first 5
/// s), and after it (from 5 s after it stops).
pub const PERIODS: [(f64, f64); 3] = [(10.0, 60.0), (65.0, 110.0), (115.0, 150.0)];

/// One run's measures.
#[derive(Debug, Clone, PartialEq)]
pub struct Fig6Measure {
    /// Per period, the aggregate throughput (b/s, bytes received with their headers) of TCP,
    /// of the ProShare flows and of the blast.
    pub tcp_bps: [f64; 3],
    pub proshare_bps: [f64; 3],
    pub blast_bps: [f64; 3],
    /// TCP's aggregate goodput (payload) per period.
    pub tcp_goodput_bps: [f64; 3],
    /// Threshold drops at the bottleneck before the blast starts: the tagged class's alone.
    pub tagged_threshold_drops: u64,
    /// TCP's aggregate throughput in each second of the run (Figure 6's curve).
    pub tcp_series_bps: Vec<f64>,
}

fn total(r: &RunResult, app: &str, a: f64, b: f64) -> f64 {
    flow_rates(r, a, b).iter().filter(|(k, _)| *k == app).map(|(_, x)| x).sum()
}

impl Fig6Measure {
    pub fn of(r: &RunResult) -> Fig6Measure {
        let tcp_goodput = |a: f64, b: f64| -> f64 {
            let bin = r.bin.as_secs_f64();
            r.summary
                .flows
                .iter()
                .zip(&r.flow_bins)
                .filter(|(f, _)| f.kind == "ftp")
                .flat_map(|(_, bins)| bins.iter().enumerate())
                .filter(|(k, _)| {
                    let t = *k as f64 * bin;
                    t >= a - 1e-9 && t < b - 1e-9
                })
                .map(|(_, row)| row.goodput_bytes as f64 * 8.0)
                .sum::<f64>()
                / (b - a)
        };
        let secs = (r.summary.duration_s.round() as usize).max(1);
        let threshold_drops_at = |t: f64| -> u64 {
            r.queue_samples
                .iter()
                .flat_map(|(_, rows)| rows.iter())
                .filter(|q| q.t_s <= t + 1e-9)
                .map(|q| q.threshold_drops_pkts)
                .max()
                .unwrap_or(0)
        };
        Fig6Measure {
            tcp_bps: PERIODS.map(|(a, b)| total(r, "ftp", a, b)),
            proshare_bps: PERIODS.map(|(a, b)| total(r, "video", a, b)),
            blast_bps: PERIODS.map(|(a, b)| total(r, "cbr", a, b)),
            tcp_goodput_bps: PERIODS.map(|(a, b)| tcp_goodput(a, b)),
            tagged_threshold_drops: threshold_drops_at(BLAST.0),
            tcp_series_bps: (0..secs).map(|s| total(r, "ftp", s as f64, s as f64 + 1.0)).collect(),
        }
    }
}
