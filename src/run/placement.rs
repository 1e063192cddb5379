//! Where a point's processes run: the server's CPUs and the load
//! generator's for each core count, as `host::topology` places them on the
//! machine's physical cores and NUMA nodes; the plan's notes where the
//! machine cannot keep them apart or on one node; and the warning, before a
//! sweep starts, that its largest core count leaves the generator too few
//! CPUs to keep up with a fast server.

use super::spec::PointSpec;
use super::usage::BUSY;
use crate::host::topology::{Placement, Record, Topology};
use crate::store::Generator;

/// concur load's CPU time per request, taken high: its open loop at 20,000
/// req/s cost 0.01435 CPU s per 1,000 requests (bench/RESULTS.md, 2026-11-24
/// 04:04 UTC), the most of its medians there; its closed loop 0.0035-0.0131.
pub const GENERATOR_CPU_S_PER_REQUEST: f64 = 14.35e-6;

/// The most requests a server took per core here: go-tcp's hello at one
/// core, 93,126 req/s (bench/RESULTS.md, `make bench` of 2026-11-24 01:31 UTC).
pub const FASTEST_PER_CORE: f64 = 93_126.0;

/// The server's CPUs for `k` cores, the generator's, and whether two of them share a physical core.
pub fn split_cpus(topology: &Topology, k: u32) -> (Vec<usize>, Vec<usize>, bool) {
    let p = topology.place(k as usize, 0);
    (p.server, p.generator, p.shared)
}

/// Where the roles of a point of a database scenario run at `k` server
/// cores. The database gets as many CPUs as the server, on physical cores of
/// its own, when the machine then still has cores of their own for the
/// generator; else it runs on the generator's CPUs (never on the server's,
/// whose CPU time is what the point measures). spec/PROFILES.md ("Cores").
pub fn place_with_database(topology: &Topology, k: u32) -> Placement {
    let apart = topology.place(k as usize, k as usize);
    if !apart.shared && !apart.database.is_empty() && !apart.generator.is_empty() {
        return apart;
    }
    let p = topology.place(k as usize, 0);
    Placement { database: p.generator.clone(), ..p }
}

/// What the run records of the machine: its topology and each core count's
/// placement, with the database's CPUs when the run has database scenarios.
pub fn record(topology: &Topology, cores: &[u32], database: bool) -> Record {
    let place = |k: u32| if database { place_with_database(topology, k) } else { topology.place(k as usize, 0) };
    topology.record(cores.iter().map(|&k| place(k)).collect())
}

/// The plan's notes on where its points run, one per kind, naming the core counts concerned.
pub fn notes(topology: &Topology, cores: &[u32], points: &[PointSpec]) -> Vec<String> {
    let placed: Vec<(u32, Placement)> = cores.iter().map(|&k| (k, topology.place(k as usize, 0))).collect();
    let mut notes: Vec<String> = topology.note.iter().cloned().collect();
    if let Some((k, p)) = placed.iter().find(|(_, p)| p.shared) {
        let what = if p.generator == p.server { "shares the server's CPUs" } else { "shares physical cores with the server (their other hardware threads)" };
        notes.push(format!(
            "with {k} server core(s) on this {}-CPU machine the load generator {what}; its CPU use is recorded and points it limited are flagged",
            topology.cpus().len()
        ));
    }
    let at = |f: &dyn Fn(&Placement) -> bool| placed.iter().filter(|(_, p)| f(p)).map(|(k, _)| k.to_string()).collect::<Vec<_>>().join(", ");
    let spanning = at(&|p| p.server_nodes.len() > 1);
    if !spanning.is_empty() {
        notes.push(format!("at {spanning} server core(s) the server spans NUMA nodes: no node has that many usable CPUs"));
    }
    let remote = at(&|p| !p.shared && p.generator_nodes.iter().any(|n| !p.server_nodes.contains(n)));
    if !remote.is_empty() {
        notes.push(format!(
            "at {remote} server core(s) the load generator runs on other NUMA nodes than the server's too \
             (fewer free CPUs than the server's are left on its nodes): its requests cross nodes"
        ));
    }
    notes.extend(headroom(&placed, points));
    notes
}

/// A warning when, at the sweep's largest core count, concur load on CPUs of
/// its own would need more of them than it has to keep up with the fastest
/// server measured here (or with its open loop's rate, when lower).
fn headroom(placed: &[(u32, Placement)], points: &[PointSpec]) -> Option<String> {
    let ours = |p: &&PointSpec| p.generator == Generator::ConcurLoad;
    let k = points.iter().filter(ours).map(|p| p.cores).max()?;
    let top: Vec<&PointSpec> = points.iter().filter(ours).filter(|p| p.cores == k && !p.shared).collect();
    let fastest = |k: u32| f64::from(k) * FASTEST_PER_CORE;
    let rate = top.iter().map(|p| p.rate.map_or(fastest(k), |r| f64::from(r).min(fastest(k)))).reduce(f64::max)?;
    let needed = |rate: f64| rate * GENERATOR_CPU_S_PER_REQUEST / BUSY;
    let has = top[0].generator_cpus.len();
    if has as f64 >= needed(rate) {
        return None;
    }
    let why = if rate < fastest(k) {
        format!("{rate:.0} req/s, the open loop's rate")
    } else {
        format!("{rate:.0} req/s as the fastest server measured here would ({FASTEST_PER_CORE:.0} per core, go-tcp's hello)")
    };
    let enough: Vec<String> = placed.iter().filter(|(k, p)| !p.shared && p.generator.len() as f64 >= needed(fastest(*k))).map(|(k, _)| k.to_string()).collect();
    let fix = if enough.is_empty() { "a machine with more CPUs".to_string() } else { format!("server core counts of {}", enough.join(", ")) };
    Some(format!(
        "at {k} server core(s) the load generator has {has} CPU(s) of its own; at {why} it would need about {:.1} \
         (concur load's {:.2} µs of CPU per request, bench/RESULTS.md, each CPU at most {:.0}% busy): points it limits \
         are flagged as saturated; for the server's numbers alone use {fix}",
        needed(rate),
        GENERATOR_CPU_S_PER_REQUEST * 1e6,
        BUSY * 100.0
    ))
}
