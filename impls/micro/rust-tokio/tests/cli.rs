//! End-to-end tests of the real binary, as concur micro runs it: the JSON
//! line of every benchmark, the exit code of a lost message (spec §3.3) and
//! of bad arguments.

use serde_json::Value;
use std::process::Command;

const SMALL: &[(&str, &[&str])] = &[
    ("pingping", &["--size", "100", "--reps", "500"]),
    ("pingpong", &["--reps", "500"]),
    ("spawn", &["--procs", "300"]),
    ("maxprocs", &["--procs", "300"]),
    ("pairs", &["--pairs", "3", "--seconds", "0.1"]),
    ("idle", &["--procs", "300", "--sleep-ms", "20"]),
    ("supervised", &["--pairs", "3", "--seconds", "0.1"]),
];

struct Outcome {
    stdout: String,
    stderr: String,
    code: i32,
}

fn micro(args: &[&str]) -> Outcome {
    let out = Command::new(env!("CARGO_BIN_EXE_micro"))
        .args(args)
        .env_remove("CONCUR_CORES")
        .output()
        .expect("the micro binary runs");
    Outcome {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    }
}

fn params_of(bench: &str) -> &'static [&'static str] {
    match bench {
        "pingping" => &["size", "reps", "cores"],
        "pingpong" => &["reps", "cores"],
        "spawn" | "maxprocs" => &["procs", "cores"],
        "pairs" => &["pairs", "seconds", "cores"],
        "supervised" => &["pairs", "seconds", "kill_rate", "cores"],
        _ => &["procs", "sleep_ms", "cores"],
    }
}

fn extras_of(bench: &str) -> &'static [&'static str] {
    match bench {
        "spawn" | "maxprocs" => &["procs", "ns_per_proc"],
        "pairs" => &[
            "round_trips",
            "messages",
            "messages_per_s",
            "min_pair_round_trips",
        ],
        "idle" => &["tasks", "sleep_ns"],
        "supervised" => &[
            "round_trips",
            "messages",
            "messages_per_s",
            "kills",
            "lost",
            "restart_p50_ns",
            "restart_p99_ns",
            "late_restarts",
        ],
        _ => &[],
    }
}

#[test]
fn every_bench_prints_one_valid_json_line() {
    for (bench, args) in SMALL {
        let mut all = vec![*bench, "--cores", "1"];
        all.extend_from_slice(args);
        let out = micro(&all);
        assert_eq!(out.code, 0, "{bench}: {}", out.stderr);
        assert_eq!(out.stdout.lines().count(), 1, "{bench}: {:?}", out.stdout);
        let r: Value = serde_json::from_str(&out.stdout).expect("a JSON line");
        assert_eq!(r["schema"], 1);
        assert_eq!(r["bench"], *bench);
        assert_eq!(r["runtime"], "rust-tokio");
        assert_eq!(r["params"]["cores"], 1);
        let params = r["params"].as_object().unwrap();
        assert_eq!(params.len(), params_of(bench).len(), "{bench}: {params:?}");
        for p in params_of(bench) {
            assert!(params.contains_key(*p), "{bench}: params.{p} missing");
        }
        for f in extras_of(bench)
            .iter()
            .chain(&["ops", "elapsed_ns", "ns_per_op"])
        {
            assert!(r.get(*f).is_some(), "{bench}: {f} missing in {r}");
        }
        assert!(r["ops"].as_u64().unwrap() > 0);
        assert_eq!(r["checks"]["received"], r["checks"]["expected"]);
    }
}

fn number(r: &Value, field: &str) -> u64 {
    r[field]
        .as_u64()
        .unwrap_or_else(|| panic!("{field} in {r}"))
}

/// What concur checks of a supervised line (spec §4.7, §7).
fn supervised_line(args: &[&str]) -> Value {
    let out = micro(args);
    assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
    let r: Value = serde_json::from_str(&out.stdout).expect("a JSON line");
    let (received, expected) = (
        number(&r["checks"], "received"),
        number(&r["checks"], "expected"),
    );
    let (kills, lost) = (number(&r, "kills"), number(&r, "lost"));
    assert_eq!(received + lost, expected, "{r}");
    assert!(lost <= kills, "{r}");
    // An integer, so >= 0; at most one per kill.
    assert!(number(&r, "late_restarts") <= kills, "{r}");
    assert_eq!(r["ops"], r["round_trips"]);
    assert_eq!(r["messages"], r["checks"]["received"]);
    let elapsed = number(&r, "elapsed_ns") as f64;
    let rate = r["messages_per_s"].as_f64().unwrap();
    let want = received as f64 / (elapsed / 1e9);
    assert!((rate - want).abs() <= 1e-6 * want.max(1.0), "{r}");
    let per_op = r["ns_per_op"].as_f64().unwrap();
    assert!(
        (per_op - elapsed / number(&r, "ops") as f64).abs() <= 1e-6 * per_op,
        "{r}"
    );
    r
}

