//! `concur faults`' tables (spec/FAULTS.md): one row per implementation and
//! core count in `fault_results` (its start-up), and one per fault set off
//! in `fault_trials`, in the order they ran. A faults run is an ordinary row
//! of `runs` (profile `faults`), so it carries the machine's environment; it
//! has no `points`. Each implementation's rows are written in one
//! transaction when its trials end, so an interrupted run keeps every
//! implementation finished.

use super::Store;
use anyhow::Result;
use rusqlite::params;
use crate::stats::Second;
use serde::{Deserialize, Serialize};

/// The migration creating the faults tables; appended to `schema::MIGRATIONS`.
pub const MIGRATION: &str = "
CREATE TABLE fault_results (
    run_id         INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    implementation TEXT NOT NULL,
    cores          INTEGER NOT NULL,
    ready_ms       REAL NOT NULL,
    rss_bytes      INTEGER NOT NULL,
    PRIMARY KEY (run_id, implementation, cores)
);
CREATE TABLE fault_trials (
    run_id          INTEGER NOT NULL,
    implementation  TEXT NOT NULL,
    cores           INTEGER NOT NULL,
    seq             INTEGER NOT NULL,
    fault           TEXT NOT NULL,
    faulting_client TEXT NOT NULL,
    faulting_ms     REAL,
    outage_ms       REAL,
    stall_ms        REAL NOT NULL,
    probes          INTEGER NOT NULL,
    probes_failed   INTEGER NOT NULL,
    restarted_by    TEXT,
    load_requests   INTEGER NOT NULL,
    load_errors     INTEGER NOT NULL,
    load_unfinished INTEGER NOT NULL,
    load_p99_ms     REAL NOT NULL,
    load_max_ms     REAL NOT NULL,
    PRIMARY KEY (run_id, implementation, cores, seq),
    FOREIGN KEY (run_id, implementation, cores) REFERENCES fault_results (run_id, implementation, cores) ON DELETE CASCADE
);
";

/// The load the trials ran beside, measured on the server itself (version 16): its warm-up
/// curve, its capacity before and after the faults, and the bystanders' rate. Rows of older
/// runs read as `capacity_before` 0 with no warm-up (their load was a fixed `rate` of the plan).
pub const LOAD_MIGRATION: &str = "
ALTER TABLE fault_results ADD COLUMN load_rate REAL NOT NULL DEFAULT 0;
ALTER TABLE fault_results ADD COLUMN capacity_before REAL NOT NULL DEFAULT 0;
ALTER TABLE fault_results ADD COLUMN capacity_after REAL;
ALTER TABLE fault_results ADD COLUMN warmup_rate REAL NOT NULL DEFAULT 0;
ALTER TABLE fault_results ADD COLUMN warmup TEXT NOT NULL DEFAULT '[]';
ALTER TABLE fault_trials ADD COLUMN fault_at_ms REAL NOT NULL DEFAULT 0;
ALTER TABLE fault_trials ADD COLUMN recovery_ms REAL;
ALTER TABLE fault_trials ADD COLUMN timeline TEXT NOT NULL DEFAULT '[]';
";

/// The database route's bystanders (version 18): the `/db` capacity and the open loop's rate at a
/// share of it, per implementation; per trial, that loop's figures as JSON (`OpenLoop`). NULL where
/// no database was given, and for a trial whose fault does not concern it (the spin).
pub const DB_MIGRATION: &str = "
ALTER TABLE fault_results ADD COLUMN db_capacity REAL;
ALTER TABLE fault_results ADD COLUMN db_rate REAL;
ALTER TABLE fault_trials ADD COLUMN db_load TEXT;
";

/// From exec to the first `GET /` answered 200, and the server's memory then.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StartUp {
    pub ready_ms: f64,
    pub rss_bytes: u64,
}

/// The load beside the trials, and what the server could do before and after them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadFigures {
    /// The bystanders' open loop, `GET /` a second: a share of `capacity_before`, or a fixed rate.
    pub rate: f64,
    /// Successful `GET /` a second in a closed loop of 64 connections, before the first trial
    /// and after the last (`None`: the server did not serve then).
    pub capacity_before: f64,
    pub capacity_after: Option<f64>,
    /// The warm-up curve: from the first 200, an open loop at `warmup_rate`, per second.
    pub warmup_rate: f64,
    pub warmup: Vec<Second>,
    /// The database route: successful `GET /db` a second in the same closed loop, and the rate
    /// of its bystanders' open loop, a share of it (`None`: the server was given no database).
    #[serde(default)]
    pub db_capacity: Option<f64>,
    #[serde(default)]
    pub db_rate: Option<f64>,
}

/// What one open loop beside a trial received: the load on `/` (`Trial::load`), and the `GET /db`
/// bystanders' beside a fault that concerns the database (`Trial::db`: a process that dies takes
/// its pool with it; its replacement must connect anew).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OpenLoop {
    pub requests: u64,
    pub errors: u64,
    pub unfinished: u64,
    pub p99_ms: f64,
    pub max_ms: f64,
    /// When the fault came on this loop's clock, and from it to the first second back (as the
    /// load on `/`'s, judged by the baseline's `/db` seconds).
    pub fault_at_ms: f64,
    pub recovery_ms: Option<f64>,
    pub timeline: Vec<Second>,
}

