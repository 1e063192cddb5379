//! One invocation of a micro program turned into a stored record: the
//! command and environment of spec/MICRO.md §2 and §6, the program run and
//! measured (`exec`), its line validated (`line`), and memory per process
//! computed against the runtime's one-process baseline (§4.3). A failure is a
//! record with its reason, never an error: at large N failing is a result.

use super::bench::{self, Bench};
use super::exec::{self, End, Launch, Outcome};
use super::line::{self, Asked};
use super::plan::Invocation;
use crate::impls::Implementation;
use crate::store::micro::{MicroRecord, MicroStatus, SearchStop};
use anyhow::Result;
use std::collections::HashMap;
use std::time::Duration;

/// concur's own limit beyond the program's watchdog: VM start-up, teardown of a million processes.
const OUTER_GRACE_S: f64 = 30.0;

/// A record, and for a failure how a maxprocs search would name it (§4.4).
pub struct Taken {
    pub record: MicroRecord,
    pub stop: Option<SearchStop>,
}

/// Peak RSS of the one-process runs, per implementation, benchmark and core count.
#[derive(Default)]
pub struct Baselines(HashMap<(String, Bench, u32), Vec<u64>>);

impl Baselines {
    /// Remembers `r` if it is a successful one-process spawn or idle run.
    pub fn note(&mut self, r: &MicroRecord) {
        let Some(b) = Bench::parse(&r.bench).filter(|b| matches!(b, Bench::Spawn | Bench::Idle)) else { return };
        if r.status == MicroStatus::Ok && r.params.procs == Some(1) {
            self.0.entry((r.implementation.clone(), b, r.cores)).or_default().push(r.peak_rss_bytes);
        }
    }

    /// The median baseline peak for `bench`: idle's own one-task run when there
    /// is one (it includes the timer machinery), else `spawn --procs 1`.
    pub fn get(&self, implementation: &str, bench: Bench, cores: u32) -> Option<u64> {
        let of = |b: Bench| self.0.get(&(implementation.to_string(), b, cores)).filter(|v| !v.is_empty());
        let peaks = if bench == Bench::Idle { of(Bench::Idle).or_else(|| of(Bench::Spawn)) } else { of(Bench::Spawn) }?;
        let mut sorted = peaks.clone();
        sorted.sort_unstable();
        Some(sorted[sorted.len() / 2])
    }
}

/// Runs `inv` for `imp`; `None` when Ctrl-C discarded it.
pub fn measure(imp: &Implementation, inv: &Invocation, budget_bytes: u64, baselines: &Baselines) -> Result<Option<Taken>> {
    let started_at = crate::host::env::now_rfc3339();
    let out = exec::run(&launch(imp, inv, budget_bytes)?)?;
    if out.end == End::Interrupted {
        return Ok(None);
    }
    let mut record = blank(imp, inv, started_at, &out);
    let stop = judge(imp, inv, &out, budget_bytes, &mut record);
    if record.status == MicroStatus::Ok && inv.bench.counts_memory() && inv.params.procs.is_some_and(|n| n > 1) {
        record.baseline_rss_bytes = baselines.get(imp.name(), inv.bench, inv.cores);
        record.bytes_per_proc = record.baseline_rss_bytes.map(|b| (record.peak_rss_bytes as f64 - b as f64) / inv.params.procs.unwrap_or(1) as f64);
    }
    Ok(Some(Taken { record, stop }))
}

/// The command of §2: the start command (made to `exec`) and the arguments;
/// `CONCUR_CORES` and the manifest's `[cores].env`; the first C CPUs.
pub fn launch(imp: &Implementation, inv: &Invocation, budget_bytes: u64) -> Result<Launch> {
    let cores = inv.cores.to_string();
    let start = imp.manifest.start.command.replace("{cores}", &cores);
    let start = if start.trim_start().starts_with("exec ") { start } else { format!("exec {start}") };
    let args = bench::argv(inv.bench, &inv.params, inv.cores, inv.timeout_s);
    let mut env = vec![("CONCUR_CORES".to_string(), cores.clone())];
    env.extend(imp.manifest.cores.env.iter().map(|(k, v)| (k.clone(), v.replace("{cores}", &cores))));
    // C cores are the first C CPUs this process may use.
    let allowed = crate::host::affinity::available();
    if allowed.len() < inv.cores as usize {
        anyhow::bail!("{} cores asked, but concur may use only CPUs {:?}", inv.cores, allowed);
    }
    Ok(Launch {
        dir: imp.dir.clone(),
        script: format!("{start} {}", args.join(" ")),
        env,
        cpus: allowed[..inv.cores as usize].to_vec(),
        budget_bytes,
        limit: Duration::from_secs_f64(inv.timeout_s + OUTER_GRACE_S),
    })
}

