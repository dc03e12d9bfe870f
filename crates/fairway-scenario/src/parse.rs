//! Scenario files (TOML) to [`Scenario`]. The format is documented in docs/scenarios.md.

use std::path::Path;

use fairway_aqm::OnLink;
use fairway_core::{Dur, NodeId, Rate, Time};
use toml_edit::ImDocument;

use fairway_engine::fasthash::FastMap;
use fairway_engine::routing::Router;
use fairway_model::scenario::*;
use fairway_proto::tcp::cc;
use fairway_proto::tcp::options::{option_set, OptionSet, OPTION_SETS};
use fairway_proto::tcp::{PrrBound, RtoStyle, SackRecovery, SinkConfig, TcpConfig};

use crate::loss::parse_loss;
use crate::protocols::{self, packet_size, window_pkts, MAX_PACKET};
use crate::queues::parse_queue;
use crate::reader::{Place, Res, ScenarioError, Source, Tbl, Val};
use fairway_model::wireless::{WirelessNode, WirelessSpec};

const TOP_KEYS: &[&str] = &[
    "name",
    "description",
    "duration",
    "measure_from",
    "seed",
    "wire",
    "clock",
    "link",
    "node",
    "wireless",
    "flow",
    "monitor",
    "sweep",
];
const LINK_KEYS: &[&str] =
    &["between", "from", "to", "rate", "delay", "jitter", "queue", "loss", "device_queue", "count"];
/// The largest `device_queue` accepted: far beyond any device's ring (ns-3's default is 100).
const DEVICE_QUEUE_MAX: i64 = 1_000_000;
const FLOW_KEYS_COMMON: &[&str] =
    &["name", "app", "transport", "from", "to", "start", "stop", "count", "send_jitter", "pause"];
const TCP_KEYS: &[&str] = &[
    "packet_size",
    "window",
    "ssthresh",
    "window_init",
    "max_cwnd",
    "max_burst",
    "dupack_thresh",
    "ecn",
    "tick",
    "min_rto",
    "max_rto",
    "initial_rto",
    "overhead",
    "tick_phase",
    "delayed_ack",
    "quick_ack",
    "header_size",
    "ack_size",
    "cc",
    "flavor",
    "sack",
    "options",
    "timestamps",
    "recovery",
    "prr",
    "rto",
    "hystart",
    "rack",
    "tlp",
];
/// The apps TCP carries.
const TCP_APPS: &[&str] = &["ftp", "transfer", "web"];
const MONITOR_KEYS: &[&str] = &["bin", "queue_interval", "links"];
/// How a built-in scenario's name ends (`scenarios/<paper>/<stem>.toml (built in)`, as
/// fairway-papers names the files compiled into it): such a scenario has no folder, so a file it
/// names (a video trace) cannot be found and is refused. Any other name's folder is where such
/// files are read from: a scenario parsed from text under a bare name (`t.toml`) reads them from
/// the current directory.
pub const BUILT_IN: &str = " (built in)";

/// Reads and checks a scenario file.
pub fn parse_scenario_file(path: &Path) -> Result<Scenario, ScenarioError> {
    parse_scenario_file_warn(path).map(|(sc, _)| sc)
}

/// Reads and checks a scenario file; also returns the warnings: settings that are valid but
/// likely not what was meant, each located like an error (docs/scenarios.md, "Warnings").
pub fn parse_scenario_file_warn(path: &Path) -> Result<(Scenario, Vec<ScenarioError>), ScenarioError> {
    let file = path.display().to_string();
    let text = crate::text_file::read(path, crate::text_file::MAX_SCENARIO_BYTES, "a scenario file")
        .map_err(|message| ScenarioError { file: file.clone(), line: 0, col: 0, field: String::new(), message })?;
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("scenario");
    parse_scenario_warn(&file, &text, stem)
}

/// Parses and checks scenario text. `file` names it in errors; `default_name` is used when the
/// file has no `name`.
pub fn parse_scenario(file: &str, text: &str, default_name: &str) -> Result<Scenario, ScenarioError> {
    parse_scenario_warn(file, text, default_name).map(|(sc, _)| sc)
}

/// [`parse_scenario`], with the warnings.
pub fn parse_scenario_warn(
    file: &str,
    text: &str,
    default_name: &str,
) -> Result<(Scenario, Vec<ScenarioError>), ScenarioError> {
    let src = Source::new(file, text);
    let doc = ImDocument::parse(text).map_err(|e| {
        let msg = e.message().trim().to_string();
        src.error(e.span(), "", format!("not valid TOML: {msg}"))
    })?;
    let root = Tbl::root(&src, doc.as_table(), Some(0..0));
    let mut b = Builder {
        dir: Path::new(file).parent().map(Path::to_path_buf).unwrap_or_default(),
        built_in: file.ends_with(BUILT_IN),
        ..Default::default()
    };
    let sc = b.build(&root, default_name)?;
    let mut warnings = src.take_warnings();
    warnings.append(&mut b.warnings);
    Ok((sc, warnings))
}

/// What one `[[flow]]` entry of greedy TCP flows can put in flight through its bottleneck.
struct WindowUse {
    /// Where to point a warning (its message is set when there is one).
    at: ScenarioError,
    link: usize,
    /// The entry's windows summed, in packets.
    windows: u64,
    bdp: f64,
    rtt: f64,
    rate: Rate,
}

#[derive(Default)]
struct Builder {
    nodes: Vec<String>,
    node_ids: FastMap<String, NodeId>,
    links: Vec<LinkSpec>,
    /// Where each (from, to) link was declared, to report duplicates.
    link_at: FastMap<(NodeId, NodeId), Place>,
    warnings: Vec<ScenarioError>,
    /// The wireless nodes, their channel and stack, and which of them the radio joins
    /// ([`crate::wireless::components`]).
    wireless: Option<WirelessSpec>,
    components: Vec<u32>,
    /// The scenario file's folder (files it names are read from there).
    dir: std::path::PathBuf,
    /// A built-in scenario ([`BUILT_IN`]): it has no folder for a flow's files.
    built_in: bool,
}

impl Builder {
    fn node(&mut self, name: String) -> NodeId {
        if let Some(id) = self.node_ids.get(&name) {
            return *id;
        }
        let id = NodeId(self.nodes.len() as u32);
        self.nodes.push(name.clone());
        self.node_ids.insert(name, id);
        id
    }

