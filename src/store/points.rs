//! Rows of the `points` table: summary numbers as columns (so the file can be
//! queried with plain SQL), lists and maps as JSON text.

use super::rows::{json, json_err, u64_col};
use super::types::*;
use crate::stats::LatencyStats;
use rusqlite::{Connection, Row, named_params};

const COLUMNS: &str = "key, implementation, scenario, cores, connections, rate, level, repeat, started_at, warmup_s, duration_s, error,
    requests, successes, errors_total, errors,
    lat_count, lat_min_us, lat_mean_us, lat_stdev_us, lat_p50_us, lat_p75_us, lat_p90_us, lat_p99_us, lat_p999_us, lat_max_us, histogram,
    steps, timeline, server_cpu_s, server_cpu_util, rss_peak_bytes, rss_mean_bytes, processes_max, server_samples,
    gen_cpus, gen_shared, gen_cpu_s, gen_cpu_util, gen_saturated, warnings, load_report, keepalive, generator, gen_version,
    lat_unfinished, lat_lower_bounds, unfinished_age,
    db_cpus, db_shared, db_cpu_s, db_cpu_util, db_mem_peak_bytes, db_mem_mean_bytes, db_processes_max, db_limited, db_samples, server_from";

pub fn insert(conn: &Connection, run_id: i64, p: &PointRecord) -> anyhow::Result<()> {
    let (l, s, g, d) = (&p.latency, &p.server, &p.generator, p.database.as_ref());
    let sql = format!(
        "INSERT INTO points (run_id, {COLUMNS}) VALUES (:run_id, :key, :implementation, :scenario, :cores, :connections, :rate, :level, :repeat,
            :started_at, :warmup_s, :duration_s, :error, :requests, :successes, :errors_total, :errors,
            :lat_count, :lat_min_us, :lat_mean_us, :lat_stdev_us, :lat_p50_us, :lat_p75_us, :lat_p90_us, :lat_p99_us, :lat_p999_us, :lat_max_us, :histogram,
            :steps, :timeline, :server_cpu_s, :server_cpu_util, :rss_peak_bytes, :rss_mean_bytes, :processes_max, :server_samples,
            :gen_cpus, :gen_shared, :gen_cpu_s, :gen_cpu_util, :gen_saturated, :warnings, :load_report, :keepalive, :generator, :gen_version,
            :lat_unfinished, :lat_lower_bounds, :unfinished_age,
            :db_cpus, :db_shared, :db_cpu_s, :db_cpu_util, :db_mem_peak_bytes, :db_mem_mean_bytes, :db_processes_max, :db_limited, :db_samples, :server_from)"
    );
    conn.execute(
        &sql,
        named_params! {
            ":run_id": run_id, ":key": p.key, ":implementation": p.implementation, ":scenario": p.scenario,
            ":cores": p.cores, ":connections": p.connections, ":rate": p.rate, ":level": p.level, ":repeat": p.repeat,
            ":started_at": p.started_at, ":warmup_s": p.warmup_s, ":duration_s": p.duration_s, ":error": p.error,
            ":requests": p.requests as i64, ":successes": p.successes as i64, ":errors_total": p.errors_total as i64,
            ":errors": serde_json::to_string(&p.errors)?,
            ":lat_count": l.count as i64, ":lat_min_us": l.min_us as i64, ":lat_mean_us": l.mean_us, ":lat_stdev_us": l.stdev_us,
            ":lat_p50_us": l.p50_us as i64, ":lat_p75_us": l.p75_us as i64, ":lat_p90_us": l.p90_us as i64, ":lat_p99_us": l.p99_us as i64,
            ":lat_p999_us": l.p999_us as i64, ":lat_max_us": l.max_us as i64, ":histogram": l.histogram,
            ":steps": serde_json::to_string(&p.steps)?, ":timeline": serde_json::to_string(&p.timeline)?,
            ":server_cpu_s": s.cpu_seconds, ":server_cpu_util": s.cpu_util, ":rss_peak_bytes": s.rss_peak_bytes as i64,
            ":rss_mean_bytes": s.rss_mean_bytes as i64, ":processes_max": s.processes_max, ":server_samples": serde_json::to_string(&s.samples)?,
            ":gen_cpus": serde_json::to_string(&g.cpus)?, ":gen_shared": g.shared, ":gen_cpu_s": g.cpu_seconds, ":gen_cpu_util": g.cpu_util,
            ":gen_saturated": g.saturated, ":warnings": serde_json::to_string(&p.warnings)?, ":load_report": p.load_report.as_ref().map(|v| v.to_string()),
            ":keepalive": p.keepalive, ":generator": g.kind.as_str(), ":gen_version": g.version,
            ":lat_unfinished": l.unfinished as i64, ":lat_lower_bounds": serde_json::to_string(&l.lower_bounds)?,
            ":unfinished_age": (l.unfinished > 0).then(|| serde_json::to_string(&p.unfinished_age)).transpose()?,
            ":db_cpus": d.map(|d| serde_json::to_string(&d.cpus)).transpose()?, ":db_shared": d.map(|d| d.shared),
            ":db_cpu_s": d.map(|d| d.cpu_seconds), ":db_cpu_util": d.map(|d| d.cpu_util),
            ":db_mem_peak_bytes": d.map(|d| d.mem_peak_bytes as i64), ":db_mem_mean_bytes": d.map(|d| d.mem_mean_bytes as i64),
            ":db_processes_max": d.map(|d| d.processes_max), ":db_limited": d.is_some_and(|d| d.limited),
            ":db_samples": d.map(|d| serde_json::to_string(&d.samples)).transpose()?, ":server_from": p.server_from,
        },
    )?;
    Ok(())
}

