//! The measurements a claim's side has in the stored results: an HTTP run's
//! points (one scenario, level, implementation and core count, their
//! repeats) or a micro run's results (one benchmark, its fixed parameters,
//! implementation and core count), as an `interval::Sample` with the noise
//! floor it is judged on, and what a reader must know about it: repeats that
//! failed, a generator that saturated, a percentile that is only a lower
//! bound. When a side has nothing, why: the implementation failed to build
//! or verify, or the run did not measure that point.

use super::claims::{Metric, Side, Subject};
use crate::stats::blocks::{self, Design, Measurement};
use crate::stats::interval::Sample;
use crate::stats::noise::{Floor, NoiseFloor};
use crate::store::micro::{MicroRecord, MicroStatus, SearchRecord, SearchStop};
use crate::store::{ImplRecord, PointRecord, RunData, Store};
use anyhow::Result;
use std::collections::BTreeMap;

/// Everything a verdict may read: the HTTP run reported on, the micro run
/// beside it, and the machine's noise floor.
pub struct Results {
    pub http: Option<RunData>,
    pub micro: Option<MicroResults>,
    pub floor: NoiseFloor,
}

/// A micro run's results, as `concur micro` stored them.
pub struct MicroResults {
    pub run_id: i64,
    pub implementations: Vec<ImplRecord>,
    pub results: Vec<MicroRecord>,
    pub searches: Vec<SearchRecord>,
}

/// One side at one core count (and, for a peak, one value of the swept parameter).
pub(crate) enum Got {
    Measured(Measured),
    /// Why there is nothing to judge.
    Missing(String),
}

pub(crate) struct Measured {
    pub sample: Sample,
    pub floor: Floor,
    /// An interval known without statistics (a maximum-processes search: at
    /// least its largest N, below the N that failed), used instead of the sample's.
    pub bounds: Option<(f64, f64)>,
    /// The block design of the side's group (every implementation measured
    /// at the same point, a block a repeat's number), when it has two
    /// blocks or more: the side is its row named as the implementation.
    pub design: Option<Grouped>,
    pub notes: Vec<String>,
}

/// A block design and the group it was fitted to, so that two sides of one group are compared block by block.
pub(crate) struct Grouped {
    pub group: String,
    pub design: Box<Design>,
    pub row: String,
}

/// The design of `measurements` (one group's), with the row of `name`.
fn grouped(group: String, measurements: &[Measurement], name: &str) -> Option<Grouped> {
    let design = blocks::fit(&blocks::rows(measurements)?)?;
    design.names.iter().any(|n| n == name).then(|| Grouped { group, design: Box::new(design), row: name.to_string() })
}

/// Where a side is looked up: the core count and, for a peak, the swept parameter's value.
pub(crate) struct At<'a> {
    pub cores: u32,
    pub sweep: Option<(&'a str, u64)>,
}

impl Results {
    /// The HTTP run `http` (none: no HTTP run), the newest micro run, and
    /// the noise floor of the HTTP run's machine (the default without one).
    pub fn load(store: &Store, http: Option<i64>) -> Result<Results> {
        let http = http.map(|id| store.load_run(id)).transpose()?;
        let floor = match &http {
            Some(run) => store.floor_for(&run.run.environment)?,
            None => NoiseFloor::default_floor(),
        };
        let micro = match store.latest_micro_run_id()? {
            Some(id) => {
                Some(MicroResults { run_id: id, implementations: store.load_run(id)?.implementations, results: store.micro_results(id)?, searches: store.micro_searches(id)? })
            }
            None => None,
        };
        Ok(Results { http, micro, floor })
    }

    /// The load level an HTTP claim is judged at: its own, else the first of
    /// the run (in the order measured) at which every side has a point, else
    /// the first with any of them.
    pub(crate) fn level(&self, scenario: &str, level: Option<&str>, sides: &[&Side]) -> Option<String> {
        if let Some(level) = level {
            return Some(level.to_string());
        }
        let run = self.http.as_ref()?;
        let mut levels: Vec<&str> = Vec::new();
        for p in run.points.iter().filter(|p| p.scenario == scenario) {
            if !levels.contains(&p.level.as_str()) {
                levels.push(&p.level);
            }
        }
        let has = |level: &str, side: &Side| run.points.iter().any(|p| p.scenario == scenario && p.level == level && p.implementation == side.implementation);
        levels.iter().find(|l| sides.iter().all(|s| has(l, s))).or(levels.iter().find(|l| sides.iter().any(|s| has(l, s)))).map(|l| l.to_string())
    }

    /// Why none of `names` has a result for the subject, when none has.
    pub(crate) fn none_of(&self, subject: &Subject, names: &[&str]) -> Option<String> {
        let list = names.join(", ");
        match subject {
            Subject::Http { scenario, .. } => match &self.http {
                None => Some("no HTTP run to judge".into()),
                Some(run) => (!run.points.iter().any(|p| &p.scenario == scenario && names.contains(&p.implementation.as_str())))
                    .then(|| format!("run {} has no {scenario} point of {list}", run.run.id)),
            },
            Subject::Micro { bench, .. } => match &self.micro {
                None => Some("no micro run in the database".into()),
                Some(m) => {
                    let measured = m.results.iter().any(|r| &r.bench == bench && names.contains(&r.implementation.as_str()));
                    // The maximum processes are searched, not measured as results.
                    let searched = bench == "maxprocs" && !m.searches.is_empty();
                    (!measured && !searched).then(|| format!("micro run {} has no {bench} result of {list}", m.run_id))
                }
            },
        }
    }

