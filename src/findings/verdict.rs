//! The verdict on one claim, from the statistics the report's rankings and
//! `concur compare` already use (`stats::interval`, `stats::verdict`): an
//! order (`greater`, `less`, `order`, `peak`) holds when the two intervals
//! do not overlap and lie the claimed way round (`verdict::tied`, the
//! ranking's rule), fails when they lie the other way, and cannot be told
//! while they overlap; a ratio (`about`, `ratio`) is compare's interval of
//! A/B (`interval::ratio`), and a value (`within`) a ranking cell's level,
//! each inside or outside the claimed range; a gain from more cores is the
//! ratio of one implementation's two core counts. A claim holds when every
//! pair it names holds at every core count it names; one pair that fails
//! makes it fail, one that cannot be told makes it undecided, and a pair
//! with no data is said, with the command that would measure it.

use super::claims::{Claim, Compare, PeakAt, Predicate, Side, Subject, Test};
use super::samples::{At, Got, Measured, Results};
use crate::stats::interval::{self, Basis, Level, Ratio};
use crate::stats::verdict::{CANNOT_TELL, tied};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Holds,
    DoesNotHold,
    /// The intervals overlap where an order is needed, or are too wide (too few repeats) or too scattered to place.
    CannotTell,
    /// The run lacks a side of the claim: not measured, failed to build, every repeat failed.
    NotMeasured,
    /// This machine cannot test it (spec/findings.toml's `untestable`).
    Untestable,
}

impl Kind {
    pub fn text(self) -> &'static str {
        match self {
            Kind::Holds => "holds",
            Kind::DoesNotHold => "does not hold",
            Kind::CannotTell => "cannot tell",
            Kind::NotMeasured => "not measured",
            Kind::Untestable => "not testable here",
        }
    }
}

/// One figure a verdict stands on: a side's level, or a ratio, with its 95% interval.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    /// `go-nethttp@2`, `ruby-rack/ruby-rails@2`, `erlang@2 pairs=16`.
    pub label: String,
    pub level: Level,
    /// `req/s`, `ms`, `×` for a ratio.
    pub unit: &'static str,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub kind: Kind,
    /// Why, in a sentence: what failed, what overlaps, what is missing and the command that would measure it.
    pub why: String,
    pub figures: Vec<Figure>,
    /// What the reader must know about the data: failed repeats, a saturated generator, a side missing from a verdict that holds.
    pub notes: Vec<String>,
}

/// One pair (or side) judged at one core count.
struct Outcome {
    kind: Kind,
    why: String,
}

impl Outcome {
    fn new(kind: Kind, why: impl Into<String>) -> Outcome {
        Outcome { kind, why: why.into() }
    }
}

/// The verdict on `claim` from `results`.
pub fn judge(claim: &Claim, results: &Results) -> Verdict {
    match &claim.test {
        Test::Untestable(reason) => Verdict { kind: Kind::Untestable, why: reason.clone(), figures: Vec::new(), notes: Vec::new() },
        Test::Measure(p) => Judge::new(p, results).run(),
    }
}

/// A predicate being judged, and what it has gathered.
struct Judge<'a> {
    p: &'a Predicate,
    results: &'a Results,
    level: Option<String>,
    figures: Vec<Figure>,
    notes: Vec<String>,
}

