//! What `concur run` and `concur micro` share around their sweeps: the
//! database they write (`--db`, else the repository's), a run row started
//! now, a log folder per run beside the database, and the run's status once
//! it ends.

use super::{DEFAULT_DB, Environment, RunInfo, RunStatus, Store};
use crate::host::env::now_rfc3339;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// Opens (creating it if needed) `db` when given, else `results/concur.db`
/// in the repository at `root`; returns its path with it.
pub fn open(root: &Path, db: Option<&Path>) -> Result<(PathBuf, Store)> {
    let path = db.map_or_else(|| root.join(DEFAULT_DB), Path::to_path_buf);
    let store = Store::open(&path)?;
    Ok((path, store))
}

/// `logs/<kind>-<run id>/` beside the database, created.
pub fn log_dir(db: &Path, kind: &str, run_id: i64) -> Result<PathBuf> {
    let dir = db.parent().unwrap_or(Path::new(".")).join("logs").join(format!("{kind}-{run_id}"));
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    Ok(dir)
}

impl RunInfo {
    /// A run starting now, before the database assigns its id.
    pub fn starting(profile: String, plan_key: String, plan: serde_json::Value, environment: Environment, notes: Vec<String>) -> RunInfo {
        RunInfo { id: 0, started_at: now_rfc3339(), finished_at: None, status: RunStatus::Running, profile, plan_key, plan, environment, notes }
    }
}

impl Store {
    /// Marks run `id` ended now with `status`.
    pub fn end_run(&self, id: i64, status: RunStatus) -> Result<()> {
        self.set_run_status(id, status, Some(&now_rfc3339()))
    }
}
