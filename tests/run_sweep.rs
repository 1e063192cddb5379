//! End-to-end tests of `concur run` against a fake implementation (a small
//! keep-alive Python server in a throw-away repository): every point lands
//! in the database as it is taken; Ctrl-C and SIGKILL keep the finished
//! points and leave no server behind; `--resume` takes only the missing
//! points; an implementation that cannot be verified is recorded as failed,
//! not measured; one whose only failures its manifest declares is measured,
//! and its known failures are stored and reported.

use crate::tools;

use concur::store::{ImplStatus, RunStatus, Store};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output};
use std::time::{Duration, Instant};

/// The fake server (`server.py PORT [--stall] MARKER`): with `--stall` only
/// `GET /` answers; every other request waits a minute.
const SERVER_PY: &str = include_str!("support/fake_server.py");

struct Fake {
    root: tempfile::TempDir,
    /// An argument only this test's servers carry, to find them in /proc.
    marker: String,
}

impl Fake {
    fn new(start: &str) -> Fake {
        let root = tempfile::tempdir().unwrap();
        let marker = format!("concur-test-{}", root.path().file_name().unwrap().to_string_lossy());
        let dir = root.path().join("impls/http/fake");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::create_dir_all(root.path().join("spec/static")).unwrap();
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
        std::fs::create_dir_all(root.path().join("spec/profiles")).unwrap();
        // Points only: the capacity search has its own tests (run_capacity.rs); one window per
        // server start unless a test asks for blocks (`--blocks`).
        let quick = std::fs::read_to_string(repo.join("spec/profiles/quick.toml")).unwrap();
        let points = quick.split("\n[capacity]").next().unwrap().lines().filter(|l| !l.starts_with("blocks =")).collect::<Vec<_>>().join("\n");
        std::fs::write(root.path().join("spec/profiles/quick.toml"), points).unwrap();
        std::fs::write(dir.join("server.py"), SERVER_PY).unwrap();
        let manifest = format!(
            "name = \"fake\"\nlanguage = \"Python\"\nruntime = \"CPython\"\nversion = \"python3 --version\"\nframework = \"http.server\"\nmodel = \"os-threads\"\n\
             [requires]\ncommands = [\"python3\"]\n[start]\ncommand = \"{}\"\n",
            start.replace("MARKER", &marker)
        );
        std::fs::write(dir.join("concur.toml"), manifest).unwrap();
        Fake { root, marker }
    }

