//! `concur load`: the load generator. It drives a server over HTTP/1.1 with
//! a fixed number of connections, in a closed loop (each connection sends
//! when its previous response arrived, like wrk and ab) or an open loop (a
//! fixed rate, latency measured from each request's intended send time, like
//! wrk2), for a duration or an exact count of requests, with one request or
//! a scenario of steps filled from user data. It is built to cost less CPU
//! per request than wrk, so that the server is what gets measured.
//!
//! The pipeline: a plan (`plan`, resolved from the flags by `cli` or built
//! directly by the orchestrator) → request bytes encoded once (`request`) → one event loop
//! per worker thread (`worker`, strategies in `pace`) → the workers'
//! tallies merged into a `LoadReport` (`report`), printed (`human`) and
//! written as JSON. `merge` combines reports of concurrent load processes.

mod conn;
mod control;
mod http;
mod human;
mod merge;
mod pace;
mod plan;
mod progress;
mod report;
mod request;
mod scenario;
mod source;
mod sys;
mod url;
mod users;
pub mod warmup;
mod worker;

pub use control::Control;
pub use crate::host::duration::parse_duration;
pub use merge::merge;
pub use plan::{LoadPlan, StopAt};
pub use report::{CpuUse, LoadReport, RateCheck, SCHEMA, Settings, StepReport};
pub use scenario::{Scenario, Step};
/// Raises this process' open-file limit (children started later inherit it); returns the limit in force.
pub use crate::host::limits::raise_nofile as raise_open_files;
pub use url::Target;
pub use users::Users;
pub use warmup::{Period, Warmup, WarmupReport};

use anyhow::{Context, Result, anyhow, bail};
use report::RunFacts;
use request::Requests;
use std::io::Write;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use worker::{Assignment, Shared};

/// File descriptors a run needs besides its connections (epoll, timers, stdio).
const SPARE_FDS: usize = 64;

/// Runs `plan` on worker threads and returns the merged result. Fails before
/// sending anything when the target cannot be reached; `control.stop()` ends
/// the run early with the partial result.
pub fn run(plan: &LoadPlan, control: &Control) -> Result<LoadReport> {
    plan.validate()?;
    let mut warnings = Vec::new();
    let connections = fit_connections(plan.connections, &mut warnings);
    let threads = plan.threads.min(connections).max(1);
    if plan.rate.is_some() && !plan.think_time.is_zero() {
        warnings.push("the think time is ignored in an open loop: the schedule of -R decides when each request is sent".into());
    }
    preflight(plan)?;
    let (sources, warning) = source::choose(plan.target.addr, connections, source::ephemeral_ports());
    warnings.extend(warning);
    let requests = Requests::encode(plan);
    let start_ns = sys::now_ns();
    match plan.warmup {
        None => control.begin_measurement(std::time::Instant::now()),
        Some(w) if w.fixed() => control.begin_measurement(std::time::Instant::now() + w.min),
        Some(_) => {}
    }
    let duration = match plan.stop {
        StopAt::Duration(d) => Some(d),
        StopAt::Count(_) => None,
    };
    let phase = warmup::Phase::new(start_ns, plan.warmup, duration);
    let shared = Shared {
        requests: &requests,
        addr: plan.target.addr,
        sources: &sources,
        keepalive: plan.keepalive,
        timeout_ns: plan.timeout.as_nanos() as u64,
        start_ns,
        phase: &phase,
        total_users: connections as u64,
        pace: pace::Pace::new(plan.rate, connections, plan.think_time.as_nanos() as u64, plan.spawn_rate),
        backoff: plan.rate.is_none() && matches!(plan.stop, StopAt::Duration(_)),
        control,
        latency_per_second: plan.latency_per_second,
    };
    let started_unix_ms = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64);
    let assignments = assign(plan, connections, threads);
    let outcomes = std::thread::scope(|scope| -> Result<Vec<worker::Outcome>> {
        let shared = &shared;
        if let Some(bounds) = plan.warmup.filter(|w| !w.fixed()) {
            let phase = &phase;
            std::thread::Builder::new()
                .name("concur-warmup".into())
                .spawn_scoped(scope, move || warmup::judge(phase, bounds, start_ns, duration, control))
                .context("cannot start the warm-up's thread")?;
        }
        let handles = assignments
            .into_iter()
            .enumerate()
            .map(|(k, assignment)| {
                std::thread::Builder::new()
                    .name(format!("concur-load-{k}"))
                    .spawn_scoped(scope, move || worker::run(shared, assignment))
            })
            .collect::<std::io::Result<Vec<_>>>()
            .context("cannot start the worker threads")?;
        handles.into_iter().map(|h| h.join().map_err(|panic| anyhow!("a load worker thread panicked: {}", panic_message(&panic)))?).collect()
    })?;
    let mut total = report::sum(plan.steps.len(), start_ns, outcomes)?;
    // The warm-up's seconds leave the timeline; the measurement's clock starts where it ended.
    let warmup = phase.report(start_ns, &total.timeline.0);
    if let Some(w) = &warmup {
        total.timeline.0.drain(..w.per_second.len().min(total.timeline.0.len()));
        total.second_latencies.drain(..w.per_second.len().min(total.second_latencies.len()));
    }
    let measure_from = phase.measure_from().min(total.end_ns);
    let facts = RunFacts { started_unix_ms, start_ns: measure_from, connections, threads, warnings };
    let mut report = report::make(plan, facts, total)?;
    report.warmup = warmup;
    Ok(report)
}

/// The text a panic was raised with, which `join` hands back as `Any`.
fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> &str {
    panic.downcast_ref::<&str>().copied().or_else(|| panic.downcast_ref::<String>().map(String::as_str)).unwrap_or("no message")
}

