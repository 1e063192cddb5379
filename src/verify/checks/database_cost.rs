//! SPEC §8.2-§8.4, what the database routes cost and how they fail, read
//! from the database itself: statements counted by `pg_stat_statements`
//! (how TechEmpower catches a cache or a batched read), connections counted
//! by `pg_stat_activity` under concurrent load (the pool bound), the time
//! `/slowdb` spends in the database, and 503s while the database turns the
//! server away.

use super::database::{as_in_database, json_body, row, rows};
use super::{Check, Ctx, Response, Verdict, expect_error, first_errors, in_parallel};
use crate::db::Statements;
use crate::verify::client::request;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::time::{Duration, Instant};

pub fn checks() -> Vec<Check> {
    vec![
        Check { id: "db-statements", section: "§8.3", about: "each row costs a statement of its own (pg_stat_statements): /queries?queries=20 at least 20 reads; nothing cached", run: db_statements },
        Check { id: "db-policy", section: "POLICIES §6", about: "/updates?queries=20 writes its rows with one UPDATE statement, and no route opens a transaction (pg_stat_statements)", run: db_policy },
        Check {
            id: "db-under-load",
            section: "§8.3",
            about: "under 32 concurrent requests the counts still hold: a read per row, one UPDATE per /updates writing each of its rows, no transaction (pg_stat_statements)",
            run: db_under_load,
        },
        Check { id: "db-pool", section: "§8.2", about: "under 32 concurrent requests the server holds at most CONCUR_DB_POOL connections (pg_stat_activity)", run: db_pool },
        Check { id: "db-slow", section: "§8.3", about: "/slowdb takes CONCUR_DB_SLOW_MS, spent in the database (pg_sleep in the query)", run: db_slow },
        Check { id: "db-bad-input", section: "§8.4", about: "another method on a database route is 405, a longer path 404", run: db_bad_input },
        Check { id: "db-unreachable", section: "§8.4", about: "with the database turning the server away, its routes are 503 within 5 s, alone and 3 per pool connection at once, and / still 200; they recover when it is back", run: db_unreachable },
    ]
}

/// A route, how often it is asked, and the least it must cost each time.
struct Cost {
    target: &'static str,
    requests: i64,
    counted: fn(&Statements) -> i64,
    per_request: i64,
    what: &'static str,
}

const COSTS: &[Cost] = &[
    Cost { target: "/db", requests: 10, counted: |s| s.world_reads, per_request: 1, what: "statements reading world" },
    Cost { target: "/queries?queries=20", requests: 10, counted: |s| s.world_reads, per_request: 20, what: "statements reading world" },
    Cost { target: "/updates?queries=20", requests: 5, counted: |s| s.world_reads, per_request: 20, what: "statements reading world" },
    Cost { target: "/updates?queries=20", requests: 5, counted: |s| s.world_updates, per_request: 1, what: "statements updating world" },
    Cost { target: "/fortunes", requests: 10, counted: |s| s.fortune_reads, per_request: 1, what: "statements reading fortune" },
];

fn db_statements(ctx: &Ctx) -> Verdict {
    let mut admin = ctx.db()?;
    for cost in COSTS {
        let before = admin.statements()?;
        get_ok(ctx, cost.target, cost.requests)?;
        let ran = (cost.counted)(&admin.statements()?.since(&before));
        let want = cost.requests * cost.per_request;
        if ran < want {
            return Err(format!(
                "GET {} ×{} ran {ran} {} (pg_stat_statements), want at least {want}: read each row with a query of its own, cache no row or page, batch no reads (SPEC §8.3)",
                cost.target, cost.requests, cost.what
            ));
        }
    }
    Ok(vec![])
}

/// spec/POLICIES.md §6.2, where pg_stat_statements can see it: a request to `/updates` writes
/// its rows with one statement, and neither it nor `/queries` opens a transaction (a JDBC batch,
/// asyncpg's `executemany` or an ORM's save per row would show as several updates or a `BEGIN`).
fn db_policy(ctx: &Ctx) -> Verdict {
    const REQUESTS: i64 = 5;
    let mut admin = ctx.db()?;
    let before = admin.statements()?;
    for target in ["/updates?queries=20", "/queries?queries=20"] {
        get_ok(ctx, target, REQUESTS)?;
    }
    let ran = admin.statements()?.since(&before);
    if ran.world_updates != REQUESTS {
        return Err(format!(
            "GET /updates?queries=20 ×{REQUESTS} ran {} statements updating world (pg_stat_statements), want {REQUESTS}: write a request's rows with one UPDATE world SET randomnumber = u.r FROM unnest($1::int[], $2::int[]) AS u(id, r) WHERE world.id = u.id, ids ascending (spec/POLICIES.md §6.2)",
            ran.world_updates
        ));
    }
    if ran.transactions != 0 {
        return Err(format!(
            "GET /updates?queries=20 and /queries?queries=20, ×{REQUESTS} each, opened {} transactions (BEGIN in pg_stat_statements), want none: one UPDATE statement is atomic on its own (spec/POLICIES.md §6.2)",
            ran.transactions
        ));
    }
    Ok(vec![])
}

