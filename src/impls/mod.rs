//! The implementations under `impls/<kind>/<name>/`: finding them, reading
//! their manifests, telling whether their toolchain is present, and the
//! command that only needs that (`concur list`).

pub mod manifest;

use anyhow::{Context, Result, bail};
pub use manifest::{Manifest, Model, policy_rule};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// One implementation folder with its parsed manifest.
#[derive(Debug, Clone, Serialize)]
pub struct Implementation {
    /// `http` or `micro`.
    pub kind: String,
    /// The folder holding `concur.toml`.
    pub dir: PathBuf,
    pub manifest: Manifest,
}

/// Whether an implementation can be built here, and if not, why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", content = "reason", rename_all = "lowercase")]
pub enum Availability {
    Present,
    Missing(String),
}

impl Implementation {
    pub fn name(&self) -> &str {
        &self.manifest.name
    }

    /// `kind/name`, e.g. `micro/elixir`: unique where a name alone is not.
    pub fn qualified_name(&self) -> String {
        format!("{}/{}", self.kind, self.name())
    }

    /// First line of the manifest's `version` command.
    pub fn version(&self) -> String {
        crate::host::env::version(&self.dir, &self.manifest.version)
    }

    /// Checks every required command on PATH.
    pub fn availability(&self) -> Availability {
        let missing: Vec<&str> = self
            .manifest
            .requires
            .commands
            .iter()
            .map(String::as_str)
            .filter(|cmd| which(cmd).is_none())
            .collect();
        if missing.is_empty() {
            return Availability::Present;
        }
        let install = &self.manifest.requires.install;
        let hint = if install.is_empty() { String::new() } else { format!(" (install: {install})") };
        Availability::Missing(format!("{} not on PATH{hint}", missing.join(", ")))
    }
}

/// Implementation name → its version line, as a run's environment records it.
pub fn toolchains(implementations: &[&Implementation]) -> BTreeMap<String, String> {
    implementations.iter().map(|i| (i.name().to_string(), i.version())).collect()
}

/// Finds the repository root: `--root`, else the nearest ancestor of the
/// current folder that holds both `impls/` and `spec/`.
pub fn find_root(root: Option<&Path>) -> Result<PathBuf> {
    if let Some(root) = root {
        if !root.join("impls").is_dir() {
            bail!("--root {}: no impls/ folder there; point it at the Concur repository", root.display());
        }
        return Ok(root.to_path_buf());
    }
    let cwd = std::env::current_dir().context("reading the current folder")?;
    cwd.ancestors()
        .find(|dir| dir.join("impls").is_dir() && dir.join("spec").is_dir())
        .map(Path::to_path_buf)
        .with_context(|| {
            format!("no Concur repository (a folder with impls/ and spec/) at or above {}; run inside the repository or pass --root", cwd.display())
        })
}

/// Reads every `impls/<kind>/<name>/concur.toml`, sorted by kind then name.
/// A single bad manifest is an error: numbers from a half-read set would mislead.
pub fn discover(root: &Path) -> Result<Vec<Implementation>> {
    let mut found = Vec::new();
    for kind_dir in sorted_dirs(&root.join("impls"))? {
        let kind = file_name(&kind_dir);
        for dir in sorted_dirs(&kind_dir)? {
            let path = dir.join("concur.toml");
            if !path.exists() {
                continue;
            }
            let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
            let shown = path.strip_prefix(root).unwrap_or(&path);
            let manifest = manifest::parse(shown, &text, &file_name(&dir)).map_err(anyhow::Error::msg)?;
            found.push(Implementation { kind: kind.clone(), dir, manifest });
        }
    }
    Ok(found)
}

/// Picks implementations of `kind` by name; no names means all of that kind.
pub fn select(all: &[Implementation], kind: &str, names: &[String]) -> Result<Vec<Implementation>> {
    let of_kind: Vec<&Implementation> = all.iter().filter(|i| i.kind == kind).collect();
    if names.is_empty() {
        return Ok(of_kind.into_iter().cloned().collect());
    }
    names
        .iter()
        .map(|name| {
            of_kind.iter().find(|i| i.name() == name).map(|i| (*i).clone()).with_context(|| {
                let known: Vec<&str> = of_kind.iter().map(|i| i.name()).collect();
                format!("no {kind} implementation named '{name}'; known: {}", known.join(", "))
            })
        })
        .collect()
}

