//! `concur micro`: the process micro-benchmarks of spec/MICRO.md over the
//! implementations under `impls/micro/`. A profile (`profile`) and the flags
//! become a plan (`plan`); each implementation is built once, then every
//! invocation runs as a cold process pinned to its CPUs and measured from
//! outside (`exec`: peak RSS, the memory budget, the outer time limit), its
//! JSON line validated (`line`) and turned into a record (`measure`); the
//! maximum-processes search steps N up (`search`). Every record is written to
//! the results database as soon as it is taken, so Ctrl-C (`interrupt`)
//! loses only the invocation that was running.

pub mod bench;
mod exec;
mod interrupt;
pub mod line;
mod measure;
pub mod plan;
pub mod profile;
mod progress;
pub mod search;

pub use bench::Bench;
pub use plan::Flags;

use crate::host::{affinity, env, procstat};
use crate::impls::{self, Availability, Implementation};
use crate::server::{self, BuildOutput};
use crate::store::micro::MicroStatus;
use crate::store::{self, ImplRecord, ImplStatus, RunInfo, RunStatus, Store};
use anyhow::Result;
use measure::Baselines;
use plan::{MicroPlan, Task};
use progress::Progress;
use std::path::Path;
use std::process::ExitCode;

/// `concur micro`: implementations `names` (none: all) under profile
/// `profile_name` and `flags`, into database `db` (none: the repository's);
/// `dry_run` prints the plan instead.
pub fn micro_command(root: Option<&Path>, names: &[String], profile_name: &str, flags: &Flags, db: Option<&Path>, dry_run: bool) -> Result<ExitCode> {
    let root = impls::find_root(root)?;
    let chosen = impls::select(&impls::discover(&root)?, "micro", names)?;
    let profile = profile::load(&root, profile_name)?;
    let implementations = chosen.iter().map(|i| i.name().to_string()).collect();
    let cpus = affinity::available().len() as u32;
    let plan = plan::resolve(profile_name, &profile, flags, implementations, cpus, procstat::meminfo("MemTotal"))?;
    if dry_run {
        print_plan(&plan);
        return Ok(ExitCode::SUCCESS);
    }
    let (db, store) = store::sweep::open(&root, db)?;
    interrupt::install();
    let run = open_run(&store, &plan, &root, &chosen)?;
    let log_dir = store::sweep::log_dir(&db, "micro", run.id)?;
    let status = sweep(&store, run.id, &plan, &chosen, &log_dir)?;
    store.end_run(run.id, status)?;
    finish(&store, run.id, status, &db)
}

fn open_run(store: &Store, plan: &MicroPlan, root: &Path, chosen: &[Implementation]) -> Result<RunInfo> {
    let present: Vec<&Implementation> = chosen.iter().filter(|i| i.availability() == Availability::Present).collect();
    let plan_json = serde_json::to_value(plan)?;
    let plan_key = format!("micro:{:016x}", crate::host::digest::fnv1a(&plan_json.to_string()));
    let environment = env::capture(root, impls::toolchains(&present), affinity::available().len());
    let mut run = RunInfo::starting(format!("micro:{}", plan.profile), plan_key, plan_json, environment, plan.notes.clone());
    run.id = store.insert_run(&run)?;
    println!("micro run {}: profile {}, {} tasks × {} implementations, memory budget {} MiB, into {}", run.id, plan.profile, plan.tasks.len(), chosen.len(), plan.budget_bytes >> 20, store.path().display());
    for note in &plan.notes {
        println!("note: {note}");
    }
    Ok(run)
}

/// Builds each implementation, then runs its tasks, storing as it goes.
fn sweep(store: &Store, run_id: i64, plan: &MicroPlan, chosen: &[Implementation], log_dir: &Path) -> Result<RunStatus> {
    let mut progress = Progress::new(plan.tasks.len() * chosen.len());
    for imp in chosen {
        let record = prepare(imp, log_dir);
        store.put_implementation(run_id, &record)?;
        if crate::host::interrupt::stopping() {
            return Ok(RunStatus::Interrupted);
        }
        if !record.status.measured() {
            progress.skip(plan.tasks.len());
            continue;
        }
        let mut baselines = Baselines::default();
        for task in &plan.tasks {
            if !run_task(store, run_id, plan, imp, task, &mut baselines, &progress)? || crate::host::interrupt::stopping() {
                progress.clear();
                return Ok(RunStatus::Interrupted);
            }
            progress.finished_task();
        }
    }
    progress.clear();
    Ok(RunStatus::Finished)
}

