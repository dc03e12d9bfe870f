//! report.html for what is not a single run: a reproduction (its report.md, rendered, with its
//! figures inline) and a sweep or a set of replications (its CSV tables, and a link to each
//! point's own report). Like a run's page, each needs nothing from elsewhere and tells a
//! headless browser what it drew (output/html.rs).

use std::fmt::Write;
use std::fs;
use std::io;
use std::path::Path;

use super::html::{close, escape, figure, head, open};

/// The rows of a CSV text, fields split at commas outside double quotes (quotes removed, `""`
/// read as one quote).
pub(crate) fn csv_rows(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .filter(|l| !l.is_empty())
        .map(|line| {
            let mut fields = vec![String::new()];
            let mut quoted = false;
            let mut chars = line.chars().peekable();
            while let Some(c) = chars.next() {
                match c {
                    '"' if quoted && chars.peek() == Some(&'"') => {
                        chars.next();
                        fields.last_mut().expect("one field").push('"');
                    }
                    '"' => quoted = !quoted,
                    ',' if !quoted => fields.push(String::new()),
                    c => fields.last_mut().expect("one field").push(c),
                }
            }
            fields
        })
        .collect()
}

/// A CSV file as a table, at most `max_rows` rows of it (the page says how many it left out).
fn csv_table(page: &mut String, name: &str, text: &str, max_rows: usize) {
    let rows = csv_rows(text);
    let Some((header, body)) = rows.split_first() else { return };
    let _ = writeln!(page, "<h2><a href=\"{n}\">{n}</a></h2>", n = escape(name));
    page.push_str("<table>\n<tr>");
    for h in header {
        let _ = write!(page, "<th>{}</th>", escape(h));
    }
    page.push_str("</tr>\n");
    for r in body.iter().take(max_rows) {
        page.push_str("<tr>");
        for c in r {
            let number = c.parse::<f64>().is_ok();
            let _ = write!(page, "<td{}>{}</td>", if number { " class=\"n\"" } else { "" }, escape(c));
        }
        page.push_str("</tr>\n");
    }
    page.push_str("</table>\n");
    if body.len() > max_rows {
        let _ = writeln!(page, "<p>The first {max_rows} of {} rows; the file has them all.</p>", body.len());
    }
}

/// Rows of a CSV table a page shows at most.
const MAX_ROWS: usize = 1000;

/// report.html in `dir` for a sweep or replications: `figures` (name, SVG) or, when there are
/// none, why (`no_figure`), then `tables` (CSV files of `dir`, those that exist) and a link to
/// each point folder's report.html.
pub fn write_folder_page(
    dir: &Path,
    title: &str,
    figures: &[(String, String)],
    no_figure: Option<&str>,
    tables: &[&str],
) -> io::Result<()> {
    let mut p = open(title);
    for (name, svg) in figures {
        figure(&mut p, name, svg);
    }
    if let Some(why) = no_figure.filter(|_| figures.is_empty()) {
        let _ = writeln!(p, "<p>No figure: {}.</p>", escape(why));
    }
    for name in tables {
        if let Ok(text) = fs::read_to_string(dir.join(name)) {
            csv_table(&mut p, name, &text, MAX_ROWS);
        }
    }
    let mut points: Vec<String> = fs::read_dir(dir)?
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("report.html").is_file())
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    points.sort_by_key(|n| (n.split('_').next().and_then(|k| k.parse::<u64>().ok()), n.clone()));
    if !points.is_empty() {
        p.push_str("<h2>Points</h2>\n<ul>\n");
        for n in &points {
            let _ = writeln!(p, "<li><a href=\"{n}/report.html\">{n}</a></li>", n = escape(n));
        }
        p.push_str("</ul>\n");
    }
    close(&mut p);
    fs::write(dir.join("report.html"), p)
}

/// report.html beside a reproduction's report.md: the markdown rendered (tables included), each
/// SVG image it shows inlined as a figure with its alt text as caption.
pub fn write_markdown_page(md_path: &Path, title: &str) -> io::Result<()> {
    use pulldown_cmark::{html, Event, Options, Parser, Tag, TagEnd};
    let dir = md_path.parent().unwrap_or(Path::new("."));
    let md = fs::read_to_string(md_path)?;
    let mut body = String::new();
    let mut events = vec![];
    // An image becomes a figure: its SVG's text inline, its alt text the caption.
    let mut image: Option<(String, String)> = None;
    for ev in Parser::new_ext(&md, Options::ENABLE_TABLES) {
        match (&mut image, ev) {
            (None, Event::Start(Tag::Image { dest_url, .. })) if dest_url.ends_with(".svg") => {
                image = Some((dest_url.to_string(), String::new()));
            }
            (Some((_, alt)), Event::Text(t)) => alt.push_str(&t),
            (Some(_), Event::End(TagEnd::Image)) => {
                let (file, alt) = image.take().expect("open image");
                let svg = fs::read_to_string(dir.join(&file))?;
                let mut f = String::new();
                figure(&mut f, &file, &svg);
                // The caption: the alt text, then the file.
                let f = f.replacen("<figcaption>", &format!("<figcaption>{} ", escape(&alt)), 1);
                events.push(Event::Html(f.into()));
            }
            (Some(_), _) => {}
            (None, ev) => events.push(ev),
        }
    }
    html::push_html(&mut body, events.into_iter());
    // report.md opens with its own heading.
    let mut p = head(title);
    p.push_str(&body);
    close(&mut p);
    fs::write(dir.join("report.html"), p)
}

#[cfg(test)]
mod tests {
    use super::csv_rows;

    #[test]
    fn csv_fields_split_outside_quotes() {
        let rows = csv_rows("a,b,c\n1,\"uniform(0s, 1s)\",\"say \"\"hi\"\"\"\n");
        assert_eq!(rows, [vec!["a", "b", "c"], vec!["1", "uniform(0s, 1s)", "say \"hi\""]]);
    }
}
