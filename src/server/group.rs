//! The process groups of started servers and running builds, registered
//! while they run, and what Ctrl-C means to `serve`, `verify`, `test` and
//! `build`: stop every group still registered and exit, so that no
//! interrupted command leaves a server or a build behind.

use crate::host::{groups, interrupt};
use anyhow::{Result, bail};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command};
use std::sync::Mutex;
use std::time::Duration;

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

/// Stops every registered group (SIGTERM, SIGKILL after `grace`); returns how many there were.
pub fn stop_registered(grace: Duration) -> usize {
    let registered: Vec<i32> = GROUPS.lock().unwrap_or_else(|e| e.into_inner()).clone();
    groups::stop_all(&registered, grace);
    registered.len()
}

/// On SIGINT/SIGTERM/SIGHUP: stop every registered group and exit 130.
pub fn install_interrupt_handler() {
    interrupt::on_signal(|_| {
        let stopped = stop_registered(Duration::from_secs(2));
        eprintln!("\nconcur: interrupted; stopped {stopped} server or build process group(s)");
        std::process::exit(130);
    });
}
