//! Stopping a run without losing a point or leaving a server behind.
//!
//! Ctrl-C (or SIGTERM/SIGHUP) during a load asks it to stop; the sweep then
//! discards the unfinished point, stops its server and marks the run
//! interrupted. At any other moment (verification, a server starting), or
//! on a second signal, or when that clean-up takes too long, every process
//! group a child of ours leads is stopped, but the guard's, and the process
//! exits at once — after any point being written has been committed; the
//! guard then kills whatever was being started meanwhile. Against SIGKILL, which
//! no handler sees, each measured server gets a guard process that kills its
//! group as soon as the orchestrator is gone.

use crate::host::interrupt;
use crate::load::Control;
use crate::store::{RunStatus, Store};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

static CURRENT: Mutex<Option<Arc<Control>>> = Mutex::new(None);
static RUN: OnceLock<(PathBuf, i64)> = OnceLock::new();
/// The guard's pid: a forced exit leaves it running, so that its rounds kill
/// whatever the main thread started while the exit stopped the others.
static GUARD: OnceLock<i32> = OnceLock::new();
/// Held while a point is written, so that a forced exit never cuts one short.
static WRITING: Mutex<()> = Mutex::new(());

/// How long clean-up after the first signal may take before everything is killed.
const GRACE: Duration = Duration::from_secs(15);

/// Makes the first signal stop the current load, and a second one (or a
/// signal while no load runs) stop everything at once.
pub fn install() {
    interrupt::on_signal(|count| {
        if count > 1 {
            force_exit();
        }
        match CURRENT.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            Some(control) => control.stop(),
            None => force_exit(),
        }
        interrupt::say("\nconcur: interrupted; stopping the server and keeping every finished point (Ctrl-C again to stop at once)");
        std::thread::spawn(|| {
            std::thread::sleep(GRACE);
            force_exit();
        });
    });
}

/// Tells a forced exit which run to mark interrupted.
pub fn set_run(db: PathBuf, run_id: i64) {
    let _ = RUN.set((db, run_id));
}

/// Keeps `control` reachable by the handler while its load runs.
pub struct Watch;

impl Watch {
    pub fn new(control: Arc<Control>) -> Watch {
        if interrupt::stopping() {
            control.stop();
        }
        *CURRENT.lock().unwrap_or_else(|e| e.into_inner()) = Some(control);
        Watch
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        *CURRENT.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }
}

/// Holds off a forced exit while a point is written.
pub fn writing() -> std::sync::MutexGuard<'static, ()> {
    WRITING.lock().unwrap_or_else(|e| e.into_inner())
}

fn force_exit() -> ! {
    let _writing = writing();
    let stopped = stop_child_groups(Duration::from_secs(2));
    if let Some((db, id)) = RUN.get()
        && let Ok(store) = Store::open_existing(db)
    {
        let _ = store.set_run_status(*id, RunStatus::Interrupted, Some(&crate::host::env::now_rfc3339()));
    }
    interrupt::say(&format!("\nconcur: interrupted; stopped {stopped} child process group(s); the run is marked interrupted (`concur run --resume` continues it)"));
    std::process::exit(130);
}

/// Stops every process group led by a child of this process (the servers of
/// `verify` and of the current point) but the guard's. Returns how many there
/// were. The guard is spared because the main thread goes on while the groups
/// stop: a server it starts meanwhile (verification moving on after its
/// server died) is in no list, and once this process has exited the guard's
/// rounds kill it.
pub fn stop_child_groups(grace: Duration) -> usize {
    let guard = GUARD.get().copied();
    let leaders: Vec<i32> = crate::host::procstat::child_group_leaders().into_iter().filter(|&pid| Some(pid) != guard).collect();
    crate::host::groups::stop_all(&leaders, grace);
    leaders.len()
}

/// The environment variable every process a run starts carries (it is set
/// in the orchestrator's own environment, so children inherit it).
pub const OWNER_VAR: &str = "CONCUR_RUN_OWNER";

/// Marks this process so that everything it starts from now on carries
/// `CONCUR_RUN_OWNER=<pid>`. Must run before any other thread exists.
pub fn mark_children() {
    // SAFETY: called first thing in `run_command`, while this process has one thread.
    unsafe { std::env::set_var(OWNER_VAR, std::process::id().to_string()) };
}

/// A process in a group of its own that, once this process is gone (even by
/// SIGKILL, which no handler sees), kills every process carrying this
/// process' `CONCUR_RUN_OWNER` mark — servers of points and of
/// verification, their workers, builds — and the process group each leads
/// or belongs to. Started before any server, so no server is ever
/// unguarded. Dropping it ends it.
///
/// The group matters: a server still starting may be a shell script (a
/// pyenv shim is one) forking subshells, and a child forked between the
/// guard's look at /proc and its kill would live on, orphaned, and run the
/// server after all (seen here in about 1 run in 15). A group kill reaches
/// every member, including one being forked. The orchestrator's own group
/// (a terminal's job, a test harness) and the guard's are never killed.
/// The guard looks ten times, 0.2 s apart, even when a look finds nothing: a
/// server the orchestrator forked just before it died shows the mark only
/// once it has exec'd (/proc holds the environment a process was started
/// with), which on a loaded machine can take a while. For the same reason
/// the guard itself shows the mark and skips itself; `unset` keeps it off
/// the guard's own `grep`.
pub struct Guard(Option<Child>);

impl Guard {
    pub fn start() -> Guard {
        let me = std::process::id();
        // SAFETY: getpgrp cannot fail and has no side effect.
        let my_group = unsafe { libc::getpgrp() };
        let script = format!(
            "unset {OWNER_VAR}; \
             while kill -0 {me} 2>/dev/null; do sleep 1; done; \
             for round in 1 2 3 4 5 6 7 8 9 10; do \
               for f in $(grep -lzx '{OWNER_VAR}={me}' /proc/[0-9]*/environ 2>/dev/null); do \
                 p=${{f#/proc/}}; p=${{p%/environ}}; [ \"$p\" != $$ ] || continue; \
                 read -r stat < /proc/$p/stat 2>/dev/null || continue; \
                 set -- ${{stat##*) }}; g=$3; \
                 [ \"$g\" = {my_group} ] || [ \"$g\" = $$ ] || kill -s KILL -- -$g 2>/dev/null; \
                 kill -s KILL $p 2>/dev/null; \
               done; \
               sleep 0.2; \
             done"
        );
        let mut cmd = Command::new("sh");
        cmd.arg("-c").arg(script).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null());
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let child = cmd.spawn().ok();
        if let Some(child) = &child {
            let _ = GUARD.set(child.id() as i32);
        }
        Guard(child)
    }
}

impl Drop for Guard {
    /// Ends the guard, unless a signal has been received: a forced exit may
    /// then be under way on the handler's thread, and the guard must outlive
    /// it to kill what the main thread started meanwhile (this drop racing
    /// that exit left neither). A guard left running ends by itself once
    /// this process has exited and its ten rounds are done.
    fn drop(&mut self) {
        if interrupt::stopping() {
            return;
        }
        if let Some(child) = &mut self.0 {
            // The guard leads its own group (it and its `sleep`).
            crate::host::groups::kill(child.id() as i32);
            let _ = child.wait();
        }
    }
}
