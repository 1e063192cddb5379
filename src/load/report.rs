//! `LoadReport`: the result of a run, exactly what `--json` writes and what
//! `concur run` consumes (schema `concur-load/1`, documented field by field in
//! `spec/LOAD-JSON.md`). Built from the workers' outcomes after they join, or
//! from several reports by `concur merge`: both `sum` outcomes, fill the
//! counted fields from the sum (`count`) and let `derive` compute the rest, so
//! a merged report is computed like a run.

use super::plan::{LoadPlan, StopAt};
use super::sys::CpuTime;
use super::worker::{Outcome, StepTally};
use crate::stats::{ErrorCounts, Latencies, LatencyStats, Second, Timeline};
use anyhow::Result;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The schema identifier written in every report.
pub const SCHEMA: &str = "concur-load/1";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadReport {
    /// `concur-load/1`; a reader refuses other values.
    pub schema: String,
    /// Version of the concur that wrote the report.
    pub concur_version: String,
    /// The URL given.
    pub target: String,
    /// The scenario's name, or null for a single request.
    pub scenario: Option<String>,
    pub settings: Settings,
    /// Wall-clock start, milliseconds since the Unix epoch (the earliest, when merged).
    pub started_unix_ms: u64,
    /// From the start until the last worker stopped (the span of all, when merged).
    pub elapsed_s: f64,
    /// Stopped early (Ctrl-C or the caller); the figures cover the time run.
    pub interrupted: bool,
    /// Number of load processes whose results this holds (1 unless merged).
    pub sources: u32,
    /// Responses with the expected status.
    pub requests: u64,
    /// Failed requests: every kind, unexpected statuses included.
    pub errors: u64,
    /// Response bytes read, heads included.
    pub bytes_read: u64,
    /// `requests / elapsed_s`: successes only.
    pub requests_per_s: f64,
    pub bytes_per_s: f64,
    /// Latency of the successful responses, all steps together; its percentiles
    /// count the unanswered requests as censored values (`stats::censored`).
    pub latency: LatencyStats,
    /// Requests left unanswered at the end: sent and not answered, and (open
    /// loop) due on the schedule but never sent because the user was busy.
    #[serde(default)]
    pub unfinished: u64,
    /// Their ages at the end: from the latency's origin (the send, or the
    /// intended send in the open loop) to the end of the measurement.
    #[serde(default)]
    pub unfinished_age: LatencyStats,
    /// The most requests in flight at once (connecting, sent, not yet answered): with
    /// several workers (or merged reports) the sum of each one's most, an upper bound.
    #[serde(default)]
    pub peak_in_flight: u64,
    pub errors_by_kind: ErrorCounts,
    /// The first message seen for each error kind, e.g. `connect: Connection refused (os error 111)`.
    pub error_messages: BTreeMap<String, String>,
    /// Open loop only: whether the intended rate was reached.
    pub rate: Option<RateCheck>,
    /// The same figures per scenario step, in step order.
    pub steps: Vec<StepReport>,
    /// Second `i` of the run: completions in it.
    pub timeline: Vec<Second>,
    /// CPU used by the generator's worker threads.
    pub cpu: CpuUse,
    /// Things the reader should know, e.g. fewer connections than asked.
    pub warnings: Vec<String>,
    /// The warm-up on the same connections before the measurement, when the
    /// plan asked for one; every other figure covers the measurement only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warmup: Option<super::warmup::WarmupReport>,
}