    fn build(&mut self, root: &Tbl, default_name: &str) -> Res<Scenario> {
        let name = match root.get("name") {
            Some(v) => v.name()?,
            None => default_name.to_string(),
        };
        let description = match root.get("description") {
            Some(v) => v.string()?,
            None => String::new(),
        };
        let dv = root.req("duration")?;
        let duration = dv.dur_pos()?;
        let measure_from = match root.get("measure_from") {
            Some(v) => {
                let d = v.dur()?;
                if d >= duration {
                    return Err(v.error(format!(
                        "{d} is not before the end of the run ({duration}): nothing would be measured"
                    )));
                }
                d
            }
            None => Dur::ZERO,
        };
        let seed = match root.get("seed") {
            Some(v) => v.u64()?,
            None => 1,
        };
        let wire = match root.get("wire") {
            Some(v) => v.bool()?,
            None => false,
        };
        let clock = match root.get("clock") {
            Some(v) => {
                let s = v.string()?;
                Clock::parse(&s).ok_or_else(|| v.error(format!("unknown clock `{s}`: expected fairway or ns2")))?
            }
            None => Clock::Fairway,
        };

        // A scenario has links, wireless nodes, or both.
        let links = match (root.get("link"), root.get("node")) {
            (None, None) => Some(root.req("link")?),
            (l, _) => l,
        };
        for entry in links.map(|l| l.tables()).transpose()?.unwrap_or_default() {
            // A `count` group whose `{i}` is only in the node names: its first entry is read
            // in full and the others take everything else from it (see `repeats_only`).
            let again = repeats_only(&entry, &["between", "from", "to"]);
            let mut first: Option<LinkProps> = None;
            let entries = expand(&entry)?;
            // Room for a group of thousands at once, rather than growing (and rehashing) as
            // they come: each entry is at most two links and two new nodes.
            self.links.reserve(2 * entries.len());
            self.link_at.reserve(2 * entries.len());
            self.nodes.reserve(2 * entries.len());
            self.node_ids.reserve(2 * entries.len());
            for (t, _) in entries {
                match &first {
                    Some(props) if again => self.link_again(&t, props)?,
                    _ => first = Some(self.link(&t)?),
                }
            }
        }

        self.wireless_nodes(root)?;

        let mut flows = vec![];
        let fv = root.req("flow")?;
        let mut router = Router::new(self.nodes.len(), &self.links.iter().map(|l| (l.from, l.to)).collect::<Vec<_>>());
        let mut flow_names: FastMap<String, Place> = FastMap::default();
        let mut window_uses = vec![];
        // Each coupled group's sender node, with its first flow's name and place.
        let mut senders: FastMap<String, (NodeId, String, Place)> = FastMap::default();
        for (gi, entry) in fv.tables()?.into_iter().enumerate() {
            let group = match entry.get("name") {
                Some(v) => v.string()?.replace("{i}", ""),
                None => format!("flow{gi}"),
            };
            let again = repeats_only(&entry, &["name", "from", "to"]);
            let mut first: Option<FlowSpec> = None;
            let entries = expand(&entry)?;
            let n_entries = entries.len() as u64;
            flows.reserve(entries.len());
            flow_names.reserve(entries.len());
            for (t, idx) in entries {
                let f = match &first {
                    // Settings that come from the route (IFTP's packet time) differ from flow to flow.
                    Some(f0) if again && !f0.app.per_route() => self.flow_again(&t, idx, gi, f0, &mut router)?,
                    _ => self.flow(&t, idx, gi, &group, duration, &mut router)?,
                };
                if first.is_none() {
                    window_uses.extend(self.window_use(&t, &f, n_entries, &mut router));
                    first = Some(f.clone());
                }
                // A flow that stops before measuring begins gives a row of zeros.
                if let Some(stop) = f.stop.filter(|s| s.0 <= measure_from.0) {
                    let at = t.get("stop").map_or_else(|| t.error(""), |v| v.error(""));
                    self.warnings.push(ScenarioError {
                        message: format!(
                            "flow `{}` stops at {}, not after `measure_from` ({measure_from}): its measures are all zero",
                            f.name,
                            Dur(stop.0)
                        ),
                        ..at
                    });
                }
                if let Some(prev) = flow_names.get(&f.name) {
                    return Err(t.error(format!("flow name `{}` is already used by {}", f.name, prev.render())));
                }
                flow_names.insert(f.name.clone(), t.place());
                self.check_sender(&t, &f, &mut senders)?;
                flows.push(f);
            }
        }

        self.warn_windows(window_uses);
        let monitor = self.monitor(root.get("monitor"), duration, &flows, &mut router)?;
        // flows.csv keeps a row per flow per bin in memory: refuse sizes that would exhaust it.
        let rows = (duration.0 / monitor.bin.0).saturating_add(1).saturating_mul(flows.len() as u64);
        if rows > MAX_FLOW_ROWS {
            let msg = format!(
                "{} flows x {} bins of {} = {rows} rows of flows.csv; make `bin` larger (at most {MAX_FLOW_ROWS} rows)",
                flows.len(),
                duration.0 / monitor.bin.0,
                monitor.bin
            );
            let bin = root.get("monitor").and_then(|m| m.table().ok()).and_then(|t| t.get("bin"));
            return Err(match bin {
                Some(b) => b.error(msg),
                None => root.error(msg),
            });
        }
        // `[sweep]` is read and checked by crate::sweep; a plain run uses the base values.
        let _ = root.get("sweep");
        root.finish(TOP_KEYS)?;
        let (nodes, links) = (std::mem::take(&mut self.nodes), std::mem::take(&mut self.links));
        let wireless = self.wireless.take();
        Ok(Scenario {
            name,
            description,
            duration,
            measure_from,
            seed,
            wire,
            clock,
            nodes,
            links,
            flows,
            monitor,
            wireless,
        })
    }

    /// RFC 8699 couples the flows of one sender (its §1 and §3): every flow of a coupled group
    /// starts at the node its first flow starts at.
    fn check_sender(&self, t: &Tbl, f: &FlowSpec, senders: &mut FastMap<String, (NodeId, String, Place)>) -> Res<()> {
        let AppSpec::Datagram(d) = &f.app else { return Ok(()) };
        let Some(group) = d.spec.coupled_group() else { return Ok(()) };
        match senders.get(group) {
            Some((from, first, place)) if *from != f.from => {
                let msg = format!(
                    "coupled group `{group}` sends from node `{}` (flow `{first}`, {}), this flow from `{}`: RFC 8699 \
                     couples the flows of one sender, so a group's flows start at one node",
                    self.nodes[from.0 as usize],
                    place.render(),
                    self.nodes[f.from.0 as usize],
                );
                Err(match t.get("couple") {
                    Some(v) => v.error(msg),
                    None => t.error(msg),
                })
            }
            Some(_) => Ok(()),
            None => {
                senders.insert(group.to_string(), (f.from, f.name.clone(), t.place()));
                Ok(())
            }
        }
    }

