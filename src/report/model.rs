//! The run's points grouped the way the report compares them: per scenario
//! and load level, one cell per implementation and core count, holding the
//! summaries over repeats, the interval of its throughput (the repeats'
//! spread and the machine's noise floor, `stats::interval`), whether it is
//! the best or within noise of it, and its rank (`stats::verdict::rank`,
//! the one ranking rule). Charts and tables only format what is here.

use super::palette::Palette;
use serde::Serialize;
use super::spread::Summary;
use crate::stats::Latencies;
use crate::stats::blocks::{self, Decision, Design, Measurement, Row};
use crate::stats::interval::{self, Basis, Level, Sample};
use crate::stats::noise::NoiseFloor;
use crate::stats::verdict::{self, Ranked};
use crate::store::{ImplRecord, KnownFailure, PointRecord, RunData, RunInfo};

/// Follows the name of an implementation measured with known deviations.
pub const KNOWN_MARK: &str = "†";

/// Follows the name of an implementation whose manifest declares a departure from a rule of
/// spec/POLICIES.md (`[departures]`).
pub const DEPARTS_MARK: &str = "‡";

/// What [`DEPARTS_MARK`] means, said under every table that may carry it.
pub const DEPARTS_NOTE: &str = "‡: departs from a rule of spec/POLICIES.md where its runtime or driver leaves no other way, \
    declared in its concur.toml (see Warnings and Implementations).";

/// Follows the name of an implementation with no framework (spec/POLICIES.md §5).
pub const BARE_MARK: &str = "◦";

/// What [`BARE_MARK`] means, said under every table that may carry it.
pub const BARE_NOTE: &str = "◦: no framework, an HTTP server written by hand on the runtime's sockets: \
    not the runtime's typical stack, beside which it shows what the framework costs.";

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
    /// Each implementation's colour and marker, by its concurrency model.
    pub palette: Palette,
    /// Points of other runs taking this run's points with the other load generator, with their run id (`generators`).
    pub counterparts: Vec<(i64, PointRecord)>,
    /// The noise floor of the run's machine, which every interval carries.
    pub floor: NoiseFloor,
}

pub struct Group {
    pub scenario: String,
    pub level: String,
    pub description: String,
    /// Core counts measured, ascending.
    pub cores: Vec<u32>,
    pub cells: Vec<Cell>,
    /// At each core count whose repeats form blocks (two or more rounds over
    /// the implementations), the fitted block design every order and tie at
    /// that count comes from (`stats::blocks`); the others rank by intervals.
    pub designs: Vec<(u32, Design)>,
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
    /// Its 95% interval, the one ranks and ties are made from; `None` when no repeat was measured (or one measured 0).
    pub level: Option<Level>,
    pub p50_ms: Option<Summary>,
    pub p99_ms: Option<Summary>,
    /// Some repeat's p50 (p99) is only a lower bound, requests having been left
    /// unanswered: the cell's figure is then a lower bound too (`> x`), and it
    /// never ranks above an exact one on latency.
    pub p50_bound: bool,
    pub p99_bound: bool,
    /// The repeat that left the most clients waiting longer than any request
    /// was answered: how many, and the oldest's age in µs.
    pub waiting: Option<(u64, u64)>,
    pub rss_peak_mib: Option<Summary>,
    pub cpu_util: Option<Summary>,
    /// The highest median throughput at this core count.
    pub best: bool,
    /// Not the best, but its interval overlaps the best's.
    pub within_noise: bool,
    /// The best rank the intervals allow at this core count (1 plus the cells
    /// whose intervals lie wholly above its own, `verdict::rank`); `None`
    /// when it has no interval.
    pub rank: Option<usize>,
    /// The worst rank they allow; equal to `rank` when the intervals place it exactly.
    pub worst: usize,
}

/// One pair's decision in a block design (`Model::decisions`), as the JSON export gives it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairDecision {
    pub scenario: String,
    pub level: String,
    pub cores: u32,
    pub a: String,
    pub b: String,
    /// Rounds both were measured in.
    pub blocks: usize,
    /// a's throughput over b's, the mean of their rounds' ratios on the log scale, with its 95% interval.
    pub ratio: f64,
    pub lo: f64,
    pub hi: f64,
    pub df: f64,
    /// a against b: `above`, `below` (beyond the ±2% threshold) or `cannot_tell`.
    pub decision: Decision,
}

