//! `concur merge`: the results of load processes that ran at the same time
//! against one server, combined as if one process had run them all. Each
//! report is read back as one worker's outcome and summed by `report::sum`,
//! the function that sums a run's workers: the histograms add exactly (they
//! are HDR histograms with the same bounds), the counts sum, the timelines
//! line up on their wall-clock start. Only the settings are added up here.

use super::report::{self, LoadReport, SCHEMA};
use super::sys::CpuTime;
use super::worker::{Outcome, StepTally};
use crate::stats::{ErrorKind, Timeline};
use anyhow::{Result, bail};

pub fn merge(reports: &[LoadReport]) -> Result<LoadReport> {
    let Some(first) = reports.first() else { bail!("nothing to merge: give at least one result file") };
    for r in reports {
        if r.schema != SCHEMA {
            bail!("cannot merge schema '{}' with '{SCHEMA}'", r.schema);
        }
        let names = |r: &LoadReport| r.steps.iter().map(|s| s.name.clone()).collect::<Vec<_>>();
        if names(r) != names(first) {
            bail!("cannot merge runs of different steps: {:?} and {:?}", names(first), names(r));
        }
    }
    let start_ms = reports.iter().map(|r| r.started_unix_ms).min().unwrap_or(0);
    let outcomes = reports.iter().map(|r| outcome(r, start_ms)).collect::<Result<Vec<_>>>()?;
    let total = report::sum(first.steps.len(), 0, outcomes)?;
    let mut merged = first.clone();
    merged.started_unix_ms = start_ms;
    merged.warnings.clear();
    for r in &reports[1..] {
        merged.sources += r.sources;
        let s = &mut merged.settings;
        s.connections += r.settings.connections;
        s.threads += r.settings.threads;
        s.requests = s.requests.zip(r.settings.requests).map(|(a, b)| a + b);
        s.rate = s.rate.zip(r.settings.rate).map(|(a, b)| a + b);
        s.spawn_rate = s.spawn_rate.zip(r.settings.spawn_rate).map(|(a, b)| a + b);
        merged.rate = match (merged.rate.take(), &r.rate) {
            (Some(mut a), Some(b)) => {
                a.target_per_s += b.target_per_s;
                Some(a)
            }
            _ => None,
        };
    }
    merged.count(total, 0)?;
    Ok(merged)
}

/// A report read back as the outcome of one worker whose clock starts at
/// `start_ms`, the earliest start of the reports merged.
fn outcome(r: &LoadReport, start_ms: u64) -> Result<Outcome> {
    let offset_ms = r.started_unix_ms - start_ms;
    let mut timeline = Timeline::default();
    timeline.merge(&r.timeline, ((offset_ms + 500) / 1000) as usize);
    let steps = r
        .steps
        .iter()
        .map(|s| {
            Ok(StepTally {
                latencies: s.latency.latencies()?,
                ok: s.requests,
                errors: s.errors_by_kind.clone(),
                unfinished: s.unfinished_age.latencies()?,
            })
        })
        .collect::<Result<_>>()?;
    let first_errors = r
        .error_messages
        .iter()
        .map(|(name, text)| match ErrorKind::ALL.into_iter().find(|k| k.name() == name) {
            Some(kind) => Ok((kind, text.clone())),
            None => bail!("cannot merge: unknown error kind '{name}' in error_messages"),
        })
        .collect::<Result<_>>()?;
    let ns = |s: f64| (s * 1e9).round() as u64;
    Ok(Outcome {
        steps,
        timeline,
        // A report keeps each second's p99, not its histogram: merged seconds have none.
        second_latencies: Vec::new(),
        bytes_read: r.bytes_read,
        sent: r.rate.as_ref().map_or(0, |rate| rate.sent),
        owed: r.rate.as_ref().map_or(0, |rate| rate.owed),
        peak_in_flight: r.peak_in_flight,
        cpu: CpuTime { user_ns: ns(r.cpu.user_s), system_ns: ns(r.cpu.system_s) },
        end_ns: offset_ms * 1_000_000 + ns(r.elapsed_s),
        interrupted: r.interrupted,
        first_errors,
        warnings: r.warnings.clone(),
    })
}
