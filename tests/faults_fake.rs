//! `concur faults` against the fake server, scripted to fail in known ways:
//! a pause of a known length after the panic is measured as that outage and
//! as the load's recovery (to the second), a process that exits is started
//! again by concur, and a server that never serves again is said not to
//! have recovered, its figures kept.

use crate::{fake_repo, tools};
use concur::faults::{self, Fault, ImplFaults, Settings};
use std::time::Duration;

fn settings() -> Settings {
    // The fault at a whole second of the load's clock, two whole seconds after it; short warm-ups.
    Settings {
        rate: Some(200.0),
        warmup_for: Duration::from_secs(1),
        capacity_for: Duration::from_secs(1),
        before: Duration::from_secs(1),
        after: Duration::from_secs(2),
        spin_ms: 300,
        capacity_windows: 1,
        ..Settings::default()
    }
}

fn measure(args: &str, faults: &[Fault]) -> Option<ImplFaults> {
    measure_with(args, faults, &settings())
}

fn measure_with(args: &str, faults: &[Fault], settings: &Settings) -> Option<ImplFaults> {
    tools::require(&tools::PYTHON3)?;
    let root = tempfile::tempdir().unwrap();
    fake_repo::write_fake(root.path(), args);
    let imp = concur::impls::discover(root.path()).unwrap().into_iter().find(|i| i.name() == "fake").unwrap();
    let _alone = fake_repo::measuring();
    Some(faults::measure(&imp, root.path(), 1, faults, settings, None, root.path().join("server.log")).unwrap())
}

#[test]
fn a_pause_after_the_panic_is_measured_as_its_outage_with_every_lost_request() {
    // Three whole seconds after the fault: the first after the pause holds the load's reconnects,
    // and on a machine busy with other tests its p99 can pass twice the baseline's (CI, 2026-11-30:
    // not back within two).
    let Some(r) = measure_with("--panic-pause 700", &[Fault::Panic], &Settings { after: Duration::from_secs(3), ..settings() }) else { return };
    assert!(r.start_up.ready_ms > 0.0 && r.start_up.rss_bytes > 1 << 20, "{:?}", r.start_up);
    // The first second at 200 a second, the capacity before and after, the fixed rate beside the faults.
    assert!(r.load.warmup.first().is_some_and(|s| s.requests > 150 && s.p99_us.is_some()), "{:?}", r.load);
    assert!(r.load.capacity_before > 200.0 && r.load.capacity_after.is_some_and(|c| c > 200.0) && r.load.rate == 200.0, "{:?}", r.load);
    let [baseline, t] = &r.trials[..] else { panic!("{r:?}") };
    assert_eq!((baseline.fault.as_str(), baseline.load.errors, baseline.load.recovery_ms), (faults::BASELINE, 0, None), "{baseline:?}");
    let outage = t.outage_ms.expect("the fake serves again after 700 ms");
    assert!((600.0..1000.0).contains(&outage), "an outage of 700 ms measured as {outage} ms: {t:?}");
    // The load is back in the first whole second after the pause (the gap, to the second), or the next.
    let back = t.load.recovery_ms.unwrap_or_else(|| panic!("the load is back before the end: {:?}", t.load.timeline));
    assert!((700.0..=2700.0).contains(&back), "a pause of 700 ms, the load back after {back} ms: {:?}", t.load.timeline);
    // 200 requests a second for 0.7 s: about 140 lost, each counted, in the seconds they failed in.
    assert!((70..=280).contains(&t.load.errors), "{t:?}");
    assert_eq!(t.load.timeline.iter().map(|s| s.errors).sum::<u64>(), t.load.errors, "{:?}", t.load.timeline);
    assert_eq!(t.faulting_client, "connection closed without an answer", "{t:?}");
    assert_eq!(t.restarted_by, None, "{t:?}");
}

#[test]
fn a_process_that_exits_is_started_again_by_concur_and_a_spin_of_threads_stalls_nobody() {
    let Some(r) = measure("--panic-exits", &[Fault::Panic, Fault::Spin { ms: 300 }, Fault::Kill]) else { return };
    let [_, panic, spin, kill] = &r.trials[..] else { panic!("{r:?}") };
    assert_eq!(panic.restarted_by.as_deref(), Some("concur (as a process supervisor)"), "{panic:?}");
    assert!(panic.outage_ms.is_some_and(|ms| ms > 0.0 && ms < 2000.0), "{panic:?}");
    assert!(panic.load.errors > 0, "{panic:?}");
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
    let [_, panic, spin] = &r.trials[..] else { panic!("{r:?}") };
    assert_eq!((panic.outage_ms, panic.load.recovery_ms), (None, None), "{panic:?}");
    // Started afresh for the spin.
    assert_eq!(spin.faulting_client, "200", "{spin:?}");
}

