//! SPEC §4: the framings a conforming HTTP/1.1 client may choose, sent the
//! way an unusual client would send them.

use super::routes::{check_value, expect_value};
use super::{Check, Ctx, Verdict, expect_ok, expect_status};
use crate::verify::client::{Framing, request};
use serde_json::json;
use std::time::Duration;

pub fn checks() -> Vec<Check> {
    vec![
        Check { id: "keep-alive", section: "§4", about: "many requests on one HTTP/1.1 connection", run: keep_alive },
        Check { id: "connection-close", section: "§4", about: "Connection: close is answered, then the connection is closed", run: connection_close },
        Check { id: "http10", section: "§4", about: "an HTTP/1.0 request is answered without chunking, then closed", run: http10 },
        Check { id: "chunked-body", section: "§4", about: "request bodies sent with Transfer-Encoding: chunked", run: chunked_body },
        Check { id: "expect-continue", section: "§4", about: "Expect: 100-continue gets 100 Continue or the final answer", run: expect_continue },
        Check { id: "pipelining", section: "§4", about: "requests pipelined in one segment are answered in order", run: pipelining },
        Check { id: "split-request", section: "§4", about: "a request sent one byte at a time", run: split_request },
        Check { id: "header-case", section: "§4", about: "header names in any letter case", run: header_case },
        Check { id: "head", section: "§4", about: "HEAD is 200 without a body or 405, and the connection stays usable", run: head },
        Check { id: "absolute-form", section: "§4", about: "a request target in absolute form (http://host/path) is routed by its path", run: absolute_form },
        Check { id: "unknown-version", section: "§4", about: "a request in an unknown HTTP major version (HTTP/9.9) is answered in HTTP/1.x (e.g. 505), never in that version", run: unknown_version },
    ]
}

fn keep_alive(ctx: &Ctx) -> Verdict {
    let mut conn = ctx.conn()?;
    let user = ctx.user("ka");
    for i in 0..30 {
        let (method, path, body) = match i % 3 {
            0 => ("GET", "/".to_string(), Vec::new()),
            1 => ("POST", format!("/user/set/{user}"), json!({ "i": i }).to_string().into_bytes()),
            _ => ("GET", format!("/user/get/{user}"), Vec::new()),
        };
        conn.send(&request(method, &path, &[], &body)).map_err(|e| format!("request {} on a keep-alive connection: the server closed it ({e})", i + 1))?;
        let r = ctx.read(&mut conn, &format!("{method} {path} (request {} on one connection)", i + 1), false)?;
        expect_status(&r, 200, &format!("{method} {path} on a keep-alive connection"))?;
        if i % 3 == 2 {
            check_value(&r, &user, &json!({ "i": i - 1 }))?;
        }
    }
    if conn.closed_within(Duration::from_millis(300)) {
        return Err("the server closed an idle keep-alive connection after 30 requests; keep it open".into());
    }
    Ok(vec![])
}

fn connection_close(ctx: &Ctx) -> Verdict {
    let mut conn = ctx.conn()?;
    conn.send(&request("GET", "/", &[("Connection", "close")], b"")).map_err(|e| e.to_string())?;
    let r = ctx.read(&mut conn, "GET / with Connection: close", false)?;
    expect_status(&r, 200, "GET / with Connection: close")?;
    if !conn.closed_within(Duration::from_secs(2)) {
        return Err("after answering a request with Connection: close, the server kept the connection open; close it".into());
    }
    Ok(vec![])
}

fn http10(ctx: &Ctx) -> Verdict {
    let mut conn = ctx.conn()?;
    conn.send(b"GET / HTTP/1.0\r\n\r\n").map_err(|e| e.to_string())?;
    let r = ctx.read(&mut conn, "GET / HTTP/1.0", false)?;
    expect_status(&r, 200, "GET / HTTP/1.0")?;
    if r.body != b"Hello, World!" {
        return Err(format!("GET / HTTP/1.0: want Hello, World!, got {}", r.summary()));
    }
    if r.framing == Framing::Chunked {
        return Err("the answer to an HTTP/1.0 request was chunked, which HTTP/1.0 clients cannot read".into());
    }
    if !conn.closed_within(Duration::from_secs(2)) {
        return Err("after answering HTTP/1.0 without Connection: keep-alive the server kept the connection open; close it".into());
    }
    let mut conn = ctx.conn()?;
    conn.send(b"POST /user/set/h10 HTTP/1.0\r\nContent-Length: 9\r\n\r\n{\"v\":10}\n").map_err(|e| e.to_string())?;
    expect_ok(&ctx.read(&mut conn, "POST /user/set HTTP/1.0", false)?, "POST /user/set over HTTP/1.0")?;
    expect_value(ctx, "h10", &json!({"v": 10}))?;
    Ok(vec![])
}

