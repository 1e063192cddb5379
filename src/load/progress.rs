//! A progress line on standard error, only when it is a terminal: elapsed
//! time or requests against the goal, and the errors so far.

use super::control::Control;
use super::plan::{LoadPlan, StopAt};
use std::io::{IsTerminal, Write};
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
        if !std::io::stderr().is_terminal() {
            return Progress { done, thread: None };
        }
        let stop = plan.stop;
        let flag = Arc::clone(&done);
        let thread = std::thread::spawn(move || {
            let start = Instant::now();
            while !flag.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(200));
                draw(stop, start.elapsed(), control.progress());
            }
            eprint!("\r\x1b[2K");
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

fn draw(stop: StopAt, elapsed: Duration, (finished, errors): (u64, u64)) {
    let (fraction, goal) = match stop {
        StopAt::Duration(d) => (elapsed.as_secs_f64() / d.as_secs_f64(), format!("{:.1}s/{:.0}s", elapsed.as_secs_f64(), d.as_secs_f64())),
        StopAt::Count(n) => (finished as f64 / n as f64, format!("{finished}/{n}")),
    };
    const WIDTH: usize = 30;
    let filled = ((fraction.clamp(0.0, 1.0)) * WIDTH as f64) as usize;
    let bar = format!("{}{}", "=".repeat(filled), " ".repeat(WIDTH - filled));
    let rate = finished as f64 / elapsed.as_secs_f64().max(1e-9);
    let mut err = std::io::stderr().lock();
    let _ = write!(err, "\r\x1b[2K[{bar}] {goal}  {rate:.0} req/s  {errors} errors");
    let _ = err.flush();
}
