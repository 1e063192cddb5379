//! Warming a server up on the measurement's own connections, until its
//! throughput is steady.
//!
//! A JIT-compiled server (the JVM entries) serves a fifth of its warm rate in
//! its first seconds and climbs for 5 to 25 s (bench/RESULTS.md, "warm-up");
//! a fixed warm-up is either too short for it or wasted on a server that is
//! warm from its first request. And a warm-up on connections of its own,
//! closed before the measurement opens new ones, costs the measurement's
//! first second 30-60% even after a long warm-up. So the warm-up is the
//! first part of the same load: the same connections, the same open-loop
//! schedule, nothing recorded. It ends at a whole second of the run once
//! the last [`WINDOWS`] seconds' completions are each within [`TOLERANCE`]
//! of their median, and not before the minimum; at the maximum it ends
//! anyway, marked not steady. A warm-up whose least and most are equal is
//! fixed: it ends exactly then, fractions of a second too, with nothing to
//! judge (a block's window on a server already warm needs only its new
//! connections opened). A load whose every answer waits on a timer (a long
//! poll: its seconds go 0, 0, 0, 0, 2000) is never steady second by second;
//! its warm-up has a [`Period`] instead, and is steady once the last wait and
//! a second hold at least all but [`TOLERANCE`] of the answers a wait brings
//! (every client answered once), so that a server still compiling on its one
//! core (scala-pekko-http answered 86-210 long polls a second for its first
//! 15 s, then 2,000 per wait) is not measured before it keeps up. The measurement then runs for its duration (or its
//! count) from there; an answer belongs to the measurement when it arrives
//! within it, whenever its request was sent (its latency still counts from
//! its own send), so that every answer of the window counts once and the
//! totals agree with the timeline.

use super::control::Control;
use serde::{Deserialize, Serialize};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Seconds whose completions must agree for throughput to count as steady.
pub const WINDOWS: usize = 3;
/// How far each of those seconds may be from their median, as a fraction.
pub const TOLERANCE: f64 = 0.10;
/// How long after a second ends it is judged: the workers publish their
/// counts at least every 100 ms.
const LAG: Duration = Duration::from_millis(250);
const SECOND: u64 = 1_000_000_000;

/// The bounds of a warm-up, in whole seconds (rounded up).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Warmup {
    pub min: Duration,
    pub max: Duration,
    /// Set when every answer waits on a timer: steadiness is judged per wait.
    pub period: Option<Period>,
}

/// The rhythm of a load whose every answer waits on a timer: the wait, in whole seconds
/// (rounded up), and the answers one wait brings when every client is answered once.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Period {
    pub seconds: u64,
    pub answers: u64,
}

/// Whether the last wait and a second of `per_second` hold every answer `period` brings, but
/// for [`TOLERANCE`]: a window one second longer than the wait holds one or two of each
/// client's answers, never none.
pub fn answered(per_second: &[u64], period: Period) -> bool {
    let window = period.seconds as usize + 1;
    per_second.len() >= window && per_second[per_second.len() - window..].iter().sum::<u64>() as f64 >= (1.0 - TOLERANCE) * period.answers as f64
}

impl Warmup {
    /// Its least is its most: it ends then, with nothing judged.
    pub fn fixed(&self) -> bool {
        self.min >= self.max
    }

    fn bounds(&self) -> (u64, u64) {
        let min = self.min.as_secs_f64().ceil().max(1.0) as u64;
        (min, (self.max.as_secs_f64().ceil() as u64).max(min))
    }
}

/// What the warm-up did, in the load report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WarmupReport {
    /// Seconds of load before the measurement began.
    pub seconds: f64,
    /// Throughput was steady when it ended; false: it ended at its maximum.
    pub steady: bool,
    /// Completions with the expected status in each second of the warm-up.
    pub per_second: Vec<u64>,
}

/// Whether the last [`WINDOWS`] seconds of `per_second` are steady: each
/// within [`TOLERANCE`] of their median, which is above zero.
pub fn steady(per_second: &[u64]) -> bool {
    if per_second.len() < WINDOWS {
        return false;
    }
    let mut last = per_second[per_second.len() - WINDOWS..].to_vec();
    last.sort_unstable();
    let median = last[WINDOWS / 2] as f64;
    median > 0.0 && last.iter().all(|&n| (n as f64 - median).abs() <= TOLERANCE * median)
}

