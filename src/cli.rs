//! The command line, defined once with clap's derive: help, completions and
//! tests all use these types. Flags follow the habits of wrk, oha and hyperfine.

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

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
    /// Build and run one implementation in the foreground (Ctrl-C stops it and its children)
    Serve(ServeArgs),
    /// Check implementations against spec/SPEC.md with real requests
    Verify(VerifyArgs),
    /// Run each implementation's own test suite (its manifest's [test] command)
    Test(TestArgs),
}

/// Where the repository is: the folder holding `impls/` and `spec/`.
#[derive(Debug, Args, Clone)]
pub struct RootArg {
    /// Repository root (holding impls/ and spec/); default: found upward from the current folder
    #[arg(long, env = "CONCUR_ROOT", global = true)]
    pub root: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    #[command(flatten)]
    pub root: RootArg,
    /// Print JSON instead of a table
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    #[command(flatten)]
    pub root: RootArg,
    /// Implementation name (see `concur list`)
    pub name: String,
    /// Port to listen on (default 8080)
    #[arg(short, long, default_value_t = 8080)]
    pub port: u16,
    /// CONCUR_CORES for the implementation
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub cores: u32,
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    #[command(flatten)]
    pub root: RootArg,
    /// Implementations to verify (default: every implementation whose toolchain is present)
    pub names: Vec<String>,
    /// CONCUR_CORES values to verify with, comma separated
    #[arg(long, value_delimiter = ',', default_value = "1,2")]
    pub cores: Vec<u32>,
    /// Verify an already running server at this base URL instead of starting one
    #[arg(long, conflicts_with = "names")]
    pub url: Option<String>,
    /// With --url: the CONCUR_* settings the server was started with, as the checks assume
    /// (page delay 600 ms, long poll 2000 ms, delay every 10)
    #[arg(long, requires = "url", default_value_t = 1)]
    pub url_cores: u32,
    /// Only run checks whose id contains one of these comma-separated texts (e.g. --only longpoll,page)
    #[arg(long)]
    pub only: Option<String>,
    /// Print the checks and the spec section each enforces, then exit
    #[arg(long)]
    pub list_checks: bool,
    /// Write the results as JSON to this file
    #[arg(long)]
    pub json: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct TestArgs {
    #[command(flatten)]
    pub root: RootArg,
    /// Implementations to test, as name (every kind) or kind/name (default: every one whose toolchain is present)
    pub names: Vec<String>,
}
