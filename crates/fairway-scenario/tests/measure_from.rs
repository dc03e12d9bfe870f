//! `measure_from`: the summary's figures leave the warm-up out, and nothing else changes.
//!
//! Three runs of the tutorial's RED dumbbell make the check exact rather than approximate: the
//! whole run (30 s), the warm-up alone (a run that ends at 10 s, which is the same run up to
//! there), and the whole run measured from 10 s. Every count of the measured run is then the
//! whole run's less the warm-up's, and every time average is the whole run's with the warm-up's
//! share taken out.

use fairway_engine::{run, RunOptions, RunResult};
use fairway_model::results::{FlowSummary, LinkSummary};
use fairway_scenario::parse_scenario;

const TUTORIAL: &str = include_str!("../../../scenarios/tutorial/red-dumbbell.toml");
const WARM: f64 = 10.0;
const END: f64 = 30.0;

fn scenario(duration: &str, measure_from: Option<&str>) -> fairway_engine::Scenario {
    assert!(TUTORIAL.contains("duration = \"30s\"\nseed = 1\n"), "the tutorial's first lines changed");
    let mut text = TUTORIAL.replace("duration = \"30s\"", &format!("duration = \"{duration}\""));
    if let Some(m) = measure_from {
        text = text.replace("seed = 1\n", &format!("seed = 1\nmeasure_from = \"{m}\"\n"));
    }
    parse_scenario("red-dumbbell.toml", &text, "red-dumbbell").unwrap_or_else(|e| panic!("{e}"))
}

fn sim(duration: &str, measure_from: Option<&str>, general: bool) -> RunResult {
    let sc = scenario(duration, measure_from);
    let opts = RunOptions { general_path: general, ..Default::default() };
    run(&sc, &opts, &mut |_| {}).unwrap_or_else(|e| panic!("{e}"))
}

fn flow<'a>(r: &'a RunResult, name: &str) -> &'a FlowSummary {
    r.summary.flows.iter().find(|f| f.name == name).unwrap()
}

fn link<'a>(r: &'a RunResult, name: &str) -> &'a LinkSummary {
    r.all_links.iter().find(|l| l.name == name).unwrap()
}

fn close(a: f64, b: f64, what: &str) {
    assert!((a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0), "{what}: {a} vs {b}");
}

