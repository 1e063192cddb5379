//! bcrypt set and verify (the thesis' Listings 23-24). Hashes run on tokio's
//! blocking pool, at most `CONCUR_CORES` at once: the others wait for a
//! permit as parked tasks, so no async worker ever computes a hash.

use crate::AppState;
use crate::error::AppError;
use crate::extract::{JsonBody, UserName};
use axum::extract::State;
use axum::http::StatusCode;
use serde_json::Value;

/// bcrypt reads at most 72 bytes and stops at a NUL; the contract refuses
/// both rather than let runtimes differ (SPEC §3.6).
const MAX_PASSWORD_BYTES: usize = 72;

pub async fn set(
    State(state): State<AppState>,
    UserName(user): UserName,
    JsonBody(body): JsonBody,
) -> Result<&'static str, AppError> {
    let password = password_of(&body)?.to_owned();
    let cost = state.config.bcrypt_cost;
    let hash = state.hashing(move || bcrypt::hash(password, cost)).await?;
    state.passwords.write().unwrap().insert(user, hash);
    Ok("OK")
}

pub async fn verify(
    State(state): State<AppState>,
    UserName(user): UserName,
    JsonBody(body): JsonBody,
) -> Result<&'static str, AppError> {
    let password = password_of(&body)?.to_owned();
    let stored = state.passwords.read().unwrap().get(&user).cloned();
    let Some(hash) = stored else {
        // Hash once anyway, so that an unknown user costs what a real check does.
        let cost = state.config.bcrypt_cost;
        state.hashing(move || bcrypt::hash(password, cost)).await?;
        return Err(AppError::not_found(format!("no password is set for {user}")));
    };
    if state.hashing(move || bcrypt::verify(password, &hash)).await? {
        Ok("OK")
    } else {
        Err(AppError::new(StatusCode::FORBIDDEN, "wrong password"))
    }
}

fn password_of(body: &Value) -> Result<&str, AppError> {
    let password = body
        .get("password")
        .and_then(Value::as_str)
        .ok_or_else(|| AppError::bad_request(r#"the body must be a JSON object with a string "password""#))?;
    if password.len() > MAX_PASSWORD_BYTES {
        return Err(AppError::bad_request("password longer than 72 bytes of UTF-8"));
    }
    if password.contains('\0') {
        return Err(AppError::bad_request("password contains U+0000"));
    }
    Ok(password)
}
