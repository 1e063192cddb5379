//! Running one micro program as spec/MICRO.md §2 and §6 say, and measuring
//! it from outside: pinned to its CPUs, in a process group of its own, with
//! the group's RSS polled every 50 ms against the memory budget and an outer
//! time limit, and Ctrl-C and a dying `concur` both taking the group down.
//!
//! Peak memory is the kernel's `ru_maxrss` from `wait4` (§6: the number
//! `/usr/bin/time -v` shows): exact, with no sampling gap to miss a short
//! peak, and covering JVM and BEAM alike since their start commands `exec`
//! the VM, whose helper children (`erl_child_setup`) are waited for and so
//! folded in. The polled group sum is kept beside it: it is what the budget
//! must watch while the program runs, and it would show a runtime that kept
//! memory in a second live process.

use super::interrupt;
use anyhow::{Context, Result};
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How often the group's RSS is read for the budget (§4.4: every 50 ms).
const SAMPLE_EVERY: Duration = Duration::from_millis(50);
/// Most of stdout kept (one JSON line is expected) and of stderr (its tail).
const STDOUT_CAP: usize = 1 << 20;
const STDERR_CAP: usize = 64 << 10;

/// How to start one program.
#[derive(Debug, Clone)]
pub struct Launch {
    pub dir: PathBuf,
    /// The `sh -c` text: the start command and the benchmark's arguments.
    pub script: String,
    pub env: Vec<(String, String)>,
    /// CPUs to pin the program to.
    pub cpus: Vec<usize>,
    /// Kill the group when its summed RSS passes this many bytes.
    pub budget_bytes: u64,
    /// Kill the group when it runs longer than this.
    pub limit: Duration,
}

/// How the program ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    Exited(i32),
    Signaled(i32),
    /// Killed by us: the group's RSS reached `rss` bytes, past the budget.
    Budget { rss: u64 },
    /// Killed by us: past `Launch::limit`.
    Timeout,
    /// Killed by us on Ctrl-C; the measurement is to be discarded.
    Interrupted,
}

#[derive(Debug, Clone)]
pub struct Outcome {
    pub end: End,
    pub stdout: String,
    pub stderr: String,
    /// `ru_maxrss` of the waited-for program, bytes.
    pub peak_rss_bytes: u64,
    /// Peak of the group's summed RSS over the 50 ms samples, bytes.
    pub group_rss_peak_bytes: u64,
    pub processes_max: u32,
    pub wall: Duration,
}

/// Runs the program to its end (or ours) and measures it.
pub fn run(launch: &Launch) -> Result<Outcome> {
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(&launch.script).current_dir(&launch.dir);
    // The basics of concur's environment only (spec/MICRO.md §6), then the manifest's.
    crate::host::inherit::only_the_basics(&mut cmd).envs(launch.env.iter().map(|(k, v)| (k, v)));
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0);
    let cpus = launch.cpus.clone();
    // SAFETY: sched_setaffinity and prctl are async-signal-safe and touch only the child.
    unsafe {
        cmd.pre_exec(move || {
            crate::host::affinity::pin(&cpus)?;
            // A SIGKILLed concur must not leave a million processes behind.
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        })
    };
    let started = Instant::now();
    let mut child = cmd.spawn().with_context(|| format!("starting `{}` in {}", launch.script, launch.dir.display()))?;
    let pid = child.id() as i32;
    interrupt::set_current(pid);
    let stdout = collect(child.stdout.take(), STDOUT_CAP, false);
    let stderr = collect(child.stderr.take(), STDERR_CAP, true);
    let watched = watch(pid, launch, started);
    interrupt::set_current(0);
    // Whatever the leader left in its group (a helper that outlived it) goes too.
    crate::host::groups::kill(pid);
    let text = |rx: mpsc::Receiver<Vec<u8>>| String::from_utf8_lossy(&rx.recv_timeout(Duration::from_secs(2)).unwrap_or_default()).into_owned();
    Ok(Outcome {
        end: watched.end,
        stdout: text(stdout),
        stderr: text(stderr),
        peak_rss_bytes: watched.maxrss_kib.max(0) as u64 * 1024,
        group_rss_peak_bytes: watched.group_peak,
        processes_max: watched.processes_max,
        wall: started.elapsed(),
    })
}

struct Watched {
    end: End,
    maxrss_kib: i64,
    group_peak: u64,
    processes_max: u32,
}

