//! The datagram protocols a scenario can name, registered in one place ([`REGISTRY`]). Each
//! protocol's module holds all fairway knows of it beside its endpoints (fairway-proto): its
//! scenario keys, their parsing and checking, how to build its two endpoints for a flow, and
//! what it adds to the flow's summary. The engine's run loop names none of them (it drives a
//! `FlowDriver`); a new protocol is a module here and one line in [`REGISTRY`].
//!
//! TCP is not among them: its agents live in the engine (`tcp/`), as ns-2's do.

use std::sync::Arc;

use fairway_core::{Bytes, Rate};
pub use fairway_model::protocol::{Build, DatagramSpec, Load, ProtocolReport, Report, ReportContext, RunShared};
use fairway_model::results::SeriesInfo;

use crate::reader::{Res, Tbl, Val};

mod dccp;
mod iftp;
mod mapp;
mod mm_app;
mod rtp;
mod sources;
mod tfrc;
mod udp;

pub use dccp::{Ccid2Summary, Ccid3Summary};
pub use iftp::IftpSummary;
pub use mapp::MappSummary;
pub use rtp::RtpSummary;
pub use tfrc::TfrcSummary;

/// Every datagram transport a scenario can name: `transport = "<name>"`, or the app's default.
pub(crate) const REGISTRY: &[Registration] = &[
    udp::REGISTRATION,
    mapp::REGISTRATION,
    mm_app::REGISTRATION,
    iftp::REGISTRATION,
    tfrc::TFRC,
    tfrc::TFRC_SP,
    dccp::CCID2,
    dccp::CCID3,
    rtp::REGISTRATION,
];

/// How a scenario names a datagram transport and what it reads from a `[[flow]]` entry.
pub(crate) struct Registration {
    /// `transport = "<name>"`.
    pub transport: &'static str,
    /// The apps it carries; a flow with one of these apps and no `transport` gets this one if it
    /// is the first registration to list the app.
    pub apps: &'static [&'static str],
    /// The keys it reads beside the common ones (name, app, from, ...), in groups (its own,
    /// the sources' it shares).
    pub keys: &'static [&'static [&'static str]],
    /// The series its flows report (`fairway_model::datagram::Series`, which its builder gives
    /// them), so that flows.csv has their columns whatever the scenario's flows.
    pub series: &'static [SeriesInfo],
    /// Reads the flow's keys; `app` is one of `apps`.
    pub parse: fn(t: &Tbl, app: &str, ctx: &FlowContext) -> Res<Arc<dyn DatagramSpec>>,
}

/// What parsing a flow may need beside its own keys.
pub(crate) struct FlowContext {
    /// The rates of the links of the flow's route, source first.
    pub route_rates: Vec<Rate>,
    /// The scenario file's folder, where files it names are read from; `None` for a built-in
    /// scenario ([`crate::parse::BUILT_IN`]), which has none.
    pub dir: Option<std::path::PathBuf>,
}

/// The registration of `transport` that carries `app` (a transport may have several: UDP
/// carries the sources and chung-dcbt's media apps), else its first; or the default transport of
/// `app`.
pub(crate) fn lookup(app: &str, transport: Option<&str>) -> Option<&'static Registration> {
    match transport {
        Some(t) => REGISTRY
            .iter()
            .find(|r| r.transport == t && r.apps.contains(&app))
            .or_else(|| REGISTRY.iter().find(|r| r.transport == t)),
        None => REGISTRY.iter().find(|r| r.apps.contains(&app)),
    }
}

/// The apps some datagram transport carries, in registry order, each once.
pub(crate) fn datagram_apps() -> Vec<&'static str> {
    let mut apps: Vec<&'static str> = vec![];
    for a in REGISTRY.iter().flat_map(|r| r.apps) {
        if !apps.contains(a) {
            apps.push(a);
        }
    }
    apps
}

/// The series of every registered protocol, in registry order, each once: flows.csv's columns
/// after the ones every flow has.
pub fn series() -> Vec<SeriesInfo> {
    let mut v: Vec<SeriesInfo> = vec![];
    for s in REGISTRY.iter().flat_map(|r| r.series) {
        if !v.iter().any(|x| x.name == s.name) {
            v.push(*s);
        }
    }
    v
}

/// The keys that set a datagram flow's packet class: `class` and its older spelling.
pub(crate) const CLASS_KEYS: &[&str] = &["class", "multimedia_tag"];

