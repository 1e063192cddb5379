//! Reading Locust's machine-readable results: the `--json-file` statistics
//! (per request name: counts, response times in whole milliseconds, requests
//! per second) and the `--csv` failures table. Never its human output.

use crate::stats::{ErrorKind, LatencyStats, Latencies};
use anyhow::{Context, Result};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// One entry of Locust's JSON statistics: one request name (a scenario step).
#[derive(Debug, Clone, Deserialize)]
pub struct Entry {
    pub name: String,
    pub num_requests: u64,
    pub num_failures: u64,
    /// Milliseconds (rounded, as Locust keeps them) → requests.
    pub response_times: BTreeMap<String, u64>,
    /// Unix second → requests in it (failures included).
    #[serde(default)]
    pub num_reqs_per_sec: BTreeMap<String, u64>,
    #[serde(default)]
    pub num_fail_per_sec: BTreeMap<String, u64>,
    /// Unix time the entry began counting (its first request, or the reset that ended the warm-up).
    #[serde(default)]
    pub start_time: Option<f64>,
    #[serde(default)]
    pub last_request_timestamp: Option<f64>,
}

/// What a Locust run measured.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    pub entries: Vec<Entry>,
    /// Failure text as Locust recorded it (`status 500`, `ConnectionRefusedError(…)`) → occurrences.
    pub failures: BTreeMap<String, u64>,
    /// Locust's JSON as written, kept whole in the point's `load_report`.
    pub raw: serde_json::Value,
}

impl Stats {
    /// Reads `<prefix>.json` and `<prefix>_failures.csv`.
    pub fn read(prefix: &Path) -> Result<Stats> {
        let json = prefix.with_extension("json");
        let text = std::fs::read_to_string(&json).with_context(|| format!("Locust wrote no statistics to {}", json.display()))?;
        let raw: serde_json::Value = serde_json::from_str(&text).with_context(|| format!("{}: not Locust's JSON statistics", json.display()))?;
        let entries: Vec<Entry> = serde_json::from_value(raw.clone()).with_context(|| format!("{}: not Locust's JSON statistics", json.display()))?;
        let failures_csv = prefix.with_file_name(format!("{}_failures.csv", prefix.file_name().unwrap_or_default().to_string_lossy()));
        let failures = std::fs::read_to_string(&failures_csv).map(|t| failures(&t)).unwrap_or_default();
        Ok(Stats { entries, failures, raw })
    }

    pub fn requests(&self) -> u64 {
        self.entries.iter().map(|e| e.num_requests).sum()
    }

    /// Seconds from the first entry's start to the last request, as Locust timed them; `None` without requests.
    pub fn elapsed_s(&self) -> Option<f64> {
        let start = self.entries.iter().filter_map(|e| e.start_time).reduce(f64::min)?;
        let end = self.entries.iter().filter_map(|e| e.last_request_timestamp).reduce(f64::max)?;
        (end > start).then_some(end - start)
    }

    pub fn failures_total(&self) -> u64 {
        self.entries.iter().map(|e| e.num_failures).sum()
    }

    /// Latencies of `entries` (every request, as Locust times failures too), milliseconds made microseconds.
    pub fn latency(entries: &[&Entry]) -> LatencyStats {
        let mut latencies = Latencies::new();
        for e in entries {
            for (ms, &n) in &e.response_times {
                let us = ms.parse::<u64>().unwrap_or(0) * 1000;
                (0..n).for_each(|_| latencies.record_us(us.max(1)));
            }
        }
        latencies.stats()
    }

    /// (requests, failures) per second of the measurement, in order.
    pub fn per_second(&self) -> Vec<(u64, u64)> {
        let mut seconds: BTreeMap<u64, (u64, u64)> = BTreeMap::new();
        for e in &self.entries {
            for (s, &n) in &e.num_reqs_per_sec {
                seconds.entry(s.parse().unwrap_or(0)).or_default().0 += n;
            }
            for (s, &n) in &e.num_fail_per_sec {
                seconds.entry(s.parse().unwrap_or(0)).or_default().1 += n;
            }
        }
        seconds.into_values().collect()
    }

    /// Failures by concur's kinds: `status 500` as it is, a transport error by its kind, anything else `other`.
    pub fn errors(&self) -> BTreeMap<String, u64> {
        let mut out = BTreeMap::new();
        for (text, &n) in &self.failures {
            *out.entry(kind(text)).or_insert(0) += n;
        }
        out
    }
}

fn kind(text: &str) -> String {
    if let Some(code) = text.strip_prefix("status ") {
        return format!("status {code}");
    }
    let lower = text.to_ascii_lowercase();
    let k = if lower.contains("timeout") || lower.contains("timed out") {
        ErrorKind::Timeout
    } else if lower.contains("refused") || lower.contains("newconnectionerror") || lower.contains("connecttimeout") {
        ErrorKind::Connect
    } else if lower.contains("reset") || lower.contains("remotedisconnected") || lower.contains("connection aborted") {
        ErrorKind::Reset
    } else {
        return "other".into();
    };
    k.name().to_string()
}

/// Rows of Locust's failures CSV: `Method,Name,Error,Occurrences`, the error quoted when it holds commas.
fn failures(text: &str) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for line in text.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let Some((rest, count)) = line.rsplit_once(',') else { continue };
        let mut fields = rest.splitn(3, ',');
        let error = fields.nth(2).unwrap_or("").trim_matches('"').replace("\"\"", "\"");
        *out.entry(error).or_insert(0) += count.trim().parse::<u64>().unwrap_or(0);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locust_json_and_failures_become_counts_latencies_and_error_kinds() {
        let dir = tempfile::tempdir().unwrap();
        let prefix = dir.path().join("locust");
        std::fs::write(
            prefix.with_extension("json"),
            r#"[{"name":"set","method":"POST","num_requests":4,"num_failures":1,"response_times":{"3":2,"10":2},"start_time":100.0,"last_request_timestamp":101.5,
                "num_reqs_per_sec":{"100":3,"101":1},"num_fail_per_sec":{"101":1}, "total_response_time": 26.0},
               {"name":"get","method":"GET","num_requests":3,"num_failures":1,"response_times":{"5":3},"num_reqs_per_sec":{"101":3}}]"#,
        )
        .unwrap();
        let failures = "Method,Name,Error,Occurrences\nPOST,set,status 500,1\nGET,get,\"ConnectionRefusedError(111, 'Connection refused')\",1\n";
        std::fs::write(dir.path().join("locust_failures.csv"), failures).unwrap();
        let stats = Stats::read(&prefix).unwrap();
        assert_eq!((stats.requests(), stats.failures_total()), (7, 2));
        assert_eq!(stats.per_second(), [(3, 0), (4, 1)]);
        assert_eq!(stats.elapsed_s(), Some(1.5));
        assert_eq!(stats.errors(), BTreeMap::from([("connect".to_string(), 1), ("status 500".to_string(), 1)]));
        let all: Vec<&Entry> = stats.entries.iter().collect();
        let latency = Stats::latency(&all);
        assert_eq!((latency.count, latency.min_us / 1000, latency.max_us / 1000), (7, 3, 10));
        assert_eq!(stats.raw[0]["total_response_time"], 26.0);
    }

    #[test]
    fn missing_statistics_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let err = Stats::read(&dir.path().join("locust")).unwrap_err().to_string();
        assert!(err.starts_with("Locust wrote no statistics to ") && err.ends_with("locust.json"), "{err}");
    }
}
