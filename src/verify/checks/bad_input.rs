//! SPEC §3: every kind of bad input gets its status and a one-line reason,
//! and the server keeps serving afterwards.

use super::{Check, Ctx, Verdict, expect_error, expect_ok};
use std::time::Duration;

pub fn checks() -> Vec<Check> {
    vec![
        Check { id: "unknown-path", section: "§3.2", about: "an unknown path is 404", run: unknown_path },
        Check { id: "wrong-method", section: "§3.3", about: "a known path with another method is 405 (with Allow)", run: wrong_method },
        Check { id: "bad-user", section: "§3.4", about: "a {user} outside [A-Za-z0-9_.-]{1,64} is 400 on every route", run: bad_user },
        Check { id: "too-large", section: "§3.5", about: "a body over 1 MiB is 413 (Content-Length and chunked); exactly 1 MiB is accepted", run: too_large },
        Check { id: "bad-json", section: "§3.6", about: "a body that is not JSON is 400", run: bad_json },
        Check { id: "bad-password", section: "§3.6", about: "no string password, one over 72 bytes or one with a NUL is 400", run: bad_password },
        Check { id: "bad-user-body", section: "§3.6", about: "user/set with JSON that is not an object is 400", run: bad_user_body },
        Check { id: "not-utf8", section: "§2, §3.6", about: "a body with bytes that are not UTF-8 (inside a string too) is 400: the value is parsed, not stored as bytes", run: not_utf8 },
        Check { id: "malformed-request", section: "§3.1", about: "a malformed request line, header or chunk is 400, and the server keeps serving", run: malformed_request },
    ]
}

fn unknown_path(ctx: &Ctx) -> Verdict {
    for (method, path) in [("GET", "/nope"), ("GET", "/JSON"), ("GET", "/user/delete/x"), ("POST", "/password/reset/x"), ("GET", "/index.html"), ("GET", "/json/extra"), ("GET", "/user/get")] {
        expect_error(&ctx.call(method, path, b"")?, 404, &format!("{method} {path}"))?;
    }
    ctx.still_serving("unknown paths")?;
    Ok(vec![])
}

fn wrong_method(ctx: &Ctx) -> Verdict {
    let mut warnings = Vec::new();
    let cases = [
        ("POST", "/"),
        ("DELETE", "/json"),
        ("PUT", "/page"),
        ("POST", "/longPoll"),
        ("GET", "/password/set/alice"),
        ("GET", "/password/verify/alice"),
        ("GET", "/user/set/bob"),
        ("POST", "/user/get/bob"),
        ("PATCH", "/user/get/bob"),
    ];
    for (method, path) in cases {
        let body: &[u8] = if method == "GET" { b"" } else { b"{}" };
        let r = ctx.call(method, path, body)?;
        expect_error(&r, 405, &format!("{method} {path}"))?;
        if r.header("allow").is_none() {
            warnings.push(format!("{method} {path}: the 405 has no Allow header (SPEC §3.3 SHOULD)"));
        }
    }
    warnings.truncate(2);
    ctx.still_serving("wrong methods")?;
    Ok(warnings)
}

const BAD_NAMES: &[&str] = &["", "a/b", "%41", "a%20b", "%C3%BC", "a:b", "a@b", "a+b", "a~b"];

