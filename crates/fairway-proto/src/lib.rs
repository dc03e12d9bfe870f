//! Sans-IO endpoints for congestion-aware media transport (docs/architecture.md, "The sans-IO shape").
//!
//! - [`endpoint`]: the contract every protocol below implements, one [`Endpoint`] per end.
//! - [`source`]: applications that hand packets to a datagram transport (greedy, CBR).
//! - [`udp`]: plain UDP, no congestion control (ns-2's Agent/UDP): CBR over it is the
//!   unresponsive traffic.
//! - [`mapp`]: MApp, the media-scaling sender and receiver of kadhum2015 (Kadhum & Hassanein
//!   2015) with the receiver rule of chung-dcbt §5 (Chung & Claypool's MM_APP), over UDPm.
//! - [`iftp`]: IFTP, the rate-based TCP emulation of elaarag2002 (ElAarag & Bassiouni 2002), and
//!   the closed-form bandwidth model of its §5.
//!
//! - [`tfrc`]: TFRC (RFC 5348) and TFRC-SP (RFC 4828), with ns-2 2.35's variant beside the RFC's.
//!
//! - [`dccp`]: DCCP (RFC 4340) with CCID2, TCP-like congestion control (RFC 4341).
//!
//! - [`tcp`]: one-way TCP: ns-2 2.35's senders and sink, and what modern stacks add (SACK with
//!   RFC 6675 recovery, PRR, RACK-TLP, timestamps, pacing), with congestion control one module
//!   per algorithm (`tcp::cc`: the AIMD family, CUBIC, BBR); the engine drives them through
//!   fairway-model's stream contract (`StreamTransport`), as it drives datagram endpoints.
//!
//! - [`rtp`]: RTP media transport for the RMCAT controllers: so far RFC 8888's feedback.
//!
//! - [`wire`]: any endpoint driven through bytes alone, behind one object-safe trait.

pub mod dccp;
pub mod endpoint;
#[cfg(test)]
mod endpoint_tests;
pub mod iftp;
pub mod mapp;
pub mod rtp;
pub mod source;
pub mod tcp;
pub mod tfrc;
pub mod udp;
pub mod wire;

pub use endpoint::{AgentState, Arrival, Endpoint, Malformed, Transmit};
pub use wire::{Sent, WireEnd};
