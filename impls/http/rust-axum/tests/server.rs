//! SPEC §3.1, §4 and the waits of §2 against a real server on a port the OS
//! chose: framings sent as raw bytes, and many clients at once.

mod common;

use common::{Response, exchange, request, send, start};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// Runs the blocking raw client off the runtime's workers.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    tokio::task::spawn_blocking(f).await.unwrap()
}

fn assert_headers(r: &Response, what: &str) {
    for name in ["content-length", "content-type", "date", "server"] {
        assert!(r.header(name).is_some(), "{what}: no {name} header in {:?}", r.headers);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_answer_has_the_required_headers() {
    let s = start().await;
    let addr = s.addr;
    blocking(move || {
        let cases: [(&str, &str, &[u8]); 6] = [
            ("GET", "/", b""),
            ("GET", "/nope", b""),
            ("DELETE", "/json", b""),
            ("GET", "/user/get/a~b", b""),
            ("POST", "/user/set/u", b"[]"),
            ("POST", "/password/verify/u", b"{\"password\":\"x\"}"),
        ];
        for (method, path, body) in cases {
            assert_headers(&send(addr, &request(method, path, body)), &format!("{method} {path}"));
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pipelined_requests_are_answered_in_order() {
    let s = start().await;
    let addr = s.addr;
    let batch = [
        b"GET / HTTP/1.1\r\nHost: t\r\n\r\n".to_vec(),
        b"POST /user/set/pipe HTTP/1.1\r\nHost: t\r\nContent-Length: 8\r\n\r\n{\"p\":1}\n".to_vec(),
        b"GET /user/get/pipe HTTP/1.1\r\nHost: t\r\n\r\n".to_vec(),
        request("GET", "/nope", b""),
    ]
    .concat();
    let responses = blocking(move || exchange(addr, &batch)).await;
    let statuses: Vec<u16> = responses.iter().map(|r| r.status).collect();
    assert_eq!(statuses, [200, 200, 200, 404]);
    assert_eq!(responses[0].text(), "Hello, World!");
    assert_eq!(responses[2].text(), r#"{"p":1}"#);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_1_0_is_answered_with_content_length_then_closed() {
    let s = start().await;
    let addr = s.addr;
    // `exchange` reads to the end, so it returns only because the server closed.
    let responses = blocking(move || exchange(addr, b"GET / HTTP/1.0\r\n\r\n")).await;
    assert_eq!(responses.len(), 1);
    assert_eq!(responses[0].header("content-length"), Some("13"));
    assert_eq!(responses[0].text(), "Hello, World!");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chunked_bodies_and_expect_continue() {
    let s = start().await;
    let addr = s.addr;
    blocking(move || {
        let chunked = b"POST /user/set/c HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\n{\"a\"\r\n3\r\n:1}\r\n0\r\n\r\n";
        let expect = b"POST /user/set/e HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 7\r\nConnection: close\r\n\r\n{\"e\":1}";
        let responses = exchange(addr, &[&chunked[..], &expect[..]].concat());
        let statuses: Vec<u16> = responses.iter().map(|r| r.status).collect();
        assert_eq!(statuses, [200, 100, 200]);
        assert_eq!(send(addr, &request("GET", "/user/get/c", b"")).text(), r#"{"a":1}"#);
        assert_eq!(send(addr, &request("GET", "/user/get/e", b"")).text(), r#"{"e":1}"#);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_bodies_are_413_from_the_header_or_while_streaming() {
    let s = start().await;
    let addr = s.addr;
    blocking(move || {
        // From Content-Length alone: no 100 Continue, and the body is never sent.
        let head = format!(
            "POST /user/set/big HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: {}\r\n\r\n",
            (1 << 20) + 1
        );
        let r = send(addr, head.as_bytes());
        assert_eq!(r.status, 413, "{}", r.text());
        assert_headers(&r, "413 from Content-Length");
        // Chunked: refused once the count passes 1 MiB. (hyper then discards
        // the rest of a body that has already arrived and keeps the
        // connection, so this request asks for the close that ends `send`.)
        let mut body =
            b"POST /user/set/big HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                .to_vec();
        for _ in 0..17 {
            body.extend_from_slice(format!("10000\r\n{}\r\n", "a".repeat(0x10000)).as_bytes());
        }
        body.extend_from_slice(b"0\r\n\r\n");
        assert_eq!(send(addr, &body).status, 413);
        assert_eq!(send(addr, &request("GET", "/", b"")).status, 200, "still serving");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_requests_are_400_and_the_server_keeps_serving() {
    let s = start().await;
    let addr = s.addr;
    blocking(move || {
        let cases: [&[u8]; 3] = [
            b"GARBAGE\r\n\r\n",
            b"GET / HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n",
            b"POST /user/set/chunky HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n",
        ];
        for bytes in cases {
            assert_eq!(send(addr, bytes).status, 400, "{}", bytes.escape_ascii());
            assert_eq!(send(addr, &request("GET", "/", b"")).text(), "Hello, World!");
        }
    })
    .await;
}

fn get_timed(addr: SocketAddr, path: &'static str) -> (u16, Duration) {
    let started = Instant::now();
    let r = send(addr, &request("GET", path, b""));
    (r.status, started.elapsed())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_long_polls_wait_together() {
    let s = start().await;
    let addr = s.addr;
    let polls: Vec<_> = (0..100).map(|_| tokio::task::spawn_blocking(move || get_timed(addr, "/longPoll"))).collect();
    for poll in polls {
        let (status, took) = poll.await.unwrap();
        assert_eq!(status, 200);
        assert!(took >= common::LONG_POLL && took < common::LONG_POLL + Duration::from_secs(2), "{took:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_delayed_page_blocks_no_one() {
    let s = start().await;
    let addr = s.addr;
    for _ in 1..common::PAGE_DELAY_EVERY {
        assert_eq!(blocking(move || get_timed(addr, "/page")).await.0, 200);
    }
    let delayed = tokio::task::spawn_blocking(move || get_timed(addr, "/page"));
    tokio::time::sleep(Duration::from_millis(50)).await;
    let (status, took) = blocking(move || get_timed(addr, "/")).await;
    assert_eq!(status, 200);
    assert!(took < common::PAGE_DELAY / 2, "GET / waited {took:?} behind the delayed /page");
    let (status, took) = delayed.await.unwrap();
    assert_eq!(status, 200);
    assert!(took >= common::PAGE_DELAY, "the {}th /page took only {took:?}", common::PAGE_DELAY_EVERY);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_returns_once_shutdown_is_signalled() {
    let config = common::test_config();
    let listener = concur_rust_axum::listen(config.addr).unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(concur_rust_axum::serve(listener, concur_rust_axum::AppState::new(config), async {
        let _ = stopped.await;
    }));
    assert_eq!(blocking(move || send(addr, &request("GET", "/", b""))).await.status, 200);
    stop.send(()).unwrap();
    let result = tokio::time::timeout(Duration::from_secs(5), server).await.expect("serve did not return");
    result.unwrap().unwrap();
    assert!(std::net::TcpStream::connect(addr).is_err(), "still listening after shutdown");
}
