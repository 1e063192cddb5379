//! Which points two runs share, and the change of each: a point's identity
//! across runs (its repeats are samples, not part of it), and the ratio of
//! its throughput and p99 with their intervals and verdicts
//! (`stats::interval`, `stats::verdict`).

use super::between;
use super::types::{AaRuns, Change, Compared, Failed, PointId};
use crate::stats::between::BetweenRuns;
use crate::report::spread::median_of;
use crate::stats::interval::{self, Sample};
use crate::stats::noise::{Floor, NoiseFloor};
use crate::stats::verdict;
use crate::store::{Generator, PointRecord, RunData};
use std::collections::BTreeMap;

/// A point's load across runs: an open loop's connection cap may differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Load {
    Connections(u32),
    Rate(u32),
}

/// Scenario rank (its place in the runs' order), implementation, cores, load, keep-alive, generator.
pub type Key = (usize, String, u32, Load, bool, Generator);

/// The repeats of one point in one run.
pub struct Repeats<'a> {
    pub id: PointId,
    pub ok: Vec<&'a PointRecord>,
}

/// The points of a run with at least one repeat measured, by key; with
/// `first`, only its first that many repeats (by repeat number).
pub fn by_point<'a>(points: &'a [PointRecord], scenarios: &[&str], first: Option<u32>) -> BTreeMap<Key, Repeats<'a>> {
    let mut out: BTreeMap<Key, Repeats> = BTreeMap::new();
    for p in points.iter().filter(|p| p.error.is_none()) {
        let load = p.rate.map_or(Load::Connections(p.connections), Load::Rate);
        let rank = scenarios.iter().position(|s| *s == p.scenario).unwrap_or(usize::MAX);
        out.entry((rank, p.implementation.clone(), p.cores, load, p.keepalive, p.generator.kind)).or_insert_with(|| Repeats { id: point_id(p), ok: Vec::new() }).ok.push(p);
    }
    if let Some(n) = first {
        for r in out.values_mut() {
            r.ok.sort_by_key(|p| p.repeat);
            r.ok.truncate(n as usize);
        }
    }
    out
}

pub fn point_id(p: &PointRecord) -> PointId {
    PointId {
        implementation: p.implementation.clone(),
        scenario: p.scenario.clone(),
        cores: p.cores,
        level: p.level.clone(),
        connections: p.rate.is_none().then_some(p.connections),
        rate: p.rate,
        keepalive: p.keepalive,
        generator: p.generator.kind,
    }
}

pub fn failed<'a>(run: &'a str, data: &'a RunData) -> impl Iterator<Item = Failed> + 'a {
    data.points.iter().filter_map(move |p| {
        let error = p.error.as_deref()?.lines().next().unwrap_or("").to_string();
        Some(Failed { run: run.to_string(), point: point_id(p), repeat: p.repeat, error })
    })
}

/// A point of both runs, compared on the variance between runs of their plan where `aa`
/// measured its scenario, else on `floor`.
pub fn compared(a: &RunData, b: &RunData, x: &Repeats, y: &Repeats, floor: &NoiseFloor, aa: Option<&AaRuns>) -> Compared {
    let known = |data: &RunData| data.implementations.iter().any(|i| i.name == y.id.implementation && !i.known_failures.is_empty());
    Compared {
        point: y.id.clone(),
        known_deviations_a: known(a),
        known_deviations_b: known(b),
        throughput: change(&throughput_sample(&x.ok), &throughput_sample(&y.ok), spread(aa, &y.id.scenario, between::THROUGHPUT, floor.of_throughput()), true),
        p99_ms: censored(change(&p99_sample(&x.ok), &p99_sample(&y.ok), spread(aa, &y.id.scenario, between::P99, floor.of_p99()), false), lower_bound(x), lower_bound(y)),
    }
}

/// What a change's interval allows for: the variance between runs of the plan, measured on its
/// A/A pairs, or else the machine's noise floor.
#[derive(Debug, Clone, Copy)]
pub enum Spread {
    BetweenRuns { between: BetweenRuns, provisional: bool },
    Floor(Floor),
}

fn spread(aa: Option<&AaRuns>, scenario: &str, metric: &str, floor: Floor) -> Spread {
    match aa.and_then(|aa| aa.of(scenario, metric).map(|b| (*b, aa.provisional))) {
        Some((between, provisional)) => Spread::BetweenRuns { between, provisional },
        None => Spread::Floor(floor),
    }
}

/// Some repeat's p99 is only a lower bound (requests were left unanswered).
pub fn lower_bound(r: &Repeats) -> bool {
    r.ok.iter().any(|p| p.latency.is_lower_bound("p99"))
}