/// The counts of `db-statements` and `db-policy` with clients at once, as TechEmpower counts
/// them under its 512: a server that batches, caches or skips writes only when busy shows here.
/// Each response's rows are counted as written once per distinct id (one `UPDATE … FROM unnest`
/// writes a row drawn twice once).
fn db_under_load(ctx: &Ctx) -> Verdict {
    const CLIENTS: usize = 32;
    const ROUNDS: usize = 2;
    const ROWS: usize = 20;
    let mut admin = ctx.db()?;
    let before = admin.statements()?;
    let targets = ["/updates?queries=20", "/queries?queries=20"];
    let mut written = 0;
    for _ in 0..ROUNDS {
        for result in in_parallel(CLIENTS, |i| ctx.call("GET", targets[i % 2], b"").map(|r| (targets[i % 2], r))) {
            let (target, r) = result?;
            let what = format!("GET {target}, one of {CLIENTS} at once");
            let rows = rows(&r, &what, ROWS)?;
            if target.starts_with("/updates") {
                written += rows.iter().map(|(id, _)| id).collect::<std::collections::BTreeSet<_>>().len() as i64;
            }
        }
    }
    let ran = admin.statements()?.since(&before);
    let requests = (CLIENTS * ROUNDS) as i64;
    let want_reads = requests * ROWS as i64;
    if ran.world_reads < want_reads {
        return Err(format!(
            "{requests} GET /queries?queries=20 and /updates?queries=20, {CLIENTS} at once, ran {} statements reading world (pg_stat_statements), want at least {want_reads}: a query per row under load too (SPEC §8.3)",
            ran.world_reads
        ));
    }
    let updates = requests / 2;
    if ran.world_updates != updates {
        return Err(format!(
            "{updates} GET /updates?queries=20 among {CLIENTS} at once ran {} statements updating world, want {updates}: one UPDATE per request under load too (spec/POLICIES.md §6.2)",
            ran.world_updates
        ));
    }
    if ran.world_rows_updated < written {
        return Err(format!(
            "{updates} GET /updates?queries=20 among {CLIENTS} at once returned {written} distinct rows and updated {} (pg_stat_statements): write every row a response returns, a number equal to the stored one too (SPEC §8.3)",
            ran.world_rows_updated
        ));
    }
    if ran.transactions != 0 {
        return Err(format!("{CLIENTS} requests at once opened {} transactions (BEGIN in pg_stat_statements), want none (spec/POLICIES.md §6.2)", ran.transactions));
    }
    Ok(vec![])
}

/// `GET target` `times` times, each to be a 200: the requests whose statements a check counts.
fn get_ok(ctx: &Ctx, target: &str, times: i64) -> Result<(), String> {
    for _ in 0..times {
        let r = ctx.call("GET", target, b"")?;
        super::expect_status(&r, 200, &format!("GET {target}"))?;
    }
    Ok(())
}

fn db_pool(ctx: &Ctx) -> Verdict {
    let pool = ctx.db_settings().pool;
    let mut sampler = ctx.db()?;
    let (done, peak) = (AtomicBool::new(false), AtomicI64::new(0));
    let results = std::thread::scope(|s| {
        let watching = s.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                match sampler.connections() {
                    Ok(n) => peak.fetch_max(n, Ordering::Relaxed),
                    Err(e) => return Err(e),
                };
                std::thread::sleep(Duration::from_millis(2));
            }
            Ok(())
        });
        let mut results = Vec::new();
        for _ in 0..2 {
            results.extend(in_parallel(32, |i| ctx.call("GET", if i % 2 == 0 { "/slowdb" } else { "/queries?queries=20" }, b"")));
        }
        done.store(true, Ordering::Relaxed);
        watching.join().unwrap_or_else(|_| Err("the pg_stat_activity sampler panicked".into())).map(|()| results)
    })?;
    let responses = first_errors(results, "concurrent requests")?;
    if let Some(bad) = responses.iter().find(|r| r.status != 200) {
        return Err(format!("under 32 concurrent requests a database route answered {}: a request waits for a free connection (SPEC §8.2)", bad.summary()));
    }
    let peak = peak.load(Ordering::Relaxed);
    if peak > i64::from(pool) {
        return Err(format!("the server held {peak} database connections at once (pg_stat_activity), more than CONCUR_DB_POOL={pool}: bound the pool by it, across all processes (SPEC §8.2)"));
    }
    if peak < 2 && pool >= 2 {
        return Ok(vec![format!("the server held at most {peak} database connection under 32 concurrent requests: with CONCUR_DB_POOL={pool} its requests could use more than one")]);
    }
    Ok(vec![])
}

