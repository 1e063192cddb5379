//! Finding PostgreSQL's programs: Debian installs each major version under
//! `/usr/lib/postgresql/<major>/bin`, off PATH, so that is where we look
//! first (the newest), then PATH. Missing, it is a sentence naming the
//! package, which also carries `pg_stat_statements`.

use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The Debian package `scripts/setup.sh` installs (server, `initdb` and the contrib modules, `pg_stat_statements` among them).
pub const PACKAGE: &str = "postgresql-15";

/// The programs a cluster needs, from one installation.
#[derive(Debug, Clone)]
pub struct Programs {
    pub postgres: PathBuf,
    pub initdb: PathBuf,
    /// The major version (15), part of the template's layout.
    pub major: u32,
}

/// The installed PostgreSQL, or what to install.
pub fn find() -> Result<Programs> {
    find_in(Path::new("/usr/lib/postgresql"), std::env::var_os("PATH"))
}

/// Looks under `debian` (`/usr/lib/postgresql`), then on `path`.
fn find_in(debian: &Path, path: Option<std::ffi::OsString>) -> Result<Programs> {
    let Some(bin) = debian_bin_dirs(debian).into_iter().chain(path_bin_dir(path)).next() else {
        bail!("PostgreSQL is not installed: the database routes (SPEC §8) need its server; install Debian's {PACKAGE} package (apt-get install {PACKAGE}, or scripts/setup.sh)");
    };
    let postgres = bin.join("postgres");
    let out = Command::new(&postgres).arg("--version").output().with_context(|| format!("running {} --version", postgres.display()))?;
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let major = parse_major(&text).with_context(|| format!("{} --version printed {text:?}, not 'postgres (PostgreSQL) 15.x'", postgres.display()))?;
    Ok(Programs { postgres, initdb: bin.join("initdb"), major })
}

/// `<debian>/<major>/bin` holding both programs, newest first.
fn debian_bin_dirs(debian: &Path) -> Vec<PathBuf> {
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir(debian)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| Some((e.file_name().to_str()?.parse().ok()?, e.path().join("bin"))))
        .filter(|(_, bin): &(u32, PathBuf)| has_programs(bin))
        .collect();
    found.sort_by_key(|f| std::cmp::Reverse(f.0));
    found.into_iter().map(|(_, bin)| bin).collect()
}

fn path_bin_dir(path: Option<std::ffi::OsString>) -> Option<PathBuf> {
    std::env::split_paths(&path?).find(|dir| has_programs(dir))
}

fn has_programs(bin: &Path) -> bool {
    bin.join("postgres").is_file() && bin.join("initdb").is_file()
}

/// `postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)` → 15.
fn parse_major(version: &str) -> Option<u32> {
    let number = version.split_whitespace().find(|w| w.starts_with(|c: char| c.is_ascii_digit()))?;
    number.split(['.', 'b', 'r']).next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postgresql_missing_names_the_package_to_install() {
        let nowhere = tempfile::tempdir().unwrap();
        let err = find_in(nowhere.path(), Some(nowhere.path().into())).unwrap_err().to_string();
        assert!(err.contains("PostgreSQL is not installed") && err.contains("apt-get install postgresql-15"), "{err}");
    }

    #[test]
    fn the_major_version_is_read_from_postgres_version() {
        assert_eq!(parse_major("postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)\n"), Some(15));
        assert_eq!(parse_major("postgres (PostgreSQL) 17beta1\n"), Some(17));
        assert_eq!(parse_major("something else"), None);
    }
}