#[test]
fn supervised_under_kills_restarts_every_killed_pair() {
    let r = supervised_line(&[
        "supervised",
        "--pairs",
        "16",
        "--seconds",
        "0.5",
        "--kill-rate",
        "100",
        "--cores",
        "2",
    ]);
    assert_eq!(r["params"]["kill_rate"].as_f64(), Some(100.0));
    // 16 kills due (100 % of 32 a second for 0.5 s), each replaced.
    let kills = number(&r, "kills");
    assert!(kills > 0, "{r}");
    let late = number(&r, "late_restarts");
    assert!((0..=kills).contains(&late), "{r}");
    assert!(number(&r, "restart_p50_ns") > 0, "{r}");
    assert!(
        number(&r, "restart_p99_ns") >= number(&r, "restart_p50_ns"),
        "{r}"
    );
    assert!(number(&r, "round_trips") > 0, "{r}");
}

#[test]
fn supervised_without_kills_loses_nothing() {
    let r = supervised_line(&[
        "supervised",
        "--pairs",
        "8",
        "--seconds",
        "0.2",
        "--kill-rate",
        "0",
    ]);
    for field in [
        "kills",
        "lost",
        "restart_p50_ns",
        "restart_p99_ns",
        "late_restarts",
    ] {
        assert_eq!(r[field], 0, "{field} in {r}");
    }
    assert!(number(&r, "round_trips") > 0, "{r}");
}

#[test]
fn pingping_counts_match_the_parameters() {
    let out = micro(&["pingping", "--size", "64", "--reps", "1234"]);
    let r: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(r["ops"], 1234);
    assert_eq!(r["checks"]["expected"], 2468);
    assert_eq!(r["checks"]["received"], 2468);
}

#[test]
fn a_lost_message_fails_verification() {
    let runs: Vec<_> = SMALL
        .iter()
        .map(|(bench, args)| {
            let mut all = vec![*bench, "--drop-one", "--timeout", "3"];
            all.extend_from_slice(args);
            (bench, std::thread::spawn(move || micro(&all)))
        })
        .collect();
    for (bench, run) in runs {
        let out = run.join().unwrap();
        assert_eq!(out.code, 1, "{bench}: stderr {:?}", out.stderr);
        assert_eq!(out.stdout, "", "{bench}");
        assert!(
            out.stderr.starts_with("micro: "),
            "{bench}: {:?}",
            out.stderr
        );
    }
}

#[test]
fn bad_arguments_exit_with_2() {
    let cases: &[&[&str]] = &[
        &[],
        &["pingpang"],
        &["pingping", "--reps", "10k"],
        &["pingping", "--reps", "0"],
        &["pairs", "--seconds", "-1"],
        &["spawn", "--procs"],
        &["spawn", "--frobs", "1"],
        &["spawn", "--procs", "1", "--procs", "2"],
        &["supervised", "--kill-rate", "-1"],
        &["supervised", "--kill-rate", "1000.5"],
        &["supervised", "--kill-rate", "5%"],
        &["supervised", "--kill-rate", "NaN"],
        &["supervised", "--kill-rate"],
    ];
    for args in cases {
        let out = micro(args);
        assert_eq!(out.code, 2, "{args:?}: {:?}", out.stderr);
        assert_eq!(out.stdout, "", "{args:?}");
        // One line naming the argument (spec §2).
        assert_eq!(out.stderr.lines().count(), 1, "{args:?}: {:?}", out.stderr);
        if args.contains(&"--kill-rate") {
            assert!(
                out.stderr.contains("--kill-rate"),
                "{args:?}: {:?}",
                out.stderr
            );
        }
    }
    let out = micro(&["supervised", "--kill-rate", "abc"]);
    assert!(
        out.stderr.contains("(e.g. --kill-rate 5)"),
        "{:?}",
        out.stderr
    );
}
