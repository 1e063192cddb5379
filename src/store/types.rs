//! The records the results database holds: the contract between `run`
//! (which writes them) and `report` (which reads them). Plain serde data, so
//! that either side can change its internals without touching the other.
//! spec/RESULTS-DB.md documents every field as a column.

use crate::impls::Manifest;
use crate::stats::LatencyStats;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Whether a run completed its plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    /// Still going, or killed so hard it could not say otherwise.
    Running,
    Finished,
    /// Stopped by Ctrl-C or a signal; `--resume` continues it.
    Interrupted,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Finished => "finished",
            RunStatus::Interrupted => "interrupted",
        }
    }

    pub fn parse(s: &str) -> Option<RunStatus> {
        [RunStatus::Running, RunStatus::Finished, RunStatus::Interrupted].into_iter().find(|st| st.as_str() == s)
    }
}

/// One `concur run` invocation: what it planned and where it ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    /// Assigned by the database; 0 before insertion.
    pub id: i64,
    /// RFC 3339, UTC.
    pub started_at: String,
    pub finished_at: Option<String>,
    pub status: RunStatus,
    /// Profile name (`quick`, `thesis`, …), or `custom` when flags replaced it entirely.
    pub profile: String,
    /// Digest of the resolved plan; `--resume` continues only a run with the same key.
    pub plan_key: String,
    /// The resolved plan as JSON (the `run::Plan` type).
    pub plan: serde_json::Value,
    pub environment: Environment,
    /// Warnings from planning and running: clipped core counts, shared cores.
    pub notes: Vec<String>,
}

/// The machine and software a run measured on (`host::env` captures it).
pub use crate::host::env::Environment;

/// How an implementation fared before any point was measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ImplStatus {
    /// Passed `concur verify`; measured.
    Verified,
    /// Measured without verification (`--no-verify`).
    Unverified,
    /// Failed to build, start or verify; not measured.
    Failed,
    /// Its toolchain is not installed; not measured.
    Unavailable,
}

impl ImplStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ImplStatus::Verified => "verified",
            ImplStatus::Unverified => "unverified",
            ImplStatus::Failed => "failed",
            ImplStatus::Unavailable => "unavailable",
        }
    }

    pub fn parse(s: &str) -> Option<ImplStatus> {
        [ImplStatus::Verified, ImplStatus::Unverified, ImplStatus::Failed, ImplStatus::Unavailable].into_iter().find(|st| st.as_str() == s)
    }

    pub fn measured(self) -> bool {
        matches!(self, ImplStatus::Verified | ImplStatus::Unverified)
    }
}

/// An implementation as a run saw it: the manifest is kept so that the
/// report's feature tables need only the database.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ImplRecord {
    pub name: String,
    pub status: ImplStatus,
    /// Why it failed or is unavailable (the first failing check, the build error).
    pub reason: Option<String>,
    /// First line of the manifest's `version` command.
    pub version: String,
    pub manifest: Manifest,
    /// Checks it failed at verification that its manifest declares limits of
    /// the runtime: it was measured, and the report shows them beside its numbers.
    #[serde(default)]
    pub known_failures: Vec<KnownFailure>,
}

/// A failed check that the manifest's `[known_failures]` declares.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KnownFailure {
    /// The check's id (`concur verify --list-checks`).
    pub check: String,
    /// The CONCUR_CORES it was verified with.
    pub cores: u32,
    /// What the verifier saw.
    pub detail: String,
    /// The manifest's reason: the runtime's limit, with its upstream issue.
    pub reason: String,
}

/// One step of a scenario (e.g. `set` then `verify`), reported separately.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StepRecord {
    pub name: String,
    pub successes: u64,
    pub errors: u64,
    pub latency: LatencyStats,
}

/// Throughput of one second of the measurement.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SecondRecord {
    pub requests: u64,
    pub errors: u64,
}

/// One sample of the server's process tree.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct UsageSample {
    /// Milliseconds since the measurement started.
    pub t_ms: u64,
    /// CPU seconds the tree had used since the measurement started.
    pub cpu_seconds: f64,
    pub rss_bytes: u64,
    pub processes: u32,
}

/// What the server's process tree used during the measurement.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerUsage {
    pub cpu_seconds: f64,
    /// `cpu_seconds / (duration × cores)`: 1.0 means every core it was given was busy.
    pub cpu_util: f64,
    pub rss_peak_bytes: u64,
    pub rss_mean_bytes: u64,
    pub processes_max: u32,
    pub samples: Vec<UsageSample>,
}

/// What the load generator used during the measurement.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GeneratorUsage {
    /// CPUs the generator was pinned to.
    pub cpus: Vec<usize>,
    /// The generator shared physical cores with the server (too few for both).
    pub shared: bool,
    pub cpu_seconds: f64,
    /// `cpu_seconds / (duration × cpus)`.
    pub cpu_util: f64,
    /// The generator, not the server, limited this point (see spec/RESULTS-DB.md).
    pub saturated: bool,
    /// Which generator took the point.
    #[serde(default)]
    pub kind: Generator,
    /// The generator's version when it is not this concur's own (Locust's, e.g. `2.47.0`); empty otherwise.
    #[serde(default)]
    pub version: String,
}

/// What the database's processes (the postmaster and its children: every
/// backend, the checkpointer, the WAL writer) used during a measurement of
/// a database scenario, beside the server's usage.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DatabaseUsage {
    /// CPUs the database was pinned to for the point.
    pub cpus: Vec<usize>,
    /// They are the load generator's: the machine had no physical cores left for the database's own.
    pub shared: bool,
    pub cpu_seconds: f64,
    /// `cpu_seconds / (duration × cpus)`.
    pub cpu_util: f64,
    /// Proportional set size summed over the processes (shared buffers counted once), highest and mean sample.
    pub mem_peak_bytes: u64,
    pub mem_mean_bytes: u64,
    pub processes_max: u32,
    /// The database, not the server, limited the point (see spec/RESULTS-DB.md).
    pub limited: bool,
    pub samples: Vec<UsageSample>,
}

