//! ns-2 as the referee: runs each validation scenario in fairway and its Tcl twin in ns-2
//! (validation/*.tcl) with the same seeds and compares, per traffic class, delivered throughput
//! (within 10%) and the bottleneck's drop count (within 25%), averaged over the seeds.
//!
//! The benchmark scenarios (scenarios/bench/) are checked the same way against their shared twin
//! validation/dumbbell.tcl, for the points of the series that ns-2 runs in a few seconds, so that
//! bench/bench.py compares like with like.
//!
//! Scenarios whose shares hang on drop-tail phase effects are run with ns-2's remedy (TCP's
//! `overhead_`, CBR's `random_`) and compared flow by flow over more seeds
//! ([`compare_per_flow`]): without it a deterministic run's per-flow split depends on rounding,
//! in either tool (docs/semantics.md, "Phase effects").
//!
//! Runs whenever `ns` is on PATH. Without it the test says so and passes, unless
//! FAIRWAY_REQUIRE_NS2 is set (CI sets it, after installing Debian's ns2).

use std::path::{Path, PathBuf};
use std::process::Command;

use fairway_engine::{run, RunOptions};
use fairway_scenario::parse_scenario_file;
use serde_json::Value;

#[path = "../../fairway-cli/tests/referee/mod.rs"]
mod referee;

const SEEDS: [u64; 3] = [1, 2, 3];
const THROUGHPUT_TOLERANCE: f64 = 0.10;
const DROPS_TOLERANCE: f64 = 0.25;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn ns_available() -> bool {
    let missing =
        Command::new("ns").arg("-version").output().is_err().then(|| "`ns` (Debian's ns2) is not on PATH".to_string());
    referee::available("ns-2", "FAIRWAY_REQUIRE_NS2", missing)
}

/// Per class delivered bytes and bottleneck drops, averaged over seeds.
#[derive(Debug, Default, Clone, Copy)]
struct Measure {
    tcp_bytes: f64,
    udp_bytes: f64,
    drops: f64,
    early_drops: f64,
    arrivals: f64,
}

/// A twin's JSON output (validation/README.md): `ns <tcl> <out.json> <seed> <args...>`.
fn ns2_json(tcl: &Path, seed: u64, args: &[String]) -> Value {
    let stem = tcl.file_stem().unwrap().to_string_lossy();
    let mut tag = args.join("_");
    if tag.len() > 64 {
        // Wireless twins take their topology as arguments: too long for a file name.
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        tag.hash(&mut h);
        tag = format!("{:016x}", h.finish());
    }
    let out = std::env::temp_dir().join(format!("fairway-ns2-{stem}-{tag}-{seed}-{}.json", std::process::id()));
    let st = Command::new("ns").arg(tcl).arg(&out).arg(seed.to_string()).args(args).output().expect("run ns");
    assert!(st.status.success(), "ns {} failed: {}", tcl.display(), String::from_utf8_lossy(&st.stderr));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let _ = std::fs::remove_file(&out);
    v
}

fn ns2(tcl: &Path, args: &[String], seed: u64) -> Measure {
    let v = ns2_json(tcl, seed, args);
    let mut m = Measure::default();
    for f in v["flows"].as_array().unwrap() {
        let b = f["recv_bytes"].as_f64().unwrap();
        match f["class"].as_str().unwrap() {
            "tcp" => m.tcp_bytes += b,
            _ => m.udp_bytes += b,
        }
    }
    let link = v["links"].as_array().unwrap().iter().find(|l| l["name"] == "r1->r2").expect("r1->r2 in ns-2 output");
    m.drops = link["drops_pkts"].as_f64().unwrap();
    m.early_drops = link["early_drops_pkts"].as_f64().unwrap();
    m.arrivals = link["arrivals_pkts"].as_f64().unwrap();
    m
}

fn fairway(path: &Path, seed: u64) -> Measure {
    let sc = parse_scenario_file(path).unwrap_or_else(|e| panic!("{e}"));
    let res = run(&sc, &RunOptions { seed: Some(seed), ..Default::default() }, &mut |_| {}).unwrap();
    let s = &res.summary;
    // A class without flows is not in the summary: none of its bytes.
    let class = |c: &str| s.classes.iter().find(|k| k.class == c).map_or(0.0, |k| k.recv_distinct_bytes as f64);
    let link = s.links.iter().find(|l| l.name == "r1->r2").unwrap();
    Measure {
        tcp_bytes: class("tcp"),
        // ns-2's twins report TFRC's bytes with the UDP flows: every class but TCP.
        udp_bytes: s.classes.iter().filter(|c| c.class != "tcp").map(|c| c.recv_distinct_bytes as f64).sum(),
        // ns-2 counts its ErrorModel's losses among the link's drops.
        drops: (link.drops_pkts + link.lost_pkts) as f64,
        early_drops: link.early_drops_pkts as f64,
        arrivals: link.arrivals_pkts as f64,
    }
}

