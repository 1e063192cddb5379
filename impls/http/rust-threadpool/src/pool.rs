//! The Rust book's `ThreadPool` (chapter 20, "Turning Our Single-Threaded
//! Server into a Multithreaded Server" and "Graceful Shutdown and Cleanup"):
//! `Worker`s, each an OS thread taking boxed jobs from one `mpsc` channel
//! whose receiver they share behind `Arc<Mutex<_>>`. Dropping the pool drops
//! the sender, so every worker's `recv` fails once the queue is empty and the
//! worker ends; then the pool joins them.
//!
//! The book's pool has a fixed size, and a connection past it waits in the
//! channel until a worker is free: with 256 workers, the 257th long poll was
//! answered a whole poll late, and 744 of 1,000 waited the whole run. This one
//! grows on demand instead (spec/POLICIES.md §1), the way Java's cached thread
//! pool does: it starts empty, spawns a worker whenever a job arrives and no
//! worker is idle, up to `max`, and a worker idle for `keep_alive` ends. Its
//! threads have small stacks ([`STACK_SIZE`]), so a waiting connection costs
//! what a thread costs and nothing more. Past `max`, jobs wait in the channel
//! as in the book.
//!
//! Two more departures from the book: workers are named threads, and a job
//! that panics is caught so its worker goes on serving (the book's worker
//! would die with it).

use std::collections::HashMap;
use std::panic::{self, AssertUnwindSafe};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, mpsc};
use std::thread;
use std::time::{Duration, Instant};

/// Each worker's stack: spec/POLICIES.md §1 asks for at most 256 KiB (std's
/// default is 2 MiB). Measured in the release build (`/proc/PID/smaps`), a
/// connection touches 16 KiB of it for every route with bcrypt at cost 10, and
/// 48 KiB for a JSON body nested to serde_json's recursion limit (128), the
/// deepest input the contract allows; only touched pages are resident.
pub const STACK_SIZE: usize = 256 * 1024;

type Job = Box<dyn FnOnce() + Send + 'static>;

pub struct ThreadPool {
    sender: Option<mpsc::Sender<Job>>,
    shared: Arc<Shared>,
    max: usize,
    keep_alive: Duration,
}

/// What the pool and its workers share.
struct Shared {
    receiver: Mutex<mpsc::Receiver<Job>>,
    counts: Mutex<Counts>,
    /// The live workers by id; a worker that retires removes itself.
    workers: Mutex<HashMap<usize, Worker>>,
}

/// Kept under one lock, so that the decision to spawn (in `execute`) and the
/// decision to retire (in a worker) never both miss a job.
#[derive(Default)]
struct Counts {
    /// Workers alive, spawned or being spawned.
    live: usize,
    /// Workers waiting for a job (a worker being spawned counts: it will be).
    idle: usize,
    /// Jobs sent and not yet taken by a worker.
    queued: usize,
    next_id: usize,
}

impl ThreadPool {
    /// Create a new ThreadPool that grows to at most `max` threads and ends
    /// a thread idle for `keep_alive`.
    ///
    /// # Panics
    ///
    /// The `new` function will panic if `max` is zero.
    pub fn new(max: usize, keep_alive: Duration) -> ThreadPool {
        assert!(max > 0);
        let (sender, receiver) = mpsc::channel();
        let shared = Arc::new(Shared { receiver: Mutex::new(receiver), counts: Mutex::default(), workers: Mutex::default() });
        ThreadPool { sender: Some(sender), shared, max, keep_alive }
    }

    /// Runs `f` on an idle worker, or on a new one when none is idle and the
    /// pool is below `max`; at `max` the job waits in the channel for the
    /// first worker that frees.
    pub fn execute<F>(&self, f: F)
    where
        F: FnOnce() + Send + 'static,
    {
        // Counted before it is sent, so a worker never takes a job not yet counted.
        let spawn = {
            let mut counts = lock(&self.shared.counts);
            counts.queued += 1;
            (counts.queued > counts.idle && counts.live < self.max).then(|| {
                counts.live += 1;
                counts.idle += 1;
                counts.next_id += 1;
                counts.next_id
            })
        };
        let sender = self.sender.as_ref().expect("the sender lives until drop");
        sender.send(Box::new(f)).expect("the receiver lives as long as the pool");
        if let Some(id) = spawn {
            Worker::spawn(id, Arc::clone(&self.shared), self.keep_alive);
        }
    }

    /// Workers alive now.
    pub fn threads(&self) -> usize {
        lock(&self.shared.counts).live
    }
}

