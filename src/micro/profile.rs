//! Micro profiles (`spec/profiles/micro/<name>.toml`): the parameters of
//! spec/MICRO.md §5 written down once (`quick`, `paper`). They live in a
//! folder of their own because their shape differs from `concur run`'s
//! profiles. Only parsing and validation live here; `plan` combines a profile
//! with the flags.

use super::bench::Bench;
use crate::host::profile::{self, Folder};
use anyhow::{Result, bail};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// One profile file.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MicroProfile {
    /// One sentence for `--dry-run` and the report.
    pub description: String,
    /// Repeats of every invocation (each a fresh process).
    #[serde(default = "profile::one")]
    pub repeat: u32,
    /// Core counts: `"all"` (this machine's CPUs), `"each"` (1 … all) or a list.
    #[serde(default)]
    pub cores: Cores,
    /// The programs' watchdog (`--timeout`), e.g. `"60s"`; pairs and idle add their run length.
    pub timeout: Option<String>,
    /// Memory budget enforced from outside: bytes (`"8G"`, `"512M"`) or a share of this machine's memory (`"50%"`).
    pub mem_budget: Option<String>,
    pub pingping: Option<Section>,
    pub pingpong: Option<Section>,
    pub spawn: Option<Section>,
    pub maxprocs: Option<Section>,
    pub pairs: Option<Section>,
    pub idle: Option<Section>,
    pub supervised: Option<Section>,
}

/// Core counts of a profile or of one benchmark.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(untagged)]
pub enum Cores {
    /// `"all"` or `"each"`.
    Named(String),
    List(Vec<u32>),
}

impl Default for Cores {
    fn default() -> Cores {
        Cores::Named("all".into())
    }
}

impl Cores {
    /// The core counts on a machine with `cpus` CPUs; counts above it are returned apart.
    pub fn resolve(&self, cpus: u32) -> (Vec<u32>, Vec<u32>) {
        match self {
            Cores::Named(n) if n == "each" => ((1..=cpus).collect(), vec![]),
            Cores::Named(_) => (vec![cpus], vec![]),
            Cores::List(list) => list.iter().partition(|&&c| c <= cpus),
        }
    }
}

/// One benchmark's parameters; which fields apply depends on the benchmark.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Section {
    pub size: Option<Vec<u64>>,
    pub reps: Option<Vec<u64>>,
    /// spawn, idle: the N swept; maxprocs: the explicit steps of the search.
    pub procs: Option<Vec<u64>>,
    pub pairs: Option<Vec<u64>>,
    pub seconds: Option<f64>,
    pub sleep_ms: Option<u64>,
    /// supervised: the kill rates swept, percent of the processes a second.
    pub kill_rate: Option<Vec<f64>>,
    /// maxprocs: the first N of a geometric search (instead of `procs`).
    pub start: Option<u64>,
    /// maxprocs: the factor between steps (default 2).
    pub factor: Option<u64>,
    /// maxprocs: the largest N tried; passing it stops the search as `limit`.
    pub limit: Option<u64>,
    pub repeat: Option<u32>,
    pub cores: Option<Cores>,
}

impl MicroProfile {
    pub fn section(&self, bench: Bench) -> Option<&Section> {
        match bench {
            Bench::Pingping => self.pingping.as_ref(),
            Bench::Pingpong => self.pingpong.as_ref(),
            Bench::Spawn => self.spawn.as_ref(),
            Bench::Maxprocs => self.maxprocs.as_ref(),
            Bench::Pairs => self.pairs.as_ref(),
            Bench::Idle => self.idle.as_ref(),
            Bench::Supervised => self.supervised.as_ref(),
        }
    }
}

impl Section {
    /// The maxprocs steps: the explicit list, or start × factorᵏ up to limit.
    pub fn steps(&self) -> Vec<u64> {
        if let Some(list) = &self.procs {
            return list.clone();
        }
        let (Some(start), Some(limit)) = (self.start, self.limit) else { return vec![] };
        let factor = self.factor.unwrap_or(2).max(2);
        std::iter::successors(Some(start), |n| n.checked_mul(factor)).take_while(|&n| n <= limit).collect()
    }
}

/// The folder holding the micro profiles.
pub const FOLDER: Folder = Folder { path: "spec/profiles/micro", what: "micro profiles" };

/// Reads `spec/profiles/micro/<name>.toml`.
pub fn load(root: &Path, name: &str) -> Result<MicroProfile> {
    let (shown, text) = FOLDER.read(root, name)?;
    parse(&shown, &text)
}