fn mean(ms: &[Measure]) -> Measure {
    let n = ms.len() as f64;
    Measure {
        tcp_bytes: ms.iter().map(|m| m.tcp_bytes).sum::<f64>() / n,
        udp_bytes: ms.iter().map(|m| m.udp_bytes).sum::<f64>() / n,
        drops: ms.iter().map(|m| m.drops).sum::<f64>() / n,
        early_drops: ms.iter().map(|m| m.early_drops).sum::<f64>() / n,
        arrivals: ms.iter().map(|m| m.arrivals).sum::<f64>() / n,
    }
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

/// A validation scenario: scenarios/validation/<name>.toml against validation/<name>.tcl.
fn compare(name: &str) {
    let toml = repo().join("scenarios/validation").join(format!("{name}.toml"));
    let tcl = repo().join("validation").join(format!("{name}.tcl"));
    compare_files(name, &toml, &tcl, &[]);
}

/// A benchmark scenario: scenarios/bench/<name>.toml against validation/dumbbell.tcl with the
/// arguments that the file's header names in its `ns validation/dumbbell.tcl out.json 1 ...` line
/// (written by bench/gen_scenarios.py, which bench/bench.py also uses).
fn compare_bench(name: &str) {
    let toml = repo().join("scenarios/bench").join(format!("{name}.toml"));
    compare_files(name, &toml, &repo().join("validation/dumbbell.tcl"), &bench_twin_args(&toml));
}

fn bench_twin_args(toml: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(toml).unwrap();
    let marker = "ns validation/dumbbell.tcl out.json 1 ";
    let line = text
        .lines()
        .find_map(|l| l.split_once(marker).map(|(_, rest)| rest))
        .unwrap_or_else(|| panic!("{} names no ns-2 twin command ({marker}...)", toml.display()));
    line.split_whitespace().map(str::to_string).collect()
}

fn compare_files(name: &str, toml: &Path, tcl: &Path, args: &[String]) {
    compare_files_within(name, toml, tcl, args, THROUGHPUT_TOLERANCE);
}

/// [`compare_files`] with each class's delivered bytes within `throughput_tolerance`.
fn compare_files_within(name: &str, toml: &Path, tcl: &Path, args: &[String], throughput_tolerance: f64) {
    if !ns_available() {
        return;
    }
    let ns: Vec<Measure> = SEEDS.iter().map(|s| ns2(tcl, args, *s)).collect();
    let fw: Vec<Measure> = SEEDS.iter().map(|s| fairway(toml, *s)).collect();
    let (n, f) = (mean(&ns), mean(&fw));
    let rows = [
        ("tcp delivered bytes", f.tcp_bytes, n.tcp_bytes, throughput_tolerance),
        ("udp delivered bytes", f.udp_bytes, n.udp_bytes, throughput_tolerance),
        ("bottleneck drops", f.drops, n.drops, DROPS_TOLERANCE),
    ];
    eprintln!("{name} (mean of seeds {SEEDS:?}): fairway vs ns-2");
    let mut failed = vec![];
    for (what, a, b, tol) in rows {
        let r = rel(a, b);
        eprintln!("  {what:<22} {a:>14.0} {b:>14.0}  {:>6.1}%  (limit {:.0}%)", r * 100.0, tol * 100.0);
        if r > tol {
            failed.push(what);
        }
    }
    eprintln!("  {:<22} {:>14.0} {:>14.0}  (for information)", "  of which early", f.early_drops, n.early_drops);
    eprintln!("  {:<22} {:>14.0} {:>14.0}  (for information)", "bottleneck arrivals", f.arrivals, n.arrivals);
    assert!(failed.is_empty(), "{name}: fairway and ns-2 disagree on {failed:?}; see docs/semantics.md");
}

/// Seeds for the per-flow comparison: with randomised sends a flow's delivered bytes vary by
/// about 8% from seed to seed (rtt-unfair), so the mean of 20 has a standard error near 2% and
/// the difference of two such means near 3%; 10% is then more than three of those.
const FLOW_SEEDS: u64 = 20;
const FLOW_TOLERANCE: f64 = 0.10;

/// CCID3's bottleneck drops, mean over the seeds: within 10% of ns-2's (issue 36's target). A
/// run's drops vary by about 4% from seed to seed on the random-start dumbbells (the rare
/// outlier near -15% is a run where a flow's handshake Ack was lost: its server then ignores
/// the data, as ns-2's dccp.cc does in the same state), so the mean of 20 has a standard error near 1% and the difference of two such means
/// near 1.5%: 10% is well outside chance.
const CCID3_DROPS_TOLERANCE: f64 = 0.10;

/// The twin command a validation scenario names in its header: `# ns-2 twin: ns
/// validation/<file>.tcl out.json SEED <args...>`. Returns the twin's path and its arguments after
/// the seed.
fn twin_of(toml: &Path) -> (PathBuf, Vec<String>) {
    let text = std::fs::read_to_string(toml).unwrap();
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("# ns-2 twin: ns "))
        .unwrap_or_else(|| panic!("{} names no `# ns-2 twin: ns ...` line", toml.display()));
    let words: Vec<&str> = line.split_whitespace().collect();
    assert!(words.len() >= 3 && words[1] == "out.json" && words[2] == "SEED", "{line}");
    (repo().join(words[0]), words[3..].iter().map(|w| w.to_string()).collect())
}

/// Per flow: each flow's delivered bytes, averaged over [`FLOW_SEEDS`] seeds, within
/// [`FLOW_TOLERANCE`] of ns-2's; per class and for the drops as [`compare_files`] does.
fn compare_per_flow(name: &str) {
    compare_per_flow_seeds(name, FLOW_SEEDS);
}

/// [`compare_per_flow`] over seeds 1..=`seeds` (a deterministic scenario gives every seed the
/// same run in both simulators: a few show it).
fn compare_per_flow_seeds(name: &str, seeds: u64) {
    compare_per_flow_within(name, seeds, FLOW_TOLERANCE);
}

/// [`compare_per_flow_seeds`] with each flow within `tolerance`.
fn compare_per_flow_within(name: &str, seeds: u64, tolerance: f64) {
    compare_per_flow_and_drops(name, seeds, tolerance, DROPS_TOLERANCE);
}

