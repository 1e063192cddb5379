//! Planning from flags and profiles (`run::plan::resolve` given the flags'
//! `Overrides`): the matrix, its order, the CPU split, the precedence of
//! flags over profile over scenario, and a message naming the flag and the
//! fix for every bad value.

use crate::cli::{Cli, Command};
use crate::impls::{Implementation, manifest};
use crate::host::topology::{Topology, numbered};
use crate::run::placement::split_cpus;
use crate::run::plan::resolve;
use crate::run::spec::{Inputs, Overrides, Plan, ScenarioInfo};
use clap::Parser;
use std::path::{Path, PathBuf};

fn args(flags: &[&str]) -> Overrides {
    let argv = ["concur", "run"].iter().chain(flags);
    match Cli::try_parse_from(argv).unwrap().command {
        Command::Run(a) => a.overrides(),
        _ => unreachable!(),
    }
}

fn imp(name: &str, tool: &str) -> Implementation {
    let text = format!(
        "name = \"{name}\"\nlanguage = \"L\"\nruntime = \"R\"\nversion = \"true\"\nframework = \"none\"\nmodel = \"event-loop\"\n[requires]\ncommands = [\"{tool}\"]\n[start]\ncommand = \"./s\"\n"
    );
    Implementation { kind: "http".into(), dir: PathBuf::from(name), manifest: manifest::parse(Path::new("m"), &text, name).unwrap() }
}

fn scenario(name: &str, connections: u32, duration_s: Option<f64>, requests: Option<u64>) -> ScenarioInfo {
    ScenarioInfo { name: name.into(), description: format!("{name} d"), connections, duration_s, requests, timeout_s: Some(30.0), database: false, timer: crate::run::spec::timer_of(&format!("/{}", if name == "longpoll" { "longPoll" } else { name })) }
}

const PROFILE: &str = r#"
description = "test"
cores = [1, 2, 4]
repeat = 2
[load]
warmup = "1s"
duration = "3s"
[env]
CONCUR_BCRYPT_COST = "10"
[scenario.password]
connections_per_core = [2]
env = { CONCUR_BCRYPT_COST = "4" }
"#;

fn plan(flags: &[&str]) -> anyhow::Result<Plan> {
    plan_with(flags, PROFILE, &[0, 1])
}

fn plan_with(flags: &[&str], profile: &str, cpus: &[usize]) -> anyhow::Result<Plan> {
    plan_on(flags, profile, &numbered(cpus))
}

fn plan_on(flags: &[&str], profile: &str, topology: &Topology) -> anyhow::Result<Plan> {
    let profile = crate::run::profile::parse("spec/profiles/test.toml", profile).unwrap();
    let imps = [imp("go", "sh"), imp("node", "sh"), imp("java", "no-such-tool-xyz")];
    let scenarios = [scenario("hello", 150, Some(30.0), None), scenario("page", 100, None, Some(10_000)), scenario("password", 128, Some(60.0), None)];
    let inputs = Inputs { profile_name: "test", profile: &profile, implementations: &imps, scenarios: &scenarios, topology };
    resolve(&args(flags), &inputs)
}

fn err(flags: &[&str]) -> String {
    plan(flags).unwrap_err().to_string()
}

#[test]
fn the_matrix_is_repeat_scenario_cores_level_then_implementation() {
    let p = plan(&[]).unwrap();
    // 2 repeats × 3 scenarios × 2 cores (4 is above 2 CPUs) × 1 level × 2 available implementations.
    assert_eq!(p.points.len(), 24);
    let keys: Vec<&str> = p.points.iter().take(5).map(|p| p.key.as_str()).collect();
    assert_eq!(keys, ["go/hello/cores=1/c=150/r1", "node/hello/cores=1/c=150/r1", "go/hello/cores=2/c=150/r1", "node/hello/cores=2/c=150/r1", "go/page/cores=1/c=100/r1"]);
    assert_eq!(p.points[12].repeat, 2);
    assert_eq!(p.implementations, ["go", "node", "java"]);
    assert!(p.notes.iter().any(|n| n.starts_with("java is not measured: no-such-tool-xyz not on PATH")), "{:?}", p.notes);
    assert!(p.notes.iter().any(|n| n == "cores 4 skipped: this machine gives concur 2 CPU(s)"), "{:?}", p.notes);
}

#[test]
fn each_repeat_starts_one_implementation_further_along() {
    let p = plan(&["--impl", "go,node", "--scenario", "hello", "--cores", "1", "--repeat", "3"]).unwrap();
    let keys: Vec<&str> = p.points.iter().map(|p| p.key.as_str()).collect();
    assert_eq!(keys, ["go/hello/cores=1/c=150/r1", "node/hello/cores=1/c=150/r1", "node/hello/cores=1/c=150/r2", "go/hello/cores=1/c=150/r2", "go/hello/cores=1/c=150/r3", "node/hello/cores=1/c=150/r3"]);
}

