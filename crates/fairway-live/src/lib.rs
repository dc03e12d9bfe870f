//! fairway on the wire (docs/architecture.md, "The parts"): the protocols' endpoints on real sockets, and
//! an emulated bottleneck that carries real hosts' packets through fairway-aqm's disciplines with
//! the simulator's link semantics.
//!
//! - [`bottleneck`]: one simplex link, sans-IO: a discipline, a transmitter of some rate, a
//!   propagation delay and a loss model, on its own exact timeline.
//! - [`ipv4`]: what the link reads of a packet (size, ECN, class, flow) and CE marking.
//! - [`tun`]: TUN devices; [`netns`]: two hosts as network namespaces joined only by them.
//! - [`emulate`]: the loop that moves packets between the two devices through a link each way.
//! - [`ends`]: fairway-proto's endpoints on UDP sockets ([`socket`]), their bytes framed by
//!   [`framing`] and tagged with the flow's [`key`]; Linux's TCP as a scenario's TCP flow
//!   ([`tcp`]) and its web sessions ([`web`]); their counts over time ([`sampler`]).
//! - [`session`]: a scenario's flows and links run this way, as the CLI's live commands run
//!   them, and a live run's results folder in the simulator's files (fairway-report).
//!
//! Nothing here depends on the simulator: the disciplines are the same code it runs, and the
//! scenario model and result types are fairway-model's, below both.

pub mod bottleneck;
pub mod emulate;
pub mod ends;
pub mod framing;
pub mod ipv4;
pub mod key;
pub mod netns;
pub mod sampler;
pub mod session;
pub mod socket;
pub mod tcp;
pub mod tun;
pub mod web;

pub use bottleneck::{Link, LinkConfig, LinkCounts, Packet, Sample};
pub use emulate::{Carried, Monitor};
pub use ends::{Clock, EndCounts, LiveEnd, Role};
pub use key::Key;
pub use netns::{in_netns, Pair};
pub use sampler::Sampler;
