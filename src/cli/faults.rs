//! `concur faults`' flags, and the plain values `faults` takes from them: a
//! faults profile (spec/profiles/faults/) with the flags over it.

use super::RootArg;
use crate::faults::{self, Plan, profile};
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
    /// A profile of spec/profiles/faults/: full (every fault, room to recover) or quick (make bench's short form) [default: full]
    #[arg(short, long)]
    pub profile: Option<String>,
    /// The faults, comma separated: panic, spin, kill [default: the profile's]
    #[arg(long, value_delimiter = ',')]
    pub faults: Vec<String>,
    /// CONCUR_CORES values, comma separated [default: the profile's]
    #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub cores: Vec<u32>,
    /// The open-loop load of GET / beside each fault, as a share of the server's own hello capacity (measured first) [default: the profile's, 0.2]
    #[arg(long)]
    pub share: Option<f64>,
    /// That load at a fixed rate instead, requests per second
    #[arg(long)]
    pub rate: Option<f64>,
    /// Load before each fault [default: the profile's, 1s]
    #[arg(long, value_parser = parse_duration)]
    pub before: Option<std::time::Duration>,
    /// Load after each fault: the longest a recovery is waited for [default: the profile's, 4s]
    #[arg(long, value_parser = parse_duration)]
    pub after: Option<std::time::Duration>,
    /// The runaway request's length (GET /fault/spin?ms=N) [default: the profile's, 1000]
    #[arg(long, value_parser = clap::value_parser!(u64).range(0..=10_000))]
    pub spin_ms: Option<u64>,
    /// Leave out the GET /db bystanders beside the panic, the kill and the baseline (no PostgreSQL is started) [default: the profile's]
    #[arg(long)]
    pub no_database: bool,
    /// Write the results as JSON to this file
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// The results database (SQLite) [default: results/concur.db in the repository]; --db is its former name
    #[arg(long = "results", alias = "db", value_name = "FILE")]
    pub results: Option<PathBuf>,
}

impl FaultsArgs {
    pub fn run(self) -> Result<ExitCode> {
        if let Some(share) = self.share {
            anyhow::ensure!(share > 0.0 && share <= 1.0, "--share {share}: give a share of the capacity above 0 and at most 1 (e.g. --share 0.2)");
        }
        if let Some(rate) = self.rate {
            anyhow::ensure!(rate > 0.0 && rate.is_finite(), "--rate {rate}: give requests per second above 0 (e.g. --rate 200)");
        }
        let root = crate::impls::find_root(self.root.get())?;
        let (name, chosen) = profile::chosen(&root, self.profile.as_deref())?;
        let mut settings = chosen.settings();
        settings.share = self.share.unwrap_or(settings.share);
        settings.rate = self.rate;
        settings.before = self.before.unwrap_or(settings.before);
        settings.after = self.after.unwrap_or(settings.after);
        settings.spin_ms = self.spin_ms.unwrap_or(settings.spin_ms);
        settings.database &= !self.no_database;
        let names = if self.faults.is_empty() { chosen.faults.clone() } else { self.faults.clone() };
        let faults = names.iter().map(|f| profile::parse_fault(f, settings.spin_ms).map_err(|e| anyhow::anyhow!("--faults {e}"))).collect::<Result<Vec<_>>>()?;
        let cores = if self.cores.is_empty() { chosen.cores.clone() } else { self.cores.clone() };
        let plan = Plan { profile: name, cores, faults, settings };
        faults::faults_command(Some(&root), self.results.as_deref(), &self.names, &plan, self.json.as_deref())
    }
}
