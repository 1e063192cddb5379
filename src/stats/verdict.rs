//! What an interval allows one to say: a verdict on the ratio of two runs
//! (`concur compare`), and the ranks of several levels within one run (the
//! report's rankings), ties where the intervals overlap. One place for
//! both, so that a rule on what may be ordered holds everywhere.

use super::interval::{Level, Ratio};
use serde::Serialize;

/// A change smaller than this (on either side of 1) is no change: an
/// order needs the whole interval past it, as the report's rankings do
/// (`blocks::THRESHOLD`).
pub const THRESHOLD: f64 = super::blocks::THRESHOLD;
/// "The same" is an equivalence test: the whole interval within ±5%.
pub const EQUIVALENCE: f64 = 0.05;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The interval lies entirely on the better side of 1, past [`THRESHOLD`].
    Faster,
    Slower,
    /// The interval lies entirely within ±[`EQUIVALENCE`]: any change is smaller than that.
    Same,
    /// Neither: the interval is too wide to decide (a real change too small for
    /// it, or scatter), or there is no interval (a value of 0, one repeat).
    CannotTell,
}

impl Verdict {
    pub fn text(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::Same => "the same",
            Verdict::CannotTell => "cannot tell",
        }
    }
}

/// The verdict on `b / a`; `higher_is_better` for throughput, not for latency.
pub fn verdict(ratio: Option<&Ratio>, higher_is_better: bool) -> Verdict {
    let Some(r) = ratio else { return Verdict::CannotTell };
    let (up, down) = (r.lo > 1.0 + THRESHOLD, r.hi < 1.0 / (1.0 + THRESHOLD));
    if up || down {
        return if up == higher_is_better { Verdict::Faster } else { Verdict::Slower };
    }
    if r.lo >= 1.0 / (1.0 + EQUIVALENCE) && r.hi <= 1.0 + EQUIVALENCE { Verdict::Same } else { Verdict::CannotTell }
}

/// A place in a ranking: the ranks the intervals allow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    /// The best: 1 plus the levels whose intervals lie wholly above this one's.
    pub rank: usize,
    /// The worst: the levels ranked, less those whose intervals lie wholly below this one's.
    pub worst: usize,
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

/// Ranks by what the intervals allow: each level's best rank is one more
/// than the levels wholly above it, its worst the count less the levels
/// wholly below it, so `1–2, 1–3, 2–3` reads "x is first or second, z
/// second or third", and only a pair whose intervals do not overlap is
/// ordered. A chain of overlaps orders its ends (x 100 ± 5 and z 85 ± 5 are
/// two ranks apart even with y 92 ± 5 between them overlapping both), where
/// one shared rank for the chain said the data could order none of them:
/// one repeat each of 18 servers, 2,744 to 118,010 req/s, were all "=1".
/// `None` in, `None` out.
pub fn rank(entries: &[Option<Ranked>]) -> Vec<Option<Place>> {
    let levels: Vec<&Level> = entries.iter().flatten().map(|e| &e.level).collect();
    let n = levels.len();
    entries
        .iter()
        .map(|e| {
            e.map(|e| {
                let above = levels.iter().filter(|l| l.lo > e.level.hi).count();
                let below = levels.iter().filter(|l| l.hi < e.level.lo).count();
                Place { rank: above + 1, worst: n - below }
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::interval::Basis;
    use super::*;

    fn ratio(ratio: f64, half: f64) -> Ratio {
        Ratio { ratio, lo: ratio / half.exp(), hi: ratio * half.exp(), half, floor_half: half, basis: Basis::Repeats }
    }

    #[test]
    fn a_verdict_needs_the_whole_interval_on_one_side_past_the_threshold() {
        assert_eq!(verdict(Some(&ratio(0.7, 0.1)), true), Verdict::Slower);
        assert_eq!(verdict(Some(&ratio(0.7, 0.1)), false), Verdict::Faster);
        assert_eq!(verdict(Some(&ratio(1.3, 0.1)), true), Verdict::Faster);
        assert_eq!(verdict(Some(&ratio(1.015, 0.005)), true), Verdict::Same, "1% faster, surely, and less than 2%: the same");
    }

    #[test]
    fn the_same_is_an_interval_within_five_percent_and_anything_wider_cannot_tell() {
        assert_eq!(verdict(Some(&ratio(1.0, 0.04)), true), Verdict::Same);
        assert_eq!(verdict(Some(&ratio(1.0, 0.06)), true), Verdict::CannotTell, "a 6% change would hide in it");
        assert_eq!(verdict(Some(&ratio(1.05, 0.1)), true), Verdict::CannotTell);
        assert_eq!(verdict(None, true), Verdict::CannotTell);
    }

    fn level(center: f64, spread: f64) -> Level {
        Level { n: 3, center, lo: center * (1.0 - spread), hi: center * (1.0 + spread), basis: Basis::Repeats }
    }

    #[test]
    fn overlapping_neighbours_share_their_ranks_and_a_gap_orders_them() {
        let (slow, b, a, fast) = (level(11.0, 0.1), level(100.0, 0.04), level(102.0, 0.04), level(200.0, 0.01));
        let entries = [
            Some(Ranked { name: "slow", estimate: 11.0, level: slow }),
            Some(Ranked { name: "b", estimate: 100.0, level: b }),
            Some(Ranked { name: "a", estimate: 102.0, level: a }),
            Some(Ranked { name: "fast", estimate: 200.0, level: fast }),
            None,
        ];
        let places: Vec<Option<(usize, usize)>> = rank(&entries).iter().map(|p| p.map(|p| (p.rank, p.worst))).collect();
        assert_eq!(places, [Some((4, 4)), Some((2, 3)), Some((2, 3)), Some((1, 1)), None]);
    }

    #[test]
    fn a_chain_of_overlaps_orders_its_ends() {
        let entries: Vec<Option<Ranked>> =
            [("x", 100.0), ("y", 92.0), ("z", 85.0)].iter().map(|&(name, v)| Some(Ranked { name, estimate: v, level: level(v, 0.05) })).collect();
        let places: Vec<(usize, usize)> = rank(&entries).iter().map(|p| p.map(|p| (p.rank, p.worst)).unwrap()).collect();
        assert_eq!(places, [(1, 2), (1, 3), (2, 3)], "x and z do not overlap; y overlaps both");
    }
}
