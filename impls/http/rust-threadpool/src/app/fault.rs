//! The fault routes of SPEC §9, on only with `CONCUR_FAULTS=1`. Nothing here
//! handles the fault: the panic unwinds out of the handler like any bug's, and
//! the spin holds the connection's pool thread for as long as it computes.

use crate::http::Response;
use std::time::{Duration, Instant};

const MAX_SPIN_MS: u64 = 10_000;

pub fn panic() -> ! {
    panic!("/fault/panic: a bug in a handler (SPEC §9)");
}

/// Computes for `ms` milliseconds of wall-clock time on this thread, reading
/// the monotonic clock until they have passed, then answers `OK`.
pub fn spin(query: Option<&str>) -> Response {
    let spin = Duration::from_millis(spin_ms(query));
    let started = Instant::now();
    while started.elapsed() < spin {}
    Response::text(200, "OK")
}

/// The `ms` parameter of the query string, clamped to 0..=10000; a value that
/// is missing or not an integer counts as 0 (SPEC §9, read as `queries` is).
fn spin_ms(query: Option<&str>) -> u64 {
    let value = query.unwrap_or("").split('&').find_map(|pair| pair.strip_prefix("ms="));
    match value.and_then(|v| v.parse::<i64>().ok()) {
        Some(n) if n > MAX_SPIN_MS as i64 => MAX_SPIN_MS,
        Some(n) if n >= 0 => n as u64,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::spin_ms;

    #[test]
    fn ms_is_clamped_to_0_through_10000_and_a_bad_value_is_0() {
        for (query, want) in [(None, 0), (Some(""), 0), (Some("ms="), 0), (Some("ms=x"), 0), (Some("ms=-5"), 0), (Some("ms=1.5"), 0)] {
            assert_eq!(spin_ms(query), want, "{query:?}");
        }
        for (query, want) in [("ms=200", 200), ("x=1&ms=10000", 10_000), ("ms=10001", 10_000)] {
            assert_eq!(spin_ms(Some(query)), want, "{query:?}");
        }
    }
}
