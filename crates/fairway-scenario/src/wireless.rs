//! The wireless keys of a scenario file: `[[node]]` entries (wireless nodes and where they
//! stand) and the `[wireless]` table (radio, MAC and routing, the same on every node). Defaults
//! are ns-2.35's (docs/scenarios.md, "Wireless nodes").

use std::path::Path;

use fairway_core::{Dur, NodeId, Rate};
use fairway_model::wireless::mobility::parse_moves;
use fairway_model::wireless::{MacParams, MobilitySpec, Model, Radio, Routing, Speed, WirelessNode, WirelessSpec};

use crate::reader::{Res, Tbl, Val};

pub const NODE_KEYS: &[&str] = &["name", "at", "step", "count"];
pub const WIRELESS_KEYS: &[&str] = &[
    "propagation",
    "routing",
    "data_rate",
    "basic_rate",
    "rts_threshold",
    "ifq_limit",
    "arp",
    "ll_delay",
    "tx_power",
    "frequency",
    "antenna_height",
    "system_loss",
    "rx_threshold",
    "cs_threshold",
    "capture_ratio",
    "cw_min",
    "cw_max",
    "slot",
    "sifs",
    "short_retry",
    "long_retry",
    "mobility",
];
pub const MOBILITY_KEYS: &[&str] = &["model", "area", "speed", "max_speed", "min_speed", "pause", "file"];

/// The farthest a node may stand from the origin on either axis, metres.
pub const MAX_COORD: f64 = 1e9;

/// A `[[node]]` entry (one of a `count` group): its name and position, metres, if it has one.
pub fn node(t: &Tbl, idx: Option<u64>) -> Res<(String, Option<(f64, f64)>)> {
    let name = t.req("name")?.name()?;
    let Some(at) = t.get("at") else {
        if let Some(s) = t.get("step") {
            return Err(s.error("`step` places the nodes of a `count` group from `at`, which is missing"));
        }
        let _ = t.get("count");
        t.finish(NODE_KEYS)?;
        return Ok((name, None));
    };
    let xy = at.numbers()?;
    if xy.len() != 2 {
        return Err(at.error(format!("expected [x, y] in metres, got {} numbers", xy.len())));
    }
    let (mut x, mut y) = (xy[0], xy[1]);
    match (t.get("step"), idx) {
        (Some(s), Some(i)) => {
            let d = s.numbers()?;
            if d.len() != 2 {
                return Err(s.error(format!("expected [dx, dy] in metres, got {} numbers", d.len())));
            }
            x += d[0] * i as f64;
            y += d[1] * i as f64;
        }
        (Some(s), None) => return Err(s.error("`step` places the nodes of a `count` group; this entry has no `count`")),
        (None, _) => {}
    }
    // A million kilometres either way: far beyond any radio's range, and finite (a position at
    // infinity has no distance to anything and cannot be written to JSON).
    if !(x.abs() <= MAX_COORD && y.abs() <= MAX_COORD) {
        return Err(
            at.error(format!("({x:e}, {y:e}) is outside the {MAX_COORD:e} m a position may lie from the origin"))
        );
    }
    // Read by `expand`, on the entry this instance came from.
    let _ = t.get("count");
    t.finish(NODE_KEYS)?;
    Ok((name, Some((x, y))))
}

fn positive(v: &Val, what: &str) -> Res<f64> {
    let x = v.f64()?;
    if x <= 0.0 {
        return Err(v.error(format!("{what} must be positive, got {x}")));
    }
    Ok(x)
}

/// A speed, m/s: positive and at most [`MAX_SPEED`].
fn speed(v: &Val, what: &str) -> Res<f64> {
    let x = positive(v, what)?;
    if x > MAX_SPEED {
        return Err(v.error(format!("{what} {x} is faster than light ({MAX_SPEED:e} m/s)")));
    }
    Ok(x)
}

fn rate(v: &Val) -> Res<Rate> {
    v.rate_pos()
}

fn dur(v: &Val) -> Res<Dur> {
    v.dur_pos()
}

