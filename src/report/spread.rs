//! The statistics of repeats: the median, its spread, a bootstrap interval,
//! and the rule that calls two results "within noise" of each other.
//!
//! With a handful of repeats a normal approximation would be invented
//! precision, so the interval is a percentile bootstrap of the median
//! (resampling the repeats), with a fixed seed so the same database always
//! gives the same report. Two results whose intervals overlap are within
//! noise: the data cannot tell them apart.

use crate::host::digest::SplitMix;
use serde::Serialize;

/// Resamples per bootstrap.
const RESAMPLES: usize = 2000;
/// Two-sided coverage of the interval.
const COVERAGE: f64 = 0.95;

/// The repeats of one measured quantity.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Summary {
    pub n: usize,
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// Bootstrap interval of the median (equal to min..max for n ≤ 2).
    pub lo: f64,
    pub hi: f64,
}

impl Summary {
    /// Summarises `values` (NaN-free); `None` when there are none.
    pub fn of(values: &[f64]) -> Option<Summary> {
        if values.is_empty() {
            return None;
        }
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        let (lo, hi) = bootstrap_median(&sorted);
        Some(Summary { n: sorted.len(), median: median(&sorted), min: sorted[0], max: sorted[sorted.len() - 1], lo, hi })
    }

    /// Half the range relative to the median: `±3%` in the tables.
    pub fn relative_spread(&self) -> f64 {
        if self.median.abs() > 0.0 { (self.max - self.min) / 2.0 / self.median.abs() } else { 0.0 }
    }

    /// Whether the two medians cannot be told apart: their intervals overlap.
    /// A single measurement has no interval, so nothing is claimed about it.
    pub fn within_noise(&self, other: &Summary) -> bool {
        self.n > 1 && other.n > 1 && self.lo <= other.hi && other.lo <= self.hi
    }
}

/// Median of sorted values.
pub fn median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n % 2 == 1 { sorted[n / 2] } else { (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0 }
}

/// Percentile bootstrap interval of the median of sorted values.
fn bootstrap_median(sorted: &[f64]) -> (f64, f64) {
    let n = sorted.len();
    if n <= 2 {
        return (sorted[0], sorted[n - 1]);
    }
    let mut rng = SplitMix(0x5eed_c0ff_ee00_0001 ^ n as u64);
    let mut sample = vec![0.0; n];
    let mut medians: Vec<f64> = (0..RESAMPLES)
        .map(|_| {
            for slot in sample.iter_mut() {
                *slot = sorted[(rng.next() % n as u64) as usize];
            }
            sample.sort_by(f64::total_cmp);
            median(&sample)
        })
        .collect();
    medians.sort_by(f64::total_cmp);
    let tail = (1.0 - COVERAGE) / 2.0;
    let at = |q: f64| medians[((q * (RESAMPLES - 1) as f64).round() as usize).min(RESAMPLES - 1)];
    (at(tail), at(1.0 - tail))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_spread_of_repeats() {
        let s = Summary::of(&[110.0, 90.0, 100.0]).unwrap();
        assert_eq!((s.n, s.median, s.min, s.max), (3, 100.0, 90.0, 110.0));
        assert!((s.relative_spread() - 0.10).abs() < 1e-12);
        assert_eq!(Summary::of(&[4.0, 2.0]).unwrap().median, 3.0);
        assert!(Summary::of(&[]).is_none());
    }

    #[test]
    fn the_interval_holds_the_median_and_stays_inside_the_data() {
        let s = Summary::of(&[97.0, 99.0, 100.0, 101.0, 103.0, 150.0]).unwrap();
        assert!(s.min <= s.lo && s.lo <= s.median && s.median <= s.hi && s.hi <= s.max, "{s:?}");
        assert!(s.hi < 150.0, "one outlier must not stretch the median's interval to it: {s:?}");
    }

    #[test]
    fn the_bootstrap_is_reproducible() {
        let v = [5.0, 9.0, 7.0, 6.0, 8.0];
        assert_eq!(Summary::of(&v), Summary::of(&v));
    }

    #[test]
    fn overlapping_intervals_are_within_noise_and_separate_ones_are_not() {
        let a = Summary::of(&[100.0, 104.0, 98.0]).unwrap();
        let b = Summary::of(&[102.0, 99.0, 105.0]).unwrap();
        let c = Summary::of(&[150.0, 152.0, 149.0]).unwrap();
        assert!(a.within_noise(&b) && b.within_noise(&a));
        assert!(!a.within_noise(&c));
    }

    #[test]
    fn a_single_measurement_claims_nothing() {
        let one = Summary::of(&[100.0]).unwrap();
        assert_eq!((one.lo, one.hi), (100.0, 100.0));
        assert!(!one.within_noise(&one));
    }
}
