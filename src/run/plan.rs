//! Planning a run: the profile and the flags turned into the plan (`spec`),
//! an ordered list of points and searches, each with every number it needs
//! spelled out.
//! Resolution does no I/O of its own (the caller passes the
//! implementations, the scenarios' defaults and the CPU topology), so it is tested
//! directly, and a bad flag fails here, before anything starts.

use super::placement;
use super::profile::{Load, Profile};
use super::spec::{After, Inputs, LocustSpec, Overrides, Plan, PointSpec, ScenarioInfo};
use crate::impls::{Availability, Implementation};
use crate::store::Generator;
use anyhow::{Result, bail};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Level {
    Connections(u32),
    PerCore(u32),
    Rate(u32),
}

impl Level {
    fn label(self) -> String {
        match self {
            Level::Connections(c) => format!("c={c}"),
            Level::PerCore(c) => format!("c={c}/core"),
            Level::Rate(r) => format!("R={r}"),
        }
    }
}

/// A scenario measured on the server of another's point (`[scenario.NAME] after`).
struct Follows {
    host: String,
    /// The profile's least warm-up for it, not raised to the manifest's (`spec::After`).
    warmup_s: f64,
}

/// The run's scenarios that follow another, by name; a host the run does not measure leaves
/// its followers on servers of their own, a host measured later is refused.
fn followers(inputs: &Inputs, args: &Overrides, scenarios: &[&ScenarioInfo]) -> Result<BTreeMap<String, Follows>> {
    let mut out = BTreeMap::new();
    for (i, scenario) in scenarios.iter().enumerate() {
        let Some(host) = inputs.profile.scenario.get(&scenario.name).and_then(|l| l.after.clone()) else { continue };
        let Some(at) = scenarios.iter().position(|s| s.name == host) else {
            if !inputs.scenarios.iter().any(|s| s.name == host) {
                bail!("spec/profiles/{}.toml: [scenario.{}] after = \"{host}\" names no scenario (spec/scenarios/)", inputs.profile_name, scenario.name);
            }
            continue;
        };
        if at > i {
            bail!(
                "spec/profiles/{}.toml: [scenario.{}] is measured after {host}, which this run measures later: list {host} before it in `scenarios`",
                inputs.profile_name,
                scenario.name
            );
        }
        let load = settings_for(args, inputs.profile, scenario)?;
        out.insert(scenario.name.clone(), Follows { host, warmup_s: load.warmup_s });
    }
    Ok(out)
}

/// `points` (one repeat's, in plan order) with each point of a following scenario moved right
/// behind its host's point on the same server (the last of the host scenario with the same
/// implementation, core count, server start, CPUs, environment and address), behind the points
/// already following that one, and told which point's server it takes over. With blocks (either
/// scenario's points share a server start) the follower's rounds move, in their order, right
/// behind the host's rounds at the same core count, its first window on the server of the host's
/// last: the host's servers wait, warm, only while the others take their last host windows and
/// first follower windows. A follower of one window on a host in blocks comes after the host's
/// whole last round, so that the round is not stretched by it.
fn chain(points: Vec<PointSpec>, follows: &BTreeMap<String, Follows>) -> Vec<PointSpec> {
    let same_server = |a: &PointSpec, b: &PointSpec| {
        (&a.implementation, a.cores, a.server_start(), &a.server_cpus, &a.database_cpus, &a.env, &a.server_addr, &a.server_netns)
            == (&b.implementation, b.cores, b.server_start(), &b.server_cpus, &b.database_cpus, &b.env, &b.server_addr, &b.server_netns)
    };
    // A point of `host`'s scenario, or of any scenario following it, at `p`'s core count and server start.
    let on_host = |q: &PointSpec, p: &PointSpec, host: &str| {
        q.cores == p.cores && q.server_start() == p.server_start() && (q.scenario == host || follows.get(&q.scenario).is_some_and(|f| f.host == host))
    };
    let mut out: Vec<PointSpec> = Vec::with_capacity(points.len());
    for mut p in points {
        let Some(follow) = follows.get(&p.scenario) else {
            out.push(p);
            continue;
        };
        if p.start > 0 {
            // A later window already follows the one before it; a first one takes the host's last.
            if p.after.is_none()
                && let Some(host) = out.iter().rev().find(|q| q.scenario == follow.host && same_server(q, &p))
            {
                p.after = Some(After { point: host.key.clone(), warmup_s: follow.warmup_s, warmup_max_s: p.warmup_max_s });
            }
            let at = out.iter().rposition(|q| on_host(q, &p, &follow.host));
            out.insert(at.map_or(out.len(), |i| i + 1), p);
            continue;
        }
        let Some(mut at) = out.iter().rposition(|q| q.scenario == follow.host && same_server(q, &p)) else {
            out.push(p);
            continue;
        };
        // The server's last point so far: the host's, or a follower's that took it over.
        let mut last = at;
        while let Some(j) = out.iter().position(|q| q.after.as_ref().is_some_and(|a| a.point == out[last].key)) {
            last = j;
        }
        let takeover = out[last].key.clone();
        if out[at].start > 0 {
            // A host in blocks: behind its whole last round (and the followers already there),
            // so that no round of it is stretched by other points.
            at = out.iter().rposition(|q| on_host(q, &p, &follow.host)).unwrap_or(at);
        } else {
            while out.get(at + 1).and_then(|q| q.after.as_ref()).is_some_and(|a| a.point == out[at].key) {
                at += 1;
            }
        }
        p.after = Some(After { point: takeover, warmup_s: follow.warmup_s, warmup_max_s: p.warmup_max_s });
        out.insert(at + 1, p);
    }
    out
}

