//! RFC 8593 §6's trace-driven encoder in a run: a NADA flow carrying the shipped x264 trace
//! (scenarios/rfc8867/traces/) over a 1 Mb/s bottleneck sends what the trace gives at its
//! target; and the trace's keys' errors are located.

use std::path::PathBuf;

use fairway_core::Dur;
use fairway_engine::{run, RunOptions};
use fairway_proto::rtp::trace::TraceCodecConfig;
use fairway_scenario::parse_scenario;
use fairway_scenario::protocols::RtpSummary;
use fairway_scenario::reader::ScenarioError;

const TRACE: &str = "traces/x264-gradients-mandelbrot.csv";

/// The folder of RFC 8867's scenarios, where the shipped trace's path is relative to.
fn rfc8867() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/rfc8867")
}

/// A 1 Mb/s bottleneck with 50 ms each way and RFC 8867 §4.2's 300 ms of queue (37 500 B), one
/// NADA video flow with `keys`.
fn scenario(keys: &str, duration: &str) -> String {
    format!(
        r#"duration = "{duration}"
[[link]]
from = "a"
to = "b"
rate = "1Mb"
delay = "50ms"
queue = {{ kind = "droptail", limit = "37500B" }}
[[link]]
from = "b"
to = "a"
rate = "1Mb"
delay = "50ms"
queue = {{ kind = "droptail", limit = "37500B" }}
[[flow]]
name = "video"
app = "video"
transport = "rtp"
cc = "nada"
from = "a"
to = "b"
{keys}
[monitor]
bin = "500ms"
"#
    )
}

/// Parses `text` as if it were the file `file`.
fn parse_at(file: &std::path::Path, text: &str) -> Result<fairway_scenario::scenario::Scenario, ScenarioError> {
    parse_scenario(&file.display().to_string(), text, "t")
}

/// The frame at rate `r` (b/s) and index `t` by RFC 8593 §6.2.1's three cases, worked here
/// from the file's rows (not with the codec) so that the test checks the codec's wiring.
fn interpolated(rates: &[u64], sizes: &[Vec<u32>], r: f64, t: usize) -> f64 {
    let (lo, hi) = (rates[0] as f64, *rates.last().unwrap() as f64);
    let s = if r < lo {
        r / lo * sizes[0][t] as f64
    } else if r >= hi {
        r / hi * sizes[rates.len() - 1][t] as f64
    } else {
        let i = rates.iter().rposition(|&x| x as f64 <= r).unwrap();
        let d = (r - rates[i] as f64) / (rates[i + 1] - rates[i]) as f64;
        sizes[i + 1][t] as f64 * d + sizes[i][t] as f64 * (1.0 - d)
    };
    s.clamp(10.0, 1e6)
}

#[test]
fn a_trace_driven_nada_flow_sends_the_traces_frames_at_its_target() {
    let text = std::fs::read_to_string(rfc8867().join(TRACE)).unwrap();
    let traces = fairway_scenario::video_trace::parse(&text).unwrap();
    let rates = traces.rates().to_vec();
    let sizes: Vec<Vec<u32>> = (0..rates.len()).map(|i| traces.sizes(i).to_vec()).collect();
    let sc = parse_at(&rfc8867().join("t.toml"), &scenario(&format!("trace = \"{TRACE}\""), "40s"))
        .unwrap_or_else(|e| panic!("{e}"));
    // The flow carries the trace-driven encoder, at §6.2.1's SkipFrames and without latency.
    let cfg = sc.flows[0].app.config::<TraceCodecConfig>().expect("a trace-driven encoder");
    assert_eq!((cfg.skip_frames, cfg.tau_v, cfg.fps), (20, Dur::ZERO, 30.0));
    let out = run(&sc, &RunOptions::default(), &mut |_| {}).unwrap();
    let f = &out.summary.flows[0];
    let rtp = f.report::<RtpSummary>().unwrap();
    // 40 s at 30 fps: frames 0 to 1199, within the trace's 5400 (no wrap).
    assert!((1199..=1201).contains(&rtp.frames), "{}", rtp.frames);

    // The steady stretch: from 20 s (NADA has ramped up from 150 kb/s by then) to 40 s, bins of
    // 500 ms.
    let (from, to) = (20.0, 40.0);
    let bins = &out.flow_bins[0];
    let bin = out.bin.as_secs_f64();
    let stretch: Vec<_> =
        bins.iter().enumerate().filter(|(i, _)| *i as f64 * bin >= from && (*i + 1) as f64 * bin <= to).collect();
    let media: u64 = stretch.iter().map(|(_, b)| b.goodput_bytes).sum();
    let dropped: u64 = stretch.iter().map(|(_, b)| b.dropped_pkts).sum();
    let received = media as f64 * 8.0 / (to - from);

    // What the trace gives there: each frame k (due at k/30 s, t_current = k) at the encoder's
    // rate, the controller's target (its change log, wire b/s) less the RTP header's share of a
    // full packet (1200 of 1220 bytes), clipped to [150 kb/s, 1.5 Mb/s].
    let log = &out.series_logs.iter().find(|s| s.flow == 0 && s.series.name == "target_bps").unwrap().points;
    let target_at = |t: f64| log.iter().take_while(|p| p.0 <= t).last().map_or(log[0].1, |p| p.1);
    let share = 1200.0 / 1220.0;
    let frames: Vec<usize> = ((from * 30.0) as usize..(to * 30.0) as usize).collect();
    let expected: f64 = frames
        .iter()
        .map(|&k| interpolated(&rates, &sizes, (target_at(k as f64 / 30.0) * share).clamp(150e3, 1.5e6), k))
        .sum::<f64>()
        * 8.0
        / (to - from);
    let mean_target = frames.iter().map(|&k| target_at(k as f64 / 30.0)).sum::<f64>() / frames.len() as f64;
    // And at the rate the encoder last took (the run's end).
    let at_end: f64 =
        frames.iter().map(|&k| interpolated(&rates, &sizes, rtp.encoder_bps, k)).sum::<f64>() * 8.0 / (to - from);
    eprintln!(
        "received {received:.0} b/s; the trace's frames at the logged target {expected:.0} b/s, at the encoder's \
         final rate ({:.0} b/s) {at_end:.0} b/s; mean target {mean_target:.0} b/s; {dropped} dropped",
        rtp.encoder_bps
    );
    // NADA fills the link and keeps within it: its target between 80% and 100% of the 1 Mb/s
    // bottleneck over the stretch (here 94%), nothing dropped (37.5 kB of queue).
    assert!((800e3..=1e6).contains(&mean_target), "mean target {mean_target}");
    assert_eq!(dropped, 0);
    // The media received is the trace's frames at the encoder's rate. At the rate it last took:
    // within 4%. NADA's target at the frames' times moves little once settled (the received
    // rate of each second of the stretch is within 1.5% of the stretch's mean here), and the
    // bytes queued or in flight at the stretch's two ends (a 100 ms path at 1 Mb/s: 12.5 kB
    // each) are 0.5% of the 2.4 MB.
    let ratio = received / at_end;
    assert!((0.96..=1.04).contains(&ratio), "received {received:.0} b/s against the trace's {at_end:.0} b/s");
    // At the logged target, frame by frame: the received rate is above it, by at most 8%. The
    // log reads NADA's target (r_vin, RFC 8698 §5.2.2) when a report or a timer changes it, and
    // r_vin falls with the sender's queue (BETA_V x 8 x its bytes x FPS); a report finds part of
    // the last frame still queued (at a link's rate a frame takes most of a frame interval to
    // leave), the encoder reads it before each frame, the queue empty: the log reads low (here
    // by 5%).
    let ratio = received / expected;
    assert!((0.99..=1.08).contains(&ratio), "received {received:.0} b/s against the trace's {expected:.0} b/s");
}

