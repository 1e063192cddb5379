//! `concur verify`: proves an implementation follows spec/SPEC.md before any
//! number is taken. It builds and starts each implementation on a free port
//! (exactly as `concur run` will), runs every check of [`checks::all`] with
//! real requests, stops the whole process group, and reports pass, warn or
//! fail per check with what to fix. A failure the manifest declares in
//! `[known_failures]` (a limit of the runtime) is reported as `known`, with
//! its reason, and does not fail the implementation.
//!
//! An implementation whose manifest says it serves the database routes
//! (SPEC §8) gets a database, whose URL the server is given; the checks of
//! §8 run only then. `concur verify` of several implementations verifies
//! [`AT_ONCE`] at a time, each with a cluster of its own (started when
//! first needed, then handed to the next implementation), and prints each
//! one's lines whole when it ends.

pub mod checks;
pub mod client;

use crate::db::{Cluster, ServerDb};
use crate::impls::{self, Availability, Implementation};
use crate::server::{self, BuildOutput, Launch, Server};
use anyhow::{Context, Result, bail};
pub use checks::{DbSettings, FaultRoutes, Outcome, Settings, Status};
use serde::Serialize;
use std::collections::BTreeMap;
use std::net::{SocketAddr, ToSocketAddrs};
use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// The settings `concur verify` starts servers with (SPEC §6).
pub const PAGE_DELAY_MS: u64 = 600;
pub const LONGPOLL_MS: u64 = 2000;
pub const PAGE_EVERY: u64 = 10;
/// The database settings it starts servers with (SPEC §8.5): not §8.2's
/// defaults, so that a server which ignores them is seen. The pool is
/// raised to the core count, so that each process of a multi-process
/// server has a connection of its own.
pub const DB_POOL: u32 = 6;
pub const DB_SLOW_MS: u64 = 50;

/// The database settings of a server under verification at `cores` (`ServerDb::for_cores`).
fn server_db(cluster: &Cluster, cores: u32) -> ServerDb {
    ServerDb::for_cores(cluster.url(), DB_POOL, DB_SLOW_MS, cores)
}

/// Whether the database routes (SPEC §8) of an implementation were checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DatabaseRoutes {
    /// Their checks ran (or none was asked by `--only`).
    Checked,
    /// This verification had no database to give the server (`--url`
    /// without CONCUR_DB_URL, `concur run`).
    NotChecked,
}

impl DatabaseRoutes {
    /// For a verification that had a database to give the server or not, and
    /// whose `only` selects these checks or not.
    fn of(has_database: bool, only: Option<&str>) -> DatabaseRoutes {
        if has_database || !asks_database(only) { DatabaseRoutes::Checked } else { DatabaseRoutes::NotChecked }
    }

    /// What the summary adds after the counts.
    fn note(self) -> &'static str {
        match self {
            DatabaseRoutes::Checked => "",
            DatabaseRoutes::NotChecked => ", database routes not checked (no database)",
        }
    }
}

/// Whether the checks `only` selects (all, without it) include one of SPEC §8's.
fn asks_database(only: Option<&str>) -> bool {
    checks::all().iter().any(|c| checks::needs_database(c.id) && chosen_by(only, c.id))
}

/// Whether `only` (comma-separated parts of ids; none: every check) selects check `id`.
fn chosen_by(only: Option<&str>, id: &str) -> bool {
    only.is_none_or(|o| o.split(',').any(|part| id.contains(part.trim())))
}

/// The verification of one implementation at one core count.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub name: String,
    pub cores: u32,
    /// Set when it could not be checked at all (build or start failed, toolchain missing).
    pub error: Option<String>,
    pub skipped: bool,
    pub database: DatabaseRoutes,
    pub outcomes: Vec<Outcome>,
}

