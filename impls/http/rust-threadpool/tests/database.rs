//! The database routes (SPEC §8) against a real PostgreSQL seeded as §8.1
//! says: the one `CONCUR_DB_URL` names (`concur test` gives it), else one
//! these tests start with `concur db` (on PATH, or the repository's release
//! build), which ends with the test process.

mod common;

use common::TestServer;
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// The database's URL, started on first use.
fn database_url() -> &'static str {
    static URL: OnceLock<Result<String, String>> = OnceLock::new();
    let url = URL.get_or_init(|| std::env::var("CONCUR_DB_URL").or_else(|_| start_concur_db()));
    url.as_deref().unwrap_or_else(|e| {
        panic!("the database routes need PostgreSQL: {e}; run `concur test rust-threadpool`, or export the CONCUR_DB_URL that `concur db` prints")
    })
}

/// Runs `concur db` from a thread that lives as long as the process: the
/// kernel sends it SIGINT when the thread that started it ends (PDEATHSIG
/// follows the thread), so only the end of the test process stops it.
fn start_concur_db() -> Result<String, String> {
    let bin = ["concur", concat!(env!("CARGO_MANIFEST_DIR"), "/../../../target/release/concur")]
        .into_iter()
        .find(|bin| Command::new(bin).arg("--version").stdout(Stdio::null()).status().is_ok_and(|s| s.success()))
        .ok_or("no concur on PATH nor in the repository's target/release (cargo build --release)")?;
    let (sender, receiver) = mpsc::channel();
    thread::spawn(move || {
        let mut command = Command::new(bin);
        command.arg("db").stdout(Stdio::piped());
        // SAFETY: prctl is async-signal-safe, as pre_exec requires.
        unsafe { command.pre_exec(|| if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGINT) == 0 { Ok(()) } else { Err(std::io::Error::last_os_error()) }) };
        let mut child = match command.spawn() {
            Ok(child) => child,
            Err(e) => return sender.send(Err(format!("starting {bin} db: {e}"))).unwrap(),
        };
        let mut line = String::new();
        let _ = BufReader::new(child.stdout.take().unwrap()).read_line(&mut line);
        let url = line.trim().strip_prefix("CONCUR_DB_URL=").map(str::to_string).ok_or(format!("{bin} db printed {line:?}"));
        sender.send(url).unwrap();
        loop {
            thread::park();
        }
    });
    receiver.recv().map_err(|e| e.to_string())?
}

/// A server on the test database with a pool of `pool` and `/slowdb` of `slow`.
fn server(pool: u32, slow: Duration) -> TestServer {
    let url = database_url();
    TestServer::with(|config| {
        config.db = Some(url.parse().unwrap());
        config.db_pool = pool;
        config.db_slow = slow;
    })
}

/// The `randomnumber` of row `id`, read from the database itself.
fn stored(id: i64) -> i64 {
    let mut client = postgres::Client::connect(database_url(), postgres::NoTls).unwrap();
    i64::from(client.query_one("SELECT randomnumber FROM world WHERE id = $1", &[&(id as i32)]).unwrap().get::<_, i32>(0))
}

fn rows(server: &TestServer, target: &str) -> Vec<(i64, i64)> {
    let reply = server.call("GET", target, b"");
    reply.expect(200, "application/json", None);
    let value: Value = serde_json::from_slice(&reply.body).unwrap();
    let list = if target.starts_with("/db") || target.starts_with("/slowdb") { vec![value] } else { value.as_array().expect("an array").clone() };
    list.iter()
        .map(|row| {
            let object = row.as_object().expect("a row is an object");
            assert_eq!(object.len(), 2, "{row}");
            (object["id"].as_i64().unwrap(), object["randomNumber"].as_i64().unwrap())
        })
        .collect()
}

#[test]
fn db_answers_a_row_as_stored() {
    let server = server(4, Duration::ZERO);
    let [(id, number)] = rows(&server, "/db")[..] else { panic!("one row") };
    assert!((1..=10_000).contains(&id));
    assert_eq!(number, stored(id));
}

