//! Signalling whole process groups. Every program concur starts leads a
//! group of its own, so that stopping it also stops what it started
//! (cluster workers, the BEAM's helpers, a million micro processes). The
//! groups of servers, databases and builds are registered while they run,
//! so that a signal stops every one of them ([`stop_registered`]).

use crate::host::interrupt;
use anyhow::{Result, bail};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command};
use std::sync::Mutex;
use std::time::{Duration, Instant};

static GROUPS: Mutex<Vec<i32>> = Mutex::new(Vec::new());

pub fn unregister(pgid: i32) {
    GROUPS.lock().unwrap_or_else(|e| e.into_inner()).retain(|&g| g != pgid);
}

pub fn is_registered(pgid: i32) -> bool {
    GROUPS.lock().unwrap_or_else(|e| e.into_inner()).contains(&pgid)
}

/// Spawns `cmd` as the leader of a new process group, registered; refused
/// once a signal has come. The check and the registration happen under the
/// lock [`stop_registered`] takes, so a group started as a signal arrives
/// is either refused or stopped: never left behind.
pub fn spawn_registered(cmd: &mut Command) -> Result<Child> {
    let mut registered = GROUPS.lock().unwrap_or_else(|e| e.into_inner());
    if interrupt::stopping() {
        bail!("interrupted: not started");
    }
    let child = cmd.process_group(0).spawn()?;
    registered.push(child.id() as i32);
    Ok(child)
}

/// What Ctrl-C means to `serve`, `verify`, `test`, `db` and `build`: on
/// SIGINT/SIGTERM/SIGHUP, stop every registered group and exit 130, so that
/// no interrupted command leaves a server, a database or a build behind.
pub fn install_interrupt_handler() {
    interrupt::on_signal(|_| {
        let stopped = stop_registered(Duration::from_secs(2));
        eprintln!("\nconcur: interrupted; stopped {stopped} server, build or database process group(s)");
        std::process::exit(130);
    });
}

/// Stops every registered group (SIGTERM, SIGKILL after `grace`); returns how many there were.
pub fn stop_registered(grace: Duration) -> usize {
    let registered: Vec<i32> = GROUPS.lock().unwrap_or_else(|e| e.into_inner()).clone();
    stop_all(&registered, grace);
    registered.len()
}

/// SIGKILL to every process of the group.
pub fn kill(pgid: i32) {
    // SAFETY: signalling a group a child of ours leads.
    unsafe { libc::kill(-pgid, libc::SIGKILL) };
}

/// SIGTERM to the group, then SIGKILL to whatever is left after `grace`.
pub fn stop(pgid: i32, grace: Duration) {
    stop_all(&[pgid], grace);
}

/// SIGTERM to every group, then SIGKILL to the groups left after `grace`.
pub fn stop_all(pgids: &[i32], grace: Duration) {
    for &pgid in pgids {
        // SAFETY: signalling groups our children lead.
        unsafe { libc::kill(-pgid, libc::SIGTERM) };
    }
    let deadline = Instant::now() + grace;
    while pgids.iter().any(|&g| alive(g)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    for &pgid in pgids.iter().filter(|&&g| alive(g)) {
        kill(pgid);
    }
}

/// Whether any process of the group is left. The exited leader is reaped
/// first, without blocking, so that a dead group does not live on as a
/// zombie; only the leader, as other children belong to other groups.
fn alive(pgid: i32) -> bool {
    // SAFETY: non-blocking waitpid on our own child; signal 0 only checks existence.
    unsafe {
        libc::waitpid(pgid, std::ptr::null_mut(), libc::WNOHANG);
        libc::kill(-pgid, 0) == 0
    }
}
