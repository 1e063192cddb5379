//! `concur faults` against the fake server, scripted to fail in known ways:
//! a pause of a known length after the panic is measured as that outage, a
//! process that exits is started again by concur, and a server that never
//! serves again is said not to have recovered, its figures kept.

use crate::{fake_repo, tools};
use concur::faults::{self, Fault, ImplFaults, Settings};
use std::time::Duration;

fn settings() -> Settings {
    Settings { rate: 200.0, before: Duration::from_millis(400), after: Duration::from_millis(2000), spin_ms: 300, ..Settings::default() }
}

fn measure(args: &str, faults: &[Fault]) -> Option<ImplFaults> {
    tools::require(&tools::PYTHON3)?;
    let root = tempfile::tempdir().unwrap();
    fake_repo::write_fake(root.path(), args);
    let imp = concur::impls::discover(root.path()).unwrap().into_iter().find(|i| i.name() == "fake").unwrap();
    let _alone = fake_repo::measuring();
    Some(faults::measure(&imp, root.path(), 1, faults, &settings(), root.path().join("server.log")).unwrap())
}

#[test]
fn a_pause_after_the_panic_is_measured_as_its_outage_with_every_lost_request() {
    let Some(r) = measure("--panic-pause 700", &[Fault::Panic]) else { return };
    assert!(r.start_up.ready_ms > 0.0 && r.start_up.rss_bytes > 1 << 20, "{:?}", r.start_up);
    let t = &r.trials[0];
    let outage = t.outage_ms.expect("the fake serves again after 700 ms");
    assert!((600.0..1000.0).contains(&outage), "an outage of 700 ms measured as {outage} ms: {t:?}");
    // 200 requests a second for 0.7 s: about 140 lost, each counted.
    assert!((70..=280).contains(&t.load_errors), "{t:?}");
    assert_eq!(t.faulting_client, "connection closed without an answer", "{t:?}");
    assert_eq!(t.restarted_by, None, "{t:?}");
}

#[test]
fn a_process_that_exits_is_started_again_by_concur_and_a_spin_of_threads_stalls_nobody() {
    let Some(r) = measure("--panic-exits", &[Fault::Panic, Fault::Spin { ms: 300 }, Fault::Kill]) else { return };
    let [panic, spin, kill] = &r.trials[..] else { panic!("{r:?}") };
    assert_eq!(panic.restarted_by.as_deref(), Some("concur (as a process supervisor)"), "{panic:?}");
    assert!(panic.outage_ms.is_some_and(|ms| ms > 0.0 && ms < 2000.0), "{panic:?}");
    assert!(panic.load_errors > 0, "{panic:?}");
    // A thread per connection: the spin holds its own thread, the others are served (the GIL lets them run).
    assert_eq!(spin.faulting_client, "200", "{spin:?}");
    assert!(spin.faulting_ms.is_some_and(|ms| ms >= 300.0), "{spin:?}");
    assert_eq!(spin.outage_ms, Some(0.0), "{spin:?}");
    assert_eq!(kill.faulting_client, "the only process", "{kill:?}");
    assert_eq!(kill.restarted_by.as_deref(), Some("concur (as a process supervisor)"), "{kill:?}");
}

#[test]
fn a_server_that_never_serves_again_is_said_so_and_the_next_fault_still_measured() {
    let Some(r) = measure("--panic-pause 60000", &[Fault::Panic, Fault::Spin { ms: 300 }]) else { return };
    assert_eq!(r.trials[0].outage_ms, None, "{:?}", r.trials[0]);
    // Started afresh for the spin.
    assert_eq!(r.trials[1].faulting_client, "200", "{:?}", r.trials[1]);
}

#[test]
fn concur_faults_stores_every_trial_in_the_database_and_the_report_shows_them() {
    if tools::require(&tools::PYTHON3).is_none() {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    fake_repo::write_fake(root.path(), "--panic-exits");
    let db = root.path().join("results/concur.db");
    std::fs::create_dir_all(db.parent().unwrap()).unwrap();
    crate::results::write_db(&db);
    let _alone = fake_repo::measuring();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_concur"))
        .args(["faults", "fake", "--cores", "1", "--rate", "100", "--before", "300ms", "--after", "1500ms", "--spin-ms", "200", "--db"])
        .arg(&db)
        .arg("--root")
        .arg(root.path())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{said}{}", String::from_utf8_lossy(&out.stderr));
    assert!(said.contains(" finished: 1 implementation(s) × core count(s) in "), "{said}");
    let store = concur::store::Store::open(&db).unwrap();
    let id = store.latest_faults_run_id().unwrap().expect("a faults run");
    let stored = store.faults(id).unwrap();
    let [fake] = &stored[..] else { panic!("{stored:?}") };
    let kinds: Vec<&str> = fake.trials.iter().map(|t| t.fault.as_str()).collect();
    assert_eq!((fake.name.as_str(), fake.cores, kinds), ("fake", 1, vec!["panic", "spin 200 ms", "kill -9"]));
    assert_eq!(fake.trials[0].restarted_by.as_deref(), Some("concur (as a process supervisor)"), "{:?}", fake.trials[0]);
    assert_eq!(store.load_run(id).unwrap().run.profile, "faults");
    // The report of the points' run shows the newest faults run beside it.
    let elsewhere = tempfile::tempdir().unwrap();
    let report = std::process::Command::new(env!("CARGO_BIN_EXE_concur"))
        .args(["report", "--run", "1", "--db"])
        .arg(&db)
        .arg("-o")
        .arg(elsewhere.path().join("report"))
        .current_dir(elsewhere.path())
        .output()
        .unwrap();
    assert!(report.status.success(), "{}", String::from_utf8_lossy(&report.stderr));
    let md = std::fs::read_to_string(elsewhere.path().join("report/summary.md")).unwrap();
    assert!(md.contains(&format!("## When things go wrong (faults run {id}, ")), "{md}");
    assert_eq!(md.matches("| fake | 1 | ").count(), 4, "a start-up and three faults: {md}");
    assert!(md.contains("| concur (as a process supervisor) |"), "{md}");
    let html = std::fs::read_to_string(elsewhere.path().join("report/index.html")).unwrap();
    assert!(html.contains("When things go wrong"), "the section is in index.html and its contents");
}
