//! The run's database: the one PostgreSQL cluster (`db::Cluster`) that the
//! points of the database scenarios share. It starts at the first such point
//! (a copy of the seeded template, so a run pays the copy once), and stops
//! when the sweep ends, on Ctrl-C with the servers (its process group is
//! registered like theirs) and by its watchdog when concur dies. Before each
//! point it is moved to that point's CPUs; while the point is measured its
//! processes are sampled beside the server's, and the rule that flags a
//! generator-limited point flags a database-limited one.

use super::spec::PointSpec;
use super::sampler::{SAMPLE_EVERY, Sampler, Target};
use super::{placement, usage};
use crate::db;
use crate::host::topology::Topology;
use crate::host::{affinity, procstat};
use crate::load::Control;
use crate::store::{DatabaseUsage, GeneratorUsage, UsageSample};
use anyhow::{Context, Result, anyhow};
use std::path::Path;
use std::sync::Arc;

/// The server's, the generator's and (for a database scenario) the database's CPUs at `k`
/// server cores, and whether the generator shares the server's.
pub fn split_cpus(topology: &Topology, k: u32, database: bool) -> (Vec<usize>, Vec<usize>, Vec<usize>, bool) {
    if !database {
        let (server, generator, shared) = placement::split_cpus(topology, k);
        return (server, generator, Vec::new(), shared);
    }
    let p = placement::place_with_database(topology, k);
    (p.server, p.generator, p.database, p.shared)
}

/// The run's cluster, started when a point first needs it; dropping it stops it.
pub struct Database {
    cluster: db::OnDemand,
}

/// The cluster as one point uses it.
pub struct Attached {
    /// What the server is given: CONCUR_DB_URL, CONCUR_DB_POOL and CONCUR_DB_SLOW_MS.
    pub given: db::ServerDb,
    postmaster: i32,
    cpus: Vec<usize>,
    /// The database runs on the load generator's CPUs.
    shared: bool,
}

impl Database {
    pub fn new(root: &Path) -> Database {
        Database { cluster: db::OnDemand::new(db::Options::for_repository(root)) }
    }

    /// The cluster for point `spec`, moved to its CPUs; `None` for a point of another scenario.
    /// A cluster that could not start fails every point that needs it, with the reason.
    pub fn attach(&mut self, spec: &PointSpec) -> Result<Option<Attached>> {
        if spec.database_cpus.is_empty() {
            return Ok(None);
        }
        let cluster = self.cluster.get().map_err(anyhow::Error::msg)?;
        let postmaster = cluster.pgid();
        // Backends forked later inherit the postmaster's CPUs; a process that
        // exits meanwhile (a backend of the last server) needs none.
        affinity::pin_process(postmaster, &spec.database_cpus).with_context(|| format!("pinning PostgreSQL ({postmaster}) to CPUs {:?}", spec.database_cpus))?;
        for pid in procstat::tree(postmaster).into_iter().skip(1) {
            let _ = affinity::pin_process(pid, &spec.database_cpus);
        }
        let given = db::ServerDb::for_cores(cluster.url(), pool(spec)?, setting(spec, "CONCUR_DB_SLOW_MS", db::DEFAULT_SLOW_MS)?, spec.cores);
        Ok(Some(Attached { given, postmaster, cpus: spec.database_cpus.clone(), shared: spec.database_cpus == spec.generator_cpus }))
    }
}

/// The CONCUR_DB_POOL point `spec`'s profile asks (its `env`), or SPEC §8.2's default; the server
/// gets at least its core count (`db::ServerDb::for_cores`).
pub fn pool(spec: &PointSpec) -> Result<u32> {
    let pool = setting(spec, "CONCUR_DB_POOL", db::DEFAULT_POOL.into())?;
    u32::try_from(pool).map_err(|_| anyhow!("the profile's CONCUR_DB_POOL = \"{pool}\" is too large; give at most a few hundred"))
}

/// The profile's `key` (its `env`), or `default`: a whole number.
fn setting(spec: &PointSpec, key: &str, default: u64) -> Result<u64> {
    spec.env.get(key).map_or(Ok(default), |v| v.parse().map_err(|_| anyhow!("the profile's {key} = \"{v}\" is not a whole number; give one, e.g. {key} = \"{default}\"")))
}

impl Attached {
    /// Samples the database's processes from the moment `load` says its measurement starts.
    pub fn watch(&self, spec: &PointSpec, load: &Arc<Control>) -> Sampler {
        Sampler::start(Target::Tree(self.postmaster), SAMPLE_EVERY, spec.generator_cpus.clone(), Arc::clone(load))
    }
}

/// The generator's usage of point `spec` and, when it had a database, the
/// database's, each flagged by the rule of `usage` with the CPU time of the
/// roles it shared its CPUs with.
pub fn usage_beside(spec: &PointSpec, elapsed_s: f64, server_cpu_s: f64, generator_cpu_s: f64, database: Option<(&Attached, Vec<UsageSample>)>) -> (GeneratorUsage, Option<DatabaseUsage>) {
    let on_server = if spec.shared { server_cpu_s } else { 0.0 };
    let Some((attached, samples)) = database else {
        return (usage::generator(spec.generator_cpus.clone(), spec.shared, generator_cpu_s, elapsed_s, on_server), None);
    };
    let database_cpu_s = samples.last().map_or(0.0, |s| s.cpu_seconds);
    let beside = if attached.shared { database_cpu_s } else { 0.0 };
    let generator = usage::generator(spec.generator_cpus.clone(), spec.shared, generator_cpu_s, elapsed_s, on_server + beside);
    let others = if attached.shared { generator_cpu_s + on_server } else { 0.0 };
    (generator, Some(usage::database(attached.cpus.clone(), attached.shared, samples, elapsed_s, others)))
}
