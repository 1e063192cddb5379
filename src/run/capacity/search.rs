//! Running the planned searches: each on the warm server of its
//! implementation's first closed-loop point at its core count, right after
//! that point (`spec::hosts`, `ride`), or else after the run's points on a server
//! of its own, warmed up before its first step as a point of the scenario
//! would be (the profile's warm-up, the manifest's least, until steady).
//! Then steps (a warm-up at the step's rate on the
//! measurement's connections, then the sampled measurement, exactly as a
//! point with `-R`) chosen by the ramp, each stored as it ends. A stored,
//! unfinished search is continued by replaying its verdicts (`--resume`).

use crate::run::ramp::{Next, Ramp, Status, Verdict};
use crate::impls::Implementation;
use crate::load::RateCheck;
use crate::run::spec::{Plan, PointSpec, SearchSpec};
use crate::run::{interrupt, point};
use crate::server::Server;
use crate::store::capacity::{SearchRecord, StepRecord};
use crate::store::{PointRecord, Store};
use crate::run::database::Database;
use anyhow::Result;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::Path;

/// What the searches need from the sweep.
pub struct Context<'a> {
    pub store: &'a Store,
    pub run_id: i64,
    pub root: &'a Path,
    pub log_dir: &'a Path,
    /// Implementations built and verified in this run.
    pub ready: &'a BTreeMap<&'a str, &'a Implementation>,
    /// The run's database, for a search of a database scenario on a server of its own.
    pub database: &'a RefCell<Database>,
}

