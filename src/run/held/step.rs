//! One step of a clients-held search: N virtual users of the search's
//! scenario, closed loop, each sending exactly one request (a count of N),
//! started at the step's spawn rate, with a timeout of the poll's wait plus
//! the bound, so that a client not answered by then is a timeout error. The
//! server's process tree is sampled alongside (every 100 ms: its peak RSS,
//! and its CPU in the window where every client waits) and the machine's
//! MemAvailable watched. The verdict: pass when all N were answered in time,
//! all N waited at once, no error and none left unanswered.

use super::limits::{self, MemWatch};
use crate::load::{Control, LoadReport};
use crate::run::spec::{HeldSpec, PointSpec};
use crate::run::ramp::Verdict;
use crate::run::sampler::{Sampler, Target};
use crate::run::{drive, usage};
use crate::server::Server;
use crate::store::UsageSample;
use crate::store::held::HeldStepRecord;
use anyhow::Result;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// The server is sampled more often than a point's: the window where every client waits may be 1 s.
const SAMPLE_EVERY: Duration = Duration::from_millis(100);

/// Measures step `n` of `clients` on `server`, whose RSS at rest was `rest`.
pub fn measure(root: &Path, spec: &HeldSpec, server: &mut Server, n: u32, clients: u64, rest: u64) -> HeldStepRecord {
    let spawn_rate = spec.spawn_rate_for(clients);
    let mut step = HeldStepRecord { n, clients, spawn_rate, rss_rest_bytes: rest, ..Default::default() };
    let (verdict, reasons) = match load(root, spec, server, &mut step) {
        Err(e) => (Verdict::Error, vec![format!("{e:#}")]),
        Ok(()) => judge(spec, &step),
    };
    step.verdict = verdict.as_str().into();
    step.reason = (!reasons.is_empty()).then(|| reasons.join("; "));
    step
}

/// The step's load with its sampling; fills the measured fields of `step`.
fn load(root: &Path, spec: &HeldSpec, server: &mut Server, step: &mut HeldStepRecord) -> Result<()> {
    let pspec = point_spec(spec, step.clients);
    let mut plan = drive::plan(root, &pspec, server.addr)?;
    plan.spawn_rate = Some(step.spawn_rate);
    let control = Arc::new(Control::new());
    let memory = MemWatch::start();
    let sampler = Sampler::start(Target::Group(server.pgid()), SAMPLE_EVERY, spec.generator_cpus.clone(), Arc::clone(&control));
    let report = drive::run(&plan, &control);
    let samples = sampler.finish();
    step.machine_bytes = memory.finish();
    let report: LoadReport = report?;
    server.still_running(&format!("step of {} clients", step.clients))?;
    fill(step, &report);
    step.waiting_cpu_util = waiting_cpu(&samples, step.clients as f64 / step.spawn_rate, spec.wait_ms as f64 / 1000.0, spec.cores);
    let server_usage = usage::server(samples, report.elapsed_s, spec.cores);
    step.rss_peak_bytes = server_usage.rss_peak_bytes;
    step.server_cpu_util = server_usage.cpu_util;
    step.gen_cpu_util = drive::generator_cpu_seconds(&report) / (report.elapsed_s * spec.generator_cpus.len().max(1) as f64).max(1e-9);
    Ok(())
}

fn fill(step: &mut HeldStepRecord, report: &LoadReport) {
    step.duration_s = report.elapsed_s;
    step.successes = report.requests;
    step.errors_total = report.errors;
    step.errors = crate::run::drive::error_counts(&report.errors_by_kind);
    step.error_messages = report.error_messages.clone();
    step.unfinished = report.unfinished;
    step.peak_in_flight = report.peak_in_flight;
    step.latency_p50_us = report.latency.p50_us;
    step.latency_p99_us = report.latency.p99_us;
    step.latency_max_us = report.latency.max_us;
}

/// A step as a point: `clients` connections, one request each, the timeout at the wait plus the bound.
pub fn point_spec(spec: &HeldSpec, clients: u64) -> PointSpec {
    PointSpec {
        key: format!("{}/N={clients}", spec.key),
        implementation: spec.implementation.clone(),
        scenario: spec.scenario.clone(),
        cores: spec.cores,
        server_cpus: spec.server_cpus.clone(),
        generator_cpus: spec.generator_cpus.clone(),
        // The long poll reads no database.
        database_cpus: vec![],
        after: None,
        shared: spec.shared,
        level: format!("N={clients}"),
        connections: clients as u32,
        rate: None,
        keepalive: true,
        repeat: 1,
        start: 0,
        warmup_s: 0.0,
        warmup_max_s: 0.0,
        duration_s: None,
        requests: Some(clients.max(1)),
        timeout_s: (spec.wait_ms + spec.bound_ms) as f64 / 1000.0,
        env: spec.env.clone(),
        generator: crate::store::Generator::ConcurLoad,
        locust: None,
        server_addr: None,
        server_netns: None,
    }
}

/// The server's CPU use per core while every client waits: from the first sample after the
/// last client came (`arrived_s`) to the last before the first answer was due (`wait_s`).
fn waiting_cpu(samples: &[UsageSample], arrived_s: f64, wait_s: f64, cores: u32) -> Option<f64> {
    let t = |s: &UsageSample| s.t_ms as f64 / 1000.0;
    let inside: Vec<&UsageSample> = samples.iter().filter(|s| t(s) >= arrived_s + 0.05 && t(s) <= wait_s - 0.05).collect();
    let (first, last) = (inside.first()?, inside.last()?);
    let span = t(last) - t(first);
    (span > 0.0).then(|| (last.cpu_seconds - first.cpu_seconds) / span / f64::from(cores.max(1)))
}

