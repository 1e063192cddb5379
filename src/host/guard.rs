//! The guard against SIGKILL: a process in a group of its own that, once
//! this process is gone, kills everything it started (servers, their
//! workers, builds), found by the mark each carries in its environment.
//! `concur run`, `concur verify` and `concur faults` start one before their
//! first server (spec/POLICIES.md's "kill -9 leaves no process behind").

use super::interrupt;
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;

/// The guard's pid: a forced exit leaves it running, so that its rounds kill
/// whatever the main thread started while the exit stopped the others.
static GUARD: OnceLock<i32> = OnceLock::new();

/// The running guard's pid, if one was started: a forced exit spares its group.
pub fn pid() -> Option<i32> {
    GUARD.get().copied()
}

/// The environment variable every process a run starts carries (it is set
/// in the orchestrator's own environment, so children inherit it).
pub const OWNER_VAR: &str = "CONCUR_RUN_OWNER";

/// Marks this process so that everything it starts from now on carries
/// `CONCUR_RUN_OWNER=<pid>`. Must run before any other thread exists.
pub fn mark_children() {
    // SAFETY: called first thing in `run_command`, while this process has one thread.
    unsafe { std::env::set_var(OWNER_VAR, std::process::id().to_string()) };
}

/// A process in a group of its own that, once this process is gone (even by
/// SIGKILL, which no handler sees), kills every process carrying this
/// process' `CONCUR_RUN_OWNER` mark — servers of points and of
/// verification, their workers, builds — and the process group each leads
/// or belongs to. Started before any server, so no server is ever
/// unguarded. Dropping it ends it.
///
/// The group matters: a server still starting may be a shell script (a
/// pyenv shim is one) forking subshells, and a child forked between the
/// guard's look at /proc and its kill would live on, orphaned, and run the
/// server after all (seen here in about 1 run in 15). A group kill reaches
/// every member, including one being forked. The orchestrator's own group
/// (a terminal's job, a test harness) and the guard's are never killed.
/// The guard looks ten times, 0.2 s apart, even when a look finds nothing: a
/// server the orchestrator forked just before it died shows the mark only
/// once it has exec'd (/proc holds the environment a process was started
/// with), which on a loaded machine can take a while. For the same reason
/// the guard itself shows the mark and skips itself; `unset` keeps it off
/// the guard's own `grep`.
pub struct Guard(Option<Child>);

impl Guard {
    pub fn start() -> Guard {
        let me = std::process::id();
        // SAFETY: getpgrp cannot fail and has no side effect.
        let my_group = unsafe { libc::getpgrp() };
        let script = format!(
            "unset {OWNER_VAR}; \
             while kill -0 {me} 2>/dev/null; do sleep 1; done; \
             for round in 1 2 3 4 5 6 7 8 9 10; do \
               for f in $(grep -lzx '{OWNER_VAR}={me}' /proc/[0-9]*/environ 2>/dev/null); do \
                 p=${{f#/proc/}}; p=${{p%/environ}}; [ \"$p\" != $$ ] || continue; \
                 read -r stat < /proc/$p/stat 2>/dev/null || continue; \
                 set -- ${{stat##*) }}; g=$3; \
                 [ \"$g\" = {my_group} ] || [ \"$g\" = $$ ] || kill -s KILL -- -$g 2>/dev/null; \
                 kill -s KILL $p 2>/dev/null; \
               done; \
               sleep 0.2; \
             done"
        );
        let mut cmd = Command::new("sh");
        cmd.arg("-c").arg(script).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null());
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let child = cmd.spawn().ok();
        if let Some(child) = &child {
            let _ = GUARD.set(child.id() as i32);
        }
        Guard(child)
    }
}

impl Drop for Guard {
    /// Ends the guard, unless a signal has been received: a forced exit may
    /// then be under way on the handler's thread, and the guard must outlive
    /// it to kill what the main thread started meanwhile (this drop racing
    /// that exit left neither). A guard left running ends by itself once
    /// this process has exited and its ten rounds are done.
    fn drop(&mut self) {
        if interrupt::stopping() {
            return;
        }
        if let Some(child) = &mut self.0 {
            // The guard leads its own group (it and its `sleep`).
            crate::host::groups::kill(child.id() as i32);
            let _ = child.wait();
        }
    }
}
