//! janani-tfrc's set-up, by what follows from it: under the greedy reading the application's rate
//! plays no part, on one DropTail FIFO TFRC and UDP lose about the same share, and a sparse
//! ad hoc network is often partitioned; the reproduction writes its report and claims.

use std::path::{Path, PathBuf};

use fairway_engine::{run, RunOptions, Summary};
use fairway_papers::janani_tfrc::{text_at, wireless, Comparator};
use fairway_papers::{reproduce, ReproduceOptions};
use fairway_scenario::parse_scenario;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn run_at(stem: &str, comp: Comparator, n: u32, seed: u64) -> Summary {
    let text = std::fs::read_to_string(repo().join("scenarios/janani-tfrc").join(format!("{stem}.toml"))).unwrap();
    let sc = parse_scenario(stem, &text_at(&text, comp, n).unwrap(), stem).unwrap();
    run(&sc, &RunOptions { seed: Some(seed), ..Default::default() }, &mut |_| {}).unwrap().summary
}

/// The share of the time a flow's ends are joined by hops of at most 250 m, from the nodes'
/// paths in a run of the Table 5 set-up with `nodes` nodes on 1000 m x 1000 m, over seeds 1 to 3.
fn joined(nodes: u32) -> f64 {
    let text = std::fs::read_to_string(repo().join("scenarios/janani-tfrc/wireless-voip-udp.toml")).unwrap();
    let t = wireless::text_at(&text, wireless::Table::Pause, nodes, 10).unwrap();
    let sc = parse_scenario("t5", &t, "t5").unwrap();
    let shares: Vec<f64> = (1..=3)
        .map(|seed| {
            let res = run(&sc, &RunOptions { seed: Some(seed), ..Default::default() }, &mut |_| {}).unwrap();
            wireless::paths(&res.summary, &res).0
        })
        .collect();
    shares.iter().sum::<f64>() / shares.len() as f64
}

/// Continuum percolation: nodes placed at random join into one spanning cluster once each has
/// more than about 4.5 others in range on average. Ten nodes on a square kilometre with a 250 m
/// range have 9 x pi 250^2 / 1000^2 = 1.8 (fewer near the edges), well below, so a flow's ends
/// are often apart; fifty have 9.6, well above, so they are nearly always joined. Table 5's
/// delivery ratios of 0.9999 need the latter.
#[test]
fn ten_nodes_on_a_square_kilometre_are_often_apart_fifty_rarely() {
    let (ten, fifty) = (joined(10), joined(50));
    assert!(ten < 0.8, "10 nodes: joined {ten:.3} of the time");
    assert!(fifty > 0.85, "50 nodes: joined {fifty:.3} of the time");
}

fn class<'a>(s: &'a Summary, c: &str) -> &'a fairway_model::results::ClassSummary {
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
    assert!(text.contains("### Table 6") && text.contains("wireless-table6.svg"));
    assert!(out.join("wireless-table5.svg").is_file() && out.join("wireless-table6.svg").is_file());
    let csv = std::fs::read_to_string(out.join("claims.csv")).unwrap();
    // Wired: 4 tables x 7 rows x 4 cells, 13 orderings and 2 conclusions. Wireless: Table 5's
    // 8 rows and Table 6's 6 rows of 4 cells, each table as a whole, and one ordering each; the
    // orderings of Figures 8-10 and 12-17, three sets of three, under each of the two readings.
    assert_eq!(csv.lines().count() - 1, 4 * 7 * 4 + 13 + 2 + (8 + 6) * 4 + 2 + 2 + 2 * 9);
    assert!(text.contains("### Figures 8-10 and 12-17"));
    // Table 3's TCP column (5 rows x 2), the two conclusions, and one PLR in each of Tables 5
    // and 6 that does not add up with its PDR.
    let rows = fairway_papers::claims::read_csv(&csv).unwrap();
    assert_eq!(rows.iter().filter(|r| r["verdict"] == "paper_inconsistent").count(), 10 + 2 + 2);
    // Each figure's ordering is counted once, under the primary reading.
    for fig in [8, 9, 10, 12, 13, 14, 15, 16, 17] {
        let of: Vec<_> = rows.iter().filter(|r| r["source"] == format!("§5.2, Fig. {fig}")).collect();
        assert_eq!(of.len(), 2, "Fig. {fig}");
        assert_eq!(of.iter().filter(|r| r["counted"] == "yes").count(), 1, "Fig. {fig}");
    }
    let _ = std::fs::remove_dir_all(&out);
}
