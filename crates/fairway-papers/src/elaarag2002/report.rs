//! elaarag2002's report.md, claims.csv and figures.

use std::fmt::Write as _;
use std::path::PathBuf;

use super::super::claims::{count_rounding, one_run_band, trim};
use super::super::claims::{Claims, Verdict};
use super::super::rules::Bounds;
use super::super::{write, write_report, ReproduceError, ReproduceOptions, Runs};
use super::claims::{by_sender, claims, extended_rows, fig5_rows, table2_rows, table3_rows, table4_row};
use super::{
    est, per_source, share_ratio, slot_ratio, Kind, Results, PAPER_TABLE2, PAPER_TABLE3, PAPER_TABLE4, TABLE2_READINGS,
};
use fairway_report::output::svg::{stack, Plot, Series, Style};
use fairway_report::stats::Estimate;
use fairway_scenario::protocols::IftpSummary;

fn rate_mbps(r: &str) -> f64 {
    fairway_core::Rate::parse(r).map_or(f64::NAN, |x| x.0 as f64 / 1e6)
}

/// The x range of `xs` widened by 4% of its span each side, so that markers at the ends show
/// whole.
fn padded(xs: &[f64]) -> (f64, f64) {
    let lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let pad = 0.04 * (hi - lo).max(1e-9);
    (lo - pad, hi + pad)
}

/// A plot series' points and the half-heights of their error bars.
type Points = (Vec<(f64, f64)>, Vec<f64>);

/// Means and 95% half-widths of estimates, as plot points at `xs`.
fn points(xs: &[f64], es: &[Estimate]) -> Points {
    (xs.iter().zip(es).map(|(x, e)| (*x, e.mean)).collect(), es.iter().map(Estimate::ci95).collect())
}

