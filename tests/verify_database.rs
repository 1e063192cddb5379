//! The checks of SPEC §8 against real servers on a real database. A small Go
//! server on pgx (tests/support/cheat_db.go) passes them when it reads each
//! row with a statement of its own, and fails the statement count when it
//! answers from a cache of rows or reads a request's rows with one query,
//! although its answers look right, and the outage check when it makes a
//! burst of requests wait in turn for its workers while the database is
//! gone. A verification whose `--only` asks none of SPEC §8's checks starts
//! no database.

use crate::{database, fake_repo, tools};
use concur::verify::{self, DbSettings, Outcome, Settings, Status};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

const CHEAT_GO: &str = include_str!("support/cheat_db.go");

/// The cheat server, built once per test binary beside go-nethttp's module
/// files (the same pgx, already pinned in its go.sum).
pub fn cheat_binary() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cheat_db");
        std::fs::create_dir_all(&dir).unwrap();
        let module = Path::new(env!("CARGO_MANIFEST_DIR")).join("impls/http/go-nethttp");
        let go_mod = std::fs::read_to_string(module.join("go.mod")).unwrap().replace("module concur/go-nethttp", "module concur/cheat-db");
        std::fs::write(dir.join("go.mod"), go_mod).unwrap();
        std::fs::copy(module.join("go.sum"), dir.join("go.sum")).unwrap();
        std::fs::write(dir.join("main.go"), CHEAT_GO).unwrap();
        let out = Command::new("go").args(["build", "-o", "cheat_db", "."]).current_dir(&dir).output().unwrap();
        assert!(out.status.success(), "building tests/support/cheat_db.go: {}", String::from_utf8_lossy(&out.stderr));
        dir.join("cheat_db")
    })
}

