//! The database schema as a list of migrations. `PRAGMA user_version` holds
//! how many have been applied; opening applies the missing ones in one
//! transaction, and refuses a file written by a newer `concur` rather than
//! misreading it. spec/RESULTS-DB.md documents the tables.

use anyhow::{Context, Result, bail};
use rusqlite::Connection;
use std::path::Path;

/// `PRAGMA application_id` of a Concur results database ("conc").
pub const APPLICATION_ID: i32 = 0x636f_6e63;

/// Migration N (1-based) brings a file from version N-1 to N. Never edit one
/// that has shipped: add the next.
pub const MIGRATIONS: &[&str] = &[
    V1,
    super::micro::MIGRATION,
    V3,
    V4,
    super::capacity::MIGRATION,
    V6,
    V7,
    super::noise::MIGRATION,
    TOPOLOGY,
    super::held::MIGRATION,
    DATABASE,
    SERVER_FROM,
    super::held::ACCEPT_MIGRATION,
    super::held::CEILING_MIGRATION,
    super::faults::MIGRATION,
    super::faults::LOAD_MIGRATION,
    super::micro::SUPERVISED_MIGRATION,
    super::faults::DB_MIGRATION,
];

const V1: &str = "
CREATE TABLE runs (
    id             INTEGER PRIMARY KEY,
    started_at     TEXT NOT NULL,
    finished_at    TEXT,
    status         TEXT NOT NULL CHECK (status IN ('running', 'finished', 'interrupted')),
    profile        TEXT NOT NULL,
    plan_key       TEXT NOT NULL,
    plan           TEXT NOT NULL,
    concur_version TEXT NOT NULL,
    git_commit     TEXT NOT NULL,
    git_dirty      INTEGER NOT NULL,
    cpu_model      TEXT NOT NULL,
    logical_cpus   INTEGER NOT NULL,
    kernel         TEXT NOT NULL,
    os             TEXT NOT NULL,
    memory_bytes   INTEGER NOT NULL,
    toolchains     TEXT NOT NULL,
    notes          TEXT NOT NULL
);
CREATE TABLE implementations (
    run_id   INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    name     TEXT NOT NULL,
    status   TEXT NOT NULL CHECK (status IN ('verified', 'unverified', 'failed', 'unavailable')),
    reason   TEXT,
    version  TEXT NOT NULL,
    manifest TEXT NOT NULL,
    PRIMARY KEY (run_id, name)
);
CREATE TABLE points (
    id              INTEGER PRIMARY KEY,
    run_id          INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    key             TEXT NOT NULL,
    implementation  TEXT NOT NULL,
    scenario        TEXT NOT NULL,
    cores           INTEGER NOT NULL,
    connections     INTEGER NOT NULL,
    rate            INTEGER,
    level           TEXT NOT NULL,
    repeat          INTEGER NOT NULL,
    started_at      TEXT NOT NULL,
    warmup_s        REAL NOT NULL,
    duration_s      REAL NOT NULL,
    error           TEXT,
    requests        INTEGER NOT NULL,
    successes       INTEGER NOT NULL,
    errors_total    INTEGER NOT NULL,
    errors          TEXT NOT NULL,
    lat_count       INTEGER NOT NULL,
    lat_min_us      INTEGER NOT NULL,
    lat_mean_us     REAL NOT NULL,
    lat_stdev_us    REAL NOT NULL,
    lat_p50_us      INTEGER NOT NULL,
    lat_p75_us      INTEGER NOT NULL,
    lat_p90_us      INTEGER NOT NULL,
    lat_p99_us      INTEGER NOT NULL,
    lat_p999_us     INTEGER NOT NULL,
    lat_max_us      INTEGER NOT NULL,
    histogram       TEXT NOT NULL,
    steps           TEXT NOT NULL,
    timeline        TEXT NOT NULL,
    server_cpu_s    REAL NOT NULL,
    server_cpu_util REAL NOT NULL,
    rss_peak_bytes  INTEGER NOT NULL,
    rss_mean_bytes  INTEGER NOT NULL,
    processes_max   INTEGER NOT NULL,
    server_samples  TEXT NOT NULL,
    gen_cpus        TEXT NOT NULL,
    gen_shared      INTEGER NOT NULL,
    gen_cpu_s       REAL NOT NULL,
    gen_cpu_util    REAL NOT NULL,
    gen_saturated   INTEGER NOT NULL,
    warnings        TEXT NOT NULL,
    load_report     TEXT,
    UNIQUE (run_id, key)
);
CREATE INDEX points_by_run ON points (run_id, scenario, implementation, cores);
";