/// A p99 change where a side's p99 is only known as "at least": B at least
/// its value can still be called slower than an exact A below it, and an
/// exact B faster than an A at least its value; anything else cannot be told.
fn censored(mut change: Change, a_bound: bool, b_bound: bool) -> Change {
    let keeps = match (a_bound, b_bound) {
        (false, false) => true,
        (false, true) => change.verdict == verdict::Verdict::Slower,
        (true, false) => change.verdict == verdict::Verdict::Faster,
        (true, true) => false,
    };
    if !keeps {
        change.verdict = verdict::Verdict::CannotTell;
    }
    change
}

fn sample(repeats: &[&PointRecord], f: impl Fn(&PointRecord) -> f64) -> Sample {
    Sample::new(repeats.iter().map(|p| f(p)).collect(), Vec::new())
}

/// Each repeat's p99, in milliseconds.
pub fn p99_sample(repeats: &[&PointRecord]) -> Sample {
    sample(repeats, |p| p.latency.p99_us as f64 / 1000.0)
}

/// Throughput's repeats; with one repeat, its full seconds too.
pub fn throughput_sample(repeats: &[&PointRecord]) -> Sample {
    let mut s = sample(repeats, PointRecord::throughput);
    if let [one] = repeats {
        s.seconds = one.full_seconds();
    }
    s
}

