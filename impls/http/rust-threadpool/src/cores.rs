//! `CONCUR_CORES` for a pool of OS threads. The pool's threads are many (one
//! per connection), so the thread count cannot be the knob; instead the
//! process restricts itself to that many CPUs, as an operator would with
//! `taskset`. It keeps the first N CPUs of the mask it was started with, so a
//! process the orchestrator already pinned to exactly N CPUs stays where it is.
//! Threads inherit the mask, so this runs before any thread is spawned.

use std::io;

/// Restricts this thread (and every thread it spawns later) to the first
/// `cores` CPUs it may run on; returns the CPUs kept.
pub fn restrict_to(cores: usize) -> io::Result<Vec<usize>> {
    let allowed = allowed_cpus()?;
    if cores >= allowed.len() {
        if cores > allowed.len() {
            eprintln!("CONCUR_CORES={cores}, but only {} CPUs are allowed: using them all", allowed.len());
        }
        return Ok(allowed);
    }
    let kept = allowed[..cores].to_vec();
    // SAFETY: cpu_set_t is plain data; CPU_SET writes inside it for ids below CPU_SETSIZE,
    // which every id read back by sched_getaffinity is.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &cpu in &kept {
            libc::CPU_SET(cpu, &mut set);
        }
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(kept)
}

/// The CPU ids of this thread's affinity mask, ascending.
pub fn allowed_cpus() -> io::Result<Vec<usize>> {
    // SAFETY: cpu_set_t is plain data; sched_getaffinity only writes it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok((0..libc::CPU_SETSIZE as usize).filter(|&cpu| libc::CPU_ISSET(cpu, &set)).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restricting_to_one_core_keeps_the_first_allowed_cpu() {
        // A thread of its own, so the test runner's other threads keep their mask.
        std::thread::spawn(|| {
            let before = allowed_cpus().unwrap();
            assert_eq!(restrict_to(1).unwrap(), vec![before[0]]);
            assert_eq!(allowed_cpus().unwrap(), vec![before[0]]);
            assert_eq!(restrict_to(usize::MAX).unwrap(), vec![before[0]], "asking for more keeps what is left");
        })
        .join()
        .unwrap();
    }
}