/// Polls until the leader exits or must be killed; reaps it with `wait4`.
fn watch(pid: i32, launch: &Launch, started: Instant) -> Watched {
    let mut w = Watched { end: End::Exited(0), maxrss_kib: 0, group_peak: 0, processes_max: 0 };
    let mut next_sample = started;
    loop {
        if let Some((status, maxrss)) = reap(pid, libc::WNOHANG) {
            // The Ctrl-C handler may have killed the group before this loop saw the stop.
            w.end = if crate::host::interrupt::stopping() { End::Interrupted } else { decode(status) };
            w.maxrss_kib = maxrss;
            return w;
        }
        let now = Instant::now();
        let mut kill = None;
        if now >= next_sample {
            next_sample = now + SAMPLE_EVERY;
            let s = crate::host::procstat::sample_group(pid);
            w.group_peak = w.group_peak.max(s.rss_bytes);
            w.processes_max = w.processes_max.max(s.processes);
            if s.rss_bytes > launch.budget_bytes {
                kill = Some(End::Budget { rss: s.rss_bytes });
            }
        }
        if kill.is_none() && now.duration_since(started) > launch.limit {
            kill = Some(End::Timeout);
        }
        if kill.is_none() && crate::host::interrupt::stopping() {
            kill = Some(End::Interrupted);
        }
        if let Some(end) = kill {
            crate::host::groups::kill(pid);
            w.maxrss_kib = reap(pid, 0).map_or(0, |(_, m)| m);
            w.end = end;
            return w;
        }
        // Short benchmarks end within milliseconds: look often at first.
        let age = now.duration_since(started);
        std::thread::sleep(if age < Duration::from_secs(1) { Duration::from_millis(5) } else { Duration::from_millis(25) });
    }
}

/// `wait4` on our child: `Some((status, ru_maxrss in KiB))` once it has ended.
fn reap(pid: i32, flags: i32) -> Option<(i32, i64)> {
    loop {
        let mut status = 0;
        // SAFETY: rusage is plain data that wait4 fills.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        let r = unsafe { libc::wait4(pid, &mut status, flags, &mut ru) };
        if r == pid {
            return Some((status, ru.ru_maxrss));
        }
        if r < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
            continue;
        }
        // 0: still running; another error (ECHILD) cannot happen for our own unreaped child.
        return if r == 0 { None } else { Some((0, 0)) };
    }
}

fn decode(status: i32) -> End {
    if libc::WIFEXITED(status) {
        End::Exited(libc::WEXITSTATUS(status))
    } else if libc::WIFSIGNALED(status) {
        End::Signaled(libc::WTERMSIG(status))
    } else {
        End::Exited(-1)
    }
}

/// Reads a pipe to its end on a thread; keeps the first (or, with `tail`, the last) `cap` bytes.
fn collect<R: Read + Send + 'static>(pipe: Option<R>, cap: usize, tail: bool) -> mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        if let Some(mut pipe) = pipe {
            let mut buf = [0u8; 8192];
            while let Ok(n) = pipe.read(&mut buf) {
                if n == 0 {
                    break;
                }
                kept.extend_from_slice(&buf[..n]);
                if kept.len() > cap {
                    if tail {
                        kept.drain(..kept.len() - cap);
                    } else {
                        kept.truncate(cap);
                    }
                }
            }
        }
        let _ = tx.send(kept);
    });
    rx
}

/// The name of a signal, for reasons: `SIGKILL`, `SIGSEGV`, or its number.
pub fn signal_name(sig: i32) -> String {
    let known = [(libc::SIGKILL, "SIGKILL"), (libc::SIGSEGV, "SIGSEGV"), (libc::SIGABRT, "SIGABRT"), (libc::SIGTERM, "SIGTERM"), (libc::SIGBUS, "SIGBUS"), (libc::SIGINT, "SIGINT")];
    known.iter().find(|(n, _)| *n == sig).map_or_else(|| format!("signal {sig}"), |(_, name)| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launch(script: &str, budget: u64, limit_s: u64) -> Launch {
        Launch { dir: std::env::temp_dir(), script: script.into(), env: vec![], cpus: vec![0], budget_bytes: budget, limit: Duration::from_secs(limit_s) }
    }

    #[test]
    fn stdout_exit_code_and_peak_memory_are_taken() {
        let out = run(&launch("echo '{}'; echo oops >&2; exit 3", 1 << 40, 10)).unwrap();
        assert_eq!(out.end, End::Exited(3));
        assert_eq!((out.stdout.as_str(), out.stderr.as_str()), ("{}\n", "oops\n"));
        assert!(out.peak_rss_bytes > 0, "{out:?}");
    }

    #[test]
    fn the_outer_limit_kills_the_whole_group() {
        let started = Instant::now();
        let out = run(&launch("sleep 30 & sleep 30; wait", 1 << 40, 1)).unwrap();
        assert_eq!(out.end, End::Timeout);
        // Well before the 30 s sleeps would end on their own, however busy the machine
        // (a 5 s bound failed at a load of 24).
        assert!(started.elapsed() < Duration::from_secs(20), "{:?}", started.elapsed());
    }

    #[test]
    fn a_signal_is_told_apart_from_an_exit() {
        let out = run(&launch("exec sh -c 'kill -SEGV $$'", 1 << 40, 10)).unwrap();
        assert_eq!(out.end, End::Signaled(libc::SIGSEGV));
        assert_eq!(signal_name(libc::SIGSEGV), "SIGSEGV");
    }
}
