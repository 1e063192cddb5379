//! What the database did for each implementation, beside the server: for a
//! database scenario's group, the CPU time each request cost the server
//! and PostgreSQL (how much database work a runtime's way of waiting and
//! querying caused), the database's memory, and the repeats the database
//! rather than the server limited (spec/RESULTS-DB.md, "database-limited").

use super::model::{Group, Model, cores_text};
use super::spread::Summary;
use super::table::{Table, mib};
use crate::store::PointRecord;

/// The mark of a cell with repeats the database limited, and what it means.
pub const MARK: &str = "⚠db";
pub const MARK_NOTE: &str = "⚠db: the database, not the server, was the limit in that many repeats (its CPUs were busy).";

/// Repeats of `points` that the database limited.
pub fn limited<'a>(points: impl IntoIterator<Item = &'a PointRecord>) -> usize {
    points.into_iter().filter(|p| p.database.as_ref().is_some_and(|d| d.limited)).count()
}

/// Whether any point of the run had a database that limited it.
pub fn any_limited(model: &Model) -> bool {
    limited(&model.points) > 0
}

/// The group's CPU per request, server and database, by core count; `None`
/// for a group without a database.
pub fn table(model: &Model, g: &Group) -> Option<Table> {
    if !g.cells.iter().any(|c| c.points.iter().any(|p| p.database.is_some())) {
        return None;
    }
    let mut header = vec!["implementation".to_string()];
    for _ in &g.cores {
        header.extend(["server µs".to_string(), "database µs".to_string(), "database MiB".to_string()]);
    }
    let note = model.noted(&format!(
            "CPU time per successful request in microseconds, the server's process tree and PostgreSQL's (the postmaster and \
             every backend), median over repeats; database MiB is its peak memory, shared buffers counted once (PSS). \
             The database ran on CPUs of its own where the machine had them, else on the load generator's. {MARK_NOTE}"
        ),
    );
    let mut t = Table { header, ..Table::new(format!("{}: CPU per request, server and database", g.title()), &[]) }.note(note).group("", 1);
    for &k in &g.cores {
        t = t.group(cores_text(k), 3);
    }
    for name in model.measured.iter().filter(|n| g.cells.iter().any(|c| &c.implementation == *n)) {
        let mut row = vec![model.label(name)];
        for &k in &g.cores {
            let points: Vec<&PointRecord> = g.cell(name, k).map(|c| c.points.iter().filter(|p| p.error.is_none() && p.successes > 0).collect()).unwrap_or_default();
            let per_request = |cpu: &dyn Fn(&PointRecord) -> Option<f64>| {
                Summary::of(&points.iter().filter_map(|p| Some(cpu(p)? / p.successes as f64 * 1e6)).collect::<Vec<_>>()).map_or("—".into(), |s| format!("{:.0}", s.median))
            };
            row.push(per_request(&|p| Some(p.server.cpu_seconds)));
            let marked = limited(points.iter().copied());
            let mark = if marked > 0 { format!(" {MARK}{marked}") } else { String::new() };
            row.push(per_request(&|p| p.database.as_ref().map(|d| d.cpu_seconds)) + &mark);
            row.push(points.iter().filter_map(|p| p.database.as_ref().map(|d| d.mem_peak_bytes)).max().map_or("—".into(), mib));
        }
        t.row(row);
    }
    Some(t)
}