/// A point's level as the report and the database show it, and the part of its key after
/// the core count: the connection mode is named only when it is not keep-alive, and the
/// generator only when it is not `concur load`, so that keys and labels from before either
/// existed stay the same.
fn level_names(level: Level, keepalive: bool, generator: Generator) -> (String, String) {
    let (mut label, mut key) = (level.label(), level.label());
    if !keepalive {
        label.push_str(" close");
        key.push_str("/close");
    }
    if !generator.is_default() {
        label = format!("{label} {}", generator.as_str());
        key = format!("{key}/{}", generator.as_str());
    }
    (label, key)
}

/// Turns flags and profile into the plan.
pub fn resolve(args: &Overrides, inputs: &Inputs) -> Result<Plan> {
    let profile = inputs.profile;
    let repeat = args.repeat.unwrap_or(profile.repeat);
    if repeat == 0 {
        bail!("--repeat 0: every point needs at least one measurement (e.g. --repeat 3)");
    }
    let mut notes = Vec::new();
    let implementations = pick_implementations(args, inputs, &mut notes)?;
    let scenarios = pick_scenarios(args, inputs)?;
    let cores = pick_cores(args, profile, &inputs.topology.cpus(), &mut notes)?;
    let generators = distinct(if args.generators.is_empty() { profile.generator.clone() } else { args.generators.clone() });
    let generators = if generators.is_empty() { vec![Generator::ConcurLoad] } else { generators };
    let mut points = Vec::new();
    let available: Vec<&(String, bool)> = implementations.iter().filter(|i| i.1).collect();
    let follows = followers(inputs, args, &scenarios)?;
    for r in 1..=repeat {
        // Each repeat starts one implementation further along (A B C, B C A,
        // C A B): drift within a repeat falls on every position in turn, not
        // always on the same implementation's.
        let mut order = available.clone();
        order.rotate_left((r as usize - 1) % available.len().max(1));
        let mut repeat_points = Vec::new();
        for scenario in &scenarios {
            let load = timed(scenario, settings_for(args, profile, scenario)?)?;
            for &k in cores.iter().filter(|k| load.cores.as_ref().is_none_or(|only| only.contains(k))) {
                repeat_points.extend(points_at(args, inputs, scenario, &load, k, r, &order, &generators)?);
            }
        }
        points.extend(chain(repeat_points, &follows));
    }
    if points.iter().any(|p| p.start > 0) {
        notes.push(
            "blocks: each server start is measured in several windows, one per block, taken in rounds over the implementations \
             (each round starting one further along) while their servers wait warm; orders and ties come from the blocks \
             (spec/PROFILES.md, \"Blocks\")"
                .into(),
        );
    }
    if points.iter().any(|p| p.after.as_ref().is_some_and(|a| !a.point.starts_with(&format!("{}/{}/", p.implementation, p.scenario)))) {
        let pairs: Vec<String> = follows.iter().map(|(s, f)| format!("{s} after {}", f.host)).collect();
        notes.push(format!(
            "one server for several scenarios ({}): each such point is measured on the server of the point before it, \
             of the same implementation, core count and repeat, still running and warm, warmed up there from the profile's \
             warm-up until steady, at most as long as on a fresh server (spec/PROFILES.md)",
            pairs.join(", ")
        ));
    }
    let settings_of = |s: &ScenarioInfo, name: &str| {
        settings_for(args, profile, s).map(|r| {
            let (warmup_s, warmup_max_s) = warmup_for(&r, inputs.implementations.iter().find(|i| i.name() == name));
            super::capacity::SearchSettings { timeout_s: r.timeout_s, env: r.env, warmup_s, warmup_max_s }
        })
    };
    let searches = super::capacity::searches(args, inputs, &scenarios, &cores, &implementations, settings_of)?;
    let held = super::held::searches(args, inputs, &cores, &implementations, |s| Ok(settings_for(args, profile, s)?.env))?;
    notes.extend(placement::notes(inputs.topology, &cores, &points));
    notes.extend(pool_raised(&points));
    if points.iter().any(|p| !p.keepalive) {
        notes.push("points whose level says `close` send every request on a new connection with `Connection: close` (keepalive = false); \
             the others reuse their connections"
            .into());
    }
    Ok(Plan {
        profile: inputs.profile_name.to_string(),
        description: profile.description.clone(),
        implementations: implementations.into_iter().map(|i| i.0).collect(),
        scenarios: scenarios.iter().map(|s| (s.name.clone(), s.description.clone())).collect(),
        cores,
        repeat,
        verify: args.verify,
        points,
        notes,
        searches,
        held,
    })
}

