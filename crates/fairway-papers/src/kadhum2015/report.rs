//! kadhum2015's report.md, claims.csv and figures: the claims, every reading beside the paper's
//! numbers, and the counterparts of its Figs 6 to 16 (one run, the first seed).

use std::fmt::Write as _;
use std::path::PathBuf;

use super::super::{plot, rate_of, write, write_report, Line, ReproduceError, ReproduceOptions, DEFAULT_REPS};
use super::claims::claims;
use super::{Media, Metrics, Reading, Results, PAPER_CBR, PAPER_MAPP};
use fairway_model::results::RunResult;
use fairway_report::output::svg::{stack, Plot, Series, Style};
use fairway_report::stats::Estimate;

pub fn write_all(r: &Results, opts: &ReproduceOptions) -> Result<PathBuf, ReproduceError> {
    let c = claims(r);
    write(&opts.out.join("claims.csv"), &c.csv())?;
    let mut figs = vec![summary_figure(r, opts)?];
    figs.extend(time_series(r.get("mapp-ftp").first(), r.get("cbr-ftp").first(), opts)?);
    let seeds = opts.seeds();
    let mut s = String::new();
    let _ = writeln!(s, "# kadhum2015 reproduced: Kadhum & Hassanein 2015\n");
    let _ = writeln!(s, "**{}** The table below lists each; claims.csv holds the same rows.\n", c.summary());
    let _ = writeln!(
        s,
        "\"Congestion-aware TCP-friendly system for multimedia transmission based on UDP\": a media-scaling application \
(MApp) over a modified UDP (UDPm), steered by its receiver, against CBR over plain UDP, each beside a TCP NewReno FTP \
through a 2 Mb/s RED bottleneck. Made by `fairway reproduce kadhum2015` (fairway {}): every file of \
scenarios/kadhum2015/ (built into the binary) ran with seeds {} to {}; fairway's values are means with their 95% \
confidence intervals. The paper reports one ns-2 run of each system, so a number agrees when it falls within the 95% \
prediction interval of one fairway run (plus the paper's rounding), and its words get the bands of docs/reproductions.md, \
the rules every reproduction follows.\n",
        env!("CARGO_PKG_VERSION"),
        seeds.first().unwrap_or(&0),
        seeds.last().unwrap_or(&0),
    );
    if seeds.len() < DEFAULT_REPS {
        let _ = writeln!(s, "(Fewer than the {DEFAULT_REPS} seeds per run docs/architecture.md asks for.)\n");
    }
    let _ = writeln!(
        s,
        "The paper contradicts itself on its set-up, so each file is one reading of it, and the claims are checked \
against the reading its own numbers support (mapp-ftp and cbr-ftp: RED as the paper's script ran it, in ns-2's byte \
mode; the FTP alone, as in its Appendix; a CBR of 3 Mb/s, which its 18 400 UDP arrivals need). The scenario files give \
the arithmetic behind each choice; the table of readings below shows what the others give.\n"
    );
    let _ = writeln!(s, "## The claims\n\n{}", c.markdown());
    readings_table(&mut s, r);
    write_report(opts, s, &figs)
}

fn readings_table(s: &mut String, r: &Results) {
    let _ = writeln!(s, "## Every reading beside the paper\n");
    let _ = writeln!(
        s,
        "| run | reading | arrivals | drops | drop % | RED average (pkts) | largest queue (pkts) | TCP kb/s | media kb/s | utilisation % |\n|---|---|---|---|---|---|---|---|---|---|"
    );
    for (label, p) in [("paper, MApp", PAPER_MAPP), ("paper, CBR", PAPER_CBR)] {
        let _ = writeln!(
            s,
            "| {label} | | {} | {} | {} | ~{} | 20 | | | |",
            p.arrivals, p.drops, p.drop_pct, p.avg_queue_pkts
        );
    }
    for x in &r.readings {
        let e = |f: &dyn Fn(&Metrics) -> f64| x.est(f);
        let pct = |m: &Metrics| 100.0 * m.drops / if x.media == Media::Cbr { m.media_sent } else { m.arrivals };
        let _ = writeln!(
            s,
            "| [{}]({}/sweep.csv) | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            x.stem,
            x.stem,
            x.what,
            e(&|m| if x.media == Media::Cbr { m.media_sent } else { m.arrivals }).show(0),
            e(&|m| m.drops).show(0),
            e(&pct).show(1),
            e(&|m| m.avg_queue).show(2),
            e(&|m| m.max_queue).show(1),
            e(&|m| m.tcp_kbps).show(0),
            e(&|m| m.media_kbps).show(0),
            e(&|m| 100.0 * m.utilization).show(1),
        );
    }
    let _ = writeln!(
        s,
        "\nArrivals as the paper counts them: every packet at the bottleneck in the MApp runs, the UDP ones in the CBR \
runs (§4.3.2); the drop percentage is the drops over those. The largest queue is the largest of the 10 ms samples of \
the packets waiting.\n"
    );
}

