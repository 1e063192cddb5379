//! The seven benchmarks of spec/MICRO.md §4 and what each one's parameters
//! mean: which flags the program gets (§2), which `params` its result line
//! must echo (§7), and how many messages its checks must count (§4).

use crate::store::micro::MicroParams;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Bench {
    Pingping,
    Pingpong,
    Spawn,
    Maxprocs,
    Pairs,
    Idle,
    /// Pairs under supervision while processes are killed (§4.7).
    Supervised,
}

impl Bench {
    pub const ALL: [Bench; 7] = [Bench::Pingping, Bench::Pingpong, Bench::Spawn, Bench::Maxprocs, Bench::Pairs, Bench::Idle, Bench::Supervised];

    pub fn as_str(self) -> &'static str {
        match self {
            Bench::Pingping => "pingping",
            Bench::Pingpong => "pingpong",
            Bench::Spawn => "spawn",
            Bench::Maxprocs => "maxprocs",
            Bench::Pairs => "pairs",
            Bench::Idle => "idle",
            Bench::Supervised => "supervised",
        }
    }

    pub fn parse(s: &str) -> Option<Bench> {
        Bench::ALL.into_iter().find(|b| b.as_str() == s)
    }

    /// The `params` keys of the result line besides `cores` (§7).
    pub fn param_names(self) -> &'static [&'static str] {
        match self {
            Bench::Pingping => &["size", "reps"],
            Bench::Pingpong => &["reps"],
            Bench::Spawn | Bench::Maxprocs => &["procs"],
            Bench::Pairs => &["pairs", "seconds"],
            Bench::Idle => &["procs", "sleep_ms"],
            Bench::Supervised => &["pairs", "seconds", "kill_rate"],
        }
    }

    /// Whether peak memory per process is reported (§4.3, §4.6).
    pub fn counts_memory(self) -> bool {
        matches!(self, Bench::Spawn | Bench::Maxprocs | Bench::Idle)
    }
}

impl std::fmt::Display for Bench {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `params` as `name=value` pairs in the order of §7, e.g. `size=5120 reps=1000`.
pub fn describe(params: &MicroParams) -> String {
    let mut parts = Vec::new();
    let mut push = |name: &str, v: Option<String>| {
        if let Some(v) = v {
            parts.push(format!("{name}={v}"));
        }
    };
    push("size", params.size.map(|v| v.to_string()));
    push("reps", params.reps.map(|v| v.to_string()));
    push("procs", params.procs.map(|v| v.to_string()));
    push("pairs", params.pairs.map(|v| v.to_string()));
    push("seconds", params.seconds.map(|v| v.to_string()));
    push("sleep_ms", params.sleep_ms.map(|v| v.to_string()));
    push("kill_rate", params.kill_rate.map(|v| v.to_string()));
    parts.join(" ")
}

/// The program's arguments after the start command (§2): the benchmark, every
/// flag it uses, `--cores` and the watchdog.
pub fn argv(bench: Bench, params: &MicroParams, cores: u32, timeout_s: f64) -> Vec<String> {
    let mut args = vec![bench.as_str().to_string()];
    let mut flag = |name: &str, v: Option<String>| {
        if let Some(v) = v {
            args.push(format!("--{name}"));
            args.push(v);
        }
    };
    flag("size", params.size.map(|v| v.to_string()));
    flag("reps", params.reps.map(|v| v.to_string()));
    flag("procs", params.procs.map(|v| v.to_string()));
    flag("pairs", params.pairs.map(|v| v.to_string()));
    flag("seconds", params.seconds.map(|v| v.to_string()));
    flag("sleep-ms", params.sleep_ms.map(|v| v.to_string()));
    flag("kill-rate", params.kill_rate.map(|v| v.to_string()));
    flag("cores", Some(cores.to_string()));
    flag("timeout", Some(format!("{timeout_s}")));
    args
}

/// Seconds the measured work itself lasts at least (pairs' and supervised's D, idle's M).
pub fn fixed_seconds(params: &MicroParams) -> f64 {
    params.seconds.unwrap_or(0.0) + params.sleep_ms.unwrap_or(0) as f64 / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argv_passes_only_the_flags_set() {
        let p = MicroParams { pairs: Some(4), seconds: Some(0.5), ..Default::default() };
        assert_eq!(argv(Bench::Pairs, &p, 2, 60.0).join(" "), "pairs --pairs 4 --seconds 0.5 --cores 2 --timeout 60");
        assert_eq!(describe(&p), "pairs=4 seconds=0.5");
        let s = MicroParams { pairs: Some(256), seconds: Some(1.0), kill_rate: Some(5.0), ..Default::default() };
        assert_eq!(argv(Bench::Supervised, &s, 2, 61.0).join(" "), "supervised --pairs 256 --seconds 1 --kill-rate 5 --cores 2 --timeout 61");
        assert_eq!(describe(&s), "pairs=256 seconds=1 kill_rate=5");
    }

    #[test]
    fn names_round_trip() {
        for b in Bench::ALL {
            assert_eq!(Bench::parse(b.as_str()), Some(b));
        }
        assert_eq!(Bench::parse("ping"), None);
    }
}
