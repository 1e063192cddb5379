//! `concur run`: the sweep. A profile and flags become a plan (`plan`):
//! implementation × scenario × server cores × load level × repeat. Each
//! implementation is built and verified once (`prepare`); each point gets a
//! fresh server pinned to k CPUs on physical cores of its own and a load
//! generator pinned to others (`placement`, `point`, `drive`), with the server's process tree sampled alongside
//! (`sampler`, `usage`). Every point is written to the results database as
//! soon as it is taken, so an interrupted run (`interrupt`) keeps what it
//! finished and `--resume` skips it. With an SLO (`--slo`, the profile's
//! `[capacity]`), capacity searches (`capacity`) follow on the warm server
//! of their implementation's first closed-loop point at their core count,
//! or after the points on a server of their own. With blocks a scenario's
//! servers wait warm between their windows, taken in rounds; before each
//! window the sweep waits for the servers beside it to fall quiet and warns
//! when they were not (`neighbours`).

pub mod capacity;
mod database;
mod drive;
pub mod held;
mod interrupt;
mod locust;
mod neighbours;
pub mod placement;
pub mod plan;
mod point;
mod prepare;
pub mod profile;
mod progress;
mod ramp;
mod sampler;
pub mod slo;
pub mod spec;
pub mod usage;

pub use spec::{Overrides, Plan, PointSpec};

use crate::host::procstat::groups_cpu_seconds;
use crate::host::topology::{self, Topology};
use crate::host::{affinity, env};
use crate::impls::{self, Implementation};
use crate::store::{self, ImplStatus, PointRecord, RunInfo, RunStatus, Store};
use crate::verify;
use anyhow::Result;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

pub use crate::host::duration::parse_seconds;

/// `concur run`: profile `profile_name` with the command line's `overrides`,
/// into database `db` (none: the repository's); `resume` continues the
/// latest unfinished run of the same plan, `dry_run` prints the plan instead.
pub fn run_command(root: Option<&Path>, profile_name: &str, overrides: &Overrides, db: Option<&Path>, resume: bool, dry_run: bool) -> Result<ExitCode> {
    if dry_run {
        let root = impls::find_root(root)?;
        let (implementations, overrides) = implementations(&root, overrides)?;
        let topology = topology::read(Path::new("/"), &affinity::available());
        print_plan(&resolve(profile_name, &overrides, &root, &implementations, &topology)?);
        return Ok(ExitCode::SUCCESS);
    }
    let done = execute(root, profile_name, overrides, db, resume)?;
    finish_message(&done)
}

/// A sweep that ended, finished or interrupted.
pub struct Executed {
    pub store: Store,
    pub db: std::path::PathBuf,
    pub run_id: i64,
    pub status: RunStatus,
}

/// Plans and measures a profile with `overrides` into `db`: what `concur
/// run` does before its last message, and what `concur calibrate` measures with.
pub fn execute(root: Option<&Path>, profile_name: &str, overrides: &Overrides, db: Option<&Path>, resume: bool) -> Result<Executed> {
    interrupt::mark_children();
    let root = impls::find_root(root)?;
    let (implementations, overrides) = implementations(&root, overrides)?;
    let topology = topology::read(Path::new("/"), &affinity::available());
    let plan = resolve(profile_name, &overrides, &root, &implementations, &topology)?;
    let (db, store) = store::sweep::open(&root, db)?;
    let _guard = interrupt::Guard::start();
    interrupt::install();
    let run = open_run(&store, &plan, resume, &root, &implementations, &topology)?;
    interrupt::set_run(db.clone(), run.id);
    let log_dir = store::sweep::log_dir(&db, "run", run.id)?;
    for note in &plan.notes {
        println!("note: {note}");
    }
    let status = sweep(&store, &run, &plan, &root, &implementations, &log_dir)?;
    store.end_run(run.id, status)?;
    Ok(Executed { store, db, run_id: run.id, status })
}