/// Paper against fairway per run: the average queue, the drops and the drop percentage of the
/// MApp (x = 1) and the CBR run (x = 2), each reading of RED a series.
fn summary_figure(r: &Results, opts: &ReproduceOptions) -> Result<(&'static str, String), ReproduceError> {
    let pair = |a: &str, b: &str, dx: f64, f: &dyn Fn(&Metrics, Media) -> f64| -> (Vec<(f64, f64)>, Vec<f64>) {
        let es: Vec<Estimate> = [a, b]
            .iter()
            .map(|stem| {
                let x: &Reading = r.get(stem);
                x.est(|m| f(m, x.media))
            })
            .collect();
        (
            es.iter().enumerate().map(|(k, e)| ((k + 1) as f64 + dx, e.mean)).collect(),
            es.iter().map(Estimate::ci95).collect(),
        )
    };
    type Measure = fn(&Metrics, Media) -> f64;
    let measures: [(&str, &str, Measure, [f64; 2]); 3] = [
        ("RED average queue", "packets", |m, _| m.avg_queue, [PAPER_MAPP.avg_queue_pkts, PAPER_CBR.avg_queue_pkts]),
        ("packets dropped at the gateway", "packets", |m, _| m.drops, [PAPER_MAPP.drops, PAPER_CBR.drops]),
        (
            "drop percentage",
            "%",
            |m, media| 100.0 * m.drops / if media == Media::Cbr { m.media_sent } else { m.arrivals },
            [PAPER_MAPP.drop_pct, PAPER_CBR.drop_pct],
        ),
    ];
    let data: Vec<_> = measures
        .iter()
        .map(|(title, unit, f, paper)| {
            // Side by side, a little apart, so that neither hides the other.
            let bytes = pair("mapp-ftp", "cbr-ftp", -0.05, &|m, media| f(m, media));
            let packets = pair("mapp-ftp-red-packets", "cbr-ftp-red-packets", 0.05, &|m, media| f(m, media));
            let p: Vec<(f64, f64)> = paper.iter().enumerate().map(|(k, v)| ((k + 1) as f64, *v)).collect();
            (*title, *unit, bytes, packets, p)
        })
        .collect();
    let plots: Vec<Plot> = data
        .iter()
        .enumerate()
        .map(|(k, (title, unit, bytes, packets, p))| {
            let x = if k + 1 == data.len() { "run: 1 = MApp beside TCP, 2 = CBR beside TCP" } else { "" };
            Plot::new(title, x, unit)
                .x_range(0.7, 2.3)
                .series(Series::new("fairway, RED in bytes", &bytes.0, Style::Points).with_errors(&bytes.1))
                .series(Series::new("fairway, RED in packets", &packets.0, Style::Points).with_errors(&packets.1))
                .series(Series::new("paper", p, Style::Markers).like(6))
        })
        .collect();
    write(&opts.out.join("paper-vs-fairway.svg"), &stack(&plots, 700))?;
    Ok((
        "paper-vs-fairway.svg",
        format!(
            "The paper's numbers (diamonds) beside fairway's means of {} seeds with 95% confidence intervals, for RED as the \
paper's script ran it (bytes) and as §4.3.1 reads it (packets); CBR at 3 Mb/s.",
            opts.reps
        ),
    ))
}

