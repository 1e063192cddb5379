//! The clients-held search (the profile's `[held]`): for each implementation
//! × core count, the most long-poll clients the server holds waiting at once
//! with every one answered within the poll's wait plus a bound, no error and
//! none left unanswered. One fresh server per search; steps of N clients,
//! each sending one `GET /longPoll`, started at a spawn rate; N walks the
//! ramp and bisection the capacity search uses (`run::ramp`) from the start
//! (1,000: ×2 while steps pass, ÷4 when the first fails) up to a limit the
//! profile or the machine sets (`limits`). Every step is stored as it ends
//! (`search`), with the server's memory per waiting client and its CPU while
//! they wait (`step`). This file owns the profile's settings and the planned
//! searches.

mod limits;
mod search;
mod step;

pub use search::run_all;

use super::plan::{Inputs, Overrides, ScenarioInfo};
use anyhow::{Result, bail};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The profile's `[held]` table; every field has a default.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// The scenario whose one request each client sends; default `longpoll`.
    pub scenario: Option<String>,
    /// Core counts searched (of the run's); none: every one.
    pub cores: Option<Vec<u32>>,
    /// Clients of the first step.
    pub start: Option<u64>,
    /// Stop when the fewest failing clients are within this fraction above the most passing.
    pub precision: Option<f64>,
    /// A client answered later than the poll's wait plus this after its send fails its step, e.g. "1s".
    pub bound: Option<String>,
    /// The poll's wait the server is started with (`CONCUR_LONGPOLL_MS`), e.g. "2s"; default the spec's 5 s.
    pub wait: Option<String>,
    /// The most clients a step may have.
    pub max_clients: Option<u64>,
    pub max_steps: Option<u32>,
    /// The most a search's steps may take, e.g. "20s".
    pub budget: Option<String>,
    /// The least rate clients are started at, users per second.
    pub spawn_rate: Option<f64>,
}

pub const DEFAULT_SCENARIO: &str = "longpoll";
pub const DEFAULT_START: u64 = 1000;
pub const DEFAULT_PRECISION: f64 = 0.1;
pub const DEFAULT_BOUND_S: f64 = 1.0;
/// `CONCUR_LONGPOLL_MS`'s default in spec/SPEC.md: a shorter `wait` is named in the report.
pub const SPEC_WAIT_MS: u64 = 5000;
/// The generator shown to hold 100,000 idle connections from one thread (bench/scale.sh).
pub const DEFAULT_MAX_CLIENTS: u64 = 100_000;
pub const DEFAULT_MAX_STEPS: u32 = 12;
pub const DEFAULT_BUDGET_S: f64 = 120.0;
/// Clients started per second unless a step needs more: well within what every server
/// here accepts on one core, so that the step measures holding, not accepting. A burst of
/// thousands of connects would overflow accept queues (somaxconn is 4,096, Java's default
/// backlog 50): the SYNs dropped come back a second later, and the step would time the
/// kernel's retransmission.
pub const DEFAULT_SPAWN_RATE: f64 = 5000.0;
/// A step starts its clients within this share of the poll's wait (raising its spawn rate
/// when N needs it), so that every client waits at the same time for at least the rest of it.
pub const SPAWN_SHARE: f64 = 0.5;

impl Settings {
    /// Validates the table of profile `shown`.
    pub fn check(&self, shown: &str) -> Result<()> {
        for (field, value) in [("bound", &self.bound), ("wait", &self.wait), ("budget", &self.budget)] {
            if let Some(v) = value {
                super::parse_seconds(v).map_err(|e| anyhow::anyhow!("{shown}: [held] '{field}': {e}"))?;
            }
        }
        if self.precision.is_some_and(|p| !(p > 0.0 && p < 1.0)) {
            bail!("{shown}: [held] 'precision' is a fraction between 0 and 1, e.g. precision = 0.1 (10%)");
        }
        if self.spawn_rate.is_some_and(|r| !(r > 0.0 && r.is_finite())) {
            bail!("{shown}: [held] 'spawn_rate' is users per second above 0, e.g. spawn_rate = 5000");
        }
        let zero = [self.start, self.max_clients].contains(&Some(0)) || self.max_steps == Some(0) || self.cores.as_ref().is_some_and(|c| c.contains(&0));
        if zero {
            bail!("{shown}: [held] 'start', 'max_clients', 'max_steps' and 'cores' must be above 0");
        }
        if let (Some(start), Some(max)) = (self.start, self.max_clients)
            && start > max
        {
            bail!("{shown}: [held] 'start' ({start}) is above 'max_clients' ({max})");
        }
        Ok(())
    }
}

/// One planned search, fully resolved.
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
}

