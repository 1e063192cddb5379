//! Every warning of a run, grouped by kind so that twenty implementations'
//! worth of them reads as a few lines: implementations not measured,
//! measured with known deviations or without verification, points that
//! failed, generators that saturated, each kind of point warning (target
//! rate not reached, fewer connections than asked) and the run's own notes.
//! Each kind is one line with its count and who it concerns; its sentences,
//! each naming the point or implementation, are folded beneath it.

use super::model::Model;
use crate::impls::policy_rule;
use crate::store::{ImplStatus, KnownFailure, PointRecord};
use std::collections::BTreeMap;

/// One kind of warning: its line, and the sentences it stands for.
pub struct Kind {
    pub summary: String,
    /// Empty when the summary says it all (a note on the run).
    pub details: Vec<String>,
}

/// Every kind present, most important first.
pub fn kinds(model: &Model) -> Vec<Kind> {
    let mut out = Vec::new();
    implementations(model, &mut out);
    points(model, &mut out);
    out.extend(model.run.notes.iter().map(|n| Kind { summary: n.clone(), details: vec![] }));
    out
}

/// The number of sentences behind the kinds.
pub fn count(kinds: &[Kind]) -> usize {
    kinds.iter().map(|k| k.details.len().max(1)).sum()
}

fn implementations(model: &Model, out: &mut Vec<Kind>) {
    let all = &model.implementations;
    let not_measured: Vec<_> = all.iter().filter(|i| !i.status.measured()).collect();
    if !not_measured.is_empty() {
        let who: Vec<String> = not_measured.iter().map(|i| format!("{} ({})", i.name, i.status.as_str())).collect();
        out.push(Kind {
            summary: format!("{} not measured: {}", implementations_text(who.len()), who.join(", ")),
            details: not_measured
                .iter()
                .map(|i| format!("{} was not measured ({}): {}", i.name, i.status.as_str(), first_line(i.reason.as_deref().unwrap_or("no reason recorded"))))
                .collect(),
        });
    }
    let known: Vec<_> = all.iter().filter(|i| i.status.measured() && !i.known_failures.is_empty()).collect();
    if !known.is_empty() {
        let who: Vec<String> = known.iter().map(|i| format!("{} ({})", i.name, checks(&i.known_failures))).collect();
        out.push(Kind {
            summary: format!("{} measured with known deviations (†): {}", implementations_text(who.len()), who.join(", ")),
            details: known
                .iter()
                .map(|i| {
                    let cores: std::collections::BTreeSet<String> = i.known_failures.iter().map(|k| k.cores.to_string()).collect();
                    format!(
                        "{} was measured with {} (declared in its concur.toml as limits of its runtime; seen by `concur verify` at CONCUR_CORES={})",
                        i.name,
                        known_deviations(&i.known_failures),
                        cores.into_iter().collect::<Vec<_>>().join(",")
                    )
                })
                .collect(),
        });
    }
    let departing: Vec<_> = all.iter().filter(|i| i.status.measured() && !i.manifest.departures.is_empty()).collect();
    if !departing.is_empty() {
        let who: Vec<String> = departing.iter().map(|i| format!("{} ({})", i.name, i.manifest.departures.keys().map(|r| policy_rule(r)).collect::<Vec<_>>().join(", "))).collect();
        out.push(Kind {
            summary: format!("{} measured departing from spec/POLICIES.md (‡): {}", implementations_text(who.len()), who.join(", ")),
            details: departing.iter().map(|i| format!("{} {} (declared in its concur.toml)", i.name, departures(&i.manifest.departures))).collect(),
        });
    }
    let unverified: Vec<&str> = all.iter().filter(|i| i.status == ImplStatus::Unverified).map(|i| i.name.as_str()).collect();
    if !unverified.is_empty() {
        out.push(Kind {
            summary: format!("{} measured without `concur verify`: {}", implementations_text(unverified.len()), unverified.join(", ")),
            details: unverified.iter().map(|n| format!("{n} was measured without `concur verify`")).collect(),
        });
    }
}

/// `departs from POLICIES §6.3 db-pool-division: <reason>; …`.
pub fn departures(declared: &BTreeMap<String, String>) -> String {
    let each: Vec<String> = declared.iter().map(|(rule, why)| format!("{}: {why}", policy_rule(rule))).collect();
    format!("departs from {}", each.join("; "))
}

/// `known deviations: pipelining: <reason>; malformed-request: <reason>`.
pub fn known_deviations(known: &[KnownFailure]) -> String {
    let each: Vec<String> = known.iter().map(|k| format!("{}: {}", k.check, k.reason)).collect();
    format!("known deviations: {}", each.join("; "))
}

/// The checks, once each: `pipelining, malformed-request`.
fn checks(known: &[KnownFailure]) -> String {
    let mut ids: Vec<&str> = known.iter().map(|k| k.check.as_str()).collect();
    ids.dedup();
    ids.join(", ")
}

