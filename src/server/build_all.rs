//! `concur build`: every implementation built up front, several at a time,
//! so that `run` and `micro` find the outputs fresh (`server::build` skips
//! them) instead of building one at a time between measurements. Builds that
//! could step on each other share a lane (`lanes`); lanes run in parallel, up
//! to `--jobs`. Each build writes to `results/logs/build/<kind>-<name>.log`,
//! and one line per implementation says how it ended.

use super::build::{BuildOutput, Built, build};
use super::lanes::lanes;
use crate::host::{interrupt, parallel};
use crate::impls::{self, Availability, Implementation};
use anyhow::{Context, Result};
use std::fmt;
use std::num::NonZeroUsize;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How one implementation's build ended.
enum Outcome {
    Built(Duration),
    UpToDate,
    Failed(String),
}

/// `concur build`: implementations `names` (`name` or `kind/name`; none: all),
/// at most `jobs` builds at a time. Fails when any build failed.
pub fn build_command(root: Option<&Path>, names: &[String], jobs: NonZeroUsize) -> Result<ExitCode> {
    let started = Instant::now();
    let root = impls::find_root(root)?;
    let chosen = impls::select_any_kind(&impls::discover(&root)?, names)?;
    let log_dir = root.join("results/logs/build");
    std::fs::create_dir_all(&log_dir).with_context(|| format!("creating {}", log_dir.display()))?;
    super::install_interrupt_handler();
    let present = available_by_name(&chosen);
    let requires: Vec<&[String]> = present.iter().map(|i| i.manifest.requires.commands.as_slice()).collect();
    let lanes: Vec<Vec<&Implementation>> = lanes(&requires).into_iter().map(|lane| lane.into_iter().map(|i| present[i]).collect()).collect();
    let jobs = jobs.get().min(lanes.len());
    println!("building {} implementation(s) in {} lane(s), {jobs} at a time; logs in {}", present.len(), lanes.len(), log_dir.display());
    let outcomes = run_lanes(&lanes, jobs, &log_dir);
    if interrupt::stopping() {
        // The handler is stopping the builds still running; it exits 130 itself.
        std::thread::sleep(Duration::from_secs(10));
    }
    let count = |is: fn(&Outcome) -> bool| outcomes.iter().filter(|o| is(o)).count();
    let failed = count(|o| matches!(o, Outcome::Failed(_)));
    println!(
        "built {}, up to date {}, failed {failed}, skipped {} in {:.1} s",
        count(|o| matches!(o, Outcome::Built(_))),
        count(|o| matches!(o, Outcome::UpToDate)),
        chosen.len() - present.len(),
        started.elapsed().as_secs_f64()
    );
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// The implementations whose toolchain is present, by name (then kind: a
/// lane builds in that order); one line for each of the others.
fn available_by_name(chosen: &[Implementation]) -> Vec<&Implementation> {
    let mut present = Vec::new();
    for imp in chosen {
        match imp.availability() {
            Availability::Present => present.push(imp),
            Availability::Missing(why) => println!("{}: skipped: {why}", imp.qualified_name()),
        }
    }
    present.sort_by(|a, b| (a.name(), &a.kind).cmp(&(b.name(), &b.kind)));
    present
}

/// Runs `lanes` on `jobs` threads, each taking the next lane (they come
/// longest first) and building its members one after the other; prints a
/// line as each build ends. After a signal no build starts, and the one it
/// cut short is not reported as failed.
fn run_lanes(lanes: &[Vec<&Implementation>], jobs: usize, log_dir: &Path) -> Vec<Outcome> {
    let ended = Mutex::new(Vec::new());
    parallel::each(lanes.len(), jobs, |l| {
        for imp in &lanes[l] {
            if interrupt::stopping() {
                return false;
            }
            let outcome = build_one(imp, log_dir);
            if interrupt::stopping() {
                return false;
            }
            println!("{}: {outcome}", imp.qualified_name());
            ended.lock().unwrap_or_else(|e| e.into_inner()).push(outcome);
        }
        true
    });
    ended.into_inner().unwrap_or_else(|e| e.into_inner())
}

fn build_one(imp: &Implementation, log_dir: &Path) -> Outcome {
    let log = log_dir.join(format!("{}-{}.log", imp.kind, imp.name()));
    let started = Instant::now();
    match build(imp, &BuildOutput::Log(log)) {
        Ok(Built::Ran) => Outcome::Built(started.elapsed()),
        Ok(Built::UpToDate) => Outcome::UpToDate,
        Err(e) => Outcome::Failed(format!("{e:#}")),
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Outcome::Built(took) => write!(f, "built in {:.1} s", took.as_secs_f64()),
            Outcome::UpToDate => f.write_str("up to date"),
            // The error of a failed command ends with "; see <log>".
            Outcome::Failed(why) => write!(f, "build FAILED: {why}"),
        }
    }
}
