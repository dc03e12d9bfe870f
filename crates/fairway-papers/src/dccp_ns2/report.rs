//! dccp-ns2's report.md, claims.csv and figures.

use std::fmt::Write as _;
use std::path::PathBuf;

use super::super::{write, write_report, ReproduceError, ReproduceOptions};
use super::claims::{build, depends_on_the_wait, window_limit_bps};
use super::ns2_reference::Reference;
use super::{Change, Results, TRANSPORTS};
use fairway_report::output::svg::{stack, Plot, Series, Style};

fn transport_label(t: &str) -> &'static str {
    match t {
        "tcp" => "TCP (Tahoe, window 20)",
        "ccid2" => "CCID2",
        _ => "CCID3",
    }
}

pub fn write_all(r: &Results, opts: &ReproduceOptions) -> Result<PathBuf, ReproduceError> {
    let ns2 = Reference::load();
    let c = build(r, &ns2);
    write(&opts.out.join("claims.csv"), &c.csv())?;
    let seeds = opts.seeds();
    let mut s = String::new();
    let _ = writeln!(s, "# dccp-ns2 reproduced: TCP vs DCCP CCID2 vs CCID3 in ns-2\n");
    let _ = writeln!(s, "**{}** The table below lists each; claims.csv holds the same rows.\n", c.summary());
    let _ = writeln!(
        s,
        "The paper runs three clients on a dumbbell in ns-2.35 (10 Mb/s and 2 ms links, a 20-packet queue, 500 B packets) \
with TCP, DCCP's CCID2 and DCCP's CCID3 in turn, in a default set-up and with one change at a time (the queue at 100 \
packets, the bottleneck at 20 Mb/s, its delay at 10 and 50 ms), and shows each client's throughput over time (Figures \
3-17). It prints no number: every claim below is a statement of its §IV or its conclusion, checked as a direction on \
fairway's means and their 95% confidence intervals by the rules every reproduction follows (docs/reproductions.md): \
a fair share is the clients' largest mean within 1.25 times their smallest (the smaller within 20% of the larger), an \
advantage a ratio above 1.25. Each claim is judged twice. First, the primary reading and the one counted: the \
set-up as the paper states it, which has no random input, so one deterministic run per set-up, as ns-2's agents give \
it, on ns-2's clock (simultaneous events in ns-2's order: docs/semantics.md, \"Phase effects\"), judged on its \
numbers (a direction on its sign). Second, shown and not counted: the same with a random wait of up \
to 400 us before each packet, which the paper does not have (it breaks the drop-tail phase effects of deterministic \
runs), over the seeds. Each row names its reading; the section after the table lists the claims whose verdict \
depends on the wait. Made by `fairway reproduce dccp-ns2` (fairway {}): the runs with the wait with seeds {} to {} \
({} runs each). CCID2 and CCID3 run in fairway's ns-2 flavour, which the validation suite checks against ns-2.35's \
agents (docs/semantics.md).\n",
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
    let _ = writeln!(s, "## Readings\n");
    let _ = writeln!(
        s,
        "What the paper leaves open, and the reading taken (shared/notes/seed001_spec.md, §5):\n\n\
- Table 4's schedule is garbled (\"Start time 0s AR 10s / Stoptume | 3505 50s 50s\"): client 1 from 0 s to 35 s, \
client 2 from 5 s, client 3 from 10 s, both to 50 s; the run ends at 55 s, where the figures' axes end. The measures \
are taken over 10-35 s, where all three are active.\n\
- The application is a CBR of unstated rate: one at or above the link's rate keeps every sender backlogged, which is \
what a greedy FTP does, so the clients are greedy.\n\
- The queues are DropTail (not stated); the TCP is ns-2's Agent/TCP, Tahoe (no variant is named), with Table 2's \
window of 20.\n\
- The delay changed is the bottleneck's; the access links stay at 2 ms. Round trips: 12, 28 and 108 ms.\n\
- Throughput is the payload delivered to each client per 1 s bin (the figures' unit, \"bps/s\" up to 1.4e6, reads as \
bytes per second; fairway reports bits per second). \"Fluctuation\" is the coefficient of variation of a client's 1 s \
samples over 10-35 s, averaged over the three clients; \"stabilize\" is the time from client 3's start until its 3 s \
average first reaches 90% of its mean over 25-35 s; \"velocity\" is the dominant period of client 3's 1 s series over \
15-50 s (the lag of its largest autocorrelation above 0.3, 2 to 17 s).\n\
- The primary reading has no random wait: every seed gives the same run, so there is one. The second reading has \
each packet leave its server after a random wait below one packet time at the bottleneck (400 us), which breaks the \
phase effects of deterministic drop-tail runs: which client loses when packets reach a full queue at the same instant \
is then decided by chance, not by the simulator's order of ties. The primary reading's runs order their ties as ns-2's \
scheduler does (`clock = \"ns2\"`): on fairway's own clock, which orders ties by when they were scheduled, TCP's default \
set-up settles in another phase than ns-2's (docs/semantics.md, \"Phase effects\").\n"
    );
    let _ = writeln!(s, "## Claims\n\n{}", c.markdown());
    let _ = writeln!(s, "## Which verdicts depend on the random wait\n");
    let differ = depends_on_the_wait(&c);
    if differ.is_empty() {
        let _ = writeln!(s, "None: every claim gets the same verdict with and without the wait.\n");
    } else {
        let _ = writeln!(
            s,
            "{} of the {} claims get a different verdict with the wait than without it: these rest on one phase outcome of a \
deterministic run, or on a difference the seeds do not make sure of.\n\n| claim | without the wait (counted) | with it |\n|---|---|---|",
            differ.len(),
            c.counted().count()
        );
        for (claim, a, b) in differ {
            let _ = writeln!(s, "| {claim} | {} | {} |", a.name(), b.name());
        }
        let _ = writeln!(s);
    }

    let _ = writeln!(s, "## fairway's runs with the random wait\n");
    let _ = writeln!(
        s,
        "Each client's mean throughput over 10-35 s (Mb/s of payload, mean over the seeds with its 95% confidence \
interval), Jain's index of the three, the coefficient of variation of the 1 s samples, and the newcomer's time to \
stabilize. TCP's window limit, 20 packets per round trip: {:.2} Mb/s per client by default, {:.2} at 20 Mb/s, {:.2} \
at 10 ms and {:.2} at 50 ms.\n",
        window_limit_bps(Change::Default) / 1e6,
        window_limit_bps(Change::Rate20) / 1e6,
        window_limit_bps(Change::Delay10) / 1e6,
        window_limit_bps(Change::Delay50) / 1e6
    );
    let _ = writeln!(
        s,
        "| transport | run | figure | client 1 | client 2 | client 3 | Jain | CV | stabilize (s) |\n|---|---|---|---|---|---|---|---|---|"
    );
    for t in TRANSPORTS {
        for ch in Change::ALL {
            let m = |k: usize| r.est(t, ch, |x| x.mean_bps[k] / 1e6).show(2);
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                transport_label(t),
                ch.label(),
                ch.figure(t),
                m(0),
                m(1),
                m(2),
                r.est(t, ch, |x| x.jain).show(3),
                r.est(t, ch, |x| x.cv).show(3),
                r.est(t, ch, |x| x.settle_s).show(1)
            );
        }
    }
    let _ = writeln!(s);

    let _ = writeln!(s, "## Without the random wait, beside ns-2\n");
    let _ = writeln!(
        s,
        "The primary reading's runs, without the random wait before each packet: deterministic, as ns-2's, on ns-2's clock, and so one \
run each, beside ns-2's runs with ECN off (deterministic too; the next section). Means over 10-35 s in Mb/s of payload, and the \
coefficient of variation.\n"
    );
    let _ = writeln!(
        s,
        "| transport | run | fairway: client 1 / 2 / 3 | CV | ns-2: client 1 / 2 / 3 | CV |\n|---|---|---|---|---|---|"
    );
    for t in TRANSPORTS {
        for ch in Change::ALL {
            let d = r.deterministic(t, ch);
            let n = ns2.runs(t, ch.stem(), false);
            let (nm, ncv) = n.first().map_or(("-".to_string(), "-".to_string()), |x| {
                (
                    format!("{:.2} / {:.2} / {:.2}", x.mean_bps[0] / 1e6, x.mean_bps[1] / 1e6, x.mean_bps[2] / 1e6),
                    x.cv.map_or("-".into(), |v| format!("{v:.3}")),
                )
            });
            let _ = writeln!(
                s,
                "| {} | {} | {:.2} / {:.2} / {:.2} | {:.3} | {nm} | {ncv} |",
                transport_label(t),
                ch.label(),
                d.mean_bps[0] / 1e6,
                d.mean_bps[1] / 1e6,
                d.mean_bps[2] / 1e6,
                d.cv
            );
        }
    }
    let _ = writeln!(s);

    let _ = writeln!(s, "## ns-2.35's runs of the same grid\n");
    let _ = writeln!(
        s,
        "ns-2 2.35 ({}) run on {} by `{}` (validation/dccp-ns2.tcl: the same readings, without the random wait, which \
ns-2's agents do not have). With ECN off ns-2's runs are deterministic: one each. With ECN on, its default, DCCP draws \
each packet's ECN nonce from a generator seeded from the clock, so no two runs are alike: those columns count over the \
repeated runs. A failed nonce check (\"ECN check failed!\") resets the connection with Aggression Penalty, which ends \
the flow.\n",
        ns2.ns2, ns2.date, ns2.made_by
    );
    let _ = writeln!(
        s,
        "| transport | run | ECN off: client 1 / 2 / 3 (Mb/s) | CV | ECN on: runs with a stalled client | nonce failures |\n|---|---|---|---|---|---|"
    );
    for t in TRANSPORTS {
        for ch in Change::ALL {
            let off = ns2.runs(t, ch.stem(), false);
            let on = ns2.runs(t, ch.stem(), true);
            let means = off.first().map_or("-".into(), |x| {
                format!("{:.2} / {:.2} / {:.2}", x.mean_bps[0] / 1e6, x.mean_bps[1] / 1e6, x.mean_bps[2] / 1e6)
            });
            let cv = off.first().and_then(|x| x.cv).map_or("-".into(), |v| format!("{v:.3}"));
            let (stalled, failures) = if on.is_empty() {
                ("-".to_string(), "-".to_string())
            } else {
                (
                    format!("{} of {}", on.iter().filter(|x| x.stalled > 0).count(), on.len()),
                    on.iter().map(|x| x.nonce_failures).sum::<usize>().to_string(),
                )
            };
            let _ =
                writeln!(s, "| {} | {} | {means} | {cv} | {stalled} | {failures} |", transport_label(t), ch.label());
        }
    }
    let _ = writeln!(
        s,
        "\nWith the nonce artefact (ECN on) the paper's Figure 17 is what ns-2 shows in most runs: CCID3 stops at 50 ms. \
Without it (ECN off) CCID3 keeps its share, as fairway's RFC-following CCID3 does; the paper's numbers for that run \
would have been the ECN-off row.\n"
    );

    let figs = figures(r, opts)?;
    write_report(opts, s, &figs.iter().map(|(f, c)| (f.as_str(), c.clone())).collect::<Vec<_>>())
}

