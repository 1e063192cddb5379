//! Named profiles: a sweep written down once as `<folder>/<name>.toml` of the
//! checkout (`spec/profiles/` for `concur run`, `spec/profiles/micro/` for
//! `concur micro`). Finding, listing and reading them, with the file named in
//! every error, is the same for both; what a profile holds and how it is
//! checked belongs to its stage.

use anyhow::{Context, Result, bail};
use serde::de::DeserializeOwned;
use std::path::{Path, PathBuf};

/// A folder of profiles.
pub struct Folder {
    /// Relative to the repository root, e.g. `spec/profiles`.
    pub path: &'static str,
    /// What they are called in errors, e.g. `micro profiles`.
    pub what: &'static str,
}

impl Folder {
    pub fn dir(&self, root: &Path) -> PathBuf {
        root.join(self.path)
    }

    /// Names of the profiles in the folder, sorted.
    pub fn names(&self, root: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.dir(root))
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".toml").map(str::to_string))
            .collect();
        names.sort();
        names
    }

    /// Reads profile `name` (`--profile name`); returns how errors name its file, and its text.
    pub fn read(&self, root: &Path, name: &str) -> Result<(String, String)> {
        let path = self.dir(root).join(format!("{name}.toml"));
        let shown = format!("{}/{name}.toml", self.path);
        if !path.is_file() {
            let known = self.names(root);
            let known = if known.is_empty() { "none".into() } else { known.join(", ") };
            bail!("--profile {name}: there is no {shown}; known {}: {known}", self.what);
        }
        let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
        Ok((shown, text))
    }
}

/// Parses a profile's TOML; `shown` names the file in errors.
pub fn parse<T: DeserializeOwned>(shown: &str, text: &str) -> Result<T> {
    toml::from_str(text).map_err(|e| anyhow::anyhow!("{shown}: {}", e.message().trim()))
}

/// Refuses a `repeat` of 0, which both kinds of profile have.
pub fn check_repeat(shown: &str, repeat: u32) -> Result<()> {
    if repeat == 0 {
        bail!("{shown}: 'repeat' must be at least 1 (e.g. repeat = 3)");
    }
    Ok(())
}

/// serde's default for `repeat`.
pub fn one() -> u32 {
    1
}
