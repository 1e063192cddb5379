//! The PostgreSQL cluster the database tests share: its template lives in
//! cargo's temporary folder for tests (made once, reused by later runs), and
//! one cluster per test binary is started from it the first time a test asks
//! (stopped by its watchdog when the binary exits). Without PostgreSQL the
//! tests fail naming the package, as `tools::require` does for programs.

#![allow(dead_code)]

use concur::db::{Cluster, Options};
use std::path::PathBuf;
use std::sync::OnceLock;

/// The template every test cluster copies.
pub fn template() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("postgres")
}

pub fn options() -> Options {
    Options { template: template(), cpus: None }
}

/// Whether PostgreSQL is installed; when not, fails the test naming the
/// package (or skips it under `CONCUR_TEST_SKIP_MISSING=1`).
pub fn installed() -> bool {
    match concur::db::install::find() {
        Ok(_) => true,
        Err(e) => crate::tools::missing::<()>(&e.to_string()).is_some(),
    }
}

/// The binary's shared cluster.
pub fn shared() -> &'static Cluster {
    static CLUSTER: OnceLock<Cluster> = OnceLock::new();
    CLUSTER.get_or_init(|| Cluster::start(&options()).unwrap_or_else(|e| panic!("starting the test cluster: {e:#}")))
}

/// The processes of the clusters that concur process `owner` started.
pub fn postgres_of(owner: u32) -> Vec<u32> {
    postgres_in(&format!("concur-postgres-{owner}-"))
}

/// The processes of the clusters whose working folder's path contains
/// `folder`: each postmaster (its command line names the folder) and its
/// children; zombies, which are gone but for their entry, not counted.
pub fn postgres_in(folder: &str) -> Vec<u32> {
    let procs: Vec<(u32, u32, String)> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let pid: u32 = e.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
            let rest: Vec<&str> = stat.rsplit_once(") ")?.1.split(' ').collect();
            if rest[0] == "Z" {
                return None;
            }
            let cmdline = String::from_utf8_lossy(&std::fs::read(e.path().join("cmdline")).ok()?).replace('\0', " ");
            Some((pid, rest[1].parse().ok()?, cmdline))
        })
        .collect();
    let masters: Vec<u32> = procs.iter().filter(|(_, _, cmd)| cmd.split(' ').next().is_some_and(|a| a.ends_with("/postgres")) && cmd.contains(folder)).map(|p| p.0).collect();
    procs.iter().filter(|(pid, ppid, _)| masters.contains(pid) || masters.contains(ppid)).map(|p| p.0).collect()
}
