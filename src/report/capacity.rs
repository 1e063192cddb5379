//! The report's section on capacity searches (`concur run --slo`), from the
//! run's `capacity_searches` and `capacity_steps`: per scenario and core
//! count, latency (p50, p99, p99.9) against the offered rate, one line per
//! implementation on log axes with the SLO's bound drawn (past eight
//! implementations, one small chart per concurrency model), and a table of
//! capacities with "≈" between implementations within the search's
//! precision, capacity per server core and per MiB of server memory (peak
//! RSS at the capacity's step), and why each search stopped. Absent when the
//! run holds no search, so reports of other runs are unchanged.

use super::block::Block;
use super::micro_charts::{self, Line, Spec};
use super::palette::Palette;
use super::table::{Table, mib, ms, rate};
use crate::run::slo::{self, Slo};
use crate::store::capacity::{SearchRecord, StepRecord};
use crate::store::{ImplRecord, Store};
use anyhow::Result;

/// The percentiles drawn against the offered rate.
const CURVES: [(&str, &str); 3] = [("p50", "p50"), ("p99", "p99"), ("p99.9", "p99.9")];

/// The section's blocks for run `run_id`; none when it holds no search.
pub fn section(store: &Store, run_id: i64) -> Result<Vec<Block>> {
    let searches = store.searches(run_id)?;
    if searches.is_empty() {
        return Ok(Vec::new());
    }
    let implementations = store.load_run(run_id)?.implementations;
    Ok(blocks(&searches, &implementations))
}

pub fn blocks(searches: &[SearchRecord], implementations: &[ImplRecord]) -> Vec<Block> {
    let palette = Palette::new(implementations.iter().map(|i| (i.name.as_str(), i.manifest.model)));
    let mut doc = vec![
        Block::Heading(2, "Capacity within the SLO".into()),
        Block::Para(
            "The highest open-loop rate each implementation served within the latency bound, with no errors and the rate reached \
             (concur run --slo; spec/PROFILES.md, Capacity). Each search runs on one server, warm (that of the implementation's first \
             closed-loop point at its core count, else one warmed up for it): a geometric ramp from the start rate, then bisection until the lowest failing rate is within the stated precision of the highest passing one. \
             A rate is HTTP requests per second, every step of a multi-step scenario counted; latency is taken from each request's \
             intended send time. A step whose generator was saturated is never taken as the server's limit. \
             ≈ marks capacities within the search's precision of each other: a tie."
                .into(),
        ),
    ];
    let mut groups: Vec<(&str, u32)> = Vec::new();
    for s in searches {
        if !groups.contains(&(s.scenario.as_str(), s.cores)) {
            groups.push((s.scenario.as_str(), s.cores));
        }
    }
    for (scenario, cores) in groups {
        let mine: Vec<&SearchRecord> = searches.iter().filter(|s| s.scenario == scenario && s.cores == cores).collect();
        doc.push(Block::Heading(3, format!("{scenario} at {cores} core(s)")));
        doc.push(Block::Table(table(&mine)));
        for (percentile, label) in CURVES {
            doc.extend(chart(&mine, &palette, scenario, cores, percentile, label).into_iter().map(Block::Chart));
        }
        doc.push(Block::Details { summary: format!("Every step of {scenario} at {cores} core(s)"), open: false, body: vec![Block::Table(steps(&mine))] });
    }
    doc
}

