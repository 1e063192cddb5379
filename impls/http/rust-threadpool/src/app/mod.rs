//! The Concur service (SPEC §2-§3, §8): its state, and one `handle` that
//! turns a request into a response. It knows nothing of sockets or threads: a
//! pool thread calls it with the request head and a handle on the body.

mod db;
mod fault;
mod fortunes;
mod hello;
mod password;
mod permits;
mod routes;
mod store;
mod user;
mod world;

use crate::config::Config;
use crate::http::{Body, BodyError, Request, Response};
use routes::Route;
use serde_json::Value;
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

/// SPEC §3.5: the largest request body the POST routes take.
pub const MAX_BODY: usize = 1 << 20;

/// A handler's answer; the error side is an answer too, so `?` ends a handler early.
type Reply = Result<Response, Response>;

pub struct App {
    bcrypt_cost: u32,
    /// One permit per core: the bcrypt hashes in progress at once.
    hashing: permits::Permits,
    page_file: PathBuf,
    page_delay_every: u64,
    page_delay: Duration,
    long_poll: Duration,
    /// `/page` requests so far, counted from 1 for the every-Nth delay.
    pages: AtomicU64,
    /// user → bcrypt hash.
    passwords: store::Store<String>,
    /// user → the JSON object last set, as a value.
    users: store::Store<Value>,
    /// The pool of the database routes, shared by every thread.
    db: db::Database,
    /// `CONCUR_DB_SLOW_MS`.
    db_slow: Duration,
    /// `CONCUR_FAULTS=1`: `/fault/panic` and `/fault/spin` exist (SPEC §9).
    faults: bool,
}

impl App {
    pub fn new(config: &Config) -> App {
        App {
            bcrypt_cost: config.bcrypt_cost,
            hashing: permits::Permits::new(config.cores),
            page_file: config.page_file.clone(),
            page_delay_every: config.page_delay_every,
            page_delay: config.page_delay,
            long_poll: config.long_poll,
            pages: AtomicU64::new(0),
            passwords: store::Store::default(),
            users: store::Store::default(),
            db: db::Database::open(config.db.as_ref(), config.db_pool),
            db_slow: config.db_slow,
            faults: config.faults,
        }
    }

    pub fn handle(&self, request: &Request, body: &mut Body) -> Response {
        self.dispatch(request, body).unwrap_or_else(|refusal| refusal)
    }

    fn dispatch(&self, request: &Request, body: &mut Body) -> Reply {
        match routes::resolve(&request.method, request.path(), self.faults)? {
            Route::Root => Ok(hello::root()),
            Route::Json => Ok(hello::json()),
            Route::Page => Ok(self.page()),
            Route::LongPoll => Ok(self.long_poll()),
            Route::PasswordSet(user) => self.set_password(user, &read_body(body)?),
            Route::PasswordVerify(user) => self.verify_password(user, &read_body(body)?),
            Route::UserSet(user) => self.set_user(user, &read_body(body)?),
            Route::UserGet(user) => self.get_user(user),
            Route::Db => self.single_query(),
            Route::Queries => self.queries(request.query()),
            Route::Updates => self.updates(request.query()),
            Route::Fortunes => self.fortunes(),
            Route::SlowDb => self.slow_query(),
            Route::FaultPanic => fault::panic(),
            Route::FaultSpin => Ok(fault::spin(request.query())),
        }
    }
}

/// The body of a POST route, up to [`MAX_BODY`] (SPEC §3.5).
fn read_body(body: &mut Body) -> Result<Vec<u8>, Response> {
    body.read(MAX_BODY).map_err(|e| match e {
        BodyError::TooLarge => Response::error(413, format!("request body over 1 MiB ({MAX_BODY} bytes)")),
        BodyError::Malformed(reason) => Response::error(400, reason),
        BodyError::Io(e) => Response::error(400, format!("the request body was cut short: {e}")),
    })
}

/// The body as a JSON value: serde_json refuses bytes that are not UTF-8
/// (RFC 8259 §8.1) rather than replacing them, as SPEC §2 asks.
fn parse_json(bytes: &[u8]) -> Result<Value, Response> {
    serde_json::from_slice(bytes).map_err(|e| Response::error(400, format!("the body is not JSON: {e}")))
}
