//! "At a glance", the report's first section: a picture per scenario and
//! core count (`dots`), how orders and ties are decided (folded in the
//! HTML), then for each scenario and core count the implementations ranked
//! by median throughput with its 95% interval (the repeats' spread and the
//! machine's noise floor; ranks and ties are `model`'s), their p99 latency
//! beside it, and one sentence per core count written from those numbers:
//! who leads and by how much, which are tied, who is last, how far p99
//! ranges. A sentence states an order only between ranks the intervals
//! separate, and a ratio with the least the intervals allow. Nothing here
//! is written per run by hand.

use super::block::Block;
use super::dots;
use super::model::{Cell, Group, Model, cores_text};
use super::table::{Table, ms_bounded, rate, thousands};
use super::tables::flags;
use crate::stats::blocks::Design;
use crate::stats::interval::{Basis, Level};

/// Core counts side by side in one table; more continue in another table.
const CORES_PER_TABLE: usize = 3;

/// How to read the section: how orders and ties were decided, by blocks where the run has
/// them, else by intervals carrying the machine's floor.
fn how_to_read(model: &Model) -> String {
    let with_blocks = model.groups.iter().any(|g| !g.designs.is_empty());
    let without = model.groups.iter().any(|g| g.cores.iter().any(|&k| g.design(k).is_none()));
    let mut text = String::from(
        "Each scenario's implementations ranked by median successful requests per second over repeats, at each server core count. ",
    );
    if with_blocks {
        text.push_str(&format!(
            "The run measured them in blocks: rounds over every implementation of a scenario, in an order that changes from round \
             to round, so that a drift of the machine falls on all of them alike. An implementation's figure is then the geometric \
             mean of its rounds, the centre of its interval and what the decisions compare. Two implementations are ordered when the 95% \
             interval of their difference, taken round by round (the drift cancels), lies wholly beyond ±{:.0}%; otherwise the data \
             cannot tell them apart, and each implementation's rank is the range those decisions allow (3–5: below the two decided \
             above it, above every one decided below it). The variance of a difference comes from this run's own rounds: each \
             implementation's scatter about the fit of implementation and round, moderated toward its group's pool (no assumed \
             floor). [a–b] is an implementation's own 95% interval over its rounds; two intervals may overlap and their difference \
             still be decided, since the difference leaves the rounds' shared drift out. A measurement the load generator limited \
             (⚠) is a lower bound: ordered above what it beats, never below. ",
            crate::stats::blocks::THRESHOLD * 100.0
        ));
    }
    if without {
        text.push_str(&format!(
            "{}[a–b] is a 95% interval of two parts added in quadrature: the repeats' own spread (Student's t on the logarithms of the \
             repeats) and this machine's noise floor ({}), which shrinks as 1/√repeats. An interval marked ¹ comes from one repeat: the \
             spread of its seconds and the floor; ² from the floor alone. Where two such intervals overlap the data cannot order the two. ",
            if with_blocks { "Where a scenario has a single round, " } else { "" },
            model.floor.describe()
        ));
    }
    text.push_str(
        "p99 is the median over repeats of each \
         repeat's 99th-percentile latency, counting the requests still unanswered when a measurement ended as lasting at least \
         their age (Kaplan–Meier): \"> x\" is a percentile only known to be at least x, because it falls among unanswered \
         requests, and such a p99 never ranks above a known one. The sentences are written by concur report from the same numbers, and name an order or \
         a ratio only where the data decide it (\"at least\": the near end of the interval of the difference).",
    );
    text
}

/// The section, or nothing when the run holds no measured point.
pub fn blocks(model: &Model) -> Vec<Block> {
    if model.groups.is_empty() {
        return vec![];
    }
    let mut doc = vec![Block::Heading(2, "At a glance".into())];
    doc.extend(pictures(model));
    doc.push(Block::Details { summary: "How orders and ties are decided".into(), open: false, body: vec![Block::Para(how_to_read(model))] });
    for g in &model.groups {
        doc.push(Block::Heading(3, g.title()));
        doc.push(Block::List(g.cores.iter().map(|&k| sentence(model, g, k)).collect()));
        for chunk in g.cores.chunks(CORES_PER_TABLE) {
            doc.push(Block::Table(table(model, g, chunk)));
        }
    }
    doc
}

