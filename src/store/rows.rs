//! Reading and finding rows the same way in every table: a JSON column
//! decoded with its error kept, a count stored as SQLite's signed integer
//! read back as `u64`, a search found by its key, the keys of a run's searches
//! that ended (the capacity and clients-held tables share their shape).

use rusqlite::{Connection, OptionalExtension, Row, params};
use std::collections::HashSet;

/// Column `col`, JSON text, decoded.
pub fn json<T: serde::de::DeserializeOwned>(r: &Row, col: &str) -> rusqlite::Result<T> {
    let text: String = r.get(col)?;
    serde_json::from_str(&text).map_err(json_err)
}

/// Column `col`, a count (never negative when concur wrote it).
pub fn u64_col(r: &Row, col: &str) -> rusqlite::Result<u64> {
    Ok(r.get::<_, i64>(col)?.max(0) as u64)
}

pub(crate) fn json_err(e: serde_json::Error) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(e))
}

/// The id of run `run_id`'s search `key` in `table` (`capacity_searches`, `held_searches`).
pub fn search_id(conn: &Connection, table: &str, run_id: i64, key: &str) -> rusqlite::Result<Option<i64>> {
    conn.query_row(&format!("SELECT id FROM {table} WHERE run_id = ?1 AND key = ?2"), params![run_id, key], |r| r.get(0)).optional()
}

/// Keys of run `run_id`'s searches in `table` that ended (`--resume` skips them).
pub fn ended_keys(conn: &Connection, table: &str, run_id: i64) -> rusqlite::Result<HashSet<String>> {
    let mut stmt = conn.prepare(&format!("SELECT key FROM {table} WHERE run_id = ?1 AND status != 'running'"))?;
    stmt.query_map([run_id], |r| r.get::<_, String>(0))?.collect()
}