/// The points of repeat `r` of `scenario` at `k` cores: one per level, connection mode and
/// generator, for each implementation in this repeat's `order`.
#[allow(clippy::too_many_arguments)]
fn points_at(
    args: &Overrides,
    inputs: &Inputs,
    scenario: &ScenarioInfo,
    load: &Resolved,
    k: u32,
    r: u32,
    order: &[&(String, bool)],
    generators: &[Generator],
) -> Result<Vec<PointSpec>> {
    let mut points = Vec::new();
    let (server_cpus, generator_cpus, database_cpus, shared) = super::database::split_cpus(inputs.topology, k, scenario.database);
    let mut combos: Vec<(Level, bool, Generator)> = Vec::new();
    for &level in &load.levels {
        for &keepalive in &load.keepalive {
            combos.extend(generators.iter().map(|&g| (level, keepalive, g)));
        }
    }
    for (level, keepalive, generator) in combos {
        let (label, key_part) = level_names(level, keepalive, generator);
        let locust = locust_spec(args, generator, keepalive, level, &scenario.name, generator_cpus.len())?;
        for b in 1..=load.blocks {
            // A block is one round over the implementations; each starts one further along.
            let n = (r - 1) * load.blocks + b;
            let mut order = order.to_vec();
            let turn = (b as usize - 1) % order.len().max(1);
            order.rotate_left(turn);
            for imp in order {
                let (connections, rate) = match level {
                    Level::Connections(c) => (c, None),
                    Level::PerCore(c) => (c * k, None),
                    Level::Rate(rate) => (scenario.connections, Some(rate)),
                };
                let (warmup_s, warmup_max_s) = warmup_for(load, inputs.implementations.iter().find(|i| i.name() == imp.0));
                let key = |n: u32| format!("{}/{}/cores={k}/{key_part}/r{n}", imp.0, scenario.name);
                // A window after the server's first takes that server over, warm, with a fixed re-warm on its new connections.
                let after = (b > 1).then(|| After { point: key(n - 1), warmup_s: load.rewarm_s, warmup_max_s: load.rewarm_s });
                points.push(PointSpec {
                    key: key(n),
                    implementation: imp.0.clone(),
                    scenario: scenario.name.clone(),
                    cores: k,
                    server_cpus: server_cpus.clone(),
                    generator_cpus: generator_cpus.clone(),
                    shared,
                    level: label.clone(),
                    connections,
                    rate,
                    keepalive,
                    repeat: n,
                    start: if load.blocks > 1 { r } else { 0 },
                    warmup_s,
                    warmup_max_s,
                    duration_s: load.duration_s,
                    requests: load.requests,
                    timeout_s: load.timeout_s,
                    env: load.env.clone(),
                    generator,
                    locust: locust.clone(),
                    server_addr: args.server_addr.clone(),
                    server_netns: args.server_netns.clone(),
                    database_cpus: database_cpus.clone(),
                    after,
                });
            }
        }
    }
    Ok(points)
}