fn bad_user(ctx: &Ctx) -> Verdict {
    let too_long = "x".repeat(65);
    let names = BAD_NAMES.iter().copied().chain([too_long.as_str()]);
    for name in names {
        for (method, prefix, body) in [
            ("POST", "/password/set/", &br#"{"password":"pw"}"#[..]),
            ("POST", "/password/verify/", &br#"{"password":"pw"}"#[..]),
            ("POST", "/user/set/", &br#"{"a":1}"#[..]),
            ("GET", "/user/get/", &b""[..]),
        ] {
            let path = format!("{prefix}{name}");
            expect_error(&ctx.call(method, &path, body)?, 400, &format!("{method} {path} (invalid user name)"))?;
        }
    }
    ctx.still_serving("invalid user names")?;
    Ok(vec![])
}

const MIB: usize = 1 << 20;

/// A JSON object of exactly `len` bytes.
fn object_of(len: usize) -> Vec<u8> {
    let mut body = br#"{"pad":""#.to_vec();
    body.resize(len - 2, b'a');
    body.extend_from_slice(br#""}"#);
    body
}

fn too_large(ctx: &Ctx) -> Verdict {
    let user = ctx.user("big");
    let exact = object_of(MIB);
    expect_ok(&ctx.call("POST", &format!("/user/set/{user}"), &exact)?, "user/set with a body of exactly 1 MiB")?;
    let r = ctx.call("GET", &format!("/user/get/{user}"), b"")?;
    if r.status != 200 || r.body.len() < MIB - 16 {
        return Err(format!("user/get of the 1 MiB value: want it back whole, got {} bytes, status {}", r.body.len(), r.status));
    }
    for path in [format!("/user/set/{user}"), format!("/password/set/{user}")] {
        let r = send_oversized(ctx, &path, false)?;
        expect_error(&r, 413, &format!("POST {path} with Content-Length 1 MiB + 1"))?;
    }
    let r = send_oversized(ctx, &format!("/user/set/{user}"), true)?;
    expect_error(&r, 413, "POST /user/set with a chunked body over 1 MiB")?;
    ctx.still_serving("bodies over 1 MiB")?;
    Ok(vec![])
}

/// Sends a body of 1 MiB + 1 (or more, chunked) while reading the answer on
/// the same connection: a server may answer 413 and close before reading it all.
fn send_oversized(ctx: &Ctx, path: &str, chunked: bool) -> Result<super::Response, String> {
    let mut conn = ctx.conn()?;
    let body = object_of(MIB + 1);
    let head = if chunked {
        format!("POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n")
    } else {
        format!("POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {}\r\n\r\n", body.len())
    };
    conn.send(head.as_bytes()).map_err(|e| e.to_string())?;
    let mut writer = conn_clone(&conn)?;
    let sender = std::thread::spawn(move || {
        if chunked {
            for piece in body.chunks(64 * 1024).chain(std::iter::once(&b"{}"[..])) {
                let framed = [format!("{:x}\r\n", piece.len()).as_bytes(), piece, b"\r\n"].concat();
                if writer.send_more(&framed).is_err() {
                    return;
                }
            }
            let _ = writer.send_more(b"0\r\n\r\n");
        } else {
            let _ = writer.send_more(&body);
        }
    });
    let label = format!("POST {path} (oversized)");
    let r = ctx.read(&mut conn, &label, false);
    drop(conn);
    let _ = sender.join();
    r
}

fn conn_clone(conn: &crate::verify::client::Conn) -> Result<crate::verify::client::Conn, String> {
    conn.try_clone().map_err(|e| e.to_string())
}

fn bad_json(ctx: &Ctx) -> Verdict {
    let user = ctx.user("badjson");
    for body in [&b"not json"[..], b"{\"password\":", b"{'password':'x'}", b"{\"password\":\"x\"} trailing", b""] {
        for route in ["password/set", "password/verify", "user/set"] {
            let path = format!("/{route}/{user}");
            let shown = String::from_utf8_lossy(body);
            expect_error(&ctx.call("POST", &path, body)?, 400, &format!("POST {path} with body {shown:?}"))?;
        }
    }
    ctx.still_serving("malformed JSON")?;
    Ok(vec![])
}

fn bad_password(ctx: &Ctx) -> Verdict {
    let user = ctx.user("badpw");
    let too_long = format!(r#"{{"password":"{}"}}"#, "é".repeat(36) + "x");
    let bodies = [r#"{}"#, r#"{"password":5}"#, r#"{"password":null}"#, r#"{"password":["x"]}"#, r#"["password"]"#, r#""password""#, r#"{"password":"nul\u0000byte"}"#, too_long.as_str()];
    for body in bodies {
        for route in ["password/set", "password/verify"] {
            let path = format!("/{route}/{user}");
            expect_error(&ctx.call("POST", &path, body.as_bytes())?, 400, &format!("POST {path} with body {}", shorten(body)))?;
        }
    }
    let max = format!(r#"{{"password":"{}"}}"#, "é".repeat(36));
    expect_ok(&ctx.call("POST", &format!("/password/set/{user}"), max.as_bytes())?, "password/set with a 72-byte password")?;
    expect_ok(&ctx.call("POST", &format!("/password/verify/{user}"), max.as_bytes())?, "password/verify with a 72-byte password")?;
    ctx.still_serving("bad passwords")?;
    Ok(vec![])
}

fn shorten(s: &str) -> String {
    if s.len() <= 40 { format!("{s:?}") } else { format!("{:?}... ({} bytes)", s.chars().take(20).collect::<String>(), s.len()) }
}

fn bad_user_body(ctx: &Ctx) -> Verdict {
    let user = ctx.user("badbody");
    for body in ["[1,2]", "\"str\"", "42", "null", "true"] {
        let path = format!("/user/set/{user}");
        expect_error(&ctx.call("POST", &path, body.as_bytes())?, 400, &format!("POST {path} with body {body}"))?;
    }
    expect_error(&ctx.call("GET", &format!("/user/get/{user}"), b"")?, 404, "user/get after only rejected sets")?;
    ctx.still_serving("non-object user bodies")?;
    Ok(vec![])
}

/// Bodies that are JSON in shape but not UTF-8: a lone continuation byte, a
/// truncated sequence, an overlong NUL and an encoded surrogate, inside a
/// string value and inside a member name. A server that checks the shape and
/// stores the bytes (or lets its decoder replace them with U+FFFD) takes them.
const NOT_UTF8: [&[u8]; 5] = [
    b"{\"name\":\"\xff\"}",
    b"{\"name\":\"ab\xc3\"}",
    b"{\"name\":\"\xc0\x80\"}",
    b"{\"name\":\"\xed\xa0\x80\"}",
    b"{\"\xfe\":1}",
];

fn not_utf8(ctx: &Ctx) -> Verdict {
    let user = ctx.user("notutf8");
    for body in NOT_UTF8 {
        let shown = body.escape_ascii().to_string();
        let path = format!("/user/set/{user}");
        let what = format!("POST {path} with body {shown} (not UTF-8: parse the body into a JSON value, refusing invalid UTF-8, instead of storing its bytes)");
        expect_error(&ctx.call("POST", &path, body)?, 400, &what)?;
    }
    expect_error(&ctx.call("GET", &format!("/user/get/{user}"), b"")?, 404, "user/get after only rejected sets")?;
    for route in ["password/set", "password/verify"] {
        let path = format!("/{route}/{user}");
        let body = b"{\"password\":\"\xff\"}";
        expect_error(&ctx.call("POST", &path, body)?, 400, &format!("POST {path} with a password that is not UTF-8"))?;
    }
    ctx.still_serving("bodies that are not UTF-8")?;
    Ok(vec![])
}

fn malformed_request(ctx: &Ctx) -> Verdict {
    let mut warnings = Vec::new();
    let cases: [(&str, &[u8]); 4] = [
        ("a garbage request line", b"GARBAGE\r\n\r\n"),
        ("a request line without a version", b"GET / EXTRA JUNK HTTP/1.1\r\nHost: x\r\n\r\n"),
        ("a header line without a colon", b"GET / HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n"),
        ("a chunked body with a bad chunk size", b"POST /user/set/chunky HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n"),
    ];
    for (what, bytes) in cases {
        let mut conn = ctx.conn_with_timeout(Duration::from_secs(5))?;
        conn.send(bytes).map_err(|e| e.to_string())?;
        // Not `ctx.read`: answers to invalid HTTP are exempt from the header rule (SPEC §4).
        match conn.read_response(false).map_err(|e| e.to_string()) {
            Ok(r) if r.status == 400 => {}
            Ok(r) if (400..500).contains(&r.status) => warnings.push(format!("{what}: answered {}, SPEC §3.1 says 400", r.status)),
            Ok(r) => return Err(format!("{what}: answered {}; want 400", r.summary())),
            Err(e) => return Err(format!("{what}: want a 400 response, got none ({e})")),
        }
        ctx.still_serving(what)?;
    }
    Ok(warnings)
}
