//! `concur compare RUN_A RUN_B`: whether run B (a new release of a runtime,
//! say) is faster or slower than run A, point by point. A point is an
//! implementation, scenario, core count and load level that both runs
//! measured; its repeats are the samples. Throughput and p99 latency each get
//! the ratio of the medians B/A with a bootstrap interval (`spread::Ratio`)
//! and a verdict. What else could explain a change (another profile, machine,
//! kernel or toolchain) is listed before the numbers. The comparison is plain
//! serde data: `--format json` prints it (spec/COMPARE.md) and the Markdown
//! is rendered from it.

use super::model::{KNOWN_MARK, distinct};
use super::spread::{Ratio, median_of};
use super::table::{Table, ms, rate};
use crate::store::{Environment, Generator, PointRecord, RunData, RunStatus, Store};
use anyhow::{Context, Result, bail};
use serde::Serialize;
use serde_json::Value;
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::ExitCode;

/// The version of the JSON shape; spec/COMPARE.md says what changes it.
pub const SCHEMA_VERSION: u32 = 1;

/// The points listed by name under "only in A/B" before the rest are only counted.
const LISTED: usize = 12;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Markdown,
    Json,
}

/// The whole comparison: what `--format json` prints.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub schema_version: u32,
    pub a: RunSide,
    pub b: RunSide,
    /// Two-sided coverage of every interval (0.95).
    pub coverage: f64,
    /// Bootstrap resamples per interval.
    pub resamples: usize,
    /// What differs between the runs besides the runtime under test.
    pub differences: Vec<Difference>,
    /// Points measured in both runs, in the runs' scenario order, then by implementation, cores and load.
    pub points: Vec<Compared>,
    pub summary: Totals,
    /// Repeats that could not be measured (their error set), of either run.
    pub failed: Vec<Failed>,
    /// Points measured (at least one repeat without error) in one run only.
    pub only_in_a: Vec<PointId>,
    pub only_in_b: Vec<PointId>,
}

/// One of the two runs.
#[derive(Debug, Clone, Serialize)]
pub struct RunSide {
    pub id: i64,
    /// Taken by default (B the latest run with points, A the one before it), not named on the command line.
    pub by_default: bool,
    pub started_at: String,
    pub finished_at: Option<String>,
    pub status: RunStatus,
    pub profile: String,
    pub plan_key: String,
    /// Point rows in the run, every repeat, failed ones included.
    pub point_rows: usize,
    pub environment: Environment,
}

/// Something other than the runtime under test that differs between the runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Difference {
    /// `profile`, `settings`, `cpu_model`, `logical_cpus`, `kernel`, `os`, `memory`, `concur` or `toolchain`.
    pub what: String,
    /// The scenario (`settings`) or implementation (`toolchain`) it concerns; null for the others.
    pub subject: Option<String>,
    pub a: String,
    pub b: String,
}

/// Where a point was measured, the repeat aside.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PointId {
    pub implementation: String,
    pub scenario: String,
    pub cores: u32,
    /// The load level as planned, e.g. `c=50`, `c=2/core`, `R=1000` (run B's when both runs have the point).
    pub level: String,
    /// Connections of a closed loop; null for an open loop.
    pub connections: Option<u32>,
    /// Target requests/s of an open loop; null for a closed loop.
    pub rate: Option<u32>,
    /// Requests reused their connections; false: a new connection per request (`Connection: close`).
    pub keepalive: bool,
    /// The load generator; left out for `concur-load`, the only one before `--generator` existed.
    #[serde(skip_serializing_if = "Generator::is_default")]
    pub generator: Generator,
}

/// One point measured in both runs.
#[derive(Debug, Clone, Serialize)]
pub struct Compared {
    #[serde(flatten)]
    pub point: PointId,
    /// Measured with known deviations from the contract (`known_failures`) in run A; in run B.
    pub known_deviations_a: bool,
    pub known_deviations_b: bool,
    /// Successful requests per second; higher is faster.
    pub throughput: Change,
    /// 99th-percentile latency in milliseconds; lower is faster.
    pub p99_ms: Change,
}

