//! report.html as a user opens it: every run's folder has one, with the summary's tables and
//! every figure of the folder inline; a headless browser (Debian's chromium, where installed:
//! CI installs it and sets FAIRWAY_REQUIRE_CHROMIUM) loads it offline without a script error
//! and draws every figure with a size on the page.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod browser;
mod referee;
use browser::{chromium, loaded_body};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn fairway(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fairway")).args(args).current_dir(repo()).output().expect("run fairway")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("fairway-html-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    d
}

fn check_folder(dir: &Path, want_figures: &[&str]) {
    let page = dir.join("report.html");
    let html = fs::read_to_string(&page).expect("report.html");
    let svgs: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".svg"))
        .collect();
    for f in want_figures {
        assert!(svgs.iter().any(|s| s == f), "{f} in {}", dir.display());
    }
    for s in &svgs {
        assert!(html.contains(&format!("<figure data-figure=\"{s}\"")), "report.html shows {s}");
    }
    // Readable offline: nothing loaded from anywhere (an SVG's xmlns names, it does not load).
    assert!(
        !html.contains("src=") && !html.contains("href=\"http") && !html.contains("@import"),
        "nothing from elsewhere"
    );
    if let Some(browser) = chromium() {
        let body = loaded_body(browser, &page, &dir.join(".chromium"));
        let n = svgs.len();
        assert!(body.contains(&format!("data-figures-drawn=\"{n}/{n}\"")), "every figure drawn: {body}");
        assert!(body.contains("data-errors=\"0\""), "no script error: {body}");
        let _ = fs::remove_dir_all(dir.join(".chromium"));
    }
}

/// A wired run: the summary's tables, every link, every figure, every file.
#[test]
fn a_run_has_a_report_a_browser_shows_whole() {
    let out = tmp("run");
    let o =
        fairway(&["run", "scenarios/tutorial/red-dumbbell.toml", "--out", out.to_str().unwrap(), "--trace", "packets"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("report.html"), "listed among the files written");
    let html = fs::read_to_string(out.join("report.html")).unwrap();
    // The tutorial's tcp0 crosses s1, r1, r2 and d1: 2 + 20 + 2 ms each way.
    for needle in [
        "<th>goodput Mb/s</th>",
        "<td>tcp*</td>",
        "<td>r1-&gt;r2</td>",
        "<td>d1-&gt;r2</td>",
        "href=\"trace.tr\"",
        "<td>tcp0</td><td>s1 → r1 → r2 → d1</td><td class=\"n\">48</td>",
    ] {
        assert!(html.contains(needle), "report.html lacks {needle}");
    }
    check_folder(&out, &["throughput.svg", "queue_r1-r2.svg", "drops.svg", "cwnd.svg", "topology.svg"]);
    let _ = fs::remove_dir_all(&out);
}

/// A wireless run draws its nodes' paths too.
#[test]
fn a_wireless_run_has_one_too() {
    let out = tmp("wireless");
    let o = fairway(&["run", "scenarios/validation/wireless-mobile.toml", "--out", out.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    check_folder(&out, &["throughput.svg", "nodes.svg"]);
    let _ = fs::remove_dir_all(&out);
}

/// A sweep's folder has a page with its figure, its tables and a link to each point's own page.
#[test]
fn a_sweep_has_a_page_of_its_tables_and_points() {
    let out = tmp("sweep");
    let o = fairway(&["sweep", "scenarios/tutorial/red-dumbbell-sweep.toml", "--out", out.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let html = fs::read_to_string(out.join("report.html")).unwrap();
    let sweep_csv = fs::read_to_string(out.join("sweep.csv")).unwrap();
    // sweep.csv's table: each of its lines, header included, is a row of the page.
    let rows: Vec<String> = html
        .split("<tr>")
        .filter_map(|r| r.split("</tr>").next())
        .map(|r| {
            let cells: Vec<&str> = r.split("</t").filter_map(|c| c.rsplit('>').next()).collect();
            cells[..cells.len().saturating_sub(1)]
                .join(",")
                .replace("&gt;", ">")
                .replace("&lt;", "<")
                .replace("&amp;", "&")
        })
        .collect();
    for line in sweep_csv.lines() {
        assert!(rows.iter().any(|r| r == line), "no row of the page reads {line}");
    }
    let points =
        fs::read_dir(&out).unwrap().filter(|e| e.as_ref().unwrap().path().join("report.html").is_file()).count();
    assert!(points >= 2);
    assert_eq!(html.matches("/report.html\">").count(), points, "a link to each point's page");
    // `fairway plot`'s figure of the sweep leads the page.
    check_folder(&out, &["plot-throughput_bps-vs-flow.cbr.rate.svg"]);
    let _ = fs::remove_dir_all(&out);
}

/// A reproduction's report.md as a page: every figure it shows, drawn inline.
#[test]
fn a_reproduction_has_its_report_as_a_page() {
    let out = tmp("reproduce");
    let o = fairway(&["reproduce", "kadhum2015", "--reps", "2", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let md = fs::read_to_string(out.join("report.md")).unwrap();
    let html = fs::read_to_string(out.join("report.html")).unwrap();
    let shown: Vec<&str> = md.split("![").skip(1).filter_map(|s| s.split("](").nth(1)?.split(')').next()).collect();
    assert!(!shown.is_empty());
    for f in &shown {
        assert!(html.contains(&format!("<figure data-figure=\"{f}\"")), "{f} inline");
    }
    assert!(html.contains("<table>") && html.contains("<h2>The claims</h2>"), "the claims table rendered");
    check_folder(&out, &[]);
    let _ = fs::remove_dir_all(&out);
}