impl<'a> Judge<'a> {
    fn new(p: &'a Predicate, results: &'a Results) -> Judge<'a> {
        let level = match &p.subject {
            Subject::Http { scenario, level } => results.level(scenario, level.as_deref(), &p.a.iter().chain(&p.b).collect::<Vec<_>>()),
            Subject::Micro { .. } => None,
        };
        Judge { p, results, level, figures: Vec::new(), notes: Vec::new() }
    }

    fn run(mut self) -> Verdict {
        let cores = if self.p.cores.is_empty() { self.results.cores(&self.p.subject, self.level.as_deref()) } else { self.p.cores.clone() };
        let none = self.results.none_of(&self.p.subject, &self.names());
        let outcomes = match (&self.p.compare, cores.as_slice()) {
            _ if none.is_some() => vec![Outcome::new(Kind::NotMeasured, none.unwrap_or_default())],
            (_, []) => vec![Outcome::new(Kind::NotMeasured, format!("the results hold no {}", self.subject_text()))],
            (Compare::ScalesBetter, [from, to]) => self.scaling(*from, *to),
            _ => cores.iter().flat_map(|&k| self.at_cores(k)).collect(),
        };
        let (kind, why, partial) = combine(outcomes);
        let why = if kind == Kind::NotMeasured { format!("{why}; `{}` would measure it", self.command()) } else { why };
        self.notes.extend(partial.into_iter().map(|p| format!("partial: {p}")));
        Verdict { kind, why, figures: self.figures, notes: self.notes }
    }

    fn subject_text(&self) -> String {
        match &self.p.subject {
            Subject::Http { scenario, .. } => format!("{scenario} point{}", self.level.as_ref().map_or(String::new(), |l| format!(" at {l}"))),
            Subject::Micro { bench, .. } => format!("{bench} result"),
        }
    }

    /// The implementations the claim names, each once, in order.
    fn names(&self) -> Vec<&'a str> {
        let mut names: Vec<&str> = Vec::new();
        for s in self.p.a.iter().chain(&self.p.b) {
            if !names.contains(&s.implementation.as_str()) {
                names.push(&s.implementation);
            }
        }
        names
    }

    /// The command that measures this claim's points.
    fn command(&self) -> String {
        let names = self.names();
        match &self.p.subject {
            Subject::Http { scenario, .. } => {
                let mut cores: Vec<u32> = self.p.cores.iter().copied().chain(self.p.a.iter().chain(&self.p.b).filter_map(|s| s.cores)).collect();
                cores.sort_unstable();
                cores.dedup();
                let cores = if cores.is_empty() { String::new() } else { format!(" --cores {}", cores.iter().map(u32::to_string).collect::<Vec<_>>().join(",")) };
                format!("concur run --profile findings --impl {} --scenario {scenario}{cores}", names.join(","))
            }
            Subject::Micro { bench, .. } => format!("concur micro --profile findings --bench {bench} {}", names.join(" ")),
        }
    }

    /// A side's measurements, its figure recorded and its notes kept; `Err` says why there are none.
    fn side(&mut self, side: &Side, at: &At) -> Result<(Measured, Figure), String> {
        match self.results.get(&self.p.subject, self.level.as_deref(), self.p.metric, side, at) {
            Got::Missing(why) => Err(why),
            Got::Measured(m) => {
                let cores = side.cores.unwrap_or(at.cores);
                let sweep = at.sweep.map_or(String::new(), |(k, v)| format!(" {k}={v}"));
                let label = format!("{}@{cores}{sweep}", side.implementation);
                let level = match m.bounds {
                    Some((lo, hi)) => Some(Level { n: m.sample.values.len(), center: lo, lo, hi, basis: Basis::Repeats }),
                    None => interval::level(&m.sample, m.floor),
                };
                let Some(level) = level else { return Err(format!("{label} has no interval (a value of 0)")) };
                let figure = Figure { label, level, unit: self.p.metric.unit() };
                self.keep(figure.clone(), &m.notes);
                Ok((m, figure))
            }
        }
    }

    fn keep(&mut self, figure: Figure, notes: &[String]) {
        if !self.figures.iter().any(|f| f.label == figure.label) {
            self.figures.push(figure);
        }
        for n in notes {
            if !self.notes.contains(n) {
                self.notes.push(n.clone());
            }
        }
    }

    /// Every pair the comparison names at `cores`.
    fn at_cores(&mut self, cores: u32) -> Vec<Outcome> {
        let p = self.p;
        let at = At { cores, sweep: None };
        let mut out = Vec::new();
        match &p.compare {
            Compare::Greater | Compare::Less | Compare::About(_) | Compare::Ratio(..) => {
                for a in &p.a {
                    for b in &p.b {
                        out.push(self.pair(a, b, &at));
                    }
                }
            }
            Compare::Order => out.extend(p.a.windows(2).map(|w| self.pair(&w[0], &w[1], &at)).collect::<Vec<_>>()),
            Compare::Within(lo, hi) => out.extend(p.a.iter().map(|a| self.within(a, &at, *lo, *hi)).collect::<Vec<_>>()),
            Compare::Peak { over, at: peak } => out.extend(p.a.iter().map(|a| self.peak(a, cores, over, *peak)).collect::<Vec<_>>()),
            Compare::ScalesBetter => {}
        }
        out
    }

    /// A against B: an order, or their ratio in a range.
    fn pair(&mut self, a: &Side, b: &Side, at: &At) -> Outcome {
        let (ma, fa) = match self.side(a, at) {
            Ok(x) => x,
            Err(why) => return Outcome::new(Kind::NotMeasured, why),
        };
        let (mb, fb) = match self.side(b, at) {
            Ok(x) => x,
            Err(why) => return Outcome::new(Kind::NotMeasured, why),
        };
        match self.p.compare {
            Compare::Greater | Compare::Order => above(&fa, &fb),
            Compare::Less => above(&fb, &fa),
            Compare::About(t) => self.ratio(&ma, &mb, &fa, &fb, 1.0 / (1.0 + t), 1.0 + t),
            Compare::Ratio(lo, hi) => self.ratio(&ma, &mb, &fa, &fb, lo, hi),
            _ => unreachable!("pairs are judged for orders and ratios only"),
        }
    }

    /// A/B by compare's interval, inside [lo, hi] or not.
    fn ratio(&mut self, ma: &Measured, mb: &Measured, fa: &Figure, fb: &Figure, lo: f64, hi: f64) -> Outcome {
        let label = format!("{}/{}", fa.label, fb.label);
        let Some(r) = interval::ratio(&mb.sample, &ma.sample, ma.floor) else { return Outcome::new(Kind::CannotTell, format!("{label} has no interval")) };
        self.keep(Figure { label: label.clone(), level: ratio_level(&r), unit: "×" }, &[]);
        range(&label, r.lo, r.hi, lo, hi, r.half > CANNOT_TELL * r.expected_half)
    }

    fn within(&mut self, a: &Side, at: &At, lo: f64, hi: f64) -> Outcome {
        match self.side(a, at) {
            Ok((_, f)) => range(&f.label, f.level.lo, f.level.hi, lo, hi, false),
            Err(why) => Outcome::new(Kind::NotMeasured, why),
        }
    }

    /// The swept value where `a` should peak, against every other value measured.
    fn peak(&mut self, a: &Side, cores: u32, over: &str, peak: PeakAt) -> Outcome {
        let Subject::Micro { bench, .. } = &self.p.subject else { unreachable!("peak claims are micro claims (claims::peak)") };
        let target = match peak {
            PeakAt::Cores => u64::from(cores),
            PeakAt::Value(v) => v,
        };
        let values = self.results.sweep(bench, over, &a.implementation, a.cores.unwrap_or(cores));
        if !values.contains(&target) {
            return Outcome::new(Kind::NotMeasured, format!("{} at {cores} core(s) has no {bench} result at {over}={target}", a.implementation));
        }
        let mut figures = Vec::new();
        for v in values {
            if let Ok((_, f)) = self.side(a, &At { cores, sweep: Some((over, v)) }) {
                figures.push((v, f));
            }
        }
        let Some((_, top)) = figures.iter().find(|(v, _)| *v == target).cloned() else {
            return Outcome::new(Kind::NotMeasured, format!("{}@{cores} {over}={target} has no usable result", a.implementation));
        };
        if let Some((_, f)) = figures.iter().find(|(v, f)| *v != target && f.level.lo > top.level.hi) {
            return Outcome::new(Kind::DoesNotHold, format!("{} is above {}", f.label, top.label));
        }
        match figures.iter().find(|(v, f)| *v != target && tied(&top.level, &f.level)) {
            Some((_, f)) => Outcome::new(Kind::CannotTell, format!("the intervals of {} and {} overlap", top.label, f.label)),
            None => Outcome::new(Kind::Holds, ""),
        }
    }

    /// Every A's gain from `from` to `to` cores against every B's.
    fn scaling(&mut self, from: u32, to: u32) -> Vec<Outcome> {
        let p = self.p;
        let gain = |j: &mut Self, s: &Side| -> Result<Figure, String> {
            let (m1, f1) = j.side(s, &At { cores: from, sweep: None })?;
            let (m2, _) = j.side(s, &At { cores: to, sweep: None })?;
            let r = interval::ratio(&m1.sample, &m2.sample, m1.floor).ok_or_else(|| format!("{} has no interval", f1.label))?;
            let figure = Figure { label: format!("{} {to}/{from} cores", s.implementation), level: ratio_level(&r), unit: "×" };
            j.keep(figure.clone(), &[]);
            Ok(figure)
        };
        let mut out = Vec::new();
        for a in &p.a {
            for b in &p.b {
                out.push(match (gain(self, a), gain(self, b)) {
                    (Ok(ga), Ok(gb)) => above(&ga, &gb),
                    (Err(why), _) | (_, Err(why)) => Outcome::new(Kind::NotMeasured, why),
                });
            }
        }
        out
    }
}

