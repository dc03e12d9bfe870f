//! Seed 000 (Kadhum & Hassanein 2015): MApp over UDPm vs CBR over plain UDP, each beside a TCP
//! NewReno FTP through a 2 Mb/s RED bottleneck, in two readings of the paper's traffic (the FTP
//! alone, as in its Appendix script; the FTP plus the web sessions of its §4.2). The report puts
//! the numbers of §4.3 beside fairway's and draws the counterparts of Figs 6 to 16.

use std::fmt::Write;
use std::path::PathBuf;

use super::{plot, rate_of, run_one, write, Line, ReproduceError, ReproduceOptions};
use crate::output::svg::{stack, Style};
use crate::results::RunResult;
use crate::scenario::Scenario;

/// The four runs: (file stem in scenarios/kadhum2015/, media, reading).
pub const RUNS: [(&str, Media, Reading); 4] = [
    ("mapp-ftp", Media::Mapp, Reading::FtpAlone),
    ("cbr-ftp", Media::Cbr, Reading::FtpAlone),
    ("mapp-ftp-web", Media::Mapp, Reading::FtpAndWeb),
    ("cbr-ftp-web", Media::Cbr, Reading::FtpAndWeb),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Media {
    Mapp,
    Cbr,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// The Appendix script: FTP and the media source only.
    FtpAlone,
    /// §4.2: FTP, media source and Poisson/Pareto web sessions.
    FtpAndWeb,
}

impl Media {
    pub fn label(self) -> &'static str {
        match self {
            Media::Mapp => "MApp/UDPm",
            Media::Cbr => "CBR/UDP",
        }
    }
    fn flow(self) -> &'static str {
        match self {
            Media::Mapp => "mapp",
            Media::Cbr => "cbr",
        }
    }
}

impl Reading {
    pub fn label(self) -> &'static str {
        match self {
            Reading::FtpAlone => "FTP alone",
            Reading::FtpAndWeb => "FTP + web",
        }
    }
}

/// The numbers seed 000 §4.3 gives for its two runs.
#[derive(Debug, Clone, Copy)]
pub struct Paper {
    /// §4.3.1: "approximately 4 packets ... as compared to 9 packets".
    pub avg_queue_pkts: f64,
    /// §4.3.1: D_q = avg x 1000 x 8 / 2 Mb/s.
    pub queue_delay_ms: f64,
    /// §4.3.2: "The total number of packets that arrived successfully at the route is 12,000",
    /// and 18 400 for standard UDP (Figs 11 and 12).
    pub arrivals: u64,
    /// §4.3.2: 350 and 6300 packets dropped at the gateway (Figs 8 and 9).
    pub drops: u64,
    /// §4.3.2: 2.916% and 34.239%.
    pub drop_pct: f64,
}

pub const PAPER_MAPP: Paper =
    Paper { avg_queue_pkts: 4.0, queue_delay_ms: 16.0, arrivals: 12_000, drops: 350, drop_pct: 2.916 };
pub const PAPER_CBR: Paper =
    Paper { avg_queue_pkts: 9.0, queue_delay_ms: 36.0, arrivals: 18_400, drops: 6_300, drop_pct: 34.239 };

/// What the report compares, measured on one run.
#[derive(Debug, Clone)]
pub struct Metrics {
    pub media: Media,
    pub reading: Reading,
    /// RED's average queue at r1->r2, time-averaged, in packets.
    pub avg_queue_pkts: f64,
    /// The actual queue, time-averaged.
    pub mean_queue_pkts: f64,
    /// The paper's formula applied to fairway's average: avg x 1000 B x 8 / 2 Mb/s.
    pub queue_delay_ms: f64,
    pub arrivals: u64,
    pub drops: u64,
    pub drop_pct: f64,
    pub tcp_bps: f64,
    pub media_bps: f64,
    pub web_bps: Option<f64>,
    /// Fraction of the media flow's packets dropped.
    pub media_loss_pct: f64,
    pub utilization: f64,
    pub mean_scale: Option<f64>,
}

