//! `concur faults`: what a server does on the day a handler misbehaves
//! (spec/SPEC.md §9, spec/FAULTS.md). A server started with its fault routes
//! on is timed from exec to its first answer and followed through its first
//! seconds at a fixed open-loop rate (the warm-up curve); its hello capacity
//! is measured, and an open loop at a share of it runs beside each trial
//! while a prober asks `GET /` every few milliseconds: first without a fault
//! (the baseline), then one fault at a time: a handler's panic, a handler's
//! spin that never yields, and a SIGKILL of one worker (or of the only
//! process); last the capacity again. What the faulting client received, how
//! long nobody was served, how long the others waited, what the load lost,
//! when it was back at its rate and latency, and who started the server
//! again are stored in the results database (`store::faults`), one
//! implementation at a time, as a run of profile `faults` that `concur
//! report` shows. Where the runtime has no supervisor of its own and the
//! process died, concur starts it again as a process supervisor would
//! (systemd's `Restart=always`, killing what was left of its group first)
//! and says so.

mod probe;
pub mod profile;
pub mod recovery;

use crate::host::procstat::{sample_group, serving_port, tree};
use crate::impls::Implementation;
use crate::load::{self, Control, LoadPlan, StopAt};
use crate::server::{self, Launch, Server};
pub use crate::store::faults::{OpenLoop, ImplFaults, LoadFigures, StartUp, Trial};
use crate::db::ServerDb;
use anyhow::{Context, Result};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// One fault a trial sets off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// None: the baseline the others are judged against.
    None,
    /// `GET /fault/panic`.
    Panic,
    /// `GET /fault/spin?ms=N`.
    Spin { ms: u64 },
    /// SIGKILL to one worker process, or to the only one.
    Kill,
}

impl Fault {
    pub fn label(self) -> String {
        match self {
            Fault::None => BASELINE.into(),
            Fault::Panic => "panic".into(),
            Fault::Spin { ms } => format!("spin {ms} ms"),
            Fault::Kill => "kill -9".into(),
        }
    }

    /// Whether the database route's bystanders run beside it: a fault that can end a process
    /// (whose replacement's pool must connect anew), and the baseline they are judged by. A
    /// spin holds a core as it holds it from `GET /`'s bystanders, whom it stalls the same.
    pub fn concerns_database(self) -> bool {
        matches!(self, Fault::None | Fault::Panic | Fault::Kill)
    }
}

/// The label of the trial without a fault.
pub const BASELINE: &str = "none (baseline)";

/// How the trials are run.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The open-loop load beside the prober, as a share of the server's own hello capacity.
    pub share: f64,
    /// A fixed rate for that load instead (requests per second of `GET /`).
    pub rate: Option<f64>,
    /// The warm-up curve: an open loop at this fixed rate from the first 200, this long.
    pub warmup_rate: f64,
    pub warmup_for: Duration,
    /// The capacity's closed loop: warmed up this long on its own connections, then measured.
    pub capacity_warmup: Duration,
    pub capacity_for: Duration,
    /// Whether the capacity is measured again after the last trial (what the faults left).
    pub capacity_after: bool,
    /// The capacity, before and after, is the best of this many windows of `capacity_for`, one
    /// after the other on the same connections, the first after `capacity_warmup`: a JIT warms
    /// in the first (kotlin-ktor at one core, started again after the kill: 14,521, 21,668 and
    /// 35,522 req/s, and its capacity before, one window after a 5 s warm-up curve, 14,671).
    pub capacity_windows: usize,
    /// Whether the database route's bystanders run beside the faults that concern it (with a
    /// database of concur's own, and the server given it).
    pub database: bool,
    /// Their open loop, as a share of the server's `GET /db` capacity: a quarter of `share` by
    /// default, so that both loops together ask a quarter more of the server than the one on `/`
    /// alone (at 20% each, node-http's baseline at one core did not hold its /db seconds: p99
    /// 6 ms in the first, 599 ms in the fifth).
    pub db_share: f64,
    /// Load before the fault, and after it (the bound on a recovery).
    pub before: Duration,
    pub after: Duration,
    /// The baseline trial's whole length (none: `before + after`, as every trial); at least 2 s,
    /// so that it has a whole second after its first, whose p99 the recoveries are judged by.
    pub baseline: Option<Duration>,
    /// The spin's length.
    pub spin_ms: u64,
    /// The prober's period.
    pub probe_every: Duration,
    /// The longest start-up waited for.
    pub start_timeout: Duration,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            share: 0.2,
            rate: None,
            warmup_rate: 200.0,
            warmup_for: Duration::from_secs(5),
            capacity_warmup: Duration::from_secs(1),
            capacity_for: Duration::from_secs(2),
            capacity_after: true,
            capacity_windows: 3,
            database: true,
            db_share: 0.05,
            before: Duration::from_secs(1),
            after: Duration::from_secs(4),
            baseline: None,
            spin_ms: 1000,
            probe_every: Duration::from_millis(10),
            start_timeout: Duration::from_secs(60),
        }
    }
}

