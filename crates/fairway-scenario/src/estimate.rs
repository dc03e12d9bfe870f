//! What a run of a scenario will hold in memory and write, estimated before it runs, so that
//! `check` and `run` can refuse what would not fit (docs/scenarios.md, "What is refused").
//!
//! The large terms are exact counts times the size of a row; the rest (per-flow and per-link
//! state, packets waiting in queues) are bounded generously, so the estimate errs high.

use fairway_aqm::Limit;
use fairway_engine::results::{BinRow, QueueRow};
use fairway_engine::scenario::{QueueSpec, Scenario};

/// Bytes, by where they go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Footprint {
    /// flows.csv's bins, held for the whole run.
    pub bins: u64,
    /// queue.csv's samples, held for the whole run.
    pub samples: u64,
    /// The simulator's flows, links and waiting packets, and the summary.
    pub state: u64,
    /// The files of the results folder.
    pub output: u64,
}

impl Footprint {
    /// A run that keeps its series (the library's `run`, a sweep's points).
    pub fn memory(&self) -> u64 {
        self.bins.saturating_add(self.samples).saturating_add(self.state)
    }

    /// A run that writes its series as it goes (`fairway run`): the plots' copy of them, at most
    /// [`PLOT_ROWS`] rows each, and the state.
    pub fn streamed_memory(&self) -> u64 {
        let cap = |bytes: u64, row: usize| bytes.min(PLOT_ROWS * row as u64);
        cap(self.bins, std::mem::size_of::<BinRow>())
            .saturating_add(cap(self.samples, std::mem::size_of::<QueueRow>()))
            .saturating_add(self.state)
    }
}

/// Rows of each series that a streamed run keeps for its plots (fairway-report's
/// `output::stream::PLOT_ROWS`).
pub const PLOT_ROWS: u64 = 200_000;

/// A flow's simulator state, agents and summary (TCP with its sink and its summary entry are
/// about 1.5 KB).
const PER_FLOW: u64 = 2048;
/// A link's state and summary entry.
const PER_LINK: u64 = 1024;
/// A packet in the network with its event.
const PER_PACKET: u64 = 128;
/// Packets a datagram flow is counted to keep in the network, at most (a TCP flow keeps its
/// window).
const PER_DATAGRAM_FLOW: u64 = 1000;
/// A wireless node's MAC, radio, interface queue (50 packets), ARP and routing state, generously.
const PER_NODE: u64 = 64 * 1024;
/// A route to one destination (AODV's entry, or a static next hop): every node may hold one to
/// every other, N x N in all.
const PER_ROUTE: u64 = 48;
/// A leg of a node's recorded path (time and position).
const PER_LEG: u64 = 24;

/// The legs the nodes' paths will record: for random waypoint, a leg per pause and move, a move
/// taken as half the area's shorter side at the top speed (shorter than setdest's mean, so the
/// count errs high); for movement files, their moves.
fn mobility_legs(sc: &Scenario) -> u64 {
    use fairway_engine::wireless::{MobilitySpec, Speed};
    let Some(w) = &sc.wireless else { return 0 };
    let n = w.nodes.len() as u64;
    match &w.mobility {
        Some(MobilitySpec::RandomWaypoint { width, height, speed, pause }) => {
            let top = match speed {
                Speed::Constant(v) => *v,
                Speed::Uniform { max, .. } => *max,
            };
            let leg_s = pause.as_secs_f64() + 0.5 * width.min(*height) / top.max(f64::MIN_POSITIVE);
            let per_node = (sc.duration.as_secs_f64() / leg_s.max(1e-9)).ceil() + 1.0;
            (per_node.min(u64::MAX as f64) as u64).saturating_mul(n)
        }
        Some(MobilitySpec::Moves { moves, .. }) => moves.len() as u64 + n,
        None => n,
    }
}

/// Bytes of a row of flows.csv, queue.csv and classes.csv, about (full-precision numbers).
const FLOWS_CSV_ROW: u64 = 120;
const QUEUE_CSV_ROW: u64 = 160;
const CLASSES_CSV_ROW: u64 = 60;