fn points(model: &Model, out: &mut Vec<Kind>) {
    let failed: Vec<&PointRecord> = model.points.iter().filter(|p| p.error.is_some()).collect();
    if !failed.is_empty() {
        out.push(Kind {
            summary: format!("{} could not be measured: {}", points_text(failed.len()), by_implementation(&failed)),
            details: failed.iter().map(|p| format!("{}: not measured: {}", p.key, first_line(p.error.as_deref().unwrap_or("")))).collect(),
        });
    }
    let saturated: Vec<&PointRecord> = model.points.iter().filter(|p| p.generator.saturated).collect();
    if !saturated.is_empty() {
        out.push(Kind {
            summary: format!("generator saturated in {}: {}", points_text(saturated.len()), by_implementation(&saturated)),
            details: saturated.iter().map(|p| saturation(p)).collect(),
        });
    }
    let database: Vec<&PointRecord> = model.points.iter().filter(|p| p.database.as_ref().is_some_and(|d| d.limited)).collect();
    if !database.is_empty() {
        out.push(Kind {
            summary: format!("database-limited in {}: {}", points_text(database.len()), by_implementation(&database)),
            details: database.iter().map(|p| database_limit(p)).collect(),
        });
    }
    let mut kinds: Vec<(String, Vec<(&PointRecord, &String)>)> = Vec::new();
    for p in &model.points {
        for w in &p.warnings {
            let kind = kind_of(w);
            match kinds.iter_mut().find(|k| k.0 == kind) {
                Some(k) => k.1.push((p, w)),
                None => kinds.push((kind, vec![(p, w)])),
            }
        }
    }
    for (kind, items) in kinds {
        let mut who: Vec<&PointRecord> = items.iter().map(|(p, _)| *p).collect();
        who.dedup_by(|a, b| a.key == b.key);
        out.push(Kind {
            summary: format!("{kind} in {}: {}", points_text(who.len()), by_implementation(&who)),
            details: items.iter().map(|(p, w)| format!("{}: {w}", p.key)).collect(),
        });
    }
}

/// Why a point is flagged database-limited, in numbers.
fn database_limit(p: &PointRecord) -> String {
    let d = p.database.as_ref().map(|d| (d.cpu_util, d.shared, d.cpus.len())).unwrap_or_default();
    let place = if d.1 { "the load generator's" } else { "its own" };
    format!("{}: PostgreSQL kept {} CPU(s) of {place} {:.0}% busy: the server waited on the database", p.key, d.2, d.0 * 100.0)
}

/// The kind of a point's warning: a name for the ones `concur run` writes,
/// else the sentence up to its first colon with its numbers taken out, so
/// that the same warning about different points groups together.
fn kind_of(warning: &str) -> String {
    if warning.starts_with("the target rate of") && warning.contains("was not reached") {
        return "target rate not reached".into();
    }
    if warning.starts_with("the open-file limit is") {
        return "fewer connections than asked (open-file limit)".into();
    }
    let head = warning.split(':').next().unwrap_or(warning);
    let mut kind = String::new();
    for ch in head.chars() {
        if ch.is_ascii_digit() {
            if !kind.ends_with('N') {
                kind.push('N');
            }
        } else if !(ch == '.' || ch == ',') || !kind.ends_with('N') {
            kind.push(ch);
        }
    }
    kind.trim().to_string()
}

/// `beta 3, alpha 1`: how many of the points each implementation has, most first, five at most.
fn by_implementation(points: &[&PointRecord]) -> String {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for p in points {
        match counts.iter_mut().find(|c| c.0 == p.implementation) {
            Some(c) => c.1 += 1,
            None => counts.push((&p.implementation, 1)),
        }
    }
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let mut shown: Vec<String> = counts.iter().take(5).map(|(n, c)| format!("{n} {c}")).collect();
    if counts.len() > 5 {
        shown.push(format!("{} more", counts.len() - 5));
    }
    shown.join(", ")
}

fn implementations_text(n: usize) -> String {
    if n == 1 { "1 implementation".into() } else { format!("{n} implementations") }
}

fn points_text(n: usize) -> String {
    if n == 1 { "1 point".into() } else { format!("{n} points") }
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

/// Why a point is flagged, with the numbers behind the flag.
fn saturation(p: &PointRecord) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_about_different_points_share_a_kind() {
        assert_eq!(kind_of("the target rate of 1000/s was not reached: 950/s were sent"), "target rate not reached");
        assert_eq!(kind_of("the open-file limit is 1024 and could not be raised to 4096: using 1000 connections"), "fewer connections than asked (open-file limit)");
        assert_eq!(kind_of("step 2 of 3 took 1.5 s: slow"), kind_of("step 1 of 3 took 12 s: slower"));
        assert_eq!(kind_of("step 2 of 3 took 1.5 s: slow"), "step N of N took N s");
    }
}