/// What one fault did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trial {
    pub fault: String,
    /// What the client that set it off received: `500`, `connection closed`, `no answer within 15 s`;
    /// for a kill, which process was killed.
    pub faulting_client: String,
    /// How long the fault's own request took (the spin's, the panic's).
    pub faulting_ms: Option<f64>,
    /// From the first probe that failed to the first answered after the last failure; 0: every
    /// probe was answered; `None`: not serving again when the trial ended.
    pub outage_ms: Option<f64>,
    /// The longest a probe sent after the fault waited for its answer (a stall of the others).
    pub stall_ms: f64,
    pub probes: u64,
    pub probes_failed: u64,
    /// Who started a process again: `concur (as a process supervisor)`, `its own supervisor`; `None`: nobody had to.
    pub restarted_by: Option<String>,
    /// The load on `/` beside it: answered, failed, left unanswered, its p99 and slowest answer,
    /// and its seconds; `recovery_ms` is `None` when none was back by the end, and for the baseline.
    pub load: OpenLoop,
    /// The database route's bystanders, where they ran.
    #[serde(default)]
    pub db: Option<OpenLoop>,
}

/// The faults of one implementation at one core count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImplFaults {
    pub name: String,
    pub cores: u32,
    pub start_up: StartUp,
    pub load: LoadFigures,
    /// The baseline first (`faults::BASELINE`), then each fault in the order they ran.
    pub trials: Vec<Trial>,
}

impl Store {
    /// Records one implementation's start-up and trials in run `run_id`, all or nothing.
    pub fn insert_faults(&self, run_id: i64, f: &ImplFaults) -> Result<()> {
        let tx = self.conn.unchecked_transaction()?;
        tx.execute(
            "INSERT INTO fault_results (run_id, implementation, cores, ready_ms, rss_bytes, load_rate, capacity_before, capacity_after, warmup_rate, warmup,
                                        db_capacity, db_rate)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            params![
                run_id,
                f.name,
                f.cores,
                f.start_up.ready_ms,
                f.start_up.rss_bytes as i64,
                f.load.rate,
                f.load.capacity_before,
                f.load.capacity_after,
                f.load.warmup_rate,
                serde_json::to_string(&f.load.warmup)?,
                f.load.db_capacity,
                f.load.db_rate
            ],
        )?;
        for (seq, t) in f.trials.iter().enumerate() {
            tx.execute(
                "INSERT INTO fault_trials (run_id, implementation, cores, seq, fault, faulting_client, faulting_ms, outage_ms, stall_ms, probes,
                                           probes_failed, restarted_by, load_requests, load_errors, load_unfinished, load_p99_ms, load_max_ms,
                                           fault_at_ms, recovery_ms, timeline, db_load)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21)",
                params![
                    run_id,
                    f.name,
                    f.cores,
                    seq as i64,
                    t.fault,
                    t.faulting_client,
                    t.faulting_ms,
                    t.outage_ms,
                    t.stall_ms,
                    t.probes as i64,
                    t.probes_failed as i64,
                    t.restarted_by,
                    t.load.requests as i64,
                    t.load.errors as i64,
                    t.load.unfinished as i64,
                    t.load.p99_ms,
                    t.load.max_ms,
                    t.load.fault_at_ms,
                    t.load.recovery_ms,
                    serde_json::to_string(&t.load.timeline)?,
                    t.db.as_ref().map(serde_json::to_string).transpose()?
                ],
            )?;
        }
        tx.commit()?;
        Ok(())
    }

    /// Every implementation's faults in run `run_id`, by name then cores, each's trials in the order they ran.
    pub fn faults(&self, run_id: i64) -> Result<Vec<ImplFaults>> {
        let mut stmt = self.conn.prepare(
            "SELECT implementation, cores, ready_ms, rss_bytes, load_rate, capacity_before, capacity_after, warmup_rate, warmup,
                    db_capacity, db_rate
             FROM fault_results WHERE run_id = ?1 ORDER BY implementation, cores",
        )?;
        let mut out: Vec<ImplFaults> = stmt
            .query_map(params![run_id], |r| {
                Ok(ImplFaults {
                    name: r.get(0)?,
                    cores: r.get(1)?,
                    start_up: StartUp { ready_ms: r.get(2)?, rss_bytes: r.get::<_, i64>(3)?.max(0) as u64 },
                    load: LoadFigures {
                        rate: r.get(4)?,
                        capacity_before: r.get(5)?,
                        capacity_after: r.get(6)?,
                        warmup_rate: r.get(7)?,
                        warmup: seconds(r.get(8)?),
                        db_capacity: r.get(9)?,
                        db_rate: r.get(10)?,
                    },
                    trials: Vec::new(),
                })
            })?
            .collect::<rusqlite::Result<_>>()?;
        let mut stmt = self.conn.prepare(
            "SELECT fault, faulting_client, faulting_ms, outage_ms, stall_ms, probes, probes_failed, restarted_by, load_requests, load_errors,
                    load_unfinished, load_p99_ms, load_max_ms, fault_at_ms, recovery_ms, timeline, db_load
             FROM fault_trials WHERE run_id = ?1 AND implementation = ?2 AND cores = ?3 ORDER BY seq",
        )?;
        let count = |v: i64| v.max(0) as u64;
        for f in &mut out {
            f.trials = stmt
                .query_map(params![run_id, f.name, f.cores], |r| {
                    Ok(Trial {
                        fault: r.get(0)?,
                        faulting_client: r.get(1)?,
                        faulting_ms: r.get(2)?,
                        outage_ms: r.get(3)?,
                        stall_ms: r.get(4)?,
                        probes: count(r.get(5)?),
                        probes_failed: count(r.get(6)?),
                        restarted_by: r.get(7)?,
                        load: OpenLoop {
                            requests: count(r.get(8)?),
                            errors: count(r.get(9)?),
                            unfinished: count(r.get(10)?),
                            p99_ms: r.get(11)?,
                            max_ms: r.get(12)?,
                            fault_at_ms: r.get(13)?,
                            recovery_ms: r.get(14)?,
                            timeline: seconds(r.get(15)?),
                        },
                        // One this concur cannot read (a newer one's) reads as none.
                        db: r.get::<_, Option<String>>(16)?.and_then(|json| serde_json::from_str(&json).ok()),
                    })
                })?
                .collect::<rusqlite::Result<_>>()?;
        }
        Ok(out)
    }

    /// The newest run that holds faults, if any.
    pub fn latest_faults_run_id(&self) -> Result<Option<i64>> {
        Ok(self.conn.query_row("SELECT max(run_id) FROM fault_results", [], |r| r.get(0))?)
    }
}

