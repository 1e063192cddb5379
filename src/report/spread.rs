//! The summary of repeats the tables print: the median and the range
//! (`±3%`, half of it relative to the median). Intervals and what they
//! allow one to say are `stats::interval` and `stats::verdict`'s, shared
//! with `concur compare`.

use serde::Serialize;

/// The repeats of one measured quantity.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Summary {
    pub n: usize,
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

impl Summary {
    /// Summarises `values` (NaN-free); `None` when there are none.
    pub fn of(values: &[f64]) -> Option<Summary> {
        if values.is_empty() {
            return None;
        }
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        Some(Summary { n: sorted.len(), median: median(&sorted), min: sorted[0], max: sorted[sorted.len() - 1] })
    }

    /// Half the range relative to the median: `±3%` in the tables.
    pub fn relative_spread(&self) -> f64 {
        if self.median.abs() > 0.0 { (self.max - self.min) / 2.0 / self.median.abs() } else { 0.0 }
    }
}

/// Median of values in any order.
pub fn median_of(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    median(&sorted)
}

/// Median of sorted values; 0 for none.
pub fn median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    match n {
        0 => 0.0,
        _ if n % 2 == 1 => sorted[n / 2],
        _ => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
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
        assert_eq!(median_of(&[]), 0.0);
    }
}