/// Parses one profile; `shown` names the file in errors.
pub fn parse(shown: &str, text: &str) -> Result<MicroProfile> {
    let p: MicroProfile = profile::parse(shown, text)?;
    profile::check_repeat(shown, p.repeat)?;
    check_cores(shown, "cores", &p.cores)?;
    if let Some(t) = &p.timeout {
        crate::host::duration::parse_seconds(t).map_err(|e| anyhow::anyhow!("{shown}: 'timeout': {e}"))?;
    }
    if let Some(b) = &p.mem_budget {
        parse_budget(b, 1 << 30).map_err(|e| anyhow::anyhow!("{shown}: 'mem_budget': {e}"))?;
    }
    for bench in Bench::ALL {
        if let Some(s) = p.section(bench) {
            check_section(shown, bench, s)?;
        }
    }
    Ok(p)
}

fn check_cores(shown: &str, field: &str, cores: &Cores) -> Result<()> {
    match cores {
        Cores::Named(n) if n == "all" || n == "each" => Ok(()),
        Cores::List(l) if !l.is_empty() && !l.contains(&0) => Ok(()),
        _ => bail!("{shown}: '{field}' must be \"all\", \"each\" or a list of counts of at least 1 (e.g. cores = [1, 2])"),
    }
}

fn check_section(shown: &str, bench: Bench, s: &Section) -> Result<()> {
    let set = [
        ("size", s.size.is_some()),
        ("reps", s.reps.is_some()),
        ("procs", s.procs.is_some()),
        ("pairs", s.pairs.is_some()),
        ("seconds", s.seconds.is_some()),
        ("sleep_ms", s.sleep_ms.is_some()),
        ("kill_rate", s.kill_rate.is_some()),
        ("start", s.start.is_some()),
        ("factor", s.factor.is_some()),
        ("limit", s.limit.is_some()),
    ];
    let allowed: &[&str] = if bench == Bench::Maxprocs { &["procs", "start", "factor", "limit"] } else { bench.param_names() };
    if let Some((field, _)) = set.iter().find(|(f, is)| *is && !allowed.contains(f)) {
        bail!("{shown}: [{bench}] '{field}' is not a parameter of {bench}; it takes {}", allowed.join(", "));
    }
    let lists = [("size", &s.size), ("reps", &s.reps), ("procs", &s.procs), ("pairs", &s.pairs)];
    for (field, list) in lists {
        if list.as_ref().is_some_and(|l| l.is_empty() || l.contains(&0)) {
            bail!("{shown}: [{bench}] '{field}' must be a non-empty list of numbers of at least 1");
        }
    }
    if bench == Bench::Maxprocs {
        let geometric = s.start.is_some() || s.limit.is_some() || s.factor.is_some();
        if s.procs.is_some() == geometric || (geometric && (s.start.is_none() || s.limit.is_none())) {
            bail!("{shown}: [maxprocs] needs either 'procs' (the steps, e.g. procs = [100000, 1000000]) or 'start' and 'limit' (N doubling, e.g. start = 1000000, limit = 1024000000)");
        }
        if s.factor.is_some_and(|f| f < 2) || s.steps().is_empty() {
            bail!("{shown}: [maxprocs] gives no step: 'factor' must be at least 2 and 'start' at most 'limit'");
        }
    } else {
        for &field in bench.param_names() {
            if !set.iter().any(|(f, is)| *f == field && *is) {
                bail!("{shown}: [{bench}] '{field}' is missing (it takes {})", bench.param_names().join(", "));
            }
        }
    }
    if s.kill_rate.as_ref().is_some_and(|l| l.is_empty() || l.iter().any(|k| !(0.0..=1000.0).contains(k))) {
        bail!("{shown}: [{bench}] 'kill_rate' must be a non-empty list of percentages of the processes a second, 0 to 1000 (e.g. kill_rate = [0, 1, 5, 20])");
    }
    if s.seconds.is_some_and(|d| !(d > 0.0 && d.is_finite())) {
        bail!("{shown}: [{bench}] 'seconds' must be above 0 (e.g. seconds = 1)");
    }
    if s.repeat == Some(0) {
        bail!("{shown}: [{bench}] 'repeat' must be at least 1");
    }
    if let Some(c) = &s.cores {
        check_cores(shown, &format!("[{bench}] cores"), c)?;
    }
    Ok(())
}

