//! A small, fixed results database for the report's tests: two measured
//! implementations over two scenarios at 1 and 2 cores with three repeats,
//! one that failed verification and one whose toolchain is missing, one
//! measured with a known deviation, a saturated generator and a failed point, and a
//! clients-held search of each measured implementation. Every number is a constant, so
//! the report rendered from it is byte-for-byte stable.

#![allow(dead_code)]

use concur::host::topology;
use concur::impls::{Manifest, manifest};
use concur::stats::{Latencies, LatencyStats};
use concur::store::*;
use std::path::Path;

fn manifest(name: &str, language: &str, model: &str, features: &str) -> Manifest {
    let text = format!(
        "name = \"{name}\"\nlanguage = \"{language}\"\nruntime = \"{language} runtime\"\nversion = \"true\"\nframework = \"stdlib\"\nmodel = \"{model}\"\n\
         [start]\ncommand = \"./server\"\n[cores]\nhow = \"{{cores}} workers\"\n[features]\n{features}"
    );
    manifest::parse(Path::new("concur.toml"), &text, name).unwrap()
}

fn implementations() -> Vec<ImplRecord> {
    let go_like = "multithreading = true\nlightweight_threads = true\nevent_based = false\nexplicit_concurrency = true\nmutable_variables = true\n\
                   communication = \"channels\"\nerror_handling = \"return values\"\ncomputation = \"procedural\"\ntyping = \"strong static\"\n\
                   coordination = \"CSP\"\nruntime_environment = \"native\"\n";
    let node_like = "multithreading = false\nlightweight_threads = false\nevent_based = true\nexplicit_concurrency = false\nmutable_variables = true\n\
                     communication = \"pipes\"\nerror_handling = \"exceptions, promise rejections\"\n";
    let rec = |name: &str, m: Manifest, status, reason: Option<&str>| ImplRecord {
        name: name.into(),
        status,
        reason: reason.map(str::to_string),
        version: format!("{name} 1.0"),
        manifest: m,
        known_failures: vec![],
    };
    let mut beta = rec("beta", manifest("beta", "JavaScript", "event-loop", node_like), ImplStatus::Verified, None);
    beta.known_failures = vec![KnownFailure {
        check: "pipelining".into(),
        cores: 2,
        detail: "the connection closed after 1 of 3 pipelined responses".into(),
        reason: "beta 1.0 closes the connection when a pipelined request arrives before the previous response is sent (beta/runtime#123)".into(),
    }];
    vec![
        rec("alpha", manifest("alpha", "Go", "green-threads", go_like), ImplStatus::Verified, None),
        beta,
        rec("gamma", manifest("gamma", "Elixir", "actors", ""), ImplStatus::Failed, Some("`concur verify` failed 1 check(s) at CONCUR_CORES=2: headers: no Date header on GET /")),
        rec("delta", manifest("delta", "Java", "os-threads", ""), ImplStatus::Unavailable, Some("java not on PATH (install: apt: default-jdk-headless)")),
    ]
}

fn run() -> RunInfo {
    RunInfo {
        id: 0,
        started_at: "2025-03-01T10:00:00Z".into(),
        finished_at: Some("2025-03-01T10:05:00Z".into()),
        status: RunStatus::Finished,
        profile: "quick".into(),
        plan_key: "0123456789abcdef".into(),
        plan: serde_json::json!({
            "description": "a fixed test run",
            "scenarios": { "hello": "GET / returning Hello, World!", "page": "GET /page, every 10th delayed" }
        }),
        environment: Environment {
            concur_version: "0.1.0".into(),
            git_commit: "abcdef0".into(),
            git_dirty: false,
            cpu_model: "Test CPU".into(),
            logical_cpus: 2,
            kernel: "Linux 6.1".into(),
            os: "Debian GNU/Linux 12 (bookworm)".into(),
            memory_bytes: 8 << 30,
            toolchains: [("alpha".to_string(), "alpha 1.0".to_string())].into(),
            // As `concur run` records this 2-CPU machine (no SMT, one node) for cores 1 and 2.
            topology: Some(topology::Record {
                source: "sysfs".into(),
                threads_per_core: 1,
                physical_cores: 2,
                numa_nodes: 1,
                placements: vec![
                    topology::Placement { server: vec![0], generator: vec![1], server_nodes: vec![0], generator_nodes: vec![0], ..Default::default() },
                    topology::Placement { server: vec![0, 1], generator: vec![0, 1], shared: true, server_nodes: vec![0], generator_nodes: vec![0], ..Default::default() },
                ],
            }),
        },
        notes: vec![
            "with 2 server core(s) on this 2-CPU machine the load generator shares the server's CPUs".into(),
            "points whose level says `close` send every request on a new connection with `Connection: close` (keepalive = false); the others reuse their connections".into(),
        ],
    }
}

