//! `concur faults`' flags, and the plain values `faults` takes from them.

use super::RootArg;
use crate::faults::{self, Settings};
use crate::load::parse_duration;
use anyhow::Result;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// `concur faults`: every implementation (or those named) at each core count.
#[derive(Debug, Args)]
pub struct FaultsArgs {
    #[command(flatten)]
    pub root: RootArg,
    /// HTTP implementations to measure [default: every one whose toolchain is present]
    pub names: Vec<String>,
    /// CONCUR_CORES values, comma separated
    #[arg(long, value_delimiter = ',', default_value = "1", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub cores: Vec<u32>,
    /// The open-loop load of GET / beside each fault, as a share of the server's own hello capacity (measured first)
    #[arg(long, default_value_t = 0.2)]
    pub share: f64,
    /// That load at a fixed rate instead, requests per second
    #[arg(long)]
    pub rate: Option<f64>,
    /// Load before each fault
    #[arg(long, default_value = "1s", value_parser = parse_duration)]
    pub before: std::time::Duration,
    /// Load after each fault: the longest a recovery is waited for
    #[arg(long, default_value = "4s", value_parser = parse_duration)]
    pub after: std::time::Duration,
    /// The runaway request's length (GET /fault/spin?ms=N)
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(0..=10_000))]
    pub spin_ms: u64,
    /// Write the results as JSON to this file
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// The results database (SQLite) [default: results/concur.db in the repository]; --db is its former name
    #[arg(long = "results", alias = "db", value_name = "FILE")]
    pub results: Option<PathBuf>,
}

impl FaultsArgs {
    pub fn run(self) -> Result<ExitCode> {
        anyhow::ensure!(self.share > 0.0 && self.share <= 1.0, "--share {}: give a share of the capacity above 0 and at most 1 (e.g. --share 0.2)", self.share);
        if let Some(rate) = self.rate {
            anyhow::ensure!(rate > 0.0 && rate.is_finite(), "--rate {rate}: give requests per second above 0 (e.g. --rate 200)");
        }
        let settings = Settings { share: self.share, rate: self.rate, before: self.before, after: self.after, spin_ms: self.spin_ms, ..Settings::default() };
        faults::faults_command(self.root.get(), self.results.as_deref(), &self.names, &self.cores, &settings, self.json.as_deref())
    }
}