pub fn load(conn: &Connection, run_id: i64) -> rusqlite::Result<Vec<PointRecord>> {
    let mut stmt = conn.prepare(&format!("SELECT {COLUMNS} FROM points WHERE run_id = ?1 ORDER BY id"))?;
    stmt.query_map([run_id], from_row)?.collect()
}

fn from_row(r: &Row) -> rusqlite::Result<PointRecord> {
    let load_report: Option<String> = r.get("load_report")?;
    Ok(PointRecord {
        key: r.get("key")?,
        implementation: r.get("implementation")?,
        scenario: r.get("scenario")?,
        cores: r.get("cores")?,
        connections: r.get("connections")?,
        rate: r.get("rate")?,
        level: r.get("level")?,
        keepalive: r.get("keepalive")?,
        repeat: r.get("repeat")?,
        started_at: r.get("started_at")?,
        warmup_s: r.get("warmup_s")?,
        server_from: r.get("server_from")?,
        duration_s: r.get("duration_s")?,
        error: r.get("error")?,
        requests: u64_col(r, "requests")?,
        successes: u64_col(r, "successes")?,
        errors_total: u64_col(r, "errors_total")?,
        errors: json(r, "errors")?,
        latency: LatencyStats {
            count: u64_col(r, "lat_count")?,
            min_us: u64_col(r, "lat_min_us")?,
            mean_us: r.get("lat_mean_us")?,
            stdev_us: r.get("lat_stdev_us")?,
            p50_us: u64_col(r, "lat_p50_us")?,
            p75_us: u64_col(r, "lat_p75_us")?,
            p90_us: u64_col(r, "lat_p90_us")?,
            p99_us: u64_col(r, "lat_p99_us")?,
            p999_us: u64_col(r, "lat_p999_us")?,
            max_us: u64_col(r, "lat_max_us")?,
            histogram: r.get("histogram")?,
            unfinished: u64_col(r, "lat_unfinished")?,
            lower_bounds: json(r, "lat_lower_bounds")?,
        },
        unfinished_age: r
            .get::<_, Option<String>>("unfinished_age")?
            .map(|t| serde_json::from_str(&t))
            .transpose()
            .map_err(json_err)?
            .unwrap_or_default(),
        steps: json(r, "steps")?,
        timeline: json(r, "timeline")?,
        server: ServerUsage {
            cpu_seconds: r.get("server_cpu_s")?,
            cpu_util: r.get("server_cpu_util")?,
            rss_peak_bytes: u64_col(r, "rss_peak_bytes")?,
            rss_mean_bytes: u64_col(r, "rss_mean_bytes")?,
            processes_max: r.get("processes_max")?,
            samples: json(r, "server_samples")?,
        },
        generator: GeneratorUsage {
            cpus: json(r, "gen_cpus")?,
            shared: r.get("gen_shared")?,
            cpu_seconds: r.get("gen_cpu_s")?,
            cpu_util: r.get("gen_cpu_util")?,
            saturated: r.get("gen_saturated")?,
            kind: Generator::parse(&r.get::<_, String>("generator")?).unwrap_or_default(),
            version: r.get("gen_version")?,
        },
        database: database(r)?,
        warnings: json(r, "warnings")?,
        load_report: load_report.map(|t| serde_json::from_str(&t)).transpose().map_err(json_err)?,
    })
}