/// A histogram of `n` latencies spread evenly from `low_us` to `high_us`,
/// with every tenth one `slow_us` when given (the page delay).
fn latency(n: u64, low_us: u64, high_us: u64, slow_us: Option<u64>) -> LatencyStats {
    let mut h = Latencies::new();
    for i in 0..n {
        let v = match slow_us {
            Some(slow) if i % 10 == 9 => slow + i % 7,
            _ => low_us + (high_us - low_us) * i / n.max(1),
        };
        h.record_us(v);
    }
    h.stats()
}

#[allow(clippy::too_many_arguments)]
fn point(imp: &str, scenario: &str, level: &str, cores: u32, repeat: u32, successes: u64, lat: LatencyStats, rss_mib: u64) -> PointRecord {
    let shared = cores == 2;
    PointRecord {
        key: format!("{imp}/{scenario}/cores={cores}/{level}/r{repeat}"),
        implementation: imp.into(),
        scenario: scenario.into(),
        cores,
        connections: level.trim_start_matches("c=").parse().unwrap(),
        rate: None,
        level: level.into(),
        keepalive: true,
        repeat,
        started_at: format!("2025-03-01T10:0{repeat}:00Z"),
        warmup_s: 1.0,
        server_from: None,
        duration_s: 4.0,
        error: None,
        requests: successes,
        successes,
        errors_total: 0,
        errors: Default::default(),
        latency: lat,
        unfinished_age: LatencyStats::default(),
        steps: vec![],
        timeline: vec![SecondRecord { requests: successes / 4, errors: 0 }; 4],
        server: ServerUsage {
            cpu_seconds: 3.2 * f64::from(cores),
            cpu_util: 0.8,
            rss_peak_bytes: rss_mib << 20,
            rss_mean_bytes: (rss_mib << 20) * 9 / 10,
            processes_max: cores,
            samples: vec![UsageSample { t_ms: 0, cpu_seconds: 0.0, rss_bytes: rss_mib << 20, processes: cores }],
        },
        generator: GeneratorUsage { cpus: if shared { vec![0, 1] } else { vec![1] }, shared, cpu_seconds: 1.0, cpu_util: 0.25, saturated: false, ..Default::default() },
        database: None,
        warnings: vec![],
        load_report: None,
    }
}

fn points() -> Vec<PointRecord> {
    let mut out = Vec::new();
    for repeat in 1..=3u32 {
        let r = u64::from(repeat);
        for cores in [1u32, 2] {
            let k = u64::from(cores);
            // alpha scales with cores; beta does not, and is within noise of alpha at 1 core.
            out.push(point("alpha", "hello", "c=50", cores, repeat, 40_000 * k + 400 * r, latency(2000, 300, 4000 / k, None), 12 + r));
            out.push(point("beta", "hello", "c=50", cores, repeat, 40_200 + 500 * r, latency(2000, 500, 6000, None), 40 + 2 * r));
            out.push(point("alpha", "page", "c=100", cores, repeat, 1900 + 10 * r, latency(1000, 200, 5000, Some(2_000_000)), 14));
            out.push(point("beta", "page", "c=100", cores, repeat, 1880 + 5 * r, latency(1000, 400, 9000, Some(2_001_000)), 45));
        }
    }
    // At 2 shared cores beta's generator took the CPUs: flagged.
    for p in out.iter_mut().filter(|p| p.implementation == "beta" && p.scenario == "hello" && p.cores == 2) {
        p.generator.cpu_util = 0.35;
        p.generator.cpu_seconds = 2.8;
        p.generator.saturated = true;
        p.server.cpu_util = 0.6;
    }
    // One repeat of beta's page at 2 cores lost its server.
    if let Some(p) = out.iter_mut().find(|p| p.key == "beta/page/cores=2/c=100/r3") {
        p.error = Some("the server exited during the measurement".into());
    }
    out
}