    /// Appends `[known_failures]` with these lines to the manifest.
    fn declare(&self, known: &str) {
        let path = self.root.path().join("impls/http/fake/concur.toml");
        let manifest = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, format!("{manifest}[known_failures]\n{known}")).unwrap();
    }

    fn db(&self) -> PathBuf {
        self.root.path().join("results/concur.db")
    }

    fn run(&self, extra: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_concur"));
        cmd.args(["run", "--impl", "fake", "--scenario", "hello", "--cores", "1", "-c", "4", "--warmup", "0", "--root"]).arg(self.root.path()).args(extra);
        cmd
    }

    /// Starts `concur run` in the background, its output kept in a log
    /// that a failed wait prints.
    fn spawn(&self, extra: &[&str]) -> Child {
        let log = std::fs::File::create(self.log()).unwrap();
        self.run(extra).stdout(log.try_clone().unwrap()).stderr(log).spawn().unwrap()
    }

    fn log(&self) -> PathBuf {
        self.root.path().join("run.log")
    }

    /// Starts `concur ARGS --root <repo>` in the background, its output kept in the log.
    fn spawn_command(&self, args: &[&str]) -> Child {
        let log = std::fs::File::create(self.log()).unwrap();
        Command::new(env!("CARGO_BIN_EXE_concur")).args(args).arg("--root").arg(self.root.path()).stdout(log.try_clone().unwrap()).stderr(log).spawn().unwrap()
    }

    fn servers(&self) -> usize {
        std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
            .filter(|c| String::from_utf8_lossy(c).split('\0').any(|a| a == self.marker))
            .count()
    }

    /// Whether a server of this test was seen before `deadline` (the
    /// sighting itself, not a second look that a point's restart can race).
    fn wait_server(&self, deadline: Instant) -> bool {
        while self.servers() == 0 {
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        true
    }

    /// Each of this test's servers still alive, as `ps` would show it (pid,
    /// parent, group, state, run mark, command line), for a failure message.
    fn describe_servers(&self) -> String {
        let mut out = String::new();
        for e in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(cmdline) = std::fs::read(e.path().join("cmdline")) else { continue };
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            if !cmdline.split(' ').any(|a| a == self.marker) {
                continue;
            }
            let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
            let rest: Vec<&str> = stat.rsplit_once(") ").map_or("", |(_, rest)| rest).split(' ').collect();
            let fields = &rest[..3.min(rest.len())];
            // utime, stime and starttime (fields 14, 15 and 22 of stat), in clock ticks.
            let ticks = |i: usize| rest.get(i - 3).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0) / 100.0;
            let uptime: f64 = std::fs::read_to_string("/proc/uptime").unwrap_or_default().split(' ').next().and_then(|v| v.parse().ok()).unwrap_or(0.0);
            let environ = std::fs::read(e.path().join("environ")).unwrap_or_default();
            let mark = String::from_utf8_lossy(&environ).split('\0').find(|v| v.starts_with("CONCUR_RUN_OWNER=")).map(str::to_string);
            out += &format!(
                "pid {} state/ppid/pgrp {:?} forked {:.1} s ago, cpu {:.2} s, mark {:?}: {}\n",
                e.file_name().to_string_lossy(),
                fields,
                uptime - ticks(22),
                ticks(14) + ticks(15),
                mark,
                cmdline.trim()
            );
        }
        out
    }

    /// Waits until no server of this test has been seen for a whole second,
    /// or `within` passes; returns how many the last look saw. One look is
    /// not enough: a process in the middle of an exec (sh → pyenv shim →
    /// python3) shows an empty command line for a moment.
    fn wait_no_server(&self, within: Duration) -> usize {
        let deadline = Instant::now() + within;
        let mut clear_since: Option<Instant> = None;
        loop {
            let seen = self.servers();
            if seen > 0 {
                clear_since = None;
            } else if clear_since.is_none() {
                clear_since = Some(Instant::now());
            }
            if clear_since.is_some_and(|t| t.elapsed() >= Duration::from_secs(1)) || Instant::now() >= deadline {
                return seen;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// SIGKILLs the orchestrator (which no handler sees) and waits for its guard.
    fn kill_and_wait_for_guard(&self, child: &mut Child) {
        let orchestrator = child.id();
        child.kill().unwrap();
        child.wait().unwrap();
        self.wait_for_guard(orchestrator);
    }

    /// Waits until the guard of the (ended) orchestrator `pid`, the process
    /// that cleans up after it, has done its rounds and ended: whatever of
    /// the run is still alive after that has escaped.
    fn wait_for_guard(&self, pid: u32) {
        // Its rounds take about 3 s; on a loaded machine (CI beside other
        // builds) its turn can come late.
        let deadline = Instant::now() + Duration::from_secs(30);
        while guards_of(pid) > 0 {
            assert!(Instant::now() < deadline, "the orchestrator's guard still runs 30 s after the orchestrator ended");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// A fake whose server answers the readiness probe and then stalls every
    /// check, and its `concur run`, returned once verification has started
    /// that server (so that it is still verifying when the test acts; against
    /// the plain fake it fails within a second and stops the server itself).
    fn verifying() -> (Fake, Child) {
        let fake = Fake::new("python3 server.py {port} --stall MARKER");
        let child = fake.spawn(&["-d", "1s"]);
        let deadline = Instant::now() + Duration::from_secs(30);
        assert!(fake.wait_server(deadline), "verification should have started the server: {}", std::fs::read_to_string(fake.log()).unwrap_or_default());
        (fake, child)
    }

    /// Waits until the run in the database holds `n` points.
    /// Runs with `flags` until `n` points are stored, then Ctrl-C: the run ends with 130 and
    /// leaves no server (`leftover` says which one did).
    fn interrupt_after(&self, flags: &[&str], n: usize, leftover: &str) {
        let mut child = self.spawn(flags);
        self.wait_points(&mut child, n);
        // SAFETY: signalling our own child.
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        assert_eq!(child.wait().unwrap().code(), Some(130));
        assert_eq!(self.wait_no_server(Duration::from_secs(5)), 0, "{leftover}");
    }

    fn wait_points(&self, child: &mut Child, n: usize) {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                let log = std::fs::read_to_string(self.log()).unwrap_or_default();
                panic!("the run ended ({status}) before taking {n} points:\n{log}");
            }
            let taken = Store::open_existing(&self.db()).ok().and_then(|s| s.point_keys(1).ok()).map_or(0, |k| k.len());
            if taken >= n {
                return;
            }
            assert!(Instant::now() < deadline, "no {n} points within a minute");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

const PYTHON: &str = "python3 server.py {port} MARKER";

/// How many guards of the orchestrator `pid` run (its `sh` and any subshell).
fn guards_of(pid: u32) -> usize {
    let guard = format!("while kill -0 {pid} ");
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .filter(|c| String::from_utf8_lossy(c).contains(&guard))
        .count()
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

#[test]
fn every_point_is_stored_with_its_measurements() {
    if tools::require(&tools::PYTHON3).is_none() {
        return;
    }
    let fake = Fake::new(PYTHON);
    let out = fake.run(&["--repeat", "2", "-d", "700ms", "--no-verify"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let data = Store::open_existing(&fake.db()).unwrap().load_run(1).unwrap();
    assert_eq!(data.run.status, RunStatus::Finished);
    assert_eq!(data.implementations[0].status, ImplStatus::Unverified);
    let keys: Vec<&str> = data.points.iter().map(|p| p.key.as_str()).collect();
    assert_eq!(keys, ["fake/hello/cores=1/c=4/r1", "fake/hello/cores=1/c=4/r2"]);
    for p in &data.points {
        assert!(p.error.is_none() && p.successes > 0 && p.latency.count == p.successes, "{p:?}");
        assert!(p.server.rss_peak_bytes > 0 && p.server.cpu_seconds > 0.0 && !p.server.samples.is_empty(), "{:?}", p.server);
        assert_eq!((p.generator.cpus.clone(), p.generator.shared), (vec![1], false));
        assert!(p.load_report.is_some());
    }
    assert_eq!(fake.wait_no_server(Duration::from_secs(5)), 0, "a server outlived its point");
}

#[test]
fn ctrl_c_keeps_finished_points_leaves_no_server_and_resume_takes_only_the_rest() {
    if tools::require(&tools::PYTHON3).is_none() {
        return;
    }
    let fake = Fake::new(PYTHON);
    let flags = ["--repeat", "5", "-d", "1s", "--no-verify"];
    fake.interrupt_after(&flags, 2, "a server outlived Ctrl-C");

    let store = Store::open_existing(&fake.db()).unwrap();
    let before = store.load_run(1).unwrap();
    assert_eq!(before.run.status, RunStatus::Interrupted);
    let kept = before.points.len();
    assert!((2..5).contains(&kept), "{kept} points kept");

    let out = fake.run(&[&flags[..], &["--resume"]].concat()).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains(&format!("resuming run 1 (started {}): {kept} of 5 points already taken", before.run.started_at)), "{}", text(&out));
    let after = store.load_run(1).unwrap();
    assert_eq!(after.run.status, RunStatus::Finished);
    assert_eq!(after.points.len(), 5);
    assert_eq!(after.points[..kept], before.points[..], "finished points must not be redone");
    assert_eq!(store.runs().unwrap().len(), 1, "--resume must not start a second run");
}

#[test]
fn blocks_measure_every_window_on_one_warm_server_and_a_resume_mid_block_takes_the_rest() {
    if tools::require(&tools::PYTHON3).is_none() {
        return;
    }
    let fake = Fake::new(PYTHON);
    let flags = ["--repeat", "1", "--blocks", "5", "-d", "1s", "--no-verify"];
    fake.interrupt_after(&flags, 2, "a server waiting for its next window outlived Ctrl-C");
    let store = Store::open_existing(&fake.db()).unwrap();
    let kept = store.load_run(1).unwrap().points.len();
    assert!((2..5).contains(&kept), "{kept} windows kept");

    let out = fake.run(&[&flags[..], &["--resume"]].concat()).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let points = store.load_run(1).unwrap().points;
    let took: Vec<(u32, Option<&str>)> = points.iter().map(|p| (p.repeat, p.server_from.as_deref())).collect();
    let key = |n: usize| format!("fake/hello/cores=1/c=4/r{n}");
    // The first window starts a server; each later one takes it over, warm; the first window
    // the resume takes finds its server gone and starts one of its own.
    for (i, (repeat, from)) in took.iter().enumerate() {
        assert_eq!(*repeat as usize, i + 1);
        let expected = if i == 0 || i == kept { None } else { Some(key(i)) };
        assert_eq!(from.map(str::to_string), expected, "window {}: {took:?}", i + 1);
    }
    assert!(points.iter().all(|p| p.error.is_none() && p.successes > 0), "{points:?}");
}

#[test]
fn a_killed_orchestrator_leaves_no_server_and_loses_no_point() {
    if tools::require(&tools::PYTHON3).is_none() {
        return;
    }
    let fake = Fake::new(PYTHON);
    let mut child = fake.spawn(&["--repeat", "5", "-d", "1s", "--no-verify"]);
    fake.wait_points(&mut child, 1);
    let deadline = Instant::now() + Duration::from_secs(10);
    assert!(fake.wait_server(deadline), "the next point's server should be running");
    let at_kill = fake.describe_servers();
    fake.kill_and_wait_for_guard(&mut child);
    assert_eq!(
        fake.wait_no_server(Duration::from_secs(5)),
        0,
        "a server outlived its orchestrator's SIGKILL:\n{}at the kill:\n{at_kill}{}",
        fake.describe_servers(),
        std::fs::read_to_string(fake.log()).unwrap_or_default()
    );
    let data = Store::open_existing(&fake.db()).unwrap().load_run(1).unwrap();
    assert!(!data.points.is_empty() && data.run.status == RunStatus::Running, "{:?}", data.run.status);
}

/// `concur verify` and `concur faults` start servers too: killed by SIGKILL, they leave none.
#[test]
fn a_killed_verify_or_faults_leaves_no_server() {
    if tools::require(&tools::PYTHON3).is_none() {
        return;
    }
    // faults starts a PostgreSQL for its GET /db bystanders first (copying the database tests' template).
    let database = crate::database::installed();
    for args in [&["verify", "fake", "--cores", "1"][..], &["faults", "fake", "--cores", "1"][..]] {
        let fake = Fake::new(PYTHON);
        if database {
            crate::database::shared();
            std::fs::create_dir_all(fake.root.path().join("results")).unwrap();
            std::os::unix::fs::symlink(crate::database::template(), fake.root.path().join("results/postgres")).unwrap();
        }
        let mut child = fake.spawn_command(args);
        let deadline = Instant::now() + Duration::from_secs(30);
        assert!(fake.wait_server(deadline), "`concur {}` started no server: {}", args[0], std::fs::read_to_string(fake.log()).unwrap_or_default());
        let at_kill = fake.describe_servers();
        let pid = child.id();
        if database && args[0] == "faults" {
            assert!(!crate::database::postgres_of(pid).is_empty(), "faults started no PostgreSQL: {}", std::fs::read_to_string(fake.log()).unwrap_or_default());
        }
        fake.kill_and_wait_for_guard(&mut child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while !crate::database::postgres_of(pid).is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(100));
        }
        assert_eq!(crate::database::postgres_of(pid), Vec::<u32>::new(), "a PostgreSQL outlived `concur {}`'s SIGKILL", args[0]);
        assert_eq!(
            fake.wait_no_server(Duration::from_secs(5)),
            0,
            "a server outlived `concur {}`'s SIGKILL:\n{}at the kill:\n{at_kill}{}",
            args[0],
            fake.describe_servers(),
            std::fs::read_to_string(fake.log()).unwrap_or_default()
        );
    }
}

/// A server's group may hold a process without the run's mark (a pyenv shim
/// forking subshells while the guard looks, here one started with the mark
/// removed): the guard kills the whole group.
#[test]
fn a_killed_orchestrator_leaves_no_process_of_a_servers_group() {
    if tools::require(&tools::PYTHON3).is_none() {
        return;
    }
    let fake = Fake::new("env -u CONCUR_RUN_OWNER sh -c 'sleep 600; :' MARKER & exec python3 server.py {port} MARKER");
    let mut child = fake.spawn(&["--repeat", "5", "-d", "1s", "--no-verify"]);
    fake.wait_points(&mut child, 1);
    let deadline = Instant::now() + Duration::from_secs(10);
    while fake.servers() < 2 {
        assert!(Instant::now() < deadline, "the next point's server and its unmarked helper should be running");
        std::thread::sleep(Duration::from_millis(20));
    }
    fake.kill_and_wait_for_guard(&mut child);
    assert_eq!(fake.wait_no_server(Duration::from_secs(5)), 0, "a process of a server's group outlived its orchestrator's SIGKILL:\n{}", fake.describe_servers());
}

#[test]
fn a_killed_orchestrator_leaves_no_verification_server() {
    if tools::require(&tools::PYTHON3).is_none() {
        return;
    }
    let (fake, mut child) = Fake::verifying();
    fake.kill_and_wait_for_guard(&mut child);
    assert_eq!(fake.wait_no_server(Duration::from_secs(5)), 0, "the server under verification outlived its orchestrator's SIGKILL:\n{}", fake.describe_servers());
}

/// SIGTERM (or Ctrl-C) during verification may stop everything at once; a
/// server being started at that moment (forked, its group not yet its own)
/// is in no list, so the guard is left alive to kill it once the
/// orchestrator is gone (it was stopped with the rest, and four such servers
/// outlived their runs by hours).
#[test]
fn a_signal_during_verification_leaves_no_server() {
    if tools::require(&tools::PYTHON3).is_none() {
        return;
    }
    let (fake, mut child) = Fake::verifying();
    let orchestrator = child.id();
    // SAFETY: signalling our own child.
    unsafe { libc::kill(orchestrator as i32, libc::SIGTERM) };
    let status = child.wait().unwrap();
    let log = std::fs::read_to_string(fake.log()).unwrap_or_default();
    assert_eq!(status.code(), Some(130), "{log}");
    // Verification may wind down by itself while the handler forces the
    // exit (the run then ends as any interrupted run would, racing that
    // exit); either way the guard outlives the orchestrator after a signal:
    // it looks once a second, then ten times 0.2 s apart, so it is still there.
    assert!(guards_of(orchestrator) > 0, "the guard did not outlive the signalled orchestrator: {log}");
    fake.wait_for_guard(orchestrator);
    assert_eq!(fake.wait_no_server(Duration::from_secs(5)), 0, "a server outlived the signal:\n{}", fake.describe_servers());
}

#[test]
fn an_implementation_that_fails_verification_is_recorded_not_measured() {
    if tools::require(&tools::PYTHON3).is_none() {
        return;
    }
    let fake = Fake::new("sh -c 'echo listening is hard >&2; exit 3' MARKER");
    let out = fake.run(&["-d", "1s"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("fake: not measured:"), "{}", text(&out));
    let data = Store::open_existing(&fake.db()).unwrap().load_run(1).unwrap();
    assert!(data.points.is_empty());
    let imp = &data.implementations[0];
    assert_eq!(imp.status, ImplStatus::Failed);
    assert!(imp.reason.as_deref().unwrap_or("").contains("listening is hard"), "{:?}", imp.reason);

    let report = concur::report::render(data).markdown;
    assert!(report.contains("fake was not measured (failed): the server exited during start-up"), "{report}");
}

#[test]
fn an_implementation_whose_only_failures_are_known_is_measured_with_them() {
    if tools::require(&tools::PYTHON3).is_none() {
        return;
    }
    let fake = Fake::new(PYTHON);
    // The fake serves GET / and nothing else: its manifest declares every check, so whatever fails is known.
    let reason = "the fake serves only GET / (concur's own test)";
    fake.declare(&concur::verify::checks::ids().iter().map(|id| format!("{id} = \"{reason}\"\n")).collect::<String>());
    let out = fake.run(&["-d", "700ms"]).output().unwrap();
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(t.contains("fake: verified at CONCUR_CORES=1") && t.contains("failed as its concur.toml declares ([known_failures])") && t.contains("measured with known deviations (the report shows them): fake (json, "), "{t}");
    assert!(t.contains("  known json") && t.contains(&format!("declared: {reason}")), "{t}");
    let data = Store::open_existing(&fake.db()).unwrap().load_run(1).unwrap();
    let imp = &data.implementations[0];
    assert_eq!(imp.status, ImplStatus::Verified);
    let json = imp.known_failures.iter().find(|k| k.check == "json").expect("json is a known failure");
    assert!(json.cores == 1 && json.reason == reason && !json.detail.is_empty(), "{json:?}");
    assert!(imp.known_failures.iter().all(|k| k.check != "root"), "root passes, so it is no known failure: {:?}", imp.known_failures);
    let keys: Vec<&str> = data.points.iter().map(|p| p.key.as_str()).collect();
    assert!(!keys.is_empty() && data.points.iter().all(|p| p.error.is_none() && p.successes > 0), "measured: {keys:?}");

    let report = concur::report::render(data).markdown;
    assert!(report.contains("fake was measured with known deviations: ") && report.contains(&format!("json: {reason}")), "{report}");
    assert!(report.contains("\n| fake † | "), "{report}");
}

/// `[scenario.json] after = "hello"`: each repeat's json point is measured on the
/// server of its hello point, started once; the record names that point.
#[test]
fn a_scenario_measured_after_another_takes_over_its_server() {
    if tools::require(&tools::PYTHON3).is_none() {
        return;
    }
    let fake = Fake::new(PYTHON);
    let profile = "description = \"two scenarios, one server\"\nscenarios = [\"hello\", \"json\"]\ncores = [1]\nrepeat = 2\n\
                   [load]\nconnections = [4]\nwarmup = \"0s\"\nduration = \"500ms\"\n[scenario.json]\nafter = \"hello\"\n";
    std::fs::write(fake.root.path().join("spec/profiles/shared.toml"), profile).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_concur"));
    cmd.args(["run", "--profile", "shared", "--impl", "fake", "--no-verify", "--root"]).arg(fake.root.path());
    let out = cmd.output().unwrap();
    let log = text(&out);
    assert!(out.status.success(), "{log}");
    assert!(log.contains("note: one server for several scenarios (json after hello)"), "{log}");
    let data = Store::open_existing(&fake.db()).unwrap().load_run(1).unwrap();
    let order: Vec<(&str, Option<&str>)> = data.points.iter().map(|p| (p.key.as_str(), p.server_from.as_deref())).collect();
    assert_eq!(
        order,
        [
            ("fake/hello/cores=1/c=4/r1", None),
            ("fake/json/cores=1/c=4/r1", Some("fake/hello/cores=1/c=4/r1")),
            ("fake/hello/cores=1/c=4/r2", None),
            ("fake/json/cores=1/c=4/r2", Some("fake/hello/cores=1/c=4/r2")),
        ]
    );
    assert!(data.points.iter().all(|p| p.error.is_none() && p.successes > 0), "{:?}", data.points);
    // A server's output goes to the log of the point that started it: one per repeat.
    let mut logs: Vec<String> = std::fs::read_dir(fake.root.path().join("results/logs/run-1"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("fake_"))
        .collect();
    logs.sort();
    assert_eq!(logs, ["fake_hello_cores=1_c=4_r1.log", "fake_hello_cores=1_c=4_r2.log"]);
    assert_eq!(fake.wait_no_server(Duration::from_secs(5)), 0, "a server outlived its points");
}

#[test]
fn a_dry_run_prints_the_plan_and_touches_nothing() {
    let fake = Fake::new(PYTHON);
    let out = fake.run(&["--repeat", "2", "-d", "3s", "--dry-run"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let t = text(&out);
    assert!(t.contains("2 points") && t.contains("fake/hello/cores=1/c=4/r2") && t.contains("server cpus 0 · generator cpus 1"), "{t}");
    assert!(!fake.db().exists());
}

#[test]
fn bad_flags_are_refused_before_anything_starts() {
    let fake = Fake::new(PYTHON);
    for (flags, message) in [
        (&["--cores", "0"][..], "--cores 0: core counts start at 1 (e.g. --cores 1,2)"),
        (&["--profile", "nosuch"][..], "--profile nosuch: there is no spec/profiles/nosuch.toml; known profiles: quick"),
        (&["-d", "5 parsecs"][..], "invalid value '5 parsecs' for '--duration <DURATION>'"),
        (&["-c", "5", "-R", "10"][..], "the argument '--connections <CONNECTIONS>' cannot be used with '--rate <RATE>'"),
    ] {
        let out = fake.run(flags).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{flags:?}: {}", text(&out));
        assert!(text(&out).contains(message), "{flags:?}: {}", text(&out));
        assert!(!fake.db().exists());
    }
}
