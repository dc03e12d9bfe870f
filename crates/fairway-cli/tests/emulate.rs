//! `fairway emulate` as a user runs it: a scenario's bottleneck between two namespaces, with a
//! TCP transfer through it. Root is needed; without it the test says so and passes, unless
//! FAIRWAY_REQUIRE_NETNS is set (CI sets it).

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use fairway_live::in_netns;

mod netns;
mod referee;
use netns::can_run;

#[test]
fn emulate_carries_a_tcp_transfer_through_the_tutorials_red_bottleneck() {
    if !can_run() {
        return;
    }
    let name = format!("cli{}", std::process::id() % 100_000);
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = std::env::temp_dir().join(format!("fairway-emulate-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    let child = Command::new(env!("CARGO_BIN_EXE_fairway"))
        .args(["emulate", "scenarios/tutorial/red-dumbbell.toml", "--duration", "8s", "--name", &name, "--out"])
        .arg(&dir)
        .current_dir(&repo)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (a, b) = (format!("fw-{name}-a"), format!("fw-{name}-b"));
    let to: SocketAddr = ([10, 201, 1, 1], 5002).into();
    // The namespaces appear once the emulator has set them up.
    let t0 = Instant::now();
    let listener = loop {
        if let Ok(Ok(l)) = in_netns(&b, || TcpListener::bind(to)) {
            break l;
        }
        assert!(t0.elapsed() < Duration::from_secs(5), "no namespace {b} within 5 s");
        std::thread::sleep(Duration::from_millis(50));
    };
    const SENT: usize = 200_000;
    let server = std::thread::spawn(move || {
        let (mut c, _) = listener.accept().unwrap();
        let mut got = vec![];
        c.read_to_end(&mut got).unwrap();
        got.len()
    });
    let connect = in_netns(&a, || {
        let t = Instant::now();
        let mut c = TcpStream::connect_timeout(&to, Duration::from_secs(5)).expect("connect through the emulator");
        let connect = t.elapsed();
        c.write_all(&[1u8; SENT]).unwrap();
        connect
    })
    .unwrap();
    assert_eq!(server.join().unwrap(), SENT);
    // Host a's device holds 4096 packets for the emulator, not Linux's default 500.
    let dev = Command::new("ip").args(["-n", &a, "link", "show"]).output().unwrap();
    let dev = String::from_utf8_lossy(&dev.stdout);
    assert!(dev.lines().any(|l| l.contains("POINTOPOINT") && l.contains("qlen 4096")), "{dev}");
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    // r1->r2 and r2->r1 each delay 20 ms: the SYN and the SYN-ACK pay both.
    assert!(connect >= Duration::from_millis(40), "connect took {connect:?}");
    // The data crossed r1->r2: at least 200 kB in 1500-byte packets (1448 bytes of data each).
    let line = stdout.lines().find(|l| l.starts_with("a -> b (r1->r2): ")).expect(&stdout);
    let packets: u64 = line["a -> b (r1->r2): ".len()..].split(' ').next().unwrap().parse().unwrap();
    assert!(packets as usize >= SENT.div_ceil(1448), "{line}");

    // --out: the links' counters in summary.json, the queue over time in queue.csv, in the
    // simulator's columns and at its sampling interval.
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    let l = &summary["links"][0];
    assert_eq!((summary["mode"].as_str(), l["name"].as_str()), (Some("live"), Some("r1->r2")));
    assert_eq!(l["arrivals_pkts"].as_u64(), Some(packets));
    // 139 data packets never fill the device: the count is read, and it is none.
    assert_eq!(l["device_drops_pkts"].as_u64(), Some(0), "{l}");
    let sim = dir.join("sim");
    let o = Command::new(env!("CARGO_BIN_EXE_fairway"))
        .args(["run", "scenarios/tutorial/red-dumbbell.toml", "--quiet", "--out"])
        .arg(&sim)
        .current_dir(&repo)
        .output()
        .unwrap();
    assert!(o.status.success());
    let (live_q, sim_q) = (
        std::fs::read_to_string(dir.join("queue.csv")).unwrap(),
        std::fs::read_to_string(sim.join("queue.csv")).unwrap(),
    );
    assert_eq!(live_q.lines().next(), sim_q.lines().next(), "the same columns");
    let times =
        |q: &str| -> Vec<f64> { q.lines().skip(1).map(|r| r.split(',').next().unwrap().parse().unwrap()).collect() };
    let (lt, st) = (times(&live_q), times(&sim_q));
    let step = st[1] - st[0];
    assert!(lt.windows(2).all(|w| (w[1] - w[0] - step).abs() < 1e-9), "every {step} s");
    assert!((lt.len() as f64 - 8.0 / step).abs() <= 2.0, "{} samples over 8 s", lt.len());
    // Its arrivals count up to what the summary says.
    let arrivals: Vec<u64> = live_q.lines().skip(1).map(|r| r.split(',').nth(5).unwrap().parse().unwrap()).collect();
    assert!(
        arrivals.windows(2).all(|w| w[1] >= w[0])
            && *arrivals.last().unwrap() <= packets
            && *arrivals.last().unwrap() > 0
    );
    let _ = std::fs::remove_dir_all(&dir);
    assert!(!Path::new(&format!("/run/netns/{a}")).exists(), "the namespaces are gone");
}

#[test]
fn emulate_leaves_a_namespace_of_its_name_alone() {
    if !can_run() {
        return;
    }
    // Another emulator's, say: it must not be taken over or deleted.
    let name = format!("own{}", std::process::id() % 100_000);
    let theirs = format!("fw-{name}-a");
    assert!(Command::new("ip").args(["netns", "add", &theirs]).status().unwrap().success());
    let out = Command::new(env!("CARGO_BIN_EXE_fairway"))
        .args(["emulate", "scenarios/tutorial/red-dumbbell.toml", "--duration", "1s", "--name", &name])
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .output()
        .unwrap();
    let still = Path::new("/run/netns").join(&theirs).exists();
    let _ = Command::new("ip").args(["netns", "del", &theirs]).status();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains(&format!("namespace {theirs} exists")));
    assert!(still, "the namespace is still there");
}

/// Starts `fairway emulate` of the tutorial's dumbbell as namespaces fw-NAME-a and -b for
/// `duration`, and waits until both exist.
fn emulator(name: &str, duration: &str) -> std::process::Child {
    let child = Command::new(env!("CARGO_BIN_EXE_fairway"))
        .args(["emulate", "scenarios/tutorial/red-dumbbell.toml", "--duration", duration, "--name", name])
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while !(netns_exists(&format!("fw-{name}-a")) && netns_exists(&format!("fw-{name}-b"))) {
        assert!(t0.elapsed() < Duration::from_secs(5), "no namespaces within 5 s");
        std::thread::sleep(Duration::from_millis(20));
    }
    child
}

fn netns_exists(n: &str) -> bool {
    Path::new("/run/netns").join(n).exists()
}

fn signal(child: &std::process::Child, sig: &str) {
    assert!(Command::new("kill").args([sig, &child.id().to_string()]).status().unwrap().success());
}

/// Waits for `child` to end, at most 5 s.
fn ends_soon(mut child: std::process::Child) -> std::process::Output {
    let t0 = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t0.elapsed() > Duration::from_secs(5) {
            let _ = child.kill();
            panic!("still running 5 s after the signal");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn a_closed_terminal_or_a_kill_leaves_no_namespaces_for_long() {
    if !can_run() {
        return;
    }
    let name = format!("sig{}", std::process::id() % 100_000);
    let (a, b) = (format!("fw-{name}-a"), format!("fw-{name}-b"));
    let owner = Path::new(fairway_live::netns::OWNERS).join(format!("fw-{name}"));
    // SIGHUP (the terminal closed) and SIGQUIT end the emulator as Ctrl-C does: it removes its
    // namespaces and its record of them.
    for sig in ["-HUP", "-QUIT"] {
        let e = emulator(&name, "30s");
        assert!(owner.exists(), "the emulator records itself");
        signal(&e, sig);
        ends_soon(e);
        assert!(!netns_exists(&a) && !netns_exists(&b) && !owner.exists(), "{sig}: left behind");
    }
    // While an emulator runs, another of its name is refused and leaves it alone.
    let first = emulator(&name, "30s");
    let o = Command::new(env!("CARGO_BIN_EXE_fairway"))
        .args(["emulate", "scenarios/tutorial/red-dumbbell.toml", "--duration", "1s", "--name", &name])
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(&format!("belong to process {}, still running", first.id())), "{err}");
    assert!(netns_exists(&a) && netns_exists(&b));
    // SIGKILL cannot be caught: the namespaces stay, until the next emulator of the name
    // finds their owner gone, removes them, and runs.
    signal(&first, "-KILL");
    ends_soon(first);
    assert!(netns_exists(&a) && netns_exists(&b) && owner.exists(), "SIGKILL leaves them");
    let o = Command::new(env!("CARGO_BIN_EXE_fairway"))
        .args(["emulate", "scenarios/tutorial/red-dumbbell.toml", "--duration", "1s", "--name", &name])
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}\n{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.contains(&format!("removed namespaces {a} and {b} left by process")), "{out}");
    assert!(!netns_exists(&a) && !netns_exists(&b) && !owner.exists());
}
