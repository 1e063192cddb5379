//! The flags of the commands that work on the implementations one at a
//! time: `list`, `serve`, `verify` and `test`.

use super::RootArg;
use anyhow::Result;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

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
    /// Switch on the fault routes of spec/SPEC.md §9 (CONCUR_FAULTS=1): /fault/panic and /fault/spin
    #[arg(long)]
    pub faults: bool,
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    #[command(flatten)]
    pub root: RootArg,
    /// Implementations to verify (default: every implementation whose toolchain is present);
    /// with --url, at most one: the implementation the server runs, whose [known_failures] apply
    pub names: Vec<String>,
    /// CONCUR_CORES values to verify with, comma separated
    #[arg(long, value_delimiter = ',', default_value = "1,2")]
    pub cores: Vec<u32>,
    /// Verify an already running server at this base URL instead of starting one
    #[arg(long)]
    pub url: Option<String>,
    /// With --url: the CONCUR_* settings the server was started with, as the checks assume
    /// (page delay 600 ms, long poll 2000 ms, delay every 10)
    #[arg(long, requires = "url", default_value_t = 1)]
    pub url_cores: u32,
    /// With --url: the CONCUR_DB_URL the server was given (`concur db` prints it); the database routes are checked only with it
    #[arg(long, env = "CONCUR_DB_URL", value_name = "URL")]
    pub db_url: Option<String>,
    /// With --url: the CONCUR_DB_POOL the server was given
    #[arg(long, env = "CONCUR_DB_POOL", default_value_t = crate::db::DEFAULT_POOL, value_name = "N")]
    pub db_pool: u32,
    /// With --url: the CONCUR_DB_SLOW_MS the server was given
    #[arg(long, env = "CONCUR_DB_SLOW_MS", default_value_t = crate::db::DEFAULT_SLOW_MS, value_name = "MS")]
    pub db_slow_ms: u64,
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

impl ListArgs {
    pub fn run(self) -> Result<ExitCode> {
        crate::impls::list_command(self.root.get(), self.json)
    }
}

impl ServeArgs {
    pub fn run(self) -> Result<ExitCode> {
        crate::server::serve_command(self.root.get(), &self.name, self.port, self.cores, self.faults)
    }
}

impl VerifyArgs {
    pub fn run(self) -> Result<ExitCode> {
        use crate::verify;
        if self.list_checks {
            return verify::list_checks_command();
        }
        let (only, json) = (self.only.as_deref(), self.json.as_deref());
        match &self.url {
            Some(url) => {
                if self.names.len() > 1 {
                    anyhow::bail!("--url checks one server: name at most one implementation (the one it runs, e.g. concur verify go-nethttp --url {url})");
                }
                let db = self.db_url.clone().map(|url| crate::db::ServerDb { url, pool: self.db_pool, slow_ms: self.db_slow_ms });
                verify::verify_url_command(self.root.get(), self.names.first().map(String::as_str), url, self.url_cores, db.as_ref(), only, json)
            }
            None => verify::verify_command(self.root.get(), &self.names, &self.cores, only, json),
        }
    }
}

impl TestArgs {
    pub fn run(self) -> Result<ExitCode> {
        crate::server::test_command(self.root.get(), &self.names)
    }
}
