//! The result line of spec/MICRO.md §7, and the final count check of §3.1.

use crate::config::{Bench, Config};
use serde_json::{Value, json};
use std::time::Duration;

/// What a benchmark measured; the JSON line is derived from it.
pub struct Report {
    pub ops: u64,
    pub elapsed: Duration,
    pub received: u64,
    pub expected: u64,
    /// Messages counted sent and never received: supervised's kills lose
    /// them by design (spec §4.7); 0 for every other benchmark.
    pub lost: u64,
    /// ns_per_op when it is not elapsed / ops (idle).
    pub ns_per_op: Option<f64>,
    /// The benchmark's own fields (procs, round_trips, …).
    pub extra: Value,
}

impl Report {
    pub fn new(ops: u64, elapsed: Duration, received: u64, expected: u64) -> Report {
        Report {
            ops,
            elapsed,
            received,
            expected,
            lost: 0,
            ns_per_op: None,
            extra: json!({}),
        }
    }

    pub fn verify(&self, cores: u64, workers: usize) -> Result<(), String> {
        if self.received + self.lost != self.expected {
            let lost = match self.lost {
                0 => String::new(),
                n => format!(" and lost {n}"),
            };
            return Err(format!(
                "received {} messages{lost}, expected {}",
                self.received, self.expected
            ));
        }
        if workers as u64 != cores {
            return Err(format!(
                "the runtime has {workers} workers, --cores asked for {cores}"
            ));
        }
        Ok(())
    }

    pub fn to_json(&self, cfg: &Config, workers: usize) -> String {
        let elapsed_ns = self.elapsed.as_nanos() as u64;
        // 0 when no op completed (every pair starved): JSON has no NaN.
        let per_op = if self.ops == 0 {
            0.0
        } else {
            elapsed_ns as f64 / self.ops as f64
        };
        let ns_per_op = self.ns_per_op.unwrap_or(per_op);
        let mut line = json!({
            "schema": 1,
            "bench": cfg.bench.name(),
            "runtime": "rust-tokio",
            "params": params(cfg, workers),
            "ops": self.ops,
            "elapsed_ns": elapsed_ns,
            "ns_per_op": ns_per_op,
            "checks": {"received": self.received, "expected": self.expected},
        });
        if let (Value::Object(line), Value::Object(extra)) = (&mut line, &self.extra) {
            line.extend(extra.clone());
        }
        line.to_string()
    }
}

fn params(cfg: &Config, workers: usize) -> Value {
    let mut p = match cfg.bench {
        Bench::Pingping => json!({"size": cfg.size, "reps": cfg.reps}),
        Bench::Pingpong => json!({"reps": cfg.reps}),
        Bench::Spawn | Bench::Maxprocs => json!({"procs": cfg.procs}),
        Bench::Pairs => json!({"pairs": cfg.pairs, "seconds": cfg.seconds}),
        Bench::Idle => json!({"procs": cfg.procs, "sleep_ms": cfg.sleep_ms}),
        Bench::Supervised => {
            json!({"pairs": cfg.pairs, "seconds": cfg.seconds, "kill_rate": cfg.kill_rate})
        }
    };
    p["cores"] = json!(workers);
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrong_count_fails_verification() {
        let report = Report::new(10, Duration::from_millis(1), 19, 20);
        assert_eq!(
            report.verify(1, 1).unwrap_err(),
            "received 19 messages, expected 20"
        );
    }

    #[test]
    fn a_worker_count_other_than_cores_fails_verification() {
        let report = Report::new(10, Duration::from_millis(1), 20, 20);
        assert!(report.verify(2, 1).unwrap_err().contains("1 workers"));
    }
}
