//! The routes of the `world` table (SPEC §8.3): `/db`, `/queries`,
//! `/updates` and `/slowdb`. Each takes one pooled connection for all its
//! statements and blocks its thread on each one in turn, and gives it back
//! as soon as the last statement's result is read, before the rows become
//! JSON ([`App::with_conn`]); every error of the pool or of a query is a 503
//! with the reason (SPEC §8.4).

use super::db::Conn;
use super::{App, Reply};
use crate::http::Response;
use postgres::{Client, Statement};
use serde_json::{Value, json};

const WORLD_ROWS: i32 = 10_000;
const MAX_QUERIES: usize = 500;

impl App {
    pub(super) fn single_query(&self) -> Reply {
        let row = self.with_conn(|conn| read_row(&mut conn.client, &conn.row, &[]))?;
        Ok(json_reply(row_json(row)))
    }

    pub(super) fn slow_query(&self) -> Reply {
        let seconds = self.db_slow.as_secs_f64();
        let row = self.with_conn(|conn| read_row(&mut conn.client, &conn.slow, &[&seconds]))?;
        Ok(json_reply(row_json(row)))
    }

    pub(super) fn queries(&self, query: Option<&str>) -> Reply {
        let rows = self.with_conn(|conn| (0..query_count(query)).map(|_| read_row(&mut conn.client, &conn.row, &[])).collect::<Result<Vec<_>, _>>())?;
        Ok(json_reply(Value::Array(rows.into_iter().map(row_json).collect())))
    }

    pub(super) fn updates(&self, query: Option<&str>) -> Reply {
        let rows = self.with_conn(|conn| {
            let mut rows = Vec::with_capacity(query_count(query));
            for _ in 0..rows.capacity() {
                let (id, _) = read_row(&mut conn.client, &conn.row, &[])?;
                rows.push((id, random_id()));
            }
            // Written in id order (see db::UPDATE_ROWS), answered in the order read.
            let mut sorted = rows.clone();
            sorted.sort_unstable();
            let (ids, numbers): (Vec<i32>, Vec<i32>) = sorted.into_iter().unzip();
            conn.client.execute(&conn.update, &[&ids, &numbers])?;
            Ok(rows)
        })?;
        Ok(json_reply(Value::Array(rows.into_iter().map(row_json).collect())))
    }

    /// Runs `work` on one pooled connection and returns what it read; the
    /// connection goes back to the pool when `work` returns, before the
    /// caller renders the answer.
    fn with_conn<T>(&self, work: impl FnOnce(&mut Conn) -> Result<T, postgres::Error>) -> Result<T, Response> {
        let mut conn = self.db.connection().map_err(unavailable)?;
        work(&mut conn).map_err(|e| unavailable(e.to_string()))
    }
}

fn json_reply(value: Value) -> Response {
    Response::json(serde_json::to_vec(&value).expect("a JSON value serializes"))
}

/// The 503 of SPEC §8.4, its reason on one line.
pub(super) fn unavailable(reason: String) -> Response {
    Response::error(503, format!("database unavailable: {reason}"))
}

/// Reads the row of a random id with `statement`, whose first parameter is
/// the id and `rest` the others.
fn read_row(client: &mut Client, statement: &Statement, rest: &[&(dyn postgres::types::ToSql + Sync)]) -> Result<(i32, i32), postgres::Error> {
    let id = random_id();
    let params: Vec<&(dyn postgres::types::ToSql + Sync)> = [&id as _].into_iter().chain(rest.iter().copied()).collect();
    let row = client.query_one(statement, &params)?;
    Ok((row.get(0), row.get(1)))
}

fn row_json((id, number): (i32, i32)) -> Value {
    json!({ "id": id, "randomNumber": number })
}

fn random_id() -> i32 {
    fastrand::i32(1..=WORLD_ROWS)
}

/// The `queries` parameter of the query string, clamped to 1..=500; a value
/// that is missing or not an integer counts as 1 (SPEC §8.3).
pub fn query_count(query: Option<&str>) -> usize {
    let value = query.unwrap_or("").split('&').find_map(|pair| pair.strip_prefix("queries="));
    match value.and_then(|v| v.parse::<i64>().ok()) {
        Some(n) if n > MAX_QUERIES as i64 => MAX_QUERIES,
        Some(n) if n >= 1 => n as usize,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::query_count;

    #[test]
    fn queries_is_clamped_to_1_through_500() {
        for (query, want) in [(None, 1), (Some(""), 1), (Some("queries="), 1), (Some("queries=foo"), 1), (Some("queries=0"), 1), (Some("queries=-3"), 1)] {
            assert_eq!(query_count(query), want, "{query:?}");
        }
        for (query, want) in [("queries=20", 20), ("x=1&queries=500", 500), ("queries=501", 500), ("queries=99999999999999999999", 1)] {
            assert_eq!(query_count(Some(query)), want, "{query:?}");
        }
    }
}
