//! End-to-end tests of the capacity search (`concur run --slo`) against a
//! fake implementation: a Python server that serves at most K requests/s
//! and queues the rest is found within the search's precision; one that
//! stalls 500 ms every 2 s shows the stall in every step's percentiles (no
//! coordinated omission); Ctrl-C keeps the measured steps and `--resume`
//! continues the search from them; a bad `--slo` is refused with its syntax.
//! A search follows on the warm server of its closed-loop point, and a
//! resumed one whose point is taken starts a server of its own.

use crate::tools;

use concur::store::Store;
use concur::store::capacity::SearchRecord;
use std::path::PathBuf;
use std::process::{Child, Command, Output};
use std::time::{Duration, Instant};

// The fake server (`server.py PORT (--capacity K | --stall-every) MARKER`,
// tests/support/fake_repo.rs): with `--capacity K` it answers one request
// per 1/K s and queues the rest (a FIFO server of service rate K), with
// `--stall-every` it holds every response due in the first 500 ms of each 2 s.

/// The known capacity of the queueing server, requests per second: little
/// CPU for Python, so that the machine's other tests rarely starve it.
const K: f64 = 200.0;
const PRECISION: f64 = 0.05;

/// One search at a time, and none beside another test's measurement (`fake_repo::measuring`).
fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    crate::fake_repo::measuring()
}

struct Fake {
    root: tempfile::TempDir,
}

impl Fake {
    /// A repository with the fake implementation started as `server.py {port} <args> MARKER`, and profile `cap` holding `capacity`.
    fn new(args: &str, capacity: &str) -> Fake {
        let root = tempfile::tempdir().unwrap();
        crate::fake_repo::write_fake(root.path(), args);
        let profile = format!("description = \"capacity test\"\ncores = [1]\n[load]\nwarmup = \"0s\"\nduration = \"500ms\"\n[capacity]\n{capacity}");
        crate::fake_repo::write_profile(root.path(), "cap", &profile);
        Fake { root }
    }

    fn db(&self) -> PathBuf {
        self.root.path().join("results/concur.db")
    }

    fn run(&self, extra: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_concur"));
        cmd.args(["run", "--profile", "cap", "--impl", "fake", "--scenario", "hello", "--no-verify", "--root"]).arg(self.root.path()).args(extra);
        cmd
    }

    fn search(&self) -> SearchRecord {
        Store::open_existing(&self.db()).unwrap().search(1, "fake/hello/cores=1/capacity").unwrap().expect("the search is stored")
    }