fn table(searches: &[&SearchRecord]) -> Table {
    let slos: Vec<&str> = searches.iter().map(|s| s.slo.as_str()).collect();
    let note = format!("SLO {}; precision {:.0}%.", slos.first().copied().unwrap_or(""), searches.first().map_or(0.0, |s| s.precision * 100.0));
    let mut t = Table::new(
        "Capacity",
        &["Implementation", "Capacity (req/s)", "≈", "p50 (ms)", "p99 (ms)", "p99.9 (ms)", "req/s per core", "req/s per MiB", "Failed at (req/s)", "Why it stopped", "Steps"],
    )
    .labels(1)
    .text_column(2)
    .text_column(9)
    .note(note);
    let mut sorted: Vec<&&SearchRecord> = searches.iter().collect();
    sorted.sort_by(|a, b| b.capacity.unwrap_or(-1.0).total_cmp(&a.capacity.unwrap_or(-1.0)).then(a.implementation.cmp(&b.implementation)));
    for s in sorted {
        let at = s.capacity_step();
        let lat = |p: &str| at.map_or("–".into(), |st| ms(slo::value(&st.latency, p) as f64 / 1000.0));
        let ties: Vec<&str> = searches
            .iter()
            .filter(|o| o.implementation != s.implementation && within(s.capacity, o.capacity, s.precision.max(o.precision)))
            .map(|o| o.implementation.as_str())
            .collect();
        let per_mib = match (s.capacity, at.map(|st| st.rss_peak_bytes)) {
            (Some(c), Some(rss)) if rss > 0 => rate(c / (rss as f64 / (1u64 << 20) as f64)),
            _ => "–".into(),
        };
        t.row(vec![
            s.implementation.clone(),
            s.capacity.map_or("none".into(), rate),
            if ties.is_empty() { String::new() } else { format!("≈ {}", ties.join(", ")) },
            lat("p50"),
            lat("p99"),
            lat("p99.9"),
            s.capacity.map_or("–".into(), |c| rate(c / f64::from(s.cores.max(1)))),
            per_mib,
            s.failed_rate.map_or("–".into(), rate),
            format!("{}: {}", s.status, s.reason.clone().unwrap_or_default()),
            s.steps.len().to_string(),
        ]);
    }
    t
}

/// Whether two capacities are within `precision` of each other.
fn within(a: Option<f64>, b: Option<f64>, precision: f64) -> bool {
    match (a, b) {
        (Some(a), Some(b)) if a > 0.0 && b > 0.0 => a.max(b) / a.min(b) <= 1.0 + precision,
        _ => false,
    }
}

/// One chart, or small multiples by concurrency model past `micro_charts`'s limit; the bound in each.
fn chart(searches: &[&SearchRecord], palette: &Palette, scenario: &str, cores: u32, percentile: &str, label: &str) -> Vec<String> {
    let title = format!("{scenario} at {cores} core(s): {label} against offered rate");
    let lines: Vec<Line> = searches
        .iter()
        .map(|s| {
            let mut points: Vec<(f64, f64)> = s.steps.iter().filter(|st| st.latency.count > 0).map(|st| (st.rate, slo::value(&st.latency, percentile) as f64 / 1000.0)).collect();
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            let mark = s.capacity_step().map(|st| (st.rate, slo::value(&st.latency, percentile) as f64 / 1000.0, "capacity".to_string()));
            Line { name: s.implementation.clone(), style: palette.style(&s.implementation), points, mark }
        })
        .collect();
    let xs: Vec<f64> = searches.iter().flat_map(|s| s.steps.iter().map(|st| st.rate)).collect();
    let (x_lo, x_hi) = (xs.iter().copied().fold(f64::MAX, f64::min), xs.iter().copied().fold(0.0, f64::max));
    let mut bounds = Vec::new();
    for bound in searches.first().and_then(|s| Slo::parse(&s.slo).ok()).map(|s| s.bounds).unwrap_or_default() {
        if bound.percentile == percentile && x_hi > 0.0 {
            let y = bound.limit_us as f64 / 1000.0;
            bounds.push(Line { name: format!("SLO {bound}"), style: palette.style(""), points: vec![(x_lo, y), (x_hi, y)], mark: None });
        }
    }
    let spec = Spec { title: &title, x_desc: "offered rate (req/s)", y_desc: &format!("{label} latency (ms)"), log_x: true, log_y: true, lines };
    micro_charts::by_model(&spec, palette, bounds)
}

fn steps(searches: &[&SearchRecord]) -> Table {
    let mut t = Table::new(
        "Steps",
        &["Implementation", "Step", "Rate (req/s)", "Sent (req/s)", "p50 (ms)", "p99 (ms)", "p99.9 (ms)", "max (ms)", "Errors", "Server CPU", "Generator CPU", "RSS (MiB)", "Verdict"],
    )
    .labels(1)
    .text_column(12);
    for s in searches {
        for st in &s.steps {
            t.row(step_row(&s.implementation, st));
        }
    }
    t
}