/// The HTTP implementations, with those `--impl NEW=SOURCE` adds under a second name
/// (`impls::alias`), and the overrides naming them by it.
fn implementations(root: &Path, overrides: &Overrides) -> Result<(Vec<Implementation>, Overrides)> {
    let mut all: Vec<Implementation> = impls::discover(root)?.into_iter().filter(|i| i.kind == "http").collect();
    let names = impls::alias(&mut all, "http", &overrides.implementations)?;
    verify::check_known_failures(root, &all)?;
    Ok((all, Overrides { implementations: names, ..overrides.clone() }))
}

fn resolve(profile_name: &str, overrides: &Overrides, root: &Path, implementations: &[Implementation], topology: &Topology) -> Result<Plan> {
    let profile = profile::load(root, profile_name)?;
    let scenarios = drive::catalog(root)?;
    let inputs = spec::Inputs { profile_name, profile: &profile, implementations, scenarios: &scenarios, topology };
    let mut plan = plan::resolve(overrides, &inputs)?;
    locust::check(root, &plan.points)?;
    if plan.points.iter().any(|p| p.locust.is_some())
        && let Err(why) = crate::locust::find(Some(root))
    {
        plan.points.retain(|p| p.locust.is_none());
        plan.notes.push(format!("Locust points skipped: {why}"));
        if plan.points.is_empty() {
            anyhow::bail!("nothing to measure: every point was a Locust one ({why})");
        }
    }
    plan.notes.extend(crate::host::limits::server_shortfall());
    Ok(plan)
}

/// A new run, or with `--resume` the latest unfinished one with the same plan.
fn open_run(store: &Store, plan: &Plan, resume: bool, root: &Path, implementations: &[Implementation], topology: &Topology) -> Result<RunInfo> {
    if resume {
        if let Some(run) = store.resumable_run(&plan.key())? {
            let done = store.point_keys(run.id)?.len();
            println!("resuming run {} (started {}): {done} of {} points already taken", run.id, run.started_at, plan.points.len());
            store.set_run_status(run.id, RunStatus::Running, None)?;
            return Ok(run);
        }
        println!("nothing to resume in {} for this plan: starting a new run", store.path().display());
    }
    let asked: Vec<&Implementation> = implementations.iter().filter(|i| plan.implementations.iter().any(|n| n == i.name())).collect();
    let mut environment = env::capture(root, impls::toolchains(&asked), affinity::available().len());
    environment.topology = Some(placement::record(topology, &plan.cores, plan.points.iter().any(|p| !p.database_cpus.is_empty())));
    let mut run = RunInfo::starting(plan.profile.clone(), plan.key(), serde_json::to_value(plan)?, environment, plan.notes.clone());
    run.id = store.insert_run(&run)?;
    println!("run {}: profile {}, {} points, into {}", run.id, plan.profile, plan.points.len(), store.path().display());
    Ok(run)
}