/// [`compare_per_flow_within`] with the bottleneck's mean drops within `drops_tolerance`.
fn compare_per_flow_and_drops(name: &str, seeds: u64, tolerance: f64, drops_tolerance: f64) {
    if !ns_available() {
        return;
    }
    let toml = repo().join("scenarios/validation").join(format!("{name}.toml"));
    let (tcl, args) = twin_of(&toml);
    let sc = parse_scenario_file(&toml).unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<String> = sc.flows.iter().map(|f| f.name.clone()).collect();
    let (mut fw, mut ns) = (vec![vec![]; names.len()], vec![vec![]; names.len()]);
    let (mut fw_class, mut ns_class) = (vec![], vec![]);
    for seed in 1..=seeds {
        let res = run(&sc, &RunOptions { seed: Some(seed), ..Default::default() }, &mut |_| {}).unwrap();
        for (i, n) in names.iter().enumerate() {
            let f = res.summary.flows.iter().find(|f| &f.name == n).unwrap();
            fw[i].push(f.recv_distinct_bytes as f64);
        }
        fw_class.push(fairway(&toml, seed));
        let v = ns2_json(&tcl, seed, &args);
        for (i, n) in names.iter().enumerate() {
            let f = v["flows"].as_array().unwrap().iter().find(|f| f["name"] == n.as_str());
            let f = f.unwrap_or_else(|| panic!("ns-2 output lacks flow {n}"));
            ns[i].push(f["recv_bytes"].as_f64().unwrap());
        }
        ns_class.push(ns2(&tcl, &args, seed));
    }
    let avg = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    eprintln!("{name} (mean of seeds 1..={seeds}): delivered bytes per flow, fairway vs ns-2");
    let mut failed = vec![];
    for (i, n) in names.iter().enumerate() {
        let (a, b) = (avg(&fw[i]), avg(&ns[i]));
        let r = rel(a, b);
        eprintln!("  {n:<10} {a:>12.0} {b:>12.0}  {:>5.1}%  (limit {:.0}%)", r * 100.0, tolerance * 100.0);
        if r > tolerance {
            failed.push(n.clone());
        }
    }
    let (f, n) = (mean(&fw_class), mean(&ns_class));
    for (what, a, b, tol) in [
        ("tcp", f.tcp_bytes, n.tcp_bytes, THROUGHPUT_TOLERANCE),
        ("udp", f.udp_bytes, n.udp_bytes, THROUGHPUT_TOLERANCE),
        ("drops", f.drops, n.drops, drops_tolerance),
    ] {
        let r = rel(a, b);
        eprintln!("  {what:<10} {a:>12.0} {b:>12.0}  {:>5.1}%  (limit {:.0}%)", r * 100.0, tol * 100.0);
        if r > tol {
            failed.push(what.to_string());
        }
    }
    assert!(failed.is_empty(), "{name}: fairway and ns-2 disagree on {failed:?}; see docs/semantics.md");
}

#[test]
fn rtt_unfair_agrees_with_ns2_flow_by_flow() {
    compare_per_flow("rtt-unfair");
}

/// Deterministic drop-tail, flow by flow (docs/semantics.md, "Phase effects"): the validation
/// dumbbells whose shares hang on the phase the flows lock into, with their randomisation taken
/// out (TCP's `overhead`, CBR's `jitter`; the twin's overhead argument 0) and each TCP's tick
/// phase pinned (`tick_phase`) to ns-2's own draw of its `boot_time_` for the seed, which the
/// twin writes (validation/lib.tcl, `fw_boot_times`), on ns-2's clock. Left to draw their own
/// phases the two tools differ by 8-13% per flow on rtt-unfair (the table in docs/semantics.md);
/// with ns-2's they run the same phase. Measured over seeds 1-3: every flow-run but one within
/// 0.3%, most to the byte; the bottleneck's trace is ns-2's event for event on rtt-unfair (all
/// 60 s of seeds 1 and 2), where tcp0 is 4 and 7 packets over ns-2's figure on seeds 1 and 2
/// because the twin's TCPSink `bytes_` counts fewer data packets than its own trace shows
/// reaching the sink (1964 against 1968 on seed 1, fairway's count); droptail-mix's reno1 is 0.7% over
/// on seed 1. The band, 1% per flow and seed (about 18 of rtt-unfair's tcp0's 1800 packets),
/// tells the same phase from another one with room for those packets.
#[test]
fn deterministic_dumbbells_with_ns2s_tick_phases_agree_with_ns2_flow_by_flow() {
    if !ns_available() {
        return;
    }
    let mut failed = vec![];
    for name in
        ["rtt-unfair", "sack-unfair", "droptail-mix", "tahoe-mix", "elaarag2002-fig6-reno", "elaarag2002-fig6-cbr"]
    {
        let toml = repo().join(format!("scenarios/validation/{name}.toml"));
        let text = std::fs::read_to_string(&toml).unwrap();
        // A file that names no twin has one of its own name, without arguments (`compare`).
        let (tcl, mut args) = if text.contains("# ns-2 twin: ") {
            twin_of(&toml)
        } else {
            (repo().join(format!("validation/{name}.tcl")), vec![])
        };
        if args.first().is_some_and(|a| a.parse::<f64>().is_ok()) {
            // The twins that take TCP's overhead_ take it first.
            args[0] = "0".into();
        }
        let deterministic: String = text
            .lines()
            .filter(|l| !l.starts_with("overhead = ") && *l != "jitter = true")
            .map(|l| format!("{l}\n"))
            .collect::<String>()
            .replacen("\nseed = ", "\nclock = \"ns2\"\nseed = ", 1);
        assert!(deterministic.contains("clock = \"ns2\""), "{name} sets no seed");
        for seed in SEEDS {
            let out =
                std::env::temp_dir().join(format!("fairway-ns2-boot-times-{name}-{seed}-{}.json", std::process::id()));
            let st = Command::new("ns")
                .env("FAIRWAY_NS2_BOOT_TIMES", "1")
                .arg(&tcl)
                .arg(&out)
                .arg(seed.to_string())
                .args(&args)
                .output()
                .expect("run ns");
            assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
            let boot: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
            let _ = std::fs::remove_file(&out);
            let mut pinned = deterministic.clone();
            for (flow, t) in boot["boot_times"].as_object().unwrap() {
                let ns = (t.as_f64().unwrap() * 1e9).round();
                let line = format!("name = \"{flow}\"\n");
                assert!(pinned.contains(&line), "{name}: {flow}");
                pinned = pinned.replace(&line, &format!("{line}tick_phase = \"{ns}ns\"\n"));
            }
            let sc = fairway_scenario::parse_scenario(&format!("{name}-pinned.toml"), &pinned, name)
                .unwrap_or_else(|e| panic!("{e}"));
            let res = run(&sc, &RunOptions { seed: Some(seed), ..Default::default() }, &mut |_| {}).unwrap();
            let v = ns2_json(&tcl, seed, &args);
            for f in &res.summary.flows {
                let n = v["flows"].as_array().unwrap().iter().find(|g| g["name"] == f.name.as_str()).unwrap();
                let (a, b) = (f.recv_distinct_bytes as f64, n["recv_bytes"].as_f64().unwrap());
                eprintln!("  {name} seed {seed} {:<6} {a:>10.0} {b:>10.0}  {:+.2}%", f.name, (a / b - 1.0) * 100.0);
                if rel(a, b) > 0.01 {
                    failed.push(format!("{name} {} seed {seed}", f.name));
                }
            }
        }
    }
    assert!(failed.is_empty(), "with ns-2's tick phases, fairway and ns-2 disagree on {failed:?}");
}

