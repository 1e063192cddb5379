//! The command line of spec/MICRO.md §2. clap exits with code 2 and names
//! the flag on a bad argument, which is what the spec asks for.

use clap::{Parser, ValueEnum};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Bench {
    Pingping,
    Pingpong,
    Spawn,
    Maxprocs,
    Pairs,
    Idle,
    Supervised,
}

impl Bench {
    pub fn name(self) -> &'static str {
        match self {
            Bench::Pingping => "pingping",
            Bench::Pingpong => "pingpong",
            Bench::Spawn => "spawn",
            Bench::Maxprocs => "maxprocs",
            Bench::Pairs => "pairs",
            Bench::Idle => "idle",
            Bench::Supervised => "supervised",
        }
    }
}

#[derive(Debug, Clone, Copy, Parser)]
#[command(
    name = "micro",
    about = "Concur process micro-benchmarks on tokio (spec/MICRO.md)"
)]
pub struct Config {
    /// The benchmark to run
    #[arg(value_enum)]
    pub bench: Bench,
    /// Payload bytes per pingping message
    #[arg(long, default_value_t = 5120, value_parser = clap::value_parser!(u64).range(1..))]
    pub size: u64,
    /// Exchanges (pingping) or round trips (pingpong)
    #[arg(long, default_value_t = 10000, value_parser = clap::value_parser!(u64).range(1..))]
    pub reps: u64,
    /// Processes of spawn, maxprocs and idle
    #[arg(long, default_value_t = 10000, value_parser = clap::value_parser!(u64).range(1..))]
    pub procs: u64,
    /// Communicating pairs (pairs, supervised)
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u64).range(1..))]
    pub pairs: u64,
    /// Run length of pairs and supervised, in seconds
    #[arg(long, default_value_t = 1.0, value_parser = positive_seconds)]
    pub seconds: f64,
    /// Each idle task's sleep, in milliseconds
    #[arg(long = "sleep-ms", default_value_t = 1000)]
    pub sleep_ms: u64,
    /// supervised's killer: processes killed per second, in percent of the 2P
    #[arg(long = "kill-rate", default_value_t = 0.0, allow_negative_numbers = true, value_parser = kill_rate)]
    pub kill_rate: f64,
    /// Worker threads of the tokio runtime
    #[arg(long, env = "CONCUR_CORES", default_value_t = available_cores(), value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub cores: u64,
    /// Watchdog: fail when no result after this many seconds
    #[arg(long, default_value_t = 300.0, value_parser = positive_seconds)]
    pub timeout: f64,
    /// Test hook: lose one message (spec §3.3)
    #[arg(long = "drop-one")]
    pub drop_one: bool,
}

fn positive_seconds(v: &str) -> Result<f64, String> {
    match v.parse::<f64>() {
        Ok(s) if s > 0.0 && s <= 1e6 => Ok(s),
        _ => Err(format!("'{v}' is not a number of seconds > 0 (e.g. 0.5)")),
    }
}

fn kill_rate(v: &str) -> Result<f64, String> {
    match v.parse::<f64>() {
        Ok(k) if (0.0..=1000.0).contains(&k) => Ok(k),
        _ => Err(format!(
            "'{v}' is not a percentage >= 0 and <= 1000 (e.g. --kill-rate 5)"
        )),
    }
}

fn available_cores() -> u64 {
    std::thread::available_parallelism().map_or(1, |n| n.get() as u64)
}
