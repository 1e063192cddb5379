//! The checks `concur verify` runs, each tied to the section of spec/SPEC.md
//! it enforces, and the context they share: the server's address, the
//! settings it was started with, and every response's headers seen so far
//! (the header rule of §4 is checked over all of them at the end).

mod bad_input;
mod concurrency;
mod database;
mod database_cost;
mod faults;
mod fortunes;
mod protocol;
mod routes;

use super::client::{Conn, Framing, Response, request};
use serde::Serialize;
use std::net::SocketAddr;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// What the server was started with, as the checks assume it.
#[derive(Debug, Clone)]
pub struct Settings {
    pub page_delay_ms: u64,
    pub page_every: u64,
    pub longpoll_ms: u64,
    /// Upper bound on the number of server processes counting `/page` on their own.
    pub processes: u32,
    /// The exact bytes `/page` must return.
    pub page_bytes: Vec<u8>,
    /// The server's process group, when the verifier started it (for CPU use).
    pub pgid: Option<i32>,
    /// The database the server was given (SPEC §8); `None`: the checks of §8 do not run.
    pub db: Option<DbSettings>,
    /// Whether the server was started with the fault routes of SPEC §9, and which checks follow from it.
    pub faults: FaultRoutes,
}

/// Whether a server under verification was started with SPEC §9's fault routes
/// (`CONCUR_FAULTS=1`), and so which of §9's checks it gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FaultRoutes {
    /// Started without them: they must be unknown paths (`fault-off`).
    #[default]
    Off,
    /// Started with them: every check but `fault-off`, the fault routes' last
    /// (a panic may end the server). `concur verify` does this at its last
    /// core count, so that one server start covers both.
    On,
    /// Started with them for their checks alone (a second server, when
    /// `concur verify` has one core count).
    Only,
}

impl FaultRoutes {
    /// Whether check `id` runs on a server started this way.
    pub fn runs(self, id: &str) -> bool {
        match self {
            FaultRoutes::Off => !needs_faults(id),
            FaultRoutes::On => id != faults::off().id,
            FaultRoutes::Only => needs_faults(id),
        }
    }
}

/// The database a server under verification uses, as the checks of SPEC §8 assume it.
#[derive(Debug, Clone)]
pub struct DbSettings {
    /// concur's own login to the server's database (`db::Admin::connect`).
    pub admin_url: String,
    /// The server's CONCUR_DB_POOL and CONCUR_DB_SLOW_MS.
    pub pool: u32,
    pub slow_ms: u64,
}

/// A check's result: `Ok(warnings)` or `Err(failure)`, each a sentence with the fix.
pub type Verdict = Result<Vec<String>, String>;

/// One check of the verifier.
pub struct Check {
    pub id: &'static str,
    /// The section of spec/SPEC.md it enforces.
    pub section: &'static str,
    pub about: &'static str,
    pub run: fn(&Ctx) -> Verdict,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Pass,
    Warn,
    Fail,
    /// Failed, and the manifest's `[known_failures]` declares it a limit of
    /// the runtime: shown with its reason, not counted as a failure.
    Known,
}

#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    pub id: &'static str,
    pub section: &'static str,
    pub status: Status,
    /// Empty on pass; otherwise what is wrong and what to fix.
    pub detail: String,
    pub millis: u128,
    /// The manifest's reason when it lists this check in `[known_failures]`:
    /// why a `known` outcome failed, or on a pass, a declared failure that did
    /// not occur this time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declared: Option<String>,
}

/// Every check, in the order they run. `headers` comes last of those on the
/// server of §6: it judges the responses all the others collected; the
/// fault routes' checks follow, on a server started with them ([`FaultRoutes`]).
pub fn all() -> Vec<Check> {
    let mut checks = routes::checks();
    checks.extend(bad_input::checks());
    checks.extend(protocol::checks());
    checks.extend(concurrency::checks());
    checks.extend(database_checks());
    checks.push(faults::off());
    checks.push(Check { id: "headers", section: "§4", about: "every response has Content-Length or chunked framing, Content-Type, Date and Server", run: headers_seen });
    checks.extend(faults::on());
    checks
}