/// The failures an implementation's manifest declares, kept with its
/// verification (a JSON array of `KnownFailure`; older runs hold none).
const V3: &str = "ALTER TABLE implementations ADD COLUMN known_failures TEXT NOT NULL DEFAULT '[]';";

/// Whether a point's requests reused their connections (1) or each came on a
/// new one with `Connection: close` (0); every older point kept them alive.
const V4: &str = "ALTER TABLE points ADD COLUMN keepalive INTEGER NOT NULL DEFAULT 1;";

/// Which load generator took a point (`concur-load`, or `locust` driven by
/// `concur run --generator locust`) and its version; every older point was `concur load`'s.
const V6: &str = "
ALTER TABLE points ADD COLUMN generator TEXT NOT NULL DEFAULT 'concur-load' CHECK (generator IN ('concur-load', 'locust'));
ALTER TABLE points ADD COLUMN gen_version TEXT NOT NULL DEFAULT '';
";

/// Requests left unanswered at a point's or a capacity step's end (spec/LOAD-JSON.md,
/// `unfinished`): how many the percentiles count as censored, which percentiles
/// are therefore lower bounds, and (points) the ages' summary with its histogram.
/// Older points and steps counted none.
const V7: &str = "
ALTER TABLE points ADD COLUMN lat_unfinished INTEGER NOT NULL DEFAULT 0;
ALTER TABLE points ADD COLUMN lat_lower_bounds TEXT NOT NULL DEFAULT '[]';
ALTER TABLE points ADD COLUMN unfinished_age TEXT;
ALTER TABLE capacity_steps ADD COLUMN lat_unfinished INTEGER NOT NULL DEFAULT 0;
ALTER TABLE capacity_steps ADD COLUMN lat_lower_bounds TEXT NOT NULL DEFAULT '[]';
ALTER TABLE capacity_steps ADD COLUMN unfinished_max_us INTEGER NOT NULL DEFAULT 0;
";
/// The CPU topology a run placed its processes on (`host::topology::Record` as
/// JSON: threads per core, physical cores, NUMA nodes, each core count's CPUs
/// per role); NULL for older runs.
const TOPOLOGY: &str = "ALTER TABLE runs ADD COLUMN topology TEXT;";

/// The database's usage beside the server's, for the points of a database
/// scenario (`store::DatabaseUsage`); NULL (`db_limited` 0) for every other
/// point and every older one.
const DATABASE: &str = "
ALTER TABLE points ADD COLUMN db_cpus TEXT;
ALTER TABLE points ADD COLUMN db_shared INTEGER;
ALTER TABLE points ADD COLUMN db_cpu_s REAL;
ALTER TABLE points ADD COLUMN db_cpu_util REAL;
ALTER TABLE points ADD COLUMN db_mem_peak_bytes INTEGER;
ALTER TABLE points ADD COLUMN db_mem_mean_bytes INTEGER;
ALTER TABLE points ADD COLUMN db_processes_max INTEGER;
ALTER TABLE points ADD COLUMN db_limited INTEGER NOT NULL DEFAULT 0;
ALTER TABLE points ADD COLUMN db_samples TEXT;
";

/// The point whose server a point was measured on (a scenario measured `after` another,
/// spec/PROFILES.md); NULL for a point on a server of its own, and for every older point.
const SERVER_FROM: &str = "ALTER TABLE points ADD COLUMN server_from TEXT;";

/// Brings the database at `path` up to the last of `migrations`.
pub fn migrate(conn: &mut Connection, path: &Path, migrations: &[&str]) -> Result<()> {
    let shown = path.display();
    // One write transaction from the first read to the last write: another
    // process opening the same new file at the same moment (a test polling
    // a run's database) would otherwise migrate it between these reads, and
    // this one would see its tables without its application id.
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let app: i32 = tx.query_row("PRAGMA application_id", [], |r| r.get(0))?;
    let version: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    let tables: i64 = tx.query_row("SELECT count(*) FROM sqlite_master WHERE type = 'table'", [], |r| r.get(0))?;
    if app != APPLICATION_ID && (app != 0 || tables > 0) {
        bail!("{shown} is an SQLite file but not a Concur results database; pass another --db (default results/concur.db)");
    }
    let known = migrations.len() as i64;
    if version > known {
        bail!(
            "{shown} has schema version {version}, but this concur knows versions up to {known}: a newer concur wrote it. \
             Update concur (git pull, then cargo build --release) or pass another --db"
        );
    }
    if version == known {
        return Ok(tx.commit()?);
    }
    for (i, sql) in migrations.iter().enumerate().skip(version as usize) {
        tx.execute_batch(sql).with_context(|| format!("{shown}: applying schema migration {}", i + 1))?;
    }
    tx.pragma_update(None, "application_id", APPLICATION_ID)?;
    tx.pragma_update(None, "user_version", known)?;
    tx.commit()?;
    Ok(())
}

