//! What a run of a scenario will hold in memory and write, estimated before it runs, so that
//! `check` and `run` can refuse what would not fit (docs/scenarios.md, "What is refused").
//!
//! The large terms are exact counts times the size of a row; the rest (per-flow and per-link
//! state, packets waiting in queues) are bounded generously, so the estimate errs high.

use fairway_aqm::Limit;
use fairway_core::{Bytes, NodeId, Time};
use fairway_engine::routing::Router;
use fairway_model::protocol::Load;
use fairway_model::results::{BinRow, QueueRow};
use fairway_model::scenario::{AppSpec, Clock, FlowSpec, Scenario};

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
    use fairway_model::wireless::{MobilitySpec, Speed};
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
        .map(|l| match l.queue.limit() {
            Limit::Packets(n) => n as u64,
            // At least 40 bytes a packet (a TCP acknowledgement).
            Limit::Bytes(b) => b.0 / 40,
        })
        .fold(0u64, u64::saturating_add);
    // What waits in queues, and what propagates on the wires.
    let waiting = queued.min(can_send).saturating_add(traffic(sc).in_flight.ceil().min(u64::MAX as f64) as u64);
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

/// Events a packet costs on each wired hop: its transmission's end and its arrival (the queue
/// works inside them).
const EVENTS_PER_HOP: f64 = 2.0;
/// On a link whose discipline decides at dequeue or is not one FIFO (CoDel, FQ-CoDel, CBT), or
/// that has a device queue, the engine's general path adds an event per serialisation.
const GENERAL_PATH_EVENTS: f64 = 1.0;
/// Events a packet costs at its ends beside the hops: its send and its delivery.
const EVENTS_PER_PACKET: f64 = 2.0;
/// A wireless hop's frames (RTS, CTS, DATA, ACK), each reaching every node in carrier-sense
/// range as two events (first bit, end of reception), and the sender's MAC timers per frame:
/// its defer, its backoff, its transmission's end, the wait for its answer, and the NAV and EIFS
/// the others set from it.
const WIRELESS_FRAMES: f64 = 4.0;
const MAC_TIMERS_PER_FRAME: f64 = 6.0;

/// What a flow offers, per [`Load`]: TCP's applications send as much as the path takes.
fn load(f: &FlowSpec) -> Load {
    match &f.app {
        AppSpec::Datagram(d) => d.spec.load(),
        AppSpec::Ftp { tcp } | AppSpec::Transfer { tcp, .. } | AppSpec::Web { tcp, .. } => Load {
            packets_per_s: None,
            timers_per_s: 0.0,
            packet_size: tcp.sender.packet_size + tcp.sender.header_size,
            window: Some(tcp.sender.window),
            // A timeout and its retransmission at most every RTO, at least a round trip and the
            // minimum RTO (RFC 6298 §2).
            timers_per_rtt: 2.0,
            feedback_per_rtt: 0.0,
            rtt_floor: tcp.sender.min_rto,
            total: match &f.app {
                AppSpec::Transfer { size, .. } => Some(size.0.div_ceil(tcp.sender.packet_size.0.max(1))),
                _ => None,
            },
        },
    }
}

/// Packets per second `rate` carries of `size`-byte packets.
fn pps(rate: fairway_core::Rate, size: Bytes) -> f64 {
    rate.0 as f64 / (8.0 * size.0.max(1) as f64)
}

/// The events a run of `sc` will process, about, erring high. A wired flow's packets: what its
/// application offers, or, for a sender the path paces, what the slowest link on its path
/// carries and its window lets through in a round trip of the path's delays; where flows share
/// a link, each gets its part of the link's packet rate (one step of max-min sharing, by what
/// they ask). An application that sends at its own rate loads each hop with what the links
/// before it let through; a paced one sends no faster than its share at the narrowest link.
/// A transfer sends its size at most. Each packet delivered sends an acknowledgement or
/// feedback back along the path.
/// Beside them: its application's own timers, the series' samples and bins, PIE's periodic
/// updates. Wireless flows are bounded by the channel's airtime ([`wireless_events`]).
pub fn events(sc: &Scenario) -> f64 {
    traffic(sc).events
}

