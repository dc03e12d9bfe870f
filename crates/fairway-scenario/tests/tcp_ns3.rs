//! ns-3.37's own TCP as the referee of fairway's: NewReno and CUBIC (ns-3's TcpCubic, fairway's
//! `flavor = "ns3"`) with ns-3's DEFAULT TcpSocketBase settings (SACK with RFC 6675 recovery and
//! PRR, timestamps, IW10, delayed ACKs, MinRto 1 s, 1 ms clock granularity), 2, 4 and 8 flows
//! with base round trips from about 20 to 100 ms, each starting at random in [0, 1 s), through a
//! 10 Mb/s DropTail of about a BDP or a CoDel (issue 34, item 6). Each
//! scenarios/validation/tcp-ns3-*.toml names its twin (`# ns-3 twin: validation/ns3/build/tcp
//! ...`, validation/ns3/tcp.cc); both run seeds 1-40 ([`SEEDS`] says why so many), and over them
//! the mean of the sum of the flows' goodputs (from the 5 s warm-up on) must agree within 5%, each
//! flow's mean goodput within 15%, and the bottleneck's mean wait before serialisation within 15%.
//! (ns-3's own per-flow standard deviation across its seeds is 10-40% in these runs, over 100%
//! for CUBIC through CoDel with 4 and 8 flows.)
//!
//! The ns-3 side: the twin's runs are kept in validation/ns3/tcp-reference.json, each with the
//! command that made it (validation/ns3/tcp-reference.py writes it). With Debian's ns-3 installed
//! (headers in /usr/include/ns3) the test builds the twin, runs seeds 1-3 of each case, and
//! requires the stored runs to be what it gives; without ns-3 it compares with the stored runs and
//! says so, unless FAIRWAY_REQUIRE_NS3 is set (CI sets it), when it fails.
//!
//! The scenarios run fairway's `options = "ns3"` (ns-3.37's TcpSocketBase defaults, above), with
//! the twin's 1000-byte segments and 4 MB buffers, and headers that carry the 2 bytes of PPP
//! header ns-3 puts on every frame (1054 B on the bottleneck in both; the frame size decides the
//! shares through DropTail). Through CoDel they have ns-3's one-packet device queue beneath the
//! discipline (`device_queue = 1`), so that CoDel's sojourn is ns-3's. The cases that fail are ignored, each with its numbers and cause,
//! and validation/ns3/README.md ("tcp") has every case's numbers (`-- --include-ignored
//! --nocapture` prints them). What still differs in what is modelled: ns-3's handshake.

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

/// Seeds 1-40 in both tools. The flows' shares through DropTail vary from seed to seed by 20-40%
/// of their mean (ns-3's own standard deviation across seeds, per flow; CUBIC's the most), so the
/// standard error of the difference of two 40-seed means is about 5-8% of a flow's mean: a flow
/// 15% off is then about two standard errors away. With 10 seeds (14-20%) the band could not tell
/// a model's difference from the seeds' chance.
const SEEDS: std::ops::RangeInclusive<u64> = 1..=40;
/// The seeds the test runs ns-3 itself on, when it is installed, to check that the stored runs
/// are what the twin gives (a change to the twin or to the scenario's command changes every
/// seed's run); the comparison uses the stored runs of every seed.
const LIVE_SEEDS: std::ops::RangeInclusive<u64> = 1..=3;
const SUM_TOLERANCE: f64 = 0.05;
const FLOW_TOLERANCE: f64 = 0.15;
const WAIT_TOLERANCE: f64 = 0.15;
const TWIN_PREFIX: &str = "# ns-3 twin: ";

/// The twin's binary, built once (None: ns-3 is not installed).
fn twin_binary() -> Option<PathBuf> {
    static BIN: OnceLock<Option<PathBuf>> = OnceLock::new();
    BIN.get_or_init(|| ns3_twin::build("tcp")).clone()
}

/// One run of either tool: each flow's goodput from the end of the warm-up, and the
/// bottleneck's mean wait.
#[derive(Debug, Clone, PartialEq)]
struct Run {
    goodput_bps: Vec<f64>,
    wait_s: f64,
}

/// The twin's command, from the scenario's header (`validation/ns3/build/tcp --tcp=...`).
fn twin_command(toml: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(toml).unwrap();
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix(TWIN_PREFIX))
        .unwrap_or_else(|| panic!("{} names no `{TWIN_PREFIX}validation/ns3/build/tcp ...` line", toml.display()));
    line.split_whitespace().map(str::to_string).collect()
}

