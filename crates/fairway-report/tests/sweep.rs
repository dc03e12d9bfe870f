//! Parameter sweeps (`[sweep]`): path resolution, grid order, errors before anything runs, a
//! small real sweep whose numbers follow from the set-up, and outputs that do not depend on the
//! number of workers.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use fairway_core::{Dur, Rate};
use fairway_model::scenario::{CbrConfig, QueueSpec};
use fairway_report::output::write_point;
use fairway_scenario::sweep::{points_of_text, run_sweep, Sweep, SweepError};
use fairway_scenario::{parse_scenario, ScenarioError};

/// a --10Mb 1ms-- r1 --1Mb 10ms DropTail(limit)-- r2 --10Mb 1ms-- b, one CBR flow `udp` of
/// 1000-byte packets from a to b, then `sweep`.
fn dumbbell(sweep: &str) -> String {
    format!(
        r#"name = "tiny"
duration = "4s"
seed = 7

[[link]]
between = ["a", "r1"]
rate = "10Mb"
delay = "1ms"

[[link]]
between = ["r1", "r2"]
rate = "1Mb"
delay = "10ms"
queue = {{ kind = "droptail", limit = 20 }}

[[link]]
between = ["r2", "b"]
rate = "10Mb"
delay = "1ms"

[[flow]]
name = "udp"
app = "cbr"
from = "a"
to = "b"
packet_size = "1000B"
rate = "0.5Mb"

[monitor]
links = ["r1->r2"]

{sweep}"#
    )
}

fn load(text: &str) -> Sweep {
    points_of_text("tiny.toml", text).unwrap_or_else(|e| panic!("{e}"))
}

fn load_err(text: &str) -> ScenarioError {
    match points_of_text("tiny.toml", text) {
        Ok(s) => panic!("expected an error, got {} points", s.points.len()),
        Err(e) => e,
    }
}

/// The 1-based line of the first line of `text` containing `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).unwrap_or_else(|| panic!("no `{needle}`")) + 1
}

