//! Load generators side by side: the same point (implementation, scenario,
//! cores, clients, connection mode) taken by `concur load` and by Locust,
//! each with its generator's CPU and saturation flag, so that a reader sees
//! which generator, not which server, set the limit (the thesis' Table 5
//! finding). The generator is part of a point's identity, so the two are
//! never one median; a point the run took with one generator only is
//! matched with the latest other run of the same database that took it
//! with the other.

use super::model::Model;
use super::spread::median_of;
use super::table::{Table, ms, rate};
use crate::store::{Generator, PointRecord, RunData, Store};
use anyhow::Result;

/// Said once, beside Locust's numbers.
pub const LATENCY_NOTE: &str = "Locust's latencies are whole milliseconds (rounded by Locust), timed from when each request was sent, \
    and not corrected for coordinated omission; concur load's are microseconds.";

/// What makes two points the same point taken by two generators.
type Identity = (String, String, u32, u32, bool);

fn identity(p: &PointRecord) -> Identity {
    (p.implementation.clone(), p.scenario.clone(), p.cores, p.connections, p.keepalive)
}

/// Points of other runs (newest first) taking a point of `data` with the generator `data` lacks for it, with their run id.
pub fn counterparts(store: &Store, data: &RunData) -> Result<Vec<(i64, PointRecord)>> {
    let has = |id: &Identity, g: Generator| data.points.iter().any(|p| p.error.is_none() && p.generator.kind == g && &identity(p) == id);
    let mut wanted: Vec<(Identity, Generator)> = Vec::new();
    for p in data.points.iter().filter(|p| p.error.is_none()) {
        for g in Generator::ALL {
            let id = identity(p);
            if !has(&id, g) && !wanted.contains(&(id.clone(), g)) {
                wanted.push((id, g));
            }
        }
    }
    let mut found = Vec::new();
    for g in Generator::ALL {
        // Only runs that hold the generator are read: a database that never saw Locust costs one query.
        for run_id in store.runs_with_generator(g)?.into_iter().filter(|&id| id != data.run.id) {
            if !wanted.iter().any(|w| w.1 == g) {
                break;
            }
            let points = store.load_run(run_id)?.points;
            wanted.retain(|(id, want)| {
                if *want != g {
                    return true;
                }
                let mine: Vec<&PointRecord> = points.iter().filter(|p| p.error.is_none() && p.generator.kind == g && &identity(p) == id).collect();
                found.extend(mine.iter().map(|p| (run_id, (*p).clone())));
                mine.is_empty()
            });
        }
    }
    Ok(found)
}

/// The side-by-side table, when the run or its counterparts hold a Locust point.
pub fn table(model: &Model) -> Option<Table> {
    let all: Vec<(Option<i64>, &PointRecord)> =
        model.points.iter().filter(|p| p.error.is_none()).map(|p| (None, p)).chain(model.counterparts.iter().map(|(id, p)| (Some(*id), p))).collect();
    if !all.iter().any(|(_, p)| p.generator.kind == Generator::Locust) {
        return None;
    }
    let mut ids: Vec<Identity> = Vec::new();
    for (_, p) in &all {
        if !ids.contains(&identity(p)) {
            ids.push(identity(p));
        }
    }
    let header = ["implementation", "scenario", "cores", "clients", "req/s", "p99 ms", "generator CPU", "saturated", "req/s", "p99 ms", "generator CPU", "saturated"];
    let mut t = Table::new("Load generators side by side", &header)
        .note(format!(
            "The same point taken by concur load and by Locust: medians over repeats; generator CPU is its CPU time over the measurement per CPU it had \
             (Locust: master and local workers); saturated: the generator, not the server, was the limit (its CPUs busy; for Locust also a worker \
             at 90% of a core, or its event loop late enough to make part of the tail, spec/LOCUST.md). A number from another run of this database says which. {LATENCY_NOTE}"
        ))
        .labels(4)
        .group("", 4)
        .group("concur load", 4)
        .group("Locust", 4)
        .text_column(7)
        .text_column(11);
    for id in ids {
        let mut row = vec![id.0.clone(), id.1.clone(), id.2.to_string(), format!("{}{}", id.3, if id.4 { "" } else { " close" })];
        for g in Generator::ALL {
            let mine: Vec<&(Option<i64>, &PointRecord)> = all.iter().filter(|(_, p)| p.generator.kind == g && identity(p) == id).collect();
            row.extend(cells(&mine));
        }
        t.row(row);
    }
    Some(t)
}