/// A stored timeline; one this concur cannot read (a newer one's) reads as none.
fn seconds(json: String) -> Vec<Second> {
    serde_json::from_str(&json).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Environment, RunInfo};

    #[test]
    fn faults_are_stored_and_read_back_in_the_order_they_ran() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("concur.db")).unwrap();
        let run = store.insert_run(&RunInfo::starting("faults".into(), "k".into(), serde_json::json!({}), Environment::default(), vec![])).unwrap();
        assert_eq!(store.latest_faults_run_id().unwrap(), None);
        let trial = |fault: &str, outage: Option<f64>, by: Option<&str>| Trial {
            fault: fault.into(),
            faulting_client: "500".into(),
            faulting_ms: Some(3.5),
            outage_ms: outage,
            stall_ms: 21.0,
            probes: 400,
            probes_failed: 2,
            restarted_by: by.map(str::to_string),
            load: OpenLoop {
                requests: 990,
                errors: 3,
                unfinished: 1,
                p99_ms: 4.2,
                max_ms: 30.0,
                fault_at_ms: 1003.5,
                recovery_ms: outage.map(|ms| ms + 996.5),
                timeline: vec![Second { requests: 200, errors: 0, p99_us: Some(4200) }, Second { requests: 0, errors: 12, p99_us: None }],
            },
            db: None,
        };
        let load = |capacity_after: Option<f64>| LoadFigures {
            rate: 2_000.0,
            capacity_before: 10_000.0,
            capacity_after,
            warmup_rate: 200.0,
            warmup: vec![Second { requests: 180, errors: 0, p99_us: Some(81_000) }],
            db_capacity: None,
            db_rate: None,
        };
        let mut go = ImplFaults {
            name: "go".into(),
            cores: 1,
            start_up: StartUp { ready_ms: 12.0, rss_bytes: 9 << 20 },
            load: load(Some(9_800.0)),
            trials: vec![trial("panic", Some(0.0), None), trial("kill -9", None, Some("concur (as a process supervisor)"))],
        };
        // The database's bystanders beside the kill: kept whole, and absent where they did not run.
        (go.load.db_capacity, go.load.db_rate) = (Some(1_500.0), Some(300.0));
        go.trials[1].db = Some(OpenLoop {
            requests: 1_410,
            errors: 25,
            unfinished: 2,
            p99_ms: 820.0,
            max_ms: 1_900.5,
            fault_at_ms: 1_001.0,
            recovery_ms: Some(1_999.0),
            timeline: vec![Second { requests: 300, errors: 0, p99_us: Some(3_100) }, Second { requests: 120, errors: 25, p99_us: Some(820_000) }],
        });
        let bun = ImplFaults { name: "bun".into(), cores: 2, start_up: StartUp { ready_ms: 60.0, rss_bytes: 40 << 20 }, load: load(None), trials: vec![trial("spin 1000 ms", Some(0.0), None)] };
        store.insert_faults(run, &go).unwrap();
        store.insert_faults(run, &bun).unwrap();
        assert_eq!(store.faults(run).unwrap(), [bun, go]);
        assert_eq!(store.latest_faults_run_id().unwrap(), Some(run));
    }
}
