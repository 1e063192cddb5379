//! `concur build`'s flags, and how many builds run at a time by default.

use super::RootArg;
use anyhow::Result;
use clap::Args;
use std::num::NonZeroUsize;
use std::process::ExitCode;

/// `concur build`: the implementations' build commands, before `run` and `micro` need them.
#[derive(Debug, Args)]
pub struct BuildArgs {
    #[command(flatten)]
    pub root: RootArg,
    /// Implementations to build, as name (every kind) or kind/name [default: every one whose toolchain is present]
    pub names: Vec<String>,
    /// Builds at a time; those whose manifests require a common command (mvn, cargo, npm …) still build one after the other [default: one per CPU]
    #[arg(short = 'j', long, value_name = "N", value_parser = parse_jobs)]
    pub jobs: Option<NonZeroUsize>,
}

fn parse_jobs(text: &str) -> Result<NonZeroUsize, String> {
    let n: usize = text.trim().parse().map_err(|_| format!("invalid number '{text}': expected how many builds run at a time, e.g. --jobs 2"))?;
    NonZeroUsize::new(n).ok_or_else(|| "at least one build must run at a time: give --jobs 1 or more, or leave it out for one per CPU".to_string())
}

impl BuildArgs {
    pub fn run(self) -> Result<ExitCode> {
        let jobs = self.jobs.unwrap_or_else(|| std::thread::available_parallelism().unwrap_or(NonZeroUsize::MIN));
        crate::server::build_command(self.root.get(), &self.names, jobs)
    }
}
