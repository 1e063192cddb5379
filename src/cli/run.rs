//! The flags of `concur run` and `concur report`, and the plain values the
//! two stages take from them (`run::Overrides`, paths).

use super::RootArg;
use crate::report;
use crate::run::{self, Overrides, parse_seconds};
use crate::store::Generator;
use anyhow::Result;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// `concur run`: the flags override the profile's values for every scenario.
#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub root: RootArg,
    /// A profile of spec/profiles/: quick, standard, thesis, blog, wrk-hello
    #[arg(long, short = 'p', default_value = "quick")]
    pub profile: String,
    /// Implementations to measure, comma separated; NEW=NAME measures NAME again under a second name (an A/A), NEW=FOLDER another checkout of one beside it [default: the profile's, else every HTTP implementation]
    #[arg(long = "impl", value_delimiter = ',', value_name = "NAMES")]
    pub implementations: Vec<String>,
    /// Scenarios to run, comma separated (hello, json, page, password, userinfo, longpoll, db, queries, updates, fortunes, slowdb)
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub scenario: Vec<String>,
    /// Server core counts (CONCUR_CORES: logical CPUs, on physical cores of the server's own), comma separated, e.g. 1,2,4
    #[arg(long, value_delimiter = ',')]
    pub cores: Vec<u32>,
    /// Connections (closed loop), comma separated load levels, e.g. 50,500
    #[arg(short = 'c', long, value_delimiter = ',')]
    pub connections: Vec<u32>,
    /// Open loop instead: requests per second, comma separated load levels
    #[arg(short = 'R', long, value_delimiter = ',', conflicts_with = "connections")]
    pub rate: Vec<u32>,
    /// Connection modes, comma separated: true keeps connections alive, false sends `Connection: close` [default: the profile's, else true]
    #[arg(long, value_delimiter = ',', value_name = "BOOLS")]
    pub keepalive: Vec<bool>,
    /// Also search each implementation's capacity within this latency bound, e.g. 'p99<=10ms' or 'p50<=2ms,p99.9<=50ms' (spec/PROFILES.md, Capacity)
    #[arg(long, value_parser = run::slo::Slo::parse, value_name = "BOUND")]
    pub slo: Option<run::slo::Slo>,
    /// Measurement length of each point, e.g. 30s or 10m
    #[arg(short = 'd', long, value_parser = parse_seconds, conflicts_with = "requests")]
    pub duration: Option<f64>,
    /// Measure a fixed number of requests per point instead of a duration (ab's -n)
    #[arg(short = 'n', long)]
    pub requests: Option<u64>,
    /// Least warm-up before each measurement, on its connections (not recorded), e.g. 2s; 0 for none
    #[arg(long, value_parser = parse_seconds)]
    pub warmup: Option<f64>,
    /// Longest warm-up: it goes on past --warmup until throughput is steady, at most this long [default: the profile's, else 30s]
    #[arg(long, value_parser = parse_seconds)]
    pub warmup_max: Option<f64>,
    /// Repeats of every point (the report gives medians and spread over them)
    #[arg(long)]
    pub repeat: Option<u32>,
    /// Measurement windows per server start, taken in rounds over the implementations with
    /// their servers kept warm (the report decides orders from these blocks) [default: the profile's, else 1]
    #[arg(long, value_name = "N")]
    pub blocks: Option<u32>,
    /// Longest wait for one response before it counts as a timeout, e.g. 30s
    #[arg(long, value_parser = parse_seconds)]
    pub timeout: Option<f64>,
    /// Load generators, comma separated: concur-load, locust (spec/LOCUST.md) [default: the profile's, else concur-load]
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub generator: Vec<Generator>,
    /// Locust workers per point [default: one per generator CPU]
    #[arg(long, value_name = "N")]
    pub locust_workers: Option<u32>,
    /// Let the Locust master listen on ADDR for workers started elsewhere with `concur locust-worker` (none are started here)
    #[arg(long, value_name = "ADDR")]
    pub locust_master_bind: Option<String>,
    /// The Locust master's port for its workers
    #[arg(long, value_name = "PORT", default_value_t = crate::locust::MASTER_PORT)]
    pub locust_master_port: u16,
    /// The address the load generator reaches the server at (another host's workers need one they can route to)
    #[arg(long, value_name = "ADDR")]
    pub server_addr: Option<String>,
    /// Start the server in network namespace NS (`ip netns exec NS`), e.g. for the multi-host test
    #[arg(long, value_name = "NS")]
    pub server_netns: Option<String>,
    /// The results database (SQLite) [default: results/concur.db in the repository]; --db is its former name
    #[arg(long = "results", alias = "db", value_name = "FILE")]
    pub results: Option<PathBuf>,
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
    /// The results database (SQLite) [default: results/concur.db in the repository]; --db is its former name
    #[arg(long = "results", alias = "db", value_name = "FILE")]
    pub results: Option<PathBuf>,
    /// Run to report on (see --list) [default: the latest run with points]
    #[arg(long)]
    pub run: Option<i64>,
    /// Folder to write index.html and summary.md to [default: results/report in the repository]
    #[arg(long, short = 'o')]
    pub out: Option<PathBuf>,
    /// List the runs in the database and exit
    #[arg(long)]
    pub list: bool,
    /// Also write every point of the run as JSON to FILE (columns in spec/EXPORT.md)
    #[arg(long, value_name = "FILE", conflicts_with = "list")]
    pub export_json: Option<PathBuf>,
    /// Also write every point of the run as CSV to FILE, a header row first (spec/EXPORT.md)
    #[arg(long, value_name = "FILE", conflicts_with = "list")]
    pub export_csv: Option<PathBuf>,
}

impl RunArgs {
    /// What the flags set over the profile.
    pub fn overrides(&self) -> Overrides {
        Overrides {
            implementations: self.implementations.clone(),
            scenarios: self.scenario.clone(),
            cores: self.cores.clone(),
            connections: self.connections.clone(),
            rate: self.rate.clone(),
            keepalive: self.keepalive.clone(),
            duration_s: self.duration,
            requests: self.requests,
            warmup_s: self.warmup,
            warmup_max_s: self.warmup_max,
            repeat: self.repeat,
            blocks: self.blocks,
            timeout_s: self.timeout,
            verify: !self.no_verify,
            slo: self.slo.clone(),
            generators: self.generator.clone(),
            locust_workers: self.locust_workers,
            locust_master_bind: self.locust_master_bind.clone(),
            locust_master_port: Some(self.locust_master_port),
            server_addr: self.server_addr.clone(),
            server_netns: self.server_netns.clone(),
        }
    }

    pub fn run(self) -> Result<ExitCode> {
        if self.list_profiles {
            return run::list_profiles_command(self.root.get());
        }
        run::run_command(self.root.get(), &self.profile, &self.overrides(), self.results.as_deref(), self.resume, self.dry_run)
    }
}

impl ReportArgs {
    pub fn run(self) -> Result<ExitCode> {
        let options = report::Options { db: self.results, run: self.run, out: self.out, list: self.list, export_json: self.export_json, export_csv: self.export_csv };
        report::report_command(self.root.get(), &options)
    }
}

#[cfg(test)]
#[path = "run_tests.rs"]
mod tests;
