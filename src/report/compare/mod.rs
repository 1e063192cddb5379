//! `concur compare RUN_A RUN_B`: whether run B (a new release of a runtime,
//! say) is faster or slower than run A, point by point. A point is an
//! implementation, scenario, core count and load level that both runs
//! measured; its repeats are the samples (`points`). Throughput and p99
//! latency each get the ratio B/A with an interval that carries both the
//! repeats' spread and the machine's noise floor, or, where the database
//! holds A/A pairs of the runs' plan, the variance between runs they
//! measured (`between`), and a verdict (`stats::interval`,
//! `stats::verdict`): an identical rerun on a drifting machine is not
//! called faster. What else could explain a change
//! (another profile, machine, kernel or toolchain; the runs' moments on
//! the machine) is listed before the numbers (`context`). The comparison
//! is plain serde data (`types`): `--format json` prints it
//! (spec/COMPARE.md) and the Markdown is rendered from it (`markdown`).

pub mod between;
mod context;
mod markdown;
mod points;
mod types;

pub use markdown::markdown;
pub use points::change;
pub use types::*;

use super::model::distinct;
use crate::stats::noise::NoiseFloor;
use crate::store::noise::CALIBRATION_PROFILE;
use crate::store::{RunData, Store};
use anyhow::{Context, Result, bail};
use std::collections::{BTreeSet, HashSet};
use std::path::Path;
use std::process::ExitCode;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Markdown,
    Json,
}

/// What `concur compare` is asked for.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Runs A and B; none: taken by default.
    pub a: Option<i64>,
    pub b: Option<i64>,
    /// Only the first this many repeats of each point (what fewer repeats would have said).
    pub repeats: Option<u32>,
}

/// `concur compare`: runs `a` and `b` of database `db` (none: the
/// repository's); a run not given is taken by default. Writes to `output`,
/// else prints.
pub fn compare_command(root: Option<&Path>, db: Option<&Path>, options: &Options, format: Format, output: Option<&Path>) -> Result<ExitCode> {
    if options.repeats == Some(0) {
        bail!("--repeats 0: a point needs at least one repeat to compare (e.g. --repeats 3)");
    }
    let store = Store::open_existing(&super::database(root, db)?)?;
    let (a, b) = choose(&store, options.a, options.b)?;
    let (data_a, data_b) = (load(&store, a.0)?, load(&store, b.0)?);
    let floor = store.floor_for(&data_a.run.environment)?.larger(store.floor_for(&data_b.run.environment)?);
    let aa = between::find(&store, &data_a, &data_b, options.repeats)?;
    let mut comparison = compare(&data_a, &data_b, &floor, aa, options.repeats);
    if comparison.points.is_empty() {
        bail!("{}", nothing_shared(&store, &data_a, &data_b)?);
    }
    (comparison.a.by_default, comparison.b.by_default) = (a.1, b.1);
    let text = match format {
        Format::Markdown => markdown(&comparison),
        Format::Json => serde_json::to_string_pretty(&comparison)? + "\n",
    };
    match output {
        Some(path) => {
            std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
            println!("run {} compared with run {}: {}", b.0, a.0, path.display());
        }
        None => print!("{text}"),
    }
    Ok(ExitCode::SUCCESS)
}

/// The runs `compare` may take by default: those with points, calibrations
/// (`concur calibrate`'s A/A rounds) aside, oldest first.
fn runs_with_points(store: &Store) -> Result<Vec<i64>> {
    let mut out = Vec::new();
    for run in store.runs()? {
        if run.profile != CALIBRATION_PROFILE && !store.point_keys(run.id)?.is_empty() {
            out.push(run.id);
        }
    }
    Ok(out)
}

