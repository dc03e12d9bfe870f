//! report.html: a run's tables and figures on one page that opens offline. The figures are the
//! run's SVG files, inline; no style, script or font comes from elsewhere. A few lines of script
//! count the figures the browser drew (each with a size on the page) and the script errors it
//! met, and write both into the page's `<body>` (`data-figures-drawn="drawn/total"`,
//! `data-errors`), where a headless browser's dump of the page shows them: CI's test reads them.

use std::fmt::Write;

use fairway_model::results::RunResult;
use fairway_model::scenario::Scenario;

use super::table;

/// `s` with HTML's special characters escaped.
pub fn escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

const STYLE: &str = "body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}\
table{border-collapse:collapse;margin:0.5em 0 1.5em}td,th{padding:2px 8px;border-bottom:1px solid #ddd}\
td{text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums}th{text-align:left}\
figure{margin:1em 0 2em}figcaption{font-size:90%;color:#555}svg{max-width:100%;height:auto}\
dl{display:grid;grid-template-columns:max-content auto;gap:2px 1em}dt{color:#555}";

const SCRIPT: &str = "var errors=0;window.addEventListener('error',function(){errors++;\
document.body.setAttribute('data-errors',String(errors));});\
window.addEventListener('load',function(){var f=document.querySelectorAll('figure[data-figure]');\
var drawn=0;f.forEach(function(x){var s=x.querySelector('svg');if(s){var b=s.getBoundingClientRect();\
if(b.width>0&&b.height>0){drawn++;}}});\
document.body.setAttribute('data-figures-drawn',drawn+'/'+f.length);\
document.body.setAttribute('data-errors',String(errors));});";

/// Opens a page: its head and title, and the body.
pub fn head(title: &str) -> String {
    let t = escape(title);
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{t}</title>\n<style>{STYLE}</style>\n<script>{SCRIPT}</script>\n</head>\n<body>\n"
    )
}

/// Opens a page with its title as the body's first heading.
pub fn open(title: &str) -> String {
    format!("{}<h1>{}</h1>\n", head(title), escape(title))
}

/// Closes a page [`open`] opened.
pub fn close(page: &mut String) {
    page.push_str("</body>\n</html>\n");
}

/// A table of a summary section.
pub fn section_table(page: &mut String, sec: &table::Section) {
    page.push_str("<table>\n<tr>");
    for (name, _) in &sec.columns {
        let _ = write!(page, "<th>{}</th>", escape(name));
    }
    page.push_str("</tr>\n");
    for r in &sec.rows {
        page.push_str("<tr>");
        for c in r {
            // Numbers (and percentages) right-aligned, so that their digits line up.
            let number = c.trim_end_matches('%').parse::<f64>().is_ok();
            let _ = write!(page, "<td{}>{}</td>", if number { " class=\"n\"" } else { "" }, escape(c));
        }
        page.push_str("</tr>\n");
    }
    page.push_str("</table>\n");
}

/// A figure: an SVG file's text inline, captioned with its file name.
pub fn figure(page: &mut String, name: &str, svg: &str) {
    // An XML declaration has no place inside HTML.
    let svg = match svg.strip_prefix("<?xml") {
        Some(rest) => rest.split_once("?>").map_or(svg, |(_, body)| body),
        None => svg,
    };
    let _ = write!(
        page,
        "<figure data-figure=\"{n}\" id=\"{n}\">\n{}\n<figcaption><a href=\"{n}\">{n}</a></figcaption>\n</figure>\n",
        svg.trim(),
        n = escape(name)
    );
}

