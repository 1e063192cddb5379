//! What the caller shares with a running load: a stop switch (Ctrl-C, or the
//! orchestrator deciding to end early), progress counters the workers
//! publish a few times a second for a progress bar, and the moment the
//! measurement starts (after a warm-up), so that what the caller samples
//! alongside covers the same time.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

#[derive(Debug, Default)]
pub struct Control {
    stop: AtomicBool,
    completed: AtomicU64,
    errors: AtomicU64,
    measurement: OnceLock<Instant>,
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

    /// When the measurement starts (or started): known at the start of a run
    /// without warm-up, and a little ahead of time after one.
    pub fn measurement_start(&self) -> Option<Instant> {
        self.measurement.get().copied()
    }

    pub(crate) fn begin_measurement(&self, at: Instant) {
        let _ = self.measurement.set(at);
    }

    pub(crate) fn publish(&self, completed: u64, errors: u64) {
        self.completed.fetch_add(completed, Ordering::Relaxed);
        self.errors.fetch_add(errors, Ordering::Relaxed);
    }
}
