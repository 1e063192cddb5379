//! The cluster's processes. The postmaster leads a process group of its own,
//! registered as servers are, so Ctrl-C stops it with them; its children
//! each lead a session of their own (PostgreSQL's choice) and leave when
//! the postmaster does. Beside it runs a watchdog that reads a pipe only
//! concur holds: when concur dies, even by SIGKILL, the pipe closes and the
//! watchdog shuts the postmaster down and removes its data folder.

use super::install::Programs;
use crate::host::user::Ids;
use anyhow::{Context, Result, bail};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

/// A running postmaster; dropping it shuts it down.
#[derive(Debug)]
pub struct Postmaster {
    child: Child,
    pub port: u16,
    pub log: PathBuf,
}

/// Starts `postgres` on the data folder `data`, listening on `port`, as
/// `ids` when given (concur runs as root), pinned to `cpus` when given.
pub fn spawn(programs: &Programs, data: &Path, port: u16, ids: Option<Ids>, cpus: Option<&[usize]>, log: &Path) -> Result<Postmaster> {
    let file = std::fs::File::create(log).with_context(|| format!("creating {}", log.display()))?;
    let mut cmd = Command::new(&programs.postgres);
    cmd.arg("-D").arg(data).arg("-p").arg(port.to_string());
    cmd.stdin(Stdio::null()).stdout(file.try_clone()?).stderr(file);
    if let Some(ids) = ids {
        cmd.uid(ids.uid).gid(ids.gid);
    }
    if let Some(cpus) = cpus.map(<[usize]>::to_vec) {
        // SAFETY: sched_setaffinity is async-signal-safe and touches only this child.
        unsafe { cmd.pre_exec(move || crate::host::affinity::pin(&cpus)) };
    }
    let child = crate::host::groups::spawn_registered(&mut cmd).with_context(|| format!("starting {}", programs.postgres.display()))?;
    Ok(Postmaster { child, port, log: log.to_path_buf() })
}

impl Postmaster {
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The postmaster's exit status, once it has exited.
    pub fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// Waits until `ready` succeeds (a login), the postmaster exits, or `timeout` passes.
    pub fn wait_ready(&mut self, timeout: Duration, mut ready: impl FnMut() -> Result<(), String>) -> Result<()> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.child.try_wait()? {
                bail!("PostgreSQL exited during start-up ({status}){}", self.log_tail());
            }
            let last = match ready() {
                Ok(()) => return Ok(()),
                Err(e) => e,
            };
            if Instant::now() > deadline {
                bail!("PostgreSQL did not accept a login on 127.0.0.1:{} within {timeout:?} ({last}){}", self.port, self.log_tail());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Fast shutdown (SIGINT: clients are disconnected, a checkpoint is
    /// written), then immediate (SIGQUIT), then SIGKILL to the group.
    pub fn stop(&mut self) {
        for (signal, grace) in [(libc::SIGINT, Duration::from_secs(10)), (libc::SIGQUIT, Duration::from_secs(2))] {
            // SAFETY: signalling our own child.
            unsafe { libc::kill(self.child.id() as i32, signal) };
            let deadline = Instant::now() + grace;
            while matches!(self.child.try_wait(), Ok(None)) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        crate::host::groups::kill(self.child.id() as i32);
        let _ = self.child.wait();
        crate::host::groups::unregister(self.child.id() as i32);
    }

    /// The last lines of the cluster's log, for error messages.
    pub fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        let tail = lines[lines.len().saturating_sub(10)..].join("\n    ");
        if tail.is_empty() { String::new() } else { format!("; its last output ({}):\n    {tail}", self.log.display()) }
    }
}

impl Drop for Postmaster {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) || crate::host::groups::is_registered(self.child.id() as i32) {
            self.stop();
        }
    }
}

/// The watchdog of one postmaster; dropping it ends it without its clean-up
/// (concur has done that itself).
#[derive(Debug)]
pub struct Watchdog {
    child: Child,
    /// The pipe's only write end: closed when concur exits, however it exits.
    _pipe: ChildStdin,
}

/// Starts the watchdog of postmaster `pid`, whose folder is `workdir`.
/// It leads a group of its own, so that Ctrl-C at a terminal does not end
/// it before it has done its work.
pub fn watchdog(pid: u32, workdir: &Path) -> Result<Watchdog> {
    // SIGQUIT is PostgreSQL's immediate shutdown: it ends every backend at once.
    let script = format!("read _; kill -QUIT {pid} 2>/dev/null; sleep 1; kill -KILL {pid} 2>/dev/null; rm -rf -- \"$0\"");
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(script).arg(workdir).stdin(Stdio::piped()).stdout(Stdio::null()).stderr(Stdio::null()).process_group(0);
    // `concur run`'s guard (run/interrupt.rs) kills every process carrying
    // this mark once concur is gone; the watchdog must outlive it to remove the folder.
    cmd.env_remove("CONCUR_RUN_OWNER");
    let mut child = cmd.spawn().context("starting the database's watchdog (sh)")?;
    let pipe = child.stdin.take().context("the watchdog's pipe")?;
    Ok(Watchdog { child, _pipe: pipe })
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        crate::host::groups::kill(self.child.id() as i32);
        let _ = self.child.wait();
    }
}