/// The checks read what the server's user ran on the cluster, as `concur
/// verify` does with one server at a time: the tests sharing the cluster run
/// their servers one after the other (two at once counted each other's
/// statements, the cache's read of world at its start included).
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// A started cheat server, alone on the cluster, killed when dropped.
struct Cheat(Child, SocketAddr, #[allow(dead_code)] MutexGuard<'static, ()>);

impl Drop for Cheat {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start(mode: &str) -> Cheat {
    let alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let port = concur::server::free_port().unwrap();
    let child = Command::new(cheat_binary()).arg(mode).env("PORT", port.to_string()).env("CONCUR_DB_URL", database::shared().url()).spawn().unwrap();
    let cheat = Cheat(child, SocketAddr::from(([127, 0, 0, 1], port)), alone);
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(cheat.1).is_err() {
        assert!(Instant::now() < deadline, "the cheat server did not listen within 20 s");
        std::thread::sleep(Duration::from_millis(20));
    }
    cheat
}

fn verify(addr: SocketAddr, only: &str) -> Vec<Outcome> {
    let db = DbSettings { admin_url: database::shared().admin_url(), pool: 16, slow_ms: 20 };
    let settings = Settings { page_delay_ms: 600, page_every: 10, longpoll_ms: 2000, processes: 1, page_bytes: vec![], pgid: None, db: Some(db), faults: verify::FaultRoutes::Off };
    verify::run_checks(addr, settings, Some(only), &Default::default(), || Ok(()), |_| {})
}

fn status<'a>(outcomes: &'a [Outcome], id: &str) -> (Status, &'a str) {
    let o = outcomes.iter().find(|o| o.id == id).unwrap_or_else(|| panic!("{id} did not run: {outcomes:#?}"));
    (o.status, &o.detail)
}

fn ready() -> bool {
    tools::require(&tools::GO).is_some() && database::installed()
}

#[test]
fn reading_each_row_with_a_statement_of_its_own_passes_the_statement_count() {
    if !ready() {
        return;
    }
    let cheat = start("honest");
    let outcomes = verify(cheat.1, "db-queries,db-statements");
    assert_eq!(status(&outcomes, "db-queries").0, Status::Pass, "{outcomes:#?}");
    // Counted past /db, /queries and /updates, the check stops at /fortunes, which this server does not serve.
    let (_, detail) = status(&outcomes, "db-statements");
    assert!(!detail.contains("/queries") && !detail.contains("/updates") && detail.contains("GET /fortunes: got 404"), "{detail}");
}

/// spec/POLICIES.md §6.2 as pg_stat_statements sees it: one UPDATE per request to /updates
/// and no transaction passes; an UPDATE per row in a transaction (a JDBC batch's way) does not.
#[test]
fn rows_written_by_one_statement_pass_the_policy_check_and_a_transaction_of_updates_per_row_fails_it() {
    if !ready() {
        return;
    }
    let honest = start("honest");
    let outcomes = verify(honest.1, "db-policy");
    assert_eq!(status(&outcomes, "db-policy").0, Status::Pass, "{outcomes:#?}");
    drop(honest);
    let rowwise = start("rowwise");
    let outcomes = verify(rowwise.1, "db-updates,db-policy");
    assert_eq!(status(&outcomes, "db-updates").0, Status::Pass, "its rows are written: {outcomes:#?}");
    let (s, detail) = status(&outcomes, "db-policy");
    assert_eq!(s, Status::Fail);
    assert!(detail.contains("GET /updates?queries=20 ×5 ran 100 statements updating world") && detail.contains("want 5") && detail.contains("POLICIES.md §6.2"), "{detail}");
}

/// The counts hold under 32 clients at once for an honest server; one that skips its writes
/// while busy passes every check of one request at a time and fails this one.
#[test]
fn writes_skipped_under_load_fail_the_counts_under_load() {
    if !ready() {
        return;
    }
    let honest = start("honest");
    let outcomes = verify(honest.1, "db-under-load");
    assert_eq!(status(&outcomes, "db-under-load").0, Status::Pass, "{outcomes:#?}");
    drop(honest);
    let busy = start("busy");
    let outcomes = verify(busy.1, "db-updates,db-policy,db-under-load");
    assert_eq!(status(&outcomes, "db-updates").0, Status::Pass, "one at a time its rows are written: {outcomes:#?}");
    assert_eq!(status(&outcomes, "db-policy").0, Status::Pass, "one at a time it writes one UPDATE: {outcomes:#?}");
    let (s, detail) = status(&outcomes, "db-under-load");
    assert_eq!(s, Status::Fail);
    assert!(detail.contains("32 GET /updates?queries=20 among 32 at once ran") && detail.contains("want 32"), "{detail}");
}

/// The cheat in `mode` answers /queries with rows that look right, and the
/// statement count catches it: its ×10 of `/queries?queries=20` ran `ran` statements.
fn caught(mode: &str, ran: u32) {
    let cheat = start(mode);
    let outcomes = verify(cheat.1, "db-queries,db-statements");
    assert_eq!(status(&outcomes, "db-queries").0, Status::Pass, "its answers alone look right: {outcomes:#?}");
    let (s, detail) = status(&outcomes, "db-statements");
    assert_eq!(s, Status::Fail);
    assert!(detail.contains(&format!("GET /queries?queries=20 ×10 ran {ran} statements reading world")) && detail.contains("want at least 200"), "{detail}");
}

#[test]
fn a_cache_of_rows_fails_the_statement_count() {
    if ready() {
        caught("cache", 0);
    }
}

#[test]
fn one_query_for_all_rows_fails_the_statement_count() {
    if ready() {
        caught("in", 10);
    }
}

#[test]
fn a_server_that_queues_its_503s_on_its_pool_fails_the_burst_while_the_database_is_gone() {
    if !ready() {
        return;
    }
    let cheat = start("queued");
    let outcomes = verify(cheat.1, "db-unreachable");
    let (s, detail) = status(&outcomes, "db-unreachable");
    assert_eq!(s, Status::Fail, "one request at a time is a 503 within 1 s; 48 at once on 2 workers are not: {detail}");
    assert!(detail.contains("one of 48 requests at once while the database turns the server away") && detail.contains("waited their turn"), "{detail}");
    // The check let the database back: the honest /db answers again.
    drop(cheat);
    let honest = start("honest");
    assert_eq!(status(&verify(honest.1, "db-row"), "db-row").0, Status::Pass);
}

#[test]
fn a_verification_that_asks_no_database_check_starts_no_database() {
    if tools::require(&tools::PYTHON3).is_none() {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    fake_repo::write_fake(root.path(), "");
    let out = Command::new(env!("CARGO_BIN_EXE_concur")).args(["verify", "fake", "--cores", "1", "--only", "root", "--root"]).arg(root.path()).output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{text}");
    assert!(text.contains("1 pass, 0 warn, 0 fail\n"), "{text}");
    assert!(text.contains("== fake (CONCUR_CORES=1)\n") && text.contains("\n  done in "), "each verification says how long it took: {text}");
    assert!(!text.contains("== database:") && !root.path().join("results/postgres").exists(), "no database is started for it: {text}");
}

#[test]
fn several_implementations_are_verified_two_at_a_time_each_printed_whole_and_summed_up_in_order() {
    if tools::require(&tools::PYTHON3).is_none() {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    fake_repo::write_fake(root.path(), "");
    // Three copies of the fake under other names: the second and third wait for a lane.
    let fake = root.path().join("impls/http/fake");
    for name in ["fake-b", "fake-c"] {
        let dir = root.path().join("impls/http").join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(fake.join("server.py"), dir.join("server.py")).unwrap();
        let manifest = std::fs::read_to_string(fake.join("concur.toml")).unwrap().replace("name = \"fake\"", &format!("name = \"{name}\""));
        std::fs::write(dir.join("concur.toml"), manifest).unwrap();
    }
    let out = Command::new(env!("CARGO_BIN_EXE_concur")).args(["verify", "--cores", "1,2", "--only", "root,longpoll", "--root"]).arg(root.path()).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{text}");
    // Each implementation's lines come together: its two headers, then nothing of another before its last "done in".
    for name in ["fake", "fake-b", "fake-c"] {
        let first = text.find(&format!("== {name} (CONCUR_CORES=1)\n")).unwrap_or_else(|| panic!("{name}: {text}"));
        let second = text.find(&format!("== {name} (CONCUR_CORES=2)\n")).unwrap_or_else(|| panic!("{name}: {text}"));
        let block = &text[first..second];
        assert_eq!(block.matches("== ").count(), 1, "{name}'s first verification is not interleaved with another's: {block}");
        assert!(block.contains("pass  root") && block.contains("pass  longpoll") && block.contains("  done in "), "{block}");
    }
    let summary = &text[text.find("\nsummary\n").expect("a summary")..];
    let at = |line: &str| summary.find(line).unwrap_or_else(|| panic!("{line}: {summary}"));
    assert!(at("  fake             cores=1") < at("  fake             cores=2") && at("  fake             cores=2") < at("  fake-b           cores=1") && at("  fake-b           cores=2") < at("  fake-c           cores=1"), "{summary}");
}

#[test]
fn the_fault_routes_are_checked_on_a_server_of_their_own_and_never_inherited() {
    if tools::require(&tools::PYTHON3).is_none() {
        return;
    }
    // A server that serves on after the panic, and one that exits (for a supervisor to restart).
    for args in ["", "--panic-exits"] {
        let root = tempfile::tempdir().unwrap();
        fake_repo::write_fake(root.path(), args);
        // CONCUR_FAULTS=1 in concur's own environment must not reach the server of the other checks.
        let out = Command::new(env!("CARGO_BIN_EXE_concur"))
            .args(["verify", "fake", "--cores", "1", "--only", "fault", "--root"])
            .arg(root.path())
            .env("CONCUR_FAULTS", "1")
            .output()
            .unwrap();
        let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success(), "{args}: {text}");
        assert!(text.contains("3 pass, 0 warn, 0 fail\n"), "{args}: {text}");
        for id in ["fault-off", "fault-spin", "fault-panic"] {
            assert!(text.contains(&format!("pass  {id}")), "{args}: {id}: {text}");
        }
    }
}

/// A repository holding `pgfake`, the cheat server in `mode`, with the test cluster's template
/// as its `results/postgres` (a verification copies it, as it would the repository's own).
fn cheat_repository(mode: &str) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    fake_repo::write_fake(root.path(), "");
    let dir = root.path().join("impls/http/pgfake");
    std::fs::create_dir_all(&dir).unwrap();
    let manifest = format!(
        "name = \"pgfake\"\nlanguage = \"Go\"\nruntime = \"Go\"\nversion = \"go version\"\nframework = \"net/http\"\nmodel = \"green-threads\"\n\
         [requires]\ncommands = [\"go\"]\n[start]\ncommand = \"{} {mode}\"\n",
        cheat_binary().display()
    );
    std::fs::write(dir.join("concur.toml"), manifest).unwrap();
    database::shared();
    std::fs::create_dir_all(root.path().join("results")).unwrap();
    std::os::unix::fs::symlink(database::template(), root.path().join("results/postgres")).unwrap();
    root
}

/// SPEC §8.2 at the pool's edge: `concur verify` starts the server once more with one process
/// per connection (CONCUR_CORES=7, the pool of 6 raised to 7). A server whose workers take two
/// connections each stays within the pool at one core and is caught there, and only there.
#[test]
fn the_pool_is_checked_again_with_as_many_processes_as_connections() {
    if !ready() {
        return;
    }
    let verify = |mode: &str| {
        let root = cheat_repository(mode);
        let out = Command::new(env!("CARGO_BIN_EXE_concur")).args(["verify", "pgfake", "--cores", "1", "--only", "db-pool", "--root"]).arg(root.path()).output().unwrap();
        (out.status.success(), format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
    };
    let (passed, text) = verify("honest");
    assert!(passed, "{text}");
    assert!(text.contains("== pgfake (CONCUR_CORES=7: more processes than the pool of 6, raised to them)\n"), "{text}");
    assert!(text.contains("pgfake           cores=1   1 pass, 0 warn, 0 fail") && text.contains("pgfake           cores=7   1 pass, 0 warn, 0 fail"), "{text}");
    let (passed, text) = verify("floor2");
    assert!(!passed, "{text}");
    assert!(text.contains("pgfake           cores=1   1 pass, 0 warn, 0 fail"), "six connections for one worker: {text}");
    assert!(text.contains("more than CONCUR_DB_POOL=7: bound the pool by it, across all processes"), "fourteen for seven: {text}");
}
