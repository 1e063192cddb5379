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
    /// CONCUR_DB_URL, parsed; `None` leaves the database routes answering 503.
    pub db: Option<tokio_postgres::Config>,
    /// CONCUR_DB_POOL: the most database connections of all runtimes together.
    pub db_pool: usize,
    /// CONCUR_DB_SLOW_MS: how long `/slowdb`'s query waits in the database.
    pub db_slow: Duration,
    /// CONCUR_FAULTS=1: the fault routes of SPEC §9 exist.
    pub faults: bool,
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
        let cores = setting("CONCUR_CORES", 1, 1, 1024)? as usize;
        let db = getenv("CONCUR_DB_URL").map(|url| database_url(&url)).transpose()?;
        let db_pool = setting("CONCUR_DB_POOL", 16, 1, u32::MAX.into())? as usize;
        if db.is_some() && db_pool < cores {
            return Err(format!(
                "CONCUR_DB_POOL={db_pool} is below CONCUR_CORES={cores}: each of the {cores} runtimes holds a pool of its own, of at least one connection (SPEC §8.2); give at least {cores}"
            ));
        }
        Ok(Config {
            addr: SocketAddr::from((Ipv4Addr::LOCALHOST, port)),
            cores,
            bcrypt_cost: setting("CONCUR_BCRYPT_COST", 10, 4, 31)? as u32,
            page_file: getenv("CONCUR_PAGE_FILE").unwrap_or_else(|| DEFAULT_PAGE_FILE.into()).into(),
            page_delay_every: setting("CONCUR_PAGE_DELAY_EVERY", 10, 1, u32::MAX.into())?,
            page_delay: Duration::from_millis(setting("CONCUR_PAGE_DELAY_MS", 2000, 0, u32::MAX.into())?),
            long_poll: Duration::from_millis(setting("CONCUR_LONGPOLL_MS", 5000, 0, u32::MAX.into())?),
            db,
            db_pool,
            db_slow: Duration::from_millis(setting("CONCUR_DB_SLOW_MS", 20, 0, u32::MAX.into())?),
            faults: getenv("CONCUR_FAULTS").as_deref() == Some("1"),
        })
    }
}

/// CONCUR_DB_URL as the driver's settings. A database that does not answer
/// a connection attempt within 2 s counts as gone (SPEC §8.4: a 503 within 5 s).
fn database_url(url: &str) -> Result<tokio_postgres::Config, String> {
    let mut config: tokio_postgres::Config = url
        .parse()
        .map_err(|e| format!("CONCUR_DB_URL={url:?}: {e} (e.g. postgres://USER:PASSWORD@127.0.0.1:5432/DATABASE)"))?;
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(Duration::from_secs(2));
    }
    Ok(config)
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
        assert!(c.db.is_none());
        assert_eq!((c.db_pool, c.db_slow), (16, Duration::from_millis(20)));
        assert!(!c.faults);
        assert!(config(&[("PORT", "1"), ("CONCUR_FAULTS", "1")]).unwrap().faults);
        assert!(!config(&[("PORT", "1"), ("CONCUR_FAULTS", "true")]).unwrap().faults);
    }

    #[test]
    fn a_pool_smaller_than_the_runtimes_is_refused() {
        let url = ("CONCUR_DB_URL", "postgres://u:p@127.0.0.1:5432/d");
        let err = config(&[("PORT", "1"), ("CONCUR_CORES", "4"), ("CONCUR_DB_POOL", "3"), url]).unwrap_err();
        assert!(err.starts_with("CONCUR_DB_POOL=3 is below CONCUR_CORES=4"), "{err}");
        assert_eq!(config(&[("PORT", "1"), ("CONCUR_CORES", "4"), ("CONCUR_DB_POOL", "4"), url]).unwrap().db_pool, 4);
        assert!(
            config(&[("PORT", "1"), ("CONCUR_DB_URL", "postgres://u@h:port/d")])
                .unwrap_err()
                .starts_with("CONCUR_DB_URL")
        );
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
