//! The Concur library: one module per stage of the pipeline.
//! `impls` reads the manifests, `server` builds and starts an implementation,
//! `verify` proves it follows `spec/SPEC.md`, `load` drives it, `stats`
//! summarises latencies, `run` sweeps implementations × scenarios × cores
//! into the results database (`store`), and `report` turns that into
//! results/report/.

pub mod cli;
pub mod host;
pub mod impls;
pub mod load;
pub mod micro;
pub mod report;
pub mod run;
pub mod server;
pub mod stats;
pub mod store;
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
        Command::Load(args) => load::load_command(&args),
        Command::Merge(args) => load::merge_command(&args),
        Command::Users(args) => load::users_command(&args),
        Command::Run(args) => run::run_command(&args),
        Command::Report(args) => report::report_command(&args),
        Command::Micro(args) => micro::micro_command(&args),
    }
}