/// The command a stored run records: the twin's, its seed, and a placeholder for the output.
fn recorded_command(cmd: &[String], seed: u64) -> String {
    format!("{} --seed={seed} --out=OUT.json", cmd.join(" "))
}

fn reference() -> &'static Value {
    static REF: OnceLock<Value> = OnceLock::new();
    REF.get_or_init(|| {
        let path = repo().join("validation/ns3/tcp-reference.json");
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
            .unwrap()
    })
}

fn stored(case: &str, cmd: &[String]) -> Vec<Run> {
    let runs = reference()["cases"][case].as_array().unwrap_or_else(|| {
        panic!("validation/ns3/tcp-reference.json has no {case}: run validation/ns3/tcp-reference.py")
    });
    SEEDS
        .map(|seed| {
            let r = runs
                .iter()
                .find(|r| r["seed"].as_u64() == Some(seed))
                .unwrap_or_else(|| panic!("validation/ns3/tcp-reference.json has no seed {seed} of {case}"));
            assert_eq!(
                r["command"].as_str().unwrap(),
                recorded_command(cmd, seed),
                "{case}: the stored run was made by another command than the scenario's twin: run \
                 validation/ns3/tcp-reference.py"
            );
            Run {
                goodput_bps: r["goodput_bps"].as_array().unwrap().iter().map(|g| g.as_f64().unwrap()).collect(),
                wait_s: r["mean_sojourn_s"].as_f64().unwrap(),
            }
        })
        .collect()
}

fn ns3_live(bin: &Path, cmd: &[String], seed: u64) -> Run {
    let out =
        std::env::temp_dir().join(format!("fairway-ns3-tcp-{}-{seed}-{}.json", cmd[1..].join("_"), std::process::id()));
    let st = Command::new(bin)
        .args(&cmd[1..])
        .arg(format!("--seed={seed}"))
        .arg(format!("--out={}", out.display()))
        .output()
        .expect("run the ns-3 twin");
    assert!(st.status.success(), "the ns-3 twin failed: {}", String::from_utf8_lossy(&st.stderr));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let _ = std::fs::remove_file(&out);
    Run {
        goodput_bps: v["flows"].as_array().unwrap().iter().map(|f| f["goodput_bps"].as_f64().unwrap()).collect(),
        wait_s: v["links"][0]["mean_sojourn_s"].as_f64().unwrap(),
    }
}

/// ns-3's runs of a case, as stored; when ns-3 is here, those of [`LIVE_SEEDS`] must be what
/// the twin gives now.
fn ns3(case: &str, cmd: &[String]) -> Vec<Run> {
    let kept = stored(case, cmd);
    let Some(bin) = twin_binary() else {
        eprintln!("{case}: ns-3's runs from validation/ns3/tcp-reference.json, not checked against ns-3");
        return kept;
    };
    let same = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1e-12);
    for seed in LIVE_SEEDS {
        let l = ns3_live(&bin, cmd, seed);
        let k = &kept[(seed - SEEDS.start()) as usize];
        let ok = l.goodput_bps.len() == k.goodput_bps.len()
            && l.goodput_bps.iter().zip(&k.goodput_bps).all(|(a, b)| same(*a, *b))
            && same(l.wait_s, k.wait_s);
        assert!(
            ok,
            "{case}, seed {seed}: ns-3 gives {l:?}, validation/ns3/tcp-reference.json holds {k:?}: run \
             validation/ns3/tcp-reference.py"
        );
    }
    kept
}

fn fairway(toml: &Path, seed: u64) -> Run {
    let sc = parse_scenario_file(toml).unwrap_or_else(|e| panic!("{e}"));
    let res = run(&sc, &RunOptions { seed: Some(seed), ..Default::default() }, &mut |_| {}).unwrap();
    let s = &res.summary;
    let link = s.links.iter().find(|l| l.name == "r1->r2").unwrap();
    Run { goodput_bps: s.flows.iter().map(|f| f.goodput_bps).collect(), wait_s: link.mean_sojourn_s.unwrap_or(0.0) }
}

fn mean(xs: impl Iterator<Item = f64>) -> f64 {
    let v: Vec<f64> = xs.collect();
    v.iter().sum::<f64>() / v.len() as f64
}

fn sd(xs: impl Iterator<Item = f64>) -> f64 {
    let v: Vec<f64> = xs.collect();
    let m = v.iter().sum::<f64>() / v.len() as f64;
    (v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (v.len() - 1) as f64).sqrt()
}

