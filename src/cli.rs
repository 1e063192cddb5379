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
    /// Send HTTP load to a server (wrk/ab habits; closed or open loop; scenarios)
    Load(crate::load::LoadArgs),
    /// Merge the --json results of load processes that ran at the same time
    Merge(crate::load::MergeArgs),
    /// Write the scenarios' users.csv (deterministic: the same users on every machine)
    Users(crate::load::UsersArgs),
    /// Benchmark: implementations × scenarios × cores × load × repeats, into the results database
    Run(RunArgs),
    /// Write results/report/index.html and summary.md from the results database
    Report(ReportArgs),
    /// Process micro-benchmarks (spec/MICRO.md): latency, spawn, max processes, pairs, idle memory
    Micro(crate::micro::MicroArgs),
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

/// `concur run`: the flags override the profile's values for every scenario.
#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub root: RootArg,
    /// A profile of spec/profiles/: quick, standard, thesis, blog, wrk-hello
    #[arg(long, short = 'p', default_value = "quick")]
    pub profile: String,
    /// Implementations to measure, comma separated [default: the profile's, else every HTTP implementation]
    #[arg(long = "impl", value_delimiter = ',', value_name = "NAMES")]
    pub implementations: Vec<String>,
    /// Scenarios to run, comma separated (hello, json, page, password, userinfo, longpoll)
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub scenario: Vec<String>,
    /// Server core counts (CONCUR_CORES, pinned to CPUs 0..k-1), comma separated, e.g. 1,2,4
    #[arg(long, value_delimiter = ',')]
    pub cores: Vec<u32>,
    /// Connections (closed loop), comma separated load levels, e.g. 50,500
    #[arg(short = 'c', long, value_delimiter = ',')]
    pub connections: Vec<u32>,
    /// Open loop instead: requests per second, comma separated load levels
    #[arg(short = 'R', long, value_delimiter = ',', conflicts_with = "connections")]
    pub rate: Vec<u32>,
    /// Measurement length of each point, e.g. 30s or 10m
    #[arg(short = 'd', long, value_parser = crate::run::parse_seconds, conflicts_with = "requests")]
    pub duration: Option<f64>,
    /// Measure a fixed number of requests per point instead of a duration (ab's -n)
    #[arg(short = 'n', long)]
    pub requests: Option<u64>,
    /// Warm-up before each measurement (not recorded), e.g. 2s; 0 for none
    #[arg(long, value_parser = crate::run::parse_seconds)]
    pub warmup: Option<f64>,
    /// Repeats of every point (the report gives medians and spread over them)
    #[arg(long)]
    pub repeat: Option<u32>,
    /// Longest wait for one response before it counts as a timeout, e.g. 30s
    #[arg(long, value_parser = crate::run::parse_seconds)]
    pub timeout: Option<f64>,
    /// Results database [default: results/concur.db in the repository]
    #[arg(long)]
    pub db: Option<PathBuf>,
    /// Continue the latest unfinished run with the same plan, skipping its finished points
    #[arg(long)]
    pub resume: bool,
    /// Measure without `concur verify` first (the report marks such implementations unverified)
    #[arg(long)]
    pub no_verify: bool,
    /// Print the plan (every point, in order) and exit
    #[arg(long)]
    pub dry_run: bool,
    /// List the profiles of spec/profiles/ and exit
    #[arg(long)]
    pub list_profiles: bool,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    #[command(flatten)]
    pub root: RootArg,
    /// Results database [default: results/concur.db in the repository]
    #[arg(long)]
    pub db: Option<PathBuf>,
    /// Run to report on (see --list) [default: the latest run with points]
    #[arg(long)]
    pub run: Option<i64>,
    /// Folder to write index.html and summary.md to [default: results/report in the repository]
    #[arg(long, short = 'o')]
    pub out: Option<PathBuf>,
    /// List the runs in the database and exit
    #[arg(long)]
    pub list: bool,
}
