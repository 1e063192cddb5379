//! `concur run` with the database scenarios, on a real PostgreSQL and a real
//! Go server on pgx (tests/support/cheat_db.go, honest): one cluster for
//! the run, its URL given to the server, its CPU time and memory stored
//! beside the server's, and no PostgreSQL process left after the run, nor
//! after a SIGKILL of the orchestrator (which no handler sees).

use crate::database::{self, postgres_of};
use crate::{fake_repo, tools, verify_database};
use concur::store::Store;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A repository with `pgfake` (the cheat server in honest mode, serving `/`
/// and `/db`) beside the Python fake, the scenario files of this repository,
/// and the test template as its `results/postgres`.
fn repository() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    fake_repo::write_fake(root.path(), "");
    fake_repo::write_profile(root.path(), "quick", "description = \"the database scenario alone\"\ncores = [1]\n");
    let dir = root.path().join("impls/http/pgfake");
    std::fs::create_dir_all(&dir).unwrap();
    let manifest = format!(
        "name = \"pgfake\"\nlanguage = \"Go\"\nruntime = \"Go\"\nversion = \"go version\"\nframework = \"net/http\"\nmodel = \"green-threads\"\n\
         [requires]\ncommands = [\"go\"]\n[start]\ncommand = \"{} honest\"\n",
        verify_database::cheat_binary().display()
    );
    std::fs::write(dir.join("concur.toml"), manifest).unwrap();
    let scenarios = Path::new(env!("CARGO_MANIFEST_DIR")).join("spec/scenarios");
    std::fs::create_dir_all(root.path().join("spec/scenarios")).unwrap();
    for name in ["hello", "db"] {
        std::fs::copy(scenarios.join(format!("{name}.toml")), root.path().join(format!("spec/scenarios/{name}.toml"))).unwrap();
    }
    // The template the other database tests made: a run copies it, as it would results/postgres.
    database::shared();
    std::fs::create_dir_all(root.path().join("results")).unwrap();
    std::os::unix::fs::symlink(database::template(), root.path().join("results/postgres")).unwrap();
    root
}

fn run(root: &Path, duration: &str) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_concur"));
    cmd.args(["run", "--impl", "pgfake", "--scenario", "db", "--cores", "1", "-c", "8", "--warmup", "0", "-d", duration, "--no-verify", "--root"])
        .arg(root)
        // `--db`, the results database's former name (now `--results`), still works.
        .arg("--db")
        .arg(root.join("results/concur.db"));
    cmd
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn ready() -> bool {
    tools::require(&tools::GO).is_some() && database::installed()
}

fn eventually(within: Duration, mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + within;
    while Instant::now() < deadline {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    done()
}

#[test]
fn a_database_point_records_the_databases_usage() {
    if !ready() {
        return;
    }
    let root = repository();
    let _alone = fake_repo::measuring();
    let child = run(root.path(), "2s").stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let pid = child.id();
    let out = child.wait_with_output().unwrap();
    let log = text(&out);
    assert!(out.status.success(), "{log}");
    assert!(log.contains("== database: PostgreSQL on 127.0.0.1:"), "{log}");
    let data = Store::open_existing(&root.path().join("results/concur.db")).unwrap().load_run(1).unwrap();
    let keys: Vec<&str> = data.points.iter().map(|p| p.key.as_str()).collect();
    assert_eq!(keys, ["pgfake/db/cores=1/c=8/r1"]);
    let p = &data.points[0];
    assert!(p.error.is_none() && p.successes > 100 && p.errors_total == 0, "{p:?}");
    let db = p.database.as_ref().expect("the database's usage");
    // On this project's 2-CPU machine: the server has CPU 0, PostgreSQL shares the generator's.
    assert_eq!(db.cpus, p.generator.cpus, "{db:?}");
    assert!(db.cpu_seconds > 0.0 && db.mem_peak_bytes > 0 && db.processes_max >= 2 && !db.samples.is_empty(), "{db:?}");
    assert!(eventually(Duration::from_secs(10), || postgres_of(pid).is_empty()), "PostgreSQL outlived the run: {:?}", postgres_of(pid));
}

#[test]
fn a_killed_run_leaves_no_postgresql_process() {
    if !ready() {
        return;
    }
    let root = repository();
    let _alone = fake_repo::measuring();
    let log = root.path().join("run.log");
    let file = std::fs::File::create(&log).unwrap();
    let mut child: Child = run(root.path(), "60s").stdout(file.try_clone().unwrap()).stderr(file).spawn().unwrap();
    let pid = child.id();
    let started = eventually(Duration::from_secs(60), || postgres_of(pid).len() >= 2);
    // Into the point: the server started and connected (a backend beside the postmaster's helpers).
    std::thread::sleep(Duration::from_secs(3));
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(started, "the run started no PostgreSQL within 60 s:\n{}", std::fs::read_to_string(&log).unwrap_or_default());
    assert!(eventually(Duration::from_secs(20), || postgres_of(pid).is_empty()), "PostgreSQL outlived its orchestrator's SIGKILL: {:?}", postgres_of(pid));
    let folders: Vec<String> = std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&format!("concur-postgres-{pid}-")))
        .collect();
    assert!(eventually(Duration::from_secs(5), || folders.iter().all(|f| !std::env::temp_dir().join(f).exists())), "its working folder stayed: {folders:?}");
}

/// A profile's CONCUR_DB_POOL below a point's core count is raised to it, and the plan says so:
/// a server of one process per core needs a connection in each (SPEC §8.2).
#[test]
fn a_pool_below_the_core_count_is_raised_and_the_plan_says_so() {
    let root = repository();
    fake_repo::write_profile(root.path(), "small", "description = \"a small pool\"\ncores = [1, 2]\nscenarios = [\"db\"]\nenv = { CONCUR_DB_POOL = \"1\" }\n");
    let plan = |profile: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_concur")).args(["run", "--profile", profile, "--impl", "pgfake", "--dry-run", "--root"]).arg(root.path()).output().unwrap();
        assert!(out.status.success(), "{}", text(&out));
        text(&out)
    };
    assert!(plan("small").contains("CONCUR_DB_POOL is raised to the core count at 2 cores"), "{}", plan("small"));
    assert!(!plan("quick").contains("CONCUR_DB_POOL is raised"), "16 covers one core: {}", plan("quick"));
}
