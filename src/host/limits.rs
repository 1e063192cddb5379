//! The open-file limit (RLIMIT_NOFILE): raising the generator's own to fit
//! its connections, and every server's in its child before exec, so that a
//! server holds the clients spec/POLICIES.md §1 asks of it (no cap below
//! 65,536) whatever limit concur itself was started with. Raising the hard
//! limit needs CAP_SYS_RESOURCE; without it the soft limit goes up to the
//! hard one, and `server_shortfall` says so for the run's notes.

/// The open-file limit every server gets at least, where the machine allows (spec/POLICIES.md §1).
pub const SERVER_NOFILE: u64 = 65_536;

/// Raises the soft open-file limit (and the hard one, when allowed) to `wanted`;
/// returns the soft limit in force afterwards. Only system calls, no allocation:
/// safe between fork and exec.
pub fn raise_nofile(wanted: u64) -> u64 {
    let Some(lim) = current() else { return 1024 };
    if lim.rlim_cur >= wanted {
        return lim.rlim_cur;
    }
    if lim.rlim_max < wanted {
        let raised = libc::rlimit { rlim_cur: wanted, rlim_max: wanted };
        // SAFETY: a valid rlimit; fails harmlessly without the privilege.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
            return wanted;
        }
    }
    let soft = libc::rlimit { rlim_cur: wanted.min(lim.rlim_max), rlim_max: lim.rlim_max };
    // SAFETY: a valid rlimit within the hard limit.
    if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &soft) } == 0 { soft.rlim_cur } else { lim.rlim_cur }
}

/// For a server's child, before exec: its limit raised to [`SERVER_NOFILE`] (or the hard limit).
pub fn raise_for_server() -> std::io::Result<()> {
    raise_nofile(SERVER_NOFILE);
    Ok(())
}

/// The limit a server will get, and whether it falls short of [`SERVER_NOFILE`]: a sentence for the
/// run's notes when the hard limit is lower and concur may not raise it.
pub fn server_shortfall() -> Option<String> {
    let hard = current()?.rlim_max;
    if hard >= SERVER_NOFILE {
        return None;
    }
    (!may_raise_hard_limits()).then(|| {
        format!(
            "servers get an open-file limit of {hard}, this machine's hard limit, not the {SERVER_NOFILE} spec/POLICIES.md §1 asks: \
             concur lacks CAP_SYS_RESOURCE to raise it (run it as a root that has it, or raise the hard limit with `ulimit -Hn {SERVER_NOFILE}` first)"
        )
    })
}

/// The most open files one process here can be given (the hard limit, or `fs.nr_open` where
/// concur may raise the hard limit), and what a server's process is given (`raise_for_server`).
pub fn reachable_nofile() -> (u64, u64) {
    let Some(lim) = current() else { return (1024, 1024) };
    let most = if may_raise_hard_limits() {
        std::fs::read_to_string("/proc/sys/fs/nr_open").ok().and_then(|v| v.trim().parse().ok()).unwrap_or(lim.rlim_max)
    } else {
        lim.rlim_max
    };
    (most, lim.rlim_cur.max(SERVER_NOFILE.min(most)))
}

/// This process's open-file limit, soft and hard; none when it cannot be read. Only a system
/// call: safe between fork and exec.
fn current() -> Option<libc::rlimit> {
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: `lim` is a valid rlimit to write into.
    (unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } == 0).then_some(lim)
}

/// linux/capability.h.
const CAP_SYS_RESOURCE: u32 = 24;

/// Whether this process holds CAP_SYS_RESOURCE (bit 24 of `CapEff` in /proc/self/status).
fn may_raise_hard_limits() -> bool {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let eff = status.lines().find_map(|l| l.strip_prefix("CapEff:")).and_then(|v| u64::from_str_radix(v.trim(), 16).ok());
    eff.is_some_and(|bits| bits & (1 << CAP_SYS_RESOURCE) != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_is_given_what_one_process_may_have_at_most() {
        let (most, server) = reachable_nofile();
        let lim = current().expect("getrlimit");
        assert!(most >= lim.rlim_max && server <= most.max(lim.rlim_cur), "{most} {server} {lim:?}");
        assert!(server >= SERVER_NOFILE.min(most), "{server}");
    }

    #[test]
    fn the_soft_limit_is_never_lowered() {
        let lim = current().expect("getrlimit");
        assert_eq!(raise_nofile(16), lim.rlim_cur, "asking for less than the soft limit leaves it");
    }
}
