//! A latency bound (`--slo 'p99<=10ms'`, the profile's `[capacity] slo`):
//! one or more `pPERCENTILE<=DURATION` terms joined by commas, each on a
//! percentile the store keeps. `check` says which term a step's latencies
//! break, so the capacity search and the report agree on one rule.

use crate::stats::LatencyStats;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The percentiles a point keeps (`lat_*_us` in spec/RESULTS-DB.md), as they are written in a bound.
const PERCENTILES: &[&str] = &["p50", "p75", "p90", "p99", "p99.9", "max"];

const SYNTAX: &str = "expected PERCENTILE<=DURATION terms joined by commas, e.g. 'p99<=10ms', 'p99.9<=50ms' or 'p50<=2ms,p99<=10ms' \
                      (percentiles: p50, p75, p90, p99, p99.9, max; units: us, ms, s)";

/// One term: `percentile` at most `limit_us`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bound {
    /// As written in a bound: `p50` … `p99.9`, `max`.
    pub percentile: String,
    pub limit_us: u64,
}

/// Every term must hold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Slo {
    pub bounds: Vec<Bound>,
}

impl Slo {
    /// Parses `text`; the error names the input and shows the syntax.
    pub fn parse(text: &str) -> Result<Slo, String> {
        let bad = |why: String| format!("invalid SLO '{text}': {why}; {SYNTAX}");
        let mut bounds: Vec<Bound> = Vec::new();
        for term in text.split(',').map(str::trim) {
            let Some((name, limit)) = term.split_once("<=") else {
                return Err(bad(if term.is_empty() { "an empty term".into() } else { format!("'{term}' has no '<='") }));
            };
            let name = name.trim().to_ascii_lowercase();
            if !PERCENTILES.contains(&name.as_str()) {
                return Err(bad(format!("'{}' is not a percentile the results keep", name)));
            }
            let limit = limit.trim();
            if !limit.ends_with("us") && !limit.ends_with("ms") && !limit.ends_with('s') {
                return Err(bad(format!("'{limit}' needs a unit")));
            }
            let seconds = crate::host::duration::parse_seconds(limit).map_err(|e| bad(e.replace(" (use us, ms, s, m or h)", "")))?;
            let limit_us = (seconds * 1e6).round() as u64;
            if limit_us == 0 {
                return Err(bad(format!("'{limit}' is not above 0")));
            }
            if bounds.iter().any(|b| b.percentile == name) {
                return Err(bad(format!("{name} is bounded twice")));
            }
            bounds.push(Bound { percentile: name, limit_us });
        }
        Ok(Slo { bounds })
    }

    /// The first term `latency` breaks: its percentile over the limit, a value
    /// only known as a lower bound (requests left unanswered) included. A lower
    /// bound within the limit breaks nothing by itself: the requests behind it
    /// are young, and those unanswered past the limit fail a step on their own
    /// (`widest_us`), as spec/PROFILES.md says.
    pub fn check(&self, latency: &LatencyStats) -> Option<Breach<'_>> {
        self.bounds
            .iter()
            .map(|bound| Breach { bound, value: value(latency, &bound.percentile), lower_bound: is_lower_bound(latency, &bound.percentile) })
            .find(|b| b.value > b.bound.limit_us)
    }

    /// The loosest limit: a request unanswered for longer breaks every term it could belong to.
    pub fn widest_us(&self) -> u64 {
        self.bounds.iter().map(|b| b.limit_us).max().unwrap_or(0)
    }
}

/// A term a step's latencies break.
#[derive(Debug, PartialEq, Eq)]
pub struct Breach<'a> {
    pub bound: &'a Bound,
    /// The percentile's value, or its lower bound.
    pub value: u64,
    /// Only a lower bound is known (`LatencyStats::lower_bounds`).
    pub lower_bound: bool,
}

impl fmt::Display for Breach<'_> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let (p, ms) = (&self.bound.percentile, |us: u64| format!("{:.2} ms", us as f64 / 1000.0));
        if self.lower_bound {
            write!(f, "{p} > {} (requests left unanswered), over the bound {}", ms(self.value), ms(self.bound.limit_us))
        } else {
            write!(f, "{p} {} over the bound {}", ms(self.value), ms(self.bound.limit_us))
        }
    }
}

/// Whether `percentile` (as written in a bound) is only a lower bound in `latency`.
pub fn is_lower_bound(latency: &LatencyStats, percentile: &str) -> bool {
    match percentile {
        "max" => latency.unfinished > 0 && !latency.lower_bounds.is_empty(),
        "p99.9" => latency.is_lower_bound("p999"),
        p => latency.is_lower_bound(p),
    }
}

