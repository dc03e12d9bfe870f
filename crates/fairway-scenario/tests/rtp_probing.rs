//! GCC's bandwidth probing as a run reports it: the probe clusters sent and the padding-only
//! packets they needed, in the flow's `rtp` summary; a controller that does not probe sends none.

use fairway_engine::{run, RunOptions};
use fairway_scenario::parse_scenario;

/// The `rtp` summary of a lone video flow with `cc` on a 4 Mb/s path, 10 s.
fn rtp(cc: &str) -> serde_json::Value {
    let text = format!(
        r#"
duration = "10s"
[[link]]
between = ["a", "r"]
rate = "4Mb"
delay = "20ms"
[[link]]
between = ["r", "b"]
rate = "100Mb"
delay = "1ms"
[[flow]]
name = "video"
app = "video"
transport = "rtp"
cc = "{cc}"
from = "a"
to = "b"
"#
    );
    let sc = parse_scenario("t.toml", &text, "t").unwrap_or_else(|e| panic!("{e}"));
    let r = run(&sc, &RunOptions::default(), &mut |_| {}).unwrap_or_else(|e| panic!("{e}"));
    r.summary.flows[0].protocol.as_ref().expect("an rtp report").report.json()
}

#[test]
fn gcc_reports_its_probe_clusters_and_padding_and_the_others_none() {
    let g = rtp("gcc");
    // At least WebRTC's two initial clusters (3 and 6 x the start rate) went out whole.
    assert!(g["probe_clusters"].as_u64().unwrap() >= 2, "{g}");
    // Padding packets are 244 bytes on the wire each (20 of header, 224 of padding).
    let (n, bytes) = (g["padding_packets_sent"].as_u64().unwrap(), g["padding_bytes_sent"].as_u64().unwrap());
    assert_eq!(bytes, 244 * n, "{g}");
    for cc in ["nada", "scream"] {
        let s = rtp(cc);
        for k in ["probe_clusters", "padding_packets_sent", "padding_bytes_sent"] {
            assert_eq!(s[k], 0, "{cc}: {k}");
        }
    }
}
