//! RTP media transport with congestion-control feedback (issue 35). So far: the RTP header with
//! a transport-wide sequence number ([`header`]), the feedback format of RFC 8888
//! ([`rfc8888`]) and RFC 8593's synthetic video encoder ([`synthetic`]); the sender
//! and receiver endpoints, the RMCAT controllers (NADA, SCReAM, GCC) and the trace-driven source
//! come next.

pub mod controller;
pub mod header;
pub mod rfc8888;
pub mod scream;
pub mod synthetic;
