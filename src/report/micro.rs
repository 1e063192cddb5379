//! The report's section on the process micro-benchmarks (`concur micro`,
//! spec/MICRO.md), from the newest run holding micro results: the paper's
//! Figure 3 (latency against repetitions, one chart per message size, and
//! Savina's PingPong), Figure 4 (spawn time against processes, with the
//! largest N each runtime reached), Figure 5 (messages per second against
//! pairs, one chart per core count), bytes per process and the idle-tasks
//! table. Every value is the median over repeats of the successful
//! invocations; failures are listed with their reasons.

use super::block::Block;
use super::micro_charts::{self, Line, Spec};
use super::palette::Palette;
use super::table::{Table, mib, thousands};
use crate::store::micro::{MicroRecord, MicroStatus, SearchRecord};
use crate::store::{ImplRecord, RunInfo, Store};
use anyhow::Result;

/// One micro run, as the section needs it.
pub struct MicroData {
    pub run: RunInfo,
    pub implementations: Vec<ImplRecord>,
    pub results: Vec<MicroRecord>,
    pub searches: Vec<SearchRecord>,
}

/// The micro run `run` if it holds micro results, else the newest that does; `None` when there is none.
pub fn load(store: &Store, run: Option<i64>) -> Result<Option<MicroData>> {
    let explicit = run.filter(|&id| store.micro_results(id).is_ok_and(|r| !r.is_empty()));
    let Some(id) = explicit.or(store.latest_micro_run_id()?) else { return Ok(None) };
    let data = store.load_run(id)?;
    Ok(Some(MicroData { run: data.run, implementations: data.implementations, results: store.micro_results(id)?, searches: store.micro_searches(id)? }))
}

/// Renders the section, or nothing when the database has no micro run.
pub fn section(store: &Store, run: Option<i64>) -> Result<Vec<Block>> {
    Ok(load(store, run)?.map(|d| blocks(&d)).unwrap_or_default())
}

/// Adds the section to a rendered report (at the end of index.html's body and
/// of summary.md); the report is unchanged when the database has no micro run.
pub fn append(r: super::Rendered, store: &Store, run: Option<i64>) -> Result<super::Rendered> {
    Ok(super::append(r, section(store, run)?))
}

/// The section's blocks, headed by a level-2 heading.
pub fn blocks(d: &MicroData) -> Vec<Block> {
    let names = measured(d);
    let mut doc = vec![
        Block::Heading(2, format!("Process micro-benchmarks (run {}, {})", d.run.id, d.run.profile)),
        Block::Para(format!(
            "spec/MICRO.md's benchmarks on {} CPU(s) ({}), one cold process per measurement, pinned to C CPUs with the runtime told C. \
             Values are medians over repeats of the invocations whose result line passed validation (received = expected). \
             Peak memory is the kernel's ru_maxrss of the program, measured from outside; bytes per process subtract the same runtime's one-process run.",
            d.run.environment.logical_cpus, d.run.environment.cpu_model
        )),
    ];
    let problems = problems(d);
    if !problems.is_empty() {
        doc.push(Block::Details { summary: format!("Warnings ({})", problems.len()), open: problems.len() <= 12, body: vec![Block::List(problems)] });
    }
    latency(d, &names, &mut doc);
    spawn(d, &names, &mut doc);
    pairs(d, &names, &mut doc);
    idle(d, &names, &mut doc);
    doc
}

/// Implementations with at least one result, sorted: the series of every chart.
fn measured(d: &MicroData) -> Vec<String> {
    let mut names: Vec<String> = d.results.iter().map(|r| r.implementation.clone()).collect();
    names.sort();
    names.dedup();
    names
}

fn problems(d: &MicroData) -> Vec<String> {
    let mut out: Vec<String> = d
        .implementations
        .iter()
        .filter(|i| !i.status.measured())
        .map(|i| format!("{} was not measured ({}): {}", i.name, i.status.as_str(), i.reason.as_deref().unwrap_or("").lines().next().unwrap_or("")))
        .collect();
    out.extend(d.run.notes.iter().cloned());
    for r in d.results.iter().filter(|r| r.status != MicroStatus::Ok) {
        out.push(format!("{}: {}: {}", r.key, r.status.as_str(), r.reason.as_deref().unwrap_or("")));
    }
    out
}

