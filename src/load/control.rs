//! What the caller shares with a running load: a stop switch (Ctrl-C, or the
//! orchestrator deciding to end early) and progress counters the workers
//! publish a few times a second for a progress bar.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

#[derive(Debug, Default)]
pub struct Control {
    stop: AtomicBool,
    completed: AtomicU64,
    errors: AtomicU64,
}

impl Control {
    pub fn new() -> Control {
        Control::default()
    }

    /// Asks the workers to stop; `run` then returns the partial result, marked interrupted.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    #[inline]
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Requests finished so far (successes and failures) and the failures among them.
    pub fn progress(&self) -> (u64, u64) {
        (self.completed.load(Ordering::Relaxed), self.errors.load(Ordering::Relaxed))
    }

    pub(crate) fn publish(&self, completed: u64, errors: u64) {
        self.completed.fetch_add(completed, Ordering::Relaxed);
        self.errors.fetch_add(errors, Ordering::Relaxed);
    }
}