/// Runs every search of `plan` that has not ended; `false` when a stop was asked for.
pub fn run_all(cx: &Context, plan: &Plan) -> Result<bool> {
    let ended = cx.store.ended_searches(cx.run_id)?;
    // The run's points, read once: every search's start rate comes from them, and searches add none.
    let points = cx.store.load_run(cx.run_id)?.points;
    for spec in plan.searches.iter().filter(|s| !ended.contains(&s.key)) {
        if !one(cx, spec, &points, None)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Runs `searches` on the running server of point `host`, just measured; `false` when a stop
/// was asked for. A search that finds the server gone leaves the rest to `run_all`.
pub fn ride(cx: &Context, searches: &[&SearchSpec], host: &PointRecord, server: &mut Server) -> Result<bool> {
    for spec in searches {
        if !server.is_running() {
            break;
        }
        if !one(cx, spec, std::slice::from_ref(host), Some((&mut *server, host.key.as_str())))? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// One search, on `hosted` (the server of the point named, already warm) or a server of its
/// own; `false` when a stop was asked for (the steps measured so far are kept).
fn one(cx: &Context, spec: &SearchSpec, points: &[PointRecord], hosted: Option<(&mut Server, &str)>) -> Result<bool> {
    let (start_rate, start_from) = start(spec, points);
    let record = SearchRecord {
        key: spec.key.clone(),
        implementation: spec.implementation.clone(),
        scenario: spec.scenario.clone(),
        cores: spec.cores,
        connections: spec.connections,
        slo: spec.slo.to_string(),
        precision: spec.precision,
        start_rate,
        start_from,
        started_at: crate::host::env::now_rfc3339(),
        status: Status::Running.as_str().into(),
        ..SearchRecord::default()
    };
    let id = cx.store.begin_search(cx.run_id, &record)?;
    let stored = cx.store.search(cx.run_id, &spec.key)?.unwrap_or(record);
    let mut ramp = Ramp::new(stored.start_rate, spec.precision, spec.max_steps);
    for s in &stored.steps {
        ramp.record(s.rate, Verdict::parse(&s.verdict).unwrap_or(Verdict::Error), hopeless(s));
    }
    let mut steps = stored.steps;
    println!("capacity {}: {} within {}, from {:.0} req/s ({})", spec.key, spec.scenario, spec.slo, stored.start_rate, stored.start_from);
    let Some(imp) = cx.ready.get(spec.implementation.as_str()) else {
        end(cx, id, &ramp, Status::NoStart, &steps, "the implementation was not built and verified in this run")?;
        return Ok(true);
    };
    if let Next::Done(status) = ramp.next() {
        end(cx, id, &ramp, status, &steps, "")?;
        return Ok(true);
    }
    if let Some((server, host)) = hosted {
        println!("  on the server of point {host}, warm from its measurement");
        return match steps_loop(cx, spec, id, server, &mut ramp, &mut steps, true)? {
            Some(status) => end(cx, id, &ramp, status, &steps, "").map(|()| true),
            None => Ok(false),
        };
    }
    let log = cx.log_dir.join(format!("{}.log", spec.key.replace('/', "_")));
    let template = point_spec(spec, 0);
    let attached = cx.database.borrow_mut().attach(&template);
    let started = attached.and_then(|db| point::start(cx.root, imp, &template, &log, db.as_ref().map(|d| &d.given)));
    let mut server = match started.and_then(|mut s| s.wait_ready(point::READY_TIMEOUT).map(|()| s)) {
        Ok(server) => server,
        Err(e) => {
            if crate::host::interrupt::stopping() {
                return Ok(false);
            }
            end(cx, id, &ramp, Status::NoStart, &steps, &format!("the server did not start: {e:#}"))?;
            return Ok(true);
        }
    };
    let outcome = steps_loop(cx, spec, id, &mut server, &mut ramp, &mut steps, false);
    server.stop(point::STOP_GRACE);
    match outcome? {
        Some(status) => {
            end(cx, id, &ramp, status, &steps, "")?;
            Ok(true)
        }
        None => Ok(false),
    }
}

/// Measures steps until the ramp is done (its status) or a stop is asked for (`None`).
/// `warm`: the server needs no warm-up before the first step.
fn steps_loop(cx: &Context, spec: &SearchSpec, id: i64, server: &mut Server, ramp: &mut Ramp, steps: &mut Vec<StepRecord>, mut warm: bool) -> Result<Option<Status>> {
    loop {
        let rate = match ramp.next() {
            Next::Measure(rate) => rate,
            Next::Done(status) => return Ok(Some(status)),
        };
        if (steps.len() + 1) as f64 * spec.step_cost_s() > spec.budget_s {
            return Ok(Some(Status::Budget));
        }
        let n = steps.len() as u32 + 1;
        if !warm {
            warm_up(cx, spec, server)?;
            if crate::host::interrupt::stopping() {
                return Ok(None);
            }
            warm = true;
        }
        let pspec = point_spec(spec, rate as u32);
        let mut point = point::blank(&pspec);
        let result = point::load_phases(cx.root, &pspec, server, &mut point, None);
        if crate::host::interrupt::stopping() {
            return Ok(None);
        }
        let step = step_record(spec, n, rate, &point, result);
        {
            let _writing = interrupt::writing();
            cx.store.insert_search_step(id, &step)?;
        }
        println!("{}", step_line(&step));
        ramp.record(rate, Verdict::parse(&step.verdict).unwrap_or(Verdict::Error), hopeless(&step));
        if matches!(ramp.next(), Next::Measure(_)) {
            settle(&step);
        }
        steps.push(step);
    }
}

/// The fresh server's warm-up before its first step, as a point of the scenario gets it
/// (`SearchSpec::server_warmup_s`): a closed loop on the search's connections, which never
/// queues more than one request per connection, so a start rate too high for the server does
/// not leave it a backlog to work through during the first step. Its one measured second is
/// not kept.
fn warm_up(cx: &Context, spec: &SearchSpec, server: &mut Server) -> Result<()> {
    if spec.server_warmup_s <= 0.0 {
        return Ok(());
    }
    let mut pspec = point_spec(spec, 0);
    pspec.key = format!("{}/warm-up", spec.key);
    pspec.rate = None;
    pspec.level = format!("c={}", spec.connections);
    pspec.warmup_s = spec.server_warmup_s;
    pspec.warmup_max_s = spec.server_warmup_max_s.max(spec.server_warmup_s);
    pspec.duration_s = Some(1.0);
    let mut point = point::blank(&pspec);
    point::load_phases(cx.root, &pspec, server, &mut point, None)?;
    Ok(())
}

/// The start rate and where it came from: half the best closed-loop throughput of the
/// same implementation and scenario in this run (per server core when measured at
/// another core count), else of another scenario at the same core count (a request of a
/// scenario with state costs the server at least what hello's does, so that is a guide from
/// above: a start too high ramps down), else the profile's start. A closed loop with think
/// time measures its clients, not the server: it is no guide.
fn start(spec: &SearchSpec, points: &[PointRecord]) -> (f64, String) {
    let thinks = |p: &PointRecord| p.load_report.as_ref().and_then(|r| r["settings"]["think_time_s"].as_f64()).unwrap_or(0.0) > 0.0;
    let usable = |p: &&PointRecord| {
        p.implementation == spec.implementation
            && p.rate.is_none()
            && p.keepalive
            && p.generator.kind == crate::store::Generator::ConcurLoad
            && p.error.is_none()
            && !thinks(p)
    };
    let scaled = |p: &PointRecord| p.throughput() * f64::from(spec.cores) / f64::from(p.cores.max(1));
    let best = |same_scenario: bool, same_cores: bool| {
        points
            .iter()
            .filter(usable)
            .filter(|p| (p.scenario == spec.scenario) == same_scenario && (p.cores == spec.cores) == same_cores)
            .max_by(|a, b| scaled(a).total_cmp(&scaled(b)))
    };
    match best(true, true).or_else(|| best(true, false)).or_else(|| best(false, true)) {
        Some(p) if scaled(p) >= 2.0 => {
            let per_core = if p.cores == spec.cores { String::new() } else { format!(", scaled from {} to {} core(s)", p.cores, spec.cores) };
            let other = if p.scenario == spec.scenario { String::new() } else { format!(", scenario {}: none of {} in this run", p.scenario, spec.scenario) };
            ((scaled(p) * super::CLOSED_LOOP_SHARE).round(), format!("half the closed-loop throughput of {} ({:.0} req/s at {}{per_core}{other})", p.key, p.throughput(), p.level))
        }
        _ => (f64::from(spec.start_rate), "the profile's start rate: no closed-loop point without think time of the same implementation in this run".into()),
    }
}

/// A step as a point: the search's settings at `rate`, its warm-up fixed at `step_warmup`.
fn point_spec(spec: &SearchSpec, rate: u32) -> PointSpec {
    PointSpec {
        key: format!("{}/R={rate}", spec.key),
        implementation: spec.implementation.clone(),
        scenario: spec.scenario.clone(),
        cores: spec.cores,
        server_cpus: spec.server_cpus.clone(),
        generator_cpus: spec.generator_cpus.clone(),
        shared: spec.shared,
        level: format!("R={rate}"),
        connections: spec.connections,
        rate: Some(rate.max(1)),
        keepalive: true,
        repeat: 1,
        start: 0,
        warmup_s: spec.step_warmup_s,
        warmup_max_s: spec.step_warmup_s,
        duration_s: Some(spec.step_s),
        requests: None,
        timeout_s: spec.timeout_s,
        env: spec.env.clone(),
        generator: crate::store::Generator::ConcurLoad,
        locust: None,
        server_addr: spec.server_addr.clone(),
        server_netns: spec.server_netns.clone(),
        database_cpus: spec.database_cpus.clone(),
        after: None,
    }
}

/// What a step measured, and its verdict with the reasons.
fn step_record(spec: &SearchSpec, n: u32, rate: f64, point: &PointRecord, result: Result<Option<RateCheck>>) -> StepRecord {
    let mut latency = point.latency.clone();
    latency.histogram.clear();
    let mut step = StepRecord {
        n,
        rate,
        sent_per_s: 0.0,
        duration_s: point.duration_s,
        requests: point.requests,
        successes: point.successes,
        errors_total: point.errors_total,
        errors: point.errors.clone(),
        latency,
        unfinished_max_us: point.unfinished_age.max_us,
        server_cpu_util: point.server.cpu_util,
        rss_peak_bytes: point.server.rss_peak_bytes,
        gen_cpu_util: point.generator.cpu_util,
        gen_saturated: point.generator.saturated,
        verdict: String::new(),
        reason: None,
    };
    let (verdict, reasons) = match result {
        Err(e) => (Verdict::Error, vec![format!("{e:#}")]),
        Ok(check) => {
            step.sent_per_s = check.as_ref().map_or(point.throughput(), |c| c.sent_per_s);
            judge(spec, &step, check.as_ref().is_none_or(|c| c.reached))
        }
    };
    step.verdict = verdict.as_str().into();
    step.reason = (!reasons.is_empty()).then(|| reasons.join("; "));
    step
}

/// The verdict of a measured step; every reason it failed, first the one that decides.
fn judge(spec: &SearchSpec, s: &StepRecord, reached: bool) -> (Verdict, Vec<String>) {
    let mut reasons = Vec::new();
    if !reached && s.gen_saturated {
        reasons.push(format!(
            "generator saturated: it sent {:.0} of {:.0} req/s with its CPUs {:.0}% busy, so this limit is the generator's, not the server's",
            s.sent_per_s,
            s.rate,
            s.gen_cpu_util * 100.0
        ));
        return (Verdict::Generator, reasons);
    }
    if let Some(breach) = spec.slo.check(&s.latency) {
        reasons.push(breach.to_string());
    }
    // Unanswered past every limit, like an error: no latency the bound allows can come of it.
    if s.unfinished_max_us > spec.slo.widest_us() {
        reasons.push(format!(
            "{} requests unanswered at the step's end, the oldest for {} (over {})",
            s.latency.unfinished,
            ms(s.unfinished_max_us),
            ms(spec.slo.widest_us())
        ));
    }
    if s.latency.count == 0 {
        reasons.push("no response".into());
    }
    if s.errors_total > 0 {
        let kinds: Vec<String> = s.errors.iter().map(|(k, n)| format!("{n} {k}")).collect();
        reasons.push(format!("{} errors ({})", s.errors_total, kinds.join(", ")));
    }
    if !reached {
        reasons.push(format!("rate not reached: {:.0} of {:.0} req/s sent", s.sent_per_s, s.rate));
    }
    (if reasons.is_empty() { Verdict::Pass } else { Verdict::Fail }, reasons)
}

/// A failure no lower rate fixes: errors for at least half the requests sent (refused
/// connections, error statuses). No response at all is not one: a start rate far above the
/// server's capacity leaves every connection waiting in its queue, which a lower rate fixes.
fn hopeless(s: &StepRecord) -> bool {
    s.verdict == "fail" && s.requests > 0 && s.errors_total * 2 >= s.requests
}

/// After a failed step the server may still be working through the requests it queued (their
/// connections are gone): the next step waits that out, for about the slowest latency the
/// failed step saw, at most `SETTLE_MAX`, so that it does not measure the last one's backlog.
const SETTLE_MAX: std::time::Duration = std::time::Duration::from_secs(5);

fn settle(step: &StepRecord) {
    if step.verdict != "pass" {
        let slowest = std::time::Duration::from_micros(step.latency.max_us.max(step.latency.p99_us));
        let wait = if step.latency.count == 0 { SETTLE_MAX } else { slowest.min(SETTLE_MAX) };
        crate::host::interrupt::sleep_unless_stopping(wait);
    }
}

fn ms(us: u64) -> String {
    format!("{:.2} ms", us as f64 / 1000.0)
}

/// Records how the search ended, with the reason a reader wants first.
fn end(cx: &Context, id: i64, ramp: &Ramp, status: Status, steps: &[StepRecord], why: &str) -> Result<()> {
    let failed_step = ramp.failed.and_then(|f| steps.iter().find(|s| s.rate == f && s.verdict == "fail"));
    let last = steps.last();
    let mut reason = match status {
        Status::Found => format!("found within {:.0}%", 100.0 * (ramp.failed.unwrap_or(0.0) / ramp.passed.unwrap_or(1.0) - 1.0)),
        Status::Steps => "the step limit (max_steps) was reached before the precision".into(),
        Status::Budget => "the time budget would have been exceeded by the next step".into(),
        Status::Generator => format!("stopped: {}", last.and_then(|s| s.reason.clone()).unwrap_or_default()),
        Status::NoStart if why.is_empty() => format!("no step passed: {}", last.and_then(|s| s.reason.clone()).unwrap_or_default()),
        Status::Error => format!("a step could not be measured: {}", last.and_then(|s| s.reason.clone()).unwrap_or_default()),
        _ => why.to_string(),
    };
    if let (Some(s), false) = (failed_step, matches!(status, Status::NoStart)) {
        reason.push_str(&format!("; failed at {:.0} req/s: {}", s.rate, s.reason.clone().unwrap_or_default()));
    }
    let _writing = interrupt::writing();
    cx.store.end_search(id, status.as_str(), ramp.passed, ramp.failed, &reason)?;
    let capacity = ramp.passed.map_or("no capacity".to_string(), |c| format!("capacity {c:.0} req/s"));
    println!("  → {capacity} ({}): {reason}", status.as_str());
    Ok(())
}

fn step_line(s: &StepRecord) -> String {
    let ms = |us: u64| us as f64 / 1000.0;
    format!(
        "  step {:<2} R={:<7.0} sent {:>8.1}/s  p50 {:.2} ms  p99 {:.2} ms  max {:.2} ms  errors {}  server cpu {:.0}%  generator cpu {:.0}%  {}{}",
        s.n,
        s.rate,
        s.sent_per_s,
        ms(s.latency.p50_us),
        ms(s.latency.p99_us),
        ms(s.latency.max_us),
        s.errors_total,
        s.server_cpu_util * 100.0,
        s.gen_cpu_util * 100.0,
        s.verdict,
        s.reason.as_ref().map(|r| format!(": {r}")).unwrap_or_default()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::slo::Slo;

    fn spec(scenario: &str, cores: u32) -> SearchSpec {
        SearchSpec {
            key: format!("x/{scenario}/cores={cores}/capacity"),
            implementation: "x".into(),
            scenario: scenario.into(),
            cores,
            server_cpus: vec![0],
            generator_cpus: vec![1],
            shared: false,
            connections: 64,
            slo: Slo::parse("p99<=50ms").unwrap(),
            precision: 0.1,
            start_rate: 2000,
            step_s: 1.5,
            step_warmup_s: 0.0,
            server_warmup_s: 0.0,
            server_warmup_max_s: 0.0,
            max_steps: 8,
            budget_s: 12.0,
            timeout_s: 10.0,
            env: BTreeMap::new(),
            server_addr: None,
            server_netns: None,
            database_cpus: Vec::new(),
        }
    }

    fn point(scenario: &str, cores: u32, per_s: u64, think: bool) -> PointRecord {
        PointRecord {
            key: format!("x/{scenario}/cores={cores}/c=50/r1"),
            implementation: "x".into(),
            scenario: scenario.into(),
            cores,
            level: "c=50".into(),
            keepalive: true,
            duration_s: 1.0,
            successes: per_s,
            requests: per_s,
            load_report: think.then(|| serde_json::json!({ "settings": { "think_time_s": 1.0 } })),
            ..PointRecord::default()
        }
    }

    #[test]
    fn a_search_starts_from_its_scenario_then_its_scenario_at_other_cores_then_another_scenario_then_the_profile() {
        let hello1 = point("hello", 1, 40_000, false);
        let hello2 = point("hello", 2, 60_000, false);
        let userinfo1 = point("userinfo", 1, 900, true);
        assert_eq!(start(&spec("hello", 1), &[hello1.clone(), hello2.clone()]).0, 20_000.0);
        assert_eq!(start(&spec("hello", 1), std::slice::from_ref(&hello2)).0, 15_000.0, "scaled per core");
        let (rate, from) = start(&spec("userinfo", 1), &[hello1.clone(), hello2, userinfo1.clone()]);
        assert_eq!(rate, 20_000.0, "{from}");
        assert!(from.contains("scenario hello: none of userinfo"), "{from}");
        let (rate, from) = start(&spec("userinfo", 1), &[userinfo1]);
        assert_eq!(rate, 2000.0, "think time is no guide: {from}");
        assert_eq!(start(&spec("userinfo", 2), &[hello1]).0, 2000.0, "another scenario counts at the same cores only");
    }
}
