//! The report's section "When things go wrong": the newest `concur faults`
//! run in the database (spec/FAULTS.md), as the micro-benchmarks' section
//! shows the newest micro run. A table of start-ups (exec to the first 200,
//! and the memory then), then one table per fault: what the client that set
//! it off received, how long nobody was served, how long the others waited,
//! what the load beside it lost, and who started a process again. Absent
//! when the database holds no faults run, so other reports are unchanged.

use super::document::Block;
use super::table::{Table, mib, thousands};
use crate::store::faults::{ImplFaults, Trial};
use crate::store::{RunInfo, Store};
use anyhow::Result;

/// Adds the section of the newest faults run, if any.
pub fn append(r: super::Rendered, store: &Store) -> Result<super::Rendered> {
    let Some(id) = store.latest_faults_run_id()? else { return Ok(r) };
    let run = store.load_run(id)?.run;
    Ok(super::append(r, blocks(&run, &store.faults(id)?)))
}

/// The section's blocks, headed by a level-2 heading.
pub fn blocks(run: &RunInfo, faults: &[ImplFaults]) -> Vec<Block> {
    let setting = |key: &str| run.plan.get(key).and_then(serde_json::Value::as_f64).unwrap_or(0.0);
    let mut doc = vec![
        Block::Heading(2, format!("When things go wrong (faults run {}, {})", run.id, run.started_at)),
        Block::Para(format!(
            "`concur faults` (spec/FAULTS.md): each server started with its fault routes on (SPEC §9), timed from exec to its first 200, \
             then one fault at a time on the same server, with an open loop of {} GET / a second over 8 connections from {:.1} s before the \
             fault to {:.1} s after it, and a prober asking GET / on a fresh connection every {:.0} ms. Nothing is prescribed: what the runtime \
             and its community's usual supervisor do is the result. Outage: from the first probe that failed to the first answered after the \
             last failure (none failed: 0; \"not again\": still failing when the trial ended). Longest wait: the longest a probe sent after the \
             fault waited, how long the others were stalled. Where the process died and the runtime has no supervisor of its own, concur \
             started it again as systemd's Restart=always would. One trial each: a shape, not a figure to two digits.",
            thousands(setting("rate") as u64),
            setting("before_s"),
            setting("after_s"),
            setting("probe_every_ms")
        )),
    ];
    let mut start = Table::new("Start-up", &["Implementation", "Cores", "Ready (ms)", "RSS then (MiB)"]).labels(2);
    for f in faults {
        start.row(vec![f.name.clone(), f.cores.to_string(), thousands(f.start_up.ready_ms.round() as u64), mib(f.start_up.rss_bytes)]);
    }
    doc.push(Block::Table(start));
    let mut kinds: Vec<&str> = Vec::new();
    for t in faults.iter().flat_map(|f| &f.trials) {
        if !kinds.contains(&t.fault.as_str()) {
            kinds.push(&t.fault);
        }
    }
    for kind in kinds {
        let header = ["Implementation", "Cores", "Faulting client", "Outage (ms)", "Longest wait (ms)", "Load answered", "failed", "unanswered", "Load p99 (ms)", "Restarted by"];
        let mut table = Table::new(format!("{kind}: {}", what(kind)), &header).labels(2).text_column(2).text_column(9);
        for f in faults {
            for t in f.trials.iter().filter(|t| t.fault == kind) {
                table.row(row(f, t));
            }
        }
        doc.push(Block::Table(table));
    }
    doc
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
        thousands(t.load_requests),
        thousands(t.load_errors),
        thousands(t.load_unfinished),
        format!("{:.1}", t.load_p99_ms),
        t.restarted_by.clone().unwrap_or_else(|| "nobody had to".into()),
    ]
}
