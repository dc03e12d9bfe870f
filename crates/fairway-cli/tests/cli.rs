//! The `fairway` command as a user runs it: results folder, determinism, errors.

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
    let d = std::env::temp_dir().join(format!("fairway-cli-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    d
}

const OUTPUTS: [&str; 8] = [
    "summary.json",
    "flows.csv",
    "queue.csv",
    "links.csv",
    "throughput.svg",
    "queue_r1-r2.svg",
    "drops.svg",
    "cwnd.svg",
];

#[test]
fn run_writes_the_results_folder_and_prints_a_table() {
    let out = tmp("run");
    let o = fairway(&["run", "scenarios/validation/kadhum2015-cbr.toml", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    for needle in ["ftp", "cbr", "r1->r2", "red"] {
        assert!(stdout.contains(needle), "table lacks {needle}:\n{stdout}");
    }
    for f in OUTPUTS {
        let p = out.join(f);
        assert!(p.metadata().map(|m| m.len() > 0).unwrap_or(false), "missing {}", p.display());
    }
    let s: serde_json::Value = serde_json::from_str(&fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(s["schema"], "fairway.summary/1");
    assert_eq!(s["scenario"], "kadhum2015-cbr");
    assert_eq!(s["duration_s"], 50.0);
    assert!(s["events"].as_u64().unwrap() > 0);
    for key in [
        "name",
        "kind",
        "sent_pkts",
        "recv_pkts",
        "dropped_pkts",
        "sent_bytes",
        "recv_bytes",
        "throughput_bps",
        "goodput_bps",
        "mean_delay_s",
        "jitter_s",
    ] {
        assert!(s["flows"][0].get(key).is_some(), "flows[0] lacks {key}");
    }
    for key in
        ["name", "arrivals_pkts", "drops_pkts", "marks_pkts", "mean_queue_pkts", "mean_avg_queue_pkts", "utilization"]
    {
        assert!(s["links"][0].get(key).is_some(), "links[0] lacks {key}");
    }
    // The CSVs have a header and one row per flow per 100 ms bin / per 10 ms sample.
    let flows = fs::read_to_string(out.join("flows.csv")).unwrap();
    assert_eq!(flows.lines().count(), 1 + 2 * 500);
    let queue = fs::read_to_string(out.join("queue.csv")).unwrap();
    assert_eq!(queue.lines().count(), 1 + 5001, "samples at 0, 10 ms, ..., 50 s");
    let _ = fs::remove_dir_all(&out);
}

#[test]
fn same_scenario_and_seed_give_the_same_bytes() {
    let (a, b, c) = (tmp("det-a"), tmp("det-b"), tmp("det-c"));
    for d in [&a, &b] {
        let o = fairway(&["run", "-q", "scenarios/validation/droptail-mix.toml", "--out", d.to_str().unwrap()]);
        assert!(o.status.success());
    }
    let o =
        fairway(&["run", "-q", "scenarios/validation/droptail-mix.toml", "--seed", "2", "--out", c.to_str().unwrap()]);
    assert!(o.status.success());
    for f in OUTPUTS {
        let (x, y) = (fs::read(a.join(f)).unwrap(), fs::read(b.join(f)).unwrap());
        assert!(x == y, "{f} differs between two runs with the same seed");
    }
    let sa = fs::read_to_string(a.join("summary.json")).unwrap();
    let sc = fs::read_to_string(c.join("summary.json")).unwrap();
    assert_ne!(sa, sc, "a different seed must change the run");
    assert!(sc.contains("\"seed\": 2"));
    for d in [a, b, c] {
        let _ = fs::remove_dir_all(d);
    }
}

#[test]
fn a_bad_scenario_is_an_error_with_file_line_and_field_and_exit_code_2() {
    let dir = tmp("bad");
    fs::create_dir_all(&dir).unwrap();
    let good = fs::read_to_string(repo().join("scenarios/validation/kadhum2015-cbr.toml")).unwrap();
    let cases = [
        ("thresh = 5, maxthresh = 10", "thresh = 15, maxthresh = 10", "link[2].queue.thresh"),
        ("rate = \"2Mb\"", "rate = \"2 Mbananas\"", "link[2].rate"),
        ("window = 15", "windw = 15", "flow[0].windw"),
        ("to = \"s4\"", "to = \"mars\"", "flow[0].to"),
    ];
    for (from, to, field) in cases {
        let text = good.replacen(from, to, 1);
        let p = dir.join("bad.toml");
        fs::write(&p, &text).unwrap();
        let line = text.lines().position(|l| l.contains(to.split(',').next().unwrap())).unwrap() + 1;
        for cmd in ["run", "check"] {
            let o = fairway(
                &[cmd, p.to_str().unwrap(), "--out", dir.join("o").to_str().unwrap()]
                    [..if cmd == "run" { 4 } else { 2 }],
            );
            assert_eq!(o.status.code(), Some(2), "{cmd} {field}");
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(err.contains(&format!("bad.toml:{line}:")), "{cmd}: expected line {line}: {err}");
            assert!(err.contains(field), "{cmd}: expected {field}: {err}");
            assert!(!err.contains("panicked"), "{err}");
        }
    }
    let o = fairway(&["run", "does/not/exist.toml"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot read"));
    let _ = fs::remove_dir_all(dir);
}

/// `device_queue` is simulated only: the emulator's link has none, so `emulate` and `testbed`
/// refuse a link that has one, before they make namespaces (no root needed to see it), rather
/// than run it without.
#[test]
fn emulate_and_testbed_refuse_a_device_queue_they_cannot_emulate() {
    let dir = tmp("devq");
    fs::create_dir_all(&dir).unwrap();
    let good = fs::read_to_string(repo().join("scenarios/tutorial/red-dumbbell.toml")).unwrap();
    let from = "delay = \"20ms\"\n";
    assert!(good.contains(from));
    let p = dir.join("devq.toml");
    fs::write(&p, good.replacen(from, &format!("{from}device_queue = 1\n"), 1)).unwrap();
    let o = fairway(&["run", p.to_str().unwrap(), "--quiet", "--out", dir.join("sim").to_str().unwrap()]);
    assert!(o.status.success(), "the simulator runs it: {}", String::from_utf8_lossy(&o.stderr));
    let out = dir.join("tb");
    for args in [
        vec!["emulate", p.to_str().unwrap(), "--duration", "1s", "--name", "devq"],
        vec!["testbed", p.to_str().unwrap(), "--duration", "1s", "--name", "devq", "--out", out.to_str().unwrap()],
    ] {
        let o = fairway(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{}: {err}", args[0]);
        assert!(err.contains("r1->r2") && err.contains("device_queue = 1") && err.contains("simulated only"), "{err}");
    }
    assert!(!out.exists(), "testbed refused before writing anything");
    let _ = fs::remove_dir_all(dir);
}

#[test]
fn check_accepts_every_shipped_scenario() {
    let mut n = 0;
    for entry in walk(&repo().join("scenarios")) {
        if entry.extension().is_some_and(|e| e == "toml") {
            let o = fairway(&["check", entry.to_str().unwrap()]);
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(o.status.success(), "{}: {err}", entry.display());
            // janani-tfrc and dccp-ns2 give their Tahoe flows windows (10 and 20 packets) below the
            // bandwidth-delay product: the one warning shipped scenarios keep, on purpose, once
            // per flow entry (one in janani-tfrc's wired files, three in dccp-ns2's; the wireless
            // files have no links to take a bandwidth-delay product from).
            let name = entry.file_name().unwrap().to_string_lossy();
            let parent = entry.parent().unwrap();
            let expected = if parent.ends_with("janani-tfrc") && name.contains("-tcp") && !name.starts_with("wireless")
            {
                1
            } else if parent.ends_with("dccp-ns2") && name == "tcp.toml" {
                3
            } else {
                0
            };
            let warned: Vec<&str> = err.lines().filter(|l| l.starts_with("warning:")).collect();
            if expected > 0 {
                assert!(
                    warned.len() == expected && warned.iter().all(|w| w.contains("window")),
                    "{}: {err}",
                    entry.display()
                );
            } else {
                assert!(warned.is_empty(), "{}: {err}", entry.display());
            }
            n += 1;
        }
    }
    assert!(n >= 3);
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = vec![];
    for e in fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn reproduce_runs_from_any_directory_and_names_every_paper() {
    // From a directory with no scenarios/ in it: the scenario files are built in.
    let elsewhere = tmp("reproduce-elsewhere");
    fs::create_dir_all(&elsewhere).unwrap();
    let run_in = |dir: &Path, args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_fairway")).args(args).current_dir(dir).output().expect("run fairway")
    };
    // Two papers: that every paper's files are built in is checked file by file (embedded.rs),
    // and .ci/run runs all five from a directory of its own, at their default seeds.
    for paper in ["elaarag2002", "dccp-ns2"] {
        let o = run_in(&elsewhere, &["reproduce", paper, "--reps", "2", "--out", "r"]);
        assert!(o.status.success(), "{paper}: {}", String::from_utf8_lossy(&o.stderr));
        for f in ["report.md", "claims.csv"] {
            assert!(elsewhere.join("r").join(f).metadata().is_ok_and(|m| m.len() > 100), "{paper}: {f}");
        }
        let report = fs::read_to_string(elsewhere.join("r/report.md")).unwrap();
        assert!(report.contains("Fewer than the 5 seeds"), "two reps are flagged");
        fs::remove_dir_all(elsewhere.join("r")).unwrap();
    }
    // --help lists the five papers.
    let o = run_in(&elsewhere, &["reproduce", "--help"]);
    let help = String::from_utf8_lossy(&o.stdout);
    for needle in ["kadhum2015", "dccp-ns2", "elaarag2002", "chung-dcbt", "janani-tfrc"] {
        assert!(help.contains(needle), "--help lacks {needle}:\n{help}");
    }
    // An unknown name lists them all, as an input error.
    let o = run_in(&elsewhere, &["reproduce", "nosuchpaper"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    for needle in ["kadhum2015", "dccp-ns2", "elaarag2002", "chung-dcbt", "janani-tfrc"] {
        assert!(err.contains(needle), "the error lists {needle}: {err}");
    }
    assert!(!elsewhere.join("out").exists(), "nothing written for a paper that does not exist");
    let _ = fs::remove_dir_all(elsewhere);
}

#[test]
fn suite_rmcat_runs_from_any_directory_and_refuses_what_it_does_not_have() {
    // From a directory with no scenarios/: the case files are built in. One case, one seed.
    let elsewhere = tmp("suite-elsewhere");
    fs::create_dir_all(&elsewhere).unwrap();
    let run_in = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_fairway")).args(args).current_dir(&elsewhere).output().expect("run fairway")
    };
    let o = run_in(&["suite", "rmcat", "--cases", "5.4-competing-same-cc", "--reps", "1", "--out", "s", "--ecn"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report = fs::read_to_string(elsewhere.join("s/report.md")).unwrap();
    for cc in ["nada", "scream", "gcc"] {
        // The case as written, its ECN variant and its CoDel twin (--ecn).
        assert!(report.contains(&format!("|  | {cc} |")), "{cc} in the table:\n{report}");
        for v in ["ECN", "CoDel"] {
            assert!(report.contains(&format!("| {v} | {cc} |")), "{cc}, {v}, in the table:\n{report}");
            let dir = format!("s/5.4-competing-same-cc/{cc}-{}", v.to_lowercase());
            assert!(elsewhere.join(dir).is_dir());
        }
    }
    assert!(elsewhere.join("s/5.4-competing-same-cc/report.html").is_file());
    // An unknown controller or case is an input error naming what there is; nothing written.
    for (args, needles) in [
        (["--cc", "nada,foo"], vec!["foo", "nada, scream, gcc"]),
        (["--cases", "9.9"], vec!["9.9", "5.1-variable-capacity", "6.3-multiple-bottlenecks"]),
    ] {
        let o = run_in(&[&["suite", "rmcat", "--out", "t"][..], &args[..]].concat());
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        for n in needles {
            assert!(err.contains(n), "{args:?}: {err}");
        }
        assert!(!elsewhere.join("t").exists());
    }
    let _ = fs::remove_dir_all(elsewhere);
}

#[test]
fn sweep_runs_every_point_and_writes_one_csv_the_same_whatever_the_jobs() {
    let dir = tmp("sweep");
    fs::create_dir_all(&dir).unwrap();
    let file = dir.join("grid.toml");
    let base = r#"duration = "2s"
[[link]]
between = ["a", "r1"]
rate = "10Mb"
delay = "1ms"
[[link]]
between = ["r1", "r2"]
rate = "1Mb"
delay = "10ms"
[[link]]
between = ["r2", "b"]
rate = "10Mb"
delay = "1ms"
[[flow]]
name = "udp"
app = "cbr"
from = "a"
to = "b"
rate = "0.5Mb"
"#;
    fs::write(&file, format!("{base}\n[sweep]\n\"flow.udp.rate\" = [\"0.3Mb\", \"1.5Mb\"]\nseed = [1, 2]\n")).unwrap();
    let f = file.to_str().unwrap();
    let (a, b) = (dir.join("a"), dir.join("b"));
    let o = fairway(&["sweep", f, "--out", a.to_str().unwrap(), "--jobs", "1"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("flow.udp.rate") && stdout.contains("4 points"), "{stdout}");
    let o = fairway(&["sweep", "-q", f, "--out", b.to_str().unwrap(), "-j", "2"]);
    assert!(o.status.success() && o.stdout.is_empty() && o.stderr.is_empty());
    let csv = fs::read_to_string(a.join("sweep.csv")).unwrap();
    assert_eq!(csv, fs::read_to_string(b.join("sweep.csv")).unwrap());
    assert!(csv.starts_with("point,flow.udp.rate,flow.udp.rate_bps,seed,flow,"), "{csv}");
    assert_eq!(csv.lines().count(), 1 + 4);
    assert!(csv.lines().nth(4).unwrap().starts_with("3,1.5Mb,1500000,2,udp,"), "{csv}");
    for label in ["0_flow.udp.rate=0.3Mb_seed=1", "3_flow.udp.rate=1.5Mb_seed=2"] {
        for out in [&a, &b] {
            assert!(out.join(label).join("summary.json").is_file(), "{}/{label}", out.display());
        }
        let sa = fs::read(a.join(label).join("summary.json")).unwrap();
        assert_eq!(sa, fs::read(b.join(label).join("summary.json")).unwrap());
    }

    // `run` takes the base values and says the sweep was ignored; `check` checks the grid.
    let o = fairway(&["run", f, "--out", dir.join("run").to_str().unwrap()]);
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("[sweep] table, ignored"));
    let o = fairway(&["check", f]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("sweep ok (4 points"), "{o:?}");

    // A path that is not in the file: exit code 2, naming the file, the line and the key.
    fs::write(&file, format!("{base}\n[sweep]\n\"flow.tcp.rate\" = [\"1Mb\"]\n")).unwrap();
    let o = fairway(&["sweep", f, "--out", dir.join("bad").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("grid.toml:22:1: sweep.\"flow.tcp.rate\": no entry of `flow` is named `tcp`"), "{err}");
    assert!(!dir.join("bad").exists(), "nothing runs before the sweep is checked");
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn model_iftp_writes_tables_and_plots_and_rejects_bad_input() {
    let out = tmp("model");
    let o = fairway(&["model", "iftp", "--rtt", "50ms", "--loss", "0.02", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("non-ideal bound"));
    for f in ["iftp-model-by-size.csv", "iftp-model-by-loss.csv", "iftp-model-fig3.svg", "iftp-model-by-loss.svg"] {
        assert!(out.join(f).exists(), "{f}");
    }
    let o = fairway(&["model", "iftp", "--ssthresh", "30"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("power of two"));
    let o = fairway(&["model", "iftp", "--rtt", "fast"]);
    assert_eq!(o.status.code(), Some(2));
    let _ = fs::remove_dir_all(out);
}

#[test]
fn a_closed_stdout_is_not_a_panic() {
    let out = tmp("pipe");
    let mut child = Command::new(env!("CARGO_BIN_EXE_fairway"))
        .args(["run", "scenarios/validation/droptail-mix.toml", "--out", out.to_str().unwrap()])
        .current_dir(repo())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // like `| head -0`
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert!(o.status.success());
    assert!(out.join("summary.json").exists(), "the results are written all the same");
    let _ = fs::remove_dir_all(out);
}

/// `--trace agents` writes trace-agents.csv beside the results, with a row per state change of
/// the flows named (the FTP here; the CBR has no congestion control), and the rest of the
/// folder as without it.
#[test]
fn run_traces_a_flows_state_changes() {
    let (out, plain) = (tmp("trace"), tmp("trace-plain"));
    let file = "scenarios/validation/kadhum2015-cbr.toml";
    let o = fairway(&["run", file, "--out", out.to_str().unwrap(), "--trace", "agents", "--trace-flow", "ftp"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("trace-agents.csv"));
    let csv = fs::read_to_string(out.join("trace-agents.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("time_s,flow,conn,cwnd_pkts,ssthresh_pkts,srtt_s,rttvar_s,rto_s,rate_bps,loss_event_rate")
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert!(rows.len() > 100, "{} rows", rows.len());
    assert!(rows.iter().all(|r| r.len() == 10 && r[1] == "ftp" && !r[3].is_empty() && r[8].is_empty()));
    let o = fairway(&["run", file, "--out", plain.to_str().unwrap()]);
    assert!(o.status.success());
    assert!(!plain.join("trace-agents.csv").exists());
    for f in ["summary.json", "flows.csv", "queue.csv"] {
        assert_eq!(fs::read(out.join(f)).unwrap(), fs::read(plain.join(f)).unwrap(), "{f}");
    }
    let _ = fs::remove_dir_all(&out);
    let _ = fs::remove_dir_all(&plain);
}

/// The trace's bound: the first rows are kept and the run says how many it left out; a flow
/// name the scenario lacks is an input error naming the flows it has.
#[test]
fn a_trace_is_bounded_and_its_flows_checked() {
    let out = tmp("trace-limit");
    let file = "scenarios/validation/kadhum2015-cbr.toml";
    let o = fairway(&["run", file, "--out", out.to_str().unwrap(), "--trace", "agents", "--trace-limit", "7"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(fs::read_to_string(out.join("trace-agents.csv")).unwrap().lines().count(), 1 + 7);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("holds the first 7 state changes") && err.contains("more were left out"), "{err}");
    let o = fairway(&["run", file, "--out", out.to_str().unwrap(), "--trace", "agents", "--trace-flow", "nope"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--trace-flow nope") && err.contains("ftp, cbr"), "{err}");
    let _ = fs::remove_dir_all(&out);
}

/// `--reps N` runs N seeds, a folder each, and replications.csv holds each figure's mean over
/// them and its 95% confidence half-width, t(0.975, N - 1) s / sqrt(N): checked here against
/// the per-seed summaries.
#[test]
fn replications_give_means_and_confidence_intervals() {
    let out = tmp("reps");
    let o = fairway(&[
        "run",
        "scenarios/validation/tahoe-mix.toml",
        "--reps",
        "3",
        "--seed",
        "4",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("3 replications (seeds 4 to 6)"));
    let tput: Vec<f64> = ["0_seed=4", "1_seed=5", "2_seed=6"]
        .iter()
        .map(|d| {
            let s: serde_json::Value =
                serde_json::from_str(&fs::read_to_string(out.join(d).join("summary.json")).unwrap()).unwrap();
            assert_eq!(s["seed"].as_u64().unwrap(), d[d.len() - 1..].parse::<u64>().unwrap());
            s["flows"][0]["throughput_bps"].as_f64().unwrap()
        })
        .collect();
    let csv = fs::read_to_string(out.join("replications.csv")).unwrap();
    let mut lines = csv.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let row: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| row[head.iter().position(|h| *h == name).unwrap()].parse::<f64>().unwrap();
    let mean = tput.iter().sum::<f64>() / 3.0;
    let sd = (tput.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 2.0).sqrt();
    assert!(sd > 0.0, "the seeds should differ: {tput:?}");
    assert_eq!((row[0], row[3]), ("flow", "3"));
    assert!((col("throughput_bps") - mean).abs() < 1e-6 * mean);
    assert!((col("throughput_bps_ci95") - 4.303 * sd / 3f64.sqrt()).abs() < 1e-3 * sd);
    assert!(csv.lines().any(|l| l.starts_with("class,tcp,tcp,3,")));
    // The run's row: Jain's index over the flows, in [1/n, 1], with its interval.
    let run: Vec<&str> = csv.lines().find(|l| l.starts_with("run,all,,3,")).unwrap().split(',').collect();
    let j: f64 = run[head.iter().position(|h| *h == "jain_index_flows").unwrap()].parse().unwrap();
    assert!(j > 0.0 && j <= 1.0, "{j}");
    // One point, no setting to draw against: the page draws each flow's mean and interval.
    let page = fs::read_to_string(out.join("report.html")).unwrap();
    assert!(page.contains("plot-throughput_bps-per-flow.svg"), "the page has each flow's mean");
    let o = fairway(&["run", "scenarios/validation/tahoe-mix.toml", "--reps", "1"]);
    assert_eq!(o.status.code(), Some(2));
    let _ = fs::remove_dir_all(&out);
}

/// `fairway sweep --reps N`: each point of the grid at N seeds, and replications.csv with a
/// row group per point of the grid without the seed, whose means are those of sweep.csv's rows.
#[test]
fn a_sweep_with_replications_gives_each_point_its_interval() {
    let out = tmp("sweep-reps");
    let file = "scenarios/tutorial/red-dumbbell-sweep.toml";
    let o = fairway(&["sweep", file, "--reps", "2", "--out", out.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let sweep = fs::read_to_string(out.join("sweep.csv")).unwrap();
    let head: Vec<&str> = sweep.lines().next().unwrap().split(',').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).unwrap();
    // The file's three rates, at seeds 1 and 2 (its own seed axis of three gave way).
    let rows: Vec<Vec<&str>> = sweep.lines().skip(1).map(|l| l.split(',').collect()).collect();
    let tcp0_at_1mb: Vec<f64> = rows
        .iter()
        .filter(|r| r[col("flow.cbr.rate")] == "1Mb" && r[col("flow")] == "tcp0")
        .map(|r| r[col("throughput_bps")].parse().unwrap())
        .collect();
    assert_eq!(tcp0_at_1mb.len(), 2);
    let reps = fs::read_to_string(out.join("replications.csv")).unwrap();
    let rhead: Vec<&str> = reps.lines().next().unwrap().split(',').collect();
    assert_eq!(&rhead[..6], ["flow.cbr.rate", "flow.cbr.rate_bps", "kind", "name", "class", "reps"]);
    assert_eq!(reps.lines().count(), 1 + 3 * (3 + 2 + 1), "three points, three flows, two classes and the run each");
    let row: Vec<&str> = reps.lines().find(|l| l.starts_with("1Mb,1000000,flow,tcp0,")).unwrap().split(',').collect();
    let mean: f64 = row[6].parse().unwrap();
    assert_eq!(row[5], "2");
    assert!((mean - (tcp0_at_1mb[0] + tcp0_at_1mb[1]) / 2.0).abs() < 0.1, "{mean} vs {tcp0_at_1mb:?}");
    let _ = fs::remove_dir_all(&out);
}
