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
//! residuals of the two-way fit (its block effects weighted toward the rows
//! that scatter least, so that one erratic row does not spread its scatter
//! into the others'), one variance per row, each moderated
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

use super::quantile::{t975, t_cdf};
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
    /// The variance its measurements' resolution alone gives one logarithm.
    floor: f64,
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

/// A quantity on the logarithmic scale (a row's mean, the difference of two
/// rows, a difference of differences) with the variance of its estimate and
/// that variance's degrees of freedom: what a test on it needs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Effect {
    pub log: f64,
    pub var: f64,
    pub df: f64,
}

impl Effect {
    /// From a 95% interval [lo, hi] known only as such (one measurement's
    /// interval of its seconds and the machine's floor): normal, its centre
    /// the interval's on the logarithmic scale.
    pub fn from_interval(lo: f64, hi: f64) -> Effect {
        let (l, h) = (lo.ln(), hi.ln());
        Effect { log: (l + h) / 2.0, var: ((h - l) / (2.0 * super::quantile::Z975)).powi(2), df: f64::INFINITY }
    }

    /// `self − other` for two independent estimates (Welch–Satterthwaite degrees of freedom).
    pub fn minus(&self, other: &Effect) -> Effect {
        let var = self.var + other.var;
        let parts = |e: &Effect| if e.var > 0.0 { e.var.powi(2) / e.df } else { 0.0 };
        let df = if var > 0.0 && parts(self) + parts(other) > 0.0 { var.powi(2) / (parts(self) + parts(other)) } else { self.df.min(other.df) };
        Effect { log: self.log - other.log, var, df }
    }

    /// Half-width of its 95% interval.
    pub fn half(&self) -> f64 {
        let t = if self.df.is_finite() { t975(self.df.floor().max(1.0) as usize) } else { super::quantile::Z975 };
        t * self.var.sqrt()
    }

    /// The 95% interval on the ratio scale.
    pub fn lo(&self) -> f64 {
        (self.log - self.half()).exp()
    }
    pub fn hi(&self) -> f64 {
        (self.log + self.half()).exp()
    }
    pub fn ratio(&self) -> f64 {
        self.log.exp()
    }

    /// One-sided p-value for "the true value lies below `bound`" (a
    /// logarithm): small when the estimate lies well below it.
    pub fn p_below(&self, bound: f64) -> f64 {
        self.p(self.log - bound)
    }

    /// One-sided p-value for "the true value lies above `bound`".
    pub fn p_above(&self, bound: f64) -> f64 {
        self.p(bound - self.log)
    }

    /// P(T ≤ gap / se): an exact figure (no variance) is certain either way.
    fn p(&self, gap: f64) -> f64 {
        if self.var > 0.0 {
            t_cdf(gap / self.var.sqrt(), self.df.max(1.0))
        } else if gap < 0.0 {
            0.0
        } else {
            1.0
        }
    }
}

/// One measurement of a block design: a row's value in one block.
#[derive(Debug, Clone, PartialEq)]
pub struct Measurement {
    pub row: String,
    /// The block (a round; a repeat's number).
    pub block: u32,
    pub value: f64,
    /// The events it was counted from (`Row::counts`); 0 when unknown.
    pub count: u64,
    pub lower_bound: bool,
}

