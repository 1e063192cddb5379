//! bcrypt set and verify with the `bcrypt` crate, on the connection's own
//! thread once one of the `CONCUR_CORES` hashing permits is free
//! (spec/POLICIES.md §2): the pool thread is this request's while it waits and
//! while the hash takes, and the other connections have threads of their own.

use super::{App, Reply, parse_json};
use crate::http::Response;

impl App {
    pub(super) fn set_password(&self, user: &str, body: &[u8]) -> Reply {
        let password = password_of(body)?;
        let hash = self.hashing.run(|| bcrypt::hash(password, self.bcrypt_cost)).map_err(|e| Response::error(500, format!("bcrypt: {e}")))?;
        self.passwords.set(user, hash);
        Ok(Response::text(200, "OK"))
    }

    /// 200 on a match, 403 on a mismatch, 404 for a user with no password:
    /// the 404 too comes after one hash at the configured cost, so it takes
    /// as long as a real check (the thesis' Listing 24).
    pub(super) fn verify_password(&self, user: &str, body: &[u8]) -> Reply {
        let password = password_of(body)?;
        let Some(hash) = self.passwords.read(user, String::clone) else {
            let _ = self.hashing.run(|| bcrypt::hash(password, self.bcrypt_cost));
            return Err(Response::error(404, format!("no password is set for {user}")));
        };
        match self.hashing.run(|| bcrypt::verify(password, &hash)) {
            Ok(true) => Ok(Response::text(200, "OK")),
            Ok(false) => Err(Response::error(403, "wrong password")),
            Err(e) => Err(Response::error(500, format!("bcrypt: {e}"))),
        }
    }
}

/// The string member `password` of a JSON object, within bcrypt's limits.
fn password_of(body: &[u8]) -> Result<String, Response> {
    let Some(serde_json::Value::String(password)) = parse_json(body)?.get_mut("password").map(serde_json::Value::take) else {
        return Err(Response::error(400, "the body must be a JSON object with a string member \"password\""));
    };
    // The crate would silently truncate at 72 bytes; SPEC §3.6 refuses instead.
    if password.len() > 72 {
        return Err(Response::error(400, "password longer than 72 bytes of UTF-8 (bcrypt's limit)"));
    }
    if password.contains('\0') {
        return Err(Response::error(400, "password contains U+0000, which bcrypt cannot hash"));
    }
    Ok(password)
}
