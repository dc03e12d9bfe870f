//! Issue 12's failures replayed as a user meets them: a rerun into the same folder, an --out that
//! cannot be written, Ctrl-C during a run and during a sweep, a disk that fills while writing;
//! and an interrupted sweep resumed (`fairway sweep --resume`).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn fairway(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fairway")).args(args).current_dir(repo()).output().expect("run fairway")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("fairway-folder-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

/// One bottleneck, `flows` greedy TCP flows: long enough at `duration` that a signal comes
/// while it runs.
fn dumbbell(duration: &str, flows: u32) -> String {
    format!(
        r#"name = "long"
duration = "{duration}"
[[link]]
between = ["s{{i}}", "r1"]
count = {flows}
rate = "100Mb"
delay = "1ms"
[[link]]
between = ["r1", "r2"]
rate = "50Mb"
delay = "10ms"
queue = {{ kind = "droptail", limit = 100 }}
[[link]]
between = ["r2", "d"]
rate = "100Mb"
delay = "1ms"
[[flow]]
name = "tcp{{i}}"
count = {flows}
app = "ftp"
transport = "newreno"
from = "s{{i}}"
to = "d"
[monitor]
bin = "1s"
queue_interval = "100ms"
"#
    )
}

/// Sends SIGINT to `child` once `wait` has passed, then waits at most 60 s for it to end.
fn interrupt_after(mut child: Child, wait: Duration) -> Output {
    std::thread::sleep(wait);
    assert!(child.try_wait().unwrap().is_none(), "the command ended before the signal; make the scenario longer");
    let pid = child.id().to_string();
    assert!(Command::new("kill").args(["-INT", &pid]).status().unwrap().success());
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("no exit within 60 s of SIGINT");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_fairway"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start fairway")
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn ctrl_c_writes_the_run_so_far_marked_incomplete_and_exits_130() {
    let dir = tmp("sigint");
    let file = dir.join("long.toml");
    fs::write(&file, dumbbell("100000s", 20)).unwrap();
    let out = dir.join("res");
    let o = interrupt_after(
        spawn(&["run", "-q", file.to_str().unwrap(), "--out", out.to_str().unwrap()]),
        Duration::from_millis(1500),
    );
    assert_eq!(o.status.code(), Some(130), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("interrupted at"), "{err}");
    let s = json(&out.join("summary.json"));
    assert_eq!(s["complete"], false);
    assert_eq!(s["scenario_duration_s"], 100000.0);
    let stopped = s["duration_s"].as_f64().unwrap();
    assert!(stopped > 0.0 && stopped < 100000.0, "{stopped}");
    // flows.csv ends at the stop: its last bin is the shorter one holding it.
    let csv = fs::read_to_string(out.join("flows.csv")).unwrap();
    let last = csv.lines().last().unwrap();
    let t_end: f64 = last.split(',').nth(1).unwrap().parse().unwrap();
    assert!((t_end - stopped).abs() < 1e-6, "last bin ends at {t_end}, the run at {stopped}");
    // Bins of 1 s up to the one holding the stop: floor(stopped) + 1 of them (a stop on a bin's
    // boundary, as when the event interrupted was that bin's end, gives an empty last bin).
    assert_eq!(csv.lines().count() - 1, 20 * (stopped.floor() as usize + 1), "one row per flow per bin up to the stop");
    // What was delivered is there: 50 Mb/s shared by 20 flows for `stopped` seconds.
    let delivered: u64 =
        s["flows"].as_array().unwrap().iter().map(|f| f["recv_distinct_bytes"].as_u64().unwrap()).sum();
    let capacity = 50e6 / 8.0 * stopped;
    assert!(delivered as f64 > 0.5 * capacity && (delivered as f64) < capacity, "{delivered} of {capacity}");
    let _ = fs::remove_dir_all(&dir);
}