/// The error parsing `keys` as a flow of a scenario at `file`.
fn error_at(file: &std::path::Path, keys: &str) -> ScenarioError {
    match parse_at(file, &scenario(keys, "1s")) {
        Ok(_) => panic!("{keys}: accepted"),
        Err(e) => e,
    }
}

/// The line of `key` in the scenario built from `keys`.
fn line_of(keys: &str, key: &str) -> usize {
    scenario(keys, "1s").lines().position(|l| l.starts_with(key)).unwrap() + 1
}

#[test]
fn a_trace_key_that_cannot_be_met_is_a_located_error() {
    let file = rfc8867().join("t.toml");
    // A missing file: where it was looked for.
    let keys = "trace = \"traces/none.csv\"";
    let e = error_at(&file, keys);
    assert_eq!((e.line, e.field.as_str()), (line_of(keys, "trace"), "flow[0].trace"));
    assert!(e.message.starts_with("cannot read trace ") && e.message.contains("traces/none.csv"), "{e}");

    // A malformed row: the file's line.
    let dir = std::env::temp_dir().join(format!("fw-rtp-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("bad.csv"), "rate_bps,frame,size_bytes\n150000,0,900\n150000,1,lots\n").unwrap();
    let e = error_at(&dir.join("t.toml"), "trace = \"bad.csv\"");
    assert_eq!(e.field, "flow[0].trace");
    assert!(e.message.ends_with("bad.csv:3: size_bytes `lots` is not a non-negative integer"), "{e}");
    // A short trace: SkipFrames would leave nothing to loop over.
    let rows: String = (0..20).map(|k| format!("150000,{k},900\n")).collect();
    std::fs::write(dir.join("short.csv"), format!("rate_bps,frame,size_bytes\n{rows}")).unwrap();
    let e = error_at(&dir.join("t.toml"), "trace = \"short.csv\"");
    assert!(e.message.contains("skip_frames 20 leaves nothing to loop over in a trace of 20 frames"), "{e}");
    assert!(parse_at(&dir.join("t.toml"), &scenario("trace = \"short.csv\"\nskip_frames = 10", "1s")).is_ok());
    let _ = std::fs::remove_dir_all(&dir);

    // A built-in scenario has no folder to look in.
    let keys = format!("trace = \"{TRACE}\"");
    let e = error_at(std::path::Path::new("scenarios/rfc8867/t.toml (built in)"), &keys);
    assert_eq!(e.line, line_of(&keys, "trace"));
    assert!(e.message.starts_with("a built-in scenario has no folder"), "{e}");

    // The synthetic encoder's keys do not apply to a trace; skip_frames needs one.
    for k in ["burst_frames = 4", "burst_size = \"10kB\"", "scale_t = 0.1", "scale_b = 0.1"] {
        let keys = format!("trace = \"{TRACE}\"\n{k}");
        let e = error_at(&file, &keys);
        let key = k.split(' ').next().unwrap();
        assert_eq!((e.line, e.field.clone()), (line_of(&keys, key), format!("flow[0].{key}")));
        assert!(e.message.contains("with `trace` (§6) the frame sizes come from the trace"), "{e}");
    }
    let e = error_at(&file, "skip_frames = 20");
    assert_eq!(e.message, "`skip_frames` is the trace's (RFC 8593 §6.2.1): give `trace`");
}