/// Picks implementations of every kind: `names` as `name` (each kind that has
/// one) or `kind/name`, in the order given, each once; no names means all.
pub fn select_any_kind(all: &[Implementation], names: &[String]) -> Result<Vec<Implementation>> {
    if names.is_empty() {
        return Ok(all.to_vec());
    }
    let mut chosen: Vec<Implementation> = Vec::new();
    for name in names {
        let found: Vec<&Implementation> = all.iter().filter(|i| i.name() == name || i.qualified_name() == *name).collect();
        if found.is_empty() {
            let mut known: Vec<&str> = all.iter().map(|i| i.name()).collect();
            known.sort();
            known.dedup();
            bail!("no implementation named '{name}'; known: {} (use kind/name, e.g. micro/elixir, to pick one kind)", known.join(", "));
        }
        for imp in found {
            if !chosen.iter().any(|c| c.dir == imp.dir) {
                chosen.push(imp.clone());
            }
        }
    }
    Ok(chosen)
}

/// Adds the implementations that `names` give a second name, `NEW=SOURCE`, to `all` (of
/// `kind`), and returns `names` with each such entry replaced by `NEW`. SOURCE is an
/// implementation's name (the same folder measured twice under two names: an A/A
/// comparison) or a folder holding a `concur.toml` (another checkout or build of an entry,
/// measured beside it in one run). Either way the copy keeps its manifest, under the new name.
pub fn alias(all: &mut Vec<Implementation>, kind: &str, names: &[String]) -> Result<Vec<String>> {
    let mut out = Vec::with_capacity(names.len());
    let known: Vec<String> = all.iter().filter(|i| i.kind == kind).map(|i| i.name().to_string()).collect();
    for name in names {
        let Some((new, source)) = name.split_once('=') else {
            out.push(name.clone());
            continue;
        };
        let (new, source) = (new.trim(), source.trim());
        let usage = format!("--impl {name}");
        if new.is_empty() || !new.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-') || new.starts_with('-') {
            bail!("{usage}: the new name '{new}' must be lowercase letters, digits and '-', e.g. go-nethttp-again=go-nethttp");
        }
        if all.iter().any(|i| i.kind == kind && i.name() == new) {
            bail!("{usage}: '{new}' is already an implementation's name; give the copy another, e.g. {new}-b={source}");
        }
        let mut copy = match all.iter().find(|i| i.kind == kind && i.name() == source) {
            Some(found) => found.clone(),
            None => {
                let dir = PathBuf::from(source);
                let path = dir.join("concur.toml");
                if !path.is_file() {
                    bail!("{usage}: '{source}' is neither a {kind} implementation ({}) nor a folder with a concur.toml", known.join(", "));
                }
                let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
                let dir = dir.canonicalize().with_context(|| format!("reading {}", dir.display()))?;
                let manifest = manifest::parse(&path, &text, &file_name(&dir)).map_err(anyhow::Error::msg)?;
                Implementation { kind: kind.to_string(), dir, manifest }
            }
        };
        copy.manifest.name = new.to_string();
        all.push(copy);
        out.push(new.to_string());
    }
    Ok(out)
}

fn sorted_dirs(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    Ok(dirs)
}

fn file_name(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

/// The first `cmd` on PATH, like `which`.
pub fn which(cmd: &str) -> Option<PathBuf> {
    if cmd.contains('/') {
        return Path::new(cmd).is_file().then(|| PathBuf::from(cmd));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(cmd)).find(|p| p.is_file())
}

#[derive(Serialize)]
struct ListRow<'a> {
    kind: &'a str,
    name: &'a str,
    language: &'a str,
    framework: &'a str,
    model: &'a str,
    availability: Availability,
}

