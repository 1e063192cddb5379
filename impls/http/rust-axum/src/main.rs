//! The server binary: read the environment, build tokio's runtime with
//! `CONCUR_CORES` worker threads, listen, serve until SIGTERM.

use concur_rust_axum::config::Config;
use std::process::ExitCode;
use std::time::Duration;
use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::oneshot;

/// How long SIGTERM waits for requests in flight (a long poll, a delayed
/// /page) before their connections are dropped.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

fn main() -> ExitCode {
    let config = match Config::from_env(|name| std::env::var(name).ok().filter(|v| !v.is_empty())) {
        Ok(config) => config,
        Err(e) => return fail(&e),
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().worker_threads(config.cores).enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => return fail(&format!("cannot start tokio: {e}")),
    };
    let result = runtime.block_on(run(config));
    // A bcrypt hash still running on the blocking pool must not hold the exit.
    runtime.shutdown_timeout(Duration::from_millis(100));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&e.to_string()),
    }
}

async fn run(config: Config) -> std::io::Result<()> {
    let addr = config.addr;
    let listener = concur_rust_axum::listen(addr)
        .map_err(|e| std::io::Error::new(e.kind(), format!("cannot listen on {addr}: {e}")))?;
    let mut term = signal(SignalKind::terminate())?;
    let (stop, stopped) = oneshot::channel::<()>();
    let mut server = tokio::spawn(concur_rust_axum::serve(listener, config, async {
        let _ = stopped.await;
    }));
    tokio::select! {
        joined = &mut server => return joined?,
        _ = term.recv() => {}
        _ = tokio::signal::ctrl_c() => {}
    }
    let _ = stop.send(());
    match tokio::time::timeout(SHUTDOWN_GRACE, server).await {
        Ok(joined) => joined?,
        Err(_elapsed) => Ok(()),
    }
}

fn fail(message: &str) -> ExitCode {
    eprintln!("rust-axum: {message}");
    ExitCode::FAILURE
}
