//! delay_cdf.csv: a row per delay bucket of each flow with a delay in it, the CDF exact at the
//! longest delay each bucket holds; none for a run whose flows delivered nothing.

use fairway_engine::{run, RunOptions};
use fairway_model::delay_hist::RELATIVE_ERROR;
use fairway_report::output::csv::{delay_cdf_csv, DELAY_CDF_HEADER};
use fairway_scenario::parse_scenario;

/// A CBR flow "c" of 1000 B packets at 1 Mb/s over a 2 Mb/s bottleneck that never queues it,
/// and a TCP flow "t" (from `tcp_start`) that fills its 50-packet queue.
fn text(tcp_start: &str, cbr_start: &str) -> String {
    format!(
        r#"
duration = "20s"
[[link]]
count = 2
between = ["a{{i}}", "r1"]
rate = "10Mb"
delay = "1ms"
[[link]]
between = ["r1", "r2"]
rate = "2Mb"
delay = "10ms"
queue = {{ kind = "droptail", limit = 50 }}
[[link]]
count = 2
between = ["b{{i}}", "r2"]
rate = "10Mb"
delay = "1ms"
[[flow]]
name = "c"
app = "cbr"
from = "a0"
to = "b0"
packet_size = "1000B"
rate = "1Mb"
start = "{cbr_start}"
[[flow]]
name = "t"
app = "ftp"
from = "a1"
to = "b1"
window = 200
start = "{tcp_start}"
"#
    )
}

fn cdf(text: &str) -> Option<String> {
    let sc = parse_scenario("t.toml", text, "t").unwrap_or_else(|e| panic!("{e}"));
    let res = run(&sc, &RunOptions::default(), &mut |_| {}).unwrap();
    delay_cdf_csv(&res, &sc)
}

#[test]
fn each_flows_cdf_rises_to_one_over_its_buckets() {
    // The TCP flow starts 5 ms before the end, too late to deliver anything: the CBR's packets see the bare path, 17.6 ms.
    let csv = cdf(&text("19.995s", "0s")).unwrap();
    assert!(csv.starts_with(DELAY_CDF_HEADER));
    let rows: Vec<Vec<&str>> = csv.lines().skip(1).map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 1, "{csv}");
    let d: f64 = rows[0][1].parse().unwrap();
    assert_eq!((rows[0][0], rows[0][2]), ("c", "1.00000000"));
    // The longest delay of a bucket at most 1/64 wide, two relative errors.
    assert!((0.0176..=0.0176 * (1.0 + 2.0 * RELATIVE_ERROR)).contains(&d), "{d}");

    // With the TCP flow, both queue: each flow's rows in order, delays and CDF rising to 1.
    let csv = cdf(&text("0s", "0s")).unwrap();
    for flow in ["c", "t"] {
        let rows: Vec<(f64, f64)> = csv
            .lines()
            .skip(1)
            .map(|l| l.split(',').collect::<Vec<_>>())
            .filter(|r| r[0] == flow)
            .map(|r| (r[1].parse().unwrap(), r[2].parse().unwrap()))
            .collect();
        assert!(rows.len() > 10, "{flow}: {} buckets", rows.len());
        assert!(rows.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1), "{flow}");
        assert_eq!(rows.last().unwrap().1, 1.0);
    }
}

#[test]
fn no_delays_no_file() {
    assert_eq!(cdf(&text("19.995s", "19.995s")), None);
}
