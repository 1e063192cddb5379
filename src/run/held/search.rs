//! Running the planned clients-held searches: each on the warm server of a
//! point started the same way (`spec::hosts`, `ride`: in `quick`, hello's, after
//! its capacity search), or else after the run's points and capacity searches
//! on a fresh server of its own (started with the search's poll wait, warmed
//! for its manifest's `[start] warmup`). Every server is spawned with the
//! open-file limit of spec/POLICIES.md §1 (`host::limits`). The accept rate
//! comes first, then the server's RSS at rest is sampled before the first
//! step's clients come, then steps chosen by the ramp (`run::ramp`), each
//! capped by `limits` and stored as it ends; between steps the generator's
//! connections are closed and the server left to settle. A stored,
//! unfinished search is continued by replaying its verdicts (`--resume`).

use super::limits::{self, Cap};
use super::{accept, step};
use crate::host::procstat::{meminfo, sample_group, wait_quiet};
use crate::run::capacity::Context;
use crate::run::spec::{HeldSpec, Plan};
use crate::run::ramp::{Next, Ramp, Status, Verdict};
use crate::run::{interrupt, point};
use crate::server::Server;
use crate::store::held::{AcceptRecord, CeilingRecord, HeldSearchRecord, HeldStepRecord};
use anyhow::Result;
use std::time::{Duration, Instant};

