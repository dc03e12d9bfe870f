//! The datagram protocols a scenario can name, registered in one place ([`REGISTRY`]). Each
//! protocol's module holds all the simulator knows of it: its scenario keys, their parsing and
//! checking, how to build its two endpoints for a flow, and what it adds to the flow's summary.
//! The run loop names none of them (it drives a [`FlowDriver`]); a new protocol is a module here
//! and one line in [`REGISTRY`].
//!
//! TCP is not among them: its agents live in the engine (`tcp/`), as ns-2's do.

use std::any::Any;
use std::fmt::Debug;
use std::sync::Arc;

use fairway_core::{Bytes, Rate, Time};
use serde::Serialize;

use crate::datagram::FlowDriver;
use crate::scenario::reader::{Res, Tbl, Val};

mod iftp;
mod mapp;
mod sources;
mod tfrc;
mod udp;

pub use iftp::IftpSummary;
pub use mapp::MappSummary;
pub use tfrc::TfrcSummary;

/// Every datagram transport a scenario can name: `transport = "<name>"`, or the app's default.
pub(crate) const REGISTRY: &[Registration] =
    &[udp::REGISTRATION, mapp::REGISTRATION, iftp::REGISTRATION, tfrc::TFRC, tfrc::TFRC_SP];

/// How a scenario names a datagram transport and what it reads from a `[[flow]]` entry.
pub(crate) struct Registration {
    /// `transport = "<name>"`.
    pub transport: &'static str,
    /// The apps it carries; a flow with one of these apps and no `transport` gets this one if it
    /// is the first registration to list the app.
    pub apps: &'static [&'static str],
    /// The keys it reads beside the common ones (name, app, from, ...).
    pub keys: &'static [&'static str],
    /// Reads the flow's keys; `app` is one of `apps`.
    pub parse: fn(t: &Tbl, app: &str, ctx: &FlowContext) -> Res<Arc<dyn DatagramSpec>>,
}

/// What parsing a flow may need beside its own keys.
pub(crate) struct FlowContext {
    /// The rates of the links of the flow's route, source first.
    pub route_rates: Vec<Rate>,
}

/// The registration for `transport`, or the default transport of `app`.
pub(crate) fn lookup(app: &str, transport: Option<&str>) -> Option<&'static Registration> {
    match transport {
        Some(t) => REGISTRY.iter().find(|r| r.transport == t),
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

/// What a flow's endpoints are built from.
pub struct Build<'a> {
    /// The flow's index in the scenario (its id in the protocol's messages).
    pub flow: u32,
    /// The flow's name: random streams are named after it.
    pub name: &'a str,
    pub seed: u64,
    /// Carry bytes rather than typed messages (the scenario's `wire`).
    pub wire: bool,
}

/// When the flow ran, for the summary.
pub struct ReportContext {
    pub start: Time,
    /// When its application stopped (or the run ended, if earlier).
    pub stop: Time,
    pub end: Time,
}

/// A datagram flow as the scenario gave it: a protocol's checked settings.
pub trait DatagramSpec: Debug + Send + Sync {
    /// The application (summary `kind`).
    fn app(&self) -> &'static str;
    /// The transport (summary `transport`).
    fn transport(&self) -> &'static str;
    /// The traffic class the summary groups it in.
    fn class(&self) -> &'static str {
        "udp"
    }
    /// Settings that depend on the route: every flow of a `count` group is parsed on its own.
    fn per_route(&self) -> bool {
        false
    }
    /// The flow's two endpoints, ready to start.
    fn build(&self, b: &Build) -> Result<Box<dyn FlowDriver>, String>;
    /// What the protocol adds to the flow's summary, under its own name.
    fn report(&self, _drv: &dyn FlowDriver, _ctx: &ReportContext) -> Option<ProtocolReport> {
        None
    }
    /// The protocol's own configuration (for tests and tools that inspect a scenario).
    fn config(&self) -> &dyn Any;
}

/// A protocol's part of a flow's summary: `"<name>": { ... }` in summary.json.
#[derive(Debug, Clone)]
pub struct ProtocolReport {
    pub name: &'static str,
    pub report: Arc<dyn Report>,
}

impl ProtocolReport {
    pub fn new<T: Report>(name: &'static str, report: T) -> ProtocolReport {
        ProtocolReport { name, report: Arc::new(report) }
    }
}

/// A summary a protocol writes: serialisable, and readable again as its type.
pub trait Report: Debug + Send + Sync + 'static {
    fn json(&self) -> serde_json::Value;
    fn as_any(&self) -> &dyn Any;
}

impl<T: Serialize + Debug + Send + Sync + 'static> Report for T {
    fn json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Serialize for ProtocolReport {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(1))?;
        m.serialize_entry(self.name, &self.report.json())?;
        m.end()
    }
}

/// Largest packet accepted (payload plus headers): far above any link layer's frame, and small
/// enough that sizes fit the simulator's 32-bit packet fields.
pub(crate) const MAX_PACKET: Bytes = Bytes(1_000_000);

pub(crate) fn packet_size(v: &Val) -> Res<Bytes> {
    let b = v.bytes_pos()?;
    if b > MAX_PACKET {
        return Err(v.error(format!("{b} is larger than the {MAX_PACKET} a packet may have")));
    }
    Ok(b)
}
