//! The A/A pairs the database holds for the plan two compared runs share,
//! and the variance between runs they give (`stats::between`), per scenario
//! and metric: what `concur compare` allows for instead of an assumed
//! floor (issue 37).
//!
//! An A/A pair is two finished runs, other than the two compared, of that
//! plan (`plan_key`), from one commit without uncommitted changes, with the
//! same toolchains, on the same machine (CPU model and count, memory,
//! kernel) as run B: nothing differs but the moment. A commit's runs are
//! paired in the order taken, each run in one pair only (1 with 2, 3 with
//! 4), so that no two pairs share a run's moment.

use super::points;
use super::types::{AaGroup, AaRuns};
use crate::stats::{between, interval};
use crate::store::noise::CALIBRATION_PROFILE;
use crate::store::{RunData, RunInfo, RunStatus, Store};
use anyhow::Result;
use std::collections::BTreeMap;

/// Below this many pairs, verdicts from them are provisional.
pub const SETTLED: usize = 3;

/// The metrics a comparison decides on, as the JSON names them.
pub const THROUGHPUT: &str = "throughput";
pub const P99: &str = "p99_ms";

/// The A/A pairs for comparing `a` with `b` and what they give; `None`
/// when the two ran different plans or the database holds no such pair.
pub fn find(store: &Store, a: &RunData, b: &RunData, repeats: Option<u32>) -> Result<Option<AaRuns>> {
    if a.run.plan_key != b.run.plan_key {
        return Ok(None);
    }
    let mut by_code: BTreeMap<String, Vec<i64>> = BTreeMap::new();
    for run in store.runs()? {
        if run.id != a.run.id && run.id != b.run.id && is_aa_candidate(&run, &b.run) {
            let code = format!("{} {:?}", run.environment.git_commit, run.environment.toolchains);
            by_code.entry(code).or_default().push(run.id);
        }
    }
    let mut pairs = Vec::new();
    for ids in by_code.values() {
        for two in ids.chunks_exact(2) {
            pairs.push((store.load_run(two[0])?, store.load_run(two[1])?));
        }
    }
    Ok(estimate(&pairs, repeats))
}

fn is_aa_candidate(run: &RunInfo, like: &RunInfo) -> bool {
    let (e, l) = (&run.environment, &like.environment);
    run.status == RunStatus::Finished
        && run.profile != CALIBRATION_PROFILE
        && run.plan_key == like.plan_key
        && !e.git_dirty
        && !e.git_commit.is_empty()
        && (&e.cpu_model, e.logical_cpus, e.memory_bytes, &e.kernel) == (&l.cpu_model, l.logical_cpus, l.memory_bytes, &l.kernel)
}

/// The variance per scenario and metric from `pairs` (runs in the order taken).
pub fn estimate(pairs: &[(RunData, RunData)], repeats: Option<u32>) -> Option<AaRuns> {
    let (first, _) = pairs.first()?;
    // scenario and metric → one list of log ratios per pair
    let mut ratios: BTreeMap<(String, &str), Vec<Vec<f64>>> = BTreeMap::new();
    for (k, (x, y)) in pairs.iter().enumerate() {
        let scenarios = crate::report::model::distinct(y.points.iter().chain(&x.points).map(|p| p.scenario.as_str()));
        let (in_x, in_y) = (points::by_point(&x.points, &scenarios, repeats), points::by_point(&y.points, &scenarios, repeats));
        for (key, rx) in &in_x {
            let Some(ry) = in_y.get(key) else { continue };
            // As `points::compared` samples them; a p99 some repeat holds only as a lower bound is no ratio.
            let throughput = interval::log_ratio(&points::throughput_sample(&rx.ok), &points::throughput_sample(&ry.ok));
            let p99 = (!points::lower_bound(rx) && !points::lower_bound(ry)).then(|| interval::log_ratio(&points::p99_sample(&rx.ok), &points::p99_sample(&ry.ok))).flatten();
            for (metric, ratio) in [(THROUGHPUT, throughput), (P99, p99)] {
                if let Some(ratio) = ratio {
                    ratios.entry((rx.id.scenario.clone(), metric)).or_insert_with(|| vec![Vec::new(); pairs.len()])[k].push(ratio);
                }
            }
        }
    }
    let groups = ratios
        .into_iter()
        .filter_map(|((scenario, metric), lists)| between::estimate(&lists).map(|between| AaGroup { scenario, metric: metric.to_string(), between }))
        .collect();
    Some(AaRuns { plan_key: first.run.plan_key.clone(), pairs: pairs.iter().map(|(x, y)| [x.run.id, y.run.id]).collect(), provisional: pairs.len() < SETTLED, groups })
}

impl AaRuns {
    /// The variance between runs of `scenario` for `metric`, when the pairs measured it.
    pub fn of(&self, scenario: &str, metric: &str) -> Option<&between::BetweenRuns> {
        self.groups.iter().find(|g| g.scenario == scenario && g.metric == metric).map(|g| &g.between)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::compare::tests::point;

    /// A run of two repeats of each of `rates`' hello points.
    fn run(id: i64, rates: &[(&str, f64)]) -> RunData {
        crate::report::compare::tests::run(id, rates.iter().flat_map(|&(imp, rps)| (1..=2).map(move |r| point(imp, "hello", r, rps, 2.0))).collect())
    }

    #[test]
    fn pairs_give_the_spread_of_their_ratios_per_scenario_and_metric() {
        // Two pairs: the second run of each 10% up at one point and 10% down at the other.
        let pairs = [
            (run(1, &[("x", 1000.0), ("y", 500.0)]), run(2, &[("x", 1100.0), ("y", 450.0)])),
            (run(3, &[("x", 1000.0), ("y", 500.0)]), run(4, &[("x", 900.0), ("y", 550.0)])),
        ];
        let aa = estimate(&pairs, None).unwrap();
        assert_eq!((aa.pairs.clone(), aa.provisional), (vec![[1, 2], [3, 4]], true));
        let t = aa.of("hello", THROUGHPUT).unwrap();
        assert!((t.sigma - 0.1).abs() < 0.01 && t.ratios == 4, "{t:?}");
        let p99 = aa.of("hello", P99).unwrap();
        assert_eq!(p99.sigma, 0.0, "the p99s never moved: {p99:?}");
        assert!(aa.of("db", THROUGHPUT).is_none());
        assert!(estimate(&[], None).is_none());
    }
}
