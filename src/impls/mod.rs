//! The implementations under `impls/<kind>/<name>/`: finding them, reading
//! their manifests, telling whether their toolchain is present, and the two
//! commands that only need that (`concur list`, `concur test`).

pub mod manifest;

use crate::cli::{ListArgs, RootArg, TestArgs};
use anyhow::{Context, Result, bail};
pub use manifest::{Manifest, Model};
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
pub fn find_root(arg: &RootArg) -> Result<PathBuf> {
    if let Some(root) = &arg.root {
        if !root.join("impls").is_dir() {
            bail!("--root {}: no impls/ folder there; point it at the Concur repository", root.display());
        }
        return Ok(root.clone());
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

/// `concur list`.
pub fn list_command(args: &ListArgs) -> Result<ExitCode> {
    let root = find_root(&args.root)?;
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
    if args.json {
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

/// Every implementation called `name` (any kind), or exactly `kind/name`.
fn by_name_any_kind(all: &[Implementation], name: &str) -> Result<Vec<Implementation>> {
    let found: Vec<Implementation> = all.iter().filter(|i| i.name() == name || format!("{}/{}", i.kind, i.name()) == name).cloned().collect();
    if found.is_empty() {
        bail!("no implementation named '{name}' (see `concur list`; use kind/name, e.g. micro/elixir, to pick one kind)");
    }
    Ok(found)
}

/// `concur test`: each implementation's own test suite, after its build.
pub fn test_command(args: &TestArgs) -> Result<ExitCode> {
    let root = find_root(&args.root)?;
    let all = discover(&root)?;
    let chosen: Vec<Implementation> = if args.names.is_empty() {
        all
    } else {
        args.names.iter().map(|n| by_name_any_kind(&all, n)).collect::<Result<Vec<_>>>()?.concat()
    };
    let mut failed = Vec::new();
    for imp in &chosen {
        let Some(test) = &imp.manifest.test else {
            println!("{}: no [test] command in its manifest, skipped", imp.name());
            continue;
        };
        if let Availability::Missing(why) = imp.availability() {
            println!("{}: skipped: {why}", imp.name());
            continue;
        }
        println!("== {}/{}: {}", imp.kind, imp.name(), test.command);
        let ok = crate::server::build(imp, &crate::server::BuildOutput::Inherit)
            .and_then(|()| crate::server::run_shell(&imp.dir, &test.command, &crate::server::spec_env(&root)));
        if let Err(e) = ok {
            println!("{}: FAILED: {e:#}", imp.name());
            failed.push(imp.name().to_string());
        }
    }
    if failed.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        println!("implementation tests failed: {}", failed.join(", "));
        Ok(ExitCode::FAILURE)
    }
}
