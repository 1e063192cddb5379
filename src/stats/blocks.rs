//! Comparisons within one run whose measurements come in blocks: a block is
//! one round over everything a ranking compares (every implementation of a
//! scenario at one core count and load), so a drift of the machine lands on
//! every row of a block alike. On the logarithmic scale each measurement is
//! `implementation + block + error`; a difference between two rows is taken
//! from their paired values, block by block, so the block's part cancels
//! (Kalibera & Jones, "Rigorous benchmarking in reasonable time", ISMM 2013:
//! estimate the variance where it arises, by replicating that level).
//!
//! The variance comes from the data, not from an assumed floor: the
//! residuals of the two-way fit, one variance per row, each moderated
//! toward the pool of the rows by an empirical-Bayes prior whose weight the
//! rows' own scatter decides (Smyth, "Linear models and empirical Bayes
//! methods", 2004, as limma does for genes): rows that scatter alike are
//! pooled, a row that scatters more keeps most of its own. A row whose
//! blocks agree exactly (a timer-bound page, a long poll) is held to the
//! resolution of its measurement: a rate counted from N completions is
//! known to about 1/N.
//!
//! A difference is decided by a test on it, not by overlapping intervals
//! (Georges et al., OOPSLA 2007): ordered when its 95% interval lies wholly
//! past a small practical threshold, the same when it lies wholly within a
//! tolerance (an equivalence test), and "cannot tell" otherwise. A row the
//! load generator limited is a lower bound: it may be ordered above what it
//! beats, never below or level with anything.

use super::quantile::t975;
use serde::Serialize;

/// The smallest difference an order is given for: the interval's near end
/// must lie beyond ±2%, so that a real but negligible gap (two servers a
/// percent apart over thousands of requests) is not called an order.
pub const THRESHOLD: f64 = 0.02;

/// One row of a block design: one implementation's measurements, by block.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub name: String,
    /// The measurement of each block (`None`: not measured in it), above 0.
    pub values: Vec<Option<f64>>,
    /// The events each measurement was counted from (completions), for its
    /// resolution; 0 when unknown.
    pub counts: Vec<u64>,
    /// The measurement is a lower bound (the load generator was the limit).
    pub lower_bound: bool,
}

/// A fitted block design: each row's variance, moderated toward the pool.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Design {
    /// Row names, in the order given.
    pub names: Vec<String>,
    /// Blocks with at least one measurement.
    pub blocks: usize,
    /// Residual degrees of freedom of the two-way fit.
    pub df: f64,
    /// The prior's degrees of freedom (infinite: every row pooled) and variance.
    pub prior_df: f64,
    pub prior_var: f64,
    rows: Vec<Fitted>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
struct Fitted {
    logs: Vec<Option<f64>>,
    /// Moderated residual variance of one measurement's logarithm, and its degrees of freedom.
    var: f64,
    df: f64,
    lower_bound: bool,
}

/// The difference of two rows, `a` over `b`, on the logarithmic scale.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Difference {
    /// Mean over their common blocks of `ln a − ln b`.
    pub log_ratio: f64,
    /// Half-width of its 95% interval.
    pub half: f64,
    pub df: f64,
    /// Blocks both were measured in.
    pub blocks: usize,
}

impl Difference {
    pub fn ratio(&self) -> f64 {
        self.log_ratio.exp()
    }
    pub fn lo(&self) -> f64 {
        (self.log_ratio - self.half).exp()
    }
    pub fn hi(&self) -> f64 {
        (self.log_ratio + self.half).exp()
    }
}

/// What a difference allows one to say of `a` against `b`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Higher, by more than the threshold, at 95%.
    Above,
    Below,
    /// Within the tolerance either way, at 95% (an equivalence test).
    Same,
    CannotTell,
}

impl Decision {
    /// The same decision seen from the other row.
    pub fn flip(self) -> Decision {
        match self {
            Decision::Above => Decision::Below,
            Decision::Below => Decision::Above,
            other => other,
        }
    }
}

