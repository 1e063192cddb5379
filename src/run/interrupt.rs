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
use std::sync::{Arc, Mutex, OnceLock};
pub use crate::host::guard::{Guard, mark_children};
use std::time::Duration;

static CURRENT: Mutex<Option<Arc<Control>>> = Mutex::new(None);
static RUN: OnceLock<(PathBuf, i64)> = OnceLock::new();
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
    let guard = crate::host::guard::pid();
    let leaders: Vec<i32> = crate::host::procstat::child_group_leaders().into_iter().filter(|&pid| Some(pid) != guard).collect();
    crate::host::groups::stop_all(&leaders, grace);
    leaders.len()
}

