//! `concur report`: from the results database alone, writes
//! `results/report/index.html` (self-contained: inline SVG charts drawn by
//! plotters, no network) and `results/report/summary.md`. The points are
//! grouped and summarised (`model`, with the statistics of repeats in
//! `spread`), laid out once (`document`, in the `block`s every section is
//! built of) from charts (`dots` the ranking's pictures, `charts` the core
//! sweeps), result tables, feature tables and context, and rendered twice
//! (`html` with its `contents`, `markdown`).
//! `capacity` adds the section of the run's capacity searches (`--slo`),
//! `held` that of its clients-held searches (`[held]`),
//! `findings` the verdicts on the source studies' claims (spec/FINDINGS.md),
//! `faults` what the newest `concur faults` run measured (spec/FAULTS.md).
//! `compare` sets two runs side by side, point by point; `generators` sets
//! `concur load`'s and Locust's numbers for the same points side by side.
//! `export` writes the run's points as JSON or CSV for other tools
//! (spec/EXPORT.md), beside the report.

mod block;
mod capacity;
mod charts;
pub mod compare;
mod contents;
mod context;
mod database;
mod document;
mod dots;
pub mod export;
mod faults;
mod features;
mod findings;
mod generators;
mod glance;
mod held;
mod html;
mod implementation;
mod markdown;
mod micro;
mod micro_charts;
pub mod model;
pub mod palette;
pub mod spread;
mod table;
mod tables;
mod warnings;

use crate::impls;
use crate::stats::noise::NoiseFloor;
use crate::store::{self, RunData, Store};
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The two files of a report.
pub struct Rendered {
    pub html: String,
    pub markdown: String,
    /// What they were rendered from: a section appended later joins the page's anchors and contents.
    blocks: Vec<block::Block>,
    title: String,
}

/// Renders one run, its intervals on the default noise floor.
pub fn render(data: RunData) -> Rendered {
    render_with(data, Vec::new(), NoiseFloor::default_floor())
}

/// Renders one run on its machine's noise `floor`, with the points of other
/// runs that took its points with the other load generator.
pub fn render_with(data: RunData, counterparts: Vec<(i64, crate::store::PointRecord)>, floor: NoiseFloor) -> Rendered {
    let mut model = model::Model::new(data, floor);
    model.counterparts = counterparts;
    let blocks = document::build(&model);
    let title = format!("Concur report: run {} ({})", model.run.id, model.run.profile);
    Rendered { html: html::render(&blocks, &title), markdown: markdown::render(&blocks), blocks, title }
}

/// What `concur report` is asked for.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The results database; none: the repository's.
    pub db: Option<PathBuf>,
    /// The run to report on; none: the latest with points.
    pub run: Option<i64>,
    /// The report's folder; none: the repository's results/report.
    pub out: Option<PathBuf>,
    /// List the runs instead.
    pub list: bool,
    /// Also write the run's points there as JSON, and as CSV (spec/EXPORT.md).
    pub export_json: Option<PathBuf>,
    pub export_csv: Option<PathBuf>,
}

/// `concur report`: the report of one run, and the exports asked for.
pub fn report_command(root: Option<&Path>, options: &Options) -> Result<ExitCode> {
    let find_root = || impls::find_root(root);
    let db = database(root, options.db.as_deref())?;
    let store = Store::open_existing(&db)?;
    if options.list {
        return list_runs(&store);
    }
    let id = match options.run {
        Some(id) => id,
        None => store.latest_run_id()?.with_context(|| format!("{} holds no run yet: run `concur run` first", db.display()))?,
    };
    let data = store.load_run(id)?;
    let floor = store.floor_for(&data.run.environment)?;
    let decisions = if options.export_json.is_some() { model::Model::new(data.clone(), floor.clone()).decisions() } else { Vec::new() };
    export::write(&data, &decisions, options.export_json.as_deref(), options.export_csv.as_deref())?;
    let counterparts = generators::counterparts(&store, &data)?;
    let rendered = append(render_with(data, counterparts, floor), capacity::section(&store, id)?);
    let rendered = append(rendered, held::section(&store, id)?);
    let rendered = micro::append(rendered, &store, options.run)?;
    let rendered = faults::append(rendered, &store, id, find_root().ok().as_deref())?;
    // The claims live in the repository; a report written outside one has no section on them.
    let rendered = match find_root() {
        Ok(repo) => findings::append(rendered, &store, id, &repo)?,
        Err(_) => rendered,
    };
    let out = match &options.out {
        Some(out) => out.clone(),
        None => find_root()?.join("results/report"),
    };
    write(&out, &rendered)?;
    println!("report of run {id}: {} and {}", out.join("index.html").display(), out.join("summary.md").display());
    Ok(ExitCode::SUCCESS)
}

/// Adds a section to a rendered report (at the end of index.html's body, listed in its
/// contents, and of summary.md); nothing when `blocks` is empty.
fn append(mut r: Rendered, blocks: Vec<block::Block>) -> Rendered {
    if blocks.is_empty() {
        return r;
    }
    r.markdown = format!("{}\n{}", r.markdown, markdown::render(&blocks));
    r.blocks.extend(blocks);
    r.html = html::render(&r.blocks, &r.title);
    r
}

/// The results database `db`, else the repository's.
pub(crate) fn database(root: Option<&Path>, db: Option<&Path>) -> Result<PathBuf> {
    Ok(match db {
        Some(db) => db.to_path_buf(),
        None => impls::find_root(root)?.join(store::DEFAULT_DB),
    })
}

fn write(out: &Path, r: &Rendered) -> Result<()> {
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    for (name, text) in [("index.html", &r.html), ("summary.md", &r.markdown)] {
        let path: PathBuf = out.join(name);
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

fn list_runs(store: &Store) -> Result<ExitCode> {
    for run in store.runs()? {
        let points = store.point_keys(run.id)?.len();
        println!("{:>4}  {}  {:<11} {:<10} {points} points", run.id, run.started_at, run.status.as_str(), run.profile);
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{PointRecord, RunInfo, RunStatus};

    #[test]
    fn keep_alive_and_close_points_are_never_one_median() {
        let run = RunInfo::starting("quick".into(), "abc".into(), serde_json::json!({}), Default::default(), vec![]);
        let point = |level: &str, keepalive: bool, repeat: u32, successes: u64| PointRecord {
            implementation: "demo".into(),
            scenario: "hello".into(),
            cores: 1,
            level: level.into(),
            keepalive,
            repeat,
            duration_s: 1.0,
            successes,
            ..PointRecord::default()
        };
        let points = vec![point("c=50", true, 1, 1000), point("c=50 close", false, 1, 100), point("c=50", true, 2, 1100), point("c=50 close", false, 2, 120)];
        let model = model::Model::new(RunData { run: RunInfo { status: RunStatus::Finished, ..run }, implementations: vec![], points }, NoiseFloor::default_floor());
        let medians: Vec<(String, f64)> = model.groups.iter().map(|g| (g.title(), g.cells[0].throughput.as_ref().unwrap().median)).collect();
        assert_eq!(medians, [("hello (c=50)".to_string(), 1050.0), ("hello (c=50 close)".to_string(), 110.0)]);
    }
}
