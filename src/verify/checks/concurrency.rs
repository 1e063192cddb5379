//! SPEC §2 and §5 under concurrency: the `/page` delay that must not block
//! others, long polls that must not be serialized nor burn a CPU, and a store
//! that loses no write and shows each write on every connection, in every
//! process of a multi-process implementation.

use super::routes::check_value;
use super::{Check, Ctx, Response, Verdict, expect_ok, first_errors, in_parallel};
use crate::host::procstat::sample_group;
use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

pub fn checks() -> Vec<Check> {
    vec![
        Check { id: "page-delay", section: "§2", about: "every Nth /page request per process is delayed, and the delay blocks no other request", run: page_delay },
        Check { id: "longpoll-concurrent", section: "§2", about: "200 concurrent /longPoll all answered within the wait plus 1.5 s, without burning a CPU", run: longpoll_concurrent },
        Check { id: "read-your-writes", section: "§5", about: "200 concurrent users: a set is visible on a new connection right after its response; no write is lost", run: read_your_writes },
        Check { id: "shared-store", section: "§5", about: "each write is seen through 20 new connections (every worker of a multi-process server)", run: shared_store },
        Check { id: "password-concurrent", section: "§2, §5", about: "8 concurrent users set a password, then verify it and another user's on new connections (bcrypt)", run: password_concurrent },
    ]
}

/// How many of `n` consecutive /page requests may be delayed when up to `k`
/// processes each count their own requests: each contributes between
/// floor and ceil of its share over the period.
fn delayed_range(n: u64, every: u64, k: u32) -> (u64, u64) {
    let per = n as f64 / every as f64;
    let slack = k as f64 * (every as f64 - 1.0) / every as f64;
    ((per - slack).ceil().max(0.0) as u64, (per + slack).floor() as u64)
}

/// Why a try of `page-delay` failed: a response between fast and delayed, which a busy machine
/// makes of a request that was not delayed (a cold Rails at one core beside another
/// verification answered one in 336 ms against the 600 ms delay), or anything else.
enum PageFailure {
    Unclear(String),
    Wrong(String),
}

fn classify(ctx: &Ctx, responses: &[Response]) -> Result<Vec<bool>, PageFailure> {
    let delay = Duration::from_millis(ctx.settings.page_delay_ms);
    responses
        .iter()
        .map(|r| {
            if r.status != 200 {
                return Err(PageFailure::Wrong(format!("GET /page answered {}", r.summary())));
            }
            if r.elapsed >= delay.mul_f64(0.9) {
                Ok(true)
            } else if r.elapsed < delay / 2 {
                Ok(false)
            } else {
                Err(PageFailure::Unclear(format!("a GET /page took {:?}, neither fast nor the {delay:?} delay", r.elapsed)))
            }
        })
        .collect()
}

/// The check, taken once more from the start when a response was unclear: a server that delays
/// by another amount is unclear both times; a request slowed by the machine seldom is.
fn page_delay(ctx: &Ctx) -> Verdict {
    match page_delay_once(ctx) {
        Ok(()) => Ok(vec![]),
        Err(PageFailure::Wrong(e)) => Err(e),
        Err(PageFailure::Unclear(first)) => match page_delay_once(ctx) {
            Ok(()) => Ok(vec![]),
            Err(PageFailure::Wrong(e)) => Err(e),
            Err(PageFailure::Unclear(second)) => Err(format!("{second}; on a first try too: {first}")),
        },
    }
}

fn page_delay_once(ctx: &Ctx) -> Result<(), PageFailure> {
    let s = &ctx.settings;
    let k = s.processes.max(1);
    let n = 2 * s.page_every * k as u64;
    let sequential: Vec<Response> = (0..n).map(|_| ctx.call("GET", "/page", b"")).collect::<Result<_, _>>().map_err(PageFailure::Wrong)?;
    let delayed = classify(ctx, &sequential)?;
    let count = delayed.iter().filter(|d| **d).count() as u64;
    let (lo, hi) = delayed_range(n, s.page_every, k);
    if count < lo || count > hi {
        return Err(PageFailure::Wrong(format!(
            "{count} of {n} sequential GET /page were delayed by CONCUR_PAGE_DELAY_MS; want {lo}..={hi} (every {}th request per process)",
            s.page_every
        )));
    }
    if k == 1 {
        let at: Vec<usize> = delayed.iter().enumerate().filter(|(_, d)| **d).map(|(i, _)| i).collect();
        if at.windows(2).any(|w| (w[1] - w[0]) as u64 != s.page_every) {
            return Err(PageFailure::Wrong(format!("the delayed /page requests were at positions {at:?}; want exactly every {}th", s.page_every)));
        }
    }
    // Overlapping: requests started while a delayed one waits must not wait for it.
    let m = 2 * s.page_every as usize * k as usize;
    let overlapping = first_errors(
        in_parallel(m, |i| {
            std::thread::sleep(Duration::from_millis(5 * i as u64));
            ctx.call("GET", "/page", b"")
        }),
        "overlapping GET /page",
    )
    .map_err(PageFailure::Wrong)?;
    let slow = classify(ctx, &overlapping)?.iter().filter(|d| **d).count() as u64;
    let (_, hi) = delayed_range(m as u64, s.page_every, k);
    if slow > hi {
        return Err(PageFailure::Wrong(format!(
            "{slow} of {m} overlapping GET /page took the full delay, at most {hi} should: the delay blocks other requests; wait with a timer, not a blocking sleep"
        )));
    }
    Ok(())
}