/// Median of the successful repeats' `pick` for one implementation, bench, parameter filter and core count.
fn median(d: &MicroData, name: &str, bench: &str, cores: Option<u32>, keep: impl Fn(&MicroRecord) -> bool, pick: impl Fn(&MicroRecord) -> Option<f64>) -> Option<f64> {
    let mut v: Vec<f64> = d
        .results
        .iter()
        .filter(|r| r.implementation == name && r.bench == bench && r.status == MicroStatus::Ok && cores.is_none_or(|c| r.cores == c) && keep(r))
        .filter_map(&pick)
        .collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 })
}

/// Distinct values of a parameter among a bench's results, ascending.
fn values(d: &MicroData, bench: &str, get: impl Fn(&MicroRecord) -> Option<u64>) -> Vec<u64> {
    let mut v: Vec<u64> = d.results.iter().filter(|r| r.bench == bench).filter_map(get).collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// The HTTP charts' palette: each implementation's hue from its concurrency model.
fn palette(d: &MicroData) -> Palette {
    Palette::new(d.implementations.iter().map(|i| (i.name.as_str(), i.manifest.model)))
}

fn ns(v: Option<f64>) -> String {
    match v {
        Some(x) if x >= 100.0 => thousands(x.round() as u64),
        Some(x) => format!("{x:.1}"),
        None => "–".into(),
    }
}

/// Figure 3 (pingping per size) and PingPong.
fn latency(d: &MicroData, names: &[String], doc: &mut Vec<Block>) {
    let sizes = values(d, "pingping", |r| r.params.size);
    let reps_pp = values(d, "pingping", |r| r.params.reps);
    let reps_pong = values(d, "pingpong", |r| r.params.reps);
    if sizes.is_empty() && reps_pong.is_empty() {
        return;
    }
    doc.push(Block::Heading(3, "Message latency (paper Figure 3; Savina PingPong)".into()));
    doc.push(Block::Para("PingPing: two processes exchange a fresh payload of S bytes simultaneously, R times; nanoseconds per exchange. PingPong: one small round trip at a time.".into()));
    let palette = palette(d);
    let line = |name: &str, bench: &str, reps: &[u64], size: Option<u64>| Line {
        name: name.to_string(),
        style: palette.style(name),
        points: reps
            .iter()
            .filter_map(|&r| median(d, name, bench, None, |x| x.params.reps == Some(r) && (size.is_none() || x.params.size == size), |x| x.ns_per_op).map(|v| (r as f64, v)))
            .collect(),
        mark: None,
    };
    for &s in &sizes {
        let title = format!("PingPing, {} KiB messages", s as f64 / 1024.0);
        let lines = names.iter().map(|n| line(n, "pingping", &reps_pp, Some(s))).filter(|l| !l.points.is_empty()).collect();
        doc.push(Block::Chart(micro_charts::draw(&Spec { title: &title, x_desc: "repetitions R", y_desc: "ns per exchange (log)", log_x: true, log_y: true, lines })));
    }
    if !reps_pong.is_empty() {
        let lines = names.iter().map(|n| line(n, "pingpong", &reps_pong, None)).filter(|l| !l.points.is_empty()).collect();
        doc.push(Block::Chart(micro_charts::draw(&Spec { title: "PingPong", x_desc: "repetitions R", y_desc: "ns per round trip (log)", log_x: true, log_y: true, lines })));
    }
    let mut cols: Vec<(String, &str, Option<u64>, u64)> = Vec::new();
    for &s in &sizes {
        cols.extend(reps_pp.iter().map(|&r| (format!("ping {}K R={}", s / 1024, short(r)), "pingping", Some(s), r)));
    }
    cols.extend(reps_pong.iter().map(|&r| (format!("pong R={}", short(r)), "pingpong", None, r)));
    let header: Vec<&str> = std::iter::once("implementation").chain(cols.iter().map(|c| c.0.as_str())).collect();
    let mut t = Table::new("Latency, ns per exchange (pingping) and per round trip (pingpong)", &header).note("Medians over repeats; – where no run succeeded.");
    for n in names {
        let cells = cols.iter().map(|(_, b, s, r)| ns(median(d, n, b, None, |x| x.params.reps == Some(*r) && x.params.size == *s, |x| x.ns_per_op)));
        t.row(std::iter::once(n.clone()).chain(cells).collect());
    }
    doc.push(Block::Table(t));
}

fn short(n: u64) -> String {
    micro_charts::short(n as f64)
}

/// Figure 4: spawn time against N (spawn and the maxprocs steps), the largest N reached, and bytes per process.
fn spawn(d: &MicroData, names: &[String], doc: &mut Vec<Block>) {
    let ns_all = values(d, "spawn", |r| r.params.procs).into_iter().chain(values(d, "maxprocs", |r| r.params.procs)).filter(|&n| n > 1).collect::<std::collections::BTreeSet<u64>>();
    if ns_all.is_empty() && d.searches.is_empty() {
        return;
    }
    doc.push(Block::Heading(3, "Spawn time and maximum processes (paper Figure 4)".into()));
    doc.push(Block::Para("Time until N dormant processes have each sent their acknowledgement (every process has run), from spawn and from the maximum-processes search's steps; the ring marks the largest N that ran.".into()));
    let elapsed_s = |n: &str, at: u64| {
        median(d, n, "spawn", None, |x| x.params.procs == Some(at), |x| x.elapsed_ns.map(|e| e as f64 / 1e9))
            .or_else(|| median(d, n, "maxprocs", None, |x| x.params.procs == Some(at), |x| x.elapsed_ns.map(|e| e as f64 / 1e9)))
    };
    let palette = palette(d);
    let lines = names
        .iter()
        .map(|n| {
            let points: Vec<(f64, f64)> = ns_all.iter().filter_map(|&at| elapsed_s(n, at).map(|v| (at as f64, v))).collect();
            let best = d.searches.iter().filter(|s| &s.implementation == n).filter_map(|s| s.largest_n).max();
            let mark = best.and_then(|b| elapsed_s(n, b).map(|v| (b as f64, v, format!("max {}", short(b)))));
            Line { name: n.clone(), style: palette.style(n), points, mark }
        })
        .filter(|l| !l.points.is_empty())
        .collect();
    doc.push(Block::Chart(micro_charts::draw(&Spec { title: "Spawn time", x_desc: "processes N", y_desc: "seconds (log)", log_x: true, log_y: true, lines })));
    if d.searches.is_empty() {
        doc.push(Block::Para(format!("No maximum-processes search in this run (profile {}: `concur micro --profile paper` searches to the memory budget).", d.run.profile)));
    } else {
        doc.push(Block::Table(searches(d)));
    }
    doc.push(Block::Table(bytes_per_proc(d, names)));
}

fn searches(d: &MicroData) -> Table {
    let mut t = Table::new("Maximum processes", &["implementation", "cores", "largest N that ran", "stopped by", "detail", "budget MiB"])
        .labels(2)
        .text_column(3)
        .text_column(4)
        .note("N steps up (spec/MICRO.md §4.4) until a step fails or the memory budget, enforced from outside, is reached; `limit` means the profile's largest N passed.");
    for s in &d.searches {
        let largest = s.largest_n.map_or("none".to_string(), thousands);
        t.row(vec![s.implementation.clone(), s.cores.to_string(), largest, s.stop.as_str().into(), s.detail.clone(), thousands(s.budget_bytes >> 20)]);
    }
    t
}

fn bytes_per_proc(d: &MicroData, names: &[String]) -> Table {
    let ns = values(d, "spawn", |r| r.params.procs).into_iter().filter(|&n| n > 1).collect::<Vec<_>>();
    let header: Vec<String> = std::iter::once("implementation".to_string()).chain(ns.iter().map(|n| format!("N={}", short(*n)))).chain(["model".to_string()]).collect();
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut t = Table::new("Bytes per process (spawn)", &header).text_column(ns.len() + 1).note(
        "(peak RSS(N) − peak RSS(N=1)) / N. Anchors: an Erlang process ≈ 2.6 KB, a goroutine ≈ 2-3 KB, a tokio task a few hundred bytes, an OS thread tens of KB resident. \
         RSS leaves out kernel memory: an OS thread also holds a 16 KiB kernel stack that no RSS shows (impls/micro/c-pthreads/README.md).",
    );
    for n in names {
        let model = d.implementations.iter().find(|i| &i.name == n).map_or(String::new(), |i| i.manifest.model.as_str().to_string());
        let cells = ns.iter().map(|&at| median(d, n, "spawn", None, |x| x.params.procs == Some(at), |x| x.bytes_per_proc).map_or("–".into(), |b| thousands(b.max(0.0).round() as u64)));
        let kernel = if model == "os-threads" { format!("{model} (+ kernel stacks)") } else { model };
        t.row(std::iter::once(n.clone()).chain(cells).chain([kernel]).collect());
    }
    t
}

/// Figure 5: messages per second against pairs, one chart per core count.
fn pairs(d: &MicroData, names: &[String], doc: &mut Vec<Block>) {
    let cores = values(d, "pairs", |r| Some(r.cores as u64));
    let ps = values(d, "pairs", |r| r.params.pairs);
    if ps.is_empty() {
        return;
    }
    doc.push(Block::Heading(3, "Throughput of communicating pairs (paper Figure 5)".into()));
    doc.push(Block::Para("P pairs bounce small messages for D seconds; every ping and every pong counts as a message.".into()));
    let palette = palette(d);
    let mps = |n: &str, c: u64, p: u64| median(d, n, "pairs", Some(c as u32), |x| x.params.pairs == Some(p), |x| x.messages_per_s);
    for &c in &cores {
        let title = format!("Pairs on {c} core(s)");
        let lines = names
            .iter()
            .map(|n| Line { name: n.clone(), style: palette.style(n), points: ps.iter().filter_map(|&p| mps(n, c, p).map(|v| (p as f64, v))).collect(), mark: None })
            .filter(|l| !l.points.is_empty())
            .collect();
        doc.push(Block::Chart(micro_charts::draw(&Spec { title: &title, x_desc: "pairs P", y_desc: "messages/s", log_x: true, log_y: false, lines })));
    }
    let cols: Vec<(u64, u64)> = cores.iter().flat_map(|&c| ps.iter().map(move |&p| (c, p))).collect();
    let header: Vec<String> = std::iter::once("implementation".to_string()).chain(cols.iter().map(|(c, p)| format!("C={c} P={p}"))).collect();
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut t = Table::new("Pairs, million messages per second", &header).note("Medians over repeats.");
    for n in names {
        let cells = cols.iter().map(|&(c, p)| mps(n, c, p).map_or("–".into(), |v| format!("{:.2}", v / 1e6)));
        t.row(std::iter::once(n.clone()).chain(cells).collect());
    }
    doc.push(Block::Table(t));
}

/// The paper's future work (SAC 2018, §5), which the supervised benchmark answers.
pub const FUTURE_WORK: &str = "It would also be interesting to study the performance overheads of providing fault tolerance and of recovering from faults, another key server capability.";

/// The supervised benchmark (spec/MICRO.md §4.7): messages a second against the kill rate, one
/// chart per pair count, and a table of what the kills cost; empty when the run has none. Shown
/// in the report's "When things go wrong", beside the HTTP servers' faults.
pub fn supervision(d: &MicroData) -> Vec<Block> {
    let names = measured(d);
    let rates: Vec<f64> = {
        let mut v: Vec<f64> = d.results.iter().filter(|r| r.bench == "supervised").filter_map(|r| r.params.kill_rate).collect();
        v.sort_by(f64::total_cmp);
        v.dedup();
        v
    };
    let ps = values(d, "supervised", |r| r.params.pairs);
    if rates.is_empty() || ps.is_empty() {
        return Vec::new();
    }
    let mut doc = vec![
        Block::Heading(3, format!("Processes that crash under a supervisor (micro run {}, {})", d.run.id, d.run.profile)),
        Block::Para(format!(
            "The SAC 2018 paper's future work (its §5): \"{FUTURE_WORK}\" The pairs of its Figure 5 under each runtime's own supervision \
             (spec/MICRO.md §4.7: OTP supervisors, Pekko's restart strategy, a supervising goroutine, task or thread per pair, a structured \
             scope), while a killer ends K% of the processes a second by the runtime's own way of ending one from outside; a killed \
             process's pair is started again as a whole. Messages: delivered a second, across every generation of every pair. Restart: \
             from the kill to the replacement's first instruction (median, 99th percentile); where replacements first ran only after the \
             run's end (\"ran after the stop\"), the scheduler kept them from running while the other pairs were busy, and the latency \
             says how long that was, not what a restart costs. Lost: counted sent, never received; at most one per kill. One cold \
             process per point on {} CPU(s), medians over repeats.",
            d.run.environment.logical_cpus
        )),
    ];
    let palette = palette(d);
    let pick = |n: &str, c: u32, p: u64, k: f64, f: &dyn Fn(&MicroRecord) -> Option<f64>| {
        median(d, n, "supervised", Some(c), |x| x.params.pairs == Some(p) && x.params.kill_rate == Some(k), |x| f(x))
    };
    let cores = values(d, "supervised", |r| Some(r.cores as u64));
    for &c in &cores {
        for &p in &ps {
            let title = format!("{p} supervised pairs on {c} core(s): messages a second against the kill rate");
            let lines = names
                .iter()
                .map(|n| Line { name: n.clone(), style: palette.style(n), points: rates.iter().filter_map(|&k| pick(n, c as u32, p, k, &|x| x.messages_per_s).map(|v| (k, v))).collect(), mark: None })
                .filter(|l| !l.points.is_empty())
                .collect();
            doc.push(Block::Chart(micro_charts::draw(&Spec { title: &title, x_desc: "processes killed a second (%)", y_desc: "messages/s", log_x: false, log_y: false, lines })));
            let header = ["Implementation", "Killed a second (%)", "M msg/s", "Killed", "Lost", "Restart p50 (ms)", "p99 (ms)", "Replacements first run after the stop"];
            let mut t = Table::new(format!("{p} supervised pairs on {c} core(s)"), &header).labels(2).note("Medians over repeats, each figure on its own.");
            let ms = |v: Option<f64>| v.map_or("–".to_string(), |ns| format!("{:.2}", ns / 1e6));
            for n in &names {
                for &k in &rates {
                    let Some(mps) = pick(n, c as u32, p, k, &|x| x.messages_per_s) else { continue };
                    let sup = |f: fn(&crate::store::micro::Supervision) -> u64| pick(n, c as u32, p, k, &|x| x.supervision.as_ref().map(|s| f(s) as f64));
                    let count = |v: Option<f64>| v.map_or("–".to_string(), |v| thousands(v.round() as u64));
                    t.row(vec![
                        n.clone(),
                        format!("{k}"),
                        format!("{:.2}", mps / 1e6),
                        count(sup(|s| s.kills)),
                        count(sup(|s| s.lost)),
                        ms(sup(|s| s.restart_p50_ns)),
                        ms(sup(|s| s.restart_p99_ns)),
                        count(sup(|s| s.late_restarts)),
                    ]);
                }
            }
            doc.push(Block::Table(t));
        }
    }
    doc
}

/// The "memory of N idle tasks" table: peak RSS, wall time and bytes per task.
fn idle(d: &MicroData, names: &[String], doc: &mut Vec<Block>) {
    let ns = values(d, "idle", |r| r.params.procs);
    if ns.is_empty() {
        return;
    }
    doc.push(Block::Heading(3, "Memory of idle tasks".into()));
    let mut header = vec!["implementation".to_string()];
    for n in &ns {
        header.extend([format!("N={} MiB", short(*n)), format!("N={} s", short(*n))]);
    }
    header.push(format!("bytes/task at N={}", short(*ns.last().unwrap_or(&0))));
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut t = Table::new("Idle tasks: peak RSS and wall time", &header).note("N tasks each sleep M ms on the runtime's timer; peak RSS of the whole program and the time until all have ended.");
    for name in names {
        let mut row = vec![name.clone()];
        for &n in &ns {
            let keep = |x: &MicroRecord| x.params.procs == Some(n);
            row.push(median(d, name, "idle", None, keep, |x| Some(x.peak_rss_bytes as f64)).map_or("–".into(), |b| mib(b as u64)));
            row.push(median(d, name, "idle", None, keep, |x| x.elapsed_ns.map(|e| e as f64 / 1e9)).map_or("–".into(), |s| format!("{s:.2}")));
        }
        let last = *ns.last().unwrap_or(&0);
        row.push(median(d, name, "idle", None, |x| x.params.procs == Some(last), |x| x.bytes_per_proc).map_or("–".into(), |b| thousands(b.max(0.0).round() as u64)));
        t.row(row);
    }
    doc.push(Block::Table(t));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::impls::manifest;
    use crate::store::micro::MicroParams;
    use crate::store::{Environment, ImplStatus, RunStatus};

    fn implementation(name: &str, model: &str) -> ImplRecord {
        let text = format!("name = \"{name}\"\nlanguage = \"x\"\nruntime = \"x\"\nversion = \"true\"\nframework = \"none\"\nmodel = \"{model}\"\n[start]\ncommand = \"./p\"\n");
        let manifest = manifest::parse(std::path::Path::new("concur.toml"), &text, name).unwrap();
        ImplRecord { name: name.into(), status: ImplStatus::Verified, reason: None, version: String::new(), manifest, known_failures: vec![] }
    }

    fn pairs(name: &str, p: u64, mps: f64) -> MicroRecord {
        MicroRecord {
            key: format!("{name}/pairs/P={p}/cores=2/r1"),
            implementation: name.into(),
            bench: "pairs".into(),
            params: MicroParams { pairs: Some(p), ..Default::default() },
            cores: 2,
            repeat: 1,
            started_at: String::new(),
            status: MicroStatus::Ok,
            reason: None,
            exit_code: Some(0),
            signal: None,
            wall_s: 1.0,
            ops: None,
            elapsed_ns: None,
            ns_per_op: None,
            messages_per_s: Some(mps),
            min_pair_round_trips: None,
            supervision: None,
            peak_rss_bytes: 1 << 20,
            group_rss_peak_bytes: 1 << 20,
            os_processes_max: 1,
            baseline_rss_bytes: None,
            bytes_per_proc: None,
            line: None,
            stderr_tail: String::new(),
        }
    }

    /// The complaint: in the micro charts c-pthreads and rust-tokio were two similar colours.
    #[test]
    fn c_pthreads_and_rust_tokio_are_drawn_in_their_models_hues() {
        let run = RunInfo {
            id: 1,
            started_at: String::new(),
            finished_at: None,
            status: RunStatus::Finished,
            profile: "micro:quick".into(),
            plan_key: String::new(),
            plan: serde_json::json!({}),
            environment: Environment::default(),
            notes: vec![],
        };
        let names = [("c-pthreads", "os-threads"), ("erlang", "actors"), ("go", "green-threads"), ("rust-tokio", "async-tasks")];
        let results = names.iter().flat_map(|(n, _)| [pairs(n, 1, 2e6), pairs(n, 8, 5e6)]).collect();
        let d = MicroData { run, implementations: names.iter().map(|(n, m)| implementation(n, m)).collect(), results, searches: vec![] };
        let svg = blocks(&d).into_iter().find_map(|b| if let Block::Chart(svg) = b { Some(svg) } else { None }).expect("a pairs chart");
        let p = palette(&d);
        let hex = |n: &str| {
            let c = p.style(n).colour;
            format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
        };
        assert_ne!(hex("c-pthreads"), hex("rust-tokio"));
        for (n, _) in names {
            assert!(svg.contains(&format!("stroke=\"{}\"", hex(n))), "{n}'s line is not drawn in {}:\n{svg}", hex(n));
        }
        assert!(svg.contains("data-plot-area="), "the legend is laid out beside the plot");
    }
}