/// The database's columns, set only for a point of a database scenario.
fn database(r: &Row) -> rusqlite::Result<Option<DatabaseUsage>> {
    if r.get::<_, Option<String>>("db_cpus")?.is_none() {
        return Ok(None);
    }
    Ok(Some(DatabaseUsage {
        cpus: json(r, "db_cpus")?,
        shared: r.get("db_shared")?,
        cpu_seconds: r.get("db_cpu_s")?,
        cpu_util: r.get("db_cpu_util")?,
        mem_peak_bytes: u64_col(r, "db_mem_peak_bytes")?,
        mem_mean_bytes: u64_col(r, "db_mem_mean_bytes")?,
        processes_max: r.get("db_processes_max")?,
        limited: r.get("db_limited")?,
        samples: json(r, "db_samples")?,
    }))
}

#[cfg(test)]
mod tests {
    use super::super::{RunInfo, RunStatus, Store};
    use super::*;
    use std::path::Path;

    fn manifest() -> crate::impls::Manifest {
        let text = "name = \"demo\"\nlanguage = \"Go\"\nruntime = \"Go\"\nversion = \"go version\"\nframework = \"net/http\"\nmodel = \"green-threads\"\n[start]\ncommand = \"./server\"\n[features]\nmultithreading = true\n";
        crate::impls::manifest::parse(Path::new("demo/concur.toml"), text, "demo").unwrap()
    }

    fn run() -> RunInfo {
        RunInfo {
            id: 0,
            started_at: "2025-01-02T03:04:05Z".into(),
            finished_at: None,
            status: RunStatus::Running,
            profile: "quick".into(),
            plan_key: "abc".into(),
            plan: serde_json::json!({"points": 2}),
            environment: Environment { cpu_model: "Test CPU".into(), logical_cpus: 2, topology: Some(topology()), ..Default::default() },
            notes: vec!["cores 4 skipped".into()],
        }
    }

    fn topology() -> crate::host::topology::Record {
        let placement = crate::host::topology::Placement { server: vec![0, 48], generator: vec![1, 49], database: vec![2], server_nodes: vec![0], ..Default::default() };
        crate::host::topology::Record { source: "sysfs".into(), threads_per_core: 2, physical_cores: 48, numa_nodes: 8, placements: vec![placement] }
    }

    fn point(key: &str) -> PointRecord {
        PointRecord {
            key: key.into(),
            implementation: "demo".into(),
            scenario: "hello".into(),
            cores: 2,
            connections: 50,
            rate: Some(1000),
            level: "R=1000".into(),
            repeat: 1,
            duration_s: 5.0,
            successes: 100,
            requests: 103,
            errors_total: 3,
            errors: [("status 500".to_string(), 3)].into(),
            latency: LatencyStats { count: 100, p99_us: 1234, mean_us: 12.5, histogram: "HISTFAAA".into(), ..Default::default() },
            steps: vec![StepRecord { name: "get".into(), successes: 100, ..Default::default() }],
            timeline: vec![SecondRecord { requests: 20, errors: 1 }],
            server: ServerUsage { rss_peak_bytes: 1 << 30, samples: vec![UsageSample { t_ms: 250, cpu_seconds: 0.2, rss_bytes: 5, processes: 3 }], ..Default::default() },
            generator: GeneratorUsage { cpus: vec![0, 1], shared: true, saturated: true, cpu_util: 0.97, ..Default::default() },
            warnings: vec!["rate not reached".into()],
            load_report: Some(serde_json::json!({"version": 1})),
            ..Default::default()
        }
    }