/// The counterparts of the paper's Figs 6 to 16 for one run of each system (the first seed).
fn time_series(
    mapp: &RunResult,
    cbr: &RunResult,
    opts: &ReproduceOptions,
) -> Result<Vec<(&'static str, String)>, ReproduceError> {
    let seed = opts.first_seed;
    let queue_rows = |r: &RunResult| r.queue_samples.first().map(|(_, rows)| rows.clone()).unwrap_or_default();
    let mut figs = vec![];

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
    let (qm, qc) = (q(mapp), q(cbr));
    write(
        &opts.out.join("fig06-07_queue.svg"),
        &stack(&[plot("Fig. 6: MApp/UDPm", "packets", &qm), plot("Fig. 7: CBR/UDP", "packets", &qc)], 900),
    )?;
    figs.push((
        "fig06-07_queue.svg",
        format!("Figs 6 and 7: actual and average (RED) queue at the bottleneck, seed {seed}."),
    ));

    let drops = |r: &RunResult, label: &str| Line {
        name: label.to_string(),
        pts: queue_rows(r).iter().map(|x| (x.t_s, x.drops_pkts as f64)).collect(),
        style: Style::Step,
    };
    let d = vec![drops(mapp, "with MApp/UDPm"), drops(cbr, "with CBR/UDP")];
    write(&opts.out.join("fig08-09_drops.svg"), &plot("Figs 8 and 9", "packets dropped", &d).to_svg())?;
    figs.push(("fig08-09_drops.svg", format!("Figs 8 and 9: cumulative drops at the bottleneck, seed {seed}.")));

    let arr = |r: &RunResult, label: &str| Line {
        name: label.to_string(),
        pts: rate_of(&queue_rows(r), 0.5, |x| x.arrivals_pkts as f64),
        style: Style::Line,
    };
    let a = vec![arr(mapp, "with MApp/UDPm"), arr(cbr, "with CBR/UDP")];
    write(&opts.out.join("fig11-12_arrivals.svg"), &plot("Figs 11 and 12", "packets/s", &a).to_svg())?;
    figs.push((
        "fig11-12_arrivals.svg",
        format!("Figs 11 and 12: packets arriving at the bottleneck per second, 0.5 s windows, seed {seed}."),
    ));

    let thr = |r: &RunResult| -> Vec<Line> {
        let bin = r.bin.as_secs_f64();
        let per = (0.5 / bin).round().max(1.0) as usize;
        r.summary
            .flows
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
    let (hm, hc) = (thr(mapp), thr(cbr));
    write(
        &opts.out.join("fig13-14_throughput.svg"),
        &stack(&[plot("Fig. 13: MApp/UDPm", "kb/s", &hm), plot("Fig. 14: CBR/UDP", "kb/s", &hc)], 900),
    )?;
    figs.push((
        "fig13-14_throughput.svg",
        format!("Figs 13 and 14: delivered throughput per flow, 0.5 s windows, seed {seed}."),
    ));

    let usage = |r: &RunResult, label: &str| Line {
        name: label.to_string(),
        pts: rate_of(&queue_rows(r), 0.5, |x| x.departures_bytes as f64 * 8.0 / 1e3),
        style: Style::Line,
    };
    let u = vec![usage(mapp, "with MApp/UDPm"), usage(cbr, "with CBR/UDP")];
    write(
        &opts.out.join("fig15-16_link-usage.svg"),
        &plot("Figs 15 and 16: the 2 Mb/s bottleneck", "kb/s", &u).y_max(2100.0).to_svg(),
    )?;
    figs.push((
        "fig15-16_link-usage.svg",
        format!("Figs 15 and 16: bits sent on the bottleneck per second, 0.5 s windows, seed {seed}."),
    ));

    if let Some(log) = mapp.logs_named("scale").next() {
        let end = mapp.summary.duration_s;
        let mut pts = log.points.clone();
        if let Some(&(_, v)) = pts.last() {
            pts.push((end, v));
        }
        let l = vec![Line { name: "MApp scale".into(), pts, style: Style::Step }];
        write(&opts.out.join("scale.svg"), &plot("MApp's media scale", "scale", &l).to_svg())?;
        figs.push((
            "scale.svg",
            format!(
                "MApp's scale (the paper describes it, Figs 2 and 3, but does not plot it), seed {seed}: halved on \
congestion, +1 per round trip."
            ),
        ));
        write(&opts.out.join("scale-zoom.svg"), &plot("20 s to 23 s", "scale", &l).x_range(20.0, 23.0).to_svg())?;
        figs.push(("scale-zoom.svg", "Three seconds of the same: each halving, then +1 per round trip.".to_string()));
    }
    Ok(figs)
}
