//! The verdict on one claim, from the block designs the report's rankings
//! use (`stats::blocks`): a side is a row of its group's design (every
//! implementation measured at the same point, a block a repeat's number),
//! and a pair is judged by a test on its difference, taken block by block
//! where both sides are rows of one design (the blocks' drift cancels) and
//! as two independent means otherwise (two core counts, two sweep values).
//! An order (`greater`, `less`, `order`, `peak`, `scales-better`) holds
//! where the 95% interval of the claimed-higher over the other lies wholly
//! above 1 + `blocks::THRESHOLD` (2%); a ratio (`about`, `ratio`) or a value
//! (`within`) holds where its interval lies wholly inside the claimed range
//! (an equivalence test). A claim holds when every pair it names holds at
//! every core count it names (each pair its own test: an intersection-union
//! test needs no correction); it does not hold when a pair's test refutes
//! it (the difference lies below 2%, or the ratio outside the range) at 5%
//! for the whole claim, its pairs' p-values corrected together by Holm's
//! procedure (`stats::multiple`); otherwise it cannot be told, and a pair
//! with no data is said, with the command that would measure it. A side the
//! load generator limited, or a percentile left as a lower bound, is one:
//! it may be decided above what it beats, never below. A side measured
//! once (one window, one repeat) has no design: its interval is its seconds
//! and the machine's floor, tested as a normal estimate, and without seconds
//! (a micro run, a percentile) it decides nothing; a maximum-processes
//! search's is its bounds, compared without statistics.

use super::claims::{Claim, Compare, PeakAt, Predicate, Side, Subject, Test};
use super::samples::{At, Got, Measured, Results};
use crate::stats::blocks::{Effect, THRESHOLD};
use crate::stats::interval::{self, Basis, Level};
use crate::stats::multiple::holm;

/// Each test's one-sided level: a claim is refuted at 5% two-sided, the far
/// end of the 95% intervals the figures show.
const ALPHA: f64 = 0.025;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Holds,
    DoesNotHold,
    /// The data decide neither way: an order's difference lies across 2%, a ratio's interval across an end of its range or wider than it.
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
    /// The p-value of the test that refutes the claim on this pair, and what
    /// a refutation says; it refutes only after Holm's correction over the
    /// claim's pairs (`combine`).
    refute: Option<(f64, String)>,
}

impl Outcome {
    fn new(kind: Kind, why: impl Into<String>) -> Outcome {
        Outcome { kind, why: why.into(), refute: None }
    }