impl Model {
    /// Every pair's decision at every core count measured in blocks, `a` before `b` by name.
    pub fn decisions(&self) -> Vec<PairDecision> {
        let mut out = Vec::new();
        for g in &self.groups {
            for (k, d) in &g.designs {
                let mut names = d.names.clone();
                names.sort();
                for (i, a) in names.iter().enumerate() {
                    for b in &names[i + 1..] {
                        let Some(diff) = d.difference(a, b) else { continue };
                        out.push(PairDecision {
                            scenario: g.scenario.clone(),
                            level: g.level.clone(),
                            cores: *k,
                            a: a.clone(),
                            b: b.clone(),
                            blocks: diff.blocks,
                            ratio: diff.ratio(),
                            lo: diff.lo(),
                            hi: diff.hi(),
                            df: diff.df,
                            decision: d.decide(a, b, 0.0),
                        });
                    }
                }
            }
        }
        out
    }

    /// The model of a run whose machine's noise floor is `floor`.
    pub fn new(data: RunData, floor: NoiseFloor) -> Model {
        let mut implementations = data.implementations;
        implementations.sort_by(|a, b| a.name.cmp(&b.name));
        let mut measured: Vec<String> = data.points.iter().map(|p| p.implementation.clone()).collect();
        measured.sort();
        measured.dedup();
        let keys = distinct(data.points.iter().map(|p| (p.scenario.clone(), p.level.clone())));
        let groups = keys.into_iter().map(|(scenario, level)| group(&data.run, &data.points, &measured, scenario, level, &floor)).collect();
        let palette = Palette::new(implementations.iter().map(|i| (i.name.as_str(), i.manifest.model)));
        Model { run: data.run, implementations, measured, groups, points: data.points, palette, counterparts: Vec::new(), floor }
    }

    /// The implementation's name as tables and legends show it: marked with
    /// [`BARE_MARK`] when it has no framework, [`KNOWN_MARK`] when it was
    /// measured with known deviations, [`DEPARTS_MARK`] when it departs from a policy.
    pub fn label(&self, name: &str) -> String {
        let mut label = name.to_string();
        if self.bare(name) {
            label = format!("{label} {BARE_MARK}");
        }
        if !self.known_deviations(name).is_empty() {
            label = format!("{label} {KNOWN_MARK}");
        }
        if self.departs(name) {
            label = format!("{label} {DEPARTS_MARK}");
        }
        label
    }

    /// Its manifest declares a departure from a rule of spec/POLICIES.md (`[departures]`).
    pub fn departs(&self, name: &str) -> bool {
        self.implementations.iter().any(|i| i.name == name && !i.manifest.departures.is_empty())
    }

    /// It has no framework: its manifest says `framework = "none"`.
    pub fn bare(&self, name: &str) -> bool {
        self.implementations.iter().any(|i| i.name == name && i.manifest.framework.eq_ignore_ascii_case("none"))
    }

    /// `note`, followed by what ◦ and † mean when a measured implementation carries them.
    pub fn noted(&self, note: &str) -> String {
        let mut note = note.to_string();
        if self.any_bare() {
            note = format!("{note} {BARE_NOTE}");
        }
        if self.any_known_deviations() {
            note = format!("{note} {KNOWN_NOTE}");
        }
        if self.measured.iter().any(|name| self.departs(name)) {
            note = format!("{note} {DEPARTS_NOTE}");
        }
        note
    }

    /// Some measured implementation carries [`BARE_MARK`].
    pub fn any_bare(&self) -> bool {
        self.measured.iter().any(|name| self.bare(name))
    }

    /// The failures its manifest declared (`[known_failures]`) that verification saw.
    pub fn known_deviations(&self, name: &str) -> &[KnownFailure] {
        self.implementations.iter().find(|i| i.name == name).map_or(&[], |i| &i.known_failures)
    }