/// A ratio as a level, so that figures and ties treat both alike.
fn ratio_level(r: &Ratio) -> Level {
    Level { n: 0, center: r.ratio, lo: r.lo, hi: r.hi, basis: r.basis }
}

/// `x` above `y`: their intervals apart, the ranking's rule (`verdict::tied`).
fn above(x: &Figure, y: &Figure) -> Outcome {
    if tied(&x.level, &y.level) {
        Outcome::new(Kind::CannotTell, format!("the intervals of {} and {} overlap", x.label, y.label))
    } else if x.level.center > y.level.center {
        Outcome::new(Kind::Holds, "")
    } else {
        Outcome::new(Kind::DoesNotHold, format!("{} is above {}", y.label, x.label))
    }
}

/// An interval [ilo, ihi] against the claimed range [lo, hi].
fn range(label: &str, ilo: f64, ihi: f64, lo: f64, hi: f64, scattered: bool) -> Outcome {
    let shown = format!("{label} [{}–{}]", short(ilo), short(ihi));
    if ilo >= lo && ihi <= hi {
        Outcome::new(Kind::Holds, "")
    } else if ihi < lo || ilo > hi {
        Outcome::new(Kind::DoesNotHold, format!("{shown} lies outside {}–{}", short(lo), short(hi)))
    } else if scattered {
        Outcome::new(Kind::CannotTell, format!("{shown}: the repeats scatter more than this machine's noise explains"))
    } else if ihi / ilo.max(f64::MIN_POSITIVE) > hi / lo.max(f64::MIN_POSITIVE) {
        Outcome::new(Kind::CannotTell, format!("{shown} is wider than {}–{}: too few repeats for this noise", short(lo), short(hi)))
    } else {
        Outcome::new(Kind::CannotTell, format!("{shown} straddles an end of {}–{}", short(lo), short(hi)))
    }
}

