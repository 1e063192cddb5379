//! The process micro-benchmarks' tables (`concur micro`, spec/MICRO.md):
//! one row per program invocation in `micro_results`, taken or failed, and
//! one row per maximum-processes search in `micro_searches`. A micro run is
//! an ordinary row of `runs` (profile `micro:<name>`), so it carries the same
//! environment as an HTTP run; it simply has no `points`.
//!
//! Summary numbers are columns so the file can be queried with plain SQL;
//! the parameters are also kept whole as JSON, and the program's own result
//! line is kept verbatim.

use super::{Store, json_err};
use anyhow::{Context, Result};
use rusqlite::{Row, named_params};
use serde::{Deserialize, Serialize};

/// The migration creating the micro tables; appended to `schema::MIGRATIONS`.
pub const MIGRATION: &str = "
CREATE TABLE micro_results (
    id                  INTEGER PRIMARY KEY,
    run_id              INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    key                 TEXT NOT NULL,
    implementation      TEXT NOT NULL,
    bench               TEXT NOT NULL,
    params              TEXT NOT NULL,
    size                INTEGER,
    reps                INTEGER,
    procs               INTEGER,
    pairs               INTEGER,
    seconds             REAL,
    sleep_ms            INTEGER,
    cores               INTEGER NOT NULL,
    repeat              INTEGER NOT NULL,
    started_at          TEXT NOT NULL,
    status              TEXT NOT NULL CHECK (status IN ('ok', 'failed', 'budget')),
    reason              TEXT,
    exit_code           INTEGER,
    signal              INTEGER,
    wall_s              REAL NOT NULL,
    ops                 INTEGER,
    elapsed_ns          INTEGER,
    ns_per_op           REAL,
    messages_per_s      REAL,
    min_pair_round_trips INTEGER,
    peak_rss_bytes      INTEGER NOT NULL,
    group_rss_peak_bytes INTEGER NOT NULL,
    os_processes_max    INTEGER NOT NULL,
    baseline_rss_bytes  INTEGER,
    bytes_per_proc      REAL,
    line                TEXT,
    stderr_tail         TEXT NOT NULL,
    UNIQUE (run_id, key)
);
CREATE INDEX micro_results_by_run ON micro_results (run_id, bench, implementation, cores);
CREATE TABLE micro_searches (
    run_id         INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    implementation TEXT NOT NULL,
    cores          INTEGER NOT NULL,
    repeat         INTEGER NOT NULL,
    largest_n      INTEGER,
    stop           TEXT NOT NULL CHECK (stop IN ('exit-1', 'killed-at-budget', 'killed-by-signal', 'timeout', 'limit', 'invalid')),
    detail         TEXT NOT NULL,
    budget_bytes   INTEGER NOT NULL,
    PRIMARY KEY (run_id, implementation, cores, repeat)
);
";

/// The parameters `concur micro` passed; only those the benchmark uses are set.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MicroParams {
    /// Payload bytes (pingping).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Repetitions (pingping, pingpong).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reps: Option<u64>,
    /// Processes (spawn, maxprocs, idle).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub procs: Option<u64>,
    /// Communicating pairs (pairs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pairs: Option<u64>,
    /// Run length in seconds (pairs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
    /// Each idle task's sleep (idle).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sleep_ms: Option<u64>,
    /// Processes killed per second, in percent of the 2P (supervised).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kill_rate: Option<f64>,
}

/// How an invocation ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MicroStatus {
    /// Exit 0 with a valid result line whose checks agree.
    Ok,
    /// Exit 1 (the program's reason), a signal, the outer time limit, or an invalid result line.
    Failed,
    /// Killed from outside when its process group's RSS passed `--mem-budget`.
    Budget,
}

impl MicroStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            MicroStatus::Ok => "ok",
            MicroStatus::Failed => "failed",
            MicroStatus::Budget => "budget",
        }
    }

    pub fn parse(s: &str) -> Option<MicroStatus> {
        [MicroStatus::Ok, MicroStatus::Failed, MicroStatus::Budget].into_iter().find(|st| st.as_str() == s)
    }
}

