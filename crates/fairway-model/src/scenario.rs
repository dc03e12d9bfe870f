//! The scenario model: what a scenario file says, checked and typed.
//!
//! fairway-scenario's parser turns TOML into a [`Scenario`]; every check that can be made before
//! running (units, ranges, names, routes) is made there, so the engine gets only scenarios it can
//! run. The file format is documented in docs/scenarios.md.

use std::sync::Arc;

use fairway_core::{Bytes, Dur, NodeId, Rate, Time};

pub use crate::protocol::DatagramSpec;
use crate::stream::StreamApp;
use crate::tcp_flow::TcpFlow;
pub use fairway_proto::iftp::{BackoffReset, IftpConfig};
pub use fairway_proto::mapp::{MappConfig, Pacing, ScaleTable};
pub use fairway_proto::source::CbrConfig;
pub use fairway_proto::tcp::{SinkConfig, TcpConfig, TcpVariant};

/// A scenario, checked.
#[derive(Debug, Clone)]
pub struct Scenario {
    pub name: String,
    pub description: String,
    pub duration: Dur,
    /// The end of the warm-up: the summary's figures count from here (zero: the whole run).
    /// The time series (flows.csv, queue.csv) still cover the whole run.
    pub measure_from: Dur,
    pub seed: u64,
    /// Wire mode: datagram protocols exchange their encoded bytes, each end decoding what
    /// arrives as it would from a socket, rather than typed messages.
    pub wire: bool,
    /// What orders simultaneous events (`clock`).
    pub clock: Clock,
    /// Node names; a `NodeId` indexes this list.
    pub nodes: Vec<String>,
    /// Simplex links; a duplex link in the file gives two.
    pub links: Vec<LinkSpec>,
    pub flows: Vec<FlowSpec>,
    pub monitor: MonitorSpec,
    /// Wireless nodes and their channel, if the scenario has any.
    pub wireless: Option<crate::wireless::WirelessSpec>,
}

/// What orders events that fall at the same nanosecond (`clock`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Clock {
    /// fairway's: the order they were scheduled in.
    #[default]
    Fairway,
    /// ns-2's: each event also carries the double-precision seconds ns-2 would give it, and the
    /// smaller double comes first (fairway-engine's `ns2_clock`). Every link then takes the
    /// general path.
    Ns2,
}

impl Clock {
    pub fn parse(s: &str) -> Option<Clock> {
        match s {
            "fairway" => Some(Clock::Fairway),
            "ns2" => Some(Clock::Ns2),
            _ => None,
        }
    }
}

#[derive(Debug, Clone)]
pub struct LinkSpec {
    pub from: NodeId,
    pub to: NodeId,
    pub rate: Rate,
    pub delay: Dur,
    pub queue: QueueSpec,
    /// What loses packets on the wire after their serialisation ([`LossModel`]: Bernoulli,
    /// like an ns-2 ErrorModel on the link, or Gilbert-Elliott's bursts); `LossModel::NONE` =
    /// none.
    pub loss: LossModel,
    /// Packets a FIFO between the discipline and the transmitter holds (`device_queue`): the
    /// device's own transmit queue under a queue disc, as ns-3's point-to-point links have it.
    /// 0 = none: the transmitter asks the discipline itself, as ns-2's links do.
    pub device_queue: u32,
    /// A rate or delay that changes during the run, or a per-packet delay variation; `rate` and
    /// `delay` above are then the values at time 0 (what a queue discipline is configured from).
    pub schedule: Option<Box<LinkSchedule>>,
}

/// A link's rate and propagation delay over the run (`rate = [{ at = "0s", rate = "1Mb" }, ...]`,
/// the same for `delay`), as RFC 8867's test cases change the bottleneck's capacity (§5.1) and
/// delay: steps in time order, the first at time 0, each in force until the next. An empty list
/// keeps the link's constant value.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LinkSchedule {
    pub rate: Vec<(Time, Rate)>,
    pub delay: Vec<(Time, Dur)>,
    /// Each packet's extra delay (`jitter`), if any.
    pub jitter: Option<Jitter>,
}

/// RFC 8868 §4.5.2's packet delay variation without reordering (NR-BPDV), with §4.5.3's
/// distribution: each packet gets an extra delay |N(0, std^2)| truncated at `n_std` x `std`, and
/// arrives no sooner than its own serialisation time after the packet ahead of it (the RFC's
/// j(n) >= j(n-1) + serial(n-1), for all of the link's packets rather than one flow's).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Jitter {
    pub std: Dur,
    pub n_std: f64,
}

impl Jitter {
    /// §4.5.3's recommended values: std 5 ms, N_STD 3.
    pub const RFC8868: Jitter = Jitter { std: Dur::from_millis(5), n_std: 3.0 };

    /// One packet's extra delay, from two uniform draws (Box-Muller).
    pub fn sample(&self, rng: &mut fairway_core::Rng) -> Dur {
        let u1 = rng.uniform().max(f64::MIN_POSITIVE);
        let u2 = rng.uniform();
        let n = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
        let z = n.clamp(-self.n_std, self.n_std).abs();
        Dur::from_secs_f64(z * self.std.as_secs_f64())
    }
}

