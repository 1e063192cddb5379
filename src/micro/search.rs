//! The maximum-processes search of spec/MICRO.md §4.4: `maxprocs` steps with
//! growing N, each a fresh process under the memory budget, until one fails;
//! the answer is the largest N that passed and why the next did not.

use super::bench::Bench;
use super::measure::{self, Baselines};
use super::plan::{Invocation, SearchSpec};
use crate::impls::Implementation;
use crate::store::micro::{MicroParams, MicroRecord, SearchRecord, SearchStop};
use anyhow::Result;

/// Runs the steps of `spec`, handing every step's record to `keep` as soon as
/// it is taken; `None` when Ctrl-C stopped it.
pub fn run(
    imp: &Implementation,
    spec: &SearchSpec,
    budget_bytes: u64,
    baselines: &Baselines,
    keep: &mut dyn FnMut(&MicroRecord) -> Result<()>,
) -> Result<Option<SearchRecord>> {
    let mut largest = None;
    for &n in &spec.steps {
        let inv = step(spec, n);
        let Some(taken) = measure::measure(imp, &inv, budget_bytes, baselines)? else { return Ok(None) };
        keep(&taken.record)?;
        if let Some(stop) = taken.stop {
            let reason = taken.record.reason.unwrap_or_default();
            return Ok(Some(record(imp, spec, largest, stop, format!("N={n}: {reason}"), budget_bytes)));
        }
        largest = Some(n);
    }
    let last = spec.steps.last().copied().unwrap_or(0);
    Ok(Some(record(imp, spec, largest, SearchStop::Limit, format!("every step passed; the profile's largest N is {last}"), budget_bytes)))
}

/// The invocation of one step.
pub fn step(spec: &SearchSpec, n: u64) -> Invocation {
    let params = MicroParams { procs: Some(n), ..Default::default() };
    Invocation { bench: Bench::Maxprocs, params, cores: spec.cores, repeat: spec.repeat, timeout_s: spec.timeout_s }
}

fn record(imp: &Implementation, spec: &SearchSpec, largest_n: Option<u64>, stop: SearchStop, detail: String, budget_bytes: u64) -> SearchRecord {
    SearchRecord { implementation: imp.name().to_string(), cores: spec.cores, repeat: spec.repeat, largest_n, stop, detail, budget_bytes }
}
