//! The seeded template, `results/postgres`: made once per machine (initdb,
//! the configuration, the data of SPEC §8.1, a clean shutdown), then copied
//! by every start. It is made in a working folder and moved into place
//! whole, with a marker naming its layout written last, so a folder
//! without the right marker (an older layout, another PostgreSQL version,
//! other data or settings, an interrupted creation) is removed and made
//! anew, never half-used.

use super::admin::Admin;
use super::folder::{Workdir, copy_tree};
use super::install::Programs;
use super::{config, process, seed};
use crate::host::user::Ids;
use anyhow::{Context, Result, bail};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// Raised when the folder's shape changes; a change of the seed or the
/// configuration changes the marker's digest by itself.
pub const LAYOUT: u32 = 1;
const MARKER: &str = "concur-layout";

fn marker_text(programs: &Programs) -> String {
    let made_of = [seed::cluster_sql().join(";"), seed::database_sql().join(";"), config::SETTINGS.to_string(), config::HBA.to_string()].join("\n");
    format!("layout {LAYOUT}\npostgres {}\nseed {:016x}\n", programs.major, crate::host::digest::fnv1a(&made_of))
}

/// Whether `dir` is a complete template of this layout and PostgreSQL version.
pub fn is_current(dir: &Path, programs: &Programs) -> bool {
    std::fs::read_to_string(dir.join(MARKER)).is_ok_and(|text| text == marker_text(programs))
}

/// Makes `dir` a current template unless it already is; says so when it
/// makes one, and how long that took.
pub fn ensure(dir: &Path, programs: &Programs, ids: Option<Ids>) -> Result<()> {
    if is_current(dir, programs) {
        return Ok(());
    }
    let began = Instant::now();
    if dir.exists() {
        eprintln!("concur: {} is not a database template of layout {LAYOUT} for PostgreSQL {}: making it anew", dir.display(), programs.major);
    }
    let work = Workdir::fresh()?;
    create(&work, programs, ids)?;
    std::fs::write(work.data().join(MARKER), marker_text(programs))?;
    install(&work.data(), dir, programs)?;
    eprintln!("concur: database template made in {} ({:.1} s, once per machine)", dir.display(), began.elapsed().as_secs_f64());
    Ok(())
}

/// initdb, the configuration, a start, the seed, a clean stop.
fn create(work: &Workdir, programs: &Programs, ids: Option<Ids>) -> Result<()> {
    let data = work.data();
    let password = work.path.join("admin-password");
    std::fs::write(&password, seed::ADMIN_PASSWORD)?;
    let mut cmd = Command::new(&programs.initdb);
    cmd.arg("-D").arg(&data).arg("--pwfile").arg(&password);
    cmd.args(["-U", seed::ADMIN_USER, "--auth=scram-sha-256", "--encoding=UTF8", "--locale=C.UTF-8", "--wal-segsize=1", "--no-sync"]);
    if let Some(ids) = ids {
        crate::host::user::give(&work.path, ids)?;
        std::os::unix::process::CommandExt::uid(&mut cmd, ids.uid);
        std::os::unix::process::CommandExt::gid(&mut cmd, ids.gid);
    }
    let out = cmd.output().with_context(|| format!("running {}", programs.initdb.display()))?;
    if !out.status.success() {
        bail!("{} failed ({}): {}", programs.initdb.display(), out.status, String::from_utf8_lossy(&out.stderr).trim());
    }
    std::fs::remove_file(&password)?;
    append(&data.join("postgresql.conf"), config::SETTINGS)?;
    std::fs::write(data.join("pg_hba.conf"), config::HBA)?;
    let port = crate::host::net::free_port()?;
    let mut postmaster = process::spawn(programs, &data, port, ids, None, &work.log())?;
    let _watchdog = process::watchdog(postmaster.pid(), &work.path)?;
    postmaster.wait_ready(Duration::from_secs(30), || Admin::login(port, "postgres").map(drop))?;
    let seeded = seed_cluster(port);
    postmaster.stop();
    seeded.with_context(|| format!("seeding the new cluster{}", postmaster.log_tail()))
}

fn seed_cluster(port: u16) -> Result<()> {
    let mut admin = Admin::login(port, "postgres").map_err(anyhow::Error::msg)?;
    admin.run_each(&seed::cluster_sql())?;
    let mut admin = Admin::login(port, seed::DATABASE).map_err(anyhow::Error::msg)?;
    admin.run_each(&seed::database_sql())
}

fn append(path: &Path, text: &str) -> Result<()> {
    use std::io::Write;
    let mut file = std::fs::OpenOptions::new().append(true).open(path).with_context(|| format!("opening {}", path.display()))?;
    file.write_all(text.as_bytes())?;
    Ok(())
}

/// Puts the finished `data` at `dir`: beside it first, then renamed, so
/// `dir` is either the old folder or the whole new one. Another process
/// that made one at the same time wins; ours is dropped.
fn install(data: &Path, dir: &Path, programs: &Programs) -> Result<()> {
    let parent = dir.parent().context("the template folder has no parent")?;
    std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    let staged = parent.join(format!(".{}.new-{}", dir.file_name().and_then(|n| n.to_str()).unwrap_or("postgres"), std::process::id()));
    let _ = std::fs::remove_dir_all(&staged);
    copy_tree(data, &staged, None)?;
    if dir.exists() && !is_current(dir, programs) {
        std::fs::remove_dir_all(dir).with_context(|| format!("removing the outdated {}", dir.display()))?;
    }
    if std::fs::rename(&staged, dir).is_err() {
        std::fs::remove_dir_all(&staged)?;
        if !is_current(dir, programs) {
            bail!("could not put the new database template at {}", dir.display());
        }
    }
    Ok(())
}