/// Checks that run alongside the others, started before the first: each only
/// waits on one connection for the server's timer, and no other check's
/// requests can change its verdict (`longpoll`'s 2 s were 2 s of every
/// verification with nothing else to do). Their outcomes still come at their
/// place in [`all`]'s order. `longpoll-concurrent` is not one: it samples the
/// server's CPU while its polls wait, and `page-delay` counts `/page` requests.
pub const ALONGSIDE: &[&str] = &["longpoll"];

/// The checks of SPEC §8, run only for a server given a database.
fn database_checks() -> Vec<Check> {
    let mut checks = database::checks();
    checks.extend(database_cost::checks());
    checks
}

/// Whether check `id` is one of SPEC §8's.
pub fn needs_database(id: &str) -> bool {
    database_checks().iter().any(|c| c.id == id)
}

/// Whether check `id` needs a server started with `CONCUR_FAULTS=1` (SPEC §9).
pub fn needs_faults(id: &str) -> bool {
    faults::on().iter().any(|c| c.id == id)
}

/// The ids of [`all`], in order: what a manifest's `[known_failures]` may name.
pub fn ids() -> Vec<&'static str> {
    all().into_iter().map(|c| c.id).collect()
}

/// Shared state of one verification run.
pub struct Ctx {
    pub addr: SocketAddr,
    pub settings: Settings,
    /// Responses missing a required header: (request label, what is missing).
    missing: Mutex<Vec<(String, String)>>,
    seen: AtomicU64,
    next_user: AtomicU64,
}

impl Ctx {
    pub fn new(addr: SocketAddr, settings: Settings) -> Ctx {
        Ctx { addr, settings, missing: Mutex::new(Vec::new()), seen: AtomicU64::new(0), next_user: AtomicU64::new(0) }
    }

    /// The settings of the server's database; only the checks of §8 ask, and they run only when there is one.
    pub fn db_settings(&self) -> &DbSettings {
        self.settings.db.as_ref().expect("the checks of SPEC §8 run only with a database")
    }

    /// A new admin login to the server's database.
    pub fn db(&self) -> Result<crate::db::Admin, String> {
        crate::db::Admin::connect(&self.db_settings().admin_url)
    }

    /// A user name no other check uses.
    pub fn user(&self, tag: &str) -> String {
        format!("{tag}_{}", self.next_user.fetch_add(1, Ordering::Relaxed))
    }

    pub fn conn(&self) -> Result<Conn, String> {
        self.conn_with_timeout(Duration::from_secs(15))
    }

    pub fn conn_with_timeout(&self, timeout: Duration) -> Result<Conn, String> {
        Conn::connect(self.addr, timeout).map_err(|e| format!("cannot connect to {}: {e}; is the server still running?", self.addr))
    }

    /// Reads one response on `conn` and records its headers for the `headers` check.
    pub fn read(&self, conn: &mut Conn, label: &str, to_head: bool) -> Result<Response, String> {
        let resp = conn.read_response(to_head).map_err(|e| format!("{label}: no valid response ({e})"))?;
        self.observe(label, &resp, to_head);
        Ok(resp)
    }

    /// One request on a fresh connection.
    pub fn call(&self, method: &str, target: &str, body: &[u8]) -> Result<Response, String> {
        self.call_with(method, target, &[], body)
    }

    pub fn call_with(&self, method: &str, target: &str, headers: &[(&str, &str)], body: &[u8]) -> Result<Response, String> {
        self.call_within(method, target, headers, body, Duration::from_secs(15))
    }

    /// One request on a fresh connection whose answer is waited for at most `timeout`.
    pub fn call_within(&self, method: &str, target: &str, headers: &[(&str, &str)], body: &[u8], timeout: Duration) -> Result<Response, String> {
        let label = format!("{method} {target}");
        let mut conn = self.conn_with_timeout(timeout)?;
        conn.send(&request(method, target, headers, body)).map_err(|e| format!("{label}: sending failed ({e})"))?;
        self.read(&mut conn, &label, method == "HEAD")
    }

