//! janani-tfrc's report.md, claims.csv and figures.

use std::fmt::Write as _;
use std::path::PathBuf;

use super::super::{write, write_report, ReproduceError, ReproduceOptions};
use super::claims::{claims, closer, TABLES};
use super::{wireless, wireless_claims, wireless_report, App, Comparator, Experiment, Reading, Results, NODES};
use fairway_report::output::svg::{stack, Plot, Series, Style};
use fairway_report::stats::Estimate;

pub fn write_all(r: &Results, w: &wireless::Results, opts: &ReproduceOptions) -> Result<PathBuf, ReproduceError> {
    let mut c = claims(r);
    c.rows.extend(wireless_claims::claims(w).rows);
    write(&opts.out.join("claims.csv"), &c.csv())?;
    let (reading, da, db) = closer(r);
    let seeds = opts.seeds();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# janani-tfrc reproduced: Janani & Chenna Reddy (TFRC for real-time applications), wired and wireless\n"
    );
    let _ = writeln!(s, "**{}** The table at the end lists each; claims.csv holds the same rows.\n", c.summary());
    let _ = writeln!(
        s,
        "\"TFRC for Congestion Control in Real Time Applications\" runs VoIP (84 kb/s of 160 B packets), video conference \
(456 kb/s of 1000 B) and video streaming (2.5 Mb/s of 1000 B) over TFRC beside TCP (window 10) and beside UDP (1 Mb/s) on a \
4 Mb/s dumbbell in ns-2.34, for N = 6 to 18 nodes, and reports packet delivery and loss ratios (Tables 1 to 4) and delays \
(figures, which are missing from the text). Made by `fairway reproduce janani-tfrc` (fairway {}): every point ran with seeds \
{} to {} ({} runs each); fairway's values are means with their 95% confidence intervals. The paper's numbers come from one \
run each, so a table cell agrees when it falls within the 95% prediction interval of one fairway run plus the paper's \
rounding, or, where that interval would leave [0, 1] (a loss ratio near 0, a delivery ratio near 1), within the range of \
fairway's runs (docs/reproductions.md, the rules every reproduction follows). Under reading B video conference and video \
streaming are one simulation, so Tables 3 and 4 are compared with the runs of Tables 1 and 2: those rows are shown and \
not counted, one run counting once. TFRC runs in its ns-2 flavour (docs/semantics.md, \"TFRC\"), ns-2's Agent/TFRC being what the authors ran.\n",
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
    let _ = writeln!(s, "## What the paper leaves open\n");
    let _ = writeln!(
        s,
        "The paper gives no link delays, queue type or size, nor how its N nodes map to flows. The scenario files \
(scenarios/janani-tfrc/, built in) take R1-R2 at 10 ms, access links at 2 ms, DropTail queues of 50 packets (ns-2's default), \
and N = 2 routers + k senders + k receivers with k = (N - 2)/2 flows alternating TFRC and the comparator (TFRC's numbers \
differ between its tables at the same N, so it shared each run with the comparator). The comparator TCP is ns-2's Agent/TCP \
(Tahoe) with an FTP: the paper names neither variant nor application.\n\n\"TFRC rate is set to X\" has two readings, and \
fairway runs both: A, an application at X feeding an application-limited TFRC (ns-2's SndrType_ 1); B, TFRC greedy whatever \
the application, ns-2's default. The tables decide between them: the mean |ln(fairway / paper)| over the loss-ratio cells \
of Tables 1 to 4 is {da:.2} for A and {db:.2} for B, so the claims below use **{}**.\n",
        reading.label()
    );
    // Under reading B the application's rate is ignored: video conference and video streaming,
    // both of 1000 B packets, are then one and the same run.
    let same = NODES.iter().all(|&n| {
        [Comparator::Tcp, Comparator::Udp].iter().all(|&comp| {
            let at = |app| r.get(Experiment { app, comp, reading: Reading::Greedy }, n).tfrc.plr.mean;
            at(App::VideoConference) == at(App::VideoStream)
        })
    });
    let _ = writeln!(
        s,
        "Neither reading fits the tables. Under A, the loss ratios at small N are zero: the application-limited TFRC flows and TCP's windows of 10 packets fit in the 50-packet queue until N = 18, where the paper reports losses from N = 6. Under B, TFRC ignores the application's rate, so video conference and video streaming (both of 1000 B packets) are the same simulation{}: Tables 1 and 3 (and 2 and 4) would be equal, yet the paper's differ by a factor of four at N = 6 (TFRC's PLR 0.0005 against 0.0021 beside TCP). The paper's numbers need something it does not state (a smaller queue, other delays, another flow mapping).\n",
        if same { " (fairway's runs under B give them identical numbers)" } else { "" }
    );
    for (t, app, comp, rows) in TABLES {
        let _ = writeln!(s, "## Table {t}: {} over TFRC beside {}\n", app.label(), comp.label());
        let _ = writeln!(
            s,
            "| N | TFRC PDR paper | A | B | TFRC PLR paper | A | B | {c} PDR paper | A | B | {c} PLR paper | A | B |",
            c = comp.label()
        );
        let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|---|---|---|---|");
        for &(n, tp, tl, cp, cl) in rows.iter() {
            let a = r.get(Experiment { app, comp, reading: Reading::AppLimited }, n);
            let b = r.get(Experiment { app, comp, reading: Reading::Greedy }, n);
            let _ = writeln!(
                s,
                "| {n} | {tp} | {} | {} | {tl} | {} | {} | {cp} | {} | {} | {cl} | {} | {} |",
                a.tfrc.pdr.show(4),
                b.tfrc.pdr.show(4),
                a.tfrc.plr.show(4),
                b.tfrc.plr.show(4),
                a.comp.pdr.show(4),
                b.comp.pdr.show(4),
                a.comp.plr.show(4),
                b.comp.plr.show(4),
            );
        }
        s.push('\n');
    }
    let _ = writeln!(s, "## The figures' quantities (reading {})\n", reading.label());
    let _ = writeln!(s, "The paper's Figs 2 to 7 are missing; §5.1 states who is above whom. fairway's values:\n");
    let _ = writeln!(s, "| application | beside | N | TFRC PDR | other PDR | TFRC PLR | other PLR | TFRC delay (ms) | other delay (ms) | TFRC kb/s | other kb/s |");
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|---|---|");
    for app in App::ALL {
        for comp in [Comparator::Tcp, Comparator::Udp] {
            for n in NODES {
                let p = r.get(Experiment { app, comp, reading }, n);
                let _ = writeln!(
                    s,
                    "| {} | {} | {n} | {} | {} | {} | {} | {} | {} | {} | {} |",
                    app.label(),
                    comp.label(),
                    p.tfrc.pdr.show(4),
                    p.comp.pdr.show(4),
                    p.tfrc.plr.show(4),
                    p.comp.plr.show(4),
                    p.tfrc.delay_ms.show(1),
                    p.comp.delay_ms.show(1),
                    p.tfrc.kbps.show(0),
                    p.comp.kbps.show(0),
                );
            }
        }
    }
    s.push('\n');
    s.push_str(&wireless_report::section(w));
    let _ = writeln!(s, "## Claims\n\n{}", c.markdown());
    let mut figs = figures(r, opts)?;
    figs.extend(wireless_report::figures(w, opts)?);
    let captions: Vec<(&str, String)> = figs.iter().map(|(f, c)| (f.as_str(), c.clone())).collect();
    write_report(opts, s, &captions)
}

