//! `concur report` on a fixed database writes exactly the stored snapshots
//! (tests/snapshots/report.md and report.html). After an intended change,
//! regenerate them with `CONCUR_UPDATE_SNAPSHOTS=1 cargo test --test report_snapshot`
//! and review the diff.

use crate::results;

use std::path::Path;
use std::process::Command;

fn check(actual: &str, snapshot: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots").join(snapshot);
    if std::env::var_os("CONCUR_UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    if actual != expected {
        let line = actual.lines().zip(expected.lines()).position(|(a, e)| a != e).unwrap_or(actual.lines().count().min(expected.lines().count()));
        panic!(
            "{} differs from the report, first at line {}:\n  expected: {}\n  actual:   {}\n(CONCUR_UPDATE_SNAPSHOTS=1 regenerates it)",
            path.display(),
            line + 1,
            expected.lines().nth(line).unwrap_or("<end>"),
            actual.lines().nth(line).unwrap_or("<end>")
        );
    }
}

#[test]
fn the_report_of_a_fixed_database_matches_its_snapshots() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("concur.db");
    results::write_db(&db);
    // A quiet machine's calibration, so the ranks below are the repeats' as much as the floor's.
    results::write_calibration(&db, 0.01);
    let out = dir.path().join("report");
    let status = Command::new(env!("CARGO_BIN_EXE_concur")).args(["report", "--results"]).arg(&db).arg("-o").arg(&out).status().unwrap();
    assert!(status.success());
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    for needle in [
        "## Clients held",
        "The poll's wait was 2,000 ms instead of the spec's 5,000 ms",
        "| alpha | 16,000 |  | 40,000 | 17,600 | 6.0 [6.0–6.0] | 0.5% | 8.0 | 101.8 | found: found within 10%; failed at 17600 clients: 8800 of 17600 clients not answered within the wait plus the bound (2000 ms + 1000 ms) | 6 |",
    ] {
        assert!(md.contains(needle), "summary.md lacks {needle:?}:\n{md}");
    }
    check(&md, "report.md");
    check(&std::fs::read_to_string(out.join("index.html")).unwrap(), "report.html");
}

#[test]
fn the_report_judges_every_claim_of_the_sources() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("concur.db");
    results::write_db(&db);
    let out = dir.path().join("report");
    let status = Command::new(env!("CARGO_BIN_EXE_concur")).args(["report", "--results"]).arg(&db).arg("-o").arg(&out).status().unwrap();
    assert!(status.success());
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    let section = &md[md.find("## What the sources concluded, measured again").expect("the section")..];
    for needle in [
        "spec/findings.toml: 39 claims), tested on run 1 (quick) (the database holds no micro run)",
        "| wrk-rails-slowest | Results table and 'Rails, Sinatra and Roda' |",
        "not measured: run 1 has no hello point of ruby-rails, ruby-sinatra, ruby-rack, python-tornado, elixir, node-http, go-nethttp, java-jetty; `concur run --profile findings --impl ruby-rails,ruby-sinatra,ruby-rack,python-tornado,elixir,node-http,go-nethttp,java-jetty --scenario hello` would measure it",
        "| paper-pairs-go-flat-beyond-4-cores | section 4.3, Figure 5 | Go's pair throughput stops growing past 4 cores: on 32 cores it is about what it is on 4. |  | not testable here: needs 32 cores; this machine has 2 |",
        "`concur micro --profile findings --bench pairs go erlang scala-akka` would measure it",
    ] {
        assert!(section.contains(needle), "the section lacks {needle:?}:\n{section}");
    }
    for study in ["### The thesis", "### The SAC 2018 paper", "### The blog series, Node.js", "### The blog series, Go", "### The wrk repository"] {
        assert!(section.contains(study), "no paragraph on {study}");
    }
}