/// A server that concur starts again when its process exits, as a process supervisor would.
struct Supervised<'a> {
    imp: &'a Implementation,
    root: &'a Path,
    launch: Launch,
    server: Server,
}

impl Supervised<'_> {
    /// Starts the server again when its leader has exited, after killing what was left of its
    /// group (systemd's `KillMode=control-group`); whether it did.
    fn restart_if_exited(&mut self) -> Result<bool> {
        if self.server.is_running() {
            return Ok(false);
        }
        self.server.stop(Duration::from_millis(200));
        self.server = Server::start(self.imp, self.root, &self.launch)?;
        Ok(true)
    }
}

/// Starts `imp` at `cores` with its fault routes on (and `db`, when given), times its start-up,
/// follows its first seconds, measures its capacity, and runs the baseline and each of `faults`
/// beside an open loop at a share of that capacity (and, with a database, one of `GET /db` at a
/// share of that route's capacity beside the faults that concern it); then the capacity once more.
pub fn measure(imp: &Implementation, root: &Path, cores: u32, faults: &[Fault], settings: &Settings, db: Option<&ServerDb>, log: PathBuf) -> Result<ImplFaults> {
    let launch = Launch { port: server::free_port()?, cores, env: vec![server::faults_on()], db: db.cloned(), cpus: None, log: Some(log), netns: None };
    let started = Instant::now();
    let mut server = Server::start(imp, root, &launch)?;
    let ready = loop {
        if server::answers_root(server.addr, Duration::from_millis(100), Duration::from_secs(2)) {
            break started.elapsed();
        }
        server.still_running("start-up")?;
        anyhow::ensure!(started.elapsed() < settings.start_timeout, "{} did not answer GET / within {:?}{}", imp.name(), settings.start_timeout, server.log_tail());
        std::thread::sleep(Duration::from_millis(5));
    };
    let start_up = StartUp { ready_ms: ms(ready), rss_bytes: sample_group(server.pgid()).rss_bytes };
    let addr = server.addr;
    // A profile without a warm-up curve (quick's) keeps the start-up's figures alone.
    let warmup = if settings.warmup_for.is_zero() { Vec::new() } else { open_loop(addr, settings.warmup_rate, settings.warmup_for)?.timeline };
    let capacity_before = best_capacity(addr, "/", settings).with_context(|| format!("{}'s capacity before the faults", imp.name()))?;
    anyhow::ensure!(capacity_before > 0.0, "{} answered no GET / while its capacity was measured{}", imp.name(), server.log_tail());
    let rate = settings.rate.unwrap_or(settings.share * capacity_before);
    // The database route's, where a fault that concerns it is measured (its pool opened here).
    let db_capacity = match db.filter(|_| faults.iter().any(|f| f.concerns_database())) {
        Some(_) => {
            let c = best_capacity(addr, "/db", settings).with_context(|| format!("{}'s GET /db capacity", imp.name()))?;
            anyhow::ensure!(c > 0.0, "{} answered no GET /db while its capacity was measured{}", imp.name(), server.log_tail());
            Some(c)
        }
        None => None,
    };
    let db_rate = db_capacity.map(|c| settings.db_share * c);
    let mut supervised = Supervised { imp, root, launch, server };
    let baseline = trial(&mut supervised, Fault::None, Rates { root: rate, db: db_rate }, Bounds::default(), settings)?;
    let bound = |timeline: &[crate::stats::Second], p99: f64| recovery::p99_bound_ms(recovery::reference_ms(timeline).unwrap_or(p99));
    let bounds = Bounds { root: Some(bound(&baseline.load.timeline, baseline.load.p99_ms)), db: baseline.db.as_ref().map(|d| bound(&d.timeline, d.p99_ms)) };
    let mut trials = vec![baseline];
    for &fault in faults {
        trials.push(trial(&mut supervised, fault, Rates { root: rate, db: db_rate.filter(|_| fault.concerns_database()) }, bounds, settings)?);
        // The next trial starts on a server that serves: one that runs on without serving is started afresh.
        supervised.restart_if_exited()?;
        if !wait_serving(supervised.server.addr, Duration::from_secs(10)) {
            supervised.server.stop(Duration::from_secs(1));
            supervised.restart_if_exited()?;
            anyhow::ensure!(wait_serving(supervised.server.addr, settings.start_timeout), "{} did not serve again after {}", imp.name(), fault.label());
        }
    }
    // What the faults left: a pool that lost workers for good serves less than before (a server
    // concur started again after the kill is measured as it is then, its JIT cold).
    let capacity_after = if settings.capacity_after { best_capacity(supervised.server.addr, "/", settings).ok().filter(|c| *c > 0.0) } else { None };
    supervised.server.stop(Duration::from_secs(3));
    let load = LoadFigures { rate, capacity_before, capacity_after, warmup_rate: settings.warmup_rate, warmup, db_capacity, db_rate };
    Ok(ImplFaults { name: imp.name().to_string(), cores, start_up, load, trials })
}