    /// Records a response missing what §4 requires of every response.
    pub fn observe(&self, label: &str, r: &Response, to_head: bool) {
        self.seen.fetch_add(1, Ordering::Relaxed);
        let mut missing = Vec::new();
        let framed = r.framing != Framing::Close || r.version == "HTTP/1.0";
        if !framed && !to_head {
            missing.push("Content-Length or Transfer-Encoding: chunked");
        }
        for name in ["Content-Type", "Date", "Server"] {
            if r.header(name).is_none() && !(name == "Content-Type" && r.body.is_empty() && to_head) {
                missing.push(name);
            }
        }
        if !missing.is_empty() {
            let mut all = self.missing.lock().unwrap_or_else(|e| e.into_inner());
            all.push((format!("{label} -> {}", r.status), missing.join(", ")));
        }
    }

    /// `GET /` still answers on a new connection (after a bad request).
    pub fn still_serving(&self, after: &str) -> Result<(), String> {
        let r = self.call("GET", "/", b"").map_err(|e| format!("after {after} the server stopped serving: {e}"))?;
        if r.status != 200 {
            return Err(format!("after {after}, GET / answered {}", r.summary()));
        }
        Ok(())
    }
}

/// Fails unless `r` has status `want`.
pub fn expect_status(r: &Response, want: u16, what: &str) -> Result<(), String> {
    if r.status == want { Ok(()) } else { Err(format!("{what}: got {}, want {want}", r.summary())) }
}

/// Fails unless `r` is a 4xx/5xx error with status `want` and a one-line text/plain reason.
pub fn expect_error(r: &Response, want: u16, what: &str) -> Result<(), String> {
    expect_status(r, want, what)?;
    let text = r.text();
    if r.media_type() != "text/plain" || text.trim().is_empty() || text.trim().contains('\n') {
        return Err(format!("{what}: the {want} must be text/plain with a one-line reason, got {}", r.summary()));
    }
    Ok(())
}

/// Fails unless `r` is 200 `text/plain` `OK`.
pub fn expect_ok(r: &Response, what: &str) -> Result<(), String> {
    expect_status(r, 200, what)?;
    if r.media_type() != "text/plain" || r.text() != "OK" {
        return Err(format!("{what}: want 200 text/plain \"OK\", got {}", r.summary()));
    }
    Ok(())
}

fn headers_seen(ctx: &Ctx) -> Verdict {
    let missing = ctx.missing.lock().unwrap_or_else(|e| e.into_inner());
    if missing.is_empty() {
        return Ok(vec![]);
    }
    let shown: Vec<String> = missing.iter().take(6).map(|(label, what)| format!("{label}: no {what}")).collect();
    Err(format!(
        "{} of {} responses lack required headers, e.g. {}; add them to every response, errors included (SPEC §4)",
        missing.len(),
        ctx.seen.load(Ordering::Relaxed),
        shown.join("; ")
    ))
}

/// Runs `f` on `n` threads at once and collects their results in order.
pub fn in_parallel<T: Send>(n: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let barrier = std::sync::Barrier::new(n);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..n)
            .map(|i| {
                let (f, barrier) = (&f, &barrier);
                std::thread::Builder::new()
                    .stack_size(256 * 1024)
                    .spawn_scoped(s, move || {
                        barrier.wait();
                        f(i)
                    })
                    .expect("spawning a verifier thread")
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("verifier thread panicked")).collect()
    })
}

/// The first `n` errors of `results`, joined, or `Ok` when there are none.
pub fn first_errors<T>(results: Vec<Result<T, String>>, what: &str) -> Result<Vec<T>, String> {
    let total = results.len();
    let (oks, errs): (Vec<_>, Vec<_>) = results.into_iter().partition(Result::is_ok);
    if errs.is_empty() {
        return Ok(oks.into_iter().map(|r| r.unwrap_or_else(|_| unreachable!())).collect());
    }
    let shown: Vec<String> = errs.iter().take(3).map(|e| e.as_ref().err().cloned().unwrap_or_default()).collect();
    Err(format!("{} of {total} {what} failed, e.g. {}", errs.len(), shown.join("; ")))
}