#[test]
fn the_server_gets_the_first_cpus_and_the_generator_the_rest_or_a_share() {
    let p = plan(&["--scenario", "hello", "--impl", "go"]).unwrap();
    let (one, two) = (&p.points[0], &p.points[1]);
    assert_eq!((one.server_cpus.clone(), one.generator_cpus.clone(), one.shared), (vec![0], vec![1], false));
    assert_eq!((two.server_cpus.clone(), two.generator_cpus.clone(), two.shared), (vec![0, 1], vec![0, 1], true));
    assert!(p.notes.iter().any(|n| n.contains("shares the server's CPUs")));
    assert_eq!(split_cpus(&numbered(&[2, 3, 5, 7]), 2), (vec![2, 3], vec![5, 7], false));
}

#[test]
fn on_a_two_socket_smt_machine_the_plan_places_by_physical_core_and_node_and_says_where_it_cannot() {
    // The recorded AMD EPYC 7451 (tests/sysfs/README.md): 2 × 24 cores, siblings 48 apart, 8 nodes of 12 CPUs.
    let epyc = crate::host::topology::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sysfs/epyc-7451"), &(0..96).collect::<Vec<_>>());
    let p = plan_on(&["--scenario", "hello", "--impl", "go", "--cores", "2,12,13,48"], PROFILE, &epyc).unwrap();
    let two = &p.points[0];
    assert_eq!((two.server_cpus.clone(), two.generator_cpus.clone(), two.shared), (vec![0, 48], vec![1, 2, 3, 4, 5, 49, 50, 51, 52, 53], false));
    assert!(p.points.iter().all(|p| !p.shared));
    let notes = p.notes.join("\n");
    assert!(notes.contains("at 13, 48 server core(s) the server spans NUMA nodes"), "{notes}");
    assert!(notes.contains("at 12, 13, 48 server core(s) the load generator runs on other NUMA nodes"), "{notes}");
    assert!(notes.contains("at 48 server core(s) the load generator has 48 CPU(s) of its own") && notes.contains("server core counts of 2, 12, 13"), "{notes}");
    assert!(!notes.contains("shares"), "{notes}");
}

#[test]
fn profile_over_scenario_defaults_and_flags_over_both() {
    let p = plan(&["--impl", "go", "--cores", "1"]).unwrap();
    let hello = &p.points[0];
    assert_eq!((hello.connections, hello.duration_s, hello.warmup_s, hello.timeout_s), (150, Some(3.0), 1.0, 30.0));
    assert_eq!(hello.env["CONCUR_BCRYPT_COST"], "10");
    let password = p.points.iter().find(|p| p.scenario == "password").unwrap();
    assert_eq!((password.connections, password.level.as_str()), (2, "c=2/core"));
    assert_eq!(password.env["CONCUR_BCRYPT_COST"], "4");

    let p = plan(&["--impl", "go", "--cores", "2", "-c", "10,20", "-d", "500ms", "--warmup", "0", "--repeat", "1"]).unwrap();
    assert_eq!(p.points.len(), 6);
    assert!(p.points.iter().all(|p| p.duration_s == Some(0.5) && p.warmup_s == 0.0 && p.requests.is_none()));
    assert_eq!(p.points.iter().map(|p| p.connections).collect::<Vec<_>>(), [10, 20, 10, 20, 10, 20]);
}

#[test]
fn a_long_poll_window_holds_two_waits_after_a_warm_up_of_one_or_more() {
    let profile = "description = \"d\"\ncores = [1]\n[load]\nwarmup = \"0s\"\nduration = \"3s\"\n[env]\nCONCUR_LONGPOLL_MS = \"2000\"\n";
    let imps = [imp("go", "sh")];
    let scenarios = [scenario("longpoll", 1000, Some(60.0), None)];
    let profile = crate::run::profile::parse("spec/profiles/test.toml", profile).unwrap();
    let topology = numbered(&[0, 1]);
    let inputs = Inputs { profile_name: "test", profile: &profile, implementations: &imps, scenarios: &scenarios, topology: &topology };
    let why = resolve(&args(&[]), &inputs).unwrap_err().to_string();
    assert!(why.contains("a window of 3 s is shorter than two waits of its requests (2 s each, CONCUR_LONGPOLL_MS)") && why.contains("-d 4s"), "{why}");
    let p = resolve(&args(&["-d", "4s"]), &inputs).unwrap();
    assert_eq!((p.points[0].duration_s, p.points[0].warmup_s, p.points[0].warmup_max_s), (Some(4.0), 2.0, 12.0), "one wait, then judged per wait for up to six");
    let p = resolve(&args(&["-d", "4s", "--warmup", "1s"]), &inputs).unwrap();
    assert_eq!((p.points[0].warmup_s, p.points[0].warmup_max_s), (2.0, 30.0), "a warm-up asked is raised to one wait, the profile's longer maximum kept");
    assert!(resolve(&args(&["-n", "1000"]), &inputs).is_ok(), "a count waits for its answers");
}

