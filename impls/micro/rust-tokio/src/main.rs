//! Concur's process micro-benchmarks (spec/MICRO.md) on tokio tasks and
//! tokio::sync channels: parse, start the runtime, arm the watchdog, run one
//! benchmark, verify, print one JSON line.

mod config;
mod latency;
mod pairs;
mod report;
mod spawn;
mod supervised;

use clap::Parser;
use config::{Bench, Config};
use report::Report;
use std::process::exit;
use std::time::Duration;

fn main() {
    let cfg = Config::try_parse().unwrap_or_else(|e| usage(e));
    arm_watchdog(cfg.bench, cfg.timeout);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(cfg.cores as usize)
        .enable_time()
        .build()
        .unwrap_or_else(|e| fail(format_args!("cannot start the tokio runtime: {e}")));
    let workers = runtime.metrics().num_workers();
    // Main is itself a task, so it runs on the workers like every other
    // process instead of on an extra thread outside --cores.
    let report = runtime
        .block_on(async move { tokio::spawn(run(cfg)).await })
        .unwrap_or_else(|e| fail(format_args!("{}: {e}", cfg.bench.name())));
    if let Err(why) = report.verify(cfg.cores, workers) {
        fail(format_args!("{}: {why}", cfg.bench.name()));
    }
    println!("{}", report.to_json(&cfg, workers));
    // Dormant tasks of spawn are already stopped; the idle ones have ended.
    runtime.shutdown_background();
}

async fn run(cfg: Config) -> Report {
    match cfg.bench {
        Bench::Pingping => latency::pingping(&cfg).await,
        Bench::Pingpong => latency::pingpong(&cfg).await,
        Bench::Spawn | Bench::Maxprocs => spawn::spawn(&cfg).await,
        Bench::Pairs => pairs::pairs(&cfg).await,
        Bench::Idle => spawn::idle(&cfg).await,
        Bench::Supervised => supervised::supervised(&cfg).await,
    }
}

/// A usage error is one line on stderr naming the argument and the fix,
/// and exit 2 (spec §2): clap's first paragraph, without its usage and tips.
/// --help and --version print as clap prints them.
fn usage(e: clap::Error) -> ! {
    if !e.use_stderr() {
        e.exit()
    }
    let text = e.render().to_string();
    let first: Vec<&str> = text
        .lines()
        .take_while(|line| !line.trim().is_empty())
        .map(str::trim)
        .collect();
    eprintln!("micro: {}", first.join(" ").trim_start_matches("error: "));
    exit(2)
}

/// A lost message leaves a task waiting forever; the watchdog turns that
/// into a verification failure (spec §3.2).
fn arm_watchdog(bench: Bench, timeout: f64) {
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs_f64(timeout));
        fail(format_args!(
            "timeout after {timeout} s in {}",
            bench.name()
        ));
    });
}

/// Ends the program at the first wrong message (spec §3.1).
pub fn fail(why: std::fmt::Arguments) -> ! {
    eprintln!("micro: {why}");
    exit(1)
}