fn cells(points: &[&(Option<i64>, &PointRecord)]) -> Vec<String> {
    if points.is_empty() {
        return vec!["—".into(); 4];
    }
    let median = |f: &dyn Fn(&PointRecord) -> f64| median_of(&points.iter().map(|(_, p)| f(p)).collect::<Vec<_>>());
    let from = points.iter().find_map(|(run, _)| *run).map_or(String::new(), |id| format!(" (run {id})"));
    let saturated = points.iter().filter(|(_, p)| p.generator.saturated).count();
    vec![
        format!("{}{from}", rate(median(&|p| p.throughput()))),
        ms(median(&|p| p.latency.p99_us as f64 / 1000.0)),
        format!("{:.0}%", median(&|p| p.generator.cpu_util * 100.0)),
        if saturated > 0 { format!("⚠ {saturated} of {}", points.len()) } else { "no".into() },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{GeneratorUsage, RunInfo};

    fn point(generator: Generator, successes: u64, saturated: bool) -> PointRecord {
        PointRecord {
            key: format!("go/userinfo/cores=2/c=500{}/r1", if generator == Generator::Locust { "/locust" } else { "" }),
            implementation: "go".into(),
            scenario: "userinfo".into(),
            cores: 2,
            connections: 500,
            level: "c=500".into(),
            repeat: 1,
            duration_s: 10.0,
            successes,
            generator: GeneratorUsage { kind: generator, cpu_util: 0.5, saturated, ..Default::default() },
            ..PointRecord::default()
        }
    }

    #[test]
    fn a_point_is_set_beside_the_other_generators_from_an_earlier_run() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("r.db")).unwrap();
        let mut ids = Vec::new();
        for (g, n, sat) in [(Generator::Locust, 7000, true), (Generator::ConcurLoad, 10_000, false)] {
            let id = store.insert_run(&RunInfo::starting("quick".into(), "k".into(), serde_json::json!({}), Default::default(), vec![])).unwrap();
            store.insert_point(id, &point(g, n, sat)).unwrap();
            ids.push(id);
        }
        let data = store.load_run(ids[1]).unwrap();
        let found = counterparts(&store, &data).unwrap();
        assert_eq!(found.iter().map(|(id, p)| (*id, p.generator.kind)).collect::<Vec<_>>(), [(ids[0], Generator::Locust)]);
        let mut model = Model::new(data, crate::stats::noise::NoiseFloor::default_floor());
        model.counterparts = found;
        let t = table(&model).unwrap();
        assert_eq!(t.rows.len(), 1);
        assert_eq!(t.rows[0][..5], ["go", "userinfo", "2", "500", "1,000"].map(String::from));
        assert_eq!((t.rows[0][7].as_str(), t.rows[0][8].as_str(), t.rows[0][11].as_str()), ("no", "700 (run 1)", "⚠ 1 of 1"));
        assert!(t.note.contains("not corrected for coordinated omission"), "{}", t.note);
    }

    #[test]
    fn a_run_without_locust_anywhere_has_no_such_table() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("r.db")).unwrap();
        let id = store.insert_run(&RunInfo::starting("quick".into(), "k".into(), serde_json::json!({}), Default::default(), vec![])).unwrap();
        store.insert_point(id, &point(Generator::ConcurLoad, 100, false)).unwrap();
        let data = store.load_run(id).unwrap();
        assert!(counterparts(&store, &data).unwrap().is_empty());
        assert!(table(&Model::new(data, crate::stats::noise::NoiseFloor::default_floor())).is_none());
    }
}
