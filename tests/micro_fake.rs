//! `concur micro` end to end against fake implementations (a Python script
//! obeying spec/MICRO.md's command line, `micro_support/fake_micro.py`), so
//! that no real toolchain is needed: every result reaches the database, a
//! program that outgrows the memory budget is killed from outside and
//! recorded as `budget`, a runtime failing at large N is a recorded failure
//! that ends the maxprocs search, a lost message is caught, and Ctrl-C keeps
//! what was stored and leaves no process behind.

use crate::tools;

use concur::store::Store;
use concur::store::micro::{MicroStatus, SearchStop, Supervision};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const PROFILE: &str = r#"
description = "tiny: every benchmark once, in seconds"
repeat = 1
cores = [1]
timeout = "20s"
mem_budget = "2G"
[pingping]
size = [100]
reps = [10]
[pingpong]
reps = [10]
[spawn]
procs = [1, 100]
[maxprocs]
procs = [100, 1000, 10000]
[pairs]
pairs = [2]
seconds = 0.2
[idle]
procs = [1, 10]
sleep_ms = 10
[supervised]
pairs = [5]
seconds = 1
kill_rate = [0, 20]
"#;

/// A repository root holding one fake implementation per (name, [cores].env) and the test profile.
fn root(fakes: &[(&str, &str)]) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/micro_support/fake_micro.py");
    for (name, env) in fakes {
        let dir = root.path().join("impls/micro").join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(&script, dir.join("fake_micro.py")).unwrap();
        let manifest = format!(
            "name = \"{name}\"\nlanguage = \"Python\"\nruntime = \"CPython\"\nversion = \"python3 --version\"\nframework = \"none\"\nmodel = \"os-threads\"\n\
             [requires]\ncommands = [\"python3\"]\n[start]\ncommand = \"exec python3 fake_micro.py\"\n[cores]\nenv = {{ {env} }}\n"
        );
        std::fs::write(dir.join("concur.toml"), manifest).unwrap();
    }
    std::fs::create_dir_all(root.path().join("spec/profiles/micro")).unwrap();
    std::fs::write(root.path().join("spec/profiles/micro/test.toml"), PROFILE).unwrap();
    root
}

fn db(root: &tempfile::TempDir) -> PathBuf {
    root.path().join("results/concur.db")
}

