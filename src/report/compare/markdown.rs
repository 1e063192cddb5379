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

/// How every interval was made: from the A/A pairs of the runs' plan, or the floor; and how a verdict is decided.
fn how(c: &Comparison) -> String {
    let decide = format!(
        "faster or slower: the interval lies entirely past ±{:.0}% on one side (for p99 latency a drop is faster); the same: it lies \
         entirely within ±{:.0}% (an equivalence test); cannot tell: neither (a change too small for the interval, scatter, a value of \
         0), or a run has one repeat of the point, which gives no verdict (its one measurement holds none of the variance between \
         runs; the interval is shown).",
        crate::stats::verdict::THRESHOLD * 100.0,
        crate::stats::verdict::EQUIVALENCE * 100.0
    );
    let floor = format!(
        "the repeats' own spread (Student's t over both runs' repeats pooled, on logarithms, so it widens as repeats get fewer) and \
         this machine's noise floor ({}), counted once for each run and not shrinking with repeats, since a run's repeats share its \
         stretch of time on the machine. With one repeat in each run, the spread is that of its seconds (¹), and for p99, which has \
         no per-second values, the floor's alone (²)",
        c.floor.describe()
    );
    let measured = match &c.between_runs {
        Some(aa) => {
            let pairs: Vec<String> = aa.pairs.iter().map(|[x, y]| format!("{x} and {y}")).collect();
            let groups: Vec<String> = aa.groups.iter().map(|g| format!("{} {} ±{:.1}% (σ, {:.0} df)", g.scenario, if g.metric == "throughput" { "req/s" } else { "p99" }, g.between.sigma * 100.0, g.between.df)).collect();
            let provisional = if aa.provisional { format!(" Fewer than {} pairs: every verdict from them is marked provisional, and may change as more are run.", super::between::SETTLED) } else { String::new() };
            format!(
                "Where the database holds A/A pairs of this plan (two runs of one commit, toolchains and machine; here {} pair(s): runs {}), \
                 a change's {:.0}% interval is the variance between two runs of the plan they measured, per scenario and metric ({}), with \
                 Student's t at its degrees of freedom; nothing is assumed.{provisional} Elsewhere it has two parts added in quadrature: {floor}.",
                aa.pairs.len(),
                pairs.join(", "),
                c.coverage * 100.0,
                groups.join("; ")
            )
        }
        None => format!(
            "The database holds no A/A pair of this plan (two more runs of one commit on this machine; `concur run` the same plan twice \
             to measure the variance between runs, three pairs to settle it), so each interval has two parts added in quadrature: {floor}."
        ),
    };
    format!("Each change is B/A − 1 of the geometric means over repeats. {measured} {decide}")
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
            verdict(x),
            ms(y.a_median),
            ms(y.b_median),
            percent(y),
            verdict(y),
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

/// The verdict, marked when provisional (fewer than three A/A pairs).
fn verdict(c: &Change) -> String {
    format!("{}{}", c.verdict.text(), if c.provisional { " (provisional)" } else { "" })
}

fn tally(t: &Tally) -> String {
    format!("{} faster, {} slower, {} the same, {} cannot tell", t.faster, t.slower, t.same, t.cannot_tell)
}
