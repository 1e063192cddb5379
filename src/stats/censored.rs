//! Percentiles that count every request, the unanswered ones included. A
//! request still waiting when a run ends has no latency, only an age: its
//! latency is "at least its age", a right-censored value. Dropping such
//! requests biases every figure toward the servers that leave clients
//! waiting (the slowest requests are exactly the ones missing), and counting
//! them at their age would call a young request in flight at the end of a
//! closed loop "fast". The Kaplan–Meier estimator is the standard answer: an
//! unanswered request counts among those still "alive" up to its age and
//! then leaves the count, so it weighs on every percentile it could belong
//! to and on no other. Where the estimate never falls to a percentile's
//! share (the oldest values are all unanswered), that percentile is not
//! known, only bounded below by the oldest age: it is reported as that bound
//! and flagged, never as a number below it.
//!
//! Without unanswered requests the percentiles are the histogram's own,
//! value for value.

use super::histogram::{Latencies, LatencyStats};

/// The percentiles every latency summary reports, by name and quantile.
pub const PERCENTILES: [(&str, f64); 5] = [("p50", 0.50), ("p75", 0.75), ("p90", 0.90), ("p99", 0.99), ("p999", 0.999)];

/// A quantile's estimate: a value, or only a lower bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Estimate {
    Exact(u64),
    AtLeast(u64),
}

impl Estimate {
    pub fn value(self) -> u64 {
        match self {
            Estimate::Exact(v) | Estimate::AtLeast(v) => v,
        }
    }
}

/// The Kaplan–Meier estimate of each of `quantiles` (ascending) from the
/// latencies of answered requests and the ages of unanswered ones, both in
/// microseconds. At equal values an answer counts before an unanswered
/// request leaves, the usual convention: a request unanswered at age A may
/// still take longer than an answer at A.
pub fn quantiles(done: &Latencies, unfinished: &Latencies, quantiles: &[f64]) -> Vec<Estimate> {
    let answered = done.recorded();
    let waiting = unfinished.recorded();
    let mut at_risk = (done.count() + unfinished.count()) as f64;
    let mut survival = 1.0_f64;
    let mut estimates = Vec::with_capacity(quantiles.len());
    let (mut a, mut w) = (0, 0);
    while a < answered.len() || w < waiting.len() {
        let value = match (answered.get(a), waiting.get(w)) {
            (Some(&(x, _)), Some(&(y, _))) => x.min(y),
            (Some(&(x, _)), None) => x,
            (None, Some(&(y, _))) => y,
            (None, None) => unreachable!(),
        };
        let mut events = 0;
        if answered.get(a).is_some_and(|&(x, _)| x == value) {
            events = answered[a].1;
            a += 1;
        }
        let mut censored = 0;
        if waiting.get(w).is_some_and(|&(y, _)| y == value) {
            censored = waiting[w].1;
            w += 1;
        }
        if events > 0 {
            survival *= 1.0 - events as f64 / at_risk;
        }
        at_risk -= (events + censored) as f64;
        while let Some(&q) = quantiles.get(estimates.len()) {
            // The tolerance absorbs the product's rounding, so that a survival of exactly 1 - q counts.
            if survival > 1.0 - q + 1e-12 {
                break;
            }
            estimates.push(Estimate::Exact(value));
        }
    }
    let oldest = unfinished.max().max(done.max());
    estimates.resize(quantiles.len(), Estimate::AtLeast(oldest));
    estimates
}

