//! Work spread over a few threads: each takes the next index of a shared
//! count until the count runs out, so a long item holds one thread while
//! the others go on (`concur build`'s lanes, `concur run`'s verifications).

use std::sync::atomic::{AtomicUsize, Ordering};

/// Calls `work(i)` for every `i` in `0..n` on at most `jobs` threads, in
/// the order the indices are taken; a thread takes no further index once
/// `work` returns false (a stop was asked for). Returns when all have ended.
pub fn each(n: usize, jobs: usize, work: impl Fn(usize) -> bool + Sync) {
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..jobs.min(n) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= n || !work(i) {
                        return;
                    }
                }
            });
        }
    });
}

#[cfg(test)]
mod tests {
    use super::each;
    use std::sync::Mutex;

    #[test]
    fn every_index_is_worked_once_and_a_false_stops_its_thread() {
        let seen = Mutex::new(Vec::new());
        each(10, 3, |i| {
            seen.lock().unwrap().push(i);
            true
        });
        let mut seen = seen.into_inner().unwrap();
        seen.sort_unstable();
        assert_eq!(seen, (0..10).collect::<Vec<_>>());
        let taken = Mutex::new(0);
        each(10, 1, |_| {
            *taken.lock().unwrap() += 1;
            false
        });
        assert_eq!(taken.into_inner().unwrap(), 1, "one thread, stopped after its first");
        each(0, 4, |_| unreachable!("no index to take"));
    }
}
