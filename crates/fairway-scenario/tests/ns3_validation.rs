//! ns-3 as the referee of the queue disciplines ns-2 lacks: CoDel, PIE, FQ-CoDel, COBALT and
//! FQ-PIE. Each
//! scenarios/validation/aqm-*.toml names its twin command (`# ns-3 twin: validation/ns3/build/aqm
//! ...`, validation/ns3/aqm.cc, built here by validation/ns3/build.sh); both run and the
//! bottleneck's mean wait before serialisation and its drops must agree within 10%, each class's
//! delivered throughput within 5% (issue 13: "sojourn times and drop counts within 10%").
//!
//! What the 10% holds: the two TCPs differ (ns-3's NewReno with SACK, fairway's ns-2 NewReno
//! without): through a plain FIFO in the same set-up fairway drops 7.8% more packets than ns-3,
//! at the same throughput (validation/ns3/README.md, "aqm"). The disciplines agree more closely
//! than that where TCP's share of the drops is small (the FQ-CoDel scenario's CBR flows).
//!
//! PIE, FQ-PIE (a PIE per flow queue) and COBALT (BLUE's drops) draw at random: their scenarios
//! run with seeds 1 to 3 in both tools and the means are compared. CoDel and FQ-CoDel draw
//! nothing, and neither tool's TCP does: one run each.
//!
//! Runs when Debian's ns-3 (headers in /usr/include/ns3) and a C++ compiler are present. Without
//! them the test says so and passes, unless FAIRWAY_REQUIRE_NS3 is set (CI sets it).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use fairway_engine::{run, RunOptions};
use fairway_scenario::parse_scenario_file;
use serde_json::Value;

#[path = "../../fairway-cli/tests/referee/mod.rs"]
mod referee;

mod ns3_twin;
use ns3_twin::repo;

const WAIT_TOLERANCE: f64 = 0.10;
const DROPS_TOLERANCE: f64 = 0.10;
const THROUGHPUT_TOLERANCE: f64 = 0.05;

/// The twin's binary, built once (None: ns-3 is not installed).
fn twin_binary() -> Option<PathBuf> {
    static BIN: OnceLock<Option<PathBuf>> = OnceLock::new();
    BIN.get_or_init(|| ns3_twin::build("aqm")).clone()
}

/// What both tools report of one run.
#[derive(Debug, Default, Clone, Copy)]
struct Measure {
    tcp_bps: f64,
    udp_bps: f64,
    drops: f64,
    wait_s: f64,
}

impl Measure {
    fn mean(ms: &[Measure]) -> Measure {
        let n = ms.len() as f64;
        Measure {
            tcp_bps: ms.iter().map(|m| m.tcp_bps).sum::<f64>() / n,
            udp_bps: ms.iter().map(|m| m.udp_bps).sum::<f64>() / n,
            drops: ms.iter().map(|m| m.drops).sum::<f64>() / n,
            wait_s: ms.iter().map(|m| m.wait_s).sum::<f64>() / n,
        }
    }
}

/// The twin's arguments, from the scenario's header.
fn twin_args(toml: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(toml).unwrap();
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("# ns-3 twin: validation/ns3/build/aqm "))
        .unwrap_or_else(|| panic!("{} names no `# ns-3 twin: validation/ns3/build/aqm ...` line", toml.display()));
    line.split_whitespace().map(str::to_string).collect()
}

fn ns3(bin: &Path, args: &[String], seed: u64, duration: f64) -> Measure {
    let out = std::env::temp_dir().join(format!("fairway-ns3-{}-{seed}-{}.json", args.join("_"), std::process::id()));
    let st = Command::new(bin)
        .arg(format!("--out={}", out.display()))
        .arg(format!("--seed={seed}"))
        .arg(format!("--duration={duration}"))
        .args(args)
        .output()
        .expect("run the ns-3 twin");
    assert!(st.status.success(), "the ns-3 twin failed: {}", String::from_utf8_lossy(&st.stderr));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let _ = std::fs::remove_file(&out);
    let class = |c: &str| -> f64 {
        v["flows"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["class"] == c)
            .map(|f| f["recv_bytes"].as_f64().unwrap())
            .sum()
    };
    let link = &v["links"][0];
    Measure {
        tcp_bps: class("tcp") * 8.0 / duration,
        udp_bps: class("udp") * 8.0 / duration,
        drops: link["drops_pkts"].as_f64().unwrap(),
        wait_s: link["mean_sojourn_s"].as_f64().unwrap(),
    }
}