/// dccp-ns2's TCP runs without `send_jitter` (three Tahoe flows, every link 10 Mb/s and 2 ms,
/// no random draw in either tool: deterministic) are full of exact ties: two packets reach r1 at
/// one instant, or one arrives as the bottleneck finishes a transmission. ns-2 orders them by
/// its double-precision times, which differ in the last place with the sums that made them;
/// `clock = "ns2"` orders them the same way (docs/semantics.md, "Phase effects"). On it each
/// client's delivered payload agrees with ns-2's in all five set-ups of `fairway reproduce
/// dccp-ns2` (the bottleneck as written, its queue at 100, its rate at 20 Mb/s, its delay at 10
/// and 50 ms) within two packets: the twin's figure, TCPSink's `bytes_`, is one packet short of
/// the distinct packets its own trace shows reaching each sink, which fairway's count matches
/// (40 839 for client 1 in the default set-up). On fairway's own clock the default set-up settles in another phase (client 1
/// 22% under ns-2, client 3 21% over): the last assertion shows the clock is what closes it.
#[test]
fn dccp_ns2_tcp_runs_without_jitter_agree_with_ns2_to_the_packet_on_ns2s_clock() {
    if !ns_available() {
        return;
    }
    let tcl = repo().join("validation/dccp-ns2.tcl");
    let text = std::fs::read_to_string(repo().join("scenarios/dccp-ns2/tcp.toml")).unwrap();
    let plain: String = text.lines().filter(|l| !l.starts_with("send_jitter")).map(|l| format!("{l}\n")).collect();
    assert_ne!(plain, text, "tcp.toml sets send_jitter");
    // The bottleneck is the file's first link; each set-up changes one of its values.
    let (head, rest) = plain.split_once("[[link]]").unwrap();
    let (bottleneck, tail) = rest.split_once("[[link]]").unwrap();
    let setups = [
        ("default", ("", "")),
        ("queue100", ("limit = 20", "limit = 100")),
        ("rate20", ("rate = \"10Mb\"", "rate = \"20Mb\"")),
        ("delay10", ("delay = \"2ms\"", "delay = \"10ms\"")),
        ("delay50", ("delay = \"2ms\"", "delay = \"50ms\"")),
    ];
    let payload = |clock: &str, change: (&str, &str)| -> Vec<f64> {
        let b = if change.0.is_empty() { bottleneck.to_string() } else { bottleneck.replacen(change.0, change.1, 1) };
        let toml = format!("{head}clock = \"{clock}\"\n[[link]]{b}[[link]]{tail}");
        let sc =
            fairway_scenario::parse_scenario("dccp-ns2-tcp.toml", &toml, "dccp-ns2").unwrap_or_else(|e| panic!("{e}"));
        let res = run(&sc, &RunOptions::default(), &mut |_| {}).unwrap();
        assert_eq!(res.summary.clock.as_deref(), (clock == "ns2").then_some("ns2"), "summary.json names the clock");
        // 500 B of payload per packet (the ns-2 side: TCPSink's bytes_ / 540 x 500).
        res.summary.flows.iter().map(|f| f.recv_distinct_pkts as f64 * 500.0).collect()
    };
    let mut failed = vec![];
    let mut default_ns2 = vec![];
    for (change, edit) in setups {
        let v = ns2_json(&tcl, 1, &["tcp".into(), change.into(), "0".into()]);
        let samples = v["cumulative_payload_bytes"].as_array().unwrap();
        let ns: Vec<f64> = samples.last().unwrap().as_array().unwrap().iter().map(|b| b.as_f64().unwrap()).collect();
        let fw = payload("ns2", edit);
        for (i, (a, b)) in fw.iter().zip(&ns).enumerate() {
            eprintln!("  {change:<8} client{} {a:>10.0} {b:>10.0}", i + 1);
            if (a - b).abs() > 1000.0 {
                failed.push(format!("{change} client{}: {a} against {b}", i + 1));
            }
        }
        if change == "default" {
            default_ns2 = ns;
        }
    }
    assert!(failed.is_empty(), "on ns-2's clock: {failed:?}");
    let own = payload("fairway", ("", ""));
    assert!(
        own.iter().zip(&default_ns2).any(|(a, b)| rel(*a, *b) > 0.1),
        "the default set-up agrees on fairway's clock too ({own:?} against {default_ns2:?}): the test no longer shows what the clock does"
    );
}

