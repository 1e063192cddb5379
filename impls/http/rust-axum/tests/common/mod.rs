//! What the test files share: a configuration with cost-4 bcrypt and short
//! waits, a server on a port the OS picks, and a raw HTTP/1.1 client for the
//! framings an HTTP client library will not send.
#![allow(dead_code)] // each test file uses a part of it

use concur_rust_axum::config::Config;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio::sync::oneshot;

pub const LONG_POLL: Duration = Duration::from_millis(300);
pub const PAGE_DELAY: Duration = Duration::from_millis(400);
pub const PAGE_DELAY_EVERY: u64 = 3;

pub fn repo_file(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..").join(relative)
}

pub fn test_config() -> Config {
    Config {
        addr: "127.0.0.1:0".parse().unwrap(),
        cores: 2,
        bcrypt_cost: 4,
        page_file: repo_file("spec/static/hello.html"),
        page_delay_every: PAGE_DELAY_EVERY,
        page_delay: PAGE_DELAY,
        long_poll: LONG_POLL,
        db: None,
        db_pool: 2,
        db_slow: Duration::from_millis(20),
        faults: false,
    }
}

/// A real server on 127.0.0.1 and a port the OS chose; it stops when the
/// `Server` is dropped.
pub struct Server {
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

pub async fn start() -> Server {
    let config = test_config();
    let listener = concur_rust_axum::listen(config.addr).unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(concur_rust_axum::serve(listener, concur_rust_axum::AppState::new(config), async {
        let _ = stopped.await;
    }));
    Server { addr, stop: Some(stop) }
}

/// One parsed response: status, lower-case header names, body.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Writes `bytes`, then reads until the server closes the connection (the
/// last request should say `Connection: close`) and parses every response.
/// Blocking: call it from `spawn_blocking` or a plain thread.
pub fn exchange(addr: SocketAddr, bytes: &[u8]) -> Vec<Response> {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    stream.write_all(bytes).unwrap();
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw); // a reset after the last answer still leaves it in `raw`
    parse_responses(&raw)
}

/// Like `exchange`, for one request on a new connection.
pub fn send(addr: SocketAddr, bytes: &[u8]) -> Response {
    let mut responses = exchange(addr, bytes);
    assert!(!responses.is_empty(), "no response to {:?}", String::from_utf8_lossy(bytes));
    responses.remove(0)
}

/// A request with `Content-Length` framing and `Connection: close`.
pub fn request(method: &str, path: &str, body: &[u8]) -> Vec<u8> {
    let head =
        format!("{method} {path} HTTP/1.1\r\nHost: t\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len());
    [head.as_bytes(), body].concat()
}

fn parse_responses(mut raw: &[u8]) -> Vec<Response> {
    let mut responses = Vec::new();
    while let Some(end) = find(raw, b"\r\n\r\n") {
        let head = String::from_utf8_lossy(&raw[..end]).into_owned();
        raw = &raw[end + 4..];
        let mut lines = head.split("\r\n");
        let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
        let headers: Vec<(String, String)> = lines
            .filter_map(|line| line.split_once(':'))
            .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
            .collect();
        let length = match headers.iter().find(|(n, _)| n == "content-length") {
            Some((_, v)) => v.parse().unwrap(),
            None if status == 100 => 0,
            None => raw.len(), // framed by the close
        };
        let length = length.min(raw.len());
        responses.push(Response { status, headers, body: raw[..length].to_vec() });
        raw = &raw[length..];
    }
    responses
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}
