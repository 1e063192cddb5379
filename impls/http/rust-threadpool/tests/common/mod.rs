//! A server on a loopback port chosen by the OS, and a raw HTTP/1.1 client
//! small enough to send the framings ordinary clients never do.

#![allow(dead_code)] // each test file uses part of it

use concur_threadpool::config::Config;
use concur_threadpool::server::{Server, Stopper};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::thread::{self, JoinHandle};
use std::time::Duration;

pub const PAGE_EVERY: u64 = 3;
pub const PAGE_DELAY: Duration = Duration::from_millis(150);
pub const LONG_POLL: Duration = Duration::from_millis(200);

/// A running server; dropping it stops it and waits for it.
pub struct TestServer {
    pub addr: SocketAddr,
    stopper: Stopper,
    thread: Option<JoinHandle<()>>,
}

impl TestServer {
    pub fn start() -> TestServer {
        TestServer::with(|_| {})
    }

    /// A server with short waits and cost 4, adjusted by `tweak`.
    pub fn with(tweak: impl FnOnce(&mut Config)) -> TestServer {
        let vars: HashMap<&str, String> = HashMap::from([
            ("PORT", "1".to_string()),
            ("CONCUR_BCRYPT_COST", "4".to_string()),
            ("CONCUR_THREADS", "32".to_string()),
            ("CONCUR_PAGE_DELAY_EVERY", PAGE_EVERY.to_string()),
            ("CONCUR_PAGE_DELAY_MS", PAGE_DELAY.as_millis().to_string()),
            ("CONCUR_LONGPOLL_MS", LONG_POLL.as_millis().to_string()),
        ]);
        let mut config = Config::from_lookup(|name| vars.get(name).cloned()).unwrap();
        config.port = 0;
        tweak(&mut config);
        let server = Server::bind(&config).expect("binding a loopback port");
        let (addr, stopper) = (server.local_addr(), server.stopper());
        let thread = thread::spawn(move || server.run());
        TestServer { addr, stopper, thread: Some(thread) }
    }

    pub fn connect(&self) -> Client {
        let stream = TcpStream::connect(self.addr).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        Client { reader: BufReader::new(stream.try_clone().unwrap()), stream }
    }

    /// One request on a new connection, with `Content-Length` when there is a body.
    pub fn call(&self, method: &str, target: &str, body: &[u8]) -> Reply {
        let mut client = self.connect();
        client.send(&request(method, target, body));
        client.read(method == "HEAD")
    }

    /// Stops the server; `run` must return within the shutdown grace.
    pub fn stop(mut self) -> Duration {
        let started = std::time::Instant::now();
        self.stopper.stop();
        self.thread.take().unwrap().join().unwrap();
        started.elapsed()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(thread) = self.thread.take() {
            self.stopper.stop();
            let _ = thread.join();
        }
    }
}

pub fn request(method: &str, target: &str, body: &[u8]) -> Vec<u8> {
    let mut head = format!("{method} {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    if !body.is_empty() || method == "POST" {
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    [head.as_bytes(), body].concat()
}

pub struct Client {
    pub stream: TcpStream,
    reader: BufReader<TcpStream>,
}

#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// Status, media type and body, and the headers every answer carries (SPEC §4).
    pub fn expect(&self, status: u16, media_type: &str, body: Option<&str>) {
        assert_eq!(self.status, status, "status of {self:?}");
        let content_type = self.header("content-type").unwrap_or_default();
        assert!(content_type.starts_with(media_type), "Content-Type {content_type:?}, want {media_type}");
        if let Some(body) = body {
            assert_eq!(self.text(), body);
        }
        for name in ["server", "date", "content-length"] {
            assert!(self.header(name).is_some(), "no {name} header in {self:?}");
        }
        if status >= 400 {
            assert_eq!(self.text().trim_end().lines().count(), 1, "errors are one line: {:?}", self.text());
        }
    }
}

impl Client {
    pub fn send(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).unwrap();
    }

    /// The next response; `head_only` for an answer to HEAD.
    pub fn read(&mut self, head_only: bool) -> Reply {
        let mut line = String::new();
        self.reader.read_line(&mut line).expect("a status line");
        let status = line.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("status line {line:?}"));
        let mut headers = Vec::new();
        loop {
            let mut line = String::new();
            self.reader.read_line(&mut line).unwrap();
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            let (name, value) = line.split_once(':').expect("a header line");
            headers.push((name.to_string(), value.trim().to_string()));
        }
        let mut reply = Reply { status, headers, body: Vec::new() };
        if !head_only && status >= 200 {
            let len: usize = reply.header("content-length").expect("Content-Length").parse().unwrap();
            reply.body = vec![0; len];
            self.reader.read_exact(&mut reply.body).unwrap();
        }
        reply
    }

    /// Whether the server closed the connection (reads end of stream) within `wait`.
    pub fn closed_within(&mut self, wait: Duration) -> bool {
        self.stream.set_read_timeout(Some(wait)).unwrap();
        let mut byte = [0u8; 1];
        matches!(self.reader.read(&mut byte), Ok(0))
    }
}
