//! The few operating-system calls the generator needs beyond std and mio:
//! a monotonic clock in nanoseconds, thread CPU time, the open-file limit,
//! CPU pinning (through `host::affinity`), and a precise timer (timerfd) for open-loop send times.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// CLOCK_MONOTONIC in nanoseconds: the clock of every timestamp in a run.
#[inline]
pub fn now_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid timespec to write into.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// User and system CPU time, in nanoseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CpuTime {
    pub user_ns: u64,
    pub system_ns: u64,
}

impl CpuTime {
    /// CPU time of the calling thread so far.
    pub fn thread() -> CpuTime {
        rusage(libc::RUSAGE_THREAD)
    }

    pub fn since(self, earlier: CpuTime) -> CpuTime {
        CpuTime {
            user_ns: self.user_ns.saturating_sub(earlier.user_ns),
            system_ns: self.system_ns.saturating_sub(earlier.system_ns),
        }
    }

    pub fn add(&mut self, other: CpuTime) {
        self.user_ns += other.user_ns;
        self.system_ns += other.system_ns;
    }
}

fn rusage(who: libc::c_int) -> CpuTime {
    // SAFETY: an all-zero rusage is valid; getrusage only writes into it.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is a valid rusage to write into.
    unsafe { libc::getrusage(who, &mut ru) };
    let ns = |tv: libc::timeval| tv.tv_sec as u64 * 1_000_000_000 + tv.tv_usec as u64 * 1000;
    CpuTime { user_ns: ns(ru.ru_utime), system_ns: ns(ru.ru_stime) }
}

/// Raises the soft open-file limit (and the hard one, when allowed) to `wanted`;
/// returns the soft limit in force afterwards.
pub fn raise_nofile(wanted: u64) -> u64 {
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: `lim` is a valid rlimit to write into.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 {
        return 1024;
    }
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

/// Pins the calling thread to one CPU (a worker's share of `LoadPlan::cpus`).
pub fn pin_to_cpu(cpu: usize) -> io::Result<()> {
    crate::host::affinity::pin(&[cpu])
}

/// Asks the kernel to wake this thread's timers within `ns` of their time (default 50 µs).
pub fn set_timer_slack(ns: u64) {
    // SAFETY: PR_SET_TIMERSLACK takes a plain integer.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, ns as libc::c_ulong, 0, 0, 0) };
}

/// A timerfd on CLOCK_MONOTONIC: readable when the armed time has come.
pub struct Alarm {
    fd: OwnedFd,
}

impl Alarm {
    pub fn new() -> io::Result<Alarm> {
        // SAFETY: plain syscall; the result is checked before use.
        let fd = unsafe { libc::timerfd_create(libc::CLOCK_MONOTONIC, libc::TFD_NONBLOCK | libc::TFD_CLOEXEC) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `fd` is a fresh descriptor we own.
        Ok(Alarm { fd: unsafe { OwnedFd::from_raw_fd(fd) } })
    }

    /// Arms for the absolute `now_ns()` time `at_ns` (a time already past fires at once).
    pub fn arm(&self, at_ns: u64) {
        let at_ns = at_ns.max(1);
        let spec = libc::itimerspec {
            it_interval: libc::timespec { tv_sec: 0, tv_nsec: 0 },
            it_value: libc::timespec { tv_sec: (at_ns / 1_000_000_000) as _, tv_nsec: (at_ns % 1_000_000_000) as _ },
        };
        // SAFETY: a valid descriptor and itimerspec.
        unsafe { libc::timerfd_settime(self.fd.as_raw_fd(), libc::TFD_TIMER_ABSTIME, &spec, std::ptr::null_mut()) };
    }

    pub fn raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}
