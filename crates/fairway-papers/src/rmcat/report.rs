//! The suite's pages: a report per case (its measures by controller, and per controller the
//! first seed's rates against the bottleneck's capacity, delays over time and their
//! distribution) and the summary of cases by controller, as Markdown with an HTML twin, and
//! summary.csv with every run's measures.

use std::fmt::Write as _;
use std::path::PathBuf;

use fairway_model::delay_hist::bucket_top_s;
use fairway_report::output::svg::{stack, Plot, Series, Style};

use super::{bottleneck, media_flows, window_rates, CaseRun, Measures};
use crate::{write, ReproduceError, ReproduceOptions};

/// The mean of the `Some` values, and how many there were.
fn mean_of(x: impl Iterator<Item = Option<f64>>) -> Option<f64> {
    let v: Vec<f64> = x.flatten().collect();
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// A run's measures averaged over its seeds.
fn mean(ms: &[Measures]) -> Measures {
    let n = ms.len().max(1) as f64;
    Measures {
        media_rate_bps: ms.iter().map(|m| m.media_rate_bps).sum::<f64>() / n,
        utilisation: mean_of(ms.iter().map(|m| m.utilisation)),
        delay_mean_s: mean_of(ms.iter().map(|m| m.delay_mean_s)),
        delay_p50_s: mean_of(ms.iter().map(|m| m.delay_p50_s)),
        delay_p95_s: mean_of(ms.iter().map(|m| m.delay_p95_s)),
        delay_p99_s: mean_of(ms.iter().map(|m| m.delay_p99_s)),
        loss: ms.iter().map(|m| m.loss).sum::<f64>() / n,
        feedback_overhead: ms.iter().map(|m| m.feedback_overhead).sum::<f64>() / n,
        jain: mean_of(ms.iter().map(|m| m.jain)),
        convergence_s: mean_of(ms.iter().map(|m| m.convergence_s)),
        converged: ms.iter().map(|m| m.converged).sum(),
        periods: ms.iter().map(|m| m.periods).sum(),
    }
}

fn ms(x: Option<f64>) -> String {
    x.map_or("-".into(), |v| format!("{:.0}", v * 1e3))
}

fn num(x: Option<f64>, decimals: usize) -> String {
    x.map_or("-".into(), |v| format!("{v:.decimals$}"))
}

const HEADER: &str = "| controller | media rate (kb/s) | utilisation | delay mean / p50 / p95 / p99 (ms) | loss | feedback overhead | Jain | convergence (s; converged / periods) |\n|---|---|---|---|---|---|---|---|\n";

fn row(name: &str, m: &Measures) -> String {
    format!(
        "| {name} | {:.0} | {} | {} / {} / {} / {} | {:.2}% | {:.2}% | {} | {} ({} / {}) |\n",
        m.media_rate_bps / 1e3,
        num(m.utilisation, 2),
        ms(m.delay_mean_s),
        ms(m.delay_p50_s),
        ms(m.delay_p95_s),
        ms(m.delay_p99_s),
        m.loss * 100.0,
        m.feedback_overhead * 100.0,
        num(m.jain, 3),
        num(m.convergence_s, 1),
        m.converged,
        m.periods,
    )
}

/// Writes `<out>/<case>/report.md` (and .html) with its figures.
pub(super) fn write_case(opts: &ReproduceOptions, case: &str, runs: &[CaseRun]) -> Result<(), ReproduceError> {
    let dir = opts.out.join(case);
    std::fs::create_dir_all(&dir).map_err(|e| ReproduceError::Io(dir.clone(), e))?;
    let Some(first) = runs.first() else { return Ok(()) };
    let mut md = format!("# RFC 8867 {case}\n\n{}\n\n", first.scenario.description);
    let seeds = &first.seeds;
    let _ = writeln!(
        md,
        "Seeds {}; measures of the media flows together, the mean over the seeds (docs/scenarios.md, \"fairway suite rmcat\", defines each).\n",
        seeds.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", ")
    );
    let mut variants: Vec<&str> = vec![];
    for r in runs {
        if !variants.contains(&r.variant.as_str()) {
            variants.push(&r.variant);
        }
    }
    for v in &variants {
        if !v.is_empty() {
            let _ = writeln!(md, "### {v}\n");
        }
        md.push_str(HEADER);
        for r in runs.iter().filter(|r| r.variant == *v) {
            md.push_str(&row(&r.controller, &mean(&r.measures)));
        }
        md.push('\n');
    }
    for r in runs.iter().filter(|r| r.prio_dropped) {
        let _ =
            writeln!(md, "{} takes no priority on an uncoupled flow: it ran this case without `prio`.\n", r.controller);
    }
    md.push_str("## Figures (first seed)\n\n");
    for (r, k) in runs.iter().zip(0..) {
        let (time, cdf) = figures(r);
        // Figures by controller, numbered by variant after the first.
        let stem = match variants.iter().position(|v| *v == r.variant) {
            Some(0) | None => r.controller.clone(),
            Some(n) => format!("{}-{}", r.controller, n + 1),
        };
        let _ = k;
        let (f, g) = (format!("{stem}.svg"), format!("{stem}-delay-cdf.svg"));
        if !r.variant.is_empty() {
            let _ = writeln!(md, "### {}, {}\n", r.controller, r.variant);
        }
        write(&dir.join(&f), &time)?;
        write(&dir.join(&g), &cdf)?;
        let _ = writeln!(
            md,
            "{c}: rates against the bottleneck's capacity, and one-way delays\n\n![{c}]({f})\n\n{c}: the distribution of one-way delays\n\n![{c}]({g})\n",
            c = r.controller
        );
    }
    let path = dir.join("report.md");
    write(&path, &md)?;
    fairway_report::output::html_pages::write_markdown_page(&path, &format!("fairway suite rmcat: {case}"))
        .map_err(|e| ReproduceError::Io(path.with_extension("html"), e))?;
    Ok(())
}