/// One quantity of one point in both runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    pub a_median: f64,
    pub b_median: f64,
    /// Every repeat without error, in the order measured.
    pub a_values: Vec<f64>,
    pub b_values: Vec<f64>,
    /// `b_median / a_median`; null when `a_median` is 0.
    pub ratio: Option<f64>,
    /// The ratio's bootstrap interval; null when there is no verdict.
    pub ratio_low: Option<f64>,
    pub ratio_high: Option<f64>,
    pub verdict: Verdict,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The interval lies entirely on the better side of 1.
    Faster,
    Slower,
    /// The interval holds 1: the repeats cannot tell the runs apart.
    WithinNoise,
    /// A run has a single repeat of the point: no interval.
    OneRepeat,
    /// Run A measured 0 (of several repeats), so there is no ratio.
    NoRatio,
}

impl Verdict {
    pub fn text(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::WithinNoise => "within noise",
            Verdict::OneRepeat => "one repeat: no verdict",
            Verdict::NoRatio => "A is 0: no verdict",
        }
    }
}

/// Verdicts counted over the compared points, for one quantity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    pub faster: usize,
    pub slower: usize,
    pub within_noise: usize,
    /// One repeat, or no ratio.
    pub no_verdict: usize,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Totals {
    pub throughput: Tally,
    pub p99_ms: Tally,
}

/// A repeat that could not be measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Failed {
    /// `a` or `b`.
    pub run: String,
    #[serde(flatten)]
    pub point: PointId,
    pub repeat: u32,
    /// The first line of its error.
    pub error: String,
}

/// `concur compare`: runs `a` and `b` of database `db` (none: the
/// repository's); a run not given is taken by default. Writes to `output`,
/// else prints.
pub fn compare_command(root: Option<&Path>, db: Option<&Path>, a: Option<i64>, b: Option<i64>, format: Format, output: Option<&Path>) -> Result<ExitCode> {
    let store = Store::open_existing(&super::database(root, db)?)?;
    let (a, b) = choose(&store, a, b)?;
    let mut comparison = compare(&load(&store, a.0)?, &load(&store, b.0)?);
    (comparison.a.by_default, comparison.b.by_default) = (a.1, b.1);
    let text = match format {
        Format::Markdown => markdown(&comparison),
        Format::Json => serde_json::to_string_pretty(&comparison)? + "\n",
    };
    match output {
        Some(path) => {
            std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
            println!("run {} compared with run {}: {}", b.0, a.0, path.display());
        }
        None => print!("{text}"),
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs A and B, each with whether it was taken by default.
fn choose(store: &Store, a: Option<i64>, b: Option<i64>) -> Result<((i64, bool), (i64, bool))> {
    let db = store.path().display();
    let mut with_points = Vec::new();
    for run in store.runs()? {
        if !store.point_keys(run.id)?.is_empty() {
            with_points.push(run.id);
        }
    }
    let before = |id: i64| with_points.iter().rev().copied().find(|&other| other < id);
    let b = match b {
        Some(id) => (id, false),
        None => {
            let latest = with_points.last().copied();
            (latest.with_context(|| format!("{db} holds no run with points yet: `concur run` twice (say, before and after upgrading a runtime), then compare"))?, true)
        }
    };
    let a = match a {
        Some(id) => (id, false),
        None => (
            before(b.0).with_context(|| {
                format!(
                    "{db} holds no run with points before run {}, so there is nothing to compare it with: `concur run` again, \
                     or name both runs (`concur compare RUN_A RUN_B`; `concur report --list` lists them)",
                    b.0
                )
            })?,
            true,
        ),
    };
    if a.0 == b.0 {
        let example = before(a.0).map_or(String::new(), |prev| format!(", e.g. `concur compare {prev} {}`", a.0));
        bail!("run {} is both RUN_A and RUN_B: name two different runs{example} (`concur report --list` lists them)", a.0);
    }
    Ok((a, b))
}

/// Loads a run that has points to compare.
fn load(store: &Store, id: i64) -> Result<RunData> {
    let data = store.load_run(id)?;
    if data.points.is_empty() {
        let why = if store.micro_results(id)?.is_empty() {
            format!("it holds no points (status {}, profile {})", data.run.status.as_str(), data.run.profile)
        } else {
            "it is a `concur micro` run, whose results `concur report` shows".to_string()
        };
        bail!("run {id} of {} cannot be compared: {why}; pick a run with points from `concur report --list`", store.path().display());
    }
    Ok(data)
}

/// A point's identity across runs; the repeat is a sample, not part of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Load {
    Connections(u32),
    Rate(u32),
}

/// Scenario rank (its place in the runs' order), implementation, cores, load, keep-alive, generator.
type Key = (usize, String, u32, Load, bool, Generator);

/// The repeats of one point in one run.
struct Repeats<'a> {
    id: PointId,
    ok: Vec<&'a PointRecord>,
}