/// ns-2's SACK sender (Agent/TCP/Sack1) and its sink, in rtt-unfair's set-up, per flow within
/// 5% (issue 34's band for SACK; two standard errors of the difference of the 20-seed means).
#[test]
fn sack_unfair_agrees_with_ns2_flow_by_flow() {
    compare_per_flow_within("sack-unfair", FLOW_SEEDS, 0.05);
}

#[test]
fn elaarag2002_fig6_with_reno_in_iftps_slots_agrees_with_ns2_flow_by_flow() {
    compare_per_flow("elaarag2002-fig6-reno");
}

#[test]
fn elaarag2002_fig6_with_cbr_in_iftps_slots_agrees_with_ns2_flow_by_flow() {
    compare_per_flow("elaarag2002-fig6-cbr");
}

#[test]
fn kadhum2015_cbr_agrees_with_ns2() {
    compare("kadhum2015-cbr");
}

#[test]
fn dumbbell_mid_agrees_with_ns2() {
    compare("dumbbell-mid");
}

#[test]
fn droptail_mix_agrees_with_ns2() {
    compare("droptail-mix");
}

#[test]
fn tahoe_mix_agrees_with_ns2() {
    compare("tahoe-mix");
}

/// A validation scenario whose twin and its arguments the scenario's header names.
fn compare_twin(name: &str) {
    compare_twin_within(name, THROUGHPUT_TOLERANCE);
}

/// [`compare_twin`] with the delivered bytes within `throughput_tolerance`.
fn compare_twin_within(name: &str, throughput_tolerance: f64) {
    let toml = repo().join("scenarios/validation").join(format!("{name}.toml"));
    let (tcl, args) = twin_of(&toml);
    compare_files_within(name, &toml, &tcl, &args, throughput_tolerance);
}

/// TFRC in its ns-2 flavour against ns-2 2.35's Agent/TFRC and Agent/TFRCSink (at their
/// defaults): beside NewReno through RED and through DropTail, and alone on a lossy path.
#[test]
fn tfrc_red_agrees_with_ns2() {
    compare_twin("tfrc-red");
}

#[test]
fn tfrc_droptail_agrees_with_ns2() {
    compare_twin("tfrc-droptail");
}

/// Within 5% (issue 36): with the twin's ErrorModel on its own random stream and on r1 -> r2
/// only, as fairway's link loss, the two agree within 1% on seeds 1-3 (docs/semantics.md).
#[test]
fn tfrc_lossy_agrees_with_ns2() {
    compare_twin_within("tfrc-lossy", 0.05);
}

/// CCID2 in its ns-2 flavour against ns-2 2.35's Agent/DCCP/TCPlike: dccp-ns2's dumbbell through
/// DropTail (per class), and through RED with ECN on and off (flow by flow).
#[test]
fn ccid2_droptail_agrees_with_ns2() {
    compare_twin("dccp-ccid2");
}

#[test]
fn ccid2_red_with_ecn_agrees_with_ns2_flow_by_flow() {
    compare_per_flow("dccp-ccid2-red");
}

#[test]
fn ccid2_red_without_ecn_agrees_with_ns2_flow_by_flow() {
    compare_per_flow("dccp-ccid2-red-noecn");
}

/// CCID3 in its ns-2 flavour against ns-2 2.35's Agent/DCCP/TFRC, on the same dumbbell: flow
/// by flow through DropTail too (the rate-paced flows do not lock into drop-tail phases), and
/// the bottleneck's drops within [`CCID3_DROPS_TOLERANCE`].
#[test]
fn ccid3_droptail_agrees_with_ns2_flow_by_flow() {
    compare_per_flow_and_drops("dccp-ccid3", 3, FLOW_TOLERANCE, CCID3_DROPS_TOLERANCE);
}

#[test]
fn ccid3_red_with_ecn_agrees_with_ns2_flow_by_flow() {
    compare_per_flow_and_drops("dccp-ccid3-red", FLOW_SEEDS, FLOW_TOLERANCE, CCID3_DROPS_TOLERANCE);
}

#[test]
fn ccid3_red_without_ecn_agrees_with_ns2_flow_by_flow() {
    compare_per_flow_and_drops("dccp-ccid3-red-noecn", FLOW_SEEDS, FLOW_TOLERANCE, CCID3_DROPS_TOLERANCE);
}

/// dccp-ccid3 with random starts: one run per seed in each tool, compared as means.
#[test]
fn ccid3_random_starts_agree_with_ns2_flow_by_flow() {
    compare_per_flow_and_drops("dccp-ccid3-random", FLOW_SEEDS, FLOW_TOLERANCE, CCID3_DROPS_TOLERANCE);
}

/// Two CCID3 flows beside two NewReno flows, random starts.
#[test]
fn ccid3_beside_tcp_agrees_with_ns2_flow_by_flow() {
    compare_per_flow_and_drops("dccp-ccid3-tcp", FLOW_SEEDS, FLOW_TOLERANCE, CCID3_DROPS_TOLERANCE);
}

#[test]
fn bench_series_10_agrees_with_ns2() {
    compare_bench("series-10");
}

