//! What a newcomer following the docs met, each as it shows on the command line: the outputs
//! and messages say what they hold without a reading of the source.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn fairway(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fairway")).args(args).current_dir(repo()).output().expect("run fairway")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("fairway-newcomer-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

/// The tutorial's dumbbell with `flows` in place of its flows.
fn dumbbell(flows: &str) -> String {
    let base = fs::read_to_string(repo().join("scenarios/tutorial/red-dumbbell.toml")).unwrap();
    let links = &base[..base.find("# Two TCP transfers").expect("the tutorial's flows")];
    format!("{links}{flows}\n[monitor]\nlinks = [\"r1->r2\"]\n")
}

const TWO_TCP: &str = r#"
[[flow]]
name = "tcp{i}"
count = 2
app = "ftp"
from = "s1"
to = "d1"
"#;

/// A run without UDP flows lists no `udp` class: not in summary.json, not in classes.csv.
#[test]
fn a_class_without_flows_is_not_reported() {
    let dir = tmp("classes");
    let file = dir.join("tcp-only.toml");
    fs::write(&file, dumbbell(TWO_TCP)).unwrap();
    let out = dir.join("out");
    let o = fairway(&["run", file.to_str().unwrap(), "--out", out.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let classes: Vec<&str> =
        summary["classes"].as_array().unwrap().iter().map(|c| c["class"].as_str().unwrap()).collect();
    assert_eq!(classes, ["tcp"]);
    let csv = fs::read_to_string(out.join("classes.csv")).unwrap();
    assert!(csv.lines().skip(1).all(|l| l.split(',').nth(2) == Some("tcp")), "{csv}");
    let _ = fs::remove_dir_all(&dir);
}

/// With a warm-up, the time plots fit their y axis to what follows it; a slow-start peak above
/// the axis is named in the warm-up's label, not cut without a word.
#[test]
fn a_peak_the_warm_up_axis_leaves_out_is_named() {
    let dir = tmp("warm-up");
    let file = dir.join("warm.toml");
    let text = dumbbell(&TWO_TCP.replace("to = \"d1\"", "to = \"d1\"\nwindow = 100")).replacen(
        "seed = 1\n",
        "seed = 1\nmeasure_from = \"5s\"\n",
        1,
    );
    fs::write(&file, text).unwrap();
    let out = dir.join("out");
    let o = fairway(&["run", file.to_str().unwrap(), "--out", out.to_str().unwrap(), "-q", "--trace", "agents"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let svg = fs::read_to_string(out.join("cwnd.svg")).unwrap();
    assert!(svg.contains(">warm-up (off the axis: up to "), "cwnd.svg");
    let _ = fs::remove_dir_all(&dir);
}

/// A traced TFRC flow's rate is drawn, as a traced TCP flow's window is: rate.svg beside
/// cwnd.svg, each with its own flows.
#[test]
fn a_traced_tfrc_flows_rate_is_plotted() {
    let out = tmp("tfrc-rate");
    let o = fairway(&[
        "run",
        "scenarios/validation/tfrc-red.toml",
        "--out",
        out.to_str().unwrap(),
        "-q",
        "--trace",
        "agents",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rate = fs::read_to_string(out.join("rate.svg")).unwrap();
    assert!(rate.contains("allowed sending rate (every change)") && rate.contains(">rate (Mb/s)</text>"));
    let cwnd = fs::read_to_string(out.join("cwnd.svg")).unwrap();
    let summary: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    for f in summary["flows"].as_array().unwrap() {
        let (name, class) = (f["name"].as_str().unwrap(), f["class"].as_str().unwrap());
        let label = format!(">{name}</text>");
        assert_eq!(rate.contains(&label), class == "tfrc", "{name} in rate.svg");
        assert_eq!(cwnd.contains(&label), class == "tcp", "{name} in cwnd.svg");
    }
    let _ = fs::remove_dir_all(&out);
}

/// `fairway plot` on a `run --reps` folder, which sweeps nothing, draws each flow's (or
/// class's) mean with its interval, and the folder's page shows it; `--trace` with `--reps` is
/// refused saying why and what to run instead.
#[test]
fn a_replications_folder_is_plotted_flow_by_flow() {
    let dir = tmp("reps-plot");
    let d = dir.join("reps");
    let ds = d.to_str().unwrap();
    let o = fairway(&["run", "scenarios/tutorial/red-dumbbell.toml", "--reps", "3", "--out", ds, "-q"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let page = fs::read_to_string(d.join("report.html")).unwrap();
    assert!(page.contains("plot-throughput_bps-per-flow.svg"), "the folder's page has the figure");
    let o = fairway(&["plot", ds]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let svg = fs::read_to_string(d.join("plot-throughput_bps-per-flow.svg")).unwrap();
    for label in [">tcp0</text>", ">tcp1</text>", ">cbr</text>", ">flow (1 = tcp0, 2 = tcp1, 3 = cbr)</text>"] {
        assert!(svg.contains(label), "lacks {label}");
    }
    // One error bar per flow; x ticks at 1, 2, 3 only.
    assert_eq!(svg.matches(r#"stroke-width="1.2" d="#).count(), 3);
    assert!(!svg.contains(r#"text-anchor="middle">1.5</text>"#));
    let o = fairway(&["plot", ds, "--rows", "class", "--y", "pdr"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let svg = fs::read_to_string(d.join("plot-pdr-per-class.svg")).unwrap();
    assert!(svg.contains(">tcp</text>") && svg.contains(">udp</text>"));
    let o = fairway(&["plot", ds, "--x", "seed"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("has no swept setting"), "{o:?}");

    let o = fairway(&["run", "scenarios/tutorial/red-dumbbell.toml", "--reps", "3", "--trace", "agents"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--reps 3 makes 3") && err.contains("`fairway run FILE --seed S --trace ...`"), "{err}");
    let _ = fs::remove_dir_all(&dir);
}