/// One picture per scenario and core count, and how to read them.
fn pictures(model: &Model) -> Vec<Block> {
    let mut charts: Vec<Block> = model.groups.iter().flat_map(|g| g.cores.iter().filter_map(|&k| dots::ranking(model, g, k))).map(Block::Chart).collect();
    if !charts.is_empty() {
        charts.push(Block::ChartKey(dots::KEY.into()));
    }
    charts
}

/// ` [39,800–42,100]`, marked ¹ when one repeat's seconds and the floor made it, ² when the floor alone did.
pub fn interval(level: &Level) -> String {
    let mark = match level.basis {
        Basis::Repeats | Basis::Blocks | Basis::BetweenRuns => "",
        Basis::Timeline => "¹",
        Basis::FloorOnly => "²",
    };
    format!(" [{}–{}]{mark}", rate(level.lo), rate(level.hi))
}

/// The ranking at `cores` (up to [`CORES_PER_TABLE`] of them), rows in the order of the last.
fn table(model: &Model, g: &Group, cores: &[u32]) -> Table {
    let mut header = vec!["implementation", "model"];
    for _ in cores {
        header.extend(["rank", "req/s [95% interval]", "p99 ms"]);
    }
    let last = cores.last().copied().unwrap_or_default();
    let title = if cores.len() == g.cores.len() {
        format!("{}: ranking", g.title())
    } else {
        format!("{}: ranking at {}", g.title(), cores.iter().map(|&k| cores_text(k)).collect::<Vec<_>>().join(", "))
    };
    let note = format!(
        "Rows in the order of the ranking at {}. ⚠: the load generator, not the server, was saturated in that many repeats; \
         ✗: repeats that could not be measured.",
        cores_text(last)
    );
    let mut t = Table::new(title, &header).labels(2).note(model.noted(&note)).group("", 2).unfolded();
    for &k in cores {
        t = t.group(cores_text(k), 3);
    }
    let mut names: Vec<&String> = model.measured.iter().filter(|n| cores.iter().any(|&k| g.cell(n, k).is_some())).collect();
    // By median at the last core count (the ranking's order: ranked cells first), then the same at the core counts before.
    let key = |name: &String, k: u32| g.cell(name, k).map_or((usize::MAX, 0.0), |c| (c.rank.map_or(usize::MAX, |_| 0), c.estimate()));
    names.sort_by(|a, b| {
        cores.iter().rev().map(|&k| (key(a, k), key(b, k))).map(|(x, y)| x.0.cmp(&y.0).then(y.1.total_cmp(&x.1))).find(|o| o.is_ne()).unwrap_or(a.cmp(b))
    });
    for name in names {
        let concurrency = model.palette.model(name).map_or("—", |m| m.as_str());
        let mut row = vec![model.label(name), concurrency.to_string()];
        for &k in cores {
            match g.cell(name, k) {
                Some(c) => {
                    row.push(c.rank_text());
                    let level = c.level.map_or(String::new(), |l| interval(&l));
                    row.push(c.throughput.map_or("—".into(), |_| format!("{}{level}", rate(c.estimate()))) + &flags(c));
                    row.push(c.p99_ms.map_or("—".into(), |s| ms_bounded(s.median, c.p99_bound)));
                }
                None => row.extend(["—".to_string(), "—".to_string(), "—".to_string()]),
            }
        }
        t.row(row);
    }
    t
}

/// One sentence about one scenario at one core count, from its numbers.
pub fn sentence(model: &Model, g: &Group, k: u32) -> String {
    let ranked = g.ranked(k);
    let label = |c: &Cell| model.label(&c.implementation);
    let at = format!("{} at {}", g.title(), cores_text(k));
    let mut parts = Vec::new();
    match ranked.as_slice() {
        [] => return format!("{at}: no implementation could be measured."),
        [only] => parts.push(format!("only {} was measured, at {} req/s{}", label(only), rate(only.estimate()), only.level.map_or(String::new(), |l| interval(&l)))),
        _ => parts.extend(order(&ranked, g.design(k), &label)),
    }
    parts.extend(g.design(k).and_then(|d| decided(&ranked, d)));
    parts.extend(p99_range(&ranked, &label));
    parts.extend(ranked.iter().filter_map(|c| left_waiting(c, &label)));
    let saturated: Vec<String> = ranked.iter().filter(|c| c.saturated > 0).map(|c| label(c)).collect();
    if !saturated.is_empty() {
        parts.push(format!("⚠ the load generator was the limit for {} (see Warnings)", names(&saturated)));
    }
    let failed: Vec<String> = g.cells.iter().filter(|c| c.cores == k && c.rank.is_none()).map(label).collect();
    if !failed.is_empty() {
        parts.push(format!("{} could not be measured", names(&failed)));
    }
    format!("{at}: {}.", parts.join("; "))
}