/// Compares the points of two runs.
pub fn compare(a: &RunData, b: &RunData) -> Comparison {
    let scenarios = distinct(b.points.iter().chain(&a.points).map(|p| p.scenario.as_str()));
    let (in_a, in_b) = (by_point(&a.points, &scenarios), by_point(&b.points, &scenarios));
    let keys: BTreeSet<&Key> = in_a.keys().chain(in_b.keys()).collect();
    let mut comparison = Comparison {
        schema_version: SCHEMA_VERSION,
        a: side(a),
        b: side(b),
        coverage: super::spread::COVERAGE,
        resamples: super::spread::RESAMPLES,
        differences: Vec::new(),
        points: Vec::new(),
        summary: Totals::default(),
        failed: failed("a", a).chain(failed("b", b)).collect(),
        only_in_a: Vec::new(),
        only_in_b: Vec::new(),
    };
    for key in keys {
        match (in_a.get(key), in_b.get(key)) {
            (Some(x), Some(y)) => comparison.points.push(compared(a, b, x, y)),
            (Some(x), None) => comparison.only_in_a.push(x.id.clone()),
            (None, Some(y)) => comparison.only_in_b.push(y.id.clone()),
            (None, None) => {}
        }
    }
    for c in &comparison.points {
        count(&mut comparison.summary.throughput, c.throughput.verdict);
        count(&mut comparison.summary.p99_ms, c.p99_ms.verdict);
    }
    comparison.differences = differences(a, b, &comparison.points);
    comparison
}

/// The points of a run with at least one repeat measured, by key.
fn by_point<'a>(points: &'a [PointRecord], scenarios: &[&str]) -> BTreeMap<Key, Repeats<'a>> {
    let mut out: BTreeMap<Key, Repeats> = BTreeMap::new();
    for p in points.iter().filter(|p| p.error.is_none()) {
        let load = p.rate.map_or(Load::Connections(p.connections), Load::Rate);
        let rank = scenarios.iter().position(|s| *s == p.scenario).unwrap_or(usize::MAX);
        out.entry((rank, p.implementation.clone(), p.cores, load, p.keepalive, p.generator.kind)).or_insert_with(|| Repeats { id: point_id(p), ok: Vec::new() }).ok.push(p);
    }
    out
}

fn point_id(p: &PointRecord) -> PointId {
    PointId {
        implementation: p.implementation.clone(),
        scenario: p.scenario.clone(),
        cores: p.cores,
        level: p.level.clone(),
        connections: p.rate.is_none().then_some(p.connections),
        rate: p.rate,
        keepalive: p.keepalive,
        generator: p.generator.kind,
    }
}

fn side(data: &RunData) -> RunSide {
    let run = &data.run;
    RunSide {
        id: run.id,
        by_default: false,
        started_at: run.started_at.clone(),
        finished_at: run.finished_at.clone(),
        status: run.status,
        profile: run.profile.clone(),
        plan_key: run.plan_key.clone(),
        point_rows: data.points.len(),
        environment: run.environment.clone(),
    }
}

fn failed<'a>(run: &'a str, data: &'a RunData) -> impl Iterator<Item = Failed> + 'a {
    data.points.iter().filter_map(move |p| {
        let error = p.error.as_deref()?.lines().next().unwrap_or("").to_string();
        Some(Failed { run: run.to_string(), point: point_id(p), repeat: p.repeat, error })
    })
}

