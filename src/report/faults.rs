//! The report's section "When things go wrong": the newest `concur faults`
//! run in the database (spec/FAULTS.md), as the micro-benchmarks' section
//! shows the newest micro run. A table of start-ups (exec to the first 200,
//! the memory then, the first seconds' p99, the capacity before and after
//! the faults and the load beside them), then one table per fault: what the
//! client that set it off received, how long nobody was served, how long the
//! others waited, what the load beside it lost, when it was back, and who
//! started a process again; then the micro-benchmarks' supervised pairs
//! (spec/MICRO.md §4.7), the paper's future work. Absent when the database
//! holds neither, so other reports are unchanged.

use super::block::Block;
use super::micro_charts::{self, Line, Spec};
use super::palette::Palette;
use super::table::{Table, mib, thousands};
use crate::store::faults::{ImplFaults, Trial};
use crate::store::{RunInfo, Store};
use anyhow::Result;
use std::path::Path;

/// Adds the section of the newest faults run, if any; its charts take each implementation's
/// colours from its concurrency model, as the report's run `report_run` recorded it, else
/// (a faults run keeps no manifests) as the manifest in `repository` says, when there is one.
pub fn append(r: super::Rendered, store: &Store, report_run: i64, repository: Option<&Path>) -> Result<super::Rendered> {
    // The micro-benchmarks' supervised pairs (spec/MICRO.md §4.7) end the section, or make it alone.
    let supervised = super::micro::load(store, None)?.map(|d| super::micro::supervision(&d)).unwrap_or_default();
    let Some(id) = store.latest_faults_run_id()? else {
        if supervised.is_empty() {
            return Ok(r);
        }
        let head = vec![Block::Heading(2, "When things go wrong".into()), Block::Para("No `concur faults` run in this database: the HTTP servers' faults are not shown.".into())];
        return Ok(super::append(r, head.into_iter().chain(supervised).collect()));
    };
    let run = store.load_run(id)?.run;
    let faults = store.faults(id)?;
    let mut models: Vec<(String, crate::impls::Model)> = store.load_run(report_run)?.implementations.iter().map(|i| (i.name.clone(), i.manifest.model)).collect();
    let manifests = repository.and_then(|root| crate::impls::discover(root).ok()).unwrap_or_default();
    for imp in manifests.iter().filter(|i| faults.iter().any(|f| f.name == i.name())) {
        if !models.iter().any(|(n, _)| n == imp.name()) {
            models.push((imp.name().to_string(), imp.manifest.model));
        }
    }
    let palette = Palette::new(models.iter().map(|(n, m)| (n.as_str(), *m)));
    Ok(super::append(r, blocks(&run, &faults, &palette).into_iter().chain(supervised).collect()))
}

/// The section's blocks, headed by a level-2 heading.
pub fn blocks(run: &RunInfo, faults: &[ImplFaults], palette: &Palette) -> Vec<Block> {
    // Runs before the short form always measured the capacity after the trials.
    let asked_after = run.plan.get("capacity_after").and_then(serde_json::Value::as_bool).unwrap_or(true);
    let mut doc = vec![
        Block::Heading(2, format!("When things go wrong (faults run {}, {}, profile {})", run.id, run.started_at, run.profile)),
        Block::Para(method(run, asked_after)),
    ];
    if run.plan.get("database").and_then(serde_json::Value::as_bool) == Some(true) {
        doc.push(Block::Para(
            "Beside the baseline, the panic and the kill, where they are measured, a second open loop asks GET /db (one row of a PostgreSQL of concur's own) at a share of \
             that route's own capacity (a quarter of the load's share, unless the run's plan says another: db_share): a process that dies takes its pool's connections with it, and its replacement must open new ones before it serves the route. Its \
             figures are judged, as the load on /, by the baseline's own GET /db seconds."
                .to_string(),
        ));
    }
    if !run.notes.is_empty() {
        doc.push(Block::List(run.notes.clone()));
    }
    doc.push(Block::Table(start_table(faults, asked_after)));
    let mut kinds: Vec<&str> = Vec::new();
    for t in faults.iter().flat_map(|f| &f.trials) {
        if t.fault != crate::faults::BASELINE && !kinds.contains(&t.fault.as_str()) {
            kinds.push(&t.fault);
        }
    }
    for kind in kinds {
        let header = ["Implementation", "Cores", "Faulting client", "Outage (ms)", "Longest wait (ms)", "Load answered", "failed", "unanswered", "Load p99 (ms)", "Back after (ms)", "Restarted by"];
        let mut table = Table::new(format!("{kind}: {}", what(kind)), &header).labels(2).text_column(2).text_column(10);
        for f in faults {
            for t in f.trials.iter().filter(|t| t.fault == kind) {
                table.row(row(f, t));
            }
        }
        doc.push(Block::Table(table));
        doc.extend(database_table(kind, faults));
        doc.extend(timelines(kind, faults, palette));
    }
    doc
}

