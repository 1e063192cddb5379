//! The wrk and blog routes: `/`, `/json`, `/page` (the blog's file server
//! with a delay on every Nth request) and the thesis' `/longPoll`. The waits
//! are `thread::sleep` on the connection's own pool thread: in this model a
//! waiting client holds one thread (SPEC §2 allows it for thread-per-connection).

use super::App;
use crate::http::Response;
use serde_json::json;
use std::sync::atomic::Ordering;
use std::thread;

pub fn root() -> Response {
    Response::text(200, "Hello, World!")
}

/// Serialized from a value on every request, as SPEC §2 asks.
pub fn json() -> Response {
    let message = json!({ "message": "Hello, World!" });
    Response::json(serde_json::to_vec(&message).expect("a JSON value serializes"))
}

impl App {
    /// The page file, read from disk on every request; every Nth request
    /// (counted in this process from 1) first sleeps, like the blog's server.
    pub(super) fn page(&self) -> Response {
        let count = self.pages.fetch_add(1, Ordering::Relaxed) + 1;
        if count.is_multiple_of(self.page_delay_every) {
            thread::sleep(self.page_delay);
        }
        match std::fs::read(&self.page_file) {
            Ok(contents) => Response::html(contents),
            Err(e) => Response::error(500, format!("reading the page file {}: {e}", self.page_file.display())),
        }
    }

    pub(super) fn long_poll(&self) -> Response {
        thread::sleep(self.long_poll);
        Response::text(200, "OK")
    }
}