/// alpha's points of the database scenario `db` at 1 core (beta does not
/// serve the routes), PostgreSQL on the generator's CPU: 60 µs of the
/// database's CPU per request against the server's 40, and the third
/// repeat limited by the database.
fn database_points() -> Vec<PointRecord> {
    (1..=3u32)
        .map(|repeat| {
            let mut p = point("alpha", "db", "c=64", 1, repeat, 12_000 + 100 * u64::from(repeat), latency(3000, 2000, 9000, None), 20);
            p.server.cpu_seconds = 0.48;
            let limited = repeat == 3;
            p.database = Some(DatabaseUsage {
                cpus: vec![1],
                shared: true,
                cpu_seconds: if limited { 0.9 } else { 0.72 },
                cpu_util: if limited { 0.96 } else { 0.7 },
                mem_peak_bytes: (70 + u64::from(repeat)) << 20,
                mem_mean_bytes: 68 << 20,
                processes_max: 14,
                limited,
                samples: vec![UsageSample { t_ms: 0, cpu_seconds: 0.0, rss_bytes: 68 << 20, processes: 14 }],
            });
            p
        })
        .collect()
}

/// Writes the fixed run into a new database at `path`; returns the run id.
pub fn write_db(path: &Path) -> i64 {
    let store = Store::open(path).unwrap();
    let id = store.insert_run(&run()).unwrap();
    for imp in implementations() {
        store.put_implementation(id, &imp).unwrap();
    }
    for p in points().into_iter().chain(database_points()) {
        store.insert_point(id, &p).unwrap();
    }
    for search in held_searches() {
        let search_id = store.begin_held_search(id, &search).unwrap();
        for step in &search.steps {
            store.insert_held_step(search_id, step).unwrap();
        }
        if let Some(accept) = &search.accept {
            store.set_held_accept(search_id, accept, search.arrival_clients).unwrap();
        }
        let reason = search.reason.as_deref().unwrap_or("");
        store.end_held_search(search_id, &search.status, search.clients, search.failed_clients, reason, search.by_arrival).unwrap();
    }
    id
}

