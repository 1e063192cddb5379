//! Capacity searches (`concur run --slo`) in the results database: one row
//! per search in `capacity_searches` (its settings, and once it ends its
//! status, capacity and why it stopped), one row per measured step in
//! `capacity_steps`, written as the step ends so Ctrl-C keeps it. Steps are
//! not `points`: export, compare and the report's point tables never see
//! them. spec/RESULTS-DB.md documents both tables.

use super::Store;
use super::rows::{self, json, u64_col};
use crate::stats::LatencyStats;
use anyhow::{Context, Result};
use rusqlite::params;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashSet};

/// Migration V5.
pub const MIGRATION: &str = "
CREATE TABLE capacity_searches (
    id             INTEGER PRIMARY KEY,
    run_id         INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    key            TEXT NOT NULL,
    implementation TEXT NOT NULL,
    scenario       TEXT NOT NULL,
    cores          INTEGER NOT NULL,
    connections    INTEGER NOT NULL,
    slo            TEXT NOT NULL,
    precision      REAL NOT NULL,
    start_rate     REAL NOT NULL,
    start_from     TEXT NOT NULL,
    started_at     TEXT NOT NULL,
    status         TEXT NOT NULL CHECK (status IN ('running', 'found', 'steps', 'budget', 'generator', 'no-start', 'error')),
    capacity       REAL,
    failed_rate    REAL,
    reason         TEXT,
    UNIQUE (run_id, key)
);
CREATE TABLE capacity_steps (
    search_id       INTEGER NOT NULL REFERENCES capacity_searches(id) ON DELETE CASCADE,
    n               INTEGER NOT NULL,
    rate            REAL NOT NULL,
    sent_per_s      REAL NOT NULL,
    duration_s      REAL NOT NULL,
    requests        INTEGER NOT NULL,
    successes       INTEGER NOT NULL,
    errors_total    INTEGER NOT NULL,
    errors          TEXT NOT NULL,
    lat_count       INTEGER NOT NULL,
    lat_mean_us     REAL NOT NULL,
    lat_p50_us      INTEGER NOT NULL,
    lat_p75_us      INTEGER NOT NULL,
    lat_p90_us      INTEGER NOT NULL,
    lat_p99_us      INTEGER NOT NULL,
    lat_p999_us     INTEGER NOT NULL,
    lat_max_us      INTEGER NOT NULL,
    server_cpu_util REAL NOT NULL,
    rss_peak_bytes  INTEGER NOT NULL,
    gen_cpu_util    REAL NOT NULL,
    gen_saturated   INTEGER NOT NULL,
    verdict         TEXT NOT NULL CHECK (verdict IN ('pass', 'fail', 'generator', 'error')),
    reason          TEXT,
    PRIMARY KEY (search_id, n)
);
";

/// One search and the steps it measured.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SearchRecord {
    pub id: i64,
    pub key: String,
    pub implementation: String,
    pub scenario: String,
    pub cores: u32,
    pub connections: u32,
    /// As `--slo` takes it, e.g. `p99<=10ms`.
    pub slo: String,
    pub precision: f64,
    pub start_rate: f64,
    /// Where the start rate came from, a sentence.
    pub start_from: String,
    pub started_at: String,
    /// `running` until it ends (`run::capacity::Status`).
    pub status: String,
    /// The highest rate (req/s) that passed, when one did.
    pub capacity: Option<f64>,
    /// The lowest rate that failed, when one did.
    pub failed_rate: Option<f64>,
    /// Why the search stopped, and why it failed at `failed_rate`.
    pub reason: Option<String>,
    pub steps: Vec<StepRecord>,
}

impl SearchRecord {
    /// The step measured at the capacity.
    pub fn capacity_step(&self) -> Option<&StepRecord> {
        let cap = self.capacity?;
        self.steps.iter().find(|s| s.rate == cap && s.verdict == "pass")
    }
}

/// One step: a warm-up then a measurement at one rate.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StepRecord {
    /// 1-based, in the order measured.
    pub n: u32,
    /// Requests per second asked for.
    pub rate: f64,
    /// Requests per second the generator sent.
    pub sent_per_s: f64,
    pub duration_s: f64,
    pub requests: u64,
    pub successes: u64,
    pub errors_total: u64,
    pub errors: BTreeMap<String, u64>,
    /// Without its histogram; its percentiles count the unanswered requests (`latency.unfinished`).
    pub latency: LatencyStats,
    /// The oldest unanswered request's age at the step's end; 0 when none.
    #[serde(default)]
    pub unfinished_max_us: u64,
    pub server_cpu_util: f64,
    pub rss_peak_bytes: u64,
    pub gen_cpu_util: f64,
    pub gen_saturated: bool,
    /// `pass`, `fail`, `generator`, `error` (`run::capacity::Verdict`).
    pub verdict: String,
    pub reason: Option<String>,
}