/// The phase of a run, shared by its workers and the warm-up's judge. With
/// no warm-up the measurement starts with the run and its deadline is known.
pub struct Phase {
    /// Where the measurement starts (ns on the run's clock); `u64::MAX` while warming.
    measure_from: AtomicU64,
    /// When the run ends; `u64::MAX`: no deadline (yet).
    deadline: AtomicU64,
    /// Completions per second of the run so far, summed over the workers while warming.
    seconds: Mutex<Vec<u64>>,
    steady: std::sync::atomic::AtomicBool,
    /// Where the timeline's seconds are counted from: the run's start, or for a fixed warm-up
    /// a moment before it such that the measurement starts on a whole second.
    clock_ns: u64,
    /// A run by count (`-n`): its measurement is the requests sent after the warm-up.
    by_count: bool,
}

impl Phase {
    pub fn new(start_ns: u64, warmup: Option<Warmup>, duration: Option<Duration>) -> Phase {
        let ends = |from: u64| duration.map_or(u64::MAX, |d| from + d.as_nanos() as u64);
        let (from, deadline, clock_ns) = match warmup {
            None => (start_ns, ends(start_ns), start_ns),
            Some(w) if w.fixed() => {
                let from = start_ns + w.min.as_nanos() as u64;
                (from, ends(from), from - w.min.as_secs_f64().ceil() as u64 * SECOND)
            }
            Some(_) => (u64::MAX, u64::MAX, start_ns),
        };
        Phase {
            measure_from: AtomicU64::new(from),
            deadline: AtomicU64::new(deadline),
            seconds: Mutex::new(Vec::new()),
            steady: std::sync::atomic::AtomicBool::new(false),
            clock_ns,
            by_count: duration.is_none(),
        }
    }

    /// Where the timeline's second 0 starts.
    #[inline]
    pub fn clock_ns(&self) -> u64 {
        self.clock_ns
    }

    #[inline]
    pub fn measure_from(&self) -> u64 {
        self.measure_from.load(Ordering::Relaxed)
    }

    /// Whether a send at `origin` is past the warm-up: it takes from a count's budget.
    #[inline]
    pub fn measures(&self, origin: u64) -> bool {
        origin >= self.measure_from()
    }

    /// Whether an answer (or a failure) at `now` to a request sent at `origin` belongs to the
    /// measurement: in a run by duration, when it arrives after the warm-up, whenever it was
    /// sent (the worker stops reading at the deadline); in a run by count, when it is one of
    /// the requests sent after the warm-up.
    #[inline]
    pub fn counts(&self, origin: u64, now: u64) -> bool {
        if self.by_count { origin >= self.measure_from() } else { now >= self.measure_from() }
    }

    #[inline]
    pub fn warming(&self) -> bool {
        self.measure_from() == u64::MAX
    }

    #[inline]
    pub fn deadline(&self) -> Option<u64> {
        Some(self.deadline.load(Ordering::Relaxed)).filter(|&d| d != u64::MAX)
    }

    /// A worker's completions of seconds `first..`, while warming.
    pub fn publish(&self, first: usize, counts: &[u64]) {
        let mut seconds = self.seconds.lock().unwrap_or_else(|e| e.into_inner());
        if seconds.len() < first + counts.len() {
            seconds.resize(first + counts.len(), 0);
        }
        for (k, n) in counts.iter().enumerate() {
            seconds[first + k] += n;
        }
    }

    fn begin(&self, at: u64, duration: Option<Duration>, steady: bool) {
        self.steady.store(steady, Ordering::Relaxed);
        if let Some(d) = duration {
            self.deadline.store(at + d.as_nanos() as u64, Ordering::Relaxed);
        }
        self.measure_from.store(at, Ordering::Relaxed);
    }

    /// The warm-up's report from the run's timeline (completions per second
    /// from the clock's start); `None` when the run had none. Its `per_second`
    /// has one entry per second of the timeline that belongs to the warm-up.
    pub fn report(&self, start_ns: u64, timeline: &[crate::stats::Second]) -> Option<WarmupReport> {
        let from = self.measure_from();
        if from == start_ns {
            return None;
        }
        let (seconds, whole) = if from == u64::MAX {
            (timeline.len() as f64, timeline.len())
        } else {
            ((from - start_ns) as f64 / SECOND as f64, ((from - self.clock_ns) / SECOND) as usize)
        };
        Some(WarmupReport {
            seconds,
            steady: self.steady.load(Ordering::Relaxed),
            per_second: (0..whole).map(|k| timeline.get(k).map_or(0, |s| s.requests)).collect(),
        })
    }
}

