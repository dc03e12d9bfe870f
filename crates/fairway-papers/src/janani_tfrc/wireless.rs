//! janani-tfrc's wireless part (§5.2, Tables 5 and 6): TFRC beside UDP for VoIP against the pause
//! time, and beside TCP for video conference against the speed, nodes moving by random waypoint
//! over 1000 m x 1000 m. The paper names no node count: each table runs at N = 10 (the notes'
//! proposal) and at N = 50, under both readings of "TFRC rate is set to X". Each run also
//! measures how long each flow's two ends had any multi-hop path between them, which bounds
//! what any routing could deliver.

use std::collections::{BTreeMap, VecDeque};

use toml_edit::{value, DocumentMut};

use super::super::{run_text, scenario_text, ReproduceError, ReproduceOptions};
use super::{App, ClassMeasures, Comparator, Reading};
use fairway_model::results::{RunResult, Summary};
use fairway_model::wireless::MacParams;
use fairway_report::stats::Estimate;

/// The two tables of §5.2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Table {
    /// Table 5: VoIP, TFRC beside UDP, pause 10 to 80 s at speed 10.
    Pause,
    /// Table 6: video conference, TFRC beside TCP, speed 10 to 60 m/s with 10 s pauses.
    Speed,
}

impl Table {
    pub const ALL: [Table; 2] = [Table::Pause, Table::Speed];

    pub fn number(self) -> u32 {
        match self {
            Table::Pause => 5,
            Table::Speed => 6,
        }
    }

    pub fn app(self) -> App {
        match self {
            Table::Pause => App::Voip,
            Table::Speed => App::VideoConference,
        }
    }

    pub fn comp(self) -> Comparator {
        match self {
            Table::Pause => Comparator::Udp,
            Table::Speed => Comparator::Tcp,
        }
    }

    /// The table's x values: pause times (s) or speeds (m/s), as the paper lists them.
    pub fn xs(self) -> &'static [u32] {
        match self {
            Table::Pause => &[10, 20, 30, 40, 50, 60, 70, 80],
            Table::Speed => &[10, 20, 30, 40, 50, 60],
        }
    }

    pub fn x_name(self) -> &'static str {
        match self {
            Table::Pause => "pause (s)",
            Table::Speed => "speed (m/s)",
        }
    }

    pub fn stem(self, reading: Reading) -> String {
        let base = match self {
            Table::Pause => "wireless-voip-udp",
            Table::Speed => "wireless-videoconf-tcp",
        };
        format!("{base}{}", reading.suffix())
    }
}

/// The node counts each table runs at: the notes' proposal (C4), and a denser network.
pub const NODE_COUNTS: [u32; 2] = [10, 50];

/// One set-up the tables may have come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Setup {
    pub reading: Reading,
    pub nodes: u32,
}

impl Setup {
    pub fn all() -> Vec<Setup> {
        Reading::ALL.iter().flat_map(|&reading| NODE_COUNTS.map(|nodes| Setup { reading, nodes })).collect()
    }

    pub fn label(&self) -> String {
        format!("{}, N = {}", if self.reading == Reading::AppLimited { "A" } else { "B" }, self.nodes)
    }
}

/// TFRC's and the comparator's measures at one point, with how the losses came about.
#[derive(Debug, Clone)]
pub struct Point {
    pub tfrc: ClassMeasures,
    pub comp: ClassMeasures,
    /// Per run: the share of each PDR, both classes (for claims on whole tables).
    pub pdrs: Vec<(f64, f64)>,
    /// The share of the time each flow's ends had a path of hops no longer than the radio's
    /// range, the mean over the run's flows.
    pub connected: Estimate,
    /// The fewest hops between a flow's ends while they were joined, the mean over time and flows.
    pub hops: Estimate,
    /// Data and control packets dropped, summed over the nodes, by cause.
    pub drops: Drops,
}

/// Drops by cause, means over the seeds.
#[derive(Debug, Clone, Default)]
pub struct Drops {
    /// No route: AODV had none, or its buffer of packets waiting for one overflowed or timed out.
    pub no_route: f64,
    /// The next hop's link broke (MAC retries exhausted), or the hop limit was reached.
    pub link: f64,
    /// The interface queue was full, or ARP gave up.
    pub queue: f64,
}

pub struct Results {
    pub points: BTreeMap<(Table, Setup, u32), Point>,
    pub reps: usize,
    /// Figures 8-10 and 12-17 ([`super::wireless_figures`]).
    pub figures: super::wireless_figures::Results,
}

impl Results {
    pub fn get(&self, t: Table, s: Setup, x: u32) -> &Point {
        &self.points[&(t, s, x)]
    }
}

