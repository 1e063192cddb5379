//! `[known_failures]` end to end: `concur verify` against the reference
//! server with a fault, as an implementation whose manifest declares (or does
//! not declare) the failing check. A declared failure is shown as `known`
//! with its reason and does not fail the run; the same failure undeclared
//! still does; a declaration that names no check is a manifest error; one
//! that does not occur passes with a note.

use crate::support;

use std::net::SocketAddr;
use std::path::Path;
use std::process::{Command, Output};
use support::refserver::{self, Fault};

const REASON: &str = "Fakeserver 1.0 answers a malformed request line with 505, not 400 (fake/server#7)";

fn manifest(known: &str) -> String {
    format!(
        "name = \"fake\"\nlanguage = \"Rust\"\nruntime = \"rustc\"\nversion = \"true\"\nframework = \"std\"\nmodel = \"os-threads\"\n\
         [start]\ncommand = \"./server\"\n{known}"
    )
}

/// A throw-away repository whose one HTTP implementation `fake` has `manifest`.
fn root_with(manifest: &str) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("impls/http/fake");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::create_dir_all(root.path().join("spec/static")).unwrap();
    std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join("spec/static/hello.html"), root.path().join("spec/static/hello.html")).unwrap();
    std::fs::write(dir.join("concur.toml"), manifest).unwrap();
    root
}

fn reference(faults: &[Fault]) -> SocketAddr {
    let page = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("spec/static/hello.html")).unwrap();
    refserver::start(faults, page, 2000, 600)
}

/// `concur verify fake --url <addr> --only malformed` in `root`, its JSON written to `json`.
fn verify(root: &Path, addr: SocketAddr, json: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_concur"))
        .args(["verify", "fake", "--url", &format!("http://{addr}"), "--only", "malformed", "--json"])
        .arg(json)
        .arg("--root")
        .arg(root)
        .output()
        .unwrap()
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

#[test]
fn a_declared_failure_is_known_shows_its_reason_and_exits_zero() {
    let root = root_with(&manifest(&format!("[known_failures]\nmalformed-request = \"{REASON}\"\n")));
    let json = root.path().join("verify.json");
    let out = verify(root.path(), reference(&[Fault::DiesOnGarbage]), &json);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(0), "{t}");
    assert!(t.contains("  known malformed-request") && t.contains("stopped serving"), "{t}");
    assert!(t.contains(&format!("        declared: {REASON}")), "{t}");
    assert!(t.contains("0 pass, 0 warn, 0 fail, 1 known"), "{t}");
    let reports: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let outcome = &reports[0]["outcomes"][0];
    assert_eq!((outcome["id"].as_str(), outcome["status"].as_str(), outcome["declared"].as_str()), (Some("malformed-request"), Some("known"), Some(REASON)), "{reports}");
}

#[test]
fn the_same_failure_undeclared_still_fails() {
    let root = root_with(&manifest(""));
    let json = root.path().join("verify.json");
    let out = verify(root.path(), reference(&[Fault::DiesOnGarbage]), &json);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(t.contains("  FAIL  malformed-request") && !t.contains("known"), "{t}");
    assert!(t.contains("0 pass, 0 warn, 1 fail"), "{t}");
}

#[test]
fn a_known_failure_that_names_no_check_is_a_manifest_error() {
    let root = root_with(&manifest(&format!("[known_failures]\nmalformed-requests = \"{REASON}\"\n")));
    let json = root.path().join("verify.json");
    let out = verify(root.path(), reference(&[]), &json);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(t.contains("impls/http/fake/concur.toml: 'known_failures.malformed-requests' is not a check of `concur verify`; the checks are "), "{t}");
    assert!(t.contains("malformed-request, ") && t.contains("pipelining"), "{t}");
}

#[test]
fn a_declared_failure_that_does_not_occur_passes_with_a_note() {
    let root = root_with(&manifest(&format!("[known_failures]\nmalformed-request = \"{REASON}\"\n")));
    let json = root.path().join("verify.json");
    let out = verify(root.path(), reference(&[]), &json);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(0), "{t}");
    assert!(t.contains("  pass  malformed-request"), "{t}");
    assert!(t.contains("note: concur.toml declares this a known failure, but it did not fail this time"), "{t}");
    assert!(t.contains("1 pass, 0 warn, 0 fail") && !t.contains("known\n"), "{t}");
}
