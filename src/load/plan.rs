//! The resolved plan of a run: everything the workers need, as plain data.
//! The command line builds it from flags (`cli::LoadArgs::plan`), the
//! orchestrator from a point's settings; both start from [`LoadPlan::get`]
//! and a scenario, and call `load::run` with it.

use super::scenario::{Scenario, Step};
use super::url::Target;
use super::users::Users;
use anyhow::{Result, bail};
use std::path::Path;
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
    /// Warm up on the same connections first, until throughput is steady
    /// within these bounds (`warmup`); `None`: measure from the first request.
    pub warmup: Option<super::warmup::Warmup>,
    /// Open loop: requests per second over all connections. `None`: closed loop.
    pub rate: Option<f64>,
    /// Closed loop: pause of a virtual user after its last step.
    pub think_time: Duration,
    /// Closed loop: virtual users started per second, one after another (Locust's
    /// `--spawn-rate`); `None`: all at once.
    pub spawn_rate: Option<f64>,
    /// Longest wait for a connection plus response.
    pub timeout: Duration,
    pub keepalive: bool,
    /// Worker thread `i` is pinned to `cpus[i % len]`; empty: not pinned.
    pub cpus: Vec<usize>,
    /// Keep a latency histogram per second of the timeline, for its `p99_us`
    /// (`concur faults`' seconds around a fault); off: the timeline counts only.
    pub latency_per_second: bool,
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
            warmup: None,
            rate: None,
            think_time: Duration::ZERO,
            spawn_rate: None,
            timeout: Duration::from_secs(10),
            keepalive: true,
            cpus: Vec::new(),
            latency_per_second: false,
        })
    }

    /// Takes the steps and defaults of `scenario`, its paths under the URL's path.
    pub fn apply_scenario(&mut self, scenario: &Scenario) {
        let prefix = self.target.path.split('?').next().unwrap_or("").trim_end_matches('/').to_string();
        self.scenario = Some(scenario.name.clone());
        self.steps = scenario.steps.iter().map(|step| Step { path: format!("{prefix}{}", step.path), ..step.clone() }).collect();
        self.connections = scenario.connections.unwrap_or(self.connections);
        self.timeout = scenario.timeout.unwrap_or(self.timeout);
        self.think_time = scenario.think_time;
        if let Some(n) = scenario.requests {
            self.stop = StopAt::Count(n);
        } else if let Some(d) = scenario.duration {
            self.stop = StopAt::Duration(d);
        }
    }

    /// The user data the steps need: read from `file`, else generated (at
    /// least one user per connection). A file for steps that use none is an error.
    pub fn fill_users(&mut self, file: Option<&Path>) -> Result<()> {
        if self.steps.iter().any(Step::uses_users) {
            self.users = match file {
                Some(path) => Users::read(path)?,
                None => Users::generate(self.connections.max(1000)),
            };
        } else if file.is_some() {
            bail!("--users: the requests use no {{user}} or {{password}}, so the user data would be ignored");
        }
        Ok(())
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
        if let Some(w) = self.warmup
            && (w.max < w.min || w.max.is_zero())
        {
            bail!("--warmup-max ({:?}) must be at least --warmup ({:?}) and above 0", w.max, w.min);
        }
        if self.timeout.is_zero() {
            bail!("--timeout must be above 0, e.g. 10s");
        }
        if let Some(rate) = self.rate
            && !(rate > 0.0 && rate.is_finite())
        {
            bail!("-R/--rate must be a number of requests per second above 0");
        }
        match self.spawn_rate {
            Some(r) if !(r > 0.0 && r.is_finite()) => bail!("--spawn-rate must be a number of users per second above 0, e.g. 5000"),
            Some(_) if self.rate.is_some() => {
                bail!("--spawn-rate starts the users of a closed loop; with -R the open loop's schedule already spreads them (drop one of the two)")
            }
            _ => {}
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
