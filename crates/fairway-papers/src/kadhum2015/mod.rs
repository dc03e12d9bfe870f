//! kadhum2015 (Kadhum & Hassanein 2015): MApp over UDPm against CBR over plain UDP, each beside a
//! TCP NewReno FTP through a 2 Mb/s RED bottleneck. Each file of scenarios/kadhum2015/ is one
//! reading of the set-up, run over several seeds; the paper's numbers for its two runs are
//! checked claim by claim in [`claims`] against the reading its own numbers support, and
//! [`report`] shows every reading beside them.

pub mod claims;
mod report;

use std::path::PathBuf;

use super::{run_grid, ReproduceError, ReproduceOptions, Runs};
use fairway_model::results::RunResult;
use fairway_report::stats::Estimate;
use fairway_scenario::protocols::MappSummary;

pub const PAPER: &str = "kadhum2015";

/// The files, each a reading: (stem, media, what it assumes). The first two are the reading the
/// paper's numbers support (the scenario files say why); the claims use them.
pub const RUNS: [(&str, Media, &str); 9] = [
    ("mapp-ftp", Media::Mapp, "RED in bytes (ns-2's default), FTP alone"),
    ("cbr-ftp", Media::Cbr, "RED in bytes, FTP alone, CBR 3 Mb/s (its arrivals)"),
    ("mapp-ftp-red-packets", Media::Mapp, "RED in packets (§4.3.1's 20 packets)"),
    ("cbr-ftp-red-packets", Media::Cbr, "RED in packets, CBR 3 Mb/s"),
    ("cbr-ftp-0.8mb", Media::Cbr, "CBR 0.8 Mb/s (Table 1: 500 B every 5 ms)"),
    ("cbr-ftp-1.6mb", Media::Cbr, "CBR 1.6 Mb/s (§4.2)"),
    ("mapp-ftp-web", Media::Mapp, "with §4.2's web sessions"),
    ("cbr-ftp-web", Media::Cbr, "with §4.2's web sessions, CBR 1.6 Mb/s"),
    ("mapp-ftp-appendix-links", Media::Mapp, "the Appendix's access links, 5 Mb/s and 3 ms"),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Media {
    Mapp,
    Cbr,
}

impl Media {
    pub fn flow(self) -> &'static str {
        match self {
            Media::Mapp => "mapp",
            Media::Cbr => "cbr",
        }
    }
}

/// The numbers kadhum2015 §4.3 gives for one of its two runs.
#[derive(Debug, Clone, Copy)]
pub struct Paper {
    /// §4.3.1: "approximately 4 packets ... as compared to 9 packets".
    pub avg_queue_pkts: f64,
    /// §4.3.1: D_q = average x 1000 x 8 / 2 Mb/s.
    pub queue_delay_ms: f64,
    /// §4.3.2: packets that arrived at the bottleneck: all of them in the MApp run (12 000), the
    /// UDP ones in the CBR run (18 400).
    pub arrivals: f64,
    /// §4.3.2: total packets dropped at the gateway (Figs 8 and 9).
    pub drops: f64,
    /// §4.3.2: drops over arrivals, %.
    pub drop_pct: f64,
}

pub const PAPER_MAPP: Paper =
    Paper { avg_queue_pkts: 4.0, queue_delay_ms: 16.0, arrivals: 12_000.0, drops: 350.0, drop_pct: 2.916 };
pub const PAPER_CBR: Paper =
    Paper { avg_queue_pkts: 9.0, queue_delay_ms: 36.0, arrivals: 18_400.0, drops: 6_300.0, drop_pct: 34.239 };

/// What the claims and the report look at, measured on one run.
#[derive(Debug, Clone)]
pub struct Metrics {
    /// Packets offered to r1->r2 (all flows).
    pub arrivals: f64,
    pub drops: f64,
    /// RED's average queue at r1->r2, time-averaged, in packets.
    pub avg_queue: f64,
    /// The actual queue: time-average, and its largest sample (every 10 ms).
    pub mean_queue: f64,
    pub max_queue: f64,
    pub utilization: f64,
    /// The media flow's packets sent (all reach the bottleneck) and lost.
    pub media_sent: f64,
    pub media_dropped: f64,
    pub media_kbps: f64,
    pub tcp_kbps: f64,
    pub web_kbps: f64,
    pub tcp_timeouts: f64,
    /// TCP's packets sent (retransmissions included) and lost.
    pub tcp_sent: f64,
    pub tcp_dropped: f64,
    /// TCP's window reductions (fast retransmits and timeouts) per second.
    pub tcp_cuts_per_s: f64,
    /// The standard deviation of TCP's window over the 100 ms bins from 2 s on.
    pub tcp_cwnd_sd: f64,
    /// TCP's largest window before the media source starts (first second) and from 2 s on.
    pub tcp_cwnd_max_before: f64,
    pub tcp_cwnd_max_after: f64,
    /// Share of the 100 ms bins from 2 s on in which TCP delivers under 5% of the link's rate.
    pub tcp_near_zero: f64,
    /// The coefficient of variation of the media flow's throughput over 0.5 s windows from 2 s on.
    pub media_cv: f64,
    pub mean_scale: f64,
}