/// One line of the rate figure: (name, [(time s, kb/s)], how it is drawn).
type RateLine = (String, Vec<(f64, f64)>, Style);

/// Two figures: over time, each media flow's rate (1 s windows) and its controller's target
/// with the bottleneck's capacity above each one's mean delay per bin; and each one's delay
/// distribution.
fn figures(r: &CaseRun) -> (String, String) {
    let res = &r.first;
    let media = media_flows(res);
    let flows = &res.summary.flows;
    let end = res.summary.duration_s;
    let mut rate_lines: Vec<RateLine> = vec![];
    if let Some((_, cap)) = bottleneck(&r.scenario) {
        let mut pts: Vec<(f64, f64)> = cap.iter().map(|&(t, c)| (t, c / 1e3)).collect();
        pts.push((end, pts.last().map_or(0.0, |p| p.1)));
        rate_lines.push(("capacity".into(), pts, Style::Step));
    }
    for &i in &media {
        let pts: Vec<(f64, f64)> = window_rates(res, i).iter().map(|&(t, v)| (t + 0.5, v / 1e3)).collect();
        rate_lines.push((format!("{} received", flows[i].name), pts, Style::Line));
        if let Some(log) = res.logs_named("target_bps").find(|l| l.flow == i) {
            let mut pts: Vec<(f64, f64)> = log.points.iter().map(|&(t, v)| (t, v / 1e3)).collect();
            pts.push((flows[i].stop_s, pts.last().map_or(0.0, |p| p.1)));
            rate_lines.push((format!("{} target", flows[i].name), pts, Style::Step));
        }
    }
    let bin = res.bin.as_secs_f64();
    let delay_lines: Vec<(String, Vec<(f64, f64)>)> = media
        .iter()
        .map(|&i| {
            let pts = res.flow_bins[i]
                .iter()
                .enumerate()
                .filter(|(_, b)| b.delay_n > 0)
                .map(|(k, b)| ((k as f64 + 0.5) * bin, b.delay_sum_s / b.delay_n as f64 * 1e3))
                .collect();
            (flows[i].name.clone(), pts)
        })
        .collect();
    let cdf_lines: Vec<(String, Vec<(f64, f64)>)> = media
        .iter()
        .filter_map(|&i| {
            let h = res.delay_hists.get(i)?;
            let n = h.count() as f64;
            let mut acc = 0.0;
            let pts = h
                .buckets()
                .map(|(b, c)| {
                    acc += c as f64;
                    (bucket_top_s(b) * 1e3, acc / n)
                })
                .collect();
            (n > 0.0).then(|| (flows[i].name.clone(), pts))
        })
        .collect();
    let title_rate = format!("{}: {} rates", r.case, r.controller);
    let title_delay = format!("{}: {} one-way delay per bin", r.case, r.controller);
    let title_cdf = format!("{}: {} delay distribution", r.case, r.controller);
    let mut p1 = Plot::new(&title_rate, "time (s)", "kb/s").y_min(0.0);
    for (name, pts, style) in &rate_lines {
        p1 = p1.series(Series::new(name, pts, *style));
    }
    let mut p2 = Plot::new(&title_delay, "time (s)", "ms").y_min(0.0);
    for (name, pts) in &delay_lines {
        p2 = p2.line(name, pts);
    }
    let mut p3 = Plot::new(&title_cdf, "one-way delay (ms)", "fraction of packets").y_min(0.0).y_max(1.0);
    for (name, pts) in &cdf_lines {
        p3 = p3.step(name, pts);
    }
    (stack(&[p1, p2], 900), p3.size(900, 400).to_svg())
}