fn step_row(name: &str, st: &StepRecord) -> Vec<String> {
    let l = |us: u64| ms(us as f64 / 1000.0);
    vec![
        name.to_string(),
        st.n.to_string(),
        rate(st.rate),
        rate(st.sent_per_s),
        l(st.latency.p50_us),
        l(st.latency.p99_us),
        l(st.latency.p999_us),
        l(st.latency.max_us),
        st.errors_total.to_string(),
        format!("{:.0}%", st.server_cpu_util * 100.0),
        format!("{:.0}%{}", st.gen_cpu_util * 100.0, if st.gen_saturated { " (saturated)" } else { "" }),
        mib(st.rss_peak_bytes),
        match &st.reason {
            Some(r) => format!("{}: {r}", st.verdict),
            None => st.verdict.clone(),
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::LatencyStats;

    fn search(name: &str, capacity: Option<f64>, rss_mib: u64) -> SearchRecord {
        let step = |n, rate, p99, verdict: &str| StepRecord {
            n,
            rate,
            verdict: verdict.into(),
            rss_peak_bytes: rss_mib << 20,
            latency: LatencyStats { count: 10, p50_us: 500, p99_us: p99, p999_us: p99 * 2, ..Default::default() },
            ..Default::default()
        };
        SearchRecord {
            implementation: name.into(),
            scenario: "hello".into(),
            cores: 2,
            slo: "p99<=10ms".into(),
            precision: 0.05,
            status: "found".into(),
            capacity,
            failed_rate: capacity.map(|c| c * 1.04),
            steps: capacity.map_or(vec![], |c| vec![step(1, c / 2.0, 2_000, "pass"), step(2, c, 9_000, "pass"), step(3, c * 1.04, 30_000, "fail")]),
            ..Default::default()
        }
    }

    #[test]
    fn capacities_within_the_precision_are_marked_as_ties_with_per_core_and_per_mib_figures() {
        let all = [search("a", Some(1000.0), 20), search("b", Some(1040.0), 10), search("c", Some(2000.0), 10), search("d", None, 10)];
        let refs: Vec<&SearchRecord> = all.iter().collect();
        let t = table(&refs);
        let rows: Vec<(&str, &str, &str, &str, &str)> = t.rows.iter().map(|r| (r[0].as_str(), r[1].as_str(), r[2].as_str(), r[6].as_str(), r[7].as_str())).collect();
        assert_eq!(
            rows,
            [("c", "2,000", "", "1,000", "200"), ("b", "1,040", "≈ a", "520", "104"), ("a", "1,000", "≈ b", "500", "50.0"), ("d", "none", "", "–", "–")]
        );
        assert_eq!(t.rows[1][4], "9.00", "p99 at the capacity's step");
        let svgs = chart(&refs, &Palette::default(), "hello", 2, "p99", "p99");
        assert_eq!(svgs.len(), 1, "four implementations share one chart");
        let svg = &svgs[0];
        assert!(svg.contains("<svg") && (svg.contains("SLO p99&lt;=10ms") || svg.contains("SLO p99<=10ms")), "the bound is drawn: {}", &svg[..svg.len().min(300)]);
    }

    /// Eighteen searches, as make bench's: one small chart per concurrency model, each with
    /// its own implementations, the bound, and the other models' lines faint behind.
    #[test]
    fn many_searches_become_one_chart_per_model_each_with_the_bound() {
        use crate::impls::Model;
        let models = [Model::EventLoop, Model::GreenThreads, Model::OsThreads];
        let names: Vec<String> = (0..18).map(|i| format!("impl{i:02}")).collect();
        let palette = Palette::new(names.iter().enumerate().map(|(i, n)| (n.as_str(), models[i % 3])));
        let all: Vec<SearchRecord> = names.iter().enumerate().map(|(i, n)| search(n, Some(1000.0 * (i + 1) as f64), 10)).collect();
        let refs: Vec<&SearchRecord> = all.iter().collect();
        let svgs = chart(&refs, &palette, "hello", 1, "p99", "p99");
        assert_eq!(svgs.len(), 3, "one chart per model present");
        for (svg, model) in svgs.iter().zip(models) {
            assert!(svg.contains(&format!("{}: p99 latency (ms)", model.as_str())), "{}", &svg[..svg.len().min(400)]);
            assert!(svg.contains("SLO p99"), "the bound in every chart");
            assert!(svg.contains("other models"));
            let own = names.iter().enumerate().filter(|(i, _)| models[i % 3] == model).count();
            assert_eq!(names.iter().filter(|n| svg.contains(n.as_str())).count(), own, "its own implementations in its legend, no other");
        }
    }
}
