//! Seed 000's claims, as bands that follow from the paper, in both readings of its traffic:
//! MApp drops less and queues less than CBR; TCP does far better beside MApp than beside CBR;
//! MApp and TCP alone share within a factor of two; MApp's scale is a halve/+1 sawtooth.

use std::path::{Path, PathBuf};

use fairway_sim::reproduce::kadhum2015::{claims, measure, Media, Metrics, Reading, RUNS};
use fairway_sim::reproduce::{reproduce, ReproduceOptions};
use fairway_sim::{parse_scenario_file, run, RunOptions, RunResult};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn run_stem(stem: &str, seed: u64) -> RunResult {
    let sc = parse_scenario_file(&repo().join("scenarios/kadhum2015").join(format!("{stem}.toml"))).unwrap();
    run(&sc, &RunOptions { seed: Some(seed), ..Default::default() }, &mut |_| {}).unwrap()
}

fn metrics(seed: u64) -> Vec<Metrics> {
    RUNS.iter().map(|(stem, media, reading)| measure(*media, *reading, &run_stem(stem, seed))).collect()
}

fn pick(ms: &[Metrics], media: Media, reading: Reading) -> &Metrics {
    ms.iter().find(|m| m.media == media && m.reading == reading).unwrap()
}

#[test]
fn the_papers_claims_hold_in_both_readings_and_for_several_seeds() {
    for seed in [1, 2, 3] {
        let ms = metrics(seed);
        for reading in [Reading::FtpAlone, Reading::FtpAndWeb] {
            let (mapp, cbr) = (pick(&ms, Media::Mapp, reading), pick(&ms, Media::Cbr, reading));
            for (claim, ok) in claims(mapp, cbr) {
                assert!(ok, "seed {seed}, {}: {claim}", reading.label());
            }
        }
    }
}

#[test]
fn the_unresponsive_cbr_loses_reds_drop_rate_and_mapp_loses_less() {
    let ms = metrics(1);
    for reading in [Reading::FtpAlone, Reading::FtpAndWeb] {
        let cbr = pick(&ms, Media::Cbr, reading);
        // RED drops without regard to the flow (and these packets are nearly the same size), so
        // the CBR, which never slows down, loses the bottleneck's drop fraction.
        assert!((cbr.media_loss_pct - cbr.drop_pct).abs() < 2.0, "{cbr:?}");
        // Throughputs are over each flow's active time: TCP (and web) 50 s, the CBR 49 s; the
        // bytes cannot exceed 2 Mb/s x 50 s.
        let bits = (cbr.tcp_bps + cbr.web_bps.unwrap_or(0.0)) * 50.0 + cbr.media_bps * 49.0;
        assert!(bits <= 2e6 * 50.0, "{cbr:?}");
        let mapp = pick(&ms, Media::Mapp, reading);
        // MApp backs off: its own packets are rarely lost.
        assert!(mapp.media_loss_pct < cbr.media_loss_pct, "{mapp:?} vs {cbr:?}");
        // Both keep the bottleneck busy.
        assert!(mapp.utilization > 0.9 && cbr.utilization > 0.9);
    }
}

#[test]
fn mapps_scale_is_a_halve_and_plus_one_sawtooth() {
    for stem in ["mapp-ftp", "mapp-ftp-web"] {
        let res = run_stem(stem, 1);
        let (_, log) = res.scale_logs.first().expect("a MApp flow");
        assert_eq!(log[0].1, 0, "MApp starts at scale 0");
        let (mut ups, mut downs) = (0, 0);
        // The shortest possible round trip: 2 x (2 + 10 + 2) ms of propagation.
        let min_rtt = 0.028;
        for w in log.windows(2) {
            let ((t0, s0), (t1, s1)) = (w[0], w[1]);
            if s1 > s0 {
                ups += 1;
                assert_eq!(s1, s0 + 1, "{stem}: an increase is +1 ({s0} -> {s1} at {t1})");
                assert!(t1 - t0 >= 0.9 * min_rtt, "{stem}: +1 only after an RTT ({t0} -> {t1})");
            } else {
                downs += 1;
                assert_eq!(s1, s0 / 2, "{stem}: a decrease halves ({s0} -> {s1} at {t1})");
            }
        }
        assert!(ups >= 10 && downs >= 5, "{stem}: {ups} increases, {downs} decreases: no sawtooth");
        // It uses the scales: at some point it reaches the upper half of the table.
        assert!(log.iter().any(|(_, s)| *s >= 5), "{stem}: {log:?}");
    }
}

#[test]
fn reproduce_writes_a_report_with_tables_and_figures() {
    let out = std::env::temp_dir().join(format!("fairway-kadhum2015-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let opts = ReproduceOptions { scenarios: repo().join("scenarios"), out: out.clone(), seed: None };
    let report = reproduce("kadhum2015", &opts, &mut |_| {}).unwrap();
    let text = std::fs::read_to_string(&report).unwrap();
    for needle in
        ["Paper beside fairway", "350", "6 300", "34.2%", "The paper's claims, checked", "fig06-07_queue_ftp.svg"]
    {
        assert!(text.contains(needle), "report lacks {needle}");
    }
    assert!(!text.contains("DOES NOT HOLD"), "{text}");
    for f in
        ["fig06-07_queue_ftp.svg", "fig13-14_throughput_ftp-web.svg", "fig15-16_link-usage_ftp.svg", "scale_ftp.svg"]
    {
        assert!(out.join(f).metadata().map(|m| m.len() > 1000).unwrap_or(false), "missing {f}");
    }
    for (stem, _, _) in RUNS {
        assert!(out.join(stem).join("summary.json").exists());
    }
    assert!(reproduce("nosuchpaper", &opts, &mut |_| {}).is_err());
    let _ = std::fs::remove_dir_all(&out);
}
