//! `concur micro`'s flags, and the plain values `micro` takes from them.

use super::RootArg;
use crate::micro::{self, Flags};
use anyhow::Result;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// `concur micro`: the flags override the profile's values for every benchmark.
#[derive(Debug, Args)]
pub struct MicroArgs {
    #[command(flatten)]
    pub root: RootArg,
    /// Micro implementations to measure [default: every one under impls/micro/]
    pub names: Vec<String>,
    /// A profile of spec/profiles/micro/: quick (≤ 10 min on 2 cores) or paper (the paper's parameters)
    #[arg(long, short = 'p', default_value = "quick")]
    pub profile: String,
    /// Benchmarks to run, comma separated: pingping, pingpong, spawn, maxprocs, pairs, idle, supervised
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub bench: Vec<String>,
    /// Core counts (pinned to CPUs 0..C-1, the runtime told C), comma separated, for every benchmark
    #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub cores: Vec<u32>,
    /// Repeats of every invocation (each a fresh process)
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub repeat: Option<u32>,
    /// Kill an invocation whose process group's RSS passes this: 8G, 512M, bytes, or 50% of memory [default: the profile's]
    #[arg(long, value_name = "SIZE")]
    pub mem_budget: Option<String>,
    /// The results database (SQLite) [default: results/concur.db in the repository]; --db is its former name
    #[arg(long = "results", alias = "db", value_name = "FILE")]
    pub results: Option<PathBuf>,
    /// Print the plan (every invocation, in order) and exit
    #[arg(long)]
    pub dry_run: bool,
}

impl MicroArgs {
    pub fn run(self) -> Result<ExitCode> {
        let flags = Flags { bench: self.bench, cores: self.cores, repeat: self.repeat, mem_budget: self.mem_budget };
        micro::micro_command(self.root.get(), &self.names, &self.profile, &flags, self.results.as_deref(), self.dry_run)
    }
}
