//! chung-dcbt's reproduction: the periods' measures add up to what the bottleneck can carry, and
//! the reproduction writes its report and claims, the paper's Jain's-index ordering among them.

use std::path::{Path, PathBuf};

use fairway_engine::{run, RunOptions};
use fairway_papers::chung_dcbt::{PeriodMeasure, PERIODS};
use fairway_papers::{reproduce, ReproduceOptions};
use fairway_scenario::parse_scenario;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Per-flow throughputs times flow counts are the bytes delivered in a period: at most the 25
/// Mb/s bottleneck's 10 s worth plus what was in flight beyond it when the period began (one
/// 25 ms one-way path after it), and, with 35 or more greedy flows, most of it.
#[test]
fn the_periods_delivered_bytes_fit_the_bottleneck() {
    let text = std::fs::read_to_string(repo().join("scenarios/chung-dcbt/fig11-red.toml")).unwrap();
    let sc = parse_scenario("fig11-red", &text, "x").unwrap();
    let r = run(&sc, &RunOptions::default(), &mut |_| {}).unwrap();
    let flows = [[25.0, 10.0, 0.0], [25.0, 10.0, 2.0], [55.0, 10.0, 2.0]];
    for (p, (a, b)) in PERIODS.iter().enumerate() {
        let m = PeriodMeasure::of(&r, *a, *b);
        let total: f64 = (0..3).map(|c| m.per_flow_bps[c].unwrap_or(0.0) * flows[p][c]).sum();
        assert!(total <= 25e6 * (10.0 + 0.025) / 10.0, "period {p}: {total}");
        assert!(total >= 0.85 * 25e6, "period {p}: {total}");
        assert_eq!(m.per_flow_bps[2].is_some(), p > 0, "the CBR flows run from 10 s");
        assert!(m.jain > 0.0 && m.jain <= 1.0);
    }
}

/// The reproduction writes report.md and claims.csv; §7's ordering of Jain's index (from 10 s
/// RED below CBT and D-CBT, D-CBT above CBT in 20-30 s) holds seed by seed.
#[test]
fn the_reproduction_writes_its_report_and_claims() {
    let out = std::env::temp_dir().join(format!("fairway-chung-{}", std::process::id()));
    let opts = ReproduceOptions::new(out.clone());
    let report = reproduce("chung-dcbt", &opts, &mut |_| {}).unwrap();
    let text = std::fs::read_to_string(&report).unwrap();
    assert!(text.contains("## Figure 10, derived") && text.contains("fig11-12.svg"));
    let csv = std::fs::read_to_string(out.join("claims.csv")).unwrap();
    // Figure 7(b): one rate per scale; §4: TCP beside ProShare and with the blast, the blast,
    // ProShare's threshold, CBT against RED; Figure 9: 5 claims; Figures 11-12: 3 RED numbers, 2
    // trends, CBT's ratio, 4 orderings of Jain's index, D-CBT's untagged share in two periods, 3
    // class spreads.
    assert_eq!(csv.lines().count() - 1, 5 + 5 + 5 + 3 + 2 + 1 + 4 + 2 + 3);
    assert!(text.contains("fig6.svg") && out.join("fig6.svg").exists());
    let rows = fairway_papers::claims::read_csv(&csv).unwrap();
    let jain: Vec<_> = rows.iter().filter(|r| r["claim"].starts_with("Jain's index, ")).collect();
    assert_eq!(jain.len(), 4);
    assert!(jain.iter().all(|r| r["verdict"] == "reproduced"), "{jain:#?}");
    // Figure 7(b)'s rates are the first second's of Figure 7(a)'s frames, not the stream's: 1056
    // kb/s at scale 4 where the stream gives 1040.
    let fig7: Vec<_> = rows.iter().filter(|r| r["claim"].starts_with("Figure 7(b)")).collect();
    assert_eq!(fig7.len(), 5);
    assert!(fig7.iter().all(|r| r["verdict"] == "paper_inconsistent"), "{fig7:#?}");
    assert!(fig7[4]["fairway"].contains("stream 1040.0 kb/s"), "{}", fig7[4]["fairway"]);
    let _ = std::fs::remove_dir_all(&out);
}
