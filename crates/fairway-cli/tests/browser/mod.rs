//! A headless browser for the tests that open report.html pages: Debian's chromium where it is
//! installed (CI installs it and sets FAIRWAY_REQUIRE_CHROMIUM). The test crate that includes
//! this declares `mod referee;` beside it.

use std::path::Path;
use std::process::Command;

use super::referee;

pub fn chromium() -> Option<&'static str> {
    let found = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|c| Command::new(c).arg("--version").output().is_ok_and(|o| o.status.success()));
    let missing = found.is_none().then(|| "no chromium runs: report.html was not loaded in a browser".to_string());
    referee::available("chromium", "FAIRWAY_REQUIRE_CHROMIUM", missing);
    found
}

/// The page's `<body ...>` tag after the browser loaded it and its script ran.
pub fn loaded_body(browser: &str, page: &Path, profile: &Path) -> String {
    let o = Command::new("timeout")
        .arg("120")
        .arg(browser)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=10000", "--dump-dom"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("run the browser");
    assert!(o.status.success(), "{browser}: {}", String::from_utf8_lossy(&o.stderr));
    let dom = String::from_utf8_lossy(&o.stdout);
    let at = dom.find("<body").expect("a body");
    dom[at..at + dom[at..].find('>').expect("the body tag ends")].to_string()
}
