//! SPEC §2 and §3 against a real server on a loopback port.

mod common;

use common::{LONG_POLL, PAGE_DELAY, PAGE_EVERY, TestServer, request};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

const MIB: usize = 1 << 20;

#[test]
fn hello_routes() {
    let server = TestServer::start();
    server.call("GET", "/", b"").expect(200, "text/plain", Some("Hello, World!"));
    server.call("GET", "/?x=1", b"").expect(200, "text/plain", Some("Hello, World!"));
    server.call("GET", "/json", b"").expect(200, "application/json", Some(r#"{"message":"Hello, World!"}"#));
}

#[test]
fn page_is_the_file_and_every_nth_is_delayed() {
    let server = TestServer::start();
    let want = std::fs::read(page_file()).unwrap();
    for i in 1..=2 * PAGE_EVERY {
        let started = Instant::now();
        let reply = server.call("GET", "/page", b"");
        reply.expect(200, "text/html; charset=utf-8", None);
        assert_eq!(reply.body, want);
        let delayed = started.elapsed() >= PAGE_DELAY;
        assert_eq!(delayed, i % PAGE_EVERY == 0, "request {i} took {:?}", started.elapsed());
    }
}

fn page_file() -> &'static str {
    concur_threadpool::config::DEFAULT_PAGE_FILE
}

#[test]
fn long_poll_waits() {
    let server = TestServer::start();
    let started = Instant::now();
    server.call("GET", "/longPoll", b"").expect(200, "text/plain", Some("OK"));
    assert!(started.elapsed() >= LONG_POLL, "answered after {:?}", started.elapsed());
}

#[test]
fn password_set_and_verify() {
    let server = TestServer::start();
    let post = |path: &str, body: &str| server.call("POST", path, body.as_bytes());
    post("/password/verify/alice", r#"{"password":"pw"}"#).expect(404, "text/plain", None);
    post("/password/set/alice", r#"{"password":"pw"}"#).expect(200, "text/plain", Some("OK"));
    post("/password/verify/alice", r#"{"password":"pw"}"#).expect(200, "text/plain", Some("OK"));
    post("/password/verify/alice", r#"{"password":"pW"}"#).expect(403, "text/plain", None);
    post("/password/set/alice", r#"{"password":"new"}"#).expect(200, "text/plain", Some("OK"));
    post("/password/verify/alice", r#"{"password":"pw"}"#).expect(403, "text/plain", None);
    post("/password/verify/bob", r#"{"password":"new"}"#).expect(404, "text/plain", None);
    let max = format!(r#"{{"password":"{}"}}"#, "é".repeat(36)); // 72 bytes of UTF-8
    post("/password/set/carol", &max).expect(200, "text/plain", Some("OK"));
    post("/password/verify/carol", &max).expect(200, "text/plain", Some("OK"));
}

#[test]
fn bad_passwords_are_400() {
    let server = TestServer::start();
    let too_long = format!(r#"{{"password":"{}x"}}"#, "é".repeat(36));
    for body in ["{}", r#"{"password":5}"#, r#"{"password":null}"#, r#"["password"]"#, r#"{"password":"a\u0000b"}"#, &too_long, "not json", ""] {
        for route in ["set", "verify"] {
            server.call("POST", &format!("/password/{route}/dave"), body.as_bytes()).expect(400, "text/plain", None);
        }
    }
    server.call("POST", "/password/set/dave", b"{\"password\":\"\xff\"}").expect(400, "text/plain", None);
}

#[test]
fn user_values_are_parsed_and_serialized_anew() {
    let server = TestServer::start();
    server.call("GET", "/user/get/u.1", b"").expect(404, "text/plain", None);
    let object = json!({"name": "Ann", "n": 12345678901234567890u64, "tags": ["a", {"b": null}], "x": -1.5});
    server.call("POST", "/user/set/u.1", object.to_string().as_bytes()).expect(200, "text/plain", Some("OK"));
    let got = server.call("GET", "/user/get/u.1", b"");
    got.expect(200, "application/json", None);
    assert_eq!(serde_json::from_slice::<Value>(&got.body).unwrap(), object);
    // Spacing and the spelling of numbers and escapes come back in serde_json's own form.
    server.call("POST", "/user/set/u.2", br#" { "n" : 1.0E2, "s" : "\u0041" } "#).expect(200, "text/plain", Some("OK"));
    server.call("GET", "/user/get/u.2", b"").expect(200, "application/json", Some(r#"{"n":100.0,"s":"A"}"#));
    server.call("POST", "/user/set/u.1", br#"{"x":1}"#).expect(200, "text/plain", Some("OK"));
    server.call("GET", "/user/get/u.1", b"").expect(200, "application/json", Some(r#"{"x":1}"#));
}

#[test]
fn user_bodies_that_are_not_json_objects_are_400() {
    let server = TestServer::start();
    let bodies: [&[u8]; 10] = [
        b"[1,2]",
        b"\"str\"",
        b"42",
        b"null",
        b"not json",
        b"{\"a\":1} trailing",
        b"",
        b"{\"name\":\"\xff\"}",
        b"{\"name\":\"\xed\xa0\x80\"}",
        b"{\"\xfe\":1}",
    ];
    for body in bodies {
        server.call("POST", "/user/set/eve", body).expect(400, "text/plain", None);
    }
    server.call("GET", "/user/get/eve", b"").expect(404, "text/plain", None);
}

#[test]
fn unknown_paths_are_404_and_wrong_methods_405_with_allow() {
    let server = TestServer::start();
    for path in ["/nope", "/JSON", "/json/extra", "/user/get", "/user/delete/x", "/index.html"] {
        server.call("GET", path, b"").expect(404, "text/plain", None);
    }
    for (method, path, allow) in
        [("POST", "/", "GET, HEAD"), ("PUT", "/page", "GET, HEAD"), ("GET", "/user/set/bob", "POST"), ("PATCH", "/user/get/bob", "GET, HEAD")]
    {
        let reply = server.call(method, path, b"{}");
        reply.expect(405, "text/plain", None);
        assert_eq!(reply.header("allow"), Some(allow), "{method} {path}");
    }
}

#[test]
fn user_names_are_checked_on_the_raw_path() {
    let server = TestServer::start();
    let too_long = "x".repeat(65);
    for name in ["", "a/b", "%41", "a%20b", "a:b", "a@b", "a+b", "a~b", &too_long] {
        server.call("GET", &format!("/user/get/{name}"), b"").expect(400, "text/plain", None);
        server.call("POST", &format!("/user/set/{name}"), b"{}").expect(400, "text/plain", None);
    }
}

/// A JSON object of exactly `len` bytes.
fn object_of(len: usize) -> Vec<u8> {
    let mut body = br#"{"pad":""#.to_vec();
    body.resize(len - 2, b'a');
    body.extend_from_slice(br#""}"#);
    body
}

#[test]
fn a_body_of_exactly_1_mib_is_taken() {
    let server = TestServer::start();
    server.call("POST", "/user/set/big", &object_of(MIB)).expect(200, "text/plain", Some("OK"));
    assert_eq!(server.call("GET", "/user/get/big", b"").body.len(), MIB);
}

#[test]
fn content_length_over_1_mib_is_413_before_the_body_is_sent() {
    let server = TestServer::start();
    for path in ["/user/set/big", "/password/set/big"] {
        let mut client = server.connect();
        client.send(format!("POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n", MIB + 1).as_bytes());
        client.read(false).expect(413, "text/plain", None);
    }
}

#[test]
fn a_chunked_body_over_1_mib_is_413() {
    let server = TestServer::start();
    let mut client = server.connect();
    client.send(b"POST /user/set/big HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
    let mut writer = client.stream.try_clone().unwrap();
    let sender = std::thread::spawn(move || {
        use std::io::Write;
        let piece = vec![b'a'; 64 * 1024];
        for _ in 0..17 {
            if writer
                .write_all(format!("{:x}\r\n", piece.len()).as_bytes())
                .and_then(|_| writer.write_all(&piece))
                .and_then(|_| writer.write_all(b"\r\n"))
                .is_err()
            {
                return;
            }
        }
        let _ = writer.write_all(b"0\r\n\r\n");
    });
    client.read(false).expect(413, "text/plain", None);
    drop(client);
    sender.join().unwrap();
    server.call("GET", "/", b"").expect(200, "text/plain", Some("Hello, World!"));
}

#[test]
fn fault_routes_only_with_the_switch() {
    let server = TestServer::start();
    server.call("GET", "/fault/panic", b"").expect(404, "text/plain", None);
    server.call("GET", "/fault/spin?ms=10", b"").expect(404, "text/plain", None);
    let server = TestServer::with(|c| c.faults = true);
    for target in ["/fault/spin", "/fault/spin?ms=", "/fault/spin?ms=x", "/fault/spin?ms=-5"] {
        server.call("GET", target, b"").expect(200, "text/plain", Some("OK"));
    }
    let started = Instant::now();
    server.call("GET", "/fault/spin?ms=100", b"").expect(200, "text/plain", Some("OK"));
    assert!(started.elapsed() >= Duration::from_millis(100), "answered after {:?}", started.elapsed());
    let mut client = server.connect();
    client.send(&request("GET", "/fault/panic", b""));
    assert!(client.closed_within(Duration::from_secs(5)), "the panic's connection is closed unanswered");
    server.call("GET", "/", b"").expect(200, "text/plain", Some("Hello, World!"));
}
