//! A small thread-per-connection server that follows spec/SPEC.md, with
//! switchable faults: the verifier's own tests run it correct (every check
//! must pass) and with one fault at a time (the right checks must fail).
//! Test code only: it is the simplest thing that obeys the contract, not an
//! implementation to benchmark.

#![allow(dead_code)]

use serde_json::Value;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One deliberate deviation from the spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// No `Date` header on any response.
    NoDate,
    /// Long polls wait one after another (a global lock held while sleeping).
    SerialLongPoll,
    /// `/page` is never delayed.
    NoPageDelay,
    /// The page delay holds a global lock, so it blocks other /page requests.
    BlockingPageDelay,
    /// Each connection has its own user store (like workers without a shared store).
    StorePerConnection,
    /// Any user name is accepted.
    NoUserValidation,
    /// Oversized bodies are accepted.
    NoBodyLimit,
    /// Verify of an unknown user answers 404 at once, without hashing.
    NoDummyHash,
    /// After a malformed request line the server stops accepting connections.
    DiesOnGarbage,
    /// Ignores `Connection: close` and HTTP/1.0 closing.
    NeverCloses,
    /// Decodes bodies lossily (bad bytes become U+FFFD) before parsing them, as
    /// `buffer.toString()` or a store of unchecked bytes would.
    LossyUtf8,
    /// Takes any `HTTP/x.y` request line and answers in the request's
    /// version, as Netty under Ktor did (`HTTP/9.9 200 OK`).
    EchoesVersion,
    /// The fault routes (SPEC §9) answer even without `CONCUR_FAULTS=1`.
    UnswitchedFaultRoutes,
    /// `/fault/spin` answers at once, whatever its `ms`.
    SpinsNot,
    /// `/fault/panic` answers 200 instead of failing.
    PanicAnswered,
    /// After `/fault/panic` the server still runs, holding its port, but takes no connection again
    /// (a pool that lost its last worker).
    PanicWedges,
}

struct State {
    faults: Vec<Fault>,
    users: Mutex<HashMap<String, Value>>,
    passwords: Mutex<HashMap<String, String>>,
    page_count: AtomicU64,
    /// Set by `DiesOnGarbage`: the accept loop stops.
    dead: AtomicBool,
    /// Set by `PanicWedges`: the accept loop stops, keeping the listener open.
    wedged: AtomicBool,
    big_lock: Mutex<()>,
    page: Vec<u8>,
    longpoll: Duration,
    page_delay: Duration,
    /// Started with `CONCUR_FAULTS=1`: the routes of SPEC §9 exist.
    fault_routes: bool,
}

impl State {
    fn has(&self, f: Fault) -> bool {
        self.faults.contains(&f)
    }
}

const COST: u32 = 8;
const MIB: usize = 1 << 20;

/// Starts the server on a port chosen by the OS, with the verifier's settings.
pub fn start(faults: &[Fault], page: Vec<u8>, longpoll_ms: u64, page_delay_ms: u64) -> SocketAddr {
    start_with(faults, page, longpoll_ms, page_delay_ms, false)
}

/// As [`start`], with the fault routes of SPEC §9 switched on (`CONCUR_FAULTS=1`).
pub fn start_faults_on(faults: &[Fault], page: Vec<u8>) -> SocketAddr {
    start_with(faults, page, 2000, 600, true)
}

fn start_with(faults: &[Fault], page: Vec<u8>, longpoll_ms: u64, page_delay_ms: u64, fault_routes: bool) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().unwrap();
    let state = Arc::new(State {
        faults: faults.to_vec(),
        users: Mutex::default(),
        passwords: Mutex::default(),
        page_count: AtomicU64::new(0),
        dead: AtomicBool::new(false),
        wedged: AtomicBool::new(false),
        big_lock: Mutex::new(()),
        page,
        longpoll: Duration::from_millis(longpoll_ms),
        page_delay: Duration::from_millis(page_delay_ms),
        fault_routes,
    });
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            if state.dead.load(Ordering::SeqCst) {
                return; // drops the listener: later connections are refused
            }
            while state.wedged.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_secs(1)); // later connections wait in the backlog
            }
            let Ok(stream) = stream else { continue };
            serve_conn(stream, &state);
        }
    });
    addr
}