impl Report {
    pub fn passed(&self) -> bool {
        self.error.is_none() && self.outcomes.iter().all(|o| o.status != Status::Fail)
    }
    pub fn count(&self, status: Status) -> usize {
        self.outcomes.iter().filter(|o| o.status == status).count()
    }
    /// The failures the manifest declared, in the order they ran.
    pub fn known(&self) -> impl Iterator<Item = &Outcome> {
        self.outcomes.iter().filter(|o| o.status == Status::Known)
    }
}

/// A manifest's `[known_failures]`: check id → the runtime's limit that fails it.
pub type KnownFailures = BTreeMap<String, String>;

/// That every `[known_failures]` key of `chosen`'s manifests names a check: a misspelled one
/// would excuse nothing and say nothing.
pub fn check_known_failures(root: &Path, chosen: &[Implementation]) -> Result<()> {
    let ids = checks::ids();
    for imp in chosen {
        if let Some(id) = imp.manifest.known_failures.keys().find(|id| !ids.contains(&id.as_str())) {
            let path = imp.dir.join("concur.toml");
            let shown = path.strip_prefix(root).unwrap_or(&path).display();
            bail!("{shown}: 'known_failures.{id}' is not a check of `concur verify`; the checks are {}", ids.join(", "));
        }
    }
    Ok(())
}

/// Runs the checks (all, or those whose id contains one of the comma-separated parts of `only`) against a server at `addr`;
/// a failure of a check in `known` becomes [`Status::Known`] with the declared reason.
/// `alive` is asked between checks; once it says no, the rest fail with that reason.
/// The checks of SPEC §8 run only when `settings` has a database; those of §9 as its `faults` says.
pub fn run_checks(addr: SocketAddr, settings: Settings, only: Option<&str>, known: &KnownFailures, mut alive: impl FnMut() -> Result<(), String>, mut on_outcome: impl FnMut(&Outcome)) -> Vec<Outcome> {
    let (with_database, faults) = (settings.db.is_some(), settings.faults);
    let ctx = checks::Ctx::new(addr, settings);
    let chosen: Vec<checks::Check> = checks::all()
        .into_iter()
        .filter(|c| with_database || !checks::needs_database(c.id))
        .filter(|c| faults.runs(c.id))
        .filter(|c| chosen_by(only, c.id))
        .collect();
    let run = |check: &checks::Check| {
        let started = Instant::now();
        let verdict = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (check.run)(&ctx))).unwrap_or_else(|_| Err("the check itself panicked; this is a bug in concur".into()));
        (verdict, started.elapsed())
    };
    std::thread::scope(|s| {
        // The checks of ALONGSIDE start now, each on a thread of its own, and are joined at their place.
        let mut alongside: BTreeMap<&str, _> =
            chosen.iter().filter(|c| checks::ALONGSIDE.contains(&c.id)).map(|c| (c.id, s.spawn(move || run(c)))).collect();
        let mut outcomes = Vec::new();
        let mut dead: Option<String> = None;
        for check in &chosen {
            let ran = alongside.remove(check.id).map(|handle| handle.join().unwrap_or_else(|_| (Err("the check's thread panicked; this is a bug in concur".into()), Duration::ZERO)));
            let (verdict, took) = match &dead {
                Some(why) => (Err(why.clone()), Duration::ZERO),
                None => ran.unwrap_or_else(|| run(check)),
            };
            if dead.is_none()
                && let Err(why) = alive()
            {
                dead = Some(why);
            }
            let (status, detail) = match verdict {
                Ok(w) if w.is_empty() => (Status::Pass, String::new()),
                Ok(w) => (Status::Warn, w.join("; ")),
                Err(e) => (Status::Fail, e),
            };
            let declared = known.get(check.id).cloned();
            let status = if status == Status::Fail && declared.is_some() { Status::Known } else { status };
            let outcome = Outcome { id: check.id, section: check.section, status, detail, millis: took.as_millis(), declared };
            on_outcome(&outcome);
            outcomes.push(outcome);
        }
        outcomes
    })
}

