//! SPEC §1: the real binary, started as the orchestrator starts it, serves
//! `GET /` and exits on SIGTERM.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn the_binary_serves_and_exits_on_sigterm() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut child =
        Command::new(env!("CARGO_BIN_EXE_concur-threadpool")).env("PORT", port.to_string()).env("CONCUR_CORES", "1").stderr(Stdio::null()).spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    let answer = loop {
        if let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)) {
            stream.write_all(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").unwrap();
            let mut answer = String::new();
            stream.read_to_string(&mut answer).unwrap();
            break answer;
        }
        assert!(Instant::now() < deadline, "the server did not listen on {port}");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(answer.starts_with("HTTP/1.1 200 OK\r\n") && answer.ends_with("Hello, World!"), "{answer}");

    // SAFETY: a plain kill(2) of our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let deadline = Instant::now() + Duration::from_secs(3);
    while child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "still running 3 s after SIGTERM");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(child.wait().unwrap().success());
}

#[test]
fn a_bad_setting_stops_the_binary_naming_the_variable() {
    let out = Command::new(env!("CARGO_BIN_EXE_concur-threadpool")).env("PORT", "1").env("CONCUR_BCRYPT_COST", "99").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("CONCUR_BCRYPT_COST=\"99\""));
}