#[test]
fn a_count_scenario_keeps_its_count_unless_told_otherwise() {
    let bare = "description = \"d\"\ncores = [1]\n";
    let p = plan_with(&["--scenario", "page", "--impl", "go"], bare, &[0, 1]).unwrap();
    assert_eq!((p.points[0].requests, p.points[0].duration_s, p.points[0].connections), (Some(10_000), None, 100));
    let p = plan_with(&["--scenario", "page", "--impl", "go", "-d", "2s"], bare, &[0, 1]).unwrap();
    assert_eq!((p.points[0].requests, p.points[0].duration_s), (None, Some(2.0)));
    let p = plan_with(&["--scenario", "hello", "--impl", "go", "-n", "500"], bare, &[0, 1]).unwrap();
    assert_eq!((p.points[0].requests, p.points[0].duration_s), (Some(500), None));
}

#[test]
fn an_open_loop_level_keeps_the_scenario_connections() {
    let p = plan(&["--impl", "go", "--scenario", "hello", "--cores", "1", "-R", "1000,2000"]).unwrap();
    let levels: Vec<(&str, Option<u32>, u32)> = p.points.iter().map(|p| (p.level.as_str(), p.rate, p.connections)).collect();
    assert_eq!(levels, [("R=1000", Some(1000), 150), ("R=2000", Some(2000), 150), ("R=1000", Some(1000), 150), ("R=2000", Some(2000), 150)]);
}

#[test]
fn bad_flags_name_the_flag_and_the_fix() {
    assert_eq!(err(&["--cores", "0"]), "--cores 0: core counts start at 1 (e.g. --cores 1,2)");
    assert_eq!(err(&["--cores", "8,16"]), "--cores: every core count asked for is above the 2 CPU(s) here (e.g. --cores 1,2)");
    assert_eq!(err(&["--repeat", "0"]), "--repeat 0: every point needs at least one measurement (e.g. --repeat 3)");
    assert_eq!(err(&["--impl", "rust"]), "--impl rust: no HTTP implementation by that name; known: go, node, java (see `concur list`)");
    assert_eq!(err(&["--scenario", "nope"]), "--scenario nope: no scenario by that name; known: hello, page, password (spec/scenarios/)");
    assert_eq!(err(&["-c", "0"]), "-c/-R 0: a load level must be above 0 (e.g. -c 50)");
    assert_eq!(err(&["-n", "0"]), "-n 0: a point needs at least one request (e.g. -n 10000)");
    assert!(err(&["--impl", "java"]).starts_with("no implementation to measure: java lack(s) a toolchain here"));
}

#[test]
fn a_profile_naming_an_unknown_scenario_is_refused() {
    let bad = "description = \"d\"\ncores = [1]\n[scenario.helo]\nconnections = [1]\n";
    let e = plan_with(&[], bad, &[0, 1]).unwrap_err().to_string();
    assert_eq!(e, "spec/profiles/test.toml: [scenario.helo] names no scenario; known: hello, page, password (spec/scenarios/)");
}

#[test]
fn the_plan_key_changes_with_what_is_measured_only() {
    let a = plan(&["--impl", "go"]).unwrap();
    assert_eq!(a.key(), plan(&["--impl", "go"]).unwrap().key());
    assert_ne!(a.key(), plan(&["--impl", "go", "-d", "4s"]).unwrap().key());
    assert_ne!(a.key(), plan(&["--impl", "go", "--no-verify"]).unwrap().key());
}

#[test]
fn keep_alive_is_the_default_and_adds_nothing_to_keys_labels_or_the_plan_key() {
    let p = plan(&["--impl", "go"]).unwrap();
    assert!(p.points.iter().all(|p| p.keepalive && !p.key.contains("close") && !p.level.contains("close")));
    // Keep-alive adds nothing to the plan's key: a run planned before connection modes existed resumes.
    assert_eq!(p.key(), plan(&["--impl", "go", "--keepalive", "true"]).unwrap().key());
    assert!(!serde_json::to_string(&p).unwrap().contains("keepalive"));
    assert!(!p.notes.iter().any(|n| n.contains("Connection: close")));
}

#[test]
fn both_connection_modes_measure_every_level_and_close_is_named_in_key_and_level() {
    let both = "description = \"d\"\ncores = [1]\nkeepalive = [true, false]\n[scenario.page]\nkeepalive = [false]\n";
    let p = plan_with(&["--impl", "go,node", "--scenario", "hello,page", "-c", "10,20"], both, &[0, 1]).unwrap();
    let points: Vec<(&str, &str, bool)> = p.points.iter().map(|p| (p.key.as_str(), p.level.as_str(), p.keepalive)).collect();
    assert_eq!(
        points,
        [
            ("go/hello/cores=1/c=10/r1", "c=10", true),
            ("node/hello/cores=1/c=10/r1", "c=10", true),
            ("go/hello/cores=1/c=10/close/r1", "c=10 close", false),
            ("node/hello/cores=1/c=10/close/r1", "c=10 close", false),
            ("go/hello/cores=1/c=20/r1", "c=20", true),
            ("node/hello/cores=1/c=20/r1", "c=20", true),
            ("go/hello/cores=1/c=20/close/r1", "c=20 close", false),
            ("node/hello/cores=1/c=20/close/r1", "c=20 close", false),
            ("go/page/cores=1/c=10/close/r1", "c=10 close", false),
            ("node/page/cores=1/c=10/close/r1", "c=10 close", false),
            ("go/page/cores=1/c=20/close/r1", "c=20 close", false),
            ("node/page/cores=1/c=20/close/r1", "c=20 close", false),
        ]
    );
    assert!(p.notes.iter().any(|n| n.contains("`Connection: close`")), "{:?}", p.notes);
    assert_ne!(p.key(), plan_with(&["--impl", "go,node", "--scenario", "hello,page", "-c", "10,20", "--keepalive", "true"], both, &[0, 1]).unwrap().key());
}

