//! Calibrations of the machine's noise floor (`concur calibrate`) in the
//! results database: one row per calibration in `noise_floors`, holding the
//! floor it measured and pointing to its run, whose points are the
//! measurements and whose environment is the machine. Every verdict on a
//! run looks up the latest floor of the run's machine here.
//! spec/RESULTS-DB.md documents the table.

use super::{Environment, Store};
use crate::stats::noise::{FloorSource, NoiseFloor};
use anyhow::{Context, Result};
use rusqlite::{OptionalExtension, params};

/// The migration that adds the table (the next entry of `schema::MIGRATIONS`).
pub const MIGRATION: &str = "
CREATE TABLE noise_floors (
    id               INTEGER PRIMARY KEY,
    run_id           INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    measured_at      TEXT NOT NULL,
    status           TEXT NOT NULL CHECK (status IN ('finished', 'interrupted')),
    rounds_planned   INTEGER NOT NULL,
    rounds_measured  INTEGER NOT NULL,
    measurements     INTEGER NOT NULL,
    throughput_sigma REAL NOT NULL,
    throughput_drift REAL NOT NULL,
    p99_sigma        REAL NOT NULL,
    p99_drift        REAL NOT NULL,
    df               INTEGER NOT NULL,
    load_avg         TEXT NOT NULL,
    detail           TEXT NOT NULL
);
";

/// The profile a calibration's run carries: such runs are never the
/// default of `concur report` or `concur compare`.
pub const CALIBRATION_PROFILE: &str = "calibrate";

/// One calibration as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct FloorRecord {
    pub run_id: i64,
    pub measured_at: String,
    /// Whether every planned round was measured.
    pub finished: bool,
    pub rounds_planned: u32,
    pub rounds_measured: u32,
    pub measurements: u32,
    pub throughput_sigma: f64,
    /// The part of `throughput_sigma` that is a whole run's.
    pub throughput_drift: f64,
    pub p99_sigma: f64,
    pub p99_drift: f64,
    pub df: usize,
    /// `/proc/loadavg` when the calibration started and ended.
    pub load_avg: String,
    /// Per implementation: its measurements and their spread, as JSON.
    pub detail: serde_json::Value,
}

impl FloorRecord {
    pub fn floor(&self) -> NoiseFloor {
        NoiseFloor {
            throughput: self.throughput_sigma,
            throughput_drift: self.throughput_drift,
            p99: self.p99_sigma,
            p99_drift: self.p99_drift,
            df: self.df,
            source: FloorSource::Calibrated {
                run_id: self.run_id,
                measured_at: self.measured_at.clone(),
                rounds_planned: self.rounds_planned,
                rounds_measured: self.rounds_measured,
                measurements: self.measurements,
            },
        }
    }
}

impl Store {
    pub fn insert_floor(&self, f: &FloorRecord) -> Result<()> {
        self.conn
            .execute(
                "INSERT INTO noise_floors (run_id, measured_at, status, rounds_planned, rounds_measured, measurements, throughput_sigma, throughput_drift,
                                           p99_sigma, p99_drift, df, load_avg, detail)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
                params![
                    f.run_id,
                    f.measured_at,
                    if f.finished { "finished" } else { "interrupted" },
                    f.rounds_planned,
                    f.rounds_measured,
                    f.measurements,
                    f.throughput_sigma,
                    f.throughput_drift,
                    f.p99_sigma,
                    f.p99_drift,
                    f.df as i64,
                    f.load_avg,
                    f.detail.to_string()
                ],
            )
            .with_context(|| format!("writing the noise floor of run {} to {}", f.run_id, self.path.display()))?;
        Ok(())
    }

    /// The floor every verdict on a run of `env`'s machine uses: the latest
    /// calibration of the same CPU model, CPU count, memory and kernel,
    /// else the default.
    pub fn floor_for(&self, env: &Environment) -> Result<NoiseFloor> {
        let sql = "SELECT n.run_id, n.measured_at, n.status, n.rounds_planned, n.rounds_measured, n.measurements, n.throughput_sigma, n.p99_sigma, n.df, n.load_avg, n.detail,
                          n.throughput_drift, n.p99_drift
                   FROM noise_floors n JOIN runs r ON r.id = n.run_id
                   WHERE r.cpu_model = ?1 AND r.logical_cpus = ?2 AND r.memory_bytes = ?3 AND r.kernel = ?4 ORDER BY n.id DESC LIMIT 1";
        let record = self
            .conn
            .query_row(sql, params![env.cpu_model, env.logical_cpus, env.memory_bytes as i64, env.kernel], |r| {
                let status: String = r.get(2)?;
                let detail: String = r.get(10)?;
                Ok(FloorRecord {
                    run_id: r.get(0)?,
                    measured_at: r.get(1)?,
                    finished: status == "finished",
                    rounds_planned: r.get(3)?,
                    rounds_measured: r.get(4)?,
                    measurements: r.get(5)?,
                    throughput_sigma: r.get(6)?,
                    throughput_drift: r.get(11)?,
                    p99_sigma: r.get(7)?,
                    p99_drift: r.get(12)?,
                    df: r.get::<_, i64>(8)? as usize,
                    load_avg: r.get(9)?,
                    detail: serde_json::from_str(&detail).map_err(super::json_err)?,
                })
            })
            .optional()?;
        Ok(record.map_or_else(NoiseFloor::default_floor, |r| r.floor()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{RunInfo, RunStatus};

    fn run(store: &Store, profile: &str, kernel: &str) -> i64 {
        let environment = Environment { cpu_model: "Test CPU".into(), logical_cpus: 2, memory_bytes: 8 << 30, kernel: kernel.into(), ..Environment::default() };
        let info = RunInfo {
            id: 0,
            started_at: "2026-11-25T18:00:00Z".into(),
            finished_at: None,
            status: RunStatus::Finished,
            profile: profile.into(),
            plan_key: "k".into(),
            plan: serde_json::json!({}),
            environment,
            notes: vec![],
        };
        store.insert_run(&info).unwrap()
    }

    fn record(run_id: i64, sigma: f64) -> FloorRecord {
        FloorRecord {
            run_id,
            measured_at: "2026-11-25T18:05:00Z".into(),
            finished: false,
            rounds_planned: 6,
            rounds_measured: 4,
            measurements: 12,
            throughput_sigma: sigma,
            throughput_drift: sigma / 2.0,
            p99_sigma: 0.3,
            p99_drift: 0.1,
            df: 9,
            load_avg: "1.0 0.8 0.5".into(),
            detail: serde_json::json!({}),
        }
    }

    #[test]
    fn the_latest_calibration_of_the_same_machine_is_the_floor_and_another_machine_gets_the_default() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("c.db")).unwrap();
        let measured = run(&store, "quick", "Linux 6.1");
        assert!(store.floor_for(&store.run(measured).unwrap().environment).unwrap().is_default());
        for sigma in [0.04, 0.06] {
            let calibration = run(&store, CALIBRATION_PROFILE, "Linux 6.1");
            store.insert_floor(&record(calibration, sigma)).unwrap();
        }
        let floor = store.floor_for(&store.run(measured).unwrap().environment).unwrap();
        assert_eq!((floor.throughput, floor.df), (0.06, 9));
        assert!(matches!(floor.source, FloorSource::Calibrated { rounds_measured: 4, rounds_planned: 6, .. }), "{floor:?}");
        let other = run(&store, "quick", "Linux 6.12");
        assert!(store.floor_for(&store.run(other).unwrap().environment).unwrap().is_default());
    }
}
