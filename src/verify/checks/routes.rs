//! The rows of SPEC §2, one check per route, happy path first.

use super::{Check, Ctx, Verdict, expect_error, expect_ok, expect_status};
use serde_json::{Value, json};
use std::time::Duration;

pub fn checks() -> Vec<Check> {
    vec![
        Check { id: "root", section: "§2", about: "GET / is 200 text/plain Hello, World!", run: root },
        Check { id: "json", section: "§2", about: "GET /json is 200 application/json {\"message\":\"Hello, World!\"}", run: json_route },
        Check { id: "page", section: "§2", about: "GET /page is 200 text/html; charset=utf-8 with the bytes of the page file", run: page },
        Check { id: "query-string", section: "§2", about: "a query string is ignored for routing", run: query_string },
        Check { id: "password", section: "§2", about: "password set, then verify: 200 on match, 403 on mismatch, 404 for no password; replacing works", run: password },
        Check { id: "password-timing", section: "§2", about: "the 404 of verify comes after a bcrypt hash (takes as long as a real check)", run: password_timing },
        Check { id: "user", section: "§2", about: "user set then get returns the same JSON value; replacing works; unknown is 404", run: user },
        Check { id: "longpoll", section: "§2", about: "GET /longPoll answers 200 OK after CONCUR_LONGPOLL_MS", run: longpoll },
    ]
}

fn root(ctx: &Ctx) -> Verdict {
    let r = ctx.call("GET", "/", b"")?;
    expect_status(&r, 200, "GET /")?;
    if r.media_type() != "text/plain" || r.body != b"Hello, World!" {
        return Err(format!("GET /: want text/plain \"Hello, World!\", got {}", r.summary()));
    }
    Ok(vec![])
}

fn json_route(ctx: &Ctx) -> Verdict {
    let r = ctx.call("GET", "/json", b"")?;
    expect_status(&r, 200, "GET /json")?;
    let value: Value = serde_json::from_slice(&r.body).map_err(|e| format!("GET /json: body is not JSON ({e}): {}", r.summary()))?;
    if r.media_type() != "application/json" || value != json!({"message": "Hello, World!"}) {
        return Err(format!("GET /json: want application/json {{\"message\":\"Hello, World!\"}}, got {}", r.summary()));
    }
    Ok(vec![])
}

fn page(ctx: &Ctx) -> Verdict {
    let r = ctx.call("GET", "/page", b"")?;
    expect_status(&r, 200, "GET /page")?;
    let ctype = r.header("content-type").unwrap_or("").to_ascii_lowercase().replace(' ', "");
    if ctype != "text/html;charset=utf-8" {
        return Err(format!("GET /page: Content-Type is {ctype:?}, want \"text/html; charset=utf-8\""));
    }
    if r.body != ctx.settings.page_bytes {
        return Err(format!(
            "GET /page: the body ({} bytes) differs from CONCUR_PAGE_FILE ({} bytes); serve the file's bytes unchanged",
            r.body.len(),
            ctx.settings.page_bytes.len()
        ));
    }
    Ok(vec![])
}

fn query_string(ctx: &Ctx) -> Verdict {
    let r = ctx.call("GET", "/?from=concur&x=1", b"")?;
    if r.status != 200 || r.body != b"Hello, World!" {
        return Err(format!("GET /?from=concur&x=1: want the same answer as GET /, got {}; route on the path only", r.summary()));
    }
    let r = ctx.call("GET", "/json?pretty", b"")?;
    expect_status(&r, 200, "GET /json?pretty")?;
    Ok(vec![])
}

fn pw_body(password: &str) -> Vec<u8> {
    json!({ "password": password }).to_string().into_bytes()
}