/// Toolchain check and build; the record says whether the implementation is measured.
fn prepare(imp: &Implementation, log_dir: &Path) -> ImplRecord {
    let mut record = ImplRecord { name: imp.name().to_string(), status: ImplStatus::Verified, reason: None, version: String::new(), manifest: imp.manifest.clone(), known_failures: vec![] };
    if let Availability::Missing(why) = imp.availability() {
        println!("{}: skipped: {why}", imp.name());
        record.status = ImplStatus::Unavailable;
        record.reason = Some(why);
        return record;
    }
    record.version = imp.version();
    let log = log_dir.join(format!("{}-build.log", imp.name()));
    println!("{}: building ({})", imp.name(), record.version);
    if let Err(e) = server::build(imp, &BuildOutput::Log(log)) {
        println!("{}: not measured: {e:#}", imp.name());
        record.status = ImplStatus::Failed;
        record.reason = Some(format!("{e:#}"));
    }
    record
}

/// Runs one task and stores what it gives; `false` when Ctrl-C stopped it.
fn run_task(store: &Store, run_id: i64, plan: &MicroPlan, imp: &Implementation, task: &Task, baselines: &mut Baselines, progress: &Progress) -> Result<bool> {
    let mut keep = |r: &store::micro::MicroRecord| -> Result<()> {
        store.insert_micro(run_id, r)?;
        progress.println(&progress::result_line(r));
        Ok(())
    };
    match task {
        Task::Run(inv) => {
            progress.show(&format!("{} · {} {} · cores={} · #{}", imp.name(), inv.bench, bench::describe(&inv.params), inv.cores, inv.repeat));
            let Some(taken) = measure::measure(imp, inv, plan.budget_bytes, baselines)? else { return Ok(false) };
            keep(&taken.record)?;
            baselines.note(&taken.record);
        }
        Task::Search(spec) => {
            progress.show(&format!("{} · maxprocs search, N up to {} · cores={} · #{}", imp.name(), spec.steps.last().unwrap_or(&0), spec.cores, spec.repeat));
            let Some(found) = search::run(imp, spec, plan.budget_bytes, baselines, &mut keep)? else { return Ok(false) };
            store.put_micro_search(run_id, &found)?;
            progress.println(&progress::search_line(&found));
        }
    }
    Ok(true)
}

fn finish(store: &Store, run_id: i64, status: RunStatus, db: &Path) -> Result<ExitCode> {
    let results = store.micro_results(run_id)?;
    let count = |s: MicroStatus| results.iter().filter(|r| r.status == s).count();
    println!(
        "\nmicro run {run_id} {}: {} results ({} ok, {} failed, {} over the memory budget) in {}",
        status.as_str(),
        results.len(),
        count(MicroStatus::Ok),
        count(MicroStatus::Failed),
        count(MicroStatus::Budget),
        db.display()
    );
    for s in store.micro_searches(run_id)? {
        println!("{}", progress::search_line(&s));
    }
    if status == RunStatus::Interrupted {
        return Ok(ExitCode::from(130));
    }
    println!("write the report with: concur report");
    Ok(ExitCode::SUCCESS)
}

fn print_plan(plan: &MicroPlan) {
    println!("micro profile {}: {}", plan.profile, plan.description);
    println!("implementations: {}", plan.implementations.join(", "));
    println!("memory budget: {} MiB; program watchdog {} s (+ run length)", plan.budget_bytes >> 20, plan.timeout_s);
    for note in &plan.notes {
        println!("note: {note}");
    }
    let fixed: f64 = plan.tasks.iter().map(Task::fixed_seconds).sum();
    println!("{} tasks per implementation, at least {fixed:.0} s of run length each, plus start-up and the measured work", plan.tasks.len());
    for task in &plan.tasks {
        match task {
            Task::Run(i) => println!("  {:<9} {:<28} cores={} #{}  --timeout {}", i.bench.as_str(), bench::describe(&i.params), i.cores, i.repeat, i.timeout_s),
            Task::Search(s) => {
                let steps: Vec<String> = s.steps.iter().map(u64::to_string).collect();
                println!("  maxprocs  search N = {}  cores={} #{}", steps.join(", "), s.cores, s.repeat);
            }
        }
    }
}