fn cbr_interval(s: &Sweep, point: usize) -> Dur {
    let sc = s.build(point).unwrap().scenario;
    let app = &sc.flows[0].app;
    app.config::<CbrConfig>().unwrap_or_else(|| panic!("not cbr: {app:?}")).interval
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("fairway-sweep-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    d
}

/// Every file under `dir`, by relative path.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for e in fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                out.insert(p.strip_prefix(root).unwrap().display().to_string(), fs::read(&p).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

#[test]
fn paths_reach_top_level_values_links_by_index_inline_table_members_and_flows_by_name() {
    let s = load(&dumbbell(
        r#"[sweep]
seed = [3]
duration = ["2s"]
"link[1].rate" = ["2Mb"]
"link[1].queue.limit" = [35]
"flow.udp.rate" = ["0.8Mb"]
"flow[0].stop" = ["1.5s"]
"#,
    ));
    assert_eq!(s.points.len(), 1);
    let sc = &s.build(0).unwrap().scenario;
    assert_eq!(sc.name, "tiny");
    assert_eq!(sc.seed, 3);
    assert_eq!(sc.duration, "2s".parse::<Dur>().unwrap());
    // A duplex link is two simplex links: link[1] of the file is r1->r2 and r2->r1.
    let core: Vec<_> = (0..sc.links.len()).filter(|l| sc.link_name(*l).contains("r1->r2")).collect();
    assert_eq!(core.len(), 1);
    let l = &sc.links[core[0]];
    assert_eq!(l.rate, "2Mb".parse::<Rate>().unwrap());
    match &l.queue {
        QueueSpec::DropTail(p) => assert!(format!("{p:?}").contains("35"), "{p:?}"),
        other => panic!("{other:?}"),
    }
    // 0.8 Mb/s of 1000-byte packets: one every 10 ms. `stop` was not in the file: it is added.
    assert_eq!(cbr_interval(&s, 0), "10ms".parse::<Dur>().unwrap());
    assert_eq!(sc.flows[0].stop.map(|t| t.as_secs_f64()), Some(1.5));
    assert_eq!(s.keys, ["seed", "duration", "link[1].rate", "link[1].queue.limit", "flow.udp.rate", "flow[0].stop"]);
    assert_eq!(s.points[0].values, ["3", "2s", "2Mb", "35", "0.8Mb", "1.5s"]);

    // The dotted (unquoted) form of a key is the same path.
    let s = load(&dumbbell("[sweep]\nflow.udp.rate = [\"0.8Mb\"]\n"));
    assert_eq!(s.keys, ["flow.udp.rate"]);
    assert_eq!(cbr_interval(&s, 0), "10ms".parse::<Dur>().unwrap());
}

#[test]
fn the_grid_is_the_cartesian_product_with_the_first_key_slowest() {
    let s = load(&dumbbell(
        r#"[sweep]
"flow.udp.rate" = ["0.4Mb", "0.8Mb", "1.6Mb"]
seed = [1, 2]
"#,
    ));
    let got: Vec<(String, String)> = s.points.iter().map(|p| (p.values[0].clone(), p.values[1].clone())).collect();
    let want: Vec<(String, String)> = [("0.4Mb", "1"), ("0.4Mb", "2"), ("0.8Mb", "1"), ("0.8Mb", "2")]
        .iter()
        .chain(&[("1.6Mb", "1"), ("1.6Mb", "2")])
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(got, want);
    for (i, p) in s.points.iter().enumerate() {
        assert_eq!(p.index, i);
        assert_eq!(s.build(i).unwrap().scenario.seed, p.values[1].parse::<u64>().unwrap());
    }
    assert_eq!(cbr_interval(&s, 2), "10ms".parse::<Dur>().unwrap());
    assert_eq!(s.points[3].label, "3_flow.udp.rate=0.8Mb_seed=2");
    assert_eq!(s.describe(5), "flow.udp.rate = 1.6Mb, seed = 2");
}

#[test]
fn each_point_is_a_scenario_file_of_its_own() {
    let s = load(&dumbbell("[sweep]\n\"flow.udp.rate\" = [\"0.8Mb\"]\n"));
    let p = &s.build(0).unwrap();
    assert!(!p.text.contains("[sweep]"), "{}", p.text);
    let again = parse_scenario("scenario.toml", &p.text, "scenario").unwrap_or_else(|e| panic!("{e}\n{}", p.text));
    assert_eq!(again.name, "tiny");
    assert_eq!(format!("{:?}", again.flows), format!("{:?}", p.scenario.flows));
}

#[test]
fn a_file_without_a_sweep_is_one_point_and_a_plain_parse_ignores_the_sweep() {
    let s = load(&dumbbell(""));
    assert_eq!(s.points.len(), 1);
    assert!(s.keys.is_empty());
    assert_eq!(s.points[0].label, "0");
    // The base values, as `fairway run` uses them.
    let base = parse_scenario("tiny.toml", &dumbbell("[sweep]\nseed = [1, 2]\n"), "tiny").unwrap();
    assert_eq!(base.seed, 7);
}

#[test]
fn a_path_that_is_not_in_the_file_is_an_error_naming_the_key_and_its_line() {
    for (key, needle) in [
        ("\"link[9].rate\"", "has 3 entries"),
        ("\"flow.tcp.rate\"", "no entry of `flow` is named `tcp` (names: udp)"),
        ("\"monitor.nope.bin\"", "`monitor.nope` is not in the file"),
        ("\"link[1].rate.x\"", "is a value, not a table"),
        ("\"flow.udp\"", "is a whole entry"),
        ("\"monitor\"", "is a table"),
        ("\"link[one].rate\"", "expected an index"),
    ] {
        let text = dumbbell(&format!("[sweep]\nseed = [1, 2]\n{key} = [\"1Mb\"]\n"));
        let e = load_err(&text);
        assert_eq!(e.line, line_of(&text, key), "{e}");
        assert!(e.to_string().contains(needle), "{key}: {e}");
        assert!(e.field.starts_with("sweep."), "{e}");
    }
    for (entry, needle) in [
        ("seed = 3", "expected a list"),
        ("seed = []", "empty list"),
        ("\"flow[0].rate\" = [\"1Mb\"]\n\"flow.udp.rate\" = [\"2Mb\"]", "are the same value"),
    ] {
        let text = dumbbell(&format!("[sweep]\n{entry}\n"));
        let e = load_err(&text);
        assert!(e.to_string().contains(needle), "{entry}: {e}");
    }
}

#[test]
fn an_invalid_point_is_an_error_naming_its_values_before_anything_runs() {
    let text = dumbbell("[sweep]\nseed = [1, 2]\n\"flow.udp.rate\" = [\"1Mb\", \"-1Mb\", \"2 parsecs\"]\n");
    let e = load_err(&text);
    let msg = e.to_string();
    // The first invalid point is (seed 1, -1Mb): point 1. It points at the bad candidate.
    assert!(msg.contains("sweep point 1 (seed = 1, flow.udp.rate = -1Mb)"), "{msg}");
    assert!(msg.contains("flow[0].rate"), "{msg}");
    assert!(msg.contains("4 of 6 points are invalid"), "{msg}");
    assert_eq!(e.line, line_of(&text, "\"flow.udp.rate\" ="), "{msg}");
    assert_eq!(e.col, text.lines().nth(e.line - 1).unwrap().find("\"-1Mb\"").unwrap() + 1, "{msg}");

    // A key added by the sweep that the scenario does not accept is caught the same way.
    let e = load_err(&dumbbell("[sweep]\n\"flow.udp.rat\" = [\"1Mb\"]\n"));
    assert!(e.to_string().contains("unknown key `rat` (did you mean `rate`?)"), "{e}");
    assert!(e.to_string().contains("sweep point 0 (flow.udp.rat = 1Mb)"), "{e}");

    // An error elsewhere in the file keeps its own line.
    let text = dumbbell("[sweep]\nseed = [1]\n").replace("delay = \"10ms\"", "delay = \"10 parsecs\"");
    let e = load_err(&text);
    assert_eq!(e.line, line_of(&text, "10 parsecs"), "{e}");
}

const RATES: [&str; 5] = ["0.2Mb", "0.5Mb", "0.8Mb", "1.5Mb", "3Mb"];

fn rate_sweep() -> String {
    let rates: Vec<String> = RATES.iter().map(|r| format!("\"{r}\"")).collect();
    dumbbell(&format!("[sweep]\n\"flow.udp.rate\" = [{}]\nseed = [1, 2]\n", rates.join(", ")))
}

#[test]
fn a_cbr_rate_sweep_writes_one_row_per_point_and_throughput_rises_to_the_capacity() {
    let s = load(&rate_sweep());
    assert_eq!(s.points.len(), 10);
    let out = tmp("rates");
    let mut calls = vec![];
    let res = run_sweep(&s, &out, 2, write_point, &mut |done, total| calls.push((done, total)))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(calls.first(), Some(&(0, 10)));
    assert_eq!(calls.last(), Some(&(10, 10)));
    assert_eq!(res.points.len(), 10);
    for (p, r) in s.points.iter().zip(&res.points) {
        assert_eq!(r.dir, out.join(&p.label));
        for f in ["summary.json", "flows.csv", "queue.csv", "scenario.toml"] {
            assert!(r.dir.join(f).is_file(), "{}/{f}", r.dir.display());
        }
    }

    let csv = fs::read_to_string(out.join("sweep.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    // A rate's number in b/s beside it, for sorting and grouping; the seed is a number already.
    assert_eq!(header[..5], ["point", "flow.udp.rate", "flow.udp.rate_bps", "seed", "flow"]);
    for col in ["throughput_bps", "dropped_pkts", "link", "link_utilization", "link_mean_queue_pkts"] {
        assert!(header.contains(&col), "no {col} in {header:?}");
    }
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 10, "one flow, ten points");
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let tput: Vec<f64> = rows.iter().map(|r| r[col("throughput_bps")].parse().unwrap()).collect();
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r.len(), header.len());
        assert_eq!(r[0], i.to_string());
        assert_eq!(r[1], RATES[i / 2]);
        assert_eq!(r[2], Rate::parse(RATES[i / 2]).unwrap().0.to_string());
        assert_eq!(r[3], ["1", "2"][i % 2]);
        assert_eq!(r[col("flow")], "udp");
        assert_eq!(r[col("link")], "r1->r2");
    }
    let capacity = 1e6;
    for (i, rate) in RATES.iter().enumerate() {
        let offered = rate.parse::<Rate>().unwrap().0 as f64;
        let t = tput[2 * i];
        // Below the bottleneck everything arrives; above it the link is the limit.
        let expect = offered.min(capacity);
        assert!(t > 0.95 * expect && t <= 1.01 * expect, "{rate}: {t} b/s, expected about {expect}");
        if i > 0 {
            assert!(t >= tput[2 * (i - 1)], "throughput fell from {} to {t} at {rate}", tput[2 * (i - 1)]);
        }
        let drops: u64 = rows[2 * i][col("dropped_pkts")].parse().unwrap();
        assert_eq!(drops > 0, offered > capacity, "{rate}: {drops} drops");
    }
    let _ = fs::remove_dir_all(&out);
}