fn compared(a: &RunData, b: &RunData, x: &Repeats, y: &Repeats) -> Compared {
    let known = |data: &RunData| data.implementations.iter().any(|i| i.name == y.id.implementation && !i.known_failures.is_empty());
    let values = |r: &Repeats, f: &dyn Fn(&PointRecord) -> f64| r.ok.iter().map(|p| f(p)).collect::<Vec<f64>>();
    let p99 = |p: &PointRecord| p.latency.p99_us as f64 / 1000.0;
    Compared {
        point: y.id.clone(),
        known_deviations_a: known(a),
        known_deviations_b: known(b),
        throughput: change(values(x, &PointRecord::throughput), values(y, &PointRecord::throughput), true),
        p99_ms: change(values(x, &p99), values(y, &p99), false),
    }
}

/// The change from `a` to `b`; `higher_is_better` for throughput, not for latency.
pub fn change(a: Vec<f64>, b: Vec<f64>, higher_is_better: bool) -> Change {
    let ratio = Ratio::of(&a, &b);
    let verdict = match ratio.map(|r| r.against_one()) {
        _ if a.len() < 2 || b.len() < 2 => Verdict::OneRepeat,
        None | Some(None) => Verdict::NoRatio,
        Some(Some(Ordering::Equal)) => Verdict::WithinNoise,
        Some(Some(side)) if (side == Ordering::Greater) == higher_is_better => Verdict::Faster,
        Some(Some(_)) => Verdict::Slower,
    };
    let interval = ratio.filter(|_| matches!(verdict, Verdict::Faster | Verdict::Slower | Verdict::WithinNoise));
    Change {
        a_median: median_of(&a),
        b_median: median_of(&b),
        ratio: ratio.map(|r| r.ratio),
        ratio_low: interval.map(|r| r.lo),
        ratio_high: interval.map(|r| r.hi),
        verdict,
        a_values: a,
        b_values: b,
    }
}

fn count(t: &mut Tally, v: Verdict) {
    match v {
        Verdict::Faster => t.faster += 1,
        Verdict::Slower => t.slower += 1,
        Verdict::WithinNoise => t.within_noise += 1,
        Verdict::OneRepeat | Verdict::NoRatio => t.no_verdict += 1,
    }
}

/// What differs between the runs besides the runtime: the profile, the
/// compared points' settings in the plans, the machine, concur itself and
/// the compared implementations' toolchains.
fn differences(a: &RunData, b: &RunData, points: &[Compared]) -> Vec<Difference> {
    let mut out = Vec::new();
    let mut differ = |what: &str, subject: Option<&str>, x: String, y: String| {
        let d = Difference { what: what.into(), subject: subject.map(str::to_string), a: x, b: y };
        if d.a != d.b && !out.contains(&d) {
            out.push(d);
        }
    };
    differ("profile", None, a.run.profile.clone(), b.run.profile.clone());
    for c in points {
        if let (Some(x), Some(y)) = (settings(&a.run.plan, &c.point), settings(&b.run.plan, &c.point)) {
            differ("settings", Some(&c.point.scenario), x, y);
        }
    }
    let (ea, eb) = (&a.run.environment, &b.run.environment);
    differ("cpu_model", None, ea.cpu_model.clone(), eb.cpu_model.clone());
    differ("logical_cpus", None, ea.logical_cpus.to_string(), eb.logical_cpus.to_string());
    differ("kernel", None, ea.kernel.clone(), eb.kernel.clone());
    differ("os", None, ea.os.clone(), eb.os.clone());
    let gib = |e: &Environment| format!("{:.1} GiB", e.memory_bytes as f64 / (1u64 << 30) as f64);
    differ("memory", None, gib(ea), gib(eb));
    let concur = |e: &Environment| format!("{} ({}{})", e.concur_version, e.git_commit, if e.git_dirty { ", uncommitted changes" } else { "" });
    differ("concur", None, concur(ea), concur(eb));
    let names: BTreeSet<&str> = points.iter().map(|c| c.point.implementation.as_str()).collect();
    for name in names {
        let version = |e: &Environment| e.toolchains.get(name).cloned().unwrap_or_else(|| "—".into());
        differ("toolchain", Some(name), version(ea), version(eb));
    }
    out
}