/// A Locust point's master and workers; `None` for `concur load`'s. Locust
/// keeps its connections alive and has no open loop, so those points are refused here.
fn locust_spec(args: &Overrides, generator: Generator, keepalive: bool, level: Level, scenario: &str, generator_cpus: usize) -> Result<Option<LocustSpec>> {
    if generator != Generator::Locust {
        return Ok(None);
    }
    if !keepalive {
        bail!("scenario {scenario}: Locust keeps its connections alive; measure `--keepalive false` with --generator concur-load");
    }
    if let Level::Rate(r) = level {
        bail!("scenario {scenario}: R={r} is an open loop, which Locust does not drive; use -c (its users) with --generator locust");
    }
    let workers = args.locust_workers.unwrap_or(generator_cpus.max(1) as u32);
    if workers == 0 {
        bail!("--locust-workers 0: a Locust master needs at least one worker (e.g. --locust-workers 2)");
    }
    let master_port = args.locust_master_port.unwrap_or(crate::locust::MASTER_PORT);
    Ok(Some(LocustSpec { workers, master_bind: args.locust_master_bind.clone(), master_port }))
}

/// (name, available) in manifest order.
fn pick_implementations(args: &Overrides, inputs: &Inputs, notes: &mut Vec<String>) -> Result<Vec<(String, bool)>> {
    let known: Vec<&str> = inputs.implementations.iter().map(|i| i.name()).collect();
    let from_flag = !args.implementations.is_empty();
    let asked = if from_flag { args.implementations.clone() } else { inputs.profile.implementations.clone() };
    if let Some(name) = asked.iter().find(|n| !known.contains(&n.as_str())) {
        let source = if from_flag { format!("--impl {name}") } else { format!("spec/profiles/{}.toml: implementation '{name}'", inputs.profile_name) };
        bail!("{source}: no HTTP implementation by that name; known: {} (see `concur list`)", known.join(", "));
    }
    let chosen: Vec<(String, bool)> = inputs
        .implementations
        .iter()
        .filter(|i| asked.is_empty() || asked.iter().any(|a| a == i.name()))
        .map(|i| match i.availability() {
            Availability::Present => (i.name().to_string(), true),
            Availability::Missing(why) => {
                notes.push(format!("{} is not measured: {why}", i.name()));
                (i.name().to_string(), false)
            }
        })
        .collect();
    if !chosen.iter().any(|i| i.1) {
        let names: Vec<&str> = chosen.iter().map(|i| i.0.as_str()).collect();
        bail!("no implementation to measure: {} lack(s) a toolchain here (see `concur list`; `make setup` installs them)", names.join(", "));
    }
    Ok(chosen)
}

fn pick_scenarios<'a>(args: &Overrides, inputs: &'a Inputs) -> Result<Vec<&'a ScenarioInfo>> {
    let known: Vec<&str> = inputs.scenarios.iter().map(|s| s.name.as_str()).collect();
    let from_flag = !args.scenarios.is_empty();
    let asked = if from_flag { args.scenarios.clone() } else { inputs.profile.scenarios.clone() };
    let unknown = |name: &String| !known.contains(&name.as_str());
    if let Some(name) = inputs.profile.scenario.keys().find(|n| unknown(n)) {
        bail!("spec/profiles/{}.toml: [scenario.{name}] names no scenario; known: {} (spec/scenarios/)", inputs.profile_name, known.join(", "));
    }
    if let Some(name) = asked.iter().find(|n| unknown(n)) {
        let source = if from_flag { format!("--scenario {name}") } else { format!("spec/profiles/{}.toml: scenario '{name}'", inputs.profile_name) };
        bail!("{source}: no scenario by that name; known: {} (spec/scenarios/)", known.join(", "));
    }
    if asked.is_empty() {
        return Ok(inputs.scenarios.iter().collect());
    }
    Ok(asked.iter().filter_map(|name| inputs.scenarios.iter().find(|s| &s.name == name)).collect())
}

/// `items` without repeats, in the order first given.
fn distinct<T: PartialEq>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut out = Vec::new();
    for item in items {
        if !out.contains(&item) {
            out.push(item);
        }
    }
    out
}