/// alpha holds 16,000 waiting clients at 6 KiB each and fails at 17,600 (clients answered
/// late); beta's pool of 512 threads holds 512, found after its first step failed.
fn held_searches() -> Vec<held::HeldSearchRecord> {
    let step = |n: u32, clients: u64, kib: u64, verdict: &str, reason: Option<&str>| held::HeldStepRecord {
        n,
        clients,
        spawn_rate: (clients as f64).max(5000.0),
        duration_s: 3.0,
        successes: if verdict == "pass" { clients } else { clients / 2 },
        errors_total: if verdict == "pass" { 0 } else { clients - clients / 2 },
        errors: if verdict == "pass" { Default::default() } else { [("timeout".to_string(), clients - clients / 2)].into() },
        peak_in_flight: clients,
        latency_p50_us: 2_001_000,
        latency_p99_us: 2_010_000,
        latency_max_us: 2_020_000,
        rss_rest_bytes: 8 << 20,
        rss_peak_bytes: (8 << 20) + clients * kib * 1024,
        server_cpu_util: 0.4,
        waiting_cpu_util: Some(0.005),
        machine_bytes: clients * kib * 3 * 1024,
        gen_cpu_util: 0.3,
        verdict: verdict.into(),
        reason: reason.map(str::to_string),
        ..Default::default()
    };
    let late = |n: u64| format!("{} of {n} clients not answered within the wait plus the bound (2000 ms + 1000 ms)", n - n / 2);
    let search = |name: &str, clients, failed, reason: String, steps| held::HeldSearchRecord {
        key: format!("{name}/longpoll/cores=1/held"),
        implementation: name.into(),
        scenario: "longpoll".into(),
        cores: 1,
        wait_ms: 2000,
        spec_wait_ms: 5000,
        bound_ms: 1000,
        precision: 0.1,
        spawn_rate: 5000.0,
        start_clients: 1000,
        max_clients: 100_000,
        started_at: "2025-03-01T10:04:00Z".into(),
        status: "found".into(),
        clients: Some(clients),
        failed_clients: Some(failed),
        reason: Some(reason),
        steps,
        ..Default::default()
    };
    let accept = |per_s: f64| held::AcceptRecord { per_s, answered: 2000, latency_p99_us: 2000 * 1_000_000 / per_s as u64, server_cpu_util: 0.99, gen_cpu_util: 0.2, ..Default::default() };
    let with_accept = |s: held::HeldSearchRecord, per_s: f64| held::HeldSearchRecord { accept: Some(accept(per_s)), arrival_clients: Some((per_s / 2.0) as u64), ..s };
    vec![
        with_accept(search(
            "alpha",
            16_000,
            17_600,
            format!("found within 10%; failed at 17600 clients: {}", late(17_600)),
            (0..5).map(|k| step(k + 1, 1000 << k, 6, "pass", None)).chain([step(6, 17_600, 6, "fail", Some(&late(17_600)))]).collect(),
        ), 40_000.0),
        with_accept(search(
            "beta",
            512,
            559,
            format!("found within 9%; failed at 559 clients: {}", late(559)),
            vec![step(1, 1000, 40, "fail", Some(&late(1000))), step(2, 250, 40, "pass", None), step(3, 500, 40, "pass", None), step(4, 512, 40, "pass", None), step(5, 559, 40, "fail", Some(&late(559)))],
        ), 1_250.0),
    ]
}

/// Adds a second run to the database at `path` (after [`write_db`]): the
/// same run measured again a day later with alpha 1.1, whose hello
/// throughput is 30% lower at every core count, beta's hello repeats
/// shuffled within the first run's spread (noise), and an alpha json point
/// that the first run lacks. Returns its id.
pub fn write_second_run(path: &Path) -> i64 {
    let store = Store::open(path).unwrap();
    let mut info = run();
    info.started_at = "2025-03-02T10:00:00Z".into();
    info.finished_at = Some("2025-03-02T10:05:00Z".into());
    info.environment.toolchains.insert("alpha".into(), "alpha 1.1".into());
    let id = store.insert_run(&info).unwrap();
    for imp in implementations() {
        store.put_implementation(id, &imp).unwrap();
    }
    for mut p in points() {
        match (p.implementation.as_str(), p.scenario.as_str()) {
            ("alpha", "hello") => p.successes = p.successes * 7 / 10,
            ("beta", "hello") => p.successes = 40_300 + 500 * (4 - u64::from(p.repeat)),
            _ => {}
        }
        p.requests = p.successes;
        store.insert_point(id, &p).unwrap();
    }
    store.insert_point(id, &point("alpha", "json", "c=50", 1, 1, 20_000, latency(100, 300, 900, None), 12)).unwrap();
    id
}

