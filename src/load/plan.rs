//! The resolved plan of a run: everything the workers need, as plain data.
//! The CLI builds it from flags (`from_args`); the orchestrator builds it
//! directly and calls `load::run` with it.

use super::args::LoadArgs;
use super::scenario::{Scenario, Step};
use super::url::Target;
use super::users::Users;
use anyhow::{Context, Result, bail};
use std::time::Duration;

/// When the run ends.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StopAt {
    /// After this long; requests still in flight then are not counted.
    Duration(Duration),
    /// After exactly this many requests have completed or failed.
    Count(u64),
}

#[derive(Debug, Clone)]
pub struct LoadPlan {
    pub target: Target,
    /// The scenario's name, when the steps come from one.
    pub scenario: Option<String>,
    /// Requests each virtual user sends in turn; one step for a plain URL.
    pub steps: Vec<Step>,
    /// Rows for `{user}` and `{password}`; user `u` in iteration `i` takes row `(u + i * connections) % rows`.
    pub users: Users,
    /// Connections, one virtual user each.
    pub connections: usize,
    /// Worker threads, each with its own event loop and share of the connections.
    pub threads: usize,
    pub stop: StopAt,
    /// Open loop: requests per second over all connections. `None`: closed loop.
    pub rate: Option<f64>,
    /// Closed loop: pause of a virtual user after its last step.
    pub think_time: Duration,
    /// Longest wait for a connection plus response.
    pub timeout: Duration,
    pub keepalive: bool,
    /// Worker thread `i` is pinned to `cpus[i % len]`; empty: not pinned.
    pub cpus: Vec<usize>,
}

impl LoadPlan {
    /// A closed-loop plan of `GET url` with wrk's habits: 50 connections, 10 s.
    pub fn get(url: &str) -> Result<LoadPlan> {
        let target = Target::parse(url)?;
        let step = Step {
            name: "request".to_string(),
            method: "GET".to_string(),
            path: target.path.clone(),
            headers: Vec::new(),
            body: Vec::new(),
            expect: None,
        };
        Ok(LoadPlan {
            target,
            scenario: None,
            steps: vec![step],
            users: Users::default(),
            connections: 50,
            threads: default_threads(),
            stop: StopAt::Duration(Duration::from_secs(10)),
            rate: None,
            think_time: Duration::ZERO,
            timeout: Duration::from_secs(10),
            keepalive: true,
            cpus: Vec::new(),
        })
    }

