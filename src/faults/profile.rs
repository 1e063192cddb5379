//! Faults profiles (`spec/profiles/faults/<name>.toml`): what `concur faults`
//! measures written down once, as the run's and the micro-benchmarks' own
//! profiles are: `full` (the default, every fault with room to recover) and
//! `quick` (the short form `make bench` runs, spec/PROFILES.md "Faults").
//! Only parsing and validation live here; the flags override a profile's
//! values in `cli::faults`.

use super::{Fault, Settings};
use crate::host::duration::parse_seconds;
use crate::host::profile::{self, Folder};
use anyhow::{Result, bail};
use serde::Deserialize;
use std::path::Path;
use std::time::Duration;

/// The folder holding the faults profiles.
pub const FOLDER: Folder = Folder { path: "spec/profiles/faults", what: "faults profiles" };

/// One profile file; every field but the description has the default of spec/FAULTS.md.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FaultsProfile {
    pub description: String,
    /// CONCUR_CORES values.
    #[serde(default = "one_core")]
    pub cores: Vec<u32>,
    /// The faults, one trial each after the baseline: `panic`, `spin`, `kill`.
    #[serde(default = "every_fault")]
    pub faults: Vec<String>,
    /// The load beside the faults, as a share of the server's capacity.
    pub share: Option<f64>,
    pub before: Option<String>,
    pub after: Option<String>,
    /// The baseline trial's length (default: `before + after`, as every trial).
    pub baseline: Option<String>,
    pub spin_ms: Option<u64>,
    /// The warm-up curve: its fixed rate, and how long it is followed.
    pub warmup_rate: Option<f64>,
    pub warmup: Option<String>,
    /// The capacity's closed loop: its warm-up and its measurement.
    pub capacity_warmup: Option<String>,
    pub capacity: Option<String>,
    /// Whether the capacity is measured again after the last trial.
    pub capacity_after: Option<bool>,
    /// The capacity is the best of this many windows of `capacity`.
    pub capacity_windows: Option<usize>,
    /// Whether the `GET /db` bystanders run beside the faults that concern the database.
    pub database: Option<bool>,
    /// Their open loop, as a share of the server's `GET /db` capacity.
    pub db_share: Option<f64>,
}

fn one_core() -> Vec<u32> {
    vec![1]
}

impl FaultsProfile {
    /// `full` as spec/FAULTS.md defines it, for a repository that holds no faults profiles
    /// (`spec/profiles/faults/full.toml` writes the same down).
    pub fn full() -> FaultsProfile {
        FaultsProfile {
            description: "every fault at 1 and 2 cores with spec/FAULTS.md's defaults".into(),
            cores: vec![1, 2],
            faults: every_fault(),
            share: None,
            before: None,
            after: None,
            baseline: None,
            spin_ms: None,
            warmup_rate: None,
            warmup: None,
            capacity_warmup: None,
            capacity: None,
            capacity_after: None,
            capacity_windows: None,
            database: None,
            db_share: None,
        }
    }
}

fn every_fault() -> Vec<String> {
    ["panic", "spin", "kill"].map(String::from).to_vec()
}

impl FaultsProfile {
    /// The settings the profile gives, over spec/FAULTS.md's defaults.
    pub fn settings(&self) -> Settings {
        let d = Settings::default();
        let secs = |v: &Option<String>, default: Duration| v.as_deref().and_then(|t| parse_seconds(t).ok()).map_or(default, Duration::from_secs_f64);
        Settings {
            share: self.share.unwrap_or(d.share),
            before: secs(&self.before, d.before),
            after: secs(&self.after, d.after),
            baseline: self.baseline.as_deref().and_then(|t| parse_seconds(t).ok()).map(Duration::from_secs_f64),
            spin_ms: self.spin_ms.unwrap_or(d.spin_ms),
            warmup_rate: self.warmup_rate.unwrap_or(d.warmup_rate),
            warmup_for: secs(&self.warmup, d.warmup_for),
            capacity_warmup: secs(&self.capacity_warmup, d.capacity_warmup),
            capacity_for: secs(&self.capacity, d.capacity_for),
            capacity_after: self.capacity_after.unwrap_or(d.capacity_after),
            capacity_windows: self.capacity_windows.unwrap_or(d.capacity_windows),
            database: self.database.unwrap_or(d.database),
            db_share: self.db_share.unwrap_or(d.db_share),
            ..d
        }
    }
}

/// Reads `spec/profiles/faults/<name>.toml`.
pub fn load(root: &Path, name: &str) -> Result<FaultsProfile> {
    let (shown, text) = FOLDER.read(root, name)?;
    parse(&shown, &text)
}

/// The profile `--profile` names, or `full` when none is named: the repository's file, else
/// the same values built in (a checkout of implementations without the spec's profiles).
pub fn chosen(root: &Path, name: Option<&str>) -> Result<(String, FaultsProfile)> {
    match name {
        Some(name) => Ok((name.to_string(), load(root, name)?)),
        None if FOLDER.dir(root).join("full.toml").is_file() => Ok(("full".into(), load(root, "full")?)),
        None => Ok(("full".into(), FaultsProfile::full())),
    }
}