/// Runs A and B, each with whether it was taken by default.
fn choose(store: &Store, a: Option<i64>, b: Option<i64>) -> Result<((i64, bool), (i64, bool))> {
    let db = store.path().display();
    let with_points = runs_with_points(store)?;
    let before = |id: i64| with_points.iter().rev().copied().find(|&other| other < id);
    let b = match b {
        Some(id) => (id, false),
        None => {
            let latest = with_points.last().copied();
            (latest.with_context(|| format!("{db} holds no run with points yet: `concur run` twice (say, before and after upgrading a runtime), then compare"))?, true)
        }
    };
    let a = match a {
        Some(id) => (id, false),
        None => (
            before(b.0).with_context(|| {
                format!(
                    "{db} holds no run with points before run {}, so there is nothing to compare it with: `concur run` again, \
                     or name both runs (`concur compare RUN_A RUN_B`; `concur report --list` lists them)",
                    b.0
                )
            })?,
            true,
        ),
    };
    if a.0 == b.0 {
        let example = before(a.0).map_or(String::new(), |prev| format!(", e.g. `concur compare {prev} {}`", a.0));
        bail!("run {} is both RUN_A and RUN_B: name two different runs{example} (`concur report --list` lists them)", a.0);
    }
    Ok((a, b))
}

/// Loads a run that has points to compare.
fn load(store: &Store, id: i64) -> Result<RunData> {
    let data = store.load_run(id)?;
    if data.points.is_empty() {
        let why = if store.micro_results(id)?.is_empty() {
            format!("it holds no points (status {}, profile {})", data.run.status.as_str(), data.run.profile)
        } else {
            "it is a `concur micro` run, whose results `concur report` shows".to_string()
        };
        bail!("run {id} of {} cannot be compared: {why}; pick a run with points from `concur report --list`", store.path().display());
    }
    Ok(data)
}

/// The one line said when two runs share no point, with a run that does
/// share points with B when the database holds one.
fn nothing_shared(store: &Store, a: &RunData, b: &RunData) -> Result<String> {
    let points = |keys: HashSet<String>| keys.into_iter().map(|k| k.rsplit_once("/r").map_or(k.clone(), |(p, _)| p.to_string())).collect::<BTreeSet<String>>();
    let of_b = points(store.point_keys(b.run.id)?);
    let mut partner = None;
    for id in runs_with_points(store)?.into_iter().rev().filter(|&id| id != a.run.id && id != b.run.id) {
        if !points(store.point_keys(id)?).is_disjoint(&of_b) {
            partner = Some(id);
            break;
        }
    }
    let first = |d: &RunData| d.points.first().map_or(String::new(), |p| format!("{}/{}/cores={}/{}", p.implementation, p.scenario, p.cores, p.level));
    let instead = match partner {
        Some(id) => format!("e.g. `concur compare {id} {}`, which share points", b.run.id),
        None => format!("no other run here shares a point with run {}: `concur run` the same plan again, then compare", b.run.id),
    };
    Ok(format!(
        "runs {} and {} share no point (A measured e.g. {}, B {}): compare two runs of the same implementations, scenarios, cores and levels; {instead}",
        a.run.id,
        b.run.id,
        first(a),
        first(b)
    ))
}

/// Compares the points of two runs, with all their repeats or the first `repeats`: on the
/// variance between runs of their plan where `aa` (its A/A pairs) measured a point's scenario,
/// else on `floor`.
pub fn compare(a: &RunData, b: &RunData, floor: &NoiseFloor, aa: Option<AaRuns>, repeats: Option<u32>) -> Comparison {
    let scenarios = distinct(b.points.iter().chain(&a.points).map(|p| p.scenario.as_str()));
    let (in_a, in_b) = (points::by_point(&a.points, &scenarios, repeats), points::by_point(&b.points, &scenarios, repeats));
    let keys: BTreeSet<&points::Key> = in_a.keys().chain(in_b.keys()).collect();
    let (mut shared, mut only_in_a, mut only_in_b) = (Vec::new(), Vec::new(), Vec::new());
    for key in keys {
        match (in_a.get(key), in_b.get(key)) {
            (Some(x), Some(y)) => shared.push(points::compared(a, b, x, y, floor, aa.as_ref())),
            (Some(x), None) => only_in_a.push(x.id.clone()),
            (None, Some(y)) => only_in_b.push(y.id.clone()),
            (None, None) => {}
        }
    }
    let mut summary = Totals::default();
    for c in &shared {
        summary.throughput.count(c.throughput.verdict);
        summary.p99_ms.count(c.p99_ms.verdict);
    }
    let (side_a, side_b) = (side(a), side(b));
    Comparison {
        schema_version: SCHEMA_VERSION,
        drift: context::drift(&side_a, &side_b, &shared, floor),
        differences: context::differences(a, b, &shared),
        a: side_a,
        b: side_b,
        coverage: crate::stats::interval::COVERAGE,
        floor: floor.clone(),
        between_runs: aa,
        repeats_used: repeats,
        points: shared,
        summary,
        failed: points::failed("a", a).chain(points::failed("b", b)).collect(),
        only_in_a,
        only_in_b,
    }
}

