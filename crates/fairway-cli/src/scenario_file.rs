//! A scenario file as the commands read it: its text, the checked scenario with its warnings
//! printed, and whether its run fits this machine's memory and disk.

use std::path::{Path, PathBuf};

use fairway_scenario::estimate::{self, Footprint};
use fairway_scenario::{parse_scenario_file_warn, sweep, text_file};

use crate::Failure;

/// Reads and checks a scenario file and prints its warnings.
pub(crate) fn load(file: &Path) -> Result<fairway_engine::Scenario, Failure> {
    let (sc, warnings) = parse_scenario_file_warn(file).map_err(|e| Failure::Input(e.to_string()))?;
    for w in warnings {
        eprintln!("warning: {w}");
    }
    Ok(sc)
}

/// A scenario file's text, read to its bound.
pub(crate) fn read_scenario(file: &Path) -> Result<String, Failure> {
    text_file::read(file, text_file::MAX_SCENARIO_BYTES, "a scenario file")
        .map_err(|e| Failure::Input(format!("{}: {e}", file.display())))
}

pub(crate) fn has_sweep(file: &Path) -> bool {
    read_scenario(file).is_ok_and(|t| sweep::has_sweep(&t))
}

/// Refuses a run that would not fit in this machine's memory, or its results on the disk
/// holding `out`; returns the estimate.
pub(crate) fn fits(file: &Path, sc: &fairway_engine::Scenario, out: &Path) -> Result<Footprint, Failure> {
    let refuse = |e: String| Failure::Input(format!("{}: {e}", file.display()));
    let f = match estimate::available_memory() {
        Some(avail) => estimate::fits(sc, avail, true).map_err(refuse)?,
        None => estimate::estimate(sc),
    };
    // The nearest folder that exists: the results go below it.
    let mut at = out.to_path_buf();
    while !at.is_dir() {
        if !at.pop() || at.as_os_str().is_empty() {
            at = PathBuf::from(".");
            break;
        }
    }
    if let Some(free) = free_disk(&at) {
        estimate::fits_disk(sc, free, &at.display().to_string()).map_err(refuse)?;
    }
    Ok(f)
}

/// Bytes free to an unprivileged user on the file system holding `dir`.
#[cfg(target_os = "linux")]
fn free_disk(dir: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    // SAFETY: statvfs writes into the zeroed struct it is given; `c` is a valid C string.
    unsafe {
        let mut st: libc::statvfs = std::mem::zeroed();
        (libc::statvfs(c.as_ptr(), &mut st) == 0).then(|| (st.f_bavail as u64).saturating_mul(st.f_frsize as u64))
    }
}

#[cfg(not(target_os = "linux"))]
fn free_disk(_: &Path) -> Option<u64> {
    None
}
