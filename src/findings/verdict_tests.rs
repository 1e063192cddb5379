//! The verdicts on a synthetic results database (an HTTP run, a micro run
//! and a quiet calibration, written through `Store` and read back as the
//! report reads them) in which every kind of verdict occurs.

use super::*;
use crate::stats::interval::Basis;
use crate::findings::claims::{self, Known};
use crate::impls::manifest;
use crate::store::micro::{MicroParams, MicroRecord, MicroStatus};
use crate::store::noise::{CALIBRATION_PROFILE, FloorRecord};
use crate::store::{Environment, ImplRecord, ImplStatus, PointRecord, RunInfo, Store};
use std::path::Path;

fn implementation(name: &str, status: ImplStatus, reason: Option<&str>) -> ImplRecord {
    let text = format!(
        "name = \"{name}\"\nlanguage = \"Go\"\nruntime = \"Go\"\nversion = \"true\"\nframework = \"stdlib\"\nmodel = \"green-threads\"\n[start]\ncommand = \"./server\"\n[cores]\nhow = \"GOMAXPROCS\"\n"
    );
    ImplRecord {
        name: name.into(),
        status,
        reason: reason.map(str::to_string),
        version: "1.0".into(),
        manifest: manifest::parse(Path::new("concur.toml"), &text, name).unwrap(),
        known_failures: vec![],
    }
}

fn environment() -> Environment {
    Environment { cpu_model: "Test CPU".into(), logical_cpus: 2, kernel: "Linux".into(), memory_bytes: 8 << 30, ..Environment::default() }
}

fn point(name: &str, scenario: &str, cores: u32, repeat: u32, rps: u64) -> PointRecord {
    PointRecord {
        key: format!("{name}/{scenario}/cores={cores}/c=50/r{repeat}"),
        implementation: name.into(),
        scenario: scenario.into(),
        cores,
        connections: 50,
        level: "c=50".into(),
        repeat,
        duration_s: 1.0,
        requests: rps,
        successes: rps,
        ..PointRecord::default()
    }
}

fn pairs(name: &str, cores: u32, pairs: u64, repeat: u32, messages_per_s: f64) -> MicroRecord {
    MicroRecord {
        key: format!("{name}/pairs/pairs={pairs}/cores={cores}/{repeat}"),
        implementation: name.into(),
        bench: "pairs".into(),
        params: MicroParams { pairs: Some(pairs), seconds: Some(1.0), ..Default::default() },
        cores,
        repeat,
        started_at: "2025-03-01T10:00:00Z".into(),
        status: MicroStatus::Ok,
        reason: None,
        exit_code: Some(0),
        signal: None,
        wall_s: 1.2,
        ops: Some(1000),
        elapsed_ns: Some(1_000_000_000),
        ns_per_op: Some(1e9 / messages_per_s),
        messages_per_s: Some(messages_per_s),
        min_pair_round_trips: Some(1),
        supervision: None,
        peak_rss_bytes: 5 << 20,
        group_rss_peak_bytes: 5 << 20,
        os_processes_max: 1,
        baseline_rss_bytes: None,
        bytes_per_proc: None,
        line: None,
        stderr_tail: String::new(),
    }
}

