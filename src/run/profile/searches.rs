//! The profile's `[capacity]` and `[held]` tables: how the capacity search
//! and the clients-held search are asked for, as written, and their checks
//! (each field that is a duration parses, each fraction is one, each count
//! is above 0). The searches turn them into planned searches with their
//! defaults (`run::capacity`, `run::held`).

use crate::run::parse_seconds;
use crate::run::slo::Slo;
use anyhow::{Result, bail};
use serde::{Deserialize, Serialize};

/// The profile's `[capacity]` table; every field has a default.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Capacity {
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

/// The profile's `[held]` table; every field has a default.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Held {
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

impl Capacity {
    /// Validates the table of profile `shown`.
    pub fn check(&self, shown: &str) -> Result<()> {
        let table = Table { shown, name: "capacity" };
        if let Some(slo) = &self.slo {
            Slo::parse(slo).map_err(|e| anyhow::anyhow!("{shown}: [capacity] 'slo': {e}"))?;
        }
        table.durations(&[("step", &self.step), ("step_warmup", &self.step_warmup), ("budget", &self.budget)])?;
        table.fraction(self.precision, "0.05 (5%)")?;
        let zero = [self.connections, self.start, self.max_steps].contains(&Some(0));
        table.above_zero(zero, &self.cores, "'connections', 'start', 'max_steps'")
    }
}

impl Held {
    /// Validates the table of profile `shown`.
    pub fn check(&self, shown: &str) -> Result<()> {
        let table = Table { shown, name: "held" };
        table.durations(&[("bound", &self.bound), ("wait", &self.wait), ("budget", &self.budget)])?;
        table.fraction(self.precision, "0.1 (10%)")?;
        if self.spawn_rate.is_some_and(|r| !(r > 0.0 && r.is_finite())) {
            bail!("{shown}: [held] 'spawn_rate' is users per second above 0, e.g. spawn_rate = 5000");
        }
        let zero = [self.start, self.max_clients].contains(&Some(0)) || self.max_steps == Some(0);
        table.above_zero(zero, &self.cores, "'start', 'max_clients', 'max_steps'")?;
        if let (Some(start), Some(max)) = (self.start, self.max_clients)
            && start > max
        {
            bail!("{shown}: [held] 'start' ({start}) is above 'max_clients' ({max})");
        }
        Ok(())
    }
}

/// The checks both tables share, each error naming the file, the table and the field.
struct Table<'a> {
    shown: &'a str,
    name: &'a str,
}

impl Table<'_> {
    fn durations(&self, fields: &[(&str, &Option<String>)]) -> Result<()> {
        for (field, value) in fields {
            if let Some(v) = value {
                parse_seconds(v).map_err(|e| anyhow::anyhow!("{}: [{}] '{field}': {e}", self.shown, self.name))?;
            }
        }
        Ok(())
    }

    fn fraction(&self, precision: Option<f64>, example: &str) -> Result<()> {
        if precision.is_some_and(|p| !(p > 0.0 && p < 1.0)) {
            bail!("{}: [{}] 'precision' is a fraction between 0 and 1, e.g. precision = {example}", self.shown, self.name);
        }
        Ok(())
    }

    /// `zero`: one of the counts `names` is 0.
    fn above_zero(&self, zero: bool, cores: &Option<Vec<u32>>, names: &str) -> Result<()> {
        if zero || cores.as_ref().is_some_and(|c| c.contains(&0)) {
            bail!("{}: [{}] {names} and 'cores' must be above 0", self.shown, self.name);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_held_table_is_checked_with_the_field_named() {
        let bad = |toml: &str| toml::from_str::<Held>(toml).unwrap().check("p.toml").unwrap_err().to_string();
        assert!(bad("precision = 2.0").contains("[held] 'precision'"));
        assert!(bad("wait = \"soon\"").contains("[held] 'wait'"));
        assert!(bad("start = 5000\nmax_clients = 1000").contains("'start' (5000) is above 'max_clients' (1000)"));
        assert!(bad("spawn_rate = 0").contains("'spawn_rate'"));
        assert!(toml::from_str::<Held>("clients = 3").unwrap_err().to_string().contains("unknown field `clients`"));
    }

    #[test]
    fn the_capacity_table_is_checked_with_the_field_named() {
        let bad = |toml: &str| toml::from_str::<Capacity>(toml).unwrap().check("p.toml").unwrap_err().to_string();
        assert!(bad("slo = \"fast\"").contains("[capacity] 'slo'"));
        assert!(bad("step = \"2 parsecs\"").contains("[capacity] 'step'"));
        assert!(bad("precision = 0").contains("[capacity] 'precision'"));
        assert!(bad("cores = [0]").contains("'cores' must be above 0"));
    }
}
