//! fairway-core: the vocabulary every fairway crate shares.
//!
//! - [`units`]: `Time`, `Dur`, `Rate`, `Bytes` as integers, parsed from ns-2 and paper notation;
//! - [`rng`]: deterministic random streams derived from (scenario seed, component name);
//! - [`ids`]: small integer ids;
//! - [`frame`]: the preamble every fairway datagram starts with; [`wire_clock`]: the 32-bit
//!   microsecond clock and sequence numbers the wire formats share.

pub mod frame;
pub mod hash;
pub mod ids;
pub mod param;
pub mod rng;
pub mod units;
pub mod wire_clock;

pub use ids::{FlowId, LinkId, NodeId, PacketRef};
pub use param::ParamError;
pub use rng::Rng;
pub use units::{Bytes, Dur, Rate, Time, UnitError};