fn compare(case: &str) {
    let toml = repo().join("scenarios/validation").join(format!("{case}.toml"));
    let cmd = twin_command(&toml);
    let n3 = ns3(case, &cmd);
    let fw: Vec<Run> = SEEDS.map(|s| fairway(&toml, s)).collect();
    let flows = n3[0].goodput_bps.len();
    assert_eq!(fw[0].goodput_bps.len(), flows, "{case}: fairway runs {} flows, ns-3 {flows}", fw[0].goodput_bps.len());

    let mut report = String::new();
    let mut failures = vec![];
    let mut check = |what: String, f: f64, n: f64, spread: f64, tol: f64| {
        let d = f / n - 1.0;
        let ok = d.abs() <= tol;
        report += &format!(
            "  {what:<10} fairway {f:>12.1}  ns-3 {n:>12.1} (seeds' sd {:>4.1}%)  {:+6.1}%  {}\n",
            spread * 100.0,
            d * 100.0,
            if ok { "ok" } else { "OUTSIDE" }
        );
        if !ok {
            failures.push(format!("{what} {:+.1}% (band {:.0}%)", d * 100.0, tol * 100.0));
        }
    };
    let sums = |rs: &[Run]| rs.iter().map(|r| r.goodput_bps.iter().sum::<f64>()).collect::<Vec<_>>();
    let (fs, ns) = (sums(&fw), sums(&n3));
    check(
        "sum b/s".into(),
        mean(fs.iter().copied()),
        mean(ns.iter().copied()),
        sd(ns.iter().copied()) / mean(ns.iter().copied()),
        SUM_TOLERANCE,
    );
    for i in 0..flows {
        let n = mean(n3.iter().map(|r| r.goodput_bps[i]));
        check(
            format!("tcp{i} b/s"),
            mean(fw.iter().map(|r| r.goodput_bps[i])),
            n,
            sd(n3.iter().map(|r| r.goodput_bps[i])) / n,
            FLOW_TOLERANCE,
        );
    }
    let nw = mean(n3.iter().map(|r| r.wait_s));
    check(
        "wait us".into(),
        mean(fw.iter().map(|r| r.wait_s)) * 1e6,
        nw * 1e6,
        sd(n3.iter().map(|r| r.wait_s)) / nw,
        WAIT_TOLERANCE,
    );
    eprintln!("{case}, means over seeds {}-{}:\n{report}", SEEDS.start(), SEEDS.end());
    assert!(failures.is_empty(), "{case}: {} (the table above)", failures.join(", "));
}

macro_rules! case {
    ($(#[$attr:meta])* $test:ident, $case:literal) => {
        $(#[$attr])*
        #[test]
        fn $test() {
            compare($case);
        }
    };
}

case!(newreno_codel_2, "tcp-ns3-newreno-codel-2");
case!(newreno_codel_4, "tcp-ns3-newreno-codel-4");
case!(newreno_codel_8, "tcp-ns3-newreno-codel-8");
case!(newreno_droptail_2, "tcp-ns3-newreno-droptail-2");
case!(newreno_droptail_4, "tcp-ns3-newreno-droptail-4");
case!(newreno_droptail_8, "tcp-ns3-newreno-droptail-8");
case!(cubic_codel_2, "tcp-ns3-cubic-codel-2");
case!(
    #[ignore = "ns-3.37's TcpCubic is no referee here: after a timeout one ACK raises its cwnd from 1 to several times ssthresh (1 to 1292 once), which floods CoDel; in 5 of seeds 1-10 it waits 88-216 ms, in the others 6.9-7.3 ms; fairway 7.0 ms; shares within 15% (validation/ns3/README.md, tcp)"]
    cubic_codel_4,
    "tcp-ns3-cubic-codel-4"
);
case!(
    #[ignore = "ns-3.37's TcpCubic collapses through CoDel as with 4 flows (its post-timeout cwnd jumps): wait 163 ms against fairway's 9.8; one flow +18.7% where ns-3's sd is 108% (validation/ns3/README.md, tcp)"]
    cubic_codel_8,
    "tcp-ns3-cubic-codel-8"
);
case!(cubic_droptail_2, "tcp-ns3-cubic-droptail-2");
case!(cubic_droptail_4, "tcp-ns3-cubic-droptail-4");
case!(cubic_droptail_8, "tcp-ns3-cubic-droptail-8");
