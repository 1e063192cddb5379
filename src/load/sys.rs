//! The few operating-system calls the generator needs beyond std and mio:
//! a monotonic clock in nanoseconds, thread CPU time,
//! CPU pinning (through `host::affinity`), an epoll wait that wakes at a nanosecond time
//! (`epoll_pwait2`, or a timerfd on kernels before 5.11), and the kernel's arrival time of
//! received bytes (SO_TIMESTAMPNS), which lets the open loop read responses in batches
//! without adding its own delay to their latencies.

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

/// Pins the calling thread to one CPU (a worker's share of `LoadPlan::cpus`).
pub fn pin_to_cpu(cpu: usize) -> io::Result<()> {
    crate::host::affinity::pin(&[cpu])
}

/// Asks the kernel to wake this thread's timers within `ns` of their time (default 50 µs).
pub fn set_timer_slack(ns: u64) {
    // SAFETY: PR_SET_TIMERSLACK takes a plain integer.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, ns as libc::c_ulong, 0, 0, 0) };
}

/// Sleeps until the absolute `now_ns()` time `at_ns` (at once when it is past).
pub fn sleep_until(at_ns: u64) {
    let ts = libc::timespec { tv_sec: (at_ns / 1_000_000_000) as _, tv_nsec: (at_ns % 1_000_000_000) as _ };
    // SAFETY: a valid timespec; an interrupted sleep just ends early, which the caller tolerates.
    unsafe { libc::clock_nanosleep(libc::CLOCK_MONOTONIC, libc::TIMER_ABSTIME, &ts, std::ptr::null_mut()) };
}

/// SO_TIMESTAMPNS and its control message (the same number) on every architecture but
/// alpha, mips, parisc, powerpc and sparc; libc does not export them for Linux/glibc.
const SO_TIMESTAMPNS: libc::c_int = 35;

/// Asks the kernel to stamp every segment `fd` receives with its arrival time (`recv_stamped`).
pub fn stamp_arrivals(fd: RawFd) -> io::Result<()> {
    let on: libc::c_int = 1;
    // SAFETY: a valid descriptor and option value of the size passed.
    let r = unsafe {
        libc::setsockopt(fd, libc::SOL_SOCKET, SO_TIMESTAMPNS, &on as *const _ as *const libc::c_void, size_of::<libc::c_int>() as _)
    };
    if r == 0 { Ok(()) } else { Err(io::Error::last_os_error()) }
}

/// `read` that also returns when the last of the bytes read arrived, on the `now_ns()` clock,
/// if the socket is stamped (`stamp_arrivals`). The kernel stamps in CLOCK_REALTIME;
/// `realtime_offset` is `realtime_offset()` taken lately.
pub fn recv_stamped(fd: RawFd, buf: &mut [u8], realtime_offset: i64) -> io::Result<(usize, Option<u64>)> {
    #[repr(C, align(8))]
    struct Control([u8; 64]);
    let mut control = Control([0; 64]);
    let mut iov = libc::iovec { iov_base: buf.as_mut_ptr() as *mut libc::c_void, iov_len: buf.len() };
    // SAFETY: an all-zero msghdr is valid; the pointers set below outlive the call.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.0.as_mut_ptr() as *mut libc::c_void;
    msg.msg_controllen = control.0.len() as _;
    // SAFETY: a valid descriptor and msghdr.
    let n = unsafe { libc::recvmsg(fd, &mut msg, 0) };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    let mut arrived = None;
    // SAFETY: the CMSG_* walk stays within the control buffer the kernel filled and reports in msg_controllen.
    unsafe {
        let mut cmsg = libc::CMSG_FIRSTHDR(&msg);
        while !cmsg.is_null() {
            if (*cmsg).cmsg_level == libc::SOL_SOCKET && (*cmsg).cmsg_type == SO_TIMESTAMPNS {
                let ts = std::ptr::read_unaligned(libc::CMSG_DATA(cmsg) as *const libc::timespec);
                let real = ts.tv_sec * 1_000_000_000 + ts.tv_nsec;
                arrived = u64::try_from(real - realtime_offset).ok();
            }
            cmsg = libc::CMSG_NXTHDR(&msg, cmsg);
        }
    }
    Ok((n as usize, arrived))
}