/// Prepares the implementations with points left, then measures those points.
fn sweep(store: &Store, run: &RunInfo, plan: &Plan, root: &Path, implementations: &[Implementation], log_dir: &Path) -> Result<RunStatus> {
    let done = store.point_keys(run.id)?;
    let pending: Vec<&PointSpec> = plan.points.iter().filter(|p| !done.contains(&p.key)).collect();
    let searched = store.ended_searches(run.id)?;
    let held = store.ended_held_searches(run.id)?;
    let mut ready: BTreeMap<&str, &Implementation> = BTreeMap::new();
    let unprepared: Vec<&Implementation> = implementations
        .iter()
        .filter(|i| plan.implementations.iter().any(|n| n == i.name()))
        .filter(|imp| {
            let has_points = pending.iter().any(|p| p.implementation == imp.name())
                || plan.searches.iter().any(|s| s.implementation == imp.name() && !searched.contains(&s.key))
                || plan.held.iter().any(|s| s.implementation == imp.name() && !held.contains(&s.key));
            has_points || !done.iter().any(|k| k.starts_with(&format!("{}/", imp.name())))
        })
        .collect();
    for (imp, record) in unprepared.iter().zip(prepare::prepare_all(root, &unprepared, plan, log_dir)) {
        // Every record finished before a stop is kept; a check cut short by the signal says nothing.
        let Some(record) = record else { continue };
        store.put_implementation(run.id, &record)?;
        if record.status.measured() {
            ready.insert(imp.name(), imp);
        }
    }
    if crate::host::interrupt::stopping() {
        return Ok(RunStatus::Interrupted);
    }
    let todo: Vec<&PointSpec> = pending.into_iter().filter(|p| ready.contains_key(p.implementation.as_str())).collect();
    // Dropped when the sweep ends, however it ends: the cluster stops with it.
    let database = std::cell::RefCell::new(database::Database::new(root));
    let cx = capacity::Context { store, run_id: run.id, root, log_dir, ready: &ready, database: &database };
    let riders = Riders { capacity: spec::hosts(&plan.searches, &todo, &searched), held: spec::hosts(&plan.held, &todo, &held) };
    if !measure_points(&cx, &todo, &riders)? {
        return Ok(RunStatus::Interrupted);
    }
    if !capacity::run_all(&cx, plan)? || !held::run_all(&cx, plan)? {
        return Ok(RunStatus::Interrupted);
    }
    Ok(RunStatus::Finished)
}

/// The searches that ride on a point's server right after it, by the point's key
/// (`spec::hosts`): its capacity searches, then its clients-held searches, whose bursts and
/// thousands of connections come last.
struct Riders<'a> {
    capacity: BTreeMap<String, Vec<&'a spec::SearchSpec>>,
    held: BTreeMap<String, Vec<&'a spec::HeldSpec>>,
}

/// Measures `todo` in order, each point on a fresh server or on the one it follows
/// (`PointSpec::after`), with the searches that ride on a point's server after it
/// (`Riders`); `false` when a stop was asked for. A server some later point follows is kept
/// running, warm, until that point takes it: the next scenario's point, or with blocks the
/// next window of the same server while the other implementations take theirs.
fn measure_points(cx: &capacity::Context, todo: &[&PointSpec], riders: &Riders) -> Result<bool> {
    let mut progress = progress::Progress::new(todo);
    let followed = spec::followed(todo);
    // Servers waiting for the point that follows them, by the key of the point they served last.
    let mut warm: BTreeMap<&str, crate::server::Server> = BTreeMap::new();
    let stop_all = |warm: &mut BTreeMap<&str, crate::server::Server>| {
        for (_, mut server) in std::mem::take(warm) {
            server.stop(point::STOP_GRACE);
        }
    };
    for spec in todo {
        progress.begin(spec);
        let started = Instant::now();
        let (capacity_riders, held_riders) = (riders.capacity.get(&spec.key), riders.held.get(&spec.key));
        let reuse = spec.after.as_ref().and_then(|a| warm.remove(a.point.as_str())).and_then(|mut server| {
            if server.is_running() {
                return Some(server);
            }
            server.stop(point::STOP_GRACE);
            None
        });
        let imp = cx.ready[spec.implementation.as_str()];
        let is_followed = followed.contains(spec.key.as_str());
        let keep = capacity_riders.is_some() || held_riders.is_some() || is_followed;
        let beside: Vec<i32> = warm.values().map(crate::server::Server::pgid).collect();
        neighbours::wait_quiet_beside(&beside);
        let (measured_from, neighbours_cpu) = (Instant::now(), groups_cpu_seconds(&beside));
        let Some((mut point, server)) = point::measure(cx.root, imp, spec, cx.log_dir, reuse, keep, &mut cx.database.borrow_mut()) else {
            stop_all(&mut warm);
            return Ok(false);
        };
        point.warnings.extend(neighbours::warning(groups_cpu_seconds(&beside) - neighbours_cpu, measured_from.elapsed(), beside.len()));
        {
            let _writing = interrupt::writing();
            cx.store.insert_point(cx.run_id, &point)?;
        }
        progress.end(spec, started.elapsed());
        println!("{}", result_line(&point));
        let Some(mut server) = server else { continue };
        let rode = match (capacity_riders, held_riders) {
            (Some(c), _) if !capacity::ride(cx, c, &point, &mut server)? => false,
            (_, Some(h)) => held::ride(cx, h, &point.key, &mut server)?,
            _ => true,
        };
        if !rode {
            server.stop(point::STOP_GRACE);
            stop_all(&mut warm);
            return Ok(false);
        }
        if is_followed && server.is_running() {
            warm.insert(spec.key.as_str(), server);
        } else {
            server.stop(point::STOP_GRACE);
        }
    }
    // A server whose follower was not measured (it failed to verify, or a stop) goes now.
    stop_all(&mut warm);
    Ok(true)
}

