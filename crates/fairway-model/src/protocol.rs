//! What the engine needs of a datagram protocol's settings for one flow: to build the flow's two
//! endpoints behind a [`FlowDriver`], and to add the protocol's own fields to its summary. The
//! protocols themselves, their scenario keys and their registry are in fairway-scenario.

use std::any::Any;
use std::collections::HashMap;
use std::fmt::Debug;
use std::sync::{Arc, Mutex};

use fairway_core::{Bytes, Time};
use serde::Serialize;

use crate::driver::FlowDriver;

/// What a flow's endpoints are built from.
pub struct Build<'a> {
    /// The flow's index in the scenario (its id in the protocol's messages).
    pub flow: u32,
    /// The flow's name: random streams are named after it.
    pub name: &'a str,
    pub seed: u64,
    /// Carry bytes rather than typed messages (the scenario's `wire`).
    pub wire: bool,
    /// What the flows of this run share ([`RunShared`]).
    pub shared: &'a RunShared,
}

/// Objects the flows of one run share, made by the first flow that asks for one under its key
/// and handed to the others: the state exchange of a coupled group of RTP flows (RFC 8699). One
/// per run, so that runs on other threads never see each other's.
#[derive(Default)]
pub struct RunShared {
    items: Mutex<HashMap<String, Arc<dyn Any + Send + Sync>>>,
}

impl RunShared {
    pub fn new() -> RunShared {
        RunShared::default()
    }

    /// The object under `key`, made by `make` if there is none yet. A key another type took
    /// is an error.
    pub fn get_or_make<T: Any + Send + Sync>(&self, key: &str, make: impl FnOnce() -> T) -> Result<Arc<T>, String> {
        let mut items = self.items.lock().unwrap_or_else(|e| e.into_inner());
        let item = items.entry(key.to_string()).or_insert_with(|| Arc::new(make())).clone();
        item.downcast::<T>().map_err(|_| format!("shared object `{key}` is of another kind"))
    }
}

/// When the flow ran, for the summary.
pub struct ReportContext {
    pub start: Time,
    /// When its application stopped (or the run ended, if earlier).
    pub stop: Time,
    pub end: Time,
}

/// What a flow's application asks of the simulator per second it runs, for the estimate of a
/// run's events before it starts (fairway-scenario's `estimate`). Upper bounds: a rate the
/// application may reach (the top of MApp's scales, a CBR's rate), not the one it will average.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Load {
    /// Packets it offers per second; `None`: as many as the path takes (a greedy sender, or
    /// one whose congestion control paces it).
    pub packets_per_s: Option<f64>,
    /// Timer events per second of its own beside the one each packet costs its sender: frames
    /// sent back to back, talk spurts' switches.
    pub timers_per_s: f64,
    /// Its data packets' size on the wire.
    pub packet_size: Bytes,
    /// Packets it keeps in flight at most (a window), which bounds its rate to a window per
    /// round trip; `None`: no window.
    pub window: Option<u32>,
    /// Packets it sends in all at most (a transfer's size); `None`: no end but its stop.
    pub total: Option<u64>,
    /// Timer events per round trip of its path, whatever it sends (TFRC's feedback timer, RFC
    /// 5348 §6.2: on a path of microseconds, hundreds of thousands a second).
    pub timers_per_rtt: f64,
    /// Feedback packets per round trip, whatever it sends (MApp's receiver reports every round
    /// trip); each crosses the path back.
    pub feedback_per_rtt: f64,
    /// The shortest interval its per-round-trip timers keep however short the path (TCP's
    /// minimum RTO); zero: none.
    pub rtt_floor: fairway_core::Dur,
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
    /// Whether its sender keeps its session across a pause (a stop, then a start again), so
    /// that the flow may take `pause` spells.
    fn pausable(&self) -> bool {
        false
    }
    /// The name of the group of flows whose senders share their congestion control state with
    /// this flow's (RFC 8699's flow group, an RTP flow's `couple`); `None`: its own.
    fn coupled_group(&self) -> Option<&str> {
        None
    }
    /// The flow's two endpoints, ready to start.
    fn build(&self, b: &Build) -> Result<Box<dyn FlowDriver>, String>;
    /// What the protocol adds to the flow's summary, under its own name.
    fn report(&self, _drv: &dyn FlowDriver, _ctx: &ReportContext) -> Option<ProtocolReport> {
        None
    }
    /// The protocol's own configuration (for tests and tools that inspect a scenario).
    fn config(&self) -> &dyn Any;
    /// What the flow asks of the simulator per second ([`Load`]).
    fn load(&self) -> Load;
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

/// A report read back from summary.json: `{"<name>": {...}}`, kept as that JSON. An empty map
/// is an error, which a flattened `Option<ProtocolReport>` reads as none.
impl<'de> serde::Deserialize<'de> for ProtocolReport {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct One;
        impl<'de> serde::de::Visitor<'de> for One {
            type Value = ProtocolReport;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("one protocol's report, {\"<protocol>\": {...}}")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> Result<ProtocolReport, A::Error> {
                let Some(name) = m.next_key_seed(Interned)? else {
                    return Err(serde::de::Error::custom("no protocol report"));
                };
                let report: serde_json::Value = m.next_value()?;
                if m.next_key::<serde::de::IgnoredAny>()?.is_some() {
                    return Err(serde::de::Error::custom("more than one protocol report in a flow"));
                }
                Ok(ProtocolReport::new(name, report))
            }
        }
        d.deserialize_map(One)
    }
}

/// A map key read as an interned name.
struct Interned;

impl<'de> serde::de::DeserializeSeed<'de> for Interned {
    type Value = &'static str;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<&'static str, D::Error> {
        crate::results::interned(d)
    }
}
