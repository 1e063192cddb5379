//! The Concur library: one module per stage of the pipeline.
//! `impls` reads the manifests, `server` builds and starts an implementation,
//! `verify` proves it follows `spec/SPEC.md`, `load` drives it, `stats`
//! summarises latencies.

pub mod cli;
pub mod impls;
pub mod server;
pub mod verify;

use cli::{Cli, Command};
use std::process::ExitCode;

/// Runs one parsed command line; `main` only prints the error this returns.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::List(args) => impls::list_command(&args),
        Command::Serve(args) => server::serve_command(&args),
        Command::Verify(args) => verify::verify_command(&args),
        Command::Test(args) => impls::test_command(&args),
    }
}
