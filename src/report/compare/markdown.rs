//! The comparison as Markdown, rendered from its serde value alone: the
//! runs, how the intervals were made, what may explain a change, a table
//! per scenario, the summary, then failed points and points in one run only.

use super::types::{Change, Comparison, PointId, RunSide, Tally};
use crate::report::model::{KNOWN_MARK, distinct};
use crate::report::table::{Table, ms, rate};
use crate::stats::interval::Basis;

/// The points listed by name under "only in A/B" before the rest are only counted.
const LISTED: usize = 12;

pub fn markdown(c: &Comparison) -> String {
    let mut out = format!("# Concur compare: run {} (A) → run {} (B)\n\n", c.a.id, c.b.id);
    let run = |s: &RunSide| format!("run {}, profile {}, started {} ({})", s.id, s.profile, s.started_at, s.status.as_str());
    out += &format!("A: {}. B: {}.", run(&c.a), run(&c.b));
    out += match (c.a.by_default, c.b.by_default) {
        (true, true) => " B is the latest run with points and A the one before it: the defaults (`concur compare RUN_A RUN_B` names others).",
        (false, true) => " B is the latest run with points: the default (`concur compare RUN_A RUN_B` names another).",
        _ => "",
    };
    out += &format!("\n\n{}\n\n", how(c));
    if let Some(n) = c.repeats_used {
        out += &format!("Only the first {n} repeat(s) of each point are used (`--repeats {n}`).\n\n");
    }
    if !c.drift.warnings.is_empty() {
        out += "## Before reading the verdicts\n\n";
        for w in &c.drift.warnings {
            out += &format!("- {w}\n");
        }
        out += "\n";
    }
    if !c.differences.is_empty() {
        out += "## The runs differ\n\nA change below may come from these rather than from the runtime:\n\n";
        for d in &c.differences {
            let subject = d.subject.as_ref().map_or(String::new(), |s| format!(" of {s}"));
            out += &format!("- {}{subject}: {} (A), {} (B)\n", d.what, d.a, d.b);
        }
        out += "\n";
    }
    out += "## Points measured in both runs\n\n";
    for scenario in distinct(c.points.iter().map(|p| p.point.scenario.as_str())) {
        out += &table(c, scenario).markdown();
    }
    if c.points.iter().any(|p| p.known_deviations_a || p.known_deviations_b) {
        out += &format!("{KNOWN_MARK}: measured with known deviations from the contract in run A, B or both (its concur.toml's [known_failures]; `concur report --run ID` shows them).\n\n");
    }
    out += &format!("Summary: req/s {}; p99 {}.\n\n", tally(&c.summary.throughput), tally(&c.summary.p99_ms));
    out += &leftovers(c);
    out.trim_end().to_string() + "\n"
}

/// How every interval was made, with the floor it carries.
fn how(c: &Comparison) -> String {
    format!(
        "Each change is B/A − 1 of the geometric means over repeats, with a {:.0}% interval of two parts added in quadrature: the \
         repeats' own spread (Student's t over both runs' repeats pooled, on logarithms, so it widens as repeats get fewer) and this \
         machine's noise floor ({}), counted once for each run and not shrinking with repeats, since a run's repeats share its stretch \
         of time on the machine. With one repeat in each run, the spread is that of its seconds (¹), and for p99, which has no \
         per-second values, the floor's alone (²). faster or slower: the interval lies entirely on one side of 0 (for p99 latency a \
         drop is faster); within noise: it holds 0 and is no wider than twice the floor's part; cannot tell: it holds 0 but the \
         repeats scatter wider (or a value is 0), so more repeats may decide, or a run has one repeat of the point, which gives no \
         verdict (its one measurement holds none of the variance between runs; the interval is shown).",
        c.coverage * 100.0,
        c.floor.describe()
    )
}

/// Failed repeats, and points in one run only.
fn leftovers(c: &Comparison) -> String {
    let mut out = String::new();
    if !c.failed.is_empty() {
        out += "## Failed repeats, not compared\n\n";
        for f in &c.failed {
            out += &format!("- {}: {} r{}: {}\n", f.run.to_uppercase(), f.point.label(), f.repeat, f.error);
        }
        out += "\n";
    }
    for (name, only) in [("A", &c.only_in_a), ("B", &c.only_in_b)] {
        if !only.is_empty() {
            let mut names: Vec<String> = only.iter().take(LISTED).map(PointId::label).collect();
            if only.len() > LISTED {
                names.push(format!("and {} more", only.len() - LISTED));
            }
            out += &format!("Only in {name}: {} point(s): {}.\n\n", only.len(), names.join(", "));
        }
    }
    out
}

fn table(c: &Comparison, scenario: &str) -> Table {
    let header = ["implementation", "cores", "level", "A req/s", "B req/s", "req/s change [95%]", "req/s verdict", "A p99 ms", "B p99 ms", "p99 change [95%]", "p99 verdict"];
    let mut t = Table::new(scenario, &header).text_column(2).text_column(6).text_column(10);
    for p in c.points.iter().filter(|p| p.point.scenario == scenario) {
        let name = &p.point.implementation;
        let label = if p.known_deviations_a || p.known_deviations_b { format!("{name} {KNOWN_MARK}") } else { name.clone() };
        let (x, y) = (&p.throughput, &p.p99_ms);
        t.row(vec![
            label,
            p.point.cores.to_string(),
            p.point.level.clone(),
            rate(x.a_median),
            rate(x.b_median),
            percent(x),
            x.verdict.text().into(),
            ms(y.a_median),
            ms(y.b_median),
            percent(y),
            y.verdict.text().into(),
        ]);
    }
    t
}

/// `-30.0% [-31.2%, -28.9%]`, marked ¹ or ² when one repeat's seconds or the floor alone made it; `—` without a ratio.
pub fn percent(c: &Change) -> String {
    let pct = |r: f64| format!("{:+.1}%", (r - 1.0) * 100.0);
    let mark = match c.basis {
        Some(Basis::Timeline) => "¹",
        Some(Basis::FloorOnly) => "²",
        _ => "",
    };
    match (c.ratio, c.ratio_low, c.ratio_high) {
        (Some(r), Some(lo), Some(hi)) => format!("{} [{}, {}]{mark}", pct(r), pct(lo), pct(hi)),
        _ => "—".into(),
    }
}

fn tally(t: &Tally) -> String {
    format!("{} faster, {} slower, {} within noise, {} cannot tell", t.faster, t.slower, t.within_noise, t.cannot_tell)
}