/// The open loops beside a trial, requests a second: `GET /`'s, and `GET /db`'s where it runs.
#[derive(Debug, Clone, Copy)]
struct Rates {
    root: f64,
    db: Option<f64>,
}

/// The p99 a second of each open loop must be within to be back (none for the baseline itself).
#[derive(Debug, Clone, Copy, Default)]
struct Bounds {
    root: Option<f64>,
    db: Option<f64>,
}

/// `GET /` in an open loop at `rate` for `length`, with a p99 per second.
fn open_loop(addr: SocketAddr, rate: f64, length: Duration) -> Result<load::LoadReport> {
    load::run(&open_loop_plan(addr, "/", rate, length)?, &Control::new())
}

/// The plan of every open loop here: the warm-up curve's, and the loads beside each trial.
fn open_loop_plan(addr: SocketAddr, path: &str, rate: f64, length: Duration) -> Result<LoadPlan> {
    let mut plan = LoadPlan::get(&format!("http://{addr}{path}"))?;
    // The capacity's connections, whatever the rate: the backlog a stall leaves is sent back as
    // fast as the server answers (with one per 500 req/s the fast servers drained a 500 ms spin
    // at about 1,000 requests a connection a second: the generator's pace, not theirs), and every
    // server meets the same clients.
    plan.connections = CONNECTIONS;
    plan.threads = 1;
    plan.rate = Some(rate);
    plan.timeout = Duration::from_secs(2);
    plan.stop = StopAt::Duration(length);
    plan.latency_per_second = true;
    Ok(plan)
}

/// The connections of the capacity's closed loop and of every open loop beside the faults.
const CONNECTIONS: usize = 64;

/// Successful `GET path` a second in a closed loop of [`CONNECTIONS`], after a warm-up on them
/// when `warm` (a window right after another needs none).
fn capacity(addr: SocketAddr, path: &str, settings: &Settings, warm: bool) -> Result<f64> {
    let mut plan = LoadPlan::get(&format!("http://{addr}{path}"))?;
    plan.connections = CONNECTIONS;
    plan.timeout = Duration::from_secs(2);
    if warm {
        plan.warmup = Some(load::warmup::Warmup { min: settings.capacity_warmup, max: settings.capacity_warmup, period: None });
    }
    plan.stop = StopAt::Duration(settings.capacity_for);
    Ok(load::run(&plan, &Control::new())?.requests_per_s)
}

/// The best of `settings.capacity_windows` capacity windows of `GET path`, the first after the
/// warm-up; an error when every window failed.
fn best_capacity(addr: SocketAddr, path: &str, settings: &Settings) -> Result<f64> {
    let mut best: Result<f64> = Err(anyhow::anyhow!("no capacity window"));
    for i in 0..settings.capacity_windows.max(1) {
        let c = capacity(addr, path, settings, i == 0);
        best = match (best, c) {
            (Ok(b), Ok(c)) => Ok(b.max(c)),
            (Ok(b), Err(_)) => Ok(b),
            (Err(_), c) => c,
        };
    }
    best
}

