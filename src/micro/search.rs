//! The maximum-processes search of spec/MICRO.md §4.4: `maxprocs` steps with
//! growing N, each a fresh process under the memory budget, until one fails;
//! the answer is the largest N that passed and why the next did not. A step
//! that fails quickly (exit 1, the budget, a signal) is then narrowed by
//! bisection, so that a limit between two steps (OS threads stop near 32k,
//! between steps of 10k and 100k) is found, not rounded down to a step.

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
            let failed = Failed { n, stop, reason: taken.record.reason.unwrap_or_default() };
            let Some((largest, failed)) = narrow(imp, spec, largest, failed, budget_bytes, baselines, keep)? else { return Ok(None) };
            let detail = format!("N={}: {}", failed.n, failed.reason);
            return Ok(Some(record(imp, spec, largest, failed.stop, detail, budget_bytes)));
        }
        largest = Some(n);
    }
    let last = spec.steps.last().copied().unwrap_or(0);
    Ok(Some(record(imp, spec, largest, SearchStop::Limit, format!("every step passed; the profile's largest N is {last}"), budget_bytes)))
}

/// Bisection steps after a failing step, at most.
pub const NARROW_STEPS: usize = 5;

/// A step that did not pass, and why.
struct Failed {
    n: u64,
    stop: SearchStop,
    reason: String,
}

/// Between the largest N that passed (or 0) and the smallest that failed,
/// tries midpoints while the gap is over 10% of the failing N, at most
/// [`NARROW_STEPS`] of them. Only fast failures are narrowed: a timeout
/// would cost the whole timeout again at every midpoint.
fn narrow(
    imp: &Implementation,
    spec: &SearchSpec,
    mut largest: Option<u64>,
    mut failed: Failed,
    budget_bytes: u64,
    baselines: &Baselines,
    keep: &mut dyn FnMut(&MicroRecord) -> Result<()>,
) -> Result<Option<(Option<u64>, Failed)>> {
    if failed.stop == SearchStop::Timeout || failed.stop == SearchStop::Invalid {
        return Ok(Some((largest, failed)));
    }
    for _ in 0..NARROW_STEPS {
        let low = largest.unwrap_or(0);
        let Some(mid) = midpoint(low, failed.n) else { break };
        let Some(taken) = measure::measure(imp, &step(spec, mid), budget_bytes, baselines)? else { return Ok(None) };
        keep(&taken.record)?;
        match taken.stop {
            None => largest = Some(mid),
            Some(stop) => failed = Failed { n: mid, stop, reason: taken.record.reason.unwrap_or_default() },
        }
    }
    Ok(Some((largest, failed)))
}

/// The next N to try between a passing `low` and a failing `high`, rounded
/// to two significant digits; `None` once the gap is within 10% of `high`.
fn midpoint(low: u64, high: u64) -> Option<u64> {
    if high.saturating_sub(low) * 10 <= high {
        return None;
    }
    let mid = low + (high - low) / 2;
    let unit = 10u64.pow((mid.max(1).ilog10()).saturating_sub(1));
    let rounded = (mid / unit).max(1) * unit;
    (rounded > low && rounded < high).then_some(rounded)
}

/// The invocation of one step.
pub fn step(spec: &SearchSpec, n: u64) -> Invocation {
    let params = MicroParams { procs: Some(n), ..Default::default() };
    Invocation { bench: Bench::Maxprocs, params, cores: spec.cores, repeat: spec.repeat, timeout_s: spec.timeout_s }
}

fn record(imp: &Implementation, spec: &SearchSpec, largest_n: Option<u64>, stop: SearchStop, detail: String, budget_bytes: u64) -> SearchRecord {
    SearchRecord { implementation: imp.name().to_string(), cores: spec.cores, repeat: spec.repeat, largest_n, stop, detail, budget_bytes }
}

#[cfg(test)]
mod tests {
    use super::midpoint;

    #[test]
    fn midpoints_close_in_on_a_limit_between_steps() {
        // OS threads fail near 32,400 with steps of 10k and 100k.
        let (mut low, mut high, limit) = (10_000, 100_000, 32_400);
        let mut tried = vec![];
        while let Some(mid) = midpoint(low, high) {
            tried.push(mid);
            if mid <= limit { low = mid } else { high = mid }
        }
        assert_eq!(tried, [55_000, 32_000, 43_000, 37_000, 34_000]);
        assert!(high - low <= high / 10 && low <= limit && limit < high, "{low}..{high}");
    }

    #[test]
    fn a_first_step_failing_is_narrowed_from_zero() {
        assert_eq!(midpoint(0, 100_000), Some(50_000));
        assert_eq!(midpoint(0, 1), None);
    }

    #[test]
    fn no_midpoint_once_within_ten_percent() {
        assert_eq!(midpoint(95_000, 100_000), None);
        assert_eq!(midpoint(900_000, 1_000_000), None);
        assert_eq!(midpoint(890_000, 1_000_000), Some(940_000));
    }
}