impl LinkSchedule {
    /// The rate in force at `t`, `None` if the rate does not change.
    pub fn rate_at(&self, t: Time) -> Option<Rate> {
        step_at(&self.rate, t)
    }

    /// The propagation delay in force at `t`, `None` if the delay does not change.
    pub fn delay_at(&self, t: Time) -> Option<Dur> {
        step_at(&self.delay, t)
    }
}

/// The value of the last step at or before `t`.
fn step_at<T: Copy>(steps: &[(Time, T)], t: Time) -> Option<T> {
    let i = steps.partition_point(|(at, _)| *at <= t);
    steps.get(i.checked_sub(1)?).map(|s| s.1)
}

pub use crate::loss_model::LossModel;
pub use fairway_aqm::QueueSpec;

/// A traffic flow between two nodes.
#[derive(Debug, Clone)]
pub struct FlowSpec {
    pub name: String,
    /// The `[[flow]]` entry it came from (flows declared with `count = N` share it).
    pub group: String,
    pub from: NodeId,
    pub to: NodeId,
    pub start: Time,
    /// A random start: the flow starts at a time drawn uniformly from [start, start +
    /// start_spread), from a stream of its own (so each seed gives other times, and the
    /// other streams are untouched). 0 = at `start`.
    pub start_spread: Dur,
    /// When the application stops offering data; `None` = the end of the run.
    pub stop: Option<Time>,
    /// Each data packet waits at its source a uniform random time in [0, send_jitter) before it
    /// enters the first link, in order (a packet never overtakes the one before it): the random
    /// host processing time that breaks phase effects (Floyd & Jacobson 1992). 0 = none.
    pub send_jitter: Dur,
    /// Spells in which the application pauses and resumes with its session kept (`pause =
    /// [{ at, until }, ...]`, RFC 8867 §5.8), in time order, each within [start, stop); the
    /// sender's endpoint stops at `at` and starts again at `until`. Empty: none.
    pub pauses: Vec<(Time, Time)>,
    pub app: AppSpec,
}

impl FlowSpec {
    /// When it starts in a run with `seed`: at `start`, or, with a random start, at a time drawn
    /// from a stream of its own (drawn only where asked for, so that no other stream moves).
    pub fn start_with(&self, seed: u64) -> Time {
        if self.start_spread.is_zero() {
            return self.start;
        }
        let mut rng = fairway_core::Rng::stream(seed, &format!("start:{}", self.name));
        self.start + Dur::from_nanos(rng.below(self.start_spread.0))
    }

    /// The TCP settings of a flow carried by TCP.
    pub fn tcp(&self) -> Option<&TcpSpec> {
        match &self.app {
            AppSpec::Ftp { tcp } | AppSpec::Transfer { tcp, .. } | AppSpec::Web { tcp, .. } => Some(tcp),
            AppSpec::Datagram(_) => None,
        }
    }

    pub fn transport(&self) -> &'static str {
        match &self.app {
            AppSpec::Datagram(d) => d.spec.transport(),
            // ns-2's senders by their names; another congestion control by its own.
            _ => {
                self.tcp().map_or("udp", |t| if t.sender.cc == "reno" { t.sender.variant.name() } else { t.sender.cc })
            }
        }
    }
    /// The traffic class the summary groups by: "tcp", "udp" (unresponsive or self-paced
    /// datagrams: CBR, MApp, IFTP) or "tfrc".
    pub fn class(&self) -> &'static str {
        match &self.app {
            AppSpec::Datagram(d) => d.spec.class(),
            AppSpec::Ftp { .. } | AppSpec::Transfer { .. } | AppSpec::Web { .. } => "tcp",
        }
    }
}

#[derive(Debug, Clone)]
pub enum AppSpec {
    /// FTP: an unlimited TCP transfer (ns-2 Application/FTP).
    Ftp { tcp: TcpSpec },
    /// A TCP transfer of a fixed size, then the flow is done.
    Transfer { tcp: TcpSpec, size: Bytes },
    /// Web-like sessions (kadhum2015 §4.2): Poisson arrivals, each a TCP transfer of a
    /// Pareto-distributed size.
    Web { tcp: TcpSpec, interarrival: Dur, mean_size: Bytes, shape: f64 },
    /// An application over a datagram transport (CBR over UDP, MApp over UDPm, IFTP, ...):
    /// one of the protocols of `protocols::REGISTRY`.
    Datagram(DatagramApp),
}

/// A datagram protocol's settings for one flow, as its module parsed them.
#[derive(Debug, Clone)]
pub struct DatagramApp {
    pub spec: Arc<dyn DatagramSpec>,
}

impl DatagramApp {
    /// The protocol's configuration, if it is a `T` (CbrConfig for CBR over UDP, MappConfig,
    /// IftpConfig).
    pub fn config<T: 'static>(&self) -> Option<&T> {
        self.spec.config().downcast_ref()
    }
}

