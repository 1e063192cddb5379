//! What a reader must know before trusting a number: where the run ran
//! (environment, profile) and which implementations were measured and which
//! were not and why. The warnings are `warnings`'.

use super::model::Model;
use super::table::{Table, thousands};
use super::warnings::{departures, known_deviations};
use crate::host::affinity::describe;
use crate::host::topology::{Placement, Record};
use crate::store::ImplStatus;

/// The machine, the software and the profile.
pub fn environment(model: &Model) -> Table {
    let r = &model.run;
    let e = &r.environment;
    let mut t = Table::new("Environment", &["", ""]).labels(2);
    let dirty = if e.git_dirty { " (with uncommitted changes)" } else { "" };
    let rows = [
        ("run", format!("{} ({}), started {}, {}", r.id, r.status.as_str(), r.started_at, r.finished_at.as_deref().map_or("not finished".into(), |f| format!("ended {f}")))),
        ("profile", format!("{}: {}", r.profile, r.plan.get("description").and_then(|d| d.as_str()).unwrap_or(""))),
        ("commit", format!("{}{dirty}", e.git_commit)),
        ("CPU", format!("{} ({} CPUs available)", e.cpu_model, e.logical_cpus)),
        ("memory", format!("{} MiB", thousands(e.memory_bytes >> 20))),
        ("kernel", e.kernel.clone()),
        ("OS", e.os.clone()),
        ("concur", e.concur_version.clone()),
    ];
    for (k, v) in rows {
        t.row(vec![k.to_string(), v]);
    }
    if let Some(topology) = &e.topology {
        t.row(vec!["CPU topology".into(), topology_line(topology)]);
        t.row(vec!["placement".into(), placements(topology)]);
    }
    t
}

/// `SMT on (2 threads per core), 48 physical cores, 8 NUMA nodes, from sysfs`.
fn topology_line(t: &Record) -> String {
    let smt = if t.threads_per_core > 1 { format!("SMT on ({} threads per core)", t.threads_per_core) } else { "no SMT (1 thread per core)".into() };
    let source = if t.source == "sysfs" { "read from sysfs" } else { "not readable: placed by CPU number" };
    format!("{smt}, {} physical core(s), {} NUMA node(s); {source}", t.physical_cores, t.numa_nodes)
}

/// `1 core: server 0 · generator 1; 2 cores: server 0-1 · generator 0-1 (shared)`, with
/// each role's NUMA nodes when there are several.
fn placements(t: &Record) -> String {
    let nodes = |n: &[usize]| if t.numa_nodes > 1 { format!(" (node {})", describe(n)) } else { String::new() };
    let one = |p: &Placement| {
        let shared = if p.shared { " (shared)" } else { "" };
        let database = if p.database.is_empty() { String::new() } else { format!(" · database {}", describe(&p.database)) };
        format!(
            "{} core(s): server {}{} · generator {}{}{database}{shared}",
            p.server.len(),
            describe(&p.server),
            nodes(&p.server_nodes),
            describe(&p.generator),
            nodes(&p.generator_nodes)
        )
    };
    t.placements.iter().map(one).collect::<Vec<_>>().join("; ")
}

/// Every implementation asked for: what it is and whether it was measured.
pub fn implementations(model: &Model) -> Table {
    let header = ["implementation", "language", "runtime", "framework", "model", "how cores apply", "status"];
    let mut t = Table::new("Implementations", &header).labels(header.len());
    for i in &model.implementations {
        let m = &i.manifest;
        let version = if i.version.is_empty() { String::new() } else { format!(" ({})", i.version) };
        let mut status = match (&i.status, &i.reason) {
            (ImplStatus::Verified, _) if !i.known_failures.is_empty() => format!("verified, measured; {}", known_deviations(&i.known_failures)),
            (ImplStatus::Verified, _) => "verified, measured".to_string(),
            (s, Some(why)) => format!("{}: {}", s.as_str(), why.lines().next().unwrap_or("")),
            (s, None) => s.as_str().to_string(),
        };
        if !m.departures.is_empty() {
            status = format!("{status}; {}", departures(&m.departures));
        }
        t.row(vec![i.name.clone(), m.language.clone(), format!("{}{version}", m.runtime), m.framework.clone(), m.model.as_str().into(), m.cores.how.clone(), status]);
    }
    t
}
