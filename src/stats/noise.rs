//! The machine's noise floor: how far apart two measurements of the same
//! point land when nothing changed but the moment they were taken. The
//! repeats of one point see only the noise within their run; the drift of
//! a shared machine between runs (other tenants' compilers, CPU steal) is
//! larger and systematic (bench/RESULTS.md, verdicts), so every interval
//! carries this floor as well (`interval`). `concur calibrate` measures it
//! (A/A rounds of a small plan, interleaved) and stores it with the
//! machine; without one, a stated conservative default stands in.

use serde::Serialize;

/// One quantity's floor: the standard deviation of the logarithm of one
/// measurement, the part of it that is a whole run's (drift, which a run's
/// repeats share and cannot average away), and the quantile half-widths
/// are taken at.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Floor {
    pub sigma: f64,
    /// At most `sigma`; the rest of the variance (`sigma² − drift²`) is the
    /// repeat-to-repeat part, which repeats average.
    pub drift: f64,
    /// Student's t at the calibration's degrees of freedom (its own
    /// uncertainty); the normal quantile for the default.
    pub quantile: f64,
}

impl Floor {
    /// The half-width it adds to one measurement's interval, log scale.
    pub fn half(self) -> f64 {
        self.sigma * self.quantile
    }
}

/// The floor of both quantities a verdict is given on, and where it came from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NoiseFloor {
    /// Of successful requests per second: σ of one measurement's logarithm.
    pub throughput: f64,
    /// Its part that is a whole run's: σ of a run's level (drift between runs).
    pub throughput_drift: f64,
    /// Of the 99th-percentile latency, noisier: a few slow requests move it.
    pub p99: f64,
    pub p99_drift: f64,
    /// Degrees of freedom of the estimate (measurements less one per implementation); 0 for the default.
    pub df: usize,
    pub source: FloorSource,
}

/// Where a floor comes from.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FloorSource {
    /// No calibration of this machine: [`DEFAULT_THROUGHPUT`] and [`DEFAULT_P99`].
    Default,
    /// `concur calibrate` measured it.
    Calibrated {
        /// The calibration's run in the database (its points are the measurements).
        run_id: i64,
        /// When its rounds ended, RFC 3339.
        measured_at: String,
        rounds_planned: u32,
        /// Rounds with every implementation measured; fewer than planned when it was interrupted.
        rounds_measured: u32,
        /// Measurements the floor was estimated from.
        measurements: u32,
    },
}

/// The default floor of throughput, for a machine never calibrated: above
/// both calibrations of the shared 2-core machine of bench/RESULTS.md
/// (verdicts), taken at load averages of 10 to 15 while other helpers
/// compiled (σ 0.39 and 0.37, drift 0.20 and 0.25), rounded up.
pub const DEFAULT_THROUGHPUT: f64 = 0.40;
pub const DEFAULT_THROUGHPUT_DRIFT: f64 = 0.25;
/// The default floor of p99 latency, and its drift part (the same source:
/// σ 0.44 and 0.62, drift 0.22 and 0.31).
pub const DEFAULT_P99: f64 = 0.65;
pub const DEFAULT_P99_DRIFT: f64 = 0.35;

impl NoiseFloor {
    pub fn default_floor() -> NoiseFloor {
        NoiseFloor {
            throughput: DEFAULT_THROUGHPUT,
            throughput_drift: DEFAULT_THROUGHPUT_DRIFT,
            p99: DEFAULT_P99,
            p99_drift: DEFAULT_P99_DRIFT,
            df: 0,
            source: FloorSource::Default,
        }
    }

    pub fn is_default(&self) -> bool {
        self.source == FloorSource::Default
    }

    fn quantile(&self) -> f64 {
        if self.df == 0 { super::quantile::Z975 } else { super::quantile::t975(self.df) }
    }

    pub fn of_throughput(&self) -> Floor {
        Floor { sigma: self.throughput, drift: self.throughput_drift.min(self.throughput), quantile: self.quantile() }
    }

