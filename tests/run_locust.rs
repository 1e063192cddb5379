//! End-to-end tests of `concur run --generator locust` against a fake
//! implementation (a Python server that records the address of every client
//! that connects): a Locust point is stored with its generator and version;
//! Ctrl-C leaves no Locust process; a worker killed mid-point fails the point
//! with the reason; and, across network namespaces this test creates (the
//! server in one, the master in another, two workers in two more, linked by
//! a bridge), the server sees both workers' addresses and the point counts
//! exactly what the workers sent.

use crate::tools;

use concur::store::{Generator, PointRecord, Store};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The fake server (`server.py PORT --peers FILE`): it appends each client's address to FILE.
const SERVER_PY: &str = include_str!("support/fake_server.py");

/// The repository's Locust, which setup installs; missing, the test fails (or skips, when asked) naming the fix.
fn locust() -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(concur::locust::VENV).join("bin/locust");
    if path.is_file() {
        return Some(path);
    }
    tools::missing(&format!("Locust is missing ({}): run `make setup`", path.display()))
}

struct Fake {
    root: tempfile::TempDir,
    locust: PathBuf,
}

impl Fake {
    fn new(locust: PathBuf) -> Fake {
        Fake::serving(locust, "")
    }

    /// A fake whose server takes `args` too (see tests/support/fake_server.py).
    fn serving(locust: PathBuf, args: &str) -> Fake {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("impls/http/fake");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::create_dir_all(root.path().join("spec/static")).unwrap();
        std::fs::create_dir_all(root.path().join("spec/profiles")).unwrap();
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
        // Points only: the capacity search has its own tests (run_capacity.rs); one window per server start.
        let quick = std::fs::read_to_string(repo.join("spec/profiles/quick.toml")).unwrap();
        let points = quick.split("\n[capacity]").next().unwrap().lines().filter(|l| !l.starts_with("blocks =")).collect::<Vec<_>>().join("\n");
        std::fs::write(root.path().join("spec/profiles/quick.toml"), points).unwrap();
        std::fs::write(dir.join("server.py"), SERVER_PY).unwrap();
        let peers = root.path().join("peers.txt");
        let manifest = format!(
            "name = \"fake\"\nlanguage = \"Python\"\nruntime = \"CPython\"\nversion = \"python3 --version\"\nframework = \"http.server\"\nmodel = \"os-threads\"\n\
             [requires]\ncommands = [\"python3\"]\n[start]\ncommand = \"python3 server.py {{port}} --peers {} {args}\"\n",
            peers.display()
        );
        std::fs::write(dir.join("concur.toml"), manifest).unwrap();
        Fake { root, locust }
    }

    fn db(&self) -> PathBuf {
        self.root.path().join("results/concur.db")
    }

    fn run(&self, extra: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_concur"));
        cmd.args(["run", "--generator", "locust", "--impl", "fake", "--scenario", "hello", "--cores", "1", "-c", "6", "--warmup", "0", "--no-verify", "--root"]);
        // A master port of its own: the tests run side by side, and two masters on Locust's
        // default port took each other's workers (or failed to bind).
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port().to_string();
        cmd.arg(self.root.path()).args(["--locust-master-port", &port]).args(extra).env(concur::locust::LOCUST_VAR, &self.locust);
        cmd
    }

    fn spawn(&self, extra: &[&str]) -> Child {
        let log = std::fs::File::create(self.log()).unwrap();
        self.run(extra).stdout(log.try_clone().unwrap()).stderr(log).spawn().unwrap()
    }

    fn log(&self) -> PathBuf {
        self.root.path().join("run.log")
    }

    fn points(&self) -> Vec<PointRecord> {
        Store::open_existing(&self.db()).unwrap().load_run(1).unwrap().points
    }

    fn peers(&self) -> String {
        std::fs::read_to_string(self.root.path().join("peers.txt")).unwrap_or_default()
    }
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// Pids of the Locust processes `owner` (a `concur run`) started: they carry its CONCUR_RUN_OWNER mark.
fn locust_processes(owner: u32, workers_only: bool) -> Vec<i32> {
    let mark = format!("CONCUR_RUN_OWNER={owner}");
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
            let cmdline = String::from_utf8_lossy(&std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default()).into_owned();
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let zombie = stat.rsplit_once(") ").is_some_and(|(_, rest)| rest.starts_with('Z'));
            !zombie
                && environ.split(|&b| b == 0).any(|v| v == mark.as_bytes())
                && cmdline.contains("locust")
                && (!workers_only || cmdline.split('\0').any(|a| a == "--worker"))
        })
        .collect()
}