    #[test]
    fn a_run_with_points_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("sub/r.db")).unwrap();
        let id = store.insert_run(&run()).unwrap();
        let imp = ImplRecord { name: "demo".into(), status: ImplStatus::Failed, reason: Some("headers: no Date".into()), version: "go1".into(), manifest: manifest(), known_failures: vec![] };
        store.put_implementation(id, &imp).unwrap();
        store.insert_point(id, &point("a")).unwrap();
        store.insert_point(id, &point("b")).unwrap();
        store.set_run_status(id, RunStatus::Interrupted, Some("2025-01-02T04:00:00Z")).unwrap();

        let data = Store::open_existing(&dir.path().join("sub/r.db")).unwrap().load_run(id).unwrap();
        let mut expected = run();
        expected.id = id;
        expected.status = RunStatus::Interrupted;
        expected.finished_at = Some("2025-01-02T04:00:00Z".into());
        assert_eq!(data.run, expected);
        assert_eq!(data.points, vec![point("a"), point("b")]);
        assert_eq!(data.implementations[0].reason.as_deref(), Some("headers: no Date"));
        assert_eq!(data.implementations[0].manifest.features.multithreading, Some(true));
    }

    #[test]
    fn a_database_scenarios_point_keeps_the_databases_usage_and_others_have_none() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("r.db")).unwrap();
        let id = store.insert_run(&run()).unwrap();
        let usage = DatabaseUsage {
            cpus: vec![1],
            shared: true,
            cpu_seconds: 2.5,
            cpu_util: 0.83,
            mem_peak_bytes: 90 << 20,
            mem_mean_bytes: 80 << 20,
            processes_max: 23,
            limited: true,
            samples: vec![UsageSample { t_ms: 250, cpu_seconds: 0.2, rss_bytes: 80 << 20, processes: 23 }],
        };
        let db = PointRecord { database: Some(usage), ..point("demo/db/cores=1/c=256/r1") };
        store.insert_point(id, &db).unwrap();
        store.insert_point(id, &point("demo/hello/cores=1/c=50/r1")).unwrap();
        assert_eq!(store.load_run(id).unwrap().points, vec![db, point("demo/hello/cores=1/c=50/r1")]);
        let limited: i64 = store.conn.query_row("SELECT SUM(db_limited) FROM points WHERE db_cpus IS NOT NULL", [], |r| r.get(0)).unwrap();
        assert_eq!(limited, 1);
    }

    #[test]
    fn known_failures_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("r.db")).unwrap();
        let id = store.insert_run(&run()).unwrap();
        let known = KnownFailure { check: "pipelining".into(), cores: 2, detail: "closed after 1 of 3".into(), reason: "the runtime closes it (upstream#1)".into() };
        let imp = ImplRecord { name: "demo".into(), status: ImplStatus::Verified, reason: None, version: "go1".into(), manifest: manifest(), known_failures: vec![known.clone()] };
        store.put_implementation(id, &imp).unwrap();
        assert_eq!(store.load_run(id).unwrap().implementations[0].known_failures, [known]);
    }

    #[test]
    fn a_database_from_before_known_failures_opens_and_reads_none() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("old.db");
        let mut conn = rusqlite::Connection::open(&path).unwrap();
        crate::store::schema::migrate(&mut conn, &path, &crate::store::MIGRATIONS[..2]).unwrap();
        conn.execute_batch(
            "INSERT INTO runs (started_at, status, profile, plan_key, plan, concur_version, git_commit, git_dirty, cpu_model, logical_cpus, kernel, os, memory_bytes, toolchains, notes)
             VALUES ('2025-01-01T00:00:00Z', 'finished', 'quick', 'abc', '{}', '0.1.0', 'abc', 0, 'cpu', 2, 'Linux', 'Debian', 1, '{}', '[]');",
        )
        .unwrap();
        let manifest = serde_json::to_string(&manifest()).unwrap();
        conn.execute("INSERT INTO implementations (run_id, name, status, reason, version, manifest) VALUES (1, 'demo', 'verified', NULL, 'go1', ?1)", [manifest]).unwrap();
        drop(conn);
        let imp = &Store::open_existing(&path).unwrap().load_run(1).unwrap().implementations[0];
        assert_eq!((imp.status, imp.known_failures.len()), (ImplStatus::Verified, 0));
    }

    #[test]
    fn a_close_mode_point_keeps_its_mode() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("r.db")).unwrap();
        let id = store.insert_run(&run()).unwrap();
        let close = PointRecord { keepalive: false, level: "c=50 close".into(), ..point("demo/hello/cores=2/c=50/close/r1") };
        store.insert_point(id, &point("a")).unwrap();
        store.insert_point(id, &close).unwrap();
        let modes: Vec<bool> = store.load_run(id).unwrap().points.iter().map(|p| p.keepalive).collect();
        assert_eq!(modes, [true, false]);
    }

    #[test]
    fn a_database_from_before_keepalive_opens_and_its_points_kept_connections_alive() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v3.db");
        let mut conn = rusqlite::Connection::open(&path).unwrap();
        crate::store::schema::migrate(&mut conn, &path, &crate::store::MIGRATIONS[..3]).unwrap();
        conn.execute_batch(
            "INSERT INTO runs (started_at, status, profile, plan_key, plan, concur_version, git_commit, git_dirty, cpu_model, logical_cpus, kernel, os, memory_bytes, toolchains, notes)
             VALUES ('2025-01-01T00:00:00Z', 'interrupted', 'quick', 'abc', '{}', '0.1.0', 'abc', 0, 'cpu', 2, 'Linux', 'Debian', 1, '{}', '[]');
             INSERT INTO points (run_id, key, implementation, scenario, cores, connections, rate, level, repeat, started_at, warmup_s, duration_s, error,
                 requests, successes, errors_total, errors, lat_count, lat_min_us, lat_mean_us, lat_stdev_us, lat_p50_us, lat_p75_us, lat_p90_us,
                 lat_p99_us, lat_p999_us, lat_max_us, histogram, steps, timeline, server_cpu_s, server_cpu_util, rss_peak_bytes, rss_mean_bytes,
                 processes_max, server_samples, gen_cpus, gen_shared, gen_cpu_s, gen_cpu_util, gen_saturated, warnings, load_report)
             VALUES (1, 'demo/hello/cores=1/c=50/r1', 'demo', 'hello', 1, 50, NULL, 'c=50', 1, '2025-01-01T00:00:01Z', 1.0, 5.0, NULL,
                 100, 100, 0, '{}', 100, 10, 20.0, 1.0, 20, 25, 30, 40, 50, 60, '', '[]', '[]', 0.5, 0.5, 1000, 900, 1, '[]', '[1]', 0, 0.1, 0.1, 0, '[]', NULL);",
        )
        .unwrap();
        drop(conn);
        let store = Store::open_existing(&path).unwrap();
        let points = store.load_run(1).unwrap().points;
        assert_eq!((points.len(), points[0].keepalive, points[0].latency.p50_us), (1, true, 20));
        // `--resume` of the old run still finds its point by the key it had.
        assert_eq!(store.point_keys(1).unwrap(), ["demo/hello/cores=1/c=50/r1".to_string()].into());
        store.insert_point(1, &PointRecord { keepalive: false, ..point("demo/hello/cores=1/c=50/close/r1") }).unwrap();
    }

    #[test]
    fn a_point_key_is_stored_once_per_run() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("r.db")).unwrap();
        let id = store.insert_run(&run()).unwrap();
        store.insert_point(id, &point("a")).unwrap();
        assert!(store.insert_point(id, &point("a")).is_err());
        assert_eq!(store.point_keys(id).unwrap(), ["a".to_string()].into());
    }

    #[test]
    fn only_an_unfinished_run_with_the_same_plan_is_resumable() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("r.db")).unwrap();
        let first = store.insert_run(&run()).unwrap();
        store.set_run_status(first, RunStatus::Finished, None).unwrap();
        assert!(store.resumable_run("abc").unwrap().is_none());
        let second = store.insert_run(&run()).unwrap();
        assert_eq!(store.resumable_run("abc").unwrap().map(|r| r.id), Some(second));
        assert!(store.resumable_run("other").unwrap().is_none());
    }

    #[test]
    fn reporting_on_a_missing_file_says_how_to_make_one() {
        let err = Store::open_existing(Path::new("/nonexistent/concur.db")).err().unwrap().to_string();
        assert!(err.contains("run `concur run` first"), "{err}");
    }
}
