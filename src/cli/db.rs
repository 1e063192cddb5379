//! `concur db`'s flags: the database of SPEC §8 in the foreground, for a
//! server started by hand (`concur serve`, `verify --url`) or a user's own tests.

use super::RootArg;
use anyhow::Result;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// `concur db`: start PostgreSQL, seeded, and print the CONCUR_DB_URL to use.
#[derive(Debug, Args)]
pub struct DbArgs {
    #[command(flatten)]
    pub root: RootArg,
    /// The seeded template to copy, made there once when missing [default: results/postgres of the repository]
    #[arg(long, value_name = "DIR")]
    pub template: Option<PathBuf>,
    /// Pin PostgreSQL to these CPUs, e.g. 1 or 2,3
    #[arg(long, value_delimiter = ',')]
    pub cpus: Vec<usize>,
}

impl DbArgs {
    pub fn run(self) -> Result<ExitCode> {
        let cpus = (!self.cpus.is_empty()).then_some(self.cpus);
        crate::db::db_command(self.root.get(), self.template.as_deref(), cpus)
    }
}
