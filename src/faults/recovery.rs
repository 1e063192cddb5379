//! When a server is back after a fault (spec/FAULTS.md, "Recovery"): the
//! seconds of the load beside the fault, each judged against the rate asked
//! and the baseline's p99 (the same server, the same load, no fault).

use crate::stats::Second;

/// The share of the rate a second must answer to be back.
pub const RATE_SHARE: f64 = 0.95;

/// The baseline's p99 a second is judged against: its worst second's after its first (the
/// first holds the load's connects, which no judged second does), in milliseconds; none when
/// no such second had an answer.
pub fn reference_ms(baseline: &[Second]) -> Option<f64> {
    let seconds = if baseline.len() > 1 { &baseline[1..] } else { baseline };
    seconds.iter().filter_map(|s| s.p99_us).max().map(|us| us as f64 / 1000.0)
}

/// The bound on a second's p99: twice the baseline's, and at least 1 ms above it (a
/// sub-millisecond p99 doubles from the scheduler alone on a shared machine).
pub fn p99_bound_ms(baseline_p99_ms: f64) -> f64 {
    (2.0 * baseline_p99_ms).max(baseline_p99_ms + 1.0)
}

/// Whether one second of the load is back: at least [`RATE_SHARE`] of `rate` answered, with
/// its p99 within `bound_ms`.
pub fn back(s: &Second, rate: f64, bound_ms: f64) -> bool {
    s.requests as f64 >= RATE_SHARE * rate && s.p99_us.is_some_and(|us| us as f64 / 1000.0 <= bound_ms)
}

/// From the fault (`fault_at_ms` into the load's timeline of `seconds` whole seconds) to the
/// start of the first second back among those from the one whose start is nearest the fault
/// (the first holding at least half a second after it: a fault that lands a few ms before a
/// second's end, as the load's clock and the fault's drift apart, leaves that second as it
/// was): 0 when that one is, `None` when none is (the server did not recover within the
/// trial). A second with no answer at all is not back. The first second back, not the last
/// that fell short: a second's p99 on a shared machine now and then strays past the bound on
/// its own, and one that did late in a trial would otherwise read as a recovery seconds after
/// the fault, or none.
pub fn recovery_ms(timeline: &[Second], seconds: usize, fault_at_ms: f64, rate: f64, bound_ms: f64) -> Option<f64> {
    let first = (fault_at_ms.max(0.0) / 1000.0).round() as usize;
    (first..seconds).find(|&k| timeline.get(k).is_some_and(|s| back(s, rate, bound_ms))).map(|k| (k as f64 * 1000.0 - fault_at_ms).max(0.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn second(requests: u64, p99_ms: f64) -> Second {
        Second { requests, errors: 0, p99_us: Some((p99_ms * 1000.0) as u64) }
    }

    #[test]
    fn the_baseline_is_its_worst_second_after_the_first() {
        let t = [second(200, 9.0), second(200, 1.2), second(200, 2.9), second(200, 0.8)];
        assert_eq!(reference_ms(&t), Some(2.9));
        assert_eq!(reference_ms(&t[..1]), Some(9.0), "one second is all there is");
        assert_eq!(reference_ms(&[]), None);
    }

    #[test]
    fn the_bound_is_twice_the_baseline_and_at_least_a_millisecond_above_it() {
        assert_eq!(p99_bound_ms(5.0), 10.0);
        assert_eq!(p99_bound_ms(0.3), 1.3);
    }

    #[test]
    fn recovery_is_from_the_fault_to_the_first_second_back() {
        let ok = second(200, 2.0);
        // Fault at 1.0 s; seconds 1 and 2 lost most requests, 3 and 4 are back.
        let t = [ok, second(40, 900.0), second(150, 3.0), ok, ok];
        assert_eq!(recovery_ms(&t, 5, 1000.0, 200.0, 4.0), Some(2000.0));
        // A second with every request answered but a p99 past the bound is not back.
        let t = [ok, second(200, 800.0), second(200, 6.0), ok, ok];
        assert_eq!(recovery_ms(&t, 5, 1000.0, 200.0, 4.0), Some(2000.0));
        // Nothing disturbed: 0.
        assert_eq!(recovery_ms(&[ok; 5], 5, 1000.0, 200.0, 4.0), Some(0.0));
        // A fault within a second: from the fault, not from its second's start.
        let t = [ok, second(10, 50.0), ok, ok, ok];
        assert_eq!(recovery_ms(&t, 5, 1300.0, 200.0, 4.0), Some(700.0));
        // A fault a hair before a second's end is judged from the next: the one before is all before it.
        let t = [ok, second(1, 0.3), second(0, 0.0), ok, ok];
        assert_eq!(recovery_ms(&t, 5, 999.75, 200.0, 4.0), Some(2000.25));
    }

    #[test]
    fn a_later_stray_second_does_not_count_and_a_server_silent_to_the_end_did_not_recover() {
        let ok = second(200, 2.0);
        // Back at 2; a second at 3 whose p99 strays past the bound does not undo it.
        let t = [ok, second(0, 0.0), ok, second(200, 15.0), ok];
        assert_eq!(recovery_ms(&t, 5, 1000.0, 200.0, 4.0), Some(1000.0));
        // No second back after the fault: no recovery.
        let t = [ok, second(0, 0.0), second(100, 2.0), second(180, 2.0), second(200, 9.0)];
        assert_eq!(recovery_ms(&t, 5, 1000.0, 200.0, 4.0), None);
        // No answer at all after second 1: the timeline ends early, and that is not back.
        let t = [ok];
        assert_eq!(recovery_ms(&t, 5, 1000.0, 200.0, 4.0), None);
    }
}