/// Judges each second of the warm-up as it ends and starts the measurement
/// at the next whole second once throughput is steady (or at the maximum).
/// Returns when it has, or when the run is stopped.
pub fn judge(phase: &Phase, warmup: Warmup, start_ns: u64, duration: Option<Duration>, control: &Control) {
    let (min, max) = warmup.bounds();
    let mut judged = 0u64;
    loop {
        let due = start_ns + (judged + 1) * SECOND + LAG.as_nanos() as u64;
        loop {
            if control.stopped() {
                return;
            }
            let now = super::sys::now_ns();
            if now >= due {
                break;
            }
            std::thread::sleep(Duration::from_nanos((due - now).min(50_000_000)));
        }
        judged += 1;
        let seconds: Vec<u64> = {
            let seen = phase.seconds.lock().unwrap_or_else(|e| e.into_inner());
            (0..judged as usize).map(|k| seen.get(k).copied().unwrap_or(0)).collect()
        };
        if let Some((next, is_steady)) = ends_after(&seconds, min, max, warmup.period) {
            let at = start_ns + next * SECOND;
            control.begin_measurement(std::time::Instant::now() + Duration::from_nanos(at.saturating_sub(super::sys::now_ns())));
            phase.begin(at, duration, is_steady);
            return;
        }
    }
}

