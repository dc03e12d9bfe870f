//! `fairway emulate FILE`: a scenario's link, live, between two network namespaces (fairway-live's
//! `session::link` runs it). Host a's packets to host b cross the link as the scenario gives it
//! (rate, delay, loss, discipline); b's packets back cross the link the other way (the
//! scenario's, or a DropTail of 1000 packets at the same rate and delay when it has none). With
//! `--out DIR`, the links' counters go into DIR/summary.json and the forward link's queue
//! samples into DIR/queue.csv, in the simulator's fields and columns.

use std::path::Path;

use fairway_live::session::link;

use crate::live::{dur, session};
use crate::scenario_file::load;
use crate::{interrupt, Failure};

pub fn emulate(
    file: &Path,
    link: Option<&str>,
    duration: Option<&str>,
    name: &str,
    out: Option<&Path>,
) -> Result<(), Failure> {
    link::check_name(name)?;
    let until = dur("--duration", duration)?;
    let sc = load(file)?;
    // From here on, every signal that would end the process asks it to stop instead, so that
    // the namespaces go with it.
    interrupt::install_for_cleanup();
    Ok(link::emulate(&sc, file, link, until, name, out, session())?)
}