struct Req {
    /// The request line's version, which the answer's status line repeats under `EchoesVersion`.
    version: String,
    method: String,
    path: String,
    query: String,
    close: bool,
    body: Vec<u8>,
}

enum ReadErr {
    Eof,
    Bad(&'static str),
    TooLarge,
}

fn serve_conn(stream: TcpStream, state: &Arc<State>) {
    let state = state.clone();
    std::thread::spawn(move || {
        let mut local_users: HashMap<String, Value> = HashMap::new();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut out = stream;
        loop {
            let limit = if state.has(Fault::NoBodyLimit) { usize::MAX } else { MIB };
            match read_request(&mut reader, &mut out, limit, state.has(Fault::EchoesVersion)) {
                Ok(req) => {
                    let (status, ctype, mut body) = route(&req, &state, &mut local_users);
                    if req.method == "HEAD" {
                        body.clear();
                    }
                    let close = req.close && !state.has(Fault::NeverCloses);
                    let version = if state.has(Fault::EchoesVersion) { req.version.as_str() } else { "HTTP/1.1" };
                    if write_response(&mut out, &state, version, status, ctype, &body, close).is_err() || close {
                        return;
                    }
                }
                Err(ReadErr::Eof) => return,
                Err(ReadErr::TooLarge) => {
                    let _ = write_response(&mut out, &state, "HTTP/1.1", 413, "text/plain", b"request body over 1 MiB", true);
                    return;
                }
                Err(ReadErr::Bad(why)) => {
                    // Die before answering, so the client's next connection already finds it dead.
                    if state.has(Fault::DiesOnGarbage) {
                        state.dead.store(true, Ordering::SeqCst);
                    }
                    let _ = write_response(&mut out, &state, "HTTP/1.1", 400, "text/plain", why.as_bytes(), true);
                    return;
                }
            }
        }
    });
}

fn read_request(reader: &mut BufReader<TcpStream>, out: &mut TcpStream, limit: usize, any_version: bool) -> Result<Req, ReadErr> {
    let mut line = String::new();
    if reader.read_line(&mut line).map_err(|_| ReadErr::Eof)? == 0 {
        return Err(ReadErr::Eof);
    }
    let parts: Vec<&str> = line.trim_end().split(' ').collect();
    let [method, target, version] = parts[..] else { return Err(ReadErr::Bad("malformed request line")) };
    let known = version.starts_with("HTTP/1.") || (any_version && version.starts_with("HTTP/"));
    if !known || method.is_empty() || !method.bytes().all(|b| b.is_ascii_uppercase()) {
        return Err(ReadErr::Bad("malformed request line"));
    }
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).map_err(|_| ReadErr::Eof)? == 0 {
            return Err(ReadErr::Eof);
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        let (k, v) = h.split_once(':').ok_or(ReadErr::Bad("malformed header line"))?;
        headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
    }
    let get = |name: &str| headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.to_ascii_lowercase());
    let http10 = version == "HTTP/1.0";
    let conn = get("connection").unwrap_or_default();
    let close = conn.contains("close") || (http10 && !conn.contains("keep-alive"));
    if get("expect").is_some_and(|e| e.contains("100-continue")) {
        let _ = out.write_all(b"HTTP/1.1 100 Continue\r\n\r\n");
    }
    let body = if get("transfer-encoding").is_some_and(|t| t.contains("chunked")) {
        read_chunked(reader, limit)?
    } else if let Some(len) = get("content-length") {
        let len: usize = len.parse().map_err(|_| ReadErr::Bad("bad Content-Length"))?;
        if len > limit {
            return Err(ReadErr::TooLarge);
        }
        let mut body = vec![0; len];
        reader.read_exact(&mut body).map_err(|_| ReadErr::Eof)?;
        body
    } else {
        Vec::new()
    };
    let path = target.strip_prefix("http://").map(|rest| rest.find('/').map_or("/", |i| &rest[i..])).unwrap_or(target);
    let (path, query) = path.split_once('?').unwrap_or((path, ""));
    Ok(Req { version: version.to_string(), method: method.to_string(), path: path.to_string(), query: query.to_string(), close, body })
}

