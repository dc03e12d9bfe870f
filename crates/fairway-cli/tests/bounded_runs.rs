//! Issue 32's property: a scenario `check` accepts runs to its end within what it estimates.
//! Scenarios are drawn at random within the bounds docs/scenarios.md states (rates from bits to
//! tens of gigabits a second, delays from none to a second, intervals down to a nanosecond,
//! every discipline and datagram protocol, TCP's windows up to 2^20; wireless nodes standing or
//! moving under every routing), parsed as `check` parses them; of those it accepts, each whose estimate is under [`BUDGET_S`] runs as `fairway run`
//! in a child process under a time limit and an address-space limit. Each must end, on time,
//! within its memory, having processed no more events than the estimate said.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use fairway_core::Rng;
use fairway_scenario::estimate;

/// The estimated time below which a drawn scenario is run, s.
const BUDGET_S: f64 = 1.5;
/// Scenarios drawn; the accepted ones under the budget are run.
const DRAWN: usize = 2000;

fn pick<'a>(rng: &mut Rng, xs: &[&'a str]) -> &'a str {
    xs[rng.below(xs.len() as u64) as usize]
}

/// A value spread over decades: 10^lo to 10^hi.
fn decades(rng: &mut Rng, lo: f64, hi: f64) -> f64 {
    10f64.powf(rng.uniform_range(lo, hi))
}

fn rate(rng: &mut Rng, lo: f64, hi: f64) -> String {
    format!("\"{:.0}b\"", decades(rng, lo, hi).max(1.0))
}

fn dur(rng: &mut Rng, lo_s: f64, hi_s: f64) -> String {
    format!("\"{:.0}ns\"", decades(rng, (lo_s * 1e9).log10(), (hi_s * 1e9).log10()).max(1.0))
}

fn queue(rng: &mut Rng) -> String {
    let limit = 1 + rng.below(2000);
    match rng.below(9) {
        0 => String::new(),
        // Every registered discipline at its defaults (one that needs a key is refused).
        8 => format!("queue = {{ kind = \"{}\" }}", pick(rng, fairway_aqm::KINDS)),
        1 => format!("queue = {{ kind = \"droptail\", limit = {limit} }}"),
        2 => format!("queue = {{ kind = \"red\", limit = {limit} }}"),
        3 => format!(
            "queue = {{ kind = \"codel\", limit = {limit}, target = {}, interval = {} }}",
            dur(rng, 1e-6, 0.1),
            dur(rng, 1e-3, 1.0)
        ),
        4 => format!("queue = {{ kind = \"pie\", limit = {limit}, t_update = {} }}", dur(rng, 1e-9, 0.1)),
        5 => format!("queue = {{ kind = \"fq_codel\", limit = {limit} }}"),
        6 => "queue = { kind = \"fred\" }".to_string(),
        _ => "queue = { kind = \"cbt\" }".to_string(),
    }
}

/// One flow's keys past its name and ends.
fn flow(rng: &mut Rng) -> String {
    let size = format!("packet_size = \"{}B\"", 40 + rng.below(1461));
    match rng.below(12) {
        0 => format!(
            "app = \"ftp\"\ntransport = \"{}\"\nwindow = {}",
            pick(rng, &["tahoe", "reno", "newreno"]),
            1 + decades(rng, 0.0, 6.3) as u64
        ),
        1 => format!("app = \"transfer\"\nsize = \"{}B\"", 1 + decades(rng, 0.0, 8.0) as u64),
        2 => format!("app = \"web\"\ninterarrival = {}", dur(rng, 1e-3, 10.0)),
        3 => format!("app = \"cbr\"\n{size}\nrate = {}", rate(rng, 0.0, 9.0)),
        4 => format!(
            "app = \"voip\"\ntransport = \"{}\"\ntalk_spurts = true\non_mean = {}\noff_mean = {}",
            pick(rng, &["udp", "tfrc", "tfrc-sp"]),
            dur(rng, 1e-9, 2.0),
            dur(rng, 1e-9, 2.0)
        ),
        5 => format!(
            "app = \"video\"\ntransport = \"{}\"\nrate = {}\nframe_interval = {}",
            pick(rng, &["udp", "tfrc", "ccid3"]),
            rate(rng, 3.0, 8.0),
            dur(rng, 1e-9, 0.5)
        ),
        6 => format!(
            "app = \"mpeg_app\"\nfps = {:.0}\ni_size = \"{}B\"",
            decades(rng, 0.0, 6.0),
            1 + decades(rng, 0.0, 6.0) as u64
        ),
        7 => "app = \"mm_app\"".to_string(),
        8 => format!("app = \"mapp\"\ntransport = \"udpm\"\n{size}"),
        9 => format!("app = \"iftp\"\n{size}"),
        10 => format!("app = \"ftp\"\ntransport = \"{}\"\n{size}", pick(rng, &["tfrc", "tfrc-sp", "ccid2", "ccid3"])),
        _ => {
            format!("app = \"cbr\"\n{size}\ninterval = {}\nmax_packets = {}", dur(rng, 1e-9, 1.0), 1 + rng.below(1000))
        }
    }
}