/// CLOCK_REALTIME minus CLOCK_MONOTONIC, in nanoseconds: turns kernel arrival stamps into `now_ns()` times.
pub fn realtime_offset() -> i64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid timespec to write into.
    unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut ts) };
    let real = ts.tv_sec * 1_000_000_000 + ts.tv_nsec;
    real - now_ns() as i64
}

/// Waits on an epoll instance for events or an absolute `now_ns()` time, whichever comes first.
/// The time is kept to the nanosecond with `epoll_pwait2`'s timeout (Linux >= 5.11): one timer
/// per sleep, and none re-armed per request. Where the call is missing (ENOSYS), a timerfd in
/// the epoll set is armed instead, only when the wake-up time changes.
pub struct Waiter {
    epoll: RawFd,
    events: Vec<libc::epoll_event>,
    /// Set once `epoll_pwait2` proved missing.
    alarm: Option<Alarm>,
    armed: u64,
}

/// The epoll token of the fallback timerfd; events carrying it are not handed out.
const ALARM_TOKEN: u64 = u64::MAX;

impl Waiter {
    /// Waits on `epoll` (which must outlive the waiter), handing out up to `capacity` events per wait.
    pub fn new(epoll: RawFd, capacity: usize) -> Waiter {
        Waiter { epoll, events: vec![libc::epoll_event { events: 0, u64: 0 }; capacity], alarm: None, armed: 0 }
    }

    /// Blocks until an event or `until_ns`; returns how many events `event` can read.
    pub fn wait(&mut self, until_ns: u64) -> io::Result<usize> {
        if self.alarm.is_none() {
            match self.pwait2(until_ns) {
                Err(e) if e.raw_os_error() == Some(libc::ENOSYS) => self.alarm = Some(self.add_alarm()?),
                result => return result,
            }
        }
        self.wait_on_alarm(until_ns)
    }

    /// Event `k` of the last wait: its token, and whether the socket may have something to read.
    #[inline]
    pub fn event(&self, k: usize) -> Option<(usize, bool)> {
        let e = self.events[k];
        let (token, flags) = (e.u64, e.events as libc::c_int);
        let readable = flags & (libc::EPOLLIN | libc::EPOLLPRI | libc::EPOLLHUP | libc::EPOLLERR) != 0;
        (token != ALARM_TOKEN).then_some((token as usize, readable))
    }

    fn pwait2(&mut self, until_ns: u64) -> io::Result<usize> {
        let ns = until_ns.saturating_sub(now_ns());
        let timeout = libc::timespec { tv_sec: (ns / 1_000_000_000) as _, tv_nsec: (ns % 1_000_000_000) as _ };
        // SAFETY: a valid epoll descriptor, an event buffer of the length passed, a valid timespec, no signal mask.
        let n = unsafe {
            libc::syscall(
                libc::SYS_epoll_pwait2,
                self.epoll,
                self.events.as_mut_ptr(),
                self.events.len() as libc::c_int,
                &timeout as *const libc::timespec,
                std::ptr::null::<libc::sigset_t>(),
                0usize,
            )
        };
        if n < 0 { Err(io::Error::last_os_error()) } else { Ok(n as usize) }
    }

