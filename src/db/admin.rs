//! concur's own login to a cluster, and every question it asks of it: the
//! rows (to check what a server answered), the statements and connections
//! of the server's user (`pg_stat_statements`, `pg_stat_activity`: to
//! catch caching, batching and an unbounded pool), and turning the
//! server's logins away and back (the database gone, SPEC §8.4). The
//! answers are plain values; no other module writes SQL.

use super::seed::{ADMIN_PASSWORD, ADMIN_USER, APP_USER, DATABASE};
use anyhow::{Context, Result};
use postgres::{Client, Config, NoTls};
use std::collections::BTreeMap;
use std::time::Duration;

/// What the server's user has run so far: cumulative counters from
/// `pg_stat_statements`, to be compared before and after some requests.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Statements {
    /// Executions of statements reading `world` (not updating it).
    pub world_reads: i64,
    /// Rows those returned.
    pub world_rows_read: i64,
    /// Executions of statements updating `world`, and the rows they changed.
    pub world_updates: i64,
    pub world_rows_updated: i64,
    /// Executions of statements reading `fortune`.
    pub fortune_reads: i64,
    /// Executions of statements calling `pg_sleep`, and the milliseconds the database spent in them.
    pub sleeps: i64,
    pub sleep_ms: f64,
    /// Executions of `BEGIN` or `START TRANSACTION`: explicit transactions.
    pub transactions: i64,
}

impl Statements {
    /// The counts of `self` since `before`.
    pub fn since(&self, before: &Statements) -> Statements {
        Statements {
            world_reads: self.world_reads - before.world_reads,
            world_rows_read: self.world_rows_read - before.world_rows_read,
            world_updates: self.world_updates - before.world_updates,
            world_rows_updated: self.world_rows_updated - before.world_rows_updated,
            fortune_reads: self.fortune_reads - before.fortune_reads,
            sleeps: self.sleeps - before.sleeps,
            sleep_ms: self.sleep_ms - before.sleep_ms,
            transactions: self.transactions - before.transactions,
        }
    }
}

/// An error as PostgreSQL worded it (the driver's own text for a database
/// error is only "db error").
pub fn describe(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => format!("{}: {}", db.severity(), db.message()),
        None => e.to_string(),
    }
}

/// One admin connection, and how it was made (for a second one to another database).
pub struct Admin(Client, Config);

/// The admin's URL for the cluster on 127.0.0.1:`port`.
pub fn admin_url(port: u16) -> String {
    format!("postgres://{ADMIN_USER}:{ADMIN_PASSWORD}@127.0.0.1:{port}/{DATABASE}")
}

impl Admin {
    /// Logs in with `url` (an admin URL).
    pub fn connect(url: &str) -> Result<Admin, String> {
        let mut config: Config = url.parse().map_err(|e| format!("{url}: not a PostgreSQL URL ({e})"))?;
        config.connect_timeout(Duration::from_secs(5));
        Admin::with(config).map_err(|e| format!("cannot log in to the database as {ADMIN_USER}: {e}"))
    }

    /// Logs in to database `db` of the cluster on 127.0.0.1:`port`.
    pub fn login(port: u16, db: &str) -> Result<Admin, String> {
        let mut config = Config::new();
        config.host("127.0.0.1").port(port).user(ADMIN_USER).password(ADMIN_PASSWORD).dbname(db).connect_timeout(Duration::from_secs(2));
        Admin::with(config)
    }

    fn with(config: Config) -> Result<Admin, String> {
        let client = config.connect(NoTls).map_err(|e| describe(&e))?;
        Ok(Admin(client, config))
    }

    /// Runs each statement on its own.
    pub fn run_each(&mut self, statements: &[String]) -> Result<()> {
        for sql in statements {
            self.0.batch_execute(sql).with_context(|| format!("running {sql}"))?;
        }
        Ok(())
    }

    /// Every row of `world`: id → randomNumber.
    pub fn world(&mut self) -> Result<BTreeMap<i32, i32>, String> {
        let rows = self.0.query("SELECT id, randomnumber FROM world", &[]).map_err(|e| format!("reading world: {}", describe(&e)))?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    /// Every row of `fortune`, by id.
    pub fn fortunes(&mut self) -> Result<Vec<(i32, String)>, String> {
        let rows = self.0.query("SELECT id, message FROM fortune ORDER BY id", &[]).map_err(|e| format!("reading fortune: {}", describe(&e)))?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    /// What the server's user has run so far.
    pub fn statements(&mut self) -> Result<Statements, String> {
        let sql = "SELECT
            coalesce(sum(calls) FILTER (WHERE query ~* '\\mworld\\M' AND query !~* '\\mupdate\\M'), 0)::bigint,
            coalesce(sum(rows) FILTER (WHERE query ~* '\\mworld\\M' AND query !~* '\\mupdate\\M'), 0)::bigint,
            coalesce(sum(calls) FILTER (WHERE query ~* '\\mworld\\M' AND query ~* '\\mupdate\\M'), 0)::bigint,
            coalesce(sum(rows) FILTER (WHERE query ~* '\\mworld\\M' AND query ~* '\\mupdate\\M'), 0)::bigint,
            coalesce(sum(calls) FILTER (WHERE query ~* '\\mfortune\\M'), 0)::bigint,
            coalesce(sum(calls) FILTER (WHERE query ~* 'pg_sleep'), 0)::bigint,
            coalesce(sum(total_exec_time) FILTER (WHERE query ~* 'pg_sleep'), 0)::float8,
            coalesce(sum(calls) FILTER (WHERE query ~* '^\\s*(begin|start\\s+transaction)\\M'), 0)::bigint
            FROM pg_stat_statements WHERE userid = (SELECT oid FROM pg_roles WHERE rolname = $1)";
        let r = self.0.query_one(sql, &[&APP_USER]).map_err(|e| format!("reading pg_stat_statements: {}", describe(&e)))?;
        Ok(Statements {
            world_reads: r.get(0),
            world_rows_read: r.get(1),
            world_updates: r.get(2),
            world_rows_updated: r.get(3),
            fortune_reads: r.get(4),
            sleeps: r.get(5),
            sleep_ms: r.get(6),
            transactions: r.get(7),
        })
    }

    /// The connections the server's user holds now, busy or idle.
    pub fn connections(&mut self) -> Result<i64, String> {
        let r = self.0.query_one("SELECT count(*) FROM pg_stat_activity WHERE usename = $1", &[&APP_USER]).map_err(|e| format!("reading pg_stat_activity: {}", describe(&e)))?;
        Ok(r.get(0))
    }

    /// Turns the server's user away: no new logins, and its connections ended.
    pub fn refuse_server(&mut self) -> Result<(), String> {
        self.allow_connections(false)?;
        self.0.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1", &[&APP_USER]).map_err(|e| format!("ending the server's connections: {}", describe(&e)))?;
        Ok(())
    }

    /// Lets the server's user log in again.
    pub fn admit_server(&mut self) -> Result<(), String> {
        self.allow_connections(true)
    }

    /// PostgreSQL changes this only from another database than the one changed.
    fn allow_connections(&mut self, allow: bool) -> Result<(), String> {
        let mut config = self.1.clone();
        let mut other = Admin::with(config.dbname("postgres").to_owned())?;
        let sql = format!("ALTER DATABASE {DATABASE} ALLOW_CONNECTIONS {allow}");
        other.0.batch_execute(&sql).map_err(|e| format!("{sql}: {}", describe(&e)))
    }
}
