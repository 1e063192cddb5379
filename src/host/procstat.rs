//! Reading `/proc`: a process group's CPU time and resident memory summed
//! over every process in it (cluster workers, the BEAM's helpers, JVM
//! children), the groups this process' children lead, and `/proc/meminfo`.

use serde::Serialize;

/// One sample of a process group.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct GroupSample {
    /// User + system CPU seconds consumed so far by the live processes and by
    /// the children they have reaped (a postmaster's finished backends, a
    /// cluster's replaced workers), so that it never falls when one exits.
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

/// Sums the process `root` and its children, with memory as their
/// proportional set size (`Pss` of `/proc/<pid>/smaps_rollup`: each shared
/// page divided among the processes mapping it), else their RSS. This is
/// PostgreSQL's shape: the postmaster's children each lead a session of
/// their own, so its group holds none of them, and they all map the same
/// shared buffers, which RSS would count once per backend.
pub fn sample_tree(root: i32) -> GroupSample {
    // SAFETY: sysconf has no preconditions.
    let (ticks, page) = unsafe { (libc::sysconf(libc::_SC_CLK_TCK) as f64, libc::sysconf(libc::_SC_PAGESIZE) as u64) };
    let mut sample = GroupSample::default();
    for (pid, fields) in pids().filter_map(|pid| Some((pid, stat(pid)?))).filter(|(pid, f)| *pid == root || f.ppid == root) {
        sample.cpu_seconds += fields.ticks() as f64 / ticks;
        sample.rss_bytes += pss_bytes(pid).unwrap_or(fields.rss_pages * page);
        sample.processes += 1;
    }
    sample
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
    // After comm: state(0) ppid(1) pgrp(2) ... utime(11) stime(12) cutime(13) cstime(14) ... rss(21).
    let field = |i: usize| f.get(i)?.parse().ok();
    Some(StatFields {
        ppid: field(1)? as i32,
        pgrp: field(2)? as i32,
        utime: field(11)?,
        stime: field(12)?,
        cutime: field(13)?,
        cstime: field(14)?,
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
        assert_eq!((f.ppid, f.pgrp, f.utime, f.stime, f.cutime, f.cstime, f.rss_pages), (1, 42, 250, 50, 7, 3, 300));
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
    fn a_trees_cpu_time_keeps_a_reaped_childs() {
        // The child burns some CPU, then sleeps: sampled while it sleeps and
        // again once reaped, its time has moved into our cutime, not gone.
        let mut child = std::process::Command::new("sh").args(["-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done; sleep 5"]).spawn().unwrap();
        // SAFETY: getpid has no preconditions.
        let me = unsafe { libc::getpid() };
        let pid = child.id() as i32;
        let burnt = || stat(pid).map_or(0, |f| f.utime + f.stime);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        let mut last = burnt();
        // Wait until the loop is over: the child's CPU time stops growing.
        loop {
            std::thread::sleep(std::time::Duration::from_millis(200));
            let now = burnt();
            if (now == last && now > 0) || std::time::Instant::now() > deadline {
                break;
            }
            last = now;
        }
        let before = sample_tree(me);
        let _ = child.kill();
        let _ = child.wait();
        let after = sample_tree(me);
        // Sums of ticks in another order may differ in their last bit (1.6800000000000002 against 1.68).
        assert!(last > 0 && after.cpu_seconds >= before.cpu_seconds - 1e-9, "child used {last} ticks; before {before:?}, after {after:?}");
    }

    #[test]
    fn this_machine_has_memory() {
        assert!(meminfo("MemTotal") > 0);
    }
}
