//! Which route a request is, in SPEC §3's order: an unknown path is 404, a
//! known path with another method 405 (with `Allow`), a `{user}` outside
//! `[A-Za-z0-9_.-]{1,64}` 400, all before any body is read. The fault routes
//! (SPEC §9) are known paths only when `faults` is on.

use crate::http::Response;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route<'a> {
    Root,
    Json,
    Page,
    LongPoll,
    PasswordSet(&'a str),
    PasswordVerify(&'a str),
    UserSet(&'a str),
    UserGet(&'a str),
    Db,
    Queries,
    Updates,
    Fortunes,
    SlowDb,
    FaultPanic,
    FaultSpin,
}

const GET: &str = "GET, HEAD";
const POST: &str = "POST";

/// The route of `method` on the raw (undecoded, query-free) `path`.
pub fn resolve<'a>(method: &str, path: &'a str, faults: bool) -> Result<Route<'a>, Response> {
    let (route, allow) = match path {
        "/" => (Route::Root, GET),
        "/json" => (Route::Json, GET),
        "/page" => (Route::Page, GET),
        "/longPoll" => (Route::LongPoll, GET),
        "/db" => (Route::Db, GET),
        "/queries" => (Route::Queries, GET),
        "/updates" => (Route::Updates, GET),
        "/fortunes" => (Route::Fortunes, GET),
        "/slowdb" => (Route::SlowDb, GET),
        "/fault/panic" if faults => (Route::FaultPanic, GET),
        "/fault/spin" if faults => (Route::FaultSpin, GET),
        _ => match with_user(path) {
            Some(found) => found,
            None => return Err(Response::error(404, format!("no route for {path}"))),
        },
    };
    if !allow.split(", ").any(|m| m == method) {
        let mut refusal = Response::error(405, format!("{method} is not allowed on {path}: use {allow}"));
        refusal.allow = Some(allow);
        return Err(refusal);
    }
    if let Route::PasswordSet(user) | Route::PasswordVerify(user) | Route::UserSet(user) | Route::UserGet(user) = route
        && !valid_user(user)
    {
        return Err(Response::error(400, "invalid user name: must match [A-Za-z0-9_.-]{1,64}"));
    }
    Ok(route)
}

/// A route whose path ends in `{user}`: its prefix, how to build it, its methods.
type UserRoute<'a> = (&'static str, fn(&'a str) -> Route<'a>, &'static str);

/// The four routes whose path ends in `{user}`: the rest after the prefix.
fn with_user<'a>(path: &'a str) -> Option<(Route<'a>, &'static str)> {
    let routes: [UserRoute<'a>; 4] = [
        ("/password/set/", Route::PasswordSet, POST),
        ("/password/verify/", Route::PasswordVerify, POST),
        ("/user/set/", Route::UserSet, POST),
        ("/user/get/", Route::UserGet, GET),
    ];
    routes.into_iter().find_map(|(prefix, route, allow)| path.strip_prefix(prefix).map(|user| (route(user), allow)))
}

fn valid_user(user: &str) -> bool {
    (1..=64).contains(&user.len()) && user.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(method: &str, path: &str) -> u16 {
        resolve(method, path, false).map_or_else(|r| r.status, |_| 200)
    }

    #[test]
    fn spec_section_3_order_is_404_then_405_then_400() {
        assert_eq!(resolve("GET", "/user/get/a.b-c_1", false), Ok(Route::UserGet("a.b-c_1")));
        assert_eq!(resolve("HEAD", "/", false), Ok(Route::Root));
        assert_eq!(status("GET", "/user/get"), 404, "a prefix without its slash");
        assert_eq!(status("GET", "/json/extra"), 404);
        assert_eq!(status("GET", "/JSON"), 404);
        assert_eq!(status("GET", "/db/1"), 404, "a longer path (SPEC §8.4)");
        assert_eq!(resolve("POST", "/fortunes", false).unwrap_err().allow, Some("GET, HEAD"));
        assert_eq!(status("GET", "/user/set/%41"), 405, "the method is checked before the name");
        assert_eq!(resolve("POST", "/", false).unwrap_err().allow, Some("GET, HEAD"));
        for bad in ["", "a/b", "%41", "a:b", "a~b", &"x".repeat(65)] {
            assert_eq!(status("POST", &format!("/password/set/{bad}")), 400, "{bad:?}");
        }
        assert_eq!(status("POST", &format!("/user/set/{}", "x".repeat(64))), 200);
    }
    #[test]
    fn fault_routes_exist_only_when_switched_on() {
        for path in ["/fault/panic", "/fault/spin"] {
            assert_eq!(status("GET", path), 404, "{path} without CONCUR_FAULTS=1");
            assert_eq!(status("POST", path), 404, "{path} without CONCUR_FAULTS=1");
        }
        assert_eq!(resolve("GET", "/fault/panic", true), Ok(Route::FaultPanic));
        assert_eq!(resolve("GET", "/fault/spin", true), Ok(Route::FaultSpin));
        assert_eq!(resolve("POST", "/fault/spin", true).unwrap_err().status, 405);
        assert_eq!(resolve("GET", "/fault/panic/x", true).unwrap_err().status, 404);
    }
}