fn chunked_body(ctx: &Ctx) -> Verdict {
    let user = ctx.user("chunked");
    let mut conn = ctx.conn()?;
    let head = format!("POST /user/set/{user} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
    conn.send(head.as_bytes()).map_err(|e| e.to_string())?;
    for piece in ["{\"a\":", "1,\"b\"", ":[1,2]}"] {
        conn.send_more(format!("{:x}\r\n{piece}\r\n", piece.len()).as_bytes()).map_err(|e| e.to_string())?;
        std::thread::sleep(Duration::from_millis(20));
    }
    conn.send_more(b"0\r\n\r\n").map_err(|e| e.to_string())?;
    expect_ok(&ctx.read(&mut conn, "POST /user/set (chunked)", false)?, "POST /user/set with a chunked body")?;
    expect_value(ctx, &user, &json!({"a": 1, "b": [1, 2]}))?;
    let pw = "{\"password\":\"chunky\"}";
    let body = format!("{:x}\r\n{}\r\n{:x}\r\n{}\r\n0\r\n\r\n", 5, &pw[..5], pw.len() - 5, &pw[5..]);
    conn.send(format!("POST /password/set/{user} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n{body}").as_bytes()).map_err(|e| e.to_string())?;
    expect_ok(&ctx.read(&mut conn, "POST /password/set (chunked)", false)?, "POST /password/set with a chunked body on the same connection")?;
    expect_ok(&ctx.call("POST", &format!("/password/verify/{user}"), pw.as_bytes())?, "password/verify after a chunked set")?;
    Ok(vec![])
}

fn expect_continue(ctx: &Ctx) -> Verdict {
    let user = ctx.user("expect");
    let body = br#"{"expect":"continue"}"#;
    let mut conn = ctx.conn()?;
    let head = format!("POST /user/set/{user} HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: {}\r\n\r\n", body.len());
    conn.send(head.as_bytes()).map_err(|e| e.to_string())?;
    conn.set_timeout(Duration::from_secs(1)).map_err(|e| e.to_string())?;
    let mut warnings = Vec::new();
    match conn.read_any(false) {
        Ok(r) if r.status == 100 => {}
        Ok(r) => return Err(format!("Expect: 100-continue was answered {} before the body was sent; answer 100 Continue or read the body", r.summary())),
        Err(_) => warnings.push("no 100 Continue within 1 s of Expect: 100-continue; clients such as curl wait that long on every large POST".to_string()),
    }
    conn.set_timeout(Duration::from_secs(15)).map_err(|e| e.to_string())?;
    conn.send_more(body).map_err(|e| e.to_string())?;
    expect_ok(&ctx.read(&mut conn, "POST with Expect: 100-continue", false)?, "POST /user/set with Expect: 100-continue")?;
    expect_value(ctx, &user, &json!({"expect": "continue"}))?;
    Ok(warnings)
}

fn pipelining(ctx: &Ctx) -> Verdict {
    let user = ctx.user("pipe");
    let set = json!({"pipelined": true}).to_string();
    let batch = [
        request("GET", "/", &[], b""),
        request("GET", "/json", &[], b""),
        request("POST", &format!("/user/set/{user}"), &[], set.as_bytes()),
        request("GET", &format!("/user/get/{user}"), &[], b""),
        request("GET", "/nope", &[], b""),
    ]
    .concat();
    let mut conn = ctx.conn()?;
    conn.send(&batch).map_err(|e| e.to_string())?;
    let want = [200, 200, 200, 200, 404];
    for (i, status) in want.iter().enumerate() {
        let r = ctx.read(&mut conn, &format!("pipelined request {}", i + 1), false)?;
        expect_status(&r, *status, &format!("pipelined request {} of 5", i + 1))?;
        if i == 0 && r.body != b"Hello, World!" {
            return Err(format!("pipelined GET / answered {}; answers must come in request order", r.summary()));
        }
        if i == 3 {
            check_value(&r, &user, &json!({"pipelined": true}))?;
        }
    }
    Ok(vec![])
}

fn split_request(ctx: &Ctx) -> Verdict {
    let user = ctx.user("split");
    let bytes = request("POST", &format!("/user/set/{user}"), &[("X-Slow", "yes")], br#"{"slow":"client"}"#);
    let mut conn = ctx.conn()?;
    conn.send(&bytes[..1]).map_err(|e| e.to_string())?;
    for byte in &bytes[1..] {
        conn.send_more(std::slice::from_ref(byte)).map_err(|e| format!("the server closed a slowly written request ({e})"))?;
        std::thread::sleep(Duration::from_millis(1));
    }
    expect_ok(&ctx.read(&mut conn, "a request written one byte at a time", false)?, "a request written one byte at a time")?;
    expect_value(ctx, &user, &json!({"slow": "client"}))?;
    Ok(vec![])
}

fn header_case(ctx: &Ctx) -> Verdict {
    let user = ctx.user("case");
    let body = br#"{"case":"mixed"}"#;
    let raw = format!("POST /user/set/{user} HTTP/1.1\r\nhOsT: x\r\ncOnTeNt-LeNgTh: {}\r\nCONNECTION: keep-alive\r\n\r\n", body.len());
    let mut conn = ctx.conn()?;
    conn.send(&[raw.as_bytes(), body].concat()).map_err(|e| e.to_string())?;
    expect_ok(&ctx.read(&mut conn, "header names in mixed case", false)?, "POST with header names in mixed case")?;
    expect_value(ctx, &user, &json!({"case": "mixed"}))?;
    Ok(vec![])
}

fn head(ctx: &Ctx) -> Verdict {
    let mut conn = ctx.conn()?;
    conn.send(&request("HEAD", "/", &[], b"")).map_err(|e| e.to_string())?;
    let r = ctx.read(&mut conn, "HEAD /", true)?;
    if r.status != 200 && r.status != 405 {
        return Err(format!("HEAD / answered {}; want 200 without a body, or 405", r.status));
    }
    if conn.closed_within(Duration::from_millis(100)) {
        return Ok(vec![]);
    }
    conn.set_timeout(Duration::from_secs(5)).map_err(|e| e.to_string())?;
    conn.send(&request("GET", "/", &[], b"")).map_err(|e| e.to_string())?;
    let next = ctx.read(&mut conn, "GET / after HEAD /", false).map_err(|e| format!("{e}; a HEAD answer must not carry a body"))?;
    if next.status != 200 || next.body != b"Hello, World!" {
        return Err(format!("GET / after HEAD / on one connection answered {}; a HEAD answer must not carry a body", next.summary()));
    }
    Ok(vec![])
}

fn absolute_form(ctx: &Ctx) -> Verdict {
    let target = format!("http://{}/json", ctx.addr);
    let r = ctx.call("GET", &target, b"")?;
    if r.status != 200 {
        return Ok(vec![format!("GET {target} answered {}; RFC 9112 §3.2.2 says servers MUST accept the absolute form", r.status)]);
    }
    Ok(vec![])
}

/// RFC 9110 §6.2: a server MUST NOT send a version to which it is not
/// conformant. A stack that copies the request's version into its status
/// line (Netty under Ktor answered `HTTP/9.9 200 OK`) sends one no client can
/// read; any HTTP/1.x status line is fine, 505 being the usual one.
fn unknown_version(ctx: &Ctx) -> Verdict {
    const FIX: &str = "answer in HTTP/1.1, e.g. 505 HTTP Version Not Supported (RFC 9110 §15.6.6)";
    let mut conn = ctx.conn_with_timeout(Duration::from_secs(5))?;
    conn.send(b"GET / HTTP/9.9\r\nHost: x\r\n\r\n").map_err(|e| e.to_string())?;
    // Not `ctx.read`: its parser refuses a status line that is not HTTP/1.x, the very thing judged here.
    let line = conn.read_first_line().map_err(|e| format!("GET / HTTP/9.9: no answer within 5 s ({e}); {FIX}"))?;
    let Some(line) = line else {
        return Err(format!("GET / HTTP/9.9: the server closed the connection without an answer; {FIX}"));
    };
    if !line.starts_with("HTTP/1.") {
        return Err(format!("GET / HTTP/9.9 was answered with the status line {line:?}, a version the server does not implement (RFC 9110 §6.2); {FIX}"));
    }
    ctx.still_serving("a request in HTTP/9.9")?;
    Ok(vec![])
}
