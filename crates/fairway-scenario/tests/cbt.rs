//! CBT (chung-dcbt §2) in a run: an unresponsive multimedia flow tagged at the link's rate beside
//! three TCP flows, through RED and through CBT with the same RED inside (chung-dcbt §4's
//! parameters: min_th 15, max_th 30, w_q 0.002, max_p 0.1, 60 packets).

use fairway_engine::{run, RunOptions, Summary};
use fairway_scenario::parse_scenario;

fn dumbbell(queue_extra: &str, kind: &str, tag: bool) -> String {
    with_class(queue_extra, kind, &format!("multimedia_tag = {tag}"))
}

/// The dumbbell with the CBR flow's class set by `class_line`.
fn with_class(queue_extra: &str, kind: &str, class_line: &str) -> String {
    format!(
        r#"duration = "100s"
[[link]]
between = ["s{{i}}", "r1"]
count = 4
rate = "10Mb"
delay = "2ms"
[[link]]
between = ["r1", "r2"]
rate = "1.5Mb"
delay = "20ms"
queue = {{ kind = "{kind}", bytes = false, queue_in_bytes = false, limit = 60, thresh = 15, maxthresh = 30, q_weight = 0.002, linterm = 10, gentle = false{queue_extra} }}
[[link]]
between = ["r2", "d"]
rate = "10Mb"
delay = "2ms"
[[flow]]
name = "tcp{{i}}"
count = 3
app = "ftp"
from = "s{{i}}"
to = "d"
window = 100
[[flow]]
name = "mm"
app = "cbr"
from = "s3"
to = "d"
rate = "1.5Mb"
packet_size = "1000B"
{class_line}
"#
    )
}

fn sim(text: &str) -> Summary {
    let sc = parse_scenario("cbt.toml", text, "cbt").unwrap_or_else(|e| panic!("{e}"));
    run(&sc, &RunOptions::default(), &mut |_| {}).unwrap().summary
}

fn share(s: &Summary, class: &str) -> f64 {
    s.classes.iter().find(|c| c.class == class).unwrap().throughput_bps / 1.5e6
}

#[test]
fn cbt_holds_a_tagged_unresponsive_flow_to_its_threshold_where_red_does_not() {
    // RED: the CBR flow sends at the link's rate and loses only RED's drops, which TCP shares;
    // TCP backs off, the CBR flow does not, and takes most of the link.
    let red = sim(&dumbbell("", "red", true));
    assert!(share(&red, "udp") > 0.6, "RED: {:.3}", share(&red, "udp"));

    // CBT: the tagged class's average occupancy is held at mm_th = 3 packets; a FIFO serves each
    // class in proportion to its packets in the queue, so its share of the link is about
    // mm_th / (mean queue). A quarter of that either way for the averages' lag.
    let cbt = sim(&dumbbell(", mm_th = 3, udp_th = 3", "cbt", true));
    let link = cbt.links.iter().find(|l| l.name == "r1->r2").unwrap();
    let expected = 3.0 / link.mean_queue_pkts;
    let got = share(&cbt, "udp");
    assert!((got / expected - 1.0).abs() < 0.25, "CBT: {got:.3} of the link, {expected:.3} expected");
    assert!(share(&cbt, "tcp") > 2.0 * share(&red, "tcp"), "TCP gets the rest");
    assert!(link.threshold_drops_pkts > 0);
    assert_eq!(
        link.drops_pkts,
        link.early_drops_pkts + link.forced_drops_pkts + link.overflow_drops_pkts + link.threshold_drops_pkts
    );

    // Untagged, the same flow falls under udp_th instead: the same thresholds, the same result.
    let untagged = sim(&dumbbell(", mm_th = 3, udp_th = 3", "cbt", false));
    assert_eq!(format!("{:?}", untagged.classes), format!("{:?}", cbt.classes));
    // And with its own class's threshold out of reach, CBT is RED.
    let open = sim(&dumbbell(", mm_th = 1000, udp_th = 3", "cbt", true));
    assert_eq!(format!("{:?}", open.classes), format!("{:?}", red.classes));
}

