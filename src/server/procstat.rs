//! Sampling a server's whole process tree from `/proc`: CPU time and
//! resident memory summed over every process of its group (cluster workers,
//! the BEAM's helpers, JVM children).

use serde::Serialize;

/// One sample of a process group.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct GroupSample {
    /// User + system CPU seconds consumed so far by the live processes.
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
    let Ok(entries) = std::fs::read_dir("/proc") else { return sample };
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !name.to_string_lossy().bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        if let Some(fields) = parse_stat(&stat)
            && fields.pgrp == pgid
        {
            sample.cpu_seconds += (fields.utime + fields.stime) as f64 / ticks;
            sample.rss_bytes += fields.rss_pages * page;
            sample.processes += 1;
        }
    }
    sample
}

struct StatFields {
    pgrp: i32,
    utime: u64,
    stime: u64,
    rss_pages: u64,
}

/// Parses the fields after `comm`, which may itself hold spaces and parentheses.
fn parse_stat(stat: &str) -> Option<StatFields> {
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // After comm: state(0) ppid(1) pgrp(2) ... utime(11) stime(12) ... rss(21).
    Some(StatFields { pgrp: f.get(2)?.parse().ok()?, utime: f.get(11)?.parse().ok()?, stime: f.get(12)?.parse().ok()?, rss_pages: f.get(21)?.parse().ok()? })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_comm_with_spaces_and_parens() {
        let line = "42 (a (b) c) S 1 42 42 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 3 0 100 1000000 300 18446744073709551615";
        let f = parse_stat(line).unwrap();
        assert_eq!((f.pgrp, f.utime, f.stime, f.rss_pages), (42, 250, 50, 300));
    }

    #[test]
    fn samples_our_own_group() {
        // SAFETY: getpgrp has no preconditions.
        let s = sample_group(unsafe { libc::getpgrp() });
        assert!(s.processes >= 1 && s.rss_bytes > 0, "{s:?}");
    }
}