    /// `[[node]]` entries and the `[wireless]` table.
    fn wireless_nodes(&mut self, root: &Tbl) -> Res<()> {
        let mut placed: Vec<WirelessNode> = vec![];
        let mut places = vec![];
        for entry in root.get("node").map(|v| v.tables()).transpose()?.unwrap_or_default() {
            for (t, idx) in expand(&entry)? {
                let (name, at) = crate::wireless::node(&t, idx)?;
                if let Some(id) = self.node_ids.get(&name) {
                    if placed.iter().any(|w| w.node == *id) {
                        return Err(t.error(format!("node `{name}` is declared twice")));
                    }
                }
                let node = self.node(name);
                let (x, y) = at.unwrap_or((0.0, 0.0));
                placed.push(WirelessNode { node, x, y, placed: at.is_some() });
                places.push(t.error(""));
            }
        }
        if placed.is_empty() {
            if let Some(w) = root.get("wireless") {
                return Err(w.error("`[wireless]` settings, but no wireless `[[node]]`"));
            }
            return Ok(());
        }
        let spec = crate::wireless::spec(root.get("wireless"), placed, &self.dir)?;
        let random = matches!(spec.mobility, Some(fairway_model::wireless::MobilitySpec::RandomWaypoint { .. }));
        if let Some(i) = spec.nodes.iter().position(|w| !w.placed && !random) {
            let mut e = places.swap_remove(i);
            e.message = format!(
                "node `{}` has no position: give `at = [x, y]`, place it in the movement file, or let random waypoint place it",
                self.nodes[spec.nodes[i].node.index()]
            );
            return Err(e);
        }
        self.components = crate::wireless::components(&spec);
        self.wireless = Some(spec);
        Ok(())
    }

    /// What RED derives from the link (ns-2's automatic thresholds and weight come from its rate
    /// and delay) is checked here, as the run would, and located at the queue; settings that
    /// are valid but defeat RED are warned of.
    /// A `[[flow]]` entry of greedy TCP flows (`ftp`): the first flow's bottleneck, round trip
    /// and bandwidth-delay product, for [`Builder::warn_windows`].
    fn window_use(&self, t: &Tbl, f: &FlowSpec, flows: u64, router: &mut Router) -> Option<WindowUse> {
        let tcp = f.tcp()?;
        if !matches!(f.app, AppSpec::Ftp { .. }) {
            return None;
        }
        let (fwd, rev) = (router.route(f.from, f.to)?, router.route(f.to, f.from)?);
        let link = *fwd.iter().min_by_key(|&&l| self.links[l].rate.0)?;
        let wire = (tcp.sender.packet_size.0 + tcp.sender.header_size.0) as f64 * 8.0;
        let ack = 40.0 * 8.0;
        // One packet's round trip with nothing queued: propagation both ways, the packet's
        // serialisation on the way out and the ACK's on the way back.
        let leg = |route: &[usize], bits: f64| -> f64 {
            route.iter().map(|&l| self.links[l].delay.as_secs_f64() + bits / self.links[l].rate.0 as f64).sum()
        };
        let rtt = leg(&fwd, wire) + leg(&rev, ack);
        let rate = self.links[link].rate;
        let at = match t.get("window") {
            Some(v) => v.error(""),
            None => t.error(""),
        };
        Some(WindowUse {
            at,
            link,
            windows: flows * tcp.sender.window as u64,
            bdp: rate.0 as f64 * rtt / wire,
            rtt,
            rate,
        })
    }

    /// Greedy TCP flows whose windows (ns-2's `window_`, 20 packets by default) together stay
    /// below their bottleneck's bandwidth-delay product cannot fill it: warned when they could
    /// use less than 90% of it, each entry's flows counted with all others through that link.
    fn warn_windows(&mut self, uses: Vec<WindowUse>) {
        let mut total: FastMap<usize, u64> = FastMap::default();
        for u in &uses {
            *total.entry(u.link).or_default() += u.windows;
        }
        for mut u in uses {
            let all = total[&u.link] as f64;
            if all < 0.9 * u.bdp {
                u.at.message = format!(
                    "the greedy TCP flows through {} have windows of {all} packets in all, below its bandwidth-delay product ({:.1} packets: {} over this flow's round trip of {:.1} ms): they can use at most {:.0}% of it; raise `window` if that is not meant",
                    self.link_name(u.link),
                    u.bdp,
                    u.rate,
                    u.rtt * 1e3,
                    100.0 * all / u.bdp
                );
                if !u.at.field.ends_with("window") {
                    u.at.field = format!("{}.window", u.at.field);
                }
                self.warnings.push(u.at);
            }
        }
    }

    fn on_link(&self, n: NodeId) -> bool {
        self.links.iter().any(|l| l.from == n || l.to == n)
    }

    fn link_name(&self, l: usize) -> String {
        let link = &self.links[l];
        format!("{}->{}", self.nodes[link.from.index()], self.nodes[link.to.index()])
    }

    /// Reads a `[[link]]` entry in full; returns what a `count` group's other entries share.
    fn link(&mut self, t: &Tbl) -> Res<LinkProps> {
        let ends = link_ends(t)?;
        let rate_steps = steps(&t.req("rate")?, "rate", |v| v.rate_pos())?;
        let delay_steps = steps(&t.req("delay")?, "delay", |v| v.dur())?;
        let (rate, delay) = (rate_steps[0].1, delay_steps[0].1);
        let jitter = t.get("jitter").map(|v| parse_jitter(&v)).transpose()?;
        let schedule = (rate_steps.len() > 1 || delay_steps.len() > 1 || jitter.is_some()).then(|| {
            Box::new(LinkSchedule {
                rate: if rate_steps.len() > 1 { rate_steps } else { vec![] },
                delay: if delay_steps.len() > 1 { delay_steps } else { vec![] },
                jitter,
            })
        });
        let loss = match t.get("loss") {
            Some(v) => parse_loss(&v)?,
            None => LossModel::NONE,
        };
        let queue = match t.get("queue") {
            Some(q) => parse_queue(&q, OnLink { rate, delay }, &mut self.warnings)?,
            None => QueueSpec::default(),
        };
        let device_queue = match t.get("device_queue") {
            Some(v) => v.int_in(0, DEVICE_QUEUE_MAX)? as u32,
            None => 0,
        };
        let props = LinkProps { rate, delay, queue, loss, device_queue, schedule };
        self.add_link(t, ends, &props)?;
        let _ = t.get("count");
        finish(t, LINK_KEYS)?;
        Ok(props)
    }

    /// Another entry of a `count` group read by [`Builder::link`]: its own ends, the rest as
    /// `props`.
    fn link_again(&mut self, t: &Tbl, props: &LinkProps) -> Res<()> {
        let ends = link_ends(t)?;
        self.add_link(t, ends, props)
    }

    /// Adds the link (both directions if duplex) between nodes named `a` and `b`.
    fn add_link(&mut self, t: &Tbl, (a, b, duplex): (String, String, bool), props: &LinkProps) -> Res<()> {
        let from = self.node(a);
        let to = self.node(b);
        let dirs = [(from, to), (to, from)];
        for &key in &dirs[..if duplex { 2 } else { 1 }] {
            if let Some(prev) = self.link_at.get(&key) {
                return Err(t.error(format!(
                    "a link from `{}` to `{}` is already declared at {}",
                    self.nodes[key.0.index()],
                    self.nodes[key.1.index()],
                    prev.render()
                )));
            }
            self.link_at.insert(key, t.place());
            let LinkProps { rate, delay, ref queue, loss, device_queue, ref schedule } = *props;
            self.links.push(LinkSpec {
                from: key.0,
                to: key.1,
                rate,
                delay,
                queue: queue.clone(),
                loss,
                device_queue,
                schedule: schedule.clone(),
            });
        }
        Ok(())
    }

