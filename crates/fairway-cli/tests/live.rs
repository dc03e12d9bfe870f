//! `fairway send` and `fairway recv` as a user runs them: over loopback, and through `fairway
//! emulate`'s bottleneck between two namespaces (root; without it that test says so and
//! passes, unless FAIRWAY_REQUIRE_NETNS is set, as CI sets it).

use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

mod netns;
mod referee;

/// The tests that carry traffic take turns: each counts what arrives over loopback, and nine
/// flows at once beside the emulator's test on a 2-core machine left a receiver unscheduled long
/// enough for its socket to overflow (CCID3: 333 of 400 arrived).
static TRAFFIC: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    TRAFFIC.lock().unwrap_or_else(|e| e.into_inner())
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn fairway() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_fairway"));
    c.current_dir(repo());
    c
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("fairway-live-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

/// A `fairway recv` started, the address it prints it receives on, and the key it prints when
/// it was given none.
struct Receiver {
    child: Child,
    at: String,
    key: Option<String>,
}

/// Starts `cmd` (a `fairway recv`) and reads what it prints before it receives.
fn receiver(mut cmd: Command) -> Receiver {
    let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let (mut line, mut key) = (String::new(), None);
    while out.read_line(&mut line).unwrap() > 0 {
        if let Some(k) = line.strip_prefix("key ") {
            key = Some(k.split(' ').next().unwrap().to_string());
        }
        if let Some((_, at)) = line.trim().strip_prefix("receiving ").and_then(|l| l.split_once(" on ")) {
            let at = at.to_string();
            // The rest of its output is read when it ends.
            std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
            return Receiver { child, at, key };
        }
        line.clear();
    }
    panic!("the receiver did not start: {}", String::from_utf8_lossy(&child.wait_with_output().unwrap().stderr));
}

fn ok(o: &Output) -> String {
    let s = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "{s}\n{}", String::from_utf8_lossy(&o.stderr));
    s
}

fn json(p: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(p).unwrap()).unwrap()
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap()
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap()
}

/// The live example's MApp flow, shortened to 2 s.
fn short_scenario(dir: &Path) -> PathBuf {
    let s = fs::read_to_string(repo().join("scenarios/tutorial/live-mapp.toml")).unwrap();
    let p = dir.join("short.toml");
    fs::write(&p, s.replace("duration = \"10s\"", "duration = \"2s\"")).unwrap();
    p
}

#[test]
fn a_mapp_flow_over_loopback_arrives_whole_and_both_ends_say_so() {
    let _turn = one_at_a_time();
    let dir = tmp("loopback");
    let sc = short_scenario(&dir);
    let (rout, sout) = (dir.join("recv"), dir.join("send"));
    let mut r = fairway();
    r.arg("recv").arg(&sc).args(["--flow", "mapp", "--listen", "127.0.0.1:0", "--out"]).arg(&rout);
    // Given no key, the receiver makes one and prints it for the sender.
    let Receiver { child: rx, at, key } = receiver(r);
    let key = key.expect("the receiver printed its key");
    assert_eq!(key.len(), 64, "{key}");
    let t = Instant::now();
    let mut send = fairway();
    send.arg("send").arg(&sc).args(["--flow", "mapp", "--to", &at, "--key", &key, "--out"]).arg(&sout);
    let sent = ok(&send.output().unwrap());
    // The flow runs from 0.5 s to 2 s of the sender's time.
    let took = t.elapsed();
    assert!(took >= Duration::from_millis(2000) && took < Duration::from_secs(4), "{took:?}\n{sent}");
    ok(&rx.wait_with_output().unwrap());

    let s = json(&rout.join("summary.json"));
    assert_eq!((s["mode"].as_str(), s["side"].as_str()), (Some("live"), Some("receiver")));
    let fl = &s["flows"][0];
    let snd = json(&sout.join("sender.json"));
    // Loopback loses nothing: every datagram the sender counted arrived, once.
    assert!(u(&snd["sent_pkts"]) > 100, "{snd}");
    assert_eq!(u(&fl["sent_pkts"]), u(&snd["sent_pkts"]));
    assert_eq!(u(&fl["recv_distinct_pkts"]), u(&snd["sent_pkts"]));
    assert_eq!(u(&fl["sent_bytes"]), u(&snd["sent_bytes"]));
    assert_eq!((f(&fl["pdr"]), f(&fl["plr"])), (1.0, 0.0));
    assert_eq!(s["live"]["sender_totals_received"], true);
    for n in ["stranger_pkts", "forged_pkts", "truncated_pkts", "duplicate_pkts", "unconfirmed_pkts"] {
        assert_eq!(u(&s["live"][n]), 0, "{n}");
    }
    // Throughput is what arrived over the time the sender's application ran.
    let expect = u(&fl["recv_distinct_bytes"]) as f64 * 8.0 / f(&snd["active_s"]);
    assert!((f(&fl["throughput_bps"]) - expect).abs() < 1e-6 * expect);
    assert!((1.45..1.55).contains(&f(&snd["active_s"])), "{snd}");
    // Feedback came back, and without loss MApp's scale only rises.
    assert_eq!(u(&snd["feedback_pkts"]), u(&s["live"]["feedback_sent_pkts"]));
    let scale = fs::read_to_string(sout.join("scale.csv")).unwrap();
    let scales: Vec<u8> = scale.lines().skip(1).map(|l| l.rsplit(',').next().unwrap().parse().unwrap()).collect();
    assert!(scale.starts_with("time_s,flow,scale\n") && scales.len() > 2, "{scale}");
    assert!(scales.windows(2).all(|w| w[1] > w[0]), "{scales:?}");
}