/// Decides `d` (a over b, higher is better) with the ordering `threshold`
/// and the equivalence `tolerance` (fractions, e.g. 0.02 and 0.05); a side
/// that is a lower bound is never placed below or level with the other.
pub fn decide(d: &Difference, threshold: f64, tolerance: f64, a_bound: bool, b_bound: bool) -> Decision {
    let (lo, hi) = (d.log_ratio - d.half, d.log_ratio + d.half);
    let decision = if lo > (1.0 + threshold).ln() {
        Decision::Above
    } else if hi < -(1.0 + threshold).ln() {
        Decision::Below
    } else if tolerance > 0.0 && lo > -(1.0 + tolerance).ln() && hi < (1.0 + tolerance).ln() {
        Decision::Same
    } else {
        Decision::CannotTell
    };
    match decision {
        Decision::Below | Decision::Same if a_bound => Decision::CannotTell,
        Decision::Above | Decision::Same if b_bound => Decision::CannotTell,
        other => other,
    }
}

/// Fits the two-way model to `rows` (all with the same number of blocks).
/// `None` when nothing can be estimated: fewer than two rows sharing two
/// blocks, so that no residual has a degree of freedom.
pub fn fit(rows: &[Row]) -> Option<Design> {
    let blocks = rows.iter().map(|r| r.values.len()).max()?;
    let logs: Vec<Vec<Option<f64>>> =
        rows.iter().map(|r| (0..blocks).map(|b| r.values.get(b).copied().flatten().filter(|v| v.is_finite() && *v > 0.0).map(f64::ln)).collect()).collect();
    let observed: usize = logs.iter().map(|l| l.iter().flatten().count()).sum();
    let used_rows = logs.iter().filter(|l| l.iter().flatten().count() > 0).count();
    let used_blocks = (0..blocks).filter(|&b| logs.iter().any(|l| l[b].is_some())).count();
    let df = observed as f64 - used_rows as f64 - used_blocks as f64 + 1.0;
    if df < 1.0 || used_rows < 2 {
        return None;
    }
    let residuals = two_way_residuals(&logs, blocks);
    let floors: Vec<f64> = rows.iter().map(resolution).collect();
    let own: Vec<(f64, f64)> = (0..rows.len())
        .map(|k| {
            let n = logs[k].iter().flatten().count();
            // Each row's share of the residual degrees of freedom (balanced: (B−1)(I−1)/I).
            let nu = (n.saturating_sub(1)) as f64 * (used_rows as f64 - 1.0) / used_rows as f64;
            let ss: f64 = residuals[k].iter().flatten().map(|r| r * r).sum();
            (if nu > 0.0 { (ss / nu).max(floors[k]) } else { floors[k] }, nu)
        })
        .collect();
    let (prior_df, prior_var) = prior(&own);
    let fitted = rows
        .iter()
        .zip(logs)
        .zip(own.iter().zip(&floors))
        .map(|((row, logs), (&(s2, nu), &floor))| {
            let (var, row_df) = if prior_df.is_infinite() { (prior_var, df) } else { ((prior_df * prior_var + nu * s2) / (prior_df + nu), (prior_df + nu).min(df)) };
            Fitted { logs, var: var.max(floor), df: row_df, lower_bound: row.lower_bound }
        })
        .collect();
    Some(Design { names: rows.iter().map(|r| r.name.clone()).collect(), blocks: used_blocks, df, prior_df, prior_var, rows: fitted })
}

/// The variance one measurement's logarithm has from counting alone: a rate
/// from N events is off by up to one event, 1/N relative, uniformly.
fn resolution(row: &Row) -> f64 {
    let counted: Vec<f64> = row.counts.iter().filter(|&&n| n > 0).map(|&n| 1.0 / (12.0 * (n as f64).powi(2))).collect();
    if counted.is_empty() { 0.0 } else { counted.iter().sum::<f64>() / counted.len() as f64 }
}

