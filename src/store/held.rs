//! Clients-held searches (`concur run`, the profile's `[held]`) in the
//! results database: one row per search in `held_searches` (its settings,
//! and once it ends its status, the clients held and why it stopped), one
//! row per measured step in `held_steps`, written as the step ends so Ctrl-C
//! keeps it. Tables of their own beside `capacity_searches` and
//! `capacity_steps` rather than those tables generalised: a step here is a
//! number of clients with memory and waiting-CPU figures, not a rate with
//! an SLO, and a shared table would hold a column of each kind that is NULL
//! for the other. spec/RESULTS-DB.md documents both tables.

use super::Store;
use super::rows::{self, json, u64_col};
use anyhow::{Context, Result};
use rusqlite::params;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashSet};

/// Migration V10.
pub const MIGRATION: &str = "
CREATE TABLE held_searches (
    id             INTEGER PRIMARY KEY,
    run_id         INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    key            TEXT NOT NULL,
    implementation TEXT NOT NULL,
    scenario       TEXT NOT NULL,
    cores          INTEGER NOT NULL,
    wait_ms        INTEGER NOT NULL,
    spec_wait_ms   INTEGER NOT NULL,
    bound_ms       INTEGER NOT NULL,
    precision      REAL NOT NULL,
    spawn_rate     REAL NOT NULL,
    start_clients  INTEGER NOT NULL,
    max_clients    INTEGER NOT NULL,
    started_at     TEXT NOT NULL,
    status         TEXT NOT NULL CHECK (status IN ('running', 'found', 'steps', 'budget', 'generator', 'no-start', 'error', 'limit')),
    clients        INTEGER,
    failed_clients INTEGER,
    reason         TEXT,
    UNIQUE (run_id, key)
);
CREATE TABLE held_steps (
    search_id         INTEGER NOT NULL REFERENCES held_searches(id) ON DELETE CASCADE,
    n                 INTEGER NOT NULL,
    clients           INTEGER NOT NULL,
    spawn_rate        REAL NOT NULL,
    duration_s        REAL NOT NULL,
    successes         INTEGER NOT NULL,
    errors_total      INTEGER NOT NULL,
    errors            TEXT NOT NULL,
    error_messages    TEXT NOT NULL,
    unfinished        INTEGER NOT NULL,
    peak_in_flight    INTEGER NOT NULL,
    lat_p50_us        INTEGER NOT NULL,
    lat_p99_us        INTEGER NOT NULL,
    lat_max_us        INTEGER NOT NULL,
    rss_rest_bytes    INTEGER NOT NULL,
    rss_peak_bytes    INTEGER NOT NULL,
    server_cpu_util   REAL NOT NULL,
    waiting_cpu_util  REAL,
    machine_bytes     INTEGER NOT NULL,
    gen_cpu_util      REAL NOT NULL,
    verdict           TEXT NOT NULL CHECK (verdict IN ('pass', 'fail', 'generator', 'error', 'limit')),
    reason            TEXT,
    PRIMARY KEY (search_id, n)
);
";

/// Migration V13: the accept rate measured on each search's server, and whether the search
/// stopped where that rate could bring no more clients within the wait (issue 41).
pub const ACCEPT_MIGRATION: &str = "
ALTER TABLE held_searches ADD COLUMN accept_per_s REAL;
ALTER TABLE held_searches ADD COLUMN accept_answered INTEGER;
ALTER TABLE held_searches ADD COLUMN accept_errors INTEGER;
ALTER TABLE held_searches ADD COLUMN accept_p99_us INTEGER;
ALTER TABLE held_searches ADD COLUMN accept_server_cpu REAL;
ALTER TABLE held_searches ADD COLUMN accept_gen_cpu REAL;
ALTER TABLE held_searches ADD COLUMN accept_gen_saturated INTEGER;
ALTER TABLE held_searches ADD COLUMN arrival_clients INTEGER;
ALTER TABLE held_searches ADD COLUMN by_arrival INTEGER NOT NULL DEFAULT 0;
";

