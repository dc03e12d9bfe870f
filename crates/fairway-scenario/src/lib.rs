//! fairway-scenario: scenario files. [`parse_scenario`] reads a TOML scenario into the engine's
//! checked model ([`fairway_engine::Scenario`]), naming the file, line and field of anything it
//! cannot accept; [`protocols`] holds the datagram protocols' scenario keys, one module each,
//! registered in one place; [`sweep`] expands a file's `[sweep]` grid and runs its points.

pub mod estimate;
pub mod loss;
pub mod parse;
#[cfg(test)]
mod parse_tests;
pub mod protocols;
pub mod queues;
pub mod reader;
pub mod sweep;
pub mod text_file;
pub mod video_trace;
pub mod wireless;

pub use fairway_model::scenario;
pub use parse::{parse_scenario, parse_scenario_file, parse_scenario_file_warn, parse_scenario_warn};
pub use reader::ScenarioError;