/// The settings the run used, after defaults and limits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// Connections (virtual users) actually used.
    pub connections: usize,
    pub threads: usize,
    /// Set for a run by duration.
    pub duration_s: Option<f64>,
    /// Set for a run by count (`-n`).
    pub requests: Option<u64>,
    /// Open-loop target in requests/s; null for a closed loop.
    pub rate: Option<f64>,
    pub think_time_s: f64,
    pub timeout_s: f64,
    pub keepalive: bool,
    /// Closed loop: users started per second (`--spawn-rate`); null: all at once.
    #[serde(default)]
    pub spawn_rate: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepReport {
    pub name: String,
    pub method: String,
    /// The path template, `{user}` and `{password}` unfilled.
    pub path: String,
    /// The expected status; null means any 2xx or 3xx.
    pub expect: Option<u16>,
    pub requests: u64,
    pub errors: u64,
    pub errors_by_kind: ErrorCounts,
    pub latency: LatencyStats,
    #[serde(default)]
    pub unfinished: u64,
    #[serde(default)]
    pub unfinished_age: LatencyStats,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RateCheck {
    pub target_per_s: f64,
    /// Requests started.
    pub sent: u64,
    /// Requests the schedule wanted started before the end but that were not.
    pub owed: u64,
    /// `sent / elapsed_s`.
    pub sent_per_s: f64,
    /// At most 1% of the intended sends were owed at the end.
    pub reached: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CpuUse {
    pub user_s: f64,
    pub system_s: f64,
    /// CPU seconds per 1,000 finished requests (successes and failures).
    pub per_1k_requests_s: f64,
    /// CPU seconds per second of the run: 1.0 is one core fully busy.
    pub cores_used: f64,
}

/// What `run` knows besides the workers' outcomes.
pub(crate) struct RunFacts {
    pub started_unix_ms: u64,
    pub start_ns: u64,
    pub connections: usize,
    pub threads: usize,
    pub warnings: Vec<String>,
}

/// Sums outcomes into one: the workers of a run, or the load processes that
/// `concur merge` combines (each read back as an outcome). Histograms and
/// counts add, timelines add second by second, the end is the latest end, the
/// first message of each error kind and each distinct warning are kept.
/// `start_ns` is the start every `end_ns` is measured on.
pub(crate) fn sum(steps: usize, start_ns: u64, outcomes: impl IntoIterator<Item = Outcome>) -> Result<Outcome> {
    let mut total = Outcome {
        steps: (0..steps).map(|_| StepTally::default()).collect(),
        timeline: Timeline::default(),
        second_latencies: Vec::new(),
        bytes_read: 0,
        sent: 0,
        owed: 0,
        peak_in_flight: 0,
        cpu: CpuTime::default(),
        end_ns: start_ns,
        interrupted: false,
        first_errors: BTreeMap::new(),
        warnings: Vec::new(),
    };
    for outcome in outcomes {
        for (sum, part) in total.steps.iter_mut().zip(&outcome.steps) {
            sum.latencies.add(&part.latencies)?;
            sum.unfinished.add(&part.unfinished)?;
            sum.ok += part.ok;
            sum.errors.merge(&part.errors);
        }
        total.timeline.merge(&outcome.timeline.0, 0);
        if total.second_latencies.len() < outcome.second_latencies.len() {
            total.second_latencies.resize_with(outcome.second_latencies.len(), Latencies::new);
        }
        for (sum, part) in total.second_latencies.iter_mut().zip(&outcome.second_latencies) {
            sum.add(part)?;
        }
        total.bytes_read += outcome.bytes_read;
        total.sent += outcome.sent;
        total.owed += outcome.owed;
        total.peak_in_flight += outcome.peak_in_flight;
        total.cpu.add(outcome.cpu);
        total.end_ns = total.end_ns.max(outcome.end_ns);
        total.interrupted |= outcome.interrupted;
        for (kind, text) in outcome.first_errors {
            total.first_errors.entry(kind).or_insert(text);
        }
        for warning in outcome.warnings {
            if !total.warnings.contains(&warning) {
                total.warnings.push(warning);
            }
        }
    }
    Ok(total)
}

/// Makes the report of one run from its plan, what `run` knows, and the sum of its workers' outcomes.
pub(crate) fn make(plan: &LoadPlan, facts: RunFacts, total: Outcome) -> Result<LoadReport> {
    let mut report = LoadReport {
        schema: SCHEMA.to_string(),
        concur_version: env!("CARGO_PKG_VERSION").to_string(),
        target: plan.target.url.clone(),
        scenario: plan.scenario.clone(),
        settings: Settings {
            connections: facts.connections,
            threads: facts.threads,
            duration_s: match plan.stop {
                StopAt::Duration(d) => Some(d.as_secs_f64()),
                StopAt::Count(_) => None,
            },
            requests: match plan.stop {
                StopAt::Count(n) => Some(n),
                StopAt::Duration(_) => None,
            },
            rate: plan.rate,
            think_time_s: plan.think_time.as_secs_f64(),
            timeout_s: plan.timeout.as_secs_f64(),
            keepalive: plan.keepalive,
            spawn_rate: plan.spawn_rate,
        },
        started_unix_ms: facts.started_unix_ms,
        elapsed_s: 0.0,
        interrupted: false,
        sources: 1,
        requests: 0,
        errors: 0,
        bytes_read: 0,
        requests_per_s: 0.0,
        bytes_per_s: 0.0,
        latency: Latencies::new().stats(),
        unfinished: 0,
        unfinished_age: Latencies::new().stats(),
        peak_in_flight: 0,
        errors_by_kind: ErrorCounts::default(),
        error_messages: BTreeMap::new(),
        rate: plan.rate.map(|target| RateCheck { target_per_s: target, sent: 0, owed: 0, sent_per_s: 0.0, reached: false }),
        steps: plan
            .steps
            .iter()
            .map(|step| StepReport {
                name: step.name.clone(),
                method: step.method.clone(),
                path: step.path.clone(),
                expect: step.expect,
                requests: 0,
                errors: 0,
                errors_by_kind: ErrorCounts::default(),
                latency: Latencies::new().stats(),
                unfinished: 0,
                unfinished_age: Latencies::new().stats(),
            })
            .collect(),
        timeline: Vec::new(),
        cpu: CpuUse { user_s: 0.0, system_s: 0.0, per_1k_requests_s: 0.0, cores_used: 0.0 },
        warnings: facts.warnings,
        warmup: None,
    };
    report.count(total, facts.start_ns)?;
    Ok(report)
}

impl LoadReport {
    /// Fills the counted fields from `total`, whose `end_ns` is measured from
    /// `start_ns`, then derives the rest. The settings, steps' names and
    /// warnings already there are kept.
    pub(crate) fn count(&mut self, total: Outcome, start_ns: u64) -> Result<()> {
        self.elapsed_s = (total.end_ns - start_ns) as f64 / 1e9;
        self.interrupted = total.interrupted;
        self.bytes_read = total.bytes_read;
        self.peak_in_flight = total.peak_in_flight;
        self.timeline = total.timeline.0;
        for (second, latencies) in self.timeline.iter_mut().zip(&total.second_latencies) {
            second.p99_us = (latencies.count() > 0).then(|| latencies.quantile_us(0.99));
        }
        self.cpu.user_s = total.cpu.user_ns as f64 / 1e9;
        self.cpu.system_s = total.cpu.system_ns as f64 / 1e9;
        self.error_messages = total.first_errors.into_iter().map(|(k, v)| (k.name().to_string(), v)).collect();
        for warning in total.warnings {
            if !self.warnings.contains(&warning) {
                self.warnings.push(warning);
            }
        }
        if let Some(rate) = &mut self.rate {
            rate.sent = total.sent;
            rate.owed = total.owed;
        }
        for (step, tally) in self.steps.iter_mut().zip(&total.steps) {
            step.requests = tally.ok;
            step.errors = tally.errors.total();
            step.errors_by_kind = tally.errors.clone();
            step.latency = tally.latencies.stats_with_unfinished(&tally.unfinished);
            step.unfinished = tally.unfinished.count();
            step.unfinished_age = tally.unfinished.stats();
        }
        self.derive(&total.steps)
    }

    /// Computes the totals and rates from the steps, counters and elapsed time.
    fn derive(&mut self, steps: &[StepTally]) -> Result<()> {
        let (mut all, mut unfinished) = (Latencies::new(), Latencies::new());
        for step in steps {
            all.add(&step.latencies)?;
            unfinished.add(&step.unfinished)?;
        }
        self.latency = all.stats_with_unfinished(&unfinished);
        self.unfinished = unfinished.count();
        self.unfinished_age = unfinished.stats();
        self.requests = self.steps.iter().map(|s| s.requests).sum();
        self.errors_by_kind = ErrorCounts::default();
        for step in &self.steps {
            self.errors_by_kind.merge(&step.errors_by_kind);
        }
        self.errors = self.errors_by_kind.total();
        let per_s = |n: f64| if self.elapsed_s > 0.0 { n / self.elapsed_s } else { 0.0 };
        self.requests_per_s = per_s(self.requests as f64);
        self.bytes_per_s = per_s(self.bytes_read as f64);
        let cpu_s = self.cpu.user_s + self.cpu.system_s;
        let finished = self.requests + self.errors;
        self.cpu.per_1k_requests_s = if finished > 0 { cpu_s * 1000.0 / finished as f64 } else { 0.0 };
        self.cpu.cores_used = per_s(cpu_s);
        if let Some(rate) = &mut self.rate {
            rate.sent_per_s = per_s(rate.sent as f64);
            rate.reached = rate.owed * 100 <= rate.sent + rate.owed;
        }
        Ok(())
    }
}
