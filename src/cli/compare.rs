//! The flags of `concur compare`, turned into the plain values of
//! `report::compare` (run ids, a path, a format).

use super::RootArg;
use crate::report::compare::{self, Format, Options};
use anyhow::Result;
use clap::{Args, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;

/// `concur compare`: is run B faster or slower than run A, point by point?
#[derive(Debug, Args)]
pub struct CompareArgs {
    #[command(flatten)]
    pub root: RootArg,
    /// The baseline run (see `concur report --list`) [default: the run with points before RUN_B]
    pub run_a: Option<i64>,
    /// The run compared with it [default: the latest run with points]
    pub run_b: Option<i64>,
    /// The results database (SQLite) [default: results/concur.db in the repository]; --db is its former name
    #[arg(long = "results", alias = "db", value_name = "FILE")]
    pub results: Option<PathBuf>,
    /// Use only the first N repeats of each point: what fewer repeats would have said
    #[arg(long, value_name = "N")]
    pub repeats: Option<u32>,
    /// Output format: markdown tables, or JSON (schema in spec/COMPARE.md)
    #[arg(long, value_enum, default_value_t = FormatArg::Markdown)]
    pub format: FormatArg,
    /// Write to this file instead of standard output
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    Markdown,
    Json,
}

impl CompareArgs {
    pub fn run(self) -> Result<ExitCode> {
        let format = match self.format {
            FormatArg::Markdown => Format::Markdown,
            FormatArg::Json => Format::Json,
        };
        let options = Options { a: self.run_a, b: self.run_b, repeats: self.repeats };
        compare::compare_command(self.root.get(), self.results.as_deref(), &options, format, self.output.as_deref())
    }
}