    fn flow(
        &mut self,
        t: &Tbl,
        idx: Option<u64>,
        gi: usize,
        group: &str,
        duration: Dur,
        router: &mut Router,
    ) -> Res<FlowSpec> {
        let _ = t.get("count");
        let name = flow_name(t, idx, gi)?;
        let app_v = t.req("app")?;
        let app_name = app_v.string()?;
        let (from, to) = self.flow_ends(t)?;
        // `start = "uniform(A, B)"`: a random start in [A, B), drawn per run.
        let (start, start_spread) = match t.get("start") {
            Some(v) => match v.string().ok().as_deref().and_then(|s| s.strip_prefix("uniform(")) {
                Some(args) => {
                    let bad = || v.error("expected uniform(A, B) with times A < B, as in uniform(0s, 1s)".to_string());
                    let (a, b) = args.strip_suffix(')').and_then(|x| x.split_once(',')).ok_or_else(bad)?;
                    let a = Time::parse(a.trim()).map_err(|e| v.error(format!("uniform(A, B): {e}")))?;
                    let b = Time::parse(b.trim()).map_err(|e| v.error(format!("uniform(A, B): {e}")))?;
                    if b <= a {
                        return Err(bad());
                    }
                    (a, b.saturating_since(a))
                }
                None => (v.time()?, Dur::ZERO),
            },
            None => (Time::ZERO, Dur::ZERO),
        };
        let latest = start + start_spread;
        if start.0 >= duration.0 {
            return Err(t
                .req("start")?
                .error(format!("starts at {start}, at or after the end of the run ({duration})")));
        }
        if latest.0 >= duration.0 {
            return Err(t
                .req("start")?
                .error(format!("may start as late as {latest}, at or after the end of the run ({duration})")));
        }
        let stop = match t.get("stop") {
            Some(v) => {
                let s = v.time()?;
                if s <= start {
                    return Err(v.error(format!("stops at {s}, not after it starts ({start})")));
                }
                if s <= latest {
                    return Err(v.error(format!("stops at {s}, not after it may start ({latest} at the latest)")));
                }
                Some(s)
            }
            None => None,
        };
        let pauses = parse_pauses(t, latest, stop.unwrap_or(Time::ZERO + duration))?;
        // A random host delay before each data packet (docs/semantics.md, phase effects).
        let send_jitter = match t.get("send_jitter") {
            Some(v) => v.dur()?,
            None => Dur::ZERO,
        };
        let transport_v = t.get("transport");
        let transport = match &transport_v {
            Some(v) => Some((v.string()?, v)),
            None => None,
        };
        let tcp_variant = |default: TcpVariant| -> Res<TcpVariant> {
            Ok(transport.as_ref().and_then(|(s, _)| TcpVariant::parse(s)).unwrap_or(default))
        };
        // TCP's apps over TCP (the default); everything else through the datagram registry.
        let over_tcp = match &transport {
            None => true,
            Some((s, _)) => s == "tcp" || TcpVariant::parse(s).is_some(),
        };
        let app = match (app_name.as_str(), over_tcp) {
            ("ftp", true) => {
                let tcp = parse_tcp(t, tcp_variant(TcpVariant::NewReno)?)?;
                finish_app(t, &[TCP_KEYS])?;
                AppSpec::Ftp { tcp }
            }
            ("transfer", true) => {
                let tcp = parse_tcp(t, tcp_variant(TcpVariant::NewReno)?)?;
                let size = t.req("size")?.bytes_pos()?;
                finish_app(t, &[TCP_KEYS, &["size"]])?;
                AppSpec::Transfer { tcp, size }
            }
            ("web", true) => {
                let tcp = parse_tcp(t, tcp_variant(TcpVariant::NewReno)?)?;
                let interarrival = t.req("interarrival")?.dur_pos()?;
                let mean_size = t.req("mean_size")?.bytes_pos()?;
                let shape = match t.get("shape") {
                    Some(v) => {
                        let s = v.f64()?;
                        if s <= 1.0 {
                            return Err(v.error(format!("{s}: a Pareto shape must be above 1 for the mean to exist")));
                        }
                        s
                    }
                    None => 1.5,
                };
                finish_app(t, &[TCP_KEYS, &["interarrival", "mean_size", "shape"]])?;
                AppSpec::Web { tcp, interarrival, mean_size, shape }
            }
            (app, _) => {
                if !protocols::datagram_apps().contains(&app) && !TCP_APPS.contains(&app) {
                    let mut all = TCP_APPS.to_vec();
                    all.extend(protocols::datagram_apps().into_iter().filter(|a| !TCP_APPS.contains(a)));
                    return Err(app_v.error(format!("unknown app `{app}`: expected {}", all.join(", "))));
                }
                let reg = protocols::lookup(app, transport.as_ref().map(|(s, _)| s.as_str()));
                let Some(reg) = reg.filter(|r| r.apps.contains(&app)) else {
                    let (s, v) = transport.as_ref().expect("an app's default transport is registered and carries it");
                    let mut can: Vec<&str> = vec![];
                    if TCP_APPS.contains(&app) {
                        can.extend(TcpVariant::ALL.iter().map(|v| v.name()));
                    }
                    can.extend(protocols::REGISTRY.iter().filter(|r| r.apps.contains(&app)).map(|r| r.transport));
                    let known = TcpVariant::parse(s).is_some() || reg.is_some();
                    if !known {
                        // The app's transports, and every transport for a misspelt one.
                        let mut all: Vec<&str> = TcpVariant::ALL.iter().map(|v| v.name()).collect();
                        for r in protocols::REGISTRY {
                            if !all.contains(&r.transport) {
                                all.push(r.transport);
                            }
                        }
                        return Err(v.error(format!(
                            "unknown transport `{s}` for app `{app}`: expected {} (transports: {})",
                            can.join(", "),
                            all.join(", ")
                        )));
                    }
                    return Err(
                        v.error(format!("transport `{s}` cannot carry app `{app}`: expected {}", can.join(", ")))
                    );
                };
                let route_rates = router
                    .route(from, to)
                    .map(|path| path.iter().map(|&l| self.links[l].rate).collect())
                    .unwrap_or_default();
                let dir = (!self.built_in).then(|| self.dir.clone());
                let spec = (reg.parse)(t, app, &protocols::FlowContext { route_rates, dir })?;
                finish_app(t, reg.keys)?;
                AppSpec::Datagram(DatagramApp { spec })
            }
        };
        self.check_routes(t, from, to, &app, router)?;
        if !pauses.is_empty() && !matches!(&app, AppSpec::Datagram(d) if d.spec.transport() == "rtp") {
            return Err(t
                .req("pause")?
                .error("`pause` keeps a session across a spell of silence: RTP flows have it (transport = \"rtp\")"));
        }
        Ok(FlowSpec { name, group: group.to_string(), from, to, start, start_spread, stop, send_jitter, pauses, app })
    }

