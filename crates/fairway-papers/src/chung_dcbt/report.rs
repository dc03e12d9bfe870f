//! chung-dcbt's report.md, claims.csv and figures.

use std::fmt::Write as _;
use std::path::PathBuf;

use super::super::{write, write_report, ReproduceError, ReproduceOptions};
use super::claims::build;
use super::{cbt_validation, Queue, Results, CLASSES, MM_PERIODS, PERIODS};
use fairway_report::output::svg::{stack, Plot, Series, Style};
use fairway_report::stats::Estimate;

pub fn write_all(r: &Results, opts: &ReproduceOptions) -> Result<PathBuf, ReproduceError> {
    let c = build(r);
    write(&opts.out.join("claims.csv"), &c.csv())?;
    let seeds = opts.seeds();
    let mut s = String::new();
    let _ = writeln!(s, "# chung-dcbt reproduced: Chung & Claypool, Dynamic-CBT\n");
    let _ = writeln!(s, "**{}** The table below lists each; claims.csv holds the same rows.\n", c.summary());
    let _ = writeln!(
        s,
        "\"Dynamic-CBT - Better Performing Active Queue Management for Multimedia Networking\" first checks its CBT against \
Parris et al.'s experiment (§4, Figures 4-6), tests MM_APP and MPEG_APP, media applications whose receivers scale \
their senders' rates, under RED (§5, Figures 8-9), then compares RED, CBT (class-based thresholds) and its Dynamic-CBT with 55 TCP, 10 MM_APP and 2 CBR flows (§6-7, Figures 10-12). Made by \
`fairway reproduce chung-dcbt` (fairway {}): every experiment ran with seeds {} to {} ({} runs each); fairway's values \
are means with their 95% confidence intervals. The paper's numbers come from one run each and its figures are missing \
from its text: what it states in words is checked by the bands of docs/reproductions.md (the rules every reproduction \
follows), numbers against the 95% prediction interval of one fairway run plus the paper's rounding, orders and trends \
on the differences between runs of the same seed. Throughput counts the \
bytes the receivers got, headers included, per flow over each period.\n",
        env!("CARGO_PKG_VERSION"),
        seeds.first().unwrap_or(&0),
        seeds.last().unwrap_or(&0),
        seeds.len(),
    );
    if seeds.len() < super::super::DEFAULT_REPS {
        let _ = writeln!(
            s,
            "(Fewer than the {} seeds per point docs/architecture.md asks for.)\n",
            super::super::DEFAULT_REPS
        );
    }
    let _ = writeln!(s, "## Figure 10, derived\n");
    let _ = writeln!(
        s,
        "Figure 10 (the main experiment's topology, schedule and RED parameters) is missing from the text. From the \
paper's own numbers: the schedule is §7's (25 TCP and the 10 MM_APP from 0 s, the 2 CBR of 5 Mb/s from 10 s, 30 more TCP \
from 20 s, 30 s in all); the bottleneck is 25 Mb/s, since the two CBR flows' \"total of 10Mbps\" is \"about 40% of the link \
bandwidth\"; RED is min_th 5, max_th 15, w_q 0.002, max_p 0.1 in packets with 60 packets of buffer, since §6's CBT \
thresholds (2.9 packets for 10 tagged flows, 0.6 for 2 untagged) are each about 0.3 packets per flow, a fair share of an \
average queue of 10-11 packets among 35-37 flows, which §4's 15/30 would not give, and max_p is D-CBT's \"maximum early \
drop rate\" of 0.1. Not derivable, and proposed: 100 Mb/s, 5 ms access links and a 20 ms bottleneck (§5's delays), TCP \
Reno's window of 20 packets (ns-2's default), 1 KB packets for every flow (§6). §5's Figure 8 is missing too: its RED \
and buffer are taken as above, MM_APP's frames as 1000 bytes. MM_APP's receiver learns the RTT from the sender's smoothed \
estimate carried in its data, its timeout's alpha is RTT/2, and it halves at most once per RTT (the paper defers these \
to [10]). scenarios/chung-dcbt/ states each in its comments.\n"
    );
    let _ = writeln!(s, "## Claims\n\n{}", c.markdown());

    let _ = writeln!(s, "## CBT against Parris et al.'s experiment (§4, Figures 4-6)\n");
    let _ = writeln!(
        s,
        "240 TCP Reno flows (300-byte packets, window 10), 6 ProShare flows (6-Kbyte frames at 210 kb/s) and an untagged \
UDP blast at 10 Mb/s from 60 to 110 s, through RED (15/30, 60 packets) and CBT (mm_th 10, udp_th 2) on 10 Mb/s, 20 ms. \
Aggregate throughput per period (Mb/s, headers included; TCP's goodput beside it). §4's calculation: TCP 8.7 Mb/s beside \
ProShare, 7.9 with the blast, the blast 0.8.\n"
    );
    let _ = writeln!(s, "| queue | period | TCP | TCP goodput | ProShare | blast |\n|---|---|---|---|---|---|");
    for (k, q) in ["RED", "CBT"].iter().enumerate() {
        for (p, (a, b)) in cbt_validation::PERIODS.iter().enumerate() {
            let cell = |f: &dyn Fn(&cbt_validation::Fig6Measure) -> f64| {
                Estimate::of(r.fig6[k].iter().map(|m| f(m) / 1e6)).show(2)
            };
            let _ = writeln!(
                s,
                "| {q} | {a:.0}-{b:.0} s | {} | {} | {} | {} |",
                cell(&|m| m.tcp_bps[p]),
                cell(&|m| m.tcp_goodput_bps[p]),
                cell(&|m| m.proshare_bps[p]),
                // The blast runs in the second period only.
                if p == 1 { cell(&|m| m.blast_bps[p]) } else { "-".to_string() }
            );
        }
    }
    let _ = writeln!(s);

    let _ = writeln!(s, "## RED, CBT and D-CBT (Figures 11 and 12)\n");
    let _ =
        writeln!(s, "Average per-flow throughput of each class (kb/s) and Jain's index over every flow, per period.\n");
    let _ =
        writeln!(s, "| queue | period | TCP | tagged (MM_APP) | untagged (CBR) | Jain |\n|---|---|---|---|---|---|");
    for q in Queue::ALL {
        for (p, (a, b)) in PERIODS.iter().enumerate() {
            let cls: Vec<String> = (0..3)
                .map(|k| {
                    let e = r.est(q, |m| m[p].per_flow_bps[k].map_or(f64::NAN, |x| x / 1e3));
                    if e.n == 0 {
                        "-".to_string()
                    } else {
                        e.show(0)
                    }
                })
                .collect();
            let _ = writeln!(
                s,
                "| {} | {a:.0}-{b:.0} s | {} | {} | {} | {} |",
                q.label(),
                cls[0],
                cls[1],
                cls[2],
                r.est(q, |m| m[p].jain).show(3)
            );
        }
    }
    let _ = writeln!(
        s,
        "\nFair shares of 25 Mb/s: {:.0} kb/s (35 flows), {:.0} kb/s (37), {:.0} kb/s (67).\n",
        25e3 / 35.0,
        25e3 / 37.0,
        25e3 / 67.0
    );

    let _ = writeln!(s, "## MM_APP and MPEG_APP under RED (Figure 9)\n");
    let _ = writeln!(s, "Average per-flow throughput (kb/s); the fair share is 857 kb/s in 5-15 s, 600 in 15-25 s.\n");
    let _ = writeln!(s, "| run | period | FTP | MM_APP | MPEG_APP |\n|---|---|---|---|---|");
    for (k, run) in ["(b) with flow control", "(a) without flow control"].iter().enumerate() {
        for (p, (a, b)) in MM_PERIODS.iter().enumerate() {
            let cell = |j: usize| Estimate::of(r.mm[k].iter().map(|m| m[p][j] / 1e3)).show(0);
            let _ = writeln!(s, "| {run} | {a:.0}-{b:.0} s | {} | {} | {} |", cell(0), cell(1), cell(2));
        }
    }
    let figs = figures(r, opts)?;
    let figs: Vec<(&str, String)> = figs.iter().map(|(f, c)| (f.as_str(), c.clone())).collect();
    write_report(opts, s, &figs)
}

