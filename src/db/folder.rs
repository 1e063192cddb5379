//! Data folders on disk. A cluster never runs in the template of
//! `results/postgres`: each start copies it into a working folder of its
//! own under the system's temporary folder, named for the owning process,
//! removed at stop (or by the watchdog, or by the next start once that
//! process is gone). So any number of concur processes run clusters at once
//! (`concur db` in one terminal, `concur verify` in another), and each
//! starts from the same seeded data.

use crate::host::user::{self, Ids};
use anyhow::{Context, Result};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

const PREFIX: &str = "concur-postgres-";

/// A working folder, removed when dropped: `data/` (the cluster, owned by
/// the user PostgreSQL runs as) and `postgres.log`.
#[derive(Debug)]
pub struct Workdir {
    pub path: PathBuf,
}

impl Workdir {
    /// A new empty working folder for this process, after removing those of
    /// processes that are gone.
    pub fn fresh() -> Result<Workdir> {
        sweep();
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let name = format!("{PREFIX}{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
        let path = std::env::temp_dir().join(name);
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).with_context(|| format!("creating {}", path.display()))?;
        // PostgreSQL's user must reach data/ inside it.
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))?;
        Ok(Workdir { path })
    }

    pub fn data(&self) -> PathBuf {
        self.path.join("data")
    }

    pub fn log(&self) -> PathBuf {
        self.path.join("postgres.log")
    }
}

impl Drop for Workdir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Removes the working folders whose process is gone (killed before it or
/// its watchdog could).
fn sweep() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        let Some(pid) = name.strip_prefix(PREFIX).and_then(|rest| rest.split('-').next()).and_then(|p| p.parse::<u32>().ok()) else { continue };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Copies the folder `from` to `to` (which must not exist), keeping every
/// file's permission bits, then hands it to `ids`.
pub fn copy_tree(from: &Path, to: &Path, ids: Option<Ids>) -> Result<()> {
    copy_dir(from, to).with_context(|| format!("copying {} to {}", from.display(), to.display()))?;
    if let Some(ids) = ids {
        user::give(to, ids).with_context(|| format!("handing {} to uid {}", to.display(), ids.uid))?;
    }
    Ok(())
}

fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir(to)?;
    std::fs::set_permissions(to, std::fs::metadata(from)?.permissions())?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        let kind = entry.file_type()?;
        if kind.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(entry.path())?, &target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}