fn fairway(toml: &Path, seed: u64) -> (Measure, f64) {
    let sc = parse_scenario_file(toml).unwrap_or_else(|e| panic!("{e}"));
    let res = run(&sc, &RunOptions { seed: Some(seed), ..Default::default() }, &mut |_| {}).unwrap();
    let s = &res.summary;
    let d = s.duration_s;
    let class = |c: &str| s.classes.iter().filter(|k| k.class == c).map(|k| k.recv_distinct_bytes as f64).sum::<f64>();
    let link = s.links.iter().find(|l| l.name == "r1->r2").unwrap();
    let m = Measure {
        tcp_bps: class("tcp") * 8.0 / d,
        udp_bps: class("udp") * 8.0 / d,
        drops: link.drops_pkts as f64,
        wait_s: link.mean_sojourn_s.unwrap_or(0.0),
    };
    (m, d)
}

fn rel(a: f64, b: f64) -> f64 {
    if b == 0.0 {
        if a == 0.0 {
            0.0
        } else {
            f64::INFINITY
        }
    } else {
        (a - b).abs() / b
    }
}

fn compare(name: &str, seeds: &[u64]) {
    let Some(bin) = twin_binary() else { return };
    let toml = repo().join("scenarios/validation").join(format!("{name}.toml"));
    let args = twin_args(&toml);
    let (mut fw, mut n3) = (vec![], vec![]);
    for &seed in seeds {
        let (m, duration) = fairway(&toml, seed);
        fw.push(m);
        n3.push(ns3(&bin, &args, seed, duration));
    }
    let (f, n) = (Measure::mean(&fw), Measure::mean(&n3));
    eprintln!("{name}: fairway {f:?}\n{name}: ns-3    {n:?}");
    assert!(
        rel(f.wait_s, n.wait_s) <= WAIT_TOLERANCE,
        "{name}: mean wait {} s against ns-3's {} s",
        f.wait_s,
        n.wait_s
    );
    assert!(rel(f.drops, n.drops) <= DROPS_TOLERANCE, "{name}: drops {} against ns-3's {}", f.drops, n.drops);
    assert!(
        rel(f.tcp_bps, n.tcp_bps) <= THROUGHPUT_TOLERANCE,
        "{name}: TCP {} b/s against ns-3's {}",
        f.tcp_bps,
        n.tcp_bps
    );
    if n.udp_bps > 0.0 {
        assert!(
            rel(f.udp_bps, n.udp_bps) <= THROUGHPUT_TOLERANCE,
            "{name}: UDP {} b/s against ns-3's {}",
            f.udp_bps,
            n.udp_bps
        );
    }
}

#[test]
fn codel_agrees_with_ns3() {
    compare("aqm-codel", &[1]);
}

#[test]
fn pie_agrees_with_ns3() {
    compare("aqm-pie", &[1, 2, 3]);
}

#[test]
fn fq_codel_agrees_with_ns3() {
    compare("aqm-fq-codel", &[1]);
}

#[test]
fn cobalt_agrees_with_ns3() {
    compare("aqm-cobalt", &[1, 2, 3]);
}

#[test]
fn fq_pie_agrees_with_ns3() {
    compare("aqm-fq-pie", &[1, 2, 3]);
}

/// The baseline: the same TCP traffic through a FIFO, where only the TCPs differ.
#[test]
fn droptail_agrees_with_ns3() {
    compare("aqm-droptail", &[1]);
}

/// CUBIC in ns-3.37's flavour against ns-3's TcpCubic (HyStart off in both), through DropTail and
/// CoDel: the same bands as the disciplines'. Neither tool draws anything here: one run each.
#[test]
fn cubic_droptail_agrees_with_ns3() {
    compare("cubic-droptail", &[1]);
}

#[test]
fn cubic_codel_agrees_with_ns3() {
    compare("cubic-codel", &[1]);
}