/// How the run measured, from its plan: the paragraph under the section's heading.
fn method(run: &RunInfo, asked_after: bool) -> String {
    let setting = |key: &str| run.plan.get(key).and_then(serde_json::Value::as_f64).unwrap_or(0.0);
    format!(
        "`concur faults` (spec/FAULTS.md): each server started with its fault routes on (SPEC §9), timed from exec to its first 200{}; then its capacity (GET / in a closed loop of 64 connections{}) and, on \
         the same server, a trial without a fault (the baseline) and one fault at a time, each beside an open loop of GET / at {} \
         from {:.1} s before the fault to {:.1} s after it, and a prober asking GET / on a fresh connection every {:.0} ms{}. Nothing is prescribed: what the runtime and its community's usual supervisor do is the result. Outage: from \
         the first probe that failed to the first answered after the last failure (none failed: 0; \"not again\": still failing when \
         the trial ended). Longest wait: the longest a probe sent after the fault waited, how long the others were stalled. Back \
         after: from the fault to the first second of the load that answered at least 95% of its rate with a p99 within twice \
         the baseline's worst second after its first (and at least 1 ms above it). Where the process died and the runtime has \
         no supervisor of its own, concur \
         started it again as systemd's Restart=always would. One trial each: a shape, not a figure to two digits.",
        if setting("warmup_s") > 0.0 {
            format!(" and followed through its first seconds at {} GET / a second", thousands(setting("warmup_rate") as u64))
        } else {
            " (this profile follows no warm-up curve)".to_string()
        },
        match run.plan.get("capacity_windows").and_then(serde_json::Value::as_u64) {
            Some(n) if n > 1 => format!(", the best of {n} windows one after the other: a JIT warms in the first"),
            _ => String::new(),
        },
        match run.plan.get("rate").and_then(serde_json::Value::as_f64) {
            Some(rate) => format!("a fixed {} a second", thousands(rate as u64)),
            None => format!("{:.0}% of that capacity", setting("share") * 100.0),
        },
        setting("before_s"),
        setting("after_s"),
        setting("probe_every_ms"),
        if asked_after { "; last the capacity again" } else { " (this profile, a short form, does not measure the capacity again after them)" }
    )
}

/// Each server's start-up, capacity before and after, and the load the trials ran beside.
fn start_table(faults: &[ImplFaults], asked_after: bool) -> Table {
    let header = ["Implementation", "Cores", "Ready (ms)", "RSS then (MiB)", "p99 by second from the first 200 (ms)", "Capacity (req/s)", "after the faults", "Load (req/s)", "Baseline p99, worst second (ms)"];
    let mut start = Table::new("Start-up, capacity and the load beside the faults", &header).labels(2).text_column(4);
    for f in faults {
        let l = &f.load;
        let mut p99s: Vec<String> = l.warmup.iter().map(|s| s.p99_us.map_or("none answered".to_string(), |us| format!("{:.1}", us as f64 / 1000.0))).collect();
        if p99s.is_empty() {
            p99s.push("not followed".into());
        }
        let baseline = f.trials.iter().find(|t| t.fault == crate::faults::BASELINE);
        let baseline = baseline.and_then(|t| crate::faults::recovery::reference_ms(&t.load.timeline)).map_or("-".to_string(), |ms| format!("{ms:.1}"));
        start.row(vec![
            f.name.clone(),
            f.cores.to_string(),
            thousands(f.start_up.ready_ms.round() as u64),
            mib(f.start_up.rss_bytes),
            p99s.join(", "),
            thousands(l.capacity_before.round() as u64),
            match l.capacity_after {
                Some(c) => thousands(c.round() as u64),
                None if asked_after => "not serving".to_string(),
                None => "not measured".to_string(),
            },
            thousands(l.rate.round() as u64),
            baseline,
        ]);
    }
    start
}

/// The `GET /db` bystanders beside one kind of fault, where they ran: judged, as the load on
/// `/`, by the baseline's own `/db` seconds.
fn database_table(kind: &str, faults: &[ImplFaults]) -> Option<Block> {
    let header = ["Implementation", "Cores", "GET /db capacity (req/s)", "Load (req/s)", "answered", "failed", "unanswered", "p99 (ms)", "Baseline p99, worst second (ms)", "Back after (ms)"];
    let mut table = Table::new(format!("{kind}: the GET /db bystanders beside it (a process that dies takes its pool's connections with it)"), &header).labels(2);
    for f in faults {
        let Some(d) = f.trials.iter().find(|t| t.fault == kind).and_then(|t| t.db.as_ref()) else { continue };
        let baseline = f.trials.iter().find(|t| t.fault == crate::faults::BASELINE).and_then(|t| t.db.as_ref());
        let reference = baseline.and_then(|b| crate::faults::recovery::reference_ms(&b.timeline));
        let rate = |v: Option<f64>| v.map_or("-".to_string(), |r| thousands(r.round() as u64));
        table.row(vec![
            f.name.clone(),
            f.cores.to_string(),
            rate(f.load.db_capacity),
            rate(f.load.db_rate),
            thousands(d.requests),
            thousands(d.errors),
            thousands(d.unfinished),
            format!("{:.1}", d.p99_ms),
            reference.map_or("-".to_string(), |ms| format!("{ms:.1}")),
            d.recovery_ms.map_or("not by the end".to_string(), |ms| thousands(ms.round() as u64)),
        ]);
    }
    (!table.rows.is_empty()).then_some(Block::Table(table))
}

