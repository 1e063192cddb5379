//! The statistics of repeats: the median, its spread, a bootstrap interval,
//! and the rule that calls two results "within noise" of each other; and the
//! ratio of two medians (`concur compare`: run B over run A) with its interval.
//!
//! With a handful of repeats a normal approximation would be invented
//! precision, so the interval is a percentile bootstrap of the median
//! (resampling the repeats), with a fixed seed so the same database always
//! gives the same report. Two results whose intervals overlap are within
//! noise: the data cannot tell them apart. A ratio's interval resamples each
//! side's repeats independently; a ratio whose interval holds 1 is within noise.

use crate::host::digest::SplitMix;
use serde::Serialize;
use std::cmp::Ordering;

/// Resamples per bootstrap.
pub const RESAMPLES: usize = 2000;
/// Two-sided coverage of the interval.
pub const COVERAGE: f64 = 0.95;

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

/// Median of values in any order.
pub fn median_of(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    median(&sorted)
}

/// Median of sorted values.
pub fn median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n % 2 == 1 { sorted[n / 2] } else { (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0 }
}

/// The ratio of two medians, `b / a`, with a percentile bootstrap interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Ratio {
    /// Repeats on each side.
    pub n_a: usize,
    pub n_b: usize,
    /// Median of b over median of a.
    pub ratio: f64,
    /// Bootstrap interval of the ratio: each side's repeats resampled independently.
    pub lo: f64,
    pub hi: f64,
}

impl Ratio {
    /// `None` when a side is empty, a value is not finite or a value of `a`
    /// is not positive (a median of 0 has no ratio).
    pub fn of(a: &[f64], b: &[f64]) -> Option<Ratio> {
        let finite = |v: &[f64]| !v.is_empty() && v.iter().all(|x| x.is_finite());
        if !finite(a) || !finite(b) || a.iter().any(|&x| x <= 0.0) {
            return None;
        }
        let (mut a, mut b) = (a.to_vec(), b.to_vec());
        a.sort_by(f64::total_cmp);
        b.sort_by(f64::total_cmp);
        let mut rng = SplitMix(0x5eed_c0ff_ee00_0002 ^ ((a.len() as u64) << 32) ^ b.len() as u64);
        let (mut sample_a, mut sample_b) = (vec![0.0; a.len()], vec![0.0; b.len()]);
        let ratios = (0..RESAMPLES).map(|_| resampled_median(&b, &mut rng, &mut sample_b) / resampled_median(&a, &mut rng, &mut sample_a)).collect();
        let (lo, hi) = percentile_interval(ratios);
        Some(Ratio { n_a: a.len(), n_b: b.len(), ratio: median(&b) / median(&a), lo, hi })
    }

    /// Where the interval lies against 1: `Greater` entirely above, `Less`
    /// entirely below, `Equal` holding it (within noise); `None` when a side
    /// has a single repeat, which has no spread to resample.
    pub fn against_one(&self) -> Option<Ordering> {
        if self.n_a < 2 || self.n_b < 2 {
            None
        } else if self.lo > 1.0 {
            Some(Ordering::Greater)
        } else if self.hi < 1.0 {
            Some(Ordering::Less)
        } else {
            Some(Ordering::Equal)
        }
    }
}

/// Percentile bootstrap interval of the median of sorted values.
fn bootstrap_median(sorted: &[f64]) -> (f64, f64) {
    let n = sorted.len();
    if n <= 2 {
        return (sorted[0], sorted[n - 1]);
    }
    let mut rng = SplitMix(0x5eed_c0ff_ee00_0001 ^ n as u64);
    let mut sample = vec![0.0; n];
    percentile_interval((0..RESAMPLES).map(|_| resampled_median(sorted, &mut rng, &mut sample)).collect())
}

/// The median of one resample (with replacement) of `values`, drawn into `sample`.
fn resampled_median(values: &[f64], rng: &mut SplitMix, sample: &mut [f64]) -> f64 {
    let n = values.len() as u64;
    for slot in sample.iter_mut() {
        *slot = values[(rng.next() % n) as usize];
    }
    sample.sort_by(f64::total_cmp);
    median(sample)
}

/// The central [`COVERAGE`] of a bootstrap's [`RESAMPLES`] statistics.
fn percentile_interval(mut stats: Vec<f64>) -> (f64, f64) {
    stats.sort_by(f64::total_cmp);
    let tail = (1.0 - COVERAGE) / 2.0;
    let at = |q: f64| stats[((q * (RESAMPLES - 1) as f64).round() as usize).min(RESAMPLES - 1)];
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
    fn a_thirty_percent_drop_with_tight_repeats_is_an_interval_below_one() {
        let r = Ratio::of(&[100.0, 101.0, 99.0, 100.5, 99.5], &[70.0, 70.5, 69.5, 71.0, 69.0]).unwrap();
        assert!((r.ratio - 0.70).abs() < 1e-12, "{r:?}");
        assert!(r.lo <= r.ratio && r.ratio <= r.hi && r.hi < 0.75, "{r:?}");
        assert_eq!(r.against_one(), Some(Ordering::Less));
        let up = Ratio::of(&[70.0, 70.5, 69.5], &[100.0, 101.0, 99.0]).unwrap();
        assert_eq!(up.against_one(), Some(Ordering::Greater), "{up:?}");
    }

    #[test]
    fn noisy_overlapping_repeats_hold_one() {
        let r = Ratio::of(&[100.0, 125.0, 80.0, 110.0], &[95.0, 130.0, 85.0, 102.0]).unwrap();
        assert!(r.lo < 1.0 && 1.0 < r.hi, "{r:?}");
        assert_eq!(r.against_one(), Some(Ordering::Equal));
    }

    #[test]
    fn a_ratio_with_one_repeat_on_either_side_says_nothing_against_one() {
        assert_eq!(Ratio::of(&[100.0], &[50.0, 51.0, 49.0]).unwrap().against_one(), None);
        assert_eq!(Ratio::of(&[100.0, 101.0], &[50.0]).unwrap().against_one(), None);
        assert_eq!(Ratio::of(&[100.0, 101.0], &[50.0, 50.5]).unwrap().against_one(), Some(Ordering::Less));
    }

    #[test]
    fn a_ratio_needs_values_and_a_positive_denominator() {
        assert!(Ratio::of(&[], &[1.0]).is_none() && Ratio::of(&[1.0], &[]).is_none());
        assert!(Ratio::of(&[0.0, 1.0], &[1.0, 1.0]).is_none());
        assert!(Ratio::of(&[1.0, f64::NAN], &[1.0, 1.0]).is_none());
        assert_eq!(Ratio::of(&[2.0, 2.0], &[0.0, 0.0]).unwrap().ratio, 0.0);
    }

    #[test]
    fn the_ratio_is_reproducible_and_independent_of_the_order_of_repeats() {
        let r = Ratio::of(&[5.0, 9.0, 7.0], &[6.0, 8.0, 10.0, 7.0]).unwrap();
        assert_eq!(Some(r), Ratio::of(&[9.0, 7.0, 5.0], &[10.0, 7.0, 8.0, 6.0]));
    }

    #[test]
    fn a_single_measurement_claims_nothing() {
        let one = Summary::of(&[100.0]).unwrap();
        assert_eq!((one.lo, one.hi), (100.0, 100.0));
        assert!(!one.within_noise(&one));
    }
}
