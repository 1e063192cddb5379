//! The flags of `concur load`, `concur merge` and `concur users`, as clap
//! parses them: raw values only, no I/O. `plan::LoadPlan::from_args` resolves
//! them (reads files, resolves the address, applies scenario defaults).

use clap::Args;
use std::path::PathBuf;
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
    /// Open loop: requests per second in total, each latency measured from its intended send time
    #[arg(short = 'R', long, value_parser = parse_rate)]
    pub rate: Option<f64>,
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
    /// Scenario: a name from spec/scenarios (hello, json, page, password, userinfo, longpoll) or a .toml file
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

/// `10s`, `250ms`, `1.5s`, `2m`, `1h`, `100us`, or plain seconds.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| format!("invalid duration '{text}': expected a number with a unit, e.g. 10s, 500ms, 2m"))?;
    let seconds = match unit.trim() {
        "" | "s" | "sec" => value,
        "ms" => value / 1e3,
        "us" | "µs" => value / 1e6,
        "m" | "min" => value * 60.0,
        "h" => value * 3600.0,
        other => return Err(format!("invalid duration '{text}': unknown unit '{other}' (use us, ms, s, m or h)")),
    };
    if !seconds.is_finite() || seconds > 1e9 {
        return Err(format!("invalid duration '{text}': too large"));
    }
    Ok(Duration::from_secs_f64(seconds))
}

fn parse_rate(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(r) if r > 0.0 && r.is_finite() => Ok(r),
        _ => Err(format!("invalid rate '{text}': expected requests per second above 0, e.g. 1000")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_in_the_units_people_type() {
        assert_eq!(parse_duration("10s").unwrap(), Duration::from_secs(10));
        assert_eq!(parse_duration("250ms").unwrap(), Duration::from_millis(250));
        assert_eq!(parse_duration("1.5").unwrap(), Duration::from_millis(1500));
        assert_eq!(parse_duration("2m").unwrap(), Duration::from_secs(120));
        assert!(parse_duration("ten").unwrap_err().contains("'ten'"));
        assert!(parse_duration("3d").unwrap_err().contains("unknown unit 'd'"));
    }
}
