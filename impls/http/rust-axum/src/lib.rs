//! Concur's HTTP workload (spec/SPEC.md) on axum: the route table, the state
//! every handler shares, the listening socket and `serve`. `runtimes.rs` runs
//! one `serve` per core; `main.rs` starts them and handles SIGTERM; tests call
//! `app` and `serve` directly.

pub mod config;
pub mod db;
mod error;
mod extract;
mod fault;
mod fortunes;
mod hello;
mod password;
pub mod runtimes;
mod user;
mod world;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::{HeaderValue, StatusCode, header};
use axum::routing::{MethodRouter, get, post};
use axum::serve::ListenerExt;
use config::Config;
use error::AppError;
use serde_json::Value;
use socket2::{Domain, Socket, Type};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, RwLock};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tower_http::set_header::SetResponseHeaderLayer;

/// SPEC §1: at least 4096 (the kernel caps it at `net.core.somaxconn`).
/// tokio's `TcpListener::bind` would ask for 128 (mio's default, as std's).
pub const LISTEN_BACKLOG: i32 = 4096;

const SERVER_NAME: &str = "concur-rust-axum";

/// What every handler shares, cloned into each request by axum's `State`.
#[derive(Clone)]
pub struct AppState {
    pub config: Arc<Config>,
    /// user name → bcrypt hash
    pub passwords: Arc<RwLock<HashMap<String, String>>>,
    /// user name → the parsed JSON object
    pub users: Arc<RwLock<HashMap<String, Value>>>,
    /// /page requests so far, for the every-Nth delay
    pub page_requests: Arc<AtomicU64>,
    /// one permit per core: how many bcrypt hashes may run at once
    hash_permits: Arc<Semaphore>,
    /// the database pool of the runtime this state serves on (`for_runtime`)
    pub db: db::Database,
}

impl AppState {
    /// The state of a server on one runtime: its pool is all of `CONCUR_DB_POOL`.
    pub fn new(config: Config) -> AppState {
        AppState {
            db: db::Database::open(config.db.as_ref(), config.db_pool),
            hash_permits: Arc::new(Semaphore::new(config.cores)),
            config: Arc::new(config),
            passwords: Arc::default(),
            users: Arc::default(),
            page_requests: Arc::default(),
        }
    }

    /// The same state for one of several runtimes, with a pool of its own
    /// of `share` connections (`db::shares`): everything else stays shared.
    pub fn for_runtime(&self, share: usize) -> AppState {
        AppState { db: db::Database::open(self.config.db.as_ref(), share), ..self.clone() }
    }

    /// Runs a bcrypt call on tokio's blocking pool once a permit is free.
    /// The permit moves into the blocking task, so a client that hangs up
    /// while its hash runs does not let one more hash start.
    async fn hashing<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> bcrypt::BcryptResult<T> + Send + 'static,
    ) -> Result<T, AppError> {
        let permit = Arc::clone(&self.hash_permits).acquire_owned().await.expect("the semaphore is never closed");
        let joined = tokio::task::spawn_blocking(move || {
            let result = work();
            drop(permit);
            result
        })
        .await;
        let internal = |e: String| AppError::new(StatusCode::INTERNAL_SERVER_ERROR, e);
        joined.map_err(|e| internal(format!("bcrypt task failed: {e}")))?.map_err(|e| internal(format!("bcrypt: {e}")))
    }
}

/// The whole HTTP surface. axum answers an unknown path with the `fallback`
/// (404) and a known path with another method with the
/// `method_not_allowed_fallback` (405, to which it adds `Allow`). The fault
/// routes (SPEC §9) are in the table only with `CONCUR_FAULTS=1`.
pub fn app(state: AppState) -> Router {
    let mut router = Router::new()
        .route("/", get(hello::hello))
        .route("/json", get(hello::hello_json))
        .route("/page", get(hello::page))
        .route("/longPoll", get(hello::long_poll))
        .route("/db", get(world::single_query))
        .route("/queries", get(world::queries))
        .route("/updates", get(world::updates))
        .route("/fortunes", get(fortunes::fortunes))
        .route("/slowdb", get(world::slow_query));
    let user_routes: [(&str, MethodRouter<AppState>); 4] = [
        ("/password/set/", post(password::set)),
        ("/password/verify/", post(password::verify)),
        ("/user/set/", post(user::set)),
        ("/user/get/", get(user::get)),
    ];
    for (prefix, route) in user_routes {
        // `{*user}` takes the rest of the path, slashes too, so `a/b` reaches
        // the handler (and gets 400); it never matches an empty rest, so the
        // bare prefix is routed as well, for its 400.
        router = router.route(&format!("{prefix}{{*user}}"), route.clone()).route(prefix, route);
    }
    if state.config.faults {
        router = router.route("/fault/panic", get(fault::panic)).route("/fault/spin", get(fault::spin));
    }
    router
        .method_not_allowed_fallback(|| async { AppError::new(StatusCode::METHOD_NOT_ALLOWED, "method not allowed") })
        .fallback(|| async { AppError::not_found("no such route") })
        .layer(DefaultBodyLimit::max(extract::BODY_LIMIT))
        .layer(SetResponseHeaderLayer::overriding(header::SERVER, HeaderValue::from_static(SERVER_NAME)))
        .with_state(state)
}

/// A listening socket on `addr` with SPEC §1's backlog and `SO_REUSEPORT`, so
/// that each core's runtime can listen on the same port with a socket of its
/// own (port 0 picks a free port: give the others the first one's address).
/// A std listener, not yet tied to a runtime: `serve` takes it into its own.
pub fn listen(addr: SocketAddr) -> std::io::Result<std::net::TcpListener> {
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, None)?;
    socket.set_reuse_address(true)?;
    socket.set_reuse_port(true)?;
    socket.set_nonblocking(true)?;
    socket.bind(&addr.into())?;
    socket.listen(LISTEN_BACKLOG)?;
    Ok(socket.into())
}

/// Serves `app` on `listener`, on the runtime it is awaited on, until
/// `shutdown` completes, then waits for the requests in flight (the caller
/// bounds that wait). hyper adds `Date`.
pub async fn serve(
    listener: std::net::TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let listener = TcpListener::from_std(listener)?.tap_io(|tcp| {
        // Each response is one write; without this, Nagle's algorithm could
        // hold a pipelined response behind the client's delayed ACK.
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, app(state)).with_graceful_shutdown(shutdown).await
}