/// How a plan measured a point (warm-up, length, timeout, server environment,
/// CPUs shared with the generator), as compact JSON; `None` when the plan
/// does not list the point.
fn settings(plan: &Value, id: &PointId) -> Option<String> {
    let spec = plan.get("points")?.as_array()?.iter().find(|p| {
        p["implementation"] == id.implementation.as_str()
            && p["scenario"] == id.scenario.as_str()
            && p["cores"] == id.cores
            && (p["rate"].as_u64() == id.rate.map(u64::from))
            && (id.rate.is_some() || p["connections"].as_u64() == id.connections.map(u64::from))
            && p["keepalive"].as_bool().unwrap_or(true) == id.keepalive
            && p["generator"].as_str().unwrap_or(Generator::ConcurLoad.as_str()) == id.generator.as_str()
    })?;
    let keep: BTreeMap<&str, &Value> = ["warmup_s", "duration_s", "requests", "timeout_s", "env", "shared"].into_iter().map(|k| (k, &spec[k])).collect();
    serde_json::to_string(&keep).ok()
}

impl PointId {
    /// `alpha/hello/cores=2/c=50`, as point keys read.
    pub fn label(&self) -> String {
        format!("{}/{}/cores={}/{}", self.implementation, self.scenario, self.cores, self.level)
    }
}

/// The comparison as Markdown: the runs, what differs, a table per scenario,
/// the summary, then failed points and points in one run only.
pub fn markdown(c: &Comparison) -> String {
    let mut out = format!("# Concur compare: run {} (A) → run {} (B)\n\n", c.a.id, c.b.id);
    let run = |s: &RunSide| format!("run {}, profile {}, started {} ({})", s.id, s.profile, s.started_at, s.status.as_str());
    out += &format!("A: {}. B: {}.", run(&c.a), run(&c.b));
    out += match (c.a.by_default, c.b.by_default) {
        (true, true) => " B is the latest run with points and A the one before it: the defaults (`concur compare RUN_A RUN_B` names others).",
        (false, true) => " B is the latest run with points: the default (`concur compare RUN_A RUN_B` names another).",
        _ => "",
    };
    out += &format!(
        "\n\nEach change is B/A − 1 of the medians over repeats, with a {:.0}% percentile-bootstrap interval (each run's repeats \
         resampled independently, {} times, with a fixed seed). faster or slower: the interval lies entirely on one side of 0 \
         (for p99 latency a drop is faster); within noise: it holds 0.\n\n",
        c.coverage * 100.0,
        c.resamples
    );
    if !c.differences.is_empty() {
        out += "## The runs differ\n\nA change below may come from these rather than from the runtime:\n\n";
        for d in &c.differences {
            let subject = d.subject.as_ref().map_or(String::new(), |s| format!(" of {s}"));
            out += &format!("- {}{subject}: {} (A), {} (B)\n", d.what, d.a, d.b);
        }
        out += "\n";
    }
    out += "## Points measured in both runs\n\n";
    if c.points.is_empty() {
        out += "None: the runs share no implementation, scenario, core count and load level.\n\n";
    }
    for scenario in distinct(c.points.iter().map(|p| p.point.scenario.as_str())) {
        out += &table(c, scenario).markdown();
    }
    if c.points.iter().any(|p| p.known_deviations_a || p.known_deviations_b) {
        out += &format!("{KNOWN_MARK}: measured with known deviations from the contract in run A, B or both (its concur.toml's [known_failures]; `concur report --run ID` shows them).\n\n");
    }
    out += &format!("Summary: req/s {}; p99 {}.\n\n", tally(&c.summary.throughput), tally(&c.summary.p99_ms));
    if !c.failed.is_empty() {
        out += "## Failed repeats, not compared\n\n";
        for f in &c.failed {
            out += &format!("- {}: {} r{}: {}\n", f.run.to_uppercase(), f.point.label(), f.repeat, f.error);
        }
        out += "\n";
    }
    for (name, only) in [("A", &c.only_in_a), ("B", &c.only_in_b)] {
        if !only.is_empty() {
            let mut names: Vec<String> = only.iter().take(LISTED).map(PointId::label).collect();
            if only.len() > LISTED {
                names.push(format!("and {} more", only.len() - LISTED));
            }
            out += &format!("Only in {name}: {} point(s): {}.\n\n", only.len(), names.join(", "));
        }
    }
    out.trim_end().to_string() + "\n"
}

