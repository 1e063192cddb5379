//! The accept rate of a clients-held search's server (issue 41): how many new
//! connections a second it takes to their first answered request, in a
//! burst. Measured on the search's own server before its first step:
//! [`BURST`] clients, each sending `GET /` once on a fresh connection it then
//! keeps open, all connecting within [`BURST`] ÷ [`SPAWN_RATE`] seconds;
//! the rate is the clients answered over the time from the first connect to
//! the last answer, the median of [`BURSTS`] such bursts. [`WARM_BURSTS`]
//! burst of [`WARM_BURST`] before them is not stored (a JIT's accept path).
//! Every server here listens with a backlog of at least 4,096 (spec/POLICIES.md §1), so the burst waits in accept queues, never
//! in the kernel's SYN retransmission; no connection closes during it, so
//! the rate is what a connection's arrival costs, as a long-poll client's
//! does. A step's clients then arrive at no more than [`ARRIVAL_SHARE`] of
//! this rate, so that a step measures holding, not accepting:
//! scala-pekko-http, at about 1 ms of CPU per new connection (a stream
//! graph materialised per connection), cannot take 8,000 arrivals a second
//! on one core, and its search had reported that as the clients it holds.
//! A closed loop of `Connection: close` requests, tried first, measured the
//! close path and the loop's latency instead (bun 6,798 connections/s with
//! its core 28% busy).

use super::step;
use crate::load::{Control, LoadReport};
use crate::run::sampler::{Sampler, Target};
use crate::run::spec::HeldSpec;
use crate::run::{drive, usage};
use crate::server::Server;
use crate::store::held::AcceptRecord;
use anyhow::Result;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// Clients of the measured burst: thousands, as a step's, within every server's backlog.
pub const BURST: u64 = 2000;
/// Measured bursts: the rate kept is their median's.
pub const BURSTS: usize = 3;
/// Clients of the burst before them, not stored: a JIT compiles the accept path in it
/// (node-http's bursts of 2,000 rose from 2,110 to 3,783 and 5,735 connections/s).
pub const WARM_BURST: u64 = 1000;
pub const WARM_BURSTS: u32 = 1;
/// Clients started per second: the burst's connects come within 40 ms.
pub const SPAWN_RATE: f64 = 50_000.0;
/// The most of its accept rate a step's clients arrive at.
pub const ARRIVAL_SHARE: f64 = 0.5;
/// The scenario whose one request each client sends.
const SCENARIO: &str = "hello";

/// Measures the accept rate of `server`, started for `spec`, with a burst of `clients`.
pub fn measure(root: &Path, spec: &HeldSpec, server: &mut Server, clients: u64) -> Result<AcceptRecord> {
    let mut pspec = step::point_spec(spec, clients);
    pspec.key = format!("{}/accept", spec.key);
    pspec.scenario = SCENARIO.into();
    pspec.level = format!("burst of {clients}");
    pspec.timeout_s = 10.0;
    let mut plan = drive::plan(root, &pspec, server.addr)?;
    plan.spawn_rate = Some(SPAWN_RATE);
    let control = Arc::new(Control::new());
    let sampler = Sampler::start(Target::Group(server.pgid()), Duration::from_millis(50), spec.generator_cpus.clone(), Arc::clone(&control));
    let report = drive::run(&plan, &control);
    let samples = sampler.finish();
    let report: LoadReport = report?;
    server.still_running("accept-rate burst")?;
    let server_usage = usage::server(samples, report.elapsed_s, spec.cores);
    let others = if spec.shared { server_usage.cpu_seconds } else { 0.0 };
    let generator = usage::generator(spec.generator_cpus.clone(), spec.shared, drive::generator_cpu_seconds(&report), report.elapsed_s, others);
    Ok(record(&report, server_usage.cpu_util, generator.cpu_util, generator.saturated))
}

fn record(report: &LoadReport, server_cpu_util: f64, gen_cpu_util: f64, gen_saturated: bool) -> AcceptRecord {
    AcceptRecord {
        per_s: if report.elapsed_s > 0.0 { report.requests as f64 / report.elapsed_s } else { 0.0 },
        answered: report.requests,
        errors: report.errors,
        latency_p99_us: report.latency.p99_us,
        server_cpu_util,
        gen_cpu_util,
        gen_saturated,
        low: 0.0,
        high: 0.0,
    }
}

/// The burst of median rate among `bursts` (the lower middle one of an even count), with the
/// lowest and highest rate of them all; none measured: a rate of 0.
pub fn median(mut bursts: Vec<AcceptRecord>) -> AcceptRecord {
    bursts.sort_by(|a, b| a.per_s.total_cmp(&b.per_s));
    let (low, high) = (bursts.first().map_or(0.0, |b| b.per_s), bursts.last().map_or(0.0, |b| b.per_s));
    let middle = bursts.len().saturating_sub(1) / 2;
    AcceptRecord { low, high, ..bursts.into_iter().nth(middle).unwrap_or_default() }
}

/// The rate a step's arrivals are held to a share of: the slowest burst's, so that the
/// clients arrive at a rate the server took every time; the median where no slowest rate
/// above zero is known (a file of an older concur, or a slowest burst that had no answer,
/// as ruby-rack's once its server wedged).
pub fn comfortable(accept: &AcceptRecord) -> f64 {
    if accept.low > 0.0 { accept.low } else { accept.per_s }
}

/// The most clients a step can bring within the share of the wait its clients arrive in
/// (`SPAWN_SHARE`), at [`ARRIVAL_SHARE`] of the slowest burst's rate (`comfortable`): none
/// when no connection was answered. A rate the generator limited is a lower bound, and so the
/// cap a cautious one.
pub fn arrival_cap(spec: &HeldSpec, accept: &AcceptRecord) -> Option<u64> {
    let rate = comfortable(accept);
    (rate > 0.0).then(|| (rate * ARRIVAL_SHARE * spec.arrival_s()).floor() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_may_bring_what_half_the_accept_rate_brings_within_half_the_wait() {
        let spec = HeldSpec::example(2000);
        let accept = |per_s, errors, gen_saturated| AcceptRecord { per_s, errors, gen_saturated, ..Default::default() };
        assert_eq!(arrival_cap(&spec, &accept(1000.0, 0, false)), Some(500), "pekko's 1,000/s: 500 clients within 1 s at 500/s");
        assert_eq!(arrival_cap(&spec, &accept(30_000.0, 0, false)), Some(15_000));
        assert_eq!(arrival_cap(&spec, &accept(0.0, 32, false)), None, "nothing answered");
        assert_eq!(arrival_cap(&spec, &accept(30_000.0, 0, true)), Some(15_000), "a lower bound, the cap a cautious one");
        let spread = AcceptRecord { per_s: 16_830.0, low: 7_025.0, high: 45_097.0, ..Default::default() };
        assert_eq!(arrival_cap(&spec, &spread), Some(3_512), "the slowest burst's rate, not the median's");
    }

    #[test]
    fn the_rate_kept_is_the_median_bursts() {
        let burst = |per_s| AcceptRecord { per_s, ..Default::default() };
        let m = median(vec![burst(45_097.0), burst(7_025.0), burst(16_830.0)]);
        assert_eq!((m.per_s, m.low, m.high), (16_830.0, 7_025.0, 45_097.0));
        assert_eq!(median(vec![burst(2.0), burst(1.0)]).per_s, 1.0, "the lower middle");
        assert_eq!(median(vec![]).per_s, 0.0);
    }
}