    fn refutable(mut self, p: Option<f64>, why: String) -> Outcome {
        self.refute = p.map(|p| (p, why));
        self
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
                let n = m.sample.values.len();
                let level = match (&m.bounds, &m.design) {
                    (Some((lo, hi)), _) => Some(Level { n, center: *lo, lo: *lo, hi: *hi, basis: Basis::Repeats }),
                    (None, Some(g)) => g.design.level(&g.row).map(|(center, lo, hi)| Level { n, center, lo, hi, basis: Basis::Blocks }),
                    (None, None) => interval::level(&m.sample, m.floor),
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
            Compare::Peak { over, at: peak } => out.extend(p.a.iter().flat_map(|a| self.peak(a, cores, over, *peak)).collect::<Vec<_>>()),
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
        if ma.bounds.is_some() || mb.bounds.is_some() {
            return self.by_bounds(&fa, &fb);
        }
        // A/B, block by block where both are rows of one design.
        let paired = match (&ma.design, &mb.design) {
            (Some(ga), Some(gb)) if ga.group == gb.group => ga.design.paired(&ga.row, &gb.row).map(|(e, _)| e),
            _ => None,
        };
        let d = match paired {
            Some(d) => d,
            None => match (estimate(&ma, &fa), estimate(&mb, &fb)) {
                (Ok(ea), Ok(eb)) => ea.minus(&eb),
                (Err(why), _) | (_, Err(why)) => return Outcome::new(Kind::CannotTell, why),
            },
        };
        let (ba, bb) = (lower_bound(&ma), lower_bound(&mb));
        let label = format!("{}/{}", fa.label, fb.label);
        self.keep(Figure { label: label.clone(), level: effect_level(&d, paired.map_or(Basis::Repeats, |_| Basis::Blocks)), unit: "×" }, &[]);
        match self.p.compare {
            Compare::Greater | Compare::Order => order(&fa.label, &fb.label, &d, ba, bb),
            Compare::Less => order(&fb.label, &fa.label, &negate(&d), bb, ba),
            Compare::About(t) => range(&label, &d, 1.0 / (1.0 + t), 1.0 + t, ba, bb),
            Compare::Ratio(lo, hi) => range(&label, &d, lo, hi, ba, bb),
            _ => unreachable!("pairs are judged for orders and ratios only"),
        }
    }

    /// A pair one of whose sides is a search's bounds: ordered when the
    /// bounds lie apart, a ratio by its extremes, without statistics.
    fn by_bounds(&mut self, fa: &Figure, fb: &Figure) -> Outcome {
        let (a, b) = (&fa.level, &fb.level);
        match self.p.compare {
            Compare::Greater | Compare::Order => apart(fa, fb),
            Compare::Less => apart(fb, fa),
            Compare::About(t) => within_bounds(&format!("{}/{}", fa.label, fb.label), a.lo / b.hi, a.hi / b.lo, 1.0 / (1.0 + t), 1.0 + t),
            Compare::Ratio(lo, hi) => within_bounds(&format!("{}/{}", fa.label, fb.label), a.lo / b.hi, a.hi / b.lo, lo, hi),
            _ => unreachable!("pairs are judged for orders and ratios only"),
        }
    }

    fn within(&mut self, a: &Side, at: &At, lo: f64, hi: f64) -> Outcome {
        match self.side(a, at) {
            Ok((m, f)) if m.bounds.is_some() => within_bounds(&f.label, f.level.lo, f.level.hi, lo, hi),
            Ok((m, f)) => {
                // An absolute level: its own scatter, the rounds' drift included.
                match m.design.as_ref().and_then(|g| g.design.own(&g.row)).map_or_else(|| estimate(&m, &f), Ok) {
                    Ok(own) => range(&f.label, &own, lo, hi, lower_bound(&m), false),
                    Err(why) => Outcome::new(Kind::CannotTell, why),
                }
            }
            Err(why) => Outcome::new(Kind::NotMeasured, why),
        }
    }

    /// The swept value where `a` should peak, against every other value
    /// measured: each an order of the peak over it.
    fn peak(&mut self, a: &Side, cores: u32, over: &str, peak: PeakAt) -> Vec<Outcome> {
        let Subject::Micro { bench, .. } = &self.p.subject else { unreachable!("peak claims are micro claims (claims::peak)") };
        let target = match peak {
            PeakAt::Cores => u64::from(cores),
            PeakAt::Value(v) => v,
        };
        let values = self.results.sweep(bench, over, &a.implementation, a.cores.unwrap_or(cores));
        if !values.contains(&target) {
            return vec![Outcome::new(Kind::NotMeasured, format!("{} at {cores} core(s) has no {bench} result at {over}={target}", a.implementation))];
        }
        let mut sides = Vec::new();
        for v in values {
            if let Ok(side) = self.side(a, &At { cores, sweep: Some((over, v)) }) {
                sides.push((v, side));
            }
        }
        let Some((_, (mt, ft))) = sides.iter().find(|(v, _)| *v == target) else {
            return vec![Outcome::new(Kind::NotMeasured, format!("{}@{cores} {over}={target} has no usable result", a.implementation))];
        };
        sides
            .iter()
            .filter(|(v, _)| *v != target)
            .map(|(_, (m, f))| match (estimate(mt, ft), estimate(m, f)) {
                (Ok(et), Ok(e)) => order(&ft.label, &f.label, &et.minus(&e), lower_bound(mt), lower_bound(m)),
                (Err(why), _) | (_, Err(why)) => Outcome::new(Kind::CannotTell, why),
            })
            .collect()
    }

    /// Every A's gain from `from` to `to` cores against every B's.
    fn scaling(&mut self, from: u32, to: u32) -> Vec<Outcome> {
        let p = self.p;
        let gain = |j: &mut Self, s: &Side| -> Result<(Effect, String), String> {
            let (m1, f1) = j.side(s, &At { cores: from, sweep: None })?;
            let (m2, f2) = j.side(s, &At { cores: to, sweep: None })?;
            let g = estimate(&m2, &f2)?.minus(&estimate(&m1, &f1)?);
            let label = format!("{} {to}/{from} cores", s.implementation);
            j.keep(Figure { label: label.clone(), level: effect_level(&g, Basis::Repeats), unit: "×" }, &[]);
            Ok((g, label))
        };
        let mut out = Vec::new();
        for a in &p.a {
            for b in &p.b {
                out.push(match (gain(self, a), gain(self, b)) {
                    (Ok((ga, la)), Ok((gb, lb))) => order(&la, &lb, &ga.minus(&gb), false, false),
                    (Err(why), _) | (_, Err(why)) => Outcome::new(Kind::NotMeasured, why),
                });
            }
        }
        out
    }
}

/// A side's mean on the logarithmic scale: its row's in its design, else
/// (one measurement) its interval's from its seconds and the floor. One
/// measurement with no seconds (a micro-benchmark's single run, a
/// percentile) has nothing of its own to judge its scatter by: its interval
/// would be an assumed floor alone, and no verdict rests on that.
fn estimate(m: &Measured, f: &Figure) -> Result<Effect, String> {
    if let Some(e) = m.design.as_ref().and_then(|g| g.design.mean(&g.row)) {
        return Ok(e);
    }
    match f.level.basis {
        Basis::FloorOnly => Err(format!("{} is one measurement, with nothing of its own to judge its scatter by (3 repeats would)", f.label)),
        _ => Ok(Effect::from_interval(f.level.lo, f.level.hi)),
    }
}

/// Whether a side's measurements are lower bounds (the load generator was the limit, a percentile left requests unanswered).
fn lower_bound(m: &Measured) -> bool {
    m.design.as_ref().is_some_and(|g| g.design.lower_bound(&g.row))
}

fn negate(d: &Effect) -> Effect {
    Effect { log: -d.log, ..*d }
}

/// An estimate as a figure's level: its ratio and 95% interval.
fn effect_level(d: &Effect, basis: Basis) -> Level {
    Level { n: 0, center: d.ratio(), lo: d.lo(), hi: d.hi(), basis }
}

fn shown(label: &str, d: &Effect) -> String {
    format!("{label} {} [{}–{}]", short(d.ratio()), short(d.lo()), short(d.hi()))
}

/// `x` above `y` by more than the threshold, from `d` = ln(x/y): holds
/// when its interval lies wholly past 1 + THRESHOLD, and is refuted (after
/// Holm) when it lies below; `x_bound`, `y_bound`: that side is only a
/// lower bound, so a refutation (for x) or a holding (for y) cannot rest on it.
fn order(x: &str, y: &str, d: &Effect, x_bound: bool, y_bound: bool) -> Outcome {
    let t = (1.0 + THRESHOLD).ln();
    let ratio = shown(&format!("{x}/{y}"), d);
    let refuted = if d.hi() < 1.0 / (1.0 + THRESHOLD) { format!("{y} is above {x} ({ratio})") } else { format!("{x} is not above {y} by more than {:.0}% ({ratio})", THRESHOLD * 100.0) };
    let p = (!x_bound).then(|| d.p_below(t));
    if d.log - d.half() > t && !y_bound {
        Outcome::new(Kind::Holds, "").refutable(p, refuted)
    } else {
        Outcome::new(Kind::CannotTell, format!("{ratio} lies across {}: neither order decided", short(1.0 + THRESHOLD))).refutable(p, refuted)
    }
}

/// An estimate `d` (a ratio's or a value's logarithm) against the claimed
/// range [lo, hi]: holds when its interval lies wholly inside (an
/// equivalence test), is refuted (after Holm) when it lies outside.
fn range(label: &str, d: &Effect, lo: f64, hi: f64, at_least: bool, at_most: bool) -> Outcome {
    let shown = shown(label, d);
    let span = format!("{}–{}", short(lo), short(hi));
    // A lower bound on the ratio (its numerator's at least, or its denominator's at most the truth) may only be refuted above.
    let p_below = (!at_least).then(|| d.p_below(lo.ln()));
    let p_above = (!at_most).then(|| d.p_above(hi.ln()));
    let (p, refuted) = match (p_below, p_above) {
        (Some(b), Some(a)) if b <= a => (Some(b), format!("{shown} lies below {span}")),
        (Some(b), None) => (Some(b), format!("{shown} lies below {span}")),
        (_, Some(a)) => (Some(a), format!("{shown} lies above {span}")),
        (None, None) => (None, String::new()),
    };
    let kind_why = if d.lo() >= lo && d.hi() <= hi && !at_least && !at_most {
        (Kind::Holds, String::new())
    } else if d.hi() / d.lo() > hi / lo.max(f64::MIN_POSITIVE) {
        (Kind::CannotTell, format!("{shown} is wider than {span}: its measurements scatter too much for this range"))
    } else {
        (Kind::CannotTell, format!("{shown} lies across an end of {span}"))
    };
    Outcome::new(kind_why.0, kind_why.1).refutable(p, refuted)
}

/// `x` above `y` by their bounds: apart or not.
fn apart(x: &Figure, y: &Figure) -> Outcome {
    if x.level.lo > y.level.hi {
        Outcome::new(Kind::Holds, "")
    } else if y.level.lo > x.level.hi {
        Outcome::new(Kind::DoesNotHold, format!("{} is above {}", y.label, x.label))
    } else {
        Outcome::new(Kind::CannotTell, format!("the bounds of {} and {} overlap", x.label, y.label))
    }
}

/// Bounds [ilo, ihi] against the claimed range [lo, hi].
fn within_bounds(label: &str, ilo: f64, ihi: f64, lo: f64, hi: f64) -> Outcome {
    let shown = format!("{label} [{}–{}]", short(ilo), short(ihi));
    if ilo >= lo && ihi <= hi {
        Outcome::new(Kind::Holds, "")
    } else if ihi < lo || ilo > hi {
        Outcome::new(Kind::DoesNotHold, format!("{shown} lies outside {}–{}", short(lo), short(hi)))
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

/// The claim's verdict from its pairs': the pairs' refuting tests corrected
/// together (Holm, at 5% for the claim); one refuted pair fails it, one
/// undecided pair leaves it undecided, pairs with data decide it and those
/// without are said (`partial`); with no data at all, not measured.
fn combine(mut outcomes: Vec<Outcome>) -> (Kind, String, Vec<String>) {
    let tested: Vec<usize> = (0..outcomes.len()).filter(|&i| outcomes[i].refute.is_some()).collect();
    let p: Vec<f64> = tested.iter().filter_map(|&i| outcomes[i].refute.as_ref().map(|r| r.0)).collect();
    for (&i, rejected) in tested.iter().zip(holm(&p, ALPHA)) {
        let Some((p_own, why)) = outcomes[i].refute.take() else { continue };
        if rejected {
            outcomes[i].kind = Kind::DoesNotHold;
            outcomes[i].why = why;
        } else if p_own < ALPHA {
            // Alone it would refute; among the claim's tests it does not: say that, not the undecided sentence.
            outcomes[i].why = format!("{why}, but not past Holm's correction over the claim's {} tests (p = {p_own:.3})", p.len());
        }
    }
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
