//! The wireless section of janani-tfrc's report.md (Tables 5 and 6) and its figure.

use std::fmt::Write as _;

use super::super::{write, ReproduceError, ReproduceOptions};
use super::report::points;
use super::wireless::{Results, Setup, Table, NODE_COUNTS};
use super::wireless_claims::{closest, rows};
use super::Reading;
use fairway_report::output::svg::{Plot, Series, Style};

pub fn section(w: &Results) -> String {
    let (best, all) = closest(w);
    let mut s = String::new();
    let _ = writeln!(s, "## Wireless (§5.2): Tables 5 and 6\n");
    let distances: Vec<String> = all.iter().map(|(s, d)| format!("{:.2} for {}", d, s.label())).collect();
    let _ = writeln!(
        s,
        "The paper moves its nodes by random waypoint over 1000 m x 1000 m for 100 s and runs VoIP (84 kb/s of 160 B) \
over TFRC beside UDP at pause times of 10 to 80 s (speed 10, Table 5), and video conference (512 kb/s of 1000 B) over TFRC \
beside TCP at speeds of 10 to 60 (pause 10 s, Table 6). It names no node count, MAC, radio, routing or placement of the flows. \
The scenario files (scenarios/janani-tfrc/wireless-*.toml) take ns-2's standard wireless node (802.11 at 1 Mb/s with RTS/CTS, \
two-ray ground with its 250 m range, a PriQueue of 50), AODV, speeds in m/s the same on every move, one TFRC flow n0 -> n1 \
and one comparator flow n2 -> n3, UDP at the VoIP rate (the wired runs' 1 Mb/s of UDP would fill an 802.11 link of 1 Mb/s \
on its own) and TCP as Agent/TCP with a window of 10. Each table runs at N = {} and {} nodes (the notes propose 10; the \
paper's near-lossless rows suggest a network that stays connected) and under both readings of the TFRC rate. The mean \
|ln(fairway / paper)| over the tables' loss-ratio cells is {}, so the wireless claims use **{}**.\n",
        NODE_COUNTS[0],
        NODE_COUNTS[1],
        distances.join(", "),
        best.label()
    );
    let _ = writeln!(
        s,
        "A packet can reach its destination only while some chain of nodes, each within 250 m of the next, joins the two \
ends. The \"joined\" columns give the share of the time that held in fairway's runs, from the nodes' paths alone. A \
sender at a constant rate (UDP here) cannot deliver a larger share than that by more than what AODV buffers while it \
waits for a route (64 packets); TFRC and TCP send less while their ends are apart, so their ratios can lie above it.\n"
    );
    for t in Table::ALL {
        let comp = t.comp().label();
        let _ = writeln!(s, "### Table {}: {} over TFRC beside {comp}, delivery ratio\n", t.number(), t.app().label());
        let setups = Setup::all();
        let head: Vec<String> = setups.iter().map(|s| s.label()).collect();
        let _ = writeln!(
            s,
            "| {} | TFRC paper | {} | {comp} paper | {} | joined, N = {} | joined, N = {} |",
            t.x_name(),
            head.join(" | "),
            head.join(" | "),
            NODE_COUNTS[0],
            NODE_COUNTS[1]
        );
        let _ = writeln!(s, "|{}", "---|".repeat(5 + 2 * setups.len()));
        for &(x, tp, _, cp, _) in rows(t) {
            let tf: Vec<String> = setups.iter().map(|&st| w.get(t, st, x).tfrc.pdr.show(4)).collect();
            let co: Vec<String> = setups.iter().map(|&st| w.get(t, st, x).comp.pdr.show(4)).collect();
            let joined = |n| {
                let st = Setup { reading: best.reading, nodes: n };
                format!("{:.1}%", w.get(t, st, x).connected.mean * 100.0)
            };
            let _ = writeln!(
                s,
                "| {x} | {tp} | {} | {cp} | {} | {} | {} |",
                tf.join(" | "),
                co.join(" | "),
                joined(NODE_COUNTS[0]),
                joined(NODE_COUNTS[1])
            );
        }
        s.push('\n');
        let _ = writeln!(
            s,
            "With {}: loss ratios, delays (Fig. 11 is Table 5's; the paper states no finding of it), rates, and the \
drops per run summed over the nodes by cause (data and control packets).\n",
            best.label()
        );
        let _ = writeln!(
            s,
            "| {} | TFRC PLR paper | fairway | {comp} PLR paper | fairway | TFRC delay (ms) | {comp} delay (ms) | TFRC kb/s | \
{comp} kb/s | no route | broken link | queue or ARP |",
            t.x_name()
        );
        let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|---|---|---|");
        for &(x, _, tl, _, cl) in rows(t) {
            let p = w.get(t, best, x);
            let _ = writeln!(
                s,
                "| {x} | {tl} | {} | {cl} | {} | {} | {} | {} | {} | {:.0} | {:.0} | {:.0} |",
                p.tfrc.plr.show(4),
                p.comp.plr.show(4),
                p.tfrc.delay_ms.show(0),
                p.comp.delay_ms.show(0),
                p.tfrc.kbps.show(0),
                p.comp.kbps.show(0),
                p.drops.no_route,
                p.drops.link,
                p.drops.queue
            );
        }
        s.push('\n');
    }
    s.push_str(&figures_section(&w.figures));
    s
}