    pub fn of_p99(&self) -> Floor {
        Floor { sigma: self.p99, drift: self.p99_drift.min(self.p99), quantile: self.quantile() }
    }

    /// The larger of two floors (two runs compared from two machines, or
    /// two calibrations): a verdict never takes the quieter one's word.
    pub fn larger(self, other: NoiseFloor) -> NoiseFloor {
        let wider = |f: &NoiseFloor| f.of_throughput().half() + f.of_p99().half();
        if wider(&other) > wider(&self) { other } else { self }
    }

    /// The bands and where the floor comes from, for the reader.
    pub fn describe(&self) -> String {
        let how = match &self.source {
            FloorSource::Default => "the default floor (this machine has no calibration: `concur calibrate` measures it)".to_string(),
            FloorSource::Calibrated { run_id, measured_at, rounds_planned, rounds_measured, measurements } => {
                let cut = if rounds_measured < rounds_planned { format!(", interrupted after {rounds_measured} of {rounds_planned} rounds") } else { String::new() };
                format!("calibrated by run {run_id} at {measured_at} ({measurements} measurements{cut})")
            }
        };
        format!("{}, {how}", self.bands())
    }

    /// `req/s ±21.7% per measurement (a run's drift ±8.0%), p99 …`: one measurement's 95% band of each quantity, and its drift part's.
    pub fn bands(&self) -> String {
        let band = |f: Floor| format!("±{} per measurement (a run's drift ±{})", percent(f.half()), percent(f.drift * f.quantile));
        format!("req/s {}, p99 {}", band(self.of_throughput()), band(self.of_p99()))
    }
}

/// A half-width on the log scale as the percentage it reaches above 1.
pub fn percent(half: f64) -> String {
    format!("{:.1}%", (half.exp() - 1.0) * 100.0)
}

/// The drift part of a pooled σ: each group's rounds split into a first and
/// a second half (two runs in miniature), the variance of the difference of
/// their mean logarithms less what the rounds' own spread explains, halved
/// (`Var(d) = 2 σ_drift² + σ_rounds² (1/m₁ + 1/m₂)`), pooled over the
/// groups and never below 0. `None` when no group has 4 positive values.
pub fn pooled_drift(groups: &[Vec<f64>]) -> Option<f64> {
    let (mut d2, mut explained, mut n) = (0.0, 0.0, 0usize);
    let (mut ss, mut df) = (0.0, 0usize);
    for g in groups {
        let logs: Vec<f64> = g.iter().filter(|v| v.is_finite() && **v > 0.0).map(|v| v.ln()).collect();
        if logs.len() < 4 {
            continue;
        }
        let (first, second) = logs.split_at(logs.len() / 2);
        let mean = |h: &[f64]| h.iter().sum::<f64>() / h.len() as f64;
        let (m1, m2) = (mean(first), mean(second));
        d2 += (m2 - m1).powi(2);
        explained += 1.0 / first.len() as f64 + 1.0 / second.len() as f64;
        ss += first.iter().map(|l| (l - m1).powi(2)).sum::<f64>() + second.iter().map(|l| (l - m2).powi(2)).sum::<f64>();
        df += logs.len() - 2;
        n += 1;
    }
    (n > 0).then(|| ((d2 - ss / df as f64 * explained) / n as f64 / 2.0).max(0.0).sqrt())
}

/// The least share of σ taken for drift. The halves of a calibration see
/// drift only between its first and last minutes, and under heavy load the
/// rounds' scatter drowns it: on the machine of bench/RESULTS.md (verdicts)
/// the halves estimated 0 while three A/A runs ten minutes apart showed a
/// run-level σ of 0.14 beside 0.47 per measurement (0.3 of it), and the
/// issue's calm runs, tight inside, moved 10-25% between runs (near all of it).
pub const DRIFT_SHARE: f64 = 0.5;