/// The `[wireless]` table (absent: ns-2's defaults) for `nodes`; a movement file is read
/// from `dir`, the scenario file's folder.
pub fn spec(v: Option<Val>, nodes: Vec<WirelessNode>, dir: &Path) -> Res<WirelessSpec> {
    let mut s = WirelessSpec::ns2(nodes);
    let Some(v) = v else { return Ok(s) };
    let t = v.table()?;
    let r: &mut Radio = &mut s.radio;
    if let Some(v) = t.get("propagation") {
        r.model = match v.string()?.as_str() {
            "two_ray_ground" => Model::TwoRayGround,
            "free_space" => Model::FreeSpace,
            other => return Err(v.error(format!("unknown propagation `{other}` (two_ray_ground, free_space)"))),
        };
    }
    if let Some(v) = t.get("tx_power") {
        r.tx_power = positive(&v, "tx_power (W)")?;
    }
    if let Some(v) = t.get("frequency") {
        r.frequency = positive(&v, "frequency (Hz)")?;
    }
    if let Some(v) = t.get("antenna_height") {
        r.antenna_height = positive(&v, "antenna_height (m)")?;
    }
    if let Some(v) = t.get("system_loss") {
        let l = v.f64()?;
        if l < 1.0 {
            return Err(v.error(format!("system_loss is a loss factor, at least 1, got {l}")));
        }
        r.system_loss = l;
    }
    if let Some(v) = t.get("rx_threshold") {
        r.rx_threshold = positive(&v, "rx_threshold (W)")?;
    }
    if let Some(v) = t.get("cs_threshold") {
        r.cs_threshold = positive(&v, "cs_threshold (W)")?;
    }
    if r.cs_threshold > r.rx_threshold {
        let at = t.get("cs_threshold").or(t.get("rx_threshold")).expect("one was set");
        return Err(at.error(format!(
            "cs_threshold ({:e} W) is above rx_threshold ({:e} W): a node would decode frames it cannot sense",
            r.cs_threshold, r.rx_threshold
        )));
    }
    if let Some(v) = t.get("capture_ratio") {
        let c = v.f64()?;
        if c < 1.0 {
            return Err(v.error(format!("capture_ratio is a power ratio, at least 1, got {c}")));
        }
        r.capture_ratio = c;
    }
    let m: &mut MacParams = &mut s.mac;
    if let Some(v) = t.get("data_rate") {
        m.data_rate = rate(&v)?;
    }
    if let Some(v) = t.get("basic_rate") {
        m.basic_rate = rate(&v)?;
    }
    if let Some(v) = t.get("rts_threshold") {
        m.rts_threshold = v.int_in(0, u32::MAX as i64)? as u32;
    }
    if let Some(v) = t.get("ifq_limit") {
        // ns-2's DropTail holds limit - 1 behind the packet at the MAC: 2 is the least useful.
        m.ifq_limit = v.int_in(2, 1_000_000)? as usize;
    }
    if let Some(v) = t.get("cw_min") {
        m.cw_min = v.int_in(1, 1 << 20)? as u32;
    }
    if let Some(v) = t.get("cw_max") {
        m.cw_max = v.int_in(1, 1 << 20)? as u32;
    }
    if m.cw_min > m.cw_max {
        let at = t.get("cw_min").or(t.get("cw_max")).expect("one was set");
        return Err(at.error(format!("cw_min ({}) is above cw_max ({})", m.cw_min, m.cw_max)));
    }
    if let Some(v) = t.get("slot") {
        m.slot = dur(&v)?;
    }
    if let Some(v) = t.get("sifs") {
        m.sifs = dur(&v)?;
    }
    if let Some(v) = t.get("short_retry") {
        m.short_retry = v.int_in(1, 255)? as u32;
    }
    if let Some(v) = t.get("long_retry") {
        m.long_retry = v.int_in(1, 255)? as u32;
    }
    if let Some(v) = t.get("routing") {
        s.routing = match v.string()?.as_str() {
            "none" => Routing::Direct,
            "static" => Routing::Static,
            "aodv" => Routing::Aodv,
            other => return Err(v.error(format!("unknown routing `{other}` (none, static, aodv)"))),
        };
    }
    if let Some(v) = t.get("arp") {
        s.arp = v.bool()?;
    }
    if let Some(v) = t.get("ll_delay") {
        s.ll_delay = v.dur()?;
    }
    if let Some(m) = t.get("mobility") {
        s.mobility = Some(mobility(&m, &mut s.nodes, dir)?);
        if s.routing == Routing::Static {
            let at = t.get("routing").unwrap_or(m);
            return Err(at.error(
                "static routes are computed once, from where the nodes start: with moving nodes use routing = \"aodv\"",
            ));
        }
    }
    t.finish(WIRELESS_KEYS)?;
    Ok(s)
}

