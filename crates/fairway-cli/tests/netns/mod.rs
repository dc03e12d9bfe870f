//! Whether the tests that build network namespaces can run here.

use std::path::Path;
use std::process::Command;

/// Root and a TUN device; without them the test says so and passes, unless
/// FAIRWAY_REQUIRE_NETNS is set (CI sets it).
pub fn can_run() -> bool {
    let root = Command::new("id").arg("-u").output().is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    let ok = root && Path::new("/dev/net/tun").exists();
    if !ok {
        assert!(
            std::env::var_os("FAIRWAY_REQUIRE_NETNS").is_none(),
            "FAIRWAY_REQUIRE_NETNS is set, but this needs root and /dev/net/tun"
        );
        eprintln!("skipped: network namespaces need root and /dev/net/tun");
    }
    ok
}
