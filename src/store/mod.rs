//! The results database: one SQLite file (default `results/concur.db`) that
//! `concur run` writes a point at a time, each in its own transaction, so an
//! interrupted run keeps every finished point, and that `concur report` reads
//! alone. It owns the schema (versioned migrations, spec/RESULTS-DB.md) and
//! the mapping between rows and the plain records of [`types`].

pub mod capacity;
pub mod faults;
pub mod held;
pub mod micro;
pub mod noise;
mod points;
mod rows;
mod schema;
pub mod sweep;
pub mod types;

pub use schema::MIGRATIONS;
pub use types::*;

use anyhow::{Context, Result, bail};
use rusqlite::{Connection, OptionalExtension, params};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// The default database path, relative to the repository root.
pub const DEFAULT_DB: &str = "results/concur.db";

/// An open results database.
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

impl Store {
    /// Opens `path`, creating it (and its folder) if needed, and migrates it.
    pub fn open(path: &Path) -> Result<Store> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        Self::open_file(path)
    }

    /// Opens an existing database; a missing file is an error that says how to make one.
    pub fn open_existing(path: &Path) -> Result<Store> {
        if !path.exists() {
            bail!("{} does not exist: run `concur run` first (it writes there), or pass --db with the database to report on", path.display());
        }
        Self::open_file(path)
    }

    fn open_file(path: &Path) -> Result<Store> {
        let mut conn = Connection::open(path).with_context(|| format!("opening {}", path.display()))?;
        conn.busy_timeout(std::time::Duration::from_secs(10))?;
        conn.pragma_update(None, "foreign_keys", true)?;
        schema::migrate(&mut conn, path, MIGRATIONS).map_err(|e| match e.downcast_ref::<rusqlite::Error>() {
            Some(sql) => anyhow::anyhow!("{} is not a readable SQLite database ({sql}); pass another --db", path.display()),
            None => e,
        })?;
        Ok(Store { conn, path: path.to_path_buf() })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Records a new run and returns its id.
    pub fn insert_run(&self, run: &RunInfo) -> Result<i64> {
        let env = &run.environment;
        self.conn.execute(
            "INSERT INTO runs (started_at, finished_at, status, profile, plan_key, plan, concur_version, git_commit, git_dirty,
                               cpu_model, logical_cpus, kernel, os, memory_bytes, toolchains, notes, topology)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
            params![
                run.started_at,
                run.finished_at,
                run.status.as_str(),
                run.profile,
                run.plan_key,
                run.plan.to_string(),
                env.concur_version,
                env.git_commit,
                env.git_dirty,
                env.cpu_model,
                env.logical_cpus,
                env.kernel,
                env.os,
                env.memory_bytes as i64,
                serde_json::to_string(&env.toolchains)?,
                serde_json::to_string(&run.notes)?,
                env.topology.as_ref().map(serde_json::to_string).transpose()?,
            ],
        )?;
        Ok(self.conn.last_insert_rowid())
    }

    /// Marks a run finished or interrupted (`finished_at` is when it stopped).
    pub fn set_run_status(&self, id: i64, status: RunStatus, finished_at: Option<&str>) -> Result<()> {
        self.conn.execute("UPDATE runs SET status = ?2, finished_at = ?3 WHERE id = ?1", params![id, status.as_str(), finished_at])?;
        Ok(())
    }

    /// Replaces a run's notes (warnings shown in the report).
    pub fn set_run_notes(&self, id: i64, notes: &[String]) -> Result<()> {
        self.conn.execute("UPDATE runs SET notes = ?2 WHERE id = ?1", params![id, serde_json::to_string(notes)?])?;
        Ok(())
    }

    /// Records (or replaces) how an implementation fared in a run.
    pub fn put_implementation(&self, run_id: i64, imp: &ImplRecord) -> Result<()> {
        self.conn.execute(
            "INSERT OR REPLACE INTO implementations (run_id, name, status, reason, version, manifest, known_failures) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![run_id, imp.name, imp.status.as_str(), imp.reason, imp.version, serde_json::to_string(&imp.manifest)?, serde_json::to_string(&imp.known_failures)?],
        )?;
        Ok(())
    }

    /// Writes one point, committed before this returns.
    pub fn insert_point(&self, run_id: i64, point: &PointRecord) -> Result<()> {
        points::insert(&self.conn, run_id, point).with_context(|| format!("writing point {} to {}", point.key, self.path.display()))
    }

    /// Keys of the points a run already holds.
    pub fn point_keys(&self, run_id: i64) -> Result<HashSet<String>> {
        let mut stmt = self.conn.prepare("SELECT key FROM points WHERE run_id = ?1")?;
        let keys = stmt.query_map([run_id], |r| r.get::<_, String>(0))?.collect::<rusqlite::Result<_>>()?;
        Ok(keys)
    }

    /// The latest run with this plan that did not finish, for `--resume`.
    pub fn resumable_run(&self, plan_key: &str) -> Result<Option<RunInfo>> {
        let id: Option<i64> = self
            .conn
            .query_row("SELECT id FROM runs WHERE plan_key = ?1 AND status != 'finished' ORDER BY id DESC LIMIT 1", [plan_key], |r| r.get(0))
            .optional()?;
        id.map(|id| self.run(id)).transpose()
    }

    /// Every run, oldest first.
    pub fn runs(&self) -> Result<Vec<RunInfo>> {
        let ids: Vec<i64> = self.conn.prepare("SELECT id FROM runs ORDER BY id")?.query_map([], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
        ids.into_iter().map(|id| self.run(id)).collect()
    }

    /// The runs holding a measured point taken by `generator`, newest first.
    pub fn runs_with_generator(&self, generator: Generator) -> Result<Vec<i64>> {
        let sql = "SELECT DISTINCT run_id FROM points WHERE generator = ?1 AND error IS NULL ORDER BY run_id DESC";
        Ok(self.conn.prepare(sql)?.query_map([generator.as_str()], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?)
    }

    /// The newest run that holds at least one point, calibrations
    /// (`concur calibrate`'s A/A rounds) aside, else the newest run.
    pub fn latest_run_id(&self) -> Result<Option<i64>> {
        let with_points = "SELECT max(run_id) FROM points WHERE run_id NOT IN (SELECT id FROM runs WHERE profile = 'calibrate')";
        let any = "SELECT max(id) FROM runs";
        let id: Option<i64> = self.conn.query_row(with_points, [], |r| r.get(0))?;
        Ok(match id {
            Some(id) => Some(id),
            None => self.conn.query_row(any, [], |r| r.get(0))?,
        })
    }

    /// One run's header.
    pub fn run(&self, id: i64) -> Result<RunInfo> {
        self.conn
            .query_row("SELECT * FROM runs WHERE id = ?1", [id], run_from_row)
            .optional()?
            .with_context(|| format!("{} has no run {id}; `concur report --list` shows the runs it holds", self.path.display()))
    }

    /// A run with its implementations and points, points in the order they were taken.
    pub fn load_run(&self, id: i64) -> Result<RunData> {
        let run = self.run(id)?;
        let mut stmt = self.conn.prepare("SELECT name, status, reason, version, manifest, known_failures FROM implementations WHERE run_id = ?1 ORDER BY name")?;
        let implementations = stmt
            .query_map([id], |r| {
                let status: String = r.get(1)?;
                let manifest: String = r.get(4)?;
                let known_failures: String = r.get(5)?;
                Ok(ImplRecord {
                    name: r.get(0)?,
                    status: ImplStatus::parse(&status).unwrap_or(ImplStatus::Failed),
                    reason: r.get(2)?,
                    version: r.get(3)?,
                    manifest: serde_json::from_str(&manifest).map_err(json_err)?,
                    known_failures: serde_json::from_str(&known_failures).map_err(json_err)?,
                })
            })?
            .collect::<rusqlite::Result<_>>()?;
        let points = points::load(&self.conn, id)?;
        Ok(RunData { run, implementations, points })
    }
}

fn run_from_row(r: &rusqlite::Row) -> rusqlite::Result<RunInfo> {
    let status: String = r.get("status")?;
    let plan: String = r.get("plan")?;
    let toolchains: String = r.get("toolchains")?;
    let notes: String = r.get("notes")?;
    let topology: Option<String> = r.get("topology")?;
    Ok(RunInfo {
        id: r.get("id")?,
        started_at: r.get("started_at")?,
        finished_at: r.get("finished_at")?,
        status: RunStatus::parse(&status).unwrap_or(RunStatus::Running),
        profile: r.get("profile")?,
        plan_key: r.get("plan_key")?,
        plan: serde_json::from_str(&plan).map_err(json_err)?,
        environment: Environment {
            concur_version: r.get("concur_version")?,
            git_commit: r.get("git_commit")?,
            git_dirty: r.get("git_dirty")?,
            cpu_model: r.get("cpu_model")?,
            logical_cpus: r.get("logical_cpus")?,
            kernel: r.get("kernel")?,
            os: r.get("os")?,
            memory_bytes: r.get::<_, i64>("memory_bytes")? as u64,
            toolchains: serde_json::from_str(&toolchains).map_err(json_err)?,
            topology: topology.map(|t| serde_json::from_str(&t)).transpose().map_err(json_err)?,
        },
        notes: serde_json::from_str(&notes).map_err(json_err)?,
    })
}

pub(crate) use rows::json_err;
