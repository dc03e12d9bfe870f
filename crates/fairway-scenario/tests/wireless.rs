//! Wireless scenarios end to end: the file's keys and their errors, routing over several hops,
//! what a light load costs, and determinism. (The MAC's own timings are unit tests in
//! fairway-engine's wireless/mac_tests.rs; agreement with ns-2 is in ns2_validation.rs.)

use fairway_engine::{run, RunOptions, Summary};
use fairway_scenario::parse_scenario;

fn parse_err(text: &str) -> String {
    match parse_scenario("test.toml", text, "test") {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e.to_string(),
    }
}

fn sim(text: &str) -> Summary {
    let sc = parse_scenario("test.toml", text, "test").unwrap_or_else(|e| panic!("{e}"));
    run(&sc, &RunOptions::default(), &mut |_| {}).unwrap_or_else(|e| panic!("{e}")).summary
}

/// A chain of `n` nodes `gap` metres apart and one CBR flow from the first to the last.
fn chain(n: usize, gap: f64, routing: &str, rate: &str, extra: &str) -> String {
    format!(
        r#"
duration = "11s"
[wireless]
routing = "{routing}"
{extra}
[[node]]
count = {n}
name = "n{{i}}"
at = [0, 0]
step = [{gap}, 0]
[[flow]]
name = "cbr"
app = "cbr"
transport = "udp"
from = "n0"
to = "n{last}"
rate = "{rate}"
packet_size = 512
start = "1s"
stop = "11s"
"#,
        last = n - 1
    )
}

/// Light load over four hops: every packet arrives, each intermediate node forwards each one
/// once, and the delay is what the hops cost with nothing queued. Per hop, the packet waits
/// LL's 25 µs down and 25 µs up and goes through RTS (352 µs), CTS (304 µs) and DATA (192 µs of
/// PLCP + (512 + 20 + 34) x 8 µs) with two SIFS, after DIFS and a backoff of 0 to 30 slots
/// (20 µs each), and the ACK comes after it. The mean's band is the backoff's spread.
#[test]
fn a_light_flow_crosses_four_hops_on_static_routes() {
    let s = sim(&chain(5, 200.0, "static", "40kb", ""));
    let f = &s.flows[0];
    assert_eq!(f.recv_pkts, f.sent_pkts, "dropped {} in flight {}", f.dropped_pkts, f.inflight_pkts);
    let w = s.wireless.as_ref().unwrap();
    for n in &w.nodes[1..] {
        assert_eq!(n.net.received, f.recv_pkts, "{} forwarded or received each packet once", n.name);
    }
    // ARP costs the first packet; the rest see empty queues.
    let data = (192 + (512 + 20 + 34) * 8) as f64 * 1e-6;
    let hop = 50e-6 + 50e-6 + 352e-6 + 10e-6 + 304e-6 + 10e-6 + data;
    let backoff_mean = 15.0 * 20e-6;
    let d = f.mean_delay_s.unwrap();
    let expect = 4.0 * (hop + backoff_mean);
    assert!((d - expect).abs() < 4.0 * 20e-6 * 4.0 + 0.002, "delay {d} vs {expect}");
}

/// With `routing = "none"` every destination must be one hop away; with static routing the
/// chain is only connected while its gaps are within the 250 m decoding range.
#[test]
fn unreachable_destinations_are_refused_before_the_run() {
    let e = parse_err(&chain(3, 200.0, "none", "40kb", ""));
    assert!(e.contains("no wireless route from `n0` to `n2`") && e.contains("one hop (250 m)"), "{e}");
    let e = parse_err(&chain(3, 260.0, "static", "40kb", ""));
    assert!(e.contains("no wireless route") && e.contains("within 250 m"), "{e}");
    // Free space reaches further than two-ray ground (d² against d⁴): the same chain connects.
    let ok = chain(3, 260.0, "static", "40kb", "propagation = \"free_space\"");
    assert!(parse_scenario("t.toml", &ok, "t").is_ok());
}

