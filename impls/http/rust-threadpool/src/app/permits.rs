//! A counting semaphore from std's `Mutex` and `Condvar` (std has none): at
//! most `CONCUR_CORES` bcrypt hashes in progress at once per server
//! (spec/POLICIES.md §2). More would only time-slice the same cores and
//! lengthen every hash; the connections past the limit wait here, each on its
//! own blocked thread, the way a thread-per-connection server queues.

use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

pub struct Permits {
    free: Mutex<usize>,
    freed: Condvar,
}

impl Permits {
    pub fn new(permits: usize) -> Permits {
        assert!(permits > 0, "a semaphore of no permits would block every caller");
        Permits { free: Mutex::new(permits), freed: Condvar::new() }
    }

    /// Runs `work` once a permit is free; the permit is given back when
    /// `work` returns or panics.
    pub fn run<T>(&self, work: impl FnOnce() -> T) -> T {
        let mut free = self.freed.wait_while(self.lock(), |free| *free == 0).unwrap_or_else(PoisonError::into_inner);
        *free -= 1;
        drop(free);
        let _permit = Permit(self);
        work()
    }

    fn lock(&self) -> MutexGuard<'_, usize> {
        self.free.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Gives its permit back on drop, panics included.
struct Permit<'a>(&'a Permits);

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        *self.0.lock() += 1;
        self.0.freed.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::thread;
    use std::time::Duration;

    #[test]
    fn no_more_than_the_permits_run_at_once() {
        let permits = Arc::new(Permits::new(2));
        let (running, most) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let (permits, running, most) = (Arc::clone(&permits), Arc::clone(&running), Arc::clone(&most));
                thread::spawn(move || {
                    permits.run(|| {
                        let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(now, Ordering::SeqCst);
                        thread::sleep(Duration::from_millis(30));
                        running.fetch_sub(1, Ordering::SeqCst);
                    })
                })
            })
            .collect();
        threads.into_iter().for_each(|t| t.join().unwrap());
        assert_eq!(most.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn a_panic_gives_its_permit_back() {
        let permits = Permits::new(1);
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| permits.run(|| panic!("a bug"))));
        assert_eq!(permits.run(|| 7), 7);
    }
}