/// Residuals of `row + block` fitted by least squares on the observed cells
/// (alternating means, exact for complete data after one pass).
fn two_way_residuals(logs: &[Vec<Option<f64>>], blocks: usize) -> Vec<Vec<Option<f64>>> {
    let mut row_eff = vec![0.0; logs.len()];
    let mut block_eff = vec![0.0; blocks];
    for _ in 0..100 {
        let mut moved: f64 = 0.0;
        for (k, l) in logs.iter().enumerate() {
            let seen: Vec<f64> = (0..blocks).filter_map(|b| l[b].map(|y| y - block_eff[b])).collect();
            if !seen.is_empty() {
                let new = seen.iter().sum::<f64>() / seen.len() as f64;
                moved = moved.max((new - row_eff[k]).abs());
                row_eff[k] = new;
            }
        }
        for b in 0..blocks {
            let seen: Vec<f64> = logs.iter().enumerate().filter_map(|(k, l)| l[b].map(|y| y - row_eff[k])).collect();
            if !seen.is_empty() {
                let new = seen.iter().sum::<f64>() / seen.len() as f64;
                moved = moved.max((new - block_eff[b]).abs());
                block_eff[b] = new;
            }
        }
        if moved < 1e-12 {
            break;
        }
    }
    logs.iter().enumerate().map(|(k, l)| (0..blocks).map(|b| l[b].map(|y| y - row_eff[k] - block_eff[b])).collect()).collect()
}

/// The empirical-Bayes prior of the rows' variances (Smyth 2004, section 6):
/// its degrees of freedom and variance, from the mean and the spread of the
/// rows' log-variances beyond what their own degrees of freedom explain.
/// Infinite degrees of freedom: the rows scatter no more than chance, pool them.
fn prior(own: &[(f64, f64)]) -> (f64, f64) {
    let usable: Vec<(f64, f64)> = own.iter().copied().filter(|&(s2, nu)| s2 > 0.0 && nu > 0.0).collect();
    if usable.is_empty() {
        let floor = own.iter().map(|o| o.0).fold(0.0, f64::max);
        return (f64::INFINITY, floor);
    }
    let e: Vec<f64> = usable.iter().map(|&(s2, nu)| s2.ln() - digamma(nu / 2.0) + (nu / 2.0).ln()).collect();
    let g = e.len() as f64;
    let mean = e.iter().sum::<f64>() / g;
    let pooled = |mean: f64| mean.exp();
    if usable.len() < 2 {
        return (f64::INFINITY, pooled(mean));
    }
    let spread = e.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (g - 1.0) - usable.iter().map(|&(_, nu)| trigamma(nu / 2.0)).sum::<f64>() / g;
    if spread <= 0.0 {
        return (f64::INFINITY, pooled(mean));
    }
    let d0 = 2.0 * trigamma_inverse(spread);
    (d0, (mean + digamma(d0 / 2.0) - (d0 / 2.0).ln()).exp())
}

