//! The programs some end-to-end tests need besides cargo (python3 for fake
//! implementations, go, chromium, bash), and the one rule for when one is missing:
//! the test fails, naming the install command, so that `make test` and CI
//! never report as passed a test that did not run. Skipping happens only
//! when asked with `CONCUR_TEST_SKIP_MISSING=1`, and says so in one line.
//!
//! Included with `#[path = "support/tools.rs"] mod tools;` by each test file
//! that needs it, so that the files that do not are not compiled with it.

#![allow(dead_code)]

use std::io::Write;
use std::path::PathBuf;

/// A program a test runs, by the names it may be installed under.
pub struct Tool {
    pub names: &'static [&'static str],
    pub install: &'static str,
}

pub const PYTHON3: Tool = Tool { names: &["python3"], install: "apt-get install python3" };
pub const GO: Tool = Tool { names: &["go"], install: "apt-get install golang-go" };
pub const BASH: Tool = Tool { names: &["bash"], install: "apt-get install bash" };
pub const CHROMIUM: Tool = Tool {
    names: &["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"],
    install: "apt-get install chromium",
};

/// The variable that turns a missing tool from a failure into a skip.
pub const SKIP_MISSING: &str = "CONCUR_TEST_SKIP_MISSING";

/// Where `tool` is installed. When it is not: panics with the install
/// command, or, under `CONCUR_TEST_SKIP_MISSING=1`, prints one line and
/// returns `None` so that the test can return.
pub fn require(tool: &Tool) -> Option<PathBuf> {
    if let Some(path) = tool.names.iter().find_map(|name| concur::impls::which(name)) {
        return Some(path);
    }
    missing(&format!("{} is missing: {}", tool.names[0], tool.install))
}

/// A prerequisite the test cannot run without, said in `why`: panics, or, under
/// `CONCUR_TEST_SKIP_MISSING=1`, prints one line and returns `None` so that the test can return.
pub fn missing<T>(why: &str) -> Option<T> {
    if std::env::var(SKIP_MISSING).is_ok_and(|v| v == "1") {
        let test = std::thread::current().name().unwrap_or("a test").to_string();
        // Straight to stderr: libtest captures `eprintln!` of a passing test, and this line must be seen.
        let _ = writeln!(std::io::stderr(), "skipped {test}: {why} ({SKIP_MISSING}=1 asked to skip)");
        return None;
    }
    panic!("{why} (or set {SKIP_MISSING}=1 to skip the tests that need it)");
}