fn blank(imp: &Implementation, inv: &Invocation, started_at: String, out: &Outcome) -> MicroRecord {
    MicroRecord {
        key: inv.key(imp.name()),
        implementation: imp.name().to_string(),
        bench: inv.bench.as_str().to_string(),
        params: inv.params.clone(),
        cores: inv.cores,
        repeat: inv.repeat,
        started_at,
        status: MicroStatus::Failed,
        reason: None,
        exit_code: None,
        signal: None,
        wall_s: out.wall.as_secs_f64(),
        ops: None,
        elapsed_ns: None,
        ns_per_op: None,
        messages_per_s: None,
        min_pair_round_trips: None,
        supervision: None,
        peak_rss_bytes: out.peak_rss_bytes,
        group_rss_peak_bytes: out.group_rss_peak_bytes,
        os_processes_max: out.processes_max,
        baseline_rss_bytes: None,
        bytes_per_proc: None,
        line: None,
        stderr_tail: tail(&out.stderr, 20, 4096),
    }
}

/// Fills status, reason and the line's numbers; returns the search's stop for a failure.
fn judge(imp: &Implementation, inv: &Invocation, out: &Outcome, budget_bytes: u64, r: &mut MicroRecord) -> Option<SearchStop> {
    let said = last_line(&out.stderr);
    let (status, reason, stop) = match out.end {
        End::Exited(0) => {
            let asked = Asked { bench: inv.bench, runtime: imp.name(), params: &inv.params, cores: inv.cores };
            r.exit_code = Some(0);
            r.line = out.stdout.lines().find(|l| !l.trim().is_empty()).map(str::to_string);
            match line::parse_and_validate(&out.stdout, &asked) {
                Ok(l) => {
                    r.ops = Some(l.ops);
                    r.elapsed_ns = Some(l.elapsed_ns);
                    r.ns_per_op = Some(l.ns_per_op);
                    r.messages_per_s = l.messages_per_s;
                    r.min_pair_round_trips = l.min_pair_round_trips;
                    r.supervision = l.supervision();
                    (MicroStatus::Ok, None, None)
                }
                Err(e) => (MicroStatus::Failed, Some(format!("exit 0, but {e}")), Some(SearchStop::Invalid)),
            }
        }
        End::Exited(code) => {
            r.exit_code = Some(code);
            let usage = if code == 2 { " (a usage error: the program and spec/MICRO.md §2 disagree)" } else { "" };
            (MicroStatus::Failed, Some(format!("exit {code}{usage}: {}", said.unwrap_or("no message on stderr"))), Some(SearchStop::Exit1))
        }
        End::Signaled(sig) => {
            r.signal = Some(sig);
            let oom = if sig == libc::SIGKILL { " (not by concur: the kernel's OOM killer?)" } else { "" };
            let msg = said.map(|s| format!("; stderr: {s}")).unwrap_or_default();
            (MicroStatus::Failed, Some(format!("killed by {}{oom}{msg}", exec::signal_name(sig))), Some(SearchStop::KilledBySignal))
        }
        End::Budget { rss } => (
            MicroStatus::Budget,
            Some(format!("killed at the memory budget: the process group reached {} MiB, over --mem-budget {} MiB", rss >> 20, budget_bytes >> 20)),
            Some(SearchStop::KilledAtBudget),
        ),
        End::Timeout => (
            MicroStatus::Failed,
            Some(format!("no result within {:.0} s (its --timeout {} s plus concur's {OUTER_GRACE_S} s): killed", inv.timeout_s + OUTER_GRACE_S, inv.timeout_s)),
            Some(SearchStop::Timeout),
        ),
        End::Interrupted => unreachable!("measure returns before judging an interrupted run"),
    };
    r.status = status;
    r.reason = reason;
    stop
}

fn last_line(text: &str) -> Option<&str> {
    text.lines().map(str::trim).rfind(|l| !l.is_empty()).map(|l| &l[..l.floor_char_boundary(300)])
}

fn tail(text: &str, lines: usize, bytes: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    let joined = all[all.len().saturating_sub(lines)..].join("\n");
    let cut = joined.len().saturating_sub(bytes);
    joined[joined.ceil_char_boundary(cut)..].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_said_line_is_the_reason() {
        assert_eq!(last_line("a\nruntime: cannot allocate\n\n"), Some("runtime: cannot allocate"));
        assert_eq!(last_line("  \n"), None);
        assert_eq!(tail("1\n2\n3\n4", 2, 100), "3\n4");
        assert_eq!(tail("abcdef", 5, 3), "def");
    }
}