impl Design {
    fn index(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// `a` over `b` from their common blocks; `None` when they share none or a name is unknown.
    pub fn difference(&self, a: &str, b: &str) -> Option<Difference> {
        let (ra, rb) = (&self.rows[self.index(a)?], &self.rows[self.index(b)?]);
        let pairs: Vec<f64> = ra.logs.iter().zip(&rb.logs).filter_map(|(x, y)| Some((*x)? - (*y)?)).collect();
        if pairs.is_empty() {
            return None;
        }
        let n = pairs.len() as f64;
        let (va, vb) = (ra.var / n, rb.var / n);
        // Welch–Satterthwaite: each variance carries its own degrees of freedom.
        let df = if va + vb > 0.0 { ((va + vb).powi(2) / (va.powi(2) / ra.df + vb.powi(2) / rb.df)).min(self.df) } else { self.df };
        let half = t975(df.floor().max(1.0) as usize) * (va + vb).sqrt();
        Some(Difference { log_ratio: pairs.iter().sum::<f64>() / n, half, df, blocks: pairs.len() })
    }

    /// `a` against `b` at the ordering threshold and equivalence `tolerance`.
    pub fn decide(&self, a: &str, b: &str, tolerance: f64) -> Decision {
        let (Some(i), Some(j)) = (self.index(a), self.index(b)) else { return Decision::CannotTell };
        self.difference(a, b).map_or(Decision::CannotTell, |d| decide(&d, THRESHOLD, tolerance, self.rows[i].lower_bound, self.rows[j].lower_bound))
    }

    /// A row's level within this run: the geometric mean of its blocks and
    /// the 95% interval of its own scatter (the blocks' shared part left
    /// out: it falls on every row alike and cancels from every comparison).
    pub fn level(&self, name: &str) -> Option<(f64, f64, f64)> {
        let row = &self.rows[self.index(name)?];
        let logs: Vec<f64> = row.logs.iter().flatten().copied().collect();
        if logs.is_empty() {
            return None;
        }
        let mean = logs.iter().sum::<f64>() / logs.len() as f64;
        let half = t975(row.df.floor().max(1.0) as usize) * (row.var / logs.len() as f64).sqrt();
        Some((mean.exp(), (mean - half).exp(), (mean + half).exp()))
    }

    /// A row's variance of one measurement's logarithm after moderation.
    pub fn variance(&self, name: &str) -> Option<f64> {
        Some(self.rows[self.index(name)?].var)
    }
}

/// Ranks from pairwise decisions: each row's best rank is one more than the
/// rows decided above it, its worst the rows less those decided below it.
pub fn ranks(design: &Design) -> Vec<(usize, usize)> {
    let n = design.names.len();
    design
        .names
        .iter()
        .map(|a| {
            let decisions: Vec<Decision> = design.names.iter().filter(|b| *b != a).map(|b| design.decide(a, b, 0.0)).collect();
            let above = decisions.iter().filter(|d| **d == Decision::Below).count();
            let below = decisions.iter().filter(|d| **d == Decision::Above).count();
            (above + 1, n - below)
        })
        .collect()
}

/// ψ(x), the digamma function, for x > 0: recurrence up to 6, then the asymptotic series.
pub fn digamma(mut x: f64) -> f64 {
    let mut acc = 0.0;
    while x < 6.0 {
        acc -= 1.0 / x;
        x += 1.0;
    }
    let f = 1.0 / (x * x);
    acc + x.ln() - 0.5 / x - f * (1.0 / 12.0 - f * (1.0 / 120.0 - f * (1.0 / 252.0 - f * (1.0 / 240.0 - f / 132.0))))
}

/// ψ′(x), the trigamma function, for x > 0.
pub fn trigamma(mut x: f64) -> f64 {
    let mut acc = 0.0;
    while x < 6.0 {
        acc += 1.0 / (x * x);
        x += 1.0;
    }
    let f = 1.0 / (x * x);
    acc + 1.0 / x + f / 2.0 + f / x * (1.0 / 6.0 - f * (1.0 / 30.0 - f * (1.0 / 42.0 - f / 30.0)))
}

/// The x with ψ′(x) = y, for y > 0, by Newton's method on 1/ψ′ (Smyth 2004, appendix).
pub fn trigamma_inverse(y: f64) -> f64 {
    if y > 1e7 {
        return 1.0 / y.sqrt();
    }
    if y < 1e-6 {
        return 1.0 / y;
    }
    let mut x = 0.5 + 1.0 / y;
    for _ in 0..50 {
        let tri = trigamma(x);
        let step = tri * (1.0 - tri / y) / tetragamma(x);
        x += step;
        if (-step / x) < 1e-8 {
            break;
        }
    }
    x
}

/// ψ″(x), for Newton's step above.
fn tetragamma(mut x: f64) -> f64 {
    let mut acc = 0.0;
    while x < 6.0 {
        acc -= 2.0 / (x * x * x);
        x += 1.0;
    }
    let f = 1.0 / (x * x);
    acc - 1.0 / (x * x) - 1.0 / (x * x * x) - f * f * (0.5 - f * (1.0 / 6.0 - f * (1.0 / 6.0 - f * 3.0 / 10.0)))
}

#[cfg(test)]
#[path = "blocks_tests.rs"]
mod tests;
