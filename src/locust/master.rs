//! One Locust run: a master, headless, and (on one machine) its workers, all
//! in the master's process group so that one signal stops them all, pinned
//! to the generator's CPUs. The run ends when the master does; a worker that
//! exits first, a master that fails, workers that never connect or Ctrl-C
//! end it with the reason, and every process of the group is stopped.

use super::Tool;
use super::output::{Stats, WorkerLoad};
use crate::host::groups;
use crate::load::Control;
use anyhow::{Result, bail};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long workers may take to connect before the master gives up (`--expect-workers-max-wait`).
pub const CONNECT_WAIT_S: u64 = 60;
/// How long the workers may take to start every user, and the master to write its results.
const SPAWN_WAIT_S: u64 = 90;
/// SIGTERM to SIGKILL, and the longest wait for workers to leave after their master.
const GRACE: Duration = Duration::from_secs(5);

/// Everything one Locust run needs.
#[derive(Debug, Clone)]
pub struct Run {
    /// The generated locustfile.
    pub locustfile: PathBuf,
    /// Folder for Locust's outputs and logs.
    pub dir: PathBuf,
    /// `http://addr:port`, as the workers reach the server.
    pub host: String,
    pub users: u32,
    pub warmup_s: f64,
    pub duration_s: f64,
    pub workers: u32,
    /// `None`: the master listens on loopback and this process starts the workers.
    pub master_bind: Option<String>,
    pub master_port: u16,
    /// CPUs the master and local workers are pinned to (none: not pinned).
    pub cpus: Vec<usize>,
}

/// What came back.
#[derive(Debug)]
pub struct Outcome {
    pub stats: Stats,
    /// CPU seconds of the master and the local workers during the measurement.
    pub cpu_seconds: f64,
    /// Each worker's own report of its load (local and remote workers alike; a worker whose report did not arrive is missing).
    pub workers: Vec<WorkerLoad>,
    /// Seconds measured.
    pub elapsed_s: f64,
}

/// A process this run started.
struct Proc {
    name: String,
    child: Child,
    log: PathBuf,
    /// Its exit status, once it has exited.
    done: Option<i32>,
}

impl Proc {
    fn poll(&mut self) -> Option<i32> {
        if self.done.is_none()
            && let Ok(Some(status)) = self.child.try_wait()
        {
            self.done = Some(status.code().unwrap_or_else(|| 128 + std::os::unix::process::ExitStatusExt::signal(&status).unwrap_or(0)));
        }
        self.done
    }

    fn tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        let tail = lines[lines.len().saturating_sub(8)..].join("\n    ");
        if tail.is_empty() { String::new() } else { format!("; the end of {}:\n    {tail}", self.log.display()) }
    }
}

/// Runs `run` to its end, or until `control` is stopped.
pub fn run(tool: &Tool, run: &Run, control: &Control) -> Result<Outcome> {
    let prefix = run.dir.join("locust");
    let status = run.dir.join("status");
    let loads = run.dir.join("workers.json");
    let _ = std::fs::remove_file(&status);
    let _ = std::fs::remove_file(&loads);
    let env = [("CONCUR_LOCUST_STATUS", status.as_path()), ("CONCUR_LOCUST_WORKERS", loads.as_path())];
    let mut master = spawn(tool, "master", &master_args(run, &prefix), run, &env, None)?;
    let group = master.child.id() as i32;
    let mut workers = Vec::new();
    if run.master_bind.is_none() {
        for i in 1..=run.workers {
            let args = worker_args("127.0.0.1", run.master_port);
            let report = run.dir.join(format!("worker-{i}.json"));
            // A worker writes the locustfile it fetches to $TMPDIR/locustfile.py: one folder each, or they overwrite each other's.
            let tmp = run.dir.join(format!("worker-{i}.tmp"));
            std::fs::create_dir_all(&tmp)?;
            let env = [("CONCUR_LOCUST_WORKER_REPORT", report.as_path()), ("TMPDIR", tmp.as_path())];
            match spawn(tool, &format!("worker-{i}"), &args, run, &env, Some(group)) {
                Ok(w) => workers.push(w),
                Err(e) => {
                    groups::stop(group, GRACE);
                    return Err(e);
                }
            }
        }
    }
    let result = watch(run, &status, &mut master, &mut workers, control);
    // The workers leave with their master; whatever is left is stopped.
    let deadline = Instant::now() + GRACE;
    while workers.iter_mut().any(|w| w.poll().is_none()) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    groups::stop(group, GRACE);
    let (cpu_seconds, elapsed_s) = result?;
    let stats = Stats::read(&prefix)?;
    let workers = WorkerLoad::read(&loads)?;
    Ok(Outcome { stats, cpu_seconds, workers, elapsed_s })
}