/// One panel: (title, each client's [(time s, Mb/s)]).
type Panel = (String, [Vec<(f64, f64)>; 3]);

/// Figures 3-17: each client's throughput per second in seed 1's run, five panels per
/// transport.
fn figures(r: &Results, opts: &ReproduceOptions) -> Result<Vec<(String, String)>, ReproduceError> {
    let mut out = vec![];
    for t in TRANSPORTS {
        let lines: Vec<Panel> = Change::ALL
            .iter()
            .filter_map(|&ch| {
                let m = r.first(t, ch)?;
                let pts = std::array::from_fn(|k| {
                    m.series[k].iter().enumerate().map(|(i, v)| (i as f64 + 0.5, v / 1e6)).collect()
                });
                Some((format!("{}, {} (Figure {})", transport_label(t), ch.label(), ch.figure(t)), pts))
            })
            .collect();
        let mut plots = vec![];
        for (title, pts) in &lines {
            let mut p = Plot::new(title, "time (s)", "Mb/s").x_range(0.0, 55.0).y_min(0.0);
            for (k, name) in ["client 1", "client 2", "client 3"].iter().enumerate() {
                p = p.series(Series::new(name, &pts[k], Style::Line).like(k));
            }
            plots.push(p);
        }
        let first = Change::Default.figure(t);
        let f = format!("fig{}-{}.svg", first, first + 4);
        write(&opts.out.join(&f), &stack(&plots, 720))?;
        out.push((
            f,
            format!(
                "Figures {}-{}: {}, each client's throughput per second (payload), seed {}'s run of each set-up",
                first,
                first + 4,
                transport_label(t),
                opts.first_seed
            ),
        ));
    }
    Ok(out)
}
