//! One section per implementation, after the results: what its manifest
//! says (language, runtime, framework, concurrency model, how cores apply),
//! the toolchain the run found, how verification went and its known
//! deviations, then its numbers: rank, throughput, latency, memory and CPU
//! per scenario and core count, and every point it took. Folded in the HTML
//! when there are more than a few, so that the page stays a page.

use super::block::Block;
use super::glance::interval;
use super::model::{Model, cores_text};
use super::table::{Table, ms_bounded, rate};
use super::tables;
use crate::store::{ImplRecord, ImplStatus};

/// Up to this many implementations, their sections start open.
const OPEN_UP_TO: usize = 3;

pub fn blocks(model: &Model) -> Vec<Block> {
    if model.implementations.is_empty() {
        return vec![];
    }
    let mut doc = vec![
        Block::Heading(2, "Each implementation".into()),
        Block::Para("What the run stored about each implementation, its README, and every number it measured.".into()),
    ];
    let open = model.implementations.len() <= OPEN_UP_TO;
    for i in &model.implementations {
        let m = &i.manifest;
        let summary = format!("{}: {}, {}, {}; {}", model.label(&i.name), m.language, m.framework, m.model.as_str(), i.status.as_str());
        doc.push(Block::Details { summary, open, body: section(model, i) });
    }
    doc
}

fn section(model: &Model, i: &ImplRecord) -> Vec<Block> {
    let readme = format!("impls/http/{}/README.md", i.name);
    let mut body = vec![Block::Table(facts(model, i)), Block::Link { text: format!("How it works: {readme}"), href: format!("../../{readme}") }];
    if model.measured.contains(&i.name) {
        body.push(Block::Table(results(model, &i.name)));
        body.push(Block::Table(tables::points(model, &i.name)));
    }
    body
}

fn facts(model: &Model, i: &ImplRecord) -> Table {
    let m = &i.manifest;
    let mut t = Table::new(format!("{}: what it is", i.name), &["", ""]).labels(2);
    let mut row = |k: &str, v: String| {
        if !v.trim().is_empty() {
            t.row(vec![k.to_string(), v]);
        }
    };
    row("language", m.language.clone());
    row("runtime", if i.version.is_empty() { m.runtime.clone() } else { format!("{} ({})", m.runtime, i.version) });
    row("framework", m.framework.clone());
    row("concurrency model", m.model.as_str().to_string());
    row("description", m.description.clone().unwrap_or_default());
    let env: Vec<String> = m.cores.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let env = if env.is_empty() { String::new() } else { format!(" (environment: {})", env.join(" ")) };
    row("how cores apply", format!("{}{env}", m.cores.how));
    let toolchain = model.run.environment.toolchains.get(&i.name).filter(|v| **v != i.version).cloned().unwrap_or_default();
    row("toolchain found by the run", toolchain);
    row("verification", verification(i));
    for k in &i.known_failures {
        row("known deviation", format!("{} at CONCUR_CORES={}: {} (saw: {})", k.check, k.cores, k.reason, k.detail));
    }
    let points = model.points.iter().filter(|p| p.implementation == i.name);
    let (all, failed) = points.fold((0, 0), |(a, f), p| (a + 1, f + usize::from(p.error.is_some())));
    if all > 0 {
        row("points", format!("{all} taken, {failed} could not be measured"));
    }
    t
}

fn verification(i: &ImplRecord) -> String {
    let reason = i.reason.as_deref().and_then(|r| r.lines().next()).unwrap_or("no reason recorded");
    match i.status {
        ImplStatus::Verified if i.known_failures.is_empty() => "passed `concur verify`; measured".into(),
        ImplStatus::Verified => "passed `concur verify` but for the known deviations below; measured".into(),
        ImplStatus::Unverified => "measured without `concur verify`".into(),
        ImplStatus::Failed => format!("failed, not measured: {reason}"),
        ImplStatus::Unavailable => format!("unavailable, not measured: {reason}"),
    }
}

/// Its rank and numbers in every scenario and core count.
fn results(model: &Model, name: &str) -> Table {
    let header = ["scenario", "cores", "rank", "req/s [95% interval]", "p50 ms", "p99 ms", "peak MiB", "server cpu"];
    let note = "Medians over repeats; the interval as At a glance makes it (¹: one repeat, from its seconds and the noise floor; \
        ²: the floor alone); rank among the implementations measured there (3–5: the ranks its interval allows, overlapping others); \
        peak MiB: resident memory of the server's whole process tree.";
    let mut t = Table::new(format!("{name}: results"), &header).labels(2).note(model.noted(note));
    for g in &model.groups {
        for &k in &g.cores {
            let Some(c) = g.cell(name, k) else { continue };
            let of = g.ranked(k).len();
            let rank = if c.rank.is_some() { format!("{} of {of}", c.rank_text()) } else { c.rank_text() };
            let level = c.level.map_or(String::new(), |l| interval(&l));
            let thr = c.throughput.map_or("—".into(), |_| format!("{}{level}", rate(c.estimate()))) + &tables::flags(c);
            let show = |s: Option<crate::report::spread::Summary>, f: fn(f64) -> String| s.map_or("—".into(), |s| f(s.median));
            t.row(vec![
                g.title(),
                cores_text(k),
                rank,
                thr,
                c.p50_ms.map_or("—".into(), |s| ms_bounded(s.median, c.p50_bound)),
                c.p99_ms.map_or("—".into(), |s| ms_bounded(s.median, c.p99_bound)),
                show(c.rss_peak_mib, |v| format!("{v:.1}")),
                show(c.cpu_util, |v| format!("{:.0}%", v * 100.0)),
            ]);
        }
    }
    t
}
