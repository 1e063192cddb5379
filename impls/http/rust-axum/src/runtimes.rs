//! `CONCUR_CORES` as one current-thread tokio runtime per core, each on a
//! thread of its own with a listening socket of its own on the one port
//! (`SO_REUSEPORT`: the kernel spreads new connections over the sockets), all
//! sharing one `AppState`. This is how TechEmpower's axum entry and actix-web's
//! workers run, and what tokio's maintainers point to for "one event loop per
//! core". The entry ran tokio's multi-thread scheduler with `CONCUR_CORES`
//! workers before; at one core that is a work-stealing scheduler with no one
//! to steal from (README, "CONCUR_CORES", for what the A/B measured).
//!
//! Stopping: `stop` tells every runtime's `serve` to shut down gracefully,
//! then waits for them all, at most a grace period.

use crate::{AppState, listen, serve};
use std::io;
use std::net::SocketAddr;
use std::thread;
use std::time::Duration;
use tokio::sync::{mpsc, watch};

/// How long a runtime that has stopped waits for a bcrypt hash still running
/// on its blocking pool before it is dropped anyway.
const BLOCKING_GRACE: Duration = Duration::from_millis(100);

/// The running runtimes.
pub struct Runtimes {
    addr: SocketAddr,
    stop: watch::Sender<bool>,
    /// Each runtime's `serve` result, sent as its thread ends.
    ended: mpsc::UnboundedReceiver<io::Result<()>>,
    /// Runtimes whose result has not been received yet.
    running: usize,
}

impl Runtimes {
    /// Listens on `addr` (port 0 picks one) with one socket per runtime and
    /// starts `count` runtimes serving `state`.
    pub fn start(addr: SocketAddr, count: usize, state: AppState) -> io::Result<Runtimes> {
        let first = listen(addr)?;
        let addr = first.local_addr()?;
        let mut listeners = vec![first];
        for _ in 1..count {
            listeners.push(listen(addr)?);
        }
        let (stop, stopped) = watch::channel(false);
        let (sender, ended) = mpsc::unbounded_channel();
        for (i, listener) in listeners.into_iter().enumerate() {
            let (state, mut stopped, sender) = (state.clone(), stopped.clone(), sender.clone());
            let shutdown = async move {
                let _ = stopped.wait_for(|stop| *stop).await;
            };
            thread::Builder::new().name(format!("runtime-{i}")).spawn(move || {
                let _ = sender.send(run(listener, state, shutdown));
            })?;
        }
        Ok(Runtimes { addr, stop, ended, running: count })
    }

    /// The address every runtime listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The result of the first runtime to end on its own (it failed to
    /// start, say): `serve` otherwise runs until `stop`.
    pub async fn ended(&mut self) -> io::Result<()> {
        let result = self.ended.recv().await.unwrap_or(Ok(()));
        self.running -= 1;
        result
    }

    /// Tells every runtime to stop accepting and finish its requests; waits
    /// for them at most `grace`, then returns the first error, if any.
    pub async fn stop(mut self, grace: Duration) -> io::Result<()> {
        let _ = self.stop.send(true);
        let all = async {
            let mut result = Ok(());
            for _ in 0..self.running {
                if let Some(Err(e)) = self.ended.recv().await
                    && result.is_ok()
                {
                    result = Err(e);
                }
            }
            result
        };
        // Past the grace, requests still in flight end with the process.
        tokio::time::timeout(grace, all).await.unwrap_or(Ok(()))
    }
}

/// One runtime's life: a current-thread runtime on this thread, serving
/// until `shutdown`.
fn run(
    listener: std::net::TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let result = runtime.block_on(serve(listener, state, shutdown));
    // A bcrypt hash still running on the blocking pool must not hold the exit.
    runtime.shutdown_timeout(BLOCKING_GRACE);
    result
}