/// What [`events`] counts, and the packets on the wires at once that come with it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Traffic {
    pub events: f64,
    /// Packets propagating on the links at once, at most: each link's packet rate times its
    /// delay, both ways (a long fat link holds its bandwidth-delay product).
    pub in_flight: f64,
}

/// Events each flow costs whatever it sends: its start, its stop, its ends' first and last
/// timers.
const EVENTS_PER_FLOW: f64 = 8.0;
/// Events a run costs whatever it holds: the first sample and bin, the end's, the warm-up's.
const EVENTS_PER_RUN: f64 = 8.0;

/// [`events`] and the packets in flight that come with them.
pub fn traffic(sc: &Scenario) -> Traffic {
    let end = Time::ZERO + sc.duration;
    let dur_s = sc.duration.as_secs_f64();
    let bins = sc.duration.0.div_ceil(sc.monitor.bin.0.max(1)) as f64;
    let samples = if sc.monitor.links.is_empty() { 0.0 } else { dur_s / sc.monitor.queue_interval.as_secs_f64() + 1.0 };
    let mut total = EVENTS_PER_RUN + bins + samples + EVENTS_PER_FLOW * sc.flows.len() as f64;
    let mut in_flight = 0.0;
    for l in &sc.links {
        total += dur_s * l.queue.timers_per_s(sc.flows.len());
    }
    let wireless: std::collections::HashSet<NodeId> =
        sc.wireless.iter().flat_map(|w| w.nodes.iter().map(|n| n.node)).collect();
    let mut router = Router::new(sc.nodes.len(), &sc.links.iter().map(|l| (l.from, l.to)).collect::<Vec<_>>());
    // The wired flows: their paths (as ranges of `hops`), what each asks (packets a second, at
    // most its path's slowest link), its packets' size, how long it runs, its load.
    let mut hops: Vec<usize> = vec![];
    let mut wired: Vec<(std::ops::Range<usize>, f64, f64, f64, Load)> = vec![];
    // Per link: the packets a second asked of it, and their bytes.
    let (mut asked, mut asked_bytes) = (vec![0.0f64; sc.links.len()], vec![0.0f64; sc.links.len()]);
    let mut air_pps = 0.0;
    for f in &sc.flows {
        let active_s = end.min(f.stop.unwrap_or(end)).0.saturating_sub(f.start.0) as f64 * 1e-9;
        if active_s <= 0.0 {
            continue;
        }
        let l = load(f);
        let offered = l.packets_per_s.unwrap_or(f64::INFINITY);
        if wireless.contains(&f.from) || wireless.contains(&f.to) {
            let w = sc.wireless.as_ref().expect("wireless nodes");
            let p = offered.min(pps(w.mac.data_rate, l.packet_size));
            air_pps += 2.0 * p;
            let sent = if offered.is_finite() { offered } else { p };
            total += active_s * (l.timers_per_s + sent + EVENTS_PER_PACKET * p);
            continue;
        }
        let from = hops.len();
        if !router.route_into(f.from, f.to, &mut hops) {
            continue;
        }
        let path = from..hops.len();
        let mut want = hops[path.clone()].iter().fold(offered, |a, &k| a.min(pps(sc.links[k].rate, l.packet_size)));
        // The path's round trip, as short as it can be: its delays there and back (the way back
        // taken as long as the way there), and the serialisation of a packet of the smallest
        // size, 40 bytes (an acknowledgement; an MPEG slot's small frame), on each link; at
        // least the clock's tick.
        let rtt = hops[path.clone()]
            .iter()
            .map(|&k| 2.0 * sc.links[k].delay.as_secs_f64() + 1.0 / pps(sc.links[k].rate, Bytes(40)))
            .sum::<f64>()
            .max(1e-9);
        if let Some(w) = l.window {
            // A window a round trip.
            want = want.min(w as f64 / rtt);
        }
        // Per round trip: timers, and feedback that crosses the path back and is handled.
        let per_rtt = l.timers_per_rtt + l.feedback_per_rtt * (EVENTS_PER_HOP * (hops.len() - from) as f64 + 1.0);
        total += active_s * per_rtt / rtt.max(l.rtt_floor.as_secs_f64());
        if !want.is_finite() {
            // A flow to itself: no link, nothing carried.
            total += active_s * l.timers_per_s;
            continue;
        }
        // What it asks of each hop: a paced sender its path's rate on every hop; one that sends
        // at its own rate what the links up to the hop can take.
        // A transfer of a few packets asks, over the run, for no more than their number.
        let mean = l.total.map_or(f64::INFINITY, |n| n as f64 / active_s);
        let mut upto = offered;
        for &k in &hops[path.clone()] {
            upto = upto.min(pps(sc.links[k].rate, l.packet_size));
            let a = if offered.is_finite() { upto } else { want }.min(mean);
            asked[k] += a;
            asked_bytes[k] += a * l.packet_size.0 as f64;
        }
        wired.push((path, want, active_s, offered, l));
    }
    // Each link's events per packet, as its discipline (and its device queue) say it runs. On
    // ns-2's clock every link takes the general path, and a sender's timer is re-armed at every
    // acknowledgement that moves it (an event each).
    let ns2 = sc.clock == Clock::Ns2;
    let hop_events: Vec<f64> = sc
        .links
        .iter()
        .map(|l| {
            let fast = !ns2 && l.queue.departure_known_on_admission() && l.device_queue == 0;
            EVENTS_PER_HOP + if fast { 0.0 } else { GENERAL_PATH_EVENTS }
        })
        .collect();
    // The share of what is asked of each link that it can carry.
    let share: Vec<f64> = (0..sc.links.len())
        .map(|k| {
            if asked[k] <= 0.0 {
                return 1.0;
            }
            let mean = asked_bytes[k] / asked[k];
            (sc.links[k].rate.0 as f64 / (8.0 * mean) / asked[k]).min(1.0)
        })
        .collect();
    for (path, want, active_s, offered, l) in wired {
        // Down the path, what the links so far let through (a paced sender: its share at the
        // narrowest link, on every hop); back, one packet per delivery.
        let mut through = if offered.is_finite() {
            offered
        } else {
            hops[path.clone()].iter().fold(want, |a, &k| a.min(want * share[k]))
        };
        // Packets over the flow's run: at a rate, or a transfer's size at most.
        let count = |rate: f64| (rate * active_s).min(l.total.map_or(f64::INFINITY, |n| n as f64));
        let mut down = 0.0;
        for &k in &hops[path.clone()] {
            through = through.min(pps(sc.links[k].rate, l.packet_size) * share[k]);
            down += count(through) * hop_events[k] / EVENTS_PER_HOP;
            in_flight += 2.0 * through * sc.links[k].delay.as_secs_f64();
        }
        let delivered = count(through);
        let back = delivered * path.len() as f64;
        let sent = count(if offered.is_finite() { offered } else { through });
        let (back_hop, rearms) =
            if ns2 { (EVENTS_PER_HOP + GENERAL_PATH_EVENTS, delivered) } else { (EVENTS_PER_HOP, 0.0) };
        total += active_s * l.timers_per_s
            + sent
            + EVENTS_PER_HOP * down
            + back_hop * back
            + EVENTS_PER_PACKET * 2.0 * delivered
            + rearms;
    }
    if let Some(w) = &sc.wireless {
        total += wireless_events(sc, w, air_pps);
    }
    Traffic { events: total, in_flight }
}

