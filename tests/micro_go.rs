//! `concur micro` against the real Go implementation (impls/micro/go):
//! the quick profile's pingpong and spawn, built, run pinned, validated and
//! stored, with a goroutine's memory near its anchor (≈ 2-3 KB). A missing
//! `go` fails the test (see `support/tools.rs`).

use crate::tools;

use concur::store::Store;
use concur::store::micro::MicroStatus;
use std::path::Path;
use std::process::Command;

#[test]
fn quick_pingpong_and_spawn_of_go_are_measured_and_stored() {
    if tools::require(&tools::GO).is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("concur.db");
    let out = Command::new(env!("CARGO_BIN_EXE_concur"))
        .args(["micro", "go", "--profile", "quick", "--bench", "pingpong,spawn", "--repeat", "1", "--root", env!("CARGO_MANIFEST_DIR"), "--results"])
        .arg(&db)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let store = Store::open_existing(Path::new(&db)).unwrap();
    let id = store.latest_micro_run_id().unwrap().unwrap();
    let results = store.micro_results(id).unwrap();
    let keys: Vec<&str> = results.iter().map(|r| r.key.as_str()).collect();
    assert_eq!(
        keys,
        [
            "go/spawn/procs=1/cores=2/1",
            "go/pingpong/reps=1000/cores=2/1",
            "go/pingpong/reps=10000/cores=2/1",
            "go/spawn/procs=10000/cores=2/1",
            "go/spawn/procs=100000/cores=2/1"
        ]
        .map(|k| k.replace("cores=2", &format!("cores={}", results[0].cores))),
        "{stdout}"
    );
    assert!(results.iter().all(|r| r.status == MicroStatus::Ok), "{results:#?}");
    let pong = &results[2];
    assert!(pong.ns_per_op.unwrap() > 10.0 && pong.ns_per_op.unwrap() < 1e6, "{pong:?}");
    let spawn = results.last().unwrap();
    let per = spawn.bytes_per_proc.unwrap();
    assert!((1000.0..10_000.0).contains(&per), "a goroutine should hold ≈ 2-3 KB, got {per} B: {spawn:?}");
    assert_eq!(store.run(id).unwrap().environment.toolchains.get("go").map(|v| v.starts_with("go version")), Some(true));
}

/// The supervised pairs (spec/MICRO.md §4.7) of the real Go implementation: every kill at the
/// quick profile's rates counted, replaced and validated (received + lost = sent, lost ≤ kills).
#[test]
fn quick_supervised_pairs_of_go_are_killed_restarted_and_counted() {
    if tools::require(&tools::GO).is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("concur.db");
    let out = Command::new(env!("CARGO_BIN_EXE_concur"))
        .args(["micro", "go", "--profile", "quick", "--bench", "supervised", "--root", env!("CARGO_MANIFEST_DIR"), "--results"])
        .arg(&db)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let store = Store::open_existing(Path::new(&db)).unwrap();
    let results = store.micro_results(store.latest_micro_run_id().unwrap().unwrap()).unwrap();
    let rates: Vec<Option<f64>> = results.iter().map(|r| r.params.kill_rate).collect();
    assert_eq!(rates, [Some(0.0), Some(1.0), Some(5.0), Some(20.0)], "{stdout}");
    assert!(results.iter().all(|r| r.status == MicroStatus::Ok && r.messages_per_s.is_some_and(|m| m > 0.0)), "{results:#?}");
    let sup: Vec<_> = results.iter().map(|r| r.supervision.expect("supervised figures")).collect();
    assert_eq!((sup[0].kills, sup[0].lost, sup[0].restart_p99_ns), (0, 0, 0), "no killer at 0%");
    // 20% of 512 processes a second for a second: about 102 kills, each replaced.
    assert!(sup[3].kills > 50 && sup[3].restart_p50_ns > 0 && sup[3].late_restarts <= sup[3].kills, "{:?}", sup[3]);
}
