//! Before any point: each implementation is built (once; the build is cached
//! by `server::build`) and verified once, at the largest core count the plan
//! measures it with. One that fails is not measured; the reason goes to the
//! database, so the report shows it as failed rather than leaving it out. One
//! whose only failures are declared in its manifest's `[known_failures]` is
//! measured, and those failures go to the database with it, so the report
//! shows them beside its numbers.

use super::spec::Plan;
use crate::impls::{Availability, Implementation};
use crate::server::{self, BuildOutput};
use crate::store::{ImplRecord, ImplStatus, KnownFailure};
use crate::verify::{self, Status};
use std::path::Path;
use std::time::Instant;

/// Readies one implementation; prints one line of progress and any failing check.
pub fn prepare(root: &Path, imp: &Implementation, plan: &Plan, log_dir: &Path) -> ImplRecord {
    let record = |status, reason: Option<String>, version: String| ImplRecord {
        name: imp.name().to_string(),
        status,
        reason,
        version,
        manifest: imp.manifest.clone(),
        known_failures: vec![],
    };
    if let Availability::Missing(why) = imp.availability() {
        println!("{}: not measured: {why}", imp.name());
        return record(ImplStatus::Unavailable, Some(why), String::new());
    }
    let version = imp.version();
    if !plan.verify {
        let log = log_dir.join(format!("build-{}.log", imp.name()));
        return match server::build(imp, &BuildOutput::Log(log)) {
            Ok(_) => record(ImplStatus::Unverified, Some("measured without `concur verify` (--no-verify)".into()), version),
            Err(e) => {
                println!("{}: build FAILED: {e:#}", imp.name());
                record(ImplStatus::Failed, Some(format!("{e:#}")), version)
            }
        };
    }
    let cores = plan.points.iter().filter(|p| p.implementation == imp.name()).map(|p| p.cores).max().unwrap_or(1);
    println!("{}: building and verifying at CONCUR_CORES={cores} …", imp.name());
    let started = Instant::now();
    // Failures are printed after the whole verification, so that one cut short by Ctrl-C is never shown.
    // The fault routes are not checked: no scenario of a run asks for them yet.
    let report = verify::verify_impl(imp, root, cores, None, verify::FaultPass::Absent, None, |_| {});
    if crate::host::interrupt::stopping() {
        return record(ImplStatus::Failed, Some("interrupted during verification".into()), version);
    }
    for o in report.outcomes.iter().filter(|o| matches!(o.status, Status::Fail | Status::Known)) {
        verify::print_outcome(o);
    }
    let secs = started.elapsed().as_secs();
    if report.passed() {
        let warns = report.count(Status::Warn);
        let warned = if warns > 0 { format!(" ({warns} warning(s); `concur verify {}` shows them)", imp.name()) } else { String::new() };
        let known = report.count(Status::Known);
        let known_note = if known > 0 { format!(", {known} failed as its concur.toml declares ([known_failures])") } else { String::new() };
        println!("{}: verified at CONCUR_CORES={cores}: {} checks passed{warned}{known_note} in {secs} s", imp.name(), report.count(Status::Pass) + warns);
        let mut verified = record(ImplStatus::Verified, None, version);
        verified.known_failures = known_failures(&report);
        return verified;
    }
    let reason = report.error.clone().unwrap_or_else(|| {
        let failed: Vec<String> = report.outcomes.iter().filter(|o| o.status == Status::Fail).map(|o| format!("{}: {}", o.id, o.detail)).collect();
        format!("`concur verify` failed {} check(s) at CONCUR_CORES={cores}: {}", failed.len(), failed.join("; "))
    });
    println!("{}: not measured: {}", imp.name(), reason.lines().next().unwrap_or(""));
    record(ImplStatus::Failed, Some(reason), version)
}

/// The declared failures of a passed verification, as the database keeps them.
fn known_failures(report: &verify::Report) -> Vec<KnownFailure> {
    report
        .known()
        .map(|o| KnownFailure { check: o.id.to_string(), cores: report.cores, detail: o.detail.clone(), reason: o.declared.clone().unwrap_or_default() })
        .collect()
}