    /// Another entry of a `count` group whose first entry gave `first`: its own name and ends,
    /// the rest as `first`.
    fn flow_again(&self, t: &Tbl, idx: Option<u64>, gi: usize, first: &FlowSpec, router: &mut Router) -> Res<FlowSpec> {
        let name = flow_name(t, idx, gi)?;
        let (from, to) = self.flow_ends(t)?;
        self.check_routes(t, from, to, &first.app, router)?;
        Ok(FlowSpec { name, from, to, ..first.clone() })
    }

    /// A flow's two ends, which must be nodes on links, and different.
    fn flow_ends(&self, t: &Tbl) -> Res<(NodeId, NodeId)> {
        let end = |key: &str| -> Res<NodeId> {
            let v = t.req(key)?;
            let n = v.name()?;
            self.node_ids
                .get(&n)
                .copied()
                .ok_or_else(|| v.error(format!("node `{n}` is neither on a link nor a [[node]]")))
        };
        let from = end("from")?;
        let to = end("to")?;
        if from == to {
            return Err(t.error("a flow from a node to itself"));
        }
        Ok((from, to))
    }

    /// Both directions need a route: data one way, acknowledgements (or nothing) the other.
    fn check_routes(&self, t: &Tbl, from: NodeId, to: NodeId, app: &AppSpec, router: &mut Router) -> Res<()> {
        if let Some(w) = &self.wireless {
            let (a, b) = (w.index_of(from), w.index_of(to));
            if a.is_some() && b.is_some() {
                // AODV finds its routes as the run goes (or finds none: that is a result).
                if w.routing == fairway_model::wireless::Routing::Aodv {
                    return Ok(());
                }
                // Both ways: the receiver's feedback, and the link layer's ACKs and ARP, need
                // the way back (the radio links are symmetric anyway).
                if !crate::wireless::reachable(w, &self.components, from, to) {
                    let how = match w.routing {
                        fairway_model::wireless::Routing::Direct => format!(
                            "with routing = \"none\" every destination must be within one hop ({:.0} m)",
                            w.radio.rx_range()
                        ),
                        fairway_model::wireless::Routing::Static | fairway_model::wireless::Routing::Aodv => {
                            format!("the nodes within {:.0} m of each other do not connect them", w.radio.rx_range())
                        }
                    };
                    return Err(t.error(format!(
                        "no wireless route from `{}` to `{}`: {how}",
                        self.nodes[from.index()],
                        self.nodes[to.index()]
                    )));
                }
                return Ok(());
            }
            // A wireless node that is also on a link is reached over its links.
            let only_wireless = |n: NodeId, i: Option<usize>| i.is_some() && !self.on_link(n);
            if only_wireless(from, a) || only_wireless(to, b) {
                return Err(t.error(format!(
                    "a flow between `{}` and `{}`, one on the wireless network only and the other wired: routes that cross from one to the other are not supported yet",
                    self.nodes[from.index()],
                    self.nodes[to.index()]
                )));
            }
        }
        if !router.reachable(from, to) {
            return Err(t.error(format!(
                "no route from `{}` to `{}`",
                self.nodes[from.index()],
                self.nodes[to.index()]
            )));
        }
        if app.name() != "cbr" && !router.reachable(to, from) {
            return Err(t.error(format!(
                "no route back from `{}` to `{}` for the receiver's feedback",
                self.nodes[to.index()],
                self.nodes[from.index()]
            )));
        }
        Ok(())
    }

    fn monitor(&self, v: Option<Val>, duration: Dur, flows: &[FlowSpec], router: &mut Router) -> Res<MonitorSpec> {
        // 100 ms bins and 10 ms queue samples, coarser for runs long enough that these would
        // give more than DEFAULT_SAMPLES of either: memory follows the run's length only up
        // to there.
        let default = |fine: Dur, most: u64| fine.max(nice(Dur(duration.0.div_ceil(most.max(1))))).min(duration);
        let mut m = MonitorSpec {
            bin: default(Dur::from_millis(100), DEFAULT_SAMPLES.min(MAX_FLOW_ROWS / (flows.len() as u64).max(1))),
            queue_interval: default(Dur::from_millis(10), DEFAULT_SAMPLES),
            links: vec![],
            series: protocols::series(),
        };
        let mut explicit = None;
        if let Some(v) = v {
            let t = v.table()?;
            // At most ten million samples per series: finer is a typo, not a plan.
            let fine = |val: &Val, d: Dur| -> Res<Dur> {
                if duration.0 / d.0 > 10_000_000 {
                    return Err(val.error(format!("{d} gives more than ten million samples in {duration}")));
                }
                Ok(d)
            };
            if let Some(b) = t.get("bin") {
                m.bin = fine(&b, b.dur_pos()?)?;
            }
            if let Some(b) = t.get("queue_interval") {
                m.queue_interval = fine(&b, b.dur_pos()?)?;
            }
            if let Some(l) = t.get("links") {
                let mut idx = vec![];
                for name in l.strings()? {
                    let ends = name.split_once("->");
                    let found = self.links.iter().position(|s| {
                        ends.is_some_and(|(a, b)| self.nodes[s.from.index()] == a && self.nodes[s.to.index()] == b)
                    });
                    match found {
                        // Listed twice, a link's queue would be sampled twice into queue.csv.
                        Some(i) if idx.contains(&i) => return Err(l.error(format!("`{name}` is listed twice"))),
                        Some(i) => idx.push(i),
                        None => return Err(l.error(format!("no link `{name}` (write links as \"from->to\")"))),
                    }
                }
                explicit = Some(idx);
            }
            finish(&t, MONITOR_KEYS)?;
        }
        m.links = match explicit {
            Some(i) => i,
            None => {
                // Default: the core, i.e. links between nodes that are not stubs (a stub has a
                // single neighbour: a host on its access link).
                let mut pairs: Vec<(NodeId, NodeId)> =
                    self.links.iter().flat_map(|l| [(l.from, l.to), (l.to, l.from)]).collect();
                pairs.sort_unstable();
                pairs.dedup();
                let mut neighbours = vec![0usize; self.nodes.len()];
                for (a, _) in pairs {
                    neighbours[a.index()] += 1;
                }
                let core = |n: NodeId| neighbours[n.index()] > 1;
                let links: Vec<usize> =
                    (0..self.links.len()).filter(|i| core(self.links[*i].from) && core(self.links[*i].to)).collect();
                if links.is_empty() {
                    // No core (hosts on one switch, or one link): the links the flows cross,
                    // both ways, not every idle access link of a large star.
                    let mut used = vec![false; self.links.len()];
                    for f in flows {
                        for (a, b) in [(f.from, f.to), (f.to, f.from)] {
                            for l in router.route(a, b).unwrap_or_default() {
                                used[l] = true;
                            }
                        }
                    }
                    (0..self.links.len()).filter(|&l| used[l]).collect()
                } else {
                    links
                }
            }
        };
        Ok(m)
    }
}

