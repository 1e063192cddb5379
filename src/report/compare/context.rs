//! What else could explain a change: what differs between the runs besides
//! the runtime (profile, settings, machine, concur, toolchains), and the
//! runs' moments on the machine: how far apart they were taken, whether
//! every point moved the same way (the machine drifted, not the runtimes),
//! and whether the machine's floor was measured at all.

use super::types::{Compared, Difference, Drift, PointId, RunSide};
use crate::host::env::parse_rfc3339;
use crate::stats::noise::{NoiseFloor, percent};
use crate::store::{Environment, Generator, RunData};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// Points that must agree before the runs are said to have moved as a whole.
const WHOLE_RUN_POINTS: usize = 3;
/// The share of them that must move the same way.
const SAME_WAY: f64 = 0.8;
/// Runs further apart than this, on a machine whose drift σ is above
/// [`DRIFTING`], get a warning: a calibration sees minutes, not hours.
const FAR_APART_S: f64 = 3600.0;
const DRIFTING: f64 = 0.05;

/// What differs between the runs besides the runtime: the profile, the
/// compared points' settings in the plans, the machine, concur itself and
/// the compared implementations' toolchains.
pub fn differences(a: &RunData, b: &RunData, points: &[Compared]) -> Vec<Difference> {
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

/// The runs' moments on the machine, and the warnings they call for.
pub fn drift(a: &RunSide, b: &RunSide, points: &[Compared], floor: &NoiseFloor) -> Drift {
    let end_a = a.finished_at.as_deref().unwrap_or(&a.started_at);
    let apart_s = parse_rfc3339(&b.started_at).zip(parse_rfc3339(end_a)).map(|(sb, ea)| sb as f64 - ea as f64);
    let mut ratios: Vec<f64> = points.iter().filter_map(|c| c.throughput.ratio).collect();
    ratios.sort_by(f64::total_cmp);
    let shift = (!ratios.is_empty()).then(|| crate::report::spread::median(&ratios));
    let same_way = shift.map_or(0, |s| ratios.iter().filter(|r| (**r > 1.0) == (s > 1.0)).count());
    let mut warnings = Vec::new();
    if floor.is_default() {
        warnings.push(format!(
            "This machine has no calibration: every interval carries the default noise floor ({}). \
             `concur calibrate` measures this machine's (about 5 minutes), and every later verdict on it uses that.",
            floor.bands()
        ));
    }
    let whole = shift.filter(|s| ratios.len() >= WHOLE_RUN_POINTS && same_way as f64 >= SAME_WAY * ratios.len() as f64 && s.ln().abs() > floor.throughput_drift);
    if let Some(s) = whole {
        warnings.push(format!(
            "The runs moved as a whole: at the median point B's req/s changed by {:+.1}%, and {same_way} of {} points moved that way. \
             A shared machine drifts like this between runs{}; the floor discounts drift of a typical size, but across runs a runtime's \
             change and the machine's cannot be told apart. To compare two builds finely, measure both in one run (as two \
             implementations): their repeats interleave, and the machine's drift falls on both.",
            (s - 1.0) * 100.0,
            ratios.len(),
            apart_s.map_or(String::new(), |t| format!(" ({} apart here)", clock(t)))
        ));
    }
    if let Some(t) = apart_s.filter(|t| *t > FAR_APART_S && floor.throughput_drift > DRIFTING) {
        warnings.push(format!(
            "The runs were taken {} apart on a machine that drifts (a run's level ±{} at 95%): a calibration sees minutes, and over hours \
             the machine's state may move further than its floor. Take the two runs one after the other to compare them.",
            clock(t),
            percent(floor.of_throughput().drift * floor.of_throughput().quantile)
        ));
    }
    Drift { apart_s, shift, same_way, with_ratio: ratios.len(), warnings }
}

/// `2 h 05 min`, `12 min`, `40 s`.
fn clock(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    match s {
        0..=119 => format!("{s} s"),
        120..=3599 => format!("{} min", s / 60),
        _ => format!("{} h {:02} min", s / 3600, s % 3600 / 60),
    }
}