/// Twenty implementations across the six concurrency models (the
/// repository's eighteen HTTP ones plus c-pthreads and rust-tokio), two
/// scenarios at 1, 2 and 4 cores with three repeats, and one more that is
/// unavailable. The numbers are synthetic but shaped like a real run: some
/// implementations scale with cores and some do not, neighbours in the
/// ranking sit within noise of each other, the two fastest saturate the
/// generator at 4 cores, Ruby's open loop misses its target rate, one point
/// failed, and two implementations carry known deviations.
pub const TWENTY: [(&str, &str, &str, &str, f64, f64); 20] = [
    // name, language, framework, model, hello req/s at 1 core, scaling exponent over cores
    ("bun", "TypeScript", "Bun.serve", "event-loop", 40_500.0, 0.15),
    ("deno", "TypeScript", "Deno.serve", "event-loop", 28_000.0, 0.1),
    ("node-http", "JavaScript", "node:http", "event-loop", 19_000.0, 0.05),
    ("node-express-ts", "TypeScript", "Express 5", "event-loop", 12_000.0, 0.05),
    ("python-fastapi", "Python", "FastAPI on Uvicorn", "event-loop", 8_000.0, 0.7),
    ("python-tornado", "Python", "Tornado", "event-loop", 5_200.0, 0.0),
    ("go-nethttp", "Go", "net/http", "green-threads", 41_000.0, 0.9),
    ("go-tcp", "Go", "none", "green-threads", 48_000.0, 0.92),
    ("java-jetty-vthreads", "Java", "Jetty 12", "green-threads", 33_000.0, 0.85),
    ("elixir", "Elixir", "mochiweb", "actors", 20_000.0, 0.95),
    ("scala-pekko-http", "Scala", "Apache Pekko HTTP", "actors", 24_000.0, 0.8),
    ("java-jetty", "Java", "Jetty 12", "os-threads", 30_500.0, 0.85),
    ("rust-threadpool", "Rust", "none", "os-threads", 40_000.0, 0.7),
    ("c-pthreads", "C", "none", "os-threads", 45_000.0, 0.75),
    ("ruby-rack", "Ruby", "Rack", "processes", 4_000.0, 0.95),
    ("ruby-sinatra", "Ruby", "Sinatra", "processes", 3_100.0, 0.95),
    ("ruby-rails", "Ruby", "Rails (API) on Puma", "processes", 1_800.0, 0.95),
    ("kotlin-ktor", "Kotlin", "Ktor 3.4 (Netty)", "async-tasks", 31_000.0, 0.85),
    ("rust-axum", "Rust", "axum", "async-tasks", 56_000.0, 0.9),
    ("rust-tokio", "Rust", "hyper", "async-tasks", 51_500.0, 0.9),
];

fn twenty_manifest(name: &str, language: &str, framework: &str, model: &str) -> Manifest {
    let known = match name {
        "bun" => "[known_failures]\npipelining = \"Bun closes the connection on a pipelined request (oven-sh/bun#1)\"\n",
        "deno" => "[known_failures]\nexpect-continue = \"Deno sends no 100 Continue (denoland/deno#2)\"\n",
        "python-fastapi" => "[departures]\ndb-pool-division = \"uvicorn gives its workers no index: each takes floor(POOL/P)\"\n",
        _ => "",
    };
    let text = format!(
        "name = \"{name}\"\nlanguage = \"{language}\"\nruntime = \"{language} runtime\"\nversion = \"true\"\nframework = \"{framework}\"\nmodel = \"{model}\"\n\
         description = \"{name}, the synthetic entry of the report's twenty-implementation test\"\n\
         [start]\ncommand = \"./server\"\n[cores]\nenv = {{ WORKERS = \"{{cores}}\" }}\nhow = \"WORKERS={{cores}}: one worker per core\"\n{known}"
    );
    manifest::parse(Path::new("concur.toml"), &text, name).unwrap()
}

/// Writes the twenty-implementation run into a new database at `path`; returns the run id.
pub fn write_twenty_db(path: &Path) -> i64 {
    let store = Store::open(path).unwrap();
    let mut info = run();
    info.profile = "standard".into();
    info.environment.logical_cpus = 8;
    info.environment.cpu_model = "Synthetic 8-core CPU".into();
    info.environment.toolchains = TWENTY.iter().map(|t| (t.0.to_string(), format!("{} 1.{}", t.1, t.0.len()))).collect();
    info.notes = vec!["cores 8 skipped: this machine gives concur 8 CPU(s)".into()];
    let id = store.insert_run(&info).unwrap();
    for &(name, language, framework, model, _, _) in &TWENTY {
        let mut rec = ImplRecord {
            name: name.into(),
            status: ImplStatus::Verified,
            reason: None,
            version: format!("{language} 1.0"),
            manifest: twenty_manifest(name, language, framework, model),
            known_failures: vec![],
        };
        rec.known_failures = rec
            .manifest
            .known_failures
            .iter()
            .map(|(check, reason)| KnownFailure { check: check.clone(), cores: 2, detail: "seen by the synthetic verifier".into(), reason: reason.clone() })
            .collect();
        store.put_implementation(id, &rec).unwrap();
    }
    let missing = ImplRecord {
        name: "swift-vapor".into(),
        status: ImplStatus::Unavailable,
        reason: Some("swift not on PATH (install: see impls/http/swift-vapor/README.md)".into()),
        version: String::new(),
        manifest: twenty_manifest("swift-vapor", "Swift", "Vapor", "async-tasks"),
        known_failures: vec![],
    };
    store.put_implementation(id, &missing).unwrap();
    for p in twenty_points() {
        store.insert_point(id, &p).unwrap();
    }
    id
}

