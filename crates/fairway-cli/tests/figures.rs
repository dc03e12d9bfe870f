//! The figures of a run as a paper needs them: the queue plot marks the discipline's thresholds
//! and limit over the range of each bin; the window plot steps at every change when the run
//! traces agents.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

mod referee;

/// Whether rsvg-convert runs (CI installs it and sets FAIRWAY_REQUIRE_RSVG).
fn rsvg_runs() -> bool {
    let missing = Command::new("rsvg-convert")
        .arg("--version")
        .output()
        .is_err()
        .then(|| "`rsvg-convert` does not run".to_string());
    referee::available("rsvg-convert", "FAIRWAY_REQUIRE_RSVG", missing)
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn run(name: &str, extra: &[&str]) -> PathBuf {
    let out = std::env::temp_dir().join(format!("fairway-figures-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&out);
    let o = Command::new(env!("CARGO_BIN_EXE_fairway"))
        .args(["run", "scenarios/tutorial/red-dumbbell.toml", "-q", "--out", out.to_str().unwrap()])
        .args(extra)
        .current_dir(repo())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    out
}

/// The tutorial's bottleneck is RED with thresh 5, maxthresh 15 and limit 30 (its file says so).
#[test]
fn the_queue_plot_marks_thresholds_and_limit_over_each_bins_range() {
    let out = run("queue", &[]);
    let svg = fs::read_to_string(out.join("queue_r1-r2.svg")).unwrap();
    for label in ["queue, range per 100 ms", "average queue (RED)", "RED min_th 5", "RED max_th 15", "limit 30"] {
        assert!(svg.contains(&format!(">{label}</text>")), "legend lacks {label}");
    }
    assert_eq!(svg.matches(r#"fill-opacity="0.35" d="M"#).count(), 1, "one band");
    let cwnd = fs::read_to_string(out.join("cwnd.svg")).unwrap();
    assert!(cwnd.contains("TCP congestion window (end of each bin)"));
    let _ = fs::remove_dir_all(&out);
}

/// Traced, the window plot draws the traced flow's window at each change (trace-agents.csv's
/// rows), not once a bin.
#[test]
fn a_traced_window_is_drawn_at_every_change() {
    let out = run("cwnd", &["--trace", "agents", "--trace-flow", "tcp0"]);
    let svg = fs::read_to_string(out.join("cwnd.svg")).unwrap();
    assert!(svg.contains("TCP congestion window (every change)"));
    assert!(svg.contains(">tcp0</text>") && !svg.contains(">tcp1</text>"), "the traced flow only");
    let rows = fs::read_to_string(out.join("trace-agents.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .filter(|l| l.contains(",tcp0,"))
        .count();
    assert!(rows > 300, "a sawtooth's worth of changes: {rows}");
    let _ = fs::remove_dir_all(&out);
}

fn fairway(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_fairway")).args(args).current_dir(repo()).output().unwrap()
}

/// `fairway plot` on the tutorial's sweep at three seeds: a line per flow against the CBR's
/// rate, each point with its interval; per class on request; PNG and PDF through rsvg-convert
/// (where installed: CI installs it and sets FAIRWAY_REQUIRE_RSVG); and clear refusals.
#[test]
fn plot_draws_a_sweeps_means_with_their_intervals() {
    let dir = std::env::temp_dir().join(format!("fairway-figures-plot-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    let d = dir.to_str().unwrap();
    let o = fairway(&["sweep", "scenarios/tutorial/red-dumbbell-sweep.toml", "--reps", "3", "--out", d, "-q"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    let o = fairway(&["plot", d]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let file = dir.join("plot-throughput_bps-vs-flow.cbr.rate.svg");
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), file.display().to_string());
    let svg = fs::read_to_string(&file).unwrap();
    for label in [">tcp0</text>", ">tcp1</text>", ">cbr</text>", ">flow.cbr.rate (b/s)</text>"] {
        assert!(svg.contains(label), "lacks {label}");
    }
    // One path of error bars per flow (three rates each).
    assert_eq!(svg.matches(r#"stroke-width="1.2" d="#).count(), 3);

    let o = fairway(&["plot", d, "--y", "pdr", "--rows", "class", "--title", "PDR by class"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let svg = fs::read_to_string(dir.join("plot-pdr-vs-flow.cbr.rate.svg")).unwrap();
    assert!(svg.contains(">tcp</text>") && svg.contains(">udp</text>") && svg.contains(">PDR by class</text>"));

    if rsvg_runs() {
        let o = fairway(&["plot", d, "--format", "png", "--format", "pdf"]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let png = fs::read(file.with_extension("png")).unwrap();
        assert_eq!(&png[..4], b"\x89PNG");
        let pdf = fs::read(file.with_extension("pdf")).unwrap();
        assert_eq!(&pdf[..5], b"%PDF-");
    }

    for (args, want) in [
        (vec!["plot", d, "--x", "nope"], "--x nope: not a swept setting (flow.cbr.rate)"),
        (
            vec!["plot", d, "--y", "nope"],
            "--y nope: no such column in replications.csv (kind, name, class, reps, throughput_bps,",
        ),
        (vec!["plot", "scenarios"], "no replications.csv or sweep.csv"),
    ] {
        let o = fairway(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && err.contains(want), "{args:?}: {err}");
    }
    let _ = fs::remove_dir_all(&dir);
}

/// A run's figures for a paper: the size asked for, larger text, no titles, and PNG and PDF
/// beside each SVG (where rsvg-convert runs).
#[test]
fn a_runs_figures_take_the_size_text_and_formats_asked_for() {
    let rsvg = rsvg_runs();
    let mut args = vec!["--width", "640", "--height", "360", "--font-size", "22", "--no-titles"];
    if rsvg {
        args.extend(["--format", "pdf", "--format", "png"]);
    }
    let out = run("style", &args);
    let svg = fs::read_to_string(out.join("throughput.svg")).unwrap();
    // Drawn at 640 x 360 from a layout half that size: text and lines twice their usual size.
    assert!(svg.contains(r#"width="640" height="360" viewBox="0 0 320 180""#), "{}", &svg[..300]);
    assert!(!svg.contains("throughput per flow"), "no title");
    // A stacked figure's width is the one asked for too.
    let drops = fs::read_to_string(out.join("drops.svg")).unwrap();
    assert!(drops.contains(r#"width="640""#));
    if rsvg {
        // Every figure, the topology's diagram too.
        for name in ["throughput", "queue_r1-r2", "drops", "cwnd", "topology"] {
            assert_eq!(&fs::read(out.join(format!("{name}.png"))).unwrap()[..4], b"\x89PNG", "{name}");
            assert_eq!(&fs::read(out.join(format!("{name}.pdf"))).unwrap()[..5], b"%PDF-", "{name}");
        }
    }
    let _ = fs::remove_dir_all(&out);
}

/// With `measure_from`, the warm-up is shaded on the time plots, and the throughput axis fits
/// the steady state: the slow-start peak of the first seconds is cut at its top, and the
/// warm-up's label says how high it went.
#[test]
fn the_warm_up_is_shaded_and_left_out_of_the_axis() {
    let text = fs::read_to_string(repo().join("scenarios/tutorial/red-dumbbell.toml")).unwrap();
    let file = std::env::temp_dir().join(format!("fairway-figures-warm-{}.toml", std::process::id()));
    fs::write(&file, text.replacen("seed = 1\n", "seed = 1\nmeasure_from = \"5s\"\n", 1)).unwrap();
    let out = std::env::temp_dir().join(format!("fairway-figures-warm-{}", std::process::id()));
    let o = fairway(&["run", file.to_str().unwrap(), "-q", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for name in ["throughput.svg", "queue_r1-r2.svg", "drops.svg", "cwnd.svg"] {
        let svg = fs::read_to_string(out.join(name)).unwrap();
        assert!(svg.contains(">warm-up"), "{name} shades the warm-up");
    }
    // The y axis's top tick is at most the largest throughput of a bin after 5 s, plus the
    // axis's headroom (under a tick step): read both from flows.csv and the SVG.
    let csv = fs::read_to_string(out.join("flows.csv")).unwrap();
    let head: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let (t, thr) = (
        head.iter().position(|c| *c == "bin_end_s").unwrap(),
        head.iter().position(|c| *c == "throughput_bps").unwrap(),
    );
    let rows: Vec<(f64, f64)> = csv
        .lines()
        .skip(1)
        .map(|l| {
            let v: Vec<&str> = l.split(',').collect();
            (v[t].parse().unwrap(), v[thr].parse::<f64>().unwrap() / 1e6)
        })
        .collect();
    let after = rows.iter().filter(|r| r.0 > 5.0).map(|r| r.1).fold(0.0, f64::max);
    let all = rows.iter().map(|r| r.1).fold(0.0, f64::max);
    assert!(all > 1.2 * after, "the tutorial's slow start peaks above its steady state: {all} vs {after}");
    let svg = fs::read_to_string(out.join("throughput.svg")).unwrap();
    let ticks: Vec<f64> =
        svg.split(r#"text-anchor="end">"#).skip(1).filter_map(|s| s.split('<').next()?.parse().ok()).collect();
    let top = ticks.iter().copied().fold(0.0, f64::max);
    assert!(top >= after && top < all, "top tick {top}: steady-state max {after}, peak {all}");
    // The peak left off the axis is named in the warm-up's label.
    let named: f64 = svg
        .split(">warm-up (off the axis: up to ")
        .nth(1)
        .and_then(|s| s.split(')').next()?.parse().ok())
        .unwrap_or_else(|| panic!("the label names the peak"));
    assert!((named - all).abs() < 1e-3 * all, "label {named}, peak {all}");
    let o = fairway(&["run", file.to_str().unwrap(), "-q", "--reps", "2", "--width", "600"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("with --reps, draw the replications with `fairway plot`"));
    let _ = fs::remove_dir_all(&out);
    let _ = fs::remove_file(&file);
}

fn run_text(name: &str, text: &str) -> PathBuf {
    let file = std::env::temp_dir().join(format!("fairway-figures-{name}-{}.toml", std::process::id()));
    fs::write(&file, text).unwrap();
    let out = file.with_extension("");
    let o = fairway(&["run", file.to_str().unwrap(), "-q", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let _ = fs::remove_file(&file);
    out
}

/// A network of more than 60 nodes is drawn with its hosts gathered: 50 senders on r1 with the
/// same links become one node, 50 receivers on r2 another; a chain of 70 routers cannot be
/// gathered and is not drawn (the page says why).
#[test]
fn a_large_networks_hosts_are_drawn_gathered() {
    let dumbbell = r#"
duration = "1s"
[[link]]
count = 50
between = ["h{i}", "r1"]
rate = "10Mb"
delay = "2ms"
[[link]]
between = ["r1", "r2"]
rate = "5Mb"
delay = "20ms"
queue = { kind = "red", limit = 50 }
[[link]]
count = 50
between = ["r2", "d{i}"]
rate = "10Mb"
delay = "2ms"
[[flow]]
name = "f{i}"
count = 50
app = "ftp"
transport = "newreno"
from = "h{i}"
to = "d{i}"
"#;
    let out = run_text("gathered", dumbbell);
    let svg = fs::read_to_string(out.join("topology.svg")).unwrap();
    for label in [">h0 … h49, 50 hosts</text>", ">d0 … d49, 50 hosts</text>", ">r1</text>", ">r2</text>"] {
        assert!(svg.contains(label), "lacks {label}");
    }
    assert_eq!(svg.matches(">each: 10 Mb/s, 2 ms</text>").count(), 2, "the hosts' links, once a side");
    assert!(svg.contains(">5 Mb/s, 20 ms, RED</text>"));
    assert_eq!(svg.matches("<circle").count(), 4 + 2, "four nodes, the two groups drawn as stacks");
    let _ = fs::remove_dir_all(&out);

    let mut chain = String::from("duration = \"1s\"\n");
    for i in 0..70 {
        chain += &format!("[[link]]\nbetween = [\"n{i}\", \"n{}\"]\nrate = \"10Mb\"\ndelay = \"1ms\"\n", i + 1);
    }
    chain += "[[flow]]\nname = \"f\"\napp = \"cbr\"\nfrom = \"n0\"\nto = \"n70\"\nrate = \"1Mb\"\n";
    let out = run_text("chain", &chain);
    assert!(!out.join("topology.svg").exists());
    let html = fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("The network is not drawn: 71 nodes"), "the page says why");
    let _ = fs::remove_dir_all(&out);
}
