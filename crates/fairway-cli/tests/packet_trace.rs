//! `fairway run --trace packets` and `--trace pcap` as a user runs them: trace.tr holds the
//! lines ns-2's `trace-all` writes for the same scenario (where `ns` is installed; CI installs
//! it and sets FAIRWAY_REQUIRE_NS2), the pcap holds a record per packet leaving the link's
//! queue and tcpdump reads it with every checksum it can check right (where tcpdump is
//! installed; CI installs it and sets FAIRWAY_REQUIRE_TCPDUMP), and bad requests are refused
//! with a reason.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod referee;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn fairway(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fairway")).args(args).current_dir(repo()).output().expect("run fairway")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("fairway-ptrace-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    d
}

/// `fairway run scenarios/validation/trace-dumbbell.toml --out OUT ARGS...`.
fn run_dumbbell(out: &Path, args: &[&str]) -> Output {
    let mut all = vec!["run", "scenarios/validation/trace-dumbbell.toml", "--out", out.to_str().unwrap()];
    all.extend(args);
    fairway(&all)
}

fn ok(o: &Output) -> String {
    assert!(o.status.success(), "fairway failed: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Whether `tool` runs here, recorded as `referee`; if not, the test passes unless `require` is
/// set in the environment.
fn have(referee: &str, tool: &str, arg: &str, require: &str) -> bool {
    let missing = Command::new(tool).arg(arg).output().is_err().then(|| format!("`{tool}` does not run"));
    referee::available(referee, require, missing)
}

/// A trace line with the port numbers left out of its addresses: ns-2 numbers the agents of a
/// node in the order a script attaches them, which a scenario file does not say.
fn without_ports(line: &str) -> String {
    let mut f: Vec<String> = line.split(' ').map(str::to_string).collect();
    for i in [8, 9] {
        if let Some((node, _)) = f[i].split_once('.') {
            f[i] = node.to_string();
        }
    }
    f.join(" ")
}

/// The lines of a trace grouped by time: within one instant the two simulators may order
/// events differently (ns-2's scheduler breaks ties by its own insertion order), so each
/// instant's lines are compared as a sorted set.
fn by_instant(text: &str) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = vec![];
    for line in text.lines() {
        let t = line.split(' ').nth(1).unwrap_or("").to_string();
        let l = without_ports(line);
        match out.last_mut() {
            Some((last, lines)) if *last == t => lines.push(l),
            _ => out.push((t, vec![l])),
        }
    }
    for (_, lines) in &mut out {
        lines.sort();
    }
    out
}

/// scenarios/validation/trace-dumbbell.toml and its twin validation/trace-dumbbell.tcl make the
/// same packets: nothing in either is random, and the CBR starts off the TCP's instants (so
/// that no two packets reach a queue in the same instant, where the order would be a tie-break).
/// Every line of fairway's trace.tr is then ns-2's: event, time to the microsecond, link, type,
/// size, flags, flow, addresses, sequence number and uid, drops included.
#[test]
fn trace_tr_is_what_ns2_writes() {
    if !have("ns-2", "ns", "-version", "FAIRWAY_REQUIRE_NS2") {
        return;
    }
    let out = tmp("ns2");
    ok(&run_dumbbell(&out, &["--trace", "packets", "-q"]));
    let ns_tr = out.join("ns2.tr");
    let st = Command::new("ns").arg(repo().join("validation/trace-dumbbell.tcl")).arg(&ns_tr).output().expect("run ns");
    assert!(st.status.success(), "ns failed: {}", String::from_utf8_lossy(&st.stderr));
    let ours = fs::read_to_string(out.join("trace.tr")).unwrap();
    let theirs = fs::read_to_string(&ns_tr).unwrap();
    let drops = ours.lines().filter(|l| l.starts_with("d ")).count();
    assert!(drops > 20, "the bottleneck overflows ({drops} drops)");
    let (a, b) = (by_instant(&ours), by_instant(&theirs));
    assert_eq!(ours.lines().count(), theirs.lines().count(), "as many lines as ns-2");
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x, y, "the first instant where fairway's trace and ns-2's differ");
    }
    assert_eq!(a.len(), b.len());
    let _ = fs::remove_dir_all(&out);
}