/// A load generator `concur run` can drive. Part of a point's identity: two
/// generators' numbers for the same level are two points, never one median.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Generator {
    /// `concur load`, in the orchestrator's process.
    #[default]
    ConcurLoad,
    /// Locust (a master and its workers), from the locustfile generated from the scenario (spec/LOCUST.md).
    Locust,
}

impl Generator {
    pub const ALL: [Generator; 2] = [Generator::ConcurLoad, Generator::Locust];

    pub fn as_str(self) -> &'static str {
        match self {
            Generator::ConcurLoad => "concur-load",
            Generator::Locust => "locust",
        }
    }

    pub fn parse(s: &str) -> Option<Generator> {
        Generator::ALL.into_iter().find(|g| g.as_str() == s)
    }

    pub fn is_default(&self) -> bool {
        *self == Generator::ConcurLoad
    }
}

impl std::str::FromStr for Generator {
    type Err = String;

    fn from_str(s: &str) -> Result<Generator, String> {
        Generator::parse(s).ok_or_else(|| format!("unknown generator '{s}': use concur-load or locust"))
    }
}

/// One measured point: an implementation, a scenario, a core count, a load
/// level, a connection mode and a repeat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointRecord {
    /// Unique within its run: `impl/scenario/cores/level/repeat`, with `/close` after the level when `keepalive` is off.
    pub key: String,
    pub implementation: String,
    pub scenario: String,
    /// Server cores (`CONCUR_CORES`, and as many CPUs it was pinned to: `RunInfo`'s topology says which).
    pub cores: u32,
    /// Concurrent connections (closed loop), or the open loop's connection cap.
    pub connections: u32,
    /// Open-loop target, requests per second; `None` for a closed loop.
    pub rate: Option<u32>,
    /// The load level as planned, e.g. `c=50`, `c=2/core`, `R=1000`; `c=50 close` when `keepalive` is off.
    pub level: String,
    /// Requests reuse their connection (the default); `false`: every request on a new
    /// connection with `Connection: close`.
    #[serde(default = "keepalive_default")]
    pub keepalive: bool,
    /// 1-based.
    pub repeat: u32,
    pub started_at: String,
    pub warmup_s: f64,
    /// The key of the point whose server this one was measured on, still running and warm
    /// (a scenario measured `after` another, spec/PROFILES.md); `None`: a server of its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_from: Option<String>,
    /// Measured seconds (the elapsed time of the measurement).
    pub duration_s: f64,
    /// Set when the point could not be measured (the server crashed, never became ready).
    pub error: Option<String>,
    /// Responses received, successes and unexpected statuses together.
    pub requests: u64,
    /// Responses with the expected status.
    pub successes: u64,
    pub errors_total: u64,
    /// Errors by kind: `connect`, `timeout`, `reset`, …, and `status 500` per unexpected status.
    pub errors: BTreeMap<String, u64>,
    /// Latency of the successes; its percentiles count the requests left
    /// unanswered (`latency.unfinished`) as censored values.
    pub latency: LatencyStats,
    /// The ages at the end of the requests left unanswered (spec/LOAD-JSON.md, `unfinished_age`).
    #[serde(default)]
    pub unfinished_age: LatencyStats,
    pub steps: Vec<StepRecord>,
    pub timeline: Vec<SecondRecord>,
    pub server: ServerUsage,
    pub generator: GeneratorUsage,
    /// The database's usage, for a point of a database scenario; `None` otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub database: Option<DatabaseUsage>,
    /// What the reader should know: fewer connections than asked, a target rate not reached.
    pub warnings: Vec<String>,
    /// The load generator's own JSON result, kept whole; `None` when not available.
    pub load_report: Option<serde_json::Value>,
}

fn keepalive_default() -> bool {
    true
}

/// Written out because a derived default would turn keep-alive off.
impl Default for PointRecord {
    fn default() -> PointRecord {
        PointRecord {
            key: String::new(),
            implementation: String::new(),
            scenario: String::new(),
            cores: 0,
            connections: 0,
            rate: None,
            level: String::new(),
            keepalive: keepalive_default(),
            repeat: 0,
            started_at: String::new(),
            warmup_s: 0.0,
            server_from: None,
            duration_s: 0.0,
            error: None,
            requests: 0,
            successes: 0,
            errors_total: 0,
            errors: BTreeMap::new(),
            latency: LatencyStats::default(),
            unfinished_age: LatencyStats::default(),
            steps: Vec::new(),
            timeline: Vec::new(),
            server: ServerUsage::default(),
            generator: GeneratorUsage::default(),
            database: None,
            warnings: Vec::new(),
            load_report: None,
        }
    }
}

impl PointRecord {
    /// Successful responses per second of measurement.
    pub fn throughput(&self) -> f64 {
        if self.duration_s > 0.0 { self.successes as f64 / self.duration_s } else { 0.0 }
    }

    /// Successful responses of each whole second of the measurement (a
    /// last, partial second left out): what one repeat's spread is read from.
    pub fn full_seconds(&self) -> Vec<f64> {
        let whole = (self.duration_s + 1e-6).floor() as usize;
        self.timeline.iter().take(whole).map(|s| s.requests as f64).collect()
    }
}

/// Everything the report needs about one run.
#[derive(Debug, Clone)]
pub struct RunData {
    pub run: RunInfo,
    pub implementations: Vec<ImplRecord>,
    pub points: Vec<PointRecord>,
}