pub fn write_all(r: &Results, opts: &ReproduceOptions) -> Result<PathBuf, ReproduceError> {
    let c = claims(r);
    write(&opts.out.join("claims.csv"), &c.csv())?;
    let figs = figures(r, opts)?;
    let mut s = String::new();
    let seeds = opts.seeds();
    let _ = writeln!(s, "# elaarag2002 reproduced: ElAarag & Bassiouni 2002 (IFTP)\n");
    let _ = writeln!(s, "**{}** The table below lists each; claims.csv holds the same rows.\n", c.summary());
    let _ = writeln!(
        s,
        "\"An Internet friendly transport protocol for continuous media over best effort networks\": IFTP emulates TCP's \
slow start, congestion avoidance, halving and timeout by recomputing the gap between unreliable datagrams once per round \
trip. Made by `fairway reproduce elaarag2002` (fairway {}): every experiment point ran with seeds {} to {} ({} runs); \
fairway's values are means with their 95% confidence intervals. The paper's numbers come from one ns-2 run each, so a \
table cell agrees when it falls within the 95% prediction interval of one fairway run (plus the paper's rounding; the \
runs' range where that interval would leave the quantity's bounds), and its words get the bands of docs/reproductions.md, \
the rules every reproduction follows. The \
scenario files (scenarios/elaarag2002/, built into the binary) state every reading taken where the paper is silent or \
ambiguous, with the numbers that decide it; every source waits a random time of up to a packet time at the bottleneck \
before it sends, because deterministic drop-tail runs lock into phases (docs/semantics.md). Each experiment's runs are in \
the folder of the same name beside this report.\n",
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
    let _ = writeln!(s, "## The claims\n\n{}", c.markdown());
    fig5_section(&mut s, &r.fig5);
    fig6_section(&mut s, r);
    table23_section(&mut s, r);
    table4_section(&mut s, &r.table4);
    extended_section(&mut s, &r.extended);
    figure1_section(&mut s, r, &c);
    let _ = writeln!(
        s,
        "## §5, the bandwidth model\n\nThe closed-form model of §5 is in `fairway model iftp`. The claims above put it \
beside fairway's IFTP on paths where its assumptions hold (scenarios/elaarag2002/section5-*.toml: a fat path with no \
queue; loss-free transfers of Figure 3's file sizes; independent drops at 1%; every ACK lost), with the model's misprints \
corrected as docs/semantics.md lists them.\n"
    );
    write_report(opts, s, &figs)
}

fn fig5_section(s: &mut String, r: &Runs) {
    let _ = writeln!(s, "## Figure 5: UDP beside TCP\n");
    let _ =
        writeln!(s, "| UDP rate | UDP at source | UDP at sink | TCP at source | TCP at sink |\n|---|---|---|---|---|");
    for (rate, e) in fig5_rows(r) {
        let _ = writeln!(s, "| {rate} | {} | {} | {} | {} |", e[0].show(3), e[1].show(3), e[2].show(3), e[3].show(3));
    }
    let _ = writeln!(
        s,
        "\nBandwidths in Mb/s on the 1.5 Mb/s bottleneck. The paper gives Figure 5 as a plot only (lost in the text); its \
findings are the claims above.\n"
    );
}

fn fig6_section(s: &mut String, r: &Results) {
    let bw = |runs: &Runs, k: Kind| est(runs, &[], |x| per_source(x, k, |f| f.throughput_bps) / 1e3);
    let _ = writeln!(s, "## Figure 6 and Table I: TCP friendliness\n");
    let _ = writeln!(
        s,
        "| set-up | IFTP per source, kb/s | TCP per source, kb/s | IFTP / TCP |\n|---|---|---|---|\n\
| the paper's: 2 IFTP + 2 TCP Reno | {} | {} | {} |\n| control: TCP NewReno in place of Reno | {} | {} | {} |",
        bw(&r.fig6, Kind::Iftp).show(0),
        bw(&r.fig6, Kind::Tcp).show(0),
        share_ratio(&r.fig6, &[]).show(2),
        bw(&r.fig6_newreno, Kind::Iftp).show(0),
        bw(&r.fig6_newreno, Kind::Tcp).show(0),
        share_ratio(&r.fig6_newreno, &[]).show(2),
    );
    let _ = writeln!(
        s,
        "| control: TCP Reno in IFTP's slots (checked against ns-2) | | | {} (Reno in the slots / the others) |\n",
        slot_ratio(&r.fig6_reno).show(2)
    );
    let _ = writeln!(
        s,
        "What a TCP Reno gets in IFTP's place is its fair share: four Renos split the link evenly, in fairway and in ns-2 \
alike (scenarios/validation/elaarag2002-fig6-reno.toml, compared flow by flow in the validation suite). IFTP in that \
place takes more. The difference is loss recovery: IFTP reacts once to all the losses of a round trip and goes on \
(§4), as NewReno does, while Reno meets a second loss in one window with a timeout, then slow start. Against NewReno \
IFTP is close to even. Against paced traffic Reno keeps what the paced sources leave, in fairway as in ns-2 \
(scenarios/validation/elaarag2002-fig6-cbr.toml), so the share IFTP keeps is set by IFTP. The paper's Reno did better \
than fairway's and ns-2's; its text gives no cause (its Figure 4 and its ns-2 version are unknown).\n"
    );
}

fn table23_section(s: &mut String, r: &Results) {
    let _ = writeln!(s, "## Tables II and III under each reading\n");
    let _ = writeln!(
        s,
        "The stated set-up cannot give the paper's Table III (its delays exceed what a 50-packet queue can hold) nor its \
UDP column (a CBR below its share on a shared FIFO loses what the others lose per packet, not 10 to 34%). Each reading \
that could is run over the same seeds; the claims above use the stated one. Packets lost per source (IFTP: the mean of \
its two sources), means over the seeds; \"in band\" counts the Table II cells within the band of one more run plus \
rounding, as the claims judge them (docs/reproductions.md).\n"
    );
    for ((stem, what), runs) in TABLE2_READINGS.iter().zip(&r.table23) {
        let rows = table2_rows(runs);
        let mut inside = 0;
        let _ = writeln!(s, "### {what} ({stem}.toml)\n");
        let _ = writeln!(
            s,
            "| UDP rate | UDP paper | UDP fairway | IFTP paper | IFTP fairway | TCP paper | TCP fairway | IFTP / TCP loss events |\n|---|---|---|---|---|---|---|---|"
        );
        for (rate, pu, pi, pt) in PAPER_TABLE2 {
            let Some((_, e)) = rows.iter().find(|(k, _)| k == rate) else { continue };
            for (p, x) in [(pu, &e[0]), (pi, &e[1]), (pt, &e[2])] {
                inside += one_run_band(p, x, count_rounding(&trim(p)), Bounds::NON_NEGATIVE).0 as usize;
            }
            let at = [("flow.udp.rate", rate)];
            let ev_i = est(runs, &at, |x| {
                per_source(x, Kind::Iftp, |f| {
                    f.report::<IftpSummary>().map_or(f64::NAN, |i| (i.losses_detected + i.timeouts) as f64)
                })
            });
            let ev_t = est(runs, &at, |x| per_source(x, Kind::Tcp, |f| (f.fast_retransmits + f.timeouts) as f64));
            let _ = writeln!(
                s,
                "| {rate} | {pu} | {} | {pi} | {} | {pt} | {} | {:.0} / {:.0} |",
                e[0].show(0),
                e[1].show(0),
                e[2].show(0),
                ev_i.mean,
                ev_t.mean
            );
        }
        let t3 = table3_rows(runs);
        let _ = writeln!(
            s,
            "\n{inside} of 18 Table II cells in band. Table III: IFTP delay {} ms (paper {}), jitter {} ms (paper {}); UDP \
delay {} ms (paper {}), jitter {} ms (paper {}).\n",
            t3[0].0.show(1),
            PAPER_TABLE3[0].0,
            t3[0].1.show(1),
            PAPER_TABLE3[0].1,
            t3[1].0.show(1),
            PAPER_TABLE3[1].0,
            t3[1].1.show(1),
            PAPER_TABLE3[1].1,
        );
    }
    let _ = writeln!(
        s,
        "Loss events (IFTP's reactions and timeouts; TCP's fast retransmits and timeouts) are the reading in which the \
paper's IFTP and TCP columns would count congestion responses rather than packets. No reading gives UDP's column: in \
none does a CBR below its share lose 10% or more of its packets while the responsive sources lose a few dozen.\n"
    );
}

fn table4_section(s: &mut String, r: &Runs) {
    let _ = writeln!(s, "## Table IV: bottleneck bandwidth and delay\n");
    let _ = writeln!(
        s,
        "| bottleneck | delay | TCP paper | TCP fairway | IFTP paper | IFTP fairway | utilisation paper | utilisation fairway | IFTP timeouts |\n|---|---|---|---|---|---|---|---|---|"
    );
    for (b, d, pt, pi, pu) in PAPER_TABLE4 {
        let e = table4_row(r, b, d);
        let _ = writeln!(
            s,
            "| {b}/s | {d} | {pt} | {} | {pi} | {} | {pu}% | {}% | {} |",
            e[0].show(3),
            e[1].show(3),
            e[2].show(1),
            e[3].show(1)
        );
    }
    let _ = writeln!(s, "\nBandwidths are per source in Mb/s.\n");
}

fn extended_section(s: &mut String, r: &Runs) {
    let _ = writeln!(s, "## Extended mode (§3.2)\n\n| S | IFTP / TCP |\n|---|---|");
    for (sc, e) in extended_rows(r) {
        let _ = writeln!(s, "| {} | {} |", trim(sc), e.show(2));
    }
    let _ =
        writeln!(s, "\nThe paper runs no experiment in extended mode; §1 and §3.2 promise S times TCP's bandwidth.\n");
}

fn figures(r: &Results, opts: &ReproduceOptions) -> Result<Vec<(&'static str, String)>, ReproduceError> {
    let n = opts.reps;
    let mut figs = vec![];

    // Figure 5.
    let rows = fig5_rows(&r.fig5);
    let xs: Vec<f64> = rows.iter().map(|(k, _)| rate_mbps(k)).collect();
    let col = |k: usize| -> Vec<Estimate> { rows.iter().map(|(_, e)| e[k].clone()).collect() };
    let names = ["UDP at source", "UDP at sink", "TCP at source", "TCP at sink"];
    let series: Vec<Points> = (0..4).map(|k| points(&xs, &col(k))).collect();
    let (lo, hi) = padded(&xs);
    let mut p = Plot::new("", "UDP sending rate (Mb/s)", "bandwidth (Mb/s)").x_range(lo, hi);
    for (k, (pts, err)) in series.iter().enumerate() {
        p = p.series(Series::new(names[k], pts, Style::LinePoints).with_errors(err));
    }
    write(&opts.out.join("fig5.svg"), &p.to_svg())?;
    figs.push((
        "fig5.svg",
        format!(
            "Figure 5: bandwidth of UDP and TCP at source and sink against UDP's rate, means of {n} seeds with 95% \
confidence intervals (the paper's plot is lost)."
        ),
    ));

    // Table II, stated reading, and UDP's column under each reading.
    let rows = table2_rows(&r.table23[0]);
    let xs: Vec<f64> = rows.iter().map(|(k, _)| rate_mbps(k)).collect();
    let paper =
        |k: usize| -> Vec<(f64, f64)> { PAPER_TABLE2.iter().map(|p| (rate_mbps(p.0), [p.1, p.2, p.3][k])).collect() };
    let col = |k: usize| -> Vec<Estimate> { rows.iter().map(|(_, e)| e[k].clone()).collect() };
    let (udp, udp_e) = points(&xs, &col(0));
    let (iftp, iftp_e) = points(&xs, &col(1));
    let (tcp, tcp_e) = points(&xs, &col(2));
    let (pu, pi, pt) = (paper(0), paper(1), paper(2));
    let (lo, hi) = padded(&xs);
    let top = Plot::new("UDP", "", "packets lost in 120 s")
        .x_range(lo, hi)
        .series(Series::new("fairway", &udp, Style::LinePoints).with_errors(&udp_e))
        .series(Series::new("paper", &pu, Style::Markers).like(0));
    let bottom = Plot::new("IFTP (per source) and TCP", "UDP sending rate (Mb/s)", "packets lost in 120 s")
        .series(Series::new("IFTP, fairway", &iftp, Style::LinePoints).with_errors(&iftp_e))
        .series(Series::new("TCP, fairway", &tcp, Style::LinePoints).with_errors(&tcp_e))
        .series(Series::new("IFTP, paper", &pi, Style::Markers).like(0))
        .series(Series::new("TCP, paper", &pt, Style::Markers).like(1));
    write(&opts.out.join("table2.svg"), &stack(&[top, bottom], 800))?;
    figs.push((
        "table2.svg",
        format!(
            "Table II as stated (50-packet buffer): packets lost per source against UDP's rate, fairway's means of {n} \
seeds with 95% confidence intervals, the paper's values as diamonds."
        ),
    ));
    let per_reading: Vec<(String, Points)> = TABLE2_READINGS
        .iter()
        .zip(&r.table23)
        .map(|((_, what), runs)| {
            let rows = table2_rows(runs);
            let xs: Vec<f64> = rows.iter().map(|(k, _)| rate_mbps(k)).collect();
            let es: Vec<Estimate> = rows.iter().map(|(_, e)| e[0].clone()).collect();
            (what.to_string(), points(&xs, &es))
        })
        .collect();
    let mut p = Plot::new("", "UDP sending rate (Mb/s)", "packets UDP lost in 120 s").x_range(lo, hi);
    for (name, (pts, err)) in &per_reading {
        p = p.series(Series::new(name, pts, Style::LinePoints).with_errors(err));
    }
    p = p.series(Series::new("paper", &pu, Style::Markers).like(6));
    write(&opts.out.join("table2-readings.svg"), &p.to_svg())?;
    figs.push((
        "table2-readings.svg",
        "Table II's UDP column under each reading of the set-up, with the paper's values as diamonds.".to_string(),
    ));

    // Table IV: per delay, TCP and IFTP against the bottleneck rate.
    let rates = ["0.5Mb", "1.0Mb", "1.5Mb"];
    let xs: Vec<f64> = rates.iter().map(|b| rate_mbps(b)).collect();
    let panel = |d: &str| {
        let es: Vec<[Estimate; 4]> = rates.iter().map(|b| table4_row(&r.table4, b, d)).collect();
        let (t, te) = points(&xs, &es.iter().map(|e| e[0].clone()).collect::<Vec<_>>());
        let (i, ie) = points(&xs, &es.iter().map(|e| e[1].clone()).collect::<Vec<_>>());
        let pt: Vec<(f64, f64)> = PAPER_TABLE4.iter().filter(|p| p.1 == d).map(|p| (rate_mbps(p.0), p.2)).collect();
        let pi: Vec<(f64, f64)> = PAPER_TABLE4.iter().filter(|p| p.1 == d).map(|p| (rate_mbps(p.0), p.3)).collect();
        (t, te, i, ie, pt, pi)
    };
    let (a, b) = (panel("0.003ms"), panel("3ms"));
    let panels = [("D = 0.003 ms", "", &a), ("D = 3 ms", "bottleneck rate (Mb/s)", &b)];
    let plots: Vec<Plot> = panels
        .iter()
        .map(|(title, x, v)| {
            let (lo, hi) = padded(&xs);
            Plot::new(title, x, "bandwidth per source (Mb/s)")
                .x_range(lo, hi)
                .series(Series::new("TCP, fairway", &v.0, Style::LinePoints).with_errors(&v.1))
                .series(Series::new("IFTP, fairway", &v.2, Style::LinePoints).with_errors(&v.3))
                .series(Series::new("TCP, paper", &v.4, Style::Markers).like(0))
                .series(Series::new("IFTP, paper", &v.5, Style::Markers).like(1))
        })
        .collect();
    write(&opts.out.join("table4.svg"), &stack(&plots, 800))?;
    figs.push((
        "table4.svg",
        format!("Table IV: bandwidth per source against the bottleneck's rate, fairway's means of {n} seeds with 95% confidence intervals, the paper's as diamonds."),
    ));

    // Extended mode.
    let rows = extended_rows(&r.extended);
    let xs: Vec<f64> = rows.iter().map(|(s, _)| *s).collect();
    let (pts, err) = points(&xs, &rows.iter().map(|(_, e)| e.clone()).collect::<Vec<_>>());
    let aim: Vec<(f64, f64)> = xs.iter().map(|s| (*s, *s)).collect();
    let (lo, hi) = padded(&xs);
    let p = Plot::new("", "scale factor S", "IFTP / TCP bandwidth")
        .x_range(lo, hi)
        .series(Series::new("fairway", &pts, Style::LinePoints).with_errors(&err))
        .series(Series::new("the design's promise: S", &aim, Style::Markers).like(1));
    write(&opts.out.join("extended.svg"), &p.to_svg())?;
    figs.push((
        "extended.svg",
        format!("Extended mode: IFTP's bandwidth over TCP Reno's against S, means of {n} seeds with 95% confidence intervals."),
    ));
    Ok(figs)
}

/// The sender as Fig. 1 reads beside the prose's: the verdicts of every claim with IFTP in it
/// under both, and the two numbers the paper gives of its IFTP's behaviour.
fn figure1_section(s: &mut String, r: &Results, c: &Claims) {
    let f = &r.figure1;
    let _ = writeln!(s, "## Fig. 1's pseudocode read as written\n");
    let _ = writeln!(
        s,
        "The sender above follows the prose of §3-§4: one window per round trip R, the next one sent when the ACKs of the \
window before the current one are in (crates/fairway-proto/src/iftp/mod.rs lists where this departs from Fig. 1). Fig. 1 \
read line by line (`reading = \"figure1\"` on an IFTP flow) sends the next window only when `ack_count` reaches n, \
that is when every ACK of the current window is in: its n packets, spread over R by the gap R/n - tau, take about two \
round trips. And an ACK above `una` zeroes `ack_count`, so a loss that fewer than three ACKs follow (one of the last \
packets of a window) stalls the sender until its timer fires. Every experiment with IFTP in it ran again so (the folders \
named *-figure1), and every claim about them is judged again under that reading; those rows are shown in the table \
above and not counted.\n"
    );
    let timeouts = |runs: &Runs, b: &str, d: &str| table4_row(runs, b, d)[3].mean;
    let _ = writeln!(
        s,
        "| | prose (counted) | Fig. 1 | paper |\n|---|---|---|---|\n| Fig. 6: IFTP / TCP | {} | {} | below 1, \"almost equal\" |",
        share_ratio(&r.fig6, &[]).show(2),
        share_ratio(&f.fig6, &[]).show(2)
    );
    for (b, d, tcp, iftp, _) in PAPER_TABLE4 {
        let row = |runs: &Runs| {
            let e = table4_row(runs, b, d);
            format!("{:.3} / {:.3}, {:.1} timeouts", e[0].mean, e[1].mean, timeouts(runs, b, d))
        };
        let _ = writeln!(
            s,
            "| Table IV, B = {b}, D = {d}: TCP / IFTP Mb/s, IFTP's timeouts per source | {} | {} | {tcp} / {iftp}{} |",
            row(&r.table4),
            row(&f.table4),
            if tcp > iftp * 1.84 { ", 4-5 timeouts" } else { "" }
        );
    }
    // The paper's two statements of its own IFTP's behaviour: TCP somewhat ahead in Fig. 6, and
    // 4-5 timeouts per IFTP source in the four set-ups of Table IV where TCP was well ahead.
    let ahead: Vec<(&str, &str)> =
        PAPER_TABLE4.iter().filter(|(_, _, tcp, iftp, _)| *tcp > iftp * 1.84).map(|(b, d, ..)| (*b, *d)).collect();
    let span = |runs: &Runs| {
        let t: Vec<f64> = ahead.iter().map(|(b, d)| timeouts(runs, b, d)).collect();
        let lo = t.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = t.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        format!("{lo:.1} to {hi:.1}")
    };
    let fits = |ratio: f64| match ratio {
        x if x >= 1.0 => "IFTP ahead, against the paper",
        x if x >= 0.8 => "TCP ahead and almost equal, as in the paper",
        _ => "TCP ahead, further than \"almost equal\"",
    };
    let (a, b) = (share_ratio(&r.fig6, &[]).mean, share_ratio(&f.fig6, &[]).mean);
    let _ = writeln!(
        s,
        "\nThe paper's two statements of how its IFTP behaved: in Fig. 6 TCP is ahead of IFTP and the two \"almost equal\" \
(IFTP / TCP just below 1): {a:.2} under the prose ({}), {b:.2} under Fig. 1 ({}); in the four set-ups of Table IV where \
TCP was well ahead IFTP \"timed out several times (4-5)\": {} timeouts per IFTP source under the prose, {} under Fig. 1.",
        fits(a),
        fits(b),
        span(&r.table4),
        span(&f.table4)
    );
    let pairs = by_sender(c);
    let n = |pick: fn(&(&str, Verdict, Verdict)) -> Verdict| {
        pairs.iter().filter(|p| pick(p) == Verdict::Reproduced).count()
    };
    let (prose, fig1) = (n(|p| p.1), n(|p| p.2));
    let _ = writeln!(
        s,
        "\nOf the {} claims judged under both readings, {prose} are reproduced under the prose and {fig1} under Fig. 1. {}\n",
        pairs.len(),
        match prose.cmp(&fig1) {
            std::cmp::Ordering::Less => "Fig. 1 as written fits the paper better by that count.",
            std::cmp::Ordering::Greater => "The prose fits the paper better by that count.",
            std::cmp::Ordering::Equal => "By that count neither fits better.",
        }
    );
    let differ: Vec<_> = pairs.iter().filter(|p| p.1 != p.2).collect();
    if !differ.is_empty() {
        let _ =
            writeln!(s, "The claims whose verdict the reading changes:\n\n| claim | prose | Fig. 1 |\n|---|---|---|");
        for (claim, a, b) in differ {
            let _ = writeln!(s, "| {} | {} | {} |", claim.replace('|', "\\|"), a.name(), b.name());
        }
        let _ = writeln!(s);
    }
}