/// The drift part of a floor of σ `sigma`: the halves' estimate, at least
/// [`DRIFT_SHARE`] of σ and at most σ; all of σ when there were too few
/// rounds to split.
pub fn drift_part(estimate: Option<f64>, sigma: f64) -> f64 {
    estimate.unwrap_or(sigma).clamp(DRIFT_SHARE * sigma, sigma)
}

/// The pooled standard deviation of logarithms over groups (one per
/// implementation: each centred on its own mean, since the implementations
/// differ by far more than the noise), with its degrees of freedom;
/// `None` when no group has two positive values.
pub fn pooled_sigma(groups: &[Vec<f64>]) -> Option<(f64, usize)> {
    let (mut ss, mut df) = (0.0, 0usize);
    for g in groups {
        let logs: Vec<f64> = g.iter().filter(|v| v.is_finite() && **v > 0.0).map(|v| v.ln()).collect();
        if logs.len() < 2 {
            continue;
        }
        let mean = logs.iter().sum::<f64>() / logs.len() as f64;
        ss += logs.iter().map(|l| (l - mean).powi(2)).sum::<f64>();
        df += logs.len() - 1;
    }
    (df > 0).then(|| ((ss / df as f64).sqrt(), df))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pooled_sigma_ignores_the_gap_between_implementations() {
        let (sigma, df) = pooled_sigma(&[vec![100.0, 110.0, 90.0], vec![10_000.0, 11_000.0, 9_000.0], vec![5.0]]).unwrap();
        assert_eq!(df, 4);
        let one = pooled_sigma(&[vec![100.0, 110.0, 90.0]]).unwrap().0;
        assert!((sigma - one).abs() < 1e-12 && (0.09..0.11).contains(&sigma), "{sigma} {one}");
        assert!(pooled_sigma(&[vec![1.0], vec![2.0, 0.0]]).is_none());
    }

    #[test]
    fn a_step_between_the_halves_is_drift_and_scatter_within_them_is_not() {
        let step = [vec![100.0, 101.0, 99.0, 120.0, 121.0, 119.0], vec![50.0, 50.5, 49.5, 60.0, 60.5, 59.5]];
        let drift = pooled_drift(&step).unwrap();
        assert!((0.10..0.16).contains(&drift), "a 20% step: {drift}");
        let scatter = [vec![100.0, 120.0, 100.0, 120.0, 100.0, 120.0], vec![50.0, 60.0, 50.0, 60.0, 50.0, 60.0]];
        assert!(pooled_drift(&scatter).unwrap() < 0.05, "{}", pooled_drift(&scatter).unwrap());
        assert!(pooled_drift(&[vec![1.0, 2.0, 3.0]]).is_none());
    }

    #[test]
    fn a_calibrated_floor_uses_t_at_its_degrees_of_freedom_and_the_default_the_normal_quantile() {
        let d = NoiseFloor::default_floor();
        assert!((d.of_throughput().half() - DEFAULT_THROUGHPUT * 1.959_964).abs() < 1e-9);
        let c = NoiseFloor { throughput: 0.05, throughput_drift: 0.02, p99: 0.1, p99_drift: 0.05, df: 4, source: FloorSource::Default };
        assert!((c.of_throughput().half() - 0.05 * 2.776).abs() < 1e-9);
        assert_eq!(c.clone().larger(d.clone()), d);
    }

    #[test]
    fn an_interrupted_calibration_says_how_much_it_measured() {
        let source = FloorSource::Calibrated { run_id: 3, measured_at: "2026-11-25T18:00:00Z".into(), rounds_planned: 8, rounds_measured: 3, measurements: 9 };
        let text = NoiseFloor { throughput: 0.05, throughput_drift: 0.02, p99: 0.2, p99_drift: 0.05, df: 6, source }.describe();
        assert!(text.contains("interrupted after 3 of 8 rounds") && text.contains("9 measurements") && text.starts_with("req/s ±"), "{text}");
        assert!(NoiseFloor::default_floor().describe().contains("`concur calibrate`"));
    }
}