/// The value of `percentile` (as written in a bound) in `latency`; `max` is at
/// least the oldest unanswered request's age when the top percentiles are bounds.
pub fn value(latency: &LatencyStats, percentile: &str) -> u64 {
    match percentile {
        "p50" => latency.p50_us,
        "p75" => latency.p75_us,
        "p90" => latency.p90_us,
        "p99" => latency.p99_us,
        "p99.9" => latency.p999_us,
        _ if latency.is_lower_bound("p999") => latency.max_us.max(latency.p999_us),
        _ => latency.max_us,
    }
}

/// `1.5ms`, `250us`, `2s`: the shortest exact form.
pub fn duration_text(us: u64) -> String {
    if us.is_multiple_of(1_000_000) {
        format!("{}s", us / 1_000_000)
    } else if us >= 1000 {
        let ms = us as f64 / 1000.0;
        format!("{}ms", (ms * 1000.0).round() / 1000.0)
    } else {
        format!("{us}us")
    }
}

impl fmt::Display for Bound {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}<={}", self.percentile, duration_text(self.limit_us))
    }
}

impl fmt::Display for Slo {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let terms: Vec<String> = self.bounds.iter().map(Bound::to_string).collect();
        f.write_str(&terms.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_join_by_commas_in_any_unit() {
        let slo = Slo::parse("p99<=10ms, p99.9<=50ms,p50<=500us,max<=1s").unwrap();
        let limits: Vec<(&str, u64)> = slo.bounds.iter().map(|b| (b.percentile.as_str(), b.limit_us)).collect();
        assert_eq!(limits, [("p99", 10_000), ("p99.9", 50_000), ("p50", 500), ("max", 1_000_000)]);
        assert_eq!(slo.to_string(), "p99<=10ms,p99.9<=50ms,p50<=500us,max<=1s");
        assert_eq!(Slo::parse(&slo.to_string()).unwrap(), slo);
    }

    #[test]
    fn a_malformed_bound_names_the_input_and_shows_the_syntax() {
        for (input, why) in [
            ("p99<10ms", "has no '<='"),
            ("p98<=10ms", "'p98' is not a percentile"),
            ("p99<=10", "'10' needs a unit"),
            ("p99<=ten ms", "invalid duration"),
            ("p99<=0ms", "not above 0"),
            ("p99<=1ms,", "an empty term"),
            ("p99<=1ms,p99<=2ms", "p99 is bounded twice"),
        ] {
            let err = Slo::parse(input).unwrap_err();
            assert!(err.starts_with(&format!("invalid SLO '{input}': ")) && err.contains(why), "{input}: {err}");
            assert!(err.contains("e.g. 'p99<=10ms', 'p99.9<=50ms'"), "{err}");
        }
    }

    #[test]
    fn check_names_the_first_term_broken() {
        let slo = Slo::parse("p50<=1ms,p99<=10ms").unwrap();
        let lat = |p50, p99| LatencyStats { p50_us: p50, p99_us: p99, ..LatencyStats::default() };
        assert_eq!(slo.check(&lat(900, 10_000)), None);
        let Breach { bound: b, value: v, .. } = slo.check(&lat(900, 12_000)).unwrap();
        assert_eq!((b.percentile.as_str(), v), ("p99", 12_000));
    }

    /// A p99 known only to be at least 12 ms (requests left unanswered) breaks a
    /// 10 ms bound, and says so; one at least 8 ms does not by itself (its
    /// unanswered requests are younger than the bound).
    #[test]
    fn a_percentile_known_only_as_a_lower_bound_breaks_its_term_when_over_it() {
        let slo = Slo::parse("p99<=10ms,max<=1s").unwrap();
        let lat = |p99: u64| LatencyStats { p99_us: p99, p999_us: p99, max_us: 5_000, unfinished: 40, lower_bounds: vec!["p99".into(), "p999".into()], ..LatencyStats::default() };
        let breach = slo.check(&lat(12_000)).unwrap();
        assert!(breach.lower_bound);
        assert_eq!(breach.to_string(), "p99 > 12.00 ms (requests left unanswered), over the bound 10.00 ms");
        assert_eq!(slo.check(&lat(8_000)), None);
        assert!(is_lower_bound(&lat(8_000), "p99.9") && !is_lower_bound(&lat(8_000), "p50"));
        assert_eq!(value(&lat(8_000), "max"), 8_000, "the max is at least the oldest unanswered request's age");
    }
}
