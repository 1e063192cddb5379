//! The one place `run` meets `locust`: a Locust point's locustfile is
//! generated from its scenario with the rows `concur load` would use, the
//! master (and on one machine its workers) run while the server is sampled,
//! and Locust's statistics become the point's counted fields. The warm-up is
//! the first `warmup_s` of Locust's own run, after which the master resets its
//! statistics (Locust has no steadiness judge: the warm-up is the profile's
//! least, never extended).

use super::drive;
use super::spec::PointSpec;
use super::database::Attached;
use super::sampler::{SAMPLE_EVERY, Sampler, Target};
use super::usage;
use crate::load::{Control, Scenario};
use crate::locust::{self, locustfile, master, output::{Stats, WorkerLoad}};
use crate::server::Server;
use crate::store::{PointRecord, SecondRecord, StepRecord};
use anyhow::{Context, Result};
use std::path::Path;
use std::sync::Arc;

/// Refuses, before anything starts, a plan with a Locust point whose scenario Locust cannot express.
pub fn check(root: &Path, points: &[PointSpec]) -> Result<()> {
    let mut seen = Vec::new();
    for p in points.iter().filter(|p| p.locust.is_some()) {
        if seen.contains(&p.scenario) {
            continue;
        }
        seen.push(p.scenario.clone());
        locustfile::check(&Scenario::load(&drive::reference(root, &p.scenario))?)?;
    }
    Ok(())
}

/// Warm-up and measurement of a Locust point; fills `point`.
pub fn load_phases(root: &Path, spec: &PointSpec, server: &mut Server, point: &mut PointRecord, log_dir: &Path, database: Option<&Attached>) -> Result<()> {
    let settings = spec.locust.clone().context("a Locust point without its master's settings")?;
    let tool = locust::find(Some(root)).map_err(anyhow::Error::msg)?;
    let scenario = Scenario::load(&drive::reference(root, &spec.scenario))?;
    let users = drive::plan(root, spec, server.addr)?.users;
    let duration_s = spec.duration_s.unwrap_or(10.0);
    let file = locustfile::Settings { workers: settings.workers, warmup_s: spec.warmup_s, duration_s, timeout_s: spec.timeout_s };
    let dir = log_dir.join(format!("{}.locust", spec.key.replace('/', "_")));
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let locustfile = dir.join("locustfile.py");
    std::fs::write(&locustfile, locustfile::generate(&scenario, &users, &file)?)?;
    let run = master::Run {
        locustfile,
        dir,
        host: format!("http://{}", server.addr),
        users: spec.connections,
        warmup_s: spec.warmup_s,
        duration_s,
        workers: settings.workers,
        master_bind: settings.master_bind.clone(),
        master_port: settings.master_port,
        cpus: spec.generator_cpus.clone(),
    };
    let control = Arc::new(Control::new());
    let sampler = Sampler::start(Target::Group(server.pgid()), SAMPLE_EVERY, spec.generator_cpus.clone(), Arc::clone(&control));
    let watch = database.map(|d| d.watch(spec, &control));
    let outcome = {
        let _watch = super::interrupt::Watch::new(Arc::clone(&control));
        master::run(&tool, &run, &control)
    };
    let samples = sampler.finish();
    let database = database.zip(watch.map(Sampler::finish));
    let outcome = outcome?;
    if outcome.stats.requests() == 0 {
        anyhow::bail!("Locust sent no request during the measurement (see master.log and worker-*.log in {})", run.dir.display());
    }
    // After a warm-up the locustfile measures exactly `duration_s` (the reset, then the end; a worker's
    // statistics merged after the reset carry an earlier start, so Locust's own span overstates it).
    // Without one, Locust's span from its first request to its last; this process' clock, which
    // also holds the master's shutdown, only when Locust has none.
    let elapsed_s = if spec.warmup_s > 0.0 { duration_s } else { outcome.stats.elapsed_s().unwrap_or(outcome.elapsed_s) };
    fill(point, &outcome.stats, &outcome.workers, elapsed_s);
    point.server = usage::server(samples, elapsed_s, spec.cores);
    (point.generator, point.database) = super::database::usage_beside(spec, elapsed_s, point.server.cpu_seconds, outcome.cpu_seconds, database);
    point.generator.kind = spec.generator;
    point.generator.version = tool.version;
    judge_workers(point, &outcome.workers, settings.workers);
    if settings.master_bind.is_some() {
        point.warnings.push("the Locust workers ran on other machines: the generator's CPU counts the master only; the saturation flag judges the workers by their own reports".into());
    }
    server.still_running("measurement")
}

/// Flags the generator as saturated when a worker's own report says it was
/// the limit, and keeps every report in the point's `load_report`.
fn judge_workers(point: &mut PointRecord, workers: &[WorkerLoad], expected: u32) {
    let p99_ms = point.latency.p99_us as f64 / 1000.0;
    for reason in workers.iter().filter_map(|w| w.limit(p99_ms)) {
        point.generator.saturated = true;
        point.warnings.push(format!("generator saturated: {reason}"));
    }
    if workers.len() < expected as usize {
        point.warnings.push(format!("{} of {expected} Locust workers reported their load: the saturation flag judges only those", workers.len()));
    }
    if let Some(report) = point.load_report.as_mut() {
        report["workers"] = serde_json::json!(workers);
    }
}

/// Copies Locust's counts into `point`: every request Locust timed is a
/// response or an error, its failures (unexpected statuses included) are errors,
/// and the requests the workers' users still waited on at the end are unfinished.
fn fill(point: &mut PointRecord, stats: &Stats, workers: &[WorkerLoad], elapsed_s: f64) {
    point.duration_s = elapsed_s;
    point.requests = stats.requests();
    point.errors_total = stats.failures_total();
    point.successes = point.requests - point.errors_total.min(point.requests);
    point.errors = stats.errors();
    let unfinished = |step: Option<&str>| -> Vec<f64> {
        workers.iter().flat_map(|w| &w.unfinished).filter(|(name, _)| step.is_none_or(|s| s == name)).map(|(_, age)| *age).collect()
    };
    (point.latency, point.unfinished_age) = Stats::latency(&stats.entries.iter().collect::<Vec<_>>(), &unfinished(None));
    point.steps = stats
        .entries
        .iter()
        .map(|e| StepRecord {
            name: e.name.clone(),
            successes: e.num_requests - e.num_failures.min(e.num_requests),
            errors: e.num_failures,
            latency: Stats::latency(&[e], &unfinished(Some(&e.name))).0,
        })
        .collect();
    point.timeline = stats.per_second().into_iter().map(|(requests, errors)| SecondRecord { requests: requests - errors.min(requests), errors }).collect();
    point.load_report = Some(serde_json::json!({ "generator": "locust", "stats": stats.raw, "failures": stats.failures }));
}
