//! The two extractors the user routes share: `{user}` as sent, and the body
//! as a `serde_json::Value`. They run in the order SPEC §3 applies its rules:
//! a handler takes `UserName` before `JsonBody`, so a bad name is 400 before
//! the body is looked at, and an oversized body is 413 before it is parsed.

use crate::error::AppError;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{FromRequest, FromRequestParts, MatchedPath, Request};
use axum::http::request::Parts;
use axum::http::{StatusCode, header};
use serde_json::Value;

/// The largest request body a route takes (SPEC §3.5). `app()` also sets it as
/// axum's `DefaultBodyLimit`, which bounds a chunked body while it streams.
pub const BODY_LIMIT: usize = 1 << 20;

/// `{user}` exactly as it appears in the request target.
///
/// axum's `Path` percent-decodes, but the contract checks the raw name
/// (`%41` is not `A`), so this reads `uri.path()` after the route's prefix:
/// the part of the matched route (`/user/get/{*user}`) before its `{`.
#[derive(Debug)]
pub struct UserName(pub String);

impl<S: Send + Sync> FromRequestParts<S> for UserName {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, AppError> {
        let route = MatchedPath::from_request_parts(parts, state)
            .await
            .map_err(|e| AppError::new(StatusCode::INTERNAL_SERVER_ERROR, e.body_text()))?;
        let prefix = route.as_str().split('{').next().unwrap_or_default();
        let name = parts.uri.path().strip_prefix(prefix).unwrap_or_default();
        if valid_user_name(name) {
            Ok(UserName(name.to_owned()))
        } else {
            Err(AppError::bad_request("invalid user name: must match [A-Za-z0-9_.-]{1,64}"))
        }
    }
}

fn valid_user_name(name: &str) -> bool {
    (1..=64).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

/// The request body parsed into serde_json's `Value`.
///
/// Not axum's `Json`: that one answers 415 to a body without
/// `Content-Type: application/json`, and the contract checks no content type.
/// `serde_json::from_slice` refuses bytes that are not UTF-8 (SPEC §2).
#[derive(Debug)]
pub struct JsonBody(pub Value);

impl<S: Send + Sync> FromRequest<S> for JsonBody {
    type Rejection = AppError;

    async fn from_request(req: Request, state: &S) -> Result<Self, AppError> {
        // Refuse from the header alone, as tower-http's RequestBodyLimit does:
        // nothing is read, and hyper sends no `100 Continue`.
        if declared_length(&req).is_some_and(|len| len > BODY_LIMIT as u64) {
            return Err(too_large());
        }
        let bytes = Bytes::from_request(req, state).await.map_err(body_error)?;
        serde_json::from_slice(&bytes).map(JsonBody).map_err(|e| AppError::bad_request(format!("invalid JSON: {e}")))
    }
}

fn declared_length(req: &Request) -> Option<u64> {
    req.headers().get(header::CONTENT_LENGTH)?.to_str().ok()?.parse().ok()
}

/// axum answers 413 when `DefaultBodyLimit` is crossed and 400 when the body
/// cannot be read (bad chunk framing); both become our one-line errors.
fn body_error(rejection: BytesRejection) -> AppError {
    match rejection.status() {
        StatusCode::PAYLOAD_TOO_LARGE => too_large(),
        status => AppError::new(status, format!("could not read the request body: {}", rejection.body_text())),
    }
}

fn too_large() -> AppError {
    AppError::new(StatusCode::PAYLOAD_TOO_LARGE, format!("request body over {BODY_LIMIT} bytes"))
}

#[cfg(test)]
mod tests {
    use super::valid_user_name;

    #[test]
    fn user_names_follow_spec_section_3_4() {
        for good in ["a", "Alice_1.2-3", &"x".repeat(64)] {
            assert!(valid_user_name(good), "{good}");
        }
        for bad in ["", "a/b", "%41", "a b", "ü", "a:b", "a+b", "a~b", &"x".repeat(65)] {
            assert!(!valid_user_name(bad), "{bad}");
        }
    }
}