/// One line per point: what a reader scanning a log wants.
fn result_line(p: &PointRecord) -> String {
    let head = format!("{:<14} {:<9} cores={:<2} {:<9} #{}", p.implementation, p.scenario, p.cores, p.level, p.repeat);
    if let Some(e) = &p.error {
        return format!("{head}  FAILED: {}", e.lines().next().unwrap_or(""));
    }
    let ms = |us: u64| us as f64 / 1000.0;
    let mut flag = if p.generator.saturated { "  [generator saturated]" } else { "" }.to_string();
    if let Some(d) = &p.database {
        flag = format!("  database cpu {:.0}%{flag}{}", d.cpu_util * 100.0, if d.limited { "  [database-limited]" } else { "" });
    }
    format!(
        "{head}  {:>9.1} req/s  p50 {:.2} ms  p99 {:.2} ms  errors {}  rss {:.0} MiB  server cpu {:.0}%  generator cpu {:.0}%{flag}",
        p.throughput(),
        ms(p.latency.p50_us),
        ms(p.latency.p99_us),
        p.errors_total,
        p.server.rss_peak_bytes as f64 / (1 << 20) as f64,
        p.server.cpu_util * 100.0,
        p.generator.cpu_util * 100.0
    )
}

fn finish_message(done: &Executed) -> Result<ExitCode> {
    let (store, run_id, status, db) = (&done.store, done.run_id, done.status, &done.db);
    let data = store.load_run(run_id)?;
    let failed: Vec<&str> = data.implementations.iter().filter(|i| i.status == ImplStatus::Failed).map(|i| i.name.as_str()).collect();
    println!("\nrun {run_id} {}: {} points in {}", status.as_str(), data.points.len(), db.display());
    if !failed.is_empty() {
        println!("not measured (failed to build or verify): {}", failed.join(", "));
    }
    let known: Vec<String> = data
        .implementations
        .iter()
        .filter(|i| i.status.measured() && !i.known_failures.is_empty())
        .map(|i| format!("{} ({})", i.name, i.known_failures.iter().map(|k| k.check.as_str()).collect::<Vec<_>>().join(", ")))
        .collect();
    if !known.is_empty() {
        println!("measured with known deviations (the report shows them): {}", known.join("; "));
    }
    match status {
        RunStatus::Interrupted => {
            println!("continue it with the same command and --resume");
            Ok(ExitCode::from(130))
        }
        _ => {
            println!("write the report with: concur report");
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `concur run --list-profiles`.
pub fn list_profiles_command(root: Option<&Path>) -> Result<ExitCode> {
    let root = &impls::find_root(root)?;
    for name in profile::names(root) {
        let description = profile::load(root, &name).map(|p| p.description).unwrap_or_else(|e| format!("(unreadable: {e})"));
        println!("{name:<10} {description}");
    }
    Ok(ExitCode::SUCCESS)
}

/// Each search's host point, by the search's key, for those that ride on one (`spec::hosts`).
fn host_of<S: spec::Rider>(searches: &[S], points: &[&PointSpec]) -> BTreeMap<String, String> {
    let hosts = spec::hosts(searches, points, &Default::default());
    hosts.into_iter().flat_map(|(host, riders)| riders.into_iter().map(move |s| (s.key().to_string(), host.clone()))).collect()
}

fn print_plan(plan: &Plan) {
    use std::fmt::Write as _;
    let mut out = format!("profile {}: {}\n", plan.profile, plan.description);
    for note in &plan.notes {
        let _ = writeln!(out, "note: {note}");
    }
    let points: Vec<&PointSpec> = plan.points.iter().collect();
    let (hosted, held_hosted) = (host_of(&plan.searches, &points), host_of(&plan.held, &points));
    let on = |hosts: &BTreeMap<String, String>, key: &str| hosts.get(key).map(|h| format!(" · on {h}'s server")).unwrap_or_default();
    let searches_s: f64 = plan.searches.iter().map(|s| s.expected_s(hosted.contains_key(&s.key))).sum();
    let held_s: f64 = plan.held.iter().map(|s| s.expected_s(held_hosted.contains_key(&s.key))).sum();
    let total: f64 = plan.points.iter().map(PointSpec::expected_s).sum::<f64>() + searches_s + held_s;
    let mut searches = if plan.searches.is_empty() { String::new() } else { format!(" and {} capacity searches", plan.searches.len()) };
    if !plan.held.is_empty() {
        searches.push_str(&format!(" and {} clients-held searches", plan.held.len()));
    }
    let _ = writeln!(out, "{} points{searches}, about {} of load plus start-up, stop and verification", plan.points.len(), progress::clock(total));
    for p in &plan.points {
        let length = match (p.duration_s, p.requests) {
            (_, Some(n)) => format!("-n {n}"),
            (Some(d), None) => format!("-d {d}s"),
            (None, None) => String::new(),
        };
        let shared = if p.shared { " (shared)" } else { "" };
        let mut cpus = format!("server cpus {} · generator cpus {}{shared}", affinity::describe(&p.server_cpus), affinity::describe(&p.generator_cpus));
        if !p.database_cpus.is_empty() {
            cpus += &format!(" · database cpus {}", affinity::describe(&p.database_cpus));
        }
        let (warmup_s, warmup_max_s) = p.planned_warmup();
        let warmup = if warmup_s > 0.0 { format!("{warmup_s}-{warmup_max_s}s") } else { "0s".into() };
        if let Some(a) = &p.after {
            cpus += &format!(" · on {}'s server", a.point);
        }
        let _ = writeln!(out, "  {:<44} c={:<5} warm-up {warmup:<6} {length:<9} {cpus}", p.key, p.connections);
    }
    for s in &plan.searches {
        let _ = writeln!(
            out,
            "  {:<44} capacity within {}: c={} steps of {}s after {}s at most {} in {}s, to {:.0}%{}",
            s.key,
            s.slo,
            s.connections,
            s.step_s,
            s.step_warmup_s,
            s.max_steps,
            s.budget_s,
            s.precision * 100.0,
            on(&hosted, &s.key)
        );
    }
    for h in &plan.held {
        let _ = writeln!(
            out,
            "  {:<44} clients held within {} ms + {} ms: from {} at {:.0}/s or more, at most {} clients and {} steps in {}s, to {:.0}%{}",
            h.key,
            h.wait_ms,
            h.bound_ms,
            h.start,
            h.spawn_rate,
            h.max_clients,
            h.max_steps,
            h.budget_s,
            h.precision * 100.0,
            on(&held_hosted, &h.key)
        );
    }
    // A closed pipe (`| head`) is not an error worth a panic.
    let _ = std::io::Write::write_all(&mut std::io::stdout().lock(), out.as_bytes());
}
