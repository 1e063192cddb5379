//! The flags of `concur load`, `concur merge` and `concur users`, as clap
//! parses them: raw values only, no I/O. [`LoadArgs::plan`] resolves them
//! into a `LoadPlan` (reads files, resolves the address, applies scenario
//! defaults).

use crate::load::{LoadPlan, Scenario, StopAt, Warmup, parse_duration};
use anyhow::{Context, Result, bail};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Debug, Args, Clone, Default)]
pub struct LoadArgs {
    /// Target: http://host:port/path (with --scenario, only host, port and a path prefix are used)
    #[arg(value_name = "URL")]
    pub url: String,
    /// Connections to keep open, one virtual user each [default: the scenario's, else 50]
    #[arg(short = 'c', long)]
    pub connections: Option<usize>,
    /// Worker threads, each with its own event loop [default: the cores this process may use]
    #[arg(short = 't', long)]
    pub threads: Option<usize>,
    /// How long to run, e.g. 10s, 500ms, 2m [default: the scenario's, else 10s]
    #[arg(short = 'd', long, value_parser = parse_duration, conflicts_with = "requests")]
    pub duration: Option<Duration>,
    /// Send exactly this many requests, then stop (ab's -n); failed ones count
    #[arg(short = 'n', long)]
    pub requests: Option<u64>,
    /// Warm up first on the same connections (not recorded): at least this long,
    /// then until throughput is steady (3 seconds within 10%), at most --warmup-max
    #[arg(long, value_parser = parse_duration)]
    pub warmup: Option<Duration>,
    /// Longest warm-up [default: 30s]
    #[arg(long, value_parser = parse_duration, requires = "warmup")]
    pub warmup_max: Option<Duration>,
    /// Open loop: requests per second in total, each latency measured from its intended send time
    #[arg(short = 'R', long, value_parser = parse_rate)]
    pub rate: Option<f64>,
    /// Closed loop: start this many users per second, one after another, instead of all at
    /// once (Locust's --spawn-rate), so that thousands of connects do not overflow the
    /// server's accept queue; each latency still starts at its own send
    #[arg(long, value_parser = parse_spawn_rate, conflicts_with = "rate")]
    pub spawn_rate: Option<f64>,
    /// HTTP method of the single request (not with --scenario)
    #[arg(short = 'm', long, default_value = "GET", conflicts_with = "scenario")]
    pub method: String,
    /// Request header 'Name: value', repeatable; added to every request
    #[arg(short = 'H', long = "header", value_name = "HEADER")]
    pub headers: Vec<String>,
    /// Request body (not with --scenario)
    #[arg(short = 'b', long, conflicts_with_all = ["body_file", "scenario"])]
    pub body: Option<String>,
    /// Request body read from a file (not with --scenario)
    #[arg(long, conflicts_with = "scenario")]
    pub body_file: Option<PathBuf>,
    /// Longest wait for a response (connecting included); then it counts as a timeout
    /// [default: the scenario's, else 10s]
    #[arg(long, value_parser = parse_duration)]
    pub timeout: Option<Duration>,
    /// Close the connection after every response (sends Connection: close)
    #[arg(long)]
    pub no_keepalive: bool,
    /// Scenario: a name from spec/scenarios (hello, json, page, password, userinfo, longpoll, db, queries, updates, fortunes, slowdb) or a .toml file
    #[arg(long)]
    pub scenario: Option<String>,
    /// The scenario's user data: CSV with a header line, `;` between username and password
    /// [default: generated deterministically, as `concur users` writes it]
    #[arg(long)]
    pub users: Option<PathBuf>,
    /// Pause of each virtual user between scenario iterations, closed loop only [default: the scenario's]
    #[arg(long, value_parser = parse_duration)]
    pub think_time: Option<Duration>,
    /// Write the result as JSON (schema: spec/LOAD-JSON.md); `-` for standard output
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Pin worker thread i to the i-th CPU of this list, e.g. 1 or 2,3
    #[arg(long, value_delimiter = ',')]
    pub cpus: Vec<usize>,
    /// Accepted for wrk compatibility; percentiles are always printed
    #[arg(long, hide = true)]
    pub latency: bool,
}

