//! The one place `run` meets `load`: a point's settings become a
//! `LoadPlan` (the plan `concur load --scenario … -c … -t … --cpus …` would
//! resolve, so a point can be replayed by hand), and a `LoadReport` becomes
//! the counted fields of a `PointRecord`.

use super::spec::{PointSpec, ScenarioInfo};
use crate::load::{Control, LoadPlan, LoadReport, Period, Scenario, StopAt, Warmup, WarmupReport};
use crate::store::{PointRecord, SecondRecord, StepRecord};
use crate::stats::{ErrorCounts, ErrorKind};
use anyhow::Result;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// Scenarios in the order a sweep takes them: the simplest first.
const ORDER: &[&str] = &["hello", "json", "page", "userinfo", "password", "longpoll", "db", "fortunes", "queries", "updates", "slowdb"];

/// Every scenario: the built-in ones, and any other file in `spec/scenarios/`.
pub fn catalog(root: &Path) -> Result<Vec<ScenarioInfo>> {
    let mut names: Vec<String> = ORDER.iter().map(|s| s.to_string()).collect();
    let mut extra: Vec<String> = std::fs::read_dir(root.join("spec/scenarios"))
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".toml").map(str::to_string))
        .filter(|n| !names.contains(n))
        .collect();
    extra.sort();
    names.extend(extra);
    names.iter().map(|name| info(&Scenario::load(&reference(root, name))?)).collect()
}

/// What `Scenario::load` is given: the repository's file when there is one, else the built-in name.
pub fn reference(root: &Path, name: &str) -> String {
    let file = root.join("spec/scenarios").join(format!("{name}.toml"));
    if file.is_file() { file.display().to_string() } else { name.to_string() }
}

fn info(s: &Scenario) -> Result<ScenarioInfo> {
    Ok(ScenarioInfo {
        name: s.name.clone(),
        description: s.description.clone(),
        connections: s.connections.unwrap_or(50) as u32,
        duration_s: s.duration.map(|d| d.as_secs_f64()),
        requests: s.requests,
        timeout_s: s.timeout.map(|d| d.as_secs_f64()),
        database: s.steps.iter().any(|step| crate::db::is_database_route(&step.path)),
        timer: s.steps.iter().find_map(|step| super::spec::timer_of(&step.path)),
    })
}

/// The load plan of a point against the server at `addr`: its warm-up, then its measurement, on the same connections.
pub fn plan(root: &Path, spec: &PointSpec, addr: std::net::SocketAddr) -> Result<LoadPlan> {
    let secs = Duration::from_secs_f64;
    let mut plan = LoadPlan::get(&format!("http://{addr}/"))?;
    let scenario = Scenario::load(&reference(root, &spec.scenario))?;
    plan.apply_scenario(&scenario);
    plan.connections = spec.connections as usize;
    plan.threads = spec.generator_cpus.len().max(1);
    match (spec.duration_s, spec.requests) {
        (Some(d), _) => plan.stop = StopAt::Duration(secs(d)),
        (None, Some(n)) => plan.stop = StopAt::Count(n),
        (None, None) => {}
    }
    let period = info(&scenario)?.wait_s(&spec.env).map(|wait| Period {
        seconds: wait.ceil() as u64,
        answers: spec.rate.map_or(u64::from(spec.connections), |r| (f64::from(r) * wait) as u64),
    });
    plan.warmup = (spec.warmup_s > 0.0).then(|| Warmup { min: secs(spec.warmup_s), max: secs(spec.warmup_max_s.max(spec.warmup_s)), period });
    plan.rate = spec.rate.map(f64::from);
    plan.keepalive = spec.keepalive;
    plan.timeout = secs(spec.timeout_s);
    plan.cpus = spec.generator_cpus.clone();
    plan.fill_users(None)?;
    plan.validate()?;
    Ok(plan)
}

/// Runs one load with `control`, stoppable by the interrupt handler.
pub fn run(plan: &LoadPlan, control: &Arc<Control>) -> Result<LoadReport> {
    let _watch = super::interrupt::Watch::new(Arc::clone(control));
    crate::load::run(plan, control)
}

/// The generator's CPU seconds in a report.
pub fn generator_cpu_seconds(report: &LoadReport) -> f64 {
    report.cpu.user_s + report.cpu.system_s
}