fn password(ctx: &Ctx) -> Verdict {
    let user = ctx.user("pw");
    expect_ok(&ctx.call("POST", &format!("/password/set/{user}"), &pw_body("s3cret pässword"))?, "password/set")?;
    expect_ok(&ctx.call("POST", &format!("/password/verify/{user}"), &pw_body("s3cret pässword"))?, "password/verify with the right password")?;
    expect_error(&ctx.call("POST", &format!("/password/verify/{user}"), &pw_body("s3cret password"))?, 403, "password/verify with a wrong password")?;
    let nobody = ctx.user("nopw");
    expect_error(&ctx.call("POST", &format!("/password/verify/{nobody}"), &pw_body("x"))?, 404, "password/verify for a user with no password")?;
    expect_ok(&ctx.call("POST", &format!("/password/set/{user}"), &pw_body("second"))?, "password/set again")?;
    expect_error(&ctx.call("POST", &format!("/password/verify/{user}"), &pw_body("s3cret pässword"))?, 403, "password/verify with the replaced password")?;
    expect_ok(&ctx.call("POST", &format!("/password/verify/{user}"), &pw_body("second"))?, "password/verify with the new password")?;
    // The two stores are separate: user info does not make a password.
    let info_only = ctx.user("infoonly");
    expect_ok(&ctx.call("POST", &format!("/user/set/{info_only}"), br#"{"password":"x"}"#)?, "user/set")?;
    expect_error(&ctx.call("POST", &format!("/password/verify/{info_only}"), &pw_body("x"))?, 404, "password/verify for a user with only user info (the stores are separate)")?;
    let empty = ctx.user("emptypw");
    expect_ok(&ctx.call("POST", &format!("/password/set/{empty}"), &pw_body(""))?, "password/set with the empty password")?;
    expect_ok(&ctx.call("POST", &format!("/password/verify/{empty}"), &pw_body(""))?, "password/verify with the empty password")?;
    Ok(vec![])
}

fn password_timing(ctx: &Ctx) -> Verdict {
    let user = ctx.user("timing");
    expect_ok(&ctx.call("POST", &format!("/password/set/{user}"), &pw_body("timing"))?, "password/set")?;
    let (mut matched, mut unknown) = (Vec::new(), Vec::new());
    for i in 0..5 {
        let r = ctx.call("POST", &format!("/password/verify/{user}"), &pw_body("timing"))?;
        expect_ok(&r, "password/verify")?;
        matched.push(r.elapsed);
        let r = ctx.call("POST", &format!("/password/verify/nobody_{i}_{user}"), &pw_body("timing"))?;
        expect_status(&r, 404, "password/verify of an unknown user")?;
        unknown.push(r.elapsed);
    }
    // Minimums: load on the machine only ever adds time, so the fastest of
    // five is the best estimate of the work each answer needs.
    let (m, u) = (matched.into_iter().min().unwrap_or_default(), unknown.into_iter().min().unwrap_or_default());
    if u.as_secs_f64() < 0.5 * m.as_secs_f64() {
        return Err(format!(
            "the 404 for an unknown user took {u:?} (fastest of 5) but a real check {m:?}: hash the given password once at the configured cost before answering 404 (SPEC §2, thesis Listing 24)"
        ));
    }
    Ok(vec![])
}

fn user(ctx: &Ctx) -> Verdict {
    let user = ctx.user("info");
    let value = json!({
        "name": "Ada", "age": 36, "admin": false, "tags": ["x", "y"],
        "nested": {"ok": true, "none": null, "list": [1, [2, 3], {"k": "v"}]},
        "unicode": "héllo ✓ 🚀 \"quoted\" \\ slash", "ratio": 2.5, "big": 9007199254740991i64
    });
    expect_ok(&ctx.call("POST", &format!("/user/set/{user}"), value.to_string().as_bytes())?, "user/set")?;
    expect_value(ctx, &user, &value)?;
    let replaced = json!({"v": 2});
    expect_ok(&ctx.call("POST", &format!("/user/set/{user}"), replaced.to_string().as_bytes())?, "user/set again")?;
    expect_value(ctx, &user, &replaced)?;
    let empty = ctx.user("emptyobj");
    expect_ok(&ctx.call("POST", &format!("/user/set/{empty}"), b" { } ")?, "user/set with {}")?;
    expect_value(ctx, &empty, &json!({}))?;
    let unknown = ctx.user("unknown");
    expect_error(&ctx.call("GET", &format!("/user/get/{unknown}"), b"")?, 404, "user/get of an unknown user")?;
    let long = "U".repeat(64);
    expect_ok(&ctx.call("POST", &format!("/user/set/{long}"), br#"{"n":64}"#)?, "user/set with a 64-character name")?;
    expect_value(ctx, &long, &json!({"n": 64}))?;
    let odd = "A-z_0.9";
    expect_ok(&ctx.call("POST", &format!("/user/set/{odd}"), br#"{"odd":true}"#)?, "user/set with name A-z_0.9")?;
    expect_value(ctx, odd, &json!({"odd": true}))?;
    Ok(vec![])
}

/// `GET /user/get/{user}` returns `want` as application/json.
pub fn expect_value(ctx: &Ctx, user: &str, want: &Value) -> Result<(), String> {
    let r = ctx.call("GET", &format!("/user/get/{user}"), b"")?;
    check_value(&r, user, want)
}

pub fn check_value(r: &super::Response, user: &str, want: &Value) -> Result<(), String> {
    expect_status(r, 200, &format!("user/get/{user}"))?;
    let got: Value = serde_json::from_slice(&r.body).map_err(|e| format!("user/get/{user}: body is not JSON ({e}): {}", r.summary()))?;
    if r.media_type() != "application/json" {
        return Err(format!("user/get/{user}: Content-Type is {:?}, want application/json", r.header("content-type")));
    }
    if &got != want {
        return Err(format!("user/get/{user}: returned {got} but {want} was stored; return the same JSON value"));
    }
    Ok(())
}

fn longpoll(ctx: &Ctx) -> Verdict {
    let wait = Duration::from_millis(ctx.settings.longpoll_ms);
    let mut conn = ctx.conn_with_timeout(wait + Duration::from_secs(10))?;
    conn.send(&super::request("GET", "/longPoll", &[], b"")).map_err(|e| e.to_string())?;
    let r = ctx.read(&mut conn, "GET /longPoll", false)?;
    expect_ok(&r, "GET /longPoll")?;
    let early = wait.saturating_sub(Duration::from_millis(50));
    if r.elapsed < early || r.elapsed > wait + Duration::from_millis(1500) {
        return Err(format!("GET /longPoll took {:?}; want CONCUR_LONGPOLL_MS = {wait:?} (read the variable)", r.elapsed));
    }
    Ok(vec![])
}