/// The scenario text with `nodes` nodes and the table's x (pause or speed) set to `x`.
pub fn text_at(text: &str, table: Table, nodes: u32, x: u32) -> Result<String, String> {
    let mut doc: DocumentMut = text.parse().map_err(|e| format!("{e}"))?;
    let node = doc
        .get_mut("node")
        .and_then(|n| n.as_array_of_tables_mut())
        .and_then(|a| a.get_mut(0))
        .ok_or("no [[node]] entry")?;
    node["count"] = value(nodes as i64);
    let mobility = doc
        .get_mut("wireless")
        .and_then(|w| w.get_mut("mobility"))
        .and_then(|m| m.as_inline_table_mut())
        .ok_or("no [wireless] mobility = { ... }")?;
    match table {
        Table::Pause => mobility.insert("pause", format!("{x}s").into()),
        Table::Speed => mobility.insert("speed", (x as i64).into()),
    };
    Ok(doc.to_string())
}

/// How long one packet of `ip_bytes` holds an idle channel on one hop under ns-2's 802.11
/// defaults: DIFS, the mean backoff of CWmin / 2 slots, then RTS, CTS, the data frame and its
/// ACK with SIFS between them (IEEE 802.11 DCF; the frame lengths of ns-2's Mac/802_11).
pub fn airtime_s(ip_bytes: u32) -> f64 {
    let p = MacParams::default();
    let frames = [
        p.txtime(p.rts_len(), p.basic_rate),
        p.txtime(p.cts_len(), p.basic_rate),
        p.txtime(ip_bytes + p.header_len(), p.data_rate),
        p.txtime(p.ack_len(), p.basic_rate),
    ];
    let backoff = p.slot.as_secs_f64() * (p.cw_min / 2) as f64;
    p.difs().as_secs_f64() + backoff + 3.0 * p.sifs.as_secs_f64() + frames.iter().map(|d| d.as_secs_f64()).sum::<f64>()
}

/// Where node `path` is at time `t`: its waypoints joined by straight moves.
fn position(path: &[(f64, f64, f64)], t: f64) -> (f64, f64) {
    let k = path.partition_point(|p| p.0 <= t);
    if k == 0 {
        return (path[0].1, path[0].2);
    }
    if k == path.len() {
        let p = path[k - 1];
        return (p.1, p.2);
    }
    let (a, b) = (path[k - 1], path[k]);
    let f = if b.0 > a.0 { (t - a.0) / (b.0 - a.0) } else { 0.0 };
    (a.1 + f * (b.1 - a.1), a.2 + f * (b.2 - a.2))
}

/// The fewest hops of at most `range` metres from `from` to `to`, if there is such a path.
fn hops(pos: &[(f64, f64)], from: usize, to: usize, range: f64) -> Option<u32> {
    let mut dist = vec![u32::MAX; pos.len()];
    let mut q = VecDeque::from([from]);
    dist[from] = 0;
    while let Some(a) = q.pop_front() {
        if a == to {
            return Some(dist[a]);
        }
        for b in 0..pos.len() {
            let (dx, dy) = (pos[a].0 - pos[b].0, pos[a].1 - pos[b].1);
            if dist[b] == u32::MAX && dx * dx + dy * dy <= range * range {
                dist[b] = dist[a] + 1;
                q.push_back(b);
            }
        }
    }
    None
}

