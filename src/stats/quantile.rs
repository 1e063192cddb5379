//! The quantiles an interval needs, apart from both the intervals
//! (`interval`) and the noise floor (`noise`) that use them: the normal
//! 97.5% point, and Student's t at few degrees of freedom, where repeats
//! (1-5) and calibrations (about 30) live.

/// The 97.5% quantile of Student's t with `df` degrees of freedom (the
/// two-sided 95% one); `df` 0 has none and gives infinity.
pub fn t975(df: usize) -> f64 {
    const TABLE: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
        2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::INFINITY,
        1..=30 => TABLE[df - 1],
        _ => {
            // Cornish-Fisher expansion around the normal quantile: within 0.001 past 30.
            let (z, v) = (Z975, df as f64);
            z + (z.powi(3) + z) / (4.0 * v) + (5.0 * z.powi(5) + 16.0 * z.powi(3) + 3.0 * z) / (96.0 * v * v)
        }
    }
}

/// The normal 97.5% quantile.
pub const Z975: f64 = 1.959_964;