#[test]
fn bad_wireless_settings_name_their_field() {
    let cases = [
        ("propagation = \"shadowing\"", "unknown propagation"),
        ("cs_threshold = 1e-9", "cs_threshold"),
        ("cw_min = 64\ncw_max = 32", "cw_min (64) is above cw_max (32)"),
        ("ifq_limit = 1", "ifq_limit"),
        ("capture_ratio = 0.5", "capture_ratio"),
        ("rts_treshold = 0", "unknown key `rts_treshold` (did you mean `rts_threshold`?)"),
        ("data_rate = \"0Mb\"", "data_rate"),
    ];
    for (extra, want) in cases {
        let e = parse_err(&chain(3, 200.0, "static", "40kb", extra));
        assert!(e.contains(want) && e.contains("wireless"), "{extra}: {e}");
    }
    let e = parse_err(&chain(3, 200.0, "ospf", "40kb", ""));
    assert!(e.contains("unknown routing `ospf`") && e.contains("wireless.routing"), "{e}");
}

#[test]
fn node_entries_are_checked() {
    let base = "duration = \"1s\"\n[[flow]]\nname = \"f\"\napp = \"cbr\"\ntransport = \"udp\"\nfrom = \"a\"\nto = \"b\"\nrate = \"1kb\"\n";
    let e = parse_err(&format!("{base}[[node]]\nname = \"a\"\nat = [0]\n[[node]]\nname = \"b\"\nat = [1, 1]\n"));
    assert!(e.contains("node[0].at") && e.contains("expected [x, y]"), "{e}");
    let e = parse_err(&format!(
        "{base}[[node]]\nname = \"a\"\nat = [0, 0]\nstep = [1, 0]\n[[node]]\nname = \"b\"\nat = [1, 1]\n"
    ));
    assert!(e.contains("has no `count`"), "{e}");
    let e = parse_err(&format!("{base}[[node]]\nname = \"a\"\nat = [0, 0]\n[[node]]\nname = \"a\"\nat = [1, 1]\n"));
    assert!(e.contains("node `a` is declared twice"), "{e}");
    // Positions are finite and within 10^9 m of the origin, also where `step` takes them.
    let e =
        parse_err(&format!("{base}[[node]]\nname = \"a\"\nat = [1e308, 1e308]\n[[node]]\nname = \"b\"\nat = [1, 1]\n"));
    assert!(e.contains("node[0].at") && e.contains("outside"), "{e}");
    let e = parse_err(&format!(
        "{base}[[node]]\nname = \"n{{i}}\"\ncount = 3\nat = [0, 0]\nstep = [1e300, 0]\n[[node]]\nname = \"a\"\nat = [1, 1]\n[[node]]\nname = \"b\"\nat = [2, 1]\n"
    ));
    assert!(e.contains("outside"), "{e}");
    let e = parse_err(&format!(
        "{base}[wireless]\nrouting = \"none\"\n[[link]]\nbetween = [\"a\", \"b\"]\nrate = \"1Mb\"\ndelay = \"1ms\"\n"
    ));
    assert!(e.contains("no wireless `[[node]]`"), "{e}");
    // A wireless node and a wired one: the route would cross from one network to the other.
    let e = parse_err(&format!(
        "{base}[[node]]\nname = \"a\"\nat = [0, 0]\n[[link]]\nbetween = [\"b\", \"c\"]\nrate = \"1Mb\"\ndelay = \"1ms\"\n"
    ));
    assert!(e.contains("not supported yet"), "{e}");
}

/// The same scenario and seed give the same bytes; another seed draws other backoffs.
#[test]
fn runs_are_deterministic_and_seeds_matter() {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/validation/wireless-star.toml"))
            .unwrap();
    let sc = parse_scenario("star.toml", &text, "star").unwrap();
    let go = |seed| {
        let s = run(&sc, &RunOptions { seed: Some(seed), ..Default::default() }, &mut |_| {}).unwrap().summary;
        serde_json::to_string(&s).unwrap()
    };
    assert_eq!(go(1), go(1));
    assert_ne!(go(1), go(2));
}

