//! The intervals every verdict stands on: a point's level from its repeats
//! (the report's rankings) and the ratio of two runs' levels (`concur
//! compare`), each the repeats' own spread combined with the machine's
//! noise floor (`noise`).
//!
//! Repeats are few (1-5), so the spread is Student's t on the logarithms:
//! the interval widens as repeats get fewer (t is 12.7 for 2 values, 2.8
//! for 5), where a percentile bootstrap over 2 values would resample the
//! same two numbers and call their gap the whole uncertainty. With one
//! repeat the spread is that of its seconds (the per-second timeline,
//! throughput only), and with nothing to gauge it, the floor alone. The two
//! parts are independent sources of error, so their half-widths add in
//! quadrature. Logarithms make a ratio symmetric (×1.25 and ÷1.25 are as
//! far from 1) and keep every bound positive.

use super::noise::Floor;
use super::quantile::t975;
use serde::Serialize;

/// Two-sided coverage of every interval.
pub const COVERAGE: f64 = 0.95;

/// What the spread part of an interval was measured from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// Two or more repeats: Student's t over their logarithms.
    Repeats,
    /// Two or more blocks of a block design: the implementation's own
    /// scatter from the two-way fit, moderated toward the pool of its group
    /// (`blocks`), no floor.
    Blocks,
    /// One repeat: the spread of its per-second throughput.
    Timeline,
    /// One repeat and nothing to gauge its spread (a percentile has no
    /// per-second values): the noise floor alone.
    FloorOnly,
    /// Two runs of one plan: the variance between such runs, measured from
    /// the A/A pairs the database holds (`between`), no floor.
    BetweenRuns,
}

impl Basis {
    /// How the Markdown and the report label an interval of this basis.
    pub fn label(self) -> &'static str {
        match self {
            Basis::Repeats => "repeats",
            Basis::Blocks => "blocks",
            Basis::Timeline => "one repeat: its seconds and the floor",
            Basis::FloorOnly => "one repeat: the floor alone",
            Basis::BetweenRuns => "A/A runs of this plan",
        }
    }
}

/// The measurements of one quantity at one point in one run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sample {
    /// Every repeat without error, positive.
    pub values: Vec<f64>,
    /// With a single repeat: its per-second values (throughput), full seconds only.
    pub seconds: Vec<f64>,
}

/// A level with its interval (a cell of a ranking).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Level {
    pub n: usize,
    /// The geometric mean of the repeats: the centre of the interval.
    pub center: f64,
    pub lo: f64,
    pub hi: f64,
    pub basis: Basis,
}

/// A ratio `b / a` with its interval (a point of `concur compare`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Ratio {
    /// Geometric mean of b's repeats over a's.
    pub ratio: f64,
    pub lo: f64,
    pub hi: f64,
    /// The half-width on the log scale, and the floor's part of it.
    pub half: f64,
    pub floor_half: f64,
    pub basis: Basis,
}

/// Mean and sum of squared deviations of the logarithms.
fn log_moments(values: &[f64]) -> (f64, f64) {
    let logs: Vec<f64> = values.iter().map(|v| v.ln()).collect();
    let mean = logs.iter().sum::<f64>() / logs.len() as f64;
    (mean, logs.iter().map(|l| (l - mean).powi(2)).sum())
}

/// The relative variance of per-second values (their variance over their
/// mean squared, ≈ the variance of their logarithms), with its degrees of
/// freedom; `None` for fewer than 2 seconds or a mean of 0. Relative rather
/// than logarithmic so that a second with no response (a stall) counts.
fn seconds_variance(seconds: &[f64]) -> Option<(f64, usize)> {
    let k = seconds.len();
    let mean = seconds.iter().sum::<f64>() / k.max(1) as f64;
    if k < 2 || mean <= 0.0 {
        return None;
    }
    Some((seconds.iter().map(|s| (s / mean - 1.0).powi(2)).sum::<f64>() / (k - 1) as f64, k - 1))
}

impl Sample {
    pub fn new(values: Vec<f64>, seconds: Vec<f64>) -> Sample {
        Sample { values, seconds }
    }

    /// Usable: at least one value, every one finite and above 0.
    fn usable(&self) -> bool {
        !self.values.is_empty() && self.values.iter().all(|v| v.is_finite() && *v > 0.0)
    }

    /// The spread part of a single run's level: (standard error on the log
    /// scale, degrees of freedom, basis).
    fn own_error(&self) -> (f64, usize, Basis) {
        let n = self.values.len();
        if n >= 2 {
            let (_, ss) = log_moments(&self.values);
            return ((ss / (n - 1) as f64 / n as f64).sqrt(), n - 1, Basis::Repeats);
        }
        match seconds_variance(&self.seconds) {
            Some((var, df)) => ((var / self.seconds.len() as f64).sqrt(), df, Basis::Timeline),
            None => (0.0, 0, Basis::FloorOnly),
        }
    }
}

