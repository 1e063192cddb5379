//! The prober of a fault trial: `GET /` on a fresh connection every few
//! milliseconds, on a schedule that a slow answer does not hold back, each
//! answer or failure kept with the moment it was sent, so that when a server stopped serving and when it
//! served again is known to the probe's period, not to a second.

use crate::server::answers_root;
use std::net::SocketAddr;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// One probe: when it was sent (from the trial's start) and what came of it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Probe {
    pub sent: Duration,
    /// The time to a 200; `None`: refused, reset, closed, timed out or another status.
    pub answered: Option<Duration>,
}

/// Probes `addr` from `origin` until `stop` is set: a probe every `period`, each on a thread of its
/// own so that one left waiting (up to `timeout`) does not hold back the next.
pub fn run(addr: SocketAddr, origin: Instant, period: Duration, timeout: Duration, stop: &AtomicBool) -> Vec<Probe> {
    let probes = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        let mut next = Instant::now();
        while !stop.load(Ordering::Relaxed) {
            let probes = &probes;
            let spawned = std::thread::Builder::new().stack_size(64 * 1024).spawn_scoped(s, move || {
                let sent = Instant::now();
                let answered = answers_root(addr, timeout, timeout).then(|| sent.elapsed());
                probes.lock().unwrap_or_else(|e| e.into_inner()).push(Probe { sent: sent.duration_since(origin), answered });
            });
            if spawned.is_err() {
                break; // out of threads: the probes so far stand
            }
            next += period;
            std::thread::sleep(next.saturating_duration_since(Instant::now()));
        }
    });
    let mut probes = probes.into_inner().unwrap_or_else(|e| e.into_inner());
    probes.sort_by_key(|p| p.sent);
    probes
}

/// What the probes after `from` say about serving: the outage (from the first failed probe to the
/// first answered one after the last failure), `None` when the last probe failed (not back), and
/// `Some(ZERO)` when none failed; and the longest answer among them (a stall).
pub fn outage_after(probes: &[Probe], from: Duration) -> (Option<Duration>, Duration) {
    let after: Vec<&Probe> = probes.iter().filter(|p| p.sent >= from).collect();
    let longest = after.iter().filter_map(|p| p.answered).max().unwrap_or_default();
    let Some(first_failed) = after.iter().position(|p| p.answered.is_none()) else { return (Some(Duration::ZERO), longest) };
    let last_failed = after.iter().rposition(|p| p.answered.is_none()).unwrap_or(first_failed);
    let back = after.get(last_failed + 1).map(|p| p.sent.saturating_sub(after[first_failed].sent));
    (back, longest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe(ms: u64, answered_ms: Option<u64>) -> Probe {
        Probe { sent: Duration::from_millis(ms), answered: answered_ms.map(Duration::from_millis) }
    }

    #[test]
    fn an_outage_runs_from_the_first_failure_to_the_first_answer_after_the_last() {
        let probes = [probe(0, Some(1)), probe(10, Some(1)), probe(20, None), probe(30, Some(2)), probe(40, None), probe(50, Some(3)), probe(60, Some(1))];
        assert_eq!(outage_after(&probes, Duration::from_millis(5)), (Some(Duration::from_millis(30)), Duration::from_millis(3)));
    }

    #[test]
    fn no_failure_is_no_outage_and_a_failure_at_the_end_is_no_recovery() {
        let served = [probe(0, Some(1)), probe(10, Some(900))];
        assert_eq!(outage_after(&served, Duration::ZERO), (Some(Duration::ZERO), Duration::from_millis(900)));
        let gone = [probe(0, Some(1)), probe(10, None), probe(20, None)];
        assert_eq!(outage_after(&gone, Duration::ZERO).0, None);
    }

    #[test]
    fn probes_before_the_fault_do_not_count() {
        let probes = [probe(0, None), probe(10, Some(1)), probe(20, Some(1))];
        assert_eq!(outage_after(&probes, Duration::from_millis(10)).0, Some(Duration::ZERO));
    }
}
