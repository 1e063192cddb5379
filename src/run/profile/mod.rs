//! Named profiles (`spec/profiles/<name>.toml`): a sweep written down once,
//! so that `concur run --profile thesis` reproduces a seed's set-up. Only
//! parsing and validation live here; `plan` combines a profile with flags.

mod searches;

pub use searches::{Capacity, Held};

use crate::host::profile::{self, Folder};
use crate::store::Generator;
use anyhow::{Result, bail};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// One profile file.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// One sentence for `--list-profiles` and the report.
    pub description: String,
    /// Implementation names; empty means every HTTP implementation.
    #[serde(default)]
    pub implementations: Vec<String>,
    /// Scenario names; empty means every scenario.
    #[serde(default)]
    pub scenarios: Vec<String>,
    /// Server core counts; those above this machine's CPUs are skipped with a note.
    pub cores: Vec<u32>,
    #[serde(default = "profile::one")]
    pub repeat: u32,
    /// Connection modes, a dimension like `cores`: `true` reuses connections,
    /// `false` sends every request on a new one with `Connection: close`.
    /// `None`: keep-alive only.
    pub keepalive: Option<Vec<bool>>,
    /// Load settings of every scenario.
    #[serde(default)]
    pub load: Load,
    /// Extra server environment, e.g. `CONCUR_BCRYPT_COST = "10"`.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Per-scenario overrides of `load`.
    #[serde(default)]
    pub scenario: BTreeMap<String, Load>,
    /// The capacity search (`--slo`), spec/PROFILES.md "Capacity".
    pub capacity: Option<searches::Capacity>,
    /// The clients-held search, spec/PROFILES.md "Clients held".
    pub held: Option<searches::Held>,
    /// Load generators, a dimension like `keepalive`: `"locust"` or `["concur-load", "locust"]`; none: `concur load`.
    #[serde(default, deserialize_with = "one_or_many")]
    pub generator: Vec<Generator>,
}

fn one_or_many<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Generator>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(Generator),
        Many(Vec<Generator>),
    }
    Ok(match OneOrMany::deserialize(d)? {
        OneOrMany::One(g) => vec![g],
        OneOrMany::Many(g) => g,
    })
}

/// Load settings; anything left out falls back to the profile's `[load]`,
/// then to the scenario file's own default.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Load {
    /// Closed-loop levels: connections.
    pub connections: Option<Vec<u32>>,
    /// Closed-loop levels that scale with the server: connections per server core (thesis: 1 and 2 clients per CPU).
    pub connections_per_core: Option<Vec<u32>>,
    /// Open-loop levels: requests per second.
    pub rate: Option<Vec<u32>>,
    /// The run's core counts this scenario is measured at (a subset of the
    /// profile's `cores`); none: all of them. `--cores` overrides it.
    pub cores: Option<Vec<u32>>,
    /// The least warm-up on the measurement's connections ("0s": none)…
    pub warmup: Option<String>,
    /// …and the most, while throughput is not yet steady.
    pub warmup_max: Option<String>,
    pub duration: Option<String>,
    /// A fixed request count instead of a duration (ab's -n).
    pub requests: Option<u64>,
    pub timeout: Option<String>,
    /// Extra server environment for this scenario only.
    pub env: Option<BTreeMap<String, String>>,
    /// Connection modes of this scenario, over the profile's top-level `keepalive`.
    pub keepalive: Option<Vec<bool>>,
    /// `[scenario.NAME]` only: the scenario whose point this one's points follow on the same
    /// server, still running and warm (spec/PROFILES.md, "One server for several scenarios").
    pub after: Option<String>,
    /// Measurement windows per server start, one per block: the implementations' servers are
    /// kept warm and their windows taken in rounds (spec/PROFILES.md, "Blocks"). Default 1.
    pub blocks: Option<u32>,
    /// The fixed warm-up before each window after a server's first, on the window's own
    /// connections (`"250ms"`; default 1 s): the server is warm, its new connections are not.
    pub rewarm: Option<String>,
}