/// `its 3 rounds order 118 of the 124 pairs whose medians differ 1.5× or more, 140 of 153 in all`:
/// how much the data decide, for a reader to weigh the ties by.
fn decided(ranked: &[&Cell], design: &Design) -> Option<String> {
    use crate::stats::blocks::Decision;
    let (mut all, mut ordered, mut far, mut far_ordered) = (0, 0, 0, 0);
    for (i, a) in ranked.iter().enumerate() {
        for b in &ranked[i + 1..] {
            let (hi, lo) = (a.median_throughput().max(b.median_throughput()), a.median_throughput().min(b.median_throughput()));
            let is_ordered = matches!(design.decide(&a.implementation, &b.implementation, 0.0), Decision::Above | Decision::Below);
            all += 1;
            ordered += usize::from(is_ordered);
            if lo > 0.0 && hi / lo >= 1.5 {
                far += 1;
                far_ordered += usize::from(is_ordered);
            }
        }
    }
    (all > 1).then(|| format!("its {} rounds order {far_ordered} of the {far} pairs whose medians differ 1.5× or more, {ordered} of {all} in all", design.blocks))
}

/// `p99 ranges from 1.2 ms (a) to > 6,000 ms (b)`: a p99 known only as a lower bound
/// comes after every known one, whatever its value.
fn p99_range(ranked: &[&Cell], label: &dyn Fn(&Cell) -> String) -> Option<String> {
    let p99: Vec<(&Cell, (bool, f64))> = ranked.iter().filter_map(|c| c.p99_key().map(|k| (*c, k))).collect();
    let order = |a: &(bool, f64), b: &(bool, f64)| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1));
    let (l, lk) = *p99.iter().min_by(|a, b| order(&a.1, &b.1))?;
    let (h, hk) = *p99.iter().max_by(|a, b| order(&a.1, &b.1))?;
    let show = |(bound, v): (bool, f64)| format!("{} ms", ms_bounded(v, bound));
    Some(match p99.len() {
        1 => format!("p99 {}", show(lk)),
        _ if show(lk) == show(hk) => format!("p99 is {} for every one", show(lk)),
        _ => format!("p99 ranges from {} ({}) to {} ({})", show(lk), label(l), show(hk), label(h)),
    })
}

/// `rust-threadpool left 744 of its 1,000 clients waiting longer than any answered request (up to 6.0 s)`.
fn left_waiting(c: &Cell, label: &dyn Fn(&Cell) -> String) -> Option<String> {
    let (n, oldest_us) = c.waiting?;
    let clients = c.points.iter().map(|p| p.connections).max().unwrap_or_default();
    Some(format!(
        "{} left {} of its {} clients waiting longer than any answered request (up to {:.1} s)",
        label(c),
        thousands(n),
        thousands(u64::from(clients)),
        oldest_us as f64 / 1e6
    ))
}

