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

/// P(T ≤ t) for Student's t with `df` degrees of freedom (above 0; past
/// 10⁷, or infinite, the normal's): the p-values of the tests a verdict
/// corrects for multiplicity (`multiple::holm`), through the regularized
/// incomplete beta function, P(|T| > t) = I_{df/(df+t²)}(df/2, 1/2).
pub fn t_cdf(t: f64, df: f64) -> f64 {
    if t.is_nan() || df.is_nan() || df <= 0.0 {
        return f64::NAN;
    }
    if t.is_infinite() {
        return if t > 0.0 { 1.0 } else { 0.0 };
    }
    let tail = if df > 1e7 { 0.5 * erfc(t.abs() / std::f64::consts::SQRT_2) } else { 0.5 * incomplete_beta(df / 2.0, 0.5, df / (df + t * t)) };
    if t > 0.0 { 1.0 - tail } else { tail }
}

/// The complementary error function for x ≥ 0 (Numerical Recipes' erfcc,
/// Chebyshev fit, relative error below 1.2·10⁻⁷).
fn erfc(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.5 * x);
    let poly = -x * x - 1.265_512_23
        + t * (1.000_023_68 + t * (0.374_091_96 + t * (0.096_784_18 + t * (-0.186_288_06 + t * (0.278_868_07 + t * (-1.135_203_98 + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    t * poly.exp()
}

/// I_x(a, b), the regularized incomplete beta function, by its continued
/// fraction (modified Lentz), on whichever side of the mean converges.
fn incomplete_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let front = (ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln()).exp();
    if x < (a + 1.0) / (a + b + 2.0) { front * beta_fraction(a, b, x) / a } else { 1.0 - front * beta_fraction(b, a, 1.0 - x) / b }
}

fn beta_fraction(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let mut c = 1.0;
    let mut d = 1.0 - (a + b) * x / (a + 1.0);
    d = 1.0 / if d.abs() < TINY { TINY } else { d };
    let mut h = d;
    for m in 1..300 {
        let m = f64::from(m);
        for aa in [m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m)), -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0))] {
            d = 1.0 + aa * d;
            d = 1.0 / if d.abs() < TINY { TINY } else { d };
            c = 1.0 + aa / c;
            c = if c.abs() < TINY { TINY } else { c };
            h *= d * c;
        }
        if (d * c - 1.0).abs() < 1e-14 {
            break;
        }
    }
    h
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7, nine coefficients).
fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    let x = x - 1.0;
    let t = x + 7.5;
    let sum = G.iter().skip(1).enumerate().fold(G[0], |acc, (i, g)| acc + g / (x + i as f64 + 1.0));
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_t_distribution_matches_its_tables() {
        // t975 is the 97.5% point: the CDF there is 0.975 at every tabled df.
        for df in [1usize, 2, 3, 5, 10, 30, 60] {
            assert!((t_cdf(t975(df), df as f64) - 0.975).abs() < 2e-4, "df {df}: {}", t_cdf(t975(df), df as f64));
        }
        assert!((t_cdf(0.0, 4.0) - 0.5).abs() < 1e-12);
        assert!((t_cdf(-1.0, 1.0) - 0.25).abs() < 1e-9, "Cauchy: {}", t_cdf(-1.0, 1.0));
        assert!((t_cdf(Z975, f64::INFINITY) - 0.975).abs() < 1e-6);
        assert!((t_cdf(-3.0, 1e9) - 0.001_349_9).abs() < 1e-6);
        assert_eq!((t_cdf(f64::INFINITY, 3.0), t_cdf(f64::NEG_INFINITY, 3.0)), (1.0, 0.0));
        assert!((ln_gamma(5.0) - 24f64.ln()).abs() < 1e-10 && (ln_gamma(0.5) - std::f64::consts::PI.sqrt().ln()).abs() < 1e-10);
    }
}