/// hello at 1 and 2 cores, three repeats: fast (10k, 19k), twin (within 1% of
/// fast), slow (2k, 2.1k; one repeat at 2 cores failed), noisy (scattered
/// 5k-15k), broken (failed to build); longpoll at 2 cores, 167 req/s in every
/// repeat of fast, twin and slow; no page point. Micro pairs at 1 core:
/// go peaks at 1 pair, erlang at 16.
fn database(dir: &Path) -> (Store, i64) {
    let store = Store::open(&dir.join("concur.db")).unwrap();
    let id = store.insert_run(&RunInfo::starting("findings".into(), "key".into(), serde_json::json!({}), environment(), vec![])).unwrap();
    for name in ["fast", "twin", "slow", "noisy"] {
        store.put_implementation(id, &implementation(name, ImplStatus::Verified, None)).unwrap();
    }
    store.put_implementation(id, &implementation("broken", ImplStatus::Failed, Some("the build failed: cannot find module"))).unwrap();
    for repeat in 1..=3u32 {
        let wobble = u64::from(repeat) * 20;
        for (name, one, two) in [("fast", 10_000, 19_000), ("twin", 10_030, 19_100), ("slow", 2_000, 2_100)] {
            store.insert_point(id, &point(name, "hello", 1, repeat, one + wobble)).unwrap();
            let mut p = point(name, "hello", 2, repeat, two + wobble);
            if name == "slow" && repeat == 3 {
                p.error = Some("the server exited during the measurement".into());
            }
            store.insert_point(id, &p).unwrap();
        }
        store.insert_point(id, &point("noisy", "hello", 1, repeat, [5_000, 15_000, 9_000][repeat as usize - 1])).unwrap();
        // A timer-bound figure: every long poll answered on its timer, the same count in every round.
        for name in ["fast", "twin", "slow"] {
            store.insert_point(id, &point(name, "longpoll", 2, repeat, 167)).unwrap();
        }
    }
    let mut calibration = RunInfo::starting(CALIBRATION_PROFILE.into(), "cal".into(), serde_json::json!({}), environment(), vec![]);
    calibration.profile = CALIBRATION_PROFILE.into();
    let cal = store.insert_run(&calibration).unwrap();
    let floor = FloorRecord {
        run_id: cal,
        measured_at: "2025-03-01T09:00:00Z".into(),
        finished: true,
        rounds_planned: 6,
        rounds_measured: 6,
        measurements: 36,
        throughput_sigma: 0.01,
        throughput_drift: 0.005,
        p99_sigma: 0.02,
        p99_drift: 0.01,
        df: 30,
        load_avg: String::new(),
        detail: serde_json::json!({}),
    };
    store.insert_floor(&floor).unwrap();
    let micro = store.insert_run(&RunInfo::starting("micro:findings".into(), "m".into(), serde_json::json!({}), environment(), vec![])).unwrap();
    for name in ["go", "erlang"] {
        store.put_implementation(micro, &implementation(name, ImplStatus::Verified, None)).unwrap();
    }
    for repeat in 1..=3u32 {
        let w = f64::from(repeat) * 1e5;
        for (n, go, erlang) in [(1, 9e6, 2e6), (16, 6e6, 4e6), (128, 5e6, 3e6)] {
            store.insert_micro(micro, &pairs("go", 1, n, repeat, go + w)).unwrap();
            store.insert_micro(micro, &pairs("erlang", 1, n, repeat, erlang + w)).unwrap();
        }
    }
    (store, id)
}

fn known() -> Known {
    Known {
        http: ["broken", "fast", "noisy", "slow", "twin"].map(String::from).to_vec(),
        micro: ["erlang", "go"].map(String::from).to_vec(),
        scenarios: ["hello", "longpoll", "page"].map(String::from).to_vec(),
    }
}

/// The verdict on one claim whose predicate is `body`.
fn verdict(results: &Results, body: &str) -> Verdict {
    let text = format!("[[claim]]\nid = \"t\"\nstudy = \"thesis\"\nsource = \"000_3aa513129a70facd.txt: a test\"\nclaim = \"a test\"\nruntimes = {{ \"X\" = \"fast\" }}\n{body}\n");
    let claims = claims::parse("findings.toml", &text, &known()).unwrap();
    judge(&claims[0], results)
}

fn results() -> Results {
    let dir = tempfile::tempdir().unwrap();
    let (store, id) = database(dir.path());
    Results::load(&store, Some(id)).unwrap()
}

const HELLO: &str = "scenario = \"hello\"\nmetric = \"throughput\"";

