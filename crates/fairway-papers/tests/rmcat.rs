//! `fairway suite rmcat`: every case runs with every controller and writes its reports; and the
//! physics of the cases each band below states, per controller.

use std::path::PathBuf;

use fairway_papers::rmcat::{
    cases, media_flows, run_case, run_suite, window_rates, with_controller, CaseRun, SuiteOptions, CONTROLLERS,
};
use fairway_papers::ReproduceOptions;

fn opts(out: PathBuf, reps: usize) -> ReproduceOptions {
    ReproduceOptions { scenarios: None, out, first_seed: 1, reps, interrupt: None }
}

/// A fresh folder of its own: tests run in parallel, and two may run the same case.
fn scratch(name: &str) -> PathBuf {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let d = std::env::temp_dir().join(format!("fairway-rmcat-{name}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// The first variant of `case` (its first sweep values) with `cc`, one seed.
fn run(case: &str, cc: &str) -> CaseRun {
    let dir = scratch(&format!("{case}-{cc}"));
    let mut runs =
        run_case(&opts(dir.clone(), 1), case, cc, &mut |_| {}).unwrap_or_else(|e| panic!("{case}/{cc}: {e}"));
    let _ = std::fs::remove_dir_all(&dir);
    runs.remove(0)
}

/// The mean rate (b/s) of flow `name` over the 1 s windows starting in [from, to).
fn mean_rate(r: &CaseRun, name: &str, from: f64, to: f64) -> f64 {
    let i = r.first.summary.flows.iter().position(|f| f.name == name).unwrap_or_else(|| panic!("no flow {name}"));
    let w: Vec<f64> =
        window_rates(&r.first, i).into_iter().filter(|&(s, _)| s >= from && s < to).map(|x| x.1).collect();
    w.iter().sum::<f64>() / w.len() as f64
}

#[test]
fn the_suite_runs_every_case_with_every_controller_and_writes_its_reports() {
    let dir = scratch("all");
    let o = SuiteOptions {
        base: opts(dir.clone(), 1),
        controllers: CONTROLLERS.iter().map(|s| s.to_string()).collect(),
        cases: vec![],
        ecn: true,
    };
    let report = run_suite(&o, &mut |_| {}).unwrap();
    assert_eq!(report, dir.join("report.md"));
    assert!(dir.join("report.html").is_file());
    let csv = std::fs::read_to_string(dir.join("summary.csv")).unwrap();
    let rows: Vec<Vec<String>> = csv.lines().skip(1).map(split_csv).collect();
    assert_eq!(cases().len(), 12, "RFC 8867's eleven cases and §5.6 with CUBIC");
    for case in cases() {
        for cc in CONTROLLERS {
            let mine: Vec<&Vec<String>> = rows.iter().filter(|r| r[0] == case && r[2] == *cc).collect();
            assert!(!mine.is_empty(), "{case} with {cc}: no row");
            for r in &mine {
                let rate: f64 = r[4].parse().unwrap();
                assert!(rate > 0.0, "{case} with {cc}: no media got through");
            }
            // With --ecn every case but §6.2's own has an ECN variant and its CoDel twin, as many
            // as the case's own, their runs apart.
            let ecn = mine.iter().filter(|r| r[1].starts_with("ECN")).count();
            let codel = mine.iter().filter(|r| r[1].starts_with("CoDel")).count();
            if case == "6.2-ecn" {
                assert_eq!((ecn, codel), (0, 0));
            } else {
                assert!(
                    ecn > 0 && ecn == codel && 3 * ecn == mine.len(),
                    "{case} with {cc}: {ecn}, {codel} of {}",
                    mine.len()
                );
                for v in ["ecn", "codel"] {
                    assert!(dir.join(case).join(format!("{cc}-{v}")).is_dir(), "{case}/{cc}-{v}");
                }
            }
            for f in [format!("{cc}.svg"), format!("{cc}-delay-cdf.svg")] {
                assert!(dir.join(case).join(&f).is_file(), "{case}/{f}");
            }
        }
        assert!(dir.join(case).join("report.md").is_file() && dir.join(case).join("report.html").is_file());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A CSV line's fields (quoted fields may hold commas).
fn split_csv(l: &str) -> Vec<String> {
    let (mut out, mut cur, mut quoted) = (vec![], String::new(), false);
    for c in l.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// RFC 8867 §5.1: the capacity is 1, 2.5, 0.6 and 1 Mb/s from 0, 40, 60 and 80 s; the video
/// flow may use it less the 20 kb/s audio, up to its 1.5 Mb/s (1.525 on the wire). Each
/// controller's rate over the second half of each phase (when the RFC expects it to have
/// converged) moves with the capacity: up at 40 s, down at 60 s, up at 80 s; and is at least
/// half of what the flow may use: a controller stuck at its minimum would hold 150 kb/s, 15% of
/// the 1 Mb/s phases. (How close each comes, against RFC 8867's "converge to the bottleneck
/// link's capacity", is the suite report's utilisation and convergence, not a band here.) Its
/// median one-way delay stays under the 50 ms of propagation plus 100 ms, a third of the 300 ms
/// buffer: a delay-based controller holds the queue low where a loss-based one fills it.
#[test]
fn on_5_1_each_controller_follows_the_capacity_schedule_and_keeps_the_queue_low() {
    for cc in CONTROLLERS {
        follows_5_1(cc);
    }
}

fn follows_5_1(cc: &str) {
    follows_5_1_in(&run("5.1-variable-capacity", cc), cc);
}

/// [`follows_5_1`]'s bands on a run of §5.1's schedule (§5.1's case, or §6.2's, which is §5.1's
/// with a marking CoDel).
fn follows_5_1_in(r: &CaseRun, cc: &str) {
    let may = [0.98e6, 1.525e6, 0.58e6, 0.98e6];
    {
        let phases = [(20.0, 40.0), (50.0, 60.0), (70.0, 80.0), (90.0, 99.0)];
        let rate: Vec<f64> = phases.iter().map(|&(a, b)| mean_rate(r, "video", a, b)).collect();
        assert!(rate[1] > rate[0] && rate[2] < rate[1] && rate[3] > rate[2], "{cc}: {rate:?}");
        for (k, (&x, &m)) in rate.iter().zip(&may).enumerate() {
            assert!(x >= 0.5 * m, "{cc}: phase {k} at {x:.0} b/s of {m:.0}");
        }
        let p50 = r.measures[0].delay_p50_s.unwrap();
        assert!(p50 < 0.150, "{cc}: median delay {p50}");
    }
}

/// RFC 8867 §5.4: three flows of one controller from 0, 20 and 40 s. RFC 8868 §3 item 7 bounds
/// the ratio of the throughputs of flows of the same priority and similar RTT to 1/3 .. 3: over
/// the last 40 s, when all three have run at least 40 s.
#[test]
fn on_5_4_flows_of_one_controller_share_within_rfc_8868s_ratio_of_three() {
    for cc in CONTROLLERS {
        let r = run("5.4-competing-same-cc", cc);
        let x: Vec<f64> = ["video1", "video2", "video3"].iter().map(|f| mean_rate(&r, f, 79.0, 119.0)).collect();
        let (lo, hi) = (x.iter().copied().fold(f64::INFINITY, f64::min), x.iter().copied().fold(0.0, f64::max));
        assert!(hi / lo <= 3.0, "{cc}: {x:?}");
        assert_eq!(media_flows(&r.first).len(), 3);
    }
}

/// RFC 8867 §5.6: one video flow against one long NewReno flow on 2 Mb/s with a 300 ms buffer.
/// Neither starves: the video keeps at least its minimum rate, 150 kb/s (below it the encoder
/// cannot follow: that is starving), and TCP at least what the video leaves when it is at its
/// maximum, 2 - 1.525 Mb/s less the 20 kb/s audio. NADA and GCC; SCReAM below.
#[test]
fn on_5_6_nada_and_gcc_neither_starve_nor_are_starved_by_a_long_tcp_flow() {
    for cc in ["nada", "gcc"] {
        let r = run("5.6-long-tcp-flow", cc);
        let video = mean_rate(&r, "video", 5.0, 119.0);
        let tcp = mean_rate(&r, "tcp", 5.0, 119.0);
        assert!(video >= 150e3, "{cc}: video {video:.0}");
        assert!(tcp >= 2e6 - 1.525e6 - 20e3, "{cc}: tcp {tcp:.0}");
    }
}

/// SCReAM on §5.6 falls to 58 kb/s against NewReno (and about 20 kb/s with the 1000 ms buffer),
/// below its own 150 kb/s minimum (seeds 1 to 6: 58 to 137 kb/s, 20 to 22 with the 1000 ms
/// buffer), and it is RFC 8298's algorithm that does it, as its authors' implementation does too.
/// TCP's sawtooth keeps the queue between 0.1 and 0.3 s (seed 1: qdelay's median 0.21 s, above the
/// 0.1 s target 94% of 20-119 s), so the window sits at MIN_CWND (3000 B: under 70 kb/s at the
/// ~350 ms round trip) and the RTP queue's discards (over 2000 packets) bring the rest. The
/// competing-flows compensation (§4.1.2.3) raises the target only when SCReAM loses packets
/// (loss_event_rate > 0.002) or the normalised qdelay's variance over its last 200 samples is under
/// 0.2: no packet of SCReAM's is dropped, and the sawtooth's variance is 0.27, 0.40 and 0.55 at its
/// 10th, 50th and 90th percentiles (traced), so the target is above 0.1 s for 7% of the run, at
/// most 0.21 s (the false negative §4.1.2.3 warns of). The RFC's reference implementation
/// (Ericsson's ScreamTx at 972a83f, RFC 8298's [SCReAM-CPP-implementation]) ships the compensation
/// off (`kEnableSbd = false`), and with it on gates it alike (variance < 0.2, its loss branch
/// too); driven against a Reno flow on this bottleneck (bench/referees/scream/tcp-competition) it
/// starves as well: 73 to 100 kb/s with the compensation off, 83 to 127 kb/s with it on, 47 to 57
/// kb/s with the 1000 ms buffer (where its base-delay reset, which RFC 8298 does not have, counts
/// part of TCP's standing queue as base delay).
#[test]
#[ignore = "SCReAM starves against NewReno on §5.6 (58 kb/s, under its 150 kb/s minimum): RFC 8298's algorithm itself; Ericsson's v1 implementation starves too (47-127 kb/s, bench/referees/scream/tcp-competition)"]
fn on_5_6_scream_neither_starves_nor_is_starved_by_a_long_tcp_flow() {
    let r = run("5.6-long-tcp-flow", "scream");
    let video = mean_rate(&r, "video", 5.0, 119.0);
    assert!(video >= 150e3, "scream: video {video:.0}");
}

/// RFC 8867 §5.2: two flows on a bottleneck of 4, 2, 3.5, 1 and 2 Mb/s from 0, 25, 50, 75 and
/// 100 s. "When the available capacity drops, the flows adapt by decreasing their sending bit
/// rate, and when congestion disappears, the flows are again expected to ramp up": over the
/// second half of each phase from 25 s on, the two flows' summed rate moves with the capacity
/// (up at 50 and 100 s, down at 75 s). The first change is below: the flows must first have
/// found the 4 Mb/s.
#[test]
fn on_5_2_the_flows_follow_the_capacity_down_and_up() {
    for cc in CONTROLLERS {
        let sum = sums_5_2(cc);
        assert!(sum[2] > sum[1] && sum[3] < sum[2] && sum[4] > sum[3], "{cc}: {sum:?}");
    }
}

/// §5.2's first phase: "the flows stabilize around their maximum bit rate as the maximum link
/// capacity is large enough" (two flows of at most 1.5 Mb/s on 4 Mb/s), so the drop to 2 Mb/s
/// at 25 s lowers their sum. SCReAM reaches its maximum (3.0 Mb/s together over 12.5-25 s), and
/// so does GCC, which probes from its start as WebRTC's does (clusters at 3 and 6 x its 150 kb/s
/// start rate, then at twice each result up to its 1.5 Mb/s maximum): 3.02 Mb/s together, where
/// without probing, ramping at 8% a second, it had 1.31 and went on rising into the 2 Mb/s phase.
#[test]
fn on_5_2_scream_and_gcc_reach_their_maximum_in_the_first_phase() {
    for cc in ["scream", "gcc"] {
        let sum = sums_5_2(cc);
        assert!(sum[1] < sum[0], "{cc}: {sum:?}");
    }
}

/// NADA does not: 1.30 Mb/s together over 12.5-25 s, still ramping from 150 kb/s, and it goes
/// on rising into the 2 Mb/s phase (1.68): its accelerated ramp-up needs every raw queueing
/// delay sample of the last 500 ms under QEPS (10 ms, RFC 8698 §4.2), which §4.2's jitter of up
/// to 30 ms rarely allows (and RFC 8698 has no probing).
#[test]
#[ignore = "NADA has not reached §5.2's 4 Mb/s in 25 s (1.30 Mb/s together)"]
fn on_5_2_nada_reaches_its_maximum_in_the_first_phase() {
    let sum = sums_5_2("nada");
    assert!(sum[1] < sum[0], "nada: {sum:?}");
}

/// The two flows' summed rate over the second half of each §5.2 phase.
fn sums_5_2(cc: &str) -> Vec<f64> {
    let r = run("5.2-variable-capacity-multiple-flows", cc);
    let phases = [(12.5, 25.0), (37.5, 50.0), (62.5, 75.0), (87.5, 100.0), (112.5, 124.0)];
    phases.iter().map(|&(a, b)| mean_rate(&r, "video1", a, b) + mean_rate(&r, "video2", a, b)).collect()
}

/// RFC 8867 §5.5: five flows whose round trips are 10 to 150 ms share one bottleneck; "the
/// competing flows ... converge ... fairly irrespective of the RTT observed". The band is RFC
/// 8868 §3 item 7's 1/3 .. 3 ratio between flows (stated for similar RTTs, which §5.5's
/// expectation extends to any), over the last 150 s. NADA holds it (1.8).
#[test]
fn on_5_5_nada_shares_across_round_trips_within_a_ratio_of_three() {
    assert!(rtt_ratio("nada") <= 3.0);
}

/// SCReAM and GCC do not: over the last 150 s the fastest flow has 4.7 (SCReAM) and 3.2 (GCC;
/// 4.0 before it probed) times the slowest's rate (SCReAM favours the long round trips, GCC the
/// long ones since it probes, the middle ones before).
#[test]
#[ignore = "SCReAM and GCC are not RTT-fair on §5.5: ratios 4.7 and 3.2 against RFC 8868's 3"]
fn on_5_5_scream_and_gcc_share_across_round_trips_within_a_ratio_of_three() {
    for cc in ["scream", "gcc"] {
        assert!(rtt_ratio(cc) <= 3.0, "{cc}");
    }
}

fn rtt_ratio(cc: &str) -> f64 {
    let r = run("5.5-rtt-fairness", cc);
    let x: Vec<f64> = (1..=5).map(|i| mean_rate(&r, &format!("video{i}"), 150.0, 299.0)).collect();
    let ratio = x.iter().copied().fold(0.0, f64::max) / x.iter().copied().fold(f64::INFINITY, f64::min);
    eprintln!("{cc}: {x:?}, ratio {ratio}");
    ratio
}

/// RFC 8867 §5.7: two media flows against ten short-TCP sources; "expected to avoid flow
/// starvation ... streaming at least at the minimum media bit rate": each flow's mean over its
/// run at least 150 kb/s. (Over 10 s windows NADA and GCC dip to about 100 and 90 kb/s while
/// downloads crowd the link: the suite report shows it, this band does not.)
#[test]
fn on_5_7_no_media_flow_starves_beside_short_tcp_flows() {
    for cc in CONTROLLERS {
        let r = run("5.7-short-tcp-flows", cc);
        for f in ["video1", "video2"] {
            let x = mean_rate(&r, f, 0.0, 299.0);
            assert!(x >= 150e3, "{cc} {f}: {x:.0}");
        }
    }
}

/// RFC 8867 §6.3: video1 crosses both bottlenecks, sharing the first with video2 and the second
/// with video3; "without starving any of the three ... and ensuring fair share of the available
/// bandwidth at each bottleneck". No flow under its 150 kb/s minimum over the last 150 s, and at
/// each bottleneck the two flows within RFC 8868's ratio of three. NADA holds it.
#[test]
fn on_6_3_nada_shares_each_bottleneck_and_starves_none() {
    let (x, ratios) = shares_6_3("nada");
    assert!(x.iter().all(|&v| v >= 150e3), "nada: {x:?}");
    assert!(ratios.iter().all(|&r| r <= 3.0), "nada: {x:?}");
}

/// SCReAM and GCC starve none on §6.3 but give the flow that crosses both bottlenecks under a
/// quarter of what its neighbour on the first gets (0.30 against 1.40 Mb/s for SCReAM and 1.43
/// for GCC, seed 1).
#[test]
#[ignore = "SCReAM's and GCC's two-bottleneck flow gets under a quarter of its neighbour's rate on §6.3 (RFC 8868: at most 3)"]
fn on_6_3_scream_and_gcc_share_each_bottleneck_within_a_ratio_of_three() {
    for cc in ["scream", "gcc"] {
        let (x, ratios) = shares_6_3(cc);
        assert!(x.iter().all(|&v| v >= 150e3), "{cc}: {x:?}");
        assert!(ratios.iter().all(|&r| r <= 3.0), "{cc}: {x:?}");
    }
}

/// The three video flows' rates over the last 150 s, and the ratio at each bottleneck.
fn shares_6_3(cc: &str) -> (Vec<f64>, [f64; 2]) {
    let r = run("6.3-multiple-bottlenecks", cc);
    let x: Vec<f64> = (1..=3).map(|i| mean_rate(&r, &format!("video{i}"), 150.0, 299.0)).collect();
    let ratio = |a: f64, b: f64| a.max(b) / a.min(b);
    (x.clone(), [ratio(x[0], x[1]), ratio(x[0], x[2])])
}

/// Every variant of `case` with `cc`, one seed.
fn run_all(case: &str, cc: &str) -> Vec<CaseRun> {
    let dir = scratch(&format!("{case}-{cc}-all"));
    let runs = run_case(&opts(dir.clone(), 1), case, cc, &mut |_| {}).unwrap_or_else(|e| panic!("{case}/{cc}: {e}"));
    let _ = std::fs::remove_dir_all(&dir);
    runs
}

/// RFC 8867 §5.3: the backward path (S2's media, S1's feedback) drops from 2 to 0.8 Mb/s over
/// 35-70 s; "the candidate algorithms are able to cope with the lack of feedback information
/// and to adapt to minimize the performance degradation of media flows in the forward channel",
/// compared with "the reference case, i.e., when the backward channel has no impairments" (the
/// case's second variant, the backward path at 2 Mb/s throughout). Bands: the forward flow's
/// rate over the impaired span stays within 10% of the reference's (the band docs/scenarios.md
/// takes for "the same rate" in its convergence time): its feedback, a few percent of its media
/// rate, still crosses, only later by the backward queue's delay, which S2's own controller
/// holds down; the forward flow still follows its own capacity through the impairment (at 40 s
/// it falls to 0.5 Mb/s: over 45-60 s it holds at least half of the 0.48 Mb/s it may use, as
/// §5.1's band, and no more than that capacity); and the backward flow follows the backward
/// capacity down and back up, holding at least half of the 0.78 Mb/s it may use over 45-70 s.
#[test]
fn on_5_3_the_forward_flow_copes_with_congested_feedback_and_the_backward_one_follows_its_capacity() {
    for cc in CONTROLLERS {
        let (x, x0) = copes_5_3(cc);
        // SCReAM's below.
        if *cc != "scream" {
            assert!((x / x0 - 1.0).abs() <= 0.10, "{cc}: forward {x:.0} b/s against the reference's {x0:.0}");
        }
    }
}

/// SCReAM loses 11% (540 against 607 kb/s) over 35-70 s, all of it in the first 5 s of the
/// impairment (35-40 s: 554 against 946 kb/s; 40-70 s together 538 against 550 kb/s): S2's flow fills the backward queue at the cut (37.5 kB, 375 ms at
/// 0.8 Mb/s), S1's feedback waits behind it, and SCReAM's self-clocked window (RFC 8298
/// §4.1.2.5: nothing is sent while the bytes in flight fill it) stalls until the acknowledgements
/// come back. NADA and GCC, rate-based, keep sending through the gap.
#[test]
#[ignore = "SCReAM's forward flow loses 11% over §5.3's impaired 35-70 s, all in its first 5 s (self-clocking stalls while the feedback waits)"]
fn on_5_3_scream_copes_with_congested_feedback_within_10_percent() {
    let (x, x0) = copes_5_3("scream");
    assert!((x / x0 - 1.0).abs() <= 0.10, "scream: forward {x:.0} b/s against the reference's {x0:.0}");
}

/// §5.3 with `cc`: asserts the bands that do not compare with the reference; returns the
/// forward flow's rate over the impaired span, and the reference's.
fn copes_5_3(cc: &str) -> (f64, f64) {
    let runs = run_all("5.3-congested-feedback-link", cc);
    assert_eq!(runs.len(), 2, "{cc}: the impaired case and the reference");
    let (impaired, reference) = (&runs[0], &runs[1]);
    assert!(reference.variant.ends_with("= 2Mb"), "{}", reference.variant);
    let low = mean_rate(impaired, "video-fwd", 45.0, 60.0);
    assert!((0.24e6..=0.5e6).contains(&low), "{cc}: forward {low:.0} b/s on 0.5 Mb/s");
    let before = mean_rate(impaired, "video-bwd", 25.0, 35.0);
    let during = mean_rate(impaired, "video-bwd", 45.0, 70.0);
    let after = mean_rate(impaired, "video-bwd", 80.0, 99.0);
    assert!(during < before && after > during, "{cc}: backward {before:.0}, {during:.0}, {after:.0} b/s");
    assert!(during >= 0.39e6, "{cc}: backward {during:.0} b/s of the 0.78 Mb/s it may use");
    (mean_rate(impaired, "video-fwd", 35.0, 70.0), mean_rate(reference, "video-fwd", 35.0, 70.0))
}

/// RFC 8867 §6.2: §5.1 with ECN; "the candidate algorithms do not fail when ECN signals are
/// available" and "are expected to perform better than their delay-based variants" (the case's
/// second variant: the same CoDel, the video not ECN-capable). Not failing: with ECN each
/// controller keeps §5.1's bands (`follows_5_1`). Better: CoDel marks the video's packets it
/// would have dropped, so with ECN the video loses fewer packets than without (what is left is
/// the overflow when the capacity falls fourfold at 60 s, which no signal prevents), and some
/// are marked.
#[test]
fn on_6_2_every_controller_keeps_5_1s_bands_with_ecn_and_loses_less_than_without() {
    for cc in CONTROLLERS {
        let runs = run_all("6.2-ecn", cc);
        let (ecn, plain) = (&runs[0], &runs[1]);
        assert_eq!((ecn.variant.as_str(), plain.variant.as_str()), ("flow.video.ecn = true", "flow.video.ecn = false"));
        follows_5_1_in(ecn, cc);
        let video = |r: &CaseRun| r.first.summary.flows.iter().find(|f| f.name == "video").unwrap().dropped_pkts;
        let marks = ecn.first.summary.links.iter().find(|l| l.name == "a->b").unwrap().marks_pkts;
        assert!(marks > 0, "{cc}: nothing marked");
        assert!(video(ecn) < video(plain), "{cc}: {} drops with ECN, {} without", video(ecn), video(plain));
    }
}

/// RFC 8867 §6.1: §5.4's three video flows, coupled (RFC 8699's flow state exchange) from one
/// sender at priorities 2, 1, 1; S1 "must arrive at a steady-state rate approximately twice that
/// of the other two". The FSE shares the group's sum S 2:1:1 with §4.3's 1.5 Mb/s maximum as S1's
/// desired rate, so S1 gets min(S/2, 1.5 Mb/s) and S2 and S3 half the rest each: the ratio is 2
/// while S <= 3 Mb/s and falls to 1.5 / 0.97 = 1.55 as S reaches the ~3.44 Mb/s the audio leaves
/// (2:1:1 would want S1 at 1.72 Mb/s). So the case can reach no less than 1.55 and no more than
/// 2. The band is that range widened by the 10% docs/scenarios.md takes for "the same rate"
/// (its convergence time): at least 1.4, well clear of the equal share, 1, that §5.4's uncoupled
/// flows reach; at most 2.2 (more would mean S2 and S3 held below half of S1's share). Over the last 40 s,
/// when all three have run at least 40 s (as §5.4's test). The controllers' sums there are
/// §5.4's uncoupled totals (about 2.9 to 3.2 Mb/s), so the ratios come out between 1.75 and 2.
fn priority_ratios_6_1(cc: &str) -> [f64; 2] {
    let r = run("6.1-priorities", cc);
    let x: Vec<f64> = ["video1", "video2", "video3"].iter().map(|f| mean_rate(&r, f, 79.0, 119.0)).collect();
    eprintln!("6.1 {cc}: rates {x:.0?}, ratios {:.3} {:.3}", x[0] / x[1], x[0] / x[2]);
    [x[0] / x[1], x[0] / x[2]]
}

fn assert_6_1_band(cc: &str) {
    for ratio in priority_ratios_6_1(cc) {
        assert!((1.4..=2.2).contains(&ratio), "{cc}: S1 over S2/S3 {ratio:.3}, band 1.4 .. 2.2");
    }
}

#[test]
fn on_6_1_coupled_nada_gives_the_priority_2_flow_about_twice_the_others() {
    assert_6_1_band("nada");
}

#[test]
fn on_6_1_coupled_scream_gives_the_priority_2_flow_about_twice_the_others() {
    assert_6_1_band("scream");
}

#[test]
fn on_6_1_coupled_gcc_gives_the_priority_2_flow_about_twice_the_others() {
    assert_6_1_band("gcc");
}

/// The suite keeps a coupled flow's `prio` (RFC 8699's priority, any controller) and drops an
/// uncoupled flow's for a controller other than NADA (whose PRIO it is), saying so.
#[test]
fn the_suite_keeps_a_coupled_flow_s_prio_and_drops_an_uncoupled_one_s_for_all_but_nada() {
    let case = "[[flow]]\ntransport = \"rtp\"\ncc = \"nada\"\ncouple = \"v\"\nprio = 2\n";
    let (text, dropped) = with_controller(case, "gcc").unwrap();
    assert!(!dropped && text.contains("prio = 2") && text.contains("cc = \"gcc\""), "{text}");
    let case = "[[flow]]\ntransport = \"rtp\"\ncc = \"nada\"\nprio = 2\n";
    let (text, dropped) = with_controller(case, "scream").unwrap();
    assert!(dropped && !text.contains("prio"), "{text}");
    let (text, dropped) = with_controller(case, "nada").unwrap();
    assert!(!dropped && text.contains("prio = 2"), "{text}");
    // §6.1's case drops nothing for any controller.
    let text = include_str!("../../../scenarios/rfc8867/6.1-priorities.toml");
    for cc in CONTROLLERS {
        assert!(!with_controller(text, cc).unwrap().1, "{cc}");
    }
}
