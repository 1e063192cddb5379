//! The latency histogram and the summary derived from it.

use anyhow::Context;
use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::{Deserializer, Serializer, V2DeflateSerializer};
use serde::{Deserialize, Serialize};

/// The largest latency kept exactly: one hour. Longer ones are recorded as this.
pub const MAX_LATENCY_US: u64 = 3_600_000_000;

/// Latencies in microseconds, 3 significant digits from 1 µs to one hour.
#[derive(Clone, Debug, PartialEq)]
pub struct Latencies(Histogram<u64>);

impl Default for Latencies {
    fn default() -> Self {
        Self::new()
    }
}

impl Latencies {
    pub fn new() -> Self {
        Latencies(Histogram::new_with_bounds(1, MAX_LATENCY_US, 3).expect("constant bounds are valid"))
    }

    #[inline]
    pub fn record_us(&mut self, us: u64) {
        self.0.saturating_record(us);
    }

    pub fn count(&self) -> u64 {
        self.0.len()
    }

    /// The largest value recorded (at the histogram's resolution); 0 when empty.
    pub fn max(&self) -> u64 {
        if self.0.is_empty() { 0 } else { self.0.max() }
    }

    /// Adds every recorded value of `other`; exact, whatever process recorded it.
    pub fn add(&mut self, other: &Latencies) -> anyhow::Result<()> {
        self.0.add(&other.0).map_err(|e| anyhow::anyhow!("cannot merge latency histograms: {e:?}"))
    }

    /// The value at `quantile` (0.0..=1.0), in microseconds.
    pub fn quantile_us(&self, quantile: f64) -> u64 {
        self.0.value_at_quantile(quantile)
    }

    /// Every distinct recorded value (at the histogram's resolution) with its count.
    pub fn recorded(&self) -> Vec<(u64, u64)> {
        self.0.iter_recorded().map(|v| (v.value_iterated_to(), v.count_at_value())).collect()
    }

    /// The standard HdrHistogram encoding: V2, deflate-compressed, base64.
    pub fn encode(&self) -> String {
        let mut bytes = Vec::new();
        V2DeflateSerializer::new().serialize(&self.0, &mut bytes).expect("serializing to memory cannot fail");
        BASE64.encode(bytes)
    }

    pub fn decode(text: &str) -> anyhow::Result<Latencies> {
        let bytes = BASE64.decode(text.trim()).context("latency histogram is not valid base64")?;
        let decoded: Histogram<u64> = Deserializer::new()
            .deserialize(&mut bytes.as_slice())
            .map_err(|e| anyhow::anyhow!("latency histogram is not an HdrHistogram V2 encoding: {e:?}"))?;
        let mut latencies = Latencies::new();
        latencies.0.add(&decoded).map_err(|e| anyhow::anyhow!("latency histogram out of range: {e:?}"))?;
        Ok(latencies)
    }

    /// Mean, spread, percentiles and the encoded histogram itself.
    pub fn stats(&self) -> LatencyStats {
        let h = &self.0;
        let empty = h.is_empty();
        let q = |x: f64| if empty { 0 } else { h.value_at_quantile(x) };
        LatencyStats {
            count: h.len(),
            min_us: if empty { 0 } else { h.min() },
            mean_us: if empty { 0.0 } else { h.mean() },
            stdev_us: if empty { 0.0 } else { h.stdev() },
            p50_us: q(0.50),
            p75_us: q(0.75),
            p90_us: q(0.90),
            p99_us: q(0.99),
            p999_us: q(0.999),
            max_us: self.max(),
            histogram: self.encode(),
            unfinished: 0,
            lower_bounds: Vec::new(),
        }
    }
}

/// The latency of successful responses: a summary for readers and the full
/// histogram for merging. Values are the histogram's (3 significant digits).
/// With unanswered requests (`unfinished` > 0) the percentiles count them as
/// censored values (`censored`); the other figures are the answered ones'.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LatencyStats {
    /// Number of latencies recorded.
    pub count: u64,
    pub min_us: u64,
    pub mean_us: f64,
    pub stdev_us: f64,
    pub p50_us: u64,
    pub p75_us: u64,
    pub p90_us: u64,
    pub p99_us: u64,
    pub p999_us: u64,
    pub max_us: u64,
    /// HdrHistogram V2 deflate encoding, base64; `Latencies::decode` reads it.
    pub histogram: String,
    /// Requests unanswered at the end, counted in the percentiles as "at least their age".
    #[serde(default)]
    pub unfinished: u64,
    /// The percentiles (`p50` … `p999`) whose value is only a lower bound: the
    /// oldest unanswered request's age, because they fall among unanswered requests.
    #[serde(default)]
    pub lower_bounds: Vec<String>,
}

impl LatencyStats {
    /// The histogram, decoded; empty when there is none (a summary written
    /// before the field existed, e.g. an old report's `unfinished_age`).
    pub fn latencies(&self) -> anyhow::Result<Latencies> {
        if self.histogram.is_empty() { Ok(Latencies::new()) } else { Latencies::decode(&self.histogram) }
    }

    /// Whether percentile `name` (`p50` … `p999`) is only a lower bound.
    pub fn is_lower_bound(&self, name: &str) -> bool {
        self.lower_bounds.iter().any(|p| p == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoding_round_trips_exactly() {
        let mut a = Latencies::new();
        for v in [1, 7, 150, 1_000, 1_234_567, MAX_LATENCY_US + 5] {
            a.record_us(v);
        }
        let b = Latencies::decode(&a.encode()).unwrap();
        assert_eq!(a, b);
        assert_eq!(b.count(), 6);
    }

    #[test]
    fn empty_histogram_summarises_to_zeros() {
        let s = Latencies::new().stats();
        assert_eq!((s.count, s.max_us, s.p99_us), (0, 0, 0));
        assert_eq!(Latencies::decode(&s.histogram).unwrap().count(), 0);
    }

    #[test]
    fn fixed_values_give_their_percentiles() {
        let mut a = Latencies::new();
        for v in 1..=1000 {
            a.record_us(v);
        }
        let s = a.stats();
        assert_eq!(s.p50_us, 500);
        assert_eq!(s.p90_us, 900);
        assert_eq!(s.max_us, 1000);
    }
}