impl Drop for ThreadPool {
    fn drop(&mut self) {
        drop(self.sender.take());
        let workers = std::mem::take(&mut *lock(&self.shared.workers));
        for (_, worker) in workers {
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
    /// Starts worker `id`, already counted live and idle. If the system
    /// refuses a thread (its thread limit), the count is given back and the
    /// job waits in the channel for a worker that frees.
    fn spawn(id: usize, shared: Arc<Shared>, keep_alive: Duration) {
        // Registered under the lock the worker takes to remove itself, so a
        // worker that retires at once still finds its entry.
        let mut workers = lock(&shared.workers);
        let inner = Arc::clone(&shared);
        let spawned = thread::Builder::new().name(format!("worker-{id}")).stack_size(STACK_SIZE).spawn(move || work(id, &inner, keep_alive));
        match spawned {
            Ok(thread) => {
                workers.insert(id, Worker { id, thread });
            }
            Err(e) => {
                drop(workers);
                let mut counts = lock(&shared.counts);
                counts.live -= 1;
                counts.idle -= 1;
                eprintln!("cannot start a worker thread beyond {}: {e}; the connection waits for a free one", counts.live);
            }
        }
    }
}

/// A worker's life: take jobs until the pool is dropped, or until it has been
/// idle for `keep_alive` while no queued job needs it.
fn work(id: usize, shared: &Shared, keep_alive: Duration) {
    let mut idle_since = Instant::now();
    loop {
        // The guard lives for this block only, so the lock is released before
        // the job runs (the book's point). Idle workers queue for the lock; the
        // wait is reckoned once a worker holds it, so one that waited out its
        // keep-alive in the queue only looks for a job and retires.
        let message = {
            let receiver = lock(&shared.receiver);
            receiver.recv_timeout(keep_alive.saturating_sub(idle_since.elapsed()))
        };
        let job = match message {
            Ok(job) => job,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if retire(shared) {
                    break;
                }
                continue;
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => return,
        };
        {
            let mut counts = lock(&shared.counts);
            counts.idle -= 1;
            counts.queued -= 1;
        }
        if panic::catch_unwind(AssertUnwindSafe(job)).is_err() {
            eprintln!("worker {id}: a connection's handler panicked; the worker goes on");
        }
        lock(&shared.counts).idle += 1;
        idle_since = Instant::now();
    }
    // Retired: the pool will not join this worker, so its handle goes.
    lock(&shared.workers).remove(&id);
}

/// Counts an idle worker out, unless a queued job needs it: decided and
/// counted under one lock, so two workers retiring at once never both leave
/// a job behind.
fn retire(shared: &Shared) -> bool {
    let mut counts = lock(&shared.counts);
    let may = counts.queued < counts.idle;
    if may {
        counts.live -= 1;
        counts.idle -= 1;
    }
    may
}

/// A poisoned lock still holds good counts: no job runs under these locks.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Barrier;
    use std::sync::atomic::{AtomicUsize, Ordering};

    const KEEP: Duration = Duration::from_secs(60);

    #[test]
    fn drop_runs_every_queued_job_then_joins() {
        let done = Arc::new(AtomicUsize::new(0));
        let pool = ThreadPool::new(3, KEEP);
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
    fn the_pool_grows_to_hold_every_waiting_job() {
        // 300 jobs that all wait for each other: a pool of fewer threads never ends them.
        let pool = ThreadPool::new(1000, KEEP);
        let barrier = Arc::new(Barrier::new(301));
        for _ in 0..300 {
            let barrier = Arc::clone(&barrier);
            pool.execute(move || {
                barrier.wait();
            });
        }
        let (tx, rx) = mpsc::channel();
        thread::spawn(move || tx.send(barrier.wait().is_leader()));
        rx.recv_timeout(Duration::from_secs(20)).expect("300 jobs waiting together, each on a thread of its own");
        assert!((300..=301).contains(&pool.threads()), "{} threads for 300 jobs", pool.threads());
    }

    #[test]
    fn no_more_than_max_threads_run_and_the_rest_wait() {
        let pool = ThreadPool::new(2, KEEP);
        let start = Instant::now();
        for _ in 0..4 {
            pool.execute(|| thread::sleep(Duration::from_millis(200)));
        }
        assert_eq!(pool.threads(), 2);
        drop(pool);
        assert!(start.elapsed() >= Duration::from_millis(400), "4 sleeps on 2 threads took {:?}", start.elapsed());
    }

    #[test]
    fn idle_workers_end_after_the_keep_alive_and_the_pool_grows_again() {
        let pool = ThreadPool::new(100, Duration::from_millis(100));
        for _ in 0..20 {
            pool.execute(|| thread::sleep(Duration::from_millis(50)));
        }
        assert!(pool.threads() >= 10, "{} threads for 20 jobs arriving together", pool.threads());
        let deadline = Instant::now() + Duration::from_secs(10);
        while pool.threads() > 0 {
            assert!(Instant::now() < deadline, "{} workers still alive 10 s after their last job", pool.threads());
            thread::sleep(Duration::from_millis(20));
        }
        let (tx, rx) = mpsc::channel();
        pool.execute(move || tx.send(()).unwrap());
        rx.recv_timeout(Duration::from_secs(5)).expect("a job after the pool emptied gets a new worker");
    }

    #[test]
    fn jobs_sent_while_workers_retire_are_all_run() {
        // Jobs arriving one by one, each just as the last worker's keep-alive
        // ends: a worker that retired with a job queued would strand it.
        let pool = ThreadPool::new(4, Duration::from_millis(2));
        let (tx, rx) = mpsc::channel();
        for i in 0..200 {
            let tx = tx.clone();
            pool.execute(move || tx.send(i).unwrap());
            thread::sleep(Duration::from_micros(1500 + (i % 7) * 200));
        }
        for _ in 0..200 {
            rx.recv_timeout(Duration::from_secs(5)).expect("every job runs");
        }
    }

    #[test]
    fn workers_have_small_stacks_that_hold_a_bcrypt_hash() {
        let pool = ThreadPool::new(1, KEEP);
        let (tx, rx) = mpsc::channel();
        pool.execute(move || tx.send(bcrypt::hash("a password", 4).is_ok()).unwrap());
        assert_eq!(rx.recv_timeout(Duration::from_secs(10)), Ok(true));
    }

    #[test]
    fn a_panicking_job_leaves_its_worker_serving() {
        let pool = ThreadPool::new(1, KEEP);
        let (tx, rx) = mpsc::channel();
        pool.execute(|| panic!("a handler bug"));
        pool.execute(move || tx.send(()).unwrap());
        rx.recv_timeout(Duration::from_secs(5)).expect("the only worker survived the panic");
    }
}
