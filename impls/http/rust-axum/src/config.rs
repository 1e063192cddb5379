//! The server's settings, read once from the environment the orchestrator
//! gives it (spec/SPEC.md §1). A bad value stops the server before it
//! listens, with a message naming the variable, so a typo never runs a
//! benchmark with a silently different workload.

use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

/// spec/static/hello.html, seen from this folder, where the orchestrator
/// starts the server.
const DEFAULT_PAGE_FILE: &str = "../../../spec/static/hello.html";

#[derive(Debug, Clone)]
pub struct Config {
    /// 127.0.0.1:$PORT (port 0 in tests: the OS picks one).
    pub addr: SocketAddr,
    /// CONCUR_CORES: tokio's worker threads, and how many bcrypt hashes run at once.
    pub cores: usize,
    /// CONCUR_BCRYPT_COST.
    pub bcrypt_cost: u32,
    /// CONCUR_PAGE_FILE, read on every /page request.
    pub page_file: PathBuf,
    /// CONCUR_PAGE_DELAY_EVERY: every Nth /page request is delayed.
    pub page_delay_every: u64,
    /// CONCUR_PAGE_DELAY_MS.
    pub page_delay: Duration,
    /// CONCUR_LONGPOLL_MS.
    pub long_poll: Duration,
}

impl Config {
    /// Reads the settings through `getenv` (`std::env::var` in main, a map in tests).
    pub fn from_env(getenv: impl Fn(&str) -> Option<String>) -> Result<Config, String> {
        let setting = |name: &str, default: u64, min: u64, max: u64| match getenv(name) {
            None => Ok(default),
            Some(value) => parse_int(name, &value, min, max),
        };
        let port = match getenv("PORT") {
            Some(value) => parse_int("PORT", &value, 0, u16::MAX.into())? as u16,
            None => return Err("PORT is not set (e.g. PORT=8080 ./target/release/server)".into()),
        };
        Ok(Config {
            addr: SocketAddr::from((Ipv4Addr::LOCALHOST, port)),
            cores: setting("CONCUR_CORES", 1, 1, 1024)? as usize,
            bcrypt_cost: setting("CONCUR_BCRYPT_COST", 10, 4, 31)? as u32,
            page_file: getenv("CONCUR_PAGE_FILE").unwrap_or_else(|| DEFAULT_PAGE_FILE.into()).into(),
            page_delay_every: setting("CONCUR_PAGE_DELAY_EVERY", 10, 1, u32::MAX.into())?,
            page_delay: Duration::from_millis(setting("CONCUR_PAGE_DELAY_MS", 2000, 0, u32::MAX.into())?),
            long_poll: Duration::from_millis(setting("CONCUR_LONGPOLL_MS", 5000, 0, u32::MAX.into())?),
        })
    }
}

fn parse_int(name: &str, value: &str, min: u64, max: u64) -> Result<u64, String> {
    match value.parse::<u64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(format!("{name}={value:?}: must be an integer from {min} to {max}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn config(vars: &[(&str, &str)]) -> Result<Config, String> {
        let vars: HashMap<String, String> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Config::from_env(|name| vars.get(name).cloned())
    }

    #[test]
    fn defaults_follow_spec_section_1() {
        let c = config(&[("PORT", "8080")]).unwrap();
        assert_eq!(c.addr, "127.0.0.1:8080".parse().unwrap());
        assert_eq!(c.cores, 1);
        assert_eq!(c.bcrypt_cost, 10);
        assert_eq!(c.page_file, PathBuf::from(DEFAULT_PAGE_FILE));
        assert_eq!(c.page_delay_every, 10);
        assert_eq!(c.page_delay, Duration::from_millis(2000));
        assert_eq!(c.long_poll, Duration::from_millis(5000));
    }

    #[test]
    fn port_is_required() {
        assert!(config(&[]).unwrap_err().contains("PORT is not set"));
    }

    #[test]
    fn a_bad_value_names_its_variable() {
        let err = config(&[("PORT", "1"), ("CONCUR_BCRYPT_COST", "3")]).unwrap_err();
        assert_eq!(err, r#"CONCUR_BCRYPT_COST="3": must be an integer from 4 to 31"#);
        let err = config(&[("PORT", "1"), ("CONCUR_CORES", "two")]).unwrap_err();
        assert!(err.starts_with("CONCUR_CORES=\"two\""), "{err}");
    }

    #[test]
    fn the_thesis_cost_20_is_accepted() {
        assert_eq!(config(&[("PORT", "1"), ("CONCUR_BCRYPT_COST", "20")]).unwrap().bcrypt_cost, 20);
    }
}