impl Load {
    /// `self` with the fields it leaves out taken from `base`.
    pub fn over(&self, base: &Load) -> Load {
        let levels_set = self.connections.is_some() || self.connections_per_core.is_some() || self.rate.is_some();
        let mut env = base.env.clone().unwrap_or_default();
        env.extend(self.env.clone().unwrap_or_default());
        Load {
            connections: if levels_set { self.connections.clone() } else { base.connections.clone() },
            connections_per_core: if levels_set { self.connections_per_core.clone() } else { base.connections_per_core.clone() },
            rate: if levels_set { self.rate.clone() } else { base.rate.clone() },
            cores: self.cores.clone().or_else(|| base.cores.clone()),
            warmup: self.warmup.clone().or_else(|| base.warmup.clone()),
            warmup_max: self.warmup_max.clone().or_else(|| base.warmup_max.clone()),
            duration: if self.requests.is_some() { None } else { self.duration.clone().or_else(|| base.duration.clone()) },
            requests: if self.duration.is_some() { None } else { self.requests.or(base.requests) },
            timeout: self.timeout.clone().or_else(|| base.timeout.clone()),
            env: Some(env),
            keepalive: self.keepalive.clone().or_else(|| base.keepalive.clone()),
            after: self.after.clone(),
            blocks: self.blocks.or(base.blocks),
            rewarm: self.rewarm.clone().or_else(|| base.rewarm.clone()),
        }
    }
}

/// The folder holding the profiles.
pub const FOLDER: Folder = Folder { path: "spec/profiles", what: "profiles" };

/// Names of the profiles in `spec/profiles/`, sorted.
pub fn names(root: &Path) -> Vec<String> {
    FOLDER.names(root)
}

/// Reads `spec/profiles/<name>.toml`.
pub fn load(root: &Path, name: &str) -> Result<Profile> {
    let (shown, text) = FOLDER.read(root, name)?;
    parse(&shown, &text)
}

/// Parses one profile; `shown` names the file in errors.
pub fn parse(shown: &str, text: &str) -> Result<Profile> {
    let profile: Profile = profile::parse(shown, text)?;
    if profile.cores.is_empty() || profile.cores.contains(&0) {
        bail!("{shown}: 'cores' must list core counts of at least 1 (e.g. cores = [1, 2])");
    }
    profile::check_repeat(shown, profile.repeat)?;
    if profile.load.keepalive.is_some() {
        bail!("{shown}: [load] sets keepalive: it goes at the top level (keepalive = [true, false]) or in a [scenario.NAME] section");
    }
    check_modes(shown, "", &profile.keepalive)?;
    if let Some(host) = &profile.load.after {
        bail!("{shown}: [load] sets after = \"{host}\": it names the scenario one scenario's points follow, so it goes in that [scenario.NAME] section");
    }
    if let Some((name, _)) = profile.scenario.iter().find(|(name, load)| load.after.as_ref() == Some(*name)) {
        bail!("{shown}: [scenario.{name}] is measured after itself (after = \"{name}\"): name another scenario, or remove after");
    }
    for (section, load) in std::iter::once(("load".to_string(), &profile.load)).chain(profile.scenario.iter().map(|(k, v)| (format!("scenario.{k}"), v))) {
        check_load(shown, &section, load)?;
    }
    if let Some(c) = &profile.capacity {
        c.check(shown)?;
    }
    if let Some(h) = &profile.held {
        h.check(shown)?;
    }
    Ok(profile)
}

fn check_load(shown: &str, section: &str, load: &Load) -> Result<()> {
    let levels = [load.connections.is_some(), load.connections_per_core.is_some(), load.rate.is_some()];
    if levels.iter().filter(|x| **x).count() > 1 {
        bail!("{shown}: [{section}] sets more than one of connections, connections_per_core and rate; keep one");
    }
    if load.duration.is_some() && load.requests.is_some() {
        bail!("{shown}: [{section}] sets both duration and requests; keep one");
    }
    if load.blocks == Some(0) {
        bail!("{shown}: [{section}] blocks = 0: every server start needs at least one window (e.g. blocks = 3)");
    }
    for (field, value) in [("warmup", &load.warmup), ("warmup_max", &load.warmup_max), ("duration", &load.duration), ("timeout", &load.timeout), ("rewarm", &load.rewarm)] {
        if let Some(v) = value {
            super::parse_seconds(v).map_err(|e| anyhow::anyhow!("{shown}: [{section}] '{field}': {e}"))?;
        }
    }
    check_modes(shown, &format!("[{section}] "), &load.keepalive)?;
    let zero = |v: &Option<Vec<u32>>| v.as_ref().is_some_and(|l| l.is_empty() || l.contains(&0));
    if zero(&load.cores) {
        bail!("{shown}: [{section}] 'cores' must be a non-empty list of core counts above 0 (e.g. cores = [2])");
    }
    if zero(&load.connections) || zero(&load.connections_per_core) || zero(&load.rate) {
        bail!("{shown}: [{section}] load levels must be non-empty lists of numbers above 0 (e.g. connections = [50])");
    }
    Ok(())
}

