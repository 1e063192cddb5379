//! Ctrl-C during `concur micro`: the first signal kills the running
//! program's process group (its measurement is discarded, every stored one is
//! kept) and lets the sweep mark the run interrupted; a second one exits at
//! once.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

static STOP: AtomicBool = AtomicBool::new(false);
/// The process group of the program running now, 0 when none.
static CURRENT: AtomicI32 = AtomicI32::new(0);

/// Installs the handler once per process (a later install is ignored).
pub fn install() {
    let _ = ctrlc::set_handler(|| {
        let again = STOP.swap(true, Ordering::SeqCst);
        kill_current();
        if again {
            eprintln!("\nconcur: interrupted again; exiting now");
            std::process::exit(130);
        }
        eprintln!("\nconcur: interrupted; stopped the running benchmark, keeping every stored result (Ctrl-C again to exit at once)");
    });
}

/// Whether a stop was asked for.
pub fn stopping() -> bool {
    STOP.load(Ordering::SeqCst)
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
