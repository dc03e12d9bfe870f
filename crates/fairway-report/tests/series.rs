//! A protocol's own series, declared as MApp declares its scale (`fairway_model::datagram::
//! Series`), reach every output by its name: each bin's row, flows.csv (written after the run and
//! as it runs), the change log's file and its figure. A toy protocol stands in for a next one:
//! UDP's CBR ends, reporting the datagrams sent so far and, with a log, half those received.

use std::any::Any;
use std::sync::Arc;

use fairway_core::{Bytes, Dur, Rng, Time};
use fairway_engine::{run, run_into, RunOptions, RunResult, Scenario};
use fairway_model::datagram::{DatagramFlow, Series};
use fairway_model::driver::FlowDriver;
use fairway_model::protocol::{Build, DatagramSpec, Load};
use fairway_model::results::SeriesInfo;
use fairway_model::scenario::{AppSpec, DatagramApp};
use fairway_proto::source::{Cbr, CbrConfig};
use fairway_proto::udp::{UdpReceiver, UdpSender};
use fairway_proto::Endpoint;
use fairway_report::output::csv::{flows_csv, series_logs_csv};
use fairway_report::output::plots::{self, FigureStyle};
use fairway_report::output::stream::StreamWriter;
use fairway_scenario::parse_scenario;

/// The datagrams its sender sent so far: in every bin, no log.
const SENT: Series<UdpSender, UdpReceiver> = Series {
    info: SeriesInfo { name: "toy_sent", title: "toy datagrams sent", decimals: 0 },
    value: |s, _| s.stats().sent as f64,
    log: None,
};

/// Half the datagrams its receiver got: in every bin, and a log of two steps (at 0 and 1 s).
const HALF: Series<UdpSender, UdpReceiver> = Series {
    info: SeriesInfo { name: "toy_half", title: "toy half received", decimals: 1 },
    value: |_, r| r.stats().received as f64 / 2.0,
    log: Some(|_, r| vec![(Time::ZERO, 0.5), (Time(1_000_000_000), r.stats().received as f64 / 2.0)]),
};

#[derive(Debug)]
struct Toy;

impl DatagramSpec for Toy {
    fn app(&self) -> &'static str {
        "toy"
    }

    fn transport(&self) -> &'static str {
        "udp"
    }

    fn build(&self, b: &Build) -> Result<Box<dyn FlowDriver>, String> {
        let cfg = CbrConfig {
            packet_size: Bytes(500),
            interval: Dur::from_millis(10),
            jitter: false,
            max_packets: None,
            frame_interval: None,
        };
        let snd = UdpSender::new(b.flow, Box::new(Cbr::new(cfg, Rng::stream(b.seed, b.name))));
        // The one declaration a protocol makes.
        Ok(Box::new(DatagramFlow::new(snd, UdpReceiver::new(b.flow), b.wire).with_series(&[SENT, HALF])))
    }

    fn config(&self) -> &dyn Any {
        &()
    }

    fn load(&self) -> Load {
        Load {
            packets_per_s: Some(100.0),
            timers_per_s: 0.0,
            packet_size: Bytes(500),
            window: None,
            total: None,
            timers_per_rtt: 0.0,
            feedback_per_rtt: 0.0,
            rtt_floor: Dur::ZERO,
        }
    }
}

const TEXT: &str = r#"
name = "toy"
duration = "2s"

[[link]]
between = ["a", "b"]
rate = "10Mb"
delay = "5ms"

[[flow]]
name = "toy"
app = "cbr"
from = "a"
to = "b"
rate = "400kb"
packet_size = "500B"

[[flow]]
name = "ftp"
app = "ftp"
from = "a"
to = "b"

[monitor]
bin = "500ms"
"#;

/// The toy scenario: its first flow the toy protocol's, flows.csv given columns for its series.
fn toy() -> Scenario {
    let mut sc = parse_scenario("toy.toml", TEXT, "toy").unwrap();
    sc.flows[0].app = AppSpec::Datagram(DatagramApp { spec: Arc::new(Toy) });
    sc.monitor.series.extend([SENT.info, HALF.info]);
    sc
}