#[test]
fn the_keepalive_flag_overrides_profile_and_scenario() {
    let both = "description = \"d\"\ncores = [1]\nkeepalive = [true, false]\n[scenario.page]\nkeepalive = [true]\n";
    let p = plan_with(&["--impl", "go", "--scenario", "hello,page", "--keepalive", "false,false"], both, &[0, 1]).unwrap();
    assert_eq!(p.points.iter().map(|p| p.key.as_str()).collect::<Vec<_>>(), ["go/hello/cores=1/c=150/close/r1", "go/page/cores=1/c=100/close/r1"]);
    let e = Cli::try_parse_from(["concur", "run", "--keepalive", "off"]).unwrap_err().to_string();
    assert!(e.contains("invalid value 'off' for '--keepalive <BOOLS>'") && e.contains("[possible values: true, false]"), "{e}");
}

#[test]
fn a_manifests_warm_up_raises_the_profiles_but_never_adds_one() {
    let profile = crate::run::profile::parse("spec/profiles/test.toml", PROFILE).unwrap();
    let mut jit = imp("go", "sh");
    jit.manifest.start.warmup = Some("15s".into());
    let imps = [jit, imp("node", "sh")];
    let scenarios = [scenario("hello", 150, Some(30.0), None), scenario("password", 128, Some(60.0), None)];
    let inputs = Inputs { profile_name: "test", profile: &profile, implementations: &imps, scenarios: &scenarios, topology: &numbered(&[0, 1]) };
    let bounds = |flags: &[&str]| -> Vec<(String, f64, f64)> {
        let plan = resolve(&args(flags), &inputs).unwrap();
        plan.points.iter().filter(|p| p.cores == 1 && p.repeat == 1 && p.scenario == "hello").map(|p| (p.implementation.clone(), p.warmup_s, p.warmup_max_s)).collect()
    };
    let at_least = |name: &str, w: f64, max: f64| (name.to_string(), w, max);
    assert_eq!(bounds(&["--impl", "go,node"]), [at_least("go", 15.0, 30.0), at_least("node", 1.0, 30.0)]);
    assert_eq!(bounds(&["--impl", "go,node", "--warmup-max", "10s"]), [at_least("go", 15.0, 15.0), at_least("node", 1.0, 10.0)]);
    assert_eq!(bounds(&["--impl", "go,node", "--warmup", "0"]), [at_least("go", 0.0, 0.0), at_least("node", 0.0, 0.0)]);
    assert!(err(&["--warmup", "5s", "--warmup-max", "2s"]).contains("raise warmup_max (or --warmup-max)"), "{}", err(&["--warmup", "5s", "--warmup-max", "2s"]));
}

#[test]
fn a_scenario_may_take_some_of_the_cores_and_the_flag_gives_it_all_back() {
    let profile = "description = \"d\"\ncores = [1, 2]\n[scenario.page]\ncores = [2]\n";
    let keys = |flags: &[&str]| plan_with(flags, profile, &[0, 1, 2]).unwrap().points.iter().map(|p| p.key.clone()).collect::<Vec<_>>();
    assert_eq!(
        keys(&["--impl", "go", "--scenario", "hello,page"]),
        ["go/hello/cores=1/c=150/r1", "go/hello/cores=2/c=150/r1", "go/page/cores=2/c=100/r1"]
    );
    assert_eq!(keys(&["--impl", "go", "--scenario", "page", "--cores", "1,2"]), ["go/page/cores=1/c=100/r1", "go/page/cores=2/c=100/r1"]);
    let bad = crate::run::profile::parse("spec/profiles/test.toml", "description = \"d\"\ncores = [1]\n[scenario.page]\ncores = []\n").unwrap_err().to_string();
    assert!(bad.contains("[scenario.page] 'cores' must be a non-empty list"), "{bad}");
}