/// Measures one run of the reproduction.
pub fn measure(media: Media, reading: Reading, res: &RunResult) -> Metrics {
    let s = &res.summary;
    let link = s.links.iter().find(|l| l.name == "r1->r2").expect("the scenarios have r1->r2");
    let flow = |n: &str| s.flows.iter().find(|f| f.name == n);
    let m = flow(media.flow()).expect("the media flow");
    let avg = link.mean_avg_queue_pkts.unwrap_or(f64::NAN);
    Metrics {
        media,
        reading,
        avg_queue_pkts: avg,
        mean_queue_pkts: link.mean_queue_pkts,
        queue_delay_ms: avg * 1000.0 * 8.0 / 2e6 * 1e3,
        arrivals: link.arrivals_pkts,
        drops: link.drops_pkts,
        drop_pct: pct(link.drops_pkts, link.arrivals_pkts),
        tcp_bps: flow("ftp").map_or(0.0, |f| f.throughput_bps),
        media_bps: m.throughput_bps,
        web_bps: flow("web").map(|f| f.throughput_bps),
        media_loss_pct: pct(m.dropped_pkts, m.sent_pkts),
        utilization: link.utilization,
        mean_scale: m.mapp.as_ref().map(|x| x.mean_scale),
    }
}

fn pct(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 * 100.0 / b as f64
    }
}

/// The paper's qualitative claims, checked on a pair of runs of one reading.
pub fn claims(mapp: &Metrics, cbr: &Metrics) -> Vec<(String, bool)> {
    let mut v = vec![
        (
            format!("MApp's drop percentage is below CBR's ({:.1}% < {:.1}%)", mapp.drop_pct, cbr.drop_pct),
            mapp.drop_pct < cbr.drop_pct,
        ),
        (
            format!("MApp's average queue is below CBR's ({:.2} < {:.2} packets)", mapp.avg_queue_pkts, cbr.avg_queue_pkts),
            mapp.avg_queue_pkts < cbr.avg_queue_pkts,
        ),
        (
            format!(
                "TCP's throughput beside MApp is well above (at least 1.5 times) its throughput beside CBR ({:.0} vs {:.0} kb/s)",
                mapp.tcp_bps / 1e3,
                cbr.tcp_bps / 1e3
            ),
            mapp.tcp_bps >= 1.5 * cbr.tcp_bps,
        ),
    ];
    if mapp.reading == Reading::FtpAlone {
        let r = mapp.media_bps / mapp.tcp_bps.max(1.0);
        v.push((
            format!(
                "MApp's throughput is within a factor of two of TCP's when they share the link alone (ratio {r:.2})"
            ),
            (0.5..=2.0).contains(&r),
        ));
    }
    v
}

/// Runs the four scenarios and writes the report; returns its path.
pub fn reproduce(opts: &ReproduceOptions, progress: &mut dyn FnMut(&str)) -> Result<PathBuf, ReproduceError> {
    let dir = opts.scenarios.join("kadhum2015");
    let out = &opts.out;
    std::fs::create_dir_all(out).map_err(|e| ReproduceError::Io(out.clone(), e))?;
    let mut runs = vec![];
    for (stem, media, reading) in RUNS {
        progress(stem);
        let (sc, res) = run_one(&dir.join(format!("{stem}.toml")), &out.join(stem), opts.seed)?;
        let m = measure(media, reading, &res);
        runs.push((stem, sc, res, m));
    }
    let mut figures = vec![];
    for reading in [Reading::FtpAlone, Reading::FtpAndWeb] {
        let pair: Vec<&(&str, Scenario, RunResult, Metrics)> = runs.iter().filter(|r| r.3.reading == reading).collect();
        let tag = match reading {
            Reading::FtpAlone => "ftp",
            Reading::FtpAndWeb => "ftp-web",
        };
        for (name, svg, caption) in figures_for(&pair, reading) {
            let file = format!("{name}_{tag}.svg");
            write(&out.join(&file), &svg)?;
            figures.push((reading, file, caption));
        }
    }
    let report = render(&runs.iter().map(|r| (r.0, &r.1, &r.3)).collect::<Vec<_>>(), &figures, opts);
    let path = out.join("report.md");
    write(&path, &report)?;
    Ok(path)
}

type Figure = (String, String, String);

