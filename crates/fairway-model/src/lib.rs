//! fairway-model: what fairway's simulator (fairway-engine) and its live side (fairway-live)
//! share, below both: the scenario model ([`scenario::Scenario`]), how a datagram protocol's
//! endpoints are built for a flow, and every flow's driver, the run loop's door to it ([`driver`]:
//! a datagram protocol's in [`datagram`], a stream transport's in [`stream`], TCP as one in
//! [`tcp_flow`]), web-like session arrivals
//! ([`apps`]), and what a run reports ([`results`]: the summary, the per-bin rows, the
//! packet trace's records), with the measures over them ([`metrics`]). Nothing here runs a
//! simulation or opens a socket (docs/architecture.md, "The parts").

pub mod apps;
pub mod convergence;
pub mod datagram;
pub mod decimal;
pub mod delay_hist;
pub mod driver;
pub mod fairness;
pub mod loss_model;
pub mod metrics;
pub mod packet_trace;
pub mod protocol;
pub mod results;
pub mod scenario;
pub mod setting;
pub mod stream;
#[cfg(test)]
mod stream_tests;
pub mod tcp_flow;
pub mod wireless;

pub use results::{RunResult, Summary};
pub use scenario::Scenario;