#[test]
fn queries_clamps_n_and_reads_the_stored_rows() {
    let server = server(4, Duration::ZERO);
    for (query, want) in [("", 1), ("?queries=", 1), ("?queries=foo", 1), ("?queries=0", 1), ("?queries=20", 20), ("?queries=500", 500), ("?queries=501", 500)]
    {
        assert_eq!(rows(&server, &format!("/queries{query}")).len(), want, "{query}");
    }
    for (id, number) in rows(&server, "/queries?queries=3") {
        assert_eq!(number, stored(id), "row {id}");
    }
}

#[test]
fn updates_write_the_new_numbers() {
    let server = server(4, Duration::ZERO);
    let answered = rows(&server, "/updates?queries=20");
    assert_eq!(answered.len(), 20);
    for &(id, _) in &answered {
        // An id drawn twice keeps one of its two numbers (SPEC §8.3).
        let numbers: Vec<i64> = answered.iter().filter(|row| row.0 == id).map(|row| row.1).collect();
        assert!(numbers.contains(&stored(id)), "row {id} answered {numbers:?}, stored {}", stored(id));
    }
}

#[test]
fn fortunes_is_the_escaped_sorted_page() {
    let server = server(4, Duration::ZERO);
    let reply = server.call("GET", "/fortunes", b"");
    reply.expect(200, "text/html; charset=utf-8", None);
    let page = reply.text();
    let first = "<tr><td>11</td><td>&lt;script&gt;alert(&quot;This should not be displayed in a browser alert box.&quot;);&lt;/script&gt;</td></tr>";
    assert!(page.contains(&format!("<th>message</th></tr>{first}<tr><td>4</td>")), "{page}");
    assert!(page.contains("<tr><td>0</td><td>Additional fortune added at request time.</td></tr>"), "{page}");
    assert!(page.contains("aren&#39;t broken"), "{page}");
    assert!(page.ends_with("<tr><td>12</td><td>フレームワークのベンチマーク</td></tr></table></body></html>"), "{page}");
    assert_eq!(page.matches("<tr><td>").count(), 13);
}

#[test]
fn slowdb_waits_in_the_query() {
    let server = server(4, Duration::from_millis(100));
    let started = Instant::now();
    rows(&server, "/slowdb");
    assert!(started.elapsed() >= Duration::from_millis(100), "answered after {:?}", started.elapsed());
}

/// With a pool of 2, eight slow queries at once run two at a time: the
/// others block their threads until a connection is free.
#[test]
fn requests_wait_for_a_pooled_connection() {
    let server = server(2, Duration::from_millis(50));
    let started = Instant::now();
    thread::scope(|s| {
        for _ in 0..8 {
            s.spawn(|| rows(&server, "/slowdb"));
        }
    });
    assert!(started.elapsed() >= Duration::from_millis(200), "8 slow queries on 2 connections took {:?}", started.elapsed());
}

#[test]
fn no_database_is_503_and_the_other_routes_serve() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let refused = format!("postgres://u:p@{}/db", closed.local_addr().unwrap());
    drop(closed);
    for url in [None, Some(refused)] {
        let server = TestServer::with(|config| config.db = url.as_deref().map(|url| url.parse().unwrap()));
        for target in ["/db", "/queries?queries=2", "/updates", "/fortunes", "/slowdb"] {
            let started = Instant::now();
            server.call("GET", target, b"").expect(503, "text/plain", None);
            assert!(started.elapsed() < Duration::from_secs(5), "{url:?} {target}: 503 after {:?}", started.elapsed());
        }
        server.call("GET", "/", b"").expect(200, "text/plain", Some("Hello, World!"));
    }
}

#[test]
fn database_routes_refuse_other_methods() {
    let server = TestServer::start();
    for target in ["/db", "/queries", "/updates", "/fortunes", "/slowdb"] {
        let reply = server.call("POST", target, b"");
        reply.expect(405, "text/plain", None);
        assert_eq!(reply.header("allow"), Some("GET, HEAD"));
    }
    server.call("GET", "/db/1", b"").expect(404, "text/plain", None);
}