/// chung-dcbt §2-3: the class a flow's packets carry to the router (the ToS bit CBT and D-CBT
/// tell responsive multimedia from other UDP by): `class = "multimedia"` or `"best_effort"`, or
/// the older `multimedia_tag = true | false`; `default` when neither is given. True: multimedia.
pub(crate) fn parse_class(t: &Tbl, default: bool) -> Res<bool> {
    match (t.get("class"), t.get("multimedia_tag")) {
        (Some(c), Some(_)) => Err(c.error("give `class` or `multimedia_tag`, not both")),
        (Some(c), None) => match c.raw_string()? {
            "multimedia" => Ok(true),
            "best_effort" => Ok(false),
            other => Err(c.error(format!("unknown class `{other}`: expected multimedia or best_effort"))),
        },
        (None, Some(v)) => v.bool(),
        (None, None) => Ok(default),
    }
}

/// Largest packet accepted (payload plus headers): far above any link layer's frame, and small
/// enough that sizes fit the simulator's 32-bit packet fields.
pub(crate) const MAX_PACKET: Bytes = Bytes(1_000_000);

/// Largest window in packets (TCP's `window`, `window_init` and `max_cwnd`, CCID2's
/// `initial_cwnd`): 2^20, a million packets in flight, more than a 100 Gb/s path of 100 ms holds
/// in 1500-byte packets, and small enough that the per-packet state of a window fits in memory.
pub(crate) const MAX_WINDOW: u32 = 1 << 20;

/// A window in packets, from `min` to [`MAX_WINDOW`].
pub(crate) fn window_pkts(v: &Val, min: u32) -> Res<u32> {
    let w = v.u32_min(min)?;
    if w > MAX_WINDOW {
        return Err(v.error(format!("{w} packets is more than the {MAX_WINDOW} a window may have")));
    }
    Ok(w)
}

/// Header bytes a protocol adds to each packet: none to at most [`MAX_PACKET`] (beyond, a size
/// would wrap the simulator's 32-bit packet fields).
pub(crate) fn header_bytes(v: &Val) -> Res<Bytes> {
    let b = v.bytes()?;
    if b > MAX_PACKET {
        return Err(v.error(format!("{b} is larger than the {MAX_PACKET} a packet may have")));
    }
    Ok(b)
}

pub(crate) fn packet_size(v: &Val) -> Res<Bytes> {
    let b = v.bytes_pos()?;
    if b > MAX_PACKET {
        return Err(v.error(format!("{b} is larger than the {MAX_PACKET} a packet may have")));
    }
    Ok(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use fairway_model::scenario::AppSpec;

    /// Every registered protocol's flows report exactly the series its registration lists (for
    /// flows.csv's columns), in its order; a name means one series whichever protocol lists it.
    #[test]
    fn every_protocols_flows_report_the_series_it_registers() {
        for r in REGISTRY {
            for app in r.apps {
                let rate = match (*app, r.transport) {
                    (_, "rtp") => "cc = \"nada\"\n",
                    ("video", _) => "rate = \"1Mb\"\n",
                    _ => "",
                };
                let text = format!(
                    "name = \"t\"\nduration = \"1s\"\n[[link]]\nbetween = [\"a\", \"b\"]\nrate = \"10Mb\"\ndelay = \"5ms\"\n\
                     [[flow]]\nname = \"f\"\napp = \"{app}\"\ntransport = \"{}\"\nfrom = \"a\"\nto = \"b\"\n{rate}",
                    r.transport
                );
                let sc = crate::parse_scenario("t.toml", &text, "t")
                    .unwrap_or_else(|e| panic!("{app}/{}: {e}", r.transport));
                let AppSpec::Datagram(d) = &sc.flows[0].app else {
                    panic!("{app}/{}: not a datagram flow", r.transport)
                };
                let drv = d
                    .spec
                    .build(&Build { flow: 0, name: "f", seed: 1, wire: false, shared: &RunShared::new() })
                    .unwrap();
                let b = drv.sample().unwrap_or_default();
                let sampled: Vec<SeriesInfo> = b.iter().map(|(x, _)| *x).collect();
                assert_eq!(sampled, r.series, "{app} over {}", r.transport);
                for (x, _) in drv.logs() {
                    assert!(r.series.contains(x), "{app} over {}: logs {x:?}", r.transport);
                }
            }
        }
        let all: Vec<&SeriesInfo> = REGISTRY.iter().flat_map(|r| r.series).collect();
        for x in &all {
            assert!(all.iter().all(|y| y.name != x.name || y == x), "two series named {}", x.name);
            assert!(x.name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'), "{}", x.name);
        }
        // flows.csv's columns: a series registered here is a column of every run's flows.csv.
        assert_eq!(series().iter().map(|x| x.name).collect::<Vec<_>>(), ["scale", "target_bps"]);
    }
}
