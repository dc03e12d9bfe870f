//! Seed 004's set-up, by what follows from it: under the greedy reading the application's rate
//! plays no part, and on one DropTail FIFO TFRC and UDP lose about the same share; the
//! reproduction writes its report and claims.

use std::path::{Path, PathBuf};

use fairway_engine::{run, RunOptions, Summary};
use fairway_report::reproduce::janani_tfrc::{text_at, Comparator};
use fairway_report::reproduce::{reproduce, ReproduceOptions};
use fairway_scenario::parse_scenario;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn run_at(stem: &str, comp: Comparator, n: u32, seed: u64) -> Summary {
    let text = std::fs::read_to_string(repo().join("scenarios/janani-tfrc").join(format!("{stem}.toml"))).unwrap();
    let sc = parse_scenario(stem, &text_at(&text, comp, n).unwrap(), stem).unwrap();
    run(&sc, &RunOptions { seed: Some(seed), ..Default::default() }, &mut |_| {}).unwrap().summary
}

fn class<'a>(s: &'a Summary, c: &str) -> &'a fairway_engine::results::ClassSummary {
    s.classes.iter().find(|k| k.class == c).unwrap()
}

/// Reading B: a greedy TFRC sends what the equation allows whatever its application offers,
/// so the video conference and video streaming runs (both 1000 B packets) are the same run.
#[test]
fn under_the_greedy_reading_the_applications_rate_plays_no_part() {
    for (comp, name) in [(Comparator::Tcp, "tcp"), (Comparator::Udp, "udp")] {
        let a = run_at(&format!("videoconf-{name}-greedy"), comp, 12, 3);
        let b = run_at(&format!("videostream-{name}-greedy"), comp, 12, 3);
        assert_eq!(class(&a, "tfrc").recv_pkts, class(&b, "tfrc").recv_pkts);
        assert_eq!(class(&a, name).recv_pkts, class(&b, name).recv_pkts);
    }
}

/// On one DropTail FIFO every arriving packet meets the same queue, so two flows that both keep
/// it full lose about the same share (the notes' claim 4: within a factor of 1.5). Video
/// streaming (2.5 Mb/s per flow, application-limited) beside 1 Mb/s of UDP per flow at N = 16
/// offers 4 x 2.5 + 3 x 1 Mb/s to a 4 Mb/s link.
#[test]
fn tfrc_and_udp_on_one_fifo_lose_about_the_same_share() {
    let s = run_at("videostream-udp", Comparator::Udp, 16, 1);
    let (t, u) = (class(&s, "tfrc").plr.unwrap(), class(&s, "udp").plr.unwrap());
    assert!(t > 0.01 && u > 0.01, "both lose: {t} {u}");
    assert!(t / u < 1.5 && u / t < 1.5, "TFRC {t:.4}, UDP {u:.4}");
}

/// The reproduction writes report.md and claims.csv, with every table cell a claim and the
/// paper's self-contradictions marked so.
#[test]
fn the_reproduction_writes_its_report_and_claims() {
    let out = std::env::temp_dir().join(format!("fairway-janani-{}", std::process::id()));
    let opts = ReproduceOptions { reps: 2, ..ReproduceOptions::new(out.clone()) };
    let report = reproduce("janani-tfrc", &opts, &mut |_| {}).unwrap();
    let text = std::fs::read_to_string(&report).unwrap();
    assert!(text.contains("## Table 4") && text.contains("tables-plr.svg"));
    let csv = std::fs::read_to_string(out.join("claims.csv")).unwrap();
    // 4 tables x 7 rows x 4 cells, 13 orderings and 2 conclusions.
    assert_eq!(csv.lines().count() - 1, 4 * 7 * 4 + 13 + 2);
    assert_eq!(csv.lines().filter(|l| l.ends_with(",paper_inconsistent")).count(), 10 + 2);
    let _ = std::fs::remove_dir_all(&out);
}
