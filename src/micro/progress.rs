//! What `concur micro` prints: one line per result on stdout (what a reader
//! scanning a log wants), and on a terminal only, a progress line on stderr
//! saying which invocation runs and how many are left.

use super::bench;
use crate::host::progress;
use crate::store::micro::{MicroRecord, MicroStatus, SearchRecord};
use indicatif::ProgressBar;

/// The tasks done and left, and what runs now.
pub struct Progress {
    bar: ProgressBar,
    done: u64,
}

impl Progress {
    pub fn new(total: usize) -> Progress {
        Progress { bar: progress::bar(total as u64, progress::style("[{pos}/{len} {elapsed_precise}] {msg}")), done: 0 }
    }

    /// Shows what runs now, e.g. `[3/27 00:00:42] go · pingping size=5120 reps=1000 · cores=2 · #1`.
    pub fn show(&self, what: &str) {
        // The position shown is the task running, counted from 1.
        self.bar.set_position(self.done + 1);
        self.bar.set_message(what.to_string());
    }

    /// Prints a result line on stdout without tearing the progress line.
    pub fn println(&self, line: &str) {
        self.bar.suspend(|| println!("{line}"));
    }

    /// Removes the progress line for good.
    pub fn clear(&self) {
        self.bar.finish_and_clear();
    }

    /// Drops `n` tasks of an implementation that will not run.
    pub fn skip(&mut self, n: usize) {
        let total = self.bar.length().unwrap_or(0);
        self.bar.set_length(total.saturating_sub(n as u64));
    }

    pub fn finished_task(&mut self) {
        self.done += 1;
    }
}

/// One result: `go  pingping size=5120 reps=1000  cores=2 #1  ok  812.3 ns/op  rss 11.2 MiB`.
pub fn result_line(r: &MicroRecord) -> String {
    let head = format!("{:<17} {:<8} {:<26} cores={:<2} #{}", r.implementation, r.bench, bench::describe(&r.params), r.cores, r.repeat);
    let mib = |b: u64| b as f64 / (1u64 << 20) as f64;
    match r.status {
        MicroStatus::Ok => {
            let mut s = format!("{head}  ok      {:>12.1} ns/op  rss {:>8.1} MiB", r.ns_per_op.unwrap_or(0.0), mib(r.peak_rss_bytes));
            if let Some(b) = r.bytes_per_proc {
                s.push_str(&format!("  {b:.0} B/proc"));
            }
            match (r.messages_per_s, r.supervision) {
                (Some(m), Some(sup)) => s.push_str(&format!(
                    "  {:.2} M msg/s, {} killed, {} lost, restart p50 {:.0} µs p99 {:.0} µs ({} first ran after the stop)",
                    m / 1e6,
                    sup.kills,
                    sup.lost,
                    sup.restart_p50_ns as f64 / 1e3,
                    sup.restart_p99_ns as f64 / 1e3,
                    sup.late_restarts
                )),
                (Some(m), None) => s.push_str(&format!("  {:.2} M msg/s (slowest pair {})", m / 1e6, r.min_pair_round_trips.unwrap_or(0))),
                _ => {}
            }
            s
        }
        MicroStatus::Failed | MicroStatus::Budget => {
            format!("{head}  {:<7} {}", r.status.as_str().to_uppercase(), r.reason.as_deref().unwrap_or(""))
        }
    }
}

/// A search's answer: `go  maxprocs  cores=2 #1  largest N 1000000 (limit: …)`.
pub fn search_line(s: &SearchRecord) -> String {
    let largest = s.largest_n.map_or("none".to_string(), |n| n.to_string());
    format!("{:<17} maxprocs search cores={:<2} #{}  largest N {largest}, stopped by {}: {}", s.implementation, s.cores, s.repeat, s.stop.as_str(), s.detail)
}
