//! A throw-away repository holding one implementation, `fake`: the fake
//! server of tests/support/fake_server.py started with the given
//! arguments, and the profiles given.

#![allow(dead_code)]

use std::path::Path;

const SERVER_PY: &str = include_str!("fake_server.py");

/// Writes `impls/http/fake` into `root`, started as `python3 server.py {port} ARGS MARKER`
/// (the marker names the root, so a test can find its servers in /proc).
pub fn write_fake(root: &Path, args: &str) {
    let marker = format!("concur-test-{}", root.file_name().unwrap().to_string_lossy());
    let dir = root.join("impls/http/fake");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::create_dir_all(root.join("spec/static")).unwrap();
    std::fs::create_dir_all(root.join("spec/profiles")).unwrap();
    // `concur faults` reads its profile (full by default) from the repository it measures.
    let faults = root.join("spec/profiles/faults");
    std::fs::create_dir_all(&faults).unwrap();
    for name in ["full", "quick"] {
        let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("spec/profiles/faults/{name}.toml"));
        std::fs::copy(shipped, faults.join(format!("{name}.toml"))).unwrap();
    }
    std::fs::write(dir.join("server.py"), SERVER_PY).unwrap();
    let manifest = format!(
        "name = \"fake\"\nlanguage = \"Python\"\nruntime = \"CPython\"\nversion = \"python3 --version\"\nframework = \"http.server\"\nmodel = \"os-threads\"\n\
         [requires]\ncommands = [\"python3\"]\n[start]\ncommand = \"python3 server.py {{port}} {args} {marker}\"\n"
    );
    std::fs::write(dir.join("concur.toml"), manifest).unwrap();
}

/// One measuring run of the fake at a time: every `concur run` pins its server to
/// CPU 0 and its generator to CPU 1, so two side by side would measure each other
/// (a capacity search found a 200 req/s server at 27 req/s beside a compare test).
static MEASURING: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Held for as long as a test measures the fake.
pub fn measuring() -> std::sync::MutexGuard<'static, ()> {
    MEASURING.lock().unwrap_or_else(|e| e.into_inner())
}

/// Writes `spec/profiles/NAME.toml`.
pub fn write_profile(root: &Path, name: &str, text: &str) {
    std::fs::write(root.join(format!("spec/profiles/{name}.toml")), text).unwrap();
}