fn twenty_points() -> Vec<PointRecord> {
    let mut out = Vec::new();
    for repeat in 1..=3u32 {
        for cores in [1u32, 2, 4] {
            for (i, &(name, _, _, _, base, scaling)) in TWENTY.iter().enumerate() {
                // ±1-3% around the median, different per implementation, the same every time.
                let wobble = 1.0 + (f64::from(repeat) - 2.0) * (0.01 + 0.005 * (i % 5) as f64);
                let hello = base * f64::from(cores).powf(scaling) * wobble;
                let page = 500.0 * hello / (hello + 3000.0);
                for (scenario, level, rps, slow) in [("hello", "c=50", hello, None), ("page", "c=100", page, Some(2_000_000))] {
                    let connections: f64 = level.trim_start_matches("c=").parse().unwrap();
                    let per_request_us = (connections * 1e6 / rps) as u64;
                    let lat = latency(400, per_request_us / 4 + 50, per_request_us * 2 + 100, slow);
                    let rss = 8 + (i as u64 * 7) % 90 + u64::from(cores) * 3;
                    let mut p = point(name, scenario, level, cores, repeat, (rps * 4.0) as u64, lat, rss);
                    p.generator = GeneratorUsage { cpus: vec![4, 5, 6, 7], shared: false, cpu_seconds: 1.0, cpu_util: 0.3, saturated: false, ..Default::default() };
                    if scenario == "hello" && cores == 4 && name.starts_with("rust-") && name != "rust-threadpool" {
                        p.generator.cpu_util = 0.97;
                        p.generator.saturated = true;
                    }
                    if scenario == "page" && name.starts_with("ruby-") {
                        p.warnings.push(format!("the target rate of {:.0}/s was not reached: {:.0}/s were sent", rps * 1.2, rps));
                    }
                    if p.key == "ruby-rails/page/cores=4/c=100/r3" {
                        p.error = Some("the server exited during the measurement".into());
                    }
                    out.push(p);
                }
            }
        }
    }
    out
}

/// Adds a calibration of run 1's machine (a run of profile `calibrate`,
/// without points, and its floor row): σ of one measurement `sigma` for
/// throughput and twice that for p99, half of each a run's drift. Returns
/// the calibration's run id.
pub fn write_calibration(path: &Path, sigma: f64) -> i64 {
    let store = Store::open(path).unwrap();
    let mut info = store.run(1).unwrap();
    info.id = 0;
    info.profile = concur::store::noise::CALIBRATION_PROFILE.into();
    let id = store.insert_run(&info).unwrap();
    let record = concur::store::noise::FloorRecord {
        run_id: id,
        measured_at: "2025-03-01T09:00:00Z".into(),
        finished: true,
        rounds_planned: 6,
        rounds_measured: 6,
        measurements: 36,
        throughput_sigma: sigma,
        throughput_drift: sigma / 2.0,
        p99_sigma: 2.0 * sigma,
        p99_drift: sigma,
        df: 30,
        load_avg: "0.5 0.5 0.5 → 0.6 0.5 0.5".into(),
        detail: serde_json::json!({}),
    };
    store.insert_floor(&record).unwrap();
    id
}