/// The change from `a` to `b`; `higher_is_better` for throughput, not for latency. A run
/// with a single repeat of the point gives no verdict (cannot tell): its one measurement holds
/// none of the variance between runs that a change must stand out from (issue 37); the ratio
/// and its interval are still shown.
pub fn change(a: &Sample, b: &Sample, spread: Spread, higher_is_better: bool) -> Change {
    let (ratio, provisional) = match spread {
        Spread::BetweenRuns { between, provisional } => (interval::ratio_between_runs(a, b, &between), provisional),
        Spread::Floor(floor) => (interval::ratio(a, b, floor), false),
    };
    let verdict = if a.values.len() < 2 || b.values.len() < 2 { verdict::Verdict::CannotTell } else { verdict::verdict(ratio.as_ref(), higher_is_better) };
    Change {
        a_median: median_of(&a.values),
        b_median: median_of(&b.values),
        a_values: a.values.clone(),
        b_values: b.values.clone(),
        ratio: ratio.map(|r| r.ratio),
        ratio_low: ratio.map(|r| r.lo),
        ratio_high: ratio.map(|r| r.hi),
        basis: ratio.map(|r| r.basis),
        verdict,
        provisional: provisional && ratio.is_some(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::verdict::Verdict;
    use crate::store::SecondRecord;

    fn floor(sigma: f64) -> Spread {
        Spread::Floor(Floor { sigma, drift: sigma, quantile: crate::stats::quantile::Z975 })
    }

    fn s(values: &[f64]) -> Sample {
        Sample::new(values.to_vec(), vec![])
    }

    #[test]
    fn a_thirty_percent_regression_with_tight_repeats_is_slower() {
        let c = change(&s(&[10_000.0, 10_100.0, 9_950.0]), &s(&[7_000.0, 7_050.0, 6_980.0]), floor(0.03), true);
        assert_eq!(c.verdict, Verdict::Slower, "{c:?}");
        assert!((c.ratio.unwrap() - 0.70).abs() < 0.01 && c.ratio_high.unwrap() < 0.80, "{c:?}");
        assert_eq!(change(&s(&[7_000.0, 7_050.0, 6_980.0]), &s(&[10_000.0, 10_100.0, 9_950.0]), floor(0.03), true).verdict, Verdict::Faster);
    }

    #[test]
    fn identical_reruns_that_drifted_ten_percent_are_not_called_faster() {
        // The A/A case: both runs tight inside, the second 10% faster as a whole.
        let c = change(&s(&[70_000.0, 70_500.0]), &s(&[77_000.0, 77_400.0]), floor(0.08), true);
        assert_eq!(c.verdict, Verdict::CannotTell, "{c:?}");
    }

    #[test]
    fn the_variance_between_runs_of_the_plan_decides_and_says_when_it_is_provisional() {
        // A/A pairs of this plan moved points by 2% (σ of a log ratio), at 40 degrees of freedom.
        let between = |provisional| Spread::BetweenRuns { between: BetweenRuns { sigma: 0.02, df: 40.0, pairs: if provisional { 2 } else { 4 }, ratios: 60 }, provisional };
        let (base, same) = (s(&[10_000.0, 10_100.0, 9_950.0]), s(&[10_050.0, 9_990.0, 10_020.0]));
        let c = change(&base, &same, between(false), true);
        assert_eq!((c.verdict, c.basis, c.provisional), (Verdict::Same, Some(interval::Basis::BetweenRuns), false), "{c:?}");
        assert!(c.ratio_low.unwrap() > 0.95 && c.ratio_high.unwrap() < 1.05, "±4% at 2% σ: {c:?}");
        let slower = change(&base, &s(&[9_000.0, 9_050.0, 8_990.0]), between(true), true);
        assert_eq!((slower.verdict, slower.provisional), (Verdict::Slower, true), "10% slower stands out of 2%, from two pairs only: {slower:?}");
        // The floor in its place (σ 8%) tells neither.
        assert_eq!(change(&base, &same, floor(0.08), true).verdict, Verdict::CannotTell);
    }

    #[test]
    fn one_repeat_on_either_side_gives_no_verdict_but_its_interval() {
        // Half the rate with a quiet floor: decided from three repeats each, not from one.
        let one = Sample::new(vec![5_000.0], vec![5_000.0, 5_010.0, 4_990.0]);
        let c = change(&s(&[10_000.0, 10_050.0, 9_990.0]), &one, floor(0.01), true);
        assert_eq!(c.verdict, Verdict::CannotTell, "{c:?}");
        assert!(c.ratio_high.is_some_and(|hi| hi < 0.6), "the interval is still shown: {c:?}");
        assert_eq!(change(&one, &one, floor(0.01), true).verdict, Verdict::CannotTell);
        assert_eq!(change(&s(&[10_000.0, 10_050.0, 9_990.0]), &s(&[5_000.0, 5_010.0, 4_990.0]), floor(0.01), true).verdict, Verdict::Slower);
    }

    #[test]
    fn scattered_repeats_cannot_tell() {
        let c = change(&s(&[10_000.0, 14_000.0]), &s(&[9_000.0, 13_500.0]), floor(0.03), true);
        assert_eq!(c.verdict, Verdict::CannotTell, "{c:?}");
        assert_eq!(change(&s(&[0.0, 0.0]), &s(&[5.0, 6.0]), floor(0.03), true).verdict, Verdict::CannotTell);
    }

    #[test]
    fn a_higher_p99_is_slower_and_a_lower_one_faster() {
        assert_eq!(change(&s(&[2.0, 2.05, 1.98]), &s(&[4.0, 4.1, 3.9]), floor(0.1), false).verdict, Verdict::Slower);
        assert_eq!(change(&s(&[4.0, 4.1, 3.9]), &s(&[2.0, 2.05, 1.98]), floor(0.1), false).verdict, Verdict::Faster);
    }

    /// A p99 known only as "at least x" (clients left waiting) is a direction, not a value.
    #[test]
    fn a_p99_that_is_only_a_lower_bound_is_called_only_in_its_direction() {
        let slower = change(&s(&[2.0, 2.05, 1.98]), &s(&[4.0, 4.1, 3.9]), floor(0.1), false);
        let faster = change(&s(&[4.0, 4.1, 3.9]), &s(&[2.0, 2.05, 1.98]), floor(0.1), false);
        assert_eq!(censored(slower.clone(), false, true).verdict, Verdict::Slower, "B at least 4 ms, A 2 ms: slower");
        assert_eq!(censored(faster.clone(), false, true).verdict, Verdict::CannotTell, "B at least 2 ms may be far above A's 4");
        assert_eq!(censored(faster.clone(), true, false).verdict, Verdict::Faster, "A at least 4 ms, B 2 ms: faster");
        assert_eq!(censored(slower.clone(), true, false).verdict, Verdict::CannotTell);
        assert_eq!(censored(slower, true, true).verdict, Verdict::CannotTell);
        assert_eq!(censored(faster, false, false).verdict, Verdict::Faster);
    }

    #[test]
    fn one_repeat_uses_its_whole_seconds() {
        let timeline = |v: &[u64]| v.iter().map(|&r| SecondRecord { requests: r, errors: 0 }).collect();
        let p = PointRecord { duration_s: 3.0, successes: 3000, timeline: timeline(&[1000, 990, 1010, 7]), ..PointRecord::default() };
        assert_eq!(p.full_seconds(), [1000.0, 990.0, 1010.0]);
        let sample = throughput_sample(&[&p]);
        assert_eq!((sample.values.len(), sample.seconds.len()), (1, 3));
        assert!(throughput_sample(&[&p, &p]).seconds.is_empty());
    }
}
