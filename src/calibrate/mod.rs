//! `concur calibrate`: measures this machine's noise floor. It runs the
//! `calibrate` profile (spec/profiles/calibrate.toml: a few runtimes'
//! hello, rounds of it interleaved) through `run`, like any run, so every
//! measurement is a point in the database the moment it is taken; then the
//! spread of each point over the rounds, pooled, is the floor
//! (`stats::noise`), stored beside the run (`store::noise`). Interrupted,
//! it keeps what it measured: the floor of the rounds taken, said as such.

use crate::run::{self, Overrides};
use crate::stats::noise::{self, NoiseFloor};
use crate::store::noise::{CALIBRATION_PROFILE, FloorRecord};
use crate::store::{PointRecord, RunData, RunStatus, Store};
use anyhow::Result;
use serde_json::json;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;

/// `concur calibrate`: the profile's rounds (`rounds` replaces their number,
/// `implementations` its runtimes) into database `db`, then the floor; with
/// `from_run`, only the floor of that calibration run's points (one killed
/// before it could store its floor).
pub fn calibrate_command(root: Option<&Path>, db: Option<&Path>, implementations: Vec<String>, rounds: Option<u32>, from_run: Option<i64>) -> Result<ExitCode> {
    if rounds.is_some_and(|r| r < 2) {
        anyhow::bail!("--rounds {}: a spread needs at least 2 rounds (the profile's 6 give the floor 30 degrees of freedom)", rounds.unwrap_or(0));
    }
    if let Some(id) = from_run {
        let store = Store::open_existing(&crate::report::database(root, db)?)?;
        let data = store.load_run(id)?;
        if data.run.profile != CALIBRATION_PROFILE {
            anyhow::bail!("run {id} is a run of profile {}, not a calibration: pass a run of profile {CALIBRATION_PROFILE} (`concur report --list`), or no --run to calibrate now", data.run.profile);
        }
        store_floor(&store, &data, store.path(), String::new())?;
        return Ok(ExitCode::SUCCESS);
    }
    let load_before = load_average();
    let overrides = Overrides { implementations, repeat: rounds, verify: false, ..Overrides::default() };
    let done = run::execute(root, CALIBRATION_PROFILE, &overrides, db, false)?;
    let data = done.store.load_run(done.run_id)?;
    store_floor(&done.store, &data, &done.db, format!("{load_before} → {}", load_average()))?;
    Ok(if done.status == RunStatus::Interrupted { ExitCode::from(130) } else { ExitCode::SUCCESS })
}

/// Computes, stores and says the floor of a calibration run.
fn store_floor(store: &Store, data: &RunData, db: &Path, load: String) -> Result<()> {
    let planned = data.run.plan.get("repeat").and_then(|r| r.as_u64()).unwrap_or(0) as u32;
    match floor_of(data, planned, load) {
        Some(record) => {
            store.insert_floor(&record)?;
            println!("\nnoise floor of this machine: {}", record.floor().describe());
            println!("stored in {}; `concur compare` and `concur report` use it for every run of this machine", db.display());
        }
        None => println!(
            "\nno noise floor: run {} measured no point twice (a spread needs two rounds); verdicts keep the default ({})",
            data.run.id,
            NoiseFloor::default_floor().describe()
        ),
    }
    Ok(())
}

