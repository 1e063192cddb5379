//! The Concur HTTP workload (spec/SPEC.md) on the Rust book's multithreaded
//! web server: a `TcpListener`, a `ThreadPool` of OS threads, one connection
//! per thread at a time.

pub mod app;
pub mod config;
pub mod cores;
pub mod http;
pub mod pool;
pub mod server;

use config::Config;
use server::Server;
use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::iterator::Signals;
use std::io;
use std::thread;

/// Pins the process to `CONCUR_CORES` CPUs, listens, and serves until SIGTERM.
pub fn run(config: Config) -> io::Result<()> {
    // First: threads spawned from here on inherit the CPU mask.
    let cpus = cores::restrict_to(config.cores)?;
    let server = Server::bind(&config)?;
    let stopper = server.stopper();
    let mut signals = Signals::new([SIGTERM, SIGINT])?;
    thread::spawn(move || {
        if signals.forever().next().is_some() {
            stopper.stop();
        }
    });
    eprintln!(
        "listening on http://{} with a pool of up to {} worker threads ({} KiB stacks) on CPUs {cpus:?}",
        server.local_addr(),
        config.threads,
        pool::STACK_SIZE / 1024
    );
    server.run();
    Ok(())
}
