//! What a measured process inherits of concur's own environment (spec/SPEC.md §1): where
//! programs and the user's files are, the user, the locale and the time zone, and nothing
//! else. A `RUST_BACKTRACE`, `PYTHONDONTWRITEBYTECODE`, `NODE_OPTIONS` or `JAVA_TOOL_OPTIONS`
//! in the shell that ran concur would otherwise change what is measured: a Rust panic that
//! symbolises a backtrace, a Python server that compiles its own modules at every start.

use std::ffi::OsStr;
use std::process::Command;

/// The variables a server or micro-benchmark gets from concur's environment, besides the
/// locale's `LC_*`; the rest it gets from its manifest and from concur (PORT, CONCUR_*).
pub const KEPT: [&str; 7] = ["PATH", "HOME", "USER", "LOGNAME", "LANG", "TZ", "TMPDIR"];

/// Whether a variable of concur's environment reaches a measured process: the basics, and the
/// mark by which the guard of a killed concur finds what it started (`guard::OWNER_VAR`).
pub fn kept(name: &OsStr) -> bool {
    name.to_str().is_some_and(|n| KEPT.contains(&n) || n.starts_with("LC_") || n == super::guard::OWNER_VAR)
}

/// Clears `cmd`'s environment but for what `kept` passes on; set the rest after this.
pub fn only_the_basics(cmd: &mut Command) -> &mut Command {
    cmd.env_clear();
    for (name, value) in std::env::vars_os().filter(|(name, _)| kept(name)) {
        cmd.env(name, value);
    }
    cmd
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_measured_process_gets_the_basics_and_nothing_else_of_ours() {
        for name in ["PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "CONCUR_RUN_OWNER"] {
            assert!(kept(OsStr::new(name)), "{name}");
        }
        for name in ["RUST_BACKTRACE", "PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED", "NODE_OPTIONS", "JAVA_TOOL_OPTIONS", "GODEBUG", "RUBYOPT", "ERL_FLAGS", "CONCUR_FAULTS", "PATHS"] {
            assert!(!kept(OsStr::new(name)), "{name}");
        }
        let mut cmd = Command::new("env");
        only_the_basics(&mut cmd).env("PORT", "1");
        let out = String::from_utf8(cmd.output().unwrap().stdout).unwrap();
        let names: Vec<&str> = out.lines().filter_map(|l| l.split_once('=').map(|(n, _)| n)).collect();
        assert!(names.contains(&"PORT"), "{out}");
        assert!(names.iter().all(|n| kept(OsStr::new(n)) || *n == "PORT"), "{out}");
    }
}
