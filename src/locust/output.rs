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

/// One worker's own load during the measurement, as the generated locustfile
/// reports it to its master (which writes them all to one JSON file).
#[derive(Debug, Clone, PartialEq, Deserialize, serde::Serialize)]
pub struct WorkerLoad {
    /// Locust's client id of the worker (host name and a random suffix).
    pub id: String,
    pub index: u32,
    /// CPU seconds of the worker's process, and the seconds they were taken over.
    pub cpu_s: f64,
    pub wall_s: f64,
    /// How late the worker's event loop woke a greenlet sleeping 10 ms, over `lag_ticks` wake-ups.
    pub lag_ticks: u64,
    pub lag_p50_ms: f64,
    pub lag_p99_ms: f64,
    pub lag_max_ms: f64,
    /// The worker's requests unanswered when its measurement ended: (step name, age in ms).
    #[serde(default)]
    pub unfinished: Vec<(String, f64)>,
}

impl WorkerLoad {
    /// Reads the master's file of its workers' reports; none when it wrote none.
    pub fn read(path: &Path) -> Result<Vec<WorkerLoad>> {
        match std::fs::read_to_string(path) {
            Ok(text) => serde_json::from_str(&text).with_context(|| format!("{}: not the workers' load reports", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
        }
    }

    /// The share of one core the worker's process used.
    pub fn cpu_util(&self) -> f64 {
        if self.wall_s > 0.0 { self.cpu_s / self.wall_s } else { 0.0 }
    }

    /// Why this worker, not the server, limited the point, if it did
    /// (spec/LOCUST.md, "The generator's limit"): its one Python process used
    /// 90% of a core or more (Locust's own warning threshold), or its event
    /// loop woke at least `LAG_LIMIT_MS` late at its p99 and that lag is at
    /// least `LAG_SHARE` of the point's p99 latency: a request whose response
    /// waits on a late loop carries the delay, so that much of the tail Locust
    /// reports is time its worker could not run the request's greenlet.
    pub fn limit(&self, point_p99_ms: f64) -> Option<String> {
        let util = self.cpu_util();
        if util >= CPU_BUSY {
            return Some(format!("Locust worker {} used {:.0}% of a core (one Python process: Locust warns at 90%)", self.index, util * 100.0));
        }
        if self.lag_p99_ms >= LAG_LIMIT_MS && self.lag_p99_ms >= LAG_SHARE * point_p99_ms {
            return Some(format!(
                "Locust worker {}'s event loop woke {:.0} ms late at p99 (at most {:.0} ms; {:.0}% of a core busy), against a p99 latency of {:.0} ms: part of that tail is the generator's",
                self.index,
                self.lag_p99_ms,
                self.lag_max_ms,
                util * 100.0,
                point_p99_ms
            ));
        }
        None
    }
}

/// A worker's share of one core at which it is taken as the limit.
pub const CPU_BUSY: f64 = 0.90;
/// Event-loop lag at p99 from which a worker can be taken as the limit: ten
/// times a wake-up's ordinary jitter on an idle worker (about 1 ms, measured).
pub const LAG_LIMIT_MS: f64 = 10.0;
/// The least share of the point's p99 latency that lag must be: a slow server's
/// tail (a bcrypt queue of seconds) is not the generator's for a few ms of lag.
/// A twentieth, not more: a request waits on its worker's loop for its send and
/// again for its response, and one late wake-up in a hundred understates both
/// (measured: loops 24-33 ms late at p99 beside a Locust p99 of 460 ms, where
/// concur load measured the same server's p99 at 2-3.5 ms).
pub const LAG_SHARE: f64 = 0.05;

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

    /// Latencies of `entries` (every request, as Locust times failures too), milliseconds made
    /// microseconds, with the ages (ms) of requests left unanswered counted as
    /// spec/LOAD-JSON.md says ("Unfinished requests"); and those ages' summary.
    pub fn latency(entries: &[&Entry], unfinished_ms: &[f64]) -> (LatencyStats, LatencyStats) {
        let mut latencies = Latencies::new();
        for e in entries {
            for (ms, &n) in &e.response_times {
                let us = ms.parse::<u64>().unwrap_or(0) * 1000;
                (0..n).for_each(|_| latencies.record_us(us.max(1)));
            }
        }
        let mut ages = Latencies::new();
        for age_ms in unfinished_ms {
            ages.record_us(((age_ms * 1000.0).round() as u64).max(1));
        }
        (latencies.stats_with_unfinished(&ages), ages.stats())
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
        let (latency, ages) = Stats::latency(&all, &[]);
        assert_eq!((latency.count, latency.min_us / 1000, latency.max_us / 1000), (7, 3, 10));
        assert_eq!((latency.unfinished, ages.count), (0, 0));
        // Two polls still waiting at the measurement's end, 9 s old, beside 7 answered in 3-10 ms.
        let (latency, ages) = Stats::latency(&all, &[9000.0, 9000.0]);
        assert_eq!((latency.unfinished, ages.count, latency.p50_us / 1000), (2, 2, 5));
        assert_eq!(latency.lower_bounds, ["p90", "p99", "p999"]);
        assert_eq!(stats.raw[0]["total_response_time"], 26.0);
    }

    fn worker(cpu_s: f64, lag_p99_ms: f64) -> WorkerLoad {
        WorkerLoad { id: "w".into(), index: 1, cpu_s, wall_s: 10.0, lag_ticks: 900, lag_p50_ms: 0.5, lag_p99_ms, lag_max_ms: 2.0 * lag_p99_ms, unfinished: vec![] }
    }

    #[test]
    fn a_worker_is_the_limit_at_a_busy_core_or_a_late_loop_that_makes_the_tail() {
        // A worker's one process at 95% of a core.
        assert!(worker(9.5, 1.0).limit(3.0).unwrap().contains("used 95% of a core"));
        // Measured (go-nethttp userinfo, 500 clients, 2 workers): loops 51 and 33 ms late at p99, Locust's p99 420 and 460 ms.
        assert!(worker(5.4, 51.0).limit(420.0).unwrap().contains("woke 51 ms late at p99"));
        assert!(worker(4.8, 33.0).limit(460.0).is_some());
        // Measured: an idle worker's loop is 2.5-4 ms late at p99 (beside a server busy with bcrypt).
        assert_eq!(worker(0.6, 4.0).limit(32.0), None);
        // A late loop is not the limit of a server whose tail is seconds long.
        assert_eq!(worker(0.6, 15.0).limit(2200.0), None);
    }

    #[test]
    fn the_workers_reports_are_read_and_none_is_no_report() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("workers.json");
        assert_eq!(WorkerLoad::read(&path).unwrap(), []);
        std::fs::write(&path, r#"[{"cpu_s": 5.4, "id": "vm_1", "index": 0, "lag_max_ms": 122.0, "lag_p50_ms": 0.6, "lag_p99_ms": 51.3, "lag_ticks": 727, "wall_s": 10.06}]"#).unwrap();
        let read = WorkerLoad::read(&path).unwrap();
        assert_eq!((read.len(), read[0].lag_ticks), (1, 727));
        assert!((read[0].cpu_util() - 5.4 / 10.06).abs() < 1e-9);
        std::fs::write(&path, "not json").unwrap();
        assert!(WorkerLoad::read(&path).unwrap_err().to_string().contains("not the workers' load reports"));
    }

    #[test]
    fn missing_statistics_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let err = Stats::read(&dir.path().join("locust")).unwrap_err().to_string();
        assert!(err.starts_with("Locust wrote no statistics to ") && err.ends_with("locust.json"), "{err}");
    }
}
