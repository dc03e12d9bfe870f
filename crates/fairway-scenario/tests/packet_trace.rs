//! Packet traces (`RunOptions::trace_packets`): every enqueue, dequeue, receive and drop on the
//! traced links, each packet with its uid, as ns-2's `trace-all` gives them; the run unchanged.

use std::collections::HashMap;

use fairway_core::{Bytes, Dur, Time};
use fairway_engine::{run, RunOptions, Scenario};
use fairway_model::packet_trace::PktKind;
use fairway_model::packet_trace::{PacketEvent, PacketOp, PacketTraceSpec};
use fairway_model::results::RunResult;
use fairway_scenario::parse_scenario;

/// kadhum2015's comparison run, with a lossy access link: a NewReno FTP (window 15) and 800 kb/s
/// of CBR through a 2 Mb/s RED bottleneck (link 2), where the FTP loses packets; flow 0 is the
/// FTP, flow 1 the CBR.
const RED: &str = r#"
duration = "20s"
[[link]]
between = ["s1", "r1"]
rate = "6Mb"
delay = "2ms"
[[link]]
between = ["s2", "r1"]
rate = "6Mb"
delay = "2ms"
loss = 0.01
[[link]]
between = ["r1", "r2"]
rate = "2Mb"
delay = "10ms"
queue = { kind = "red", limit = 20, thresh = 5, maxthresh = 10, q_weight = 0.002, bytes = false, queue_in_bytes = false }
[[link]]
between = ["r2", "s3"]
rate = "6Mb"
delay = "2ms"
[monitor]
links = ["r1->r2"]
[[flow]]
name = "ftp"
app = "ftp"
transport = "newreno"
from = "s2"
to = "s3"
window = 15
packet_size = "1000B"
[[flow]]
name = "cbr"
app = "cbr"
from = "s1"
to = "s3"
start = "1s"
packet_size = "500B"
interval = "4ms"
"#;

fn scenario(text: &str) -> Scenario {
    parse_scenario("t.toml", text, "t").unwrap_or_else(|e| panic!("{e}"))
}

fn traced(sc: &Scenario, spec: Option<PacketTraceSpec>) -> RunResult {
    run(sc, &RunOptions { trace_packets: spec, ..Default::default() }, &mut |_| {}).unwrap()
}

fn link(sc: &Scenario, name: &str) -> u32 {
    (0..sc.links.len()).find(|&l| sc.link_name(l) == name).unwrap_or_else(|| panic!("no link {name}")) as u32
}

/// Tracing changes no result: the flows' figures, the bins and the links' counts are those of
/// the untraced run (the traced links' mean wait is over departures there, and the run has
/// more events: see `RunOptions::trace_packets`).
#[test]
fn tracing_changes_no_result() {
    let sc = scenario(RED);
    let show = |spec: Option<PacketTraceSpec>| {
        let mut r = traced(&sc, spec);
        r.summary.events = 0;
        for l in r.summary.links.iter_mut().chain(r.all_links.iter_mut()) {
            l.mean_sojourn_s = None;
        }
        r.packet_trace.clear();
        format!("{r:?}")
    };
    assert_eq!(show(None), show(Some(PacketTraceSpec::default())));
}

/// Every link's events account for its counters: a `+` per arrival, a `-` per departure, a `d`
/// per drop or loss, an `r` per packet that reached the far end; each packet's events at a link
/// come in the order `+`, `-`, `r` (or `+`, `d`; or `+`, `-`, `d` when lost on the wire), and
/// `r` follows `-` by the serialisation time and the delay exactly.
#[test]
fn each_link_accounts_for_every_packet() {
    let sc = scenario(RED);
    let res = traced(&sc, Some(PacketTraceSpec::default()));
    assert!(res.packet_trace.windows(2).all(|w| w[0].t <= w[1].t), "in time order");
    for (l, s) in res.all_links.iter().enumerate() {
        let ev: Vec<&PacketEvent> = res.packet_trace.iter().filter(|e| e.link == l as u32).collect();
        let count = |op| ev.iter().filter(|e| e.op == op).count() as u64;
        assert_eq!(count(PacketOp::Enqueue), s.arrivals_pkts, "{}: + per arrival", s.name);
        assert_eq!(count(PacketOp::Dequeue), s.departures_pkts, "{}: - per departure", s.name);
        assert_eq!(count(PacketOp::Drop), s.drops_pkts + s.lost_pkts, "{}: d per drop or loss", s.name);
        let mut by_uid: HashMap<u64, Vec<&PacketEvent>> = HashMap::new();
        for e in &ev {
            by_uid.entry(e.uid).or_default().push(e);
        }
        let (rate, delay) = (sc.links[l].rate, sc.links[l].delay);
        for (uid, es) in by_uid {
            let ops: String = es.iter().map(|e| e.op.letter()).collect();
            assert!(matches!(ops.as_str(), "+-r" | "+d" | "+-d" | "+-" | "+"), "{}: packet {uid} has {ops}", s.name);
            if es.len() == 3 {
                let on_wire = rate.tx_time(Bytes(es[1].size as u64)) + delay;
                assert_eq!(es[2].t, es[1].t + on_wire, "{}: packet {uid}", s.name);
            }
            // The last two forms only at the end of the run: still queued, or still on the wire.
            // Every link here empties in well under a second (the bottleneck's 20 packets take
            // 83 ms at 2 Mb/s; an access link's 50 take 70 ms at 6 Mb/s).
            if ops.len() < 3 && ops != "+d" {
                assert!(es[0].t + Dur::from_secs(1) >= Time(sc.duration.0), "{}: {uid} left behind", s.name);
            }
        }
    }
    let lost: u64 = res.all_links.iter().map(|l| l.lost_pkts).sum();
    let early: u64 = res.all_links.iter().map(|l| l.early_drops_pkts).sum();
    assert!(lost > 10 && early > 10, "the scenario loses ({lost}) and drops ({early}) packets");
}

