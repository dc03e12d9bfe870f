//! `fairway check`: a scenario file read and checked, and what its run would take, without
//! running it.

use std::path::{Path, PathBuf};

use fairway_scenario::{estimate, sweep};

use crate::scenario_file::{fits, has_sweep, load};
use crate::Failure;

pub(crate) fn check(file: &Path) -> Result<(), Failure> {
    let sc = load(file)?;
    let f = fits(file, &sc, &PathBuf::from("out").join(&sc.name))?;
    let sweep =
        if has_sweep(file) { Some(sweep::load_sweep(file).map_err(|e| Failure::Input(e.to_string()))?) } else { None };
    let events = estimate::events(&sc);
    println!(
        "{}: ok ({} nodes, {} simplex links, {} flows, {} simulated; about {} of memory and {} of results; at most about {:.2e} events, {} on this machine)",
        file.display(),
        sc.nodes.len(),
        sc.links.len(),
        sc.flows.len(),
        sc.duration,
        estimate::human(f.streamed_memory()),
        estimate::human(f.output),
        events,
        estimate::human_time(events * estimate::ns_per_event() * estimate::COST_MARGIN * 1e-9)
    );
    if let Some(sw) = sweep {
        println!("{}: sweep ok ({} points over {})", file.display(), sw.points.len(), sw.keys.join(", "));
    }
    Ok(())
}