#[test]
fn outputs_are_the_same_bytes_whatever_the_number_of_workers() {
    let s = load(&rate_sweep());
    let (a, b, c) = (tmp("jobs1"), tmp("jobs2"), tmp("jobs3"));
    run_sweep(&s, &a, 1, write_point, &mut |_, _| {}).unwrap();
    run_sweep(&s, &b, 2, write_point, &mut |_, _| {}).unwrap();
    run_sweep(&s, &c, 3, write_point, &mut |_, _| {}).unwrap();
    let (fa, fb, fc) = (files(&a), files(&b), files(&c));
    // sweep.csv, sweep-links.csv, and ten files per point.
    assert_eq!(fa.len(), 2 + 10 * fa.keys().filter(|k| k.starts_with("0_")).count());
    assert_eq!(fa.keys().collect::<Vec<_>>(), fb.keys().collect::<Vec<_>>());
    for (k, v) in &fa {
        assert!(fb[k] == *v && fc[k] == *v, "{k} differs between --jobs 1, 2 and 3");
    }
    for d in [a, b, c] {
        let _ = fs::remove_dir_all(d);
    }
}

#[test]
fn a_failing_point_is_reported_with_its_values_and_the_others_finish() {
    let s = load(&rate_sweep());
    let out = tmp("fail");
    fs::create_dir_all(&out).unwrap();
    // A file where point 3's folder should go: writing that point fails.
    fs::write(out.join(&s.points[3].label), "in the way").unwrap();
    match run_sweep(&s, &out, 2, write_point, &mut |_, _| {}) {
        Err(SweepError::Failed { failed, result }) => {
            assert_eq!(failed.len(), 1, "{failed:?}");
            assert!(failed[0].contains("point 3 (flow.udp.rate = 0.5Mb, seed = 2)"), "{}", failed[0]);
            assert!(result.points.iter().enumerate().all(|(i, p)| p.outcome.is_ok() == (i != 3)));
            let csv = fs::read_to_string(&result.csv).unwrap();
            assert_eq!(csv.lines().count(), 1 + 9);
            assert!(!csv.lines().any(|l| l.starts_with("3,")));
        }
        other => panic!("expected a failed point, got {other:?}"),
    }
    let _ = fs::remove_dir_all(&out);
}