/// From the nodes' paths alone, sampled every 100 ms over each flow's life: the share of the
/// time the flow's ends had a multi-hop path between them, and the fewest hops while they did,
/// each the mean over the flows. NaN without wireless nodes.
pub fn paths(s: &Summary, res: &RunResult) -> (f64, f64) {
    let Some(w) = &s.wireless else { return (f64::NAN, f64::NAN) };
    let index = |name: &str| res.node_paths.iter().position(|(n, _)| n == name);
    let (mut shares, mut lengths) = (vec![], vec![]);
    for f in &s.flows {
        let (Some(a), Some(b)) = (index(&f.from), index(&f.to)) else { continue };
        let (mut up, mut all, mut sum) = (0u32, 0u32, 0u64);
        let mut k = 0;
        loop {
            let t = f.start_s + 0.1 * k as f64;
            if t >= f.stop_s {
                break;
            }
            k += 1;
            let pos: Vec<(f64, f64)> = res.node_paths.iter().map(|(_, p)| position(p, t)).collect();
            all += 1;
            if let Some(h) = hops(&pos, a, b, w.rx_range_m) {
                up += 1;
                sum += h as u64;
            }
        }
        if all > 0 {
            shares.push(up as f64 / all as f64);
        }
        if up > 0 {
            lengths.push(sum as f64 / up as f64);
        }
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    (mean(&shares), mean(&lengths))
}

fn drops(summaries: &[&Summary]) -> Drops {
    let mut d = Drops::default();
    for s in summaries {
        for n in s.wireless.iter().flat_map(|w| &w.nodes) {
            d.no_route += (n.net.no_route_drops + n.net.route_queue_drops) as f64;
            d.link += (n.net.link_broke_drops + n.net.ttl_drops + n.mac.retry_drops) as f64;
            d.queue += (n.mac.ifq_drops + n.net.arp_drops) as f64;
        }
    }
    let k = summaries.len().max(1) as f64;
    Drops { no_route: d.no_route / k, link: d.link / k, queue: d.queue / k }
}

pub fn run(opts: &ReproduceOptions, progress: &mut dyn FnMut(&str)) -> Result<Results, ReproduceError> {
    let mut points = BTreeMap::new();
    for table in Table::ALL {
        for setup in Setup::all() {
            let stem = table.stem(setup.reading);
            let (file, text) = scenario_text(opts, super::PAPER, &stem)?;
            for &x in table.xs() {
                let t = text_at(&text, table, setup.nodes, x).map_err(|m| super::edit_error(&file, m))?;
                let label =
                    format!("{stem}-n{}-{}{x}", setup.nodes, if table == Table::Pause { "pause" } else { "speed" });
                let runs = run_text(opts, &label, &file, &t, true, progress)?;
                let s: Vec<&Summary> = runs.summaries.iter().collect();
                let comp = table.comp().stem();
                let pdr = |s: &Summary, c: &str| {
                    s.classes.iter().find(|k| k.class == c).and_then(|k| k.pdr).unwrap_or(f64::NAN)
                };
                let joined: Vec<(f64, f64)> = runs
                    .summaries
                    .iter()
                    .zip(&runs.results)
                    .filter_map(|(s, r)| r.as_ref().map(|r| paths(s, r)))
                    .collect();
                let point = Point {
                    tfrc: ClassMeasures::of(&s, "tfrc"),
                    comp: ClassMeasures::of(&s, comp),
                    pdrs: s.iter().map(|s| (pdr(s, "tfrc"), pdr(s, comp))).collect(),
                    connected: Estimate::of(joined.iter().map(|j| j.0)),
                    hops: Estimate::of(joined.iter().map(|j| j.1)),
                    drops: drops(&s),
                };
                points.insert((table, setup, x), point);
            }
        }
    }
    let figures = super::wireless_figures::run(opts, progress)?;
    Ok(Results { points, reps: opts.reps, figures })
}

#[cfg(test)]
mod tests {
    use super::*;
    use fairway_model::wireless::{MobilitySpec, Speed};

    #[test]
    fn positions_follow_the_waypoints() {
        let path = [(0.0, 0.0, 0.0), (10.0, 100.0, 0.0), (20.0, 100.0, 0.0), (30.0, 100.0, 50.0)];
        assert_eq!(position(&path, 5.0), (50.0, 0.0));
        assert_eq!(position(&path, 15.0), (100.0, 0.0));
        assert_eq!(position(&path, 25.0), (100.0, 25.0));
        assert_eq!(position(&path, 99.0), (100.0, 50.0));
    }

    /// 180 bytes of IP packet: DIFS 50 us, backoff 15 x 20 us, RTS 352 us, CTS and ACK 304 us
    /// each, data 192 us of PLCP + (180 + 34) x 8 us, three SIFS of 10 us.
    #[test]
    fn a_small_packet_holds_the_channel_about_three_milliseconds() {
        let want = 50e-6 + 300e-6 + 352e-6 + 2.0 * 304e-6 + (192.0 + 214.0 * 8.0) * 1e-6 + 30e-6;
        assert!((airtime_s(180) - want).abs() < 1e-9, "{} vs {want}", airtime_s(180));
    }

    #[test]
    fn a_path_may_take_several_hops() {
        // 0 - 1 - 2 in a line 200 m apart, 3 far away.
        let pos = [(0.0, 0.0), (200.0, 0.0), (400.0, 0.0), (900.0, 900.0)];
        assert_eq!(hops(&pos, 0, 2, 250.0), Some(2));
        assert_eq!(hops(&pos, 0, 2, 450.0), Some(1));
        assert_eq!(hops(&pos, 0, 2, 150.0), None);
        assert_eq!(hops(&pos, 0, 3, 250.0), None);
    }

    #[test]
    fn every_table_and_setup_has_its_file_and_its_x_can_be_set() {
        for table in Table::ALL {
            for reading in Reading::ALL {
                let stem = table.stem(reading);
                let text = super::super::super::embedded::file(super::super::PAPER, &stem).unwrap();
                let t = text_at(text, table, 50, 70).unwrap();
                let sc = fairway_scenario::parse_scenario(&stem, &t, "x").unwrap();
                let w = sc.wireless.as_ref().unwrap();
                assert_eq!(w.nodes.len(), 50, "{stem}");
                let Some(MobilitySpec::RandomWaypoint { speed, pause, .. }) = w.mobility.clone() else { panic!() };
                match table {
                    Table::Pause => assert_eq!((speed, pause.as_secs_f64()), (Speed::Constant(10.0), 70.0)),
                    Table::Speed => assert_eq!((speed, pause.as_secs_f64()), (Speed::Constant(70.0), 10.0)),
                }
            }
        }
    }
}
