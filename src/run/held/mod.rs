//! The clients-held search (the profile's `[held]`): for each implementation
//! × core count, the most long-poll clients the server holds waiting at once
//! with every one answered within the poll's wait plus a bound, no error and
//! none left unanswered. One fresh server per search; steps of N clients,
//! each sending one `GET /longPoll`, started at a spawn rate; N walks the
//! ramp and bisection the capacity search uses (`run::ramp`) from the start
//! (1,000: ×2 while steps pass, ÷4 when the first fails) up to a limit the
//! profile or the machine sets (`limits`). Every step is stored as it ends
//! (`search`), with the server's memory per waiting client and its CPU while
//! they wait (`step`). This file plans the searches from the profile's
//! `[held]` table (`profile::Held`).

pub mod accept;
mod limits;
mod search;
mod step;

pub use search::{ride, run_all};

use super::spec::{HeldSpec, Inputs, Overrides, ScenarioInfo};
use anyhow::{Result, bail};
use std::collections::BTreeMap;

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
                server_warmup_s: inputs.implementations.iter().find(|i| i.name() == name).map_or(0.0, |i| i.manifest.start.warmup_s()),
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
}
