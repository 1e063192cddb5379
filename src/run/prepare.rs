//! Before any point: each implementation is built (once; the build is cached
//! by `server::build`) and verified once, at the largest core count the plan
//! measures it with. One that fails is not measured; the reason goes to the
//! database, so the report shows it as failed rather than leaving it out. One
//! whose only failures are declared in its manifest's `[known_failures]` is
//! measured, and those failures go to the database with it, so the report
//! shows them beside its numbers.
//!
//! The builds run one at a time (two builds of one toolchain may share a
//! cache or a folder: `server::lanes`), the verifications
//! [`verify::AT_ONCE`] at a time: most of a verification is waiting on the server's timers (the
//! delayed page, the long polls: 7 of its 10-13 s), every check bounds a
//! time from below or generously from above. An implementation the plan
//! measures on the database is verified with one too (SPEC §8's checks, about
//! 2 s), a cluster of its own from a pool: two verifications at once never
//! share a cluster's statistics (`pg_stat_statements`). Each prints its lines
//! when it ends, whole.

use super::spec::Plan;
use crate::db;
use crate::host::{interrupt, parallel};
use crate::impls::{Availability, Implementation};
use crate::server::{self, BuildOutput, Built};
use crate::store::{ImplRecord, ImplStatus, KnownFailure};
use crate::verify::{self, Status};
use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

/// Readies `imps`, in their order: the record of each, until a stop was
/// asked for (`None` from there on: a check cut short by the signal says
/// nothing about the implementation).
pub fn prepare_all(root: &Path, imps: &[&Implementation], plan: &Plan, log_dir: &Path) -> Vec<Option<ImplRecord>> {
    let mut records: Vec<Option<ImplRecord>> = imps.iter().map(|_| None).collect();
    let mut to_verify = Vec::new();
    for (i, imp) in imps.iter().enumerate() {
        let built = build(imp, plan, log_dir);
        if interrupt::stopping() {
            return records;
        }
        match built {
            None => to_verify.push(i),
            ended => records[i] = ended,
        }
    }
    let done = Mutex::new(Vec::new());
    let databases = db::Pool::new(db::Options::for_repository(root));
    parallel::each(to_verify.len(), verify::AT_ONCE, |k| {
        let i = to_verify[k];
        if interrupt::stopping() {
            return false;
        }
        let (record, lines) = verify_one(root, imps[i], plan, &databases);
        if interrupt::stopping() {
            return false;
        }
        print!("{lines}");
        done.lock().unwrap_or_else(|e| e.into_inner()).push((i, record));
        true
    });
    for (i, record) in done.into_inner().unwrap_or_else(|e| e.into_inner()) {
        records[i] = Some(record);
    }
    records
}

fn record(imp: &Implementation, status: ImplStatus, reason: Option<String>, version: String) -> ImplRecord {
    ImplRecord { name: imp.name().to_string(), status, reason, version, manifest: imp.manifest.clone(), known_failures: vec![] }
}

/// Builds one implementation; `Some` is its record when that ends it: a
/// missing toolchain, a failed build, or a plan that measures unverified
/// (`--no-verify`), whose record says so. `None`: built, to be verified.
fn build(imp: &Implementation, plan: &Plan, log_dir: &Path) -> Option<ImplRecord> {
    if let Availability::Missing(why) = imp.availability() {
        println!("{}: not measured: {why}", imp.name());
        return Some(record(imp, ImplStatus::Unavailable, Some(why), String::new()));
    }
    let log = log_dir.join(format!("build-{}.log", imp.name()));
    let started = Instant::now();
    match server::build(imp, &BuildOutput::Log(log)) {
        Ok(Built::Ran) => println!("{}: built in {:.1} s", imp.name(), started.elapsed().as_secs_f64()),
        Ok(Built::UpToDate) => {}
        Err(e) => {
            println!("{}: build FAILED: {e:#}", imp.name());
            return Some(record(imp, ImplStatus::Failed, Some(format!("{e:#}")), imp.version()));
        }
    }
    (!plan.verify).then(|| record(imp, ImplStatus::Unverified, Some("measured without `concur verify` (--no-verify)".into()), imp.version()))
}

/// Verifies one built implementation: its record, and the lines to print
/// (any failing check, then how it ended).
fn verify_one(root: &Path, imp: &Implementation, plan: &Plan, databases: &db::Pool) -> (ImplRecord, String) {
    let version = imp.version();
    let points = || plan.points.iter().filter(|p| p.implementation == imp.name());
    let cores = points().map(|p| p.cores).max().unwrap_or(1);
    let on_database = points().any(|p| !p.database_cpus.is_empty());
    let with = if on_database { " with its database" } else { "" };
    println!("{}: verifying at CONCUR_CORES={cores}{with} …", imp.name());
    let started = Instant::now();
    // A database that cannot start fails the verification: its points could not be measured either.
    let lease = on_database.then(|| databases.lease());
    if let Some(Err(e)) = &lease {
        let reason = format!("its database did not start for `concur verify`: {e}");
        return (record(imp, ImplStatus::Failed, Some(reason.clone()), version), format!("{}: not measured: {reason}\n", imp.name()));
    }
    let cluster = lease.as_ref().and_then(|l| l.as_ref().ok()).map(|l| &**l);
    // The fault routes are not checked: no scenario of a run asks for them yet.
    let report = verify::verify_impl(imp, root, cores, cluster, verify::FaultPass::Absent, None, |_| {});
    let mut lines: String = report.outcomes.iter().filter(|o| matches!(o.status, Status::Fail | Status::Known)).map(verify::outcome_text).collect();
    let secs = started.elapsed().as_secs();
    if report.passed() {
        let warns = report.count(Status::Warn);
        let warned = if warns > 0 { format!(" ({warns} warning(s); `concur verify {}` shows them)", imp.name()) } else { String::new() };
        let known = report.count(Status::Known);
        let known_note = if known > 0 { format!(", {known} failed as its concur.toml declares ([known_failures])") } else { String::new() };
        lines += &format!("{}: verified at CONCUR_CORES={cores}: {} checks passed{warned}{known_note} in {secs} s\n", imp.name(), report.count(Status::Pass) + warns);
        let mut verified = record(imp, ImplStatus::Verified, None, version);
        verified.known_failures = known_failures(&report);
        return (verified, lines);
    }
    let reason = report.error.clone().unwrap_or_else(|| {
        let failed: Vec<String> = report.outcomes.iter().filter(|o| o.status == Status::Fail).map(|o| format!("{}: {}", o.id, o.detail)).collect();
        format!("`concur verify` failed {} check(s) at CONCUR_CORES={cores}: {}", failed.len(), failed.join("; "))
    });
    lines += &format!("{}: not measured: {}\n", imp.name(), reason.lines().next().unwrap_or(""));
    (record(imp, ImplStatus::Failed, Some(reason), version), lines)
}

/// The declared failures of a passed verification, as the database keeps them.
fn known_failures(report: &verify::Report) -> Vec<KnownFailure> {
    report
        .known()
        .map(|o| KnownFailure { check: o.id.to_string(), cores: report.cores, detail: o.detail.clone(), reason: o.declared.clone().unwrap_or_default() })
        .collect()
}
