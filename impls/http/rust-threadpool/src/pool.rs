//! The Rust book's `ThreadPool` (chapter 20, "Turning Our Single-Threaded
//! Server into a Multithreaded Server" and "Graceful Shutdown and Cleanup"):
//! a fixed set of `Worker`s, each an OS thread taking boxed jobs from one
//! `mpsc` channel whose receiver they share behind `Arc<Mutex<_>>`. Dropping
//! the pool drops the sender, so every worker's `recv` fails once the queue is
//! empty and the worker ends; then the pool joins them.
//!
//! Two departures from the book: workers are named threads, and a job that
//! panics is caught so its worker goes on serving (the book's worker would
//! die with it and the pool would shrink for good).

use std::panic::{self, AssertUnwindSafe};
use std::sync::{Arc, Mutex, mpsc};
use std::thread;

type Job = Box<dyn FnOnce() + Send + 'static>;

pub struct ThreadPool {
    workers: Vec<Worker>,
    sender: Option<mpsc::Sender<Job>>,
}

impl ThreadPool {
    /// Create a new ThreadPool with `size` threads.
    ///
    /// # Panics
    ///
    /// The `new` function will panic if the size is zero.
    pub fn new(size: usize) -> ThreadPool {
        assert!(size > 0);
        let (sender, receiver) = mpsc::channel();
        let receiver = Arc::new(Mutex::new(receiver));
        let workers = (0..size).map(|id| Worker::new(id, Arc::clone(&receiver))).collect();
        ThreadPool { workers, sender: Some(sender) }
    }

    /// Runs `f` on the next free worker. When every worker is busy the job
    /// waits in the channel: that queue is where connections past the pool's
    /// size wait.
    pub fn execute<F>(&self, f: F)
    where
        F: FnOnce() + Send + 'static,
    {
        let sender = self.sender.as_ref().expect("the sender lives until drop");
        sender.send(Box::new(f)).expect("workers outlive the sender");
    }
}

impl Drop for ThreadPool {
    fn drop(&mut self) {
        drop(self.sender.take());
        for worker in self.workers.drain(..) {
            if worker.thread.join().is_err() {
                eprintln!("worker {} ended with a panic", worker.id);
            }
        }
    }
}

struct Worker {
    id: usize,
    thread: thread::JoinHandle<()>,
}

impl Worker {
    fn new(id: usize, receiver: Arc<Mutex<mpsc::Receiver<Job>>>) -> Worker {
        let thread = thread::Builder::new()
            .name(format!("worker-{id}"))
            .spawn(move || {
                loop {
                    // The guard is a temporary of this statement, so the lock
                    // is released before the job runs (the book's point).
                    let message = receiver.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).recv();
                    let Ok(job) = message else { break };
                    if panic::catch_unwind(AssertUnwindSafe(job)).is_err() {
                        eprintln!("worker {id}: a connection's handler panicked; the worker goes on");
                    }
                }
            })
            .expect("spawning a worker thread");
        Worker { id, thread }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::{Duration, Instant};

    #[test]
    fn drop_runs_every_queued_job_then_joins() {
        let done = Arc::new(AtomicUsize::new(0));
        let pool = ThreadPool::new(3);
        for _ in 0..20 {
            let done = Arc::clone(&done);
            pool.execute(move || {
                done.fetch_add(1, Ordering::SeqCst);
            });
        }
        drop(pool);
        assert_eq!(done.load(Ordering::SeqCst), 20);
    }

    #[test]
    fn jobs_block_only_their_own_worker() {
        let pool = ThreadPool::new(8);
        let start = Instant::now();
        for _ in 0..8 {
            pool.execute(|| thread::sleep(Duration::from_millis(200)));
        }
        drop(pool);
        assert!(start.elapsed() < Duration::from_millis(1000), "8 sleeps on 8 workers took {:?}", start.elapsed());
    }

    #[test]
    fn a_panicking_job_leaves_its_worker_serving() {
        let pool = ThreadPool::new(1);
        let (tx, rx) = mpsc::channel();
        pool.execute(|| panic!("a handler bug"));
        pool.execute(move || tx.send(()).unwrap());
        rx.recv_timeout(Duration::from_secs(5)).expect("the only worker survived the panic");
    }
}
