//! `concur load` as people use it: wrk-like output, JSON on request, one-line
//! errors, silence on stderr when it is not a terminal, Ctrl-C giving the
//! partial result.

use crate::load_support;

use load_support::{Behaviour, TestServer};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn concur(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_concur")).args(args).output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn summary_on_stdout_json_in_the_file() {
    let server = TestServer::start(Behaviour::Hello);
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let out = concur(&["load", &server.url(), "-c", "4", "-t", "2", "-n", "200", "--json", json.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with(&format!("Running 200 requests @ {}\n  2 threads and 4 connections, closed loop\n", server.url())), "{stdout}");
    for expected in ["Latency Distribution", "     99%", "200 requests in", "Requests/sec:", "Generator CPU:"] {
        assert!(stdout.contains(expected), "missing {expected:?} in\n{stdout}");
    }
    assert_eq!(text(&out.stderr), "", "nothing on stderr when it is not a terminal");
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["schema"], "concur-load/1");
    assert_eq!(report["requests"], 200);
    assert_eq!(report["settings"]["connections"], 4);
    assert!(report["latency"]["histogram"].as_str().unwrap().len() > 10);
}

#[test]
fn json_to_stdout_moves_the_summary_to_stderr() {
    let server = TestServer::start(Behaviour::Hello);
    let out = concur(&["load", &server.url(), "-c", "2", "-n", "10", "--json", "-"]);
    assert!(out.status.success());
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["requests"], 10);
    assert!(text(&out.stderr).contains("Requests/sec:"));
}

#[test]
fn a_spawn_rate_is_refused_with_the_fix_when_it_is_not_a_rate_or_meets_an_open_loop() {
    let out = concur(&["load", "http://127.0.0.1:9/", "--spawn-rate", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("invalid spawn rate '0': expected users per second above 0, e.g. 5000"), "{}", text(&out.stderr));
    let out = concur(&["load", "http://127.0.0.1:9/", "--spawn-rate", "100", "-R", "1000"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--spawn-rate") && text(&out.stderr).contains("--rate"), "{}", text(&out.stderr));
}

#[test]
fn bad_url_is_one_line() {
    let out = concur(&["load", "htp://127.0.0.1:1/"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(text(&out.stderr), "concur: error: invalid URL 'htp://127.0.0.1:1/': unknown scheme 'htp', expected http://\n");
}

#[test]
fn refused_connection_is_one_line_and_quick() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let started = Instant::now();
    let out = concur(&["load", &format!("http://127.0.0.1:{port}/"), "-d", "10s"]);
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("Connection refused") && stderr.contains("is the server running?"), "{stderr}");
}

#[test]
fn nothing_succeeding_is_one_line_naming_the_cause() {
    let server = TestServer::start(Behaviour::Status(500));
    let out = concur(&["load", &server.url(), "-c", "2", "-n", "20"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        format!("concur: error: no successful response from {}: 20 responses with status 500, expected 2xx or 3xx\n", server.url())
    );
}

/// A server that accepts and never answers made `concur load` exit 0 with a latency table
/// of nothing: nothing succeeded, and the requests still waiting say so.
#[test]
fn a_server_that_never_answers_fails_the_run_with_its_requests_unfinished() {
    let server = TestServer::start(Behaviour::Silent);
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let out = concur(&["load", &server.url(), "-c", "4", "-d", "1s", "--json", json.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.starts_with(&format!("concur: error: no successful response from {}: 4 requests unanswered at the end (oldest ", server.url())), "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!((report["requests"].as_u64(), report["unfinished"].as_u64()), (Some(0), Some(4)));
    assert_eq!(report["latency"]["lower_bounds"][0], "p50");
}

#[test]
fn ctrl_c_prints_the_partial_result() {
    let server = TestServer::start(Behaviour::Delay(Duration::from_millis(2)));
    let child = Command::new(env!("CARGO_BIN_EXE_concur"))
        .args(["load", &server.url(), "-c", "2", "-d", "60s"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(700));
    // SAFETY: sending a signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let started = Instant::now();
    let out = child.wait_with_output().unwrap();
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_eq!(out.status.code(), Some(130));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("(interrupted)") && stdout.contains("Requests/sec:"), "{stdout}");
    assert!(stdout.contains("  unfinished 2 (oldest "), "the two requests in flight at the interrupt: {stdout}");
}

#[test]
fn users_command_writes_the_thesis_csv() {
    let out = concur(&["users", "-n", "2"]);
    assert!(out.status.success());
    let csv = text(&out.stdout);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0], "username;password");
    assert!(lines[1].starts_with("user00001;"));
}
