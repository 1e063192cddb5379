//! `concur test`: each implementation's own test suite (its manifest's
//! `[test]` command), run after the same build every other command uses.

use super::build::{BuildOutput, build, run_shell};
use crate::impls::{self, Availability};
use anyhow::Result;
use std::path::Path;
use std::process::ExitCode;

/// `concur test`: each implementation's own test suite, after its build;
/// `names` as `name` (any kind) or `kind/name`, none meaning all.
pub fn test_command(root: Option<&Path>, names: &[String]) -> Result<ExitCode> {
    let root = impls::find_root(root)?;
    let chosen = impls::select_any_kind(&impls::discover(&root)?, names)?;
    super::install_interrupt_handler();
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
        println!("== {}: {}", imp.qualified_name(), test.command);
        let ok = build(imp, &BuildOutput::Inherit).and_then(|_| run_shell(&imp.dir, &test.command, &super::spec_env(&root)));
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
