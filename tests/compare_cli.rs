//! `concur compare` on two fixed runs (tests/support/results.rs): the real
//! binary finds the 30% throughput regression planted in alpha's hello,
//! does not flag beta's reshuffled repeats, writes JSON of schema version 3,
//! decides "the same" once A/A pairs of the plan measured the variance
//! between runs, and refuses bad run ids, a run against itself and runs that
//! share no point with a sentence that says what to pass instead.

use crate::results;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn two_runs() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("concur.db");
    assert_eq!((results::write_db(&db), results::write_second_run(&db)), (1, 2));
    // A quiet machine's calibration: a run of its own, never a default.
    assert_eq!(results::write_calibration(&db, 0.03), 3);
    (dir, db)
}

fn compare(db: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_concur")).arg("compare").arg("--results").arg(db).args(args).output().unwrap()
}

fn stdout(out: &Output) -> String {
    assert!(out.status.success(), "concur compare failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn stderr_of_failure(out: Output) -> String {
    assert_eq!(out.status.code(), Some(2), "expected an error, got {}", String::from_utf8_lossy(&out.stdout));
    String::from_utf8(out.stderr).unwrap()
}

/// The req/s and p99 verdicts of a Markdown row starting with `prefix`.
fn verdicts(md: &str, prefix: &str) -> (String, String) {
    let row = md.lines().find(|l| l.starts_with(prefix)).unwrap_or_else(|| panic!("no row {prefix:?} in:\n{md}"));
    let cells: Vec<&str> = row.trim_matches('|').split(" | ").map(str::trim).collect();
    (cells[6].to_string(), cells[10].to_string())
}

#[test]
fn the_markdown_finds_the_regression_and_leaves_noise_alone() {
    let (_dir, db) = two_runs();
    let md = stdout(&compare(&db, &[]));
    assert!(md.starts_with("# Concur compare: run 1 (A) → run 2 (B)\n"), "{md}");
    assert!(md.contains("B is the latest run with points and A the one before it: the defaults"), "{md}");
    assert!(md.contains("| alpha | 1 | c=50 | 10,200 | 7,140 | -30.0% ["), "{md}");
    for cores in [1, 2] {
        assert_eq!(verdicts(&md, &format!("| alpha | {cores} | c=50 | ")).0, "slower");
        assert_eq!(verdicts(&md, &format!("| beta † | {cores} | c=50 | ")), ("cannot tell".into(), "cannot tell".into()), "+0.2% [-4.8%, +5.5%]: not within ±5%");
        assert_eq!(verdicts(&md, &format!("| alpha | {cores} | c=100 | ")).0, "the same", "identical repeats: [-4.4%, +4.6%]");
    }
    assert!(md.contains("- toolchain of alpha: alpha 1.0 (A), alpha 1.1 (B)"), "{md}");
    assert!(md.contains("Summary: req/s 0 faster, 2 slower, 4 the same, 2 cannot tell; p99 0 faster, 0 slower, 0 the same, 8 cannot tell."), "{md}");
    assert!(md.contains("The database holds no A/A pair of this plan"), "{md}");
    assert!(md.contains("calibrated by run 3 at 2025-03-01T09:00:00Z (36 measurements)") && md.contains("Student's t"), "{md}");
    assert!(!md.contains("no calibration"), "{md}");
    assert!(md.contains("- A: beta/page/cores=2/c=100 r3: the server exited during the measurement"), "{md}");
    assert!(md.contains("Only in B: 1 point(s): alpha/json/cores=1/c=50."), "{md}");
    assert!(md.contains("†: measured with known deviations"), "{md}");
}

#[test]
fn the_json_has_schema_version_3_and_the_same_verdicts() {
    let (dir, db) = two_runs();
    let file = dir.path().join("cmp.json");
    let printed = stdout(&compare(&db, &["1", "2", "--format", "json", "--output", file.to_str().unwrap()]));
    assert!(printed.contains("run 2 compared with run 1"), "{printed}");
    let json: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(json["schema_version"], 3);
    assert!(json["between_runs"].is_null(), "{}", json["between_runs"]);
    assert_eq!((json["floor"]["source"]["kind"].as_str(), json["floor"]["throughput"].as_f64()), (Some("calibrated"), Some(0.03)), "{}", json["floor"]);
    assert_eq!((json["a"]["id"].as_i64(), json["b"]["id"].as_i64(), json["a"]["by_default"].as_bool()), (Some(1), Some(2), Some(false)));
    let points = json["points"].as_array().unwrap();
    assert_eq!(points.len(), 8);
    for p in points {
        let regressed = p["implementation"] == "alpha" && p["scenario"] == "hello";
        let want = match (regressed, p["scenario"].as_str()) {
            (true, _) => "slower",
            (false, Some("page")) => "same",
            _ => "cannot_tell",
        };
        assert_eq!(p["throughput"]["verdict"], want, "{p}");
        assert_eq!(p["p99_ms"]["verdict"], "cannot_tell", "{p}");
        assert_eq!(p["known_deviations_b"], p["implementation"] == "beta");
        if regressed {
            let high = p["throughput"]["ratio_high"].as_f64().unwrap();
            assert!(high < 0.75 && p["throughput"]["a_values"].as_array().unwrap().len() == 3, "{p}");
        }
    }
    assert_eq!(json["summary"]["throughput"]["slower"], 2);
    assert_eq!(json["only_in_b"][0]["scenario"], "json");
    assert_eq!(json["failed"].as_array().unwrap().len(), 2, "the failed repeat of each run: {}", json["failed"]);
    assert!(json["differences"].as_array().unwrap().iter().any(|d| d["what"] == "toolchain" && d["subject"] == "alpha" && d["b"] == "alpha 1.1"));
}

/// Adds an A/A pair of run 1's plan: two runs of one clean commit, the second's every
/// throughput `factor` times the first's.
fn add_aa_pair(db: &Path, factor: f64) -> [i64; 2] {
    let store = concur::store::Store::open(db).unwrap();
    let base = store.load_run(1).unwrap();
    [1.0, factor].map(|f| {
        let mut info = base.run.clone();
        info.environment.git_commit = "a11a11a".into();
        let id = store.insert_run(&info).unwrap();
        for p in &base.points {
            let mut p = p.clone();
            p.successes = (p.successes as f64 * f).round() as u64;
            p.requests = p.successes;
            store.insert_point(id, &p).unwrap();
        }
        id
    })
}

#[test]
fn a_and_a_pairs_of_the_plan_take_the_floors_place_and_decide_the_same() {
    let (_dir, db) = two_runs();
    let pairs = [add_aa_pair(&db, 1.01), add_aa_pair(&db, 0.99)];
    let json: Value = serde_json::from_str(&stdout(&compare(&db, &["1", "2", "--format", "json"]))).unwrap();
    let aa = &json["between_runs"];
    assert_eq!(aa["pairs"], serde_json::json!(pairs), "{aa}");
    assert_eq!(aa["provisional"], true, "two pairs: {aa}");
    let hello = aa["groups"].as_array().unwrap().iter().find(|g| g["scenario"] == "hello" && g["metric"] == "throughput").unwrap();
    assert!((hello["sigma"].as_f64().unwrap() - 0.01).abs() < 0.001, "{hello}");
    let point = |json: &Value, imp: &str| json["points"].as_array().unwrap().iter().find(|p| p["implementation"] == imp && p["scenario"] == "hello" && p["cores"] == 1).unwrap().clone();
    let (alpha, beta) = (point(&json, "alpha"), point(&json, "beta"));
    assert_eq!((alpha["throughput"]["verdict"].as_str(), alpha["throughput"]["basis"].as_str(), alpha["throughput"]["provisional"].as_bool()), (Some("slower"), Some("between_runs"), Some(true)), "{alpha}");
    assert_eq!(beta["throughput"]["verdict"], "same", "beta's reshuffled repeats, within 1% of two runs' variance: {beta}");
    // A third pair settles it; the Markdown names the pairs and drops the mark.
    let third = add_aa_pair(&db, 1.0);
    let md = stdout(&compare(&db, &["1", "2"]));
    assert!(md.contains(&format!("here 3 pair(s): runs {} and {}, {} and {}, {} and {}", pairs[0][0], pairs[0][1], pairs[1][0], pairs[1][1], third[0], third[1])), "{md}");
    assert_eq!(verdicts(&md, "| beta † | 1 | c=50 | ").0, "the same");
    assert!(!md.contains("(provisional)"), "{md}");
    assert!(md.contains("an equivalence test"), "{md}");
}

#[test]
fn bad_run_ids_are_refused_with_the_fix() {
    let (_dir, db) = two_runs();
    let err = stderr_of_failure(compare(&db, &["1", "99"]));
    assert!(err.contains("has no run 99") && err.contains("concur report --list"), "{err}");
    let err = stderr_of_failure(compare(&db, &["2", "2"]));
    assert!(err.contains("run 2 is both RUN_A and RUN_B") && err.contains("`concur compare 1 2`"), "{err}");
    let err = stderr_of_failure(compare(&db, &["2"]));
    assert!(err.contains("run 2 is both RUN_A and RUN_B"), "{err}");
    let store = concur::store::Store::open(&db).unwrap();
    let mut empty = store.run(1).unwrap();
    empty.status = concur::store::RunStatus::Interrupted;
    let empty = store.insert_run(&empty).unwrap();
    let err = stderr_of_failure(compare(&db, &["1", &empty.to_string()]));
    assert!(err.contains(&format!("run {empty} of")) && err.contains("holds no points (status interrupted") && err.contains("`concur report --list`"), "{err}");
    assert!(stdout(&compare(&db, &[])).starts_with("# Concur compare: run 1 (A) → run 2 (B)"), "a run without points is not a default");
}

#[test]
fn runs_that_share_no_point_are_refused_in_one_line_naming_a_run_that_does() {
    let (_dir, db) = two_runs();
    let store = concur::store::Store::open(&db).unwrap();
    let mut other = store.load_run(2).unwrap();
    let id = store.insert_run(&other.run).unwrap();
    for p in other.points.iter_mut().filter(|p| p.implementation == "alpha" && p.scenario == "json") {
        store.insert_point(id, p).unwrap();
    }
    let err = stderr_of_failure(compare(&db, &["1", &id.to_string()]));
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains(&format!("runs 1 and {id} share no point")) && err.contains(&format!("`concur compare 2 {id}`")), "{err}");
}

#[test]
fn without_a_calibration_the_default_floor_is_used_and_said() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("concur.db");
    results::write_db(&db);
    results::write_second_run(&db);
    let md = stdout(&compare(&db, &[]));
    assert!(md.contains("## Before reading the verdicts\n\n- This machine has no calibration") && md.contains("`concur calibrate`"), "{md}");
    assert_eq!(verdicts(&md, "| alpha | 1 | c=50 | ").0, "cannot tell", "30% hides in the default floor across runs: {md}");
}

#[test]
fn one_run_is_not_enough() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("concur.db");
    results::write_db(&db);
    let err = stderr_of_failure(compare(&db, &[]));
    assert!(err.contains("no run with points before run 1") && err.contains("concur compare RUN_A RUN_B"), "{err}");
}