fn check_modes(shown: &str, section: &str, keepalive: &Option<Vec<bool>>) -> Result<()> {
    if keepalive.as_ref().is_some_and(Vec::is_empty) {
        bail!("{shown}: {section}'keepalive' lists no mode: write true (keep-alive), false (Connection: close) or both, e.g. keepalive = [true, false]");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenario_overrides_fall_back_to_the_profile() {
        let p = parse(
            "p.toml",
            "description = \"d\"\ncores = [1]\n[load]\nconnections = [50]\nduration = \"5s\"\nwarmup = \"1s\"\n[scenario.page]\nrequests = 100\nconnections_per_core = [2]\n",
        )
        .unwrap();
        let page = p.scenario["page"].over(&p.load);
        assert_eq!((page.connections, page.connections_per_core.clone()), (None, Some(vec![2])));
        assert_eq!((page.duration, page.requests, page.warmup.as_deref()), (None, Some(100), Some("1s")));
    }

    #[test]
    fn keepalive_is_a_top_level_dimension_that_a_scenario_may_override() {
        let p = parse("p.toml", "description = \"d\"\ncores = [1]\nkeepalive = [true, false]\n[scenario.page]\nkeepalive = [false]\n").unwrap();
        assert_eq!((p.keepalive.as_deref(), p.scenario["page"].keepalive.as_deref()), (Some(&[true, false][..]), Some(&[false][..])));
        assert_eq!(parse("p.toml", "description = \"d\"\ncores = [1]\n").unwrap().keepalive, None);
        let err = parse("p.toml", "description = \"d\"\ncores = [1]\n[load]\nkeepalive = [false]\n").unwrap_err().to_string();
        assert!(err.contains("[load] sets keepalive: it goes at the top level"), "{err}");
        let err = parse("p.toml", "description = \"d\"\ncores = [1]\n[scenario.hello]\nkeepalive = []\n").unwrap_err().to_string();
        assert!(err.starts_with("p.toml: [scenario.hello] 'keepalive' lists no mode"), "{err}");
        let err = parse("p.toml", "description = \"d\"\ncores = [1]\nkeepalive = []\n").unwrap_err().to_string();
        assert!(err.starts_with("p.toml: 'keepalive' lists no mode"), "{err}");
    }

    #[test]
    fn after_is_a_scenario_setting_naming_another_scenario() {
        let p = parse("p.toml", "description = \"d\"\ncores = [1]\n[scenario.fortunes]\nafter = \"db\"\n").unwrap();
        assert_eq!(p.scenario["fortunes"].over(&p.load).after.as_deref(), Some("db"));
        let err = parse("p.toml", "description = \"d\"\ncores = [1]\n[load]\nafter = \"db\"\n").unwrap_err().to_string();
        assert!(err.starts_with("p.toml: [load] sets after = \"db\": it names the scenario"), "{err}");
        let err = parse("p.toml", "description = \"d\"\ncores = [1]\n[scenario.db]\nafter = \"db\"\n").unwrap_err().to_string();
        assert!(err.starts_with("p.toml: [scenario.db] is measured after itself"), "{err}");
    }

    #[test]
    fn a_misspelt_field_names_the_file() {
        let err = parse("spec/profiles/x.toml", "description = \"d\"\ncores = [1]\nrepeats = 3\n").unwrap_err().to_string();
        assert!(err.starts_with("spec/profiles/x.toml: unknown field `repeats`"), "{err}");
    }

    #[test]
    fn two_kinds_of_level_are_refused() {
        let err = parse("x.toml", "description = \"d\"\ncores = [1]\n[scenario.hello]\nconnections = [1]\nrate = [5]\n").unwrap_err().to_string();
        assert!(err.contains("[scenario.hello] sets more than one"), "{err}");
    }

    #[test]
    fn a_bad_duration_names_section_and_field() {
        let err = parse("x.toml", "description = \"d\"\ncores = [1]\n[load]\nduration = \"5 parsecs\"\n").unwrap_err().to_string();
        assert!(err.contains("[load] 'duration'") && err.contains("5 parsecs"), "{err}");
    }
}
