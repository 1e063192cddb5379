//! Measuring one point: a fresh server pinned to its CPUs, readiness, one
//! load whose warm-up (not recorded) runs on the measurement's connections
//! until throughput is steady, the measurement with the server's process
//! tree sampled alongside, then the whole tree stopped. A point that cannot be
//! measured is still a record, with the reason, so the report shows it.

use super::drive;
use super::spec::PointSpec;
use super::database::{Attached, Database};
use super::sampler::{SAMPLE_EVERY, Sampler, Target};
use super::usage;
use crate::db::ServerDb;
use crate::impls::Implementation;
use crate::load::{Control, LoadReport, RateCheck};
use crate::server::{self, Launch, Server};
use crate::store::{Generator, PointRecord};
use anyhow::Result;
use std::borrow::Cow;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// Longest wait for a fresh server to answer `GET /`.
pub(super) const READY_TIMEOUT: Duration = Duration::from_secs(90);
/// SIGTERM to SIGKILL.
pub(super) const STOP_GRACE: Duration = Duration::from_secs(5);

/// Measures one point, with the run's database when its scenario needs it;
/// `None` when a stop was asked for (the point is not kept, `warm` is stopped).
/// `warm`: the server of the point just before, still running, which this point
/// follows (`PointSpec::after`); `None`: a fresh server. With `keep`, a point
/// measured without error hands its server back, still running and warm, for
/// what follows on it (capacity searches, the next scenario's point); the caller stops it.
pub fn measure(root: &Path, imp: &Implementation, spec: &PointSpec, log_dir: &Path, warm: Option<Server>, keep: bool, database: &mut Database) -> Option<(PointRecord, Option<Server>)> {
    let followed = spec.after.as_ref().filter(|_| warm.is_some());
    let spec: Cow<PointSpec> = match followed {
        Some(after) => Cow::Owned(PointSpec { warmup_s: after.warmup_s, warmup_max_s: after.warmup_max_s, ..spec.clone() }),
        None => Cow::Borrowed(spec),
    };
    let spec = &*spec;
    let mut point = blank(spec);
    point.server_from = followed.map(|a| a.point.clone());
    let log = log_dir.join(format!("{}.log", spec.key.replace('/', "_")));
    let mut kept = None;
    let attached = database.attach(spec);
    let result = attached.and_then(|db| {
        match warm {
            Some(server) => Ok((server, db, true)),
            None => start(root, imp, spec, &log, db.as_ref().map(|d| &d.given)).map(|server| (server, db, false)),
        }
    });
    let result = result.and_then(|(mut server, db, ready)| {
        let db = db.as_ref();
        let ready = if ready { Ok(()) } else { server.wait_ready(READY_TIMEOUT) };
        let outcome = ready.and_then(|()| match spec.generator {
            Generator::ConcurLoad => load_phases(root, spec, &mut server, &mut point, db).map(|_| ()),
            Generator::Locust => super::locust::load_phases(root, spec, &mut server, &mut point, log_dir, db),
        });
        if keep && outcome.is_ok() && !crate::host::interrupt::stopping() {
            kept = Some(server);
        } else {
            server.stop(STOP_GRACE);
        }
        outcome
    });
    if crate::host::interrupt::stopping() {
        if let Some(mut server) = kept {
            server.stop(STOP_GRACE);
        }
        return None;
    }
    if let Err(e) = result {
        point.error = Some(format!("{e:#}"));
    }
    Some((point, kept))
}

/// Starts the server of `spec` with `database`'s environment (none: no database) under its own.
pub(super) fn start(root: &Path, imp: &Implementation, spec: &PointSpec, log: &Path, database: Option<&ServerDb>) -> Result<Server> {
    // The database's settings go last (`Launch::db`): the pool as `ServerDb::for_cores` raised the profile's.
    let env: Vec<(String, String)> = spec.env.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    let launch = Launch {
        port: server::free_port()?,
        cores: spec.cores,
        env,
        db: database.cloned(),
        cpus: Some(spec.server_cpus.clone()),
        log: Some(log.to_path_buf()),
        netns: spec.server_netns.clone(),
    };
    let mut server = Server::start(imp, root, &launch)?;
    if let Some(addr) = &spec.server_addr {
        let ip: std::net::IpAddr = addr.parse().map_err(|_| anyhow::anyhow!("--server-addr '{addr}': expected an IP address, e.g. 10.0.0.1"))?;
        server.addr.set_ip(ip);
    }
    Ok(server)
}

/// Warm-up and the sampled measurement, the database's processes sampled too
/// when it has one; fills `point`, and returns the open loop's rate check.
pub(super) fn load_phases(root: &Path, spec: &PointSpec, server: &mut Server, point: &mut PointRecord, database: Option<&Attached>) -> Result<Option<RateCheck>> {
    let plan = drive::plan(root, spec, server.addr)?;
    let control = Arc::new(Control::new());
    let sampler = Sampler::start(Target::Group(server.pgid()), SAMPLE_EVERY, spec.generator_cpus.clone(), Arc::clone(&control));
    let watch = database.map(|d| d.watch(spec, &control));
    let report = drive::run(&plan, &control);
    let samples = sampler.finish();
    let database = database.zip(watch.map(Sampler::finish));
    let report: LoadReport = report?;
    drive::fill(point, &report);
    point.server = usage::server(samples, report.elapsed_s, spec.cores);
    let generator_cpu_s = drive::generator_cpu_seconds(&report);
    (point.generator, point.database) = super::database::usage_beside(spec, report.elapsed_s, point.server.cpu_seconds, generator_cpu_s, database);
    server.still_running("measurement")?;
    Ok(report.rate)
}

/// A record with the point's identity and nothing measured yet.
pub(super) fn blank(spec: &PointSpec) -> PointRecord {
    PointRecord {
        key: spec.key.clone(),
        implementation: spec.implementation.clone(),
        scenario: spec.scenario.clone(),
        cores: spec.cores,
        connections: spec.connections,
        rate: spec.rate,
        keepalive: spec.keepalive,
        level: spec.level.clone(),
        repeat: spec.repeat,
        started_at: crate::host::env::now_rfc3339(),
        warmup_s: spec.warmup_s,
        generator: crate::store::GeneratorUsage { cpus: spec.generator_cpus.clone(), shared: spec.shared, kind: spec.generator, ..Default::default() },
        ..PointRecord::default()
    }
}
