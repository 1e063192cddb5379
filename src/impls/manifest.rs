//! The `concur.toml` manifest (spec/MANIFEST.md): its serde types and the
//! validation that turns a bad file into a sentence naming the file, the
//! field and an example fix.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// The concurrency model an implementation uses, as the report groups them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Model {
    EventLoop,
    GreenThreads,
    Actors,
    OsThreads,
    Processes,
    AsyncTasks,
}

impl Model {
    pub const NAMES: &'static str = "event-loop, green-threads, actors, os-threads, processes, async-tasks";

    pub fn as_str(self) -> &'static str {
        match self {
            Model::EventLoop => "event-loop",
            Model::GreenThreads => "green-threads",
            Model::Actors => "actors",
            Model::OsThreads => "os-threads",
            Model::Processes => "processes",
            Model::AsyncTasks => "async-tasks",
        }
    }
}

/// One implementation's manifest. Field docs are the contract of spec/MANIFEST.md.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Equals the folder name.
    pub name: String,
    pub language: String,
    pub runtime: String,
    /// Command whose output names the runtime version.
    pub version: String,
    pub framework: String,
    pub model: Model,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub requires: Requires,
    #[serde(default)]
    pub build: Build,
    pub start: Start,
    #[serde(default)]
    pub test: Option<TestCmd>,
    #[serde(default)]
    pub cores: Cores,
    #[serde(default)]
    pub features: Features,
    /// Check id → why the runtime, not the implementation, cannot meet that
    /// rule (its limit or bug, with the upstream issue where there is one).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub known_failures: BTreeMap<String, String>,
    /// Rule of spec/POLICIES.md ([`POLICY_RULES`]) → why the runtime or its driver keeps this
    /// entry from following it (what it does instead, measured where it can be).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub departures: BTreeMap<String, String>,
}

/// The rules of spec/POLICIES.md a manifest's `[departures]` may name, each with its section.
pub const POLICY_RULES: &[(&str, &str)] = &[
    ("db-reads", "§6.1"),
    ("db-writes", "§6.2"),
    ("db-pool-division", "§6.3"),
    ("db-waiting", "§6.4"),
    ("db-release", "§6.5"),
    ("fortunes-template", "§6.6"),
];