fn wait_serving(addr: SocketAddr, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    while Instant::now() < deadline {
        if server::answers_root(addr, Duration::from_millis(200), Duration::from_secs(2)) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Now, in milliseconds since the Unix epoch (the load report's `started_unix_ms`'s clock).
fn unix_ms() -> f64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

/// One fault under an open loop at `rates.root` (and one of `GET /db` at `rates.db`): the
/// prober and the loads start, the fault comes `settings.before` later, and all end
/// `settings.after` after it. `bounds`: the p99 a second of each load must be within to be back.
fn trial(sup: &mut Supervised, fault: Fault, rates: Rates, bounds: Bounds, settings: &Settings) -> Result<Trial> {
    let addr = sup.server.addr;
    // The baseline may be shorter than a fault's trial: it has no recovery to wait for.
    let length = match (fault, settings.baseline) {
        (Fault::None, Some(b)) => b.max(settings.before),
        _ => settings.before + settings.after,
    };
    let rate = rates.root;
    let plan = open_loop_plan(addr, "/", rate, length)?;
    let db_plan = rates.db.map(|r| open_loop_plan(addr, "/db", r, length)).transpose()?;
    let (control, stop) = (Control::new(), AtomicBool::new(false));
    let origin = Instant::now();
    // Whom a kill leaves to be replaced; no other fault asks.
    let workers_before = if fault == Fault::Kill { workers(sup.server.pgid()) } else { Vec::new() };
    std::thread::scope(|s| -> Result<Trial> {
        let prober = s.spawn(|| probe::run(addr, origin, settings.probe_every, Duration::from_secs(2), &stop));
        let load = s.spawn(|| load::run(&plan, &control));
        let db_load = db_plan.as_ref().map(|p| s.spawn(|| load::run(p, &control)));
        std::thread::sleep(settings.before);
        let fault_at = origin.elapsed();
        let fault_unix_ms = unix_ms();
        let faulting = match fault {
            Fault::None | Fault::Kill => None,
            Fault::Panic => Some(s.spawn(move || ask(addr, "/fault/panic"))),
            Fault::Spin { ms } => Some(s.spawn(move || ask(addr, &format!("/fault/spin?ms={ms}")))),
        };
        let killed = (fault == Fault::Kill).then(|| kill_one(sup.server.pgid(), addr.port()));
        let mut restarted_by = None;
        let end = origin + length;
        while Instant::now() < end {
            if sup.restart_if_exited()? {
                restarted_by = Some("concur (as a process supervisor)".to_string());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        stop.store(true, Ordering::Relaxed);
        let probes = prober.join().expect("the prober panicked");
        let report = load.join().expect("the load panicked");
        let db_report = db_load.map(|h| h.join().expect("the database route's load panicked"));
        let (faulting_client, faulting_ms) = match (faulting, killed) {
            (Some(handle), _) => {
                let (saw, took) = handle.join().expect("the faulting client panicked");
                (saw, Some(ms(took)))
            }
            (None, Some(what)) => (what, None),
            (None, None) => ("none".to_string(), None),
        };
        if restarted_by.is_none() && fault == Fault::Kill && sup.server.is_running() && workers(sup.server.pgid()).iter().any(|p| !workers_before.contains(p)) {
            restarted_by = Some("its own supervisor".to_string());
        }
        let (outage, stall) = probe::outage_after(&probes, fault_at);
        // Whole seconds only: a last partial second answers less than the rate without being slow.
        let seconds = length.as_secs_f64().floor() as usize;
        let root = seen(report.with_context(|| format!("the load beside the {}", fault.label()))?, fault_unix_ms, seconds, rate, bounds.root);
        let db = match (db_report, rates.db) {
            (Some(r), Some(db_rate)) => Some(seen(r.with_context(|| format!("the GET /db load beside the {}", fault.label()))?, fault_unix_ms, seconds, db_rate, bounds.db)),
            _ => None,
        };
        Ok(Trial {
            fault: fault.label(),
            faulting_client,
            faulting_ms,
            outage_ms: outage.map(ms),
            stall_ms: ms(stall),
            probes: probes.len() as u64,
            probes_failed: probes.iter().filter(|p| p.sent >= fault_at && p.answered.is_none()).count() as u64,
            restarted_by,
            load: root,
            db,
        })
    })
}

/// What an open loop at `rate` beside a trial received, the fault (at `fault_unix_ms`) placed on
/// its clock, whose second 0 began at its start; back when one of its first `seconds` whole
/// seconds is within `bound` (none: the baseline's, judged by nothing).
fn seen(report: load::LoadReport, fault_unix_ms: f64, seconds: usize, rate: f64, bound: Option<f64>) -> OpenLoop {
    let latency = |us: u64| us as f64 / 1000.0;
    let fault_at_ms = fault_unix_ms - report.started_unix_ms as f64;
    OpenLoop {
        requests: report.requests,
        errors: report.errors,
        unfinished: report.unfinished,
        p99_ms: latency(report.latency.p99_us),
        max_ms: latency(report.latency.max_us),
        fault_at_ms,
        recovery_ms: bound.and_then(|b| recovery::recovery_ms(&report.timeline, seconds, fault_at_ms, rate, b)),
        timeline: report.timeline,
    }
}

/// The request that sets a fault off, on a connection of its own: what it received and how long it took.
fn ask(addr: SocketAddr, target: &str) -> (String, Duration) {
    let started = Instant::now();
    let saw = (|| -> std::io::Result<String> {
        let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(2))?;
        s.set_read_timeout(Some(Duration::from_secs(15)))?;
        s.write_all(format!("GET {target} HTTP/1.1\r\nHost: concur\r\nConnection: close\r\n\r\n").as_bytes())?;
        let mut head = [0u8; 12];
        match s.read_exact(&mut head) {
            Ok(()) if head.starts_with(b"HTTP/1.") => Ok(String::from_utf8_lossy(&head[9..12]).into_owned()),
            Ok(()) => Ok("an answer that is not HTTP/1.x".into()),
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok("connection closed without an answer".into()),
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => Ok("no answer within 15 s".into()),
            Err(e) => Ok(format!("connection {}", if e.kind() == std::io::ErrorKind::ConnectionReset { "reset".to_string() } else { e.to_string() })),
        }
    })()
    .unwrap_or_else(|e| format!("refused ({e})"));
    (saw, started.elapsed())
}

/// The children of `leader` running its own executable: a cluster's workers, Puma's, uvicorn's
/// (and a store's manager beside them), not the BEAM's `erl_child_setup`.
fn workers(leader: i32) -> Vec<i32> {
    let exe = |pid: i32| std::fs::read_link(format!("/proc/{pid}/exe")).ok();
    let own = exe(leader);
    tree(leader).into_iter().skip(1).filter(|&pid| own.is_some() && exe(pid) == own).collect()
}

/// SIGKILL to one worker of the server on `port` led by `leader` (a worker that holds a socket on
/// the port, the one with the most memory), or to the leader when it has none; what was killed.
fn kill_one(leader: i32, port: u16) -> String {
    let serving = serving_port(&workers(leader), port);
    let rss = |pid: i32| crate::host::procstat::sample_tree(pid).rss_bytes;
    let (pid, what) = match serving.iter().copied().max_by_key(|&p| rss(p)) {
        Some(worker) => (worker, format!("one of {} worker processes on the port", serving.len())),
        None => (leader, "the only process".to_string()),
    };
    // SAFETY: kill has no memory effects; a pid gone meanwhile is ESRCH.
    unsafe { libc::kill(pid, libc::SIGKILL) };
    what
}

/// What one `concur faults` measures: the profile it came from, and the flags over it.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The faults profile's name (`full`, `quick`).
    pub profile: String,
    pub cores: Vec<u32>,
    /// One trial each, after the baseline.
    pub faults: Vec<Fault>,
    pub settings: Settings,
}

impl Plan {
    /// The run's profile in the results database: `faults` for the full measurement, `faults:NAME` for another.
    pub fn stored_profile(&self) -> String {
        if self.profile == "full" { PROFILE.to_string() } else { format!("{PROFILE}:{}", self.profile) }
    }
}

/// `concur faults`: each of `names` (none: every HTTP implementation whose toolchain is present)
/// at each of the plan's core counts, printed as it goes, stored as it ends in the results
/// database `db` (none: the repository's) as a run of profile `faults` (`faults:quick` for the
/// short form), and written to `json` when given.
pub fn faults_command(root: Option<&Path>, db: Option<&Path>, names: &[String], plan: &Plan, json: Option<&Path>) -> Result<std::process::ExitCode> {
    let (cores, settings) = (&plan.cores, &plan.settings);
    // Before any thread: every server started from here on carries the mark the guard kills by.
    crate::host::guard::mark_children();
    let root = crate::impls::find_root(root)?;
    let _guard = crate::host::guard::Guard::start();
    server::install_interrupt_handler();
    let all = crate::impls::discover(&root)?;
    let chosen = crate::impls::select(&all, "http", names)?;
    let (db, store) = crate::store::sweep::open(&root, db)?;
    // Every implementation that was not measured, and why: the run's notes, which the report shows.
    let mut notes: Vec<String> = Vec::new();
    // The database the servers are given, for the bystanders of the faults that concern it; a
    // machine without PostgreSQL measures the rest and says so.
    let cluster = if settings.database && plan.faults.iter().any(|f| f.concerns_database()) {
        crate::db::Cluster::start(&crate::db::Options::for_repository(&root))
            .inspect(|c| println!("== database: PostgreSQL on 127.0.0.1:{} for the GET /db bystanders", c.port()))
            .map_err(|e| notes.push(format!("the GET /db bystanders not measured: no database: {}", first_line(&format!("{e:#}")))))
            .ok()
    } else {
        None
    };
    let run_id = open_run(&store, &root, &chosen, plan, cluster.is_some())?;
    store.set_run_notes(run_id, &notes)?;
    let mut results = Vec::new();
    let mut failed = false;
    'all: for imp in &chosen {
        if let crate::impls::Availability::Missing(why) = imp.availability() {
            println!("{}: skipped: {why}", imp.name());
            notes.push(format!("{}: skipped: {why}", imp.name()));
            store.set_run_notes(run_id, &notes)?;
            continue;
        }
        let build_log = std::env::temp_dir().join(format!("concur-build-{}-{}.log", imp.name(), std::process::id()));
        if let Err(e) = server::build(imp, &server::BuildOutput::Log(build_log)) {
            println!("{}: FAILED to build: {e:#}", imp.name());
            notes.push(format!("{}: not measured: its build failed: {}", imp.name(), first_line(&format!("{e:#}"))));
            failed = true;
            store.set_run_notes(run_id, &notes)?;
            continue;
        }
        for &cores in cores {
            let log = std::env::temp_dir().join(format!("concur-faults-{}-{cores}-{}.log", imp.name(), std::process::id()));
            let db = cluster.as_ref().map(|c| ServerDb::for_cores(c.url(), crate::db::DEFAULT_POOL, crate::db::DEFAULT_SLOW_MS, cores));
            let measured = measure(imp, &root, cores, &plan.faults, settings, db.as_ref(), log);
            if crate::host::interrupt::stopping() {
                // Trials cut short by the signal say nothing; every implementation finished is kept.
                break 'all;
            }
            match measured {
                Ok(r) => {
                    print_faults(&r, settings.capacity_after);
                    store.insert_faults(run_id, &r)?;
                    results.push(r);
                }
                Err(e) => {
                    println!("{} (CONCUR_CORES={cores}): FAILED: {e:#}", imp.name());
                    notes.push(format!("{} (CONCUR_CORES={cores}): not measured: {}", imp.name(), first_line(&format!("{e:#}"))));
                    failed = true;
                    store.set_run_notes(run_id, &notes)?;
                }
            }
        }
    }
    let status = if crate::host::interrupt::stopping() { crate::store::RunStatus::Interrupted } else { crate::store::RunStatus::Finished };
    store.end_run(run_id, status)?;
    println!("faults run {run_id} {}: {} implementation(s) × core count(s) in {}; write the report with: concur report", status.as_str(), results.len(), db.display());
    if let Some(path) = json {
        std::fs::write(path, serde_json::to_string_pretty(&results)?).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(if failed { std::process::ExitCode::FAILURE } else { std::process::ExitCode::SUCCESS })
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

/// The run the trials are stored in: profile `faults`, its settings as the plan.
fn open_run(store: &crate::store::Store, root: &Path, chosen: &[Implementation], faults: &Plan, database: bool) -> Result<i64> {
    let present: Vec<&Implementation> = chosen.iter().filter(|i| i.availability() == crate::impls::Availability::Present).collect();
    let settings = &faults.settings;
    let plan = serde_json::json!({
        "profile": faults.profile,
        "faults": faults.faults.iter().map(|f| f.label()).collect::<Vec<_>>(),
        "implementations": present.iter().map(|i| i.name()).collect::<Vec<_>>(),
        "cores": faults.cores,
        "share": settings.share,
        "db_share": settings.db_share,
        "rate": settings.rate,
        "warmup_rate": settings.warmup_rate,
        "warmup_s": settings.warmup_for.as_secs_f64(),
        "capacity_s": settings.capacity_for.as_secs_f64(),
        "capacity_after": settings.capacity_after,
        "capacity_windows": settings.capacity_windows,
        "database": database,
        "before_s": settings.before.as_secs_f64(),
        "baseline_s": settings.baseline.map(|b| b.as_secs_f64()),
        "after_s": settings.after.as_secs_f64(),
        "spin_ms": settings.spin_ms,
        "probe_every_ms": settings.probe_every.as_secs_f64() * 1000.0,
    });
    let key = format!("faults:{:016x}", crate::host::digest::fnv1a(&plan.to_string()));
    let environment = crate::host::env::capture(root, crate::impls::toolchains(&present), crate::host::affinity::available().len());
    let run = crate::store::RunInfo::starting(faults.stored_profile(), key, plan, environment, Vec::new());
    store.insert_run(&run)
}

/// The profile name of a faults run in the results database.
pub const PROFILE: &str = "faults";

fn print_faults(r: &ImplFaults, asked_after: bool) {
    println!("== {} (CONCUR_CORES={}): ready in {:.0} ms, {:.1} MiB", r.name, r.cores, r.start_up.ready_ms, r.start_up.rss_bytes as f64 / 1048576.0);
    let l = &r.load;
    let p99s: Vec<String> = l.warmup.iter().map(|s| s.p99_us.map_or("-".to_string(), |us| format!("{:.1}", us as f64 / 1000.0))).collect();
    let after = match l.capacity_after {
        Some(c) => format!("{c:.0}"),
        None if asked_after => "not measured (not serving)".to_string(),
        None => "not measured (this profile does not ask)".to_string(),
    };
    let first = if p99s.is_empty() { "no warm-up curve".to_string() } else { format!("first seconds at {:.0} GET / a second: p99 {} ms", l.warmup_rate, p99s.join(", ")) };
    println!("  {first}; capacity {:.0} req/s before the faults, {after} after; load beside them {:.0} req/s", l.capacity_before, l.rate);
    if let (Some(c), Some(r)) = (l.db_capacity, l.db_rate) {
        println!("  GET /db: capacity {c:.0} req/s; its bystanders {r:.0} req/s beside the faults that concern the database");
    }
    for t in &r.trials {
        let outage = match t.outage_ms {
            Some(0.0) => "no probe failed".to_string(),
            Some(ms) => format!("probes failed over {ms:.0} ms"),
            None => "not serving again by the end".to_string(),
        };
        let took = t.faulting_ms.map_or(String::new(), |ms| format!(" after {ms:.0} ms"));
        let by = t.restarted_by.as_deref().map_or(String::new(), |b| format!(", restarted by {b}"));
        let back = if t.fault == BASELINE {
            String::new()
        } else {
            t.load.recovery_ms.map_or_else(|| "; the load not back by the end".to_string(), |ms| format!("; the load back {ms:.0} ms after the fault"))
        };
        println!(
            "  {:<15} faulting client: {}{took}; {outage}; longest probe wait {:.0} ms; load {} answered (p99 {:.1} ms, max {:.0} ms), {} failed, {} unanswered{back}{by}",
            t.fault, t.faulting_client, t.stall_ms, t.load.requests, t.load.p99_ms, t.load.max_ms, t.load.errors, t.load.unfinished
        );
        if let Some(d) = &t.db {
            let back = match (t.fault == BASELINE, d.recovery_ms) {
                (true, _) => String::new(),
                (false, Some(ms)) => format!("; back {ms:.0} ms after the fault"),
                (false, None) => "; not back by the end".to_string(),
            };
            println!(
                "  {:<15} GET /db beside it at {:.0} req/s: {} answered (p99 {:.1} ms, max {:.0} ms), {} failed, {} unanswered{back}",
                "",
                l.db_rate.unwrap_or(0.0),
                d.requests,
                d.p99_ms,
                d.max_ms,
                d.errors,
                d.unfinished
            );
        }
    }
}
