//! The capacity search (`concur run --slo 'p99<=10ms'`, the profile's
//! `[capacity]`): for each implementation × scenario × cores, the highest
//! open-loop rate at which the server meets the SLO with no errors and the
//! rate reached, found on one server (the warm server of the run's first
//! closed-loop point of the same implementation and cores, else a start of
//! its own) by a geometric ramp then
//! bisection (`run::ramp`, shared with the clients-held search), every step stored as it is measured (`search`).
//! This file owns the profile's settings and the planned searches.

mod search;

pub use super::ramp::{Status, Verdict};
pub use search::{Context, hosts, ride, run_all};

use super::plan::{Inputs, Overrides, ScenarioInfo};
use super::slo::Slo;
use anyhow::{Result, bail};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The profile's `[capacity]` table; every field has a default.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// The bound, e.g. "p99<=10ms"; `--slo` replaces it. None: no search unless `--slo`.
    pub slo: Option<String>,
    /// Scenarios searched, whether or not the run takes points of them; empty: every scenario of the run.
    #[serde(default)]
    pub scenarios: Vec<String>,
    /// Core counts searched (of the run's); none: every one.
    pub cores: Option<Vec<u32>>,
    /// Connections the open loop spreads its rate over; none: the scenario file's.
    pub connections: Option<u32>,
    /// The first rate (req/s) when the run measured no closed-loop point of the implementation to start from.
    pub start: Option<u32>,
    /// Stop when the lowest failing rate is within this fraction above the highest passing one.
    pub precision: Option<f64>,
    /// Measurement of each step, e.g. "2s".
    pub step: Option<String>,
    /// Warm-up at the step's rate before its measurement, e.g. "1s".
    pub step_warmup: Option<String>,
    pub max_steps: Option<u32>,
    /// Longest a search may take (its steps' warm-ups and measurements), e.g. "60s".
    pub budget: Option<String>,
}

pub const DEFAULT_START: u32 = 100;
pub const DEFAULT_PRECISION: f64 = 0.05;
pub const DEFAULT_STEP_S: f64 = 2.0;
pub const DEFAULT_STEP_WARMUP_S: f64 = 1.0;
pub const DEFAULT_MAX_STEPS: u32 = 12;
pub const DEFAULT_BUDGET_S: f64 = 60.0;
/// The start from a closed-loop throughput: capacity within an SLO is below it.
pub const CLOSED_LOOP_SHARE: f64 = 0.5;

impl Settings {
    /// Validates the table of profile `shown`.
    pub fn check(&self, shown: &str) -> Result<()> {
        if let Some(slo) = &self.slo {
            Slo::parse(slo).map_err(|e| anyhow::anyhow!("{shown}: [capacity] 'slo': {e}"))?;
        }
        for (field, value) in [("step", &self.step), ("step_warmup", &self.step_warmup), ("budget", &self.budget)] {
            if let Some(v) = value {
                super::parse_seconds(v).map_err(|e| anyhow::anyhow!("{shown}: [capacity] '{field}': {e}"))?;
            }
        }
        if self.precision.is_some_and(|p| !(p > 0.0 && p < 1.0)) {
            bail!("{shown}: [capacity] 'precision' is a fraction between 0 and 1, e.g. precision = 0.05 (5%)");
        }
        let zero = [self.connections, self.start, self.max_steps].contains(&Some(0)) || self.cores.as_ref().is_some_and(|c| c.contains(&0));
        if zero {
            bail!("{shown}: [capacity] 'connections', 'start', 'max_steps' and 'cores' must be above 0");
        }
        Ok(())
    }
}

/// One planned search, fully resolved.
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

/// What a search takes from the scenario's load settings for one implementation.
pub struct SearchSettings {
    pub timeout_s: f64,
    pub env: BTreeMap<String, String>,
    /// The server's warm-up before the first step (`SearchSpec::server_warmup_s`).
    pub warmup_s: f64,
    pub warmup_max_s: f64,
}

/// The run's searches: none without an SLO (from `--slo` or the profile).
pub fn searches(
    args: &Overrides,
    inputs: &Inputs,
    scenarios: &[&ScenarioInfo],
    cores: &[u32],
    implementations: &[(String, bool)],
    settings_of: impl Fn(&ScenarioInfo, &str) -> Result<SearchSettings>,
) -> Result<Vec<SearchSpec>> {
    let c = inputs.profile.capacity.clone().unwrap_or_default();
    let shown = format!("spec/profiles/{}.toml", inputs.profile_name);
    let slo = match (&args.slo, &c.slo) {
        (Some(slo), _) => slo.clone(),
        (None, Some(text)) => Slo::parse(text).map_err(|e| anyhow::anyhow!("{shown}: [capacity] 'slo': {e}"))?,
        (None, None) => return Ok(Vec::new()),
    };
    if let Some(name) = c.scenarios.iter().find(|n| !inputs.scenarios.iter().any(|s| &s.name == *n)) {
        bail!("{shown}: [capacity] scenario '{name}': no scenario by that name (spec/scenarios/)");
    }
    let secs = |v: &Option<String>, default: f64| v.as_deref().map_or(Ok(default), super::parse_seconds).map_err(anyhow::Error::msg);
    let (step_s, step_warmup_s, budget_s) = (secs(&c.step, DEFAULT_STEP_S)?, secs(&c.step_warmup, DEFAULT_STEP_WARMUP_S)?, secs(&c.budget, DEFAULT_BUDGET_S)?);
    // The table's scenarios are searched whether or not the run takes points of them (a
    // scenario measured by its search only); `--scenario` narrows them as it does the points.
    let searched: Vec<&ScenarioInfo> = if c.scenarios.is_empty() {
        scenarios.to_vec()
    } else {
        inputs.scenarios.iter().filter(|s| c.scenarios.contains(&s.name) && (args.scenarios.is_empty() || args.scenarios.contains(&s.name))).collect()
    };
    let mut out = Vec::new();
    for scenario in searched {
        for &k in cores.iter().filter(|k| c.cores.as_ref().is_none_or(|only| only.contains(k))) {
            let (server_cpus, generator_cpus, database_cpus, shared) = super::database::split_cpus(inputs.topology, k, scenario.database);
            for (name, _) in implementations.iter().filter(|i| i.1 && (!scenario.database || super::database::serves(inputs.implementations, &i.0))) {
                let SearchSettings { timeout_s, env, warmup_s, warmup_max_s } = settings_of(scenario, name)?;
                out.push(SearchSpec {
                    key: format!("{name}/{}/cores={k}/capacity", scenario.name),
                    implementation: name.clone(),
                    scenario: scenario.name.clone(),
                    cores: k,
                    server_cpus: server_cpus.clone(),
                    generator_cpus: generator_cpus.clone(),
                    shared,
                    connections: c.connections.unwrap_or(scenario.connections),
                    slo: slo.clone(),
                    precision: c.precision.unwrap_or(DEFAULT_PRECISION),
                    start_rate: c.start.unwrap_or(DEFAULT_START),
                    step_s,
                    step_warmup_s,
                    server_warmup_s: warmup_s,
                    server_warmup_max_s: warmup_max_s,
                    max_steps: c.max_steps.unwrap_or(DEFAULT_MAX_STEPS),
                    budget_s,
                    timeout_s,
                    env: env.clone(),
                    server_addr: args.server_addr.clone(),
                    server_netns: args.server_netns.clone(),
                    database_cpus: database_cpus.clone(),
                });
            }
        }
    }
    Ok(out)
}