fn micro(root: &tempfile::TempDir, args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_concur"))
        .arg("micro")
        .args(args)
        .args(["--profile", "test", "--root"])
        .arg(root.path())
        .arg("--results")
        .arg(db(root))
        .output()
        .unwrap();
    eprintln!("stdout:\n{}\nstderr:\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    out
}

fn latest(root: &tempfile::TempDir) -> (Store, i64) {
    let store = Store::open_existing(&db(root)).unwrap();
    let id = store.latest_micro_run_id().unwrap().expect("a micro run with results");
    (store, id)
}

#[test]
fn every_result_of_a_good_implementation_is_stored() {
    if tools::require(&tools::PYTHON3).is_none() {
        return;
    }
    let root = root(&[("good", "FAKE_MODE = \"ok\"")]);
    let out = micro(&root, &["good"]);
    assert_eq!(out.status.code(), Some(0));
    let (store, id) = latest(&root);
    let results = store.micro_results(id).unwrap();
    let benches: Vec<&str> = results.iter().map(|r| r.bench.as_str()).collect();
    assert_eq!(benches, ["spawn", "pingping", "pingpong", "spawn", "maxprocs", "maxprocs", "maxprocs", "pairs", "idle", "idle", "supervised", "supervised"]);
    assert!(results.iter().all(|r| r.status == MicroStatus::Ok), "{results:#?}");
    assert!(results.iter().all(|r| r.peak_rss_bytes > 1 << 20 && r.line.is_some()), "peak RSS is taken from outside");
    let spawn100 = results.iter().find(|r| r.bench == "spawn" && r.params.procs == Some(100)).unwrap();
    assert!(spawn100.baseline_rss_bytes.is_some() && spawn100.bytes_per_proc.is_some(), "{spawn100:?}");
    let pairs = results.iter().find(|r| r.bench == "pairs").unwrap();
    assert!(pairs.messages_per_s.unwrap() > 0.0 && pairs.min_pair_round_trips == Some(1000));
    let search = &store.micro_searches(id).unwrap()[0];
    assert_eq!((search.largest_n, search.stop), (Some(10000), SearchStop::Limit));
    // 20% of 10 processes a second for a second: 2 kills, each losing a message, counted apart.
    let killed: Vec<(Option<f64>, Option<Supervision>)> = results.iter().filter(|r| r.bench == "supervised").map(|r| (r.params.kill_rate, r.supervision)).collect();
    assert_eq!(
        killed,
        [
            (Some(0.0), Some(Supervision { kills: 0, lost: 0, restart_p50_ns: 0, restart_p99_ns: 0, late_restarts: 0 })),
            (Some(20.0), Some(Supervision { kills: 2, lost: 2, restart_p50_ns: 40000, restart_p99_ns: 90000, late_restarts: 0 }))
        ]
    );
    let run = store.run(id).unwrap();
    assert_eq!((run.profile.as_str(), run.status.as_str()), ("micro:test", "finished"));
}

#[test]
fn a_program_past_the_memory_budget_is_killed_and_recorded_as_budget() {
    if tools::require(&tools::PYTHON3).is_none() {
        return;
    }
    // 100 KiB per process: N=100 holds 10 MiB, N=1000 would hold 100 MiB.
    let root = root(&[("hungry", "FAKE_MODE = \"hungry\", FAKE_BYTES = \"102400\"")]);
    let started = Instant::now();
    let out = micro(&root, &["hungry", "--bench", "maxprocs", "--mem-budget", "64M"]);
    assert_eq!(out.status.code(), Some(0), "a budget kill is a result, not an error");
    assert!(started.elapsed() < Duration::from_secs(30));
    let (store, id) = latest(&root);
    let results = store.micro_results(id).unwrap();
    let big = results.iter().find(|r| r.bench == "maxprocs" && r.params.procs == Some(1000)).unwrap();
    assert_eq!(big.status, MicroStatus::Budget, "{big:?}");
    assert!(big.reason.as_deref().unwrap().contains("over --mem-budget 64 MiB"), "{big:?}");
    assert!(big.group_rss_peak_bytes > 64 << 20 && big.group_rss_peak_bytes < 100 << 20, "killed on the way up: {big:?}");
    assert!(!results.iter().any(|r| r.params.procs == Some(10000)), "the search stops going up at the first failed step");
    // Then it narrows between 100 and 1000: about 600 processes fit in 64 MiB.
    let search = &store.micro_searches(id).unwrap()[0];
    let largest = search.largest_n.unwrap();
    let failing: u64 = search.detail.strip_prefix("N=").and_then(|d| d.split(':').next()).unwrap().parse().unwrap();
    assert!((300..=640).contains(&largest) && largest < failing && (failing - largest) * 10 <= failing, "{search:?}");
    assert_eq!(search.stop, SearchStop::KilledAtBudget);
    assert!(results.iter().any(|r| r.params.procs == Some(failing) && r.status == MicroStatus::Budget), "{results:#?}");
    assert_eq!(search.budget_bytes, 64 << 20);
}

#[test]
fn a_failure_at_large_n_is_a_recorded_result_with_its_reason() {
    if tools::require(&tools::PYTHON3).is_none() {
        return;
    }
    let root = root(&[("limited", "FAKE_MODE = \"limited\", FAKE_LIMIT = \"500\"")]);
    let out = micro(&root, &["limited", "--bench", "spawn,maxprocs"]);
    assert_eq!(out.status.code(), Some(0));
    let (store, id) = latest(&root);
    let results = store.micro_results(id).unwrap();
    let failed: Vec<_> = results.iter().filter(|r| r.status == MicroStatus::Failed).collect();
    assert_eq!((failed[0].bench.as_str(), failed[0].params.procs, failed[0].exit_code), ("maxprocs", Some(1000), Some(1)));
    assert_eq!(failed[0].reason.as_deref(), Some("exit 1: fake: cannot create process 500+1: process limit reached"));
    // The limit of 500 lies between the steps 100 and 1000: bisection finds it
    // within 10%, and every N it tried is a stored result.
    let search = &store.micro_searches(id).unwrap()[0];
    let largest = search.largest_n.unwrap();
    let failing: u64 = search.detail.strip_prefix("N=").and_then(|d| d.split(':').next()).unwrap().parse().unwrap();
    assert!(largest <= 500 && failing > 500 && (failing - largest) * 10 <= failing, "{search:?}");
    assert_eq!(search.stop, SearchStop::Exit1);
    assert!(search.detail.contains("exit 1: fake: cannot create process 500+1"), "{}", search.detail);
    assert!(String::from_utf8_lossy(&out.stdout).contains(&format!("largest N {largest}, stopped by exit-1")));
    let tried = results.iter().filter(|r| r.bench == "maxprocs").count();
    assert!(tried <= 3 + concur::micro::search::NARROW_STEPS, "{tried} maxprocs steps");
    assert!(failed.iter().all(|r| r.params.procs.unwrap() > 500) && failed.len() >= 2, "{failed:#?}");
}

#[test]
fn a_lost_message_in_the_line_is_a_failure_not_a_number() {
    if tools::require(&tools::PYTHON3).is_none() {
        return;
    }
    let root = root(&[("lossy", "FAKE_MODE = \"lossy\"")]);
    let out = micro(&root, &["lossy", "--bench", "pingpong"]);
    assert_eq!(out.status.code(), Some(0));
    let (store, id) = latest(&root);
    let r = &store.micro_results(id).unwrap()[0];
    assert_eq!(r.status, MicroStatus::Failed);
    assert_eq!(r.reason.as_deref(), Some("exit 0, but checks.received 19 != checks.expected 20: messages were lost or duplicated"));
    assert!(r.ns_per_op.is_none() && r.line.as_deref().unwrap().contains("\"received\": 19"));
}

#[test]
fn a_missing_toolchain_is_skipped_with_one_line() {
    let root = root(&[("absent", "FAKE_MODE = \"ok\"")]);
    let manifest = root.path().join("impls/micro/absent/concur.toml");
    let text = std::fs::read_to_string(&manifest).unwrap().replace("commands = [\"python3\"]", "commands = [\"no-such-runtime-xyz\"]");
    std::fs::write(&manifest, text).unwrap();
    let out = micro(&root, &["--bench", "pingpong"]);
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("absent: skipped: no-such-runtime-xyz not on PATH"), "{stdout}");
}

