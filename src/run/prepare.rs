//! Before any point: each implementation is built (once; the build is cached
//! by `server::build`) and verified once, at the largest core count the plan
//! measures it with. One that fails is not measured; the reason goes to the
//! database, so the report shows it as failed rather than leaving it out.

use super::plan::Plan;
use crate::impls::{Availability, Implementation};
use crate::server::{self, BuildOutput};
use crate::store::{ImplRecord, ImplStatus};
use crate::verify::{self, Status};
use std::path::Path;
use std::time::Instant;

/// Readies one implementation; prints one line of progress and any failing check.
pub fn prepare(root: &Path, imp: &Implementation, plan: &Plan, log_dir: &Path) -> ImplRecord {
    let record = |status, reason: Option<String>, version: String| ImplRecord { name: imp.name().to_string(), status, reason, version, manifest: imp.manifest.clone() };
    if let Availability::Missing(why) = imp.availability() {
        println!("{}: not measured: {why}", imp.name());
        return record(ImplStatus::Unavailable, Some(why), String::new());
    }
    let version = imp.version();
    if !plan.verify {
        let log = log_dir.join(format!("build-{}.log", imp.name()));
        return match server::build(imp, &BuildOutput::Log(log)) {
            Ok(()) => record(ImplStatus::Unverified, Some("measured without `concur verify` (--no-verify)".into()), version),
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
    let report = verify::verify_impl(imp, root, cores, None, |_| {});
    if crate::host::interrupt::stopping() {
        return record(ImplStatus::Failed, Some("interrupted during verification".into()), version);
    }
    for o in report.outcomes.iter().filter(|o| o.status == Status::Fail) {
        println!("  FAIL  {:<20} {}", o.id, o.detail);
    }
    let secs = started.elapsed().as_secs();
    let count = |s: Status| report.outcomes.iter().filter(|o| o.status == s).count();
    if report.passed() {
        let warns = count(Status::Warn);
        let warned = if warns > 0 { format!(" ({warns} warning(s); `concur verify {}` shows them)", imp.name()) } else { String::new() };
        println!("{}: verified at CONCUR_CORES={cores}: {} checks passed{warned} in {secs} s", imp.name(), count(Status::Pass) + warns);
        return record(ImplStatus::Verified, None, version);
    }
    let reason = report.error.clone().unwrap_or_else(|| {
        let failed: Vec<String> = report.outcomes.iter().filter(|o| o.status == Status::Fail).map(|o| format!("{}: {}", o.id, o.detail)).collect();
        format!("`concur verify` failed {} check(s) at CONCUR_CORES={cores}: {}", failed.len(), failed.join("; "))
    });
    println!("{}: not measured: {}", imp.name(), reason.lines().next().unwrap_or(""));
    record(ImplStatus::Failed, Some(reason), version)
}