/// `§6.3 db-pool-division`: a rule as the report names it.
pub fn policy_rule(id: &str) -> String {
    match POLICY_RULES.iter().find(|(rule, _)| *rule == id) {
        Some((rule, section)) => format!("POLICIES {section} {rule}"),
        None => id.to_string(),
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Requires {
    /// Programs that must be on PATH.
    #[serde(default)]
    pub commands: Vec<String>,
    /// How the README's commands install them; shown when one is missing.
    #[serde(default)]
    pub install: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Build {
    #[serde(default)]
    pub command: String,
    /// Paths whose presence, newer than every source, means "built".
    #[serde(default)]
    pub outputs: Vec<String>,
    /// Files or `*.ext` patterns (folders count recursively) the outputs depend on.
    #[serde(default)]
    pub sources: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Start {
    pub command: String,
    /// The least warm-up the runtime needs before it serves at full speed
    /// (a JIT's), e.g. "15s", measured with bench/warmup.sh; a profile's
    /// shorter warm-up is raised to it (one of 0 s stays none).
    #[serde(default)]
    pub warmup: Option<String>,
}

impl Start {
    /// `warmup` in seconds; 0 when not set (checked when the manifest is read).
    pub fn warmup_s(&self) -> f64 {
        self.warmup.as_deref().and_then(|w| crate::host::duration::parse_seconds(w).ok()).unwrap_or(0.0)
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TestCmd {
    pub command: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cores {
    /// Extra environment, `{cores}` substituted.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// One sentence for the report.
    #[serde(default)]
    pub how: String,
}

/// The feature columns of the thesis' Tables 3-4 and the SAC 2018 paper's Table 1.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Features {
    pub multithreading: Option<bool>,
    pub lightweight_threads: Option<bool>,
    pub event_based: Option<bool>,
    pub explicit_concurrency: Option<bool>,
    pub mutable_variables: Option<bool>,
    pub communication: Option<String>,
    pub error_handling: Option<String>,
    pub computation: Option<String>,
    pub typing: Option<String>,
    pub coordination: Option<String>,
    pub runtime_environment: Option<String>,
}

/// Example lines for the required fields, quoted in error messages.
const EXAMPLES: &[(&str, &str)] = &[
    ("name", "name = \"go-nethttp\""),
    ("language", "language = \"Go\""),
    ("runtime", "runtime = \"Go (gc)\""),
    ("version", "version = \"go version\""),
    ("framework", "framework = \"net/http\""),
    ("model", "model = \"green-threads\""),
    ("start", "[start]\ncommand = \"./server\""),
];

const PLACEHOLDERS: &[&str] = &["{port}", "{cores}"];

/// Parses and validates one manifest; `path` is only used in messages.
pub fn parse(path: &Path, text: &str, folder_name: &str) -> Result<Manifest, String> {
    let shown = path.display();
    let table: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| format!("{shown}: not valid TOML: {}", one_line(&e.to_string())))?;
    if table.contains_key("database_routes") {
        return Err(format!(
            "{shown}: 'database_routes' is gone: every implementation serves the database routes of SPEC §8 now, and `concur verify` checks them in all; delete the line"
        ));
    }
    for (field, example) in EXAMPLES {
        if !table.contains_key(*field) {
            return Err(format!("{shown}: '{field}' is missing (e.g. {example})"));
        }
    }
    let manifest: Manifest = toml::Value::Table(table)
        .try_into()
        .map_err(|e: toml::de::Error| format!("{shown}: {} (see spec/MANIFEST.md)", explain(&e)))?;
    check_values(&manifest, folder_name).map_err(|msg| format!("{shown}: {msg}"))?;
    Ok(manifest)
}

fn check_values(m: &Manifest, folder_name: &str) -> Result<(), String> {
    let name_ok = !m.name.is_empty()
        && m.name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !m.name.starts_with('-');
    if !name_ok {
        return Err(format!("'name' is \"{}\", which should match [a-z0-9][a-z0-9-]* (e.g. name = \"{folder_name}\")", m.name));
    }
    if m.name != folder_name {
        return Err(format!("'name' is \"{}\" but the folder is '{folder_name}' (e.g. name = \"{folder_name}\")", m.name));
    }
    if m.start.command.trim().is_empty() {
        return Err("'start.command' is empty (e.g. command = \"./server\")".into());
    }
    check_placeholders("start.command", &m.start.command)?;
    if let Some(w) = &m.start.warmup {
        crate::host::duration::parse_seconds(w).map_err(|e| format!("'start.warmup': {e} (e.g. warmup = \"15s\")"))?;
    }
    for (key, value) in &m.cores.env {
        check_placeholders(&format!("cores.env.{key}"), value)?;
    }
    check_known_failures(&m.known_failures)?;
    check_departures(&m.departures)
}

/// Every key is a rule of spec/POLICIES.md and every reason says something: a departure is
/// shown beside the entry's figures, so it must name what it departs from and why.
fn check_departures(departures: &BTreeMap<String, String>) -> Result<(), String> {
    let rules: Vec<&str> = POLICY_RULES.iter().map(|(rule, _)| *rule).collect();
    for (rule, reason) in departures {
        if !rules.contains(&rule.as_str()) {
            return Err(format!("'departures.{rule}' is not a rule of spec/POLICIES.md; the rules are {}", rules.join(", ")));
        }
        if reason.trim().is_empty() {
            return Err(format!(
                "'departures.{rule}' has no reason; say what the runtime or its driver keeps the entry from doing and what it does instead \
                 (e.g. {rule} = \"uvicorn gives its workers no index: each takes floor(POOL/P), 15 of 16 at 3 cores\")"
            ));
        }
    }
    Ok(())
}

/// Every reason says something: a declared deviation without its cause would
/// excuse a failure nobody can read about. (That every key names a check is
/// `verify`'s to say: the checks are its own.)
fn check_known_failures(known: &BTreeMap<String, String>) -> Result<(), String> {
    for (id, reason) in known {
        if reason.trim().is_empty() {
            return Err(format!(
                "'known_failures.{id}' has no reason; say which limit of the runtime fails it, and the upstream issue if there is one \
                 (e.g. {id} = \"Bun 1.4.5 closes the connection … (oven-sh/bun#38128)\")"
            ));
        }
    }
    Ok(())
}

fn check_placeholders(field: &str, value: &str) -> Result<(), String> {
    let mut rest = value;
    while let Some(open) = rest.find('{') {
        let tail = &rest[open..];
        let close = tail.find('}').map(|c| c + 1).unwrap_or(tail.len());
        let token = &tail[..close];
        if !PLACEHOLDERS.contains(&token) {
            return Err(format!(
                "'{field}' uses the placeholder '{token}', but only {{port}} and {{cores}} exist (e.g. \"./server --port {{port}}\")"
            ));
        }
        rest = &tail[close..];
    }
    Ok(())
}

/// Turns toml/serde's message into one line that says which field and what to do.
fn explain(e: &toml::de::Error) -> String {
    let msg = one_line(e.message());
    if msg.contains("unknown variant") {
        return format!("'model': {msg}; use one of {}", Model::NAMES);
    }
    if msg.contains("unknown field") {
        return format!("{msg}; remove it or fix its spelling");
    }
    msg
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
name = "demo"
language = "Go"
runtime = "Go (gc)"
version = "go version"
framework = "net/http"
model = "green-threads"
[start]
command = "./server --port {port}"
[cores]
env = { GOMAXPROCS = "{cores}" }
"#;

    fn parse_str(text: &str) -> Result<Manifest, String> {
        parse(Path::new("impls/http/demo/concur.toml"), text, "demo")
    }

    #[test]
    fn a_good_manifest_parses() {
        let m = parse_str(GOOD).unwrap();
        assert_eq!(m.model, Model::GreenThreads);
        assert_eq!(m.cores.env["GOMAXPROCS"], "{cores}");
    }

    #[test]
    fn the_gone_transition_field_is_refused_with_the_fix() {
        let e = parse_str(&format!("database_routes = true\n{GOOD}")).unwrap_err();
        assert!(e.starts_with("impls/http/demo/concur.toml: 'database_routes' is gone") && e.ends_with("delete the line"), "{e}");
    }

    #[test]
    fn missing_start_names_file_field_and_example() {
        let text = GOOD.replace("[start]\ncommand = \"./server --port {port}\"\n", "");
        let err = parse_str(&text).unwrap_err();
        assert!(err.starts_with("impls/http/demo/concur.toml: 'start' is missing"), "{err}");
        assert!(err.contains("command = \"./server\""), "{err}");
    }

    #[test]
    fn unknown_model_lists_the_valid_ones() {
        let err = parse_str(&GOOD.replace("green-threads", "fibres")).unwrap_err();
        assert!(err.contains("'model'") && err.contains("event-loop, green-threads"), "{err}");
    }

    #[test]
    fn a_misspelt_field_is_an_error_not_ignored() {
        let err = parse_str(&format!("{GOOD}\n[test]\ncomand = \"go test\"\n")).unwrap_err();
        assert!(err.contains("unknown field") && err.contains("comand"), "{err}");
    }

    #[test]
    fn name_must_equal_folder() {
        let err = parse_str(&GOOD.replace("name = \"demo\"", "name = \"other\"")).unwrap_err();
        assert!(err.contains("folder is 'demo'"), "{err}");
    }

    #[test]
    fn unknown_placeholder_is_named() {
        let err = parse_str(&GOOD.replace("{port}", "{host}")).unwrap_err();
        assert!(err.contains("'start.command'") && err.contains("{host}"), "{err}");
    }

    #[test]
    fn known_failures_map_check_ids_to_reasons() {
        let m = parse_str(&format!("{GOOD}\n[known_failures]\npipelining = \"the runtime closes the connection (upstream#1)\"\n")).unwrap();
        assert_eq!(m.known_failures["pipelining"], "the runtime closes the connection (upstream#1)");
        assert!(parse_str(GOOD).unwrap().known_failures.is_empty());
    }

    #[test]
    fn a_departure_names_a_rule_and_says_why() {
        let m = parse_str(&format!("{GOOD}\n[departures]\ndb-pool-division = \"no worker index: the floor\"\n")).unwrap();
        assert_eq!(m.departures["db-pool-division"], "no worker index: the floor");
        assert_eq!(policy_rule("db-pool-division"), "POLICIES §6.3 db-pool-division");
        let err = parse_str(&format!("{GOOD}\n[departures]\npool = \"the floor\"\n")).unwrap_err();
        assert!(err.starts_with("impls/http/demo/concur.toml: 'departures.pool' is not a rule of spec/POLICIES.md; the rules are db-reads,"), "{err}");
        let err = parse_str(&format!("{GOOD}\n[departures]\ndb-waiting = \" \"\n")).unwrap_err();
        assert!(err.contains("'departures.db-waiting' has no reason"), "{err}");
    }

    #[test]
    fn a_known_failure_needs_a_reason() {
        let err = parse_str(&format!("{GOOD}\n[known_failures]\npipelining = \"  \"\n")).unwrap_err();
        assert!(err.contains("'known_failures.pipelining' has no reason"), "{err}");
    }

    #[test]
    fn invalid_toml_names_the_file() {
        let err = parse_str("name = ").unwrap_err();
        assert!(err.starts_with("impls/http/demo/concur.toml: not valid TOML"), "{err}");
    }
}