/// The pcap's records: (seconds, nanoseconds, captured bytes, bytes on the wire).
fn pcap_records(bytes: &[u8]) -> Vec<(u32, u32, usize, usize)> {
    let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().unwrap());
    assert_eq!(u32_at(0), 0xa1b2_3c4d, "nanosecond pcap magic");
    assert_eq!(u32_at(20), 101, "raw IP link type");
    let mut v = vec![];
    let mut i = 24;
    while i < bytes.len() {
        let (s, ns, cap, len) = (u32_at(i), u32_at(i + 4), u32_at(i + 8) as usize, u32_at(i + 12) as usize);
        assert!(ns < 1_000_000_000 && cap <= len);
        v.push((s, ns, cap, len));
        i += 16 + cap;
    }
    assert_eq!(i, bytes.len(), "the last record ends the file");
    v
}

/// The pcap of the bottleneck, for one flow, holds a record per `-` of that flow there in
/// trace.tr, at the same times; tcpdump reads it, shows the SYN, the sequence numbers in bytes
/// and no checksum it finds wrong.
#[test]
fn tcpdump_reads_the_pcap() {
    let out = tmp("pcap");
    ok(&run_dumbbell(&out, &["--trace", "packets", "--trace", "pcap", "--trace-flow", "ftp", "-q"]));
    let pcap = out.join("trace-r1-r2.pcap");
    let records = pcap_records(&fs::read(&pcap).unwrap());
    let tr = fs::read_to_string(out.join("trace.tr")).unwrap();
    // r1 is node 1, r2 node 3.
    let departures: Vec<&str> = tr
        .lines()
        .filter(|l| l.starts_with("- ") && l.split(' ').nth(2) == Some("1") && l.split(' ').nth(3) == Some("3"))
        .collect();
    assert!(departures.iter().all(|l| l.split(' ').nth(7) == Some("0")), "the ftp's packets only");
    assert_eq!(records.len(), departures.len());
    for (r, l) in records.iter().zip(&departures) {
        let t: f64 = l.split(' ').nth(1).unwrap().parse().unwrap();
        let rt = r.0 as f64 + r.1 as f64 * 1e-9;
        assert!((rt - t).abs() <= 0.5e-6, "record at {rt} for line {l}");
        let size: usize = l.split(' ').nth(5).unwrap().parse().unwrap();
        assert_eq!(r.3, size, "{l}");
        assert_eq!(r.2, 40, "IP and TCP headers only");
    }
    if !have("tcpdump", "tcpdump", "--version", "FAIRWAY_REQUIRE_TCPDUMP") {
        return;
    }
    for link in ["r1->r2", "r2->r1"] {
        let dir = out.join(link.replace("->", "-"));
        ok(&run_dumbbell(&dir, &["--trace", "pcap", "--trace-link", link, "-q"]));
        let file = dir.join(format!("trace-{}.pcap", link.replace("->", "-")));
        let o = Command::new("tcpdump").args(["-nn", "-vv", "-r"]).arg(&file).output().unwrap();
        assert!(o.status.success(), "tcpdump: {}", String::from_utf8_lossy(&o.stderr));
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(!text.contains("incorrect") && !text.contains("bad cksum"), "a wrong checksum:\n{}", &text[..2000]);
        let packets = text.lines().filter(|l| l.contains(" IP (")).count();
        assert_eq!(packets, pcap_records(&fs::read(&file).unwrap()).len(), "tcpdump sees every record");
        if link == "r1->r2" {
            let syn = text.lines().find(|l| l.contains("Flags [S]")).expect("the SYN");
            assert!(syn.contains("(correct), seq 0, win"), "the SYN, all header, checksummed: {syn}");
            assert!(text.contains("Flags [P], seq 1:1001,"), "segment 1 carries bytes 1 to 1000");
            assert!(text.contains("UDP, length 472"), "the CBR's 500 B datagrams");
        } else {
            assert!(text.contains("cksum 0x") && text.contains("(correct), seq 0, ack 1,"), "ACK of the SYN");
        }
    }
    let _ = fs::remove_dir_all(&out);
}

