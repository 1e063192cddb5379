//! Ctrl-C during `concur micro`: the first signal kills the running
//! program's process group (its measurement is discarded, every stored one is
//! kept), or stops the running build, and lets the sweep mark the run
//! interrupted; a second one exits at once.

use crate::host::interrupt;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Duration;

/// The process group of the program running now, 0 when none.
static CURRENT: AtomicI32 = AtomicI32::new(0);

/// Makes a signal stop the running program or build, and a second one exit.
pub fn install() {
    interrupt::on_signal(|count| {
        kill_current();
        // A build leads a process group of its own, which a terminal's Ctrl-C does not reach.
        crate::server::stop_registered(Duration::from_secs(2));
        if count > 1 {
            interrupt::say("\nconcur: interrupted again; exiting now");
            std::process::exit(130);
        }
        interrupt::say("\nconcur: interrupted; stopped the running benchmark, keeping every stored result (Ctrl-C again to exit at once)");
    });
}

/// Records the group of the program now running (0: none).
pub fn set_current(pgid: i32) {
    CURRENT.store(pgid, Ordering::SeqCst);
}

fn kill_current() {
    let pgid = CURRENT.load(Ordering::SeqCst);
    if pgid > 0 {
        crate::host::groups::kill(pgid);
    }
}