#[test]
fn an_order_apart_holds_and_the_reverse_does_not() {
    let r = results();
    let v = verdict(&r, &format!("{HELLO}\na = [\"fast\"]\ncompare = \"greater\"\nb = [\"slow\"]"));
    assert_eq!(v.kind, Kind::Holds, "{v:?}");
    let labels: Vec<&str> = v.figures.iter().map(|f| f.label.as_str()).collect();
    assert_eq!(labels, ["fast@1", "slow@1", "fast@1/slow@1", "fast@2", "slow@2", "fast@2/slow@2"]);
    assert!(v.figures[0].level.lo < 10_040.0 && v.figures[0].level.hi > 10_040.0);
    assert_eq!(v.figures[0].level.basis, Basis::Blocks, "a side is a row of its group's block design");
    let v = verdict(&r, &format!("{HELLO}\na = [\"slow\"]\ncompare = \"greater\"\nb = [\"fast\"]"));
    assert_eq!(v.kind, Kind::DoesNotHold, "{v:?}");
    assert!(v.why.starts_with("fast@1 is above slow@1 (slow@1/fast@1 0.20 ["), "{}", v.why);
}

#[test]
fn an_order_is_refuted_by_a_difference_within_the_threshold_and_undecided_across_it() {
    let r = results();
    // At 2 cores fast and twin are 0.5% apart round by round: fast is not above twin by 2%.
    let v = verdict(&r, &format!("{HELLO}\na = [\"fast\", \"twin\", \"slow\"]\ncompare = \"order\""));
    assert_eq!(v.kind, Kind::DoesNotHold, "{v:?}");
    assert!(v.why.contains("fast@2 is not above twin@2 by more than 2% (fast@2/twin@2 0.99 ["), "{}", v.why);
    // The same at 1 core, beside an entry whose rounds scatter threefold: its scatter stays its own
    // (the rounds' drift is the median row's), so fast and twin are decided there too.
    let v = verdict(&r, &format!("{HELLO}\ncores = [1]\na = [\"fast\"]\ncompare = \"greater\"\nb = [\"twin\"]"));
    assert_eq!(v.kind, Kind::DoesNotHold, "{v:?}");
    // The scattered entry itself against fast: its interval lies across 1.02.
    let v = verdict(&r, &format!("{HELLO}\ncores = [1]\na = [\"fast\"]\ncompare = \"greater\"\nb = [\"noisy\"]"));
    assert_eq!(v.kind, Kind::CannotTell, "{v:?}");
    assert!(v.why.starts_with("fast@1/noisy@1 1.14 [") && v.why.ends_with("lies across 1.02: neither order decided"), "{}", v.why);
}

#[test]
fn a_ratio_too_wide_for_its_range_cannot_tell_and_a_narrow_one_decides() {
    let r = results();
    let v = verdict(&r, &format!("{HELLO}\ncores = [1]\na = [\"noisy\"]\ncompare = \"about\"\ntolerance = 0.05\nb = [\"fast\"]"));
    assert_eq!(v.kind, Kind::CannotTell, "{v:?}");
    assert!(v.why.contains("noisy@1/fast@1 0.87 [") && v.why.ends_with("is wider than 0.95–1.05: its measurements scatter too much for this range"), "{}", v.why);
    let v = verdict(&r, &format!("{HELLO}\ncores = [1]\na = [\"fast\"]\ncompare = \"ratio\"\nrange = [4.0, 6.0]\nb = [\"slow\"]"));
    assert_eq!(v.kind, Kind::Holds, "{v:?}");
    assert_eq!(v.figures.last().map(|f| (f.label.as_str(), f.unit)), Some(("fast@1/slow@1", "×")));
    let v = verdict(&r, &format!("{HELLO}\ncores = [2]\na = [\"fast\"]\ncompare = \"about\"\ntolerance = 0.05\nb = [\"twin\"]"));
    assert_eq!(v.kind, Kind::Holds, "an equivalence: fast@2/twin@2 wholly within 0.95-1.05: {v:?}");
    let v = verdict(&r, &format!("{HELLO}\na = [\"slow@1\"]\ncompare = \"within\"\nrange = [2500.0, 3000.0]"));
    assert_eq!(v.kind, Kind::DoesNotHold, "{v:?}");
}