/// A packet keeps its uid and number from link to link; uids follow the order packets were
/// made; TCP segments carry their sequence number and ACKs the number they acknowledge, CBR
/// datagrams their count from 0.
#[test]
fn a_packet_keeps_its_uid_and_number_along_its_route() {
    let sc = scenario(RED);
    let res = traced(&sc, Some(PacketTraceSpec::default()));
    let mut seen: HashMap<u64, (u32, PktKind, i64)> = HashMap::new();
    for e in &res.packet_trace {
        let id = (e.flow, e.kind, e.seq);
        if let Some(prev) = seen.insert(e.uid, id) {
            assert_eq!(prev, id, "uid {} changed its packet", e.uid);
        }
    }
    // Packets offered to their first link in time order were made in that order, but for
    // those offered in the same instant.
    let access = [link(&sc, "s1->r1"), link(&sc, "s2->r1")];
    let firsts: Vec<(Time, u64)> = res
        .packet_trace
        .iter()
        .filter(|e| e.op == PacketOp::Enqueue && access.contains(&e.link))
        .map(|e| (e.t, e.uid))
        .collect();
    assert!(firsts.windows(2).all(|w| w[0].0 == w[1].0 || w[0].1 < w[1].1), "uids in order of making");
    let cbr: Vec<i64> = res.packet_trace.iter().filter(|e| e.flow == 1 && e.link == access[0]).map(|e| e.seq).collect();
    let sent = res.summary.flows[1].sent_pkts as i64;
    assert!(cbr.iter().copied().eq((0..sent).flat_map(|i| [i, i, i])), "CBR numbered 0..{sent}, each +, -, r");
    // The FTP's segments leave its host numbered 0, 1, 2, ... with retransmissions of earlier
    // numbers among them; its ACKs acknowledge numbers it sent.
    let mut sent: Vec<i64> = res
        .packet_trace
        .iter()
        .filter(|e| e.op == PacketOp::Enqueue && e.link == access[1] && e.kind == PktKind::TcpData)
        .map(|e| e.seq)
        .collect();
    let n = sent.len();
    sent.sort_unstable();
    sent.dedup();
    assert!(sent.len() < n, "some segments were sent again");
    assert!(sent.iter().copied().eq(0..sent.len() as i64), "numbers 0..{} with none skipped", sent.len());
    assert!(res.packet_trace.iter().filter(|e| e.kind == PktKind::TcpAck).all(|e| e.seq < sent.len() as i64));
}

/// Only the flows, links and events asked for.
#[test]
fn only_what_was_asked_for() {
    let sc = scenario(RED);
    let bottleneck = link(&sc, "r1->r2");
    let spec = PacketTraceSpec { links: vec![bottleneck as usize], flows: vec![1], ops: vec![PacketOp::Drop] };
    let res = traced(&sc, Some(spec));
    assert!(!res.packet_trace.is_empty());
    assert!(res.packet_trace.iter().all(|e| e.link == bottleneck && e.flow == 1 && e.op == PacketOp::Drop));
    let all = traced(&sc, Some(PacketTraceSpec::default()));
    let same: Vec<&PacketEvent> =
        all.packet_trace.iter().filter(|e| e.link == bottleneck && e.flow == 1 && e.op == PacketOp::Drop).collect();
    assert!(same.iter().copied().eq(res.packet_trace.iter()), "the same events, with the same uids");
}
