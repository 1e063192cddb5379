//! The capacity search (`concur run --slo 'p99<=10ms'`, the profile's
//! `[capacity]`): for each implementation × scenario × cores, the highest
//! open-loop rate at which the server meets the SLO with no errors and the
//! rate reached, found on one server (the warm server of the run's first
//! closed-loop point of the same implementation and cores, else a start of
//! its own) by a geometric ramp then
//! bisection (`run::ramp`, shared with the clients-held search), every step stored as it is measured (`search`).
//! This file plans the searches from the profile's `[capacity]` table (`profile::Capacity`).

mod search;

pub use super::ramp::{Status, Verdict};
pub use search::{Context, ride, run_all};

use super::spec::{Inputs, Overrides, ScenarioInfo, SearchSpec};
use super::slo::Slo;
use anyhow::{Result, bail};
use std::collections::BTreeMap;

pub const DEFAULT_START: u32 = 100;
pub const DEFAULT_PRECISION: f64 = 0.05;
pub const DEFAULT_STEP_S: f64 = 2.0;
pub const DEFAULT_STEP_WARMUP_S: f64 = 1.0;
pub const DEFAULT_MAX_STEPS: u32 = 12;
pub const DEFAULT_BUDGET_S: f64 = 60.0;
/// The start from a closed-loop throughput: capacity within an SLO is below it.
pub const CLOSED_LOOP_SHARE: f64 = 0.5;

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
            for (name, _) in implementations.iter().filter(|i| i.1) {
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