    /// Resolves the flags: reads the scenario, user and body files, applies defaults.
    pub fn from_args(args: &LoadArgs) -> Result<LoadPlan> {
        let mut plan = LoadPlan::get(&args.url)?;
        let headers = args.headers.iter().map(|h| parse_header(h)).collect::<Result<Vec<_>>>()?;
        let scenario = args.scenario.as_deref().map(Scenario::load).transpose()?;
        if let Some(s) = &scenario {
            let prefix = plan.target.path.split('?').next().unwrap_or("").trim_end_matches('/').to_string();
            plan.scenario = Some(s.name.clone());
            plan.steps = s.steps.iter().map(|step| Step { path: format!("{prefix}{}", step.path), ..step.clone() }).collect();
            plan.connections = s.connections.unwrap_or(plan.connections);
            plan.timeout = s.timeout.unwrap_or(plan.timeout);
            plan.think_time = s.think_time;
            if let Some(n) = s.requests {
                plan.stop = StopAt::Count(n);
            } else if let Some(d) = s.duration {
                plan.stop = StopAt::Duration(d);
            }
        } else {
            let step = &mut plan.steps[0];
            step.method = if args.method.is_empty() { "GET".into() } else { args.method.to_ascii_uppercase() };
            step.body = match (&args.body, &args.body_file) {
                (Some(body), _) => body.clone().into_bytes(),
                (None, Some(path)) => std::fs::read(path).with_context(|| format!("--body-file: cannot read {}", path.display()))?,
                (None, None) => Vec::new(),
            };
        }
        for step in &mut plan.steps {
            step.headers.retain(|(name, _)| !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case(name)));
            step.headers.extend(headers.iter().cloned());
        }
        if let Some(c) = args.connections {
            plan.connections = c;
        }
        plan.threads = args.threads.unwrap_or(plan.threads);
        match (args.duration, args.requests) {
            (Some(d), _) => plan.stop = StopAt::Duration(d),
            (None, Some(n)) => plan.stop = StopAt::Count(n),
            (None, None) => {}
        }
        plan.rate = args.rate;
        plan.timeout = args.timeout.unwrap_or(plan.timeout);
        plan.think_time = args.think_time.unwrap_or(plan.think_time);
        plan.keepalive = !args.no_keepalive;
        plan.cpus = args.cpus.clone();
        if plan.steps.iter().any(Step::uses_users) {
            plan.users = match &args.users {
                Some(path) => Users::read(path)?,
                None => Users::generate(plan.connections.max(1000)),
            };
        } else if args.users.is_some() {
            bail!("--users: the requests use no {{user}} or {{password}}, so the user data would be ignored");
        }
        plan.validate()?;
        Ok(plan)
    }

    /// Checks what the flags cannot express by their types.
    pub fn validate(&self) -> Result<()> {
        if self.connections == 0 {
            bail!("-c/--connections must be at least 1");
        }
        if self.threads == 0 {
            bail!("-t/--threads must be at least 1");
        }
        if self.steps.is_empty() {
            bail!("nothing to send: the plan has no request");
        }
        match self.stop {
            StopAt::Count(0) => bail!("-n/--requests must be at least 1"),
            StopAt::Duration(d) if d.is_zero() => bail!("-d/--duration must be above 0, e.g. 10s"),
            _ => {}
        }
        if self.timeout.is_zero() {
            bail!("--timeout must be above 0, e.g. 10s");
        }
        if let Some(rate) = self.rate
            && !(rate > 0.0 && rate.is_finite())
        {
            bail!("-R/--rate must be a number of requests per second above 0");
        }
        if self.users.0.is_empty() && self.steps.iter().any(Step::uses_users) {
            bail!("the requests use {{user}} or {{password}} but there is no user data (--users FILE)");
        }
        for step in &self.steps {
            if step.method.is_empty() || !step.method.bytes().all(|b| b.is_ascii_alphabetic()) {
                bail!("invalid method '{}': expected a word such as GET or POST", step.method);
            }
        }
        Ok(())
    }

    /// Threads actually used: never more than the connections.
    pub fn worker_count(&self) -> usize {
        self.threads.min(self.connections).max(1)
    }
}

/// The cores this process may run on.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn parse_header(text: &str) -> Result<(String, String)> {
    match text.split_once(':') {
        Some((name, value)) if !name.trim().is_empty() && !name.trim().contains(' ') => {
            Ok((name.trim().to_string(), value.trim().to_string()))
        }
        _ => bail!("-H '{text}': expected 'Name: value', e.g. -H 'Accept: application/json'"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(url: &str) -> LoadArgs {
        LoadArgs { url: url.to_string(), method: "GET".into(), ..Default::default() }
    }

    #[test]
    fn flags_override_scenario_defaults() {
        let mut a = args("http://127.0.0.1:8080/api/");
        a.scenario = Some("password".into());
        a.connections = Some(3);
        a.headers = vec!["X-Run: 7".into()];
        let plan = LoadPlan::from_args(&a).unwrap();
        assert_eq!(plan.connections, 3);
        assert_eq!(plan.steps[0].path, "/api/password/set/{user}");
        assert_eq!(plan.think_time, Duration::from_secs(1));
        assert_eq!(plan.stop, StopAt::Duration(Duration::from_secs(60)));
        assert!(plan.steps[1].headers.contains(&("X-Run".into(), "7".into())));
        assert_eq!(plan.users.0.len(), 1000);
    }

    #[test]
    fn errors_name_the_flag() {
        let mut a = args("http://127.0.0.1:8080/");
        a.headers = vec!["nocolon".into()];
        assert!(LoadPlan::from_args(&a).unwrap_err().to_string().starts_with("-H 'nocolon'"));
        let mut a = args("http://127.0.0.1:8080/");
        a.connections = Some(0);
        assert!(LoadPlan::from_args(&a).unwrap_err().to_string().starts_with("-c/--connections"));
        let mut a = args("http://127.0.0.1:8080/");
        a.users = Some("users.csv".into());
        assert!(LoadPlan::from_args(&a).unwrap_err().to_string().starts_with("--users"));
    }
}
