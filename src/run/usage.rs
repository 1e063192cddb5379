//! Turning samples and CPU times into what a point records: the server's
//! CPU utilisation per core and its peak and mean memory, the generator's
//! utilisation, and the rule that flags a point whose numbers measure the
//! load generator rather than the server (spec/RESULTS-DB.md, "saturated").

use crate::store::{GeneratorUsage, ServerUsage, UsageSample};

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
/// busy. When it shares the server's CPUs, they are limited together: the
/// point is flagged when the CPUs were busy and the generator took a
/// noticeable share of them, since that time was taken from the server.
pub fn generator(cpus: Vec<usize>, shared: bool, cpu_seconds: f64, duration_s: f64, server_cpu_seconds: f64) -> GeneratorUsage {
    let capacity = duration_s * cpus.len() as f64;
    let cpu_util = ratio(cpu_seconds, capacity);
    let saturated = if shared {
        let total = cpu_seconds + server_cpu_seconds;
        ratio(total, capacity) >= BUSY && ratio(cpu_seconds, total) >= GENERATOR_SHARE
    } else {
        cpu_util >= BUSY
    };
    GeneratorUsage { cpus, shared, cpu_seconds, cpu_util, saturated, ..Default::default() }
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
        assert!(generator(vec![1], false, 9.5, 10.0, 3.0).saturated);
        assert!(!generator(vec![1], false, 6.0, 10.0, 10.0).saturated);
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
    fn an_empty_measurement_is_all_zeros() {
        let u = server(vec![], 0.0, 1);
        assert_eq!((u.cpu_util, u.rss_peak_bytes), (0.0, 0));
        assert!(!generator(vec![1], false, 0.0, 0.0, 0.0).saturated);
    }
}
