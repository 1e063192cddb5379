//! The per-user JSON objects: parsed into a `serde_json::Value` on set,
//! serialized anew from that value on every get (SPEC §2).

use super::{App, Reply, parse_json};
use crate::http::Response;

impl App {
    pub(super) fn set_user(&self, user: &str, body: &[u8]) -> Reply {
        let value = parse_json(body)?;
        if !value.is_object() {
            return Err(Response::error(400, "the body must be a JSON object"));
        }
        self.users.set(user, value);
        Ok(Response::text(200, "OK"))
    }

    pub(super) fn get_user(&self, user: &str) -> Reply {
        match self.users.read(user, serde_json::to_vec) {
            Some(Ok(bytes)) => Ok(Response::json(bytes)),
            Some(Err(e)) => Err(Response::error(500, format!("serializing the user object: {e}"))),
            None => Err(Response::error(404, format!("no user object is stored for {user}"))),
        }
    }
}