fn read_chunked(reader: &mut BufReader<TcpStream>, limit: usize) -> Result<Vec<u8>, ReadErr> {
    let mut body = Vec::new();
    loop {
        let mut size = String::new();
        reader.read_line(&mut size).map_err(|_| ReadErr::Eof)?;
        let size = usize::from_str_radix(size.trim().split(';').next().unwrap_or(""), 16).map_err(|_| ReadErr::Bad("bad chunk size"))?;
        if size == 0 {
            let mut end = String::new();
            reader.read_line(&mut end).map_err(|_| ReadErr::Eof)?;
            return Ok(body);
        }
        if body.len() + size > limit {
            return Err(ReadErr::TooLarge);
        }
        let start = body.len();
        body.resize(start + size + 2, 0);
        reader.read_exact(&mut body[start..]).map_err(|_| ReadErr::Eof)?;
        body.truncate(start + size);
    }
}

fn write_response(out: &mut TcpStream, state: &State, version: &str, status: u16, ctype: &str, body: &[u8], close: bool) -> std::io::Result<()> {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        413 => "Content Too Large",
        _ => "Other",
    };
    let mut head = format!("{version} {status} {reason}\r\nServer: refserver\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\n", body.len());
    if !state.has(Fault::NoDate) {
        head.push_str("Date: Mon, 23 Nov 2026 00:00:00 GMT\r\n");
    }
    if status == 405 {
        head.push_str("Allow: GET, POST\r\n");
    }
    if close {
        head.push_str("Connection: close\r\n");
    }
    head.push_str("\r\n");
    out.write_all(&[head.as_bytes(), body].concat())
}

