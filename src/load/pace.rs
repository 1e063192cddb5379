//! The strategies of the one worker loop: when a virtual user sends its next
//! request (`Pace`: closed loop, open loop; in the closed loop, users started
//! one after another at a spawn rate) and how many requests may still be sent
//! (`Budget`: a count, or none until the deadline). The loop asks these; it is
//! never copied per mode.

/// When a virtual user sends its next request, and where its latency starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pace {
    /// Send as soon as the previous response arrived; after `think_ns` when an
    /// iteration of the scenario ended. Latency starts when the request is sent.
    /// User `u` sends its first request `u * spawn_ns` after the start (Locust's
    /// spawn rate), so that thousands of clients do not arrive as one burst of
    /// connects that overflows the server's accept queue; 0: all at once.
    Closed { think_ns: u64, spawn_ns: u64 },
    /// Every connection sends on a fixed schedule, one request per `interval_ns`,
    /// the connections' phases spread evenly. Latency starts at the intended send
    /// time, so a stall delays the whole schedule behind it (no coordinated omission).
    /// A send may leave up to one batch window early (`early_ns`), so that one wake-up
    /// sends every request due in that window; its latency then starts when it was sent.
    Open { interval_ns: u64, spacing_ns: u64 },
}

/// The open loop's batch window: the worker wakes about once per window, reads every
/// response that came meanwhile (its latency ends at the kernel's arrival stamp, not when it
/// is read) and sends every request due before the window ends. At 20,000 requests/s this
/// turned ~13,000 wake-ups a second (a sleep, a timer and a server wake-up each) into ~850
/// and the generator's CPU from 57-67% of a core to 26-37% (perf stat, bench/RESULTS.md,
/// 2026-11-23 22:24; 200 µs and 500 µs windows saved less, 2 ms fell behind the rate).
/// Requests leave early, never late because of the window, and an early one's latency
/// starts when it was sent, so no latency includes the batching; the schedule, hence the
/// rate, is unchanged. What the server sees is burstier: a window's requests arrive together.
pub const BATCH_NS: u64 = 1_000_000;

impl Pace {
    /// Open loop at `rate` requests/s over `connections`, or closed loop with
    /// users started at `spawn_rate` users/s (none: all at once).
    pub fn new(rate: Option<f64>, connections: usize, think_ns: u64, spawn_rate: Option<f64>) -> Pace {
        match rate {
            Some(rate) => Pace::Open {
                interval_ns: ((connections as f64 * 1e9 / rate) as u64).max(1),
                spacing_ns: (1e9 / rate) as u64,
            },
            None => Pace::Closed { think_ns, spawn_ns: spawn_rate.map_or(0, |r| (1e9 / r) as u64) },
        }
    }

    /// The first intended send of virtual user `user` (0-based over all workers).
    pub fn first(&self, start_ns: u64, user: u64) -> u64 {
        match *self {
            Pace::Closed { spawn_ns, .. } => start_ns + user * spawn_ns,
            Pace::Open { spacing_ns, .. } => start_ns + user * spacing_ns,
        }
    }

    /// The intended time of a user's next request, the previous one having ended at `now`;
    /// `schedule` is the user's open-loop schedule position, advanced here (closed loop:
    /// the user's start, which holds back its first request only).
    #[inline]
    pub fn next(&self, schedule: &mut u64, now: u64, iteration_ended: bool) -> u64 {
        match *self {
            Pace::Closed { think_ns, .. } if iteration_ended => (now + think_ns).max(*schedule),
            Pace::Closed { .. } => now.max(*schedule),
            Pace::Open { interval_ns, .. } => {
                let intended = *schedule;
                *schedule += interval_ns;
                intended
            }
        }
    }

    /// The batch window (how long before its time a waiting user may be sent): `BATCH_NS`
    /// in the open loop, at most half a user's interval so that a response read at the end
    /// of a window still leaves time to send the user's next request on schedule; none in
    /// the closed loop, whose think times and backoffs are kept exactly.
    #[inline]
    pub fn early_ns(&self) -> u64 {
        match *self {
            Pace::Closed { .. } => 0,
            Pace::Open { interval_ns, .. } => BATCH_NS.min(interval_ns / 2),
        }
    }