/// Who leads, where the intervals place the others, and who is last, for
/// two or more ranked cells (in median order): an order only where the
/// intervals separate two, a ratio with the least they allow (the lower end
/// of the one over the upper end of the other).
fn order(ranked: &[&Cell], design: Option<&Design>, label: &dyn Fn(&Cell) -> String) -> Vec<String> {
    let n = ranked.len();
    let median = |c: &Cell| c.estimate();
    let span = |cells: &[&Cell]| {
        let lo = cells.iter().map(|c| median(c)).fold(f64::INFINITY, f64::min);
        let hi = cells.iter().map(|c| median(c)).fold(0.0, f64::max);
        format!("{}–{} req/s", rate(lo), rate(hi))
    };
    // The least ratio the data allow: with blocks, the near end of each pair's difference; else
    // the nearer ends of the two intervals.
    let least = |above: &[&Cell], below: &Cell| match design {
        Some(d) => above.iter().filter_map(|a| d.difference(&a.implementation, &below.implementation)).map(|x| x.lo()).fold(f64::INFINITY, f64::min),
        None => {
            let lo = above.iter().filter_map(|c| c.level).map(|l| l.lo).fold(f64::INFINITY, f64::min);
            below.level.map_or(1.0, |l| lo / l.hi)
        }
    };
    let all = |cells: &[&Cell]| names(&cells.iter().map(|c| label(c)).collect::<Vec<_>>());
    let mut parts = Vec::new();
    if ranked.iter().all(|c| c.rank == Some(1) && c.worst == n) {
        let none = if design.is_some() { "the rounds order none of them" } else { "the intervals order none of them" };
        parts.push(format!("{} are tied within the noise at {}: {none}", all(ranked), span(ranked)));
        return parts;
    }
    let leaders: Vec<&Cell> = ranked.iter().copied().filter(|c| c.rank == Some(1)).collect();
    let first = ranked[0];
    if leaders.len() == 1 {
        let second = ranked[1];
        let t = first.level.map_or(String::new(), |l| interval(&l));
        let ratio = median(first) / median(second).max(f64::MIN_POSITIVE);
        parts.push(format!("{} leads at {} req/s{t}, {} the next ({}), at least {} given the intervals", label(first), rate(median(first)), times(ratio), label(second), times(least(&leaders, second))));
    } else {
        parts.push(format!("{} could each be first, tied within the noise at {}", all(&leaders), span(&leaders)));
    }
    let last: Vec<&Cell> = ranked.iter().copied().filter(|c| c.worst == n && c.rank != Some(1)).collect();
    let middle = ranges(ranked, n);
    if !middle.is_empty() {
        parts.push(middle);
    }
    if let Some(lowest) = last.last().filter(|_| n >= 3 || last.len() > 1) {
        let whom = if leaders.len() == 1 { "the leader" } else { "the leaders" };
        let ratio = median(first) / median(lowest).max(f64::MIN_POSITIVE);
        let bound = last.iter().map(|c| least(&leaders, c)).fold(f64::INFINITY, f64::min);
        // "At least" only where the intervals put every one of them below every leader.
        let below = if bound > 1.0 { format!("{} below {whom}, at least {}", times(ratio), times(bound)) } else { format!("{} below {whom} by the medians", times(ratio)) };
        match last.as_slice() {
            [one] if one.rank == Some(n) => parts.push(format!("{} is last at {} req/s, {below}", label(one), rate(median(one)))),
            _ => parts.push(format!("{} could each be last, at {}, {below}", all(&last), span(&last))),
        }
    }
    parts
}

/// `9 more are placed only within 2 to 4 ranks each (the ranking's rank
/// column)`: the cells the intervals place neither first nor last and allow
/// more than one rank; empty when there is none.
fn ranges(ranked: &[&Cell], n: usize) -> String {
    let widths: Vec<usize> = ranked.iter().filter(|c| c.tied() && c.rank != Some(1) && c.worst != n).map(|c| c.worst + 1 - c.rank.unwrap_or(c.worst)).collect();
    let (Some(&least), Some(&most)) = (widths.iter().min(), widths.iter().max()) else { return String::new() };
    let span = if least == most { format!("{most}") } else { format!("{least} to {most}") };
    format!("{} more {} placed only within {span} ranks each (the ranking's rank column)", widths.len(), if widths.len() == 1 { "is" } else { "are" })
}

