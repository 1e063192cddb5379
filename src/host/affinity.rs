//! CPU affinity: which CPUs this process may use, and pinning to some of
//! them. Servers and micro programs are pinned in their child before exec,
//! load workers and the sampler on their own thread; all go through [`pin`].

use std::io;

/// CPU ids this process may run on (its affinity mask), ascending.
pub fn available() -> Vec<usize> {
    // SAFETY: cpu_set_t is plain data; sched_getaffinity only writes it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            let n = std::thread::available_parallelism().map_or(1, |n| n.get());
            return (0..n).collect();
        }
        (0..libc::CPU_SETSIZE as usize).filter(|&cpu| libc::CPU_ISSET(cpu, &set)).collect()
    }
}

/// Pins the calling thread to `cpus`; threads it starts later inherit it, and
/// in a child between fork and exec it pins the program. Allocates nothing,
/// so it is safe in `pre_exec`.
pub fn pin(cpus: &[usize]) -> io::Result<()> {
    pin_process(0, cpus)
}

/// Pins process `pid` (0: the calling thread) to `cpus`; a process it forks
/// later inherits it: how a running database is moved between points.
pub fn pin_process(pid: i32, cpus: &[usize]) -> io::Result<()> {
    // SAFETY: an all-zero cpu_set_t is the empty set; CPU_SET stays within it for cpu < CPU_SETSIZE.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &cpu in cpus {
            if cpu >= libc::CPU_SETSIZE as usize {
                return Err(io::Error::from_raw_os_error(libc::EINVAL));
            }
            libc::CPU_SET(cpu, &mut set);
        }
        if libc::sched_setaffinity(pid, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// `0-1`, `0,2,5-7`: CPU lists as taskset prints them.
pub fn describe(cpus: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let mut j = i;
        while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
            j += 1;
        }
        parts.push(if j > i { format!("{}-{}", cpus[i], cpus[j]) } else { cpus[i].to_string() });
        i = j + 1;
    }
    parts.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_print_as_ranges() {
        assert_eq!(describe(&[0, 1, 2, 5, 7, 8]), "0-2,5,7-8");
        assert_eq!(describe(&[3]), "3");
    }

    #[test]
    fn this_process_has_a_cpu() {
        assert!(!available().is_empty());
    }

    #[test]
    fn a_cpu_beyond_the_set_is_refused() {
        assert_eq!(pin(&[libc::CPU_SETSIZE as usize]).unwrap_err().raw_os_error(), Some(libc::EINVAL));
    }
}