impl Latencies {
    /// The summary of answered requests' latencies with `unfinished` (the ages
    /// of unanswered ones) counted in the percentiles as censored values. The
    /// count, minimum, maximum, mean and deviation stay those of the answered
    /// requests; `unfinished` and `lower_bounds` say what the percentiles hold.
    pub fn stats_with_unfinished(&self, unfinished: &Latencies) -> LatencyStats {
        let mut stats = self.stats();
        if unfinished.count() == 0 {
            return stats;
        }
        let qs: Vec<f64> = PERCENTILES.iter().map(|&(_, q)| q).collect();
        let estimates = quantiles(self, unfinished, &qs);
        let slots = [&mut stats.p50_us, &mut stats.p75_us, &mut stats.p90_us, &mut stats.p99_us, &mut stats.p999_us];
        for ((slot, estimate), (name, _)) in slots.into_iter().zip(&estimates).zip(PERCENTILES) {
            *slot = estimate.value();
            if let Estimate::AtLeast(_) = estimate {
                stats.lower_bounds.push(name.to_string());
            }
        }
        stats.unfinished = unfinished.count();
        stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hist(values: impl IntoIterator<Item = u64>) -> Latencies {
        let mut h = Latencies::new();
        for v in values {
            h.record_us(v);
        }
        h
    }

    #[test]
    fn without_unfinished_requests_the_percentiles_are_the_histograms() {
        let done = hist((1..=10_000).map(|v| v * 3));
        let plain = done.stats();
        let counted = done.stats_with_unfinished(&Latencies::new());
        assert_eq!(plain, counted);
        let qs: Vec<f64> = PERCENTILES.iter().map(|&(_, q)| q).collect();
        let km = quantiles(&done, &Latencies::new(), &qs);
        let hdr: Vec<Estimate> = qs.iter().map(|&q| Estimate::Exact(done.quantile_us(q))).collect();
        assert_eq!(km, hdr, "the estimator agrees with the histogram when nothing is censored");
    }

    /// rust-threadpool in longpoll, as make bench measured it: 256 of 1,000
    /// clients answered after 5 s, 744 still waiting at 6 s, and the 256
    /// answered ones waiting again for 1 s. Dropping the unanswered ones gave
    /// "p99 5,022 ms", the best of all 18 servers.
    #[test]
    fn clients_left_waiting_make_the_upper_percentiles_lower_bounds() {
        let done = hist(std::iter::repeat_n(5_018_000, 256));
        let waiting = hist(std::iter::repeat_n(6_000_000, 744).chain(std::iter::repeat_n(980_000, 256)));
        let s = done.stats_with_unfinished(&waiting);
        assert_eq!(s.unfinished, 1000);
        assert_eq!(s.lower_bounds, ["p50", "p75", "p90", "p99", "p999"]);
        assert!(s.p50_us >= 6_000_000 && s.p99_us >= 6_000_000, "{s:?}");
        assert_eq!(s.count, 256, "the count and mean stay the answered requests'");
    }

    /// A healthy long-poll server: every client answered at 5 s, and each one's
    /// next poll 1 s old at the end. The young polls carry no information about
    /// the tail; they must not turn the median into a bound or into 1 s.
    #[test]
    fn young_unfinished_requests_leave_the_percentiles_exact() {
        let done = hist((0..1000).map(|i| 5_010_000 + i * 20));
        let waiting = hist(std::iter::repeat_n(980_000, 1000));
        let s = done.stats_with_unfinished(&waiting);
        assert!(s.lower_bounds.is_empty(), "{:?}", s.lower_bounds);
        assert_eq!((s.p50_us, s.p99_us), (done.quantile_us(0.5), done.quantile_us(0.99)));
    }

    /// A bounded pool of K under 3K clients: the answered share is exact, every
    /// percentile above it a lower bound at the oldest age.
    #[test]
    fn percentiles_above_the_answered_share_are_lower_bounds() {
        // 600 answered at 10-19 ms, 200 waiting for the whole 2 s.
        let done = hist((0..600).map(|i| 10_000 + (i % 10) * 1_000));
        let waiting = hist(std::iter::repeat_n(2_000_000, 200));
        let s = done.stats_with_unfinished(&waiting);
        // 600 of 800 is 75% answered: p50 and p75 are known, p90 and above are not.
        assert_eq!(s.lower_bounds, ["p90", "p99", "p999"]);
        assert!(s.p50_us < 20_000 && s.p75_us < 20_000, "{s:?}");
        assert_eq!(s.p90_us, waiting.max());
    }

    /// Censored values weigh only where they could belong: one request waiting
    /// at 100 ms among answers at 1-50 ms and 150-200 ms moves the median of
    /// the later ones, not the earlier.
    #[test]
    fn a_censored_value_counts_only_above_its_age() {
        let done = hist((1..=50).map(|v| v * 1_000).chain((150..=200).map(|v| v * 1_000)));
        let km = quantiles(&done, &hist([100_000]), &[0.25, 0.75]);
        let plain = quantiles(&done, &Latencies::new(), &[0.25, 0.75]);
        assert_eq!(km[0], plain[0], "below its age nothing changes");
        assert!(km[1].value() >= plain[1].value(), "{km:?} {plain:?}");
    }
}
