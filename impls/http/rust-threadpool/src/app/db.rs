//! The database's connections (SPEC §8.2): the synchronous `postgres` crate
//! under an `r2d2` pool of at most `CONCUR_DB_POOL` connections, shared by
//! every pool thread, so the bound holds however many threads the server
//! grows. A request's thread blocks in [`Database::connection`] until a
//! connection is free, then blocks on each query: this model's way to wait.
//!
//! The connection type is ours rather than `r2d2_postgres`'s so that each
//! connection prepares the routes' statements once, when it opens, and every
//! request after runs them by name (the TechEmpower Rust entries do the same).

use postgres::{Client, NoTls, Statement};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// One read of a random row.
const SELECT_ROW: &str = "SELECT id, randomnumber FROM world WHERE id = $1";
/// The wait is the query's own, so the connection is held through it.
const SELECT_SLOW: &str = "SELECT id, randomnumber FROM world, pg_sleep($2) WHERE id = $1";
const SELECT_FORTUNES: &str = "SELECT id, message FROM fortune";
/// One statement for a request's rows, given in ascending id order so that
/// two requests lock shared rows in the same order and never deadlock.
const UPDATE_ROWS: &str = "UPDATE world SET randomnumber = u.r FROM unnest($1::int[], $2::int[]) AS u(id, r) WHERE world.id = u.id";

/// How long a request waits for a connection before it looks whether the
/// database turned the pool away; it goes on waiting while it did not.
const WAIT_SLICE: Duration = Duration::from_millis(500);

/// An open connection and its prepared statements.
pub struct Conn {
    pub client: Client,
    pub row: Statement,
    pub slow: Statement,
    pub fortunes: Statement,
    pub update: Statement,
}

/// The pool, or why there is none.
pub enum Database {
    Pool { pool: r2d2::Pool<Manager>, failure: Failure },
    Absent(&'static str),
}

/// The last reason the database refused a connection, cleared by the next
/// connection that opens: shared by the pool's opener threads and the
/// requests that wait for them.
type Failure = Arc<Mutex<Option<String>>>;

pub struct Manager {
    config: postgres::Config,
    failure: Failure,
}

impl Database {
    /// A pool that opens no connection yet, so the server starts (and
    /// serves its other routes) whether or not the database is there.
    pub fn open(config: Option<&postgres::Config>, size: u32) -> Database {
        let Some(config) = config else { return Database::Absent("CONCUR_DB_URL is not set") };
        let failure = Failure::default();
        let manager = Manager { config: config.clone(), failure: Arc::clone(&failure) };
        let pool = r2d2::Pool::builder()
            .max_size(size)
            .min_idle(Some(0))
            // A dead connection fails its request (a 503) and is dropped then;
            // a test query on every checkout would cost every request a round trip.
            .test_on_check_out(false)
            // Bounds r2d2's retry interval after a refused connection, so the
            // routes come back within a second of the database.
            .connection_timeout(Duration::from_secs(2))
            .build_unchecked(manager);
        Database::Pool { pool, failure }
    }

    /// A connection for the request's statements, waiting as long as the
    /// pool is busy; the reason, when the database turns the pool away.
    pub fn connection(&self) -> Result<r2d2::PooledConnection<Manager>, String> {
        let (pool, failure) = match self {
            Database::Pool { pool, failure } => (pool, failure),
            Database::Absent(reason) => return Err((*reason).to_string()),
        };
        loop {
            if let Ok(conn) = pool.get_timeout(WAIT_SLICE) {
                return Ok(conn);
            }
            if let Some(reason) = failure.lock().unwrap_or_else(PoisonError::into_inner).clone() {
                return Err(reason);
            }
        }
    }
}

impl r2d2::ManageConnection for Manager {
    type Connection = Conn;
    type Error = postgres::Error;

    fn connect(&self) -> Result<Conn, postgres::Error> {
        let opened = open(&self.config);
        let reason = opened.as_ref().err().map(ToString::to_string);
        *self.failure.lock().unwrap_or_else(PoisonError::into_inner) = reason;
        opened
    }

    fn is_valid(&self, conn: &mut Conn) -> Result<(), postgres::Error> {
        conn.client.simple_query("").map(|_| ())
    }

    /// A connection the database ended is closed once a query saw it.
    fn has_broken(&self, conn: &mut Conn) -> bool {
        conn.client.is_closed()
    }
}

fn open(config: &postgres::Config) -> Result<Conn, postgres::Error> {
    let mut client = config.connect(NoTls)?;
    Ok(Conn {
        row: client.prepare(SELECT_ROW)?,
        slow: client.prepare(SELECT_SLOW)?,
        fortunes: client.prepare(SELECT_FORTUNES)?,
        update: client.prepare(UPDATE_ROWS)?,
        client,
    })
}