/// The wireless channel's events: the packets offered (`pps` a second in all) on as many hops as
/// the area's width takes, their frames retried to the limit but no more than the channel's
/// airtime carries, each frame heard by every node; a broadcast a second from every node
/// (routing, ARP); the moves of the nodes' paths; each node's first events.
fn wireless_events(sc: &Scenario, w: &fairway_model::wireless::WirelessSpec, pps: f64) -> f64 {
    let n = w.nodes.len() as f64;
    let dur_s = sc.duration.as_secs_f64();
    let (width, height) = match &w.mobility {
        Some(fairway_model::wireless::MobilitySpec::RandomWaypoint { width, height, .. }) => (*width, *height),
        _ => {
            let span = |c: &dyn Fn(&fairway_model::wireless::WirelessNode) -> f64| {
                let (lo, hi) = w.nodes.iter().map(c).fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(v), b.max(v)));
                (hi - lo).max(1.0)
            };
            (span(&|x| x.x), span(&|x| x.y))
        }
    };
    let (rx, cs) = (w.radio.rx_range().max(1.0), w.radio.cs_range().max(1.0));
    let hops = ((width * width + height * height).sqrt() / rx).ceil().clamp(1.0, (n - 1.0).max(1.0));
    let regions = (width * height / (std::f64::consts::PI * cs * cs)).ceil().clamp(1.0, (n / 2.0).max(1.0));
    let m = &w.mac;
    // Frames: each packet's on each hop, every one retried up to the retry limit (a receiver
    // out of range answers none), but no more than the channel carries of its shortest frames
    // (a preamble and header, then a SIFS) in each region, two at a time: stations whose
    // backoffs end in the same slot collide, both frames on the air.
    let plcp = (m.preamble_bits + m.plcp_header_bits) as f64 / m.plcp_rate.0.max(1) as f64;
    let shortest = plcp + m.sifs.as_secs_f64();
    let retries = m.short_retry.max(m.long_retry).max(1) as f64;
    let frames = (pps * hops * WIRELESS_FRAMES * retries).min(2.0 * regions / shortest) + n;
    // AODV finds each flow's route by a flood (every node rebroadcasts the request once): the
    // first try and up to three retries (ns-2's RREQ_RETRIES; RFC 3561 §10 suggests 2).
    let floods = match w.routing {
        fairway_model::wireless::Routing::Aodv => AODV_FLOODS_PER_FLOW * sc.flows.len() as f64 * n,
        _ => 0.0,
    };
    (dur_s * frames + floods) * (2.0 * n + MAC_TIMERS_PER_FRAME) + 2.0 * mobility_legs(sc) as f64 + EVENTS_PER_NODE * n
}

