//! chung-dcbt §5's media applications in a run: on a link that never congests, MPEG_APP without
//! flow control sends Figure 7's whole GOP every 0.3 s, and MM_APP's receiver raises the scale
//! one step per RTT to the top, where it stays; bad keys are located errors.

use fairway_engine::{run, RunOptions, Summary};
use fairway_scenario::parse_scenario;
use fairway_scenario::protocols::MappSummary;

fn scenario(flow: &str) -> String {
    format!(
        r#"duration = "3s"
[[link]]
between = ["a", "b"]
rate = "10Mb"
delay = "10ms"
[[flow]]
name = "m"
from = "a"
to = "b"
{flow}
"#
    )
}

fn sim(flow: &str) -> Summary {
    let sc = parse_scenario("mm.toml", &scenario(flow), "mm").unwrap_or_else(|e| panic!("{e}"));
    run(&sc, &RunOptions::default(), &mut |_| {}).unwrap().summary
}

#[test]
fn mpeg_app_without_flow_control_sends_figure_7s_gop() {
    let s = sim("app = \"mpeg_app\"\nflow_control = false");
    let f = &s.flows[0];
    assert_eq!((f.kind, f.transport), ("mpeg_app", "udp"));
    // A GOP (IBBPBBPBB, 0.3 s) is 8 + 2 + 2 + 6 + 2 + 2 + 6 + 2 + 2 = 32 datagrams carrying
    // 39 000 bytes of frames and 32 headers of 32 bytes. 3 s holds 10 GOPs and the first slot of
    // an 11th (the slot, 1/30 s, is rounded down to the nanosecond: slot 90 falls at 3 s - 30
    // ns), an I frame of 8 datagrams, still on the 10 ms link when the run ends.
    assert_eq!(f.sent_pkts, 10 * 32 + 8);
    assert_eq!(f.sent_bytes, 10 * (39_000 + 32 * 32) + 11_000 + 8 * 32);
    assert_eq!((f.recv_pkts, f.recv_bytes, f.dropped_pkts), (10 * 32, 10 * (39_000 + 32 * 32), 0));
    let m = f.report::<MappSummary>().unwrap();
    assert_eq!((m.final_scale, m.scale_decreases, m.scale_increases), (4, 0, 0), "the top scale throughout");
}

#[test]
fn mm_app_climbs_to_its_top_scale_on_a_free_path_and_stays() {
    let s = sim("app = \"mm_app\"");
    let f = &s.flows[0];
    assert_eq!((f.kind, f.transport, f.dropped_pkts), ("mm_app", "udp", 0));
    // chung-dcbt §5: no congestion within an RTT, one scale up; five scales, 0 to 4.
    let m = f.report::<MappSummary>().unwrap();
    assert_eq!((m.final_scale, m.scale_decreases, m.scale_increases), (4, 0, 4));
    // Frames of 1000 bytes (§6's 1 KB): every datagram is one.
    assert_eq!(f.sent_bytes, 1000 * f.sent_pkts);
    // Most of the run at 1100 kb/s: 3 s at the top scale would be 412.5 frames; the climb of 4
    // RTTs (about 20 ms each, at rates from 300 kb/s) sends fewer, not more.
    assert!(f.sent_pkts <= 413 && f.sent_pkts >= 400, "{}", f.sent_pkts);
}

#[test]
fn the_media_apps_keys_are_checked_where_they_are_written() {
    let err = |flow: &str| parse_scenario("mm.toml", &scenario(flow), "mm").unwrap_err().to_string();
    let e = err("app = \"mm_app\"\ngop = \"IBB\"");
    assert!(e.contains("`gop` is not a key of app `mm_app`"), "{e}");
    let e = err("app = \"mpeg_app\"\ngop = \"PBB\"");
    assert!(e.contains("gop") && e.contains("must begin with an I frame"), "{e}");
    let e = err("app = \"mpeg_app\"\nfps = 0");
    assert!(e.contains("fps"), "{e}");
    let e = err("app = \"mpeg_app\"\njitter = true");
    assert!(e.contains("`jitter` is not a key of app `mpeg_app`"), "{e}");
    let e = err("app = \"mm_app\"\ntransport = \"tfrc\"");
    assert!(e.contains("cannot carry app `mm_app`"), "{e}");
}
