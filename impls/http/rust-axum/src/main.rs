//! The server binary: read the environment, start one current-thread tokio
//! runtime per core (`runtimes.rs`), wait for SIGTERM on the main thread,
//! stop them.

use concur_rust_axum::AppState;
use concur_rust_axum::config::Config;
use concur_rust_axum::runtimes::Runtimes;
use std::process::ExitCode;
use std::time::Duration;
use tokio::signal::unix::{SignalKind, signal};

/// How long SIGTERM waits for requests in flight (a long poll, a delayed
/// /page) before their connections are dropped.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

fn main() -> ExitCode {
    let config = match Config::from_env(|name| std::env::var(name).ok().filter(|v| !v.is_empty())) {
        Ok(config) => config,
        Err(e) => return fail(&e),
    };
    let addr = config.addr;
    let runtimes = match Runtimes::start(addr, config.cores, AppState::new(config)) {
        Ok(runtimes) => runtimes,
        Err(e) => return fail(&format!("cannot listen on {addr}: {e}")),
    };
    // The main thread serves no request: a runtime of its own waits for the signal.
    let signals = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => return fail(&format!("cannot start tokio: {e}")),
    };
    match signals.block_on(wait_then_stop(runtimes)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&e.to_string()),
    }
}

/// Serves until SIGTERM or Ctrl-C (or until a runtime fails), then stops
/// every runtime within the grace.
async fn wait_then_stop(mut runtimes: Runtimes) -> std::io::Result<()> {
    let mut term = signal(SignalKind::terminate())?;
    tokio::select! {
        ended = runtimes.ended() => return ended,
        _ = term.recv() => {}
        _ = tokio::signal::ctrl_c() => {}
    }
    runtimes.stop(SHUTDOWN_GRACE).await
}

fn fail(message: &str) -> ExitCode {
    eprintln!("rust-axum: {message}");
    ExitCode::FAILURE
}
