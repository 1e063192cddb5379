//! The plan's plain types: what a run measures (points, capacity searches,
//! clients-held searches), each with every number it needs spelled out, and
//! what planning reads (the flags, the scenarios' defaults, the machine).
//! Every stage of a run reads these; only `plan` makes them, so this file
//! depends on no stage.

use super::profile::Profile;
use super::slo::Slo;
use crate::host::topology::Topology;
use crate::impls::Implementation;
use crate::store::Generator;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashSet};

/// What a scenario file sets by itself, used when neither profile nor flags do.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioInfo {
    pub name: String,
    pub description: String,
    pub connections: u32,
    pub duration_s: Option<f64>,
    pub requests: Option<u64>,
    pub timeout_s: Option<f64>,
    /// A step asks a database route (SPEC §8): its points need the run's
    /// cluster and an implementation that serves the routes.
    pub database: bool,
    /// The variable of the SPEC §6 timer a step's answers wait on (`TIMERS`), if any.
    pub timer: Option<&'static str>,
}

/// The timers of SPEC §6 every request to a path waits on: the path, the variable that sets the
/// wait, and the wait's default in milliseconds. `/page` is not one: only every 10th of its
/// requests waits, and the window counts those answers whenever they were sent (spec/LOAD-JSON.md).
pub const TIMERS: &[(&str, &str, u64)] = &[("/longPoll", "CONCUR_LONGPOLL_MS", 5000)];

/// The variable of the timer a request to `path` waits on.
pub fn timer_of(path: &str) -> Option<&'static str> {
    TIMERS.iter().find(|(p, _, _)| path.split('?').next() == Some(*p)).map(|(_, var, _)| *var)
}

impl ScenarioInfo {
    /// Seconds its answers wait on their timer with the server's environment `env`: none when they do not.
    pub fn wait_s(&self, env: &BTreeMap<String, String>) -> Option<f64> {
        let (_, var, default_ms) = TIMERS.iter().find(|(_, var, _)| Some(*var) == self.timer)?;
        let ms = env.get(*var).and_then(|v| v.parse::<u64>().ok()).unwrap_or(*default_ms);
        Some(ms as f64 / 1000.0)
    }
}

/// What the command line sets over the profile, for every scenario; empty
/// lists and `None` leave the profile's (then the scenario file's) values.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Overrides {
    pub implementations: Vec<String>,
    pub scenarios: Vec<String>,
    pub cores: Vec<u32>,
    /// Closed-loop levels; at most one of `connections` and `rate` is set.
    pub connections: Vec<u32>,
    /// Open-loop levels, requests per second.
    pub rate: Vec<u32>,
    pub duration_s: Option<f64>,
    pub requests: Option<u64>,
    pub warmup_s: Option<f64>,
    pub warmup_max_s: Option<f64>,
    pub repeat: Option<u32>,
    /// Measurement windows per server start (`--blocks`), over every scenario's `blocks`.
    pub blocks: Option<u32>,
    pub timeout_s: Option<f64>,
    /// Connection modes (`--keepalive true,false`): `false` sends every request on a new connection.
    pub keepalive: Vec<bool>,
    /// `concur verify` before measuring (`--no-verify` turns it off).
    pub verify: bool,
    /// A capacity search within this bound (`--slo`), over the profile's `[capacity] slo`.
    pub slo: Option<Slo>,
    /// Load generators, each level taken by every one (`--generator`); empty: the profile's, else `concur load`.
    pub generators: Vec<Generator>,
    /// Locust workers per point (`--locust-workers`); none: one per generator CPU.
    pub locust_workers: Option<u32>,
    /// Where the Locust master listens for workers started elsewhere (`--locust-master-bind`).
    pub locust_master_bind: Option<String>,
    pub locust_master_port: Option<u16>,
    /// The address the generator reaches the server at (`--server-addr`); none: 127.0.0.1.
    pub server_addr: Option<String>,
    /// The network namespace the server is started in (`--server-netns`).
    pub server_netns: Option<String>,
}