/// Waits for the master to end; returns the CPU seconds of the group (master and local
/// workers) between the measurement's beginning and end, as the locustfile marks them
/// in the status file, and the measured seconds.
fn watch(run: &Run, status: &Path, master: &mut Proc, workers: &mut [Proc], control: &Control) -> Result<(f64, f64)> {
    let group = master.child.id() as i32;
    let limit = Duration::from_secs_f64(run.warmup_s + run.duration_s) + Duration::from_secs(CONNECT_WAIT_S + SPAWN_WAIT_S);
    let started = Instant::now();
    let mut measuring: Option<(Instant, f64)> = None;
    let mut measured: Option<(f64, f64)> = None;
    loop {
        if control.stopped() {
            groups::stop(group, GRACE);
            bail!("interrupted");
        }
        let said = std::fs::read_to_string(status).unwrap_or_default();
        if measuring.is_none() && said.lines().any(|l| l == "measuring") {
            let now = Instant::now();
            control.begin_measurement(now);
            measuring = Some((now, crate::host::procstat::sample_group(group).cpu_seconds));
        }
        if let (Some((at, base)), None) = (measuring, measured)
            && said.lines().any(|l| l == "ended")
        {
            let cpu = crate::host::procstat::sample_group(group).cpu_seconds;
            measured = Some(((cpu - base).max(0.0), at.elapsed().as_secs_f64()));
        }
        if let Some(code) = master.poll() {
            if let Some(reason) = said.lines().find_map(|l| l.strip_prefix("failed: ")) {
                bail!("{reason}{}", master.tail());
            }
            if code != 0 {
                bail!("the Locust master exited with status {code}{}", master.tail());
            }
            if measuring.is_none() {
                bail!("the Locust master ended before its measurement began (did {} worker(s) connect?){}", run.workers, master.tail());
            }
            let Some(measured) = measured else {
                bail!("the Locust master ended without ending its measurement{}", master.tail());
            };
            return Ok(measured);
        }
        // A worker leaves with status 0 when its master tells it to (the run's end); any other exit is a failure.
        if let Some(w) = workers.iter_mut().find_map(|w| w.poll().is_some_and(|code| code != 0).then_some(w)) {
            let code = w.done.unwrap_or(0);
            let reason = format!("Locust {} exited mid-point (status {code}){}", w.name, w.tail());
            groups::stop(group, GRACE);
            bail!(reason);
        }
        if started.elapsed() > limit {
            groups::stop(group, GRACE);
            bail!("the Locust run did not end within {} s (its workers: {}){}", limit.as_secs(), run.workers, master.tail());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn master_args(run: &Run, prefix: &Path) -> Vec<String> {
    let bind = run.master_bind.clone().unwrap_or_else(|| "127.0.0.1".into());
    let p = prefix.display().to_string();
    [
        "-f", &run.locustfile.display().to_string(), "--master", "--master-bind-host", &bind, "--master-bind-port", &run.master_port.to_string(),
        "--expect-workers", &run.workers.to_string(), "--expect-workers-max-wait", &CONNECT_WAIT_S.to_string(), "--headless",
        "-u", &run.users.to_string(), "-r", &run.users.to_string(), "--only-summary",
        "--host", &run.host, "--json-file", &p, "--csv", &p, "--exit-code-on-error", "0", "--loglevel", "WARNING",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// A worker's arguments: it fetches the locustfile from its master (`-f -`), so a worker knows no scenario.
pub fn worker_args(master_host: &str, master_port: u16) -> Vec<String> {
    ["-f", "-", "--worker", "--master-host", master_host, "--master-port", &master_port.to_string(), "--loglevel", "WARNING"].iter().map(|s| s.to_string()).collect()
}

fn spawn(tool: &Tool, name: &str, args: &[String], run: &Run, env: &[(&str, &Path)], group: Option<i32>) -> Result<Proc> {
    let log = run.dir.join(format!("{name}.log"));
    let file = std::fs::File::create(&log)?;
    let mut cmd = Command::new(&tool.locust);
    cmd.args(args).current_dir(&run.dir).stdin(Stdio::null()).stdout(file.try_clone()?).stderr(file);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.process_group(group.unwrap_or(0));
    if !run.cpus.is_empty() {
        let cpus = run.cpus.clone();
        // SAFETY: sched_setaffinity is async-signal-safe and touches only this child.
        unsafe { cmd.pre_exec(move || crate::host::affinity::pin(&cpus)) };
    }
    let child = cmd.spawn().map_err(|e| anyhow::anyhow!("starting the Locust {name} ({}): {e}", tool.locust.display()))?;
    Ok(Proc { name: name.to_string(), child, log, done: None })
}
