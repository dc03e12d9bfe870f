//! A link whose rate and delay change on a schedule (`rate = [{ at, rate }, ...]`, the same for
//! `delay`), RFC 8867 §5.1's variable capacity: what a CBR flow above or below the capacity
//! sees follows from the schedule alone.

use fairway_engine::{run, RunOptions};
use fairway_model::results::RunResult;
use fairway_scenario::parse_scenario;

fn sim(text: &str) -> RunResult {
    let sc = parse_scenario("test.toml", text, "test").unwrap_or_else(|e| panic!("{e}"));
    run(&sc, &RunOptions::default(), &mut |_| {}).unwrap_or_else(|e| panic!("{e}"))
}

/// a --10Mb 1ms-- r1 --{rate} {delay} droptail 50-- r2 --10Mb 1ms-- b, one CBR flow of
/// 1000-byte packets at `cbr` from a to b, 20 s, 1 s bins.
fn path(rate: &str, delay: &str, cbr: &str) -> String {
    format!(
        r#"
duration = "20s"
[monitor]
bin = "1s"
[[link]]
between = ["a", "r1"]
rate = "10Mb"
delay = "1ms"
[[link]]
from = "r1"
to = "r2"
rate = {rate}
delay = {delay}
queue = {{ kind = "droptail", limit = 50 }}
[[link]]
between = ["r2", "b"]
rate = "10Mb"
delay = "1ms"
[[link]]
from = "r2"
to = "r1"
rate = "10Mb"
delay = "10ms"
[[flow]]
name = "cbr"
app = "cbr"
from = "a"
to = "b"
packet_size = "1000B"
rate = "{cbr}"
"#
    )
}

/// Delivered bytes per second in bins `from..to` (bins of 1 s), in bits per second.
fn delivered_bps(r: &RunResult, from: usize, to: usize) -> f64 {
    let bins = &r.flow_bins[0][from..to];
    bins.iter().map(|b| b.distinct_bytes as f64 * 8.0).sum::<f64>() / bins.len() as f64
}