/// The verdict of a measured step; every reason it did not pass, the deciding one first.
pub fn judge(spec: &HeldSpec, s: &HeldStepRecord) -> (Verdict, Vec<String>) {
    if let Some(limit) = limits::machine_error(&s.error_messages) {
        return (Verdict::Limit, vec![format!("the machine's limit, not the server's: {limit}")]);
    }
    let mut reasons = Vec::new();
    let late = s.errors.get("timeout").copied().unwrap_or(0);
    if late > 0 {
        reasons.push(format!("{late} of {} clients not answered within the wait plus the bound ({} ms + {} ms)", s.clients, spec.wait_ms, spec.bound_ms));
    }
    // Timeouts are found a few times per timeout: an answer that came between the limit and
    // the next look is a success with a latency past the limit, and fails the step too.
    let limit_us = (spec.wait_ms + spec.bound_ms) * 1000;
    if s.latency_max_us > limit_us {
        reasons.push(format!("clients answered as late as {} ms after their send (over {} ms + {} ms)", s.latency_max_us / 1000, spec.wait_ms, spec.bound_ms));
    }
    let others: Vec<String> = s.errors.iter().filter(|(k, _)| k.as_str() != "timeout").map(|(k, n)| format!("{n} {k}")).collect();
    if !others.is_empty() {
        reasons.push(format!("errors: {}", others.join(", ")));
    }
    if s.unfinished > 0 {
        reasons.push(format!("{} clients still unanswered when the step ended", s.unfinished));
    }
    if reasons.is_empty() && s.successes < s.clients {
        reasons.push(format!("only {} of {} clients answered", s.successes, s.clients));
    }
    if !reasons.is_empty() {
        return (Verdict::Fail, reasons);
    }
    if s.peak_in_flight < s.clients {
        let why = format!(
            "every client was answered, but at most {} of {} waited at once: the generator started them too slowly ({:.0}/s asked, its CPU {:.0}% busy)",
            s.peak_in_flight,
            s.clients,
            s.spawn_rate,
            s.gen_cpu_util * 100.0
        );
        return (Verdict::Generator, vec![why]);
    }
    (Verdict::Pass, Vec::new())
}

/// A failure no fewer clients fix: the server answered most of them with an error status.
pub fn hopeless(s: &HeldStepRecord) -> bool {
    let statuses: u64 = s.errors.iter().filter(|(k, _)| k.starts_with("status")).map(|(_, n)| n).sum();
    s.verdict == "fail" && statuses * 2 >= s.clients.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn spec() -> HeldSpec {
        HeldSpec::example(2000)
    }

    fn step(clients: u64, successes: u64, errors: &[(&str, u64)], peak: u64) -> HeldStepRecord {
        let errors: BTreeMap<String, u64> = errors.iter().map(|(k, n)| (k.to_string(), *n)).collect();
        HeldStepRecord { clients, successes, errors_total: errors.values().sum(), errors, peak_in_flight: peak, ..Default::default() }
    }

    #[test]
    fn a_step_passes_only_when_every_client_waited_at_once_and_was_answered_in_time() {
        assert_eq!(judge(&spec(), &step(1000, 1000, &[], 1000)), (Verdict::Pass, vec![]));
        let (v, why) = judge(&spec(), &step(1000, 256, &[("timeout", 744)], 1000));
        assert_eq!(v, Verdict::Fail);
        assert_eq!(why, ["744 of 1000 clients not answered within the wait plus the bound (2000 ms + 1000 ms)"]);
        let mut late = step(1000, 1000, &[], 1000);
        late.latency_max_us = 3_100_000;
        assert_eq!(judge(&spec(), &late).1, ["clients answered as late as 3100 ms after their send (over 2000 ms + 1000 ms)"], "an answer read past the timeout before it was looked for");
        let (v, why) = judge(&spec(), &step(1000, 1000, &[], 600));
        assert_eq!(v, Verdict::Generator);
        assert!(why[0].contains("at most 600 of 1000 waited at once"), "{why:?}");
        let mut ports = step(30_000, 28_000, &[("connect", 2000)], 30_000);
        ports.error_messages.insert("connect".into(), "Cannot assign requested address (os error 99)".into());
        let (v, why) = judge(&spec(), &ports);
        assert_eq!(v, Verdict::Limit);
        assert!(why[0].contains("local ports ran out"), "{why:?}");
    }

    #[test]
    fn only_error_statuses_make_a_failure_hopeless() {
        let mut timeouts = step(1000, 256, &[("timeout", 744)], 1000);
        timeouts.verdict = "fail".into();
        assert!(!hopeless(&timeouts), "fewer clients fix timeouts");
        let mut missing = step(1000, 0, &[("status 404", 1000)], 1000);
        missing.verdict = "fail".into();
        assert!(hopeless(&missing));
    }

    #[test]
    fn the_waiting_cpu_is_read_between_the_last_arrival_and_the_first_answer() {
        let sample = |t_ms, cpu| UsageSample { t_ms, cpu_seconds: cpu, rss_bytes: 1, processes: 1 };
        // Busy while clients arrive (0-1 s) and are answered (after 2 s), 5% of a core between.
        let samples: Vec<UsageSample> = [(0, 0.0), (500, 0.4), (1100, 0.8), (1500, 0.82), (1900, 0.84), (2300, 1.2)].map(|(t, c)| sample(t, c)).to_vec();
        let cpu = waiting_cpu(&samples, 1.0, 2.0, 1).unwrap();
        assert!((cpu - 0.05).abs() < 1e-9, "{cpu}");
        assert_eq!(waiting_cpu(&samples[..3], 1.0, 2.0, 1), None, "one sample in the window");
        assert_eq!(point_spec(&spec(), 4000).requests, Some(4000));
        assert_eq!(point_spec(&spec(), 4000).timeout_s, 3.0);
    }
}