/// Route-request floods a flow's discovery may take under AODV: the first and its retries.
const AODV_FLOODS_PER_FLOW: f64 = 4.0;

/// A wireless node's events whatever it sends: its first position and move, its MAC's and
/// routing's first timers, ARP.
const EVENTS_PER_NODE: f64 = 24.0;

/// The run that measures an event's cost on this machine: two TCP flows and a CBR through RED
/// on a 10 Mb/s dumbbell, 5 s (some 60 000 events, tens of milliseconds).
const CALIBRATION: &str = r#"duration = "5s"
[[link]]
between = ["a", "r1"]
rate = "100Mb"
delay = "1ms"
[[link]]
between = ["r1", "r2"]
rate = "10Mb"
delay = "10ms"
queue = { kind = "red" }
[[link]]
between = ["r2", "b"]
rate = "100Mb"
delay = "1ms"
[[flow]]
name = "tcp"
count = 2
app = "ftp"
from = "a"
to = "b"
[[flow]]
name = "cbr"
app = "cbr"
from = "a"
to = "b"
rate = "2Mb"
"#;

/// What an event costs on this machine, ns: the calibration run's time over its events, the
/// faster of two runs (the first pays for cold caches).
pub fn ns_per_event() -> f64 {
    let sc = crate::parse_scenario("calibration.toml", CALIBRATION, "calibration").expect("the calibration scenario");
    let opts = fairway_engine::RunOptions::default();
    (0..2)
        .map(|_| {
            let t = std::time::Instant::now();
            let r = fairway_engine::run(&sc, &opts, &mut |_| {}).expect("the calibration run");
            t.elapsed().as_nanos() as f64 / r.summary.events.max(1) as f64
        })
        .fold(f64::INFINITY, f64::min)
}

/// Events of larger scenarios cost more than the calibration's, which stay in cache: the
/// 11 000-flow dumbbell's about three times as much (bench/results.md's series, N = 10 000), a
/// busy wireless run's about twice. The time estimate takes the calibration's cost this many
/// times, so that, with the event count's own margin, it errs high.
pub const COST_MARGIN: f64 = 2.0;

/// The time a run of `sc` takes on this machine at most, about, s: its [`events`] at the
/// calibration's cost per event, with [`COST_MARGIN`].
pub fn seconds(sc: &Scenario) -> f64 {
    events(sc) * ns_per_event() * COST_MARGIN * 1e-9
}

