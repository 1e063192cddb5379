//! The database's connections (SPEC §8.2): tokio-postgres under a
//! deadpool-postgres pool, one pool per runtime. Each current-thread runtime
//! (`runtimes.rs`) holds a share of `CONCUR_DB_POOL`, [`shares`] of it, so
//! the shares add up to the bound; a runtime's connections are driven by
//! tasks on that runtime, so no query's bytes cross to another thread (as
//! in TechEmpower's axum entry, which makes a pool per runtime too).
//!
//! A request that finds its runtime's connections all taken waits in
//! `Pool::get`, a suspended task that holds no thread; deadpool hands it the
//! next connection given back. Statements are prepared once per connection
//! (`prepare_cached`) and run by name after.

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use tokio_postgres::NoTls;

/// The pool of one runtime, or why there is none.
#[derive(Clone)]
pub enum Database {
    Pool(Pool),
    Absent(&'static str),
}

impl Database {
    /// A pool of at most `size` connections that opens none yet, so the
    /// server starts (and serves its other routes) with the database down.
    /// Its connections' tasks run on the runtime that first needs them.
    pub fn open(config: Option<&tokio_postgres::Config>, size: usize) -> Database {
        let Some(config) = config else { return Database::Absent("CONCUR_DB_URL is not set") };
        // Fast recycling checks that the connection is open, which the
        // connection's task notices as soon as the database ends it.
        let manager =
            Manager::from_config(config.clone(), NoTls, ManagerConfig { recycling_method: RecyclingMethod::Fast });
        match Pool::builder(manager).max_size(size).build() {
            Ok(pool) => Database::Pool(pool),
            Err(_) => Database::Absent("the database pool could not be built"),
        }
    }

    /// A connection of this runtime's pool, waiting while all are taken.
    pub async fn connection(&self) -> Result<deadpool_postgres::Object, String> {
        match self {
            Database::Pool(pool) => pool.get().await.map_err(|e| e.to_string()),
            Database::Absent(reason) => Err((*reason).to_string()),
        }
    }
}

/// `CONCUR_DB_POOL` divided among `runtimes`, the first ones taking one
/// more when it does not divide evenly: the shares add up to `pool`.
pub fn shares(pool: usize, runtimes: usize) -> Vec<usize> {
    (0..runtimes).map(|i| pool / runtimes + usize::from(i < pool % runtimes)).collect()
}

#[cfg(test)]
mod tests {
    use super::shares;

    #[test]
    fn the_shares_add_up_to_the_pool() {
        assert_eq!(shares(16, 1), [16]);
        assert_eq!(shares(6, 2), [3, 3]);
        assert_eq!(shares(7, 3), [3, 2, 2]);
        assert_eq!(shares(4, 4), [1, 1, 1, 1]);
    }
}
