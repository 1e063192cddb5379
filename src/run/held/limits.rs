//! What the machine and the profile let a step have, named: the profile's
//! `max_clients`, open files (the generator holds one descriptor per client,
//! the server as many again: concur raises its own limit before the server
//! starts, and the server's child raises it to at least 65,536 where the hard
//! limit allows, `host::limits`), memory (the machine's MemAvailable
//! against the memory the last passing step cost per client, the server's,
//! the generator's and the kernel's together) and, found only by trying,
//! local ports or descriptors that ran out in the middle of a step (a
//! `connect` error of EADDRNOTAVAIL, EMFILE, ENFILE, ENOBUFS or ENOMEM).

use crate::host::procstat::meminfo;
use crate::store::held::HeldStepRecord;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

/// Descriptors the generator needs besides its clients (as `load` keeps).
pub const SPARE_FDS: u64 = 64;
/// Memory left to the rest of the machine: the other programs here, the report's later work.
const RESERVE_BYTES: u64 = 1 << 30;

/// The most clients a step may have, and the limit that sets it.
#[derive(Debug, Clone, PartialEq)]
pub struct Cap {
    pub clients: u64,
    pub limit: String,
    /// Set by how fast the server accepts clients (`accept`), not by the machine or the profile.
    pub by_arrival: bool,
}

/// The most clients the next step may have: the least of `max_clients`, the open-file
/// limit `nofile` and what MemAvailable holds at the per-client cost of the largest
/// passing step of `steps`.
pub fn cap(max_clients: u64, nofile: u64, steps: &[HeldStepRecord], available: u64) -> Cap {
    let mut cap = Cap { clients: max_clients, limit: format!("the profile's max_clients ({max_clients})"), by_arrival: false };
    let files = nofile.saturating_sub(SPARE_FDS);
    if files < cap.clients {
        cap = Cap { clients: files, limit: format!("open files: the limit is {nofile} descriptors per process ({SPARE_FDS} kept spare)"), by_arrival: false };
    }
    let costliest = steps.iter().filter(|s| s.verdict == "pass" && s.clients > 0).max_by_key(|s| s.clients);
    if let Some(step) = costliest {
        let per_client = step.machine_bytes as f64 / step.clients as f64;
        let room = available.saturating_sub(RESERVE_BYTES) as f64;
        let fits = if per_client > 0.0 { (room / per_client) as u64 } else { u64::MAX };
        if fits < cap.clients {
            cap = Cap {
                clients: fits,
                limit: format!(
                    "memory: {:.1} KiB per client (the machine's cost at {} clients) and {} MiB available, {} MiB kept free",
                    per_client / 1024.0,
                    step.clients,
                    available >> 20,
                    RESERVE_BYTES >> 20
                ),
                by_arrival: false,
            };
        }
    }
    cap
}

/// The machine's ceiling for one search, whatever the profile's `max_clients`: the open files
/// one generator process and one server process may have (`host::limits`), and memory at the
/// cost per client of the largest passing step of `steps`. Local ports are no ceiling on
/// loopback: the generator spreads its connections over source addresses (`load::source`).
pub fn ceiling(steps: &[HeldStepRecord], available: u64) -> Cap {
    let (generator, server) = crate::host::limits::reachable_nofile();
    cap(u64::MAX, generator.min(server), steps, available)
}

/// A machine limit a step ran into, from the first message of its `connect` errors.
pub fn machine_error(messages: &BTreeMap<String, String>) -> Option<String> {
    let text = messages.get("connect")?;
    let named = [
        (libc::EADDRNOTAVAIL, "local ports ran out (EADDRNOTAVAIL)"),
        (libc::EMFILE, "the generator's open-file limit (EMFILE)"),
        (libc::ENFILE, "the system's open-file limit (ENFILE)"),
        (libc::ENOBUFS, "kernel buffers ran out (ENOBUFS)"),
        (libc::ENOMEM, "memory ran out (ENOMEM)"),
    ];
    named.iter().find(|(code, _)| text.contains(&format!("(os error {code})"))).map(|(_, what)| format!("{what}: {text}"))
}

/// Watches MemAvailable during a step (every 100 ms) for its lowest value.
pub struct MemWatch {
    before: u64,
    stop: Arc<AtomicBool>,
    lowest: Arc<AtomicU64>,
    handle: JoinHandle<()>,
}

impl MemWatch {
    pub fn start() -> MemWatch {
        let before = meminfo("MemAvailable");
        let (stop, lowest) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicU64::new(before)));
        let (flag, low) = (Arc::clone(&stop), Arc::clone(&lowest));
        let handle = std::thread::spawn(move || {
            while !flag.load(Ordering::Relaxed) {
                low.fetch_min(meminfo("MemAvailable"), Ordering::Relaxed);
                crate::host::interrupt::sleep_unless(Duration::from_millis(100), Duration::from_millis(20), || flag.load(Ordering::Relaxed));
            }
        });
        MemWatch { before, stop, lowest, handle }
    }

    /// Stops watching; the fall from before the step to its lowest, in bytes.
    pub fn finish(self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        let _ = self.handle.join();
        self.before.saturating_sub(self.lowest.load(Ordering::Relaxed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn passed(clients: u64, machine_bytes: u64) -> HeldStepRecord {
        HeldStepRecord { clients, machine_bytes, verdict: "pass".into(), ..Default::default() }
    }

    #[test]
    fn the_lowest_limit_caps_the_next_step_and_is_named() {
        assert_eq!(cap(100_000, 1 << 20, &[], 20 << 30).limit, "the profile's max_clients (100000)");
        let files = cap(100_000, 20_000, &[], 20 << 30);
        assert_eq!(files.clients, 19_936);
        assert!(files.limit.starts_with("open files: the limit is 20000"), "{}", files.limit);
        // 16,000 clients cost 10 KiB each: 3 GiB available, 1 kept free, hold 209,715.
        let memory = cap(1_000_000, 1 << 20, &[passed(8_000, 1 << 30), passed(16_000, 16_000 * 10 * 1024)], 3 << 30);
        assert_eq!(memory.clients, 209_715);
        assert!(memory.limit.starts_with("memory: 10.0 KiB per client (the machine's cost at 16000 clients)"), "{}", memory.limit);
    }

    #[test]
    fn the_ceiling_is_the_machine_s_whatever_the_profile_asks() {
        let (generator, server) = crate::host::limits::reachable_nofile();
        let files = ceiling(&[], 20 << 30);
        assert_eq!(files.clients, generator.min(server) - SPARE_FDS);
        assert!(files.limit.starts_with("open files"), "{}", files.limit);
        let memory = ceiling(&[passed(1_000, 1 << 30)], 3 << 30);
        assert_eq!(memory.clients, 2_000, "1 MiB a client, 2 GiB of room");
        assert!(memory.limit.starts_with("memory"), "{}", memory.limit);
    }

    #[test]
    fn a_connect_that_ran_out_of_ports_or_files_names_the_limit() {
        let errors = |text: &str| BTreeMap::from([("connect".to_string(), text.to_string())]);
        let ports = machine_error(&errors("Cannot assign requested address (os error 99)")).unwrap();
        assert!(ports.starts_with("local ports ran out (EADDRNOTAVAIL)"), "{ports}");
        assert!(machine_error(&errors("Too many open files (os error 24)")).unwrap().contains("EMFILE"));
        assert_eq!(machine_error(&errors("Connection refused (os error 111)")), None, "the server's doing, not the machine's");
        assert_eq!(machine_error(&BTreeMap::new()), None);
    }
}