/// 2 to 12 wireless nodes over an area of 100 m to 10 km a side, standing or moving (random
/// waypoint), routed statically (when standing), by AODV or not at all, with RTS/CTS or without;
/// 1 to 3 flows from the first node to others.
fn wireless(rng: &mut Rng, i: usize) -> String {
    let n = 2 + rng.below(11);
    let side = decades(rng, 2.0, 4.0);
    let moving = rng.below(2) == 0;
    let routing = if moving { pick(rng, &["aodv", "none"]) } else { pick(rng, &["aodv", "static", "none"]) };
    let mut s = format!(
        "name = \"drawn-{i}\"\nduration = {}\nseed = {}\n[wireless]\nrouting = \"{routing}\"\nrts_threshold = {}\ndata_rate = {}\n",
        dur(rng, 1e-2, 30.0),
        rng.below(1000),
        pick(rng, &["0", "3000"]),
        pick(rng, &["\"1Mb\"", "\"2Mb\"", "\"11Mb\""]),
    );
    if moving {
        s += &format!(
            "mobility = {{ model = \"random_waypoint\", area = [{side:.0}, {side:.0}], speed = {:.3}, pause = {} }}\n",
            decades(rng, -1.0, 3.0),
            dur(rng, 1e-3, 10.0)
        );
        s += &format!("[[node]]\nname = \"n{{i}}\"\ncount = {n}\n");
    } else {
        for k in 0..n {
            s += &format!(
                "[[node]]\nname = \"n{k}\"\nat = [{:.1}, {:.1}]\n",
                rng.uniform() * side,
                rng.uniform() * side
            );
        }
    }
    for f in 0..1 + rng.below(3) {
        s += &format!(
            "[[flow]]\nname = \"f{f}\"\nfrom = \"n0\"\nto = \"n{}\"\nstart = {}\n{}\n",
            1 + rng.below(n - 1),
            dur(rng, 1e-9, 1.0),
            flow(rng)
        );
    }
    s
}

/// A chain a - r1 - ... - b of 1 to 4 links, 1 to 4 flows from a to b (their acknowledgements
/// come back the same way); one draw in four, wireless nodes instead ([`wireless`]).
fn scenario(rng: &mut Rng, i: usize) -> String {
    if rng.below(4) == 0 {
        return wireless(rng, i);
    }
    let hops = 1 + rng.below(4) as usize;
    let mut s = format!("name = \"drawn-{i}\"\nduration = {}\nseed = {}\n", dur(rng, 1e-3, 60.0), rng.below(1000));
    if rng.below(2) == 0 {
        s += &format!("[monitor]\nbin = {}\nqueue_interval = {}\n", dur(rng, 1e-3, 1.0), dur(rng, 1e-4, 1.0));
    }
    for h in 0..hops {
        let a = if h == 0 { "a".to_string() } else { format!("r{h}") };
        let b = if h + 1 == hops { "b".to_string() } else { format!("r{}", h + 1) };
        s += &format!(
            "[[link]]\nbetween = [\"{a}\", \"{b}\"]\nrate = {}\ndelay = {}\n{}\n",
            rate(rng, 3.0, 10.5),
            if rng.below(5) == 0 { "\"0s\"".into() } else { dur(rng, 1e-6, 1.0) },
            queue(rng)
        );
    }
    for f in 0..1 + rng.below(4) {
        s += &format!(
            "[[flow]]\nname = \"f{f}\"\nfrom = \"a\"\nto = \"b\"\nstart = {}\n{}\n",
            dur(rng, 1e-9, 1.0),
            flow(rng)
        );
    }
    s
}

