//! `concur`: the same server in every runtime, under one honest load.
//! The binary only parses the command line and reports errors; every stage
//! lives in the library so that tests can drive it in-process.

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = concur::cli::Cli::parse();
    match concur::run(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("concur: error: {err:#}");
            ExitCode::from(2)
        }
    }
}
