//! The servers waiting warm beside the one being measured (blocks, and a
//! scenario that follows another: spec/PROFILES.md "Blocks"). They are
//! pinned to the measured server's CPUs, so a neighbour still busy after its
//! own window (a JIT's compiler threads, a collector, a scheduler spinning
//! before it sleeps) takes CPU time from the next window. Before a point
//! the sweep waits for them to fall quiet, and after it says how much of a
//! core they took while it ran, so that no window is quietly measured on a
//! shared CPU.

use crate::host::procstat::wait_quiet;
use std::time::Duration;

/// Quiet: the neighbours together use less than this share of one core…
const QUIET_SHARE: f64 = 0.05;
/// …over this long.
const QUIET: Duration = Duration::from_millis(100);
/// The longest wait for them.
const QUIET_MAX: Duration = Duration::from_secs(2);
/// A point whose neighbours took more than this share of a core while it ran gets a warning.
pub const WARN_SHARE: f64 = 0.05;

/// Waits until the neighbours `pgids` are quiet, at most [`QUIET_MAX`]; returns how long it waited.
pub fn wait_quiet_beside(pgids: &[i32]) -> Duration {
    wait_quiet(pgids, QUIET, QUIET_SHARE, QUIET_MAX)
}

/// The warning for a point during which its neighbours used `cpu_s` CPU seconds in `elapsed`.
pub fn warning(cpu_s: f64, elapsed: Duration, count: usize) -> Option<String> {
    let share = cpu_s / elapsed.as_secs_f64().max(1e-3);
    (share > WARN_SHARE).then(|| {
        format!("the {count} server(s) waiting beside it on its CPUs used {:.0}% of a core while it was measured: its window shared the CPU", share * 100.0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_busy_neighbour_is_named_and_an_idle_one_is_not() {
        assert_eq!(warning(0.01, Duration::from_secs(2), 3), None);
        let w = warning(0.5, Duration::from_secs(2), 3).unwrap();
        assert!(w.contains("3 server(s)") && w.contains("25% of a core"), "{w}");
        assert_eq!(wait_quiet_beside(&[]), Duration::ZERO);
    }
}