impl Store {
    /// Records a search starting (status `running`) and returns its id; an existing one (`--resume`) keeps its id and steps.
    pub fn begin_search(&self, run_id: i64, s: &SearchRecord) -> Result<i64> {
        if let Some(id) = self.search_id(run_id, &s.key)? {
            return Ok(id);
        }
        self.conn.execute(
            "INSERT INTO capacity_searches (run_id, key, implementation, scenario, cores, connections, slo, precision, start_rate, start_from, started_at, status)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, 'running')",
            params![run_id, s.key, s.implementation, s.scenario, s.cores, s.connections, s.slo, s.precision, s.start_rate, s.start_from, s.started_at],
        )?;
        Ok(self.conn.last_insert_rowid())
    }

    fn search_id(&self, run_id: i64, key: &str) -> Result<Option<i64>> {
        Ok(rows::search_id(&self.conn, "capacity_searches", run_id, key)?)
    }

    /// Writes one step, committed before this returns.
    pub fn insert_search_step(&self, search_id: i64, s: &StepRecord) -> Result<()> {
        let l = &s.latency;
        self.conn
            .execute(
                "INSERT INTO capacity_steps (search_id, n, rate, sent_per_s, duration_s, requests, successes, errors_total, errors,
                     lat_count, lat_mean_us, lat_p50_us, lat_p75_us, lat_p90_us, lat_p99_us, lat_p999_us, lat_max_us,
                     server_cpu_util, rss_peak_bytes, gen_cpu_util, gen_saturated, verdict, reason, lat_unfinished, lat_lower_bounds, unfinished_max_us)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26)",
                params![
                    search_id,
                    s.n,
                    s.rate,
                    s.sent_per_s,
                    s.duration_s,
                    s.requests as i64,
                    s.successes as i64,
                    s.errors_total as i64,
                    serde_json::to_string(&s.errors)?,
                    l.count as i64,
                    l.mean_us,
                    l.p50_us as i64,
                    l.p75_us as i64,
                    l.p90_us as i64,
                    l.p99_us as i64,
                    l.p999_us as i64,
                    l.max_us as i64,
                    s.server_cpu_util,
                    s.rss_peak_bytes as i64,
                    s.gen_cpu_util,
                    s.gen_saturated,
                    s.verdict,
                    s.reason,
                    l.unfinished as i64,
                    serde_json::to_string(&l.lower_bounds)?,
                    s.unfinished_max_us as i64
                ],
            )
            .with_context(|| format!("writing capacity step {} to {}", s.n, self.path.display()))?;
        Ok(())
    }

    /// Records how a search ended.
    pub fn end_search(&self, search_id: i64, status: &str, capacity: Option<f64>, failed_rate: Option<f64>, reason: &str) -> Result<()> {
        self.conn.execute(
            "UPDATE capacity_searches SET status = ?2, capacity = ?3, failed_rate = ?4, reason = ?5 WHERE id = ?1",
            params![search_id, status, capacity, failed_rate, reason],
        )?;
        Ok(())
    }

    /// Keys of a run's searches that ended (`--resume` skips them).
    pub fn ended_searches(&self, run_id: i64) -> Result<HashSet<String>> {
        Ok(rows::ended_keys(&self.conn, "capacity_searches", run_id)?)
    }

    /// A run's searches with their steps, in the order they started.
    pub fn searches(&self, run_id: i64) -> Result<Vec<SearchRecord>> {
        let mut stmt = self.conn.prepare(
            "SELECT id, key, implementation, scenario, cores, connections, slo, precision, start_rate, start_from, started_at, status, capacity, failed_rate, reason
             FROM capacity_searches WHERE run_id = ?1 ORDER BY id",
        )?;
        let mut searches: Vec<SearchRecord> = stmt
            .query_map([run_id], |r| {
                Ok(SearchRecord {
                    id: r.get(0)?,
                    key: r.get(1)?,
                    implementation: r.get(2)?,
                    scenario: r.get(3)?,
                    cores: r.get(4)?,
                    connections: r.get(5)?,
                    slo: r.get(6)?,
                    precision: r.get(7)?,
                    start_rate: r.get(8)?,
                    start_from: r.get(9)?,
                    started_at: r.get(10)?,
                    status: r.get(11)?,
                    capacity: r.get(12)?,
                    failed_rate: r.get(13)?,
                    reason: r.get(14)?,
                    steps: Vec::new(),
                })
            })?
            .collect::<rusqlite::Result<_>>()?;
        for s in &mut searches {
            s.steps = self.search_steps(s.id)?;
        }
        Ok(searches)
    }

    /// The search of `key` in a run, when it has begun.
    pub fn search(&self, run_id: i64, key: &str) -> Result<Option<SearchRecord>> {
        Ok(self.searches(run_id)?.into_iter().find(|s| s.key == key))
    }

    fn search_steps(&self, search_id: i64) -> Result<Vec<StepRecord>> {
        let mut stmt = self.conn.prepare("SELECT * FROM capacity_steps WHERE search_id = ?1 ORDER BY n")?;
        let steps = stmt
            .query_map([search_id], |r| {
                Ok(StepRecord {
                    n: r.get("n")?,
                    rate: r.get("rate")?,
                    sent_per_s: r.get("sent_per_s")?,
                    duration_s: r.get("duration_s")?,
                    requests: u64_col(r, "requests")?,
                    successes: u64_col(r, "successes")?,
                    errors_total: u64_col(r, "errors_total")?,
                    errors: json(r, "errors")?,
                    latency: LatencyStats {
                        count: u64_col(r, "lat_count")?,
                        mean_us: r.get("lat_mean_us")?,
                        p50_us: u64_col(r, "lat_p50_us")?,
                        p75_us: u64_col(r, "lat_p75_us")?,
                        p90_us: u64_col(r, "lat_p90_us")?,
                        p99_us: u64_col(r, "lat_p99_us")?,
                        p999_us: u64_col(r, "lat_p999_us")?,
                        max_us: u64_col(r, "lat_max_us")?,
                        unfinished: u64_col(r, "lat_unfinished")?,
                        lower_bounds: json(r, "lat_lower_bounds")?,
                        ..LatencyStats::default()
                    },
                    unfinished_max_us: u64_col(r, "unfinished_max_us")?,
                    server_cpu_util: r.get("server_cpu_util")?,
                    rss_peak_bytes: u64_col(r, "rss_peak_bytes")?,
                    gen_cpu_util: r.get("gen_cpu_util")?,
                    gen_saturated: r.get("gen_saturated")?,
                    verdict: r.get("verdict")?,
                    reason: r.get("reason")?,
                })
            })?
            .collect::<rusqlite::Result<_>>()?;
        Ok(steps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{RunInfo, Store};

    #[test]
    fn a_version_4_database_opens_with_its_runs_and_no_search() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("old.db");
        let run = RunInfo::starting("quick".into(), "k".into(), serde_json::json!({}), Default::default(), vec![]);
        let run_id = Store::open(&path).unwrap().insert_run(&run).unwrap();
        // What a concur from before V5 left: no capacity tables, nor any later migration, version 4.
        let conn = rusqlite::Connection::open(&path).unwrap();
        crate::store::schema::downgrade(&conn, 4);
        drop(conn);
        let store = Store::open_existing(&path).unwrap();
        let version: i64 = store.conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
        assert_eq!(version, crate::store::MIGRATIONS.len() as i64);
        assert_eq!(store.load_run(run_id).unwrap().run.profile, "quick");
        assert!(store.searches(run_id).unwrap().is_empty() && store.ended_searches(run_id).unwrap().is_empty());
    }

    #[test]
    fn a_search_and_its_steps_round_trip_and_a_resumed_search_keeps_its_id() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("c.db")).unwrap();
        let run = RunInfo::starting("quick".into(), "k".into(), serde_json::json!({}), Default::default(), vec![]);
        let run_id = store.insert_run(&run).unwrap();
        let search = SearchRecord { key: "a/hello/cores=1/capacity".into(), implementation: "a".into(), slo: "p99<=10ms".into(), status: "running".into(), ..Default::default() };
        let id = store.begin_search(run_id, &search).unwrap();
        let step = StepRecord { n: 1, rate: 100.0, verdict: "pass".into(), latency: LatencyStats { p99_us: 900, ..Default::default() }, ..Default::default() };
        store.insert_search_step(id, &step).unwrap();
        assert_eq!(store.begin_search(run_id, &search).unwrap(), id);
        assert!(store.ended_searches(run_id).unwrap().is_empty());
        store.end_search(id, "found", Some(100.0), Some(110.0), "p99 over the bound").unwrap();
        let back = store.searches(run_id).unwrap();
        assert_eq!(back.len(), 1);
        assert_eq!((back[0].capacity, back[0].status.as_str()), (Some(100.0), "found"));
        assert_eq!(back[0].steps, vec![step.clone()]);
        assert_eq!(back[0].capacity_step(), Some(&step));
        assert!(store.ended_searches(run_id).unwrap().contains("a/hello/cores=1/capacity"));
    }
}
