//! Scenarios: a virtual user runs the steps in order, again and again, each a
//! request template with `{user}` and `{password}` taken from the user data,
//! an expected status, and a think time between iterations. The seeds'
//! scenarios ship in `spec/scenarios/` and are built into the binary, so a
//! name works anywhere; a path loads any other file.

use crate::host::duration::parse_duration;
use anyhow::{Context, Result, bail};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// The scenarios of `spec/scenarios/`, by name.
pub const BUILTIN: &[(&str, &str)] = &[
    ("hello", include_str!("../../spec/scenarios/hello.toml")),
    ("json", include_str!("../../spec/scenarios/json.toml")),
    ("page", include_str!("../../spec/scenarios/page.toml")),
    ("password", include_str!("../../spec/scenarios/password.toml")),
    ("userinfo", include_str!("../../spec/scenarios/userinfo.toml")),
    ("longpoll", include_str!("../../spec/scenarios/longpoll.toml")),
    ("db", include_str!("../../spec/scenarios/db.toml")),
    ("fortunes", include_str!("../../spec/scenarios/fortunes.toml")),
    ("queries", include_str!("../../spec/scenarios/queries.toml")),
    ("updates", include_str!("../../spec/scenarios/updates.toml")),
    ("slowdb", include_str!("../../spec/scenarios/slowdb.toml")),
];

/// One request template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// Shown in reports, e.g. `set`.
    pub name: String,
    pub method: String,
    /// Path and query, may hold `{user}` and `{password}`.
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// The status a success must have; `None` accepts any 2xx or 3xx.
    pub expect: Option<u16>,
}

impl Step {
    /// Whether the template needs a row of user data.
    pub fn uses_users(&self) -> bool {
        let has = |s: &[u8]| s.windows(6).any(|w| w == b"{user}") || s.windows(10).any(|w| w == b"{password}");
        has(self.path.as_bytes()) || has(&self.body) || self.headers.iter().any(|(_, v)| has(v.as_bytes()))
    }
}

/// A parsed scenario file; its settings are defaults that flags override.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    pub name: String,
    pub description: String,
    pub connections: Option<usize>,
    pub requests: Option<u64>,
    pub duration: Option<Duration>,
    pub timeout: Option<Duration>,
    pub think_time: Duration,
    pub steps: Vec<Step>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    description: String,
    #[serde(default)]
    source: Option<String>,
    connections: Option<usize>,
    requests: Option<u64>,
    duration: Option<String>,
    timeout: Option<String>,
    think_time: Option<String>,
    #[serde(rename = "step")]
    steps: Vec<StepFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StepFile {
    name: String,
    #[serde(default = "get")]
    method: String,
    path: String,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    #[serde(default)]
    body: String,
    expect: Option<u16>,
}

fn get() -> String {
    "GET".to_string()
}

impl Scenario {
    /// A built-in name (`password`) or a path to a `.toml` file.
    pub fn load(name_or_path: &str) -> Result<Scenario> {
        if let Some((name, text)) = BUILTIN.iter().find(|(name, _)| *name == name_or_path) {
            return Scenario::parse(name, text).with_context(|| format!("built-in scenario '{name}'"));
        }
        let path = Path::new(name_or_path);
        if !name_or_path.ends_with(".toml") && !path.exists() {
            let names: Vec<&str> = BUILTIN.iter().map(|(n, _)| *n).collect();
            bail!("unknown scenario '{name_or_path}': use one of {} or a path to a .toml file", names.join(", "));
        }
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read scenario {}", path.display()))?;
        let name = path.file_stem().map_or_else(|| name_or_path.to_string(), |s| s.to_string_lossy().into_owned());
        Scenario::parse(&name, &text).with_context(|| format!("{}", path.display()))
    }

    pub fn parse(name: &str, text: &str) -> Result<Scenario> {
        let file: File = toml::from_str(text)?;
        let _ = file.source;
        let duration = |field: &str, value: Option<String>| -> Result<Option<Duration>> {
            value.map(|v| parse_duration(&v).map_err(|e| anyhow::anyhow!("'{field}': {e}"))).transpose()
        };
        if file.steps.is_empty() {
            bail!("no [[step]]: a scenario needs at least one request (e.g. [[step]] name = \"hello\" path = \"/\")");
        }
        let steps = file
            .steps
            .into_iter()
            .map(|s| {
                if !s.path.starts_with('/') {
                    bail!("step '{}': path '{}' must start with '/'", s.name, s.path);
                }
                Ok(Step {
                    name: s.name,
                    method: s.method.to_ascii_uppercase(),
                    path: s.path,
                    headers: s.headers.into_iter().collect(),
                    body: s.body.into_bytes(),
                    expect: s.expect,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Scenario {
            name: name.to_string(),
            description: file.description,
            connections: file.connections,
            requests: file.requests,
            duration: duration("duration", file.duration)?,
            timeout: duration("timeout", file.timeout)?,
            think_time: duration("think_time", file.think_time)?.unwrap_or_default(),
            steps,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_scenario_parses() {
        for (name, _) in BUILTIN {
            let s = Scenario::load(name).unwrap();
            assert!(!s.steps.is_empty(), "{name}");
        }
        let p = Scenario::load("password").unwrap();
        assert_eq!(p.steps.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["set", "verify"]);
        assert_eq!(p.think_time, Duration::from_secs(1));
        assert!(p.steps[0].uses_users());
    }

    #[test]
    fn unknown_names_list_the_known_ones() {
        let err = Scenario::load("nope").unwrap_err().to_string();
        assert!(err.contains("use one of hello, json, page, password, userinfo, longpoll"), "{err}");
    }

    #[test]
    fn mistakes_in_files_are_named() {
        let err = format!("{:#}", Scenario::parse("x", "description = \"x\"\nthink_time = \"1 day\"\n[[step]]\nname = \"a\"\npath = \"/\"\n").unwrap_err());
        assert!(err.contains("'think_time': invalid duration '1 day'"), "{err}");
        let err = format!("{:#}", Scenario::parse("x", "description = \"x\"\n[[step]]\nname = \"a\"\npath = \"x\"\n").unwrap_err());
        assert!(err.contains("path 'x' must start with '/'"), "{err}");
    }
}
