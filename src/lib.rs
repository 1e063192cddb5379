//! The Concur library: one module per stage of the pipeline.
//! `impls` reads the manifests, `server` builds and starts an implementation,
//! `db` starts the PostgreSQL cluster its database routes use, `verify`
//! proves it follows `spec/SPEC.md`, `load` drives it, `stats` summarises
//! latencies, `locust` drives Locust as a second generator, `run` sweeps
//! implementations × scenarios × cores into the results database (`store`),
//! `calibrate` measures the machine's noise floor through `run`, `micro`
//! runs the process micro-benchmarks, `faults` sets off the fault routes under load, `findings` judges the source studies'
//! claims on stored results, and `report` turns that into results/report/.
//!
//! Dependencies point one way: `cli` (the only module that knows clap) turns
//! flags into plain values and calls the stages; the stages share the
//! machine-facing machinery of `host`, which calls none of them.

pub mod calibrate;
pub mod cli;
pub mod db;
pub mod faults;
pub mod findings;
pub mod host;
pub mod impls;
pub mod load;
pub mod locust;
pub mod micro;
pub mod report;
pub mod run;
pub mod server;
pub mod stats;
pub mod store;
pub mod verify;

use cli::Cli;
use std::process::ExitCode;

/// Runs one parsed command line; `main` only prints the error this returns.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    cli.command.run()
}