/// A memory budget: `8G`, `8GiB`, `512M`, `1.5G`, plain bytes, or `50%` of `memory` bytes.
/// Suffixes are binary (G = GiB), as `free -g` and the JVM's `-Xmx` read them.
pub fn parse_budget(text: &str, memory: u64) -> Result<u64, String> {
    let t = text.trim();
    let fail = || format!("'{text}' is not a memory size (e.g. 8G, 512M, 1073741824 or 50%)");
    if let Some(pct) = t.strip_suffix('%') {
        let p: f64 = pct.trim().parse().map_err(|_| fail())?;
        if !(p > 0.0 && p <= 100.0) {
            return Err(format!("'{text}': a share of memory must be above 0% and at most 100%"));
        }
        return Ok((memory as f64 * p / 100.0) as u64);
    }
    let lower = t.to_ascii_lowercase();
    let number_end = lower.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(lower.len());
    let (num, unit) = lower.split_at(number_end);
    let shift = match unit.trim().trim_end_matches("ib").trim_end_matches('b') {
        "" => 0,
        "k" => 10,
        "m" => 20,
        "g" => 30,
        "t" => 40,
        _ => return Err(fail()),
    };
    let n: f64 = num.parse().map_err(|_| fail())?;
    let bytes = n * (1u64 << shift) as f64;
    if bytes.is_nan() || bytes < 1.0 {
        return Err(fail());
    }
    Ok(bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_read_like_free_and_the_jvm() {
        assert_eq!(parse_budget("8G", 0), Ok(8 << 30));
        assert_eq!(parse_budget("8GiB", 0), Ok(8 << 30));
        assert_eq!(parse_budget("512m", 0), Ok(512 << 20));
        assert_eq!(parse_budget("1.5G", 0), Ok(3 << 29));
        assert_eq!(parse_budget("4096", 0), Ok(4096));
        assert_eq!(parse_budget("50%", 1000), Ok(500));
        assert!(parse_budget("8 parsecs", 0).unwrap_err().contains("is not a memory size"));
        assert!(parse_budget("150%", 1000).is_err());
    }

    #[test]
    fn geometric_steps_stop_at_the_limit() {
        let s = Section { start: Some(1_000_000), limit: Some(8_000_000), ..Default::default() };
        assert_eq!(s.steps(), vec![1_000_000, 2_000_000, 4_000_000, 8_000_000]);
    }

    #[test]
    fn a_parameter_of_another_benchmark_is_refused() {
        let err = parse("p.toml", "description = \"d\"\n[pingpong]\nreps = [1]\nsize = [5]\n").unwrap_err().to_string();
        assert!(err.contains("[pingpong] 'size' is not a parameter of pingpong; it takes reps"), "{err}");
    }

    #[test]
    fn a_kill_rate_out_of_range_is_refused() {
        let err = parse("p.toml", "description = \"d\"\n[supervised]\npairs = [8]\nseconds = 1\nkill_rate = [5, -1]\n").unwrap_err().to_string();
        assert!(err.contains("[supervised] 'kill_rate' must be a non-empty list of percentages"), "{err}");
        let err = parse("p.toml", "description = \"d\"\n[pairs]\npairs = [8]\nseconds = 1\nkill_rate = [5]\n").unwrap_err().to_string();
        assert!(err.contains("[pairs] 'kill_rate' is not a parameter of pairs"), "{err}");
    }

    #[test]
    fn a_missing_parameter_is_named() {
        let err = parse("p.toml", "description = \"d\"\n[pingping]\nreps = [1]\n").unwrap_err().to_string();
        assert!(err.contains("[pingping] 'size' is missing"), "{err}");
        let err = parse("p.toml", "description = \"d\"\n[maxprocs]\nstart = 5\n").unwrap_err().to_string();
        assert!(err.contains("[maxprocs] needs either 'procs'"), "{err}");
    }

    #[test]
    fn the_shipped_profiles_parse() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let paper = load(root, "paper").unwrap();
        assert!(Bench::ALL.iter().all(|&b| paper.section(b).is_some()), "paper lacks a benchmark");
        // quick leaves the maximum-processes search to paper (its profile says why).
        let quick = load(root, "quick").unwrap();
        let missing: Vec<Bench> = Bench::ALL.into_iter().filter(|&b| quick.section(b).is_none()).collect();
        assert_eq!(missing, [Bench::Maxprocs]);
    }

    #[test]
    fn cores_resolve_against_the_machine() {
        assert_eq!(Cores::Named("all".into()).resolve(4), (vec![4], vec![]));
        assert_eq!(Cores::Named("each".into()).resolve(3), (vec![1, 2, 3], vec![]));
        assert_eq!(Cores::List(vec![1, 2, 8]).resolve(2), (vec![1, 2], vec![8]));
    }
}
