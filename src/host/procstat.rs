//! Reading `/proc`: a process group's CPU time and resident memory summed
//! over every process in it (cluster workers, the BEAM's helpers, JVM
//! children), the groups this process' children lead, and `/proc/meminfo`.

use serde::Serialize;

/// One sample of a process group.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct GroupSample {
    /// User + system CPU seconds consumed so far by the live processes and by
    /// the children they have reaped (a cluster's replaced workers), so that
    /// it never falls when one exits.
    pub cpu_seconds: f64,
    /// Resident set size summed over the processes, in bytes.
    pub rss_bytes: u64,
    pub processes: u32,
}

/// Sums `/proc/<pid>/stat` over the processes whose group is `pgid`.
pub fn sample_group(pgid: i32) -> GroupSample {
    // SAFETY: sysconf has no preconditions.
    let (ticks, page) = unsafe { (libc::sysconf(libc::_SC_CLK_TCK) as f64, libc::sysconf(libc::_SC_PAGESIZE) as u64) };
    let mut sample = GroupSample::default();
    for fields in pids().filter_map(stat).filter(|f| f.pgrp == pgid) {
        sample.cpu_seconds += fields.ticks() as f64 / ticks;
        sample.rss_bytes += fields.rss_pages * page;
        sample.processes += 1;
    }
    sample
}

/// The CPU seconds the processes of the groups `pgids` have used so far, in one pass over `/proc`.
pub fn groups_cpu_seconds(pgids: &[i32]) -> f64 {
    // SAFETY: sysconf has no preconditions.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    pids().filter_map(stat).filter(|f| pgids.contains(&f.pgrp)).map(|f| f.ticks() as f64 / ticks).sum()
}

/// Waits until the groups `pgids` together use less than `share` of one core over a `window`,
/// at most `max` (or until a stop is asked for); returns how long it waited.
pub fn wait_quiet(pgids: &[i32], window: std::time::Duration, share: f64, max: std::time::Duration) -> std::time::Duration {
    let started = std::time::Instant::now();
    if pgids.is_empty() {
        return std::time::Duration::ZERO;
    }
    let mut before = groups_cpu_seconds(pgids);
    while started.elapsed() < max && !super::interrupt::stopping() {
        std::thread::sleep(window);
        let now = groups_cpu_seconds(pgids);
        if now - before < window.as_secs_f64() * share {
            break;
        }
        before = now;
    }
    started.elapsed()
}

/// One sample of a process and its children: each one's own CPU time, and their memory.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TreeSample {
    pub own: Vec<Own>,
    /// Proportional set size summed over the processes (shared pages divided among the processes
    /// mapping them), else their RSS.
    pub rss_bytes: u64,
    pub processes: u32,
}

/// One process of a tree as a sampler following it sees it: a pid and the moment it started (a pid
/// the kernel hands out again is another process), and the CPU seconds it has used itself.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Own {
    pub pid: i32,
    pub started: u64,
    pub cpu_seconds: f64,
}

/// Samples the process `root` and its children: PostgreSQL's shape, whose postmaster's children
/// each lead a session of their own (its group holds none of them) and all map the same shared
/// buffers, which RSS would count once per backend.
///
/// All CPU times are read first, in one pass over the `stat` files (milliseconds for hundreds of
/// backends), and only then the memory: `smaps_rollup` walks each process's page tables, tens of
/// milliseconds for a few hundred and far longer on a busy CPU, and a pass that read both in turn
/// took each backend's CPU time at another moment of the window. The newest backends, read last,
/// were read near the window's end, their window's work already in the base: rust-axum's
/// database read 0-4% of a CPU at 20,000 queries a second, and node-express-ts's, whose pool
/// opens its connections again after 10 s idle, 0% (bench/RESULTS.md 2026-11-30 14:20).
///
/// Each process's own CPU time, not a sum with the children it reaped: a window's CPU time is
/// followed process by process (`run::sampler`), which no exit and no wait can skew. A sum with
/// the reaped children's time counts a backend twice if it is read and then reaped before its
/// parent is read, which happens once pids wrap (at 32,768 here) and a backend's pid comes before
/// the postmaster's in /proc.
pub fn sample_tree(root: i32) -> TreeSample {
    // SAFETY: sysconf has no preconditions.
    let (ticks, page) = unsafe { (libc::sysconf(libc::_SC_CLK_TCK) as f64, libc::sysconf(libc::_SC_PAGESIZE) as u64) };
    let members: Vec<(i32, StatFields)> = pids().filter_map(|pid| Some((pid, stat(pid)?))).filter(|(pid, f)| *pid == root || f.ppid == root).collect();
    let own = members.iter().map(|&(pid, ref f)| Own { pid, started: f.starttime, cpu_seconds: (f.utime + f.stime) as f64 / ticks }).collect();
    let rss_bytes = members.iter().map(|&(pid, ref f)| pss_bytes(pid).unwrap_or(f.rss_pages * page)).sum();
    TreeSample { own, rss_bytes, processes: members.len() as u32 }
}

/// The process `root` and its children, `root` first.
pub fn tree(root: i32) -> Vec<i32> {
    let mut pids: Vec<i32> = pids().filter(|&pid| pid != root && stat(pid).is_some_and(|f| f.ppid == root)).collect();
    pids.insert(0, root);
    pids
}

fn pss_bytes(pid: i32) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).ok()?;
    let kb = text.lines().find_map(|l| l.strip_prefix("Pss:")?.trim().strip_suffix("kB")?.trim().parse::<u64>().ok())?;
    Some(kb * 1024)
}