/// A DCCP flow's packets are named by their type, as ns-2 names them (packet.h: DCCP_Request,
/// DCCP_Response, DCCP_Data, DCCP_Ack, DCCP_DataAck), and the pcap's headers carry that type
/// (RFC 4340 §5.1) with what it adds: the handshake (§8.1.1) comes first, the client's first
/// data acknowledges the Response (§8.1.5), and tcpdump reads them so.
#[test]
fn dccp_packets_are_named_by_their_type() {
    let out = tmp("dccp");
    fs::create_dir_all(&out).unwrap();
    let file = out.join("dccp.toml");
    fs::write(
        &file,
        r#"name = "dccp-trace"
duration = "3s"
[[link]]
between = ["s", "r1"]
rate = "10Mb"
delay = "1ms"
[[link]]
between = ["r1", "r2"]
rate = "1Mb"
delay = "10ms"
queue = { kind = "droptail", limit = 15 }
[[link]]
between = ["r2", "k"]
rate = "10Mb"
delay = "1ms"
[[flow]]
name = "ccid2"
app = "ftp"
transport = "ccid2"
from = "s"
to = "k"
[monitor]
links = ["r1->r2"]
"#,
    )
    .unwrap();
    let res = out.join("res");
    ok(&fairway(&[
        "run",
        file.to_str().unwrap(),
        "--out",
        res.to_str().unwrap(),
        "--trace",
        "packets",
        "--trace",
        "pcap",
        "-q",
    ]));
    // The packets leaving s (node 0) and k (node 3), in order of time.
    let tr = fs::read_to_string(res.join("trace.tr")).unwrap();
    let names = |node: &str| -> Vec<String> {
        tr.lines()
            .filter(|l| l.starts_with("- ") && l.split(' ').nth(2) == Some(node))
            .map(|l| l.split(' ').nth(4).unwrap().to_string())
            .collect()
    };
    let (from_s, from_k) = (names("0"), names("3"));
    assert_eq!(from_s.first().map(String::as_str), Some("DCCP_Request"), "{:?}", &from_s[..5]);
    assert_eq!(from_k.first().map(String::as_str), Some("DCCP_Response"), "{:?}", &from_k[..5]);
    assert_eq!(from_s.get(1).map(String::as_str), Some("DCCP_DataAck"), "{:?}", &from_s[..5]);
    assert!(from_s.iter().skip(2).any(|n| n == "DCCP_Data"), "data after the handshake");
    assert!(from_k.iter().skip(1).all(|n| n == "DCCP_Ack"), "the server sends acknowledgements only");
    // The pcap of r1->r2: each record's DCCP type (the byte after the checksum, above X) and
    // header length (the data offset, in words), IPv4's 20 bytes in front.
    let bytes = fs::read(res.join("trace-r1-r2.pcap")).unwrap();
    let mut types = vec![];
    let mut i = 24;
    while i < bytes.len() {
        let cap = u32::from_le_bytes(bytes[i + 8..i + 12].try_into().unwrap()) as usize;
        let dccp = &bytes[i + 16 + 20..i + 16 + cap];
        types.push((dccp[8] >> 1, dccp[4] as usize * 4, dccp.len()));
        i += 16 + cap;
    }
    // A Request: the generic header and a Service Code; a DataAck: with the acknowledgement
    // subheader; Data: the generic header alone.
    assert_eq!(types[0], (0, 20, 20), "{:?}", &types[..3]);
    assert_eq!(types[1], (4, 24, 24), "{:?}", &types[..3]);
    assert!(types.iter().skip(2).all(|t| *t == (2, 16, 16) || *t == (4, 24, 24)), "data, and data with acks");
    if have("tcpdump", "tcpdump", "--version", "FAIRWAY_REQUIRE_TCPDUMP") {
        let o = Command::new("tcpdump").args(["-nn", "-vv", "-r"]).arg(res.join("trace-r1-r2.pcap")).output().unwrap();
        assert!(o.status.success(), "tcpdump: {}", String::from_utf8_lossy(&o.stderr));
        let text = String::from_utf8_lossy(&o.stdout);
        let first: Vec<&str> = text.lines().filter(|l| l.contains("DCCP-")).take(3).collect();
        assert!(first[0].contains("DCCP-Request (service=0) seq 0"), "{first:?}");
        assert!(first[1].contains("DCCP-DataAck (ack=0) seq 1"), "{first:?}");
    }
    let _ = fs::remove_dir_all(&out);
}