/// flows.csv's rows as (flow, column) -> cell.
fn cell(csv: &str, row: usize, column: &str) -> String {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let c = header.iter().position(|h| *h == column).unwrap_or_else(|| panic!("no column {column}: {header:?}"));
    lines.nth(row).unwrap().split(',').nth(c).unwrap().to_string()
}

#[test]
fn a_protocols_declared_series_reach_its_bins_flows_csv_its_log_and_figure_by_name() {
    let sc = toy();
    let res = run(&sc, &RunOptions::default(), &mut |_| {}).unwrap();
    let (toy, ftp) = (&res.flow_bins[0], &res.flow_bins[1]);
    assert_eq!(toy.len(), 4);
    // Each bin's row holds the values at the bin's end: the datagrams sent by then.
    let mut sent = 0;
    for b in toy {
        sent += b.sent_pkts;
        assert_eq!(b.series_value("toy_sent"), Some(sent as f64));
        assert!(b.series_value("toy_half").is_some_and(|h| h > 0.0));
        assert_eq!(b.series_value("scale"), None);
    }
    assert!(ftp.iter().all(|b| b.series.is_none()), "TCP reports no series");

    // flows.csv: a column per series of the scenario's, in order after the window; each filled
    // for the flow that reports it, with its decimals, and empty for the others.
    let csv = flows_csv(&res, &sc);
    assert!(csv
        .starts_with(&format!("{},scale,target_bps,toy_sent,toy_half\n", fairway_report::output::csv::FLOWS_COLUMNS)));
    // Rows: bin 0's toy, bin 0's ftp, bin 1's toy, ...
    assert_eq!(cell(&csv, 0, "flow"), "toy");
    assert_eq!(cell(&csv, 0, "toy_sent"), toy[0].sent_pkts.to_string());
    assert_eq!(cell(&csv, 6, "toy_sent"), sent.to_string());
    assert_eq!(cell(&csv, 6, "toy_half"), format!("{:.1}", toy[3].series_value("toy_half").unwrap()));
    assert_eq!(cell(&csv, 0, "scale"), "");
    assert_eq!(
        (cell(&csv, 1, "flow"), cell(&csv, 1, "toy_sent"), cell(&csv, 1, "toy_half")),
        ("ftp".into(), "".into(), "".into())
    );

    // The log: its own file and figure, under its name; the series without a log has neither.
    let half = res.summary.flows[0].recv_pkts as f64 / 2.0;
    assert_eq!(
        series_logs_csv(&res, &sc),
        [("toy_half.csv".to_string(), format!("time_s,flow,toy_half\n0.000000,toy,0.5\n1.000000,toy,{half:.1}\n"))]
    );
    let figures = plots::all(&res, &sc, &FigureStyle::default());
    let fig = figures.iter().find(|(n, _)| n == "toy_half.svg").expect("the log's figure");
    assert!(fig.1.contains("toy: toy half received"));
    assert!(!figures.iter().any(|(n, _)| n == "toy_sent.svg" || n == "scale.svg"));

    // Written as the run goes, flows.csv is the same bytes.
    let dir = std::env::temp_dir().join(format!("fairway-series-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut w = StreamWriter::create(&dir, &sc).unwrap();
    let mut streamed: RunResult = run_into(&sc, &RunOptions::default(), &mut |_| {}, &mut w).unwrap();
    let [flows, ..] = w.finish(&mut streamed).unwrap();
    assert_eq!(std::fs::read_to_string(flows).unwrap(), csv);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_registered_series_have_columns_and_files_of_their_own() {
    let base: Vec<&str> = fairway_report::output::csv::FLOWS_COLUMNS.split(',').collect();
    let files = ["summary", "flows", "queue", "links", "classes", "nodes", "trace-agents", "report", "topology"];
    for x in fairway_scenario::protocols::series() {
        assert!(!base.contains(&x.name) && !files.contains(&x.name), "{}", x.name);
        assert_eq!(fairway_report::output::file_safe(x.name), x.name);
    }
}
