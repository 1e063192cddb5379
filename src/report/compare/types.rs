//! The comparison as plain serde data: what `--format json` prints
//! (spec/COMPARE.md documents every field) and what the Markdown is
//! rendered from.

use crate::stats::interval::Basis;
use crate::stats::noise::NoiseFloor;
use crate::stats::verdict::Verdict;
use crate::store::{Environment, Generator, RunStatus};
use serde::Serialize;

/// The version of the JSON shape; spec/COMPARE.md says what changes it.
pub const SCHEMA_VERSION: u32 = 3;

/// The whole comparison: what `--format json` prints.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub schema_version: u32,
    pub a: RunSide,
    pub b: RunSide,
    /// Two-sided coverage of every interval (0.95).
    pub coverage: f64,
    /// The machine's noise floor, which an interval carries when no A/A pair of the plan measured
    /// its scenario (the larger of the two runs' machines').
    pub floor: NoiseFloor,
    /// The A/A pairs of the runs' plan the database holds and the variance between runs they
    /// give; null when the runs ran different plans or there is no such pair.
    pub between_runs: Option<AaRuns>,
    /// Only the first this many repeats of each point were used (`--repeats`); null: all.
    pub repeats_used: Option<u32>,
    /// How the runs' moments on the machine may explain their differences.
    pub drift: Drift,
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

/// The runs' moments on the machine.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Drift {
    /// Seconds from A's end (its start while it has none) to B's start; null when a time cannot be read.
    pub apart_s: Option<f64>,
    /// The median over the compared points of the throughput ratio B/A: the runs' shift as a whole.
    pub shift: Option<f64>,
    /// Of those points, how many moved the shift's way, and how many have a ratio.
    pub same_way: usize,
    pub with_ratio: usize,
    /// Sentences for the reader: no calibration, the runs moved as a whole.
    pub warnings: Vec<String>,
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

impl PointId {
    /// `alpha/hello/cores=2/c=50`, as point keys read.
    pub fn label(&self) -> String {
        format!("{}/{}/cores={}/{}", self.implementation, self.scenario, self.cores, self.level)
    }
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
    /// Every repeat without error used, in the order measured.
    pub a_values: Vec<f64>,
    pub b_values: Vec<f64>,
    /// The geometric mean of B's values over A's; null when a value is 0.
    pub ratio: Option<f64>,
    /// The ratio's 95% interval; null with the ratio.
    pub ratio_low: Option<f64>,
    pub ratio_high: Option<f64>,
    /// What the interval's spread came from; null with the ratio.
    pub basis: Option<Basis>,
    pub verdict: Verdict,
    /// The interval comes from fewer than three A/A pairs: the verdict may change as more are run.
    pub provisional: bool,
}

/// The A/A pairs of a plan: two runs each, of one commit, on one machine.
#[derive(Debug, Clone, Serialize)]
pub struct AaRuns {
    pub plan_key: String,
    /// Each pair's run ids, in the order taken.
    pub pairs: Vec<[i64; 2]>,
    /// Fewer than three pairs.
    pub provisional: bool,
    /// The variance between runs per scenario and metric.
    pub groups: Vec<AaGroup>,
}

/// The variance between two runs of the plan, for one scenario and metric.
#[derive(Debug, Clone, Serialize)]
pub struct AaGroup {
    pub scenario: String,
    /// `throughput` or `p99_ms`.
    pub metric: String,
    /// σ of one point's log ratio, its degrees of freedom, and the pairs and ratios behind it.
    #[serde(flatten)]
    pub between: crate::stats::between::BetweenRuns,
}

/// Verdicts counted over the compared points, for one quantity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    pub faster: usize,
    pub slower: usize,
    pub same: usize,
    pub cannot_tell: usize,
}

impl Tally {
    pub fn count(&mut self, v: Verdict) {
        match v {
            Verdict::Faster => self.faster += 1,
            Verdict::Slower => self.slower += 1,
            Verdict::Same => self.same += 1,
            Verdict::CannotTell => self.cannot_tell += 1,
        }
    }
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