/// Migration V14: the spread of the accept-rate bursts (their lowest and highest), and the
/// machine's ceiling for each search: the most clients its open-file limit and memory let one
/// server hold, whatever the profile's `max_clients` (issue 41).
pub const CEILING_MIGRATION: &str = "
ALTER TABLE held_searches ADD COLUMN accept_low REAL;
ALTER TABLE held_searches ADD COLUMN accept_high REAL;
ALTER TABLE held_searches ADD COLUMN ceiling_clients INTEGER;
ALTER TABLE held_searches ADD COLUMN ceiling_limit TEXT;
";

/// The accept rate of a search's server (`run::held::accept`): new connections a second taken
/// to their first answered request, each request on a fresh connection the server closes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AcceptRecord {
    /// Connections answered per second of the measurement.
    pub per_s: f64,
    pub answered: u64,
    pub errors: u64,
    pub latency_p99_us: u64,
    /// The server's CPU use per core while measured: near 1, its own limit.
    pub server_cpu_util: f64,
    pub gen_cpu_util: f64,
    /// The generator kept its CPUs busy: the rate is a lower bound.
    pub gen_saturated: bool,
    /// The lowest and highest rate of the bursts `per_s` is the median of (equal for one
    /// burst; 0 in a file of an older concur).
    #[serde(default)]
    pub low: f64,
    #[serde(default)]
    pub high: f64,
}

/// The most clients the machine lets one search's server hold (`run::held::limits`), and the
/// limit that sets it, named: a search whose figure is this one was stopped by the machine.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CeilingRecord {
    pub clients: u64,
    pub limit: String,
}

/// One search and the steps it measured.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HeldSearchRecord {
    pub id: i64,
    /// `impl/scenario/cores=k/held`.
    pub key: String,
    pub implementation: String,
    pub scenario: String,
    pub cores: u32,
    /// The poll's wait the server was started with (`CONCUR_LONGPOLL_MS`).
    pub wait_ms: u64,
    /// The spec's default wait: when `wait_ms` is shorter, the report says so.
    pub spec_wait_ms: u64,
    /// A client answered later than `wait_ms + bound_ms` after its send fails its step.
    pub bound_ms: u64,
    pub precision: f64,
    /// The least rate clients were started at (users/s); a step raises it to start its clients within half the wait.
    pub spawn_rate: f64,
    pub start_clients: u64,
    pub max_clients: u64,
    pub started_at: String,
    /// `running` until it ends (`run::ramp::Status`).
    pub status: String,
    /// The most clients a step held with every one answered in time; none when no step passed.
    pub clients: Option<u64>,
    /// The fewest clients a step failed at.
    pub failed_clients: Option<u64>,
    /// Why the search stopped (the limit reached, named), then why it failed at `failed_clients`.
    pub reason: Option<String>,
    /// Its server's accept rate, measured before the first step; none in a file of an older concur.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accept: Option<AcceptRecord>,
    /// The most clients a step could bring within half the wait at half the accept rate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arrival_clients: Option<u64>,
    /// The search stopped at `arrival_clients`, every step passed: `clients` is a lower bound set
    /// by how fast the server accepts, not a holding limit.
    #[serde(default)]
    pub by_arrival: bool,
    /// The machine's ceiling at the search's end; none in a file of an older concur.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ceiling: Option<CeilingRecord>,
    pub steps: Vec<HeldStepRecord>,
}

impl HeldSearchRecord {
    /// The step measured at the clients held.
    pub fn held_step(&self) -> Option<&HeldStepRecord> {
        let held = self.clients?;
        self.steps.iter().find(|s| s.clients == held && s.verdict == "pass")
    }

    /// Passing steps measured before any step of more clients: a server's RSS rarely falls
    /// back after a larger step (a JVM keeps its heap, an allocator its pages), so the peak of
    /// a later, smaller step still holds that step's memory. java-jetty-vthreads measured
    /// 21.5 KiB per client at 1,000 and 50.2 at 1,682 after a step of 2,000.
    pub fn clean_steps(&self) -> impl Iterator<Item = &HeldStepRecord> {
        self.steps.iter().enumerate().filter(|(i, s)| s.verdict == "pass" && self.steps[..*i].iter().all(|e| e.clients < s.clients)).map(|(_, s)| s)
    }