/// Writes `<out>/report.md` (and .html), the cases by controller, and `<out>/summary.csv`;
/// returns the report's path.
pub(super) fn write_summary(opts: &ReproduceOptions, runs: &[CaseRun]) -> Result<PathBuf, ReproduceError> {
    let mut md = String::from("# fairway suite rmcat: RFC 8867's test cases\n\n");
    let _ = writeln!(
        md,
        "Each case's media flows with each controller, the mean over seeds {}; each case's own report is <case>/report.md. \
         Media rate: the media flows' mean throughput at their receivers; utilisation: what the bottleneck (the case's first \
         monitored link) carried over its capacity (RFC 8868 §3 item 10), over 1 s windows while any media flow runs; delay: \
         the media flows' packets together; convergence: docs/scenarios.md, \"Convergence\".\n",
        opts.seeds().iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", ")
    );
    md.push_str("| case | variant | controller | media rate (kb/s) | utilisation | delay p50 / p95 (ms) | loss | Jain | convergence (s) |\n|---|---|---|---|---|---|---|---|---|\n");
    for r in runs {
        let m = mean(&r.measures);
        let _ = writeln!(
            md,
            "| [{c}]({c}/report.md) | {} | {} | {:.0} | {} | {} / {} | {:.2}% | {} | {} ({} / {}) |",
            r.variant,
            r.controller,
            m.media_rate_bps / 1e3,
            num(m.utilisation, 2),
            ms(m.delay_p50_s),
            ms(m.delay_p95_s),
            m.loss * 100.0,
            num(m.jain, 3),
            num(m.convergence_s, 1),
            m.converged,
            m.periods,
            c = r.case,
        );
    }
    let mut csv = String::from(
        "case,variant,controller,seed,media_rate_bps,utilisation,delay_mean_s,delay_p50_s,delay_p95_s,delay_p99_s,loss,feedback_overhead,jain,convergence_s,converged,periods\n",
    );
    let opt = |x: Option<f64>| x.map_or(String::new(), |v| format!("{v}"));
    for r in runs {
        for (seed, m) in r.seeds.iter().zip(&r.measures) {
            let _ = writeln!(
                csv,
                "{},\"{}\",{},{seed},{},{},{},{},{},{},{},{},{},{},{},{}",
                r.case,
                r.variant.replace('"', "\"\""),
                r.controller,
                m.media_rate_bps,
                opt(m.utilisation),
                opt(m.delay_mean_s),
                opt(m.delay_p50_s),
                opt(m.delay_p95_s),
                opt(m.delay_p99_s),
                m.loss,
                m.feedback_overhead,
                opt(m.jain),
                opt(m.convergence_s),
                m.converged,
                m.periods,
            );
        }
    }
    write(&opts.out.join("summary.csv"), &csv)?;
    let path = opts.out.join("report.md");
    write(&path, &md)?;
    fairway_report::output::html_pages::write_markdown_page(&path, "fairway suite rmcat")
        .map_err(|e| ReproduceError::Io(path.with_extension("html"), e))?;
    Ok(path)
}