#[test]
fn an_slo_adds_one_search_per_implementation_scenario_and_cores_after_the_points() {
    let none = plan(&["--impl", "go"]).unwrap();
    assert!(none.searches.is_empty());
    let p = plan(&["--impl", "go", "--scenario", "hello", "--slo", "p99<=10ms"]).unwrap();
    let keys: Vec<&str> = p.searches.iter().map(|s| s.key.as_str()).collect();
    assert_eq!(keys, ["go/hello/cores=1/capacity", "go/hello/cores=2/capacity"]);
    let s = &p.searches[0];
    assert_eq!((s.slo.to_string(), s.connections, s.precision, s.generator_cpus.clone()), ("p99<=10ms".into(), 150, 0.05, vec![1]));
    assert_ne!(p.key(), plan(&["--impl", "go", "--scenario", "hello"]).unwrap().key(), "--resume must not mix a run with searches and one without");
    let profile = format!(
        "{PROFILE}[capacity]\nslo = \"p99.9<=50ms\"\nscenarios = [\"password\"]\ncores = [2]\nconnections = 8\nstep = \"1s\"\nstep_warmup = \"0s\"\nmax_steps = 4\nbudget = \"9s\"\n"
    );
    let p = plan_with(&["--impl", "go"], &profile, &[0, 1]).unwrap();
    let s: Vec<(&str, String, u32, f64, f64, f64)> =
        p.searches.iter().map(|s| (s.key.as_str(), s.slo.to_string(), s.connections, s.step_cost_s(), s.expected_s(false), s.expected_s(true))).collect();
    // Four 1 s steps, after the server's warm-up as a point's (1 s, judged over 3 s windows, then the next whole second);
    // on a point's warm server, the steps only.
    assert_eq!(s, [("go/password/cores=2/capacity", "p99.9<=50ms".to_string(), 8, 1.0, 8.0, 4.0)]);
    assert_eq!((p.searches[0].server_warmup_s, p.searches[0].server_warmup_max_s), (1.0, 30.0));
    let p = plan_with(&["--impl", "go", "--slo", "p50<=1ms"], &profile, &[0, 1]).unwrap();
    assert_eq!(p.searches[0].slo.to_string(), "p50<=1ms", "--slo replaces the profile's bound");
}

#[test]
fn a_capacity_scenario_without_points_is_searched_and_the_scenario_flag_narrows_it() {
    let profile = "description = \"d\"\ncores = [1]\nscenarios = [\"hello\"]\n[capacity]\nslo = \"p99<=50ms\"\nscenarios = [\"hello\", \"password\"]\n";
    let p = plan_with(&["--impl", "go"], profile, &[0, 1]).unwrap();
    assert_eq!(p.points.iter().map(|p| p.scenario.as_str()).collect::<Vec<_>>(), ["hello"], "no point of password");
    assert_eq!(p.searches.iter().map(|s| s.key.as_str()).collect::<Vec<_>>(), ["go/hello/cores=1/capacity", "go/password/cores=1/capacity"]);
    let p = plan_with(&["--impl", "go", "--scenario", "hello"], profile, &[0, 1]).unwrap();
    assert_eq!(p.searches.iter().map(|s| s.key.as_str()).collect::<Vec<_>>(), ["go/hello/cores=1/capacity"]);
}

#[test]
fn a_malformed_slo_names_the_input_and_shows_the_syntax() {
    let argv = ["concur", "run", "--slo", "p99<10ms"];
    let err = Cli::try_parse_from(argv).unwrap_err().to_string();
    assert!(err.contains("invalid value 'p99<10ms' for '--slo <BOUND>': invalid SLO 'p99<10ms': 'p99<10ms' has no '<='"), "{err}");
    assert!(err.contains("e.g. 'p99<=10ms', 'p99.9<=50ms'"), "{err}");
    let bad = crate::run::profile::parse("p.toml", &format!("{PROFILE}[capacity]\nslo = \"p99 <= fast\"\n")).unwrap_err().to_string();
    assert!(bad.starts_with("p.toml: [capacity] 'slo': invalid SLO 'p99 <= fast'"), "{bad}");
    let bad = crate::run::profile::parse("p.toml", &format!("{PROFILE}[capacity]\nprecision = 5\n")).unwrap_err().to_string();
    assert!(bad.contains("'precision' is a fraction between 0 and 1"), "{bad}");
}

#[test]
fn the_generator_is_a_dimension_named_in_key_and_level_only_when_not_concur_load() {
    let before = plan(&["--impl", "go", "--scenario", "hello", "--cores", "1"]).unwrap();
    let same = plan(&["--impl", "go", "--scenario", "hello", "--cores", "1", "--generator", "concur-load"]).unwrap();
    assert_eq!(before.key(), same.key(), "concur load adds nothing to the plan key");
    assert!(!serde_json::to_string(&before).unwrap().contains("\"generator\":"));
    let p = plan(&["--impl", "go", "--scenario", "hello", "--cores", "1", "--generator", "concur-load,locust"]).unwrap();
    let seen: Vec<(&str, &str, crate::store::Generator)> = p.points.iter().take(2).map(|p| (p.key.as_str(), p.level.as_str(), p.generator)).collect();
    assert_eq!(
        seen,
        [
            ("go/hello/cores=1/c=150/r1", "c=150", crate::store::Generator::ConcurLoad),
            ("go/hello/cores=1/c=150/locust/r1", "c=150 locust", crate::store::Generator::Locust)
        ]
    );
    // One worker per generator CPU by default (here CPU 1), Locust's own master port.
    let locust = p.points[1].locust.clone().unwrap();
    assert_eq!((locust.workers, locust.master_bind, locust.master_port), (1, None, 5557));
    assert!(p.points[0].locust.is_none());
    let p = plan(&["--impl", "go", "--scenario", "hello", "--cores", "1", "--generator", "locust", "--locust-workers", "4", "--locust-master-bind", "10.0.0.1"]).unwrap();
    let locust = p.points[0].locust.clone().unwrap();
    assert_eq!((locust.workers, locust.master_bind.as_deref()), (4, Some("10.0.0.1")));
}