    /// The step memory per waiting client is read from: the largest of `clean_steps`.
    pub fn memory_step(&self) -> Option<&HeldStepRecord> {
        self.clean_steps().max_by_key(|s| s.clients)
    }
}

/// One step: `clients` long-poll clients started at `spawn_rate`, one request each.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HeldStepRecord {
    /// 1-based, in the order measured.
    pub n: u32,
    pub clients: u64,
    /// Clients started per second in this step.
    pub spawn_rate: f64,
    pub duration_s: f64,
    /// Clients answered with the expected status within the timeout.
    pub successes: u64,
    pub errors_total: u64,
    /// Error kind (`timeout`, `connect`, `status 503`, …) → count.
    pub errors: BTreeMap<String, u64>,
    /// Error kind → the first operating-system message seen (names a machine limit: EMFILE, EADDRNOTAVAIL).
    pub error_messages: BTreeMap<String, String>,
    /// Requests still unanswered when the step ended (interrupted).
    pub unfinished: u64,
    /// The most requests in flight at once: `clients` when every client waited at the same time.
    pub peak_in_flight: u64,
    pub latency_p50_us: u64,
    pub latency_p99_us: u64,
    pub latency_max_us: u64,
    /// The server's RSS before any client of its search came (its process tree).
    pub rss_rest_bytes: u64,
    /// Its peak RSS during the step.
    pub rss_peak_bytes: u64,
    /// Its CPU use per core over the whole step (the clients' arrival and answers included).
    pub server_cpu_util: f64,
    /// Its CPU use per core while every client waited (between the last arrival and the
    /// first answer); none when that window held no two samples.
    pub waiting_cpu_util: Option<f64>,
    /// The fall of the machine's MemAvailable from before the step to its lowest during it:
    /// the server's, the generator's and the kernel's memory for these clients together.
    pub machine_bytes: u64,
    pub gen_cpu_util: f64,
    /// `pass`, `fail`, `generator`, `error`, `limit` (`run::ramp::Verdict`).
    pub verdict: String,
    pub reason: Option<String>,
}

impl HeldStepRecord {
    /// Server memory per waiting client, KiB: (peak RSS − RSS at rest) / clients.
    pub fn kib_per_client(&self) -> Option<f64> {
        (self.clients > 0 && self.rss_peak_bytes > 0).then(|| self.rss_peak_bytes.saturating_sub(self.rss_rest_bytes) as f64 / 1024.0 / self.clients as f64)
    }
}

