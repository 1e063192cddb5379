//! SPEC §9, the fault routes: absent from the server every other check
//! runs against, and present in one started with `CONCUR_FAULTS=1`, where a
//! spin takes its time and a panic is not answered as a success. What the
//! panic does to the server (a 500, a dead connection, a dead process) is
//! measured by `concur run`, not judged here.

use super::{Check, Ctx, Verdict, expect_error, expect_ok, request};
use std::time::{Duration, Instant};

/// The check that runs on the server of every other check.
pub fn off() -> Check {
    Check { id: "fault-off", section: "§9", about: "without CONCUR_FAULTS=1, /fault/panic and /fault/spin are unknown paths (404)", run: routes_off }
}

/// The checks that run on a server of their own, started with `CONCUR_FAULTS=1`; the panic last.
pub fn on() -> Vec<Check> {
    vec![
        Check { id: "fault-spin", section: "§9", about: "with CONCUR_FAULTS=1, /fault/spin?ms=200 is 200 OK no sooner than 200 ms; a bad ms is 400", run: spin },
        Check { id: "fault-panic", section: "§9", about: "with CONCUR_FAULTS=1, /fault/panic is not a 200 (a 5xx or a closed connection)", run: panic },
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
    for bad in ["/fault/spin?ms=x", "/fault/spin?ms=", "/fault/spin?ms=10001", "/fault/spin"] {
        expect_error(&ctx.call("GET", bad, b"")?, 400, &format!("GET {bad} (ms must be an integer from 0 to 10000)"))?;
    }
    Ok(vec![])
}

fn panic(ctx: &Ctx) -> Verdict {
    // A closed connection, or no answer at all, is what a panic may cost: only a success is wrong.
    let answer = ctx.conn_with_timeout(Duration::from_secs(5)).and_then(|mut conn| {
        conn.send(&request("GET", "/fault/panic", &[], b"")).map_err(|e| e.to_string())?;
        ctx.read(&mut conn, "GET /fault/panic", false)
    });
    match answer {
        Ok(r) if (200..300).contains(&r.status) => {
            Err(format!("GET /fault/panic answered {}; raise the runtime's ordinary unhandled error in the handler (SPEC §9)", r.summary()))
        }
        Ok(r) if r.status == 404 => Err("GET /fault/panic is 404 with CONCUR_FAULTS=1; add the fault routes of SPEC §9".into()),
        _ => Ok(vec![]),
    }
}