/// A line's points and the half-widths of their 95% confidence intervals.
type Line = (Vec<(f64, f64)>, Vec<f64>);

fn figures(r: &Results, opts: &ReproduceOptions) -> Result<Vec<(String, String)>, ReproduceError> {
    let mid = |p: usize| (PERIODS[p].0 + PERIODS[p].1) / 2.0;
    // Jain's index per period, each queue.
    let jain: Vec<Line> = Queue::ALL
        .iter()
        .map(|&q| {
            (0..3)
                .map(|p| {
                    let e = r.est(q, |m| m[p].jain);
                    ((mid(p), e.mean), e.ci95())
                })
                .unzip()
        })
        .collect();
    let mut plot = Plot::new("Jain's index over every flow, per 10 s period (Figure 12)", "time (s)", "Jain's index")
        .x_range(0.0, 30.0)
        .y_min(0.0)
        .y_max(1.0);
    for (k, q) in Queue::ALL.iter().enumerate() {
        plot = plot.series(Series::new(q.label(), &jain[k].0, Style::LinePoints).with_errors(&jain[k].1).like(k));
    }
    // Per-class per-flow throughput per period, one panel per queue.
    let classes: Vec<Vec<Line>> = Queue::ALL
        .iter()
        .map(|&q| {
            (0..3)
                .map(|c| {
                    (0..3)
                        .filter_map(|p| {
                            let e = r.est(q, |m| m[p].per_flow_bps[c].map_or(f64::NAN, |x| x / 1e3));
                            (e.n > 0).then(|| ((mid(p), e.mean), e.ci95()))
                        })
                        .unzip()
                })
                .collect()
        })
        .collect();
    let titles: Vec<String> = Queue::ALL
        .iter()
        .map(|q| format!("{}: average per-flow throughput of each class (Figure 11)", q.label()))
        .collect();
    let mut plots = vec![plot];
    for (k, title) in titles.iter().enumerate() {
        let mut p = Plot::new(title, "time (s)", "kb/s").x_range(0.0, 30.0).y_min(0.0);
        for (c, name) in CLASSES.iter().enumerate() {
            p = p.series(Series::new(name, &classes[k][c].0, Style::LinePoints).with_errors(&classes[k][c].1).like(c));
        }
        plots.push(p);
    }
    let f = "fig11-12.svg";
    write(&opts.out.join(f), &stack(&plots, 720))?;
    // Figure 6(b): TCP's aggregate throughput each second, RED and CBT (means over the seeds),
    // with §4's calculated 8.7 and 7.9 Mb/s where they apply.
    let series: Vec<Vec<(f64, f64)>> = (0..2)
        .map(|k| {
            let n = r.fig6[k].iter().map(|m| m.tcp_series_bps.len()).min().unwrap_or(0);
            (0..n)
                .map(|s| (s as f64 + 0.5, Estimate::of(r.fig6[k].iter().map(|m| m.tcp_series_bps[s] / 1e6)).mean))
                .collect()
        })
        .collect();
    let (b0, b1) = cbt_validation::BLAST;
    let calc: Vec<(f64, f64)> =
        vec![(0.0, 8.7), (b0, 8.7), (b0, 7.9), (b1, 7.9), (b1, 8.7), (series[1].len() as f64, 8.7)];
    let fig6 = Plot::new("Aggregate TCP throughput, chung-dcbt §4 (Figure 6(b))", "time (s)", "Mb/s")
        .y_min(0.0)
        .y_max(10.0)
        .series(Series::new("RED", &series[0], Style::Line).like(0))
        .series(Series::new("CBT", &series[1], Style::Line).like(1))
        .series(Series::new("§4's calculation for CBT", &calc, Style::Line).like(2));
    let f6 = "fig6.svg";
    write(&opts.out.join(f6), &fig6.to_svg())?;
    Ok(vec![
        (
            f6.to_string(),
            "Figure 6(b): TCP's aggregate throughput per second under RED and CBT (means over the seeds), the blast from 60 to 110 s".to_string(),
        ),
        (
            f.to_string(),
            "Figures 11 and 12: Jain's index per period, and each class's average per-flow throughput under RED, CBT and D-CBT (means with 95% confidence intervals)".to_string(),
        ),
    ])
}