fn wait_for(what: &str, child: &mut Child, log: &Path, mut ready: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(90);
    while !ready() {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the run ended ({status}) before {what}:\n{}", std::fs::read_to_string(log).unwrap_or_default());
        }
        assert!(Instant::now() < deadline, "no {what} within 90 s:\n{}", std::fs::read_to_string(log).unwrap_or_default());
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_locust_point_is_stored_with_its_generator_version_and_cpu() {
    let (Some(_), Some(locust)) = (tools::require(&tools::PYTHON3), locust()) else { return };
    let fake = Fake::new(locust);
    let out = fake.run(&["-d", "2s", "--locust-workers", "2"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let points = fake.points();
    let p = &points[0];
    assert_eq!((p.key.as_str(), p.level.as_str()), ("fake/hello/cores=1/c=6/locust/r1", "c=6 locust"));
    assert!(p.error.is_none(), "{:?}", p.error);
    assert_eq!(p.generator.kind, Generator::Locust);
    assert!(p.generator.version.starts_with("2."), "{}", p.generator.version);
    assert!(p.requests > 0 && p.errors_total == 0 && p.successes == p.requests && p.latency.count == p.requests, "{p:?}");
    assert!(p.generator.cpu_seconds > 0.0 && p.server.cpu_seconds > 0.0, "{:?} {:?}", p.generator, p.server);
    assert_eq!(p.steps.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["hello"]);
    // Each worker reported its own load for the saturation flag: its CPU and its event loop's lag.
    let workers = &p.load_report.as_ref().unwrap()["workers"];
    assert_eq!(workers.as_array().map(|w| w.len()), Some(2), "{workers}");
    for w in workers.as_array().unwrap() {
        assert!(w["cpu_s"].as_f64().unwrap() > 0.0 && w["wall_s"].as_f64().unwrap() > 1.0 && w["lag_ticks"].as_u64().unwrap() > 50, "{w}");
    }
}

/// Locust's statistics hold only the requests that ended; the ones its users still waited on
/// when the point ended were dropped, as concur load's were. A FIFO server of 5 req/s under 6
/// users has all 6 waiting but, now and then, the one that has its answer and has not yet
/// sent its next request (CI saw 5 once, on a loaded machine): each waiting one is counted
/// unfinished, with its age.
#[test]
fn a_locust_point_counts_the_requests_its_users_still_wait_on() {
    let (Some(_), Some(locust)) = (tools::require(&tools::PYTHON3), locust()) else { return };
    let fake = Fake::serving(locust, "--capacity 5");
    let out = fake.run(&["-d", "2s", "--locust-workers", "2"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let p = &fake.points()[0];
    assert!(p.successes > 0, "{p:?}");
    assert!((5..=6).contains(&p.latency.unfinished) && p.unfinished_age.count == p.latency.unfinished, "{:?} {:?}", p.latency, p.unfinished_age);
    assert!(p.unfinished_age.max_us > 100_000, "the queue's oldest waited: {:?}", p.unfinished_age);
    assert_eq!(p.steps[0].latency.unfinished, p.latency.unfinished);
}

#[test]
fn without_locust_its_points_are_skipped_with_one_line() {
    if tools::require(&tools::PYTHON3).is_none() {
        return;
    }
    let fake = Fake::new(PathBuf::from("/nonexistent/locust"));
    let out = fake.run(&["-d", "1s", "--dry-run"]).output().unwrap();
    assert!(!out.status.success());
    let why = "nothing to measure: every point was a Locust one (Locust is not installed (/nonexistent/locust is missing): `make setup` installs it";
    assert!(text(&out).contains(why), "{}", text(&out));
    let out = fake.run(&["-d", "1s", "--dry-run", "--generator", "concur-load,locust"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let lines: Vec<&str> = std::str::from_utf8(&out.stdout).unwrap().lines().filter(|l| l.contains("Locust points skipped")).collect();
    assert_eq!(lines.len(), 1, "{}", text(&out));
    assert!(!text(&out).contains("/locust/r1"), "{}", text(&out));
}

#[test]
fn ctrl_c_during_a_locust_point_leaves_no_locust_process() {
    let (Some(_), Some(locust)) = (tools::require(&tools::PYTHON3), locust()) else { return };
    let fake = Fake::new(locust);
    let mut child = fake.spawn(&["-d", "60s", "--locust-workers", "2"]);
    let owner = child.id();
    wait_for("two Locust workers", &mut child, &fake.log(), || locust_processes(owner, true).len() == 2);
    // SAFETY: signalling our own child.
    unsafe { libc::kill(owner as i32, libc::SIGINT) };
    assert_eq!(child.wait().unwrap().code(), Some(130), "{}", std::fs::read_to_string(fake.log()).unwrap_or_default());
    let deadline = Instant::now() + Duration::from_secs(5);
    while !locust_processes(owner, false).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(locust_processes(owner, false), Vec::<i32>::new(), "Locust processes outlived Ctrl-C");
}

#[test]
fn a_worker_killed_mid_point_fails_the_point_with_the_reason() {
    let (Some(_), Some(locust)) = (tools::require(&tools::PYTHON3), locust()) else { return };
    let fake = Fake::new(locust);
    let mut child = fake.spawn(&["-d", "60s", "--locust-workers", "2"]);
    let owner = child.id();
    wait_for("two Locust workers", &mut child, &fake.log(), || locust_processes(owner, true).len() == 2);
    std::thread::sleep(Duration::from_secs(2));
    let worker = locust_processes(owner, true)[0];
    // SAFETY: a process of this test's run.
    unsafe { libc::kill(worker, libc::SIGKILL) };
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "the run did not end within 30 s of a worker's death (a hang)");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(status.success(), "{}", std::fs::read_to_string(fake.log()).unwrap_or_default());
    let error = fake.points()[0].error.clone().unwrap_or_default();
    assert!(error.contains("Locust worker-") && error.contains("exited mid-point (status 137)"), "{error}");
    assert_eq!(locust_processes(owner, false), Vec::<i32>::new());
}

/// Network namespaces and their links, removed on drop (a failing assertion included).
struct Net {
    names: Vec<String>,
    workers: Vec<Child>,
}

impl Drop for Net {
    fn drop(&mut self) {
        for w in &mut self.workers {
            let _ = w.kill();
            let _ = w.wait();
        }
        for ns in &self.names {
            let _ = Command::new("ip").args(["netns", "del", ns]).stderr(Stdio::null()).status();
        }
    }
}

fn sh(args: &[&str]) -> Result<(), String> {
    let out = Command::new(args[0]).args(&args[1..]).output().map_err(|e| format!("{}: {e}", args.join(" ")))?;
    if out.status.success() { Ok(()) } else { Err(format!("{}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr).trim())) }
}

/// A /24 of 10.0.0.0/8 that no route of this host names, picked from the pid.
fn subnet() -> String {
    let routes = String::from_utf8_lossy(&Command::new("ip").args(["-4", "route"]).output().map(|o| o.stdout).unwrap_or_default()).into_owned();
    let pid = std::process::id();
    (0..250u32).map(|i| format!("10.{}.{}", 200 + (pid + i) % 50, (pid / 50 + i) % 250)).find(|net| !routes.contains(&format!("{net}."))).unwrap()
}

/// server, master and two worker namespaces, each with a veth into a bridge namespace; the server's
/// namespace forwards its address to its loopback (where every implementation listens, SPEC §1).
fn build_net(tag: &str, net: &str, guard: &mut Net) -> Result<(), String> {
    let roles = ["s", "m", "a", "b"];
    let bridge = format!("cc{tag}br");
    for ns in roles.iter().map(|r| format!("cc{tag}{r}")).chain([bridge.clone()]) {
        sh(&["ip", "netns", "add", &ns])?;
        guard.names.push(ns.clone());
        sh(&["ip", "-n", &ns, "link", "set", "lo", "up"])?;
    }
    sh(&["ip", "-n", &bridge, "link", "add", "br0", "type", "bridge"])?;
    sh(&["ip", "-n", &bridge, "link", "set", "br0", "up"])?;
    for (i, role) in roles.iter().enumerate() {
        let ns = format!("cc{tag}{role}");
        let port = format!("p{role}");
        sh(&["ip", "-n", &bridge, "link", "add", &port, "type", "veth", "peer", "name", "e0", "netns", &ns])?;
        sh(&["ip", "-n", &bridge, "link", "set", &port, "master", "br0", "up"])?;
        sh(&["ip", "-n", &ns, "addr", "add", &format!("{net}.{}/24", i + 1), "dev", "e0"])?;
        sh(&["ip", "-n", &ns, "link", "set", "e0", "up"])?;
    }
    let server = format!("cc{tag}s");
    sh(&["ip", "netns", "exec", &server, "sysctl", "-qw", "net.ipv4.conf.all.route_localnet=1"])?;
    sh(&["ip", "netns", "exec", &server, "nft", "add table ip concur"])?;
    sh(&["ip", "netns", "exec", &server, "nft", "add chain ip concur pre { type nat hook prerouting priority dstnat; }"])?;
    sh(&["ip", "netns", "exec", &server, "nft", &format!("add rule ip concur pre ip daddr {net}.1 tcp dport 1-65535 dnat to 127.0.0.1")])
}

#[test]
fn locust_workers_in_two_namespaces_load_a_server_in_a_third() {
    let (Some(_), Some(locust)) = (tools::require(&tools::PYTHON3), locust()) else { return };
    let tag = std::process::id().to_string();
    let net = subnet();
    let mut guard = Net { names: Vec::new(), workers: Vec::new() };
    if let Err(why) = build_net(&tag, &net, &mut guard) {
        let _ = tools::missing::<()>(&format!("network namespaces cannot be set up here (needs root or CAP_NET_ADMIN, ip and nft): {why}"));
        return;
    }
    let fake = Fake::new(locust.clone());
    let master = format!("{net}.2");
    let mut run = Command::new("ip");
    run.args(["netns", "exec", &format!("cc{tag}m")]).arg(env!("CARGO_BIN_EXE_concur"));
    run.args(["run", "--generator", "locust", "--impl", "fake", "--scenario", "hello", "--cores", "1", "-c", "8", "--warmup", "0", "-d", "3s", "--no-verify"]);
    run.args(["--locust-workers", "2", "--locust-master-bind", &master, "--server-addr", &format!("{net}.1"), "--server-netns", &format!("cc{tag}s"), "--root"]);
    run.arg(fake.root.path()).env(concur::locust::LOCUST_VAR, &locust);
    let log = std::fs::File::create(fake.log()).unwrap();
    let mut child = run.stdout(log.try_clone().unwrap()).stderr(log).spawn().unwrap();
    for role in ["a", "b"] {
        let report = fake.root.path().join(format!("worker-{role}.json"));
        let mut worker = Command::new("ip");
        worker.args(["netns", "exec", &format!("cc{tag}{role}")]).arg(env!("CARGO_BIN_EXE_concur"));
        worker.args(["locust-worker", "--once", "--master", &format!("{master}:5557"), "--report"]).arg(&report).env(concur::locust::LOCUST_VAR, &locust);
        worker.stdout(Stdio::null()).stderr(Stdio::null());
        guard.workers.push(worker.spawn().unwrap());
    }
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "the run did not end within 120 s:\n{}", std::fs::read_to_string(fake.log()).unwrap_or_default());
        std::thread::sleep(Duration::from_millis(200));
    };
    let log = std::fs::read_to_string(fake.log()).unwrap_or_default();
    assert!(status.success(), "{log}");
    for w in &mut guard.workers {
        assert!(w.wait().unwrap().success(), "a worker failed");
    }
    let p = &fake.points()[0];
    assert!(p.error.is_none() && p.errors_total == 0, "{:?} {:?}\n{log}", p.error, p.errors);
    let peers = fake.peers();
    for worker in [format!("{net}.3"), format!("{net}.4")] {
        assert!(peers.lines().any(|l| l == worker), "the server saw no connection from {worker}; it saw:\n{peers}");
    }
    let sent: u64 = ["a", "b"]
        .iter()
        .map(|role| {
            let text = std::fs::read_to_string(fake.root.path().join(format!("worker-{role}.json"))).unwrap();
            let v: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert_eq!(v["failures"], 0, "{text}");
            v["requests"].as_u64().unwrap()
        })
        .sum();
    assert!(sent > 0);
    assert_eq!(p.requests, sent, "the stored point's requests must be the sum of what the workers report");
    // The workers on other hosts reported their load to the master too.
    let workers = &p.load_report.as_ref().unwrap()["workers"];
    assert_eq!(workers.as_array().map(|w| w.len()), Some(2), "{workers}\n{log}");
}