#[test]
fn ctrl_c_stops_the_program_keeps_results_and_marks_the_run() {
    if tools::require(&tools::PYTHON3).is_none() {
        return;
    }
    let root = root(&[("good", "FAKE_MODE = \"ok\""), ("zslow", "FAKE_MODE = \"slow\", FAKE_SLEEP = \"60\"")]);
    let child = Command::new(env!("CARGO_BIN_EXE_concur"))
        .args(["micro", "good", "zslow", "--bench", "pingpong", "--profile", "test", "--root"])
        .arg(root.path())
        .arg("--results")
        .arg(db(&root))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !fake_running(root.path(), "zslow") {
        assert!(Instant::now() < deadline, "the slow fake never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    std::thread::sleep(Duration::from_millis(200));
    assert!(!fake_running(root.path(), "zslow"), "the program's group was not stopped");
    let (store, id) = latest(&root);
    let results = store.micro_results(id).unwrap();
    assert_eq!(results.iter().map(|r| r.implementation.as_str()).collect::<Vec<_>>(), ["good"]);
    assert_eq!(store.run(id).unwrap().status.as_str(), "interrupted");
}

/// Whether the fake program runs in `impls/micro/<name>` of `root`.
fn fake_running(root: &Path, name: &str) -> bool {
    let dir = root.join("impls/micro").join(name).canonicalize().unwrap();
    std::fs::read_dir("/proc").unwrap().filter_map(|e| e.ok()).any(|e| {
        let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
        std::fs::read_link(e.path().join("cwd")).is_ok_and(|cwd| cwd == dir) && String::from_utf8_lossy(&cmdline).contains("fake_micro.py")
    })
}