#[test]
fn a_side_that_failed_to_build_is_not_measured_with_the_command() {
    let v = verdict(&results(), &format!("{HELLO}\na = [\"fast\"]\ncompare = \"greater\"\nb = [\"broken\"]"));
    assert_eq!(v.kind, Kind::NotMeasured, "{v:?}");
    assert_eq!(
        v.why,
        "broken was not measured in run 1 (failed: the build failed: cannot find module); `concur run --profile findings --impl fast,broken --scenario hello` would measure it"
    );
}

#[test]
fn a_scenario_the_run_lacks_is_not_measured_with_the_command() {
    let v = verdict(&results(), "scenario = \"page\"\nmetric = \"p99\"\ncores = [2]\na = [\"fast\"]\ncompare = \"less\"\nb = [\"slow\"]");
    assert_eq!(v.kind, Kind::NotMeasured);
    assert!(v.why.ends_with("`concur run --profile findings --impl fast,slow --scenario page --cores 2` would measure it"), "{}", v.why);
}

#[test]
fn partial_data_is_said_in_a_verdict_that_holds() {
    let v = verdict(&results(), &format!("{HELLO}\ncores = [2]\na = [\"slow\"]\ncompare = \"less\"\nb = [\"fast\", \"broken\"]"));
    assert_eq!(v.kind, Kind::Holds, "{v:?}");
    assert!(v.notes.iter().any(|n| n.starts_with("slow at 2 core(s): 1 of 3 repeats failed (the server exited")), "{:?}", v.notes);
    assert!(v.notes.iter().any(|n| n.starts_with("partial: broken was not measured in run 1 (failed")), "{:?}", v.notes);
}

#[test]
fn scaling_compares_each_sides_gain_from_more_cores() {
    let v = verdict(&results(), &format!("{HELLO}\ncores = [1, 2]\na = [\"fast\"]\ncompare = \"scales-better\"\nb = [\"slow\"]"));
    assert_eq!(v.kind, Kind::Holds, "{v:?}");
    let gains: Vec<(&str, bool)> = v.figures.iter().filter(|f| f.unit == "×").map(|f| (f.label.as_str(), f.level.center > 1.5)).collect();
    assert_eq!(gains, [("fast 2/1 cores", true), ("slow 2/1 cores", false)]);
}

#[test]
fn a_peak_is_found_where_it_is_and_missed_where_it_is_not() {
    let r = results();
    let v = verdict(&r, "micro = \"pairs\"\nmetric = \"messages_per_s\"\na = [\"go\"]\ncompare = \"peak\"\nover = \"pairs\"\npeak_at = \"cores\"");
    assert_eq!(v.kind, Kind::Holds, "{v:?}");
    assert_eq!(v.figures.len(), 3);
    let v = verdict(&r, "micro = \"pairs\"\nmetric = \"messages_per_s\"\na = [\"erlang\"]\ncompare = \"peak\"\nover = \"pairs\"\npeak_at = \"cores\"");
    assert_eq!(v.kind, Kind::DoesNotHold, "{v:?}");
    assert!(v.why.starts_with("erlang@1 pairs=16 is above erlang@1 pairs=1 (erlang@1 pairs=1/erlang@1 pairs=16 0.52 ["), "{}", v.why);
    let v = verdict(&r, "micro = \"pairs\"\nmetric = \"messages_per_s\"\na = [\"go\"]\ncompare = \"peak\"\nover = \"pairs\"\npeak_at = 64");
    assert_eq!(v.kind, Kind::NotMeasured);
    assert!(v.why.starts_with("go at 1 core(s) has no pairs result at pairs=64; `concur micro --profile findings --bench pairs go`"), "{}", v.why);
}

