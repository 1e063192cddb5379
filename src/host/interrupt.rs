//! The process' one handler of Ctrl-C (SIGINT, SIGTERM and SIGHUP). The
//! `ctrlc` crate takes a single handler per process, so a command does not
//! install its own: it says what a signal means to it ([`on_signal`]), and
//! this module counts the signals, so that any stage can ask [`stopping`]
//! and a command can treat a second signal as "stop at once".
//!
//! Actions print with [`say`], never `eprintln!`: the handler runs on one
//! thread for the life of the process, and `eprintln!` panics when standard
//! error is a pipe nobody reads any more (a closed terminal, a script that
//! stopped reading), which would end that thread and leave every later
//! signal ignored.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, Once};

type Action = Arc<dyn Fn(u32) + Send + Sync>;

static SIGNALS: AtomicU32 = AtomicU32::new(0);
static ACTION: Mutex<Option<Action>> = Mutex::new(None);

/// Makes `action` what a signal does from now on; it is given the number of
/// signals received so far, this one included (1 for the first).
pub fn on_signal(action: impl Fn(u32) + Send + Sync + 'static) {
    *ACTION.lock().unwrap_or_else(|e| e.into_inner()) = Some(Arc::new(action));
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let _ = ctrlc::set_handler(|| {
            let count = SIGNALS.fetch_add(1, Ordering::SeqCst) + 1;
            // Cloned out of the lock: an action may run for seconds, or exit.
            let action = ACTION.lock().unwrap_or_else(|e| e.into_inner()).clone();
            if let Some(action) = action {
                // A panicking action must not take the handler thread with it.
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| action(count)));
            }
        });
    });
}

/// Writes `line` to standard error, newline-terminated, ignoring a failed
/// write: what an action says must never stop it from doing what it is for.
pub fn say(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// Whether a signal has been received: work in progress should wind down.
pub fn stopping() -> bool {
    SIGNALS.load(Ordering::SeqCst) > 0
}

/// Sleeps `total` in steps of at most `step`, returning early once `stop()` holds.
pub fn sleep_unless(total: std::time::Duration, step: std::time::Duration, stop: impl Fn() -> bool) {
    let end = std::time::Instant::now() + total;
    while !stop() {
        let left = end.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            return;
        }
        std::thread::sleep(left.min(step));
    }
}

/// Sleeps `wait`, cut short (within 50 ms) by a signal.
pub fn sleep_unless_stopping(wait: std::time::Duration) {
    sleep_unless(wait, std::time::Duration::from_millis(50), stopping);
}