#[test]
fn a_profile_names_one_generator_or_several_and_the_flag_overrides_it() {
    let one = PROFILE.replace("[load]", "generator = \"locust\"\n[load]");
    let p = plan_with(&["--impl", "go", "--scenario", "hello", "--cores", "1"], &one, &[0, 1]).unwrap();
    assert!(p.points.iter().all(|p| p.generator == crate::store::Generator::Locust), "{one}");
    let both = PROFILE.replace("[load]", "generator = [\"concur-load\", \"locust\"]\n[load]");
    let p = plan_with(&["--impl", "go", "--scenario", "hello", "--cores", "1", "--repeat", "1"], &both, &[0, 1]).unwrap();
    assert_eq!(p.points.len(), 2);
    let p = plan_with(&["--impl", "go", "--scenario", "hello", "--cores", "1", "--repeat", "1", "--generator", "concur-load"], &both, &[0, 1]).unwrap();
    assert_eq!(p.points.len(), 1);
}

#[test]
fn locust_points_refuse_what_locust_cannot_drive() {
    assert_eq!(
        err(&["--generator", "locust", "--keepalive", "false"]),
        "scenario hello: Locust keeps its connections alive; measure `--keepalive false` with --generator concur-load"
    );
    assert_eq!(err(&["--generator", "locust", "-R", "100"]), "scenario hello: R=100 is an open loop, which Locust does not drive; use -c (its users) with --generator locust");
    assert_eq!(err(&["--generator", "locust", "--locust-workers", "0"]), "--locust-workers 0: a Locust master needs at least one worker (e.g. --locust-workers 2)");
    let argv = ["concur", "run", "--generator", "gatling"];
    let e = Cli::try_parse_from(argv).unwrap_err().to_string();
    assert!(e.contains("unknown generator 'gatling': use concur-load or locust"), "{e}");
}

/// Go and node; hello and two database scenarios.
fn database_plan(flags: &[&str], cpus: &[usize]) -> anyhow::Result<Plan> {
    let profile = crate::run::profile::parse("spec/profiles/test.toml", "description = \"t\"\ncores = [1, 2]\n").unwrap();
    let imps = [imp("go", "sh"), imp("node", "sh")];
    let db = |name: &str| ScenarioInfo { database: true, ..scenario(name, 256, Some(30.0), None) };
    let scenarios = [scenario("hello", 150, Some(30.0), None), db("db"), db("slowdb")];
    let topology = numbered(cpus);
    let inputs = Inputs { profile_name: "test", profile: &profile, implementations: &imps, scenarios: &scenarios, topology: &topology };
    resolve(&args(flags), &inputs)
}

#[test]
fn the_database_scenarios_measure_every_implementation_with_cpus_for_the_database() {
    let p = database_plan(&["--cores", "1"], &[0, 1]).unwrap();
    let keys: Vec<&str> = p.points.iter().map(|p| p.key.as_str()).collect();
    assert_eq!(
        keys,
        ["go/hello/cores=1/c=150/r1", "node/hello/cores=1/c=150/r1", "go/db/cores=1/c=256/r1", "node/db/cores=1/c=256/r1", "go/slowdb/cores=1/c=256/r1", "node/slowdb/cores=1/c=256/r1"]
    );
    assert!(p.points[0].database_cpus.is_empty() && !p.points[2].database_cpus.is_empty());
    // Left out of the plan's JSON when empty, so plans and `--resume` keys from before stay the same.
    assert!(!serde_json::to_string(&p.points[0]).unwrap().contains("database_cpus"));
}

#[test]
fn the_database_gets_cpus_of_its_own_where_the_machine_has_them_else_shares_the_generators() {
    let cpus = |p: &crate::run::PointSpec| (p.server_cpus.clone(), p.generator_cpus.clone(), p.database_cpus.clone());
    let two = database_plan(&["--impl", "go", "--scenario", "db"], &[0, 1]).unwrap();
    assert_eq!(cpus(&two.points[0]), (vec![0], vec![1], vec![1]), "one core: the generator's CPU, never the server's");
    assert_eq!(cpus(&two.points[1]), (vec![0, 1], vec![0, 1], vec![0, 1]));
    let four = database_plan(&["--impl", "go", "--scenario", "db"], &[0, 1, 2, 3]).unwrap();
    assert_eq!(cpus(&four.points[0]), (vec![0], vec![2, 3], vec![1]), "server | database | generator");
    assert_eq!(cpus(&four.points[1]), (vec![0, 1], vec![2, 3], vec![2, 3]), "no room for a third role: the generator's");
}