/// The level of one sample within one run, for a ranking: its spread and
/// the floor, which shrinks as 1/√n because a run's repeats are taken at
/// different moments (a repeat is the plan's outermost loop). `None` when
/// the sample is not usable (no value, or a value of 0).
pub fn level(sample: &Sample, floor: Floor) -> Option<Level> {
    if !sample.usable() {
        return None;
    }
    let n = sample.values.len();
    let (center, _) = log_moments(&sample.values);
    let (se, df, basis) = sample.own_error();
    let own = if df > 0 { t975(df) * se } else { 0.0 };
    let floor_half = floor.half() / (n as f64).sqrt();
    let half = own.hypot(floor_half);
    Some(Level { n, center: center.exp(), lo: (center - half).exp(), hi: (center + half).exp(), basis })
}

/// The ratio `b / a` of two runs' samples of one point. The repeats' part:
/// with three or more repeats in all, their variances pooled (Student's t
/// with n_a + n_b − 2 degrees of freedom: one side's single repeat borrows
/// the other's spread); with one repeat each, their seconds' pooled. The
/// floor's part: each run's drift, which its repeats share and cannot see
/// (√2 drifts: two runs), whatever the repeats; with one repeat on each
/// side, which see no repeat-to-repeat spread, the whole floor of each
/// (√2 floors). `None` when a side is not usable.
pub fn ratio(a: &Sample, b: &Sample, floor: Floor) -> Option<Ratio> {
    if !a.usable() || !b.usable() {
        return None;
    }
    let ((ma, ssa), (mb, ssb)) = (log_moments(&a.values), log_moments(&b.values));
    let (na, nb) = (a.values.len(), b.values.len());
    let (own, basis) = if na + nb >= 3 {
        let df = na + nb - 2;
        let se = ((ssa + ssb) / df as f64 * (1.0 / na as f64 + 1.0 / nb as f64)).sqrt();
        (t975(df) * se, Basis::Repeats)
    } else {
        match (seconds_variance(&a.seconds), seconds_variance(&b.seconds)) {
            (Some((va, da)), Some((vb, db))) => {
                let pooled = (va * da as f64 + vb * db as f64) / (da + db) as f64;
                let se = (pooled * (1.0 / a.seconds.len() as f64 + 1.0 / b.seconds.len() as f64)).sqrt();
                (t975(da + db) * se, Basis::Timeline)
            }
            _ => (0.0, Basis::FloorOnly),
        }
    };
    let seen = if basis == Basis::Repeats { floor.drift } else { floor.sigma };
    let floor_half = floor.quantile * seen * std::f64::consts::SQRT_2;
    let half = own.hypot(floor_half);
    let d = mb - ma;
    Some(Ratio { ratio: d.exp(), lo: (d - half).exp(), hi: (d + half).exp(), half, floor_half, basis })
}

/// The logarithm of `b / a`, the geometric means of their values; `None` when a side is not usable.
pub fn log_ratio(a: &Sample, b: &Sample) -> Option<f64> {
    (a.usable() && b.usable()).then(|| log_moments(&b.values).0 - log_moments(&a.values).0)
}