fn side(data: &RunData) -> RunSide {
    let run = &data.run;
    RunSide {
        id: run.id,
        by_default: false,
        started_at: run.started_at.clone(),
        finished_at: run.finished_at.clone(),
        status: run.status,
        profile: run.profile.clone(),
        plan_key: run.plan_key.clone(),
        point_rows: data.points.len(),
        environment: run.environment.clone(),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::stats::verdict::Verdict;
    use crate::store::{Environment, ImplRecord, ImplStatus, KnownFailure, PointRecord, RunInfo, RunStatus};

    /// A repeat of `imp`'s `scenario` at 1 core and 50 connections: `rps` req/s, `p99_ms` p99.
    pub(crate) fn point(imp: &str, scenario: &str, repeat: u32, rps: f64, p99_ms: f64) -> PointRecord {
        let mut p = PointRecord {
            key: format!("{imp}/{scenario}/cores=1/c=50/r{repeat}"),
            implementation: imp.into(),
            scenario: scenario.into(),
            cores: 1,
            connections: 50,
            level: "c=50".into(),
            repeat,
            duration_s: 10.0,
            successes: (rps * 10.0) as u64,
            ..PointRecord::default()
        };
        p.latency.p99_us = (p99_ms * 1000.0) as u64;
        p
    }

    pub(crate) fn run(id: i64, points: Vec<PointRecord>) -> RunData {
        let run = RunInfo {
            id,
            started_at: format!("2025-03-0{id}T10:00:00Z"),
            finished_at: None,
            status: RunStatus::Finished,
            profile: "quick".into(),
            plan_key: "k".into(),
            plan: serde_json::json!({}),
            environment: Environment { cpu_model: "Test CPU".into(), toolchains: [("alpha".to_string(), "alpha 1.0".to_string())].into(), ..Environment::default() },
            notes: vec![],
        };
        RunData { run, implementations: vec![], points }
    }

    fn quiet() -> NoiseFloor {
        let source = crate::stats::noise::FloorSource::Calibrated { run_id: 9, measured_at: "t".into(), rounds_planned: 6, rounds_measured: 6, measurements: 36 };
        NoiseFloor { throughput: 0.02, throughput_drift: 0.02, p99: 0.05, p99_drift: 0.05, df: 30, source }
    }

    #[test]
    fn shared_points_are_compared_and_the_rest_sorted_out() {
        let mut a = vec![point("alpha", "hello", 1, 1000.0, 2.0), point("alpha", "hello", 2, 1010.0, 2.1), point("alpha", "hello", 3, 990.0, 2.0)];
        a.push(point("alpha", "json", 1, 500.0, 3.0));
        let mut broken = point("beta", "hello", 1, 0.0, 0.0);
        broken.error = Some("the server exited during the measurement\nlog tail".into());
        let mut b = vec![point("alpha", "hello", 1, 700.0, 2.0), point("alpha", "hello", 2, 705.0, 2.0), point("alpha", "hello", 3, 695.0, 2.1), broken];
        b.push(point("gamma", "page", 1, 10.0, 9.0));
        let (mut ra, rb) = (run(1, a), run(2, b));
        ra.implementations.push(ImplRecord {
            name: "alpha".into(),
            status: ImplStatus::Verified,
            reason: None,
            version: "alpha 1.0".into(),
            manifest: crate::impls::manifest::parse(
                Path::new("concur.toml"),
                "name = \"alpha\"\nlanguage = \"L\"\nruntime = \"R\"\nversion = \"true\"\nframework = \"none\"\nmodel = \"event-loop\"\n[start]\ncommand = \"./s\"\n",
                "alpha",
            )
            .unwrap(),
            known_failures: vec![KnownFailure { check: "pipelining".into(), cores: 1, detail: "d".into(), reason: "r".into() }],
        });
        let c = compare(&ra, &rb, &quiet(), None, None);
        assert_eq!(c.points.len(), 1);
        let p = &c.points[0];
        assert_eq!((p.point.label(), p.throughput.verdict, p.known_deviations_a, p.known_deviations_b), ("alpha/hello/cores=1/c=50".into(), Verdict::Slower, true, false));
        assert_eq!(c.summary.throughput, Tally { slower: 1, ..Tally::default() });
        assert_eq!(c.failed.len(), 1);
        assert_eq!((c.failed[0].run.as_str(), c.failed[0].error.as_str()), ("b", "the server exited during the measurement"));
        assert_eq!(c.only_in_a.iter().map(PointId::label).collect::<Vec<_>>(), ["alpha/json/cores=1/c=50"]);
        assert_eq!(c.only_in_b.iter().map(PointId::label).collect::<Vec<_>>(), ["gamma/page/cores=1/c=50"]);
        assert!(c.differences.is_empty(), "{:?}", c.differences);
        let md = markdown(&c);
        assert!(md.contains("| alpha † | 1 | c=50 | 1,000 | 700 | -30.0% ["), "{md}");
        assert!(md.contains("Only in A: 1 point(s): alpha/json/cores=1/c=50."), "{md}");
        assert!(md.contains("- B: beta/hello/cores=1/c=50 r1: the server exited during the measurement"), "{md}");
    }

    #[test]
    fn the_first_repeats_only_when_asked() {
        let a = run(1, (1..=5).map(|r| point("alpha", "hello", r, 1000.0 + r as f64, 1.0)).collect());
        let b = run(2, (1..=5).map(|r| point("alpha", "hello", r, 1000.0 - r as f64, 1.0)).collect());
        let c = compare(&a, &b, &quiet(), None, Some(3));
        assert_eq!((c.points[0].throughput.a_values.len(), c.repeats_used), (3, Some(3)));
        assert!(markdown(&c).contains("Only the first 3 repeat(s) of each point are used"));
    }

    #[test]
    fn an_open_loop_point_matches_by_rate_not_by_its_connection_cap() {
        let open = |repeat, connections, rps| PointRecord { rate: Some(1000), connections, level: "R=1000".into(), ..point("alpha", "hello", repeat, rps, 1.0) };
        let c = compare(&run(1, vec![open(1, 64, 990.0), open(2, 64, 995.0)]), &run(2, vec![open(1, 128, 998.0), open(2, 128, 999.0)]), &quiet(), None, None);
        assert_eq!(c.points.len(), 1, "{:?} {:?}", c.only_in_a, c.only_in_b);
        assert_eq!((c.points[0].point.rate, c.points[0].point.connections), (Some(1000), None));
    }

    #[test]
    fn keep_alive_and_close_points_are_never_compared_with_each_other() {
        let close = |repeat, rps| PointRecord { keepalive: false, level: "c=50 close".into(), ..point("alpha", "hello", repeat, rps, 9.0) };
        let a = run(1, vec![point("alpha", "hello", 1, 10_000.0, 1.0), point("alpha", "hello", 2, 10_100.0, 1.0), close(1, 3_000.0), close(2, 3_050.0)]);
        let b = run(2, vec![point("alpha", "hello", 1, 10_050.0, 1.0), point("alpha", "hello", 2, 10_000.0, 1.0), close(1, 3_020.0), close(2, 3_010.0)]);
        let c = compare(&a, &b, &quiet(), None, None);
        let pairs: Vec<(bool, f64)> = c.points.iter().map(|p| (p.point.keepalive, p.throughput.a_median)).collect();
        assert_eq!(pairs, [(false, 3_025.0), (true, 10_050.0)], "{:?}", c.points);
        assert!(c.points.iter().all(|p| matches!(p.throughput.verdict, Verdict::Same | Verdict::CannotTell)), "{:?}", c.points);
    }

    #[test]
    fn the_machine_profile_settings_and_toolchains_that_differ_are_named() {
        let (mut a, mut b) = (run(1, vec![point("alpha", "hello", 1, 1000.0, 2.0)]), run(2, vec![point("alpha", "hello", 1, 990.0, 2.0)]));
        b.run.profile = "standard".into();
        b.run.environment.kernel = "Linux 6.12".into();
        b.run.environment.toolchains.insert("alpha".into(), "alpha 1.1".into());
        let spec = |duration: f64| serde_json::json!({"points": [{"implementation": "alpha", "scenario": "hello", "cores": 1, "connections": 50, "rate": null,
            "warmup_s": 1.0, "duration_s": duration, "requests": null, "timeout_s": 30.0, "env": {}, "shared": false}]});
        (a.run.plan, b.run.plan) = (spec(5.0), spec(30.0));
        let c = compare(&a, &b, &quiet(), None, None);
        let what: Vec<(&str, Option<&str>)> = c.differences.iter().map(|d| (d.what.as_str(), d.subject.as_deref())).collect();
        assert_eq!(what, [("profile", None), ("settings", Some("hello")), ("kernel", None), ("toolchain", Some("alpha"))]);
        assert!(c.differences[1].a.contains("\"duration_s\":5.0") && c.differences[1].b.contains("\"duration_s\":30.0"), "{:?}", c.differences[1]);
        assert!(markdown(&c).contains("- toolchain of alpha: alpha 1.0 (A), alpha 1.1 (B)"));
    }

    #[test]
    fn runs_that_moved_as_a_whole_are_called_out_and_a_missing_calibration_too() {
        let names = ["alpha", "beta", "gamma", "delta"];
        let a = run(1, names.iter().flat_map(|n| [point(n, "hello", 1, 1000.0, 2.0), point(n, "hello", 2, 1004.0, 2.0)]).collect());
        let b = run(2, names.iter().flat_map(|n| [point(n, "hello", 1, 1350.0, 2.0), point(n, "hello", 2, 1360.0, 2.0)]).collect());
        let c = compare(&a, &b, &NoiseFloor::default_floor(), None, None);
        assert!(c.points.iter().all(|p| p.throughput.verdict == Verdict::CannotTell), "35% hides in the default floor: {:?}", c.summary);
        assert_eq!((c.drift.same_way, c.drift.with_ratio, c.drift.apart_s), (4, 4, Some(86_400.0)));
        assert!(c.drift.warnings[0].contains("no calibration") && c.drift.warnings[0].contains("`concur calibrate`"), "{:?}", c.drift.warnings);
        assert!(c.drift.warnings[1].starts_with("The runs moved as a whole: at the median point B's req/s changed by +35."), "{:?}", c.drift.warnings);
        assert!(c.drift.warnings[2].contains("taken 24 h 00 min apart"), "{:?}", c.drift.warnings);
        let md = markdown(&c);
        assert!(md.contains("## Before reading the verdicts") && md.contains("the default floor"), "{md}");
        let calm = compare(&a, &run(2, a.points.clone()), &quiet(), None, None);
        assert!(calm.drift.warnings.is_empty(), "{:?}", calm.drift.warnings);
    }
}
