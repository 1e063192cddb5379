//! A micro profile plus the flags become a plan: for every implementation
//! the same list of tasks, each one invocation (one benchmark, one fresh
//! process) or one maximum-processes search. The plan is stored with the run
//! so the report can say exactly what was asked.

use super::bench::{self, Bench};
use super::profile::{self, Cores, MicroProfile, Section};
use crate::store::micro::MicroParams;
use anyhow::{Result, bail};
use serde::Serialize;

/// The watchdog passed as `--timeout` when the profile sets none (spec/MICRO.md §2's default).
const DEFAULT_TIMEOUT_S: f64 = 300.0;

/// What the command line sets over the profile, for every benchmark.
#[derive(Debug, Clone, Default)]
pub struct Flags {
    /// Benchmarks to run by name; empty: every one the profile has a section for.
    pub bench: Vec<String>,
    /// Core counts; empty: the profile's.
    pub cores: Vec<u32>,
    pub repeat: Option<u32>,
    /// `8G`, `512M`, bytes or a share of memory (`50%`).
    pub mem_budget: Option<String>,
}

/// Everything `concur micro` will do, before it does any of it.
#[derive(Debug, Clone, Serialize)]
pub struct MicroPlan {
    pub profile: String,
    pub description: String,
    /// Enforced from outside on every invocation's process group.
    pub budget_bytes: u64,
    /// The programs' watchdog before a benchmark's own run length is added.
    pub timeout_s: f64,
    pub implementations: Vec<String>,
    /// The same for every implementation, in order.
    pub tasks: Vec<Task>,
    /// What the reader should know: core counts skipped, baselines added.
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Task {
    Run(Invocation),
    /// maxprocs with growing N until a step fails or the steps run out (§4.4).
    Search(SearchSpec),
}

/// One program invocation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Invocation {
    pub bench: Bench,
    pub params: MicroParams,
    pub cores: u32,
    /// 1-based.
    pub repeat: u32,
    /// The program's `--timeout`: the profile's watchdog plus the run length of pairs, supervised and idle.
    pub timeout_s: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearchSpec {
    pub cores: u32,
    pub repeat: u32,
    pub steps: Vec<u64>,
    pub timeout_s: f64,
}

impl Invocation {
    /// Unique within a run: `go/pingping/size=5120,reps=1000/cores=2/1`.
    pub fn key(&self, implementation: &str) -> String {
        format!("{implementation}/{}/{}/cores={}/{}", self.bench, bench::describe(&self.params).replace(' ', ","), self.cores, self.repeat)
    }
}

impl Task {
    /// Seconds of work the plan can count on (run lengths only; start-up comes on top).
    pub fn fixed_seconds(&self) -> f64 {
        match self {
            Task::Run(i) => bench::fixed_seconds(&i.params),
            Task::Search(_) => 0.0,
        }
    }
}

/// Resolves `profile` and the flags for a machine with `cpus` CPUs and `memory` bytes.
pub fn resolve(name: &str, profile: &MicroProfile, args: &Flags, implementations: Vec<String>, cpus: u32, memory: u64) -> Result<MicroPlan> {
    let benches = chosen_benches(profile, &args.bench, name)?;
    let mut notes = Vec::new();
    let budget_text = args.mem_budget.clone().or_else(|| profile.mem_budget.clone()).unwrap_or_else(|| "50%".into());
    let budget_bytes = profile::parse_budget(&budget_text, memory).map_err(|e| anyhow::anyhow!("--mem-budget {e}"))?;
    if memory > 0 && budget_bytes > memory {
        notes.push(format!("the memory budget {budget_text} is more than this machine's {} MiB: the kernel, not concur, may stop the largest runs", memory >> 20));
    }
    let timeout_s = match &profile.timeout {
        Some(t) => crate::run::parse_seconds(t).map_err(anyhow::Error::msg)?,
        None => DEFAULT_TIMEOUT_S,
    };
    let flag_cores = (!args.cores.is_empty()).then(|| Cores::List(args.cores.clone()));
    let mut tasks = Vec::new();
    for &b in &benches {
        let section = profile.section(b).expect("chosen_benches keeps benchmarks with a section");
        let cores = cores_of(flag_cores.as_ref().or(section.cores.as_ref()).unwrap_or(&profile.cores), cpus, b, &mut notes);
        let repeat = args.repeat.or(section.repeat).unwrap_or(profile.repeat);
        if b == Bench::Maxprocs {
            for &c in &cores {
                tasks.extend((1..=repeat).map(|r| Task::Search(SearchSpec { cores: c, repeat: r, steps: section.steps(), timeout_s })));
            }
            continue;
        }
        for params in param_sets(b, section) {
            for &c in &cores {
                let timeout = timeout_s + bench::fixed_seconds(&params);
                tasks.extend((1..=repeat).map(|r| Task::Run(Invocation { bench: b, params: params.clone(), cores: c, repeat: r, timeout_s: timeout })));
            }
        }
    }
    add_baselines(&mut tasks, timeout_s, &mut notes);
    Ok(MicroPlan { profile: name.to_string(), description: profile.description.clone(), budget_bytes, timeout_s, implementations, tasks, notes })
}

fn chosen_benches(profile: &MicroProfile, asked: &[String], name: &str) -> Result<Vec<Bench>> {
    if asked.is_empty() {
        return Ok(Bench::ALL.into_iter().filter(|&b| profile.section(b).is_some()).collect());
    }
    let mut out = Vec::new();
    for a in asked {
        let Some(b) = Bench::parse(a) else {
            bail!("--bench {a}: no such benchmark; choose from pingping, pingpong, spawn, maxprocs, pairs, idle, supervised");
        };
        if profile.section(b).is_none() {
            bail!("--bench {a}: spec/profiles/micro/{name}.toml has no [{a}] section; add one or pick another profile");
        }
        if !out.contains(&b) {
            out.push(b);
        }
    }
    out.sort();
    Ok(out)
}

fn cores_of(cores: &Cores, cpus: u32, b: Bench, notes: &mut Vec<String>) -> Vec<u32> {
    let (fit, skipped) = cores.resolve(cpus);
    if !skipped.is_empty() {
        let list: Vec<String> = skipped.iter().map(u32::to_string).collect();
        notes.push(format!("{b}: cores {} skipped: this machine lets concur use {cpus} CPUs", list.join(", ")));
    }
    fit
}

/// Every combination of a benchmark's parameter lists, in the profile's order.
fn param_sets(b: Bench, s: &Section) -> Vec<MicroParams> {
    let list = |v: &Option<Vec<u64>>| v.clone().unwrap_or_default();
    match b {
        Bench::Pingping => list(&s.size)
            .into_iter()
            .flat_map(|size| list(&s.reps).into_iter().map(move |reps| MicroParams { size: Some(size), reps: Some(reps), ..Default::default() }))
            .collect(),
        Bench::Pingpong => list(&s.reps).into_iter().map(|reps| MicroParams { reps: Some(reps), ..Default::default() }).collect(),
        Bench::Spawn | Bench::Maxprocs => list(&s.procs).into_iter().map(|n| MicroParams { procs: Some(n), ..Default::default() }).collect(),
        Bench::Pairs => list(&s.pairs).into_iter().map(|p| MicroParams { pairs: Some(p), seconds: s.seconds, ..Default::default() }).collect(),
        Bench::Idle => list(&s.procs).into_iter().map(|n| MicroParams { procs: Some(n), sleep_ms: s.sleep_ms, ..Default::default() }).collect(),
        Bench::Supervised => list(&s.pairs)
            .into_iter()
            .flat_map(|p| s.kill_rate.clone().unwrap_or_default().into_iter().map(move |k| MicroParams { pairs: Some(p), seconds: s.seconds, kill_rate: Some(k), ..Default::default() }))
            .collect(),
    }
}

/// Bytes per process subtract the peak of `spawn --procs 1` at the same core
/// count (§4.3): it is added, first, wherever spawn, maxprocs or idle runs
/// without one, and any planned one moves to the front.
fn add_baselines(tasks: &mut Vec<Task>, timeout_s: f64, notes: &mut Vec<String>) {
    let is_baseline = |t: &Task| matches!(t, Task::Run(i) if i.bench == Bench::Spawn && i.params.procs == Some(1));
    let mut cores: Vec<u32> = tasks
        .iter()
        .filter_map(|t| match t {
            Task::Run(i) if i.bench.counts_memory() => Some(i.cores),
            Task::Search(s) => Some(s.cores),
            _ => None,
        })
        .collect();
    cores.sort();
    cores.dedup();
    let (mut front, rest): (Vec<Task>, Vec<Task>) = std::mem::take(tasks).into_iter().partition(is_baseline);
    for c in cores {
        if !front.iter().any(|t| matches!(t, Task::Run(i) if i.cores == c)) {
            notes.push(format!("spawn --procs 1 at {c} cores added: the baseline that bytes per process subtracts"));
            let params = MicroParams { procs: Some(1), ..Default::default() };
            front.push(Task::Run(Invocation { bench: Bench::Spawn, params, cores: c, repeat: 1, timeout_s }));
        }
    }
    front.extend(rest);
    *tasks = front;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The flags of a test: `--bench`, `--cores`, `--repeat`, `--mem-budget` as their values.
    fn args(bench: &[&str], cores: &[u32], repeat: Option<u32>, mem_budget: Option<&str>) -> Flags {
        Flags { bench: bench.iter().map(|b| b.to_string()).collect(), cores: cores.to_vec(), repeat, mem_budget: mem_budget.map(str::to_string) }
    }

    fn quick() -> MicroProfile {
        profile::load(std::path::Path::new(env!("CARGO_MANIFEST_DIR")), "quick").unwrap()
    }

    fn runs(plan: &MicroPlan) -> Vec<&Invocation> {
        plan.tasks.iter().filter_map(|t| if let Task::Run(i) = t { Some(i) } else { None }).collect()
    }

    #[test]
    fn quick_on_two_cores_has_every_benchmark_and_the_baseline_first() {
        let plan = resolve("quick", &quick(), &args(&[], &[], None, None), vec!["go".into()], 2, 24 << 30).unwrap();
        assert_eq!(plan.budget_bytes, 8 << 30);
        let first = runs(&plan)[0];
        assert_eq!((first.bench, first.params.procs, first.cores), (Bench::Spawn, Some(1), 2));
        let pairs: Vec<(u64, u32)> = runs(&plan).iter().filter(|i| i.bench == Bench::Pairs).map(|i| (i.params.pairs.unwrap(), i.cores)).collect();
        assert_eq!(pairs.len(), 4, "1 and 128 pairs at 1 and 2 cores");
        assert!(pairs.contains(&(128, 1)) && pairs.contains(&(128, 2)));
        assert!(!plan.tasks.iter().any(|t| matches!(t, Task::Search(_))), "quick leaves the maxprocs search to paper");
        let pairs_timeout = runs(&plan).iter().find(|i| i.bench == Bench::Pairs).unwrap().timeout_s;
        assert_eq!(pairs_timeout, 61.0);
        let supervised: Vec<(Option<u64>, Option<f64>)> = runs(&plan).iter().filter(|i| i.bench == Bench::Supervised).map(|i| (i.params.pairs, i.params.kill_rate)).collect();
        assert_eq!(supervised, [0.0, 1.0, 5.0, 20.0].map(|k| (Some(256), Some(k))), "256 pairs at four kill rates");
        let key = runs(&plan).iter().find(|i| i.bench == Bench::Supervised).unwrap().key("go");
        assert_eq!(key, "go/supervised/pairs=256,seconds=1,kill_rate=0/cores=2/1");
    }

    #[test]
    fn flags_narrow_the_profile_and_baselines_follow() {
        let paper = profile::load(std::path::Path::new(env!("CARGO_MANIFEST_DIR")), "paper").unwrap();
        let plan = resolve("paper", &paper, &args(&["maxprocs"], &[1], None, Some("1G")), vec![], 2, 24 << 30).unwrap();
        assert_eq!(plan.budget_bytes, 1 << 30);
        let kinds: Vec<String> = plan.tasks.iter().map(|t| serde_json::to_value(t).unwrap()["kind"].as_str().unwrap().to_string()).collect();
        assert_eq!(kinds, ["run", "search"]);
        assert!(plan.notes.iter().any(|n| n.contains("baseline")), "{:?}", plan.notes);
        let only_pingpong = resolve("quick", &quick(), &args(&["pingpong"], &[], Some(1), None), vec![], 2, 0).unwrap();
        assert_eq!(runs(&only_pingpong).len(), 2);
    }

    #[test]
    fn unknown_benchmarks_and_big_core_counts_are_explained() {
        let err = resolve("quick", &quick(), &args(&["ping"], &[], None, None), vec![], 2, 0).unwrap_err().to_string();
        assert!(err.contains("--bench ping: no such benchmark"), "{err}");
        let plan = resolve("quick", &quick(), &args(&["pingpong"], &[1, 4], None, None), vec![], 2, 0).unwrap();
        assert!(plan.notes.iter().any(|n| n.contains("cores 4 skipped")), "{:?}", plan.notes);
        assert!(runs(&plan).iter().all(|i| i.cores == 1));
    }

    #[test]
    fn keys_name_every_parameter() {
        let i = Invocation { bench: Bench::Pingping, params: MicroParams { size: Some(5120), reps: Some(1000), ..Default::default() }, cores: 2, repeat: 1, timeout_s: 60.0 };
        assert_eq!(i.key("go"), "go/pingping/size=5120,reps=1000/cores=2/1");
    }
}
