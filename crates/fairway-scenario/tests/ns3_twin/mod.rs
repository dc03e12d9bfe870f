//! An ns-3 twin program of validation/ns3/ (`aqm`, `tcp`), built by validation/ns3/build.sh into
//! target/ns3 once per test binary. Shared by the ns-3 referee tests (a module of each).

use std::path::{Path, PathBuf};
use std::process::Command;

use super::referee;

/// The repository's root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Twin `program`'s binary, built (None: ns-3 is not installed, which `referee` records, and
/// which fails the test when CI requires ns-3). Call it from one `OnceLock` per program.
pub fn build(program: &str) -> Option<PathBuf> {
    let missing = (!Path::new("/usr/include/ns3/core-module.h").exists())
        .then(|| "ns-3's headers are missing (apt-get install ns3 libns3-dev)".to_string());
    if !referee::available("ns-3", "FAIRWAY_REQUIRE_NS3", missing) {
        return None;
    }
    let dir = repo().join("target/ns3");
    let st = Command::new("bash")
        .arg(repo().join("validation/ns3/build.sh"))
        .arg(program)
        .env("BUILD_DIR", &dir)
        .output()
        .expect("run validation/ns3/build.sh");
    assert!(st.status.success(), "building the ns-3 twin failed:\n{}", String::from_utf8_lossy(&st.stderr));
    Some(dir.join(program))
}