fn pick_cores(args: &Overrides, profile: &Profile, cpus: &[usize], notes: &mut Vec<String>) -> Result<Vec<u32>> {
    let asked = if args.cores.is_empty() { profile.cores.clone() } else { args.cores.clone() };
    if asked.contains(&0) {
        bail!("--cores 0: core counts start at 1 (e.g. --cores 1,2)");
    }
    let cores = distinct(asked);
    let (fit, over): (Vec<u32>, Vec<u32>) = cores.into_iter().partition(|&k| k as usize <= cpus.len());
    if !over.is_empty() {
        let list: Vec<String> = over.iter().map(u32::to_string).collect();
        notes.push(format!("cores {} skipped: this machine gives concur {} CPU(s)", list.join(", "), cpus.len()));
    }
    if fit.is_empty() {
        bail!("--cores: every core count asked for is above the {} CPU(s) here (e.g. --cores 1,{})", cpus.len(), cpus.len());
    }
    Ok(fit)
}

/// A point's warm-up bounds: the profile's (or the flags'), the least raised
/// to what the implementation's manifest says its runtime needs
/// (`[start] warmup`), unless the profile asks for none.
fn warmup_for(load: &Resolved, imp: Option<&Implementation>) -> (f64, f64) {
    if load.warmup_s <= 0.0 {
        return (0.0, 0.0);
    }
    let least = load.warmup_s.max(imp.map_or(0.0, |i| i.manifest.start.warmup_s()));
    (least, load.warmup_max_s.max(least))
}

/// The longest warm-up when neither the profile nor the flags set one: the
/// slowest JVM entry here needed about 25 s to settle (bench/RESULTS.md).
pub const DEFAULT_WARMUP_MAX_S: f64 = 30.0;

struct Resolved {
    levels: Vec<Level>,
    /// The scenario's own core counts (`[scenario.X] cores`); none: the run's.
    cores: Option<Vec<u32>>,
    /// Connection modes, each level measured in every one.
    keepalive: Vec<bool>,
    warmup_s: f64,
    warmup_max_s: f64,
    duration_s: Option<f64>,
    requests: Option<u64>,
    timeout_s: f64,
    env: BTreeMap<String, String>,
    /// Windows per server start (spec/PROFILES.md, "Blocks"), and the fixed warm-up before each after the first.
    blocks: u32,
    rewarm_s: f64,
}

/// A point's settings for a scenario whose every answer waits on a timer (a long poll): its
/// window must hold two waits, else it is refused with the duration it needs, and its warm-up
/// lasts at least one wait and goes on until a wait has answered every client
/// (`load::warmup::Period`), at most [`TIMED_WARMUP_WAITS`] waits or the profile's maximum if
/// longer, so that answers have come and the loop is in its rhythm before the measurement starts.
fn timed(scenario: &ScenarioInfo, mut load: Resolved) -> Result<Resolved> {
    let (Some(wait_s), Some(d)) = (scenario.wait_s(&load.env), load.duration_s) else { return Ok(load) };
    if d < 2.0 * wait_s {
        bail!(
            "scenario {}: a window of {d} s is shorter than two waits of its requests ({wait_s} s each, {}): \
             most of its answers would come outside it; measure for {} s or more (-d {}s), or a count of requests (-n)",
            scenario.name,
            scenario.timer.unwrap_or_default(),
            2.0 * wait_s,
            (2.0 * wait_s).ceil()
        );
    }
    load.warmup_max_s = if load.warmup_s <= 0.0 { TIMED_WARMUP_WAITS * wait_s } else { load.warmup_max_s.max(TIMED_WARMUP_WAITS * wait_s) };
    load.warmup_s = load.warmup_s.max(wait_s);
    Ok(load)
}

/// The most waits a timed scenario's warm-up lasts unless the profile allows more: scala-pekko-http,
/// fresh at one core, answered every long-poll client of a wait from its 20th second (5 s waits).
pub const TIMED_WARMUP_WAITS: f64 = 6.0;

/// The fixed warm-up before a block's window on a server already warm, when the profile sets none.
pub const DEFAULT_REWARM_S: f64 = 1.0;

