//! SPEC §4 (framings a conforming client may choose), §3.1 (invalid HTTP),
//! §5 (one store for every connection) and the pool's own behaviour:
//! waits block only their own thread, and a stop ends the server.

mod common;

use common::{LONG_POLL, TestServer, request};
use std::thread;
use std::time::{Duration, Instant};

#[test]
fn many_requests_on_one_keep_alive_connection() {
    let server = TestServer::start();
    let mut client = server.connect();
    for i in 0..20 {
        client.send(&request("POST", "/user/set/ka", format!(r#"{{"i":{i}}}"#).as_bytes()));
        client.read(false).expect(200, "text/plain", Some("OK"));
        client.send(&request("GET", "/user/get/ka", b""));
        client.read(false).expect(200, "application/json", Some(&format!(r#"{{"i":{i}}}"#)));
    }
    assert!(!client.closed_within(Duration::from_millis(200)), "an idle keep-alive connection was closed at once");
}

#[test]
fn connection_close_and_http_10_close_after_the_answer() {
    let server = TestServer::start();
    let mut client = server.connect();
    client.send(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    let reply = client.read(false);
    reply.expect(200, "text/plain", Some("Hello, World!"));
    assert_eq!(reply.header("connection"), Some("close"));
    assert!(client.closed_within(Duration::from_secs(2)));

    let mut client = server.connect();
    client.send(b"POST /user/set/h10 HTTP/1.0\r\nContent-Length: 9\r\n\r\n{\"v\":10}\n");
    client.read(false).expect(200, "text/plain", Some("OK"));
    assert!(client.closed_within(Duration::from_secs(2)));
    server.call("GET", "/user/get/h10", b"").expect(200, "application/json", Some(r#"{"v":10}"#));

    let mut client = server.connect();
    client.send(b"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
    let reply = client.read(false);
    assert_eq!(reply.header("connection"), Some("keep-alive"));
    client.send(b"GET /json HTTP/1.0\r\n\r\n");
    client.read(false).expect(200, "application/json", None);
    assert!(client.closed_within(Duration::from_secs(2)));
}

#[test]
fn chunked_bodies_arrive_in_pieces() {
    let server = TestServer::start();
    let mut client = server.connect();
    client.send(b"POST /user/set/chunky HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
    for piece in ["{\"a\":", "1,\"b\"", ":[1,2]}"] {
        thread::sleep(Duration::from_millis(10));
        client.send(format!("{:x};ext=1\r\n{piece}\r\n", piece.len()).as_bytes());
    }
    client.send(b"0\r\nTrailer: yes\r\n\r\n");
    client.read(false).expect(200, "text/plain", Some("OK"));
    client.send(&request("GET", "/user/get/chunky", b""));
    client.read(false).expect(200, "application/json", Some(r#"{"a":1,"b":[1,2]}"#));
}

#[test]
fn expect_100_continue_gets_a_100_when_the_body_is_wanted() {
    let server = TestServer::start();
    let mut client = server.connect();
    client.send(b"POST /user/set/cont HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 7\r\n\r\n");
    assert_eq!(client.read(false).status, 100);
    client.send(b"{\"c\":1}");
    client.read(false).expect(200, "text/plain", Some("OK"));
    // Refused before the body is needed: the final answer, no 100, and the connection closes.
    let mut client = server.connect();
    client.send(b"POST /user/set/%41 HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 7\r\n\r\n");
    client.read(false).expect(400, "text/plain", None);
    assert!(client.closed_within(Duration::from_secs(3)));
}

#[test]
fn pipelined_requests_are_answered_in_order_each_seeing_the_ones_before() {
    let server = TestServer::start();
    let batch = [
        request("GET", "/", b""),
        request("POST", "/user/set/pipe", br#"{"p":true}"#),
        request("GET", "/user/get/pipe", b""),
        request("GET", "/nope", b""),
        request("GET", "/json", b""),
    ]
    .concat();
    let mut client = server.connect();
    client.send(&batch);
    client.read(false).expect(200, "text/plain", Some("Hello, World!"));
    client.read(false).expect(200, "text/plain", Some("OK"));
    client.read(false).expect(200, "application/json", Some(r#"{"p":true}"#));
    client.read(false).expect(404, "text/plain", None);
    client.read(false).expect(200, "application/json", None);
}

#[test]
fn a_request_written_one_byte_at_a_time() {
    let server = TestServer::start();
    let mut client = server.connect();
    let bytes = request("POST", "/user/set/slow", br#"{"slow":1}"#);
    for byte in &bytes {
        client.send(std::slice::from_ref(byte));
        thread::sleep(Duration::from_micros(200));
    }
    client.read(false).expect(200, "text/plain", Some("OK"));
}

#[test]
fn head_and_get_bodies_leave_the_connection_usable() {
    let server = TestServer::start();
    let mut client = server.connect();
    client.send(&request("HEAD", "/", b""));
    let head = client.read(true);
    assert_eq!((head.status, head.header("content-length")), (200, Some("13")));
    client.send(&request("GET", "/json", b"ignored body"));
    client.read(false).expect(200, "application/json", None);
    client.send(b"GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n");
    client.read(false).expect(200, "text/plain", Some("Hello, World!"));
    client.send(&request("GET", "/", b""));
    client.read(false).expect(200, "text/plain", Some("Hello, World!"));
}

#[test]
fn absolute_form_is_routed_by_its_path() {
    let server = TestServer::start();
    server.call("GET", &format!("http://{}/json?x", server.addr), b"").expect(200, "application/json", None);
}

#[test]
fn invalid_http_is_400_and_the_server_keeps_serving() {
    let server = TestServer::start();
    for raw in [
        &b"GARBAGE\r\n\r\n"[..],
        b"GET / EXTRA JUNK HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n",
        b"GET / HTTP/1.1\r\n\r\n",
        b"POST /user/set/chunky HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n",
        b"POST /user/set/chunky HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}}\r\n0\r\n\r\n",
    ] {
        let mut client = server.connect();
        client.send(raw);
        client.read(false).expect(400, "text/plain", None);
        assert!(client.closed_within(Duration::from_secs(3)), "{:?}", String::from_utf8_lossy(raw));
    }
    server.call("GET", "/", b"").expect(200, "text/plain", Some("Hello, World!"));
}

#[test]
fn long_polls_block_only_their_own_threads() {
    let server = TestServer::start(); // 32 threads
    let started = Instant::now();
    let polls: Vec<_> = (0..24).map(|_| server.connect()).collect();
    let polls: Vec<_> = polls
        .into_iter()
        .map(|mut client| {
            client.send(&request("GET", "/longPoll", b""));
            thread::spawn(move || client.read(false).status)
        })
        .collect();
    server.call("GET", "/", b"").expect(200, "text/plain", Some("Hello, World!"));
    assert!(started.elapsed() < LONG_POLL, "GET / waited behind the long polls: {:?}", started.elapsed());
    for poll in polls {
        assert_eq!(poll.join().unwrap(), 200);
    }
    assert!(started.elapsed() < LONG_POLL * 3, "24 long polls on 32 threads took {:?}", started.elapsed());
}

#[test]
fn connections_past_the_pool_size_wait_for_a_free_thread() {
    let server = TestServer::with(|config| config.threads = 2);
    let started = Instant::now();
    let polls: Vec<_> = (0..4)
        .map(|_| {
            let mut client = server.connect();
            client.send(&request("GET", "/longPoll", b""));
            thread::spawn(move || client.read(false).status)
        })
        .collect();
    for poll in polls {
        assert_eq!(poll.join().unwrap(), 200);
    }
    assert!(started.elapsed() >= LONG_POLL * 2, "4 long polls on 2 threads took only {:?}", started.elapsed());
}

/// Issue 23: a fixed pool of 256 threads answered 256 of 1,000 long polls and
/// left 744 waiting the whole run. The pool now grows, so 1,000 polls sent
/// together are all answered about one poll later (the fixed pool took four).
#[test]
fn a_thousand_long_polls_are_answered_together() {
    let poll = Duration::from_secs(2);
    let server = TestServer::with(|config| {
        config.threads = concur_threadpool::config::DEFAULT_THREADS;
        config.long_poll = poll;
    });
    let started = Instant::now();
    let mut clients: Vec<_> = (0..1000).map(|_| server.connect()).collect();
    for client in &mut clients {
        client.send(&request("GET", "/longPoll", b""));
    }
    let answered = clients.iter_mut().map(|client| client.read(false).status).filter(|&status| status == 200).count();
    assert_eq!(answered, 1000);
    assert!(started.elapsed() < poll * 2, "1,000 long polls of {poll:?} took {:?}", started.elapsed());
}

#[test]
fn concurrent_writes_to_distinct_users_are_all_kept() {
    let server = TestServer::start();
    let writers: Vec<_> = (0..16)
        .map(|i| {
            let mut client = server.connect();
            thread::spawn(move || {
                client.send(&request("POST", &format!("/user/set/w{i}"), format!(r#"{{"w":{i}}}"#).as_bytes()));
                client.read(false).status
            })
        })
        .collect();
    assert!(writers.into_iter().all(|w| w.join().unwrap() == 200));
    for i in 0..16 {
        server.call("GET", &format!("/user/get/w{i}"), b"").expect(200, "application/json", Some(&format!(r#"{{"w":{i}}}"#)));
    }
}

#[test]
fn a_stopped_server_returns_within_its_grace() {
    let server = TestServer::start();
    let mut idle = server.connect();
    idle.send(&request("GET", "/", b""));
    idle.read(false);
    let took = server.stop();
    assert!(took < Duration::from_secs(3), "stopping took {took:?}");
}
