//! The PostgreSQL cluster behind the database routes (SPEC §8), started,
//! seeded, pinned and stopped the way a server is, and used by `verify`,
//! `serve`, `test` and `concur db`. Debian's PostgreSQL (`install`) makes a
//! seeded template once per machine in `results/postgres` (`template`,
//! with the data and users of `seed` and the settings of `config`); each
//! start copies it into a working folder of its own (`folder`) and runs it
//! on a free loopback port, in a process group registered like a server's,
//! with a watchdog that shuts it down when concur dies (`process`). As root,
//! PostgreSQL runs as Debian's `postgres` user. `admin` is concur's own
//! login, the only place that asks the database anything.

pub mod admin;
mod config;
mod folder;
pub mod install;
mod process;
pub mod seed;
pub mod template;

pub use admin::{Admin, Statements};

use anyhow::{Result, anyhow};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// The routes of SPEC §8.3, which read and write the database: a scenario
/// asking any of them needs a cluster, and an implementation that serves them.
pub const ROUTES: [&str; 5] = ["/db", "/queries", "/updates", "/fortunes", "/slowdb"];

/// Whether a request to `path` (with its query) is one of [`ROUTES`].
pub fn is_database_route(path: &str) -> bool {
    let route = path.split('?').next().unwrap_or(path);
    ROUTES.contains(&route)
}

/// SPEC §8.2's defaults: the most connections a server holds, and the wait of `/slowdb`.
pub const DEFAULT_POOL: u32 = 16;
pub const DEFAULT_SLOW_MS: u64 = 20;

/// How to start a cluster.
#[derive(Debug, Clone)]
pub struct Options {
    /// The seeded template, made there when missing or outdated (the repository's `results/postgres`).
    pub template: PathBuf,
    /// Pin PostgreSQL's processes to these CPUs, if given.
    pub cpus: Option<Vec<usize>>,
}

impl Options {
    /// The repository's template, no pinning.
    pub fn for_repository(root: &Path) -> Options {
        Options { template: root.join("results/postgres"), cpus: None }
    }
}

/// A running cluster; dropping it shuts it down and removes its folder.
#[derive(Debug)]
pub struct Cluster {
    // Dropped in this order: the postmaster is stopped, then its watchdog, then the folder goes.
    postmaster: process::Postmaster,
    _watchdog: process::Watchdog,
    workdir: folder::Workdir,
}

impl Cluster {
    /// Copies the template (making it first if needed) and starts PostgreSQL on it.
    pub fn start(options: &Options) -> Result<Cluster> {
        let programs = install::find()?;
        let ids = crate::host::user::unprivileged("postgres").map_err(|e| {
            anyhow!("{e}: PostgreSQL refuses to run as root, and Debian's {} package creates that user (apt-get install {})", install::PACKAGE, install::PACKAGE)
        })?;
        template::ensure(&options.template, &programs, ids)?;
        let workdir = folder::Workdir::fresh()?;
        folder::copy_tree(&options.template, &workdir.data(), ids)?;
        let port = crate::host::net::free_port()?;
        let mut postmaster = process::spawn(&programs, &workdir.data(), port, ids, options.cpus.as_deref(), &workdir.log())?;
        let watchdog = process::watchdog(postmaster.pid(), &workdir.path)?;
        postmaster.wait_ready(Duration::from_secs(30), || Admin::login(port, seed::DATABASE).map(drop))?;
        Ok(Cluster { postmaster, _watchdog: watchdog, workdir })
    }

    pub fn port(&self) -> u16 {
        self.postmaster.port
    }

    /// The postmaster's process group (its own pid).
    pub fn pgid(&self) -> i32 {
        self.postmaster.pid() as i32
    }

    /// CONCUR_DB_URL: how the server under test logs in.
    pub fn url(&self) -> String {
        format!("postgres://{}:{}@127.0.0.1:{}/{}", seed::APP_USER, seed::APP_PASSWORD, self.port(), seed::DATABASE)
    }

    /// concur's own login, for [`Admin::connect`].
    pub fn admin_url(&self) -> String {
        admin::admin_url(self.port())
    }

    /// The working folder (data and log), removed at stop.
    pub fn folder(&self) -> &Path {
        &self.workdir.path
    }
}

/// A cluster started when first needed and shared after (one per
/// `verify`, `test` or `serve`); a failure to start is kept and given to
/// every caller, so it is tried once.
#[derive(Debug)]
pub struct OnDemand {
    options: Options,
    started: Option<Result<Cluster, String>>,
}

impl OnDemand {
    pub fn new(options: Options) -> OnDemand {
        OnDemand { options, started: None }
    }

    /// The cluster, started now if this is the first call.
    pub fn get(&mut self) -> Result<&Cluster, String> {
        let options = &self.options;
        self.started.get_or_insert_with(|| start_for_routes(options)).as_ref().map_err(Clone::clone)
    }
}

/// A cluster for the database routes, said when ready; the error as a sentence naming what needed it.
fn start_for_routes(options: &Options) -> Result<Cluster, String> {
    let began = Instant::now();
    let cluster = Cluster::start(options).map_err(|e| format!("the database routes need a database: {e:#}"))?;
    println!("== database: PostgreSQL on 127.0.0.1:{} for the database routes (ready in {:.2} s)", cluster.port(), began.elapsed().as_secs_f64());
    Ok(cluster)
}