    fn add_alarm(&self) -> io::Result<Alarm> {
        let alarm = Alarm::new()?;
        let mut event = libc::epoll_event { events: (libc::EPOLLIN | libc::EPOLLET) as u32, u64: ALARM_TOKEN };
        // SAFETY: valid descriptors and event.
        if unsafe { libc::epoll_ctl(self.epoll, libc::EPOLL_CTL_ADD, alarm.raw_fd(), &mut event) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(alarm)
    }

    fn wait_on_alarm(&mut self, until_ns: u64) -> io::Result<usize> {
        let now = now_ns();
        let timeout_ms = if until_ns <= now {
            0
        } else {
            if until_ns != self.armed {
                self.alarm.as_ref().expect("the fallback alarm is set").arm(until_ns);
                self.armed = until_ns;
            }
            // A backstop only: the timerfd wakes the wait on time.
            ((until_ns - now).div_ceil(1_000_000)).min(i32::MAX as u64) as libc::c_int
        };
        // SAFETY: a valid epoll descriptor and an event buffer of the length passed.
        let n = unsafe { libc::epoll_wait(self.epoll, self.events.as_mut_ptr(), self.events.len() as libc::c_int, timeout_ms) };
        if n < 0 { Err(io::Error::last_os_error()) } else { Ok(n as usize) }
    }
}

/// A timerfd on CLOCK_MONOTONIC: readable when the armed time has come.
struct Alarm {
    fd: OwnedFd,
}

impl Alarm {
    fn new() -> io::Result<Alarm> {
        // SAFETY: plain syscall; the result is checked before use.
        let fd = unsafe { libc::timerfd_create(libc::CLOCK_MONOTONIC, libc::TFD_NONBLOCK | libc::TFD_CLOEXEC) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `fd` is a fresh descriptor we own.
        Ok(Alarm { fd: unsafe { OwnedFd::from_raw_fd(fd) } })
    }

    /// Arms for the absolute `now_ns()` time `at_ns` (a time already past fires at once).
    fn arm(&self, at_ns: u64) {
        let at_ns = at_ns.max(1);
        let spec = libc::itimerspec {
            it_interval: libc::timespec { tv_sec: 0, tv_nsec: 0 },
            it_value: libc::timespec { tv_sec: (at_ns / 1_000_000_000) as _, tv_nsec: (at_ns % 1_000_000_000) as _ },
        };
        // SAFETY: a valid descriptor and itimerspec.
        unsafe { libc::timerfd_settime(self.fd.as_raw_fd(), libc::TFD_TIMER_ABSTIME, &spec, std::ptr::null_mut()) };
    }

    fn raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::net::{TcpListener, TcpStream};

    /// Waits with no socket registered: no event is handed out (the fallback's own timerfd
    /// event is not one), and the wait does not end before its time.
    fn wakes_at_its_time(waiter: &mut Waiter) {
        let until = now_ns() + 2_000_000;
        let n = waiter.wait(until).unwrap();
        let woke = now_ns();
        assert_eq!((0..n).filter_map(|k| waiter.event(k)).count(), 0);
        assert!(woke >= until, "woke {} ns before its time", until - woke);
    }

    #[test]
    fn waiter_wakes_at_its_time_with_epoll_pwait2_and_with_the_timerfd_fallback() {
        let epoll = unsafe { OwnedFd::from_raw_fd(libc::epoll_create1(libc::EPOLL_CLOEXEC)) };
        let mut waiter = Waiter::new(epoll.as_raw_fd(), 8);
        wakes_at_its_time(&mut waiter);
        waiter.alarm = Some(waiter.add_alarm().unwrap());
        wakes_at_its_time(&mut waiter);
        wakes_at_its_time(&mut waiter);
    }

    /// The open loop reads responses up to a batch window late; the stamp must be when the
    /// bytes arrived, not when they were read. The kernel turns stamping on for the whole
    /// stack a moment after the first socket asks (deferred work), so the first segments
    /// may come unstamped: those are read without a stamp and the exchange repeated.
    #[test]
    fn recv_stamped_returns_the_arrival_not_the_read() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        stamp_arrivals(client.as_raw_fd()).unwrap();
        let (mut server, _) = listener.accept().unwrap();
        for _ in 0..200 {
            let before = now_ns();
            server.write_all(b"hello").unwrap();
            let written = now_ns();
            std::thread::sleep(std::time::Duration::from_millis(20));
            let mut buf = [0u8; 16];
            let (n, arrived) = recv_stamped(client.as_raw_fd(), &mut buf, realtime_offset()).unwrap();
            assert_eq!(&buf[..n], b"hello");
            let Some(arrived) = arrived else { continue };
            // Loopback delivers within the write; allow the two clocks' conversion a millisecond.
            assert!(arrived + 1_000_000 >= before && arrived <= written + 1_000_000, "arrived {arrived}, written {before}..{written}");
            assert!(now_ns() >= arrived + 20_000_000);
            return;
        }
        panic!("no arrival stamp in 200 exchanges on a socket with SO_TIMESTAMPNS");
    }
}