/// A number as the sentences show it: three significant digits.
pub fn short(v: f64) -> String {
    match v.abs() {
        x if x >= 100.0 => format!("{v:.0}"),
        x if x >= 10.0 => format!("{v:.1}"),
        _ => format!("{v:.2}"),
    }
}

/// The claim's verdict from its pairs': one failing pair fails it, one
/// undecided pair leaves it undecided, pairs with data decide it and those
/// without are said (`partial`); with no data at all, not measured.
fn combine(outcomes: Vec<Outcome>) -> (Kind, String, Vec<String>) {
    let whys = |kind: Kind| -> Vec<String> {
        let mut v: Vec<String> = outcomes.iter().filter(|o| o.kind == kind && !o.why.is_empty()).map(|o| o.why.clone()).collect();
        v.dedup();
        v
    };
    let has = |kind: Kind| outcomes.iter().any(|o| o.kind == kind);
    for kind in [Kind::DoesNotHold, Kind::CannotTell] {
        if has(kind) {
            return (kind, whys(kind).join("; "), whys(Kind::NotMeasured));
        }
    }
    if has(Kind::Holds) {
        return (Kind::Holds, String::new(), whys(Kind::NotMeasured));
    }
    (Kind::NotMeasured, whys(Kind::NotMeasured).join("; "), Vec::new())
}

#[cfg(test)]
#[path = "verdict_tests.rs"]
mod tests;
