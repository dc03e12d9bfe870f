//! The README's live example, its shell lines run as they stand: the emulator, then `fairway
//! recv` in host b's namespace and `fairway send` in host a's. It runs as root, where `sudo` adds
//! nothing, so the script makes `sudo` run its command as is (the real one would reset PATH, and
//! the test's `fairway` is not installed). Root is needed; without it the test says so and
//! passes, unless FAIRWAY_REQUIRE_NETNS is set (CI sets it).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

mod netns;
mod referee;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The first ```sh block after `after` in the README.
fn readme_block(after: &str) -> String {
    let readme = fs::read_to_string(repo().join("README.md")).unwrap();
    let at = readme.find(after).unwrap_or_else(|| panic!("the README has no {after:?}"));
    let rest = &readme[at..];
    let start = rest.find("```sh\n").expect("a sh block") + "```sh\n".len();
    rest[start..start + rest[start..].find("```").expect("the block ends")].to_string()
}

#[test]
fn the_readme_live_example_runs_as_written() {
    if !netns::can_run() {
        return;
    }
    let block = readme_block("On the wire:");
    for step in ["fairway emulate", "fairway key", "fairway recv", "fairway send"] {
        assert!(block.contains(step), "the example runs {step}:\n{block}");
    }
    // It uses the emulator's default namespaces, fw-fw-a and fw-fw-b; another emulator's would
    // make it fail for a reason that is not the README's.
    assert!(!Path::new("/run/netns/fw-fw-a").exists(), "fw-fw-a exists: another emulator is running");
    let dir = std::env::temp_dir().join(format!("fairway-readme-live-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink(repo().join("scenarios"), dir.join("scenarios")).unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_fairway")).parent().unwrap().to_path_buf();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let script = format!("set -e\nsudo() {{ \"$@\"; }}\n{block}wait\n");
    let o = Command::new("timeout")
        .args(["120", "bash", "-c", &script])
        .current_dir(&dir)
        .env("PATH", path)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{script}\n{stdout}\n{}", String::from_utf8_lossy(&o.stderr));
    // The emulator ran its 20 s and carried the flow; the receiver wrote the live summary.
    let line = stdout.lines().find(|l| l.starts_with("a -> b (a->b): ")).expect(&stdout);
    let carried: u64 = line["a -> b (a->b): ".len()..].split(' ').next().unwrap().parse().unwrap();
    let summary: Value = serde_json::from_str(&fs::read_to_string(dir.join("out/live/summary.json")).unwrap()).unwrap();
    let flow = &summary["flows"][0];
    assert_eq!((summary["mode"].as_str(), flow["name"].as_str()), (Some("live"), Some("mapp")));
    let got = flow["recv_pkts"].as_u64().unwrap();
    assert!(got > 100 && carried >= got, "received {got}, the emulator carried {carried}");
    assert!(!Path::new("/run/netns/fw-fw-a").exists(), "the namespaces are gone");
    let _ = fs::remove_dir_all(&dir);
}