    /// Some measured implementation carries [`KNOWN_MARK`].
    pub fn any_known_deviations(&self) -> bool {
        self.measured.iter().any(|name| !self.known_deviations(name).is_empty())
    }
}

impl Group {
    pub fn cell(&self, implementation: &str, cores: u32) -> Option<&Cell> {
        self.cells.iter().find(|c| c.implementation == implementation && c.cores == cores)
    }

    /// The block design at `cores`, when its repeats form one.
    pub fn design(&self, cores: u32) -> Option<&Design> {
        self.designs.iter().find(|(k, _)| *k == cores).map(|(_, d)| d)
    }

    /// `hello (c=50)`.
    pub fn title(&self) -> String {
        format!("{} ({})", self.scenario, self.level)
    }

    /// The cells at `cores` that have a throughput, best first (by median,
    /// as `verdict::rank` orders them; each with the ranks its interval allows).
    pub fn ranked(&self, cores: u32) -> Vec<&Cell> {
        let mut cells: Vec<&Cell> = self.cells.iter().filter(|c| c.cores == cores && c.rank.is_some()).collect();
        cells.sort_by(|a, b| b.estimate().total_cmp(&a.estimate()).then(a.implementation.cmp(&b.implementation)));
        cells
    }
}

/// `items` without repeats, in the order first seen.
pub fn distinct<T: PartialEq>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut out = Vec::new();
    for item in items {
        if !out.contains(&item) {
            out.push(item);
        }
    }
    out
}

/// `1 core`, `4 cores`.
pub fn cores_text(k: u32) -> String {
    if k == 1 { "1 core".into() } else { format!("{k} cores") }
}

impl Cell {
    /// The intervals allow it more than one rank.
    pub fn tied(&self) -> bool {
        self.rank.is_some_and(|r| r < self.worst)
    }

    /// `3–5` for the ranks the decisions allow, `3` when they allow one, `✗` unranked.
    pub fn rank_text(&self) -> String {
        match self.rank {
            Some(r) if self.tied() => format!("{r}–{}", self.worst),
            Some(r) => r.to_string(),
            None => "✗".into(),
        }
    }

    /// The throughput a cell is shown and ranked by, 0 when nothing was
    /// measured: measured in blocks, the geometric mean of its rounds (the
    /// centre of its interval and what the decisions compare, so that a
    /// round far off moves figure and interval alike), else the median over
    /// repeats.
    pub fn estimate(&self) -> f64 {
        match self.level {
            Some(l) if l.basis == Basis::Blocks => l.center,
            _ => self.median_throughput(),
        }
    }

    /// The median throughput over repeats, 0 when nothing was measured.
    pub fn median_throughput(&self) -> f64 {
        self.throughput.map_or(0.0, |t| t.median)
    }