#[test]
fn an_untestable_claim_says_why() {
    let text = "[[claim]]\nid = \"t\"\nstudy = \"paper\"\nsource = \"001_53eb50883f2a7aa9.txt: x\"\nclaim = \"x\"\nruntimes = {}\nuntestable = \"needs 64 CPUs\"\n";
    let claims = claims::parse("findings.toml", text, &known()).unwrap();
    let v = judge(&claims[0], &results());
    assert_eq!((v.kind, v.why.as_str()), (Kind::Untestable, "needs 64 CPUs"));
}

#[test]
fn without_a_micro_run_a_micro_claim_is_not_measured() {
    let mut r = results();
    r.micro = None;
    let v = verdict(&r, "micro = \"pairs\"\nmetric = \"messages_per_s\"\ncores = [1]\na = [\"go\"]\ncompare = \"greater\"\nb = [\"erlang\"]");
    assert_eq!(v.kind, Kind::NotMeasured, "{v:?}");
    assert!(v.why.starts_with("no micro run in the database"), "{}", v.why);
}

#[test]
fn a_timer_bound_figure_is_decided_at_its_resolution() {
    let r = results();
    let poll = "scenario = \"longpoll\"\nmetric = \"throughput\"";
    let v = verdict(&r, &format!("{poll}\na = [\"fast\", \"slow\"]\ncompare = \"within\"\nrange = [160.0, 175.0]"));
    assert_eq!(v.kind, Kind::Holds, "{v:?}");
    let v = verdict(&r, &format!("{poll}\na = [\"fast\"]\ncompare = \"about\"\ntolerance = 0.05\nb = [\"slow\"]"));
    assert_eq!(v.kind, Kind::Holds, "an exact tie, known to one poll in 167: {v:?}");
    let v = verdict(&r, &format!("{poll}\na = [\"fast\"]\ncompare = \"greater\"\nb = [\"slow\"]"));
    assert_eq!(v.kind, Kind::DoesNotHold, "{v:?}");
}

#[test]
fn a_claims_refutations_are_corrected_together_by_holm() {
    let undecided = |p: f64| Outcome::new(Kind::CannotTell, "across").refutable(Some(p), format!("refuted at {p}"));
    // One pair at p = 0.02: refuted at its own level, 0.025.
    assert_eq!(combine(vec![undecided(0.02)]).0, Kind::DoesNotHold);
    // Two at 0.02 each: the smaller must pass 0.025 / 2 first; neither refutes.
    // Each would refute alone, so each says so and why it does not here (not the undecided sentence).
    let (kind, why, _) = combine(vec![undecided(0.02), undecided(0.02)]);
    assert_eq!((kind, why.as_str()), (Kind::CannotTell, "refuted at 0.02, but not past Holm's correction over the claim's 2 tests (p = 0.020)"));
    // A test that would not refute even alone keeps the undecided sentence.
    let (kind, why, _) = combine(vec![undecided(0.3), undecided(0.02), undecided(0.02)]);
    assert!(kind == Kind::CannotTell && why.starts_with("across; refuted at 0.02, but not past"), "{why}");
    // One strong refutation lets the next be judged at 0.025.
    let (kind, why, _) = combine(vec![undecided(0.001), undecided(0.02), Outcome::new(Kind::Holds, "").refutable(Some(0.99), String::new())]);
    assert_eq!((kind, why.as_str()), (Kind::DoesNotHold, "refuted at 0.001"), "0.02 > 0.025/2: only the first");
    let (kind, why, _) = combine(vec![undecided(0.001), undecided(0.02)]);
    assert_eq!((kind, why.as_str()), (Kind::DoesNotHold, "refuted at 0.001; refuted at 0.02"));
}