#[test]
fn the_measured_part_is_the_whole_run_less_the_warm_up() {
    for general in [false, true] {
        let whole = sim("30s", None, general);
        let warm = sim("10s", None, general);
        let measured = sim("30s", Some("10s"), general);
        let s = &measured.summary;
        assert_eq!(s.measure_from_s, WARM);
        assert_eq!(s.duration_s, END);

        // The warm-up changes no dynamics: the same series, the same number of events.
        assert_eq!(format!("{:?}", measured.flow_bins), format!("{:?}", whole.flow_bins));
        assert_eq!(format!("{:?}", measured.queue_samples), format!("{:?}", whole.queue_samples));
        assert_eq!(s.events, whole.summary.events);

        for name in ["tcp0", "tcp1", "cbr"] {
            let (m, a, w) = (flow(&measured, name), flow(&whole, name), flow(&warm, name));
            let ctx = format!("{name} (general path: {general})");
            assert_eq!(m.sent_pkts + w.sent_pkts, a.sent_pkts, "{ctx} sent");
            assert_eq!(m.recv_pkts + w.recv_pkts, a.recv_pkts, "{ctx} received");
            assert_eq!(m.recv_distinct_bytes + w.recv_distinct_bytes, a.recv_distinct_bytes, "{ctx} bytes");
            assert_eq!(m.dropped_pkts + w.dropped_pkts, a.dropped_pkts, "{ctx} dropped");
            assert_eq!(m.acks_sent_pkts + w.acks_sent_pkts, a.acks_sent_pkts, "{ctx} acks");
            assert_eq!(m.retransmits_pkts + w.retransmits_pkts, a.retransmits_pkts, "{ctx} retransmits");
            assert_eq!(m.timeouts + w.timeouts, a.timeouts, "{ctx} timeouts");
            // Start and stop stay what they were; the rate is over the measured 20 s (every
            // flow has started by 2 s).
            assert_eq!((m.start_s, m.stop_s), (a.start_s, a.stop_s), "{ctx}");
            close(m.throughput_bps, m.recv_distinct_bytes as f64 * 8.0 / (END - WARM), &ctx);
            // The flow's bins after the warm-up hold exactly the measured bytes (bins are
            // [k bin, (k + 1) bin), and 10 s is a boundary of the 100 ms bins).
            let fi = s.flows.iter().position(|f| f.name == name).unwrap();
            let after: u64 = measured.flow_bins[fi][100..].iter().map(|b| b.distinct_bytes).sum();
            assert_eq!(after, m.recv_distinct_bytes, "{ctx} bins");
            // Delays: the measured packets' sum is the whole run's less the warm-up's.
            let sum = |f: &FlowSummary| f.mean_delay_s.unwrap() * f.recv_pkts as f64;
            close(sum(m) + sum(w), sum(a), &format!("{ctx} delay sum"));
            // Of what the measured part had to deliver (what it sent, and what was in flight at
            // 10 s), it delivered at most all.
            assert!(m.pdr.unwrap() <= 1.0, "{ctx} pdr {:?}", m.pdr);
        }
        for c in &s.classes {
            if c.flows > 0 {
                assert_eq!(c.active_s, END - WARM, "class {}", c.class);
            }
        }

        for name in ["r1->r2", "s1->r1", "r2->d1", "d1->r2"] {
            let (m, a, w) = (link(&measured, name), link(&whole, name), link(&warm, name));
            let ctx = format!("{name} (general path: {general})");
            assert_eq!(m.arrivals_pkts + w.arrivals_pkts, a.arrivals_pkts, "{ctx} arrivals");
            assert_eq!(m.departures_pkts + w.departures_pkts, a.departures_pkts, "{ctx} departures");
            assert_eq!(m.drops_pkts + w.drops_pkts, a.drops_pkts, "{ctx} drops");
            assert_eq!(m.early_drops_pkts + w.early_drops_pkts, a.early_drops_pkts, "{ctx} early drops");
            // Time averages: over 20 s and 10 s they make up the 30 s one.
            let weigh = |x: f64, y: f64| x * (END - WARM) + y * WARM;
            close(weigh(m.mean_queue_pkts, w.mean_queue_pkts), a.mean_queue_pkts * END, &format!("{ctx} queue"));
            if let (Some(x), Some(y), Some(z)) = (m.mean_avg_queue_pkts, w.mean_avg_queue_pkts, a.mean_avg_queue_pkts) {
                close(weigh(x, y), z * END, &format!("{ctx} RED average"));
            }
            close(weigh(m.utilization, w.utilization), a.utilization * END, &format!("{ctx} utilisation"));
            assert_eq!(m.max_sojourn_s.max(w.max_sojourn_s), a.max_sojourn_s, "{ctx} longest wait");
            // Mean waits are whole nanoseconds, truncated: the weighted sums agree to 1 ns a packet.
            let waits = |l: &LinkSummary| {
                let n = if general { l.departures_pkts } else { l.arrivals_pkts - l.drops_pkts };
                (l.mean_sojourn_s.unwrap_or(0.0) * n as f64, n as f64)
            };
            let ((ms, mn), (ws, wn), (as_, an)) = (waits(m), waits(w), waits(a));
            assert!((ms + ws - as_).abs() <= 1e-9 * (mn + wn + an), "{ctx} waits {ms} + {ws} vs {as_}");
        }
        // The bottleneck is busy: the measured part sees drops of its own.
        assert!(link(&measured, "r1->r2").drops_pkts > 0);
    }
}

#[test]
fn without_measure_from_the_summary_says_nothing_of_it() {
    let r = sim("5s", None, false);
    let json = serde_json::to_string(&r.summary).unwrap();
    assert!(!json.contains("measure_from_s"), "{json}");
    let r = sim("5s", Some("1s"), false);
    let json = serde_json::to_string(&r.summary).unwrap();
    assert!(json.contains("\"measure_from_s\":1.0"), "{json}");
}

#[test]
fn a_warm_up_that_takes_the_whole_run_is_refused_where_it_is_written() {
    for bad in ["30s", "45s"] {
        let text = TUTORIAL.replace("seed = 1\n", &format!("seed = 1\nmeasure_from = \"{bad}\"\n"));
        let e = parse_scenario("red-dumbbell.toml", &text, "red-dumbbell").unwrap_err();
        assert_eq!(e.field, "measure_from", "{e}");
        assert!(e.to_string().contains("nothing would be measured"), "{e}");
        assert_eq!(e.line, 7, "{e}");
    }
}

#[test]
fn a_run_interrupted_in_its_warm_up_measured_nothing() {
    use std::sync::atomic::AtomicBool;
    static STOP: AtomicBool = AtomicBool::new(true);
    // The flag is looked at every 65 536 events: long enough a warm-up to reach that.
    let sc = scenario("600s", Some("500s"));
    let r = run(&sc, &RunOptions { interrupt: Some(&STOP), ..Default::default() }, &mut |_| {}).unwrap();
    assert!(!r.summary.complete);
    assert!(r.summary.duration_s < 500.0, "stopped at {}", r.summary.duration_s);
    for f in &r.summary.flows {
        assert_eq!((f.sent_pkts, f.recv_pkts, f.throughput_bps), (0, 0, 0.0), "{}", f.name);
    }
}
