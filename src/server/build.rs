//! Building an implementation with its manifest's `[build]` command, skipped
//! when every declared output is newer than every declared source.

use crate::impls::Implementation;
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::SystemTime;

/// Where build output goes.
pub enum BuildOutput {
    Inherit,
    Log(PathBuf),
}

/// What [`build`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Built {
    /// The build command ran and succeeded.
    Ran,
    /// Nothing to do: no build command, or every output newer than every source.
    UpToDate,
}

/// Builds `imp` unless it is already up to date. The command leads a process
/// group of its own, registered while it runs, so that Ctrl-C stops the whole
/// build (Maven's JVM, npm's children), and no build starts after it.
pub fn build(imp: &Implementation, out: &BuildOutput) -> Result<Built> {
    let b = &imp.manifest.build;
    if b.command.trim().is_empty() || is_fresh(&imp.dir, &b.outputs, &b.sources) {
        return Ok(Built::UpToDate);
    }
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(&b.command).current_dir(&imp.dir).stdin(Stdio::null());
    if let BuildOutput::Log(path) = out {
        let file = std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
        cmd.stdout(file.try_clone()?).stderr(file);
    }
    let mut child = crate::host::groups::spawn_registered(&mut cmd).with_context(|| format!("running the build of {}", imp.name()))?;
    let status = child.wait();
    crate::host::groups::unregister(child.id() as i32);
    let status = status.with_context(|| format!("waiting for the build of {}", imp.name()))?;
    if !status.success() {
        let log = match out {
            BuildOutput::Log(path) => format!("; see {}", path.display()),
            BuildOutput::Inherit => String::new(),
        };
        bail!("building {} failed ({status}): `{}` in {}{log}", imp.name(), b.command, imp.dir.display());
    }
    Ok(Built::Ran)
}

/// Runs `command` with `sh -c` in `dir`, its output to the terminal or
/// added to a log, leading a process group of its own registered while it
/// runs (Ctrl-C stops it, and everything it started, as it stops a build).
pub fn run_shell(dir: &Path, command: &str, env: &[(String, String)], out: &BuildOutput) -> Result<()> {
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(command).current_dir(dir).envs(env.iter().map(|(k, v)| (k, v))).stdin(Stdio::null());
    if let BuildOutput::Log(path) = out {
        let file = std::fs::OpenOptions::new().create(true).append(true).open(path).with_context(|| format!("opening {}", path.display()))?;
        cmd.stdout(file.try_clone()?).stderr(file);
    }
    let mut child = crate::host::groups::spawn_registered(&mut cmd).with_context(|| format!("running `{command}` in {}", dir.display()))?;
    let status = child.wait();
    crate::host::groups::unregister(child.id() as i32);
    let status = status.with_context(|| format!("waiting for `{command}` in {}", dir.display()))?;
    if !status.success() {
        bail!("`{command}` in {} failed ({status})", dir.display());
    }
    Ok(())
}

/// True when there are outputs, all exist, and none is older than a source.
fn is_fresh(dir: &Path, outputs: &[String], sources: &[String]) -> bool {
    if outputs.is_empty() {
        return false;
    }
    let mut oldest_output = SystemTime::now();
    for out in outputs {
        match std::fs::metadata(dir.join(out)).and_then(|m| m.modified()) {
            Ok(t) => oldest_output = oldest_output.min(t),
            Err(_) => return false,
        }
    }
    newest_source(dir, sources).is_none_or(|t| t <= oldest_output)
}

fn newest_source(dir: &Path, patterns: &[String]) -> Option<SystemTime> {
    let mut newest = None;
    for pattern in patterns {
        for path in expand(dir, pattern) {
            if let Some(t) = newest_under(&path) {
                newest = newest.max(Some(t));
            }
        }
    }
    newest
}

/// `name`, `sub/name` or `*.ext` / `sub/*.ext` (one `*`, in the file name only).
fn expand(dir: &Path, pattern: &str) -> Vec<PathBuf> {
    let full = dir.join(pattern);
    let name = full.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let Some((prefix, suffix)) = name.split_once('*') else { return vec![full] };
    let parent = full.parent().unwrap_or(dir);
    std::fs::read_dir(parent)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            let n = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            n.starts_with(prefix) && n.ends_with(suffix) && n.len() >= prefix.len() + suffix.len()
        })
        .collect()
}

fn newest_under(path: &Path) -> Option<SystemTime> {
    let meta = std::fs::metadata(path).ok()?;
    let own = meta.modified().ok();
    if !meta.is_dir() {
        return own;
    }
    std::fs::read_dir(path).ok()?.filter_map(|e| e.ok()).filter_map(|e| newest_under(&e.path())).fold(own, |a, b| a.max(Some(b)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn touch(path: &Path, age_secs: u64) {
        std::fs::write(path, b"x").unwrap();
        let t = SystemTime::now() - Duration::from_secs(age_secs);
        std::fs::File::options().write(true).open(path).unwrap().set_modified(t).unwrap();
    }

    #[test]
    fn fresh_only_when_outputs_are_newer_than_sources() {
        let dir = tempfile::tempdir().unwrap();
        touch(&dir.path().join("main.go"), 100);
        touch(&dir.path().join("server"), 10);
        let (outs, srcs) = (vec!["server".to_string()], vec!["*.go".to_string()]);
        assert!(is_fresh(dir.path(), &outs, &srcs));
        touch(&dir.path().join("main.go"), 1);
        assert!(!is_fresh(dir.path(), &outs, &srcs));
    }

    #[test]
    fn missing_output_or_no_outputs_means_build() {
        let dir = tempfile::tempdir().unwrap();
        touch(&dir.path().join("main.go"), 100);
        assert!(!is_fresh(dir.path(), &["server".into()], &["*.go".into()]));
        assert!(!is_fresh(dir.path(), &[], &["*.go".into()]));
    }

    #[test]
    fn a_source_folder_counts_recursively() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("lib/deep")).unwrap();
        touch(&dir.path().join("out"), 10);
        touch(&dir.path().join("lib/deep/x.ex"), 1);
        assert!(!is_fresh(dir.path(), &["out".into()], &["lib".into()]));
    }
}