/// Figures 8-10 and 12-17: each class's delivery ratio, delay and loss ratio at each x, under
/// both readings.
fn figures_section(r: &super::wireless_figures::Results) -> String {
    use super::wireless_figures::Figures;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "### Figures 8-10 and 12-17\n\nThe figures are lost, and §5.2 states only orderings: TFRC above the other \
protocol on delivery and below it on delay and loss. No x values are given for Figures 8-10 and 15-17; the x each runs \
at is named in its scenario file and in its claims. Means over the seeds, TFRC then the other protocol.\n"
    );
    for f in Figures::ALL {
        let _ = writeln!(
            s,
            "Figures {}-{}: {} beside {} ({}).\n\n| reading | {} | TFRC PDR | {c} PDR | TFRC delay (ms) | {c} delay (ms) | TFRC PLR | {c} PLR |\n|---|---|---|---|---|---|---|---|",
            f.first(),
            f.first() + 2,
            f.app(),
            f.comp().to_uppercase(),
            f.x_reading(),
            f.x_name(),
            c = f.comp().to_uppercase()
        );
        for reading in super::Reading::ALL {
            for &x in f.xs() {
                let p = r.get(f, reading, x);
                let _ = writeln!(
                    s,
                    "| {} | {x} | {:.4} | {:.4} | {:.0} | {:.0} | {:.4} | {:.4} |",
                    reading.label(),
                    p.tfrc.pdr.mean,
                    p.comp.pdr.mean,
                    p.tfrc.delay_ms.mean,
                    p.comp.delay_ms.mean,
                    p.tfrc.plr.mean,
                    p.comp.plr.mean
                );
            }
        }
        s.push('\n');
    }
    s
}

/// Tables 5 and 6, one figure each: each class's delivery ratio against the table's x, the
/// paper's and fairway's at both node counts under the chosen reading, with the share of time
/// the ends were joined.
pub fn figures(w: &Results, opts: &ReproduceOptions) -> Result<Vec<(String, String)>, ReproduceError> {
    let (best, _) = closest(w);
    let reading = best.reading;
    let mut data = vec![];
    for t in Table::ALL {
        let paper_t: Vec<(f64, f64)> = rows(t).iter().map(|r| (r.0 as f64, r.1.parse().unwrap_or(f64::NAN))).collect();
        let paper_c: Vec<(f64, f64)> = rows(t).iter().map(|r| (r.0 as f64, r.3.parse().unwrap_or(f64::NAN))).collect();
        let mut fw = vec![];
        for n in NODE_COUNTS {
            let st = Setup { reading, nodes: n };
            fw.push((
                points(t.xs(), |x| w.get(t, st, x).tfrc.pdr.clone()),
                points(t.xs(), |x| w.get(t, st, x).comp.pdr.clone()),
                points(t.xs(), |x| w.get(t, st, x).connected.clone()),
            ));
        }
        let title = format!("Table {}: {} beside {}: delivery ratio", t.number(), t.app().label(), t.comp().label());
        data.push((t, title, paper_t, paper_c, fw));
    }
    let r = if reading == Reading::AppLimited { "A" } else { "B" };
    let names: Vec<Vec<String>> = data
        .iter()
        .map(|(t, ..)| {
            let c = t.comp().label();
            let mut v = vec!["TFRC, paper".to_string(), format!("{c}, paper")];
            for n in NODE_COUNTS {
                v.push(format!("TFRC, {r}, N = {n}"));
                v.push(format!("{c}, {r}, N = {n}"));
                v.push(format!("ends joined, N = {n}"));
            }
            v
        })
        .collect();
    let plots: Vec<Plot> = data
        .iter()
        .zip(&names)
        .map(|((t, title, pt, pc, fw), names)| {
            let xs = t.xs();
            let mut p = Plot::new(title, t.x_name(), "PDR")
                .series(Series::new(&names[0], pt, Style::Markers).like(0))
                .series(Series::new(&names[1], pc, Style::Markers).like(1));
            for (k, (tf, co, joined)) in fw.iter().enumerate() {
                let style = if k == 0 { Style::LinePoints } else { Style::Line };
                p = p
                    .series(Series::new(&names[2 + 3 * k], &tf.0, style).with_errors(&tf.1).like(0))
                    .series(Series::new(&names[3 + 3 * k], &co.0, style).with_errors(&co.1).like(1))
                    .series(Series::new(&names[4 + 3 * k], &joined.0, style).like(2));
            }
            // A delivery ratio lies in [0, 1]; the confidence intervals of a few seeds reach past.
            p.x_range(xs[0] as f64 - 5.0, xs[xs.len() - 1] as f64 + 5.0).y_min(0.0).y_max(1.05).size(720, 400)
        })
        .collect();
    let mut out = vec![];
    for (plot, (t, ..)) in plots.iter().zip(&data) {
        let f = format!("wireless-table{}.svg", t.number());
        write(&opts.out.join(&f), &plot.to_svg())?;
        let what = match t {
            Table::Pause => "against the pause time",
            Table::Speed => "against the speed",
        };
        out.push((
            f,
            format!(
                "Table {}: delivery ratio {what}, the paper's (diamonds) and fairway's under reading {r} at N = {} (with \
points) and N = {} (means with 95% confidence intervals), and the share of time each flow's ends were joined by some path",
                t.number(),
                NODE_COUNTS[0],
                NODE_COUNTS[1]
            ),
        ));
    }
    Ok(out)
}