#[test]
fn bench_series_100_agrees_with_ns2() {
    compare_bench("series-100");
}

/// dumbbell.tcl generalises dumbbell-mid.tcl; with mid's parameters it must be the same ns-2
/// simulation (same objects created in the same order, so the same random draws): its JSON may
/// differ only in the scenario name and the wall time.
#[test]
fn dumbbell_tcl_with_mid_parameters_is_dumbbell_mid() {
    if !ns_available() {
        return;
    }
    let args: Vec<String> = "100 10 100Mb 1Gb 100 300 1000 20".split(' ').map(str::to_string).collect();
    let mut general = ns2_json(&repo().join("validation/dumbbell.tcl"), 1, &args);
    let mut mid = ns2_json(&repo().join("validation/dumbbell-mid.tcl"), 1, &[]);
    for v in [&mut general, &mut mid] {
        let o = v.as_object_mut().unwrap();
        o.remove("scenario");
        o.remove("wall_s");
    }
    assert_eq!(general, mid);
}

/// How a wireless scenario's mean delay is compared.
#[derive(Clone, Copy, PartialEq)]
enum DelayBand {
    /// Within 10%: set by the interface queue's length and the MAC's service time, which both
    /// share, when the run settles into one regime (one hop, or a light chain).
    Tight,
    /// Within 10%, or two standard errors of the difference of the means (about 95%) where
    /// that is wider: where routes break and mend, the delay swings from seed to seed in either
    /// simulator.
    Spread,
}