#[derive(Debug, Args, Clone)]
pub struct MergeArgs {
    /// JSON results of `concur load --json`, from processes that ran at the same time
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Write the merged result as JSON; `-` for standard output
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
}

#[derive(Debug, Args, Clone)]
pub struct UsersArgs {
    /// Number of users to generate
    #[arg(short = 'n', long, default_value_t = 10_000)]
    pub count: usize,
    /// Write to this file instead of standard output
    #[arg(short = 'o', long)]
    pub output: Option<PathBuf>,
}

fn parse_rate(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(r) if r > 0.0 && r.is_finite() => Ok(r),
        _ => Err(format!("invalid rate '{text}': expected requests per second above 0, e.g. 1000")),
    }
}

fn parse_spawn_rate(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(r) if r > 0.0 && r.is_finite() => Ok(r),
        _ => Err(format!("invalid spawn rate '{text}': expected users per second above 0, e.g. 5000")),
    }
}

impl LoadArgs {
    /// Resolves the flags into the plan: reads the scenario, user and body
    /// files, applies the scenario's defaults, then the flags over them.
    pub fn plan(&self) -> Result<LoadPlan> {
        let mut plan = LoadPlan::get(&self.url)?;
        let headers = self.headers.iter().map(|h| parse_header(h)).collect::<Result<Vec<_>>>()?;
        match self.scenario.as_deref() {
            Some(scenario) => plan.apply_scenario(&Scenario::load(scenario)?),
            None => {
                let step = &mut plan.steps[0];
                step.method = if self.method.is_empty() { "GET".into() } else { self.method.to_ascii_uppercase() };
                step.body = match (&self.body, &self.body_file) {
                    (Some(body), _) => body.clone().into_bytes(),
                    (None, Some(path)) => std::fs::read(path).with_context(|| format!("--body-file: cannot read {}", path.display()))?,
                    (None, None) => Vec::new(),
                };
            }
        }
        for step in &mut plan.steps {
            step.headers.retain(|(name, _)| !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case(name)));
            step.headers.extend(headers.iter().cloned());
        }
        plan.connections = self.connections.unwrap_or(plan.connections);
        plan.threads = self.threads.unwrap_or(plan.threads);
        match (self.duration, self.requests) {
            (Some(d), _) => plan.stop = StopAt::Duration(d),
            (None, Some(n)) => plan.stop = StopAt::Count(n),
            (None, None) => {}
        }
        plan.rate = self.rate;
        plan.spawn_rate = self.spawn_rate;
        plan.warmup = self.warmup.filter(|w| !w.is_zero()).map(|min| Warmup { min, max: self.warmup_max.unwrap_or(Duration::from_secs(30)), period: None });
        plan.timeout = self.timeout.unwrap_or(plan.timeout);
        plan.think_time = self.think_time.unwrap_or(plan.think_time);
        plan.keepalive = !self.no_keepalive;
        plan.cpus = self.cpus.clone();
        plan.fill_users(self.users.as_deref())?;
        plan.validate()?;
        Ok(plan)
    }

    pub fn run(self) -> Result<ExitCode> {
        crate::load::load_command(&self.plan()?, self.json.as_deref())
    }
}

impl MergeArgs {
    pub fn run(self) -> Result<ExitCode> {
        crate::load::merge_command(&self.files, self.json.as_deref())
    }
}

impl UsersArgs {
    pub fn run(self) -> Result<ExitCode> {
        crate::load::users_command(self.count, self.output.as_deref())
    }
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
        let plan = a.plan().unwrap();
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
        assert!(a.plan().unwrap_err().to_string().starts_with("-H 'nocolon'"));
        let mut a = args("http://127.0.0.1:8080/");
        a.connections = Some(0);
        assert!(a.plan().unwrap_err().to_string().starts_with("-c/--connections"));
        let mut a = args("http://127.0.0.1:8080/");
        a.users = Some("users.csv".into());
        assert!(a.plan().unwrap_err().to_string().starts_with("--users"));
    }
}