/// A flow's name: as written, or in a `count` group with the index in place of `{i}` (or
/// appended when there is no `{i}`); `flow<group>` or `flow<group>-<index>` when none is given.
fn flow_name(t: &Tbl, idx: Option<u64>, gi: usize) -> Res<String> {
    Ok(match t.get("name") {
        Some(v) => match idx {
            Some(i) if !v.raw_string()?.contains("{i}") => format!("{}{i}", v.name()?),
            _ => v.name()?,
        },
        None => match idx {
            Some(i) => format!("flow{gi}-{i}"),
            None => format!("flow{gi}"),
        },
    })
}

/// What the entries of a `count = N` link group share: all but their ends.
struct LinkProps {
    rate: Rate,
    delay: Dur,
    queue: QueueSpec,
    loss: LossModel,
    device_queue: u32,
    schedule: Option<Box<LinkSchedule>>,
}

/// A link's `jitter`: `"5ms"` (the standard deviation, truncated at RFC 8868 §4.5.3's 3), or
/// `{ std = "5ms", n_std = 3 }`.
fn parse_jitter(v: &Val) -> Res<Jitter> {
    if !v.is_table() {
        return Ok(Jitter { std: v.dur_pos()?, ..Jitter::RFC8868 });
    }
    let t = v.table()?;
    let std = t.req("std")?.dur_pos()?;
    let n_std = match t.get("n_std") {
        Some(n) => {
            let x = n.f64()?;
            if !(x.is_finite() && x > 0.0) {
                return Err(n.error(format!("{x} is not a positive number of standard deviations")));
            }
            x
        }
        None => Jitter::RFC8868.n_std,
    };
    finish(&t, &["std", "n_std"])?;
    Ok(Jitter { std, n_std })
}

/// A link's `rate` or `delay` (`what`): one value, or a schedule of steps
/// `[{ at = "0s", rate = "1Mb" }, { at = "40s", rate = "2.5Mb" }]`, the first at 0 s and the
/// times increasing. One value is one step at 0.
fn steps<T>(v: &Val, what: &str, read: impl Fn(&Val) -> Res<T>) -> Res<Vec<(Time, T)>> {
    if !v.is_array() {
        return Ok(vec![(Time::ZERO, read(v)?)]);
    }
    let mut out: Vec<(Time, T)> = vec![];
    for step in v.tables()? {
        let at = step.req("at")?;
        let t = at.time()?;
        match out.last() {
            None if t != Time::ZERO => return Err(at.error(format!("the first {what} step must be at 0s"))),
            Some((prev, _)) if t <= *prev => {
                return Err(at.error(format!("{what} steps must come in increasing time ({t} after {prev})")));
            }
            _ => {}
        }
        out.push((t, read(&step.req(what)?)?));
        finish(&step, &["at", what])?;
    }
    if out.is_empty() {
        return Err(v.error(format!("a {what} schedule needs at least one step")));
    }
    Ok(out)
}

/// A link entry's two node names and whether it is duplex, checked.
fn link_ends(t: &Tbl) -> Res<(String, String, bool)> {
    let (a, b, duplex) = match (t.get("between"), t.get("from"), t.get("to")) {
        (Some(v), None, None) => {
            let ends = v.strings()?;
            if ends.len() != 2 {
                return Err(v.error("expected two node names, e.g. [\"r1\", \"r2\"]"));
            }
            let [a, b]: [String; 2] = ends.try_into().expect("two ends");
            (a, b, true)
        }
        (None, Some(f), Some(to)) => (f.name()?, to.name()?, false),
        (Some(v), _, _) => return Err(v.error("give either `between` (duplex) or `from` and `to` (simplex), not both")),
        _ => return Err(t.error("a link needs `between = [\"a\", \"b\"]` (duplex) or `from` and `to` (simplex)")),
    };
    if a == b {
        return Err(t.error(format!("a link from `{a}` to itself")));
    }
    for n in [&a, &b] {
        if n.contains("->") {
            return Err(t.error(format!("node name `{n}` must not contain `->`")));
        }
    }
    Ok((a, b, duplex))
}

/// Whether the entries of `t`'s `count` group differ only in `keys`: `{i}` appears nowhere
/// else. Its first entry is then read in full and the others copy all but those keys from it.
/// Every check that could fail for a later entry and not the first involves `{i}`, so the
/// copies fail the same checks, with the same messages, as reading each entry in full would.
/// With ten thousand flows, reading every entry in full was most of the time spent reading the
/// scenario.
fn repeats_only(t: &Tbl, keys: &[&str]) -> bool {
    t.has("count") && t.keys_mentioning("{i}").iter().all(|k| keys.contains(k))
}

/// Largest number of flows.csv rows (flows x bins) a scenario may ask for.
const MAX_FLOW_ROWS: u64 = 20_000_000;
/// At most this many bins, and queue samples per link, by default (docs/scenarios.md).
const DEFAULT_SAMPLES: u64 = 1_000_000;

/// The smallest of 1, 2 and 5 times a power of ten nanoseconds that is at least `d`.
fn nice(d: Dur) -> Dur {
    let mut p: u64 = 1;
    loop {
        for m in [1, 2, 5] {
            if p.saturating_mul(m) >= d.0 {
                return Dur(p.saturating_mul(m));
            }
        }
        if p > u64::MAX / 10 {
            return d;
        }
        p *= 10;
    }
}

/// Largest `count` accepted: a typo such as `count = 1000000000` should be an error, not a
/// run that exhausts memory.
const MAX_COUNT: i64 = 1_000_000;

/// The entries an array element stands for: itself, or `count` copies with `{i}` (0 to N-1)
/// substituted in its strings.
fn expand<'a>(t: &Tbl<'a>) -> Res<Vec<(Tbl<'a>, Option<u64>)>> {
    match t.get("count") {
        None => Ok(vec![(t.instance_plain(), None)]),
        Some(v) => {
            let n = v.int_in(1, MAX_COUNT)? as u64;
            Ok((0..n).map(|i| (t.instance(i), Some(i))).collect())
        }
    }
}

fn finish(t: &Tbl, keys: &[&str]) -> Res<()> {
    t.finish(keys)
}

fn finish_app(t: &Tbl, groups: &[&[&str]]) -> Res<()> {
    let mut keys: Vec<&str> = FLOW_KEYS_COMMON.to_vec();
    for k in groups.iter().flat_map(|g| g.iter()) {
        // A key two groups share (TFRC's packet_size and its source's) is listed once.
        if !keys.contains(k) {
            keys.push(k);
        }
    }
    finish(t, &keys)
}

