//! `pause = [{ at, until }, ...]` on an RTP flow (RFC 8867 §5.8): nothing is sent in the pause,
//! and the flow resumes with its session: its controller's rate, its sequence numbers.

use fairway_engine::{run, RunOptions};
use fairway_model::results::RunResult;
use fairway_scenario::parse_scenario;

fn text(pause: &str, extra_flow: &str) -> String {
    format!(
        r#"
duration = "40s"
[monitor]
bin = "1s"
[[link]]
between = ["a", "r1"]
rate = "100Mb"
delay = "1ms"
[[link]]
between = ["r1", "r2"]
rate = "1Mb"
delay = "48ms"
queue = {{ kind = "droptail", limit = "37500B" }}
[[link]]
between = ["r2", "b"]
rate = "100Mb"
delay = "1ms"
[[flow]]
name = "video"
app = "video"
transport = "rtp"
cc = "nada"
from = "a"
to = "b"
{pause}
{extra_flow}
"#
    )
}

fn sim(t: &str) -> RunResult {
    let sc = parse_scenario("t.toml", t, "t").unwrap_or_else(|e| panic!("{e}"));
    run(&sc, &RunOptions::default(), &mut |_| {}).unwrap_or_else(|e| panic!("{e}"))
}

fn err(t: &str) -> String {
    parse_scenario("t.toml", t, "t").unwrap_err().to_string()
}

#[test]
fn a_paused_rtp_flow_sends_nothing_and_resumes_with_its_session() {
    let r = sim(&text("pause = [{ at = \"20s\", until = \"30s\" }]", ""));
    let bins = &r.flow_bins[0];
    // Nothing sent from 20 s to 30 s (1 s bins; the bin from 20 s may hold what was in flight
    // and the sender's queue is dropped at the pause).
    for b in &bins[20..30] {
        assert_eq!(b.sent_pkts, 0);
    }
    for b in &bins[21..30] {
        assert_eq!(b.distinct_bytes, 0);
    }
    // Before the pause NADA had ramped well above its 150 kb/s start (the link is 1 Mb/s); the
    // first second after it sends at the rate it had, not from its start again: over 30-31 s
    // at least 80% of 15-20 s's mean (the encoder starts at the controller's target at once).
    let rate = |from: usize, to: usize| {
        bins[from..to].iter().map(|b| b.distinct_bytes as f64 * 8.0).sum::<f64>() / (to - from) as f64
    };
    let (before, after) = (rate(15, 20), rate(31, 32));
    assert!(before > 500e3, "before {before}");
    assert!(after > 0.8 * before, "after {after} against {before}");
    // One session: every packet a report covers is counted once, none is lost to a restart.
    let rtp = r.summary.flows[0].protocol.as_ref().unwrap().report.json();
    assert_eq!(rtp["unreported"], 0, "{rtp}");
}

#[test]
fn a_pause_is_refused_where_it_cannot_be_kept() {
    let e = err(&text("pause = [{ at = \"0s\", until = \"10s\" }]", ""));
    assert!(e.contains("not after the flow starts"), "{e}");
    let e = err(&text("pause = [{ at = \"10s\", until = \"5s\" }]", ""));
    assert!(e.contains("not after the pause"), "{e}");
    let e = err(&text("pause = [{ at = \"10s\", until = \"40s\" }]", ""));
    assert!(e.contains("not before the flow stops"), "{e}");
    let e = err(&text("pause = [{ at = \"10s\", until = \"20s\" }, { at = \"15s\", until = \"25s\" }]", ""));
    assert!(e.contains("before the previous pause ends"), "{e}");
    let e = err(&text("pause = [{ at = \"10s\", till = \"20s\" }]", ""));
    assert!(e.contains("until"), "{e}");
    let cbr =
        "[[flow]]\nname = \"c\"\napp = \"cbr\"\nfrom = \"a\"\nto = \"b\"\npause = [{ at = \"10s\", until = \"20s\" }]";
    let e = err(&text("", cbr));
    assert!(e.contains("RTP flows have it"), "{e}");
    assert!(e.contains(":"), "located: {e}");
}