/// How a Locust point is spread over a master and its workers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocustSpec {
    /// Workers the master waits for before it starts.
    pub workers: u32,
    /// `None`: concur starts the master on loopback and the workers itself, on the generator's CPUs.
    /// An address: the master listens there, and the workers are `concur locust-worker`s started elsewhere.
    pub master_bind: Option<String>,
    pub master_port: u16,
}

/// Everything planning needs to know about this machine and repository.
pub struct Inputs<'a> {
    pub profile_name: &'a str,
    pub profile: &'a Profile,
    /// Every HTTP implementation found.
    pub implementations: &'a [Implementation],
    /// Every scenario available, in the order runs take them.
    pub scenarios: &'a [ScenarioInfo],
    /// The CPUs this process may use, as physical cores and NUMA nodes.
    pub topology: &'a Topology,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub profile: String,
    pub description: String,
    /// Implementations asked for, available or not.
    pub implementations: Vec<String>,
    /// Scenario name → its one-line description.
    pub scenarios: BTreeMap<String, String>,
    pub cores: Vec<u32>,
    pub repeat: u32,
    /// Whether implementations are verified before measurement.
    pub verify: bool,
    pub points: Vec<PointSpec>,
    /// Warnings for the terminal and the report.
    pub notes: Vec<String>,
    /// Capacity searches, after the points (`--slo`); left out of the JSON when there is none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub searches: Vec<SearchSpec>,
    /// Clients-held searches, after the capacity searches (`[held]`); left out of the JSON when there is none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub held: Vec<HeldSpec>,
}

/// One point, fully resolved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointSpec {
    pub key: String,
    pub implementation: String,
    pub scenario: String,
    pub cores: u32,
    pub server_cpus: Vec<usize>,
    pub generator_cpus: Vec<usize>,
    /// The generator shares physical cores with the server: too few for both (`host::topology`).
    pub shared: bool,
    /// `c=50`, `c=2/core`, `R=1000`; followed by ` close` when `keepalive` is off.
    pub level: String,
    pub connections: u32,
    pub rate: Option<u32>,
    /// Requests reuse their connections; `false`: a new connection per request, `Connection: close`.
    /// Left out of the plan's JSON when on, so that plans (and `--resume` keys) from before the field stay the same.
    #[serde(default = "keep_alive", skip_serializing_if = "is_on")]
    pub keepalive: bool,
    /// The measurement's number: with blocks, the block (one round over the implementations);
    /// without, the repeat (one server start).
    pub repeat: u32,
    /// With blocks (spec/PROFILES.md, "Blocks"): the server start (the profile's repeat) this
    /// window is measured on, several windows sharing one; 0 (left out of the plan's JSON)
    /// without blocks, where each repeat is a start of its own.
    #[serde(default, skip_serializing_if = "no_start")]
    pub start: u32,
    /// Warm-up on the measurement's connections: at least this long (0: none)…
    pub warmup_s: f64,
    /// …then until throughput is steady, at most this long (`load::warmup`).
    #[serde(default)]
    pub warmup_max_s: f64,
    pub duration_s: Option<f64>,
    pub requests: Option<u64>,
    pub timeout_s: f64,
    /// Extra server environment.
    pub env: BTreeMap<String, String>,
    /// The load generator; left out of the plan's JSON for `concur load`, so that older plans and keys stay the same.
    #[serde(default, skip_serializing_if = "Generator::is_default")]
    pub generator: Generator,
    /// Set for a Locust point.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locust: Option<LocustSpec>,
    /// Where the generator reaches the server; none: 127.0.0.1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_addr: Option<String>,
    /// The network namespace the server starts in (`ip netns exec`); none: this one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_netns: Option<String>,
    /// The database's CPUs, for a point of a database scenario (`placement::place_with_database`);
    /// empty for every other point, and then left out of the plan's JSON.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub database_cpus: Vec<usize>,
    /// Set for a point of a scenario measured `after` another (spec/PROFILES.md, "One server for
    /// several scenarios"): it takes over the server of the point just before it; left out of the
    /// plan's JSON otherwise, so that older plans and keys stay the same.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<After>,
}

