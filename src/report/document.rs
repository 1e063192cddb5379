//! The report's content, in order, as blocks that both renderings walk:
//! index.html shows the charts and the contents, summary.md the same text
//! and tables without them. Deciding what goes where happens once, here: the
//! headline, the contents, the ranking at a glance (a picture per scenario
//! and core count first), the warnings grouped by kind, the results by
//! scenario, memory, the implementations compared and then one by one, and
//! where the run ran.

use super::block::Block;
use super::model::{Group, Model};
use super::{charts, context, database, features, generators, glance, implementation, tables, warnings};

pub fn build(model: &Model) -> Vec<Block> {
    let mut doc = vec![Block::Heading(1, format!("Concur report: run {} ({} profile)", model.run.id, model.run.profile)), Block::Para(headline(model)), Block::Contents];
    doc.extend(glance::blocks(model));
    doc.extend(warnings_block(model));
    doc.push(Block::Heading(2, "Results by scenario".into()));
    if model.groups.is_empty() {
        doc.push(Block::Para("This run holds no measured point yet.".into()));
    }
    for g in &model.groups {
        scenario(model, g, &mut doc);
    }
    if let Some(table) = generators::table(model) {
        doc.push(Block::Heading(2, "Load generators side by side".into()));
        doc.push(Block::Table(table));
    }
    if !model.groups.is_empty() {
        doc.push(Block::Heading(2, "Memory and requests per core".into()));
        doc.push(Block::Table(tables::memory(model)));
        doc.push(Block::Table(tables::per_core(model)));
    }
    doc.push(Block::Heading(2, "Implementations and their languages".into()));
    doc.push(Block::Table(context::implementations(model)));
    doc.push(Block::Table(features::thesis_table3(model)));
    doc.push(Block::Table(features::thesis_table4(model)));
    doc.push(Block::Table(features::sac_table1(model)));
    doc.extend(implementation::blocks(model));
    doc.push(Block::Heading(2, "Where it ran".into()));
    doc.push(Block::Table(context::environment(model)));
    doc
}

/// One line per kind of warning, its sentences folded beneath it; the box is open.
fn warnings_block(model: &Model) -> Option<Block> {
    let kinds = warnings::kinds(model);
    if kinds.is_empty() {
        return None;
    }
    let summary = format!("Warnings ({} in {} kind(s))", warnings::count(&kinds), kinds.len());
    let body = kinds
        .into_iter()
        .map(|k| if k.details.is_empty() { Block::Para(k.summary) } else { Block::Details { summary: k.summary, open: false, body: vec![Block::List(k.details)] } })
        .collect();
    Some(Block::Details { summary, open: true, body })
}

fn headline(model: &Model) -> String {
    let e = &model.run.environment;
    let measured = model.measured.len();
    let asked = model.implementations.len();
    format!(
        "{measured} of {asked} implementation(s) measured, {} point(s), on {} with {} CPU(s); run {} ({}). \
         Every number is the server's: the load generator ran pinned to other CPUs where the machine had them, \
         and points where it was the bottleneck are flagged.",
        model.points.len(),
        e.cpu_model,
        e.logical_cpus,
        model.run.status.as_str(),
        model.run.started_at
    )
}

fn scenario(model: &Model, g: &Group, doc: &mut Vec<Block>) {
    doc.push(Block::Heading(3, g.title()));
    if !g.description.is_empty() {
        doc.push(Block::Para(g.description.clone()));
    }
    // Against server cores, one core count is a single column of dots hiding one another:
    // the tables and At a glance's picture say it.
    if g.cores.len() > 1 {
        doc.extend(charts::throughput(model, g).into_iter().map(Block::Chart));
        doc.extend(charts::latency(model, g).into_iter().map(Block::Chart));
    }
    doc.push(Block::Table(tables::throughput(model, g)));
    doc.push(Block::Table(tables::latency(model, g)));
    doc.extend(database::table(model, g).map(Block::Table));
    match g.scenario.as_str() {
        "page" => doc.push(Block::Table(tables::ab_percentiles(model, g))),
        "hello" => doc.push(Block::Table(tables::wrk_table(model, g))),
        _ => {}
    }
}