/// How [`verify_impl`] checks SPEC §9's fault routes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultPass {
    /// One server, without them: only that they are absent (`concur run`'s verification).
    Absent,
    /// One server, with them: every check, the fault routes' last.
    Shared,
    /// The server without them, then a second with them for their checks alone.
    Second,
}

/// Builds, starts, checks and stops one implementation at `cores`, giving it
/// `database` when there is one (without, SPEC §8's checks are left out),
/// checking SPEC §9's fault routes as `faults` says.
pub fn verify_impl(imp: &Implementation, root: &Path, cores: u32, database: Option<&Cluster>, faults: FaultPass, only: Option<&str>, mut on_outcome: impl FnMut(&Outcome)) -> Report {
    let routes = DatabaseRoutes::of(database.is_some(), only);
    let mut report = Report { name: imp.name().to_string(), cores, error: None, skipped: false, database: routes, outcomes: vec![] };
    let tmp = std::env::temp_dir();
    // Named for this process and call: two verifications of same-named implementations at once
    // (the test suite's fakes) must not write, or truncate, each other's logs.
    static CALLS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let tag = format!("{}-{}", std::process::id(), CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
    let build_log = tmp.join(format!("concur-build-{}-{tag}.log", imp.name()));
    if let Err(e) = server::build(imp, &BuildOutput::Log(build_log)) {
        report.error = Some(format!("{e:#}"));
        return report;
    }
    let log = |kind: &str| tmp.join(format!("concur-verify{kind}-{}-{cores}-{tag}.log", imp.name()));
    let known = &imp.manifest.known_failures;
    // The server of SPEC §6 (and §8), with or without the fault routes; then, when asked, one with
    // them and no database for their checks alone.
    let asks_faults = checks::all().iter().any(|c| checks::needs_faults(c.id) && chosen_by(only, c.id));
    let passes = match faults {
        FaultPass::Absent => vec![(FaultRoutes::Off, database)],
        FaultPass::Shared => vec![(if asks_faults { FaultRoutes::On } else { FaultRoutes::Off }, database)],
        FaultPass::Second if asks_faults => vec![(FaultRoutes::Off, database), (FaultRoutes::Only, None)],
        FaultPass::Second => vec![(FaultRoutes::Off, database)],
    };
    for (faults, database) in passes {
        // What the server is given of the database is what its checks assume.
        let given = database.map(|c| server_db(c, cores));
        let started = start_for_checks(imp, root, cores, given.as_ref(), faults != FaultRoutes::Off, &log(if faults == FaultRoutes::Only { "-faults" } else { "" }));
        let mut server = match started {
            Ok(s) => s,
            Err(e) => {
                report.error = Some(format!("{e:#}"));
                return report;
            }
        };
        let db = database.zip(given).map(|(c, g)| DbSettings { admin_url: c.admin_url(), pool: g.pool, slow_ms: g.slow_ms });
        let mut settings = settings_for(root, cores, Some(server.pgid()), db);
        settings.faults = faults;
        let addr = server.addr;
        let alive = || if server.is_running() { Ok(()) } else { Err(format!("the server exited during verification{}", server.log_tail())) };
        report.outcomes.extend(run_checks(addr, settings, only, known, alive, &mut on_outcome));
        server.stop(Duration::from_secs(5));
    }
    report
}

fn start_for_checks(imp: &Implementation, root: &Path, cores: u32, database: Option<&ServerDb>, faults: bool, log: &Path) -> Result<Server> {
    let port = server::free_port()?;
    let mut env = vec![("CONCUR_PAGE_DELAY_MS".to_string(), PAGE_DELAY_MS.to_string()), ("CONCUR_LONGPOLL_MS".to_string(), LONGPOLL_MS.to_string())];
    if faults {
        env.push(server::faults_on());
    }
    let launch = Launch { port, cores, env, db: database.cloned(), cpus: None, log: Some(log.to_path_buf()), netns: None };
    let mut server = Server::start(imp, root, &launch)?;
    server.wait_ready(Duration::from_secs(90))?;
    Ok(server)
}

/// The settings a server started by `verify` runs with.
pub fn settings_for(root: &Path, cores: u32, pgid: Option<i32>, db: Option<DbSettings>) -> Settings {
    let page_bytes = std::fs::read(root.join("spec/static/hello.html")).unwrap_or_default();
    Settings { page_delay_ms: PAGE_DELAY_MS, page_every: PAGE_EVERY, longpoll_ms: LONGPOLL_MS, processes: cores, page_bytes, pgid, db, faults: FaultRoutes::Off }
}

/// `concur verify --list-checks`.
pub fn list_checks_command() -> Result<ExitCode> {
    for c in checks::all() {
        println!("{:<20} {:<12} {}", c.id, c.section, c.about);
    }
    Ok(ExitCode::SUCCESS)
}

/// `concur verify`: implementations `names` (none: all) at each core count of `cores`;
/// `only` filters the checks, `json` is where the results go as JSON.
pub fn verify_command(root: Option<&Path>, names: &[String], cores: &[u32], only: Option<&str>, json: Option<&Path>) -> Result<ExitCode> {
    // Before any thread: every server and database started from here on carries the mark the guard kills by.
    crate::host::guard::mark_children();
    let root = impls::find_root(root)?;
    if let Some(bad) = cores.iter().find(|c| **c == 0) {
        bail!("--cores {bad}: core counts start at 1 (e.g. --cores 1,2)");
    }
    let _guard = crate::host::guard::Guard::start();
    server::install_interrupt_handler();
    let all = impls::discover(&root)?;
    let chosen = impls::select(&all, "http", names)?;
    check_known_failures(&root, &chosen)?;
    let mut reports: Vec<Vec<Report>> = chosen.iter().map(|_| vec![]).collect();
    let mut to_verify = Vec::new();
    for (i, imp) in chosen.iter().enumerate() {
        match imp.availability() {
            Availability::Missing(why) => {
                println!("{}: skipped: {why}", imp.name());
                let named = !names.is_empty();
                reports[i].push(Report { name: imp.name().into(), cores: 0, error: named.then(|| why.clone()), skipped: !named, database: DatabaseRoutes::Checked, outcomes: vec![] });
            }
            Availability::Present => to_verify.push(i),
        }
    }
    // One implementation's lines stream; of several, each prints its own whole when it ends.
    let at_once = if to_verify.len() > 1 { AT_ONCE } else { 1 };
    let databases = crate::db::Pool::new(crate::db::Options::for_repository(&root));
    let done = std::sync::Mutex::new(Vec::new());
    crate::host::parallel::each(to_verify.len(), at_once, |k| {
        let i = to_verify[k];
        let mut text = String::new();
        let verified = verify_at_each(&chosen[i], &root, cores, only, &databases, |line: &str| if at_once == 1 { print!("{line}") } else { text.push_str(line) });
        print!("{text}");
        done.lock().unwrap_or_else(|e| e.into_inner()).push((i, verified));
        !crate::host::interrupt::stopping()
    });
    for (i, verified) in done.into_inner().unwrap_or_else(|e| e.into_inner()) {
        reports[i] = verified;
    }
    let reports: Vec<Report> = reports.into_iter().flatten().collect();
    finish(&reports, json)
}

/// Verifications at once in `concur verify` of several implementations, each with a database of its
/// own: most of one is waiting on the server's timers (the delayed page, the long polls), every
/// check bounds a time from below or generously from above. Three at once on this 2-core machine:
/// the 18 at 2 cores in 2:41 instead of 3:21 at two, every check passing (bench/RESULTS.md);
/// `concur run` verifies as many at once.
pub const AT_ONCE: usize = 3;

/// One implementation at each of `cores`, one server per core count, with a database of `databases`
/// (leased for all of them) when its checks ask one; its lines go to `out`.
fn verify_at_each(imp: &Implementation, root: &Path, cores: &[u32], only: Option<&str>, databases: &crate::db::Pool, mut out: impl FnMut(&str)) -> Vec<Report> {
    let cluster = asks_database(only).then(|| databases.lease());
    let mut reports = Vec::new();
    for (k, &cores_now) in cores.iter().enumerate() {
        out(&format!("== {} (CONCUR_CORES={cores_now})\n", imp.name()));
        let started = Instant::now();
        let faults = fault_pass(k, cores.len());
        let show = |o: &Outcome| out(&outcome_text(o));
        let report = match &cluster {
            Some(Err(e)) => Report { name: imp.name().into(), cores: cores_now, error: Some(e.clone()), skipped: false, database: DatabaseRoutes::Checked, outcomes: vec![] },
            Some(Ok(cluster)) => verify_impl(imp, root, cores_now, Some(cluster), faults, only, show),
            None => verify_impl(imp, root, cores_now, None, faults, only, show),
        };
        tell_end(&report, started, &mut out);
        reports.push(report);
    }
    // SPEC §8.2 at its edge: as many processes as connections. A core count above the pool is
    // what every big machine gives (concur raises the pool to it); a server that refuses to start
    // there, or gives each process more than its share, shows it here, with no such machine.
    if let Some(Ok(cluster)) = &cluster
        && chosen_by(only, EDGE_CHECK)
        && cores.iter().all(|&c| c < POOL_EDGE_CORES)
    {
        out(&format!("== {} (CONCUR_CORES={POOL_EDGE_CORES}: more processes than the pool of {DB_POOL}, raised to them)\n", imp.name()));
        let started = Instant::now();
        let report = verify_impl(imp, root, POOL_EDGE_CORES, Some(cluster), FaultPass::Absent, Some(EDGE_CHECK), |o: &Outcome| out(&outcome_text(o)));
        tell_end(&report, started, &mut out);
        reports.push(report);
    }
    reports
}

/// The lines that end one server's verification: its error, if any, and how long it took.
fn tell_end(report: &Report, started: Instant, out: &mut impl FnMut(&str)) {
    if let Some(e) = &report.error {
        out(&format!("  FAIL  {e}\n"));
    }
    out(&format!("  done in {:.1} s\n", started.elapsed().as_secs_f64()));
}

/// The core count of the pool's edge: one more than the verifier's pool, which concur raises to
/// it, so that each process has one connection.
pub const POOL_EDGE_CORES: u32 = DB_POOL + 1;

/// The one check of the start at [`POOL_EDGE_CORES`]: the pool's bound under concurrent requests.
const EDGE_CHECK: &str = "db-pool";

/// How the verification at the `k`th of `count` core counts checks the fault routes: their
/// absence at every core count but the last, whose one server has them on (one server start per
/// core count); with one core count, a second server for them.
fn fault_pass(k: usize, count: usize) -> FaultPass {
    match (count, k + 1 == count) {
        (1, _) => FaultPass::Second,
        (_, true) => FaultPass::Shared,
        (_, false) => FaultPass::Absent,
    }
}

/// `concur verify --url`: a server already running at `url`, started with `CONCUR_CORES=cores`;
/// `name`, when given, is the implementation it runs, whose `[known_failures]` apply; the
/// database routes are checked when `db` says where its database is.
pub fn verify_url_command(root: Option<&Path>, name: Option<&str>, url: &str, cores: u32, db: Option<&ServerDb>, only: Option<&str>, json: Option<&Path>) -> Result<ExitCode> {
    let root = impls::find_root(root)?;
    let addr = parse_url(url)?;
    let manifest = match name {
        Some(name) => {
            let chosen = impls::select(&impls::discover(&root)?, "http", &[name.to_string()])?;
            check_known_failures(&root, &chosen)?;
            Some(chosen.into_iter().next().expect("select names one").manifest)
        }
        None => None,
    };
    let db = match db {
        Some(db) => Some(DbSettings { admin_url: crate::db::admin_url_for(&db.url)?, pool: db.pool, slow_ms: db.slow_ms }),
        None => None,
    };
    let routes = DatabaseRoutes::of(db.is_some(), only);
    let mut settings = settings_for(&root, cores, None, db);
    settings.processes = cores;
    println!("== {url}{}", name.map_or(String::new(), |n| format!(" (as {n})")));
    let known = manifest.map(|m| m.known_failures).unwrap_or_default();
    let outcomes = run_checks(addr, settings, only, &known, || Ok(()), print_outcome);
    let report = Report { name: url.to_string(), cores, error: None, skipped: false, database: routes, outcomes };
    finish(&[report], json)
}

/// `http://127.0.0.1:8080` or `127.0.0.1:8080` to a socket address.
pub fn parse_url(url: &str) -> Result<SocketAddr> {
    let hostport = url.strip_prefix("http://").unwrap_or(url).trim_end_matches('/');
    if hostport.contains('/') || url.starts_with("https://") {
        bail!("--url {url}: give the server's base URL, e.g. http://127.0.0.1:8080 (plain HTTP, no path)");
    }
    hostport
        .to_socket_addrs()
        .with_context(|| format!("--url {url}: not a host:port (e.g. http://127.0.0.1:8080)"))?
        .next()
        .with_context(|| format!("--url {url}: the host has no address"))
}

/// One check's line as `concur verify` prints it (and `concur run` for the failed and known ones).
pub fn print_outcome(o: &Outcome) {
    print!("{}", outcome_text(o));
}

/// An outcome as its lines: the check, its time or what failed, and a declared failure's reason.
pub fn outcome_text(o: &Outcome) -> String {
    let tag = match o.status {
        Status::Pass => "pass",
        Status::Warn => "warn",
        Status::Fail => "FAIL",
        Status::Known => "known",
    };
    let mut text = match (o.status, o.detail.is_empty()) {
        (Status::Known, _) => format!("  {tag:<5} {:<20} ({} ms)  {}\n", o.id, o.millis, o.detail),
        (_, true) => format!("  {tag:<5} {:<20} ({} ms)\n", o.id, o.millis),
        (_, false) => format!("  {tag:<5} {:<20} {}\n", o.id, o.detail),
    };
    match (&o.declared, o.status) {
        (Some(reason), Status::Known) => text += &format!("        declared: {reason}\n"),
        // Not an error: a runtime's limit may show only at some core counts or under some timing.
        (Some(_), _) => text += "        note: concur.toml declares this a known failure, but it did not fail this time\n",
        (None, _) => {}
    }
    text
}

fn finish(reports: &[Report], json: Option<&Path>) -> Result<ExitCode> {
    if let Some(path) = json {
        std::fs::write(path, serde_json::to_string_pretty(reports)?).with_context(|| format!("writing {}", path.display()))?;
    }
    println!("\nsummary");
    for r in reports {
        let state = if r.skipped {
            "skipped".to_string()
        } else if let Some(e) = &r.error {
            format!("FAILED: {}", e.lines().next().unwrap_or(""))
        } else {
            let known = r.count(Status::Known);
            let known = if known > 0 { format!(", {known} known") } else { String::new() };
            format!("{} pass, {} warn, {} fail{known}{}", r.count(Status::Pass), r.count(Status::Warn), r.count(Status::Fail), r.database.note())
        };
        println!("  {:<16} cores={:<3} {state}", r.name, r.cores);
    }
    Ok(if reports.iter().all(|r| r.skipped || r.passed()) { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fault_routes_are_checked_on_the_last_core_counts_server_or_a_second_one() {
        assert_eq!(fault_pass(0, 1), FaultPass::Second);
        assert_eq!([fault_pass(0, 2), fault_pass(1, 2)], [FaultPass::Absent, FaultPass::Shared]);
        assert_eq!([fault_pass(0, 3), fault_pass(1, 3), fault_pass(2, 3)], [FaultPass::Absent, FaultPass::Absent, FaultPass::Shared]);
    }
}