    /// The cell's p99 as an order on latency: a lower bound after every exact value.
    pub fn p99_key(&self) -> Option<(bool, f64)> {
        self.p99_ms.map(|s| (self.p99_bound, s.median))
    }

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

fn group(run: &RunInfo, points: &[PointRecord], measured: &[String], scenario: String, level: String, floor: &NoiseFloor) -> Group {
    let mine: Vec<&PointRecord> = points.iter().filter(|p| p.scenario == scenario && p.level == level).collect();
    let mut cores: Vec<u32> = mine.iter().map(|p| p.cores).collect();
    cores.sort_unstable();
    cores.dedup();
    let mut cells = Vec::new();
    let mut designs = Vec::new();
    for &k in &cores {
        let mut at_k: Vec<Cell> = measured
            .iter()
            .filter_map(|name| {
                let repeats: Vec<&PointRecord> = mine.iter().copied().filter(|p| &p.implementation == name && p.cores == k).collect();
                (!repeats.is_empty()).then(|| cell(name, k, &repeats, floor))
            })
            .collect();
        match design(&at_k) {
            Some(d) => {
                decide(&mut at_k, &d);
                designs.push((k, d));
            }
            None => {
                mark_noise(&mut at_k);
                rank(&mut at_k);
            }
        }
        cells.extend(at_k);
    }
    let description = run.plan.get("scenarios").and_then(|s| s.get(&scenario)).and_then(|d| d.as_str()).unwrap_or_default().to_string();
    Group { scenario, level, description, cores, cells, designs }
}

/// The block design of one core count's cells: a block is a repeat number,
/// one round over every implementation (spec/PROFILES.md, "Blocks"); `None`
/// when fewer than two blocks hold two implementations, which leaves no
/// residual to estimate a variance from.
fn design(cells: &[Cell]) -> Option<Design> {
    let measurements: Vec<Measurement> = cells
        .iter()
        .flat_map(|c| c.points.iter().map(|p| Measurement { row: c.implementation.clone(), block: p.repeat, value: p.throughput(), count: p.successes, lower_bound: p.generator.saturated }))
        .collect();
    let rows: Vec<Row> = blocks::rows(&measurements)?.into_iter().filter(|r| r.values.iter().any(Option::is_some)).collect();
    blocks::fit(&rows)
}

/// Ranks, levels and the marks against the best from the block design's
/// pairwise decisions (`stats::blocks`): an order only where the interval of
/// a difference lies wholly past the threshold.
fn decide(cells: &mut [Cell], design: &Design) {
    let ranks = blocks::ranks(design);
    let best = cells.iter().filter_map(|c| Some((design.level(&c.implementation)?.0, c))).max_by(|a, b| a.0.total_cmp(&b.0)).map(|(_, c)| c).map(|c| c.implementation.clone());
    for c in cells.iter_mut() {
        let Some(i) = design.names.iter().position(|n| *n == c.implementation) else { continue };
        let Some((center, lo, hi)) = design.level(&c.implementation) else { continue };
        c.level = Some(Level { n: c.points.len(), center, lo, hi, basis: Basis::Blocks });
        (c.rank, c.worst) = (Some(ranks[i].0), ranks[i].1);
        if let Some(best) = &best {
            c.best = *best == c.implementation;
            c.within_noise = !c.best && design.decide(best, &c.implementation, 0.0) != Decision::Above;
        }
    }
}

fn cell(name: &str, cores: u32, repeats: &[&PointRecord], floor: &NoiseFloor) -> Cell {
    let (ok, failed): (Vec<&PointRecord>, Vec<&PointRecord>) = repeats.iter().partition(|p| p.error.is_none());
    let seconds = if let [one] = ok.as_slice() { one.full_seconds() } else { Vec::new() };
    let sample = Sample::new(ok.iter().map(|p| p.throughput()).collect(), seconds);
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
        level: interval::level(&sample, floor.of_throughput()),
        p50_ms: summary(&|p| ms(p.latency.p50_us)),
        p99_ms: summary(&|p| ms(p.latency.p99_us)),
        p50_bound: ok.iter().any(|p| p.latency.is_lower_bound("p50")),
        p99_bound: ok.iter().any(|p| p.latency.is_lower_bound("p99")),
        waiting: ok.iter().filter_map(|p| waiting(p)).max(),
        rss_peak_mib: summary(&|p| p.server.rss_peak_bytes as f64 / (1u64 << 20) as f64),
        cpu_util: summary(&|p| p.server.cpu_util),
        points: ok.into_iter().cloned().collect(),
        best: false,
        within_noise: false,
        rank: None,
        worst: 0,
    }
}

/// The clients `p` left waiting longer than any request it answered (all the
/// unanswered ones when none was answered), with the oldest's age: the
/// clients a server starved, as against the ones merely in the middle of a
/// request when the measurement ended.
pub fn waiting(p: &PointRecord) -> Option<(u64, u64)> {
    if p.latency.lower_bounds.is_empty() {
        return None;
    }
    let answered = if p.latency.count > 0 { p.latency.max_us } else { 0 };
    let ages = p.unfinished_age.latencies().ok()?;
    let n: u64 = ages.recorded().into_iter().filter(|&(age, _)| age > answered).map(|(_, n)| n).sum();
    (n > 0).then_some((n, ages.max()))
}