fn table(c: &Comparison, scenario: &str) -> Table {
    let header = ["implementation", "cores", "level", "A req/s", "B req/s", "req/s change [95%]", "req/s verdict", "A p99 ms", "B p99 ms", "p99 change [95%]", "p99 verdict"];
    let mut t = Table::new(scenario, &header).text_column(2).text_column(6).text_column(10);
    for p in c.points.iter().filter(|p| p.point.scenario == scenario) {
        let name = &p.point.implementation;
        let label = if p.known_deviations_a || p.known_deviations_b { format!("{name} {KNOWN_MARK}") } else { name.clone() };
        let (x, y) = (&p.throughput, &p.p99_ms);
        t.row(vec![
            label,
            p.point.cores.to_string(),
            p.point.level.clone(),
            rate(x.a_median),
            rate(x.b_median),
            percent(x),
            x.verdict.text().into(),
            ms(y.a_median),
            ms(y.b_median),
            percent(y),
            y.verdict.text().into(),
        ]);
    }
    t
}

/// `-30.0% [-31.2%, -28.9%]`; no interval without a verdict.
fn percent(c: &Change) -> String {
    let pct = |r: f64| format!("{:+.1}%", (r - 1.0) * 100.0);
    match (c.ratio, c.ratio_low, c.ratio_high) {
        (Some(r), Some(lo), Some(hi)) => format!("{} [{}, {}]", pct(r), pct(lo), pct(hi)),
        (Some(r), _, _) => pct(r),
        _ => "—".into(),
    }
}