/// Each point's key and the point whose server it takes over, in plan order.
fn takeovers(p: &Plan) -> Vec<(&str, Option<&str>)> {
    p.points.iter().map(|p| (p.key.as_str(), p.after.as_ref().map(|a| a.point.as_str()))).collect()
}

const CHAINED: &str = r#"
description = "test"
scenarios = ["hello", "page"]
cores = [1, 2]
repeat = 2
[load]
warmup = "1s"
warmup_max = "5s"
duration = "3s"
[scenario.page]
after = "hello"
warmup = "2s"
"#;

#[test]
fn a_scenario_after_another_is_measured_right_behind_its_point_on_the_same_server() {
    let p = plan_with(&[], CHAINED, &[0, 1]).unwrap();
    let order = takeovers(&p);
    let r1 = [
        ("go/hello/cores=1/c=150/r1", None),
        ("go/page/cores=1/c=100/r1", Some("go/hello/cores=1/c=150/r1")),
        ("node/hello/cores=1/c=150/r1", None),
        ("node/page/cores=1/c=100/r1", Some("node/hello/cores=1/c=150/r1")),
        ("go/hello/cores=2/c=150/r1", None),
        ("go/page/cores=2/c=100/r1", Some("go/hello/cores=2/c=150/r1")),
    ];
    assert_eq!(order[..6], r1);
    // The second repeat starts one implementation further along, and never shares the first's servers.
    assert_eq!(order[8], ("node/hello/cores=1/c=150/r2", None));
    assert_eq!(order[9], ("node/page/cores=1/c=100/r2", Some("node/hello/cores=1/c=150/r2")));
    // On the host's server the point warms up as the profile says; on a fresh one as any point.
    let page = &p.points[1];
    let after = page.after.as_ref().unwrap();
    assert_eq!((after.warmup_s, after.warmup_max_s, page.warmup_s, page.warmup_max_s), (2.0, 5.0, 2.0, 5.0));
    assert!(p.notes.iter().any(|n| n.starts_with("one server for several scenarios (page after hello)")), "{:?}", p.notes);
}

#[test]
fn a_follower_without_its_host_in_the_run_gets_servers_of_its_own_and_a_host_measured_later_is_refused() {
    let alone = plan_with(&["--scenario", "page"], CHAINED, &[0, 1]).unwrap();
    assert!(alone.points.iter().all(|p| p.after.is_none()) && !alone.notes.iter().any(|n| n.starts_with("one server")), "{:?}", alone.notes);
    let later = CHAINED.replace("scenarios = [\"hello\", \"page\"]", "scenarios = [\"page\", \"hello\"]");
    let e = plan_with(&[], &later, &[0, 1]).unwrap_err().to_string();
    assert_eq!(e, "spec/profiles/test.toml: [scenario.page] is measured after hello, which this run measures later: list hello before it in `scenarios`");
    let unknown = CHAINED.replace("after = \"hello\"", "after = \"nosuch\"");
    let e = plan_with(&[], &unknown, &[0, 1]).unwrap_err().to_string();
    assert_eq!(e, "spec/profiles/test.toml: [scenario.page] after = \"nosuch\" names no scenario (spec/scenarios/)");
}

#[test]
fn blocks_rotate_short_windows_over_servers_kept_warm() {
    let p = plan(&["--impl", "go,node", "--scenario", "hello", "--cores", "1", "--repeat", "1", "--blocks", "3"]).unwrap();
    let order: Vec<(&str, Option<&str>, u32)> = p.points.iter().map(|p| (p.key.as_str(), p.after.as_ref().map(|a| a.point.as_str()), p.start)).collect();
    assert_eq!(
        order,
        [
            ("go/hello/cores=1/c=150/r1", None, 1),
            ("node/hello/cores=1/c=150/r1", None, 1),
            ("node/hello/cores=1/c=150/r2", Some("node/hello/cores=1/c=150/r1"), 1),
            ("go/hello/cores=1/c=150/r2", Some("go/hello/cores=1/c=150/r1"), 1),
            ("go/hello/cores=1/c=150/r3", Some("go/hello/cores=1/c=150/r2"), 1),
            ("node/hello/cores=1/c=150/r3", Some("node/hello/cores=1/c=150/r2"), 1),
        ]
    );
    // A later window re-warms its new connections for a fixed second (the profile sets none), not the manifest's warm-up.
    let after = p.points[2].after.as_ref().unwrap();
    assert_eq!((after.warmup_s, after.warmup_max_s, p.points[2].warmup_s), (1.0, 1.0, 1.0));
    assert!(p.notes.iter().any(|n| n.starts_with("blocks: ")) && !p.notes.iter().any(|n| n.starts_with("one server")), "{:?}", p.notes);
    // Two repeats of two blocks: four measurements per point, the second repeat on a server start of its own.
    let two = plan(&["--impl", "go", "--scenario", "hello", "--cores", "1", "--repeat", "2", "--blocks", "2"]).unwrap();
    let starts: Vec<(u32, u32, bool)> = two.points.iter().map(|p| (p.repeat, p.start, p.after.is_some())).collect();
    assert_eq!(starts, [(1, 1, false), (2, 1, true), (3, 2, false), (4, 2, true)]);
    assert_eq!(err(&["--blocks", "0"]), "--blocks 0: every server start needs at least one window (e.g. --blocks 3)");
}