/// At most --trace-limit lines, and a warning that says how many were left out.
#[test]
fn the_limit_bounds_the_trace_and_says_so() {
    let out = tmp("limit");
    let o = run_dumbbell(&out, &["--trace", "packets", "--trace-limit", "1000"]);
    ok(&o);
    assert_eq!(fs::read_to_string(out.join("trace.tr")).unwrap().lines().count(), 1000);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("trace.tr holds the first 1000 packet events;") && err.contains("more were left out"),
        "{err}"
    );
    let _ = fs::remove_dir_all(&out);
}

/// Filters: only the links and events asked for.
#[test]
fn links_and_events_filter_the_trace() {
    let out = tmp("filter");
    ok(&run_dumbbell(&out, &["--trace", "packets", "--trace-link", "r1->r2", "--trace-event", "drop", "-q"]));
    let tr = fs::read_to_string(out.join("trace.tr")).unwrap();
    assert!(tr.lines().count() > 20);
    assert!(tr.lines().all(|l| l.starts_with("d ") && l.split(' ').nth(2) == Some("1")), "{tr}");
    let _ = fs::remove_dir_all(&out);
}

#[test]
fn bad_requests_are_refused_with_a_reason() {
    let out = tmp("bad");
    let o = out.to_str().unwrap();
    let cases: [(&[&str], &str); 4] = [
        (
            &[
                "run",
                "scenarios/validation/trace-dumbbell.toml",
                "--out",
                o,
                "--trace",
                "packets",
                "--trace-link",
                "r9->r1",
            ],
            "--trace-link r9->r1: no link of that name (links: s1->r1, r1->s1",
        ),
        (
            &["run", "scenarios/tutorial/red-dumbbell.toml", "--out", o, "--trace", "agents", "--trace-event", "drop"],
            "--trace-link and --trace-event choose what a packet trace holds",
        ),
        (
            &[
                "run",
                "scenarios/validation/trace-dumbbell.toml",
                "--out",
                o,
                "--trace",
                "pcap",
                "--trace-event",
                "drop",
            ],
            "--trace-event chooses the events trace.tr holds",
        ),
        (
            &["run", "scenarios/validation/wireless-pair.toml", "--out", o, "--trace", "packets"],
            "this scenario has none (wireless packet traces are not built yet",
        ),
    ];
    for (args, want) in cases {
        let r = fairway(args);
        let err = String::from_utf8_lossy(&r.stderr);
        assert!(!r.status.success() && err.contains(want), "{args:?}: {err}");
        assert!(!out.exists(), "{args:?} wrote a folder");
    }
}

/// Without --trace-link, a pcap needs a monitored link to capture (a scenario that names none
/// monitors its bottleneck; this one says `links = []`).
#[test]
fn a_pcap_without_links_asks_for_one() {
    let dir = tmp("nolinks");
    fs::create_dir_all(&dir).unwrap();
    let text = fs::read_to_string(repo().join("scenarios/validation/trace-dumbbell.toml")).unwrap();
    let file = dir.join("s.toml");
    let without = text.replace("links = [\"r1->r2\"]", "links = []");
    assert_ne!(without, text);
    fs::write(&file, without).unwrap();
    let out = dir.join("out");
    let r = fairway(&["run", file.to_str().unwrap(), "--out", out.to_str().unwrap(), "--trace", "pcap"]);
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(!r.status.success() && err.contains("name the links to capture with --trace-link"), "{err}");
    let _ = fs::remove_dir_all(&dir);
}