/// Measures one run.
pub fn measure(media: Media, r: &RunResult) -> Metrics {
    let s = &r.summary;
    let link = s.links.iter().find(|l| l.name == "r1->r2").expect("the scenarios have r1->r2");
    let fi = |n: &str| s.flows.iter().position(|f| f.name == n);
    let (m, t) = (fi(media.flow()).expect("the media flow"), fi("ftp").expect("the FTP"));
    let (mf, tf) = (&s.flows[m], &s.flows[t]);
    let bin = r.bin.as_secs_f64();
    let from = (2.0 / bin).round() as usize;
    let tcp_bins = &r.flow_bins[t];
    let cwnd: Vec<f64> = tcp_bins.iter().map(|b| b.cwnd_pkts as f64).collect();
    let max_of = |v: &[f64]| v.iter().copied().filter(|x| x.is_finite()).fold(f64::NAN, f64::max);
    let after = Estimate::of(cwnd.iter().skip(from).copied());
    let near_zero = {
        let rates: Vec<f64> = tcp_bins.iter().skip(from).map(|b| b.distinct_bytes as f64 * 8.0 / bin).collect();
        rates.iter().filter(|x| **x < 0.05 * 2e6).count() as f64 / rates.len().max(1) as f64
    };
    let per = (0.5 / bin).round().max(1.0) as usize;
    let windows: Vec<f64> = r.flow_bins[m][from.min(r.flow_bins[m].len())..]
        .chunks(per)
        .filter(|c| c.len() == per)
        .map(|c| c.iter().map(|b| b.distinct_bytes as f64).sum::<f64>())
        .collect();
    let w = Estimate::of(windows);
    let max_queue = r
        .queue_samples
        .first()
        .map_or(f64::NAN, |(_, rows)| rows.iter().map(|x| x.queue_pkts as f64).fold(0.0, f64::max));
    Metrics {
        arrivals: link.arrivals_pkts as f64,
        drops: link.drops_pkts as f64,
        avg_queue: link.mean_avg_queue_pkts.unwrap_or(f64::NAN),
        mean_queue: link.mean_queue_pkts,
        max_queue,
        utilization: link.utilization,
        media_sent: mf.sent_pkts as f64,
        media_dropped: mf.dropped_pkts as f64,
        media_kbps: mf.throughput_bps / 1e3,
        tcp_kbps: tf.throughput_bps / 1e3,
        web_kbps: s.flows.iter().find(|f| f.name == "web").map_or(0.0, |f| f.throughput_bps / 1e3),
        tcp_timeouts: tf.timeouts as f64,
        tcp_sent: tf.sent_pkts as f64,
        tcp_dropped: tf.dropped_pkts as f64,
        tcp_cuts_per_s: (tf.fast_retransmits + tf.timeouts) as f64 / s.duration_s,
        tcp_cwnd_sd: after.sd,
        tcp_cwnd_max_before: max_of(&cwnd[..(1.0 / bin).round() as usize]),
        tcp_cwnd_max_after: max_of(&cwnd[from.min(cwnd.len())..]),
        tcp_near_zero: near_zero,
        media_cv: w.sd / w.mean,
        mean_scale: mf.report::<MappSummary>().map_or(f64::NAN, |x| x.mean_scale),
    }
}

/// One reading's runs and their metrics, per seed.
pub struct Reading {
    pub stem: &'static str,
    pub media: Media,
    pub what: &'static str,
    pub runs: Runs,
    pub metrics: Vec<Metrics>,
}

impl Reading {
    /// The estimate over seeds of a metric.
    pub fn est(&self, f: impl Fn(&Metrics) -> f64) -> Estimate {
        Estimate::of(self.metrics.iter().map(f))
    }

    /// The first seed's whole result (for the time-series figures).
    pub fn first(&self) -> &RunResult {
        self.runs.results[0].as_ref().expect("kadhum2015 keeps its runs")
    }
}

pub struct Results {
    /// In [`RUNS`] order.
    pub readings: Vec<Reading>,
}

impl Results {
    pub fn get(&self, stem: &str) -> &Reading {
        self.readings.iter().find(|r| r.stem == stem).expect("a reading of RUNS")
    }
}

pub fn run_all(opts: &ReproduceOptions, progress: &mut dyn FnMut(&str)) -> Result<Results, ReproduceError> {
    let mut readings = vec![];
    for (stem, media, what) in RUNS {
        let runs = run_grid(opts, PAPER, stem, true, progress)?;
        let metrics = runs.results.iter().flatten().map(|r| measure(media, r)).collect();
        readings.push(Reading { stem, media, what, runs, metrics });
    }
    Ok(Results { readings })
}

pub fn reproduce(opts: &ReproduceOptions, progress: &mut dyn FnMut(&str)) -> Result<PathBuf, ReproduceError> {
    let res = run_all(opts, progress)?;
    report::write_all(&res, opts)
}
