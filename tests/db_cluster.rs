//! The database of SPEC §8 as concur runs it: a cluster starts seeded from
//! the template, gives the server's user exactly its rights, and leaves no
//! process and no folder behind: when dropped, when `concur db` gets Ctrl-C,
//! and when it is killed with SIGKILL (which no handler sees). A template of
//! another layout is made anew, not used.

use crate::database::{self, postgres_in, postgres_of};
use concur::db::{Admin, Cluster, Options};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Waits up to `within` for `done`.
fn eventually(within: Duration, mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + within;
    while !done() {
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    true
}

#[test]
fn a_cluster_is_seeded_and_its_server_user_may_read_and_update_only() {
    if !database::installed() {
        return;
    }
    let cluster = Cluster::start(&database::options()).unwrap();
    let mut admin = Admin::connect(&cluster.admin_url()).unwrap();
    let world = admin.world().unwrap();
    assert_eq!(world.len(), 10_000);
    assert!(world.keys().copied().eq(1..=10_000) && world.values().all(|n| (1..=10_000).contains(n)));
    let fortunes = admin.fortunes().unwrap();
    assert_eq!(fortunes.len(), 12);
    assert!(fortunes.iter().any(|(id, m)| *id == 11 && m.starts_with("<script>")) && fortunes.iter().any(|(_, m)| m == "フレームワークのベンチマーク"));

    let mut app = postgres::Client::connect(&cluster.url(), postgres::NoTls).unwrap();
    let row = app.query_one("UPDATE world SET randomnumber = 7 WHERE id = 1 RETURNING randomnumber", &[]).unwrap();
    assert_eq!(row.get::<_, i32>(0), 7);
    let refused = app.batch_execute("DELETE FROM fortune").unwrap_err();
    assert!(concur::db::admin::describe(&refused).contains("permission denied"), "{refused:?}");
    // Every statement of the server's user is counted, as the verifier needs.
    assert!(admin.statements().unwrap().world_updates >= 1);

    let folder = cluster.folder().to_path_buf();
    let path = folder.to_string_lossy().to_string();
    if concur::host::user::is_root() {
        use std::os::unix::fs::MetadataExt;
        let postgres = concur::host::user::lookup("postgres").unwrap();
        assert_eq!(std::fs::metadata(folder.join("data")).unwrap().uid(), postgres.uid, "as root, PostgreSQL's data belongs to the postgres user");
    }
    assert!(postgres_in(&path).len() >= 2, "the postmaster and its helpers should run: {:?}", postgres_in(&path));
    drop(app);
    drop(cluster);
    assert!(!folder.exists(), "{} outlived its cluster", folder.display());
    assert!(eventually(Duration::from_secs(5), || postgres_in(&path).is_empty()), "PostgreSQL outlived its cluster: {:?}", postgres_in(&path));
}

#[test]
fn a_template_of_another_layout_is_made_anew() {
    if !database::installed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let template = dir.path().join("postgres");
    std::fs::create_dir_all(template.join("base")).unwrap();
    std::fs::write(template.join("concur-layout"), "layout 0\npostgres 9\n").unwrap();
    std::fs::write(template.join("base/leftover"), "half-made").unwrap();
    let cluster = Cluster::start(&Options { template: template.clone(), cpus: None }).unwrap();
    assert!(!template.join("base/leftover").exists(), "the outdated folder was used, not replaced");
    let marker = std::fs::read_to_string(template.join("concur-layout")).unwrap();
    assert!(marker.starts_with(&format!("layout {}\n", concur::db::template::LAYOUT)), "{marker}");
    assert_eq!(Admin::connect(&cluster.admin_url()).unwrap().world().unwrap().len(), 10_000);
}

/// `concur db` on the test template, and the CONCUR_DB_URL it printed.
fn concur_db() -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_concur"))
        .arg("db")
        .arg("--template")
        .arg(database::template())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let url = line.trim().strip_prefix("CONCUR_DB_URL=").unwrap_or_else(|| panic!("concur db printed {line:?}")).to_string();
    (child, url)
}

#[test]
fn concur_db_serves_its_url_and_ctrl_c_leaves_no_postgres() {
    if !database::installed() {
        return;
    }
    let (mut child, url) = concur_db();
    let mut app = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let count: i64 = app.query_one("SELECT count(*) FROM world", &[]).unwrap().get(0);
    assert_eq!(count, 10_000);
    let owner = child.id();
    assert!(!postgres_of(owner).is_empty());
    // SAFETY: signalling our own child.
    unsafe { libc::kill(owner as i32, libc::SIGINT) };
    assert_eq!(child.wait().unwrap().code(), Some(130));
    assert!(eventually(Duration::from_secs(5), || postgres_of(owner).is_empty()), "PostgreSQL outlived Ctrl-C of concur db: {:?}", postgres_of(owner));
    assert!(eventually(Duration::from_secs(5), || !folder_of(owner)), "the cluster's folder outlived Ctrl-C of concur db");
}

#[test]
fn a_killed_concur_db_leaves_no_postgres() {
    if !database::installed() {
        return;
    }
    let (mut child, _url) = concur_db();
    let owner = child.id();
    assert!(!postgres_of(owner).is_empty());
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(eventually(Duration::from_secs(10), || postgres_of(owner).is_empty()), "PostgreSQL outlived SIGKILL of concur db: {:?}", postgres_of(owner));
    assert!(eventually(Duration::from_secs(5), || !folder_of(owner)), "the cluster's folder outlived SIGKILL of concur db");
}

/// Whether a working folder of concur process `owner` exists.
fn folder_of(owner: u32) -> bool {
    let prefix = format!("concur-postgres-{owner}-");
    std::fs::read_dir(std::env::temp_dir()).unwrap().flatten().any(|e| e.file_name().to_string_lossy().starts_with(&prefix))
}

/// The template's own PostgreSQL, started to seed it, had no watchdog: a
/// `concur db` killed while seeding left it running.
#[test]
fn a_concur_db_killed_while_seeding_the_template_leaves_no_postgres() {
    if !database::installed() {
        return;
    }
    let template = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_concur")).arg("db").arg("--template").arg(template.path().join("postgres")).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let owner = child.id();
    assert!(eventually(Duration::from_secs(30), || !postgres_of(owner).is_empty()), "no PostgreSQL started to seed the template");
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(eventually(Duration::from_secs(10), || postgres_of(owner).is_empty()), "PostgreSQL outlived SIGKILL of concur db while seeding: {:?}", postgres_of(owner));
    assert!(eventually(Duration::from_secs(5), || !folder_of(owner)), "the seeding folder outlived SIGKILL of concur db");
}

#[test]
fn a_pool_gives_two_leases_at_once_two_clusters_and_a_returned_one_to_the_next() {
    if !database::installed() {
        return;
    }
    let pool = concur::db::Pool::new(database::options());
    let (a, b) = (pool.lease().unwrap(), pool.lease().unwrap());
    assert_ne!(a.port(), b.port(), "two verifications at once never share a cluster");
    let a_port = a.port();
    drop(a);
    let c = pool.lease().unwrap();
    assert_eq!(c.port(), a_port, "a returned cluster is handed to the next lease, not started anew");
    // Each one's statistics are its own: the server's user ran nothing on b although it ran on c.
    let mut app = postgres::Client::connect(&c.url(), postgres::NoTls).unwrap();
    app.query("SELECT randomnumber FROM world WHERE id = 1", &[]).unwrap();
    let read = |cluster: &Cluster| Admin::connect(&cluster.admin_url()).unwrap().statements().unwrap().world_reads;
    assert!(read(&c) >= 1);
    assert_eq!(read(&b), 0);
}
