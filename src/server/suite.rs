//! `concur test`: each implementation's own test suite (its manifest's
//! `[test]` command), run after the same build every other command uses.
//! One that serves the database routes gets a database, as its server would
//! (CONCUR_DB_URL and the rest of SPEC §8.2, one cluster for all of them).

use super::build::{BuildOutput, build, run_shell};
use crate::impls::{self, Availability};
use anyhow::Result;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

/// `concur test`: each implementation's own test suite, after its build;
/// `names` as `name` (any kind) or `kind/name`, none meaning all.
pub fn test_command(root: Option<&Path>, names: &[String]) -> Result<ExitCode> {
    let root = impls::find_root(root)?;
    let chosen = impls::select_any_kind(&impls::discover(&root)?, names)?;
    super::install_interrupt_handler();
    let mut database = crate::db::OnDemand::new(crate::db::Options::for_repository(&root));
    let mut failed = Vec::new();
    let (started, mut ran) = (Instant::now(), 0);
    for imp in &chosen {
        let Some(test) = &imp.manifest.test else {
            println!("{}: no [test] command in its manifest, skipped", imp.name());
            continue;
        };
        if let Availability::Missing(why) = imp.availability() {
            println!("{}: skipped: {why}", imp.name());
            continue;
        }
        println!("== {}: {}", imp.qualified_name(), test.command);
        let suite = Instant::now();
        let ok = test_env(&root, &mut database).and_then(|env| {
            build(imp, &BuildOutput::Inherit)?;
            run_shell(&imp.dir, &test.command, &env)
        });
        let took = suite.elapsed().as_secs_f64();
        ran += 1;
        match ok {
            Ok(()) => println!("{}: passed in {took:.1} s", imp.qualified_name()),
            Err(e) => {
                println!("{}: FAILED in {took:.1} s: {e:#}", imp.qualified_name());
                failed.push(imp.name().to_string());
            }
        }
    }
    let took = started.elapsed().as_secs_f64();
    if failed.is_empty() {
        println!("tests of {ran} implementation(s) passed in {took:.1} s");
        Ok(ExitCode::SUCCESS)
    } else {
        println!("implementation tests failed: {} ({} of {ran} in {took:.1} s)", failed.join(", "), failed.len());
        Ok(ExitCode::FAILURE)
    }
}

/// The environment of an implementation's tests: the spec's and the database's.
fn test_env(root: &Path, database: &mut crate::db::OnDemand) -> Result<Vec<(String, String)>> {
    let mut env = super::spec_env(root);
    let cluster = database.get().map_err(anyhow::Error::msg)?;
    env.extend(crate::db::ServerDb::for_cores(cluster.url(), crate::db::DEFAULT_POOL, crate::db::DEFAULT_SLOW_MS, 1).env());
    Ok(env)
}