/// The load's seconds around one kind of fault, at each core count: its p99 and the share of
/// its rate answered, one line per implementation, the fault at 0 s.
fn timelines(kind: &str, faults: &[ImplFaults], palette: &Palette) -> Vec<Block> {
    let mut cores: Vec<u32> = faults.iter().map(|f| f.cores).collect();
    cores.sort_unstable();
    cores.dedup();
    let mut out = Vec::new();
    for k in cores {
        let (mut p99, mut answered) = (Vec::new(), Vec::new());
        for f in faults.iter().filter(|f| f.cores == k) {
            let Some(t) = f.trials.iter().find(|t| t.fault == kind && !t.load.timeline.is_empty()) else { continue };
            // Each second at its middle, on a clock whose 0 is the fault.
            let x = |i: usize| i as f64 + 0.5 - t.load.fault_at_ms / 1000.0;
            let line = |points| Line { name: f.name.clone(), style: palette.style(&f.name), points, mark: None };
            p99.push(line(t.load.timeline.iter().enumerate().filter_map(|(i, s)| s.p99_us.map(|us| (x(i), (us as f64 / 1000.0).max(0.001)))).collect()));
            answered.push(line(t.load.timeline.iter().enumerate().map(|(i, s)| (x(i), s.requests as f64 / f.load.rate.max(f64::MIN_POSITIVE))).collect()));
        }
        if p99.is_empty() {
            continue;
        }
        let span = |lines: &[Line], lo: f64| {
            let ys = lines.iter().flat_map(|l| l.points.iter().map(|p| p.1));
            (ys.clone().fold(f64::INFINITY, f64::min).min(lo), ys.fold(0.0, f64::max))
        };
        let fault = |(lo, hi): (f64, f64)| vec![Line { name: "the fault".into(), style: palette.style(""), points: vec![(0.0, lo), (0.0, hi)], mark: None }];
        let title = format!("{kind} at {k} core(s): the load's p99 by second");
        let spec = Spec { title: &title, x_desc: "seconds from the fault", y_desc: "p99 (ms, log)", log_x: false, log_y: true, lines: p99 };
        let (lo, hi) = span(&spec.lines, f64::INFINITY);
        out.extend(micro_charts::by_model(&spec, palette, fault((lo, hi))).into_iter().map(Block::Chart));
        let title = format!("{kind} at {k} core(s): the share of the load's rate answered by second");
        let spec = Spec { title: &title, x_desc: "seconds from the fault", y_desc: "answered / rate", log_x: false, log_y: false, lines: answered };
        let (_, hi) = span(&spec.lines, 0.0);
        out.extend(micro_charts::by_model(&spec, palette, fault((0.0, hi.max(1.0)))).into_iter().map(Block::Chart));
    }
    if out.is_empty() {
        return out;
    }
    vec![Block::Details { summary: format!("{kind}: the load second by second (charts)"), open: false, body: out }]
}

/// How a fault is set off, in a table's title.
fn what(kind: &str) -> &'static str {
    match kind {
        "panic" => "GET /fault/panic, the runtime's ordinary unhandled error",
        "kill -9" => "SIGKILL to one worker, or to the only process",
        _ => "GET /fault/spin, a handler that computes without yielding",
    }
}

fn row(f: &ImplFaults, t: &Trial) -> Vec<String> {
    let took = t.faulting_ms.map_or(String::new(), |ms| format!(" after {} ms", thousands(ms.round() as u64)));
    let outage = t.outage_ms.map_or("not again".to_string(), |ms| thousands(ms.round() as u64));
    vec![
        f.name.clone(),
        f.cores.to_string(),
        format!("{}{took}", t.faulting_client),
        outage,
        thousands(t.stall_ms.round() as u64),
        thousands(t.load.requests),
        thousands(t.load.errors),
        thousands(t.load.unfinished),
        format!("{:.1}", t.load.p99_ms),
        match t.load.recovery_ms {
            Some(ms) => thousands(ms.round() as u64),
            None if t.load.timeline.is_empty() => "-".to_string(),
            None => "not by the end".to_string(),
        },
        t.restarted_by.clone().unwrap_or_else(|| "nobody had to".into()),
    ]
}