/// Marks the best throughput at one core count, and the cells within noise
/// of it (`verdict::tied`, the ranking's own rule).
fn mark_noise(cells: &mut [Cell]) {
    let best = cells.iter().enumerate().filter(|(_, c)| c.level.is_some()).max_by(|a, b| a.1.median_throughput().total_cmp(&b.1.median_throughput()));
    let Some((best_i, Some(best))) = best.map(|(i, c)| (i, c.level)) else { return };
    if cells.len() < 2 {
        return;
    }
    for (i, c) in cells.iter_mut().enumerate() {
        c.best = i == best_i;
        c.within_noise = i != best_i && c.level.is_some_and(|l| verdict::tied(&best, &l));
    }
}

/// Ranks the cells of one core count by median throughput with
/// `verdict::rank`: each gets the ranks its interval allows, so `1, 2–4,
/// 2–4, 2–4, 5` reads "three that could each be second to fourth".
fn rank(cells: &mut [Cell]) {
    let entries: Vec<Option<Ranked>> = cells.iter().map(|c| c.level.map(|level| Ranked { name: &c.implementation, estimate: c.median_throughput(), level })).collect();
    let places = verdict::rank(&entries);
    for (c, place) in cells.iter_mut().zip(places) {
        (c.rank, c.worst) = place.map_or((None, 0), |p| (Some(p.rank), p.worst));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(name: &str, values: &[f64], floor: &NoiseFloor) -> Cell {
        let points: Vec<PointRecord> =
            values.iter().enumerate().map(|(i, &v)| PointRecord { implementation: name.into(), repeat: i as u32 + 1, duration_s: 1.0, successes: v as u64, ..PointRecord::default() }).collect();
        super::cell(name, 1, &points.iter().collect::<Vec<_>>(), floor)
    }

    fn places(cells: &[Cell]) -> Vec<(&str, Option<usize>, usize)> {
        cells.iter().map(|c| (c.implementation.as_str(), c.rank, c.worst)).collect()
    }

    #[test]
    fn a_cell_within_noise_of_the_one_above_shares_its_rank() {
        let floor = NoiseFloor { throughput: 0.01, throughput_drift: 0.01, p99: 0.05, p99_drift: 0.05, df: 30, source: crate::stats::noise::FloorSource::Default };
        let mut cells = vec![
            cell("slow", &[10.0, 11.0, 12.0], &floor),
            cell("b", &[100.0, 104.0, 98.0], &floor),
            cell("a", &[102.0, 99.0, 105.0], &floor),
            cell("fast", &[200.0, 201.0, 199.0], &floor),
            cell("failed", &[], &floor),
        ];
        rank(&mut cells);
        assert_eq!(places(&cells), [("slow", Some(4), 4), ("b", Some(2), 3), ("a", Some(2), 3), ("fast", Some(1), 1), ("failed", None, 0)]);
    }

    #[test]
    fn single_repeats_within_the_floor_are_tied_and_far_apart_ones_ordered() {
        // The quick run: one repeat each, neighbours 1.1x apart, below this machine's noise.
        let floor = NoiseFloor::default_floor();
        let mut cells = vec![cell("go-tcp", &[143_451.0], &floor), cell("rust-threadpool", &[130_000.0], &floor), cell("ruby", &[9_000.0], &floor)];
        rank(&mut cells);
        assert_eq!(places(&cells), [("go-tcp", Some(1), 2), ("rust-threadpool", Some(1), 2), ("ruby", Some(3), 3)]);
        assert_eq!(cells[0].level.unwrap().basis, crate::stats::interval::Basis::FloorOnly);
    }

    #[test]
    fn one_repeat_each_orders_the_far_ends_of_a_chain_of_overlaps() {
        // The fresh make bench of 2026-11-26 00:39: hello at 1 core, one repeat each, the default
        // floor; every interval overlapped its neighbour's, and one shared rank called 2,744 and
        // 118,010 req/s a tie.
        let floor = NoiseFloor::default_floor();
        let values = [("go-tcp", 118_010.0), ("java-jetty", 80_322.0), ("node-http", 53_012.0), ("elixir", 33_533.0), ("ruby-rack", 13_772.0), ("ruby-sinatra", 7_005.0), ("ruby-rails", 2_744.0)];
        let mut cells: Vec<Cell> = values.iter().map(|&(name, v)| cell(name, &[v], &floor)).collect();
        rank(&mut cells);
        let at = |name: &str| cells.iter().find(|c| c.implementation == name).map(|c| (c.rank.unwrap(), c.worst)).unwrap();
        assert_eq!(at("go-tcp").0, 1);
        assert!(at("go-tcp").1 < at("ruby-rails").0, "go-tcp {:?} is ordered above ruby-rails {:?}", at("go-tcp"), at("ruby-rails"));
        assert_eq!(at("ruby-rails").1, values.len());
        assert!(cells.iter().all(|c| c.rank.unwrap() <= c.worst));
    }

    #[test]
    fn in_blocks_a_cell_is_shown_at_the_centre_of_its_interval() {
        // The make bench of a8ab9fd: kotlin-ktor's later rounds far below its first
        // (53,946, 9,468, 11,723 req/s) while its neighbours held steady; its median
        // lay outside its interval, which is centred on the rounds' geometric mean.
        let floor = NoiseFloor::default_floor();
        let mut cells = vec![
            cell("kotlin-ktor", &[53_946.0, 9_468.0, 11_723.0], &floor),
            cell("java-jetty", &[28_033.0, 25_407.0, 27_079.0], &floor),
            cell("elixir", &[21_826.0, 22_692.0, 23_004.0], &floor),
            cell("ruby-rack", &[9_546.0, 7_396.0, 8_721.0], &floor),
        ];
        let d = design(&cells).expect("three rounds form a design");
        decide(&mut cells, &d);
        let kotlin = &cells[0];
        let level = kotlin.level.unwrap();
        assert_eq!(level.basis, Basis::Blocks);
        assert!((kotlin.estimate() - (53_946.0_f64 * 9_468.0 * 11_723.0).cbrt()).abs() < 1.0, "{}", kotlin.estimate());
        assert!(level.lo <= kotlin.estimate() && kotlin.estimate() <= level.hi, "{level:?}");
        // Without blocks the figure stays the median over repeats.
        let mut one = vec![cell("go-tcp", &[143_451.0], &floor)];
        rank(&mut one);
        assert_eq!(one[0].estimate(), 143_451.0);
    }

    #[test]
    fn the_decisions_of_a_block_design_name_each_pair_once_with_its_ratio() {
        let run = RunInfo::starting("quick".into(), "k".into(), serde_json::json!({}), Default::default(), vec![]);
        let point = |name: &str, repeat: u32, v: u64| PointRecord {
            implementation: name.into(),
            scenario: "hello".into(),
            cores: 1,
            level: "c=50".into(),
            repeat,
            duration_s: 1.0,
            successes: v,
            requests: v,
            ..PointRecord::default()
        };
        // Three rounds, the machine drifting 10% between them; fast is twice slow in each,
        // and slow-again is slow within 1%.
        let mut points = Vec::new();
        for (r, drift) in [(1, 1.0), (2, 1.1), (3, 0.95)] {
            points.push(point("fast", r, (20_000.0 * drift) as u64));
            points.push(point("slow", r, (10_000.0 * drift) as u64));
            points.push(point("slow-again", r, (10_000.0 * drift * [1.0, 1.01, 0.99][r as usize - 1]) as u64));
        }
        let model = Model::new(RunData { run, implementations: vec![], points }, NoiseFloor::default_floor());
        let d = model.decisions();
        let pairs: Vec<(&str, &str, Decision)> = d.iter().map(|p| (p.a.as_str(), p.b.as_str(), p.decision)).collect();
        assert_eq!(pairs, [("fast", "slow", Decision::Above), ("fast", "slow-again", Decision::Above), ("slow", "slow-again", Decision::CannotTell)]);
        assert!((d[0].ratio - 2.0).abs() < 0.01 && d[0].lo <= d[0].ratio && d[0].ratio <= d[0].hi && d[0].blocks == 3, "{:?}", d[0]);
    }
}