/// `timeout -s INT` signals the command and then its process group: two SIGINTs microseconds
/// apart. The second is the same request, not a deliberate second Ctrl-C: the results are
/// written all the same.
#[test]
fn two_signals_at_once_still_write_the_results() {
    let dir = tmp("sigint-twice");
    let file = dir.join("long.toml");
    fs::write(&file, dumbbell("100000s", 20)).unwrap();
    let out = dir.join("res");
    let mut child = spawn(&["run", "-q", file.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    std::thread::sleep(Duration::from_millis(1500));
    assert!(child.try_wait().unwrap().is_none(), "the run ended before the signals");
    let pid = child.id().to_string();
    for _ in 0..2 {
        assert!(Command::new("kill").args(["-INT", &pid]).status().unwrap().success());
        std::thread::sleep(Duration::from_millis(2));
    }
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        assert!(started.elapsed() < Duration::from_secs(60), "no exit within 60 s");
        std::thread::sleep(Duration::from_millis(20));
    }
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(json(&out.join("summary.json"))["complete"], false);
    assert_eq!(fs::read_dir(&dir).unwrap().count(), 2, "the scenario and the results, no hidden folder");
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn ctrl_c_during_a_sweep_keeps_the_points_done_in_sweep_csv() {
    let dir = tmp("sweep-sigint");
    let file = dir.join("grid.toml");
    // Two short points, then two that would take hours.
    let grid = "\n[sweep]\nduration = [\"1s\", \"2s\", \"100000s\", \"100000s\"]\n";
    fs::write(&file, dumbbell("1s", 4) + grid).unwrap();
    let out = dir.join("sweep");
    let o = interrupt_after(
        spawn(&["sweep", "-q", file.to_str().unwrap(), "--out", out.to_str().unwrap(), "-j", "1"]),
        Duration::from_millis(1500),
    );
    assert_eq!(o.status.code(), Some(130), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("interrupted: 2 of 4 points ended"), "{err}");
    let csv = fs::read_to_string(out.join("sweep.csv")).unwrap();
    let points: Vec<&str> = csv.lines().skip(1).map(|l| l.split(',').next().unwrap()).collect();
    assert_eq!(points, ["0", "0", "0", "0", "1", "1", "1", "1"], "{csv}");
    assert!(out.join("0_duration=1s/summary.json").is_file());
    assert!(!out.join("2_duration=100000s/summary.json").exists(), "the point stopped is left out");
    assert!(out.join("2_duration=100000s/scenario.toml").is_file(), "and can be rerun alone");
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn an_interrupted_sweep_resumes_running_only_the_points_it_lacks() {
    let dir = tmp("sweep-resume");
    let file = dir.join("grid.toml");
    let grid = |long: &str| format!("\n[sweep]\nduration = [\"1s\", \"2s\", {long}, {long}]\n");
    fs::write(&file, dumbbell("1s", 4) + &grid("\"100000s\"")).unwrap();
    let out = dir.join("sweep");
    let (f, o) = (file.to_str().unwrap(), out.to_str().unwrap());
    let stopped = interrupt_after(spawn(&["sweep", "-q", f, "--out", o, "-j", "1"]), Duration::from_millis(1500));
    assert_eq!(stopped.status.code(), Some(130));
    assert!(String::from_utf8_lossy(&stopped.stderr).contains("--resume` runs them"));
    let record = json(&out.join("sweep.json"));
    assert_eq!((record["finished"].as_u64(), record["interrupted"].as_u64()), (Some(2), Some(2)), "{record}");

    // Point 1's summary is altered where sweep.csv shows it: its files no longer match the
    // digest recorded when they were written, so the resumed sweep runs it again. Point 0 is
    // kept: its files are the earlier ones, linked (the same inode).
    use std::os::unix::fs::MetadataExt;
    let ino = |p: &Path| fs::metadata(p).unwrap().ino();
    let kept0 = ino(&out.join("0_duration=1s/summary.json"));
    let summary = out.join("1_duration=2s/summary.json");
    let mut s = json(&summary);
    s["flows"][0]["throughput_bps"] = serde_json::json!(12345.0);
    fs::write(&summary, serde_json::to_string_pretty(&s).unwrap() + "\n").unwrap();
    // The long points become short: their scenarios (and folders) are new, so they run.
    fs::write(&file, dumbbell("1s", 4) + &grid("\"3s\"")).unwrap();
    let resumed = fairway(&["sweep", f, "--out", o, "-j", "1", "--resume"]);
    assert!(resumed.status.success(), "{}", String::from_utf8_lossy(&resumed.stderr));
    assert!(String::from_utf8_lossy(&resumed.stdout).contains("4 points (1 kept from the earlier run)"));
    assert_eq!(ino(&out.join("0_duration=1s/summary.json")), kept0, "point 0 was kept");
    let record = json(&out.join("sweep.json"));
    assert_eq!((record["finished"].as_u64(), record["kept_from_earlier_run"].as_u64()), (Some(4), Some(1)));
    assert_eq!(
        record["fairway"].as_str().unwrap(),
        String::from_utf8_lossy(&fairway(&["--version"]).stdout).trim().trim_start_matches("fairway ")
    );

    // Beside a sweep run whole: the same rows (the edited value is gone with the rerun).
    let fresh = dir.join("fresh");
    assert!(fairway(&["sweep", "-q", f, "--out", fresh.to_str().unwrap(), "-j", "1"]).status.success());
    let whole = fs::read_to_string(fresh.join("sweep.csv")).unwrap();
    assert_eq!(fs::read_to_string(out.join("sweep.csv")).unwrap(), whole);
    assert_eq!(
        fs::read_to_string(out.join("sweep-links.csv")).unwrap(),
        fs::read_to_string(fresh.join("sweep-links.csv")).unwrap()
    );

    // A point that lost a file, and one with a link planted in it, are run again too.
    fs::remove_file(out.join("0_duration=1s/flows.csv")).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", out.join("2_duration=3s/evil")).unwrap();
    let again = fairway(&["sweep", f, "--out", o, "-j", "1", "--resume"]);
    assert!(again.status.success(), "{}", String::from_utf8_lossy(&again.stderr));
    assert!(String::from_utf8_lossy(&again.stdout).contains("4 points (2 kept from the earlier run)"));
    assert!(out.join("0_duration=1s/flows.csv").is_file() && !out.join("2_duration=3s/evil").exists());
    assert_eq!(fs::read_to_string(out.join("sweep.csv")).unwrap(), whole);

    // A sweep another build wrote is run again whole.
    let mut record = json(&out.join("sweep.json"));
    record["fairway"] = serde_json::json!("0.0.0+gother");
    fs::write(out.join("sweep.json"), record.to_string()).unwrap();
    let again = fairway(&["sweep", f, "--out", o, "-j", "1", "--resume"]);
    assert!(again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("was written by fairway 0.0.0+gother"));
    assert_eq!(fs::read_to_string(out.join("sweep.csv")).unwrap(), whole);
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_rerun_replaces_the_folder_and_leaves_nothing_stale() {
    let dir = tmp("rerun");
    let out = dir.join("res");
    let o = fairway(&["run", "-q", "scenarios/kadhum2015/mapp-ftp-red-packets.toml", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.join("scale.csv").is_file(), "a MApp run writes scale.csv");
    let o = fairway(&["run", "-q", "scenarios/kadhum2015/cbr-ftp-red-packets.toml", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!out.join("scale.csv").exists(), "the earlier run's scale.csv is gone");
    assert_eq!(json(&out.join("summary.json"))["scenario"], "kadhum2015-cbr-ftp-red-packets");
    assert_eq!(fs::read_dir(&dir).unwrap().count(), 1, "no hidden folder is left beside it");
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn an_out_that_cannot_be_written_is_refused_before_the_run() {
    let dir = tmp("badout");
    let file = dir.join("long.toml");
    // Hours of simulation: the refusal must come before it.
    fs::write(&file, dumbbell("100000s", 20)).unwrap();
    let plain = dir.join("plain");
    fs::write(&plain, "x").unwrap();
    let mine = dir.join("thesis");
    fs::create_dir(&mine).unwrap();
    fs::write(mine.join("chapter1.tex"), "precious").unwrap();
    // A project folder with a report.md of its own is not fairway's either (the name is not
    // the mark; the .fairway-results file fairway writes is).
    let proj = dir.join("proj");
    fs::create_dir_all(proj.join("src")).unwrap();
    fs::write(proj.join("report.md"), "x").unwrap();
    fs::write(proj.join("src/thesis.tex"), "important").unwrap();
    for (out, needle) in [(&plain, "is a file"), (&mine, "did not write"), (&proj, "adopt it")] {
        let started = Instant::now();
        let o = fairway(&["run", file.to_str().unwrap(), "--out", out.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&o.stderr).contains(needle), "{o:?}");
        assert!(started.elapsed() < Duration::from_secs(10), "refused only after running");
    }
    assert_eq!(fs::read_to_string(mine.join("chapter1.tex")).unwrap(), "precious");
    assert_eq!(fs::read_to_string(proj.join("src/thesis.tex")).unwrap(), "important");
    assert_eq!(fs::read_dir(&dir).unwrap().count(), 4, "nothing was created");
    let _ = fs::remove_dir_all(&dir);
}

/// A disk too small for the results: a run that would not fit is refused before it starts; a
/// disk that fills while a run writes (another program takes the space) ends it with the error,
/// and either way the earlier results stay whole. Needs root for a small tmpfs (CI runs as root).
#[test]
fn a_full_disk_leaves_the_earlier_results_whole() {
    let dir = tmp("fulldisk");
    let mnt = dir.join("mnt");
    fs::create_dir(&mnt).unwrap();
    let mounted = Command::new("mount").args(["-t", "tmpfs", "-o", "size=32m", "tmpfs"]).arg(&mnt).status();
    if !mounted.is_ok_and(|s| s.success()) {
        // SAFETY: geteuid has no preconditions.
        assert_ne!(unsafe { libc_geteuid() }, 0, "root could not mount a tmpfs");
        eprintln!("skipped: mounting a tmpfs needs root");
        return;
    }
    let out = mnt.join("res");
    let scenario = |name: &str, duration: &str| {
        let p = dir.join(name);
        fs::write(&p, dumbbell(duration, 20)).unwrap();
        p
    };
    let (small, medium, big) =
        (scenario("small.toml", "2s"), scenario("medium.toml", "3000s"), scenario("big.toml", "200000s"));
    let run = |file: &Path| fairway(&["run", "-q", file.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let o = run(&small);
    let before: Vec<(PathBuf, Vec<u8>)> = walk(&out);
    // Hundreds of megabytes of flows.csv: refused at once.
    let refused = run(&big);
    let after_refused = walk(&out);
    // Tens of megabytes: it fits when it starts; then the disk fills under it.
    let child = spawn(&["run", "-q", medium.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    std::thread::sleep(Duration::from_millis(300));
    let _ =
        Command::new("dd").args(["if=/dev/zero", "bs=1M"]).arg(format!("of={}", mnt.join("filler").display())).output();
    let filled = child.wait_with_output().unwrap();
    let after_filled = walk(&out);
    let leftovers: Vec<_> = fs::read_dir(&mnt).unwrap().map(|e| e.unwrap().file_name()).collect();
    let _ = Command::new("umount").arg(&mnt).status();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(refused.status.code(), Some(2));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("of results") && err.contains("free at"), "{err}");
    assert_eq!(filled.status.code(), Some(1), "{}", String::from_utf8_lossy(&filled.stderr));
    let err = String::from_utf8_lossy(&filled.stderr);
    assert!(err.contains("the earlier results there are unchanged") && err.contains("No space left"), "{err}");
    assert_eq!(before, after_refused, "the earlier results are byte for byte as they were");
    assert_eq!(before, after_filled, "the earlier results are byte for byte as they were");
    assert_eq!(leftovers.len(), 2, "the half-written folder is removed: {leftovers:?}");
    let _ = fs::remove_dir_all(&dir);
}

fn walk(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut v: Vec<(PathBuf, Vec<u8>)> =
        fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).map(|p| (p.clone(), fs::read(&p).unwrap())).collect();
    v.sort();
    v
}

extern "C" {
    #[link_name = "geteuid"]
    fn libc_geteuid() -> u32;
}

/// 2 000 monitored links sampled every 100 ms for 10^6 s: 2 x 10^10 rows of queue.csv,
/// terabytes. The series go to disk as the run goes, so memory is not the limit: the disk is.
/// check and run refuse it at once, naming the estimate and the keys; the default monitoring of
/// the same topology fits.
#[test]
fn a_run_whose_results_cannot_fit_is_refused_before_it_starts() {
    let dir = tmp("toobig");
    let head = r#"duration = "1000000s"
[[link]]
between = ["h{i}", "r1"]
count = 2000
rate = "100Mb"
delay = "1ms"
[[link]]
between = ["r1", "d"]
rate = "1Gb"
delay = "1ms"
[[flow]]
name = "f"
app = "cbr"
from = "h0"
to = "d"
rate = "1Mb"
"#;
    let links: Vec<String> = (0..2000).map(|i| format!("\"h{i}->r1\"")).collect();
    let big = dir.join("big.toml");
    fs::write(&big, format!("{head}[monitor]\nqueue_interval = \"100ms\"\nlinks = [{}]\n", links.join(", "))).unwrap();
    for cmd in ["check", "run"] {
        let started = Instant::now();
        let o = fairway(
            &[cmd, big.to_str().unwrap(), "--out", dir.join("o").to_str().unwrap()]
                [..if cmd == "check" { 2 } else { 4 }],
        );
        assert_eq!(o.status.code(), Some(2), "{cmd}: {o:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("TB of results") && err.contains("free at"), "{cmd}: {err}");
        assert!(err.contains("2000 links x one sample per 100ms") && err.contains("`monitor.queue_interval`"), "{err}");
        assert!(started.elapsed() < Duration::from_secs(20));
    }
    assert!(!dir.join("o").exists());
    let small = dir.join("small.toml");
    fs::write(&small, head).unwrap();
    let o = fairway(&["check", small.to_str().unwrap()]);
    assert!(o.status.success(), "{o:?}");
    assert!(String::from_utf8_lossy(&o.stdout).contains("of memory and"), "{o:?}");
    let _ = fs::remove_dir_all(&dir);
}
