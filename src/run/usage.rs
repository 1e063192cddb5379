//! Turning samples and CPU times into what a point records: the server's
//! CPU utilisation per core and its peak and mean memory, the generator's
//! and the database's utilisation, and the rules that flag a point whose
//! numbers measure the load generator or the database rather than the
//! server (spec/RESULTS-DB.md, "saturated" and "database-limited").

use crate::store::{DatabaseUsage, GeneratorUsage, ServerUsage, UsageSample};

/// Utilisation at or above which a set of CPUs counts as fully busy. Not 1.0:
/// scheduling, interrupts and the sampler keep a busy CPU just below it.
pub const BUSY: f64 = 0.90;

/// In a shared set-up, the generator's share of the CPU time above which it
/// is taken to have limited the server.
pub const GENERATOR_SHARE: f64 = 0.25;

/// The server's usage over a measurement of `duration_s` on `cores` CPUs.
pub fn server(samples: Vec<UsageSample>, duration_s: f64, cores: u32) -> ServerUsage {
    let cpu_seconds = samples.last().map_or(0.0, |s| s.cpu_seconds);
    let rss: Vec<u64> = samples.iter().map(|s| s.rss_bytes).filter(|&r| r > 0).collect();
    ServerUsage {
        cpu_seconds,
        cpu_util: ratio(cpu_seconds, duration_s * f64::from(cores)),
        rss_peak_bytes: rss.iter().copied().max().unwrap_or(0),
        rss_mean_bytes: if rss.is_empty() { 0 } else { rss.iter().sum::<u64>() / rss.len() as u64 },
        processes_max: samples.iter().map(|s| s.processes).max().unwrap_or(0),
        samples,
    }
}

/// The generator's usage, and whether it saturated.
///
/// On CPUs of its own, the generator limited the point when it kept them
/// busy. When it shares the server's CPUs, or a database shares its CPUs
/// (`others_cpu_seconds`: the CPU time of every other role on them), they
/// are limited together: the point is flagged when the CPUs were busy and
/// the generator took a noticeable share of them, time the others could
/// otherwise have used.
pub fn generator(cpus: Vec<usize>, shared: bool, cpu_seconds: f64, duration_s: f64, others_cpu_seconds: f64) -> GeneratorUsage {
    let saturated = limited(cpu_seconds, others_cpu_seconds, duration_s * cpus.len() as f64);
    let cpu_util = ratio(cpu_seconds, duration_s * cpus.len() as f64);
    GeneratorUsage { cpus, shared, cpu_seconds, cpu_util, saturated, ..Default::default() }
}

/// The database's usage over a measurement of `duration_s`, and whether it,
/// not the server, limited the point: by the generator's rule, with the
/// CPU time of the roles it shares its CPUs with as `others_cpu_seconds`.
pub fn database(cpus: Vec<usize>, shared: bool, samples: Vec<UsageSample>, duration_s: f64, others_cpu_seconds: f64) -> DatabaseUsage {
    let capacity = duration_s * cpus.len() as f64;
    let memory = server(samples, duration_s, 1);
    DatabaseUsage {
        limited: limited(memory.cpu_seconds, others_cpu_seconds, capacity),
        cpu_util: ratio(memory.cpu_seconds, capacity),
        cpus,
        shared,
        cpu_seconds: memory.cpu_seconds,
        mem_peak_bytes: memory.rss_peak_bytes,
        mem_mean_bytes: memory.rss_mean_bytes,
        processes_max: memory.processes_max,
        samples: memory.samples,
    }
}

/// Whether a role that used `own` CPU seconds of `capacity` limited the
/// point: alone on its CPUs, when it kept them busy; sharing them with
/// roles that used `others`, when together they kept them busy and the
/// role took at least [`GENERATOR_SHARE`] of that time.
fn limited(own: f64, others: f64, capacity: f64) -> bool {
    if others > 0.0 {
        ratio(own + others, capacity) >= BUSY && ratio(own, own + others) >= GENERATOR_SHARE
    } else {
        ratio(own, capacity) >= BUSY
    }
}

fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 { a / b } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(t_ms: u64, cpu_seconds: f64, rss_mb: u64) -> UsageSample {
        UsageSample { t_ms, cpu_seconds, rss_bytes: rss_mb << 20, processes: 2 }
    }

    #[test]
    fn server_usage_is_per_core_with_peak_and_mean_memory() {
        let u = server(vec![sample(0, 0.0, 10), sample(1000, 1.0, 30), sample(2000, 3.0, 20)], 2.0, 2);
        assert!((u.cpu_util - 0.75).abs() < 1e-9, "{u:?}");
        assert_eq!((u.rss_peak_bytes, u.rss_mean_bytes, u.processes_max), (30 << 20, 20 << 20, 2));
    }

    #[test]
    fn a_dedicated_generator_is_saturated_only_when_its_cpus_are_busy() {
        assert!(generator(vec![1], false, 9.5, 10.0, 0.0).saturated);
        assert!(!generator(vec![1], false, 6.0, 10.0, 0.0).saturated);
        let two = generator(vec![2, 3], false, 10.0, 10.0, 0.0);
        assert!(!two.saturated && (two.cpu_util - 0.5).abs() < 1e-9);
    }

    #[test]
    fn a_shared_generator_is_flagged_when_it_took_a_busy_cpu_from_the_server() {
        // Two shared CPUs fully busy for 10 s, the generator took 8 of 20 CPU seconds.
        assert!(generator(vec![0, 1], true, 8.0, 10.0, 11.0).saturated);
        // Busy, but almost all of it was the server (bcrypt): the server is the limit.
        assert!(!generator(vec![0, 1], true, 1.0, 10.0, 18.5).saturated);
        // The generator is busy, but the CPUs are not: nothing was taken from the server.
        assert!(!generator(vec![0, 1], true, 6.0, 10.0, 4.0).saturated);
    }

    #[test]
    fn a_database_is_flagged_like_a_generator_alone_or_sharing_its_cpus() {
        let busy = vec![sample(0, 0.0, 100), sample(10_000, 9.5, 120)];
        let alone = database(vec![2], false, busy.clone(), 10.0, 0.0);
        assert!(alone.limited && (alone.cpu_util - 0.95).abs() < 1e-9, "{alone:?}");
        assert_eq!((alone.mem_peak_bytes, alone.processes_max), (120 << 20, 2));
        let idle = vec![sample(0, 0.0, 100), sample(10_000, 2.0, 100)];
        assert!(!database(vec![2], false, idle.clone(), 10.0, 0.0).limited, "slowdb: waits, not CPU");
        // On the generator's CPU: busy together, and the database took 3 of 9.5 s.
        let some = vec![sample(0, 0.0, 100), sample(10_000, 3.0, 100)];
        assert!(database(vec![1], true, some, 10.0, 6.5).limited);
        // The generator alone kept that CPU busy: the database took 0.4 of 9.4 s.
        let little = vec![sample(0, 0.0, 100), sample(10_000, 0.4, 100)];
        assert!(!database(vec![1], true, little, 10.0, 9.0).limited);
        // And the generator there is flagged by the same rule, the database's time counted.
        assert!(generator(vec![1], false, 7.5, 10.0, 2.0).saturated);
        assert!(!generator(vec![1], false, 0.5, 10.0, 9.0).saturated);
    }

    #[test]
    fn an_empty_measurement_is_all_zeros() {
        let u = server(vec![], 0.0, 1);
        assert_eq!((u.cpu_util, u.rss_peak_bytes), (0.0, 0));
        assert!(!generator(vec![1], false, 0.0, 0.0, 0.0).saturated);
    }
}
