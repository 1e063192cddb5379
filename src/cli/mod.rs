//! The command line, defined once with clap's derive: help, completions and
//! tests all use these types. Flags follow the habits of wrk, oha and
//! hyperfine.
//!
//! This layer is the only one that knows clap. As in ripgrep, the flags are
//! parsed first with no I/O (`*Args`), then each command turns them into the
//! plain values its stage takes (a path, a `LoadPlan`, `run::Overrides`):
//! dependencies point one way, from here to the stages, never back.

mod build;
mod calibrate;
mod compare;
mod completions;
mod db;
mod impls;
mod load;
mod locust;
mod faults;
mod micro;
mod run;

pub use build::BuildArgs;
pub use calibrate::CalibrateArgs;
pub use compare::CompareArgs;
pub use completions::CompletionsArgs;
pub use db::DbArgs;
pub use impls::{ListArgs, ServeArgs, TestArgs, VerifyArgs};
pub use load::{LoadArgs, MergeArgs, UsersArgs};
pub use locust::LocustWorkerArgs;
pub use faults::FaultsArgs;
pub use micro::MicroArgs;
pub use run::{ReportArgs, RunArgs};

use clap::{Args, Parser, Subcommand};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Debug, Parser)]
#[command(name = "concur", version, about = "The same server in every runtime, under one honest load")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List every implementation with its language, concurrency model and toolchain status
    List(ListArgs),
    /// Build every implementation (or those named) up front, several at a time; builds sharing a tool run one after the other
    Build(BuildArgs),
    /// Build and run one implementation in the foreground (Ctrl-C stops it and its children)
    Serve(ServeArgs),
    /// Check implementations against spec/SPEC.md with real requests
    Verify(VerifyArgs),
    /// Start the database of the database routes (PostgreSQL, seeded) in the foreground and print its CONCUR_DB_URL; Ctrl-C stops it
    Db(DbArgs),
    /// Run each implementation's own test suite (its manifest's [test] command)
    Test(TestArgs),
    /// Send HTTP load to a server (wrk/ab habits; closed or open loop; scenarios)
    Load(LoadArgs),
    /// Merge the --json results of load processes that ran at the same time
    Merge(MergeArgs),
    /// Write the scenarios' users.csv (deterministic: the same users on every machine)
    Users(UsersArgs),
    /// Benchmark: implementations × scenarios × cores × load × repeats, into the results database
    Run(RunArgs),
    /// Write results/report/index.html and summary.md from the results database
    Report(ReportArgs),
    /// Run a Locust worker for a `concur run --generator locust --locust-master-bind` master on another machine
    LocustWorker(LocustWorkerArgs),
    /// Compare two runs point by point: faster, slower, within noise or cannot tell (default: the latest run against the one before it)
    Compare(CompareArgs),
    /// Measure this machine's noise floor (A/A rounds of a small plan), which every verdict on it then uses
    Calibrate(CalibrateArgs),
    /// Process micro-benchmarks (spec/MICRO.md): latency, spawn, max processes, pairs, idle memory
    Micro(MicroArgs),
    /// Faults under load (spec/SPEC.md §9): start-up, a handler's panic, a runaway request, a killed process
    Faults(FaultsArgs),
    /// Print the shell completion script for bash, zsh or fish (see the README to install it)
    Completions(CompletionsArgs),
}

/// Where the repository is: the folder holding `impls/` and `spec/`.
#[derive(Debug, Args, Clone)]
pub struct RootArg {
    /// Repository root (holding impls/ and spec/); default: found upward from the current folder
    #[arg(long, env = "CONCUR_ROOT", global = true)]
    pub root: Option<PathBuf>,
}

impl RootArg {
    pub fn get(&self) -> Option<&Path> {
        self.root.as_deref()
    }
}

impl Command {
    /// Runs the command; `main` only prints the error this returns.
    pub fn run(self) -> anyhow::Result<ExitCode> {
        match self {
            Command::List(args) => args.run(),
            Command::Build(args) => args.run(),
            Command::Serve(args) => args.run(),
            Command::Verify(args) => args.run(),
            Command::Db(args) => args.run(),
            Command::Test(args) => args.run(),
            Command::Load(args) => args.run(),
            Command::Merge(args) => args.run(),
            Command::Users(args) => args.run(),
            Command::Run(args) => args.run(),
            Command::Report(args) => args.run(),
            Command::LocustWorker(args) => args.run(),
            Command::Compare(args) => args.run(),
            Command::Calibrate(args) => args.run(),
            Command::Micro(args) => args.run(),
            Command::Faults(args) => args.run(),
            Command::Completions(args) => args.run(),
        }
    }
}