/// One invocation of a micro program: one benchmark, one measurement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MicroRecord {
    /// Unique within its run: `impl/bench/params/cores=C/repeat`.
    pub key: String,
    pub implementation: String,
    /// `pingping`, `pingpong`, `spawn`, `maxprocs`, `pairs` or `idle`.
    pub bench: String,
    pub params: MicroParams,
    /// CPUs the program was pinned to, and its `--cores`.
    pub cores: u32,
    /// 1-based.
    pub repeat: u32,
    pub started_at: String,
    pub status: MicroStatus,
    /// Why it is not `ok`: the program's stderr line, the signal, the budget, what was wrong with its line.
    pub reason: Option<String>,
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    /// Wall time of the whole invocation, start-up included.
    pub wall_s: f64,
    /// From the result line (absent unless `ok`): what `ns_per_op` divides by.
    pub ops: Option<u64>,
    pub elapsed_ns: Option<u64>,
    pub ns_per_op: Option<f64>,
    /// pairs only.
    pub messages_per_s: Option<f64>,
    /// pairs only: the slowest pair's round trips (a fairness indicator).
    pub min_pair_round_trips: Option<u64>,
    /// supervised only (spec/MICRO.md §4.7): what the killer did and what it cost.
    pub supervision: Option<Supervision>,
    /// The kernel's peak RSS of the program (`ru_maxrss` from `wait4`), bytes (spec/MICRO.md §6).
    pub peak_rss_bytes: u64,
    /// Peak of the process group's summed RSS, sampled every 50 ms (what the budget watches).
    pub group_rss_peak_bytes: u64,
    /// Most OS processes seen in the group at once.
    pub os_processes_max: u32,
    /// Peak RSS of the same runtime's one-process run that `bytes_per_proc` subtracts.
    pub baseline_rss_bytes: Option<u64>,
    /// `(peak_rss_bytes − baseline_rss_bytes) / procs` (spawn, maxprocs, idle).
    pub bytes_per_proc: Option<f64>,
    /// The program's result line, verbatim.
    pub line: Option<String>,
    /// The last lines of the program's stderr.
    pub stderr_tail: String,
}

/// What a supervised run's killer did, and what the supervision made of it (spec/MICRO.md §4.7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Supervision {
    /// Processes killed.
    pub kills: u64,
    /// Messages counted sent and never received.
    pub lost: u64,
    /// From a kill to its replacement's first run: median and 99th percentile, nanoseconds (0 without kills).
    pub restart_p50_ns: u64,
    pub restart_p99_ns: u64,
    /// Kills whose replacement first ran after the stop: the latencies then measure the run's end.
    pub late_restarts: u64,
}

/// Why a maximum-processes search stopped (spec/MICRO.md §4.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SearchStop {
    /// The program exited 1 (its reason is the detail).
    #[serde(rename = "exit-1")]
    Exit1,
    KilledAtBudget,
    KilledBySignal,
    Timeout,
    /// Every step of the profile passed.
    Limit,
    /// Exit 0 but a result line that failed validation.
    Invalid,
}

impl SearchStop {
    pub fn as_str(self) -> &'static str {
        match self {
            SearchStop::Exit1 => "exit-1",
            SearchStop::KilledAtBudget => "killed-at-budget",
            SearchStop::KilledBySignal => "killed-by-signal",
            SearchStop::Timeout => "timeout",
            SearchStop::Limit => "limit",
            SearchStop::Invalid => "invalid",
        }
    }

    pub fn parse(s: &str) -> Option<SearchStop> {
        use SearchStop::*;
        [Exit1, KilledAtBudget, KilledBySignal, Timeout, Limit, Invalid].into_iter().find(|st| st.as_str() == s)
    }
}