/// A run's page: what ran, the summary's tables, the links, every figure, and the folder's
/// other files.
pub fn run_page(res: &RunResult, sc: &Scenario, figures: &[(String, String)], files: &[String]) -> String {
    let s = &res.summary;
    let mut p = open(&format!("fairway: {}", s.scenario));
    if !sc.description.is_empty() {
        let _ = writeln!(p, "<p>{}</p>", escape(&sc.description));
    }
    p.push_str("<dl>\n");
    let mut fact = |k: &str, v: String| {
        let _ = writeln!(p, "<dt>{}</dt><dd>{}</dd>", escape(k), escape(&v));
    };
    fact("seed", s.seed.to_string());
    let live = s.mode.as_deref() == Some("live");
    if live {
        fact("run", format!("live, {} s: real sockets through the emulated bottleneck (docs/live.md)", s.duration_s));
    } else {
        fact("simulated", format!("{} s", s.duration_s));
    }
    if s.measure_from_s > 0.0 {
        fact("measured", format!("from {} s: the figures leave the warm-up before it out", s.measure_from_s));
    }
    if !live {
        fact("events", s.events.to_string());
    }
    fact(
        "complete",
        if s.complete { "yes".into() } else { "no: interrupted, the results cover the run so far".into() },
    );
    fact("fairway", env!("CARGO_PKG_VERSION").to_string());
    p.push_str("</dl>\n<h2>Summary</h2>\n<p>Wire throughput counts the bytes delivered, headers included, over each flow's active time; goodput the application's bytes (docs/glossary.md).</p>\n");
    for sec in table::sections(res) {
        section_table(&mut p, &sec);
    }
    p.push_str("<h2>Links</h2>\n");
    let links = table::Section {
        columns: vec![
            ("link", 0),
            ("queue", 0),
            ("rate Mb/s", 0),
            ("delay ms", 0),
            ("arrivals", 0),
            ("drops", 0),
            ("util", 0),
        ],
        rows: res
            .all_links
            .iter()
            .map(|l| {
                vec![
                    l.name.clone(),
                    l.queue.to_string(),
                    format!("{}", l.rate_bps as f64 / 1e6),
                    format!("{}", l.delay_s * 1e3),
                    l.arrivals_pkts.to_string(),
                    l.drops_pkts.to_string(),
                    format!("{:.1}%", l.utilization * 100.0),
                ]
            })
            .collect(),
    };
    section_table(&mut p, &links);
    if sc.wireless.is_none() && !figures.iter().any(|(n, _)| n == "topology.svg") {
        let _ = writeln!(
            p,
            "<p>The network is not drawn: {} nodes, more than the {} a drawing shows even with its hosts gathered.</p>",
            sc.nodes.len(),
            super::topology::MAX_NODES
        );
    }
    const PATHS: usize = 200;
    p.push_str("<h2>Paths</h2>\n");
    let paths = table::Section {
        columns: vec![("flow", 0), ("path", 0), ("base RTT ms", 0)],
        rows: s
            .flows
            .iter()
            .take(PATHS)
            .map(|f| {
                vec![
                    f.name.clone(),
                    if f.path.is_empty() { "across the wireless network".into() } else { f.path.join(" → ") },
                    f.base_rtt_s.map_or("-".into(), |r| format!("{}", (r * 1e6).round() / 1e3)),
                ]
            })
            .collect(),
    };
    section_table(&mut p, &paths);
    if s.flows.len() > PATHS {
        let _ = writeln!(p, "<p>The first {PATHS} of {} flows; summary.json has them all.</p>", s.flows.len());
    }
    p.push_str("<p>Base RTT: the delays of the links a flow's data crosses and of those its acknowledgements cross back, without serialisation or queueing.</p>\n");
    p.push_str("<h2>Figures</h2>\n");
    for (name, svg) in figures {
        figure(&mut p, name, svg);
    }
    p.push_str("<h2>Files</h2>\n<ul>\n");
    for f in files {
        let _ = writeln!(p, "<li><a href=\"{f}\">{f}</a></li>", f = escape(f));
    }
    p.push_str("</ul>\n");
    close(&mut p);
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped() {
        assert_eq!(escape("r1->r2 & <b>\"x\"'"), "r1-&gt;r2 &amp; &lt;b&gt;&quot;x&quot;&#39;");
    }

    #[test]
    fn a_figure_drops_its_xml_declaration() {
        let mut p = String::new();
        figure(&mut p, "a.svg", "<?xml version=\"1.0\"?>\n<svg></svg>");
        assert!(p.contains("<figure data-figure=\"a.svg\" id=\"a.svg\">\n<svg></svg>\n"), "{p}");
    }
}
