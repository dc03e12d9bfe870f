//! The datagram protocols a scenario can name, registered in one place ([`REGISTRY`]). Each
//! protocol's module holds all fairway knows of it beside its endpoints (fairway-proto): its
//! scenario keys, their parsing and checking, how to build its two endpoints for a flow, and
//! what it adds to the flow's summary. The engine's run loop names none of them (it drives a
//! `FlowDriver`); a new protocol is a module here and one line in [`REGISTRY`].
//!
//! TCP is not among them: its agents live in the engine (`tcp/`), as ns-2's do.

use std::sync::Arc;

use fairway_core::{Bytes, Rate};
pub use fairway_model::protocol::{Build, DatagramSpec, Load, ProtocolReport, Report, ReportContext};

use crate::reader::{Res, Tbl, Val};

mod dccp;
mod iftp;
mod mapp;
mod mm_app;
mod sources;
mod tfrc;
mod udp;

pub use dccp::{Ccid2Summary, Ccid3Summary};
pub use iftp::IftpSummary;
pub use mapp::MappSummary;
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
    /// Reads the flow's keys; `app` is one of `apps`.
    pub parse: fn(t: &Tbl, app: &str, ctx: &FlowContext) -> Res<Arc<dyn DatagramSpec>>,
}

/// What parsing a flow may need beside its own keys.
pub(crate) struct FlowContext {
    /// The rates of the links of the flow's route, source first.
    pub route_rates: Vec<Rate>,
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
