//! Throughput and errors per second of the run, counted from its start.

use serde::{Deserialize, Serialize};

/// One second of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Second {
    /// Responses with the expected status completed in this second.
    pub requests: u64,
    /// Failed requests (any kind, unexpected statuses included) in this second.
    pub errors: u64,
    /// The 99th percentile of this second's successes' latencies, in microseconds, when the
    /// run kept one per second (`LoadPlan::latency_per_second`: `concur faults`); absent
    /// otherwise, and in a second without a success.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p99_us: Option<u64>,
}

/// Seconds indexed from the start of the run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Timeline(pub Vec<Second>);

impl Timeline {
    #[inline]
    pub fn record(&mut self, second: usize, ok: bool) {
        if second >= self.0.len() {
            self.0.resize(second + 1, Second::default());
        }
        let s = &mut self.0[second];
        if ok {
            s.requests += 1;
        } else {
            s.errors += 1;
        }
    }

    /// Adds `other`, whose second 0 is second `offset` of this timeline.
    pub fn merge(&mut self, other: &[Second], offset: usize) {
        if offset + other.len() > self.0.len() {
            self.0.resize(offset + other.len(), Second::default());
        }
        for (i, s) in other.iter().enumerate() {
            self.0[offset + i].requests += s.requests;
            self.0[offset + i].errors += s.errors;
        }
    }
}
