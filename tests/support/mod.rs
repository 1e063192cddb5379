pub mod refserver;

/// The searches' tests (run_capacity, run_held) measure a Python fake pinned to CPU 0
/// against a limit it is known to have; two at once share that CPU and each finds less.
static ONE_SEARCH_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Holds the searches' tests to one at a time, across their files.
pub fn one_search_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    ONE_SEARCH_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}