#[test]
fn send_and_recv_refuse_what_they_cannot_run() {
    let dir = tmp("refuse");
    let tcp = "scenarios/tutorial/red-dumbbell.toml";
    let o = fairway().args(["send", tcp, "--flow", "tcp0", "--to", "127.0.0.1:9"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("TCP flows are the kernel's"), "{o:?}");
    // A coupled RTP flow shares its rate with its group's other senders: one process has none.
    let coupled = "scenarios/rfc8867/6.1-priorities.toml";
    let o = fairway().args(["send", coupled, "--flow", "video1", "--to", "127.0.0.1:9"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot couple it"), "{o:?}");
    let o =
        fairway().args(["recv", tcp, "--flow", "nope", "--listen", "127.0.0.1:0", "--out"]).arg(&dir).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("nope"), "{o:?}");
    let o = fairway()
        .args(["send", "scenarios/tutorial/live-mapp.toml", "--flow", "mapp", "--to", "[::1]:9"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("IPv4 only"), "{o:?}");
    // A sender needs the flow's key, and a key is 64 hexadecimal digits.
    let mapp = ["send", "scenarios/tutorial/live-mapp.toml", "--flow", "mapp", "--to", "127.0.0.1:9"];
    let o = fairway().args(mapp).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("needs the flow's key"), "{o:?}");
    let o = fairway().args(mapp).args(["--key", "1234"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--key: a key is 64 hexadecimal digits"), "{o:?}");
    let o = fairway().args(mapp).arg("--key-file").arg(dir.join("none")).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("none: No such file"), "{o:?}");
}

#[test]
fn fairway_key_writes_a_key_only_its_owner_reads_and_replaces_only_a_key() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tmp("key");
    let k = dir.join("sub/flow.key");
    ok(&fairway().arg("key").arg(&k).output().unwrap());
    let first = fs::read_to_string(&k).unwrap();
    assert!(first.len() == 65 && first.trim().chars().all(|c| c.is_ascii_hexdigit()), "{first:?}");
    assert_eq!(fs::metadata(&k).unwrap().permissions().mode() & 0o777, 0o600);
    // A key file is replaced by a fresh key.
    ok(&fairway().arg("key").arg(&k).output().unwrap());
    assert_ne!(fs::read_to_string(&k).unwrap(), first);
    // Any other file is the user's: refused, left as it was.
    let thesis = dir.join("thesis.tex");
    fs::write(&thesis, "important").unwrap();
    let o = fairway().arg("key").arg(&thesis).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert_eq!(fs::read_to_string(&thesis).unwrap(), "important");
    // Without a file, it prints one.
    let printed = ok(&fairway().arg("key").output().unwrap());
    assert_eq!(printed.trim().len(), 64, "{printed}");
    let _ = fs::remove_dir_all(&dir);
}

/// Who knows the flow's number and the receiver's address but not its key takes nothing over:
/// a sender with another key reaches the receiver, and every datagram of it is counted forged.
#[test]
fn a_sender_without_the_key_is_refused_datagram_by_datagram() {
    let _turn = one_at_a_time();
    let dir = tmp("wrongkey");
    let sc = short_scenario(&dir);
    let (kr, ks) = (dir.join("r.key"), dir.join("s.key"));
    ok(&fairway().arg("key").arg(&kr).output().unwrap());
    ok(&fairway().arg("key").arg(&ks).output().unwrap());
    let rout = dir.join("recv");
    let mut r = fairway();
    r.arg("recv").arg(&sc).args(["--flow", "mapp", "--listen", "127.0.0.1:0", "--duration", "3s", "--key-file"]);
    r.arg(&kr).arg("--out").arg(&rout);
    let rx = receiver(r);
    assert_eq!(rx.key, None, "a receiver given its key prints none");
    let mut send = fairway();
    send.arg("send").arg(&sc).args(["--flow", "mapp", "--to", &rx.at, "--key-file"]).arg(&ks);
    let sent = ok(&send.output().unwrap());
    ok(&rx.child.wait_with_output().unwrap());
    let s = json(&rout.join("summary.json"));
    let (fl, live) = (&s["flows"][0], &s["live"]);
    assert_eq!((u(&fl["recv_pkts"]), u(&live["feedback_sent_pkts"])), (0, 0), "{s}");
    assert_eq!(live["sender"], Value::Null, "the receiver locked to nobody: {live}");
    assert_eq!(live["sender_totals_received"], false);
    // The sender's data and its three end-of-flow copies, each refused.
    let line = sent.lines().find(|l| l.starts_with("sent ")).expect(&sent);
    let n: u64 = line.split(' ').nth(1).unwrap().parse().unwrap();
    // MApp without feedback stays at its first scale: a few dozen datagrams.
    assert!(n >= 20, "{sent}");
    assert_eq!(
        u(&live["forged_pkts"]),
        n + 3,
        "{live}
{sent}"
    );
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_live_mapp_flow_scales_down_under_the_emulated_red_bottleneck_as_simulated() {
    let _turn = one_at_a_time();
    if !netns::can_run() {
        return;
    }
    let dir = tmp("netns");
    let sc = "scenarios/tutorial/live-mapp.toml";
    let name = format!("lv{}", std::process::id() % 100_000);
    let (a, b) = (format!("fw-{name}-a"), format!("fw-{name}-b"));
    let emu = fairway()
        .args(["emulate", sc, "--duration", "16s", "--name", &name])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while !Path::new("/run/netns").join(&b).exists() || !Path::new("/run/netns").join(&a).exists() {
        assert!(t0.elapsed() < Duration::from_secs(5), "no namespaces within 5 s");
        std::thread::sleep(Duration::from_millis(50));
    }
    // The addresses take a moment after the namespaces appear.
    std::thread::sleep(Duration::from_millis(300));
    let (rout, sout) = (dir.join("recv"), dir.join("send"));
    let mut r = Command::new("ip");
    r.current_dir(repo()).args(["netns", "exec", &b, env!("CARGO_BIN_EXE_fairway"), "recv", sc, "--flow", "mapp"]);
    r.args(["--listen", "10.201.1.1:5000", "--out"]).arg(&rout);
    r.arg("--key-file").arg(dir.join("flow.key"));
    ok(&fairway().arg("key").arg(dir.join("flow.key")).output().unwrap());
    let Receiver { child: rx, at, .. } = receiver(r);
    assert_eq!(at, "10.201.1.1:5000");
    let mut s = Command::new("ip");
    s.current_dir(repo()).args(["netns", "exec", &a, env!("CARGO_BIN_EXE_fairway"), "send", sc, "--flow", "mapp"]);
    s.args(["--to", &at, "--out"]).arg(&sout).arg("--key-file").arg(dir.join("flow.key"));
    ok(&s.output().unwrap());
    ok(&rx.wait_with_output().unwrap());
    let emu_out = ok(&emu.wait_with_output().unwrap());
    let sim = dir.join("sim");
    ok(&fairway().args(["run", sc, "--quiet", "--out"]).arg(&sim).output().unwrap());

    let live = json(&rout.join("summary.json"));
    let fl = &live["flows"][0];
    let simulated = json(&sim.join("summary.json"));
    let sf = &simulated["flows"][0];
    // MApp's receiver halves the scale at a loss (kadhum2015 §2.2): the scale went down.
    let scale = fs::read_to_string(sout.join("scale.csv")).unwrap();
    let scales: Vec<u8> = scale.lines().skip(1).map(|l| l.rsplit(',').next().unwrap().parse().unwrap()).collect();
    let down = scales.windows(2).filter(|w| w[1] < w[0]).count();
    assert!(down >= 3, "{scales:?}");
    assert!(u(&fl["dropped_pkts"]) > 0 && f(&fl["pdr"]) < 1.0, "{fl}");
    // The receiver owned up to its losses: its echoes that cover one go unchecked, the rest
    // pass the sender's nonce check.
    let snd = json(&sout.join("sender.json"));
    assert_eq!(u(&snd["nonce_failed"]), 0, "{snd}");
    assert!(u(&snd["nonce_unchecked"]) > 0 && u(&snd["nonce_passed"]) > 0, "{snd}");
    // The bottleneck carried at most its rate: 1 Mb/s over the 9.5 s the flow ran, plus the
    // 30 packets of its queue drained after the sender stopped.
    let ceiling = (1e6 * 9.5 + 30.0 * 8000.0) / 9.5;
    assert!(f(&fl["throughput_bps"]) <= ceiling, "{fl}");
    // Live agrees with the simulation within the 25% issue 18 asks of the live comparison.
    let (lt, st) = (f(&fl["throughput_bps"]), f(&sf["throughput_bps"]));
    assert!((lt - st).abs() <= 0.25 * st, "live {lt} b/s, simulated {st} b/s");
    // The emulator saw the flow's packets at the simulator's size (1000 bytes on the wire).
    let line = emu_out.lines().find(|l| l.starts_with("a -> b (a->b): ")).expect(&emu_out);
    let arrived: u64 = line["a -> b (a->b): ".len()..].split(' ').next().unwrap().parse().unwrap();
    assert!(arrived >= u(&fl["sent_pkts"]), "{line}\n{fl}");
}

/// Every datagram protocol of fairway-proto, each over loopback with its own `fairway recv` and
/// `fairway send`, all at once for the scenario's 2 s.
const EVERY_PROTOCOL: &str = r#"name = "live-protocols"
duration = "2s"
seed = 1
[[link]]
between = ["a", "b"]
rate = "10Mb"
delay = "5ms"
[[flow]]
name = "cbr"
app = "cbr"
transport = "udp"
rate = "1Mb"
packet_size = "500B"
[[flow]]
name = "voip"
app = "voip"
transport = "tfrc"
[[flow]]
name = "video"
app = "video"
transport = "tfrc-sp"
rate = "500kb"
[[flow]]
name = "iftp"
app = "iftp"
packet_size = "1000B"
[[flow]]
name = "ccid2"
app = "ftp"
transport = "ccid2"
packet_size = "500B"
[[flow]]
name = "ccid3"
app = "ftp"
transport = "ccid3"
packet_size = "500B"
[[flow]]
name = "mm"
app = "mm_app"
transport = "udp"
[[flow]]
name = "mpeg"
app = "mpeg_app"
transport = "udp"
[[flow]]
name = "mapp"
app = "mapp"
transport = "udpm"
scales = "kadhum2015"
packet_size = "1000B"
"#;

#[test]
fn every_protocol_runs_on_sockets() {
    let _turn = one_at_a_time();
    let dir = tmp("every");
    let sc = dir.join("every.toml");
    let text = EVERY_PROTOCOL.replace("[[flow]]\n", "[[flow]]\nfrom = \"a\"\nto = \"b\"\n");
    fs::write(&sc, text).unwrap();
    let names = ["cbr", "voip", "video", "iftp", "ccid2", "ccid3", "mm", "mpeg", "mapp"];
    let receivers: Vec<Receiver> = names
        .iter()
        .map(|n| {
            let mut r = fairway();
            r.args(["recv", sc.to_str().unwrap(), "--flow", n, "--listen", "127.0.0.1:0", "--duration", "20s"]);
            r.arg("--out").arg(dir.join(n));
            receiver(r)
        })
        .collect();
    let senders: Vec<Child> = names
        .iter()
        .zip(&receivers)
        .map(|(n, r)| {
            let mut s = fairway();
            s.args(["send", sc.to_str().unwrap(), "--flow", n, "--to", &r.at, "--key", r.key.as_ref().unwrap()]);
            s.stdout(Stdio::null());
            s.stderr(Stdio::piped()).spawn().unwrap()
        })
        .collect();
    for s in senders {
        ok(&s.wait_with_output().unwrap());
    }
    for (n, r) in names.iter().zip(receivers) {
        ok(&r.child.wait_with_output().unwrap());
        let s = json(&dir.join(n).join("summary.json"));
        let fl = &s["flows"][0];
        assert_eq!(fl["name"].as_str(), Some(*n));
        // It delivered, through its own wire format: every datagram its receiver took in was
        // its sender's and decoded, and the sender's end of flow arrived. Loopback loses
        // nothing, but a receiver kept off its core while a greedy sender (CCID2, unpaced, on
        // a path of microseconds) fills its socket loses what does not fit there, and the
        // kernel counts those: every data datagram sent arrived or was dropped at the receiving
        // socket. The socket's count also takes in the sender's other datagrams it dropped (up
        // to three copies of the end of flow, DCCP's Acks), so it may exceed the data lost.
        let live = &s["live"];
        let (sent, got, host) = (u(&fl["sent_pkts"]), u(&fl["recv_distinct_pkts"]), u(&live["host_drops_pkts"]));
        assert!(got > 50 && got <= sent && got + host >= sent, "{n}: {got} + {host} dropped at the host, of {sent}");
        assert_eq!((u(&live["refused_pkts"]), u(&live["stranger_pkts"])), (0, 0), "{n}: {live}");
        assert_eq!(live["sender_totals_received"], true, "{n}: {live}");
    }
    let _ = fs::remove_dir_all(&dir);
}