/// Flags over the scenario's profile section over the profile's `[load]` over the scenario file.
fn settings_for(args: &Overrides, profile: &Profile, scenario: &ScenarioInfo) -> Result<Resolved> {
    let base = Load { env: Some(profile.env.clone()), ..Load::default() };
    let load = profile.scenario.get(&scenario.name).cloned().unwrap_or_default().over(&profile.load.over(&base));
    let secs = |v: &Option<String>| v.as_deref().map(super::parse_seconds).transpose().map_err(anyhow::Error::msg);
    let levels = if !args.connections.is_empty() {
        args.connections.iter().map(|&c| Level::Connections(c)).collect()
    } else if !args.rate.is_empty() {
        args.rate.iter().map(|&r| Level::Rate(r)).collect()
    } else if let Some(c) = &load.connections {
        c.iter().map(|&c| Level::Connections(c)).collect()
    } else if let Some(c) = &load.connections_per_core {
        c.iter().map(|&c| Level::PerCore(c)).collect()
    } else if let Some(r) = &load.rate {
        r.iter().map(|&r| Level::Rate(r)).collect()
    } else {
        vec![Level::Connections(scenario.connections)]
    };
    if args.blocks == Some(0) {
        bail!("--blocks 0: every server start needs at least one window (e.g. --blocks 3)");
    }
    if args.connections.contains(&0) || args.rate.contains(&0) {
        bail!("-c/-R 0: a load level must be above 0 (e.g. -c 50)");
    }
    let (duration_s, requests) = match (args.duration_s, args.requests) {
        (Some(d), _) => (Some(d), None),
        (None, Some(0)) => bail!("-n 0: a point needs at least one request (e.g. -n 10000)"),
        (None, Some(n)) => (None, Some(n)),
        (None, None) => match (secs(&load.duration)?, load.requests) {
            (Some(d), _) => (Some(d), None),
            (None, Some(n)) => (None, Some(n)),
            (None, None) => (scenario.duration_s.or(if scenario.requests.is_some() { None } else { Some(10.0) }), scenario.requests),
        },
    };
    if duration_s.is_some_and(|d| d <= 0.0) {
        bail!("-d/--duration must be above 0 (e.g. -d 10s)");
    }
    let asked = if !args.keepalive.is_empty() {
        args.keepalive.clone()
    } else {
        load.keepalive.or_else(|| profile.keepalive.clone()).unwrap_or_else(|| vec![true])
    };
    let keepalive = distinct(asked);
    let warmup_s = args.warmup_s.map_or_else(|| secs(&load.warmup).map(|w| w.unwrap_or(1.0)), Ok)?;
    let warmup_max_s = args.warmup_max_s.map_or_else(|| secs(&load.warmup_max).map(|w| w.unwrap_or(DEFAULT_WARMUP_MAX_S)), Ok)?;
    if warmup_s > 0.0 && warmup_max_s < warmup_s {
        bail!(
            "the warm-up's maximum ({warmup_max_s} s) is below its minimum ({warmup_s} s) for scenario {}: \
             raise warmup_max (or --warmup-max) or lower warmup",
            scenario.name
        );
    }
    Ok(Resolved {
        levels,
        cores: if args.cores.is_empty() { load.cores.clone() } else { None },
        keepalive,
        warmup_s,
        warmup_max_s: if warmup_s > 0.0 { warmup_max_s } else { 0.0 },
        duration_s,
        requests,
        timeout_s: args.timeout_s.or(secs(&load.timeout)?).or(scenario.timeout_s).unwrap_or(10.0),
        env: load.env.unwrap_or_default(),
        blocks: args.blocks.or(load.blocks).unwrap_or(1),
        rewarm_s: secs(&load.rewarm)?.unwrap_or(DEFAULT_REWARM_S),
    })
}

/// A note when a database point's server has more cores than its CONCUR_DB_POOL (the
/// profile's, or SPEC §8.2's 16): concur raises the pool to the core count
/// (`db::ServerDb::for_cores`), so that a server of one process per core has a connection in each.
fn pool_raised(points: &[PointSpec]) -> Option<String> {
    // A malformed pool is left to the point, which fails with the sentence that names it.
    let raised: std::collections::BTreeSet<u32> =
        points.iter().filter(|p| !p.database_cpus.is_empty() && super::database::pool(p).is_ok_and(|pool| p.cores > pool)).map(|p| p.cores).collect();
    (!raised.is_empty()).then(|| {
        let at: Vec<String> = raised.iter().map(u32::to_string).collect();
        format!(
            "CONCUR_DB_POOL is raised to the core count at {} cores, above the profile's pool: each process of a server of one process per core gets a connection of its own (SPEC §8.2)",
            at.join(", ")
        )
    })
}