#[test]
fn a_flows_class_key_sets_the_tag_cbt_reads() {
    // With the tagged class's threshold out of reach, a multimedia flow meets RED only (the
    // same run as RED's), and a best-effort one is held to udp_th.
    let cbt = ", mm_th = 1000, udp_th = 3";
    let red = sim(&with_class("", "red", ""));
    let mm = sim(&with_class(cbt, "cbt", "class = \"multimedia\""));
    assert_eq!(format!("{:?}", mm.classes), format!("{:?}", red.classes));
    let be = sim(&with_class(cbt, "cbt", "class = \"best_effort\""));
    assert!(be.links.iter().find(|l| l.name == "r1->r2").unwrap().threshold_drops_pkts > 0);
    assert!(share(&be, "udp") < 0.5 * share(&mm, "udp"), "{:.3} vs {:.3}", share(&be, "udp"), share(&mm, "udp"));
    // The older spelling gives the same runs; an untagged UDP flow is best effort by default.
    assert_eq!(format!("{:?}", sim(&dumbbell(cbt, "cbt", true)).classes), format!("{:?}", mm.classes));
    assert_eq!(format!("{:?}", sim(&with_class(cbt, "cbt", "")).classes), format!("{:?}", be.classes));

    let err = |line: &str| parse_scenario("cbt.toml", &with_class(cbt, "cbt", line), "cbt").unwrap_err().to_string();
    let e = err("class = \"video\"");
    assert!(e.contains("flow[1].class: unknown class `video`: expected multimedia or best_effort"), "{e}");
    let e = err("class = \"multimedia\"\nmultimedia_tag = true");
    assert!(e.contains("give `class` or `multimedia_tag`, not both"), "{e}");
    let e = err("class = true");
    assert!(e.contains("flow[1].class"), "{e}");
}

#[test]
fn cbt_with_red_for_tcp_holds_the_tagged_class_to_its_threshold_without_red() {
    // chung-dcbt §2's other variant: the tagged flow's packets never meet RED's early test, only
    // the class threshold, so the class is still held to about mm_th / (mean queue) of the link
    // (the same FIFO argument as above); RED's average now counts TCP's packets only.
    let cbt = sim(&dumbbell(", mm_th = 3, udp_th = 3, red_for = \"tcp\"", "cbt", true));
    let link = cbt.links.iter().find(|l| l.name == "r1->r2").unwrap();
    let expected = 3.0 / link.mean_queue_pkts;
    let got = share(&cbt, "udp");
    assert!((got / expected - 1.0).abs() < 0.25, "CBT, RED for TCP: {got:.3} of the link, {expected:.3} expected");
    // RED for all drops some tagged packets early too; RED for TCP is a different queue.
    let all = sim(&dumbbell(", mm_th = 3, udp_th = 3", "cbt", true));
    assert_ne!(format!("{:?}", all.classes), format!("{:?}", cbt.classes));
    let e = parse_scenario("cbt.toml", &dumbbell(", mm_th = 3, udp_th = 3, red_for = \"udp\"", "cbt", true), "cbt")
        .unwrap_err();
    assert!(e.to_string().contains("queue.red_for: `udp`: expected \"all\" (RED for all) or \"tcp\""), "{e}");
}

#[test]
fn dcbt_gives_the_tagged_class_its_share_of_the_flows() {
    // D-CBT (chung-dcbt §3): with 3 TCP flows and 1 tagged flow active, the tagged threshold is
    // 1/4 of RED's average, so the tagged class holds about a quarter of the queue and, served
    // in FIFO order, gets about a quarter of the link. A quarter of that either way for the
    // averages' lag and the periods the test is off (RED's average under min_th).
    let dcbt = sim(&dumbbell("", "dcbt", true));
    let got = share(&dcbt, "udp");
    assert!((got / 0.25 - 1.0).abs() < 0.25, "D-CBT: {got:.3} of the link, 0.25 expected");
    let link = dcbt.links.iter().find(|l| l.name == "r1->r2").unwrap();
    assert!(link.threshold_drops_pkts > 0);
}

#[test]
fn cbt_needs_its_thresholds() {
    let text = dumbbell("", "cbt", true);
    let e = parse_scenario("cbt.toml", &text, "cbt").unwrap_err();
    assert!(e.to_string().contains("mm_th"), "{e}");
    let e = parse_scenario("cbt.toml", &dumbbell(", mm_th = -1, udp_th = 3", "cbt", true), "cbt").unwrap_err();
    assert!(e.to_string().contains("queue.mm_th: -1 is not a number of packets"), "{e}");
}