/// Clusters for work done a few at a time (`concur verify`, `concur test`):
/// each piece leases one of its own, started when no idle one is left and
/// kept for the next piece; so two verifications never share one cluster's
/// statistics (`pg_stat_statements`, `pg_stat_activity`) or rows. A failure
/// to start is kept and given to every later lease, so it is tried once.
#[derive(Debug)]
pub struct Pool {
    options: Options,
    idle: std::sync::Mutex<Vec<Cluster>>,
    failed: std::sync::Mutex<Option<String>>,
}

/// A cluster of a [`Pool`], back in it when dropped.
pub struct Lease<'a> {
    pool: &'a Pool,
    cluster: Option<Cluster>,
}

impl Pool {
    pub fn new(options: Options) -> Pool {
        Pool { options, idle: Default::default(), failed: Default::default() }
    }

    /// An idle cluster, or one started now.
    pub fn lease(&self) -> Result<Lease<'_>, String> {
        if let Some(cluster) = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop() {
            return Ok(Lease { pool: self, cluster: Some(cluster) });
        }
        let mut failed = self.failed.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(e) = &*failed {
            return Err(e.clone());
        }
        match start_for_routes(&self.options) {
            Ok(cluster) => Ok(Lease { pool: self, cluster: Some(cluster) }),
            Err(e) => Err(failed.insert(e).clone()),
        }
    }
}

impl std::ops::Deref for Lease<'_> {
    type Target = Cluster;
    fn deref(&self) -> &Cluster {
        self.cluster.as_ref().expect("a lease holds its cluster until dropped")
    }
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        if let Some(cluster) = self.cluster.take() {
            self.pool.idle.lock().unwrap_or_else(|e| e.into_inner()).push(cluster);
        }
    }
}

/// What a server is given of a database (SPEC §8.2): the one road by which `run`, `verify`,
/// `serve` and `test` hand a server its CONCUR_DB_URL, CONCUR_DB_POOL and CONCUR_DB_SLOW_MS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerDb {
    /// Its CONCUR_DB_URL: a cluster of concur's own (`concur db` prints one).
    pub url: String,
    pub pool: u32,
    pub slow_ms: u64,
}

impl ServerDb {
    /// The settings for a server of `cores` cores: `pool` raised to `cores`, so that a server of
    /// one process per core has at least one connection in each (SPEC §8.2): with 16 at 64 cores
    /// three entries refused to start and seven gave every process one, above the bound.
    pub fn for_cores(url: String, pool: u32, slow_ms: u64, cores: u32) -> ServerDb {
        ServerDb { url, pool: pool.max(cores), slow_ms }
    }

    /// The server's environment.
    pub fn env(&self) -> Vec<(String, String)> {
        vec![("CONCUR_DB_URL".into(), self.url.clone()), ("CONCUR_DB_POOL".into(), self.pool.to_string()), ("CONCUR_DB_SLOW_MS".into(), self.slow_ms.to_string())]
    }
}

/// The admin URL of the cluster that `url` (a CONCUR_DB_URL of concur's
/// own cluster, e.g. from `concur db`) reaches: same host and port.
pub fn admin_url_for(url: &str) -> Result<String> {
    let config: postgres::Config = url.parse().map_err(|e| anyhow!("CONCUR_DB_URL {url}: not a PostgreSQL URL ({e}); use the one `concur db` prints"))?;
    let port = config.get_ports().first().copied().unwrap_or(5432);
    Ok(admin::admin_url(port))
}

/// `concur db`: a cluster in the foreground until Ctrl-C, its URL on stdout.
pub fn db_command(root: Option<&Path>, template: Option<&Path>, cpus: Option<Vec<usize>>) -> Result<ExitCode> {
    let template = match template {
        Some(dir) => dir.to_path_buf(),
        None => Options::for_repository(&crate::impls::find_root(root)?).template,
    };
    crate::host::groups::install_interrupt_handler();
    let began = Instant::now();
    let mut cluster = Cluster::start(&Options { template: template.clone(), cpus })?;
    println!("CONCUR_DB_URL={}", cluster.url());
    eprintln!(
        "concur: PostgreSQL ready on 127.0.0.1:{} in {:.2} s (a copy of {}, in {}); export the line above for `concur serve` and `concur verify --url`; Ctrl-C stops it",
        cluster.port(),
        began.elapsed().as_secs_f64(),
        template.display(),
        cluster.folder().display()
    );
    let status = loop {
        if let Some(status) = cluster.postmaster.exited() {
            break status;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    // Ctrl-C stops PostgreSQL too; the handler then exits with 130 itself.
    if crate::host::interrupt::stopping() {
        std::thread::sleep(Duration::from_secs(10));
    }
    Err(anyhow!("PostgreSQL exited ({status}){}", cluster.postmaster.log_tail()))
}

#[cfg(test)]
mod tests {
    use super::ServerDb;

    #[test]
    fn a_servers_pool_is_at_least_its_core_count() {
        let at = |pool, cores| ServerDb::for_cores("postgres://u:p@127.0.0.1:1/d".into(), pool, 20, cores);
        assert_eq!(at(16, 1).pool, 16);
        assert_eq!(at(16, 64).pool, 64, "one connection for each of 64 processes");
        let env = at(6, 2).env();
        assert_eq!(env[1], ("CONCUR_DB_POOL".to_string(), "6".to_string()));
        assert_eq!(env.len(), 3);
    }
}