fn longpoll_concurrent(ctx: &Ctx) -> Verdict {
    const CLIENTS: usize = 200;
    let wait = Duration::from_millis(ctx.settings.longpoll_ms);
    let limit = wait + Duration::from_millis(1500);
    let sent = AtomicUsize::new(0);
    let started = Instant::now();
    let pgid = ctx.settings.pgid;
    let (results, cpu_share) = std::thread::scope(|s| {
        let sampler = s.spawn(|| pgid.and_then(|pgid| waiting_cpu_share(pgid, &sent, CLIENTS, started, wait)));
        let results = in_parallel(CLIENTS, |_| -> Result<Response, String> {
            let mut conn = ctx.conn_with_timeout(limit + Duration::from_secs(2))?;
            conn.send(&super::request("GET", "/longPoll", &[], b"")).map_err(|e| e.to_string())?;
            sent.fetch_add(1, Ordering::Relaxed);
            ctx.read(&mut conn, "GET /longPoll (concurrent)", false)
        });
        (results, sampler.join().expect("CPU sampler thread panicked"))
    });
    let wall = started.elapsed();
    let unanswered = results.iter().filter(|r| r.is_err()).count();
    if wall > limit || unanswered > 0 {
        let answered = CLIENTS - unanswered;
        return Err(format!(
            "{answered} of {CLIENTS} concurrent /longPoll were answered, in {wall:.1?}; all should be within {limit:?}: the waits are being serialized; use a timer that frees the worker"
        ));
    }
    let responses = first_errors(results, "concurrent GET /longPoll")?;
    for r in &responses {
        expect_ok(r, "GET /longPoll (200 concurrent)")?;
        if r.elapsed < wait.saturating_sub(Duration::from_millis(50)) {
            return Err(format!("a concurrent /longPoll answered after {:?}, before CONCUR_LONGPOLL_MS = {wait:?}", r.elapsed));
        }
    }
    let mut warnings = Vec::new();
    if let Some((share, window)) = cpu_share {
        if share > 0.5 {
            return Err(format!(
                "the server used {:.0}% of a core during {window:.1?} in which all {CLIENTS} long polls were waiting: waiting must not spin",
                share * 100.0
            ));
        }
        if share > 0.25 {
            warnings.push(format!("the server used {:.0}% of a core while {CLIENTS} long polls waited", share * 100.0));
        }
    }
    Ok(warnings)
}

