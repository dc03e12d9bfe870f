// The build's identity, `FAIRWAY_BUILD`, which results record: a campaign keys its store by it
// and `fairway sweep --resume` takes only points its own build ran. It is the package version
// and, built from a git checkout, `+g<commit>`, then `.d<digest>` when the sources differ from
// that commit (a digest of the diff and of new files), so that every edit gives another build.
// Without git it is the version alone. python/build.rs includes this file: the command and the
// Python module built from one tree say the same.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The sources whose changes make another build.
const SOURCES: [&str; 5] = ["crates", "python/src", "python/fairway", "Cargo.toml", "Cargo.lock"];

fn git(dir: &Path, args: &[&str]) -> Option<Vec<u8>> {
    let out = Command::new("git").arg("-C").arg(dir).args(args).output().ok()?;
    out.status.success().then_some(out.stdout)
}

fn text(bytes: Vec<u8>) -> String {
    String::from_utf8_lossy(&bytes).trim().to_string()
}

/// FNV-1a, 64 bits: enough to tell edits apart, and no dependency.
fn digest(data: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in data {
        for &b in *part {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// Rebuilds when `path` changes. A path that does not exist would rerun the script at every
/// build (and rebuild the crate), so it is left out.
fn watch(path: &Path) {
    if path.exists() {
        println!("cargo:rerun-if-changed={}", path.display());
    }
}

fn build_id(manifest: &Path) -> String {
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let Some(top) = git(manifest, &["rev-parse", "--show-toplevel"]).map(text).map(PathBuf::from) else {
        println!("cargo:rerun-if-changed=build.rs");
        return version;
    };
    for s in SOURCES {
        watch(&top.join(s));
    }
    if let Some(dir) = git(&top, &["rev-parse", "--absolute-git-dir"]).map(text).map(PathBuf::from) {
        // A commit moves the branch HEAD names (or HEAD itself, detached).
        watch(&dir.join("HEAD"));
        watch(&dir.join("packed-refs"));
        if let Some(branch) = git(&top, &["symbolic-ref", "-q", "HEAD"]).map(text) {
            watch(&dir.join(branch));
        }
    }
    let Some(commit) = git(&top, &["rev-parse", "--short=12", "HEAD"]).map(text) else {
        return version;
    };
    let mut id = format!("{version}+g{commit}");
    let mut diff = vec!["diff", "HEAD", "--"];
    diff.extend(SOURCES);
    let changed = git(&top, &diff).unwrap_or_default();
    let mut new = vec!["ls-files", "-z", "--others", "--exclude-standard", "--"];
    new.extend(SOURCES);
    let new = git(&top, &new).unwrap_or_default();
    if !changed.is_empty() || !new.is_empty() {
        let mut parts: Vec<Vec<u8>> = vec![changed];
        for name in new.split(|&b| b == 0).filter(|n| !n.is_empty()) {
            let name = String::from_utf8_lossy(name).into_owned();
            parts.push(name.clone().into_bytes());
            parts.push(std::fs::read(top.join(&name)).unwrap_or_default());
        }
        let parts: Vec<&[u8]> = parts.iter().map(|p| p.as_slice()).collect();
        id.push_str(&format!(".d{:08x}", digest(&parts) >> 32));
    }
    id
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    println!("cargo:rustc-env=FAIRWAY_BUILD={}", build_id(&manifest));
}