/// The process groups led by a child of this process: the servers it started.
pub fn child_group_leaders() -> Vec<i32> {
    // SAFETY: getpid has no preconditions.
    let me = unsafe { libc::getpid() };
    pids().filter(|&pid| stat(pid).is_some_and(|f| f.ppid == me && f.pgrp == pid)).collect()
}

/// A `/proc/meminfo` value (`MemTotal`, `MemAvailable`), in bytes; 0 when unknown.
pub fn meminfo(key: &str) -> u64 {
    let text = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    text.lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(':')?.trim().strip_suffix("kB")?.trim().parse::<u64>().ok())
        .unwrap_or(0)
        * 1024
}

/// Which of `pids` hold a TCP socket (listening or connected) whose local port is `port`: the
/// processes that serve it, as against their helpers (a store's manager, a resource tracker).
pub fn serving_port(pids: &[i32], port: u16) -> Vec<i32> {
    let mut inodes = std::collections::HashSet::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        for line in std::fs::read_to_string(table).unwrap_or_default().lines().skip(1) {
            let f: Vec<&str> = line.split_whitespace().collect();
            // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
            let local_port = f.get(1).and_then(|a| a.rsplit(':').next()).and_then(|p| u16::from_str_radix(p, 16).ok());
            if local_port == Some(port)
                && let Some(inode) = f.get(9)
            {
                inodes.insert(format!("socket:[{inode}]"));
            }
        }
    }
    let holds = |pid: i32| {
        let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).into_iter().flatten().filter_map(Result::ok);
        fds.filter_map(|fd| std::fs::read_link(fd.path()).ok()).any(|target| inodes.contains(target.to_string_lossy().as_ref()))
    };
    pids.iter().copied().filter(|&pid| holds(pid)).collect()
}

fn pids() -> impl Iterator<Item = i32> {
    std::fs::read_dir("/proc").into_iter().flatten().filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
}

struct StatFields {
    ppid: i32,
    pgrp: i32,
    utime: u64,
    stime: u64,
    /// The CPU time of the children this process has waited for.
    cutime: u64,
    cstime: u64,
    /// When the process started, in clock ticks after boot.
    starttime: u64,
    rss_pages: u64,
}

impl StatFields {
    /// Clock ticks used by the process and by the children it has reaped.
    fn ticks(&self) -> u64 {
        self.utime + self.stime + self.cutime + self.cstime
    }
}

fn stat(pid: i32) -> Option<StatFields> {
    parse_stat(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// Parses the fields after `comm`, which may itself hold spaces and parentheses.
fn parse_stat(stat: &str) -> Option<StatFields> {
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // After comm: state(0) ppid(1) pgrp(2) ... utime(11) stime(12) cutime(13) cstime(14) ... starttime(19) ... rss(21).
    let field = |i: usize| f.get(i)?.parse().ok();
    Some(StatFields {
        ppid: field(1)? as i32,
        pgrp: field(2)? as i32,
        utime: field(11)?,
        stime: field(12)?,
        cutime: field(13)?,
        cstime: field(14)?,
        starttime: field(19)?,
        rss_pages: field(21)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_comm_with_spaces_and_parens() {
        let line = "42 (a (b) c) S 1 42 42 0 -1 4194560 100 0 0 0 250 50 7 3 20 0 3 0 100 1000000 300 18446744073709551615";
        let f = parse_stat(line).unwrap();
        assert_eq!((f.ppid, f.pgrp, f.utime, f.stime, f.cutime, f.cstime, f.starttime, f.rss_pages), (1, 42, 250, 50, 7, 3, 100, 300));
        assert_eq!(f.ticks(), 310);
    }

    #[test]
    fn samples_our_own_group() {
        // SAFETY: getpgrp has no preconditions.
        let s = sample_group(unsafe { libc::getpgrp() });
        assert!(s.processes >= 1 && s.rss_bytes > 0, "{s:?}");
    }

    #[test]
    fn a_tree_is_its_root_and_the_roots_children() {
        let mut child = std::process::Command::new("sleep").arg("5").spawn().unwrap();
        // SAFETY: getpid has no preconditions.
        let s = sample_tree(unsafe { libc::getpid() });
        let _ = child.kill();
        let _ = child.wait();
        assert!(s.processes >= 2 && s.rss_bytes > 0, "{s:?}");
    }

    #[test]
    fn a_tree_sample_names_each_process_with_its_start_and_own_cpu_time() {
        // The child burns some CPU: its own time shows under its pid, not in ours.
        let mut child = std::process::Command::new("sh").args(["-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done; sleep 5"]).spawn().unwrap();
        // SAFETY: getpid has no preconditions.
        let me = unsafe { libc::getpid() };
        let pid = child.id() as i32;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        let seen = loop {
            let s = sample_tree(me);
            let own = s.own.iter().find(|o| o.pid == pid).copied();
            if own.is_some_and(|o| o.cpu_seconds > 0.0) || std::time::Instant::now() > deadline {
                break (s, own);
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        };
        let _ = child.kill();
        let _ = child.wait();
        let (s, own) = seen;
        let own = own.unwrap_or_else(|| panic!("the child is not in {s:?}"));
        assert!(own.cpu_seconds > 0.0 && own.started > 0, "{s:?}");
        assert!(s.own.iter().any(|o| o.pid == me) && s.processes as usize == s.own.len(), "{s:?}");
    }

    #[test]
    fn this_machine_has_memory() {
        assert!(meminfo("MemTotal") > 0);
    }
}