type Answer = (u16, &'static str, Vec<u8>);

fn text(status: u16, s: &str) -> Answer {
    (status, "text/plain", s.as_bytes().to_vec())
}

fn route(req: &Req, state: &State, local_users: &mut HashMap<String, Value>) -> Answer {
    let method = req.method.as_str();
    if req.path.starts_with("/fault/") && (state.fault_routes || state.has(Fault::UnswitchedFaultRoutes)) {
        return fault_route(req, state);
    }
    let fixed: &[(&str, &str)] = &[("/", "GET"), ("/json", "GET"), ("/page", "GET"), ("/longPoll", "GET")];
    if let Some((_, want)) = fixed.iter().find(|(p, _)| *p == req.path) {
        if method != *want {
            return text(405, "method not allowed");
        }
        return fixed_route(&req.path, state);
    }
    let prefixed = [("/password/set/", "POST"), ("/password/verify/", "POST"), ("/user/set/", "POST"), ("/user/get/", "GET")];
    let Some((prefix, want)) = prefixed.iter().find(|(p, _)| req.path.starts_with(p)) else { return text(404, "not found") };
    if method != *want {
        return text(405, "method not allowed");
    }
    let user = &req.path[prefix.len()..];
    let valid = (1..=64).contains(&user.len()) && user.bytes().all(|b| b.is_ascii_alphanumeric() || b"_.-".contains(&b));
    if !valid && !state.has(Fault::NoUserValidation) {
        return text(400, "invalid user name");
    }
    if req.body.len() > MIB && !state.has(Fault::NoBodyLimit) {
        return text(413, "body over 1 MiB");
    }
    if *prefix == "/user/get/" {
        let found = if state.has(Fault::StorePerConnection) { local_users.get(user).cloned() } else { state.users.lock().unwrap().get(user).cloned() };
        return match found {
            Some(v) => (200, "application/json", v.to_string().into_bytes()),
            None => text(404, "no such user"),
        };
    }
    let parsed = if state.has(Fault::LossyUtf8) { serde_json::from_str::<Value>(&String::from_utf8_lossy(&req.body)) } else { serde_json::from_slice::<Value>(&req.body) };
    let Ok(json) = parsed else { return text(400, "malformed JSON") };
    if *prefix == "/user/set/" {
        if !json.is_object() {
            return text(400, "user info must be a JSON object");
        }
        if state.has(Fault::StorePerConnection) {
            local_users.insert(user.to_string(), json);
        } else {
            state.users.lock().unwrap().insert(user.to_string(), json);
        }
        return text(200, "OK");
    }
    let Some(password) = json.get("password").and_then(Value::as_str) else { return text(400, "want {\"password\": string}") };
    if password.len() > 72 || password.contains('\0') {
        return text(400, "password longer than 72 bytes or with a NUL");
    }
    if *prefix == "/password/set/" {
        let hash = bcrypt::hash(password, COST).unwrap();
        state.passwords.lock().unwrap().insert(user.to_string(), hash);
        return text(200, "OK");
    }
    let stored = state.passwords.lock().unwrap().get(user).cloned();
    match stored {
        None => {
            if !state.has(Fault::NoDummyHash) {
                let _ = bcrypt::hash(password, COST);
            }
            text(404, "no password for this user")
        }
        Some(hash) if bcrypt::verify(password, &hash).unwrap_or(false) => text(200, "OK"),
        Some(_) => text(403, "wrong password"),
    }
}

/// SPEC §9: the panic unwinds this connection's thread, as a handler's would; the spin computes.
fn fault_route(req: &Req, state: &State) -> Answer {
    match req.path.as_str() {
        "/fault/panic" if state.has(Fault::PanicAnswered) => text(200, "OK"),
        "/fault/panic" => {
            state.wedged.store(state.has(Fault::PanicWedges), Ordering::SeqCst);
            panic!("fault: panic")
        }
        "/fault/spin" => {
            let ms = req.query.strip_prefix("ms=").and_then(|n| n.parse::<i64>().ok()).unwrap_or(0).clamp(0, 10_000) as u64;
            let started = std::time::Instant::now();
            while !state.has(Fault::SpinsNot) && started.elapsed() < Duration::from_millis(ms) {
                std::hint::spin_loop();
            }
            text(200, "OK")
        }
        _ => text(404, "not found"),
    }
}

fn fixed_route(path: &str, state: &State) -> Answer {
    match path {
        "/" => text(200, "Hello, World!"),
        "/json" => (200, "application/json", serde_json::json!({"message": "Hello, World!"}).to_string().into_bytes()),
        "/page" => {
            let n = state.page_count.fetch_add(1, Ordering::SeqCst) + 1;
            if n.is_multiple_of(10) && !state.has(Fault::NoPageDelay) {
                if state.has(Fault::BlockingPageDelay) {
                    let _held = state.big_lock.lock().unwrap();
                    std::thread::sleep(state.page_delay);
                } else {
                    std::thread::sleep(state.page_delay);
                }
            } else if state.has(Fault::BlockingPageDelay) {
                drop(state.big_lock.lock().unwrap());
            }
            (200, "text/html; charset=utf-8", state.page.clone())
        }
        _ => {
            if state.has(Fault::SerialLongPoll) {
                let _held = state.big_lock.lock().unwrap();
                std::thread::sleep(state.longpoll);
            } else {
                std::thread::sleep(state.longpoll);
            }
            text(200, "OK")
        }
    }
}
