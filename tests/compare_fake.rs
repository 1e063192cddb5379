//! `concur calibrate` and `concur compare` on real runs of the fake
//! implementation, a FIFO server of known service rate
//! (tests/support/fake_server.py --capacity K): the calibration's floor is
//! stored and then used; on it a rerun of the same server with three repeats
//! is never called faster or slower in req/s, and the same server at half the rate is
//! found slower in req/s with three repeats (with one, cannot tell: no
//! verdict comes from one repeat, spec/COMPARE.md), and never faster in p99.
//! With repeats an A/A verdict is false in up to 5% of comparisons by design
//! (a 95% interval): that rate is measured by bench/verdicts.sh, never
//! asserted here. So is
//! the A/A verdict on p99 at three repeats: a fake's p99 moves with the load
//! the tests running beside it put on this machine between two runs (30.2
//! against 27.5 ms once, each run steady within itself), a drift that a
//! calibration taken at another moment cannot bound. (Without a
//! calibration the default floor, a loaded machine's, hides a 2× change
//! across runs: tests/compare_cli.rs checks that path.)

use crate::fake_repo::{measuring, write_fake, write_profile};

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

/// The fast server's rate; the slow one serves half.
const K: u32 = 300;

const PROFILE: &str = "description = \"compare test\"\ncores = [1]\n[load]\nconnections = [8]\nwarmup = \"0s\"\nduration = \"2s\"\n";

fn ok(out: Output) -> String {
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "concur failed: {text}");
    text
}

/// One run of the fake at `rate` req/s, `repeats` repeats, into the repository's database.
fn run(root: &Path, rate: u32, repeats: u32) {
    write_fake(root, &format!("--capacity {rate}"));
    let out = Command::new(env!("CARGO_BIN_EXE_concur"))
        .args(["run", "--profile", "cmp", "--impl", "fake", "--scenario", "hello", "--no-verify", "--repeat", &repeats.to_string(), "--root"])
        .arg(root)
        .output()
        .unwrap();
    ok(out);
}

fn compare(root: &Path, a: u32, b: u32, repeats: u32) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_concur"))
        .args(["compare", &a.to_string(), &b.to_string(), "--repeats", &repeats.to_string(), "--format", "json", "--root"])
        .arg(root)
        .output()
        .unwrap();
    serde_json::from_str(&ok(out)).unwrap()
}

fn verdicts(c: &Value) -> (String, String) {
    let p = &c["points"][0];
    (p["throughput"]["verdict"].as_str().unwrap().to_string(), p["p99_ms"]["verdict"].as_str().unwrap().to_string())
}

#[test]
fn a_rerun_is_not_faster_and_a_server_twice_slower_is_found_slower() {
    let _alone = measuring();
    let dir = tempfile::tempdir().unwrap();
    write_fake(dir.path(), &format!("--capacity {K}"));
    write_profile(dir.path(), "cmp", PROFILE);
    let calibrate = "description = \"calibration test\"\nscenarios = [\"hello\"]\ncores = [1]\nrepeat = 5\n[load]\nconnections = [8]\nwarmup = \"0s\"\nduration = \"1s\"\n";
    write_profile(dir.path(), "calibrate", calibrate);
    let text = ok(Command::new(env!("CARGO_BIN_EXE_concur")).args(["calibrate", "--impl", "fake", "--root"]).arg(dir.path()).output().unwrap());
    assert!(text.contains("noise floor of this machine: req/s ±") && text.contains("calibrated by run 1") && text.contains("(5 measurements)"), "{text}");
    run(dir.path(), K, 3);
    run(dir.path(), K, 3);
    run(dir.path(), K / 2, 3);
    for repeats in [1, 3] {
        let rerun = compare(dir.path(), 2, 3, repeats);
        let (t, _) = verdicts(&rerun);
        if repeats == 3 {
            assert!(!["faster", "slower"].contains(&t.as_str()), "an identical rerun, {repeats} repeats: {rerun}");
        }
        assert_eq!((rerun["floor"]["source"]["kind"].as_str(), rerun["floor"]["source"]["run_id"].as_i64()), (Some("calibrated"), Some(1)), "{}", rerun["floor"]);
        // One repeat of even a sleeping server can lose a second to this machine's load: then its seconds cannot tell.
        let slower = compare(dir.path(), 3, 4, repeats);
        let expected: &[&str] = if repeats == 1 { &["slower", "cannot_tell"] } else { &["slower"] };
        assert!(expected.contains(&verdicts(&slower).0.as_str()), "half the rate, {repeats} repeat(s): {slower}");
        let ratio = slower["points"][0]["throughput"]["ratio"].as_f64().unwrap();
        assert!((0.4..0.7).contains(&ratio), "{slower}");
    }
    // p99 doubles too (8 requests queued at 1/K s each), but this shared machine's pauses move a fake's p99 by tens of percent.
    let slower = compare(dir.path(), 3, 4, 3);
    assert!(slower["points"][0]["p99_ms"]["ratio"].as_f64().unwrap() > 1.3 && verdicts(&slower).1 != "faster", "p99 of half the rate: {slower}");
    let once = compare(dir.path(), 3, 4, 1);
    assert_eq!((once["points"][0]["throughput"]["basis"].as_str(), once["points"][0]["p99_ms"]["basis"].as_str()), (Some("timeline"), Some("floor_only")), "{once}");
    assert_eq!(verdicts(&once), ("cannot_tell".to_string(), "cannot_tell".to_string()), "no verdict from one repeat: {once}");
    let report = Command::new(env!("CARGO_BIN_EXE_concur")).args(["report", "--root"]).arg(dir.path()).output().unwrap();
    assert!(ok(report).contains("report of run 4"), "the calibration's run is never the report's default");
    let summary = std::fs::read_to_string(dir.path().join("results/report/summary.md")).unwrap();
    assert!(summary.contains("calibrated by run 1"), "{summary}");
}
