//! The per-user JSON objects: `/user/set` keeps the parsed `Value`,
//! `/user/get` serializes it anew on every request.

use crate::AppState;
use crate::error::AppError;
use crate::extract::{JsonBody, UserName};
use axum::Json;
use axum::extract::State;
use axum::response::{IntoResponse, Response};

pub async fn set(
    State(state): State<AppState>,
    UserName(user): UserName,
    JsonBody(value): JsonBody,
) -> Result<&'static str, AppError> {
    if !value.is_object() {
        return Err(AppError::bad_request("the body must be a JSON object"));
    }
    state.users.write().unwrap().insert(user, value);
    Ok("OK")
}

/// Serialized under the read lock, which other readers share, rather than
/// after a deep copy of the value.
pub async fn get(State(state): State<AppState>, UserName(user): UserName) -> Result<Response, AppError> {
    let users = state.users.read().unwrap();
    let value = users.get(&user).ok_or_else(|| AppError::not_found(format!("no user info for {user}")))?;
    Ok(Json(value).into_response())
}
