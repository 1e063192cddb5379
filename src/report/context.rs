//! What a reader must know before trusting a number: where the run ran
//! (environment, profile), which implementations were measured and which
//! were not and why, and every warning — saturated generators, shared CPUs,
//! points that failed, load the generator could not deliver.

use super::model::Model;
use crate::store::KnownFailure;
use super::table::{Table, thousands};
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
    t
}

/// Every implementation asked for: what it is and whether it was measured.
pub fn implementations(model: &Model) -> Table {
    let header = ["implementation", "language", "runtime", "framework", "model", "how cores apply", "status"];
    let mut t = Table::new("Implementations", &header).labels(header.len());
    for i in &model.implementations {
        let m = &i.manifest;
        let version = if i.version.is_empty() { String::new() } else { format!(" ({})", i.version) };
        let status = match (&i.status, &i.reason) {
            (ImplStatus::Verified, _) if !i.known_failures.is_empty() => format!("verified, measured; {}", known_deviations(&i.known_failures)),
            (ImplStatus::Verified, _) => "verified, measured".to_string(),
            (s, Some(why)) => format!("{}: {}", s.as_str(), why.lines().next().unwrap_or("")),
            (s, None) => s.as_str().to_string(),
        };
        t.row(vec![i.name.clone(), m.language.clone(), format!("{}{version}", m.runtime), m.framework.clone(), m.model.as_str().into(), m.cores.how.clone(), status]);
    }
    t
}

/// Every warning, most important first: each is one sentence.
pub fn warnings(model: &Model) -> Vec<String> {
    let mut out = Vec::new();
    for i in model.implementations.iter().filter(|i| !i.status.measured()) {
        let why = i.reason.as_deref().unwrap_or("no reason recorded");
        out.push(format!("{} was not measured ({}): {}", i.name, i.status.as_str(), why.lines().next().unwrap_or("")));
    }
    for i in model.implementations.iter().filter(|i| i.status.measured() && !i.known_failures.is_empty()) {
        let cores: Vec<String> = i.known_failures.iter().map(|k| k.cores.to_string()).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
        out.push(format!(
            "{} was measured with {} (declared in its concur.toml as limits of its runtime; seen by `concur verify` at CONCUR_CORES={})",
            i.name,
            known_deviations(&i.known_failures),
            cores.join(",")
        ));
    }
    for i in model.implementations.iter().filter(|i| i.status == ImplStatus::Unverified) {
        out.push(format!("{} was measured without `concur verify`", i.name));
    }
    out.extend(model.run.notes.iter().cloned());
    for p in &model.points {
        if let Some(e) = &p.error {
            out.push(format!("{}: not measured: {}", p.key, e.lines().next().unwrap_or("")));
        }
        if p.generator.saturated {
            out.push(saturation(p));
        }
        for w in &p.warnings {
            out.push(format!("{}: {w}", p.key));
        }
    }
    out
}

/// `known deviations: pipelining: <reason>; malformed-request: <reason>`.
fn known_deviations(known: &[KnownFailure]) -> String {
    let each: Vec<String> = known.iter().map(|k| format!("{}: {}", k.check, k.reason)).collect();
    format!("known deviations: {}", each.join("; "))
}

/// Why a point is flagged, with the numbers behind the flag.
fn saturation(p: &crate::store::PointRecord) -> String {
    let (g, s) = (p.generator.cpu_util * 100.0, p.server.cpu_util * 100.0);
    if p.generator.shared {
        format!(
            "{}: generator saturated: sharing the server's CPUs, the load generator took {g:.0}% of them and the server {s:.0}% \
             (together {:.0}%): the CPUs, not the server, were the limit",
            p.key,
            g + s
        )
    } else {
        format!("{}: generator saturated: the load generator kept its own CPUs {g:.0}% busy: this point measures the generator, not the server", p.key)
    }
}