/// `a`, `a and b`, `a, b and c`; more than four: `6 implementations (a, b, c, …)`.
fn names(list: &[String]) -> String {
    match list {
        [] => String::new(),
        [one] => one.clone(),
        _ if list.len() > 4 => format!("{} implementations ({}, …)", list.len(), list[..3].join(", ")),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// `1.04×`, `1.3×`, `34×`.
fn times(ratio: f64) -> String {
    if ratio < 1.095 {
        format!("{ratio:.2}×")
    } else if ratio < 10.0 {
        format!("{ratio:.1}×")
    } else {
        format!("{ratio:.0}×")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Latencies;
    use crate::store::{PointRecord, RunData, RunInfo};

    /// A longpoll point with 1,000 clients: `answered` of them answered at 5.02 s, the rest
    /// waiting the whole 6 s, and each answered client's next poll 0.98 s old at the end.
    fn longpoll(name: &str, answered: u64) -> PointRecord {
        let (mut done, mut waiting) = (Latencies::new(), Latencies::new());
        for i in 0..answered {
            done.record_us(5_018_000 + i);
            waiting.record_us(980_000);
        }
        for _ in answered..1000 {
            waiting.record_us(6_000_000);
        }
        PointRecord {
            key: format!("{name}/longpoll/cores=2/c=1000/r1"),
            implementation: name.into(),
            scenario: "longpoll".into(),
            cores: 2,
            connections: 1000,
            level: "c=1000".into(),
            repeat: 1,
            duration_s: 6.0,
            successes: answered,
            requests: answered,
            latency: done.stats_with_unfinished(&waiting),
            unfinished_age: waiting.stats(),
            ..PointRecord::default()
        }
    }

    /// One repeat each on the default floor (intervals about 2.2× either way): d and e could
    /// be last, and d's interval reaches c's, one of the leaders; the db sentence of a fresh
    /// make bench said "at least 0.24×" for such a group.
    #[test]
    fn a_bound_the_intervals_do_not_give_is_not_said_as_at_least() {
        let run = RunInfo::starting("quick".into(), "k".into(), serde_json::json!({}), Default::default(), vec![]);
        let point = |name: &str, v: u64| PointRecord {
            key: format!("{name}/db/cores=1/c=64/r1"),
            implementation: name.into(),
            scenario: "db".into(),
            cores: 1,
            connections: 64,
            level: "c=64".into(),
            repeat: 1,
            duration_s: 1.0,
            successes: v,
            requests: v,
            ..PointRecord::default()
        };
        let points = [("a", 30_000), ("b", 20_000), ("c", 12_000), ("d", 3_000), ("e", 1_500)].iter().map(|&(n, v)| point(n, v)).collect();
        let model = Model::new(RunData { run, implementations: vec![], points }, crate::stats::noise::NoiseFloor::default_floor());
        let text = sentence(&model, &model.groups[0], 1);
        assert!(text.contains("d and e could each be last") && text.contains("below the leaders by the medians"), "{text}");
        assert!(!text.contains("at least 0."), "{text}");
    }

    /// make bench ranked rust-threadpool's longpoll p99 the best of all 18 (5,022 ms) while it
    /// left 744 of its 1,000 clients waiting: a lower bound now, after every known p99, and said.
    #[test]
    fn a_server_that_left_clients_waiting_is_never_ranked_best_on_latency() {
        let run = RunInfo::starting("quick".into(), "k".into(), serde_json::json!({}), Default::default(), vec![]);
        let points = vec![longpoll("go-nethttp", 1000), longpoll("rust-threadpool", 256)];
        let model = Model::new(RunData { run, implementations: vec![], points }, crate::stats::noise::NoiseFloor::default_floor());
        let g = &model.groups[0];
        let starved = g.cell("rust-threadpool", 2).unwrap();
        assert!(starved.p99_bound && !g.cell("go-nethttp", 2).unwrap().p99_bound);
        let text = sentence(&model, g, 2);
        assert!(text.contains("p99 ranges from 5,022 ms (go-nethttp) to > 6,001 ms (rust-threadpool)"), "{text}");
        assert!(text.contains("rust-threadpool left 744 of its 1,000 clients waiting longer than any answered request (up to 6.0 s)"), "{text}");
        assert!(!text.contains("go-nethttp left"), "its young polls in flight are not clients left waiting: {text}");
    }

    #[test]
    fn words_for_ratios_and_lists() {
        assert_eq!((times(1.0412), times(1.31), times(34.4)), ("1.04×".into(), "1.3×".into(), "34×".into()));
        let list = |n: usize| (0..n).map(|i| format!("i{i}")).collect::<Vec<_>>();
        assert_eq!((names(&list(1)), names(&list(3)), names(&list(6))), ("i0".into(), "i0, i1 and i2".into(), "6 implementations (i0, i1, i2, …)".into()));
    }
}
