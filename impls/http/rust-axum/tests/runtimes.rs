//! CONCUR_CORES as one current-thread runtime per core: the runtimes share
//! one port and one state, and stop within the grace, in process and as the
//! real binary under SIGTERM.

mod common;

use common::{request, send};
use concur_rust_axum::AppState;
use concur_rust_axum::runtimes::Runtimes;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The names of `pid`'s threads that start with `runtime-`, once there are
/// two (a thread names itself as it starts) or after a second.
fn runtime_threads(pid: u32) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(1);
    loop {
        let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).unwrap();
        let mut names: Vec<String> = tasks
            .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("comm")).ok())
            .map(|name| name.trim().to_string())
            .filter(|name| name.starts_with("runtime-"))
            .collect();
        names.sort();
        if names.len() >= 2 || Instant::now() > deadline {
            return names;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn two_runtimes_share_one_port_and_one_state_and_stop() {
    let config = common::test_config();
    let runtimes = Runtimes::start(config.addr, 2, AppState::new(config)).unwrap();
    let addr = runtimes.local_addr();
    assert_eq!(runtime_threads(std::process::id()), ["runtime-0", "runtime-1"]);
    // Twenty connections land on either socket; each sees what the others wrote.
    for i in 0..20 {
        assert_eq!(send(addr, &request("POST", &format!("/user/set/u{i}"), br#"{"n":1}"#)).status, 200);
        assert_eq!(send(addr, &request("GET", &format!("/user/get/u{}", i / 2), b"")).status, 200);
    }
    let stopper = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let started = Instant::now();
    stopper.block_on(runtimes.stop(Duration::from_secs(5))).unwrap();
    assert!(started.elapsed() < Duration::from_secs(2), "stopping idle runtimes took {:?}", started.elapsed());
    assert!(std::net::TcpStream::connect(addr).is_err(), "still listening after stop");
}

#[test]
fn the_binary_runs_a_runtime_per_core_and_exits_on_sigterm() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_server"))
        .env("PORT", port.to_string())
        .env("CONCUR_CORES", "2")
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    let addr = format!("127.0.0.1:{port}").parse().unwrap();
    while std::net::TcpStream::connect(addr).is_err() {
        assert!(Instant::now() < deadline, "the server did not listen on {port}");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(send(addr, &request("GET", "/", b"")).text(), "Hello, World!");
    assert_eq!(runtime_threads(child.id()), ["runtime-0", "runtime-1"]);

    assert!(Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap().success());
    let deadline = Instant::now() + Duration::from_secs(3);
    while child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "still running 3 s after SIGTERM");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(child.wait().unwrap().success());
}