#[test]
fn the_report_says_what_a_reader_must_not_miss() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("concur.db");
    let id = results::write_db(&db);
    results::write_calibration(&db, 0.01);
    let store = concur::store::Store::open_existing(&db).unwrap();
    let data = store.load_run(id).unwrap();
    let floor = store.floor_for(&data.run.environment).unwrap();
    let md = concur::report::render_with(data, vec![], floor).markdown;
    let (glance, warnings, results) = (md.find("## At a glance"), md.find("**Warnings ("), md.find("## Results by scenario"));
    assert!(glance.is_some() && glance < warnings && warnings < results, "the ranking comes first, then the warnings, then the results");
    for needle in [
        "gamma was not measured (failed): `concur verify` failed 1 check(s)",
        "delta was not measured (unavailable): java not on PATH",
        "beta/hello/cores=2/c=50/r1: generator saturated: sharing the server's CPUs, the load generator took 35% of them and the server 60% (together 95%)",
        "beta/page/cores=2/c=100/r3: not measured: the server exited during the measurement",
        "| alpha | 10,200 ±1% ≈ | 20,200 ±<1% |",
        "| 50% | 66% | 75% | 80% | 90% | 95% | 98% | 99% | 100% |",
        "this machine's noise floor (req/s ±2.1% per measurement (a run's drift ±1.0%), p99 ±4.2% per measurement (a run's drift ±2.1%), calibrated by run 2 at 2025-03-01T09:00:00Z (36 measurements))",
        "latency in ms (avg/stdev/max)",
        "| alpha | Go | Yes | Yes | No | Yes | Yes |",
        "beta was measured with known deviations: pipelining: beta 1.0 closes the connection when a pipelined request arrives before the previous response is sent (beta/runtime#123)",
        "| verified, measured; known deviations: pipelining: beta 1.0 closes",
        "| implementation | 1 core | 2 cores |",
        "- hello (c=50) at 1 core: beta † and alpha are tied within the noise at 10,200–10,299 req/s: the rounds order none of them;",
        // beta's 10,300 at 2 cores is the generator's limit, a lower bound: never ordered below alpha's 20,200.
        "- hello (c=50) at 2 cores: alpha and beta † are tied within the noise at 10,299–20,200 req/s: the rounds order none of them;",
        "| beta † | 10,300 ±1% | 10,300 ±1% ≈ ⚠3 |",
        "| alpha | green-threads | 1–2 | 10,200 [10,121–10,279] | 3.96 | 1–2 | 20,200 [19,724–20,687] | 1.98 |",
        "**generator saturated in 3 points: beta 3**",
        "**2 implementations not measured: delta (unavailable), gamma (failed)**",
        "[How it works: impls/http/beta/README.md](../../impls/http/beta/README.md)",
        "| hello (c=50) | 2 cores | 1–2 of 2 | 10,299 [10,057–10,548] ⚠3 | 3.25 | 5.94 | 44.0 | 60% |",
        "†: measured with known deviations from the contract",
    ] {
        assert!(md.contains(needle), "summary.md lacks {needle:?}:\n{md}");
    }
}

#[test]
fn one_repeat_on_an_uncalibrated_machine_orders_only_what_the_default_floor_allows() {
    // The quick run: one repeat each, the leaders 1.1× apart, the last far below.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("concur.db");
    let id = results::write_db(&db);
    let store = concur::store::Store::open(&db).unwrap();
    let mut data = store.load_run(id).unwrap();
    data.points.retain(|p| p.repeat == 1 && p.scenario == "hello" && p.cores == 1);
    let mut slow = data.points[0].clone();
    (slow.implementation, slow.successes) = ("gamma".into(), slow.successes / 20);
    data.points.push(slow);
    let md = concur::report::render(data).markdown;
    assert!(md.contains("the default floor (this machine has no calibration: `concur calibrate` measures it)"), "{md}");
    let sentence = md.lines().find(|l| l.starts_with("- hello (c=50) at 1 core:")).unwrap();
    assert!(sentence.contains("could each be first, tied within the noise") && sentence.contains("gamma is last") && sentence.contains("at least"), "{sentence}");
    assert!(md.contains("]¹") || md.contains("]²"), "one repeat: its seconds and the floor, or the floor alone, marked: {md}");
}

#[test]
fn a_database_from_a_newer_concur_is_refused_with_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("concur.db");
    results::write_db(&db);
    rusqlite::Connection::open(&db).unwrap().pragma_update(None, "user_version", 999).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_concur")).args(["report", "--results"]).arg(&db).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("has schema version 999") && err.contains("Update concur"), "{err}");
}
