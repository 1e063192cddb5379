//! Test servers for the load generator's tests: thread-per-connection HTTP/1.1
//! on 127.0.0.1 port 0, each with one known behaviour (a fixed delay, a stall
//! at a known time, a status, a reset, silence) and a log of what arrived, so
//! that tests can check the generator against facts the server knows.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Copy)]
pub enum Behaviour {
    /// 200 `Hello, World!` at once.
    Hello,
    /// 200 after this delay.
    Delay(Duration),
    /// Answers at once, except that requests arriving in the window
    /// [first request + `after`, + `length`) are all answered at its end.
    Stall { after: Duration, length: Duration },
    /// This status, with a short body.
    Status(u16),
    /// Reads the request, then resets the connection (RST).
    Reset,
    /// Reads the request, then closes without answering.
    Close,
    /// Reads the request and never answers.
    Silent,
    /// A pool of this many threads, each serving one connection until it closes
    /// (rust-threadpool's model): later connections wait for a free thread, their
    /// requests unread. Every request is answered after `delay`.
    Pool { threads: usize, delay: Duration },
    /// 200 with a body that ends when the server closes the connection: no
    /// `Content-Length`, no chunked coding (RFC 9112 §6.3, the last rule).
    UntilClose,
    /// 200 with this `Content-Length` header value and no body.
    Length(&'static str),
}

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub at: Instant,
    pub connection: u64,
    pub method: String,
    pub path: String,
    pub body: String,
}

struct State {
    behaviour: Behaviour,
    /// Free threads of `Behaviour::Pool`.
    free: Mutex<usize>,
    freed: std::sync::Condvar,
    requests: AtomicU64,
    connections: AtomicU64,
    first: OnceLock<Instant>,
    log: Mutex<Vec<Seen>>,
    stop: AtomicBool,
}

pub struct TestServer {
    pub addr: SocketAddr,
    state: Arc<State>,
}

impl TestServer {
    pub fn start(behaviour: Behaviour) -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let threads = if let Behaviour::Pool { threads, .. } = behaviour { threads } else { usize::MAX };
        let state = Arc::new(State {
            behaviour,
            free: Mutex::new(threads),
            freed: std::sync::Condvar::new(),
            requests: AtomicU64::new(0),
            connections: AtomicU64::new(0),
            first: OnceLock::new(),
            log: Mutex::new(Vec::new()),
            stop: AtomicBool::new(false),
        });
        let shared = Arc::clone(&state);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if shared.stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let id = shared.connections.fetch_add(1, Ordering::SeqCst);
                let state = Arc::clone(&shared);
                std::thread::spawn(move || serve(stream, id, &state));
            }
        });
        TestServer { addr, state }
    }

    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// Requests read completely.
    pub fn requests(&self) -> u64 {
        self.state.requests.load(Ordering::SeqCst)
    }

    pub fn log(&self) -> Vec<Seen> {
        self.state.log.lock().unwrap().clone()
    }

    /// Stops accepting: later connects are refused.
    pub fn close(&self) {
        if !self.state.stop.swap(true, Ordering::SeqCst) {
            let _ = TcpStream::connect(self.addr);
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.close();
    }
}

/// Serves one connection, on one of the pool's threads when there is a pool.
fn serve(stream: TcpStream, id: u64, state: &State) {
    {
        let mut free = state.freed.wait_while(state.free.lock().unwrap(), |free| *free == 0).unwrap();
        *free -= 1;
    }
    serve_requests(stream, id, state);
    *state.free.lock().unwrap() += 1;
    state.freed.notify_one();
}

fn serve_requests(stream: TcpStream, id: u64, state: &State) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut writer = stream;
    let _ = writer.set_nodelay(true);
    loop {
        let Some((method, path, body, close)) = read_request(&mut reader) else { return };
        let now = Instant::now();
        let first = *state.first.get_or_init(|| now);
        state.log.lock().unwrap().push(Seen { at: now, connection: id, method, path, body });
        state.requests.fetch_add(1, Ordering::SeqCst);
        let status = match state.behaviour {
            Behaviour::Hello => 200,
            Behaviour::Delay(delay) | Behaviour::Pool { delay, .. } => {
                std::thread::sleep(delay);
                200
            }
            Behaviour::UntilClose => {
                let _ = writer.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nHello, World!");
                return;
            }
            Behaviour::Length(value) => {
                let _ = writer.write_all(format!("HTTP/1.1 200 OK\r\nContent-Length: {value}\r\n\r\n").as_bytes());
                continue;
            }
            Behaviour::Stall { after, length } => {
                let (start, end) = (first + after, first + after + length);
                if now >= start && now < end {
                    std::thread::sleep(end - now);
                }
                200
            }
            Behaviour::Status(code) => code,
            Behaviour::Reset => {
                reset(&writer);
                return;
            }
            Behaviour::Close => return,
            Behaviour::Silent => {
                std::thread::sleep(Duration::from_secs(3600));
                return;
            }
        };
        let body = "Hello, World!";
        let connection = if close { "Connection: close\r\n" } else { "" };
        let response = format!("HTTP/1.1 {status} X\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n{connection}\r\n{body}", body.len());
        if writer.write_all(response.as_bytes()).is_err() || close {
            return;
        }
    }
}

/// Method, path, body and whether the client asked to close; None at EOF.
fn read_request(reader: &mut BufReader<TcpStream>) -> Option<(String, String, String, bool)> {
    let mut line = String::new();
    if reader.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut parts = line.split_whitespace();
    let (method, path) = (parts.next()?.to_string(), parts.next()?.to_string());
    let (mut length, mut close) = (0usize, false);
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).ok()? == 0 {
            return None;
        }
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        let (name, value) = header.split_once(':')?;
        if name.eq_ignore_ascii_case("content-length") {
            length = value.trim().parse().ok()?;
        } else if name.eq_ignore_ascii_case("connection") && value.trim().eq_ignore_ascii_case("close") {
            close = true;
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some((method, path, String::from_utf8_lossy(&body).into_owned(), close))
}

/// Closes with RST instead of FIN.
fn reset(stream: &TcpStream) {
    let linger = libc::linger { l_onoff: 1, l_linger: 0 };
    // SAFETY: a valid socket and a linger struct of the size given.
    unsafe {
        libc::setsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_LINGER,
            &linger as *const _ as *const libc::c_void,
            std::mem::size_of::<libc::linger>() as libc::socklen_t,
        );
    }
}

/// A closed-loop plan against `server`, sending `n` requests.
pub fn plan(server: &TestServer, connections: usize, n: u64) -> concur::load::LoadPlan {
    let mut plan = concur::load::LoadPlan::get(&server.url()).unwrap();
    plan.connections = connections;
    plan.threads = 2;
    plan.stop = concur::load::StopAt::Count(n);
    plan
}

pub fn run(plan: &concur::load::LoadPlan) -> concur::load::LoadReport {
    concur::load::run(plan, &concur::load::Control::new()).unwrap()
}

/// Latencies of a report as (value µs, count) pairs.
pub fn at_least(report: &concur::load::LoadReport, us: u64) -> u64 {
    let latencies = report.latency.latencies().unwrap();
    latencies.recorded().into_iter().filter(|&(v, _)| v >= us).map(|(_, n)| n).sum()
}
