//! Whether the tests that build network namespaces can run here. The test crate that includes
//! this declares `mod referee;` beside it.

use std::path::Path;
use std::process::Command;

use super::referee;

/// Root and a TUN device; without them the test says so and passes, unless
/// FAIRWAY_REQUIRE_NETNS is set (CI sets it).
pub fn can_run() -> bool {
    let root = Command::new("id").arg("-u").output().is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    let missing = if !root {
        Some("network namespaces need root".to_string())
    } else if !Path::new("/dev/net/tun").exists() {
        Some("no /dev/net/tun".to_string())
    } else {
        None
    };
    referee::available("netns", "FAIRWAY_REQUIRE_NETNS", missing)
}