/// The outcome of one maximum-processes search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchRecord {
    pub implementation: String,
    pub cores: u32,
    pub repeat: u32,
    /// The largest N whose step exited 0 with a valid line; `None` if the first failed.
    pub largest_n: Option<u64>,
    pub stop: SearchStop,
    /// The failing step's N and reason, or the profile's last N for `limit`.
    pub detail: String,
    pub budget_bytes: u64,
}

const COLUMNS: &str = "key, implementation, bench, params, size, reps, procs, pairs, seconds, sleep_ms, cores, repeat, started_at,
    status, reason, exit_code, signal, wall_s, ops, elapsed_ns, ns_per_op, messages_per_s, min_pair_round_trips,
    peak_rss_bytes, group_rss_peak_bytes, os_processes_max, baseline_rss_bytes, bytes_per_proc, line, stderr_tail,
    kill_rate, kills, lost, restart_p50_ns, restart_p99_ns, late_restarts";

/// Schema version 17: the supervised benchmark's kill rate and what it cost (spec/MICRO.md §4.7).
pub const SUPERVISED_MIGRATION: &str = "
ALTER TABLE micro_results ADD COLUMN kill_rate REAL;
ALTER TABLE micro_results ADD COLUMN kills INTEGER;
ALTER TABLE micro_results ADD COLUMN lost INTEGER;
ALTER TABLE micro_results ADD COLUMN restart_p50_ns INTEGER;
ALTER TABLE micro_results ADD COLUMN restart_p99_ns INTEGER;
ALTER TABLE micro_results ADD COLUMN late_restarts INTEGER;
";