/// Runs `fairway run FILE`, killed after `limit`, with at most `memory` bytes of address space;
/// its peak resident memory (bytes), or why it failed (killed, or its own error).
fn run_limited(file: &Path, out: &Path, limit: Duration, memory: u64) -> Result<u64, String> {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_fairway"));
    cmd.arg("run").arg(file).arg("--quiet").arg("--out").arg(out).stdout(Stdio::null()).stderr(Stdio::piped());
    // SAFETY: setrlimit between fork and exec touches only the child.
    unsafe {
        cmd.pre_exec(move || {
            let lim = libc::rlimit { rlim_cur: memory, rlim_max: memory };
            if libc::setrlimit(libc::RLIMIT_AS, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let t = Instant::now();
    let mut child = cmd.spawn().map_err(|e| e.to_string())?;
    let pid = child.id() as libc::pid_t;
    loop {
        let mut status = 0;
        // SAFETY: an all-zero rusage is a valid value for wait4 to fill.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: wait4 on our own child, with valid pointers.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if r == pid {
            let took = t.elapsed();
            let mut err = String::new();
            let _ = child.stderr.take().map(|mut e| e.read_to_string(&mut err));
            if !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0 {
                return Err(format!("status {status} after {took:?}: {err}"));
            }
            return Ok(usage.ru_maxrss as u64 * 1024);
        }
        if t.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("still running after {limit:?}"));
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[test]
fn every_drawn_scenario_check_accepts_runs_within_its_estimate() {
    let dir = std::env::temp_dir().join(format!("fairway-bounded-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut rng = Rng::from_seed(32);
    let (mut accepted, mut ran, mut failures) = (0, 0, vec![]);
    let ns = estimate::ns_per_event();
    for i in 0..DRAWN {
        let mut text = scenario(&mut rng, i);
        if i % 4 == 1 {
            // Every fourth on ns-2's clock: every link on the general path, timers re-armed
            // eagerly (chosen by index, so the draws stay those of the other scenarios).
            text = format!("clock = \"ns2\"\n{text}");
        }
        let Ok(sc) = fairway_scenario::parse_scenario("drawn.toml", &text, "drawn") else { continue };
        accepted += 1;
        let events = estimate::events(&sc);
        let secs = events * ns * estimate::COST_MARGIN * 1e-9;
        let memory = estimate::estimate(&sc).streamed_memory();
        if secs > BUDGET_S || memory > 256 << 20 {
            continue;
        }
        ran += 1;
        let file = dir.join(format!("drawn-{i}.toml"));
        std::fs::write(&file, &text).unwrap();
        let out = dir.join(format!("out-{i}"));
        // The estimate's time, and a second for the process, the parse and the files; the
        // estimate's memory and 512 MB for the binary's mappings and the allocator's arenas.
        let limit = Duration::from_secs_f64(2.0 * secs + 1.0);
        match run_limited(&file, &out, limit, memory + (512 << 20)) {
            Ok(rss) => {
                let summary: serde_json::Value =
                    serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
                let done = summary["events"].as_u64().unwrap() as f64;
                if done > events {
                    failures.push(format!("{i}: {done} events, estimated {events:.0}\n{text}"));
                }
                if rss > memory + (64 << 20) {
                    failures.push(format!("{i}: {rss} B resident, estimated {memory}\n{text}"));
                }
                let _ = std::fs::remove_dir_all(&out);
            }
            Err(e) => failures.push(format!("{i}: {e} (estimated {secs:.2} s, {events:.0} events)\n{text}")),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!("{accepted} of {DRAWN} drawn scenarios accepted, {ran} under {BUDGET_S} s run");
    // The draw must reach the engine often enough for the property to say something.
    assert!(ran >= 100, "only {ran} of {accepted} accepted scenarios ran");
    assert!(failures.is_empty(), "{} of {ran} broke their estimate:\n{}", failures.len(), failures.join("\n"));
}
