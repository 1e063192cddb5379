//! The locustfile of a scenario, generated from the same TOML that
//! `concur load` runs: the same steps in the same order, the same user rows,
//! the same expected statuses and think time. Nothing is written by hand per
//! scenario; a step Locust cannot send as written is refused here, before
//! any server starts. spec/LOCUST.md describes the file.

use crate::load::{Scenario, Users};
use anyhow::{Result, bail};
use serde_json::json;

/// What the generated file needs besides the scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Workers the rows are spread over: worker `i` takes rows `i`, `i + workers`, … (the thesis'
    /// "distributed evenly on the load generation nodes").
    pub workers: u32,
    /// Seconds after every user has spawned at which the master resets its statistics: the warm-up.
    pub warmup_s: f64,
    /// Seconds measured after the warm-up; then the master ends the run.
    pub duration_s: f64,
    /// Longest wait for one response.
    pub timeout_s: f64,
}

/// Methods Locust's `HttpUser` (python-requests) sends as given.
const METHODS: &[&str] = &["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];
/// Headers python-requests writes itself from the request, which a step cannot set.
const FRAMING: &[&str] = &["content-length", "transfer-encoding", "host", "connection"];

/// Refuses a scenario with a step Locust cannot express, naming scenario and step.
pub fn check(scenario: &Scenario) -> Result<()> {
    for step in &scenario.steps {
        let at = format!("scenario {}, step '{}'", scenario.name, step.name);
        if !METHODS.contains(&step.method.as_str()) {
            bail!("{at}: Locust cannot send method {} (it sends {}); measure this scenario with --generator concur-load", step.method, METHODS.join(", "));
        }
        if let Some((name, _)) = step.headers.iter().find(|(n, _)| FRAMING.contains(&n.to_ascii_lowercase().as_str())) {
            bail!("{at}: Locust sets header {name} itself from the request; remove it from the step or use --generator concur-load");
        }
        if std::str::from_utf8(&step.body).is_err() {
            bail!("{at}: the body is not UTF-8 text, which the generated locustfile cannot hold; use --generator concur-load");
        }
    }
    Ok(())
}

/// The locustfile for `scenario` with `users` (empty when no step uses them).
pub fn generate(scenario: &Scenario, users: &Users, settings: &Settings) -> Result<String> {
    check(scenario)?;
    let steps: Vec<serde_json::Value> = scenario
        .steps
        .iter()
        .map(|s| {
            let headers: serde_json::Map<String, serde_json::Value> = s.headers.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
            json!([s.name, s.method, s.path, headers, String::from_utf8_lossy(&s.body), s.expect])
        })
        .collect();
    let uses_users = scenario.steps.iter().any(|s| s.uses_users());
    let rows: Vec<[&str; 2]> = if uses_users { users.0.iter().map(|(u, p)| [u.as_str(), p.as_str()]).collect() } else { Vec::new() };
    // A JSON string literal is a valid Python string literal, and json.loads reads what it holds.
    let literal = |v: &serde_json::Value| serde_json::to_string(&v.to_string()).unwrap_or_default();
    Ok(TEMPLATE
        .replace("@SCENARIO@", &serde_json::to_string(&scenario.name)?)
        .replace("@DESCRIPTION@", &scenario.description.replace('\n', " "))
        .replace("@STEPS@", &literal(&json!(steps)))
        .replace("@USERS@", &literal(&json!(rows)))
        .replace("@WORKERS@", &settings.workers.max(1).to_string())
        .replace("@WARMUP_S@", &format!("{:?}", settings.warmup_s))
        .replace("@DURATION_S@", &format!("{:?}", settings.duration_s))
        .replace("@THINK_S@", &format!("{:?}", scenario.think_time.as_secs_f64()))
        .replace("@TIMEOUT_S@", &format!("{:?}", settings.timeout_s)))
}

const TEMPLATE: &str = include_str!("locustfile.py.in");

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> Settings {
        Settings { workers: 2, warmup_s: 0.0, duration_s: 10.0, timeout_s: 30.0 }
    }

    #[test]
    fn the_password_scenario_becomes_its_steps_rows_statuses_and_think_time() {
        let scenario = Scenario::load("password").unwrap();
        let text = generate(&scenario, &Users::generate(3), &settings()).unwrap();
        assert!(text.contains("SCENARIO = \"password\""), "{text}");
        assert!(text.contains(r#"[\"set\",\"POST\",\"/password/set/{user}\",{\"Content-Type\":\"application/json\"},\"{\\\"password\\\":\\\"{password}\\\"}\",200]"#), "{text}");
        assert!(text.contains(r#"[\"user00001\",\"cFXRzvD5gB2FDbdh\"]"#), "{text}");
        assert!(text.contains("THINK_S = 1.0") && text.contains("WORKERS = 2") && text.contains("TIMEOUT_S = 30.0"), "{text}");
        assert!(text.contains("WARMUP_S = 0.0") && text.contains("DURATION_S = 10.0"), "{text}");
        let set = text.find("\\\"set\\\"").unwrap();
        assert!(set < text.find("\\\"verify\\\"").unwrap(), "steps keep their order");
    }

    #[test]
    fn a_scenario_without_user_data_embeds_no_rows() {
        let text = generate(&Scenario::load("hello").unwrap(), &Users::generate(3), &settings()).unwrap();
        assert!(text.contains("USERS = json.loads(\"[]\")"), "{text}");
        assert!(text.contains("THINK_S = 0.0"), "{text}");
    }

    #[test]
    fn a_step_locust_cannot_send_is_refused_naming_scenario_and_step() {
        let toml = "description = \"x\"\n[[step]]\nname = \"peek\"\nmethod = \"PROPFIND\"\npath = \"/\"\n";
        let err = generate(&Scenario::parse("dav", toml).unwrap(), &Users::default(), &settings()).unwrap_err().to_string();
        assert!(err.starts_with("scenario dav, step 'peek': Locust cannot send method PROPFIND"), "{err}");
        let toml = "description = \"x\"\n[[step]]\nname = \"raw\"\npath = \"/\"\nheaders = { \"Content-Length\" = \"3\" }\n";
        let err = check(&Scenario::parse("framed", toml).unwrap()).unwrap_err().to_string();
        assert!(err.starts_with("scenario framed, step 'raw': Locust sets header Content-Length itself"), "{err}");
    }

    #[test]
    fn every_builtin_scenario_can_be_generated() {
        for name in ["hello", "json", "page", "password", "userinfo", "longpoll"] {
            generate(&Scenario::load(name).unwrap(), &Users::generate(2), &settings()).unwrap();
        }
    }
}
