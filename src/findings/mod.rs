//! The source studies' conclusions, tested again (spec/FINDINGS.md): the
//! claims of `spec/findings.toml` read and checked against the repository's
//! implementations, scenarios and micro-benchmarks (`claims`), the samples
//! a run holds for each side of a claim (`samples`), and the verdict the
//! statistics of the rankings and of `concur compare` allow on them
//! (`verdict`): holds, does not hold, cannot tell, or not measured in this
//! run with the command that would measure it. One place for the verdicts,
//! so that the report only lays them out.

pub mod claims;
mod samples;
pub mod verdict;

pub use claims::{Claim, Compare, Known, Metric, Predicate, Side, Study, Subject, Test};
pub use samples::{MicroResults, Results};
pub use verdict::{Figure, Kind, Verdict, judge};

use anyhow::{Context, Result};
use std::path::Path;

/// Where the claims live, relative to the repository's root.
pub const FILE: &str = "spec/findings.toml";

/// Reads and checks the repository's claims file.
pub fn load(root: &Path) -> Result<Vec<Claim>> {
    let path = root.join(FILE);
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    claims::parse(FILE, &text, &Known::from_root(root)?)
}
