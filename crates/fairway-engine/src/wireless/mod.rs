//! Wireless nodes beside the point-to-point links: positions, a shared radio channel, the
//! 802.11 DCF MAC with its interface queue, ARP and routing, run the way ns-2's wireless model
//! runs them (docs/architecture.md, "Simulation semantics").

pub mod aodv;
pub(crate) mod event_loop;
pub mod ifq;
pub mod mac;
pub mod mobility;
pub(crate) mod net;
pub(crate) mod overheard;
pub(crate) mod physics;
pub mod timer;

pub use fairway_model::wireless::{
    propagation, MacParams, MacStats, MobilitySpec, Model, NetStats, Radio, Routing, SetDest, Speed, WirelessNode,
    WirelessSpec,
};
