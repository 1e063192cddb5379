//! `concur merge`: the results of load processes that ran at the same time
//! against one server, combined as if one process had run them all. The
//! histograms add exactly (they are HDR histograms with the same bounds), the
//! counts sum, the timelines line up on their wall-clock start.

use super::report::{LoadReport, SCHEMA};
use crate::stats::{Latencies, Timeline};
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
    let end_ms = reports.iter().map(|r| r.started_unix_ms as f64 + r.elapsed_s * 1000.0).fold(0.0, f64::max);
    let mut merged = first.clone();
    let mut latencies = first.step_latencies()?;
    let mut timeline = Timeline::default();
    merged.started_unix_ms = start_ms;
    merged.elapsed_s = (end_ms - start_ms as f64) / 1000.0;
    timeline.merge(&first.timeline, offset(first, start_ms));
    for r in &reports[1..] {
        for ((total, step), l) in merged.steps.iter_mut().zip(&r.steps).zip(&mut latencies) {
            l.add(&Latencies::decode(&step.latency.histogram)?)?;
            total.requests += step.requests;
            total.errors += step.errors;
            total.errors_by_kind.merge(&step.errors_by_kind);
        }
        timeline.merge(&r.timeline, offset(r, start_ms));
        merged.sources += r.sources;
        merged.interrupted |= r.interrupted;
        merged.bytes_read += r.bytes_read;
        merged.cpu.user_s += r.cpu.user_s;
        merged.cpu.system_s += r.cpu.system_s;
        let s = &mut merged.settings;
        s.connections += r.settings.connections;
        s.threads += r.settings.threads;
        s.requests = s.requests.zip(r.settings.requests).map(|(a, b)| a + b);
        s.rate = s.rate.zip(r.settings.rate).map(|(a, b)| a + b);
        merged.rate = match (merged.rate.take(), &r.rate) {
            (Some(mut a), Some(b)) => {
                a.target_per_s += b.target_per_s;
                a.sent += b.sent;
                a.owed += b.owed;
                Some(a)
            }
            _ => None,
        };
        for (kind, text) in &r.error_messages {
            merged.error_messages.entry(kind.clone()).or_insert_with(|| text.clone());
        }
        merged.warnings.extend(r.warnings.iter().filter(|w| !first.warnings.contains(w)).cloned());
    }
    for (step, l) in merged.steps.iter_mut().zip(&latencies) {
        step.latency = l.stats();
    }
    merged.timeline = timeline.0;
    merged.derive(&latencies)?;
    Ok(merged)
}

/// Whole seconds between the earliest start and this report's start.
fn offset(r: &LoadReport, start_ms: u64) -> usize {
    ((r.started_unix_ms - start_ms + 500) / 1000) as usize
}
