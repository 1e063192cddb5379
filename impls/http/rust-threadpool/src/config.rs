//! The server's settings, read once from the environment the orchestrator
//! gives it (spec/SPEC.md §1). A bad value stops the server before it listens,
//! with a message naming the variable, so a typo never runs a benchmark with a
//! silently different workload.

use std::path::PathBuf;
use std::time::Duration;

/// spec/static/hello.html of the repository, wherever the server is started.
pub const DEFAULT_PAGE_FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../spec/static/hello.html");

/// The most threads the pool grows to when `CONCUR_THREADS` is unset: one
/// thread per connection, for the clients the scenarios and the clients-held
/// search bring (spec/POLICIES.md §1 asks for at least 16,384).
pub const DEFAULT_THREADS: usize = 16_384;

#[derive(Debug, Clone)]
pub struct Config {
    /// `PORT`, on 127.0.0.1.
    pub port: u16,
    /// `CONCUR_CORES`: how many CPUs the process may run on.
    pub cores: usize,
    /// `CONCUR_THREADS`: the most worker threads the pool grows to, i.e. connections served at once.
    pub threads: usize,
    /// `CONCUR_BCRYPT_COST`.
    pub bcrypt_cost: u32,
    /// `CONCUR_PAGE_FILE`, read on every `/page` request.
    pub page_file: PathBuf,
    /// `CONCUR_PAGE_DELAY_EVERY`: every Nth `/page` is delayed.
    pub page_delay_every: u64,
    /// `CONCUR_PAGE_DELAY_MS`.
    pub page_delay: Duration,
    /// `CONCUR_LONGPOLL_MS`.
    pub long_poll: Duration,
    /// `CONCUR_DB_URL`, parsed; `None` leaves the database routes answering 503.
    pub db: Option<postgres::Config>,
    /// `CONCUR_DB_POOL`: the most database connections the process holds.
    pub db_pool: u32,
    /// `CONCUR_DB_SLOW_MS`: how long `/slowdb`'s query waits in the database.
    pub db_slow: Duration,
    /// `CONCUR_FAULTS=1`: the fault routes of SPEC §9 exist.
    pub faults: bool,
}

impl Config {
    /// Reads the process environment.
    pub fn from_env() -> Result<Config, String> {
        Config::from_lookup(|name| std::env::var(name).ok())
    }

    /// Reads the settings through `lookup` (the environment in `main`, a map in tests).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Config, String> {
        let get = |name: &str| lookup(name).filter(|v| !v.is_empty());
        if get("PORT").is_none() {
            return Err("PORT is not set (e.g. PORT=8080 ./target/release/concur-threadpool)".into());
        }
        let int = |name: &str, default: u64, min: u64, max: u64| match get(name) {
            None => Ok(default),
            Some(v) => v.parse::<u64>().ok().filter(|n| (min..=max).contains(n)).ok_or(format!("{name}={v:?}: must be an integer from {min} to {max}")),
        };
        Ok(Config {
            port: int("PORT", 0, 1, 65535)? as u16,
            cores: int("CONCUR_CORES", 1, 1, 4096)? as usize,
            threads: int("CONCUR_THREADS", DEFAULT_THREADS as u64, 1, 65536)? as usize,
            bcrypt_cost: int("CONCUR_BCRYPT_COST", 10, 4, 31)? as u32,
            page_file: get("CONCUR_PAGE_FILE").unwrap_or_else(|| DEFAULT_PAGE_FILE.into()).into(),
            page_delay_every: int("CONCUR_PAGE_DELAY_EVERY", 10, 1, u32::MAX as u64)?,
            page_delay: Duration::from_millis(int("CONCUR_PAGE_DELAY_MS", 2000, 0, u32::MAX as u64)?),
            long_poll: Duration::from_millis(int("CONCUR_LONGPOLL_MS", 5000, 0, u32::MAX as u64)?),
            db: get("CONCUR_DB_URL").map(|url| database_url(&url)).transpose()?,
            db_pool: int("CONCUR_DB_POOL", 16, 1, u32::MAX as u64)? as u32,
            db_slow: Duration::from_millis(int("CONCUR_DB_SLOW_MS", 20, 0, u32::MAX as u64)?),
            faults: lookup("CONCUR_FAULTS").as_deref() == Some("1"),
        })
    }
}

/// `CONCUR_DB_URL` as the driver's settings. A database that does not answer
/// a connection attempt within 2 s counts as gone (SPEC §8.4: a 503 within 5 s).
fn database_url(url: &str) -> Result<postgres::Config, String> {
    let mut config: postgres::Config =
        url.parse().map_err(|e| format!("CONCUR_DB_URL={url:?}: {e} (e.g. postgres://USER:PASSWORD@127.0.0.1:5432/DATABASE)"))?;
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(Duration::from_secs(2));
    }
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn config(vars: &[(&str, &str)]) -> Result<Config, String> {
        let map: HashMap<String, String> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Config::from_lookup(|name| map.get(name).cloned())
    }

    #[test]
    fn defaults_follow_spec_section_1() {
        let c = config(&[("PORT", "8080")]).unwrap();
        assert_eq!((c.port, c.cores, c.threads, c.bcrypt_cost, c.page_delay_every), (8080, 1, 16_384, 10, 10));
        assert_eq!((c.page_delay, c.long_poll), (Duration::from_millis(2000), Duration::from_millis(5000)));
        assert!(c.page_file.ends_with("spec/static/hello.html"));
        assert!(c.db.is_none());
        assert_eq!((c.db_pool, c.db_slow), (16, Duration::from_millis(20)));
        assert!(!c.faults);
        assert!(config(&[("PORT", "1"), ("CONCUR_FAULTS", "1")]).unwrap().faults);
        assert!(!config(&[("PORT", "1"), ("CONCUR_FAULTS", "true")]).unwrap().faults);
    }

    #[test]
    fn the_thesis_cost_20_is_accepted() {
        assert_eq!(config(&[("PORT", "1"), ("CONCUR_BCRYPT_COST", "20")]).unwrap().bcrypt_cost, 20);
    }

    #[test]
    fn bad_values_name_the_variable() {
        assert!(config(&[]).unwrap_err().contains("PORT is not set"));
        assert!(config(&[("PORT", "http")]).unwrap_err().starts_with("PORT=\"http\""));
        assert!(config(&[("PORT", "1"), ("CONCUR_BCRYPT_COST", "3")]).unwrap_err().starts_with("CONCUR_BCRYPT_COST=\"3\""));
        assert!(config(&[("PORT", "1"), ("CONCUR_THREADS", "0")]).unwrap_err().starts_with("CONCUR_THREADS"));
        assert!(config(&[("PORT", "1"), ("CONCUR_DB_POOL", "0")]).unwrap_err().starts_with("CONCUR_DB_POOL"));
        assert!(config(&[("PORT", "1"), ("CONCUR_DB_URL", "postgres://u@h:port/d")]).unwrap_err().starts_with("CONCUR_DB_URL"));
    }
}
