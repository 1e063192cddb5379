//! Signalling whole process groups. Every program concur starts leads a
//! group of its own, so that stopping it also stops what it started
//! (cluster workers, the BEAM's helpers, a million micro processes).

use std::time::{Duration, Instant};

/// SIGKILL to every process of the group.
pub fn kill(pgid: i32) {
    // SAFETY: signalling a group a child of ours leads.
    unsafe { libc::kill(-pgid, libc::SIGKILL) };
}

/// SIGTERM to the group, then SIGKILL to whatever is left after `grace`.
pub fn stop(pgid: i32, grace: Duration) {
    stop_all(&[pgid], grace);
}

/// SIGTERM to every group, then SIGKILL to the groups left after `grace`.
pub fn stop_all(pgids: &[i32], grace: Duration) {
    for &pgid in pgids {
        // SAFETY: signalling groups our children lead.
        unsafe { libc::kill(-pgid, libc::SIGTERM) };
    }
    let deadline = Instant::now() + grace;
    while pgids.iter().any(|&g| alive(g)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    for &pgid in pgids.iter().filter(|&&g| alive(g)) {
        kill(pgid);
    }
}

/// Whether any process of the group is left. The exited leader is reaped
/// first, without blocking, so that a dead group does not live on as a
/// zombie; only the leader, as other children belong to other groups.
fn alive(pgid: i32) -> bool {
    // SAFETY: non-blocking waitpid on our own child; signal 0 only checks existence.
    unsafe {
        libc::waitpid(pgid, std::ptr::null_mut(), libc::WNOHANG);
        libc::kill(-pgid, 0) == 0
    }
}