/// The floor of a calibration run's points; `None` when no point was
/// measured twice. Each point (implementation, scenario, cores, level) is a
/// group, centred on its own mean.
pub fn floor_of(data: &RunData, rounds_planned: u32, load_avg: String) -> Option<FloorRecord> {
    let mut groups: BTreeMap<String, Vec<&PointRecord>> = BTreeMap::new();
    for p in data.points.iter().filter(|p| p.error.is_none()) {
        groups.entry(format!("{}/{}/cores={}/{}", p.implementation, p.scenario, p.cores, p.level)).or_default().push(p);
    }
    let values = |f: fn(&PointRecord) -> f64| groups.values().map(|g| g.iter().map(|p| f(p)).collect()).collect::<Vec<Vec<f64>>>();
    let p99 = |p: &PointRecord| p.latency.p99_us as f64;
    let (throughput, p99s) = (values(PointRecord::throughput), values(p99));
    let (throughput_sigma, df) = noise::pooled_sigma(&throughput)?;
    let p99_sigma = noise::pooled_sigma(&p99s).map_or(noise::DEFAULT_P99, |s| s.0);
    let throughput_drift = noise::drift_part(noise::pooled_drift(&throughput), throughput_sigma);
    let p99_drift = noise::drift_part(noise::pooled_drift(&p99s), p99_sigma);
    let rounds_measured = (1..=rounds_planned).filter(|&r| groups.values().all(|g| g.iter().any(|p| p.repeat == r))).count() as u32;
    let detail: BTreeMap<&String, serde_json::Value> = groups
        .iter()
        .map(|(key, g)| (key, json!({ "throughput": g.iter().map(|p| p.throughput().round()).collect::<Vec<_>>(), "p99_us": g.iter().map(|p| p.latency.p99_us).collect::<Vec<_>>() })))
        .collect();
    Some(FloorRecord {
        run_id: data.run.id,
        measured_at: data.run.finished_at.clone().unwrap_or_else(crate::host::env::now_rfc3339),
        finished: data.run.status == RunStatus::Finished && rounds_measured == rounds_planned,
        rounds_planned,
        rounds_measured,
        measurements: groups.values().map(Vec::len).sum::<usize>() as u32,
        throughput_sigma,
        throughput_drift,
        p99_sigma,
        p99_drift,
        df,
        load_avg,
        detail: json!(detail),
    })
}

/// The 1-, 5- and 15-minute load averages, as `uptime` prints them.
fn load_average() -> String {
    let text = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    text.split_whitespace().take(3).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Environment, RunInfo};

    fn point(imp: &str, cores: u32, repeat: u32, rps: f64) -> PointRecord {
        let mut p = PointRecord { implementation: imp.into(), scenario: "hello".into(), cores, level: "c=50".into(), repeat, duration_s: 1.0, successes: rps as u64, ..PointRecord::default() };
        p.latency.p99_us = 1000;
        p
    }

    fn data(points: Vec<PointRecord>, status: RunStatus) -> RunData {
        let run = RunInfo {
            id: 7,
            started_at: "t".into(),
            finished_at: Some("2026-11-25T18:00:00Z".into()),
            status,
            profile: CALIBRATION_PROFILE.into(),
            plan_key: "k".into(),
            plan: json!({"repeat": 4}),
            environment: Environment::default(),
            notes: vec![],
        };
        RunData { run, implementations: vec![], points }
    }

    #[test]
    fn the_floor_pools_each_points_spread_over_the_rounds() {
        let mut points = Vec::new();
        for (r, f) in [(1, 1.0), (2, 1.1), (3, 0.9), (4, 1.0)] {
            points.push(point("go", 1, r, 10_000.0 * f));
            points.push(point("go", 2, r, 18_000.0 * f));
            points.push(point("node", 1, r, 4_000.0 * f));
        }
        let rec = floor_of(&data(points, RunStatus::Finished), 4, "1 1 1".into()).unwrap();
        assert_eq!((rec.df, rec.measurements, rec.rounds_measured, rec.finished), (9, 12, 4, true));
        assert!((0.07..0.09).contains(&rec.throughput_sigma), "{rec:?}");
        assert_eq!(rec.p99_sigma, 0.0);
    }

    #[test]
    fn an_interrupted_calibration_keeps_the_rounds_it_measured_and_says_so() {
        let points = vec![point("go", 1, 1, 10_000.0), point("node", 1, 1, 4_000.0), point("go", 1, 2, 11_000.0), point("node", 1, 2, 4_100.0), point("go", 1, 3, 9_000.0)];
        let rec = floor_of(&data(points, RunStatus::Interrupted), 4, "1 1 1".into()).unwrap();
        assert_eq!((rec.rounds_measured, rec.rounds_planned, rec.measurements, rec.finished), (2, 4, 5, false));
        assert!(rec.floor().describe().contains("interrupted after 2 of 4 rounds"), "{}", rec.floor().describe());
        assert!(floor_of(&data(vec![point("go", 1, 1, 10_000.0)], RunStatus::Interrupted), 4, String::new()).is_none());
    }
}