/// Parses one profile; `shown` names the file in errors.
pub fn parse(shown: &str, text: &str) -> Result<FaultsProfile> {
    let p: FaultsProfile = profile::parse(shown, text)?;
    if p.cores.is_empty() || p.cores.contains(&0) {
        bail!("{shown}: 'cores' must be a list of counts of at least 1 (e.g. cores = [1, 2])");
    }
    for f in &p.faults {
        parse_fault(f, 0).map_err(|e| anyhow::anyhow!("{shown}: 'faults': {e}"))?;
    }
    if p.share.is_some_and(|s| !(s > 0.0 && s <= 1.0)) {
        bail!("{shown}: 'share' must be above 0 and at most 1 (e.g. share = 0.2)");
    }
    if p.db_share.is_some_and(|s| !(s > 0.0 && s <= 1.0)) {
        bail!("{shown}: 'db_share' must be above 0 and at most 1 (e.g. db_share = 0.05)");
    }
    if p.spin_ms.is_some_and(|ms| ms > 10_000) {
        bail!("{shown}: 'spin_ms' must be at most 10000 (SPEC §9 clamps the spin there)");
    }
    if p.capacity_windows.is_some_and(|n| !(1..=10).contains(&n)) {
        bail!("{shown}: 'capacity_windows' must be 1 to 10 (e.g. capacity_windows = 3)");
    }
    if p.warmup_rate.is_some_and(|r| !(r > 0.0 && r.is_finite())) {
        bail!("{shown}: 'warmup_rate' must be above 0 (e.g. warmup_rate = 200)");
    }
    let durations = [("before", &p.before), ("after", &p.after), ("baseline", &p.baseline), ("warmup", &p.warmup), ("capacity_warmup", &p.capacity_warmup), ("capacity", &p.capacity)];
    for (field, value) in durations {
        if let Some(t) = value {
            let s = parse_seconds(t).map_err(|e| anyhow::anyhow!("{shown}: '{field}': {e}"))?;
            // A warm-up may be left out (0 s); a baseline needs a whole second after its first.
            let least = match field {
                "capacity_warmup" | "warmup" => 0.0,
                "baseline" => 2.0,
                _ => f64::MIN_POSITIVE,
            };
            if s < least {
                bail!("{shown}: '{field}' must be at least {} (e.g. {field} = \"2s\")", if least == 2.0 { "2 s" } else { "a moment longer than 0 s" });
            }
        }
    }
    Ok(p)
}

/// A fault by its name in a profile or on the command line (`spin` takes `spin_ms`).
pub fn parse_fault(name: &str, spin_ms: u64) -> Result<Fault, String> {
    match name {
        "panic" => Ok(Fault::Panic),
        "spin" => Ok(Fault::Spin { ms: spin_ms }),
        "kill" => Ok(Fault::Kill),
        other => Err(format!("'{other}' is not a fault; choose from panic, spin, kill")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_profiles_parse() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let full = load(root, "full").unwrap();
        assert_eq!((full.cores.as_slice(), full.faults.len()), (&[1, 2][..], 3));
        // The file and the built-in full say the same.
        let (built_in, file) = (FaultsProfile::full(), &full);
        assert_eq!((built_in.cores.as_slice(), &built_in.faults), (file.cores.as_slice(), &file.faults));
        assert_eq!(format!("{:?}", built_in.settings()), format!("{:?}", file.settings()), "full is spec/FAULTS.md's defaults");
        let quick = load(root, "quick").unwrap();
        // make bench's short form measures one capacity window, without the database.
        assert_eq!((quick.settings().capacity_windows, full.settings().capacity_windows, full.settings().database), (1, 3, true));
        assert!(quick.settings().before + quick.settings().after < full.settings().before + full.settings().after);
    }

    #[test]
    fn bad_values_are_named_with_their_fix() {
        let err = parse("p.toml", "description = \"d\"\nfaults = [\"spin\", \"crash\"]\n").unwrap_err().to_string();
        assert!(err.contains("p.toml: 'faults': 'crash' is not a fault; choose from panic, spin, kill"), "{err}");
        let err = parse("p.toml", "description = \"d\"\nafter = \"soon\"\n").unwrap_err().to_string();
        assert!(err.contains("p.toml: 'after'"), "{err}");
        let err = parse("p.toml", "description = \"d\"\nbaseline = \"1s\"\n").unwrap_err().to_string();
        assert!(err.contains("'baseline' must be at least 2 s"), "{err}");
        let err = parse("p.toml", "description = \"d\"\nshare = 2\n").unwrap_err().to_string();
        assert!(err.contains("'share' must be above 0 and at most 1"), "{err}");
        let err = parse("p.toml", "description = \"d\"\ncapacity_windows = 0\n").unwrap_err().to_string();
        assert!(err.contains("'capacity_windows' must be 1 to 10"), "{err}");
        let err = parse("p.toml", "description = \"d\"\nrepeat = 2\n").unwrap_err().to_string();
        assert!(err.contains("repeat"), "{err}");
    }
}
