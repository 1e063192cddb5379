//! The run's points grouped the way the report compares them: per scenario
//! and load level, one cell per implementation and core count, holding the
//! summaries over repeats and whether the cell is the best or within noise
//! of it. Charts and tables only format what is here.

use super::spread::Summary;
use crate::stats::Latencies;
use crate::store::{ImplRecord, KnownFailure, PointRecord, RunData, RunInfo};

/// Follows the name of an implementation measured with known deviations.
pub const KNOWN_MARK: &str = "†";

/// What [`KNOWN_MARK`] means, said under every table that may carry it.
pub const KNOWN_NOTE: &str = "†: measured with known deviations from the contract, declared in its concur.toml \
    as limits of its runtime (see Warnings and Implementations).";

pub struct Model {
    pub run: RunInfo,
    /// Every implementation the run asked for, by name.
    pub implementations: Vec<ImplRecord>,
    /// Names of those with at least one point, sorted: the series of every chart.
    pub measured: Vec<String>,
    /// One per scenario and load level, in the order the run took them.
    pub groups: Vec<Group>,
    /// Every point, in the order taken.
    pub points: Vec<PointRecord>,
}

pub struct Group {
    pub scenario: String,
    pub level: String,
    pub description: String,
    /// Core counts measured, ascending.
    pub cores: Vec<u32>,
    pub cells: Vec<Cell>,
}

/// One implementation at one core count: its repeats summarised.
pub struct Cell {
    pub implementation: String,
    pub cores: u32,
    /// The repeats measured (failed ones excluded).
    pub points: Vec<PointRecord>,
    /// Repeats that could not be measured, with their first error.
    pub failed: Vec<String>,
    pub saturated: usize,
    pub shared: bool,
    pub errors: u64,
    /// Successful requests per second.
    pub throughput: Option<Summary>,
    pub p50_ms: Option<Summary>,
    pub p99_ms: Option<Summary>,
    pub rss_peak_mib: Option<Summary>,
    pub cpu_util: Option<Summary>,
    /// The highest median throughput at this core count.
    pub best: bool,
    /// Not the best, but its interval overlaps the best's.
    pub within_noise: bool,
}

impl Model {
    pub fn new(data: RunData) -> Model {
        let mut implementations = data.implementations;
        implementations.sort_by(|a, b| a.name.cmp(&b.name));
        let mut measured: Vec<String> = data.points.iter().map(|p| p.implementation.clone()).collect();
        measured.sort();
        measured.dedup();
        let mut keys: Vec<(String, String)> = Vec::new();
        for p in &data.points {
            let key = (p.scenario.clone(), p.level.clone());
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
        let groups = keys.into_iter().map(|(scenario, level)| group(&data.run, &data.points, &measured, scenario, level)).collect();
        Model { run: data.run, implementations, measured, groups, points: data.points }
    }

    /// The implementation's name as tables and legends show it: marked with
    /// [`KNOWN_MARK`] when it was measured with known deviations.
    pub fn label(&self, name: &str) -> String {
        if self.known_deviations(name).is_empty() { name.to_string() } else { format!("{name} {KNOWN_MARK}") }
    }

    /// The failures its manifest declared (`[known_failures]`) that verification saw.
    pub fn known_deviations(&self, name: &str) -> &[KnownFailure] {
        self.implementations.iter().find(|i| i.name == name).map_or(&[], |i| &i.known_failures)
    }

    /// Some measured implementation carries [`KNOWN_MARK`].
    pub fn any_known_deviations(&self) -> bool {
        self.measured.iter().any(|name| !self.known_deviations(name).is_empty())
    }

    /// Index of an implementation among the measured ones (its colour).
    pub fn series_index(&self, name: &str) -> usize {
        self.measured.iter().position(|m| m == name).unwrap_or(0)
    }
}

impl Group {
    pub fn cell(&self, implementation: &str, cores: u32) -> Option<&Cell> {
        self.cells.iter().find(|c| c.implementation == implementation && c.cores == cores)
    }

    /// `hello (c=50)`.
    pub fn title(&self) -> String {
        format!("{} ({})", self.scenario, self.level)
    }
}

impl Cell {
    /// The latencies of every repeat merged into one histogram.
    pub fn merged_latencies(&self) -> Option<Latencies> {
        let mut all = Latencies::new();
        for p in &self.points {
            if p.latency.histogram.is_empty() {
                return None;
            }
            all.add(&Latencies::decode(&p.latency.histogram).ok()?).ok()?;
        }
        (all.count() > 0).then_some(all)
    }
}

fn group(run: &RunInfo, points: &[PointRecord], measured: &[String], scenario: String, level: String) -> Group {
    let mine: Vec<&PointRecord> = points.iter().filter(|p| p.scenario == scenario && p.level == level).collect();
    let mut cores: Vec<u32> = mine.iter().map(|p| p.cores).collect();
    cores.sort_unstable();
    cores.dedup();
    let mut cells = Vec::new();
    for &k in &cores {
        let mut at_k: Vec<Cell> = measured
            .iter()
            .filter_map(|name| {
                let repeats: Vec<&PointRecord> = mine.iter().copied().filter(|p| &p.implementation == name && p.cores == k).collect();
                (!repeats.is_empty()).then(|| cell(name, k, &repeats))
            })
            .collect();
        mark_noise(&mut at_k);
        cells.extend(at_k);
    }
    let description = run.plan.get("scenarios").and_then(|s| s.get(&scenario)).and_then(|d| d.as_str()).unwrap_or_default().to_string();
    Group { scenario, level, description, cores, cells }
}

fn cell(name: &str, cores: u32, repeats: &[&PointRecord]) -> Cell {
    let (ok, failed): (Vec<&PointRecord>, Vec<&PointRecord>) = repeats.iter().partition(|p| p.error.is_none());
    let summary = |f: &dyn Fn(&PointRecord) -> f64| Summary::of(&ok.iter().map(|p| f(p)).collect::<Vec<_>>());
    let ms = |us: u64| us as f64 / 1000.0;
    Cell {
        implementation: name.to_string(),
        cores,
        failed: failed.iter().map(|p| p.error.clone().unwrap_or_default().lines().next().unwrap_or("").to_string()).collect(),
        saturated: ok.iter().filter(|p| p.generator.saturated).count(),
        shared: ok.iter().any(|p| p.generator.shared),
        errors: ok.iter().map(|p| p.errors_total).sum(),
        throughput: summary(&|p| p.throughput()),
        p50_ms: summary(&|p| ms(p.latency.p50_us)),
        p99_ms: summary(&|p| ms(p.latency.p99_us)),
        rss_peak_mib: summary(&|p| p.server.rss_peak_bytes as f64 / (1u64 << 20) as f64),
        cpu_util: summary(&|p| p.server.cpu_util),
        points: ok.into_iter().cloned().collect(),
        best: false,
        within_noise: false,
    }
}

/// Marks the best throughput at one core count, and the cells within noise of it.
fn mark_noise(cells: &mut [Cell]) {
    let best = cells
        .iter()
        .enumerate()
        .filter_map(|(i, c)| c.throughput.map(|t| (i, t)))
        .max_by(|a, b| a.1.median.total_cmp(&b.1.median));
    let Some((best_i, best_t)) = best else { return };
    if cells.len() < 2 {
        return;
    }
    for (i, c) in cells.iter_mut().enumerate() {
        c.best = i == best_i;
        c.within_noise = i != best_i && c.throughput.is_some_and(|t| t.within_noise(&best_t));
    }
}