/// The loss recovery a TCP flow's `transport`, `cc` and `sack` choose. `transport` names TCP
/// ("tcp") or one of ns-2's senders ("newreno", "reno", "tahoe", "sack", spellings of `cc` and
/// `sack`); `cc` names ns-2's senders (their recovery with AIMD) or a congestion control of
/// `tcp::cc::ALGORITHMS` (with NewReno's recovery); `sack = true` recovers from SACK blocks
/// (ns-2's Sack1).
fn tcp_choice(t: &Tbl, from_transport: TcpVariant, set: &OptionSet) -> Res<TcpVariant> {
    let mut variant = from_transport;
    let named = t.get("transport").is_some_and(|v| v.string().is_ok_and(|s| s != "tcp"));
    if let Some(v) = t.get("cc") {
        let name = v.string()?;
        let mut accepted: Vec<&str> =
            TcpVariant::ALL.iter().filter(|x| **x != TcpVariant::Sack).map(|x| x.name()).collect();
        for a in cc::ALGORITHMS {
            if !accepted.contains(&a.name) {
                accepted.push(a.name);
            }
        }
        let chosen = match TcpVariant::parse(&name) {
            Some(TcpVariant::Sack) | None if !cc::ALGORITHMS.iter().any(|a| a.name == name) => {
                return Err(v.error(format!("unknown cc `{name}`: expected {}", accepted.join(", "))));
            }
            Some(x) => x,
            None => TcpVariant::NewReno,
        };
        if named && name != from_transport.name() {
            return Err(v.error(format!(
                "cc `{name}` and transport `{}` disagree: give transport = \"tcp\" with cc, or the transport alone",
                from_transport.name()
            )));
        }
        variant = chosen;
    }
    if let Some(v) = t.get("sack") {
        match (v.bool()?, variant) {
            (true, TcpVariant::Tahoe) => {
                return Err(v.error("Tahoe has no SACK (ns-2's Sack1 is Reno's recovery with SACK)"))
            }
            (true, _) => variant = TcpVariant::Sack,
            (false, TcpVariant::Sack) if named => {
                return Err(v.error("transport `sack` is SACK: sack = false contradicts it"));
            }
            (false, _) => {}
        }
    } else if set.sack && variant != TcpVariant::Tahoe && !named {
        // The option set's SACK, which Tahoe's sender does without, and which does not turn an
        // ns-2 sender named by `transport` into another.
        variant = TcpVariant::Sack;
    }
    // RFC 6675 recovery needs SACK blocks: asking for it asks for SACK.
    if let Some(v) = t.get("recovery") {
        if recovery_name(&v)? == SackRecovery::Rfc6675 && variant != TcpVariant::Sack {
            if variant == TcpVariant::Tahoe {
                return Err(v.error("Tahoe has no SACK, which RFC 6675 recovery needs"));
            }
            if t.get("sack").is_some() {
                return Err(v.error("RFC 6675 recovery needs SACK: sack = false contradicts it"));
            }
            variant = TcpVariant::Sack;
        }
    }
    Ok(variant)
}

/// A TCP flow's `options`: the option set whose defaults its other keys override.
fn tcp_options(t: &Tbl) -> Res<OptionSet> {
    let Some(v) = t.get("options") else {
        return Ok(option_set(OPTION_SETS[0]).expect("the default option set exists"));
    };
    let name = v.string()?;
    option_set(&name).ok_or_else(|| v.error(format!("unknown options `{name}`: expected {}", OPTION_SETS.join(", "))))
}

/// `recovery = "ns2" | "rfc6675"`.
fn recovery_name(v: &Val) -> Res<SackRecovery> {
    let name = v.string()?;
    [SackRecovery::Ns2, SackRecovery::Rfc6675].into_iter().find(|r| r.name() == name).ok_or_else(|| {
        v.error(format!(
            "unknown recovery `{name}`: expected {}, {}",
            SackRecovery::Ns2.name(),
            SackRecovery::Rfc6675.name()
        ))
    })
}