/// The estimate for `sc`.
pub fn estimate(sc: &Scenario) -> Footprint {
    let bins = sc.duration.0.div_ceil(sc.monitor.bin.0.max(1)).max(1);
    let samples = sc.duration.0 / sc.monitor.queue_interval.0.max(1) + 1;
    let flows = sc.flows.len() as u64;
    let links = sc.links.len() as u64;
    let monitored = sc.monitor.links.len() as u64;
    let rows = flows.saturating_mul(bins);
    let series = monitored.saturating_mul(samples);
    // Every queue full at once, but never more than the flows can put in the network.
    let can_send: u64 = sc
        .flows
        .iter()
        .map(|f| f.tcp().map_or(PER_DATAGRAM_FLOW, |t| 2 * t.sender.window as u64))
        .fold(0u64, u64::saturating_add);
    let queued: u64 = sc
        .links
        .iter()
        .map(|l| match &l.queue {
            QueueSpec::DropTail(p) => match p.limit {
                Limit::Packets(n) => n as u64,
                // At least 40 bytes a packet (a TCP acknowledgement).
                Limit::Bytes(b) => b.0 / 40,
            },
            QueueSpec::Red(p) => p.limit as u64,
            QueueSpec::Cbt(p) => p.red.limit as u64,
            QueueSpec::Dcbt(p) => p.red.limit as u64,
            QueueSpec::Codel(p) => p.limit as u64,
            QueueSpec::FqCodel(p) => p.limit as u64,
            QueueSpec::Fred(p) => p.red.limit as u64,
            QueueSpec::Pie(p) => p.limit as u64,
        })
        .fold(0u64, u64::saturating_add);
    let waiting = queued.min(can_send);
    let classes = 3;
    let nodes = sc.wireless.as_ref().map_or(0, |w| w.nodes.len() as u64);
    let wireless = nodes
        .saturating_mul(PER_NODE)
        .saturating_add(nodes.saturating_mul(nodes).saturating_mul(PER_ROUTE))
        .saturating_add(mobility_legs(sc).saturating_mul(PER_LEG));
    Footprint {
        bins: rows.saturating_mul(std::mem::size_of::<BinRow>() as u64),
        samples: series.saturating_mul(std::mem::size_of::<QueueRow>() as u64),
        state: flows
            .saturating_mul(PER_FLOW)
            .saturating_add(links.saturating_mul(PER_LINK))
            .saturating_add(waiting.saturating_mul(PER_PACKET))
            .saturating_add(wireless),
        output: rows
            .saturating_mul(FLOWS_CSV_ROW)
            .saturating_add(series.saturating_mul(QUEUE_CSV_ROW))
            .saturating_add(bins.saturating_mul(classes * CLASSES_CSV_ROW))
            .saturating_add(flows.saturating_mul(1024))
            .saturating_add(links.saturating_mul(640)),
    }
}

/// "1.2 GB", "340 MB", "12 kB": a size for a message.
pub fn human(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= 1e12 {
        format!("{:.1} TB", b / 1e12)
    } else if b >= 1e9 {
        format!("{:.1} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.0} MB", b / 1e6)
    } else {
        format!("{:.0} kB", (b / 1e3).max(1.0))
    }
}

/// Refuses a scenario whose run would need more than `available` bytes of memory (`streamed`:
/// a run that writes its series as it goes), naming the estimate, its parts and the keys that
/// change it.
pub fn fits(sc: &Scenario, available: u64, streamed: bool) -> Result<Footprint, String> {
    let f = estimate(sc);
    let need = if streamed { f.streamed_memory() } else { f.memory() };
    if need <= available {
        return Ok(f);
    }
    let series = if streamed {
        String::new()
    } else {
        format!(
            "{} of flows.csv bins: {} flows x {} bins of {}; {} of queue.csv samples: {} links x one per {}; ",
            human(f.bins),
            sc.flows.len(),
            sc.duration.0.div_ceil(sc.monitor.bin.0.max(1)),
            sc.monitor.bin,
            human(f.samples),
            sc.monitor.links.len(),
            sc.monitor.queue_interval,
        )
    };
    Err(format!(
        "this run would hold about {} in memory ({series}{} of state for {} flows and {} links), more than the {} this machine has available; make `monitor.bin` or `monitor.queue_interval` larger, or list fewer `monitor.links`",
        human(need),
        human(f.state),
        sc.flows.len(),
        sc.links.len(),
        human(available)
    ))
}

