//! The one error type of the handlers and extractors: a status and a
//! one-line reason, answered as `text/plain` (spec/SPEC.md §3).

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use std::borrow::Cow;

#[derive(Debug)]
pub struct AppError {
    pub status: StatusCode,
    pub reason: Cow<'static, str>,
}

impl AppError {
    pub fn new(status: StatusCode, reason: impl Into<Cow<'static, str>>) -> AppError {
        AppError { status, reason: reason.into() }
    }

    pub fn bad_request(reason: impl Into<Cow<'static, str>>) -> AppError {
        AppError::new(StatusCode::BAD_REQUEST, reason)
    }

    pub fn not_found(reason: impl Into<Cow<'static, str>>) -> AppError {
        AppError::new(StatusCode::NOT_FOUND, reason)
    }
}

impl IntoResponse for AppError {
    /// A `String` body is axum's `text/plain; charset=utf-8`. Reasons that
    /// quote another library's error are cut to their first line.
    fn into_response(self) -> Response {
        let line = self.reason.lines().next().unwrap_or_default();
        (self.status, format!("{line}\n")).into_response()
    }
}