/// "3 s", "4 min", "2.5 h", "3 days": a duration for a message.
pub fn human_time(secs: f64) -> String {
    if secs < 1.0 {
        "under a second".into()
    } else if secs < 120.0 {
        format!("{secs:.0} s")
    } else if secs < 7200.0 {
        format!("{:.0} min", secs / 60.0)
    } else if secs < 3.0 * 86400.0 {
        format!("{:.1} h", secs / 3600.0)
    } else {
        format!("{:.0} days", secs / 86400.0)
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

    fn one_flow(link: &str, flow: &str) -> Scenario {
        let text = format!(
            "duration = \"10s\"\n[[link]]\nbetween = [\"a\", \"b\"]\nrate = \"10Mb\"\ndelay = \"10ms\"\n{link}\n[[flow]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\n{flow}\n"
        );
        parse_scenario("t.toml", &text, "t").unwrap()
    }

    /// dccp-ns2's three Tahoe flows on ns-2's clock, where every link takes the general path and
    /// each acknowledgement re-arms the sender's timer: the estimate covers the events the run
    /// makes, and is above the same scenario's on fairway's clock.
    #[test]
    fn ns2s_clock_is_counted() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/dccp-ns2/tcp.toml");
        let text = std::fs::read_to_string(path).unwrap().replacen("\nseed = ", "\nclock = \"ns2\"\nseed = ", 1);
        let ns2 = parse_scenario("tcp.toml", &text, "tcp").unwrap();
        assert_eq!(ns2.clock, Clock::Ns2);
        let own = Scenario { clock: Clock::Fairway, ..ns2.clone() };
        let done =
            fairway_engine::run(&ns2, &fairway_engine::RunOptions::default(), &mut |_| {}).unwrap().summary.events;
        assert!(events(&ns2) >= done as f64, "{done} events, estimated {}", events(&ns2));
        assert!(events(&ns2) > events(&own));
    }

    /// Issue 32's reproducers that `check` accepted and that ran far beyond the estimate: each
    /// is now counted at the rate its nanosecond timers set.
    #[test]
    fn nanosecond_timers_are_counted() {
        let cbr = "app = \"cbr\"";
        // PIE's update every nanosecond for 10 s.
        assert!(events(&one_flow("queue = { kind = \"pie\", t_update = \"1ns\" }", cbr)) >= 1e10);
        // Talk spurts of a nanosecond on and off, 5 x 10^8 a second: each sends a packet.
        let spurts = "app = \"voip\"\ntalk_spurts = true\non_mean = \"1ns\"\noff_mean = \"1ns\"";
        assert!(events(&one_flow("", spurts)) >= 5e8 * 10.0);
        // The same source at its defaults: a few thousand events.
        assert!(events(&one_flow("", "app = \"voip\"")) < 1e5);
        // MPEG at a million frames a second.
        let mpeg = "app = \"mpeg_app\"\nfps = 1e6";
        assert!(events(&one_flow("", mpeg)) >= 1e7);
        // TFRC's feedback timer every round trip, on a path of microseconds.
        let short = one_flow("", "app = \"ftp\"\ntransport = \"tfrc\"");
        let fast = parse_scenario(
            "t.toml",
            "duration = \"10s\"\n[[link]]\nbetween = [\"a\", \"b\"]\nrate = \"10Gb\"\ndelay = \"0s\"\n[[flow]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\napp = \"ftp\"\ntransport = \"tfrc\"\n",
            "t",
        )
        .unwrap();
        assert!(events(&fast) > 100.0 * events(&short));
    }

    /// A long fat link holds its bandwidth-delay product: 22 Gb/s of talk spurts over 341 ms
    /// held 60 MB of packets against an estimate of 175 kB.
    #[test]
    fn packets_on_the_wire_are_counted_in_memory() {
        let long = |delay: &str| {
            let text = format!("duration = \"1s\"\n[[link]]\nbetween = [\"a\", \"b\"]\nrate = \"20Gb\"\ndelay = \"{delay}\"\n[[flow]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\napp = \"voip\"\ntalk_spurts = true\non_mean = \"150ns\"\noff_mean = \"25ns\"\n");
            estimate(&parse_scenario("t.toml", &text, "t").unwrap()).state
        };
        // 5.7 million spurts a second, each a packet, 341 ms on the wire: 2 million packets.
        assert!(long("341ms") > 2_000_000 * PER_PACKET, "{}", long("341ms"));
        assert!(long("1ms") < long("341ms") / 100);
    }
}
