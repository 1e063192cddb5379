//! `concur test`: each implementation's own test suite (its manifest's
//! `[test]` command), run after the same build every other command uses.
//! Each suite gets a database, as its server would (CONCUR_DB_URL and the
//! rest of SPEC §8.2), a cluster no other suite uses at the same time.
//!
//! Suites run [`AT_ONCE`] at a time in the lanes of `concur build`: two
//! suites of one toolchain share what their builds share (Maven's local
//! repository, cargo's locks, and java-jetty-vthreads tests in java-jetty's
//! folder), so a lane runs its suites one after the other. Of several
//! suites, each writes its tests to `results/logs/test/<kind>-<name>.log`
//! (its build to `….build.log`), printed whole when it ends; one suite
//! alone prints as it goes.

use super::build::{BuildOutput, build, run_shell};
use super::lanes::lanes;
use crate::host::{interrupt, parallel};
use crate::impls::{self, Availability, Implementation};
use anyhow::{Context, Result};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Suites at once: on this 2-core machine most of a suite is a JVM, a
/// compiler or a test waiting on a server's timers, one at a time 26 of
/// them took 495-681 s of `make test`.
pub const AT_ONCE: usize = 2;

/// `concur test`: each implementation's own test suite, after its build;
/// `names` as `name` (any kind) or `kind/name`, none meaning all.
pub fn test_command(root: Option<&Path>, names: &[String]) -> Result<ExitCode> {
    let root = impls::find_root(root)?;
    let chosen = impls::select_any_kind(&impls::discover(&root)?, names)?;
    super::install_interrupt_handler();
    let mut suites = Vec::new();
    for imp in &chosen {
        if imp.manifest.test.is_none() {
            println!("{}: no [test] command in its manifest, skipped", imp.name());
        } else if let Availability::Missing(why) = imp.availability() {
            println!("{}: skipped: {why}", imp.name());
        } else {
            suites.push(imp);
        }
    }
    let log_dir = root.join("results/logs/test");
    std::fs::create_dir_all(&log_dir).with_context(|| format!("creating {}", log_dir.display()))?;
    let requires: Vec<&[String]> = suites.iter().map(|i| i.manifest.requires.commands.as_slice()).collect();
    let lanes = lanes(&requires);
    let at_once = if suites.len() > 1 { AT_ONCE } else { 1 };
    let databases = crate::db::Pool::new(crate::db::Options::for_repository(&root));
    let (started, failed, ran) = (Instant::now(), Mutex::new(Vec::new()), Mutex::new(0));
    parallel::each(lanes.len(), at_once, |l| {
        for &i in &lanes[l] {
            if interrupt::stopping() {
                return false;
            }
            let imp = suites[i];
            let out = if at_once == 1 { BuildOutput::Inherit } else { BuildOutput::Log(log_dir.join(format!("{}-{}.log", imp.kind, imp.name()))) };
            let suite = Instant::now();
            let ok = run_suite(imp, &root, &databases, &out);
            if interrupt::stopping() {
                return false;
            }
            let took = suite.elapsed().as_secs_f64();
            let mut text = match &out {
                BuildOutput::Log(path) => std::fs::read_to_string(path).unwrap_or_default(),
                BuildOutput::Inherit => String::new(),
            };
            match ok {
                Ok(()) => text += &format!("{}: passed in {took:.1} s\n", imp.qualified_name()),
                Err(e) => {
                    text += &format!("{}: FAILED in {took:.1} s: {e:#}\n", imp.qualified_name());
                    failed.lock().unwrap_or_else(|e| e.into_inner()).push(imp.name().to_string());
                }
            }
            print!("{text}");
            *ran.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        }
        true
    });
    if interrupt::stopping() {
        // The handler is stopping the suites still running; it exits 130 itself.
        std::thread::sleep(Duration::from_secs(10));
    }
    let (failed, ran) = (failed.into_inner().unwrap_or_else(|e| e.into_inner()), ran.into_inner().unwrap_or_else(|e| e.into_inner()));
    let took = started.elapsed().as_secs_f64();
    if failed.is_empty() {
        println!("tests of {ran} implementation(s) passed in {took:.1} s");
        Ok(ExitCode::SUCCESS)
    } else {
        println!("implementation tests failed: {} ({} of {ran} in {took:.1} s)", failed.join(", "), failed.len());
        Ok(ExitCode::FAILURE)
    }
}

/// One suite: its build, then its `[test]` command with a database of its own, output to `out`
/// (a log is started afresh, with the command's line first; the build's goes beside it).
fn run_suite(imp: &Implementation, root: &Path, databases: &crate::db::Pool, out: &BuildOutput) -> Result<()> {
    let command = &imp.manifest.test.as_ref().expect("only implementations with a [test] command are run").command;
    let header = format!("== {}: {command}\n", imp.qualified_name());
    match out {
        BuildOutput::Log(path) => std::fs::write(path, &header).with_context(|| format!("writing {}", path.display()))?,
        BuildOutput::Inherit => print!("{header}"),
    }
    let cluster = databases.lease().map_err(anyhow::Error::msg)?;
    let mut env = super::spec_env(root);
    env.extend(crate::db::ServerDb::for_cores(cluster.url(), crate::db::DEFAULT_POOL, crate::db::DEFAULT_SLOW_MS, 1).env());
    // A build's log is its own (the build starts it afresh), beside the suite's.
    let build_out = match out {
        BuildOutput::Log(path) => BuildOutput::Log(path.with_extension("build.log")),
        BuildOutput::Inherit => BuildOutput::Inherit,
    };
    build(imp, &build_out)?;
    run_shell(&imp.dir, command, &env, out)
}
