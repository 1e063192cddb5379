//! The routes without state of their own: `/`, `/json`, `/page` (every Nth
//! delayed) and `/longPoll`. Every wait is a `tokio::time::sleep`, which
//! parks the task, never a worker thread.

use crate::AppState;
use crate::error::AppError;
use axum::Json;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use serde_json::json;
use std::sync::atomic::Ordering;

pub async fn hello() -> &'static str {
    "Hello, World!"
}

/// Serialized from a `Value` on every request (axum's `Json` response sets
/// `application/json`).
pub async fn hello_json() -> Json<serde_json::Value> {
    Json(json!({ "message": "Hello, World!" }))
}

/// The page file, read from disk on every request, as the blog series did.
pub async fn page(State(state): State<AppState>) -> Result<impl IntoResponse, AppError> {
    let n = state.page_requests.fetch_add(1, Ordering::Relaxed) + 1;
    if n % state.config.page_delay_every == 0 {
        tokio::time::sleep(state.config.page_delay).await;
    }
    let bytes = tokio::fs::read(&state.config.page_file).await.map_err(|e| {
        let file = state.config.page_file.display();
        AppError::new(StatusCode::INTERNAL_SERVER_ERROR, format!("cannot read {file}: {e}"))
    })?;
    Ok(([(header::CONTENT_TYPE, "text/html; charset=utf-8")], bytes))
}

pub async fn long_poll(State(state): State<AppState>) -> &'static str {
    tokio::time::sleep(state.config.long_poll).await;
    "OK"
}