/// How a point follows the one before it on the same server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct After {
    /// The key of the point whose server it takes over, still running and warm.
    pub point: String,
    /// Its warm-up on that server: at least the profile's, not raised to the manifest's
    /// `[start] warmup` (the server's first point paid that), then until throughput is steady
    /// (the runtime compiling this scenario's own code), at most as long as on a fresh server.
    /// On a fresh server (its host point failed, or `--resume` finds the host taken) the
    /// point's own `warmup_s` and `warmup_max_s` apply.
    pub warmup_s: f64,
    pub warmup_max_s: f64,
}

fn keep_alive() -> bool {
    true
}

fn no_start(n: &u32) -> bool {
    *n == 0
}

fn is_on(keepalive: &bool) -> bool {
    *keepalive
}

/// The keys of the points some point of `points` follows (`PointSpec::after`): the points whose
/// server is handed on, warm, rather than stopped.
pub fn followed<'a>(points: &[&'a PointSpec]) -> HashSet<&'a str> {
    points.iter().filter_map(|p| p.after.as_ref()).map(|a| a.point.as_str()).collect()
}

/// How a server is started, as far as a search riding on a point's server needs it alike.
#[derive(Debug, PartialEq)]
pub struct Started<'a> {
    implementation: &'a str,
    cores: u32,
    server_cpus: &'a [usize],
    env: &'a BTreeMap<String, String>,
    server_addr: Option<&'a str>,
    server_netns: Option<&'a str>,
}

impl<'a> Started<'a> {
    /// `at`: the server's address and network namespace (`--server-addr`, `--server-netns`).
    fn new(implementation: &'a str, cores: u32, server_cpus: &'a [usize], env: &'a BTreeMap<String, String>, at: (&'a Option<String>, &'a Option<String>)) -> Started<'a> {
        Started { implementation, cores, server_cpus, env, server_addr: at.0.as_deref(), server_netns: at.1.as_deref() }
    }
}

/// A search that may ride on the server of a point started as it would start its own.
pub trait Rider {
    fn key(&self) -> &str;
    fn started(&self) -> Started<'_>;
}

impl Rider for SearchSpec {
    fn key(&self) -> &str {
        &self.key
    }

    fn started(&self) -> Started<'_> {
        Started::new(&self.implementation, self.cores, &self.server_cpus, &self.env, (&self.server_addr, &self.server_netns))
    }
}

impl Rider for HeldSpec {
    fn key(&self) -> &str {
        &self.key
    }

    fn started(&self) -> Started<'_> {
        Started::new(&self.implementation, self.cores, &self.server_cpus, &self.env, (&None, &None))
    }
}

/// Which pending point each search that has not ended rides on, by the point's key: the first
/// closed-loop, keep-alive `concur load` point (in `todo`'s order) whose server is started as
/// the search's would be (`Started`) and handed to no other point (with blocks: a start's
/// last window). Its server, warm from the point's warm-up and measurement, serves the
/// searches one after another instead of a fresh start and warm-up each; a search with no
/// such point runs after the points on a server of its own.
pub fn hosts<'a, S: Rider>(searches: &'a [S], todo: &[&PointSpec], ended: &HashSet<String>) -> BTreeMap<String, Vec<&'a S>> {
    let mut out: BTreeMap<String, Vec<&S>> = BTreeMap::new();
    let followed = followed(todo);
    for search in searches.iter().filter(|s| !ended.contains(s.key())) {
        let host = todo.iter().find(|p| {
            !followed.contains(p.key.as_str())
                && p.rate.is_none()
                && p.keepalive
                && p.generator == Generator::ConcurLoad
                && p.started() == search.started()
        });
        if let Some(host) = host {
            out.entry(host.key.clone()).or_default().push(search);
        }
    }
    out
}