    fn log(&self) -> PathBuf {
        self.root.path().join("run.log")
    }
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// Steps without warm-up: the queue of a rate 5% above K starts empty at each
/// step and grows to 100 ms in its 2 s, so its p90 (about 90 ms) breaks the
/// bound; below K it stays empty. A bound on p90, not p99: a scheduling hiccup of the busy
/// test machine delays a few requests, not a tenth of them.
const QUEUEING: &str = "slo = \"p90<=40ms\"\nconnections = 8\nprecision = 0.05\nstep = \"2s\"\nstep_warmup = \"0s\"\nmax_steps = 12\nbudget = \"40s\"\n";

fn ok(out: &Output) {
    assert!(out.status.success(), "{}", text(out));
}

/// A search's steps, one line each, for a failed assertion.
fn steps_of(s: &SearchRecord) -> String {
    let line = |st: &concur::store::capacity::StepRecord| format!("{:>5} req/s p90 {} us {} {:?}", st.rate, st.latency.p90_us, st.verdict, st.reason);
    format!("start {} ({}), status {}: {:?}\n{}", s.start_rate, s.start_from, s.status, s.reason, s.steps.iter().map(line).collect::<Vec<_>>().join("\n"))
}

fn check_found(s: &SearchRecord, log: &str) {
    assert_eq!(s.status, "found", "{}\n{log}", steps_of(s));
    let (lo, hi) = (s.capacity.unwrap(), s.failed_rate.unwrap());
    assert!(hi <= lo * (1.0 + PRECISION) + 1.0, "the bracket {lo}..{hi} is wider than the precision");
    // The bracket is the search's claim. Above K the queue grows whatever the machine
    // does; below it, a Python server starved by the other tests running beside this
    // one can fail a step near K: one more precision of slack on that side.
    assert!((K * (1.0 - 2.0 * PRECISION)..=K * (1.0 + PRECISION)).contains(&lo), "capacity {lo}..{hi} req/s, the server's is {K}: {}", steps_of(s));
    let step = s.capacity_step().expect("the capacity's step is stored");
    assert!(step.latency.p90_us <= 40_000 && step.errors_total == 0 && step.verdict == "pass", "{step:?}");
    assert!(s.steps.iter().any(|st| st.verdict == "fail" && st.reason.as_deref().unwrap_or("").contains("over the bound")), "{:?}", s.steps);
}

#[test]
fn a_server_of_known_capacity_is_found_within_the_precision() {
    if tools::require(&tools::PYTHON3).is_none() {
        return;
    }
    let _one = one_at_a_time();
    let fake = Fake::new(&format!("--capacity {K}"), QUEUEING);
    let out = fake.run(&["-c", "4"]).output().unwrap();
    ok(&out);
    let s = fake.search();
    check_found(&s, &text(&out));
    assert!(s.start_from.starts_with("half the closed-loop throughput of fake/hello/cores=1/c=4/r1"), "{}", s.start_from);
    // The search followed on the point's server, warm, instead of starting its own.
    assert!(text(&out).contains("on the server of point fake/hello/cores=1/c=4/r1"), "{}", text(&out));
    assert!(!search_log(&fake).exists(), "the search started a server of its own");
    for st in &s.steps {
        assert!(st.rss_peak_bytes > 0 && st.server_cpu_util > 0.0 && st.gen_cpu_util > 0.0 && st.latency.count > 0, "{st:?}");
    }
    let out_dir = fake.root.path().join("report");
    let out = Command::new(env!("CARGO_BIN_EXE_concur")).args(["report", "--root"]).arg(fake.root.path()).arg("-o").arg(&out_dir).output().unwrap();
    ok(&out);
    let md = std::fs::read_to_string(out_dir.join("summary.md")).unwrap();
    assert!(md.contains("## Capacity within the SLO") && md.contains("SLO p90<=40ms") && md.contains(&format!("| fake | {} |", s.capacity.unwrap())), "{md}");
    let html = std::fs::read_to_string(out_dir.join("index.html")).unwrap();
    assert!(html.contains("hello at 1 core(s): p99 against offered rate") && html.contains("<svg"), "the curve is drawn");
}

#[test]
fn a_stalling_server_shows_its_stall_in_every_step() {
    if tools::require(&tools::PYTHON3).is_none() {
        return;
    }
    // A bound the stalls never break, so the search ramps through several steps;
    // each measurement (2.5 s) holds at least one whole stall.
    // Enough connections that the stall holds every request sent during it (no
    // send owed at the end, so the rate counts as reached), and an open-loop
    // point, so that the search starts at the profile's rate (25, 50, 100 req/s).
    let _one = one_at_a_time();
    let fake = Fake::new("--stall-every", "slo = \"max<=5s\"\nconnections = 64\nstart = 25\nstep = \"2500ms\"\nstep_warmup = \"0s\"\nmax_steps = 3\n");
    let out = fake.run(&["-R", "20"]).output().unwrap();
    ok(&out);
    let s = fake.search();
    assert_eq!(s.steps.len(), 3, "{s:#?}\n{}", text(&out));
    for st in &s.steps {
        // A stall that straddles a step's end leaves its requests unanswered: they show it by their age.
        let longest = st.latency.max_us.max(st.unfinished_max_us);
        assert!(longest >= 400_000 && st.latency.p99_us >= 300_000, "a step hid the 500 ms stall: {st:?}");
    }
}

#[test]
fn ctrl_c_keeps_the_measured_steps_and_resume_continues_the_search() {
    if tools::require(&tools::PYTHON3).is_none() {
        return;
    }
    let _one = one_at_a_time();
    let fake = Fake::new(&format!("--capacity {K}"), QUEUEING);
    let log = std::fs::File::create(fake.log()).unwrap();
    let mut child: Child = fake.run(&["-c", "4"]).stdout(log.try_clone().unwrap()).stderr(log).spawn().unwrap();
    wait_steps(&fake, &mut child, 2);
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    assert_eq!(child.wait().unwrap().code(), Some(130), "{}", std::fs::read_to_string(fake.log()).unwrap_or_default());
    let before = fake.search();
    assert_eq!(before.status, "running");
    assert!(before.steps.len() >= 2, "{before:#?}");

    assert!(std::fs::read_to_string(fake.log()).unwrap().contains("on the server of point"), "the interrupted search followed its point");
    let out = fake.run(&["-c", "4", "--resume"]).output().unwrap();
    ok(&out);
    // Its point is taken: the search goes on on a server of its own.
    assert!(search_log(&fake).exists() && !text(&out).contains("on the server of point"), "{}", text(&out));
    let after = fake.search();
    assert_eq!(after.id, before.id, "--resume continues the search, it does not start another");
    assert_eq!(after.steps[..before.steps.len()], before.steps[..], "measured steps are kept as they were");
    assert!(after.steps.len() > before.steps.len());
    check_found(&after, &text(&out));
}

/// The log of the server a search starts for itself (none when it followed a point's).
fn search_log(fake: &Fake) -> PathBuf {
    fake.root.path().join("results/logs/run-1/fake_hello_cores=1_capacity.log")
}

fn wait_steps(fake: &Fake, child: &mut Child, n: usize) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the run ended ({status}) before {n} steps:\n{}", std::fs::read_to_string(fake.log()).unwrap_or_default());
        }
        let steps = Store::open_existing(&fake.db()).ok().and_then(|s| s.search(1, "fake/hello/cores=1/capacity").ok().flatten()).map_or(0, |s| s.steps.len());
        if steps >= n {
            return;
        }
        assert!(Instant::now() < deadline, "no {n} steps within a minute");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_malformed_slo_is_refused_with_its_syntax() {
    let fake = Fake::new("", "");
    for (slo, why) in [("p99<10ms", "has no '<='"), ("p97<=1ms", "'p97' is not a percentile"), ("p99<=10", "'10' needs a unit")] {
        let out = fake.run(&["--slo", slo]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        let t = text(&out);
        assert!(t.contains(&format!("invalid SLO '{slo}'")) && t.contains(why) && t.contains("e.g. 'p99<=10ms', 'p99.9<=50ms'"), "{t}");
        assert!(!fake.db().exists());
    }
}