/// The server's CPU use, as a share of one core, while only waiting: the
/// second half of the wait (and not before the last of `clients` requests
/// was sent) until shortly before the first wait ends. Accepting and
/// parsing 200 requests at once (and, in a young JVM, compiling the code
/// that does it, measured at up to 70% of a core in Pekko HTTP's first
/// round) is work, not waiting, so it is left out. `None` when the sends
/// took so long that no such window of at least 300 ms is left.
fn waiting_cpu_share(pgid: i32, sent: &AtomicUsize, clients: usize, started: Instant, wait: Duration) -> Option<(f64, Duration)> {
    let end = started + wait.saturating_sub(Duration::from_millis(150));
    while sent.load(Ordering::Relaxed) < clients {
        if Instant::now() >= end {
            return None;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(100).max((started + wait / 2).saturating_duration_since(Instant::now())));
    let (from, before) = (Instant::now(), sample_group(pgid));
    let window = end.checked_duration_since(from).filter(|w| *w >= Duration::from_millis(300))?;
    std::thread::sleep(window);
    let (to, after) = (Instant::now(), sample_group(pgid));
    let spent = to - from;
    Some(((after.cpu_seconds - before.cpu_seconds) / spent.as_secs_f64(), spent))
}

fn read_your_writes(ctx: &Ctx) -> Verdict {
    const USERS: usize = 200;
    let tag = ctx.user("ryw");
    let value = |i: usize| json!({"user": i, "token": format!("{tag}-{i}"), "list": [i, i * 2]});
    let results = in_parallel(USERS, |i| -> Result<(), String> {
        let user = format!("{tag}_{i}");
        expect_ok(&ctx.call("POST", &format!("/user/set/{user}"), value(i).to_string().as_bytes())?, &format!("user/set/{user}"))?;
        let r = ctx.call("GET", &format!("/user/get/{user}"), b"")?;
        check_value(&r, &user, &value(i)).map_err(|e| format!("{e} (read on a new connection right after the set's response)"))
    });
    first_errors(results, "set-then-get on new connections")?;
    let lost: Vec<String> = (0..USERS)
        .filter_map(|i| {
            let user = format!("{tag}_{i}");
            let r = ctx.call("GET", &format!("/user/get/{user}"), b"").ok()?;
            check_value(&r, &user, &value(i)).err()
        })
        .take(3)
        .collect();
    if !lost.is_empty() {
        return Err(format!("after {USERS} concurrent writes some were lost or changed: {}", lost.join("; ")));
    }
    Ok(vec![])
}

fn shared_store(ctx: &Ctx) -> Verdict {
    for i in 0..10 {
        let user = ctx.user("shared");
        let value = json!({"shared": i});
        expect_ok(&ctx.call("POST", &format!("/user/set/{user}"), value.to_string().as_bytes())?, "user/set")?;
        let reads = in_parallel(20, |_| ctx.call("GET", &format!("/user/get/{user}"), b"").and_then(|r| check_value(&r, &user, &value)));
        first_errors(reads, "reads through new connections").map_err(|e| format!("{e}: keep one logical store for all processes (SPEC §5)"))?;
    }
    let user = ctx.user("sharedpw");
    let body = br#"{"password":"everywhere"}"#;
    expect_ok(&ctx.call("POST", &format!("/password/set/{user}"), body)?, "password/set")?;
    let verifies = in_parallel(8, |_| ctx.call("POST", &format!("/password/verify/{user}"), body).and_then(|r| expect_ok(&r, "password/verify on a new connection")));
    first_errors(verifies, "password verifies through new connections").map_err(|e| format!("{e}: keep one logical store for all processes (SPEC §5)"))?;
    Ok(vec![])
}

/// Users hashing at once: more than any entry's processes at the core counts verified, and
/// few enough that the 24 hashes at bcrypt's cost 10 stay about 2 s of a verification on one
/// core (20 users took 5-7 s of 16-24).
const PASSWORD_USERS: usize = 8;

fn password_concurrent(ctx: &Ctx) -> Verdict {
    let tag = ctx.user("pwc");
    let results = in_parallel(PASSWORD_USERS, |i| -> Result<(), String> {
        let user = format!("{tag}_{i}");
        let body = json!({"password": format!("pw-{i}-{tag}")}).to_string();
        expect_ok(&ctx.call("POST", &format!("/password/set/{user}"), body.as_bytes())?, "password/set")?;
        expect_ok(&ctx.call("POST", &format!("/password/verify/{user}"), body.as_bytes())?, "password/verify right after set")?;
        let wrong = json!({"password": format!("pw-{}-{tag}", i + 1)}).to_string();
        let r = ctx.call("POST", &format!("/password/verify/{user}"), wrong.as_bytes())?;
        super::expect_error(&r, 403, "password/verify with another user's password")
    });
    first_errors(results, "concurrent password set/verify")?;
    Ok(vec![])
}

#[cfg(test)]
mod tests {
    use super::{delayed_range, waiting_cpu_share};
    use std::sync::atomic::AtomicUsize;
    use std::time::{Duration, Instant};

    #[test]
    fn one_process_is_exact() {
        assert_eq!(delayed_range(20, 10, 1), (2, 2));
        assert_eq!(delayed_range(10, 10, 1), (1, 1));
    }

    #[test]
    fn two_processes_allow_each_its_own_phase() {
        // 40 requests over 2 processes: 3..=5 delayed, whatever the split.
        assert_eq!(delayed_range(40, 10, 2), (3, 5));
    }

    #[test]
    fn the_waiting_window_sees_a_spinning_server() {
        // This test's own process group stands in for the server; a thread
        // spins through the window. Several tries: the machine may be busy.
        // SAFETY: getpgrp has no preconditions.
        let pgid = unsafe { libc::getpgrp() };
        let mut seen = Vec::new();
        for _ in 0..5 {
            let sent = AtomicUsize::new(3);
            let started = Instant::now();
            let (share, window) = std::thread::scope(|s| {
                s.spawn(|| {
                    while started.elapsed() < Duration::from_millis(1400) {
                        std::hint::black_box(0u64);
                    }
                });
                waiting_cpu_share(pgid, &sent, 3, started, Duration::from_millis(1400)).expect("a window of 550 ms")
            });
            assert!(window >= Duration::from_millis(400), "{window:?}");
            seen.push(share);
            if share > 0.5 {
                return;
            }
        }
        panic!("a spinning thread was measured at {seen:?} of a core");
    }

    #[test]
    fn no_window_when_the_requests_were_not_all_sent() {
        let sent = AtomicUsize::new(199);
        assert_eq!(waiting_cpu_share(1, &sent, 200, Instant::now(), Duration::from_millis(400)), None);
    }
}