impl PointSpec {
    /// How its server is started (`Started`).
    pub fn started(&self) -> Started<'_> {
        Started::new(&self.implementation, self.cores, &self.server_cpus, &self.env, (&self.server_addr, &self.server_netns))
    }

    /// The warm-up's least and most seconds as planned: on the server of the point it follows
    /// when it follows one (`After`), which the sweep expects to find running.
    pub fn planned_warmup(&self) -> (f64, f64) {
        self.after.as_ref().map_or((self.warmup_s, self.warmup_max_s), |a| (a.warmup_s, a.warmup_max_s))
    }

    /// The server start it is measured on: its repeat without blocks.
    pub fn server_start(&self) -> u32 {
        if self.start == 0 { self.repeat } else { self.start }
    }

    /// Seconds the point is expected to take, start-up and stop excluded
    /// (a warm-up lasts at least the seconds steadiness is judged over, and
    /// the measurement starts at the next whole second; a fixed one lasts its length).
    pub fn expected_s(&self) -> f64 {
        let windows = crate::load::warmup::WINDOWS as f64;
        let (least, most) = self.planned_warmup();
        let warmup = if least > 0.0 && most <= least {
            least
        } else if least > 0.0 {
            least.max(windows).min(most.max(least)) + 1.0
        } else {
            0.0
        };
        warmup + self.duration_s.unwrap_or(20.0)
    }
}

impl Plan {
    /// A digest of what is measured and how; `--resume` continues only a run with the same one.
    pub fn key(&self) -> String {
        // Each kind of search enters the digest only when there is one, so that the keys of
        // plans from before it stay the same.
        let text = match (self.searches.is_empty(), self.held.is_empty()) {
            (true, true) => serde_json::to_string(&(&self.points, self.verify)),
            (false, true) => serde_json::to_string(&(&self.points, self.verify, &self.searches)),
            _ => serde_json::to_string(&(&self.points, self.verify, &self.searches, &self.held)),
        }
        .unwrap_or_default();
        format!("{:016x}", crate::host::digest::fnv1a(&text))
    }
}

/// One planned capacity search, fully resolved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchSpec {
    /// `impl/scenario/cores=k/capacity`.
    pub key: String,
    pub implementation: String,
    pub scenario: String,
    pub cores: u32,
    pub server_cpus: Vec<usize>,
    pub generator_cpus: Vec<usize>,
    pub shared: bool,
    pub connections: u32,
    pub slo: Slo,
    pub precision: f64,
    /// Used when the run holds no closed-loop point of the same implementation to start from.
    pub start_rate: u32,
    pub step_s: f64,
    pub step_warmup_s: f64,
    /// Before the first step on a fresh server: the warm-up a point of this scenario gets (the
    /// profile's, at least the manifest's `[start] warmup`, until steady, at most `warmup_max`),
    /// so that no search measures a cold runtime (a JVM before its JIT) as a slow one.
    #[serde(default)]
    pub server_warmup_s: f64,
    #[serde(default)]
    pub server_warmup_max_s: f64,
    pub max_steps: u32,
    pub budget_s: f64,
    pub timeout_s: f64,
    pub env: BTreeMap<String, String>,
    /// As a point's (`--server-addr`, `--server-netns`): the search's open loop is always `concur load`'s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_addr: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_netns: Option<String>,
    /// The database's CPUs for a database scenario (as its points'); empty otherwise, and then
    /// left out of the plan's JSON.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub database_cpus: Vec<usize>,
}

impl SearchSpec {
    /// The most a search is expected to take, server start excluded; `hosted`: on a point's
    /// warm server, without a warm-up of its own.
    pub fn expected_s(&self, hosted: bool) -> f64 {
        let warmup = if self.server_warmup_s > 0.0 && !hosted { self.server_warmup_s.max(crate::load::warmup::WINDOWS as f64) + 1.0 } else { 0.0 };
        warmup + self.budget_s.min(f64::from(self.max_steps) * self.step_cost_s())
    }