/// The rows of a design from its measurements: rows in the order first seen,
/// blocks in ascending order of their numbers (a block with no measurement
/// of a row is `None` there), a row a lower bound when any of its
/// measurements is. `None` with fewer than two blocks: no residual to
/// estimate a variance from.
pub fn rows(measurements: &[Measurement]) -> Option<Vec<Row>> {
    let mut blocks: Vec<u32> = measurements.iter().map(|m| m.block).collect();
    blocks.sort_unstable();
    blocks.dedup();
    if blocks.len() < 2 {
        return None;
    }
    let mut rows: Vec<Row> = Vec::new();
    for m in measurements {
        let i = match rows.iter().position(|r| r.name == m.row) {
            Some(i) => i,
            None => {
                rows.push(Row { name: m.row.clone(), values: vec![None; blocks.len()], counts: vec![0; blocks.len()], lower_bound: false });
                rows.len() - 1
            }
        };
        let b = blocks.binary_search(&m.block).unwrap_or_default();
        rows[i].values[b] = Some(m.value).filter(|v| *v > 0.0 && v.is_finite());
        rows[i].counts[b] = m.count;
        rows[i].lower_bound |= m.lower_bound;
    }
    Some(rows)
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
    let floors: Vec<f64> = rows.iter().map(resolution).collect();
    let own_of = |residuals: &[Vec<Option<f64>>]| -> Vec<(f64, f64)> {
        (0..rows.len())
            .map(|k| {
                let n = logs[k].iter().flatten().count();
                // Each row's share of the residual degrees of freedom (balanced: (B−1)(I−1)/I).
                let nu = (n.saturating_sub(1)) as f64 * (used_rows as f64 - 1.0) / used_rows as f64;
                let ss: f64 = residuals[k].iter().flatten().map(|r| r * r).sum();
                (if nu > 0.0 { (ss / nu).max(floors[k]) } else { floors[k] }, nu)
            })
            .collect()
    };
    // Least squares first; then the blocks' effects again with each row weighted by how little it
    // scatters (at most as much as the median row), twice.
    let mut weights = vec![1.0; rows.len()];
    let mut own = own_of(&two_way_residuals(&logs, blocks, &weights));
    for _ in 0..2 {
        let mut vars: Vec<f64> = own.iter().filter(|o| o.1 > 0.0).map(|o| o.0).collect();
        if vars.is_empty() {
            break;
        }
        vars.sort_by(f64::total_cmp);
        let typical = vars[vars.len() / 2];
        weights = own.iter().map(|&(s2, _)| if s2 > typical && s2 > 0.0 { typical / s2 } else { 1.0 }).collect();
        own = own_of(&two_way_residuals(&logs, blocks, &weights));
    }
    let (prior_df, prior_var) = prior(&own);
    let fitted = rows
        .iter()
        .zip(logs)
        .zip(own.iter().zip(&floors))
        .map(|((row, logs), (&(s2, nu), &floor))| {
            let (var, row_df) = if prior_df.is_infinite() { (prior_var, df) } else { ((prior_df * prior_var + nu * s2) / (prior_df + nu), (prior_df + nu).min(df)) };
            Fitted { logs, var: var.max(floor), df: row_df, floor, lower_bound: row.lower_bound }
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

/// Residuals of `row + block` fitted on the observed cells by alternating
/// passes (exact for complete data after one): a row's effect the mean of
/// its values less their blocks', a block's the mean over rows of their
/// values less the rows', each row weighted by `weights`. With equal weights
/// this is least squares; `fit` then weighs a row that scatters more than
/// the median row down by as much (its inverse variance, capped at the
/// median's): one row that stalls now and then would otherwise move every
/// block's mean, and its scatter spread into every other row's residuals (a
/// quarter of it each among four rows), making them all look as noisy as it.
fn two_way_residuals(logs: &[Vec<Option<f64>>], blocks: usize, weights: &[f64]) -> Vec<Vec<Option<f64>>> {
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
            let seen: Vec<(f64, f64)> = logs.iter().enumerate().filter_map(|(k, l)| l[b].map(|y| (y - row_eff[k], weights[k]))).collect();
            let total: f64 = seen.iter().map(|s| s.1).sum();
            if total > 0.0 {
                let new = seen.iter().map(|(v, w)| v * w).sum::<f64>() / total;
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
        let (e, blocks) = self.paired(a, b)?;
        Some(Difference { log_ratio: e.log, half: e.half(), df: e.df, blocks })
    }

    /// `ln a − ln b` averaged over their common blocks (the blocks' part
    /// cancels), with its variance and degrees of freedom, and how many
    /// blocks they share.
    pub fn paired(&self, a: &str, b: &str) -> Option<(Effect, usize)> {
        let (ra, rb) = (&self.rows[self.index(a)?], &self.rows[self.index(b)?]);
        let pairs: Vec<f64> = ra.logs.iter().zip(&rb.logs).filter_map(|(x, y)| Some((*x)? - (*y)?)).collect();
        if pairs.is_empty() {
            return None;
        }
        let n = pairs.len() as f64;
        let (va, vb) = (ra.var / n, rb.var / n);
        // Welch–Satterthwaite: each variance carries its own degrees of freedom.
        let df = if va + vb > 0.0 { ((va + vb).powi(2) / (va.powi(2) / ra.df + vb.powi(2) / rb.df)).min(self.df) } else { self.df };
        Some((Effect { log: pairs.iter().sum::<f64>() / n, var: va + vb, df }, pairs.len()))
    }

    /// A row's mean logarithm over its blocks, with the variance of that
    /// mean from its own moderated scatter (the blocks' shared part left
    /// out, as in `level`).
    pub fn mean(&self, name: &str) -> Option<Effect> {
        let row = &self.rows[self.index(name)?];
        let logs: Vec<f64> = row.logs.iter().flatten().copied().collect();
        if logs.is_empty() {
            return None;
        }
        let n = logs.len() as f64;
        Some(Effect { log: logs.iter().sum::<f64>() / n, var: row.var / n, df: row.df })
    }

    /// A row's mean logarithm with the variance of its own measurements
    /// about it, block effects included (none removed, nothing pooled),
    /// held to their resolution: an absolute level (a value claimed to lie
    /// in a range), which the rounds' drift moves as much as the row's own
    /// scatter. `None` with fewer than two measurements.
    pub fn own(&self, name: &str) -> Option<Effect> {
        let row = &self.rows[self.index(name)?];
        let logs: Vec<f64> = row.logs.iter().flatten().copied().collect();
        let n = logs.len() as f64;
        if logs.len() < 2 {
            return None;
        }
        let mean = logs.iter().sum::<f64>() / n;
        let var = (logs.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / (n - 1.0)).max(row.floor);
        Some(Effect { log: mean, var: var / n, df: n - 1.0 })
    }

    /// Whether a row's measurements are lower bounds (the load generator was the limit).
    pub fn lower_bound(&self, name: &str) -> bool {
        self.index(name).is_some_and(|i| self.rows[i].lower_bound)
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
        let m = self.mean(name)?;
        Some((m.ratio(), m.lo(), m.hi()))
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