/// `concur list`; `json` prints JSON instead of a table.
pub fn list_command(root: Option<&Path>, json: bool) -> Result<ExitCode> {
    let root = find_root(root)?;
    let all = discover(&root)?;
    let rows: Vec<ListRow> = all
        .iter()
        .map(|i| ListRow {
            kind: &i.kind,
            name: i.name(),
            language: &i.manifest.language,
            framework: &i.manifest.framework,
            model: i.manifest.model.as_str(),
            availability: i.availability(),
        })
        .collect();
    if json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!("{:<6} {:<16} {:<12} {:<14} {:<14} toolchain", "kind", "name", "language", "framework", "model");
    for r in &rows {
        let status = match &r.availability {
            Availability::Present => "present".to_string(),
            Availability::Missing(why) => format!("missing: {why}"),
        };
        println!("{:<6} {:<16} {:<12} {:<14} {:<14} {status}", r.kind, r.name, r.language, r.framework, r.model);
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// spec/POLICIES.md: every HTTP implementation's README has a section
    /// **Policies** saying how it meets each policy, §1 to §5.
    #[test]
    fn every_http_readme_says_how_it_meets_each_policy() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let all = discover(root).unwrap();
        let http: Vec<&Implementation> = all.iter().filter(|i| i.kind == "http").collect();
        assert!(http.len() >= 18, "found {} HTTP implementations", http.len());
        for imp in http {
            let readme = std::fs::read_to_string(imp.dir.join("README.md")).unwrap();
            let start = readme.find("\n## Policies").unwrap_or_else(|| panic!("{}: README has no '## Policies' section", imp.name()));
            let section = &readme[start + 1..];
            let section = &section[..section[3..].find("\n## ").map_or(section.len(), |end| end + 3)];
            for n in 1..=5 {
                assert!(section.contains(&format!("**§{n} ")), "{}: its Policies section says nothing under §{n}", imp.name());
            }
            // spec/SPEC.md §9: what each fault does, alone and under `concur faults`' load.
            let faults = section.find("**Faults (spec/SPEC.md §9).**").map(|at| &section[at..]).unwrap_or_else(|| panic!("{}: its Policies section has no Faults (spec/SPEC.md §9) paragraph", imp.name()));
            let faults = faults[..faults.find("\n- **").or_else(|| faults.find("\n\n")).unwrap_or(faults.len())].split_whitespace().collect::<Vec<_>>().join(" ");
            for said in ["/fault/panic", "/fault/spin", "kill", "Under load"] {
                assert!(faults.contains(said), "{}: its Faults paragraph does not say '{said}'", imp.name());
            }
        }
    }

    #[test]
    fn a_second_name_measures_the_same_folder_or_another_checkout() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut all = discover(root).unwrap();
        let before = all.len();
        let other = root.join("impls/http/go-tcp");
        let names = ["go-nethttp".to_string(), "go-nethttp-again=go-nethttp".to_string(), format!("go-tcp-b={}", other.display())];
        let out = alias(&mut all, "http", &names).unwrap();
        assert_eq!(out, ["go-nethttp", "go-nethttp-again", "go-tcp-b"]);
        assert_eq!(all.len(), before + 2);
        let again = all.iter().find(|i| i.name() == "go-nethttp-again").unwrap();
        let original = all.iter().find(|i| i.name() == "go-nethttp").unwrap();
        assert_eq!((&again.dir, &again.manifest.start.command), (&original.dir, &original.manifest.start.command));
        assert_eq!(all.iter().find(|i| i.name() == "go-tcp-b").unwrap().dir, other.canonicalize().unwrap());
        // A taken name, a bad one and a source that is neither are refused with the fix.
        let err = |n: &str| alias(&mut discover(root).unwrap(), "http", &[n.to_string()]).unwrap_err().to_string();
        assert!(err("go-tcp=go-nethttp").contains("'go-tcp' is already an implementation's name"), "{}", err("go-tcp=go-nethttp"));
        assert!(err("Go=go-nethttp").contains("must be lowercase letters"));
        assert!(err("x=/nowhere").contains("'/nowhere' is neither a http implementation"));
    }
}