/// The rule, given the completions of the seconds that have ended: the
/// warm-up ends when they are steady and the minimum is reached, or at the
/// maximum. Returns the whole second the measurement starts at (the next,
/// which has not begun) and whether throughput was steady; `None`: go on.
fn ends_after(seconds: &[u64], min: u64, max: u64, period: Option<Period>) -> Option<(u64, bool)> {
    let next = seconds.len() as u64 + 1;
    let is_steady = next >= min && period.map_or_else(|| steady(seconds), |p| answered(seconds, p));
    (is_steady || next >= max).then_some((next, is_steady))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// When `judge` would end a warm-up over these per-second counts: the
    /// second the measurement starts at, and whether it was steady.
    fn ends(per_second: &[u64], min: u64, max: u64) -> (u64, bool) {
        (1..=per_second.len()).find_map(|judged| ends_after(&per_second[..judged], min, max, None)).expect("the curve is shorter than the warm-up")
    }

    #[test]
    fn a_timed_load_is_steady_once_a_wait_holds_every_clients_answer() {
        let p = Some(Period { seconds: 5, answers: 2000 });
        let at = |curve: &[u64]| (1..=curve.len()).find_map(|k| ends_after(&curve[..k], 5, 30, p)).expect("ends");
        // In step from the start: the first wait's 2,000 answers come in second 5.
        assert_eq!(at(&[0, 0, 0, 0, 0, 2000, 0, 0, 0, 0, 2000]), (7, true));
        // scala-pekko-http at one core, fresh: 86-211 a second, then in its rhythm.
        let pekko = [0, 0, 0, 0, 0, 86, 132, 142, 168, 210, 110, 133, 141, 169, 211, 198, 367, 595, 624, 208, 204, 360, 590, 637];
        assert_eq!(at(&pekko), (20, true), "not before the wait that answered them all");
        // Never all answered: it ends at its maximum, not steady.
        let short = vec![250u64; 40];
        assert_eq!(at(&short), (30, false));
        assert!(!answered(&[2000], Period { seconds: 5, answers: 2000 }), "less than a wait seen");
    }

    #[test]
    fn a_flat_server_is_steady_after_three_seconds() {
        assert_eq!(ends(&[24_000, 25_100, 24_600, 24_800], 1, 30), (4, true));
        assert!(steady(&[5, 24_000, 25_100, 24_600]));
    }

    /// The curve's level where the warm-up ended, as a fraction of its plateau.
    fn level_at(curve: &[u64], at: u64, plateau: f64) -> f64 {
        let mut last = curve[at as usize - 1 - WINDOWS..at as usize - 1].to_vec();
        last.sort_unstable();
        last[WINDOWS / 2] as f64 / plateau
    }

    #[test]
    fn a_climbing_jit_is_warmed_until_its_plateau() {
        // The first seconds of two JVM servers without warm-up (bench/RESULTS.md, 16:45 UTC):
        // java-jetty climbs for about 18 s to about 29,000/s, kotlin-ktor for about 20 s to about 40,000/s.
        let jetty = [
            1811, 2732, 4169, 7795, 11238, 9373, 9350, 12016, 16605, 16038, 18690, 22854, 21871, 27690, 24019, 25708, 26852, 33136, 28759,
            29225, 27357, 26964, 32480,
        ];
        let ktor = [
            558, 1568, 4457, 5515, 6070, 6745, 7316, 8178, 10241, 12228, 15569, 18945, 22482, 34431, 34090, 36062, 36782, 37121, 44652, 41526,
            35592, 34156,
        ];
        for (curve, plateau) in [(&jetty[..], 29_000.0), (&ktor[..], 40_000.0)] {
            let (at, steady) = ends(curve, 1, 30);
            assert!(steady && at >= 15, "ended at {at}");
            assert!(level_at(curve, at, plateau) >= 0.85, "ended at {at}, at {:.2} of the plateau", level_at(curve, at, plateau));
        }
    }

    #[test]
    fn the_maximum_ends_a_warm_up_that_never_settles() {
        assert_eq!(ends(&[100, 200, 400, 800, 1600, 3200, 6400, 12_800], 1, 5), (5, false));
    }

    #[test]
    fn the_minimum_holds_even_when_steady() {
        assert_eq!(ends(&[1000; 12], 10, 30), (10, true));
    }

    #[test]
    fn a_silent_server_is_not_steady() {
        assert!(!steady(&[0, 0, 0]));
        assert!(!steady(&[1000, 1000]));
    }

    #[test]
    fn the_phase_starts_measuring_at_once_without_a_warm_up() {
        let p = Phase::new(7, None, Some(Duration::from_secs(2)));
        assert!(!p.warming() && p.measure_from() == 7 && p.deadline() == Some(2_000_000_007));
        assert_eq!(p.report(7, &[]), None);
        let judged = Warmup { min: Duration::from_secs(1), max: Duration::from_secs(5), period: None };
        let w = Phase::new(7, Some(judged), Some(Duration::from_secs(2)));
        assert!(w.warming() && w.deadline().is_none());
        w.begin(7 + 4 * SECOND, Some(Duration::from_secs(2)), true);
        assert_eq!(w.deadline(), Some(7 + 6 * SECOND));
        let timeline: Vec<crate::stats::Second> = (0..6).map(|k| crate::stats::Second { requests: k * 10, errors: 0, p99_us: None }).collect();
        assert_eq!(w.report(7, &timeline), Some(WarmupReport { seconds: 4.0, steady: true, per_second: vec![0, 10, 20, 30] }));
    }

    #[test]
    fn a_fixed_warm_up_ends_at_its_length_on_a_whole_second_of_the_timeline() {
        let start = 10 * SECOND;
        let fixed = Warmup { min: Duration::from_millis(250), max: Duration::from_millis(250), period: None };
        let p = Phase::new(start, Some(fixed), Some(Duration::from_secs(1)));
        assert!(!p.warming(), "nothing to judge");
        assert_eq!((p.measure_from(), p.deadline()), (start + 250_000_000, Some(start + 1_250_000_000)));
        assert_eq!(p.clock_ns(), start + 250_000_000 - SECOND, "the measurement starts at second 1 of the timeline");
        let timeline: Vec<crate::stats::Second> = (0..2).map(|k| crate::stats::Second { requests: 5 + k, errors: 0, p99_us: None }).collect();
        assert_eq!(p.report(start, &timeline), Some(WarmupReport { seconds: 0.25, steady: false, per_second: vec![5] }));
        assert!(!p.counts(start, start + 249_000_000) && p.counts(start, start + 250_000_000), "an answer counts by when it arrives");
        let by_count = Phase::new(start, Some(fixed), None);
        assert!(!by_count.counts(start, start + 300_000_000) && by_count.counts(start + 250_000_000, start + 300_000_000), "-n counts the requests sent after it");
    }
}