#[test]
fn a_second_follower_takes_the_server_over_from_the_first() {
    // page and then password on hello's server: password follows page, which took the server last.
    let two = CHAINED.replace("repeat = 2", "repeat = 1").replace("scenarios = [\"hello\", \"page\"]", "scenarios = [\"hello\", \"page\", \"password\"]")
        + "[scenario.password]\nafter = \"hello\"\n";
    let p = plan_with(&["--cores", "1", "--impl", "go"], &two, &[0, 1]).unwrap();
    assert_eq!(
        takeovers(&p),
        [
            ("go/hello/cores=1/c=150/r1", None),
            ("go/page/cores=1/c=100/r1", Some("go/hello/cores=1/c=150/r1")),
            ("go/password/cores=1/c=128/r1", Some("go/page/cores=1/c=100/r1")),
        ]
    );
    // With the host in blocks and its followers in one window each, the same chain after its last round.
    let blocks = two.replace("[load]", "[load]\nblocks = 2").replace("[scenario.page]", "[scenario.page]\nblocks = 1") + "blocks = 1\n";
    let p = plan_with(&["--cores", "1", "--impl", "go"], &blocks, &[0, 1]).unwrap();
    assert_eq!(
        takeovers(&p),
        [
            ("go/hello/cores=1/c=150/r1", None),
            ("go/hello/cores=1/c=150/r2", Some("go/hello/cores=1/c=150/r1")),
            ("go/page/cores=1/c=100/r1", Some("go/hello/cores=1/c=150/r2")),
            ("go/password/cores=1/c=128/r1", Some("go/page/cores=1/c=100/r1")),
        ]
    );
}

#[test]
fn with_blocks_a_following_scenario_takes_the_last_window_s_server_in_its_own_rounds_right_after_the_host_s() {
    // A scenario between host and follower must not keep the host's servers waiting (their
    // database connections and memory): the follower's rounds move up behind the host's.
    let profile = CHAINED.replace("repeat = 2", "repeat = 1\n").replace("[load]", "[load]\nblocks = 2\nrewarm = \"250ms\"").replace("scenarios = [\"hello\", \"page\"]", "scenarios = [\"hello\", \"password\", \"page\"]");
    let p = plan_with(&["--cores", "1"], &profile, &[0, 1]).unwrap();
    let order = takeovers(&p);
    assert_eq!(
        order,
        [
            ("go/hello/cores=1/c=150/r1", None),
            ("node/hello/cores=1/c=150/r1", None),
            ("node/hello/cores=1/c=150/r2", Some("node/hello/cores=1/c=150/r1")),
            ("go/hello/cores=1/c=150/r2", Some("go/hello/cores=1/c=150/r1")),
            ("go/page/cores=1/c=100/r1", Some("go/hello/cores=1/c=150/r2")),
            ("node/page/cores=1/c=100/r1", Some("node/hello/cores=1/c=150/r2")),
            ("node/page/cores=1/c=100/r2", Some("node/page/cores=1/c=100/r1")),
            ("go/page/cores=1/c=100/r2", Some("go/page/cores=1/c=100/r1")),
            ("go/password/cores=1/c=128/r1", None),
            ("node/password/cores=1/c=128/r1", None),
            ("node/password/cores=1/c=128/r2", Some("node/password/cores=1/c=128/r1")),
            ("go/password/cores=1/c=128/r2", Some("go/password/cores=1/c=128/r1")),
        ]
    );
    let (first, second) = (p.points[4].after.as_ref().unwrap(), p.points[6].after.as_ref().unwrap());
    assert_eq!((first.warmup_s, first.warmup_max_s), (2.0, 5.0), "the scenario's own warm-up on its host's server");
    assert_eq!((second.warmup_s, second.warmup_max_s), (0.25, 0.25), "a re-warm between its windows");
    assert!(p.notes.iter().any(|n| n.starts_with("one server for several scenarios (page after hello)")), "{:?}", p.notes);
    // A follower of one window comes after the host's whole last round, not inside it.
    let single = profile.replace("[scenario.page]", "[scenario.page]\nblocks = 1");
    let p = plan_with(&["--cores", "1"], &single, &[0, 1]).unwrap();
    let order = &takeovers(&p)[..6];
    assert_eq!(
        order,
        [
            ("go/hello/cores=1/c=150/r1", None),
            ("node/hello/cores=1/c=150/r1", None),
            ("node/hello/cores=1/c=150/r2", Some("node/hello/cores=1/c=150/r1")),
            ("go/hello/cores=1/c=150/r2", Some("go/hello/cores=1/c=150/r1")),
            ("go/page/cores=1/c=100/r1", Some("go/hello/cores=1/c=150/r2")),
            ("node/page/cores=1/c=100/r1", Some("node/hello/cores=1/c=150/r2")),
        ]
    );
}
