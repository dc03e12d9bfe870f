//! The Python package's own tests (python/tests, pytest) as part of `cargo test`: they run the
//! package beside this build's `fairway` binary and compare their files. Run when the package
//! is installed (`python3 -m pip install ./python`, which CI does before setting
//! FAIRWAY_REQUIRE_PYTHON); skipped with a note otherwise.

use std::path::Path;
use std::process::Command;

mod referee;

#[test]
fn the_python_package_passes_its_tests() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let importable =
        Command::new("python3").args(["-c", "import fairway, pytest"]).output().is_ok_and(|o| o.status.success());
    let missing = (!importable).then(|| {
        "`import fairway, pytest` fails: install with `python3 -m pip install ./python pytest matplotlib`".to_string()
    });
    if !referee::available("python", "FAIRWAY_REQUIRE_PYTHON", missing) {
        return;
    }
    let o = Command::new("python3")
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "python/tests"])
        .env("FAIRWAY_BIN", env!("CARGO_BIN_EXE_fairway"))
        .current_dir(&repo)
        .output()
        .expect("python3 runs");
    assert!(
        o.status.success(),
        "pytest failed:\n{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}