/// Splits the connections, the user indexes, the count budget and the CPUs over the workers.
fn assign(plan: &LoadPlan, connections: usize, threads: usize) -> Vec<Assignment> {
    let share = |total: u64, k: usize| total / threads as u64 + u64::from((k as u64) < total % threads as u64);
    let mut first_user = 0;
    (0..threads)
        .map(|k| {
            let conns = share(connections as u64, k) as usize;
            let assignment = Assignment {
                first_user,
                connections: conns,
                budget: match plan.stop {
                    StopAt::Count(n) => pace::Budget::Count(share(n, k)),
                    StopAt::Duration(_) => pace::Budget::Unlimited,
                },
                cpu: (!plan.cpus.is_empty()).then(|| plan.cpus[k % plan.cpus.len()]),
            };
            first_user += conns as u64;
            assignment
        })
        .collect()
}

/// Raises the open-file limit to fit the connections, or uses fewer and says so.
fn fit_connections(asked: usize, warnings: &mut Vec<String>) -> usize {
    let wanted = (asked + SPARE_FDS) as u64;
    let limit = crate::host::limits::raise_nofile(wanted);
    if limit >= wanted {
        return asked;
    }
    let fits = (limit as usize).saturating_sub(SPARE_FDS).max(1);
    warnings.push(format!(
        "the open-file limit is {limit} and could not be raised to {wanted}: using {fits} connections instead of {asked} \
         (raise it with `ulimit -n {wanted}` as root, or lower -c)"
    ));
    fits
}

/// One connection before the run, so that a wrong port or a dead server is one clear sentence.
fn preflight(plan: &LoadPlan) -> Result<()> {
    let wait = plan.timeout.min(Duration::from_secs(5));
    match TcpStream::connect_timeout(&plan.target.addr, wait) {
        Ok(_) => Ok(()),
        Err(e) => bail!("cannot connect to {} ({}): {e}; is the server running?", plan.target.url, plan.target.addr),
    }
}

/// `concur load`: runs `plan`, prints the summary, writes the JSON to `json` (`-`: standard output).
pub fn load_command(plan: &LoadPlan, json: Option<&Path>) -> Result<ExitCode> {
    let control = Arc::new(Control::new());
    let handler = Arc::clone(&control);
    // The first Ctrl-C ends the run with its partial result; a second one exits at once.
    crate::host::interrupt::on_signal(move |count| {
        if count > 1 {
            std::process::exit(130);
        }
        handler.stop();
    });
    let json_to_stdout = json == Some(Path::new("-"));
    let mut human: Box<dyn Write> = if json_to_stdout { Box::new(std::io::stderr()) } else { Box::new(std::io::stdout()) };
    write!(human, "{}", human::header(plan))?;
    human.flush()?;
    let progress = progress::Progress::start(plan, Arc::clone(&control));
    let report = run(plan, &control);
    progress.finish();
    let report = report?;
    if let Some(path) = json {
        write_json(&report, path)?;
    }
    for warning in &report.warnings {
        eprintln!("concur: warning: {warning}");
    }
    if report.requests == 0 && (report.errors > 0 || report.unfinished > 0) {
        bail!("{}", human::no_success(&report));
    }
    write!(human, "{}", human::summary(&report))?;
    Ok(if report.interrupted { ExitCode::from(130) } else { ExitCode::SUCCESS })
}

/// `concur merge`: one report from `files` written at the same time; `json` as for `load_command`.
pub fn merge_command(files: &[PathBuf], json: Option<&Path>) -> Result<ExitCode> {
    let reports = files.iter().map(|path| read_report(path)).collect::<Result<Vec<_>>>()?;
    let merged = merge(&reports)?;
    let json_to_stdout = json == Some(Path::new("-"));
    if let Some(path) = json {
        write_json(&merged, path)?;
    }
    let text = format!("Merged {} results @ {}\n{}", merged.sources, merged.target, human::summary(&merged));
    if json_to_stdout { eprint!("{text}") } else { print!("{text}") }
    Ok(ExitCode::SUCCESS)
}

/// `concur users`: the deterministic users.csv of the scenarios, `count` users, to `output` or standard output.
pub fn users_command(count: usize, output: Option<&Path>) -> Result<ExitCode> {
    let csv = Users::generate(count).to_csv();
    match output {
        Some(path) => std::fs::write(path, csv).with_context(|| format!("cannot write {}", path.display()))?,
        None => std::io::stdout().write_all(csv.as_bytes())?,
    }
    Ok(ExitCode::SUCCESS)
}

/// Reads a report written by `--json`, refusing other schemas.
pub fn read_report(path: &Path) -> Result<LoadReport> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let value: serde_json::Value = serde_json::from_str(&text).with_context(|| format!("{}: not JSON", path.display()))?;
    match value.get("schema").and_then(|s| s.as_str()) {
        Some(SCHEMA) => {}
        Some(other) => bail!("{}: schema '{other}', this concur reads '{SCHEMA}'", path.display()),
        None => bail!("{}: no 'schema' field; is it the output of `concur load --json`?", path.display()),
    }
    serde_json::from_value(value).with_context(|| format!("{}: does not follow {SCHEMA} (spec/LOAD-JSON.md)", path.display()))
}

fn write_json(report: &LoadReport, path: &Path) -> Result<()> {
    let text = serde_json::to_string_pretty(report)? + "\n";
    if path == Path::new("-") {
        std::io::stdout().write_all(text.as_bytes())?;
        return Ok(());
    }
    std::fs::write(path, text).with_context(|| format!("--json: cannot write {}", path.display()))
}