impl Store {
    /// Records a search starting (status `running`) and returns its id; an existing one (`--resume`) keeps its id and steps.
    pub fn begin_held_search(&self, run_id: i64, s: &HeldSearchRecord) -> Result<i64> {
        if let Some(id) = self.held_search_id(run_id, &s.key)? {
            return Ok(id);
        }
        self.conn.execute(
            "INSERT INTO held_searches (run_id, key, implementation, scenario, cores, wait_ms, spec_wait_ms, bound_ms, precision, spawn_rate,
                 start_clients, max_clients, started_at, status)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, 'running')",
            params![
                run_id,
                s.key,
                s.implementation,
                s.scenario,
                s.cores,
                s.wait_ms as i64,
                s.spec_wait_ms as i64,
                s.bound_ms as i64,
                s.precision,
                s.spawn_rate,
                s.start_clients as i64,
                s.max_clients as i64,
                s.started_at
            ],
        )?;
        Ok(self.conn.last_insert_rowid())
    }

    fn held_search_id(&self, run_id: i64, key: &str) -> Result<Option<i64>> {
        Ok(rows::search_id(&self.conn, "held_searches", run_id, key)?)
    }

    /// Writes one step, committed before this returns.
    pub fn insert_held_step(&self, search_id: i64, s: &HeldStepRecord) -> Result<()> {
        self.conn
            .execute(
                "INSERT INTO held_steps (search_id, n, clients, spawn_rate, duration_s, successes, errors_total, errors, error_messages, unfinished,
                     peak_in_flight, lat_p50_us, lat_p99_us, lat_max_us, rss_rest_bytes, rss_peak_bytes, server_cpu_util, waiting_cpu_util,
                     machine_bytes, gen_cpu_util, verdict, reason)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22)",
                params![
                    search_id,
                    s.n,
                    s.clients as i64,
                    s.spawn_rate,
                    s.duration_s,
                    s.successes as i64,
                    s.errors_total as i64,
                    serde_json::to_string(&s.errors)?,
                    serde_json::to_string(&s.error_messages)?,
                    s.unfinished as i64,
                    s.peak_in_flight as i64,
                    s.latency_p50_us as i64,
                    s.latency_p99_us as i64,
                    s.latency_max_us as i64,
                    s.rss_rest_bytes as i64,
                    s.rss_peak_bytes as i64,
                    s.server_cpu_util,
                    s.waiting_cpu_util,
                    s.machine_bytes as i64,
                    s.gen_cpu_util,
                    s.verdict,
                    s.reason
                ],
            )
            .with_context(|| format!("writing clients-held step {} to {}", s.n, self.path.display()))?;
        Ok(())
    }

    /// Records how a search ended; `by_arrival`: at the clients its server's accept rate brings.
    pub fn end_held_search(&self, search_id: i64, status: &str, clients: Option<u64>, failed: Option<u64>, reason: &str, by_arrival: bool) -> Result<()> {
        self.conn.execute(
            "UPDATE held_searches SET status = ?2, clients = ?3, failed_clients = ?4, reason = ?5, by_arrival = ?6 WHERE id = ?1",
            params![search_id, status, clients.map(|c| c as i64), failed.map(|c| c as i64), reason, by_arrival],
        )?;
        Ok(())
    }

    /// Records a search's accept rate and the clients it lets a step bring (`--resume` measures them again).
    pub fn set_held_accept(&self, search_id: i64, accept: &AcceptRecord, arrival_clients: Option<u64>) -> Result<()> {
        self.conn.execute(
            "UPDATE held_searches SET accept_per_s = ?2, accept_answered = ?3, accept_errors = ?4, accept_p99_us = ?5, accept_server_cpu = ?6,
                 accept_gen_cpu = ?7, accept_gen_saturated = ?8, arrival_clients = ?9, accept_low = ?10, accept_high = ?11 WHERE id = ?1",
            params![
                search_id,
                accept.per_s,
                accept.answered as i64,
                accept.errors as i64,
                accept.latency_p99_us as i64,
                accept.server_cpu_util,
                accept.gen_cpu_util,
                accept.gen_saturated,
                arrival_clients.map(|c| c as i64),
                accept.low,
                accept.high
            ],
        )?;
        Ok(())
    }

    /// Records the machine's ceiling for a search, as it stood when the search ended.
    pub fn set_held_ceiling(&self, search_id: i64, ceiling: &CeilingRecord) -> Result<()> {
        self.conn.execute(
            "UPDATE held_searches SET ceiling_clients = ?2, ceiling_limit = ?3 WHERE id = ?1",
            params![search_id, ceiling.clients as i64, ceiling.limit],
        )?;
        Ok(())
    }

    /// Keys of a run's clients-held searches that ended (`--resume` skips them).
    pub fn ended_held_searches(&self, run_id: i64) -> Result<HashSet<String>> {
        Ok(rows::ended_keys(&self.conn, "held_searches", run_id)?)
    }

    /// A run's clients-held searches with their steps, in the order they started.
    pub fn held_searches(&self, run_id: i64) -> Result<Vec<HeldSearchRecord>> {
        let mut stmt = self.conn.prepare("SELECT * FROM held_searches WHERE run_id = ?1 ORDER BY id")?;
        let mut searches: Vec<HeldSearchRecord> = stmt
            .query_map([run_id], |r| {
                Ok(HeldSearchRecord {
                    id: r.get("id")?,
                    key: r.get("key")?,
                    implementation: r.get("implementation")?,
                    scenario: r.get("scenario")?,
                    cores: r.get("cores")?,
                    wait_ms: u64_col(r, "wait_ms")?,
                    spec_wait_ms: u64_col(r, "spec_wait_ms")?,
                    bound_ms: u64_col(r, "bound_ms")?,
                    precision: r.get("precision")?,
                    spawn_rate: r.get("spawn_rate")?,
                    start_clients: u64_col(r, "start_clients")?,
                    max_clients: u64_col(r, "max_clients")?,
                    started_at: r.get("started_at")?,
                    status: r.get("status")?,
                    clients: r.get::<_, Option<i64>>("clients")?.map(|c| c as u64),
                    failed_clients: r.get::<_, Option<i64>>("failed_clients")?.map(|c| c as u64),
                    reason: r.get("reason")?,
                    accept: match r.get::<_, Option<f64>>("accept_per_s")? {
                        None => None,
                        Some(per_s) => Some(AcceptRecord {
                            per_s,
                            answered: u64_col(r, "accept_answered")?,
                            errors: u64_col(r, "accept_errors")?,
                            latency_p99_us: u64_col(r, "accept_p99_us")?,
                            server_cpu_util: r.get("accept_server_cpu")?,
                            gen_cpu_util: r.get("accept_gen_cpu")?,
                            gen_saturated: r.get("accept_gen_saturated")?,
                            low: r.get::<_, Option<f64>>("accept_low")?.unwrap_or(0.0),
                            high: r.get::<_, Option<f64>>("accept_high")?.unwrap_or(0.0),
                        }),
                    },
                    arrival_clients: r.get::<_, Option<i64>>("arrival_clients")?.map(|c| c as u64),
                    by_arrival: r.get("by_arrival")?,
                    ceiling: match (r.get::<_, Option<i64>>("ceiling_clients")?, r.get::<_, Option<String>>("ceiling_limit")?) {
                        (Some(clients), Some(limit)) => Some(CeilingRecord { clients: clients as u64, limit }),
                        _ => None,
                    },
                    steps: Vec::new(),
                })
            })?
            .collect::<rusqlite::Result<_>>()?;
        for s in &mut searches {
            s.steps = self.held_steps(s.id)?;
        }
        Ok(searches)
    }

    /// The clients-held search of `key` in a run, when it has begun.
    pub fn held_search(&self, run_id: i64, key: &str) -> Result<Option<HeldSearchRecord>> {
        Ok(self.held_searches(run_id)?.into_iter().find(|s| s.key == key))
    }

    fn held_steps(&self, search_id: i64) -> Result<Vec<HeldStepRecord>> {
        let mut stmt = self.conn.prepare("SELECT * FROM held_steps WHERE search_id = ?1 ORDER BY n")?;
        let steps = stmt
            .query_map([search_id], |r| {
                Ok(HeldStepRecord {
                    n: r.get("n")?,
                    clients: u64_col(r, "clients")?,
                    spawn_rate: r.get("spawn_rate")?,
                    duration_s: r.get("duration_s")?,
                    successes: u64_col(r, "successes")?,
                    errors_total: u64_col(r, "errors_total")?,
                    errors: json(r, "errors")?,
                    error_messages: json(r, "error_messages")?,
                    unfinished: u64_col(r, "unfinished")?,
                    peak_in_flight: u64_col(r, "peak_in_flight")?,
                    latency_p50_us: u64_col(r, "lat_p50_us")?,
                    latency_p99_us: u64_col(r, "lat_p99_us")?,
                    latency_max_us: u64_col(r, "lat_max_us")?,
                    rss_rest_bytes: u64_col(r, "rss_rest_bytes")?,
                    rss_peak_bytes: u64_col(r, "rss_peak_bytes")?,
                    server_cpu_util: r.get("server_cpu_util")?,
                    waiting_cpu_util: r.get("waiting_cpu_util")?,
                    machine_bytes: u64_col(r, "machine_bytes")?,
                    gen_cpu_util: r.get("gen_cpu_util")?,
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
    fn a_version_9_database_opens_with_its_runs_and_no_held_search() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("old.db");
        let run = RunInfo::starting("quick".into(), "k".into(), serde_json::json!({}), Default::default(), vec![]);
        let run_id = Store::open(&path).unwrap().insert_run(&run).unwrap();
        let conn = rusqlite::Connection::open(&path).unwrap();
        // What a concur of version 9 left: neither V10's held tables nor V11's database usage.
        crate::store::schema::downgrade(&conn, 9);
        drop(conn);
        let store = Store::open_existing(&path).unwrap();
        let version: i64 = store.conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
        assert_eq!(version, crate::store::MIGRATIONS.len() as i64);
        assert!(store.held_searches(run_id).unwrap().is_empty() && store.ended_held_searches(run_id).unwrap().is_empty());
    }

    #[test]
    fn a_search_and_its_steps_round_trip_and_a_resumed_search_keeps_its_id() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("h.db")).unwrap();
        let run = RunInfo::starting("quick".into(), "k".into(), serde_json::json!({}), Default::default(), vec![]);
        let run_id = store.insert_run(&run).unwrap();
        let search = HeldSearchRecord { key: "a/longpoll/cores=1/held".into(), implementation: "a".into(), wait_ms: 2000, status: "running".into(), ..Default::default() };
        let id = store.begin_held_search(run_id, &search).unwrap();
        let step = HeldStepRecord {
            n: 1,
            clients: 1000,
            verdict: "pass".into(),
            rss_rest_bytes: 10 << 20,
            rss_peak_bytes: 30 << 20,
            waiting_cpu_util: Some(0.02),
            errors: BTreeMap::from([("timeout".to_string(), 0)]),
            error_messages: BTreeMap::from([("connect".to_string(), "Too many open files (os error 24)".to_string())]),
            ..Default::default()
        };
        store.insert_held_step(id, &step).unwrap();
        assert_eq!(store.begin_held_search(run_id, &search).unwrap(), id);
        assert!(store.ended_held_searches(run_id).unwrap().is_empty());
        assert_eq!(store.held_searches(run_id).unwrap()[0].accept, None, "not measured yet");
        let accept = AcceptRecord { per_s: 1012.5, answered: 1013, latency_p99_us: 41_000, server_cpu_util: 0.99, gen_cpu_util: 0.2, low: 980.0, high: 1100.0, ..Default::default() };
        store.set_held_accept(id, &accept, Some(506)).unwrap();
        assert_eq!(store.held_searches(run_id).unwrap()[0].ceiling, None, "not ended yet");
        let ceiling = CeilingRecord { clients: 19_936, limit: "open files: the limit is 20000 descriptors per process (64 kept spare)".into() };
        store.set_held_ceiling(id, &ceiling).unwrap();
        store.end_held_search(id, "found", Some(1000), Some(1100), "found within 10%", false).unwrap();
        let back = store.held_searches(run_id).unwrap();
        assert_eq!((back.len(), back[0].clients, back[0].status.as_str(), back[0].wait_ms), (1, Some(1000), "found", 2000));
        assert_eq!((back[0].accept.as_ref(), back[0].arrival_clients, back[0].by_arrival), (Some(&accept), Some(506), false));
        assert_eq!(back[0].ceiling.as_ref(), Some(&ceiling));
        assert_eq!(back[0].steps, vec![step.clone()]);
        assert_eq!(back[0].held_step(), Some(&step));
        assert_eq!(step.kib_per_client(), Some(20.48), "(30 MiB − 10 MiB) / 1,000 clients");
        assert!(store.ended_held_searches(run_id).unwrap().contains("a/longpoll/cores=1/held"));
    }

    #[test]
    fn memory_is_read_before_a_larger_step_left_its_rss_behind() {
        let step = |n, clients, verdict: &str| HeldStepRecord { n, clients, verdict: verdict.into(), ..Default::default() };
        // java-jetty-vthreads' walk: 1,000 passed, 2,000 failed, then 1,414 and 1,682 passed.
        let s = HeldSearchRecord {
            clients: Some(1682),
            steps: vec![step(1, 1000, "pass"), step(2, 2000, "fail"), step(3, 1414, "pass"), step(4, 1682, "pass")],
            ..Default::default()
        };
        assert_eq!(s.clean_steps().map(|st| st.n).collect::<Vec<_>>(), vec![1]);
        assert_eq!((s.memory_step().map(|st| st.n), s.held_step().map(|st| st.n)), (Some(1), Some(4)));
        let doubling = HeldSearchRecord { steps: vec![step(1, 1000, "pass"), step(2, 2000, "pass"), step(3, 4000, "fail")], ..Default::default() };
        assert_eq!(doubling.memory_step().map(|st| st.n), Some(2));
    }
}