impl HeldSpec {
    /// Clients per second that step of `clients` starts them at: the least rate, raised so
    /// that the last client comes within `SPAWN_SHARE` of the wait.
    pub fn spawn_rate_for(&self, clients: u64) -> f64 {
        self.spawn_rate.max(clients as f64 / (self.wait_ms as f64 / 1000.0 * SPAWN_SHARE)).round()
    }

    /// The longest a step of `clients` takes: its clients' start, the wait, the bound.
    pub fn step_s(&self, clients: u64) -> f64 {
        clients as f64 / self.spawn_rate_for(clients) + (self.wait_ms + self.bound_ms) as f64 / 1000.0
    }

    /// The most a search is expected to take, the server's start excluded.
    pub fn expected_s(&self) -> f64 {
        self.budget_s
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
        }
    }
}

/// The run's searches: none without a `[held]` table.
pub fn searches(
    args: &Overrides,
    inputs: &Inputs,
    cores: &[u32],
    implementations: &[(String, bool)],
    env_of: impl Fn(&ScenarioInfo) -> Result<BTreeMap<String, String>>,
) -> Result<Vec<HeldSpec>> {
    let Some(h) = inputs.profile.held.clone() else { return Ok(Vec::new()) };
    let shown = format!("spec/profiles/{}.toml", inputs.profile_name);
    let scenario_name = h.scenario.clone().unwrap_or_else(|| DEFAULT_SCENARIO.into());
    let Some(scenario) = inputs.scenarios.iter().find(|s| s.name == scenario_name) else {
        bail!("{shown}: [held] scenario '{scenario_name}': no scenario by that name (spec/scenarios/)");
    };
    if !args.scenarios.is_empty() && !args.scenarios.contains(&scenario_name) {
        return Ok(Vec::new());
    }
    let secs = |v: &Option<String>, default: f64| v.as_deref().map_or(Ok(default), super::parse_seconds).map_err(anyhow::Error::msg);
    let wait_ms = (secs(&h.wait, SPEC_WAIT_MS as f64 / 1000.0)? * 1000.0).round() as u64;
    let bound_ms = (secs(&h.bound, DEFAULT_BOUND_S)? * 1000.0).round() as u64;
    if wait_ms == 0 || bound_ms == 0 {
        bail!("{shown}: [held] 'wait' and 'bound' must be above 0, e.g. wait = \"2s\", bound = \"1s\"");
    }
    let mut env = env_of(scenario)?;
    env.insert("CONCUR_LONGPOLL_MS".into(), wait_ms.to_string());
    let mut out = Vec::new();
    for &k in cores.iter().filter(|k| h.cores.as_ref().is_none_or(|only| only.contains(k))) {
        let (server_cpus, generator_cpus, shared) = super::placement::split_cpus(inputs.topology, k);
        for (name, _) in implementations.iter().filter(|i| i.1) {
            out.push(HeldSpec {
                key: format!("{name}/{scenario_name}/cores={k}/held"),
                implementation: name.clone(),
                scenario: scenario_name.clone(),
                cores: k,
                server_cpus: server_cpus.clone(),
                generator_cpus: generator_cpus.clone(),
                shared,
                wait_ms,
                bound_ms,
                precision: h.precision.unwrap_or(DEFAULT_PRECISION),
                spawn_rate: h.spawn_rate.unwrap_or(DEFAULT_SPAWN_RATE),
                start: h.start.unwrap_or(DEFAULT_START),
                max_clients: h.max_clients.unwrap_or(DEFAULT_MAX_CLIENTS),
                max_steps: h.max_steps.unwrap_or(DEFAULT_MAX_STEPS),
                budget_s: secs(&h.budget, DEFAULT_BUDGET_S)?,
                env: env.clone(),
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_starts_its_clients_within_half_the_wait() {
        let s = HeldSpec::example(2000);
        assert_eq!(s.spawn_rate_for(1000), 5000.0, "the least rate: 0.2 s for 1,000");
        assert_eq!(s.spawn_rate_for(32_000), 32_000.0, "raised: 32,000 within 1 s of a 2 s wait");
        assert!((s.step_s(1000) - 3.2).abs() < 1e-9 && (s.step_s(32_000) - 4.0).abs() < 1e-9);
    }

    #[test]
    fn the_table_is_checked_with_the_field_named() {
        let bad = |toml: &str| toml::from_str::<Settings>(toml).unwrap().check("p.toml").unwrap_err().to_string();
        assert!(bad("precision = 2.0").contains("[held] 'precision'"));
        assert!(bad("wait = \"soon\"").contains("[held] 'wait'"));
        assert!(bad("start = 5000\nmax_clients = 1000").contains("'start' (5000) is above 'max_clients' (1000)"));
        assert!(bad("spawn_rate = 0").contains("'spawn_rate'"));
        assert!(toml::from_str::<Settings>("clients = 3").unwrap_err().to_string().contains("unknown field `clients`"));
    }
}
