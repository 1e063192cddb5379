//! A straight line through a few points by least squares, with the 95%
//! interval of its slope: memory per waiting client over the steps of a
//! clients-held search (issue 41), where one difference of two RSS samples
//! would carry every fixed cost of the step into the figure.

use super::quantile::t975;
use serde::Serialize;

/// The slope of `y` on `x`, with the half-width of its 95% interval (Student's t at `n − 2`
/// degrees of freedom), `None` when two points fix the line exactly and leave no residual.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Slope {
    pub slope: f64,
    pub half: Option<f64>,
    pub n: usize,
}

impl Slope {
    pub fn lo(&self) -> Option<f64> {
        self.half.map(|h| self.slope - h)
    }
    pub fn hi(&self) -> Option<f64> {
        self.half.map(|h| self.slope + h)
    }
}

/// The least-squares line through `points`; `None` with fewer than two distinct `x`.
pub fn fit(points: &[(f64, f64)]) -> Option<Slope> {
    let n = points.len();
    let mx = points.iter().map(|p| p.0).sum::<f64>() / n as f64;
    let my = points.iter().map(|p| p.1).sum::<f64>() / n as f64;
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    if n < 2 || sxx <= 0.0 {
        return None;
    }
    let slope = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum::<f64>() / sxx;
    let half = (n > 2).then(|| {
        let rss: f64 = points.iter().map(|p| (p.1 - my - slope * (p.0 - mx)).powi(2)).sum();
        t975(n - 2) * (rss / (n - 2) as f64 / sxx).sqrt()
    });
    Some(Slope { slope, half, n })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_with_a_fixed_cost_gives_its_slope_not_the_ratio() {
        // 40 KiB per client and 20 MiB the step costs whatever its clients: 2,000, 4,000, 8,000.
        let points: Vec<(f64, f64)> = [2000.0, 4000.0, 8000.0].iter().map(|&c| (c, 20.0 * 1024.0 + 40.0 * c)).collect();
        let s = fit(&points).unwrap();
        assert!((s.slope - 40.0).abs() < 1e-9 && s.half.unwrap() < 1e-6, "{s:?}");
        assert!(points[0].1 / points[0].0 > 50.0, "the ratio at the first step would say {}", points[0].1 / points[0].0);
    }

    #[test]
    fn scatter_widens_the_interval_and_two_points_leave_none() {
        let s = fit(&[(1000.0, 41_000.0), (2000.0, 79_000.0), (4000.0, 162_000.0), (8000.0, 318_000.0)]).unwrap();
        assert!(s.lo().unwrap() < s.slope && s.slope < s.hi().unwrap() && (s.slope - 39.6).abs() < 1.0, "{s:?}");
        let two = fit(&[(2000.0, 80_000.0), (4000.0, 160_000.0)]).unwrap();
        assert_eq!((two.slope, two.half, two.n), (40.0, None, 2));
        assert!(fit(&[(2000.0, 1.0)]).is_none() && fit(&[(2000.0, 1.0), (2000.0, 2.0)]).is_none());
    }
}