fn parse_tcp(t: &Tbl, variant: TcpVariant) -> Res<TcpSpec> {
    let set = tcp_options(t)?;
    let variant = tcp_choice(t, variant, &set)?;
    let mut s = TcpSpec::ns2_default(variant);
    // The option set's defaults (ns-2's are TcpSpec's own), then the keys given.
    s.sender = TcpConfig { variant, cc: s.sender.cc, cc_flavor: s.sender.cc_flavor, ..set.sender.clone() };
    s.sink = SinkConfig { sack: s.sink.sack, ..set.sink.clone() };
    // ns-2's senders named by `transport` keep ns-2's recovery (Sack1 for "sack") unless the
    // scenario asks for RFC 6675's.
    let named = t.get("transport").is_some_and(|v| v.string().is_ok_and(|s| s != "tcp"));
    if variant != TcpVariant::Sack || named {
        s.sender.sack_recovery = SackRecovery::Ns2;
        s.sender.prr = None;
    }
    if let Some(v) = t.get("cc") {
        let name = v.string()?;
        if let Some(a) = cc::ALGORITHMS.iter().find(|a| a.name == name && TcpVariant::parse(a.name).is_none()) {
            s.sender.cc = a.name;
            // The option set's flavour of its own algorithm (linux: Linux's CUBIC).
            if let Some((_, flavor)) = set.cc.filter(|(n, _)| *n == a.name) {
                s.sender.cc_flavor = flavor;
            }
        }
    } else if let Some((name, flavor)) = set.cc {
        // Only a sender that runs a congestion control of its choosing: ns-2's named senders
        // (transport = "reno", ...) keep ns-2's window.
        if !named {
            s.sender.cc = name;
            s.sender.cc_flavor = flavor;
        }
    }
    if let Some(v) = t.get("flavor") {
        let f = v.string()?;
        let a = cc::algorithm(s.sender.cc).expect("a TCP sender's cc is registered");
        let Some(known) = a.flavors.iter().find(|x| **x == f) else {
            return Err(v.error(match a.flavors {
                [] => format!("cc `{}` has no flavours", s.sender.name()),
                all => format!("unknown flavor `{f}` of cc `{}`: expected {}", s.sender.cc, all.join(", ")),
            }));
        };
        s.sender.cc_flavor = known;
    }
    if let Some(v) = t.get("packet_size") {
        s.sender.packet_size = packet_size(&v)?;
    }
    if let Some(v) = t.get("timestamps") {
        s.sender.timestamps = v.bool()?;
    }
    // RFC 7323 §3: the option's 12 bytes on every segment, unless the sizes are given.
    s.sender.header_size = set.header_size(s.sender.timestamps);
    s.sink.ack_size = set.ack_size(s.sender.timestamps);
    if let Some(v) = t.get("recovery") {
        let r = recovery_name(&v)?;
        if variant == TcpVariant::Sack {
            s.sender.sack_recovery = r;
            // PRR as the set has it, unless `prr` says otherwise below; none in ns-2's Sack1.
            s.sender.prr = if r == SackRecovery::Rfc6675 { set.sender.prr } else { None };
        }
    }
    if let Some(v) = t.get("prr") {
        let bound = if v.is_str() {
            let name = v.string()?;
            let Some(b) = PrrBound::ALL.into_iter().find(|b| b.name() == name) else {
                let all: Vec<&str> = PrrBound::ALL.iter().map(|b| b.name()).collect();
                return Err(v.error(format!("unknown prr `{name}`: expected true, false, {}", all.join(", "))));
            };
            Some(b)
        } else if v.bool()? {
            // `true`: the option set's bound, RFC 6937's PRR-SSRB where it has none.
            Some(set.sender.prr.unwrap_or(PrrBound::Ssrb))
        } else {
            None
        };
        if bound.is_some() && s.sender.sack_recovery != SackRecovery::Rfc6675 {
            return Err(v.error("PRR runs in RFC 6675 recovery: give recovery = \"rfc6675\" with it"));
        }
        s.sender.prr = bound;
    }
    // RACK-TLP (RFC 8985) as the set has it, in RFC 6675 recovery only.
    if s.sender.sack_recovery != SackRecovery::Rfc6675 {
        s.sender.rack = false;
        s.sender.tlp = false;
    }
    if let Some(v) = t.get("rack") {
        let on = v.bool()?;
        if on && s.sender.sack_recovery != SackRecovery::Rfc6675 {
            return Err(v.error("RACK runs in RFC 6675 recovery: give recovery = \"rfc6675\" with it"));
        }
        s.sender.rack = on;
        s.sender.tlp = on;
    }
    if let Some(v) = t.get("tlp") {
        let on = v.bool()?;
        if on && !s.sender.rack {
            return Err(v.error("TLP runs with RACK: give rack = true with it"));
        }
        s.sender.tlp = on;
    }
    if let Some(v) = t.get("rto") {
        let name = v.string()?;
        s.sender.rto_style = match name.as_str() {
            "rfc6298" => RtoStyle::Rfc6298,
            "linux" => RtoStyle::Linux,
            _ => return Err(v.error(format!("unknown rto `{name}`: expected rfc6298, linux"))),
        };
    }
    if let Some(v) = t.get("hystart") {
        let on = v.bool()?;
        let algorithm = cc::algorithm(s.sender.cc).expect("a TCP sender's cc is registered");
        if on && !(algorithm.build)(&s.sender).has_hystart() {
            return Err(v.error(format!(
                "cc `{}`{} has no HyStart",
                s.sender.name(),
                if s.sender.cc_flavor.is_empty() { String::new() } else { format!(" flavor `{}`", s.sender.cc_flavor) }
            )));
        }
        s.sender.hystart = Some(on);
    }
    if let Some(v) = t.get("header_size") {
        let h = v.bytes()?;
        if h > MAX_PACKET {
            return Err(v.error(format!("{h} is larger than the {MAX_PACKET} a packet may have")));
        }
        s.sender.header_size = h;
    }
    if let Some(v) = t.get("ack_size") {
        s.sink.ack_size = packet_size(&v)?;
    }
    if let Some(v) = t.get("window") {
        s.sender.window = window_pkts(&v, 1)?;
    }
    if let Some(v) = t.get("window_init") {
        s.sender.window_init = window_pkts(&v, 1)?;
    }
    if let Some(v) = t.get("ssthresh") {
        // ns-2 sets the initial ssthresh_ to window_; elaarag2002 §6.1 gives TCP its own (32).
        s.sender.initial_ssthresh = Some(v.u32_min(1)?);
    }
    if let Some(v) = t.get("max_cwnd") {
        s.sender.max_cwnd = window_pkts(&v, 0)?;
    }
    if let Some(v) = t.get("max_burst") {
        s.sender.max_burst = v.u32_min(0)?;
    }
    if let Some(v) = t.get("dupack_thresh") {
        s.sender.dupack_thresh = v.u32_min(1)?;
    }
    if let Some(v) = t.get("ecn") {
        s.sender.ecn = v.bool()?;
    }
    if let Some(v) = t.get("tick") {
        s.sender.tick = v.dur_pos()?;
    }
    if let Some(v) = t.get("min_rto") {
        s.sender.min_rto = v.dur()?;
    }
    if let Some(v) = t.get("max_rto") {
        s.sender.max_rto = v.dur_pos()?;
    }
    if let Some(v) = t.get("initial_rto") {
        s.sender.initial_rto = v.dur_pos()?;
    }
    if let Some(v) = t.get("tick_phase") {
        // ns-2 `boot_time_`, which ns-2 draws in [0, tcpTick_) at each reset of the agent
        // (docs/semantics.md, "Phase effects"): pinned here, for every connection of the flow.
        let phase = v.dur()?;
        if phase >= s.sender.tick {
            return Err(v.error(format!("tick_phase {phase} must be under the tick, {}", s.sender.tick)));
        }
        s.tick_phase = Some(phase);
    }
    if let Some(v) = t.get("overhead") {
        // ns-2 `overhead_`: a random wait before new data is sent (docs/semantics.md, phase
        // effects).
        s.sender.overhead = v.dur()?;
    }
    if s.sender.min_rto > s.sender.max_rto {
        return Err(t
            .req("min_rto")?
            .error(format!("min_rto {} is above max_rto {}", s.sender.min_rto, s.sender.max_rto)));
    }
    if let Some(v) = t.get("delayed_ack") {
        s.sink.delayed_ack = if v.is_str() {
            Some(v.dur_pos()?)
        } else if v.bool()? {
            Some(Dur::from_millis(100)) // ns-2 Agent/TCPSink/DelAck interval_ default
        } else {
            None
        };
    }
    if let Some(v) = t.get("quick_ack") {
        s.sink.quick_ack = v.bool()?;
    }
    Ok(s)
}

/// `pause = [{ at = "40s", until = "60s" }, ...]`: spells in time order, each after the flow's
/// latest start and ending before it stops, none overlapping.
fn parse_pauses(t: &Tbl, latest_start: Time, stop: Time) -> Res<Vec<(Time, Time)>> {
    let Some(v) = t.get("pause") else { return Ok(vec![]) };
    let mut out: Vec<(Time, Time)> = vec![];
    for p in v.tables()? {
        let (at_v, until_v) = (p.req("at")?, p.req("until")?);
        p.finish(&["at", "until"])?;
        let (at, until) = (at_v.time()?, until_v.time()?);
        if at <= latest_start {
            return Err(at_v.error(format!("pauses at {at}, not after the flow starts ({latest_start})")));
        }
        if until <= at {
            return Err(until_v.error(format!("resumes at {until}, not after the pause at {at}")));
        }
        if until >= stop {
            return Err(until_v.error(format!("resumes at {until}, not before the flow stops ({stop})")));
        }
        if let Some(&(_, prev)) = out.last() {
            if at <= prev {
                return Err(at_v.error(format!("pauses at {at}, before the previous pause ends ({prev})")));
            }
        }
        out.push((at, until));
    }
    Ok(out)
}
