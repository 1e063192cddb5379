//! Samples the server's whole process tree (every process of its group:
//! cluster workers, the BEAM's helpers) a few times a second while a point is
//! measured, on a thread pinned to the generator's CPUs. It starts when the
//! load says its measurement starts (after the warm-up), to the millisecond:
//! the load announces that moment a little ahead.

use crate::host::affinity;
use crate::host::procstat::{GroupSample, sample_group, sample_tree};
use crate::load::Control;
use crate::store::UsageSample;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How often a point's processes (the server's, the database's) are sampled.
pub const SAMPLE_EVERY: Duration = Duration::from_millis(250);

/// The processes a sampler watches.
#[derive(Debug, Clone, Copy)]
pub enum Target {
    /// Every process of a group: a server's.
    Group(i32),
    /// A process and its children: PostgreSQL's postmaster and backends.
    Tree(i32),
}

impl Target {
    fn sample(self) -> GroupSample {
        match self {
            Target::Group(pgid) => sample_group(pgid),
            Target::Tree(pid) => sample_tree(pid),
        }
    }
}

/// A running sampler; [`Sampler::finish`] stops it and returns its samples.
pub struct Sampler {
    stop: Arc<AtomicBool>,
    handle: JoinHandle<Vec<UsageSample>>,
}

impl Sampler {
    /// Samples `target` every `every` from the moment `load` says its
    /// measurement starts; CPU time counts from then.
    pub fn start(target: Target, every: Duration, cpus: Vec<usize>, load: Arc<Control>) -> Sampler {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let handle = std::thread::spawn(move || {
            let _ = affinity::pin(&cpus);
            let Some(started) = wait_for_start(&flag, &load) else {
                return Vec::new();
            };
            let base = target.sample().cpu_seconds;
            // CPU time only grows: a process caught between its exit and its
            // parent's wait is in neither sum, so a sample never goes below the last.
            let mut used = 0.0_f64;
            let mut take = || {
                let s = target.sample();
                used = used.max(s.cpu_seconds - base);
                UsageSample { t_ms: started.elapsed().as_millis() as u64, cpu_seconds: used, rss_bytes: s.rss_bytes, processes: s.processes }
            };
            let mut samples = vec![take()];
            while !flag.load(Ordering::Relaxed) {
                let next = every.saturating_sub(started.elapsed().saturating_sub(every * (samples.len() as u32 - 1)));
                sleep_unless(&flag, next);
                samples.push(take());
            }
            samples
        });
        Sampler { stop, handle }
    }

    /// Stops sampling, taking one last sample.
    pub fn finish(self) -> Vec<UsageSample> {
        self.stop.store(true, Ordering::Relaxed);
        self.handle.join().unwrap_or_default()
    }
}

/// Waits until the measurement starts (`None`: stopped before it did).
fn wait_for_start(flag: &AtomicBool, load: &Control) -> Option<Instant> {
    loop {
        if flag.load(Ordering::Relaxed) {
            return None;
        }
        if let Some(at) = load.measurement_start() {
            sleep_unless(flag, at.saturating_duration_since(Instant::now()));
            return (!flag.load(Ordering::Relaxed)).then(|| at.max(Instant::now()));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Sleeps `total` in short steps so that a stop is seen quickly.
fn sleep_unless(flag: &AtomicBool, total: Duration) {
    crate::host::interrupt::sleep_unless(total, Duration::from_millis(20), || flag.load(Ordering::Relaxed));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_our_own_group_until_finished() {
        // SAFETY: getpgrp has no preconditions.
        let pgid = unsafe { libc::getpgrp() };
        // On a loaded machine the sampler thread may get too few turns in
        // one 150 ms window (seen in CI: one sample), so a few windows are
        // allowed; what is checked is what the samples say.
        let mut samples = Vec::new();
        for _ in 0..10 {
            let load = Arc::new(Control::new());
            load.begin_measurement(Instant::now());
            let sampler = Sampler::start(Target::Group(pgid), Duration::from_millis(30), affinity::available(), load);
            let spin = Instant::now();
            while spin.elapsed() < Duration::from_millis(150) {
                std::hint::black_box(0u64);
            }
            samples = sampler.finish();
            if samples.len() >= 3 {
                break;
            }
        }
        assert!(samples.len() >= 3, "{samples:?}");
        assert!(samples.iter().all(|s| s.rss_bytes > 0 && s.processes >= 1));
        assert!(samples.last().unwrap().cpu_seconds > 0.0, "{samples:?}");
        assert!(samples.windows(2).all(|w| w[0].t_ms <= w[1].t_ms));
    }
}