/// Runs every clients-held search of `plan` that has not ended; `false` when a stop was asked for.
pub fn run_all(cx: &Context, plan: &Plan) -> Result<bool> {
    let ended = cx.store.ended_held_searches(cx.run_id)?;
    let pending: Vec<&HeldSpec> = plan.held.iter().filter(|s| !ended.contains(&s.key)).collect();
    let nofile = open_files(&pending);
    for spec in pending {
        if !one(cx, spec, nofile, None)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Runs `searches` on the running server of point `host`, just measured (and searched for its
/// capacity), instead of a fresh start and warm-up each; `false` when a stop was asked for. A
/// search that finds the server gone leaves the rest to `run_all`. The server's last use: the
/// bursts and steps leave thousands of connections behind them (ruby-rack wedged after them).
pub fn ride(cx: &Context, searches: &[&HeldSpec], host: &str, server: &mut Server) -> Result<bool> {
    let nofile = open_files(searches);
    for spec in searches {
        if !server.is_running() {
            break;
        }
        if !one(cx, spec, nofile, Some((&mut *server, host)))? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The generator's open-file limit for `searches`' largest step, raised as far as allowed.
fn open_files(searches: &[&HeldSpec]) -> u64 {
    let most = searches.iter().map(|s| s.max_clients).max().unwrap_or(0);
    crate::load::raise_open_files(most + limits::SPARE_FDS)
}

/// One search, on `hosted` (the server of the point named, warm) or a server of its own;
/// `false` when a stop was asked for (the steps measured so far are kept).
fn one(cx: &Context, spec: &HeldSpec, nofile: u64, hosted: Option<(&mut Server, &str)>) -> Result<bool> {
    let record = HeldSearchRecord {
        key: spec.key.clone(),
        implementation: spec.implementation.clone(),
        scenario: spec.scenario.clone(),
        cores: spec.cores,
        wait_ms: spec.wait_ms,
        spec_wait_ms: super::SPEC_WAIT_MS,
        bound_ms: spec.bound_ms,
        precision: spec.precision,
        spawn_rate: spec.spawn_rate,
        start_clients: spec.start,
        max_clients: spec.max_clients,
        started_at: crate::host::env::now_rfc3339(),
        status: Status::Running.as_str().into(),
        ..HeldSearchRecord::default()
    };
    let id = cx.store.begin_held_search(cx.run_id, &record)?;
    let stored = cx.store.held_search(cx.run_id, &spec.key)?.unwrap_or(record);
    let mut ramp = Ramp::new(stored.start_clients as f64, spec.precision, spec.max_steps);
    for s in &stored.steps {
        ramp.record(s.clients as f64, Verdict::parse(&s.verdict).unwrap_or(Verdict::Error), step::hopeless(s));
    }
    let mut steps = stored.steps;
    println!(
        "clients held {}: {} clients answered within {} ms + {} ms, from {} at {:.0}/s or more",
        spec.key, spec.scenario, spec.wait_ms, spec.bound_ms, stored.start_clients, spec.spawn_rate
    );
    let Some(imp) = cx.ready.get(spec.implementation.as_str()) else {
        return end(cx, id, &ramp, &Ended::new(Status::NoStart, "the implementation was not built and verified in this run"), &steps).map(|()| true);
    };
    if let Next::Done(status) = ramp.next() {
        return end(cx, id, &ramp, &Ended::new(status, ""), &steps).map(|()| true);
    }
    let search = Search { cx, spec, id, nofile, arrival: None };
    if let Some((server, host)) = hosted {
        println!("  on the server of point {host}, warm from its measurement");
        return search.on(server, &mut ramp, &mut steps);
    }
    let log = cx.log_dir.join(format!("{}.log", spec.key.replace('/', "_")));
    let template = step::point_spec(spec, spec.start);
    let mut server = match point::start(cx.root, imp, &template, &log, None).and_then(|mut s| s.wait_ready(point::READY_TIMEOUT).map(|()| s)) {
        Ok(server) => server,
        Err(e) => {
            if crate::host::interrupt::stopping() {
                return Ok(false);
            }
            return end(cx, id, &ramp, &Ended::new(Status::NoStart, &format!("the server did not start: {e:#}")), &steps).map(|()| true);
        }
    };
    let measured = if warm_up(cx, spec, &mut server) { search.on(&mut server, &mut ramp, &mut steps) } else { Ok(false) };
    server.stop(point::STOP_GRACE);
    measured
}

/// Measures the server's accept rate (`accept`) and stores it. Returns the search's spec with
/// its least spawn rate lowered to [`accept::ARRIVAL_SHARE`] of that rate where it was above,
/// and the cap a step's clients meet there: the most that rate brings within half the wait.
/// Not measured (said, and the search goes on as before) when the load could not run.
fn accept_rate(cx: &Context, spec: &HeldSpec, id: i64, server: &mut Server) -> Result<(HeldSpec, Option<Cap>)> {
    // The median burst: one burst's rate moved up to 6x between two runs (bun, bench/RESULTS.md).
    let measured = bursts(cx, spec, server).map(|b| (b.len(), accept::median(b)));
    let (count, a) = match measured {
        // A burst cut short by Ctrl-C is no rate: nothing is stored, the caller stops.
        _ if crate::host::interrupt::stopping() => return Ok((spec.clone(), None)),
        Ok(a) => a,
        Err(e) => {
            println!("  accept rate not measured: {e:#}");
            return Ok((spec.clone(), None));
        }
    };
    let arrival = accept::arrival_cap(spec, &a);
    {
        let _writing = interrupt::writing();
        cx.store.set_held_accept(id, &a, arrival)?;
    }
    let lower = if a.gen_saturated { "≥ " } else { "" };
    let rate = accept::comfortable(&a);
    println!(
        "  accept rate {lower}{:.0} connections/s (the median of {} burst(s), {:.0}-{:.0}; {} answered, {} errors, p99 {:.1} ms, server cpu {:.0}%, generator cpu {:.0}%): clients arrive at {:.0}/s at most",
        a.per_s,
        count,
        a.low,
        a.high,
        a.answered,
        a.errors,
        a.latency_p99_us as f64 / 1000.0,
        a.server_cpu_util * 100.0,
        a.gen_cpu_util * 100.0,
        rate * accept::ARRIVAL_SHARE
    );
    let Some(clients) = arrival else { return Ok((spec.clone(), None)) };
    let least = spec.spawn_rate.min((rate * accept::ARRIVAL_SHARE).floor().max(1.0));
    let cap = Cap {
        clients,
        limit: format!(
            "arrivals: at half its slowest accept burst ({lower}{rate:.0}/s) the server takes {clients} clients within half the {} ms wait; \
             more is a question of how fast it accepts, not of how many it holds (a longer wait measures more)",
            spec.wait_ms
        ),
        by_arrival: true,
    };
    Ok((HeldSpec { spawn_rate: least, ..spec.clone() }, Some(cap)))
}

/// The measured bursts of the accept rate, after the unstored ones; the server is settled
/// between bursts (the caller settles it after the last). A server that answered none of a
/// burst and does not quieten after it is wedged (ruby-rack's Puma at one core, a storm of
/// thread wake-ups across its ~500 threads: bench/RESULTS.md): no further burst is sent, each
/// would wait out its timeout for nothing, and the one without an answer is kept as measured
/// (its rate 0), warm-up or not.
fn bursts(cx: &Context, spec: &HeldSpec, server: &mut Server) -> Result<Vec<AcceptRecord>> {
    let sizes = std::iter::repeat_n(accept::WARM_BURST, accept::WARM_BURSTS as usize).chain(std::iter::repeat_n(accept::BURST, accept::BURSTS));
    let mut measured = Vec::new();
    let mut last: Option<(u64, AcceptRecord)> = None;
    for (k, clients) in sizes.enumerate() {
        if k > 0 {
            let quiet = settle_for(server, SETTLE_MAX);
            if let Some((size, dead)) = last.take().filter(|(_, b)| b.answered == 0 && !quiet) {
                println!("  the server answered none of a burst of {size} connections and did not quieten after it: no further burst");
                if k <= accept::WARM_BURSTS as usize {
                    measured.push(dead);
                }
                break;
            }
        }
        let burst = accept::measure(cx.root, spec, server, clients)?;
        if k >= accept::WARM_BURSTS as usize {
            measured.push(burst.clone());
        }
        last = Some((clients, burst));
    }
    Ok(measured)
}

/// How a search ended: its status, the limit named, and whether that limit was its clients' arrival.
struct Ended {
    status: Status,
    why: String,
    by_arrival: bool,
    /// How busy the server still was after its accept bursts, said after the reason.
    busy: Option<String>,
}

impl Ended {
    fn new(status: Status, why: &str) -> Ended {
        Ended { status, why: why.to_string(), by_arrival: false, busy: None }
    }

    fn with(status: Status) -> Ended {
        Ended::new(status, "")
    }
}

/// Warms the fresh server for its manifest's `[start] warmup` (`HeldSpec::server_warmup_s`)
/// with rounds of a quarter of the first step's clients, none of them stored: a JVM fresh
/// from its start, compiling its accept and timer paths on the one core it has, answered 169
/// of 2,000 clients within the bound (kotlin-ktor; scala-pekko-http 273) where it held 8,000
/// warm, and the search would measure its JIT rather than how many clients it holds. `false`
/// when a stop was asked for.
fn warm_up(cx: &Context, spec: &HeldSpec, server: &mut Server) -> bool {
    if spec.server_warmup_s <= 0.0 {
        return true;
    }
    let (clients, began) = (spec.warmup_clients(), Instant::now());
    let mut rounds = 0;
    while began.elapsed().as_secs_f64() < spec.server_warmup_s {
        if crate::host::interrupt::stopping() {
            return false;
        }
        let round = step::measure(cx.root, spec, server, 0, clients, 0);
        rounds += 1;
        settle(server, drain(spec, &round));
    }
    println!("  warm-up: {rounds} round(s) of {clients} clients in {:.1} s (its manifest's [start] warmup, {} s), not stored", began.elapsed().as_secs_f64(), spec.server_warmup_s);
    true
}

/// A search under way: where it is stored, the open-file limit its server inherited, and the
/// clients its server's accept rate lets a step bring.
struct Search<'a> {
    cx: &'a Context<'a>,
    spec: &'a HeldSpec,
    id: i64,
    nofile: u64,
    arrival: Option<Cap>,
}

impl Search<'_> {
    /// The search on `server`, ready and warm: its accept rate, then its steps from the server
    /// at rest; `false` when a stop was asked for. The caller stops the server.
    fn on(self, server: &mut Server, ramp: &mut Ramp, steps: &mut Vec<HeldStepRecord>) -> Result<bool> {
        settle(server, Duration::ZERO);
        let (spec, arrival) = &accept_rate(self.cx, self.spec, self.id, server)?;
        if crate::host::interrupt::stopping() {
            return Ok(false);
        }
        // The bursts leave thousands of connections to close; a server still busy long after
        // them has been changed by them, and the steps that follow measure that (ruby-rack at one
        // core grew to about 860 Puma threads and spun at a whole core with no client: RESULTS).
        let busy = if settle_for(server, AFTER_BURSTS_MAX) { None } else { still_busy(server) };
        if let Some(b) = &busy {
            println!("  {b}");
        }
        let rest = sample_group(server.pgid()).rss_bytes;
        let search = Search { spec, arrival: arrival.clone(), ..self };
        match search.steps(server, rest, ramp, steps)? {
            Some(ended) => end(self.cx, self.id, ramp, &Ended { busy, ..ended }, steps).map(|()| true),
            None => Ok(false),
        }
    }

    /// Measures steps on `server` (whose RSS at rest is `rest`) until the ramp is done or a
    /// limit is reached (the status, and the limit named), or a stop is asked for (`None`).
    fn steps(&self, server: &mut Server, rest: u64, ramp: &mut Ramp, steps: &mut Vec<HeldStepRecord>) -> Result<Option<Ended>> {
        let Search { cx, spec, id, nofile, .. } = *self;
        // The machine's and the profile's cap, lowered to what the arrivals bring.
        let capped = |cap: Cap| match &self.arrival {
            Some(a) if a.clients < cap.clients => a.clone(),
            _ => cap,
        };
        // The budget counts the steps of an earlier process (`--resume`) and this one's wall clock, settling included.
        let (earlier, began) = (steps.iter().map(|s| s.duration_s).sum::<f64>(), Instant::now());
        let spent = || earlier + began.elapsed().as_secs_f64();
        // What the last step leaves the server to work through before the next one.
        let mut unsettled: Option<Duration> = None;
        loop {
            let wanted = match ramp.next() {
                Next::Measure(n) => n as u64,
                Next::Done(status) => return Ok(Some(Ended::with(status))),
            };
            // Why a step of `wanted` clients under `cap` cannot be measured, `ahead` seconds from
            // now: a limit the search has already reached, or the budget.
            let ends = |cap: Cap, ahead: f64| -> Option<Ended> {
                if wanted > cap.clients && ramp.passed.is_some_and(|p| p as u64 >= cap.clients) {
                    return Some(Ended { status: Status::Limit, why: cap.limit, by_arrival: cap.by_arrival, busy: None });
                }
                (spent() + ahead + spec.step_s(wanted.min(cap.clients)) > spec.budget_s).then(|| Ended::with(Status::Budget))
            };
            if let Some(drain) = unsettled.take() {
                // A next step that cannot be measured anyway is not waited for: max_clients and
                // the open-file limit stay as they are while the server settles, and the
                // settling lasts at least the drain (ruby-rack's 6 s after a failed step of
                // 4,000 clients, when the budget was already spent).
                if let Some(end) = ends(capped(limits::cap(spec.max_clients, nofile, &[], 0)), drain.as_secs_f64()) {
                    return Ok(Some(end));
                }
                if !drain.is_zero() {
                    println!("  waiting up to {:.0} s for the server to work through the failed step's queued requests", drain.as_secs_f64());
                }
                settle(server, drain);
            }
            let cap = capped(limits::cap(spec.max_clients, nofile, steps, meminfo("MemAvailable")));
            let n = wanted.min(cap.clients);
            if let Some(end) = ends(cap, 0.0) {
                return Ok(Some(end));
            }
            let step = step::measure(cx.root, spec, server, steps.len() as u32 + 1, n, rest);
            if crate::host::interrupt::stopping() {
                return Ok(None);
            }
            {
                let _writing = interrupt::writing();
                cx.store.insert_held_step(id, &step)?;
            }
            println!("{}", step_line(&step));
            ramp.record(n as f64, Verdict::parse(&step.verdict).unwrap_or(Verdict::Error), step::hopeless(&step));
            unsettled = Some(drain(spec, &step));
            let failed = step.verdict != "pass";
            steps.push(step);
            if failed && !server.is_running() {
                return Ok(Some(Ended::with(Status::Error)));
            }
        }
    }
}

/// Rounds of the wait a server may still spend on a failed step's requests, at most.
const DRAIN_ROUNDS: u64 = 5;

/// How long the server may still be busy with the requests of `step`'s clients it had not
/// answered: their connections are closed, but a pool of threads, each asleep on one request
/// for the wait, still reads and serves the ones queued, as many per wait as it answered in
/// the step. rust-threadpool (256 threads) left 744 of 1,000 such requests; waiting one wait
/// only, the next step of 250 clients found its pool busy and 226 of them unanswered.
fn drain(spec: &HeldSpec, step: &HeldStepRecord) -> Duration {
    if step.verdict == "pass" {
        return Duration::ZERO;
    }
    let unanswered = step.errors_total + step.unfinished;
    let rounds = unanswered.div_ceil(step.successes.max(1)).clamp(1, DRAIN_ROUNDS);
    Duration::from_millis(spec.wait_ms * rounds)
}

/// Server CPU below this share of a core over `QUIET` counts as settled.
const QUIET_SHARE: f64 = 0.2;
const QUIET: Duration = Duration::from_millis(200);
const SETTLE_MAX: Duration = Duration::from_secs(3);
/// The longest wait for the server to quieten after its accept bursts.
const AFTER_BURSTS_MAX: Duration = Duration::from_secs(10);

/// Waits `first`, then until the server's CPU has been quiet for `QUIET` (closing the last
/// step's connections, collecting its garbage), at most `SETTLE_MAX`.
fn settle(server: &Server, first: Duration) {
    crate::host::interrupt::sleep_unless_stopping(first);
    settle_for(server, SETTLE_MAX);
}

/// Waits until the server's CPU has been quiet for `QUIET`, at most `max`; whether it was.
fn settle_for(server: &Server, max: Duration) -> bool {
    wait_quiet(&[server.pgid()], QUIET, QUIET_SHARE, max) < max
}

/// A sentence for a server that did not quieten after its accept bursts: how much of a core
/// it used over one more second; none when that second was quiet or a stop was asked for.
fn still_busy(server: &Server) -> Option<String> {
    if crate::host::interrupt::stopping() {
        return None;
    }
    let before = sample_group(server.pgid()).cpu_seconds;
    std::thread::sleep(Duration::from_secs(1));
    let share = sample_group(server.pgid()).cpu_seconds - before;
    (share >= QUIET_SHARE).then(|| format!(
        "the server still used {:.0}% of a core with no client {} s after its accept bursts (steps measured it so)",
        share * 100.0,
        AFTER_BURSTS_MAX.as_secs()
    ))
}

/// Records how the search ended, with the reason a reader wants first.
fn end(cx: &Context, id: i64, ramp: &Ramp, ended: &Ended, steps: &[HeldStepRecord]) -> Result<()> {
    let Ended { status, ref why, by_arrival, ref busy } = *ended;
    let (passed, failed) = (ramp.passed.map(|p| p as u64), ramp.failed.map(|f| f as u64));
    let failed_step = failed.and_then(|f| steps.iter().find(|s| s.clients == f && s.verdict == "fail"));
    let last = steps.last().and_then(|s| s.reason.clone()).unwrap_or_default();
    let mut reason = match status {
        Status::Found => format!("found within {:.0}%", 100.0 * (failed.unwrap_or(0) as f64 / passed.unwrap_or(1) as f64 - 1.0)),
        Status::Steps => "the step limit (max_steps) was reached before the precision".into(),
        Status::Budget => "the time budget would have been exceeded by the next step".into(),
        Status::Limit if by_arrival => format!("every step passed up to what the arrivals bring, {why}"),
        Status::Limit if !why.is_empty() => format!("a limit was reached before any step failed: {why}"),
        Status::Limit | Status::Generator => format!("stopped: {last}"),
        Status::NoStart if why.is_empty() => format!("no step passed: {last}"),
        Status::Error => format!("a step could not be measured: {last}"),
        _ => why.to_string(),
    };
    if let (Some(s), false) = (failed_step, matches!(status, Status::NoStart)) {
        reason.push_str(&format!("; failed at {} clients: {}", s.clients, s.reason.clone().unwrap_or_default()));
    }
    if let Some(b) = busy {
        reason.push_str(&format!("; {b}"));
    }
    let ceiling = limits::ceiling(steps, meminfo("MemAvailable"));
    let _writing = interrupt::writing();
    cx.store.end_held_search(id, status.as_str(), passed, failed, &reason, by_arrival)?;
    cx.store.set_held_ceiling(id, &CeilingRecord { clients: ceiling.clients, limit: ceiling.limit })?;
    let held = match passed {
        None => "no clients held".to_string(),
        Some(c) if by_arrival => format!("at least {c} clients held"),
        Some(c) => format!("{c} clients held"),
    };
    println!("  → {held} ({}): {reason}", status.as_str());
    Ok(())
}

fn step_line(s: &HeldStepRecord) -> String {
    let kib = s.kib_per_client().map_or("-".into(), |k| format!("{k:.1} KiB/client"));
    let waiting = s.waiting_cpu_util.map_or("-".into(), |c| format!("{:.0}%", c * 100.0));
    format!(
        "  step {:<2} N={:<7} at {:>6.0}/s  answered {:>7}  errors {}  at once {:>7}  p99 {:.2} s  rss +{:.0} MiB ({kib})  server cpu waiting {waiting}  generator cpu {:.0}%  {}{}",
        s.n,
        s.clients,
        s.spawn_rate,
        s.successes,
        s.errors_total,
        s.peak_in_flight,
        s.latency_p99_us as f64 / 1e6,
        s.rss_peak_bytes.saturating_sub(s.rss_rest_bytes) as f64 / (1u64 << 20) as f64,
        s.gen_cpu_util * 100.0,
        s.verdict,
        s.reason.as_ref().map(|r| format!(": {r}")).unwrap_or_default()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_steps_queued_requests_are_waited_for_one_wait_per_pool_of_them() {
        let spec = HeldSpec::example(2000);
        let step = |successes, errors_total, verdict: &str| HeldStepRecord { successes, errors_total, verdict: verdict.into(), ..Default::default() };
        assert_eq!(drain(&spec, &step(256, 744, "fail")), Duration::from_secs(6), "744 queued, 256 served per wait");
        assert_eq!(drain(&spec, &step(13_428, 2_572, "fail")), Duration::from_secs(2));
        assert_eq!(drain(&spec, &step(0, 1000, "fail")), Duration::from_secs(10), "none answered: at most five waits");
        assert_eq!(drain(&spec, &step(1000, 0, "pass")), Duration::ZERO);
    }
}
