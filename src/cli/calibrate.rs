//! The flags of `concur calibrate`, turned into the plain values of the
//! `calibrate` stage.

use super::RootArg;
use anyhow::Result;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// `concur calibrate`: measure this machine's noise floor, which every verdict on it then uses.
#[derive(Debug, Args)]
pub struct CalibrateArgs {
    #[command(flatten)]
    pub root: RootArg,
    /// Implementations measured, comma separated [default: spec/profiles/calibrate.toml's: go-nethttp, node-http, elixir]
    #[arg(long = "impl", value_delimiter = ',', value_name = "NAMES")]
    pub implementations: Vec<String>,
    /// A/A rounds: every implementation once per round, rounds one after the other [default: the profile's 6]
    #[arg(long)]
    pub rounds: Option<u32>,
    /// Measure nothing: store the floor of this calibration run's points (one stopped before it stored its floor)
    #[arg(long, value_name = "ID")]
    pub run: Option<i64>,
    /// The results database (SQLite) [default: results/concur.db in the repository]; --db is its former name
    #[arg(long = "results", alias = "db", value_name = "FILE")]
    pub results: Option<PathBuf>,
}

impl CalibrateArgs {
    pub fn run(self) -> Result<ExitCode> {
        crate::calibrate::calibrate_command(self.root.get(), self.results.as_deref(), self.implementations, self.rounds, self.run)
    }
}