impl AppSpec {
    /// Settings that depend on the route: each flow of a `count` group is parsed on its own.
    pub fn per_route(&self) -> bool {
        matches!(self, AppSpec::Datagram(d) if d.spec.per_route())
    }

    /// The flow's driver: its endpoints, ready to start.
    pub fn driver(&self, b: &crate::protocol::Build) -> Result<Box<dyn crate::driver::FlowDriver>, String> {
        match self {
            AppSpec::Datagram(d) => d.spec.build(b),
            AppSpec::Ftp { tcp } => Ok(Box::new(TcpFlow::new(tcp.clone(), StreamApp::Ftp, b))),
            AppSpec::Transfer { tcp, size } => Ok(Box::new(TcpFlow::new(tcp.clone(), StreamApp::Transfer(*size), b))),
            AppSpec::Web { tcp, interarrival, mean_size, shape } => {
                let app = StreamApp::Web { interarrival: *interarrival, mean_size: *mean_size, shape: *shape };
                Ok(Box::new(TcpFlow::new(tcp.clone(), app, b)))
            }
        }
    }

    /// The configuration of a datagram app, if it is a `T`.
    pub fn config<T: 'static>(&self) -> Option<&T> {
        match self {
            AppSpec::Datagram(d) => d.config(),
            _ => None,
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            AppSpec::Ftp { .. } => "ftp",
            AppSpec::Transfer { .. } => "transfer",
            AppSpec::Web { .. } => "web",
            AppSpec::Datagram(d) => d.spec.app(),
        }
    }
}

/// TCP settings: the sender's and the sink's configurations, named after ns-2's Agent/TCP and
/// Agent/TCPSink variables; defaults are ns-2 2.35's.
#[derive(Debug, Clone, PartialEq)]
pub struct TcpSpec {
    pub sender: TcpConfig,
    /// `delayed_ack: None` acks every packet (ns-2 TCPSink); `Some(interval)` is TCPSink/DelAck.
    pub sink: SinkConfig,
    /// The phase of each connection's tick clock (ns-2 `boot_time_`, the scenario's
    /// `tick_phase`); `None`: drawn per connection from the flow's stream, as ns-2 draws it.
    pub tick_phase: Option<Dur>,
}

impl TcpSpec {
    pub fn ns2_default(variant: TcpVariant) -> TcpSpec {
        // ns-2 pairs Agent/TCP/Sack1 with Agent/TCPSink/Sack1, the sink that sends SACK blocks.
        let sink = SinkConfig { sack: variant == TcpVariant::Sack, ..SinkConfig::default() };
        TcpSpec { sender: TcpConfig::new(variant), sink, tick_phase: None }
    }
}

/// What to record and how finely.
#[derive(Debug, Clone, PartialEq)]
pub struct MonitorSpec {
    /// Width of the throughput bins in flows.csv and the throughput plot.
    pub bin: Dur,
    /// Sampling interval of queue.csv.
    pub queue_interval: Dur,
    /// Links whose queue is sampled over time (indices into `Scenario::links`).
    pub links: Vec<usize>,
    /// The series of protocols that flows.csv has a column for, in order. The scenario reader
    /// lists every registered protocol's, so that the columns are the same whatever the flows.
    pub series: Vec<crate::results::SeriesInfo>,
}

impl Scenario {
    /// The flows `names` names (each a flow's name or its `[[flow]]` entry's, for all of the
    /// entry's flows), as indices in order, each once; every flow for no names. The error is
    /// the first name that matches nothing, and the flows that exist (the first 20, for a
    /// message).
    pub fn flows_named(&self, names: &[String]) -> Result<Vec<usize>, (String, String)> {
        if names.is_empty() {
            return Ok((0..self.flows.len()).collect());
        }
        let mut v = vec![];
        for n in names {
            let hits: Vec<usize> =
                (0..self.flows.len()).filter(|&i| self.flows[i].name == *n || self.flows[i].group == *n).collect();
            if hits.is_empty() {
                let known: Vec<&str> = self.flows.iter().take(20).map(|f| f.name.as_str()).collect();
                let more = if self.flows.len() > 20 { ", ..." } else { "" };
                return Err((n.clone(), format!("{}{more}", known.join(", "))));
            }
            v.extend(hits);
        }
        v.sort_unstable();
        v.dedup();
        Ok(v)
    }

    pub fn node_name(&self, n: NodeId) -> &str {
        &self.nodes[n.index()]
    }

    /// "from->to" for a link index. (Concatenated rather than `format!`ted: results name every
    /// link, and a topology may have tens of thousands.)
    pub fn link_name(&self, l: usize) -> String {
        let s = &self.links[l];
        let (a, b) = (self.node_name(s.from), self.node_name(s.to));
        let mut name = String::with_capacity(a.len() + 2 + b.len());
        name.push_str(a);
        name.push_str("->");
        name.push_str(b);
        name
    }

    pub fn flow_index(&self, name: &str) -> Option<usize> {
        self.flows.iter().position(|f| f.name == name)
    }
}
