//! What an interval allows one to say: a verdict on the ratio of two runs
//! (`concur compare`), and the ranks of several levels within one run (the
//! report's rankings), ties where the intervals overlap. One place for
//! both, so that a rule on what may be ordered holds everywhere.

use super::interval::{Level, Ratio};
use serde::Serialize;

/// How far a ratio's half-width may exceed what the machine's noise alone
/// would give before the repeats are called too scattered to decide.
pub const CANNOT_TELL: f64 = 2.0;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The interval lies entirely on the better side of 1.
    Faster,
    Slower,
    /// The interval holds 1 and is about as narrow as the machine's noise
    /// makes it: a difference, if any, is below the noise.
    WithinNoise,
    /// The interval holds 1 but is more than twice as wide as the machine's
    /// noise makes it (the repeats scatter), or there is no interval (a
    /// value of 0): the data cannot decide; more repeats may.
    CannotTell,
}

impl Verdict {
    pub fn text(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::WithinNoise => "within noise",
            Verdict::CannotTell => "cannot tell",
        }
    }
}

/// The verdict on `b / a`; `higher_is_better` for throughput, not for latency.
pub fn verdict(ratio: Option<&Ratio>, higher_is_better: bool) -> Verdict {
    let Some(r) = ratio else { return Verdict::CannotTell };
    if r.lo > 1.0 || r.hi < 1.0 {
        return if (r.lo > 1.0) == higher_is_better { Verdict::Faster } else { Verdict::Slower };
    }
    if r.half > CANNOT_TELL * r.expected_half { Verdict::CannotTell } else { Verdict::WithinNoise }
}

/// A place in a ranking.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    /// 1 for the best; a level tied with the one ranked just above it shares its rank.
    pub rank: usize,
    /// Another level shares this rank.
    pub tied: bool,
}

/// One thing to rank: the value it is ordered by (higher is better) and its interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ranked<'a> {
    pub name: &'a str,
    pub estimate: f64,
    pub level: Level,
}

/// Whether two levels, `upper` ordered above `lower`, cannot be told
/// apart: their intervals overlap. The one rule every ranking and every
/// "within noise of the best" mark uses.
pub fn tied(upper: &Level, lower: &Level) -> bool {
    upper.lo <= lower.hi && lower.lo <= upper.hi
}

/// Ranks by estimate, highest first (equal estimates by name, so the order
/// is stable); a level tied with the one just above it shares that one's
/// rank, so `1, 2, 2, 2, 5` reads "three tied for second". A chain of ties
/// shares one rank even where its ends do not overlap: ordering them would
/// order a neighbour pair the intervals cannot. `None` in, `None` out.
pub fn rank(entries: &[Option<Ranked>]) -> Vec<Option<Place>> {
    let mut order: Vec<usize> = (0..entries.len()).filter(|&i| entries[i].is_some()).collect();
    let at = |i: usize| entries[i].expect("filtered");
    order.sort_by(|&a, &b| at(b).estimate.total_cmp(&at(a).estimate).then_with(|| at(a).name.cmp(at(b).name)));
    let mut ranks = vec![0usize; order.len()];
    for pos in 0..order.len() {
        let tie = pos > 0 && tied(&at(order[pos - 1]).level, &at(order[pos]).level);
        ranks[pos] = if tie { ranks[pos - 1] } else { pos + 1 };
    }
    let mut out = vec![None; entries.len()];
    for (pos, &i) in order.iter().enumerate() {
        out[i] = Some(Place { rank: ranks[pos], tied: ranks.iter().filter(|&&r| r == ranks[pos]).count() > 1 });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::interval::Basis;
    use super::*;

    fn ratio(ratio: f64, half: f64, floor_half: f64) -> Ratio {
        Ratio { ratio, lo: ratio / half.exp(), hi: ratio * half.exp(), half, floor_half, expected_half: floor_half, basis: Basis::Repeats }
    }

    #[test]
    fn a_verdict_needs_the_whole_interval_on_one_side() {
        assert_eq!(verdict(Some(&ratio(0.7, 0.1, 0.08)), true), Verdict::Slower);
        assert_eq!(verdict(Some(&ratio(0.7, 0.1, 0.08)), false), Verdict::Faster);
        assert_eq!(verdict(Some(&ratio(1.3, 0.1, 0.08)), true), Verdict::Faster);
        assert_eq!(verdict(Some(&ratio(1.05, 0.1, 0.08)), true), Verdict::WithinNoise);
    }

    #[test]
    fn a_wide_interval_across_one_cannot_tell() {
        assert_eq!(verdict(Some(&ratio(1.2, 0.5, 0.1)), true), Verdict::CannotTell);
        assert_eq!(verdict(None, true), Verdict::CannotTell);
    }

    fn level(center: f64, spread: f64) -> Level {
        Level { n: 3, center, lo: center * (1.0 - spread), hi: center * (1.0 + spread), basis: Basis::Repeats }
    }

    #[test]
    fn overlapping_neighbours_share_a_rank_and_a_gap_breaks_the_chain() {
        let (slow, b, a, fast) = (level(11.0, 0.1), level(100.0, 0.04), level(102.0, 0.04), level(200.0, 0.01));
        let entries = [
            Some(Ranked { name: "slow", estimate: 11.0, level: slow }),
            Some(Ranked { name: "b", estimate: 100.0, level: b }),
            Some(Ranked { name: "a", estimate: 102.0, level: a }),
            Some(Ranked { name: "fast", estimate: 200.0, level: fast }),
            None,
        ];
        let places: Vec<Option<(usize, bool)>> = rank(&entries).iter().map(|p| p.map(|p| (p.rank, p.tied))).collect();
        assert_eq!(places, [Some((4, false)), Some((2, true)), Some((2, true)), Some((1, false)), None]);
    }

    #[test]
    fn a_chain_of_overlaps_is_one_tie() {
        let entries: Vec<Option<Ranked>> =
            [("x", 100.0), ("y", 92.0), ("z", 85.0)].iter().map(|&(name, v)| Some(Ranked { name, estimate: v, level: level(v, 0.05) })).collect();
        let ranks: Vec<usize> = rank(&entries).iter().map(|p| p.unwrap().rank).collect();
        assert_eq!(ranks, [1, 1, 1], "x and z do not overlap, but y overlaps both");
    }
}