/// A two-node scenario whose receiver walks out of range and back, from a movement file: AODV
/// delivers while they are within 250 m, nothing while they are apart, and finds the route again
/// once they meet.
#[test]
fn a_node_that_walks_away_and_back_is_found_again() {
    let dir = std::env::temp_dir().join(format!("fairway-wireless-moves-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Out at 100 m/s from 200 m to 900 m (past 250 m at 5.5 s), back from 20 s (in range at
    // 26.5 s).
    let moves = "$node_(0) set X_ 100\n$node_(0) set Y_ 100\n$node_(1) set X_ 300\n$node_(1) set Y_ 100\n\
                 $ns_ at 5.0 \"$node_(1) setdest 1000 100 100\"\n$ns_ at 20.0 \"$node_(1) setdest 200 100 100\"\n";
    std::fs::write(dir.join("moves.tcl"), moves).unwrap();
    let text = r#"
duration = "40s"
[wireless]
routing = "aodv"
mobility = { model = "file", area = [1200, 300], file = "moves.tcl" }
[[node]]
name = "a"
[[node]]
name = "b"
[[flow]]
name = "cbr"
app = "cbr"
transport = "udp"
from = "a"
to = "b"
rate = "40kb"
packet_size = 500
start = "1s"
stop = "40s"
"#;
    let file = dir.join("walk.toml");
    std::fs::write(&file, text).unwrap();
    let sc = fairway_scenario::parse_scenario_file(&file).unwrap_or_else(|e| panic!("{e}"));
    let res = run(&sc, &RunOptions::default(), &mut |_| {}).unwrap();
    let bins = &res.flow_bins[0];
    let recv_in = |a: f64, b: f64| -> u64 {
        bins.iter()
            .enumerate()
            .filter(|(k, _)| {
                let t = *k as f64 * res.bin.as_secs_f64();
                t >= a && t < b
            })
            .map(|(_, r)| r.recv_pkts)
            .sum()
    };
    // 10 packets a second.
    assert!(recv_in(1.5, 5.0) >= 30, "{}", recv_in(1.5, 5.0));
    assert_eq!(recv_in(6.0, 26.0), 0);
    assert!(recv_in(30.0, 40.0) >= 90, "{}", recv_in(30.0, 40.0));
    let w = res.summary.wireless.as_ref().unwrap();
    assert!(w.nodes[0].net.rreq_sent > 1, "rediscovery");
    // Where b went: out to 1000 m and back to 200 m.
    let (_, path) = &res.node_paths[1];
    assert_eq!(path.last().map(|p| (p.1, p.2)), Some((200.0, 100.0)));
    assert!(path.iter().any(|p| p.1 > 999.0 || p.0 >= 20.0));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Random waypoint keeps every node inside its area, and places those the scenario did not.
#[test]
fn random_waypoint_stays_in_its_area() {
    let text = r#"
duration = "60s"
[wireless]
routing = "aodv"
mobility = { model = "random_waypoint", area = [500, 300], max_speed = 30, pause = "2s" }
[[node]]
count = 8
name = "n{i}"
[[node]]
name = "fixed"
at = [10, 20]
[[flow]]
name = "f"
app = "cbr"
transport = "udp"
from = "n0"
to = "fixed"
rate = "20kb"
packet_size = 200
start = "1s"
"#;
    let sc = parse_scenario("rw.toml", text, "rw").unwrap_or_else(|e| panic!("{e}"));
    let res = run(&sc, &RunOptions::default(), &mut |_| {}).unwrap();
    for (name, path) in &res.node_paths {
        assert!(path.len() > 2, "{name} never moved");
        for &(_, x, y) in path {
            assert!((0.0..=500.0).contains(&x) && (0.0..=300.0).contains(&y), "{name} at ({x}, {y})");
        }
    }
    let fixed = &res.node_paths.iter().find(|(n, _)| n == "fixed").unwrap().1;
    assert_eq!((fixed[0].1, fixed[0].2), (10.0, 20.0));
    // Another seed, other places.
    let again = run(&sc, &RunOptions { seed: Some(2), ..Default::default() }, &mut |_| {}).unwrap();
    assert_ne!(res.node_paths[0].1[0], again.node_paths[0].1[0]);
}

#[test]
fn mobility_settings_are_checked() {
    let base = |mob: &str, routing: &str| {
        format!(
            "duration = \"1s\"\n[wireless]\nrouting = \"{routing}\"\nmobility = {mob}\n[[node]]\ncount = 2\nname = \"n{{i}}\"\n\
             [[flow]]\nname = \"f\"\napp = \"cbr\"\ntransport = \"udp\"\nfrom = \"n0\"\nto = \"n1\"\nrate = \"1kb\"\n"
        )
    };
    let cases = [
        ("{ model = \"random_waypoint\", area = [100, 100], speed = 5 }", "static", "with moving nodes use routing"),
        ("{ model = \"random_waypoint\", area = [100, 100] }", "aodv", "needs `speed`"),
        ("{ model = \"random_waypoint\", area = [100, 100], speed = 5, max_speed = 6 }", "aodv", "not both"),
        ("{ model = \"random_waypoint\", area = [100], speed = 5 }", "aodv", "[width, height]"),
        ("{ model = \"brownian\", area = [100, 100] }", "aodv", "unknown mobility model"),
        ("{ model = \"file\", area = [100, 100], file = \"/nonexistent/moves.tcl\" }", "aodv", "cannot read"),
        ("{ model = \"file\", area = [100, 100], file = \"/dev/zero\" }", "aodv", "not a regular file"),
    ];
    for (mob, routing, want) in cases {
        let e = parse_err(&base(mob, routing));
        assert!(e.contains(want), "{mob}: {e}");
    }
    // A movement file that starts a node outside its area is refused, as random waypoint
    // refuses an `at` outside it.
    let moves = std::env::temp_dir().join(format!("fairway-moves-outside-{}.tcl", std::process::id()));
    std::fs::write(
        &moves,
        "$node_(0) set X_ 50.0\n$node_(0) set Y_ 50.0\n$node_(1) set X_ 150.0\n$node_(1) set Y_ 50.0\n",
    )
    .unwrap();
    let file_mob = format!("{{ model = \"file\", area = [100, 100], file = \"{}\" }}", moves.display());
    let e = parse_err(&base(&file_mob, "aodv"));
    assert!(e.contains("$node_(1) starts at (150, 50), outside the area"), "{e}");
    std::fs::write(
        &moves,
        "$node_(0) set X_ 50.0\n$node_(0) set Y_ 50.0\n$node_(1) set X_ 90.0\n$node_(1) set Y_ 50.0\n",
    )
    .unwrap();
    assert!(parse_scenario("m.toml", &base(&file_mob, "aodv"), "m").is_ok());
    let _ = std::fs::remove_file(&moves);
    // Without mobility, a node needs a position.
    let e = parse_err(
        &base("{ model = \"random_waypoint\", area = [100, 100], speed = 5 }", "aodv").replace("mobility = ", "# "),
    );
    assert!(e.contains("has no position"), "{e}");
}

/// `check` on 20 000 static nodes built an N x N table of next hops and aborted (issue 32): it
/// now joins the nodes by a grid of the radio's range, in linear memory, and the estimate counts
/// the routes the run will hold (N x N), so that a run that cannot fit is refused before it
/// starts. Random waypoint's speed and area are bounded, and its recorded legs counted.
#[test]
fn many_nodes_and_fast_movers_are_checked_quickly_and_estimated() {
    let flow = "[[flow]]\nname = \"f\"\napp = \"cbr\"\nfrom = \"n0\"\nto = \"n1\"\nrate = \"10kb\"\n";
    let big = format!(
        "duration = \"10s\"\n[wireless]\nrouting = \"static\"\n[[node]]\ncount = 20000\nname = \"n{{i}}\"\nat = [0, 0]\nstep = [100, 0]\n{flow}"
    );
    let started = std::time::Instant::now();
    let sc = parse_scenario("big.toml", &big, "big").unwrap_or_else(|e| panic!("{e}"));
    assert!(started.elapsed() < std::time::Duration::from_secs(5), "{:?}", started.elapsed());
    let est = fairway_scenario::estimate::estimate(&sc);
    assert!(est.memory() > 20_000u64 * 20_000 * 8, "the routes: {}", est.memory());
    // Two nodes out of each other's reach (and no chain between them) are still found.
    let apart = big.replace("step = [100, 0]", "step = [1000, 0]");
    let e = parse_err(&apart);
    assert!(e.contains("no wireless route from `n0` to `n1`"), "{e}");
    let rwp = |mobility: &str| {
        format!("duration = \"100s\"\n[wireless]\nrouting = \"aodv\"\nmobility = {{ model = \"random_waypoint\", {mobility} }}\n[[node]]\ncount = 10\nname = \"n{{i}}\"\n{flow}")
    };
    let e = parse_err(&rwp("area = [1000, 1000], speed = 1e15, pause = \"0s\""));
    assert!(e.contains("wireless.mobility.speed") && e.contains("faster than light"), "{e}");
    let e = parse_err(&rwp("area = [1e-9, 1e-9], speed = 10"));
    assert!(e.contains("wireless.mobility.area"), "{e}");
    // At 2e8 m/s with no pause a node crosses 500 m in 2.5 us: 4e7 legs each in 100 s.
    let sc = parse_scenario("fast.toml", &rwp("area = [1000, 1000], speed = 2e8, pause = \"0s\""), "fast").unwrap();
    assert!(fairway_scenario::estimate::estimate(&sc).memory() > 10 * 40_000_000 * 24);
}