#[test]
fn a_cbr_above_capacity_gets_the_scheduled_rate_in_each_phase() {
    // 3 Mb/s offered to 1 Mb/s, then 2.5 Mb/s from 10 s: the queue stays full, so the link
    // carries its rate in 1000-byte packets (its payload is what the flow counts, the whole
    // packet here: no header is added to a CBR's `packet_size`).
    let r = sim(&path(r#"[{ at = "0s", rate = "1Mb" }, { at = "10s", rate = "2.5Mb" }]"#, "\"10ms\"", "3Mb"));
    let before = delivered_bps(&r, 2, 10);
    let after = delivered_bps(&r, 12, 20);
    // One packet's worth a bin (8 kb in 1 s) bounds the rounding of whole packets per bin.
    assert!((before - 1e6).abs() < 8e3, "{before}");
    assert!((after - 2.5e6).abs() < 8e3, "{after}");
}

#[test]
fn a_delay_step_moves_the_one_way_delay_and_a_fall_reorders_nothing() {
    // 0.5 Mb/s, far below 10 Mb/s: no queue. One-way delay = serialisations (0.8 + 0.8 + 0.8
    // ms at 10 Mb/s) + 1 + d + 1 ms: 54.4 ms with d = 50 ms, then 14.4 ms from 10 s.
    let r = sim(&path("\"10Mb\"", r#"[{ at = "0s", delay = "50ms" }, { at = "10s", delay = "10ms" }]"#, "0.5Mb"));
    let mean = |from: usize, to: usize| {
        let bins = &r.flow_bins[0][from..to];
        bins.iter().map(|b| b.delay_sum_s).sum::<f64>() / bins.iter().map(|b| b.delay_n).sum::<u64>() as f64
    };
    assert!((mean(1, 10) - 0.0544).abs() < 1e-9, "{}", mean(1, 10));
    assert!((mean(11, 20) - 0.0144).abs() < 1e-9, "{}", mean(11, 20));
    // The wire is a FIFO: packet k (sent at 16k ms) enters it 2.6 ms later, so 624 (9.984 s)
    // is the last at 50 ms, arriving at r2 at 10.0366 s; 625 and 626 would arrive at 10.0126 and
    // 10.0286 s and wait behind it instead, then serialise after it to b: delays 39.2 and 24.0
    // ms; from 627 on, 14.4. Bin 10 holds what arrives in [10, 11) s: 622-624 at 54.4 ms, 625,
    // 626, and 627-686 at 14.4 ms.
    let b = &r.flow_bins[0][10];
    assert_eq!(b.delay_n, 65);
    let expected = 3.0 * 0.0544 + 0.0392 + 0.0240 + 60.0 * 0.0144;
    assert!((b.delay_sum_s - expected).abs() < 1e-9, "{} against {expected}", b.delay_sum_s);
    // Every packet arrives, none is lost or counted twice.
    let f = &r.summary.flows[0];
    assert_eq!(f.dropped_pkts, 0);
    assert_eq!(f.recv_distinct_pkts, f.recv_pkts);
    assert_eq!(f.recv_pkts + f.inflight_pkts, f.sent_pkts);
}

#[test]
fn a_schedule_is_checked_where_it_is_written() {
    let bad = |rate: &str| {
        parse_scenario("test.toml", &path(rate, "\"10ms\"", "1Mb"), "test")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    };
    let e = bad(r#"[{ at = "1s", rate = "1Mb" }]"#);
    assert!(e.contains("the first rate step must be at 0s"), "{e}");
    let e = bad(r#"[{ at = "0s", rate = "1Mb" }, { at = "0s", rate = "2Mb" }]"#);
    assert!(e.contains("increasing time"), "{e}");
    let e = bad(r#"[{ at = "0s", rate = "1Mb", burst = 3 }]"#);
    assert!(e.contains("burst"), "{e}");
    let e = bad(r#"[{ at = "0s", rate = "0Mb" }]"#);
    assert!(e.contains("greater than zero"), "{e}");
    let e = bad("[]");
    assert!(e.contains("at least one step"), "{e}");
}

#[test]
fn a_jitter_draw_is_a_gaussians_magnitude_truncated_at_three_deviations() {
    use fairway_core::{Dur, Rng};
    use fairway_model::scenario::Jitter;
    // RFC 8868 §4.5.3: |N(0, 5 ms^2)| truncated at 15 ms. E[min(|Z|, 3)] = sqrt(2/pi)(1 - e^-4.5)
    // + 3 x 2 P(Z > 3) = 0.78902 + 0.00810 = 0.79712 standard deviations; its sd is under 0.61,
    // so over 10^5 draws five standard errors are 0.0096.
    let j = Jitter::RFC8868;
    let mut rng = Rng::stream(3, "jitter");
    let n = 100_000;
    let draws: Vec<f64> = (0..n).map(|_| j.sample(&mut rng).as_secs_f64() / 0.005).collect();
    assert!(draws.iter().all(|&z| (0.0..=3.0 + 1e-9).contains(&z)));
    let mean = draws.iter().sum::<f64>() / n as f64;
    assert!((mean - 0.79712).abs() < 0.0096, "{mean}");
    // The median of |Z| is 0.6745 (Phi(0.6745) = 0.75).
    let mut sorted = draws.clone();
    sorted.sort_by(f64::total_cmp);
    assert!((sorted[n / 2] - 0.6745).abs() < 0.01, "{}", sorted[n / 2]);
    assert_eq!(Jitter { std: Dur::ZERO, n_std: 3.0 }.sample(&mut rng), Dur::ZERO);
}

#[test]
fn jitter_adds_its_draws_to_a_sparse_flows_delay_and_keeps_a_dense_one_in_order() {
    // 1000-byte packets every 50 ms (160 kb/s): draws differ by at most 15 ms, so no packet waits
    // for the one ahead and each delay is the path's 14.4 ms (1 + 10 + 1 ms and three 0.8 ms
    // serialisations) plus its draw: the median 14.4 + 0.6745 x 5 = 17.77 ms, the largest at
    // most 14.4 + 15. Bands: the histogram's 0.78% and the sample median's standard error over
    // 400 packets, 1.25 x 0.6 x 5 ms / 20 = 0.19 ms, five of them.
    let text = path("\"10Mb\"", "\"10ms\"", "160kb").replace(
        "queue = { kind = \"droptail\", limit = 50 }",
        "queue = { kind = \"droptail\", limit = 50 }\njitter = \"5ms\"",
    );
    let r = sim(&text);
    let f = &r.summary.flows[0];
    let p50 = f.delay_p50_s.unwrap();
    assert!((p50 - 0.017_77).abs() < 0.017_77 * 0.0078 + 5.0 * 0.000_19, "{p50}");
    assert!(f.delay_p99_s.unwrap() <= (0.0144 + 0.015) * 1.0078, "{:?}", f.delay_p99_s);
    assert_eq!(f.dropped_pkts, 0);
    // At 9.6 Mb/s, one packet every 0.83 ms on a 10 Mb/s link: a draw smaller than the last by
    // more than the spacing would overtake it; the wire keeps each at least one serialisation
    // (0.8 ms) behind the last (fairway-engine's link.rs tests the order), so nothing is lost
    // and the flow still gets its rate.
    let dense = path("\"10Mb\"", "\"10ms\"", "9.6Mb").replace(
        "queue = { kind = \"droptail\", limit = 50 }",
        "queue = { kind = \"droptail\", limit = 50 }\njitter = \"5ms\"",
    );
    let r = sim(&dense);
    let f = &r.summary.flows[0];
    assert_eq!(f.dropped_pkts, 0);
    assert_eq!(f.recv_distinct_pkts, f.recv_pkts);
    let bps = delivered_bps(&r, 2, 19);
    assert!((bps - 9.6e6).abs() < 8e3 * 2.0, "{bps}");
}

#[test]
fn jitter_is_checked_where_it_is_written() {
    let with = |j: &str| {
        path("\"10Mb\"", "\"10ms\"", "1Mb").replace(
            "queue = { kind = \"droptail\", limit = 50 }",
            &format!("queue = {{ kind = \"droptail\", limit = 50 }}\njitter = {j}"),
        )
    };
    let err = |j: &str| parse_scenario("test.toml", &with(j), "test").err().map(|e| e.to_string()).unwrap_or_default();
    assert!(err("\"0ms\"").contains("greater than zero"));
    assert!(err("{ std = \"5ms\", n_std = 0 }").contains("positive number of standard deviations"));
    assert!(err("{ std = \"5ms\", spread = 2 }").contains("spread"));
    let sc = parse_scenario("test.toml", &with("{ std = \"2ms\", n_std = 2 }"), "test").unwrap();
    let j = sc.links.iter().find_map(|l| l.schedule.as_ref().and_then(|s| s.jitter)).unwrap();
    assert_eq!((j.std, j.n_std), (fairway_core::Dur::from_millis(2), 2.0));
}