/// The largest movement file read, bytes: some million `setdest` commands.
pub const MAX_MOVES_BYTES: u64 = 64 << 20;

/// The fastest a node may move, m/s: light's speed (a random waypoint faster than any radio
/// could follow only multiplies the legs the run must record).
pub const MAX_SPEED: f64 = 3e8;

fn area(v: &Val) -> Res<(f64, f64)> {
    let wh = v.numbers()?;
    if wh.len() != 2 || wh.iter().any(|&d| !(1.0..=2.0 * MAX_COORD).contains(&d)) {
        return Err(v.error(format!("expected [width, height], two numbers of metres from 1 to {:e}", 2.0 * MAX_COORD)));
    }
    Ok((wh[0], wh[1]))
}

/// `[wireless.mobility]`: random waypoint, or ns-2 movement commands from a file.
fn mobility(v: &Val, nodes: &mut [WirelessNode], dir: &Path) -> Res<MobilitySpec> {
    let t = v.table()?;
    let model = t.req("model")?;
    let (width, height) = area(&t.req("area")?)?;
    let spec = match model.string()?.as_str() {
        "random_waypoint" => {
            let speed = match (t.get("speed"), t.get("max_speed")) {
                (Some(s), None) => Speed::Constant(speed(&s, "speed (m/s)")?),
                (None, Some(m)) => {
                    let max = speed(&m, "max_speed (m/s)")?;
                    let min = match t.get("min_speed") {
                        Some(v) => v.f64()?,
                        None => 0.0,
                    };
                    if !(0.0..max).contains(&min) {
                        return Err(t
                            .get("min_speed")
                            .expect("set")
                            .error(format!("min_speed must be in [0, max_speed), got {min}")));
                    }
                    Speed::Uniform { min, max }
                }
                (Some(s), Some(_)) => {
                    return Err(
                        s.error("give `speed` (constant) or `max_speed` (uniform, as setdest draws it), not both")
                    )
                }
                (None, None) => return Err(t.error(
                    "random waypoint needs `speed` (m/s, constant) or `max_speed` (uniform in (min_speed, max_speed])",
                )),
            };
            let pause = match t.get("pause") {
                Some(p) => p.dur()?,
                None => Dur::ZERO,
            };
            for w in nodes.iter() {
                let inside = (0.0..=width).contains(&w.x) && (0.0..=height).contains(&w.y);
                if w.placed && !inside {
                    return Err(t.error(format!("a node stands at ({}, {}), outside the area", w.x, w.y)));
                }
            }
            MobilitySpec::RandomWaypoint { width, height, speed, pause }
        }
        "file" => {
            let fv = t.req("file")?;
            let path = dir.join(fv.string()?);
            // A regular file only: a device or a pipe could be endless.
            match std::fs::metadata(&path) {
                Ok(m) if m.is_file() => {}
                Ok(_) => return Err(fv.error(format!("{} is not a regular file", path.display()))),
                Err(e) => return Err(fv.error(format!("cannot read {}: {e}", path.display()))),
            }
            // Read up to a bound: a file the kernel makes up as it is read (under /proc) says it is
            // regular and never ends.
            let text = crate::text_file::read(&path, MAX_MOVES_BYTES, "a movement file")
                .map_err(|e| fv.error(format!("{}: {e}", path.display())))?;
            let (init, moves) =
                parse_moves(&text).map_err(|(line, msg)| fv.error(format!("{}:{line}: {msg}", path.display())))?;
            let mut set = vec![(false, false); nodes.len()];
            for (i, c, v) in init {
                let Some(w) = nodes.get_mut(i) else {
                    return Err(fv.error(format!(
                        "{} places $node_({i}), but there are {} wireless nodes",
                        path.display(),
                        nodes.len()
                    )));
                };
                if w.placed {
                    return Err(fv.error(format!("$node_({i}) is placed both by its `at` and by {}", path.display())));
                }
                if c == 'x' {
                    w.x = v;
                    set[i].0 = true;
                } else {
                    w.y = v;
                    set[i].1 = true;
                }
            }
            for (w, s) in nodes.iter_mut().zip(&set) {
                if s.0 && s.1 {
                    w.placed = true;
                }
            }
            if let Some(m) = moves.iter().find(|m| m.node >= nodes.len()) {
                return Err(fv.error(format!(
                    "{} moves $node_({}), but there are {} wireless nodes",
                    path.display(),
                    m.node,
                    nodes.len()
                )));
            }
            // As random waypoint: every node starts inside the area (ns-2 ignores a destination
            // beyond it, and a node outside would never come back).
            if let Some((i, w)) = nodes
                .iter()
                .enumerate()
                .find(|(_, w)| w.placed && !((0.0..=width).contains(&w.x) && (0.0..=height).contains(&w.y)))
            {
                return Err(fv.error(format!(
                    "$node_({i}) starts at ({}, {}), outside the area {width} x {height} m",
                    w.x, w.y
                )));
            }
            MobilitySpec::Moves { width, height, moves }
        }
        other => return Err(model.error(format!("unknown mobility model `{other}` (random_waypoint, file)"))),
    };
    t.finish(MOBILITY_KEYS)?;
    Ok(spec)
}