    /// The core counts measured for a subject, ascending.
    pub(crate) fn cores(&self, subject: &Subject, level: Option<&str>) -> Vec<u32> {
        let mut cores: Vec<u32> = match subject {
            Subject::Http { scenario, .. } => {
                self.http.iter().flat_map(|r| &r.points).filter(|p| &p.scenario == scenario && Some(p.level.as_str()) == level).map(|p| p.cores).collect()
            }
            Subject::Micro { bench, .. } => self.micro.iter().flat_map(|m| &m.results).filter(|r| &r.bench == bench).map(|r| r.cores).collect(),
        };
        cores.sort_unstable();
        cores.dedup();
        cores
    }

    /// The swept parameter's values measured for a peak claim, ascending.
    pub(crate) fn sweep(&self, bench: &str, over: &str, implementation: &str, cores: u32) -> Vec<u64> {
        let mut v: Vec<u64> = self
            .micro
            .iter()
            .flat_map(|m| &m.results)
            .filter(|r| r.bench == bench && r.implementation == implementation && r.cores == cores)
            .filter_map(|r| param(r, over))
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// What one side has at `at`.
    pub(crate) fn get(&self, subject: &Subject, level: Option<&str>, metric: Metric, side: &Side, at: &At) -> Got {
        let cores = side.cores.unwrap_or(at.cores);
        match subject {
            Subject::Http { scenario, .. } => match (&self.http, level) {
                (Some(run), Some(level)) => http(run, scenario, level, &side.implementation, cores, metric, &self.floor),
                _ => Got::Missing(format!("the results hold no {scenario} point")),
            },
            Subject::Micro { bench, params } => match &self.micro {
                Some(m) if metric == Metric::MaxProcs => searches(m, &side.implementation, cores, &self.floor),
                Some(m) => micro(m, bench, params, at.sweep, &side.implementation, cores, metric, &self.floor),
                None => Got::Missing("no micro run in the database".into()),
            },
        }
    }
}

/// Why an implementation was not measured at all, from its record.
fn not_measured(implementations: &[ImplRecord], name: &str, run_id: i64) -> Option<String> {
    let rec = implementations.iter().find(|i| i.name == name)?;
    (!rec.status.measured()).then(|| format!("{name} was not measured in run {run_id} ({}: {})", rec.status.as_str(), rec.reason.as_deref().unwrap_or("no reason recorded")))
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

fn http(run: &RunData, scenario: &str, level: &str, name: &str, cores: u32, metric: Metric, floor: &NoiseFloor) -> Got {
    if let Some(why) = not_measured(&run.implementations, name, run.run.id) {
        return Got::Missing(why);
    }
    let all: Vec<&PointRecord> = run.points.iter().filter(|p| p.scenario == scenario && p.level == level && p.implementation == name && p.cores == cores).collect();
    let (ok, failed): (Vec<&PointRecord>, Vec<&PointRecord>) = all.iter().partition(|p| p.error.is_none());
    let mut notes = Vec::new();
    if let Some(f) = failed.first() {
        notes.push(format!("{name} at {cores} core(s): {} of {} repeats failed ({})", failed.len(), all.len(), first_line(f.error.as_deref().unwrap_or(""))));
    }
    if ok.is_empty() {
        return Got::Missing(notes.pop().unwrap_or_else(|| format!("run {} has no {scenario} ({level}) point of {name} at {cores} core(s)", run.run.id)));
    }
    let saturated = ok.iter().filter(|p| p.generator.saturated).count();
    if saturated > 0 {
        notes.push(format!("{name} at {cores} core(s): the load generator saturated in {saturated} of {} repeats (a lower bound on the server)", ok.len()));
    }
    let key = if metric == Metric::P50 { "p50" } else { "p99" };
    if matches!(metric, Metric::P50 | Metric::P99) && ok.iter().any(|p| p.latency.is_lower_bound(key)) {
        notes.push(format!("{name} at {cores} core(s): its {key} is only a lower bound (requests were left unanswered)"));
    }
    let measurement = |p: &PointRecord| match metric {
        // Three significant digits (the histogram's): known to one part in a thousand.
        Metric::P50 | Metric::P99 => {
            let us = if metric == Metric::P50 { p.latency.p50_us } else { p.latency.p99_us };
            Measurement { row: p.implementation.clone(), block: p.repeat, value: us as f64 / 1000.0, count: 1000, lower_bound: p.latency.is_lower_bound(key) }
        }
        _ => Measurement { row: p.implementation.clone(), block: p.repeat, value: p.throughput(), count: p.successes, lower_bound: p.generator.saturated },
    };
    let values: Vec<f64> = ok.iter().map(|p| measurement(p).value).collect();
    let (seconds, floor) = match metric {
        Metric::P50 | Metric::P99 => (Vec::new(), floor.of_p99()),
        _ => (if let [one] = ok.as_slice() { one.full_seconds() } else { Vec::new() }, floor.of_throughput()),
    };
    let group: Vec<Measurement> =
        run.points.iter().filter(|p| p.scenario == scenario && p.level == level && p.cores == cores && p.error.is_none()).map(measurement).collect();
    let design = grouped(format!("{scenario} {level} cores={cores} {metric:?}"), &group, name);
    Got::Measured(Measured { sample: Sample::new(values, seconds), floor, bounds: None, design, notes })
}

fn param(r: &MicroRecord, name: &str) -> Option<u64> {
    match name {
        "size" => r.params.size,
        "reps" => r.params.reps,
        "procs" => r.params.procs,
        "pairs" => r.params.pairs,
        _ => None,
    }
}

#[allow(clippy::too_many_arguments)]
fn micro(m: &MicroResults, bench: &str, params: &BTreeMap<String, u64>, sweep: Option<(&str, u64)>, name: &str, cores: u32, metric: Metric, floor: &NoiseFloor) -> Got {
    if let Some(why) = not_measured(&m.implementations, name, m.run_id) {
        return Got::Missing(why);
    }
    let fixed = |r: &&MicroRecord| params.iter().all(|(k, v)| param(r, k) == Some(*v)) && sweep.is_none_or(|(k, v)| param(r, k) == Some(v));
    let all: Vec<&MicroRecord> = m.results.iter().filter(|r| r.bench == bench && r.implementation == name && r.cores == cores).filter(fixed).collect();
    // The group every implementation with these parameters at these cores shares; this side is `name` in it.
    let group = {
        let mut p: Vec<String> = params.iter().map(|(k, v)| format!("{k}={v}")).collect();
        p.extend(sweep.map(|(k, v)| format!("{k}={v}")));
        format!("{bench} {} at {cores} core(s)", p.join(" "))
    };
    let what = || format!("{name} {group}");
    let (ok, failed): (Vec<&MicroRecord>, Vec<&MicroRecord>) = all.iter().partition(|r| r.status == MicroStatus::Ok);
    let mut notes = Vec::new();
    if let Some(f) = failed.first() {
        notes.push(format!("{}: {} of {} runs failed ({})", what(), failed.len(), all.len(), first_line(f.reason.as_deref().unwrap_or(f.status.as_str()))));
    }
    let value = |r: &&MicroRecord| match metric {
        Metric::MessagesPerS => r.messages_per_s,
        Metric::BytesPerProc => r.bytes_per_proc,
        _ => r.ns_per_op,
    };
    let values: Vec<f64> = ok.iter().filter_map(value).collect();
    if values.is_empty() {
        return Got::Missing(notes.pop().unwrap_or_else(|| format!("micro run {} has no {} result", m.run_id, what())));
    }
    // The group: every implementation with the same benchmark, parameters and cores, a block a repeat.
    let measurements: Vec<Measurement> = m
        .results
        .iter()
        .filter(|r| r.bench == bench && r.cores == cores && r.status == MicroStatus::Ok)
        .filter(fixed)
        .filter_map(|r| Some(Measurement { row: r.implementation.clone(), block: r.repeat, value: value(&r)?, count: 0, lower_bound: false }))
        .collect();
    let design = grouped(group, &measurements, name);
    Got::Measured(Measured { sample: Sample::new(values, Vec::new()), floor: floor.of_throughput(), bounds: None, design, notes })
}

/// The maximum-processes searches: at least the largest N that passed, less
/// than 1.1× it when the search narrowed a failure down (spec/MICRO.md §4.4),
/// unbounded above when it stopped at the profile's limit or a time-out.
fn searches(m: &MicroResults, name: &str, cores: u32, floor: &NoiseFloor) -> Got {
    if let Some(why) = not_measured(&m.implementations, name, m.run_id) {
        return Got::Missing(why);
    }
    let mine: Vec<&SearchRecord> = m.searches.iter().filter(|s| s.implementation == name && s.cores == cores).collect();
    let found: Vec<(f64, SearchStop)> = mine.iter().filter_map(|s| s.largest_n.map(|n| (n as f64, s.stop))).collect();
    if found.is_empty() {
        return Got::Missing(format!("micro run {} has no maximum-processes search of {name} at {cores} core(s) that passed a step", m.run_id));
    }
    let lo = found.iter().map(|f| f.0).fold(f64::INFINITY, f64::min);
    let open = found.iter().any(|f| matches!(f.1, SearchStop::Limit | SearchStop::Timeout));
    let hi = if open { f64::INFINITY } else { found.iter().map(|f| f.0).fold(0.0, f64::max) * 1.1 };
    let mut notes = Vec::new();
    if open {
        notes.push(format!("{name}'s search at {cores} core(s) stopped at the profile's limit or a time-out: at least {lo:.0} processes"));
    }
    Got::Measured(Measured { sample: Sample::new(found.iter().map(|f| f.0).collect(), Vec::new()), floor: floor.of_throughput(), bounds: Some((lo, hi)), design: None, notes })
}