pub(super) type Points = (Vec<(f64, f64)>, Vec<f64>);

/// A series to plot: at each of `xs`, the mean of `f(x)` and its 95% confidence half-width.
pub(super) fn points(xs: &[u32], f: impl Fn(u32) -> Estimate) -> Points {
    let es: Vec<(f64, Estimate)> = xs.iter().map(|&x| (x as f64, f(x))).collect();
    (es.iter().map(|(x, e)| (*x, e.mean)).collect(), es.iter().map(|(_, e)| e.ci95()).collect())
}

fn figures(r: &Results, opts: &ReproduceOptions) -> Result<Vec<(String, String)>, ReproduceError> {
    let mut out = vec![];
    // Tables 1 to 4: TFRC's and the comparator's loss ratios against N, the paper's and both readings.
    let mut data = vec![];
    for (t, app, comp, rows) in TABLES {
        let paper_t: Vec<(f64, f64)> = rows.iter().map(|r| (r.0 as f64, r.2.parse().unwrap_or(f64::NAN))).collect();
        let paper_c: Vec<(f64, f64)> = rows.iter().map(|r| (r.0 as f64, r.4.parse().unwrap_or(f64::NAN))).collect();
        let a = |reading| Experiment { app, comp, reading };
        let at = points(&NODES, |n| r.get(a(Reading::AppLimited), n).tfrc.plr.clone());
        let bt = points(&NODES, |n| r.get(a(Reading::Greedy), n).tfrc.plr.clone());
        let ac = points(&NODES, |n| r.get(a(Reading::AppLimited), n).comp.plr.clone());
        let bc = points(&NODES, |n| r.get(a(Reading::Greedy), n).comp.plr.clone());
        data.push((
            format!("Table {t}: {} beside {}: loss ratio", app.label(), comp.label()),
            comp,
            paper_t,
            paper_c,
            at,
            bt,
            ac,
            bc,
        ));
    }
    let labels: Vec<[String; 6]> = data
        .iter()
        .map(|d| {
            let c = d.1.label();
            [
                "TFRC, paper".to_string(),
                format!("{c}, paper"),
                "TFRC, reading A".to_string(),
                "TFRC, reading B".to_string(),
                format!("{c}, reading A"),
                format!("{c}, reading B"),
            ]
        })
        .collect();
    let plots: Vec<Plot> = data
        .iter()
        .zip(&labels)
        .map(|((title, _, pt, pc, at, bt, ac, bc), names)| {
            Plot::new(title, "nodes N", "PLR")
                .series(Series::new(&names[0], pt, Style::Markers).like(0))
                .series(Series::new(&names[1], pc, Style::Markers).like(1))
                .series(Series::new(&names[2], &at.0, Style::LinePoints).with_errors(&at.1).like(0))
                .series(Series::new(&names[3], &bt.0, Style::Line).with_errors(&bt.1).like(0))
                .series(Series::new(&names[4], &ac.0, Style::LinePoints).with_errors(&ac.1).like(1))
                .series(Series::new(&names[5], &bc.0, Style::Line).with_errors(&bc.1).like(1))
                .x_range(5.0, 19.0)
                .y_min(0.0)
        })
        .collect();
    let f = "tables-plr.svg";
    write(&opts.out.join(f), &stack(&plots, 720))?;
    out.push((f.to_string(), "Tables 1 to 4: loss ratio against N, the paper's (diamonds) and fairway's two readings (means with 95% confidence intervals)".to_string()));
    Ok(out)
}
