//! The routes of the `world` table (SPEC §8.3): `/db`, `/queries`,
//! `/updates` and `/slowdb`. Each takes one connection of its runtime's pool
//! for all its statements and sends each after the previous one's answer
//! (spec/POLICIES.md §6.1: one statement in flight per connection; polling
//! the reads together would pipeline them, as tokio-postgres does for the
//! queries its caller polls at once, a driver's gift most entries' drivers
//! do not offer). The connection goes back to the pool (`drop(conn)`) as
//! soon as the last statement's result is read, before the rows become JSON.
//! Any error of the pool or of a query is a 503 with the reason (SPEC §8.4).

use crate::AppState;
use crate::error::AppError;
use axum::Json;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use serde_json::{Value, json};
use tokio_postgres::{Client, Statement};

const WORLD_ROWS: i32 = 10_000;
const MAX_QUERIES: usize = 500;
const SELECT_ROW: &str = "SELECT id, randomnumber FROM world WHERE id = $1";
/// The wait is the query's own, so the connection is held through it.
const SELECT_SLOW: &str = "SELECT id, randomnumber FROM world, pg_sleep($2) WHERE id = $1";
/// One statement for a request's rows, given in ascending id order so that
/// two requests lock shared rows in the same order and never deadlock.
const UPDATE_ROWS: &str =
    "UPDATE world SET randomnumber = u.r FROM unnest($1::int[], $2::int[]) AS u(id, r) WHERE world.id = u.id";

pub async fn single_query(State(state): State<AppState>) -> Result<Json<Value>, AppError> {
    let conn = state.db.connection().await.map_err(unavailable)?;
    let statement = conn.prepare_cached(SELECT_ROW).await.map_err(failed)?;
    let row = read_row(&conn, &statement).await.map_err(failed)?;
    drop(conn);
    Ok(Json(row_json(row)))
}

pub async fn slow_query(State(state): State<AppState>) -> Result<Json<Value>, AppError> {
    let conn = state.db.connection().await.map_err(unavailable)?;
    let slow = conn.prepare_cached(SELECT_SLOW).await.map_err(failed)?;
    let seconds = state.config.db_slow.as_secs_f64();
    let row = conn.query_one(&slow, &[&random_id(), &seconds]).await.map_err(failed)?;
    drop(conn);
    Ok(Json(row_json((row.get(0), row.get(1)))))
}

pub async fn queries(State(state): State<AppState>, RawQuery(query): RawQuery) -> Result<Json<Value>, AppError> {
    let conn = state.db.connection().await.map_err(unavailable)?;
    let rows = read_rows(&conn, query_count(query.as_deref())).await.map_err(failed)?;
    drop(conn);
    Ok(Json(Value::Array(rows.into_iter().map(row_json).collect())))
}

pub async fn updates(State(state): State<AppState>, RawQuery(query): RawQuery) -> Result<Json<Value>, AppError> {
    let conn = state.db.connection().await.map_err(unavailable)?;
    let read = read_rows(&conn, query_count(query.as_deref())).await.map_err(failed)?;
    let rows: Vec<(i32, i32)> = read.into_iter().map(|(id, _)| (id, random_id())).collect();
    // Written in id order (see UPDATE_ROWS), answered in the order read.
    let mut sorted = rows.clone();
    sorted.sort_unstable();
    let (ids, numbers): (Vec<i32>, Vec<i32>) = sorted.into_iter().unzip();
    let update = conn.prepare_cached(UPDATE_ROWS).await.map_err(failed)?;
    conn.execute(&update, &[&ids, &numbers]).await.map_err(failed)?;
    drop(conn);
    Ok(Json(Value::Array(rows.into_iter().map(row_json).collect())))
}

/// `n` random rows, a statement each, one after the other on `conn`.
async fn read_rows(conn: &deadpool_postgres::Client, n: usize) -> Result<Vec<(i32, i32)>, tokio_postgres::Error> {
    let row = conn.prepare_cached(SELECT_ROW).await?;
    let mut rows = Vec::with_capacity(n);
    for _ in 0..n {
        rows.push(read_row(conn, &row).await?);
    }
    Ok(rows)
}

async fn read_row(conn: &Client, statement: &Statement) -> Result<(i32, i32), tokio_postgres::Error> {
    let row = conn.query_one(statement, &[&random_id()]).await?;
    Ok((row.get(0), row.get(1)))
}

fn row_json((id, number): (i32, i32)) -> Value {
    json!({ "id": id, "randomNumber": number })
}

fn random_id() -> i32 {
    fastrand::i32(1..=WORLD_ROWS)
}

/// The 503 of SPEC §8.4: the pool could not give a connection.
pub fn unavailable(reason: String) -> AppError {
    AppError::new(StatusCode::SERVICE_UNAVAILABLE, format!("database unavailable: {reason}"))
}

/// The 503 of SPEC §8.4: a statement failed (the connection ended under it, say).
pub fn failed(e: impl std::fmt::Display) -> AppError {
    unavailable(e.to_string())
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
        for (query, want) in [
            (None, 1),
            (Some(""), 1),
            (Some("queries="), 1),
            (Some("queries=foo"), 1),
            (Some("queries=0"), 1),
            (Some("queries=-3"), 1),
        ] {
            assert_eq!(query_count(query), want, "{query:?}");
        }
        for (query, want) in
            [("queries=20", 20), ("x=1&queries=500", 500), ("queries=501", 500), ("queries=99999999999999999999", 1)]
        {
            assert_eq!(query_count(Some(query)), want, "{query:?}");
        }
    }
}