/// Which nodes the radio joins, directly or over hops, from where they start: a label per node,
/// equal for nodes with a path between them. Linear memory, and the pairs compared are only
/// those in neighbouring cells of a grid of the radio's range, so `check` stays quick for tens of
/// thousands of nodes (a table of next hops would take N x N entries).
pub fn components(s: &WirelessSpec) -> Vec<u32> {
    let n = s.nodes.len();
    let mut parent: Vec<u32> = (0..n as u32).collect();
    fn root(p: &mut [u32], mut x: u32) -> u32 {
        while p[x as usize] != x {
            p[x as usize] = p[p[x as usize] as usize];
            x = p[x as usize];
        }
        x
    }
    let range = s.radio.rx_range();
    let in_range = |a: usize, b: usize| s.radio.received_power(s.distance(a, b)) >= s.radio.rx_threshold;
    // Cells of the radio's range: a node's neighbours lie in its cell or the eight around it.
    let cell = if range.is_finite() && range > 0.0 { range } else { f64::INFINITY };
    let key = |i: usize| {
        let w = &s.nodes[i];
        if cell.is_finite() {
            ((w.x / cell).floor() as i64, (w.y / cell).floor() as i64)
        } else {
            (0, 0)
        }
    };
    let mut grid: std::collections::HashMap<(i64, i64), Vec<usize>> = std::collections::HashMap::new();
    for i in 0..n {
        grid.entry(key(i)).or_default().push(i);
    }
    for i in 0..n {
        let (cx, cy) = key(i);
        for dx in -1..=1 {
            for dy in -1..=1 {
                for &j in grid.get(&(cx + dx, cy + dy)).map_or(&[][..], |v| v.as_slice()) {
                    if j > i && in_range(i, j) {
                        let (a, b) = (root(&mut parent, i as u32), root(&mut parent, j as u32));
                        if a != b {
                            parent[a as usize] = b;
                        }
                    }
                }
            }
        }
    }
    (0..n as u32).map(|i| root(&mut parent, i)).collect()
}

/// Whether wireless node `a` can reach `b` with the spec's routing (one hop for `none`), given
/// the nodes' [`components`].
pub fn reachable(s: &WirelessSpec, components: &[u32], a: NodeId, b: NodeId) -> bool {
    let (Some(i), Some(j)) = (s.index_of(a), s.index_of(b)) else { return false };
    match s.routing {
        Routing::Direct => s.radio.received_power(s.distance(i, j)) >= s.radio.rx_threshold,
        Routing::Static | Routing::Aodv => components[i] == components[j],
    }
}