    /// Where the latency of a request intended at `intended` and sent at `now` starts:
    /// open loop, the intended time when it left late (a stall delays everything behind
    /// it), the send itself when a batch sent it early.
    #[inline]
    pub fn origin(&self, intended: u64, now: u64) -> u64 {
        match self {
            Pace::Closed { .. } => now,
            Pace::Open { .. } => intended.min(now),
        }
    }

    /// Open loop: the intended times of the sends still owed at `end` by a user
    /// whose next unsent request was intended at `unsent`; none in a closed loop.
    pub fn owed_times(&self, unsent: u64, end: u64) -> impl Iterator<Item = u64> {
        let (count, interval_ns) = match *self {
            Pace::Open { interval_ns, .. } if unsent < end => ((end - unsent) / interval_ns + 1, interval_ns),
            _ => (0, 1),
        };
        (0..count).map(move |k| unsent + k * interval_ns)
    }
}

/// How many requests the worker may still send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Budget {
    /// Until the deadline.
    Unlimited,
    /// Exactly this many more.
    Count(u64),
}

impl Budget {
    #[inline]
    pub fn available(&self) -> bool {
        !matches!(self, Budget::Count(0))
    }

    /// Takes one request from the budget; false when none is left.
    #[inline]
    pub fn take(&mut self) -> bool {
        match self {
            Budget::Unlimited => true,
            Budget::Count(0) => false,
            Budget::Count(n) => {
                *n -= 1;
                true
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_loop_spreads_users_and_keeps_each_schedule() {
        let pace = Pace::new(Some(1000.0), 10, 0, None);
        assert_eq!(pace, Pace::Open { interval_ns: 10_000_000, spacing_ns: 1_000_000 });
        assert_eq!(pace.first(5, 3), 3_000_005);
        let mut schedule = 100;
        assert_eq!(pace.next(&mut schedule, 999_999_999, false), 100);
        assert_eq!(schedule, 10_000_100);
        assert_eq!(pace.origin(100, 5_000), 100);
        assert_eq!(pace.owed_times(0, 25_000_000).collect::<Vec<_>>(), [0, 10_000_000, 20_000_000]);
        assert_eq!(Pace::new(None, 10, 0, None).owed_times(0, 25_000_000).count(), 0);
    }

    #[test]
    fn open_loop_latency_starts_at_the_earlier_of_intended_and_sent() {
        let pace = Pace::new(Some(20_000.0), 50, 0, None);
        // Sent late (a stall, or behind others in a batch): the intended time, so the wait counts.
        assert_eq!(pace.origin(100, 5_000), 100);
        // Sent early by a batch: the send itself, so the batching never shortens a latency.
        assert_eq!(pace.origin(5_000, 100), 100);
        assert_eq!(pace.early_ns(), BATCH_NS);
        // The window never exceeds half a user's interval (here 50 µs).
        assert_eq!(Pace::new(Some(1_000_000.0), 50, 0, None).early_ns(), 25_000);
        assert_eq!(Pace::new(None, 50, 0, None).early_ns(), 0);
    }

    #[test]
    fn closed_loop_thinks_only_between_iterations() {
        let pace = Pace::new(None, 10, 1_000, None);
        let mut schedule = 0;
        assert_eq!(pace.next(&mut schedule, 50, false), 50);
        assert_eq!(pace.next(&mut schedule, 50, true), 1_050);
        assert_eq!(pace.origin(1_050, 1_070), 1_070);
    }

    #[test]
    fn a_spawn_rate_staggers_the_first_requests_only() {
        let pace = Pace::new(None, 1000, 0, Some(5000.0));
        assert_eq!(pace, Pace::Closed { think_ns: 0, spawn_ns: 200_000 });
        let mut schedule = pace.first(1_000, 7);
        assert_eq!(schedule, 1_401_000, "user 7 starts 7 × 200 µs after the start");
        assert_eq!(pace.next(&mut schedule, 1_000, false), 1_401_000, "its first request waits for its start");
        assert_eq!(pace.next(&mut schedule, 9_000_000, false), 9_000_000, "later ones go as soon as the previous one ended");
        assert_eq!(pace.origin(1_401_000, 1_402_000), 1_402_000, "latency starts at the send, not at the spawn time");
        assert_eq!(Pace::new(None, 10, 0, None).first(5, 9), 5, "no spawn rate: every user at once");
    }

    #[test]
    fn count_budget_runs_out() {
        let mut b = Budget::Count(2);
        assert!(b.take() && b.take());
        assert!(!b.available() && !b.take());
        assert!(Budget::Unlimited.take());
    }
}