/// Copies the counted fields of `report` into `point` (made by `point::blank`).
pub fn fill(point: &mut PointRecord, report: &LoadReport) {
    let statuses: u64 = report.errors_by_kind.status.values().sum();
    point.duration_s = report.elapsed_s;
    point.keepalive = report.settings.keepalive;
    point.successes = report.requests;
    point.requests = report.requests + statuses;
    point.errors_total = report.errors;
    point.errors = error_counts(&report.errors_by_kind);
    point.latency = report.latency.clone();
    point.unfinished_age = report.unfinished_age.clone();
    point.steps = report
        .steps
        .iter()
        .map(|s| StepRecord { name: s.name.clone(), successes: s.requests, errors: s.errors, latency: s.latency.clone() })
        .collect();
    point.timeline = report.timeline.iter().map(|s| SecondRecord { requests: s.requests, errors: s.errors }).collect();
    point.warnings.extend(report.warnings.iter().cloned());
    point.warnings.extend(unfinished_warning(report));
    if let Some(rate) = report.rate.as_ref().filter(|r| !r.reached) {
        point.warnings.push(format!("the target rate of {:.0}/s was not reached: {:.0}/s were sent", rate.target_per_s, rate.sent_per_s));
    }
    if let Some(w) = report.warmup.as_ref() {
        let asked = point.warmup_s;
        point.warmup_s = w.seconds;
        point.warnings.extend(warmup_warning(asked, w));
    }
    point.load_report = serde_json::to_value(report).ok();
}

/// Requests left unanswered in such numbers or for so long that some percentiles are only known as lower bounds.
fn unfinished_warning(report: &LoadReport) -> Option<String> {
    let bounds = &report.latency.lower_bounds;
    if bounds.is_empty() {
        return None;
    }
    Some(format!(
        "{} requests were unanswered at the end, the oldest for {:.1} s: {} {} only known to be at least that",
        report.unfinished,
        report.unfinished_age.max_us as f64 / 1e6,
        bounds.join(", "),
        if bounds.len() == 1 { "is" } else { "are" }
    ))
}

/// A warm-up that ran to its maximum without throughput becoming steady; `asked` is the
/// warm-up's minimum. One that ended at its minimum was fixed (its maximum is its minimum, as
/// `quick` asks): it was not cut short, and says nothing about steadiness.
fn warmup_warning(asked: f64, w: &WarmupReport) -> Option<String> {
    if w.steady || w.seconds <= asked.ceil() {
        return None;
    }
    let last: Vec<String> = w.per_second.iter().rev().take(3).rev().map(u64::to_string).collect();
    Some(format!(
        "the warm-up ended at its maximum of {} s before throughput was steady (its last seconds: {} requests): \
         the measurement may understate the warm server",
        w.seconds,
        last.join(", ")
    ))
}

pub fn error_counts(counts: &ErrorCounts) -> BTreeMap<String, u64> {
    let mut map: BTreeMap<String, u64> =
        ErrorKind::ALL.iter().filter(|&&k| counts.get(k) > 0).map(|&k| (k.name().to_string(), counts.get(k))).collect();
    map.extend(counts.status.iter().map(|(code, n)| (format!("status {code}"), *n)));
    map
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(keepalive: bool) -> PointSpec {
        PointSpec {
            key: "demo/hello/cores=1/c=50/close/r1".into(),
            implementation: "demo".into(),
            scenario: "hello".into(),
            cores: 1,
            server_cpus: vec![0],
            generator_cpus: vec![0],
            shared: true,
            level: "c=50 close".into(),
            connections: 50,
            rate: None,
            keepalive,
            repeat: 1,
            start: 0,
            warmup_s: 1.0,
            warmup_max_s: 20.0,
            duration_s: Some(3.0),
            requests: None,
            timeout_s: 10.0,
            env: BTreeMap::new(),
            generator: Default::default(),
            locust: None,
            server_addr: None,
            server_netns: None,
            database_cpus: Vec::new(),
            after: None,
        }
    }

    #[test]
    fn only_a_warm_up_cut_short_at_its_maximum_is_a_warning() {
        let w = |seconds: f64, steady: bool| WarmupReport { seconds, steady, per_second: vec![900, 1000, 1200] };
        let cut = warmup_warning(1.0, &w(20.0, false)).unwrap();
        assert!(cut.contains("maximum of 20 s") && cut.contains("900, 1000, 1200"), "{cut}");
        assert_eq!(warmup_warning(1.0, &w(6.0, true)), None, "steady");
        assert_eq!(warmup_warning(2.0, &w(2.0, false)), None, "fixed at 2 s: its minimum is its maximum");
        assert_eq!(warmup_warning(15.0, &w(15.0, false)), None, "a manifest's least, fixed");
    }

    #[test]
    fn a_close_mode_point_loads_without_keep_alive_warm_up_included() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let at = std::net::SocketAddr::from(([127, 0, 0, 1], 8080));
        let close = plan(root, &spec(false), at).unwrap();
        assert!(!close.keepalive);
        assert_eq!((close.connections, close.threads), (50, 1));
        assert_eq!(close.warmup, Some(Warmup { min: Duration::from_secs(1), max: Duration::from_secs(20), period: None }));
        assert!(plan(root, &spec(true), at).unwrap().keepalive);
    }
}