/// The ratio `b / a` of two runs of one plan, its interval from the
/// variance between such runs (`between`, measured on A/A pairs of the same
/// plan, whose points had these repeats too): nothing assumed. `None` when a
/// side is not usable.
pub fn ratio_between_runs(a: &Sample, b: &Sample, between: &super::between::BetweenRuns) -> Option<Ratio> {
    let d = log_ratio(a, b)?;
    let half = between.half();
    Some(Ratio { ratio: d.exp(), lo: (d - half).exp(), hi: (d + half).exp(), half, floor_half: 0.0, basis: Basis::BetweenRuns })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::quantile::Z975;

    fn floor(sigma: f64) -> Floor {
        Floor { sigma, drift: sigma, quantile: Z975 }
    }

    #[test]
    fn t_quantiles_fall_towards_the_normal_one() {
        assert_eq!((t975(1), t975(4), t975(30)), (12.706, 2.776, 2.042));
        assert!((t975(31) - 2.040).abs() < 0.001 && (t975(120) - 1.980).abs() < 0.001, "{} {}", t975(31), t975(120));
        assert!(t975(0).is_infinite());
    }

    #[test]
    fn the_interval_widens_as_repeats_get_fewer() {
        let f = floor(0.0);
        let five = level(&Sample::new(vec![100.0, 104.0, 96.0, 102.0, 98.0], vec![]), f).unwrap();
        let two = level(&Sample::new(vec![100.0, 104.0], vec![]), f).unwrap();
        assert!(two.hi / two.lo > 2.0 * five.hi / five.lo - 1.0, "two repeats {two:?}, five {five:?}");
        assert!(two.lo < 100.0 && two.hi > 104.0, "{two:?}");
        assert_eq!((five.basis, five.n), (Basis::Repeats, 5));
    }

    #[test]
    fn the_floor_widens_a_tight_interval_and_shrinks_with_repeats_within_a_run() {
        let tight = Sample::new(vec![100.0, 100.1, 99.9], vec![]);
        let bare = level(&tight, floor(0.0)).unwrap();
        let floored = level(&tight, floor(0.05)).unwrap();
        assert!(bare.hi / bare.lo < 1.01 && floored.hi / floored.lo > 1.10, "{bare:?} {floored:?}");
        let one = level(&Sample::new(vec![100.0], vec![]), floor(0.05)).unwrap();
        assert_eq!(one.basis, Basis::FloorOnly);
        assert!(((one.hi / 100.0).ln() - Z975 * 0.05).abs() < 1e-9, "{one:?}");
    }

    #[test]
    fn one_repeat_takes_its_spread_from_its_seconds() {
        let steady = level(&Sample::new(vec![1000.0], vec![1000.0, 1010.0, 990.0, 1000.0]), floor(0.0)).unwrap();
        let bumpy = level(&Sample::new(vec![1000.0], vec![600.0, 1400.0, 700.0, 1300.0]), floor(0.0)).unwrap();
        assert_eq!(steady.basis, Basis::Timeline);
        assert!(steady.hi / steady.lo < 1.05 && bumpy.hi / bumpy.lo > 1.5, "{steady:?} {bumpy:?}");
    }

    #[test]
    fn a_ratio_across_runs_carries_two_floors_whatever_the_repeats() {
        let a = Sample::new(vec![100.0, 100.0, 100.0, 100.0, 100.0], vec![]);
        let b = Sample::new(vec![110.0, 110.0, 110.0, 110.0, 110.0], vec![]);
        let r = ratio(&a, &b, floor(0.05)).unwrap();
        assert!((r.ratio - 1.1).abs() < 1e-9 && (r.half - Z975 * 0.05 * 2f64.sqrt()).abs() < 1e-9, "{r:?}");
        assert!(r.lo < 1.0, "10% is within two floors of 5%: {r:?}");
        assert!(ratio(&a, &b, floor(0.02)).unwrap().lo > 1.0);
        let repeat_noise = Floor { sigma: 0.05, drift: 0.01, quantile: Z975 };
        let r = ratio(&a, &b, repeat_noise).unwrap();
        assert!(r.lo > 1.0 && (r.floor_half - Z975 * 0.01 * 2f64.sqrt()).abs() < 1e-9, "repeats see the rest of the floor: {r:?}");
        let single = ratio(&Sample::new(vec![100.0], vec![]), &Sample::new(vec![110.0], vec![]), repeat_noise).unwrap();
        assert!(single.lo < 1.0 && (single.half - Z975 * 0.05 * 2f64.sqrt()).abs() < 1e-9, "one repeat each sees none of it: {single:?}");
    }

    #[test]
    fn a_single_repeat_borrows_the_other_sides_spread() {
        let r = ratio(&Sample::new(vec![100.0], vec![]), &Sample::new(vec![50.0, 52.0, 48.0], vec![]), floor(0.01)).unwrap();
        assert_eq!(r.basis, Basis::Repeats);
        assert!(r.lo > 0.4 && r.hi < 0.65, "{r:?}");
        let timeline = ratio(&Sample::new(vec![100.0], vec![99.0, 101.0, 100.0]), &Sample::new(vec![50.0], vec![50.0, 49.0, 51.0]), floor(0.01));
        assert_eq!(timeline.unwrap().basis, Basis::Timeline);
        let bare = ratio(&Sample::new(vec![100.0], vec![]), &Sample::new(vec![50.0], vec![]), floor(0.01)).unwrap();
        assert_eq!((bare.basis, bare.half), (Basis::FloorOnly, bare.floor_half));
    }

    #[test]
    fn zeros_and_empty_samples_have_no_interval() {
        let f = floor(0.05);
        assert!(level(&Sample::new(vec![], vec![]), f).is_none());
        assert!(level(&Sample::new(vec![0.0, 5.0], vec![]), f).is_none());
        assert!(ratio(&Sample::new(vec![0.0, 1.0], vec![]), &Sample::new(vec![1.0, 1.0], vec![]), f).is_none());
    }
}