/// What undoes each migration from the fifth on (`UNDO[i]` undoes `MIGRATIONS[i + 4]`), for
/// tests that need the file an older concur left: one list, grown with each migration.
#[cfg(test)]
const UNDO: &[&str] = &[
    "DROP TABLE capacity_steps; DROP TABLE capacity_searches;",
    "ALTER TABLE points DROP COLUMN generator; ALTER TABLE points DROP COLUMN gen_version;",
    "ALTER TABLE points DROP COLUMN lat_unfinished; ALTER TABLE points DROP COLUMN lat_lower_bounds; ALTER TABLE points DROP COLUMN unfinished_age; \
     ALTER TABLE capacity_steps DROP COLUMN lat_unfinished; ALTER TABLE capacity_steps DROP COLUMN lat_lower_bounds; \
     ALTER TABLE capacity_steps DROP COLUMN unfinished_max_us;",
    "DROP TABLE noise_floors;",
    "ALTER TABLE runs DROP COLUMN topology;",
    "DROP TABLE held_steps; DROP TABLE held_searches;",
    "ALTER TABLE points DROP COLUMN db_cpus; ALTER TABLE points DROP COLUMN db_shared; ALTER TABLE points DROP COLUMN db_cpu_s; \
     ALTER TABLE points DROP COLUMN db_cpu_util; ALTER TABLE points DROP COLUMN db_mem_peak_bytes; ALTER TABLE points DROP COLUMN db_mem_mean_bytes; \
     ALTER TABLE points DROP COLUMN db_processes_max; ALTER TABLE points DROP COLUMN db_limited; ALTER TABLE points DROP COLUMN db_samples;",
    "ALTER TABLE points DROP COLUMN server_from;",
    "ALTER TABLE held_searches DROP COLUMN accept_per_s; ALTER TABLE held_searches DROP COLUMN accept_answered; \
     ALTER TABLE held_searches DROP COLUMN accept_errors; ALTER TABLE held_searches DROP COLUMN accept_p99_us; \
     ALTER TABLE held_searches DROP COLUMN accept_server_cpu; ALTER TABLE held_searches DROP COLUMN accept_gen_cpu; \
     ALTER TABLE held_searches DROP COLUMN accept_gen_saturated; ALTER TABLE held_searches DROP COLUMN arrival_clients; \
     ALTER TABLE held_searches DROP COLUMN by_arrival;",
    "ALTER TABLE held_searches DROP COLUMN accept_low; ALTER TABLE held_searches DROP COLUMN accept_high; \
     ALTER TABLE held_searches DROP COLUMN ceiling_clients; ALTER TABLE held_searches DROP COLUMN ceiling_limit;",
    "DROP TABLE fault_trials; DROP TABLE fault_results;",
    "ALTER TABLE fault_results DROP COLUMN load_rate; ALTER TABLE fault_results DROP COLUMN capacity_before; \
     ALTER TABLE fault_results DROP COLUMN capacity_after; ALTER TABLE fault_results DROP COLUMN warmup_rate; \
     ALTER TABLE fault_results DROP COLUMN warmup; ALTER TABLE fault_trials DROP COLUMN fault_at_ms; \
     ALTER TABLE fault_trials DROP COLUMN recovery_ms; ALTER TABLE fault_trials DROP COLUMN timeline;",
    "ALTER TABLE micro_results DROP COLUMN kill_rate; ALTER TABLE micro_results DROP COLUMN kills; \
     ALTER TABLE micro_results DROP COLUMN lost; ALTER TABLE micro_results DROP COLUMN restart_p50_ns; \
     ALTER TABLE micro_results DROP COLUMN restart_p99_ns; ALTER TABLE micro_results DROP COLUMN late_restarts;",
    "ALTER TABLE fault_results DROP COLUMN db_capacity; ALTER TABLE fault_results DROP COLUMN db_rate; \
     ALTER TABLE fault_trials DROP COLUMN db_load;",
];