    /// One step: its warm-up (whole seconds, at least one, then the wait for the next whole second), its measurement.
    pub fn step_cost_s(&self) -> f64 {
        let warmup = if self.step_warmup_s > 0.0 { self.step_warmup_s.ceil().max(1.0) + 1.0 } else { 0.0 };
        warmup + self.step_s
    }
}

/// A step starts its clients within this share of the poll's wait (raising its spawn rate
/// when N needs it), so that every client waits at the same time for at least the rest of it.
pub const SPAWN_SHARE: f64 = 0.5;

/// One planned clients-held search, fully resolved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HeldSpec {
    /// `impl/scenario/cores=k/held`.
    pub key: String,
    pub implementation: String,
    pub scenario: String,
    pub cores: u32,
    pub server_cpus: Vec<usize>,
    pub generator_cpus: Vec<usize>,
    pub shared: bool,
    pub wait_ms: u64,
    pub bound_ms: u64,
    pub precision: f64,
    pub spawn_rate: f64,
    pub start: u64,
    pub max_clients: u64,
    pub max_steps: u32,
    pub budget_s: f64,
    /// The server's environment: the profile's, with `CONCUR_LONGPOLL_MS` set to `wait_ms`.
    pub env: BTreeMap<String, String>,
    /// The manifest's `[start] warmup`: the fresh server is warmed this long, with rounds of a
    /// quarter of `start`'s clients, before its RSS at rest and its first step; 0 (left out of
    /// the plan's JSON, so that older plans keep their keys): no warm-up.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub server_warmup_s: f64,
}

fn is_zero(s: &f64) -> bool {
    *s == 0.0
}

impl HeldSpec {
    /// Clients of one warm-up round: a quarter of the first step's, at least one.
    pub fn warmup_clients(&self) -> u64 {
        (self.start / 4).max(1)
    }

    /// Clients per second that step of `clients` starts them at: the least rate, raised so
    /// that the last client comes within `SPAWN_SHARE` of the wait.
    pub fn spawn_rate_for(&self, clients: u64) -> f64 {
        self.spawn_rate.max(clients as f64 / self.arrival_s()).round()
    }

    /// Seconds a step's clients arrive within: [`SPAWN_SHARE`] of the wait.
    pub fn arrival_s(&self) -> f64 {
        self.wait_ms as f64 / 1000.0 * SPAWN_SHARE
    }

    /// The longest a step of `clients` takes: its clients' start, the wait, the bound.
    pub fn step_s(&self, clients: u64) -> f64 {
        clients as f64 / self.spawn_rate_for(clients) + (self.wait_ms + self.bound_ms) as f64 / 1000.0
    }

    /// The most a search is expected to take, the server's start excluded: its warm-up, its
    /// budget; `hosted`: on a point's warm server, without a warm-up of its own.
    pub fn expected_s(&self, hosted: bool) -> f64 {
        if hosted { self.budget_s } else { self.server_warmup_s + self.budget_s }
    }

    /// A search of `x` at 1 core, for the tests.
    #[cfg(test)]
    pub(crate) fn example(wait_ms: u64) -> HeldSpec {
        HeldSpec {
            key: "x/longpoll/cores=1/held".into(),
            implementation: "x".into(),
            scenario: "longpoll".into(),
            cores: 1,
            server_cpus: vec![0],
            generator_cpus: vec![1],
            shared: false,
            wait_ms,
            bound_ms: 1000,
            precision: 0.1,
            spawn_rate: 5000.0,
            start: 1000,
            max_clients: 100_000,
            max_steps: 12,
            budget_s: 20.0,
            env: BTreeMap::from([("CONCUR_LONGPOLL_MS".to_string(), wait_ms.to_string())]),
            server_warmup_s: 0.0,
        }
    }
}
