//! `concur test`: each implementation's own test suite (its manifest's
//! `[test]` command), run after the same build every other command uses.

use super::build::{BuildOutput, build, run_shell};
use crate::impls::{self, Availability, Implementation};
use anyhow::{Result, bail};
use std::path::Path;
use std::process::ExitCode;

/// Every implementation called `name` (any kind), or exactly `kind/name`.
fn by_name_any_kind(all: &[Implementation], name: &str) -> Result<Vec<Implementation>> {
    let found: Vec<Implementation> = all.iter().filter(|i| i.name() == name || format!("{}/{}", i.kind, i.name()) == name).cloned().collect();
    if found.is_empty() {
        bail!("no implementation named '{name}' (see `concur list`; use kind/name, e.g. micro/elixir, to pick one kind)");
    }
    Ok(found)
}

/// `concur test`: each implementation's own test suite, after its build;
/// `names` as `name` (any kind) or `kind/name`, none meaning all.
pub fn test_command(root: Option<&Path>, names: &[String]) -> Result<ExitCode> {
    let root = impls::find_root(root)?;
    let all = impls::discover(&root)?;
    let chosen: Vec<Implementation> = if names.is_empty() {
        all
    } else {
        names.iter().map(|n| by_name_any_kind(&all, n)).collect::<Result<Vec<_>>>()?.concat()
    };
    let mut failed = Vec::new();
    for imp in &chosen {
        let Some(test) = &imp.manifest.test else {
            println!("{}: no [test] command in its manifest, skipped", imp.name());
            continue;
        };
        if let Availability::Missing(why) = imp.availability() {
            println!("{}: skipped: {why}", imp.name());
            continue;
        }
        println!("== {}/{}: {}", imp.kind, imp.name(), test.command);
        let ok = build(imp, &BuildOutput::Inherit).and_then(|()| run_shell(&imp.dir, &test.command, &super::spec_env(&root)));
        if let Err(e) = ok {
            println!("{}: FAILED: {e:#}", imp.name());
            failed.push(imp.name().to_string());
        }
    }
    if failed.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        println!("implementation tests failed: {}", failed.join(", "));
        Ok(ExitCode::FAILURE)
    }
}
