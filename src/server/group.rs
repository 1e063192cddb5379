//! Process groups of started servers: signalling a whole tree, and the
//! Ctrl-C handler that stops every group still registered before exiting,
//! so that no interrupted command leaves a server behind.

use std::sync::Mutex;
use std::time::Duration;

static GROUPS: Mutex<Vec<i32>> = Mutex::new(Vec::new());
static INTERRUPTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether Ctrl-C (or SIGTERM/SIGHUP) has been received. Code that notices a
/// server die while the handler is still stopping groups uses it to exit 130
/// like the handler, rather than report the death as a failure.
pub fn interrupted() -> bool {
    INTERRUPTED.load(std::sync::atomic::Ordering::SeqCst)
}

pub fn register(pgid: i32) {
    GROUPS.lock().unwrap_or_else(|e| e.into_inner()).push(pgid);
}

pub fn unregister(pgid: i32) {
    GROUPS.lock().unwrap_or_else(|e| e.into_inner()).retain(|&g| g != pgid);
}

pub fn is_registered(pgid: i32) -> bool {
    GROUPS.lock().unwrap_or_else(|e| e.into_inner()).contains(&pgid)
}

/// Installs, once, a handler for SIGINT/SIGTERM/SIGHUP that stops every
/// registered group and exits 130.
pub fn install_interrupt_handler() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = ctrlc::set_handler(|| {
            INTERRUPTED.store(true, std::sync::atomic::Ordering::SeqCst);
            let groups: Vec<i32> = GROUPS.lock().unwrap_or_else(|e| e.into_inner()).clone();
            crate::host::groups::stop_all(&groups, Duration::from_secs(2));
            eprintln!("\nconcur: interrupted; stopped {} server process group(s)", groups.len());
            std::process::exit(130);
        });
    });
}
