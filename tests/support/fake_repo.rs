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
    std::fs::write(dir.join("server.py"), SERVER_PY).unwrap();
    let manifest = format!(
        "name = \"fake\"\nlanguage = \"Python\"\nruntime = \"CPython\"\nversion = \"python3 --version\"\nframework = \"http.server\"\nmodel = \"os-threads\"\n\
         [requires]\ncommands = [\"python3\"]\n[start]\ncommand = \"python3 server.py {{port}} {args} {marker}\"\n"
    );
    std::fs::write(dir.join("concur.toml"), manifest).unwrap();
}

/// Writes `spec/profiles/NAME.toml`.
pub fn write_profile(root: &Path, name: &str, text: &str) {
    std::fs::write(root.join(format!("spec/profiles/{name}.toml")), text).unwrap();
}