/// The counterparts of the paper's Figs 6-16 for one reading: (file stem, SVG, caption).
fn figures_for(pair: &[&(&str, Scenario, RunResult, Metrics)], reading: Reading) -> Vec<Figure> {
    let find = |m: Media| pair.iter().find(|r| r.3.media == m).expect("both runs");
    let (mapp, cbr) = (find(Media::Mapp), find(Media::Cbr));
    let queue_rows = |r: &RunResult| r.queue_samples.first().map(|(_, rows)| rows.clone()).unwrap_or_default();
    let rl = reading.label();
    let mut figs = vec![];

    // Figs 6 and 7: actual and average queue.
    let q = |r: &RunResult| {
        let rows = queue_rows(r);
        vec![
            Line {
                name: "actual queue".into(),
                pts: rows.iter().map(|x| (x.t_s, x.queue_pkts as f64)).collect(),
                style: Style::Line,
            },
            Line {
                name: "average queue (RED)".into(),
                pts: rows.iter().map(|x| (x.t_s, x.avg_queue_pkts)).collect(),
                style: Style::Line,
            },
        ]
    };
    let (qm, qc) = (q(&mapp.2), q(&cbr.2));
    let (t1, t2) = (
        format!("Fig. 6: queue at r1->r2 with MApp/UDPm ({rl})"),
        format!("Fig. 7: queue at r1->r2 with CBR/UDP ({rl})"),
    );
    figs.push((
        "fig06-07_queue".to_string(),
        stack(&[plot(&t1, "packets", &qm), plot(&t2, "packets", &qc)], 900),
        "Actual and average (RED) queue at the bottleneck (the paper's Figs 6 and 7).".to_string(),
    ));

    // Figs 8 and 9: cumulative drops at the gateway; Fig. 10: per flow.
    let drops = |r: &RunResult, label: &str| Line {
        name: label.to_string(),
        pts: queue_rows(r).iter().map(|x| (x.t_s, x.drops_pkts as f64)).collect(),
        style: Style::Step,
    };
    let d = vec![drops(&mapp.2, "with MApp/UDPm"), drops(&cbr.2, "with CBR/UDP")];
    let t = format!("Figs 8 and 9: total packets dropped at r1->r2 ({rl})");
    figs.push((
        "fig08-09_drops".to_string(),
        plot(&t, "packets", &d).to_svg(),
        "Cumulative drops at the bottleneck.".to_string(),
    ));
    let per_flow = |r: &RunResult, sc: &Scenario| -> Vec<Line> {
        sc.flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let mut acc = 0.0;
                let bin = r.bin.as_secs_f64();
                Line {
                    name: f.name.clone(),
                    pts: r.flow_bins[i]
                        .iter()
                        .enumerate()
                        .map(|(k, b)| {
                            acc += b.dropped_pkts as f64;
                            ((k + 1) as f64 * bin, acc)
                        })
                        .collect(),
                    style: Style::Step,
                }
            })
            .collect()
    };
    let (fm, fc) = (per_flow(&mapp.2, &mapp.1), per_flow(&cbr.2, &cbr.1));
    let (t1, t2) = (
        format!("Fig. 10 counterpart: drops per flow with MApp ({rl})"),
        format!("Fig. 10: drops per flow with CBR ({rl})"),
    );
    figs.push((
        "fig10_flow-drops".to_string(),
        stack(&[plot(&t1, "packets", &fm), plot(&t2, "packets", &fc)], 900),
        "Cumulative drops per flow; the paper's Fig. 10 shows TCP's beside CBR.".to_string(),
    ));

    // Figs 11 and 12: packet arrival rate at the router buffer.
    let arr = |r: &RunResult, label: &str| Line {
        name: label.to_string(),
        pts: rate_of(&queue_rows(r), 0.5, |x| x.arrivals_pkts as f64),
        style: Style::Line,
    };
    let a = vec![arr(&mapp.2, "with MApp/UDPm"), arr(&cbr.2, "with CBR/UDP")];
    let t = format!("Figs 11 and 12: packet arrival rate at r1->r2, 0.5 s windows ({rl})");
    figs.push((
        "fig11-12_arrivals".to_string(),
        plot(&t, "packets/s", &a).to_svg(),
        "Arrivals at the bottleneck queue.".to_string(),
    ));

    // Figs 13 and 14: throughput of each flow.
    let thr = |r: &RunResult, sc: &Scenario| -> Vec<Line> {
        let bin = r.bin.as_secs_f64();
        // Half-second averages: the paper's throughput figures are smoother than 100 ms bins.
        let per = (0.5 / bin).round().max(1.0) as usize;
        sc.flows
            .iter()
            .enumerate()
            .map(|(i, f)| Line {
                name: f.name.clone(),
                pts: r.flow_bins[i]
                    .chunks(per)
                    .enumerate()
                    .map(|(k, c)| {
                        let bytes: u64 = c.iter().map(|b| b.distinct_bytes).sum();
                        (((k + 1) * per) as f64 * bin, bytes as f64 * 8.0 / (c.len() as f64 * bin) / 1e3)
                    })
                    .collect(),
                style: Style::Line,
            })
            .collect()
    };
    let (hm, hc) = (thr(&mapp.2, &mapp.1), thr(&cbr.2, &cbr.1));
    let (t1, t2) =
        (format!("Fig. 13: throughput with MApp/UDPm ({rl})"), format!("Fig. 14: throughput with CBR/UDP ({rl})"));
    figs.push((
        "fig13-14_throughput".to_string(),
        stack(&[plot(&t1, "kb/s", &hm), plot(&t2, "kb/s", &hc)], 900),
        "Delivered throughput per flow, 0.5 s averages.".to_string(),
    ));

    // Figs 15 and 16: bandwidth used at the bottleneck.
    let usage = |r: &RunResult, label: &str| Line {
        name: label.to_string(),
        pts: rate_of(&queue_rows(r), 0.5, |x| x.departures_bytes as f64 * 8.0 / 1e3),
        style: Style::Line,
    };
    let u = vec![usage(&mapp.2, "with MApp/UDPm"), usage(&cbr.2, "with CBR/UDP")];
    let t = format!("Figs 15 and 16: bandwidth used on r1->r2 (2 Mb/s), 0.5 s windows ({rl})");
    figs.push((
        "fig15-16_link-usage".to_string(),
        plot(&t, "kb/s", &u).y_max(2100.0).to_svg(),
        "Bits sent on the bottleneck per second.".to_string(),
    ));

    // MApp's scale (the paper describes it, Figs 2 and 3, but does not plot it).
    if let Some((_, log)) = mapp.2.scale_logs.first() {
        let end = mapp.2.summary.duration_s;
        let mut pts: Vec<(f64, f64)> = log.iter().map(|(t, s)| (*t, *s as f64)).collect();
        if let Some(&(_, v)) = pts.last() {
            pts.push((end, v));
        }
        let l = vec![Line { name: "MApp scale".into(), pts, style: Style::Step }];
        let t = format!("MApp's media scale: halved on congestion, +1 per RTT ({rl})");
        figs.push((
            "scale".to_string(),
            plot(&t, "scale", &l).to_svg(),
            "The sender's scale at every change.".to_string(),
        ));
        let t = format!("MApp's media scale, 20 s to 23 s ({rl})");
        figs.push((
            "scale-zoom".to_string(),
            plot(&t, "scale", &l).x_range(20.0, 23.0).to_svg(),
            "Three seconds of the same: each halving, then +1 per round trip.".to_string(),
        ));
    }
    figs
}

