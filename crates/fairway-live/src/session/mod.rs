//! The live orchestration: a scenario's parts run for real, as the CLI's live commands run
//! them. [`flow`]: one datagram flow's sender or receiver on a UDP socket (`fairway send`,
//! `fairway recv`, `fairway key`); [`link`]: one of its links emulated between two network
//! namespaces (`fairway emulate`), and the pieces `fairway testbed` builds its bottleneck from;
//! [`results`]: a live run's results folder, in the simulator's files and fields. They take a
//! checked [`Scenario`](fairway_model::Scenario) and print what they do; the scenario file, the
//! signals and the exit codes are the caller's.

pub mod flow;
pub mod link;
pub mod results;

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::Serialize;

/// Why a live command did not finish.
#[derive(Debug)]
pub enum Failure {
    /// The user's input is wrong (a flag, a name, a folder).
    Input(String),
    /// Something else went wrong (a socket, the namespaces, a file).
    Other(String),
    /// Stopped by [`Session::stop`] before it had anything whole to write, or after it wrote
    /// what it had (the message says which).
    Interrupted(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Input(s) | Failure::Other(s) | Failure::Interrupted(s) => f.write_str(s),
        }
    }
}

impl std::error::Error for Failure {}

/// What every live command is given by its caller.
#[derive(Clone, Copy)]
pub struct Session<'a> {
    /// The build that ran, written into every summary (the CLI's version and commit).
    pub build: &'a str,
    /// Set (by a signal handler, say) to end the command where it is; what it has is written.
    pub stop: &'a AtomicBool,
}

impl Session<'_> {
    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// Writes `v` as pretty JSON to `p`, and says so.
pub fn write_json<T: Serialize>(p: &Path, v: &T) -> Result<(), Failure> {
    let mut json = serde_json::to_vec_pretty(v).map_err(|e| Failure::Other(e.to_string()))?;
    json.push(b'\n');
    std::fs::write(p, json).map_err(|e| Failure::Other(format!("{}: {e}", p.display())))?;
    println!("wrote {}", p.display());
    Ok(())
}
