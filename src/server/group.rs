//! Process groups of started servers: signalling a whole tree, and the
//! Ctrl-C handler that stops every group still registered before exiting,
//! so that no interrupted command leaves a server behind.

use std::sync::Mutex;
use std::time::{Duration, Instant};

static GROUPS: Mutex<Vec<i32>> = Mutex::new(Vec::new());
static INTERRUPTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether Ctrl-C (or SIGTERM/SIGHUP) has been received. Code that notices a
/// server die while the handler is still stopping groups uses it to exit 130
/// like the handler, rather than report the death as a failure.
pub fn interrupted() -> bool {
    INTERRUPTED.load(std::sync::atomic::Ordering::SeqCst)
}

pub fn register(pgid: i32) {
    GROUPS.lock().unwrap_or_else(|e| e.into_inner()).push(pgid);
}

pub fn unregister(pgid: i32) {
    GROUPS.lock().unwrap_or_else(|e| e.into_inner()).retain(|&g| g != pgid);
}

pub fn is_registered(pgid: i32) -> bool {
    GROUPS.lock().unwrap_or_else(|e| e.into_inner()).contains(&pgid)
}

fn group_alive(pgid: i32) -> bool {
    // SAFETY: signal 0 only checks for existence.
    unsafe { libc::kill(-pgid, 0) == 0 }
}

/// SIGTERM to the group, then SIGKILL to whatever is left after `grace`.
pub fn stop_group(pgid: i32, grace: Duration) {
    // SAFETY: plain syscalls on a group this process created.
    unsafe { libc::kill(-pgid, libc::SIGTERM) };
    let deadline = Instant::now() + grace;
    while Instant::now() < deadline {
        reap_leader(pgid);
        if !group_alive(pgid) {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    unsafe { libc::kill(-pgid, libc::SIGKILL) };
}

/// Collects the exited leader without blocking so that `group_alive` sees a
/// dead group as gone rather than as a zombie. Only the leader: other
/// children belong to other `Server`s.
fn reap_leader(pgid: i32) {
    // SAFETY: non-blocking waitpid on our own child.
    unsafe { libc::waitpid(pgid, std::ptr::null_mut(), libc::WNOHANG) };
}

/// Installs, once, a handler for SIGINT/SIGTERM/SIGHUP that stops every
/// registered group and exits 130.
pub fn install_interrupt_handler() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = ctrlc::set_handler(|| {
            INTERRUPTED.store(true, std::sync::atomic::Ordering::SeqCst);
            let groups: Vec<i32> = GROUPS.lock().unwrap_or_else(|e| e.into_inner()).clone();
            for pgid in &groups {
                stop_group(*pgid, Duration::from_secs(2));
            }
            eprintln!("\nconcur: interrupted; stopped {} server process group(s)", groups.len());
            std::process::exit(130);
        });
    });
}

/// Pins the calling process (run in the child before exec) to `cpus`.
pub fn pin_self(cpus: &[usize]) -> std::io::Result<()> {
    // SAFETY: cpu_set_t is plain data; the calls only read it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &cpu in cpus {
            libc::CPU_SET(cpu, &mut set);
        }
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}
