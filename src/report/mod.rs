//! `concur report`: from the results database alone, writes
//! `results/report/index.html` (self-contained: inline SVG charts drawn by
//! plotters, no network) and `results/report/summary.md`. The points are
//! grouped and summarised (`model`, with the statistics of repeats in
//! `spread`), laid out once (`document`) from charts, result tables,
//! feature tables and context, and rendered twice (`html`, `markdown`).

mod charts;
mod context;
mod document;
mod features;
mod glance;
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
use crate::store::{self, RunData, Store};
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The two files of a report.
pub struct Rendered {
    pub html: String,
    pub markdown: String,
}

/// Renders one run.
pub fn render(data: RunData) -> Rendered {
    let model = model::Model::new(data);
    let blocks = document::build(&model);
    let title = format!("Concur report: run {} ({})", model.run.id, model.run.profile);
    Rendered { html: html::render(&blocks, &title), markdown: markdown::render(&blocks) }
}

/// `concur report`: run `run` (none: the latest) of database `db` (none: the
/// repository's) into folder `out` (none: the repository's results/report);
/// `list` lists the runs instead.
pub fn report_command(root: Option<&Path>, db: Option<&Path>, run: Option<i64>, out: Option<&Path>, list: bool) -> Result<ExitCode> {
    let find_root = || impls::find_root(root);
    let db = match db {
        Some(db) => db.to_path_buf(),
        None => find_root()?.join(store::DEFAULT_DB),
    };
    let store = Store::open_existing(&db)?;
    if list {
        return list_runs(&store);
    }
    let id = match run {
        Some(id) => id,
        None => store.latest_run_id()?.with_context(|| format!("{} holds no run yet: run `concur run` first", db.display()))?,
    };
    let rendered = render(store.load_run(id)?);
    let rendered = micro::append(rendered, &store, run)?;
    let out = match out {
        Some(out) => out.to_path_buf(),
        None => find_root()?.join("results/report"),
    };
    write(&out, &rendered)?;
    println!("report of run {id}: {} and {}", out.join("index.html").display(), out.join("summary.md").display());
    Ok(ExitCode::SUCCESS)
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
