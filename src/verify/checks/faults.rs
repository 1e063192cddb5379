//! SPEC §9, the fault routes: absent from the server every other check
//! runs against, and present in one started with `CONCUR_FAULTS=1`, where a
//! spin takes its time and a panic is not answered as a success, after
//! which the server serves again or exits (for a supervisor to restart).
//! What the panic costs (a 500, a dead connection, a dead process, how long
//! until it serves again) is measured by `concur run`, not judged here.

use super::{Check, Ctx, Verdict, expect_error, expect_ok};
use crate::host::procstat::sample_group;
use std::time::{Duration, Instant};

/// The check that runs on the server of every other check.
pub fn off() -> Check {
    Check { id: "fault-off", section: "§9", about: "without CONCUR_FAULTS=1, /fault/panic and /fault/spin are unknown paths (404)", run: routes_off }
}

/// The checks that run on a server of their own, started with `CONCUR_FAULTS=1`; the panic last.
pub fn on() -> Vec<Check> {
    vec![
        Check { id: "fault-spin", section: "§9", about: "with CONCUR_FAULTS=1, /fault/spin?ms=200 is 200 OK no sooner than 200 ms; a bad ms is clamped, not an error", run: spin },
        Check { id: "fault-panic", section: "§9", about: "with CONCUR_FAULTS=1, /fault/panic is not a 200, and within 10 s the server answers / again or has exited (for a supervisor to restart)", run: panic },
    ]
}

/// How long the spin of `fault-spin` takes, in milliseconds.
const SPIN_MS: u64 = 200;

fn routes_off(ctx: &Ctx) -> Verdict {
    for target in ["/fault/panic", "/fault/spin?ms=1"] {
        let what = format!("GET {target} without CONCUR_FAULTS=1 (the fault routes exist only when it is 1, SPEC §9)");
        let r = ctx.call("GET", target, b"").map_err(|e| format!("{what}: {e}"))?;
        expect_error(&r, 404, &what)?;
    }
    Ok(vec![])
}

fn spin(ctx: &Ctx) -> Verdict {
    let target = format!("/fault/spin?ms={SPIN_MS}");
    let started = Instant::now();
    let r = ctx.call("GET", &target, b"")?;
    let took = started.elapsed();
    expect_ok(&r, &format!("GET {target}"))?;
    if took < Duration::from_millis(SPIN_MS) {
        return Err(format!("GET {target} answered after {} ms; compute for the whole {SPIN_MS} ms before answering (SPEC §9)", took.as_millis()));
    }
    for clamped in ["/fault/spin?ms=x", "/fault/spin?ms=-5", "/fault/spin"] {
        expect_ok(&ctx.call("GET", clamped, b"")?, &format!("GET {clamped} (a bad ms counts as 0, as a bad queries counts as 1: SPEC §9, §8.3)"))?;
    }
    Ok(vec![])
}

fn panic(ctx: &Ctx) -> Verdict {
    // A closed connection, or no answer at all, is what a panic may cost: only a success is wrong.
    match ctx.call_within("GET", "/fault/panic", &[], b"", Duration::from_secs(5)) {
        Ok(r) if (200..300).contains(&r.status) => {
            return Err(format!("GET /fault/panic answered {}; raise the runtime's ordinary unhandled error in the handler (SPEC §9)", r.summary()));
        }
        Ok(r) if r.status == 404 => return Err("GET /fault/panic is 404 with CONCUR_FAULTS=1; add the fault routes of SPEC §9".into()),
        _ => {}
    }
    // Then the server serves again, or has exited for a supervisor to start it again.
    let deadline = Instant::now() + RECOVERY;
    loop {
        match ctx.call_within("GET", "/", &[], b"", Duration::from_secs(2)) {
            Ok(r) if r.status == 200 => return Ok(vec![]),
            _ if exited(ctx) => return Ok(vec![]),
            _ if Instant::now() >= deadline => break,
            _ => std::thread::sleep(Duration::from_millis(100)),
        }
    }
    Err(format!(
        "{} s after GET /fault/panic the server still runs but does not answer GET /: the panic took what serves requests with it (a pool's last worker, a cluster's last worker) and nothing started another; the runtime's or framework's default should keep serving or end the process (SPEC §9)",
        RECOVERY.as_secs()
    ))
}

/// How long after a panic the server has to answer `GET /` again (or exit).
const RECOVERY: Duration = Duration::from_secs(10);

/// Whether the server under verification has no live process left (zombies awaiting their reaping
/// hold no memory). Without its process group (`--url`), a server is taken to run.
fn exited(ctx: &Ctx) -> bool {
    ctx.settings.pgid.is_some_and(|pgid| sample_group(pgid).rss_bytes == 0)
}