/// Turns a file at the latest version into what a concur of `version` (4 or later) left.
#[cfg(test)]
pub(crate) fn downgrade(conn: &Connection, version: usize) {
    assert_eq!(UNDO.len() + 4, MIGRATIONS.len(), "a new migration needs its undo in UNDO");
    for undo in UNDO[version - 4..].iter().rev() {
        conn.execute_batch(undo).unwrap();
    }
    conn.pragma_update(None, "user_version", version as i64).unwrap();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(path: &Path) -> Connection {
        Connection::open(path).unwrap()
    }

    #[test]
    fn a_new_file_gets_every_migration() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.db");
        let mut conn = open(&path);
        migrate(&mut conn, &path, MIGRATIONS).unwrap();
        let v: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
        assert_eq!(v, MIGRATIONS.len() as i64);
        migrate(&mut conn, &path, MIGRATIONS).unwrap();
    }

    #[test]
    fn an_old_file_gets_only_the_missing_migrations_and_keeps_its_rows() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.db");
        let mut conn = open(&path);
        let v1 = "CREATE TABLE t (a INTEGER);";
        migrate(&mut conn, &path, &[v1]).unwrap();
        conn.execute("INSERT INTO t VALUES (7)", []).unwrap();
        migrate(&mut conn, &path, &[v1, "ALTER TABLE t ADD COLUMN b TEXT DEFAULT 'x';"]).unwrap();
        let row: (i64, String) = conn.query_row("SELECT a, b FROM t", [], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
        assert_eq!(row, (7, "x".to_string()));
    }

    #[test]
    fn a_database_from_before_the_generator_column_opens_and_its_points_were_concur_loads() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v4.db");
        let mut conn = open(&path);
        migrate(&mut conn, &path, &MIGRATIONS[..4]).unwrap();
        conn.execute_batch(
            "INSERT INTO runs VALUES (1, 't', NULL, 'finished', 'quick', 'k', '{}', 'v', 'c', 0, 'cpu', 2, 'k', 'os', 1, '{}', '[]');
             INSERT INTO points (run_id, key, implementation, scenario, cores, connections, level, repeat, started_at, warmup_s, duration_s,
                 requests, successes, errors_total, errors, lat_count, lat_min_us, lat_mean_us, lat_stdev_us, lat_p50_us, lat_p75_us, lat_p90_us,
                 lat_p99_us, lat_p999_us, lat_max_us, histogram, steps, timeline, server_cpu_s, server_cpu_util, rss_peak_bytes, rss_mean_bytes,
                 processes_max, server_samples, gen_cpus, gen_shared, gen_cpu_s, gen_cpu_util, gen_saturated, warnings)
             VALUES (1, 'go/hello/cores=1/c=50/r1', 'go', 'hello', 1, 50, 'c=50', 1, 't', 0, 1, 10, 10, 0, '{}', 10, 1, 1, 0, 1, 1, 1, 1, 1, 1, '',
                 '[]', '[]', 0, 0, 0, 0, 1, '[]', '[1]', 0, 0, 0, 0, '[]');",
        )
        .unwrap();
        drop(conn);
        let store = super::super::Store::open_existing(&path).unwrap();
        let points = store.load_run(1).unwrap().points;
        assert_eq!((points[0].generator.kind, points[0].generator.version.as_str()), (super::super::Generator::ConcurLoad, ""));
        let v: i64 = open(&path).query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
        assert_eq!(v, MIGRATIONS.len() as i64);
    }

    #[test]
    fn a_database_from_before_the_topology_column_opens_and_its_runs_have_none() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v6.db");
        let mut conn = open(&path);
        migrate(&mut conn, &path, &MIGRATIONS[..6]).unwrap();
        conn.execute_batch("INSERT INTO runs VALUES (1, 't', NULL, 'finished', 'quick', 'k', '{}', 'v', 'c', 0, 'cpu', 2, 'k', 'os', 1, '{}', '[]');").unwrap();
        drop(conn);
        let run = super::super::Store::open_existing(&path).unwrap().run(1).unwrap();
        assert_eq!((run.environment.logical_cpus, run.environment.topology), (2, None));
    }

    #[test]
    fn a_newer_file_is_refused_with_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new.db");
        let mut conn = open(&path);
        migrate(&mut conn, &path, MIGRATIONS).unwrap();
        conn.pragma_update(None, "user_version", 99).unwrap();
        let err = migrate(&mut conn, &path, MIGRATIONS).unwrap_err().to_string();
        assert!(err.contains("new.db has schema version 99") && err.contains("a newer concur wrote it"), "{err}");
        assert!(err.contains("Update concur"), "{err}");
    }

    #[test]
    fn a_foreign_sqlite_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("other.db");
        let mut conn = open(&path);
        conn.execute_batch("CREATE TABLE something (x);").unwrap();
        let err = migrate(&mut conn, &path, MIGRATIONS).unwrap_err().to_string();
        assert!(err.contains("not a Concur results database"), "{err}");
    }
}