fn delta(fairway: f64, paper: f64) -> String {
    if paper == 0.0 {
        return "-".into();
    }
    format!("{:+.0}%", (fairway / paper - 1.0) * 100.0)
}

fn render(
    runs: &[(&str, &Scenario, &Metrics)],
    figures: &[(Reading, String, String)],
    opts: &ReproduceOptions,
) -> String {
    let mut r = String::new();
    let get =
        |m: Media, rd: Reading| runs.iter().find(|x| x.2.media == m && x.2.reading == rd).expect("all four runs").2;
    let _ = writeln!(r, "# Seed 000 reproduced: Kadhum & Hassanein 2015\n");
    let _ = writeln!(
        r,
        "\"Congestion-aware TCP-friendly system for multimedia transmission based on UDP\": a media-scaling \
application (MApp) over a modified UDP (UDPm), steered by its receiver, against CBR over plain UDP, each \
beside a TCP NewReno FTP through a 2 Mb/s RED bottleneck.\n"
    );
    let seed = opts.seed.map_or("the scenarios' own (1)".to_string(), |s| s.to_string());
    let _ = writeln!(
        r,
        "Made by `fairway reproduce kadhum2015` (fairway {}), seed {seed}. Each run's full results are in the \
folder of the same name beside this report.\n",
        env!("CARGO_PKG_VERSION")
    );
    let _ = writeln!(r, "## The runs\n");
    let _ = writeln!(r, "| run | scenario | what |\n|---|---|---|");
    for (stem, sc, _) in runs {
        let _ =
            writeln!(r, "| [{stem}]({stem}/summary.json) | scenarios/kadhum2015/{stem}.toml | {} |", sc.description);
    }
    let _ = writeln!(
        r,
        "\nThe paper describes its traffic in two ways: its Appendix script has the FTP and the media source \
only, while §4.2 adds Poisson web sessions (22.2/s, Pareto sizes of mean 10 KB) \"in both scenarios\". Both \
readings are run. The scenario files say which reading they take wherever the paper is ambiguous (the access \
links, the CBR rate, MApp's ten rates).\n"
    );

    let _ = writeln!(r, "## Paper beside fairway\n");
    let _ = writeln!(
        r,
        "| | paper MApp | fairway MApp, FTP alone | fairway MApp, FTP + web | paper CBR | fairway CBR, FTP alone | fairway CBR, FTP + web |"
    );
    let _ = writeln!(r, "|---|---|---|---|---|---|---|");
    let (ma, mw, ca, cw) = (
        get(Media::Mapp, Reading::FtpAlone),
        get(Media::Mapp, Reading::FtpAndWeb),
        get(Media::Cbr, Reading::FtpAlone),
        get(Media::Cbr, Reading::FtpAndWeb),
    );
    let row = |r: &mut String, name: &str, p1: String, f: &dyn Fn(&Metrics) -> String, p2: String| {
        let _ = writeln!(r, "| {name} | {p1} | {} | {} | {p2} | {} | {} |", f(ma), f(mw), f(ca), f(cw));
    };
    row(&mut r, "average queue (RED), packets", "~4".into(), &|m| format!("{:.2}", m.avg_queue_pkts), "~9".into());
    row(
        &mut r,
        "actual queue, time-average, packets",
        "-".into(),
        &|m| format!("{:.2}", m.mean_queue_pkts),
        "-".into(),
    );
    row(
        &mut r,
        "queueing delay from the average, ms",
        "16".into(),
        &|m| format!("{:.1}", m.queue_delay_ms),
        "36".into(),
    );
    row(&mut r, "packets arriving at the bottleneck", "12 000".into(), &|m| m.arrivals.to_string(), "18 400".into());
    row(&mut r, "packets dropped at the bottleneck", "350".into(), &|m| m.drops.to_string(), "6 300".into());
    row(&mut r, "drop percentage", "2.9%".into(), &|m| format!("{:.1}%", m.drop_pct), "34.2%".into());
    row(
        &mut r,
        "TCP FTP throughput, kb/s",
        "(Fig. 13)".into(),
        &|m| format!("{:.0}", m.tcp_bps / 1e3),
        "(Fig. 14: ~0)".into(),
    );
    row(
        &mut r,
        "media flow throughput, kb/s",
        "(Fig. 13)".into(),
        &|m| format!("{:.0}", m.media_bps / 1e3),
        "(Fig. 14)".into(),
    );
    row(
        &mut r,
        "web sessions throughput, kb/s",
        "-".into(),
        &|m| m.web_bps.map_or("-".into(), |w| format!("{:.0}", w / 1e3)),
        "-".into(),
    );
    row(&mut r, "media flow's own loss", "-".into(), &|m| format!("{:.1}%", m.media_loss_pct), "-".into());
    row(
        &mut r,
        "bottleneck utilisation",
        "(Fig. 15)".into(),
        &|m| format!("{:.1}%", m.utilization * 100.0),
        "(Fig. 16)".into(),
    );
    row(
        &mut r,
        "MApp mean scale (0-9)",
        "-".into(),
        &|m| m.mean_scale.map_or("-".into(), |s| format!("{s:.2}")),
        "-".into(),
    );

    let _ = writeln!(r, "\n## Where fairway differs from the paper, and why\n");
    for (m, p, label) in [
        (ma, PAPER_MAPP, "MApp, FTP alone"),
        (mw, PAPER_MAPP, "MApp, FTP + web"),
        (ca, PAPER_CBR, "CBR, FTP alone"),
        (cw, PAPER_CBR, "CBR, FTP + web"),
    ] {
        let _ = writeln!(
            r,
            "- {label}: average queue {} , drops {}, arrivals {}, drop percentage {} (fairway against the paper).",
            delta(m.avg_queue_pkts, p.avg_queue_pkts),
            delta(m.drops as f64, p.drops as f64),
            delta(m.arrivals as f64, p.arrivals as f64),
            delta(m.drop_pct, p.drop_pct)
        );
    }
    let _ = writeln!(r);
    // Which reading of the traffic the paper's numbers resemble.
    let distance = |m: &Metrics, p: &Paper| {
        [(m.arrivals as f64, p.arrivals as f64), (m.drops as f64, p.drops as f64), (m.drop_pct, p.drop_pct)]
            .iter()
            .map(|(f, q)| (f.max(1e-9) / q).ln().abs())
            .sum::<f64>()
    };
    for (label, alone, web, p) in [("MApp", ma, mw, PAPER_MAPP), ("CBR", ca, cw, PAPER_CBR)] {
        let lo = alone.drop_pct.min(web.drop_pct);
        let hi = alone.drop_pct.max(web.drop_pct);
        if (lo..=hi).contains(&p.drop_pct) && distance(alone, &p).min(distance(web, &p)) > 0.5 {
            let _ = writeln!(
                r,
                "- The paper's {label} run lies between fairway's two readings: its drop percentage ({:.1}%) is \
between the FTP-alone run's ({:.1}%) and the FTP + web run's ({:.1}%), which suggests a load heavier than the \
Appendix script's and lighter than §4.2's web sessions at their full 22.2 sessions/s.",
                p.drop_pct, alone.drop_pct, web.drop_pct
            );
        } else {
            let (best, m) =
                if distance(alone, &p) <= distance(web, &p) { ("FTP alone", alone) } else { ("FTP + web", web) };
            let _ = writeln!(
                r,
                "- The paper's {label} numbers are closest to fairway's {best} run: arrivals {}, drops {}, drop \
percentage {}.",
                delta(m.arrivals as f64, p.arrivals as f64),
                delta(m.drops as f64, p.drops as f64),
                delta(m.drop_pct, p.drop_pct)
            );
        }
    }
    let all = [ma, mw, ca, cw];
    let amin = all.iter().map(|m| m.avg_queue_pkts).fold(f64::INFINITY, f64::min);
    let amax = all.iter().map(|m| m.avg_queue_pkts).fold(0.0, f64::max);
    let _ = writeln!(
        r,
        "- RED runs in ns-2's default byte mode, as the paper's script did: `thresh 5` and `maxthresh 10` are \
2 500 and 5 000 bytes (2.4 and 4.8 packets of 1 040 bytes) and the limit of 20 is 10 000 bytes. fairway's \
time-averaged RED average lies between {amin:.1} and {amax:.1} packets in the four runs. The paper's ~9 packets \
in the CBR run is close to 2 x maxthresh (9.6 packets), where gentle RED drops nearly every arrival, which fits \
its 34% drop rate. The paper does not say whether it counts packets of 1 000 bytes or plots ns-2's `ave_` in \
units of `mean_pktsize_` (500 bytes); in the second case its figures, counted in packets of 1 000 bytes, would \
be half as large."
    );
    let _ = writeln!(
        r,
        "- Arrivals: the paper's {} arrivals in the CBR run are {:.0} packets/s over the 49 s the CBR runs; the \
CBR alone sends 200 packets/s in either of the paper's readings of its rate, so the rest came from TCP (and web) \
traffic that the paper does not break down. fairway counts every packet offered to r1->r2.",
        PAPER_CBR.arrivals,
        PAPER_CBR.arrivals as f64 / 49.0
    );
    let _ = writeln!(
        r,
        "- MApp's ten rates are not given in the paper; fairway's reading (k x 160 kb/s, up to the 1.6 Mb/s \
§4.2 names) sets how hard MApp pushes, hence its drops and its share of the link.\n- The paper ran one seed \
of ns-2; a single run's counts move by several percent with the seed (docs/semantics.md shows ns-2's own \
spread on this topology)."
    );

    let _ = writeln!(r, "\n## The paper's claims, checked\n");
    for (reading, mapp, cbr) in [(Reading::FtpAlone, ma, ca), (Reading::FtpAndWeb, mw, cw)] {
        let _ = writeln!(r, "{}:\n", reading.label());
        for (claim, ok) in claims(mapp, cbr) {
            let _ = writeln!(r, "- {} {claim}", if ok { "holds:" } else { "DOES NOT HOLD:" });
        }
        let _ = writeln!(r);
    }

    let _ = writeln!(r, "## Figures\n");
    for reading in [Reading::FtpAlone, Reading::FtpAndWeb] {
        let _ = writeln!(r, "### {}\n", reading.label());
        for (_, file, caption) in figures.iter().filter(|f| f.0 == reading) {
            let _ = writeln!(r, "{caption}\n\n![{caption}]({file})\n");
        }
    }
    r
}