/// Wireless (802.11) scenarios against validation/wireless.tcl, over seeds 1 to `seeds` (ns-2
/// draws its backoffs from its own generator, so single runs differ slot by slot and only means
/// are compared): delivered packets, summed over the flows, within 10%; the mean delay of the
/// delivered packets as `band` says; collisions (ns-2's MAC COL drops) and, with AODV, routing
/// packets sent within 25%, the suite's band for drop counts. Flows that stand alike split the
/// channel by chance from seed to seed, so their sum is compared, not each.
fn compare_wireless(name: &str, seeds: u64, band: DelayBand) {
    if !ns_available() {
        return;
    }
    let toml = repo().join("scenarios/validation").join(format!("{name}.toml"));
    let (tcl, args) = twin_of(&toml);
    let sc = parse_scenario_file(&toml).unwrap_or_else(|e| panic!("{e}"));
    let n = seeds as f64;
    let (mut fw_pkts, mut ns_pkts) = (0.0, 0.0);
    let (mut fw_delays, mut ns_delays) = (vec![], vec![]);
    let (mut fw_col, mut ns_col, mut fw_rt, mut ns_rt) = (0.0, 0.0, 0.0, 0.0);
    for seed in 1..=seeds {
        let res = run(&sc, &RunOptions { seed: Some(seed), ..Default::default() }, &mut |_| {}).unwrap();
        let v = ns2_json(&tcl, seed, &args);
        let (mut fw_n, mut ns_n, mut fw_d, mut ns_d) = (0.0, 0.0, 0.0, 0.0);
        for f in &sc.flows {
            let a = res.summary.flows.iter().find(|g| g.name == f.name).unwrap();
            fw_n += a.recv_distinct_pkts as f64;
            fw_d += a.mean_delay_s.unwrap_or(0.0) * a.recv_pkts as f64;
            let b = v["flows"].as_array().unwrap().iter().find(|g| g["name"] == f.name.as_str());
            let b = b.unwrap_or_else(|| panic!("ns-2 output lacks flow {}", f.name));
            ns_n += b["recv_pkts"].as_f64().unwrap();
            ns_d += b["mean_delay_s"].as_f64().unwrap_or(0.0) * b["recv_pkts"].as_f64().unwrap();
        }
        fw_pkts += fw_n / n;
        ns_pkts += ns_n / n;
        fw_delays.push(fw_d / fw_n.max(1.0));
        ns_delays.push(ns_d / ns_n.max(1.0));
        let w = res.summary.wireless.as_ref().expect("a wireless scenario");
        fw_col += w.nodes.iter().map(|n| n.mac.collisions as f64).sum::<f64>() / n;
        fw_rt += w.nodes.iter().map(|n| n.net.routing_pkts as f64).sum::<f64>() / n;
        ns_col += v["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["drops"]["MAC"]["COL"].as_f64().unwrap_or(0.0))
            .sum::<f64>()
            / n;
        ns_rt += v["routing"]["pkts"].as_f64().unwrap_or(0.0) / n;
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let var = |v: &[f64]| {
        let m = mean(v);
        v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (v.len() as f64 - 1.0).max(1.0)
    };
    let (fw_delay, ns_delay) = (mean(&fw_delays), mean(&ns_delays));
    let mut failed = vec![];
    // Signed, for the printout (`rel` is the size of the difference).
    let pct = |a: f64, b: f64| if b == 0.0 { 0.0 } else { 100.0 * (a - b) / b };
    eprintln!("{name} (mean of seeds 1..={seeds}): fairway vs ns-2");
    let r = rel(fw_pkts, ns_pkts);
    eprintln!("  delivered {fw_pkts:.1} vs {ns_pkts:.1} pkts ({:+.1}%)", pct(fw_pkts, ns_pkts));
    if r.abs() > THROUGHPUT_TOLERANCE {
        failed.push("delivered");
    }
    let d = rel(fw_delay, ns_delay);
    let se = ((var(&fw_delays) + var(&ns_delays)) / n).sqrt();
    eprintln!(
        "  mean delay {fw_delay:.4} vs {ns_delay:.4} s ({:+.1}%; standard error of the difference {se:.4} s)",
        pct(fw_delay, ns_delay)
    );
    let delay_ok = match band {
        DelayBand::Tight => d.abs() <= THROUGHPUT_TOLERANCE,
        DelayBand::Spread => d.abs() <= THROUGHPUT_TOLERANCE || (fw_delay - ns_delay).abs() <= 2.0 * se,
    };
    if !delay_ok {
        failed.push("delay");
    }
    // Static routes send no routing packets; their twin runs AODV.
    let aodv = sc.wireless.as_ref().is_some_and(|w| w.routing == fairway_model::wireless::Routing::Aodv);
    let mut counts = vec![("collisions", fw_col, ns_col)];
    if aodv {
        counts.push(("routing packets", fw_rt, ns_rt));
    }
    // A few either way are noise, not disagreement.
    for (what, a, b) in counts {
        let c = rel(a, b);
        eprintln!("  {what} {a:.1} vs {b:.1} ({:+.1}%)", pct(a, b));
        if c.abs() > DROPS_TOLERANCE && (a - b).abs() > 5.0 {
            failed.push(what);
        }
    }
    assert!(failed.is_empty(), "{name}: outside the band: {failed:?}");
}

#[test]
fn wireless_pair_agrees_with_ns2() {
    compare_wireless("wireless-pair", 3, DelayBand::Tight);
}

#[test]
fn wireless_star_agrees_with_ns2() {
    compare_wireless("wireless-star", 3, DelayBand::Tight);
}

/// fairway's static routes against ns-2's AODV, which finds the same path once at this load.
#[test]
fn wireless_chain_agrees_with_ns2() {
    compare_wireless("wireless-chain", 3, DelayBand::Tight);
}

/// TCP's delay hangs on how its window splits between the data queued at the sender and the
/// ACKs queued at the receiver, which the MAC's contention decides anew every run (0.08 to 0.16 s
/// over ns-2's first six seeds, 0.07 to 0.14 s in fairway's): compared within the spread.
#[test]
fn wireless_tcp_agrees_with_ns2() {
    compare_wireless("wireless-tcp", 3, DelayBand::Spread);
}

/// Ten seeds: the chain's mean delay swings from seed to seed in either tool (ns-2: 0.90 to
/// 1.24 s over seeds 1 to 10), and five seeds' means of ns-2 alone differ by 5% in delivered
/// packets (1070 over seeds 1 to 5, 1013 over 6 to 10).
#[test]
fn wireless_chain_busy_agrees_with_ns2() {
    compare_wireless("wireless-chain-busy", 10, DelayBand::Spread);
}

#[test]
fn wireless_grid_agrees_with_ns2() {
    compare_wireless("wireless-grid", 5, DelayBand::Spread);
}

/// Mobile runs (issue 15: delivery ratio and delay within their seed-to-seed spread over at
/// least ten seeds): wireless-mobile over seeds 1 to 10, each seed with its own movement file
/// (scenarios/validation/moves/rw20-<seed>.tcl), read by both simulators. Per seed, the delivery
/// ratio of the three flows together and the mean delay of their delivered packets. Both tools
/// run the same movements seed by seed, so the runs pair up: the mean of the per-seed
/// differences must lie within two of its standard errors (about 95%) of zero, the spread being
/// the runs' own (AODV's and the MAC's luck swing every run; which nodes meet when does not).
#[test]
fn wireless_mobile_agrees_with_ns2() {
    if !ns_available() {
        return;
    }
    let toml = repo().join("scenarios/validation/wireless-mobile.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    let flows = "voip0:cbr:0:19:84000:160:1:100;voip1:cbr:1:18:84000:160:1:100;voip2:cbr:2:17:84000:160:1:100";
    let (mut fw_pdr, mut ns_pdr, mut fw_delay, mut ns_delay) = (vec![], vec![], vec![], vec![]);
    for seed in 1..=10u64 {
        let file = format!("moves/rw20-{seed}.tcl");
        let dir = repo().join("scenarios/validation");
        let path = dir.join(format!(".wireless-mobile-{seed}-{}.toml", std::process::id()));
        std::fs::write(&path, text.replace("moves/rw20-1.tcl", &file)).unwrap();
        let sc = parse_scenario_file(&path);
        let _ = std::fs::remove_file(&path);
        let sc = sc.unwrap_or_else(|e| panic!("{e}"));
        let res = run(&sc, &RunOptions { seed: Some(seed), ..Default::default() }, &mut |_| {}).unwrap();
        let fl = &res.summary.flows;
        let recv: u64 = fl.iter().map(|f| f.recv_pkts).sum();
        let sent: u64 = fl.iter().map(|f| f.sent_pkts).sum();
        fw_pdr.push(recv as f64 / sent as f64);
        fw_delay.push(
            fl.iter().map(|f| f.mean_delay_s.unwrap_or(0.0) * f.recv_pkts as f64).sum::<f64>() / recv.max(1) as f64,
        );
        let moves = format!("scenarios/validation/{file}");
        let args: Vec<String> = ["100", "AODV", "0", "-", flows, &format!("area=1000x1000;moves={moves}")]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let v = ns2_json(&repo().join("validation/wireless.tcl"), seed, &args);
        let g = v["flows"].as_array().unwrap();
        let recv: f64 = g.iter().map(|f| f["recv_pkts"].as_f64().unwrap()).sum();
        let sent: f64 = g.iter().map(|f| f["sent_pkts"].as_f64().unwrap()).sum();
        ns_pdr.push(recv / sent);
        ns_delay.push(
            g.iter().map(|f| f["mean_delay_s"].as_f64().unwrap_or(0.0) * f["recv_pkts"].as_f64().unwrap()).sum::<f64>()
                / recv.max(1.0),
        );
    }
    let n = fw_pdr.len() as f64;
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let var = |v: &[f64]| {
        let m = mean(v);
        v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (v.len() as f64 - 1.0)
    };
    let mut failed = vec![];
    eprintln!("wireless-mobile (seeds 1..=10, each its own movements): fairway vs ns-2");
    for (what, a, b) in [("delivery ratio", &fw_pdr, &ns_pdr), ("mean delay (s)", &fw_delay, &ns_delay)] {
        let diff: Vec<f64> = a.iter().zip(b.iter()).map(|(x, y)| x - y).collect();
        let se = (var(&diff) / n).sqrt();
        let (ma, mb) = (mean(a), mean(b));
        eprintln!("  {what}: {ma:.4} vs {mb:.4} (mean paired difference {:+.4}, its standard error {se:.4})", ma - mb);
        eprintln!("    per seed fairway {a:.3?}");
        eprintln!("    per seed ns-2    {b:.3?}");
        if (ma - mb).abs() > 2.0 * se {
            failed.push(what);
        }
    }
    assert!(failed.is_empty(), "wireless-mobile: outside two standard errors: {failed:?}");
}

/// janani-tfrc's Table 5 set-up at 50 nodes (issue 36; scenarios/validation/wireless-table5.toml),
/// short form: pauses 10 and 80 s over seeds 1 to 5, each seed with its own movement file
/// (scenarios/validation/moves/t5-p<pause>-<seed>.tcl, from validation/setdest.py), read by both
/// simulators; bench/table5.py runs the full set (pauses 10, 40 and 80 s, seeds 1 to 10;
/// bench/results-table5.md). Per pause, as for wireless-mobile, the runs pair up seed by seed:
/// the mean of the per-seed differences of the delivery ratio and of the mean delay must lie
/// within two of its standard errors of zero (which route AODV finds first, and so how long a
/// path carries the run, is luck in both tools: per seed the delivery ratios differ by up to 0.2).
#[test]
fn wireless_table5_agrees_with_ns2() {
    if !ns_available() {
        return;
    }
    let toml = repo().join("scenarios/validation/wireless-table5.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    let flows = "voip0:cbr:0:1:84000:160:0:100;voip1:cbr:2:3:84000:160:0.1:100";
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let var = |v: &[f64]| {
        let m = mean(v);
        v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (v.len() as f64 - 1.0)
    };
    let mut failed = vec![];
    for pause in [10, 80] {
        let (mut fw_pdr, mut ns_pdr, mut fw_delay, mut ns_delay) = (vec![], vec![], vec![], vec![]);
        for seed in 1..=5u64 {
            let file = format!("moves/t5-p{pause}-{seed}.tcl");
            let dir = repo().join("scenarios/validation");
            let path = dir.join(format!(".wireless-table5-{pause}-{seed}-{}.toml", std::process::id()));
            std::fs::write(&path, text.replace("moves/t5-p10-1.tcl", &file)).unwrap();
            let sc = parse_scenario_file(&path);
            let _ = std::fs::remove_file(&path);
            let sc = sc.unwrap_or_else(|e| panic!("{e}"));
            let res = run(&sc, &RunOptions { seed: Some(seed), ..Default::default() }, &mut |_| {}).unwrap();
            let fl = &res.summary.flows;
            let recv: u64 = fl.iter().map(|f| f.recv_pkts).sum();
            let sent: u64 = fl.iter().map(|f| f.sent_pkts).sum();
            fw_pdr.push(recv as f64 / sent as f64);
            fw_delay.push(
                fl.iter().map(|f| f.mean_delay_s.unwrap_or(0.0) * f.recv_pkts as f64).sum::<f64>() / recv.max(1) as f64,
            );
            let moves = format!("scenarios/validation/{file}");
            let args: Vec<String> = ["100", "AODV", "0", "-", flows, &format!("area=1000x1000;moves={moves}")]
                .iter()
                .map(|s| s.to_string())
                .collect();
            let v = ns2_json(&repo().join("validation/wireless.tcl"), seed, &args);
            let g = v["flows"].as_array().unwrap();
            let recv: f64 = g.iter().map(|f| f["recv_pkts"].as_f64().unwrap()).sum();
            let sent: f64 = g.iter().map(|f| f["sent_pkts"].as_f64().unwrap()).sum();
            ns_pdr.push(recv / sent);
            ns_delay.push(
                g.iter()
                    .map(|f| f["mean_delay_s"].as_f64().unwrap_or(0.0) * f["recv_pkts"].as_f64().unwrap())
                    .sum::<f64>()
                    / recv.max(1.0),
            );
        }
        let n = fw_pdr.len() as f64;
        eprintln!("wireless-table5, pause {pause} s (seeds 1..=5, each its own movements): fairway vs ns-2");
        for (what, a, b) in [("delivery ratio", &fw_pdr, &ns_pdr), ("mean delay (s)", &fw_delay, &ns_delay)] {
            let diff: Vec<f64> = a.iter().zip(b.iter()).map(|(x, y)| x - y).collect();
            let se = (var(&diff) / n).sqrt();
            let (ma, mb) = (mean(a), mean(b));
            eprintln!(
                "  {what}: {ma:.4} vs {mb:.4} (mean paired difference {:+.4}, its standard error {se:.4})",
                ma - mb
            );
            eprintln!("    per seed fairway {a:.3?}");
            eprintln!("    per seed ns-2    {b:.3?}");
            if (ma - mb).abs() > 2.0 * se {
                failed.push(format!("{what} at pause {pause}"));
            }
        }
    }
    assert!(failed.is_empty(), "wireless-table5: outside two standard errors: {failed:?}");
}