fn db_slow(ctx: &Ctx) -> Verdict {
    let slow_ms = ctx.db_settings().slow_ms;
    let mut admin = ctx.db()?;
    let before = admin.statements()?;
    let mut answered = Vec::new();
    for _ in 0..3 {
        let r = ctx.call("GET", "/slowdb", b"")?;
        answered.push(row(&json_body(&r, "GET /slowdb")?, "GET /slowdb")?);
        if r.elapsed < Duration::from_millis(slow_ms) {
            return Err(format!("GET /slowdb answered in {:?}, before CONCUR_DB_SLOW_MS={slow_ms} had passed (SPEC §8.3)", r.elapsed));
        }
    }
    as_in_database(&answered, &admin.world()?, "GET /slowdb")?;
    let spent = admin.statements()?.since(&before);
    // pg_sleep's own clock: a few percent short of the asked time is its rounding, not a shortcut.
    if spent.sleeps < 3 || spent.sleep_ms < 3.0 * slow_ms as f64 * 0.95 {
        return Err(format!(
            "3 GET /slowdb spent {:.0} ms in {} statements calling pg_sleep (pg_stat_statements), want at least {} ms: wait in the query itself, e.g. SELECT … FROM world, pg_sleep($2) WHERE id = $1, not in the server (SPEC §8.3)",
            spent.sleep_ms,
            spent.sleeps,
            3 * slow_ms
        ));
    }
    Ok(vec![])
}

fn db_bad_input(ctx: &Ctx) -> Verdict {
    let mut warnings = Vec::new();
    for (method, path) in [("POST", "/db"), ("PUT", "/queries?queries=2"), ("DELETE", "/updates"), ("POST", "/fortunes"), ("PATCH", "/slowdb")] {
        let r = ctx.call(method, path, b"")?;
        expect_error(&r, 405, &format!("{method} {path}"))?;
        if r.header("allow").is_none() {
            warnings.push(format!("{method} {path}: the 405 has no Allow header (SPEC §3.3 SHOULD)"));
        }
    }
    for path in ["/db/1", "/queries/20", "/fortunes/x", "/slowdb/"] {
        expect_error(&ctx.call("GET", path, b"")?, 404, &format!("GET {path}"))?;
    }
    warnings.truncate(2);
    ctx.still_serving("bad requests to the database routes")?;
    Ok(warnings)
}

const DB_ROUTES: [&str; 5] = ["/db", "/queries?queries=2", "/updates?queries=2", "/fortunes", "/slowdb"];

fn db_unreachable(ctx: &Ctx) -> Verdict {
    let mut admin = ctx.db()?;
    admin.refuse_server()?;
    let while_gone = answers_while_gone(ctx);
    admin.admit_server()?;
    while_gone?;
    let deadline = Instant::now() + Duration::from_secs(10);
    for target in DB_ROUTES {
        loop {
            let r = ctx.call("GET", target, b"")?;
            if r.status == 200 {
                break;
            }
            if Instant::now() > deadline {
                return Err(format!("GET {target} still answered {} 10 s after the database took logins again: let the pool open new connections (SPEC §8.4)", r.summary()));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    Ok(vec![])
}

/// How many requests arrive at once while the database is gone, per connection of the pool:
/// more than the pool, so that a server queueing them on it shows the wait.
const BURST_PER_CONNECTION: usize = 3;

/// Each route is a prompt 503 with a reason, alone and in a burst of requests
/// arriving at once, and `/` is still served.
fn answers_while_gone(ctx: &Ctx) -> Result<(), String> {
    for target in DB_ROUTES {
        let what = format!("GET {target} while the database turns the server away");
        let r = call_within(ctx, target, GONE_WITHIN).map_err(|e| format!("{what}: {e}; answer 503 at once (SPEC §8.4)"))?;
        expect_error(&r, 503, &what)?;
    }
    let burst = BURST_PER_CONNECTION * ctx.db_settings().pool as usize;
    let answers = in_parallel(burst, |i| {
        let target = DB_ROUTES[i % DB_ROUTES.len()];
        let started = Instant::now();
        (target, call_within(ctx, target, GONE_WITHIN), started.elapsed())
    });
    let slowest = answers.iter().map(|a| a.2).max().unwrap_or_default();
    for (target, answer, _) in answers {
        let what = format!("GET {target}, one of {burst} requests at once while the database turns the server away");
        let r = answer.map_err(|e| {
            format!("{what}: {e} (the slowest answer took {slowest:.1?}); answer each 503 at once, not after the ones before it waited their turn for the pool (SPEC §8.4)")
        })?;
        expect_error(&r, 503, &what)?;
    }
    ctx.still_serving("the database turning the server away")
}

/// SPEC §8.4's bound on a 503 while the database is gone.
const GONE_WITHIN: Duration = Duration::from_secs(5);

fn call_within(ctx: &Ctx, target: &str, limit: Duration) -> Result<Response, String> {
    let mut conn = ctx.conn_with_timeout(limit)?;
    conn.send(&request("GET", target, &[], b"")).map_err(|e| format!("sending failed ({e})"))?;
    ctx.read(&mut conn, &format!("GET {target}"), false)
}
