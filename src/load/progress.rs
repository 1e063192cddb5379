//! The progress bar of `concur load`, on standard error and only when it is a
//! terminal: elapsed time or requests against the goal, the rate, and the
//! errors so far, read from the workers' published counters.

use super::control::Control;
use super::plan::{LoadPlan, StopAt};
use crate::host::progress;
use indicatif::ProgressBar;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

pub struct Progress {
    done: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Progress {
    pub fn start(plan: &LoadPlan, control: Arc<Control>) -> Progress {
        let done = Arc::new(AtomicBool::new(false));
        let stop = plan.stop;
        let len = match stop {
            StopAt::Duration(d) => d.as_millis() as u64,
            StopAt::Count(n) => n,
        };
        let bar = progress::bar(len, progress::style("[{bar:30}] {msg}").progress_chars("= "));
        if bar.is_hidden() {
            return Progress { done, thread: None };
        }
        let flag = Arc::clone(&done);
        let thread = std::thread::spawn(move || {
            let start = Instant::now();
            while !flag.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(200));
                update(&bar, stop, start.elapsed(), control.progress());
            }
            bar.finish_and_clear();
        });
        Progress { done, thread: Some(thread) }
    }

    pub fn finish(self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread {
            let _ = thread.join();
        }
    }
}

fn update(bar: &ProgressBar, stop: StopAt, elapsed: Duration, (finished, errors): (u64, u64)) {
    let goal = match stop {
        StopAt::Duration(d) => {
            bar.set_position(elapsed.as_millis() as u64);
            format!("{:.1}s/{:.0}s", elapsed.as_secs_f64(), d.as_secs_f64())
        }
        StopAt::Count(n) => {
            bar.set_position(finished);
            format!("{finished}/{n}")
        }
    };
    let rate = finished as f64 / elapsed.as_secs_f64().max(1e-9);
    bar.set_message(format!("{goal}  {rate:.0} req/s  {errors} errors"));
}