impl Store {
    /// Writes one micro result, committed before this returns.
    pub fn insert_micro(&self, run_id: i64, r: &MicroRecord) -> Result<()> {
        let p = &r.params;
        let i = |v: Option<u64>| v.map(|v| v as i64);
        let sql = format!(
            "INSERT INTO micro_results (run_id, {COLUMNS}) VALUES (:run_id, :key, :implementation, :bench, :params, :size, :reps, :procs, :pairs,
                :seconds, :sleep_ms, :cores, :repeat, :started_at, :status, :reason, :exit_code, :signal, :wall_s, :ops, :elapsed_ns,
                :ns_per_op, :messages_per_s, :min_pair_round_trips, :peak_rss_bytes, :group_rss_peak_bytes, :os_processes_max,
                :baseline_rss_bytes, :bytes_per_proc, :line, :stderr_tail, :kill_rate, :kills, :lost, :restart_p50_ns, :restart_p99_ns, :late_restarts)"
        );
        let sup = r.supervision;
        self.conn
            .execute(
                &sql,
                named_params! {
                    ":run_id": run_id, ":key": r.key, ":implementation": r.implementation, ":bench": r.bench,
                    ":params": serde_json::to_string(p)?, ":size": i(p.size), ":reps": i(p.reps), ":procs": i(p.procs),
                    ":pairs": i(p.pairs), ":seconds": p.seconds, ":sleep_ms": i(p.sleep_ms), ":cores": r.cores, ":repeat": r.repeat,
                    ":started_at": r.started_at, ":status": r.status.as_str(), ":reason": r.reason, ":exit_code": r.exit_code,
                    ":signal": r.signal, ":wall_s": r.wall_s, ":ops": i(r.ops), ":elapsed_ns": i(r.elapsed_ns), ":ns_per_op": r.ns_per_op,
                    ":messages_per_s": r.messages_per_s, ":min_pair_round_trips": i(r.min_pair_round_trips),
                    ":peak_rss_bytes": r.peak_rss_bytes as i64, ":group_rss_peak_bytes": r.group_rss_peak_bytes as i64,
                    ":os_processes_max": r.os_processes_max, ":baseline_rss_bytes": i(r.baseline_rss_bytes),
                    ":bytes_per_proc": r.bytes_per_proc, ":line": r.line, ":stderr_tail": r.stderr_tail,
                    ":kill_rate": p.kill_rate, ":kills": i(sup.map(|s| s.kills)), ":lost": i(sup.map(|s| s.lost)),
                    ":restart_p50_ns": i(sup.map(|s| s.restart_p50_ns)), ":restart_p99_ns": i(sup.map(|s| s.restart_p99_ns)), ":late_restarts": i(sup.map(|s| s.late_restarts)),
                },
            )
            .with_context(|| format!("writing micro result {} to {}", r.key, self.path.display()))?;
        Ok(())
    }

    /// Writes (or replaces) the outcome of one maximum-processes search.
    pub fn put_micro_search(&self, run_id: i64, s: &SearchRecord) -> Result<()> {
        self.conn
            .execute(
                "INSERT OR REPLACE INTO micro_searches (run_id, implementation, cores, repeat, largest_n, stop, detail, budget_bytes)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                rusqlite::params![run_id, s.implementation, s.cores, s.repeat, s.largest_n.map(|n| n as i64), s.stop.as_str(), s.detail, s.budget_bytes as i64],
            )
            .with_context(|| format!("writing the maxprocs search of {} to {}", s.implementation, self.path.display()))?;
        Ok(())
    }

    /// A run's micro results in the order they were taken.
    pub fn micro_results(&self, run_id: i64) -> Result<Vec<MicroRecord>> {
        let mut stmt = self.conn.prepare(&format!("SELECT {COLUMNS} FROM micro_results WHERE run_id = ?1 ORDER BY id"))?;
        Ok(stmt.query_map([run_id], record_from_row)?.collect::<rusqlite::Result<_>>()?)
    }

    /// A run's maximum-processes searches.
    pub fn micro_searches(&self, run_id: i64) -> Result<Vec<SearchRecord>> {
        let mut stmt = self.conn.prepare(
            "SELECT implementation, cores, repeat, largest_n, stop, detail, budget_bytes FROM micro_searches
             WHERE run_id = ?1 ORDER BY implementation, cores, repeat",
        )?;
        let rows = stmt.query_map([run_id], |r| {
            let stop: String = r.get(4)?;
            Ok(SearchRecord {
                implementation: r.get(0)?,
                cores: r.get(1)?,
                repeat: r.get(2)?,
                largest_n: r.get::<_, Option<i64>>(3)?.map(|n| n as u64),
                stop: SearchStop::parse(&stop).unwrap_or(SearchStop::Invalid),
                detail: r.get(5)?,
                budget_bytes: r.get::<_, i64>(6)?.max(0) as u64,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The newest run holding micro results, for `concur report`.
    pub fn latest_micro_run_id(&self) -> Result<Option<i64>> {
        Ok(self.conn.query_row("SELECT max(run_id) FROM micro_results", [], |r| r.get(0))?)
    }
}

fn record_from_row(r: &Row) -> rusqlite::Result<MicroRecord> {
    let u = |col: &str| -> rusqlite::Result<Option<u64>> { Ok(r.get::<_, Option<i64>>(col)?.map(|v| v.max(0) as u64)) };
    let params: String = r.get("params")?;
    let status: String = r.get("status")?;
    Ok(MicroRecord {
        key: r.get("key")?,
        implementation: r.get("implementation")?,
        bench: r.get("bench")?,
        params: serde_json::from_str(&params).map_err(json_err)?,
        cores: r.get("cores")?,
        repeat: r.get("repeat")?,
        started_at: r.get("started_at")?,
        status: MicroStatus::parse(&status).unwrap_or(MicroStatus::Failed),
        reason: r.get("reason")?,
        exit_code: r.get("exit_code")?,
        signal: r.get("signal")?,
        wall_s: r.get("wall_s")?,
        ops: u("ops")?,
        elapsed_ns: u("elapsed_ns")?,
        ns_per_op: r.get("ns_per_op")?,
        messages_per_s: r.get("messages_per_s")?,
        min_pair_round_trips: u("min_pair_round_trips")?,
        supervision: match (u("kills")?, u("lost")?, u("restart_p50_ns")?, u("restart_p99_ns")?, u("late_restarts")?) {
            (Some(kills), Some(lost), Some(restart_p50_ns), Some(restart_p99_ns), Some(late_restarts)) => Some(Supervision { kills, lost, restart_p50_ns, restart_p99_ns, late_restarts }),
            _ => None,
        },
        peak_rss_bytes: u("peak_rss_bytes")?.unwrap_or(0),
        group_rss_peak_bytes: u("group_rss_peak_bytes")?.unwrap_or(0),
        os_processes_max: r.get("os_processes_max")?,
        baseline_rss_bytes: u("baseline_rss_bytes")?,
        bytes_per_proc: r.get("bytes_per_proc")?,
        line: r.get("line")?,
        stderr_tail: r.get("stderr_tail")?,
    })
}

#[cfg(test)]
mod tests {
    use super::super::{Environment, RunInfo, RunStatus};
    use super::*;

    pub fn record(key: &str, status: MicroStatus) -> MicroRecord {
        MicroRecord {
            key: key.into(),
            implementation: "go".into(),
            bench: "spawn".into(),
            params: MicroParams { procs: Some(1000), ..Default::default() },
            cores: 2,
            repeat: 1,
            started_at: "2025-01-02T03:04:05Z".into(),
            status,
            reason: (status != MicroStatus::Ok).then(|| "runtime: out of memory".into()),
            exit_code: Some(if status == MicroStatus::Ok { 0 } else { 1 }),
            signal: None,
            wall_s: 0.25,
            ops: Some(1000),
            elapsed_ns: Some(1_000_000),
            ns_per_op: Some(1000.0),
            messages_per_s: None,
            min_pair_round_trips: None,
            supervision: None,
            peak_rss_bytes: 5 << 20,
            group_rss_peak_bytes: 5 << 20,
            os_processes_max: 1,
            baseline_rss_bytes: Some(2 << 20),
            bytes_per_proc: Some(3145.728),
            line: Some("{\"schema\":1}".into()),
            stderr_tail: String::new(),
        }
    }

    fn run_id(store: &Store) -> i64 {
        let run = RunInfo {
            id: 0,
            started_at: "2025-01-02T03:04:05Z".into(),
            finished_at: None,
            status: RunStatus::Running,
            profile: "micro:quick".into(),
            plan_key: "k".into(),
            plan: serde_json::json!({}),
            environment: Environment::default(),
            notes: vec![],
        };
        store.insert_run(&run).unwrap()
    }

    #[test]
    fn micro_results_and_searches_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("r.db")).unwrap();
        let id = run_id(&store);
        let (a, b) = (record("a", MicroStatus::Ok), record("b", MicroStatus::Budget));
        let mut c = record("c", MicroStatus::Ok);
        c.bench = "supervised".into();
        c.params = MicroParams { pairs: Some(256), seconds: Some(1.0), kill_rate: Some(5.0), ..Default::default() };
        c.supervision = Some(Supervision { kills: 25, lost: 3, restart_p50_ns: 41_000, restart_p99_ns: 180_000, late_restarts: 2 });
        store.insert_micro(id, &a).unwrap();
        store.insert_micro(id, &b).unwrap();
        store.insert_micro(id, &c).unwrap();
        assert!(store.insert_micro(id, &a).is_err(), "a key is stored once per run");
        assert_eq!(store.micro_results(id).unwrap(), vec![a, b, c]);
        let s = SearchRecord { implementation: "go".into(), cores: 2, repeat: 1, largest_n: Some(1_000_000), stop: SearchStop::KilledAtBudget, detail: "N=2000000".into(), budget_bytes: 8 << 30 };
        store.put_micro_search(id, &s).unwrap();
        assert_eq!(store.micro_searches(id).unwrap(), vec![s]);
        assert_eq!(store.latest_micro_run_id().unwrap(), Some(id));
    }
}