/// Refuses a scenario whose results would not fit in `free` bytes of disk.
pub fn fits_disk(sc: &Scenario, free: u64, place: &str) -> Result<(), String> {
    let f = estimate(sc);
    if f.output <= free {
        return Ok(());
    }
    Err(format!(
        "this run would write about {} of results (flows.csv: {} flows x {} bins of {}; queue.csv: {} links x one sample per {}), more than the {} free at {place}; make `monitor.bin` or `monitor.queue_interval` larger, list fewer `monitor.links`, or write elsewhere (--out)",
        human(f.output),
        sc.flows.len(),
        sc.duration.0.div_ceil(sc.monitor.bin.0.max(1)),
        sc.monitor.bin,
        sc.monitor.links.len(),
        sc.monitor.queue_interval,
        human(free)
    ))
}

/// The memory this machine has available now (Linux: MemAvailable in /proc/meminfo); `None`
/// where that cannot be read.
pub fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb.saturating_mul(1024))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_scenario;

    fn scenario(duration: &str, monitor: &str) -> Scenario {
        let text = format!(
            r#"duration = "{duration}"
[[link]]
between = ["a", "r1"]
rate = "100Mb"
delay = "1ms"
[[link]]
between = ["r1", "r2"]
rate = "10Mb"
delay = "10ms"
[[link]]
between = ["r2", "b"]
rate = "100Mb"
delay = "1ms"
[[flow]]
name = "t"
app = "ftp"
from = "a"
to = "b"
window = 100
{monitor}"#
        );
        parse_scenario("t.toml", &text, "t").unwrap()
    }

    #[test]
    fn the_series_are_counted_row_by_row() {
        // 100 s: 1000 bins of 100 ms for one flow; 10 001 samples of 10 ms on the two
        // directions of the core link.
        let f = estimate(&scenario("100s", ""));
        assert_eq!(f.bins, 1000 * std::mem::size_of::<BinRow>() as u64);
        assert_eq!(f.samples, 2 * 10_001 * std::mem::size_of::<QueueRow>() as u64);
    }

    #[test]
    fn a_run_too_big_for_the_memory_is_refused_naming_the_keys() {
        // 10^6 s with explicit 100 ms samples: 2 x 10^7 samples of a queue.csv row each.
        let sc = scenario("1000000s", "[monitor]\nqueue_interval = \"100ms\"\nbin = \"1s\"\n");
        let row = std::mem::size_of::<QueueRow>() as u64;
        assert_eq!(estimate(&sc).samples, 2 * 10_000_001 * row);
        let e = fits(&sc, 1_000_000_000, false).unwrap_err();
        assert!(e.contains("queue.csv samples: 2 links x one per 100ms"), "{e}");
        assert!(e.contains("`monitor.queue_interval`") && e.contains("than the 1.0 GB"), "{e}");
        // Written as it goes, the series take disk, not memory: only the plots' copy is kept.
        let f = fits(&sc, 1_000_000_000, true).unwrap();
        assert!(f.streamed_memory() < 50_000_000, "{f:?}");
        let e = fits_disk(&sc, 1_000_000_000, "/x").unwrap_err();
        assert!(e.contains("more than the 1.0 GB free at /x") && e.contains("queue.csv: 2 links"), "{e}");
        // The defaults for so long a run sample once a second, and make 1 s bins: 2 x 10^6
        // samples and 10^6 bins, which fit even kept.
        let f = fits(&scenario("1000000s", ""), 1_000_000_000, false).unwrap();
        assert_eq!(f.samples, 2 * 1_000_001 * row);
        assert_eq!(f.bins, 1_000_000 * std::mem::size_of::<BinRow>() as u64);
    }
}