/// Every monitored link reaches sweep-links.csv, a row per point per link: the bottleneck
/// drops what 1.5 Mb/s of CBR offers beyond its 1 Mb/s, the access link behind it nothing.
#[test]
fn every_monitored_link_has_its_rows() {
    let text = dumbbell("[sweep]\n\"flow.udp.rate\" = [\"0.5Mb\", \"1.5Mb\"]\n")
        .replace("links = [\"r1->r2\"]", "links = [\"r1->r2\", \"r2->b\"]");
    let s = load(&text);
    let out = tmp("links");
    run_sweep(&s, &out, 2, write_point, &mut |_, _| {}).unwrap();
    let csv = fs::read_to_string(out.join("sweep-links.csv")).unwrap();
    let mut lines = csv.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(&head[..4], ["point", "flow.udp.rate", "flow.udp.rate_bps", "link"]);
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    let links: Vec<(&str, &str)> = rows.iter().map(|r| (r[1], r[3])).collect();
    assert_eq!(links, [("0.5Mb", "r1->r2"), ("0.5Mb", "r2->b"), ("1.5Mb", "r1->r2"), ("1.5Mb", "r2->b")]);
    let drops = |r: &Vec<&str>| r[head.iter().position(|h| *h == "drops_pkts").unwrap()].parse::<u64>().unwrap();
    assert_eq!(drops(&rows[0]), 0);
    assert!(drops(&rows[2]) > 100, "{}", drops(&rows[2]));
    assert_eq!(drops(&rows[3]), 0);
    let _ = fs::remove_dir_all(&out);
}

/// A swept setting written with a unit has its number in the base unit beside it, named with
/// the unit; text and plain numbers have none.
#[test]
fn settings_with_units_have_a_number_column_named_with_the_unit() {
    let s = load(&dumbbell(
        "[sweep]\n\"flow.udp.rate\" = [\"1.5Mb\", \"1Mb\"]\n\"link[1].delay\" = [\"10ms\", \"1.5s\"]\n\
         \"flow.udp.packet_size\" = [\"500B\", \"1KB\"]\n\"link[1].queue.limit\" = [20, 40]\n",
    ));
    assert_eq!(
        s.columns(s.keys.len()),
        [
            "flow.udp.rate",
            "flow.udp.rate_bps",
            "link[1].delay",
            "link[1].delay_s",
            "flow.udp.packet_size",
            "flow.udp.packet_size_bytes",
            "link[1].queue.limit"
        ]
    );
    assert_eq!(s.column_values(0, s.keys.len()), ["1.5Mb", "1500000", "10ms", "0.01", "500B", "500", "20"]);
    assert_eq!(s.column_values(15, s.keys.len()), ["1Mb", "1000000", "1.5s", "1.5", "1KB", "1000", "40"]);
    // The replications' columns stop before the seed (the last key there): the same prefix.
    assert_eq!(s.columns(1), ["flow.udp.rate", "flow.udp.rate_bps"]);
    // A rate's key reads "1MB" as a rate; a key with a value of no unit gets no number.
    use fairway_scenario::sweep::{setting_number, SettingUnit};
    assert_eq!(setting_number("flow.x.rate", "1MB"), Some((8e6, SettingUnit::Bps)));
    assert_eq!(setting_number("flow.x.packet_size", "1MB"), Some((1e6, SettingUnit::Bytes)));
    assert_eq!(setting_number("seed", "3"), None);
    let mixed = load(&dumbbell("[sweep]\n\"flow.udp.start\" = [\"1s\", \"uniform(0s, 1s)\"]\n"));
    assert_eq!(mixed.columns(1), ["flow.udp.start"]);
}