#[test]
fn concur_faults_stores_every_trial_in_the_database_and_the_report_shows_them() {
    if tools::require(&tools::PYTHON3).is_none() || !crate::database::installed() {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    fake_repo::write_fake(root.path(), "--panic-exits");
    let db = root.path().join("results/concur.db");
    std::fs::create_dir_all(db.parent().unwrap()).unwrap();
    // The GET /db bystanders' PostgreSQL copies the template the other database tests made, as
    // it would the repository's results/postgres.
    crate::database::shared();
    std::os::unix::fs::symlink(crate::database::template(), root.path().join("results/postgres")).unwrap();
    crate::results::write_db(&db);
    let _alone = fake_repo::measuring();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_concur"))
        .args(["faults", "fake", "--cores", "1", "--share", "0.1", "--before", "1s", "--after", "1s", "--spin-ms", "200", "--results"])
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
    assert_eq!((fake.name.as_str(), fake.cores, kinds), ("fake", 1, vec![faults::BASELINE, "panic", "spin 200 ms", "kill -9"]));
    // The load beside them a tenth of the capacity measured first.
    assert!((fake.load.rate - 0.1 * fake.load.capacity_before).abs() < 1e-6 && fake.load.rate > 0.0, "{:?}", fake.load);
    assert_eq!(fake.trials[1].restarted_by.as_deref(), Some("concur (as a process supervisor)"), "{:?}", fake.trials[0]);
    assert_eq!(store.load_run(id).unwrap().run.profile, "faults");
    // GET /db beside the baseline, the panic and the kill, not the spin; the fake answers it only
    // when given the database, so a load back after the panic's restart shows concur gave the new
    // process the database too.
    assert!(said.contains("== database: PostgreSQL on 127.0.0.1:"), "{said}");
    let db_rate = fake.load.db_rate.expect("a GET /db load");
    assert!(fake.load.db_capacity.is_some_and(|c| c > 0.0 && (db_rate - 0.05 * c).abs() < 1e-6), "{:?}", fake.load);
    let ran: Vec<bool> = fake.trials.iter().map(|t| t.db.is_some()).collect();
    assert_eq!(ran, [true, true, false, true], "{:?}", fake.trials);
    for t in [&fake.trials[1], &fake.trials[3]] {
        // The fault at the start of the second second: what that second answered, the process
        // concur started again answered (a quarter of the rate at least: it is back in 0.2 s).
        let d = t.db.as_ref().unwrap();
        let [before, after] = &d.timeline[..] else { panic!("two seconds of GET /db beside the {}: {d:?}", t.fault) };
        assert!((999.0..1100.0).contains(&d.fault_at_ms) && before.errors == 0 && after.requests as f64 > 0.25 * db_rate, "the GET /db load beside the {}: {d:?}", t.fault);
        assert_eq!(before.errors + after.errors, d.errors, "every failure in its second: {d:?}");
    }
    // The report of the points' run shows the newest faults run beside it.
    let elsewhere = tempfile::tempdir().unwrap();
    let report = std::process::Command::new(env!("CARGO_BIN_EXE_concur"))
        .args(["report", "--run", "1", "--results"])
        .arg(&db)
        .arg("-o")
        .arg(elsewhere.path().join("report"))
        .current_dir(elsewhere.path())
        .output()
        .unwrap();
    assert!(report.status.success(), "{}", String::from_utf8_lossy(&report.stderr));
    let md = std::fs::read_to_string(elsewhere.path().join("report/summary.md")).unwrap();
    assert!(md.contains(&format!("## When things go wrong (faults run {id}, ")), "{md}");
    assert_eq!(md.matches("| fake | 1 | ").count(), 6, "a start-up, three faults and the GET /db bystanders of two: {md}");
    assert!(md.contains("kill -9: the GET /db bystanders beside it"), "{md}");
    assert!(md.contains("| concur (as a process supervisor) |"), "{md}");
    assert!(md.contains("10% of that capacity") && md.contains("Back after (ms)"), "{md}");
    let html = std::fs::read_to_string(elsewhere.path().join("report/index.html")).unwrap();
    assert!(html.contains("When things go wrong"), "the section is in index.html and its contents");
}

#[test]
fn the_quick_profile_measures_its_short_form_and_says_what_it_left_out() {
    if tools::require(&tools::PYTHON3).is_none() {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    fake_repo::write_fake(root.path(), "");
    let db = root.path().join("results/concur.db");
    let _alone = fake_repo::measuring();
    // The profile's faults and lengths, one of them overridden by a flag.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_concur"))
        .args(["faults", "fake", "--profile", "quick", "--after", "1s", "--results"])
        .arg(&db)
        .arg("--root")
        .arg(root.path())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{said}{}", String::from_utf8_lossy(&out.stderr));
    assert!(said.contains("not measured (this profile does not ask) after"), "{said}");
    let store = concur::store::Store::open(&db).unwrap();
    let id = store.latest_faults_run_id().unwrap().expect("a faults run");
    let run = store.load_run(id).unwrap().run;
    assert_eq!((run.profile.as_str(), run.plan["after_s"].as_f64(), run.plan["capacity_after"].as_bool()), ("faults:quick", Some(1.0), Some(false)));
    let stored = store.faults(id).unwrap();
    let [fake] = &stored[..] else { panic!("{stored:?}") };
    let kinds: Vec<&str> = fake.trials.iter().map(|t| t.fault.as_str()).collect();
    assert_eq!((fake.cores, kinds, fake.load.capacity_after, fake.load.warmup.len()), (1, vec![faults::BASELINE, "spin 500 ms"], None, 0));
    // A fault that does not exist is named, with the ones that do.
    let bad = std::process::Command::new(env!("CARGO_BIN_EXE_concur")).args(["faults", "fake", "--faults", "spin,crash", "--root"]).arg(root.path()).output().unwrap();
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(!bad.status.success() && err.contains("--faults 'crash' is not a fault; choose from panic, spin, kill"), "{err}");
    let missing = std::process::Command::new(env!("CARGO_BIN_EXE_concur")).args(["faults", "--profile", "paper", "--root"]).arg(root.path()).output().unwrap();
    let err = String::from_utf8_lossy(&missing.stderr);
    assert!(err.contains("--profile paper: there is no spec/profiles/faults/paper.toml; known faults profiles: full, quick"), "{err}");
}
