//! The variance between two runs of one plan, measured rather than assumed
//! (issue 37): from A/A pairs, two runs of the same plan from the same
//! code on the same machine, whose every difference is noise. Each pair
//! gives the log ratios of the points both measured; the variance of one
//! such ratio is what `concur compare` must allow for when it compares two
//! runs of that plan.
//!
//! A pair's ratios share that pair's moment on the machine (a drift that
//! moved every point of the second run alike), so they are not independent:
//! on the log scale a ratio is `pair + point`, two levels. The variance of
//! one ratio is `σ_pair² + σ_point²`, estimated from the pairs' mean ratios
//! (whose truth is 0: `k × mean²` estimates `k σ_pair² + σ_point²` for k
//! points) and the ratios' scatter about their pair's mean (`σ_point²`),
//! with Satterthwaite's degrees of freedom: about the number of pairs when
//! drift dominates, about the number of ratios when it does not.

/// How far two runs of one plan differ when nothing changed, on the log scale.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct BetweenRuns {
    /// The standard deviation of one point's log ratio between two runs.
    pub sigma: f64,
    /// Its degrees of freedom (Satterthwaite's, fractional).
    pub df: f64,
    /// The A/A pairs and the ratios it was estimated from.
    pub pairs: usize,
    pub ratios: usize,
}

impl BetweenRuns {
    /// The half-width of a 95% interval for one point's log ratio.
    pub fn half(&self) -> f64 {
        super::quantile::t975((self.df.floor() as usize).max(1)) * self.sigma
    }
}

/// The estimate from `pairs`, each the log ratios (B over A) of the points
/// one A/A pair shares; `None` without a ratio.
pub fn estimate(pairs: &[Vec<f64>]) -> Option<BetweenRuns> {
    let pairs: Vec<&Vec<f64>> = pairs.iter().filter(|d| !d.is_empty()).collect();
    let ratios: usize = pairs.iter().map(|d| d.len()).sum();
    if ratios == 0 {
        return None;
    }
    let p = pairs.len() as f64;
    let mean = |d: &[f64]| d.iter().sum::<f64>() / d.len() as f64;
    let k = ratios as f64 / p;
    let ms_pair = pairs.iter().map(|d| d.len() as f64 * mean(d).powi(2)).sum::<f64>() / p;
    let df_point: usize = pairs.iter().map(|d| d.len() - 1).sum();
    let ss_point: f64 = pairs.iter().map(|d| d.iter().map(|x| (x - mean(d)).powi(2)).sum::<f64>()).sum();
    let ms_point = if df_point > 0 { ss_point / df_point as f64 } else { 0.0 };
    // ms_pair / k estimates σ_pair² + σ_point² / k; the rest of σ_point² comes from ms_point.
    let (from_pairs, from_points) = (ms_pair / k, ms_point * (1.0 - 1.0 / k));
    let variance = from_pairs + from_points;
    let spread = from_pairs.powi(2) / p + if df_point > 0 { from_points.powi(2) / df_point as f64 } else { 0.0 };
    let df = if spread > 0.0 { variance.powi(2) / spread } else { ratios as f64 };
    Some(BetweenRuns { sigma: variance.sqrt(), df, pairs: pairs.len(), ratios })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic stand-in for normal noise: a fixed, zero-mean, unit-variance pattern.
    fn noise(i: usize) -> f64 {
        const PATTERN: [f64; 8] = [1.2, -0.4, 0.9, -1.5, 0.3, -0.8, 1.6, -1.3];
        let m = PATTERN.iter().sum::<f64>() / 8.0;
        let sd = (PATTERN.iter().map(|x| (x - m).powi(2)).sum::<f64>() / 8.0).sqrt();
        (PATTERN[i % 8] - m) / sd
    }

    #[test]
    fn scatter_without_drift_is_known_from_every_ratio() {
        // Four pairs of 18 points, each ratio off by 5% at random, no pair moved as a whole.
        let pairs: Vec<Vec<f64>> = (0..4).map(|p| (0..18).map(|i| 0.05 * noise(i + 3 * p)).collect()).collect();
        let b = estimate(&pairs).unwrap();
        assert!((b.sigma - 0.05).abs() < 0.01, "{b:?}");
        assert!(b.df > 40.0, "72 ratios, little of it drift: {b:?}");
        assert_eq!((b.pairs, b.ratios), (4, 72));
    }

    #[test]
    fn drift_that_moves_a_whole_run_counts_once_per_pair() {
        // Three pairs: every point of the second run 20% off, in one direction or the other, plus 1%.
        let shifts = [0.2, -0.2, 0.2];
        let pairs: Vec<Vec<f64>> = shifts.iter().map(|s| (0..18).map(|i| s + 0.01 * noise(i)).collect()).collect();
        let b = estimate(&pairs).unwrap();
        assert!((b.sigma - 0.2).abs() < 0.01, "{b:?}");
        assert!(b.df < 3.5, "three drifts are three observations, not 54: {b:?}");
        assert!(b.half() > 0.2 * 3.0, "t at about 3 degrees of freedom: {}", b.half());
    }

    #[test]
    fn one_pair_of_one_point_is_one_observation_and_none_is_no_estimate() {
        let b = estimate(&[vec![0.1]]).unwrap();
        assert!((b.sigma - 0.1).abs() < 1e-12 && b.df == 1.0, "{b:?}");
        assert_eq!(estimate(&[vec![], vec![]]), None);
        let exact = estimate(&[vec![0.0, 0.0], vec![0.0]]).unwrap();
        assert_eq!((exact.sigma, exact.df), (0.0, 3.0), "identical runs: resolution only");
    }
}