fn tally(t: &Tally) -> String {
    let mut s = format!("{} faster, {} slower, {} within noise", t.faster, t.slower, t.within_noise);
    if t.no_verdict > 0 {
        s += &format!(", {} without verdict", t.no_verdict);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{ImplRecord, ImplStatus, KnownFailure, RunInfo};

    /// A repeat of `imp`'s hello at 1 core and 50 connections: `rps` req/s, `p99_ms` p99.
    fn point(imp: &str, scenario: &str, repeat: u32, rps: f64, p99_ms: f64) -> PointRecord {
        let mut p = PointRecord {
            key: format!("{imp}/{scenario}/cores=1/c=50/r{repeat}"),
            implementation: imp.into(),
            scenario: scenario.into(),
            cores: 1,
            connections: 50,
            level: "c=50".into(),
            repeat,
            duration_s: 10.0,
            successes: (rps * 10.0) as u64,
            ..PointRecord::default()
        };
        p.latency.p99_us = (p99_ms * 1000.0) as u64;
        p
    }

    fn run(id: i64, points: Vec<PointRecord>) -> RunData {
        let run = RunInfo {
            id,
            started_at: format!("2025-03-0{id}T10:00:00Z"),
            finished_at: None,
            status: RunStatus::Finished,
            profile: "quick".into(),
            plan_key: "k".into(),
            plan: serde_json::json!({}),
            environment: Environment { cpu_model: "Test CPU".into(), toolchains: [("alpha".to_string(), "alpha 1.0".to_string())].into(), ..Environment::default() },
            notes: vec![],
        };
        RunData { run, implementations: vec![], points }
    }

    #[test]
    fn a_thirty_percent_regression_with_tight_repeats_is_slower() {
        let c = change(vec![10_000.0, 10_100.0, 9_950.0], vec![7_000.0, 7_050.0, 6_980.0], true);
        assert_eq!(c.verdict, Verdict::Slower, "{c:?}");
        assert!((c.ratio.unwrap() - 0.70).abs() < 0.01 && c.ratio_high.unwrap() < 0.75, "{c:?}");
        assert_eq!(percent(&c).split(' ').next(), Some("-30.0%"));
        assert_eq!(change(vec![7_000.0, 7_050.0, 6_980.0], vec![10_000.0, 10_100.0, 9_950.0], true).verdict, Verdict::Faster);
    }

    #[test]
    fn noisy_overlapping_repeats_are_within_noise() {
        let c = change(vec![10_000.0, 12_500.0, 8_000.0, 11_000.0], vec![9_500.0, 13_000.0, 8_500.0, 10_200.0], true);
        assert_eq!(c.verdict, Verdict::WithinNoise, "{c:?}");
        assert!(c.ratio_low.unwrap() < 1.0 && c.ratio_high.unwrap() > 1.0);
    }

    #[test]
    fn one_repeat_on_either_side_gives_no_verdict_and_no_interval() {
        for (a, b) in [(vec![100.0], vec![50.0, 51.0, 49.0]), (vec![100.0, 101.0, 99.0], vec![50.0])] {
            let c = change(a, b, true);
            assert_eq!((c.verdict, c.ratio_low, c.ratio_high), (Verdict::OneRepeat, None, None), "{c:?}");
            assert_eq!(percent(&c), "-50.0%");
        }
        assert_eq!(change(vec![0.0, 0.0], vec![5.0, 6.0], true).verdict, Verdict::NoRatio);
    }

    #[test]
    fn a_higher_p99_is_slower_and_a_lower_one_faster() {
        assert_eq!(change(vec![2.0, 2.05, 1.98], vec![2.6, 2.62, 2.58], false).verdict, Verdict::Slower);
        assert_eq!(change(vec![2.6, 2.62, 2.58], vec![2.0, 2.05, 1.98], false).verdict, Verdict::Faster);
    }

    #[test]
    fn shared_points_are_compared_and_the_rest_sorted_out() {
        let mut a = vec![point("alpha", "hello", 1, 1000.0, 2.0), point("alpha", "hello", 2, 1010.0, 2.1), point("alpha", "hello", 3, 990.0, 2.0)];
        a.push(point("alpha", "json", 1, 500.0, 3.0));
        let mut broken = point("beta", "hello", 1, 0.0, 0.0);
        broken.error = Some("the server exited during the measurement\nlog tail".into());
        let mut b = vec![point("alpha", "hello", 1, 700.0, 2.0), point("alpha", "hello", 2, 705.0, 2.0), point("alpha", "hello", 3, 695.0, 2.1), broken];
        b.push(point("gamma", "page", 1, 10.0, 9.0));
        let (mut ra, rb) = (run(1, a), run(2, b));
        ra.implementations.push(ImplRecord {
            name: "alpha".into(),
            status: ImplStatus::Verified,
            reason: None,
            version: "alpha 1.0".into(),
            manifest: crate::impls::manifest::parse(
                Path::new("concur.toml"),
                "name = \"alpha\"\nlanguage = \"L\"\nruntime = \"R\"\nversion = \"true\"\nframework = \"none\"\nmodel = \"event-loop\"\n[start]\ncommand = \"./s\"\n",
                "alpha",
            )
            .unwrap(),
            known_failures: vec![KnownFailure { check: "pipelining".into(), cores: 1, detail: "d".into(), reason: "r".into() }],
        });
        let c = compare(&ra, &rb);
        assert_eq!(c.points.len(), 1);
        let p = &c.points[0];
        assert_eq!((p.point.label(), p.throughput.verdict, p.known_deviations_a, p.known_deviations_b), ("alpha/hello/cores=1/c=50".into(), Verdict::Slower, true, false));
        assert_eq!(c.summary.throughput, Tally { slower: 1, ..Tally::default() });
        assert_eq!(c.failed.len(), 1);
        assert_eq!((c.failed[0].run.as_str(), c.failed[0].error.as_str()), ("b", "the server exited during the measurement"));
        assert_eq!(c.only_in_a.iter().map(PointId::label).collect::<Vec<_>>(), ["alpha/json/cores=1/c=50"]);
        assert_eq!(c.only_in_b.iter().map(PointId::label).collect::<Vec<_>>(), ["gamma/page/cores=1/c=50"]);
        assert!(c.differences.is_empty(), "{:?}", c.differences);
        let md = markdown(&c);
        assert!(md.contains("| alpha † | 1 | c=50 | 1,000 | 700 | -30.0% ["), "{md}");
        assert!(md.contains("Only in A: 1 point(s): alpha/json/cores=1/c=50."), "{md}");
        assert!(md.contains("- B: beta/hello/cores=1/c=50 r1: the server exited during the measurement"), "{md}");
    }

    #[test]
    fn an_open_loop_point_matches_by_rate_not_by_its_connection_cap() {
        let open = |repeat, connections, rps| PointRecord { rate: Some(1000), connections, level: "R=1000".into(), ..point("alpha", "hello", repeat, rps, 1.0) };
        let c = compare(&run(1, vec![open(1, 64, 990.0), open(2, 64, 995.0)]), &run(2, vec![open(1, 128, 998.0), open(2, 128, 999.0)]));
        assert_eq!(c.points.len(), 1, "{:?} {:?}", c.only_in_a, c.only_in_b);
        assert_eq!((c.points[0].point.rate, c.points[0].point.connections), (Some(1000), None));
    }

    #[test]
    fn keep_alive_and_close_points_are_never_compared_with_each_other() {
        let close = |repeat, rps| PointRecord { keepalive: false, level: "c=50 close".into(), ..point("alpha", "hello", repeat, rps, 9.0) };
        let a = run(1, vec![point("alpha", "hello", 1, 10_000.0, 1.0), point("alpha", "hello", 2, 10_100.0, 1.0), close(1, 3_000.0), close(2, 3_050.0)]);
        let b = run(2, vec![point("alpha", "hello", 1, 10_050.0, 1.0), point("alpha", "hello", 2, 10_000.0, 1.0), close(1, 3_020.0), close(2, 3_010.0)]);
        let c = compare(&a, &b);
        let pairs: Vec<(bool, f64)> = c.points.iter().map(|p| (p.point.keepalive, p.throughput.a_median)).collect();
        assert_eq!(pairs, [(false, 3_025.0), (true, 10_050.0)], "{:?}", c.points);
        assert!(c.points.iter().all(|p| p.throughput.verdict == Verdict::WithinNoise), "{:?}", c.points);
    }

    #[test]
    fn the_machine_profile_settings_and_toolchains_that_differ_are_named() {
        let (mut a, mut b) = (run(1, vec![point("alpha", "hello", 1, 1000.0, 2.0)]), run(2, vec![point("alpha", "hello", 1, 990.0, 2.0)]));
        b.run.profile = "standard".into();
        b.run.environment.kernel = "Linux 6.12".into();
        b.run.environment.toolchains.insert("alpha".into(), "alpha 1.1".into());
        let spec = |duration: f64| serde_json::json!({"points": [{"implementation": "alpha", "scenario": "hello", "cores": 1, "connections": 50, "rate": null,
            "warmup_s": 1.0, "duration_s": duration, "requests": null, "timeout_s": 30.0, "env": {}, "shared": false}]});
        (a.run.plan, b.run.plan) = (spec(5.0), spec(30.0));
        let c = compare(&a, &b);
        let what: Vec<(&str, Option<&str>)> = c.differences.iter().map(|d| (d.what.as_str(), d.subject.as_deref())).collect();
        assert_eq!(what, [("profile", None), ("settings", Some("hello")), ("kernel", None), ("toolchain", Some("alpha"))]);
        assert!(c.differences[1].a.contains("\"duration_s\":5.0") && c.differences[1].b.contains("\"duration_s\":30.0"), "{:?}", c.differences[1]);
        assert!(markdown(&c).contains("- toolchain of alpha: alpha 1.0 (A), alpha 1.1 (B)"));
    }
}
