//! The process groups of started servers, registered while they run, and
//! what Ctrl-C means to `serve` and `verify`: stop every group still
//! registered and exit, so that no interrupted command leaves a server behind.

use crate::host::{groups, interrupt};
use std::sync::Mutex;
use std::time::Duration;

static GROUPS: Mutex<Vec<i32>> = Mutex::new(Vec::new());

pub fn register(pgid: i32) {
    GROUPS.lock().unwrap_or_else(|e| e.into_inner()).push(pgid);
}

pub fn unregister(pgid: i32) {
    GROUPS.lock().unwrap_or_else(|e| e.into_inner()).retain(|&g| g != pgid);
}

pub fn is_registered(pgid: i32) -> bool {
    GROUPS.lock().unwrap_or_else(|e| e.into_inner()).contains(&pgid)
}

/// On SIGINT/SIGTERM/SIGHUP: stop every registered group and exit 130.
pub fn install_interrupt_handler() {
    interrupt::on_signal(|_| {
        let registered: Vec<i32> = GROUPS.lock().unwrap_or_else(|e| e.into_inner()).clone();
        groups::stop_all(&registered, Duration::from_secs(2));
        eprintln!("\nconcur: interrupted; stopped {} server process group(s)", registered.len());
        std::process::exit(130);
    });
}
