//! Every route of SPEC §2 and every bad input of §3, through axum's `Router`
//! with `tower::ServiceExt::oneshot` (no socket: what the router, handlers
//! and extractors decide). `server.rs` covers what needs a real connection.

mod common;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use concur_rust_axum::{AppState, app};
use serde_json::{Value, json};
use std::time::{Duration, Instant};
use tower::ServiceExt;

struct Answer {
    status: StatusCode,
    content_type: String,
    allow: Option<String>,
    body: Vec<u8>,
}

impl Answer {
    fn text(&self) -> &str {
        std::str::from_utf8(&self.body).unwrap()
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap()
    }

    /// SPEC §3: an error is text/plain with a one-line reason.
    fn assert_error(&self, status: StatusCode, what: &str) {
        assert_eq!(self.status, status, "{what}: {}", self.text());
        assert_eq!(self.content_type, "text/plain; charset=utf-8", "{what}");
        assert_eq!(self.text().trim_end().lines().count(), 1, "{what}: {:?}", self.text());
    }
}

fn router() -> Router {
    app(AppState::new(common::test_config()))
}

async fn call(router: &Router, method: &str, path: &str, body: impl Into<Body>) -> Answer {
    let request = Request::builder().method(method).uri(path).body(body.into()).unwrap();
    let response = router.clone().oneshot(request).await.unwrap();
    let header = |name| response.headers().get(name).map(|v: &header::HeaderValue| v.to_str().unwrap().to_string());
    assert_eq!(header(header::SERVER).as_deref(), Some("concur-rust-axum"), "{method} {path}: Server header");
    let (status, content_type, allow) =
        (response.status(), header(header::CONTENT_TYPE).unwrap_or_default(), header(header::ALLOW));
    let body = axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap().to_vec();
    Answer { status, content_type, allow, body }
}

#[tokio::test]
async fn hello_routes() {
    let r = router();
    let a = call(&r, "GET", "/", "").await;
    assert_eq!(
        (a.status, a.content_type.as_str(), a.text()),
        (StatusCode::OK, "text/plain; charset=utf-8", "Hello, World!")
    );
    let a = call(&r, "GET", "/json?x=1", "").await;
    assert_eq!((a.status, a.content_type.as_str()), (StatusCode::OK, "application/json"));
    assert_eq!(a.text(), r#"{"message":"Hello, World!"}"#);
}

#[tokio::test]
async fn page_is_the_file_and_every_nth_is_delayed() {
    let r = router();
    let file = std::fs::read(common::repo_file("spec/static/hello.html")).unwrap();
    for n in 1..=2 * common::PAGE_DELAY_EVERY {
        let started = Instant::now();
        let a = call(&r, "GET", "/page", "").await;
        let took = started.elapsed();
        assert_eq!((a.status, a.content_type.as_str()), (StatusCode::OK, "text/html; charset=utf-8"));
        assert_eq!(a.body, file);
        if n % common::PAGE_DELAY_EVERY == 0 {
            assert!(took >= common::PAGE_DELAY, "request {n} was not delayed ({took:?})");
        } else {
            assert!(took < common::PAGE_DELAY, "request {n} was delayed ({took:?})");
        }
    }
}

#[tokio::test]
async fn long_poll_answers_after_the_wait() {
    let started = Instant::now();
    let a = call(&router(), "GET", "/longPoll", "").await;
    assert_eq!((a.status, a.text()), (StatusCode::OK, "OK"));
    assert!(started.elapsed() >= common::LONG_POLL);
}

#[tokio::test]
async fn password_set_then_verify() {
    let r = router();
    let body = |pw: &str| json!({ "password": pw }).to_string();
    let a = call(&r, "POST", "/password/verify/alice", body("pw")).await;
    a.assert_error(StatusCode::NOT_FOUND, "verify before any set");
    assert_eq!(call(&r, "POST", "/password/set/alice", body("pw")).await.text(), "OK");
    assert_eq!(call(&r, "POST", "/password/verify/alice", body("pw")).await.status, StatusCode::OK);
    call(&r, "POST", "/password/verify/alice", body("nope"))
        .await
        .assert_error(StatusCode::FORBIDDEN, "wrong password");
    call(&r, "POST", "/password/set/alice", body("new")).await;
    assert_eq!(call(&r, "POST", "/password/verify/alice", body("new")).await.status, StatusCode::OK);
    call(&r, "POST", "/password/verify/alice", body("pw"))
        .await
        .assert_error(StatusCode::FORBIDDEN, "replaced password");
}

#[tokio::test]
async fn unknown_user_verify_hashes_before_its_404() {
    let mut config = common::test_config();
    config.bcrypt_cost = 10;
    let r = app(AppState::new(config));
    let started = Instant::now();
    call(&r, "POST", "/password/verify/ghost", r#"{"password":"x"}"#)
        .await
        .assert_error(StatusCode::NOT_FOUND, "unknown user");
    // A cost-10 hash takes tens of milliseconds; a 404 without one takes microseconds.
    assert!(started.elapsed() > Duration::from_millis(10), "404 in {:?}: no hash", started.elapsed());
}

#[tokio::test]
async fn user_value_is_parsed_and_serialized_anew() {
    let r = router();
    call(&r, "GET", "/user/get/bob", "").await.assert_error(StatusCode::NOT_FOUND, "unknown user");
    let sent = r#"{"b":[1,2.5,null,true],"a":{"é":"\u0041"},"big":9007199254740991}"#;
    assert_eq!(call(&r, "POST", "/user/set/bob", sent).await.text(), "OK");
    let a = call(&r, "GET", "/user/get/bob", "").await;
    assert_eq!((a.status, a.content_type.as_str()), (StatusCode::OK, "application/json"));
    assert_eq!(a.json(), serde_json::from_str::<Value>(sent).unwrap());
    assert!(a.text().contains(r#""A""#), "the escape was not re-serialized: {}", a.text());
    call(&r, "POST", "/user/set/bob", r#"{"v":2}"#).await;
    assert_eq!(call(&r, "GET", "/user/get/bob", "").await.json(), json!({"v": 2}));
}

#[tokio::test]
async fn unknown_paths_are_404() {
    let r = router();
    for (method, path) in [
        ("GET", "/nope"),
        ("GET", "/JSON"),
        ("GET", "/json/extra"),
        ("GET", "/user/get"),
        ("POST", "/password/reset/x"),
    ] {
        call(&r, method, path, "").await.assert_error(StatusCode::NOT_FOUND, &format!("{method} {path}"));
    }
}

#[tokio::test]
async fn fault_routes_only_with_the_switch() {
    let r = router();
    for path in ["/fault/panic", "/fault/spin?ms=10"] {
        call(&r, "GET", path, "").await.assert_error(StatusCode::NOT_FOUND, path);
    }
    let mut config = common::test_config();
    config.faults = true;
    let r = app(AppState::new(config));
    for path in ["/fault/spin", "/fault/spin?ms=", "/fault/spin?ms=x", "/fault/spin?ms=-5"] {
        let a = call(&r, "GET", path, "").await;
        assert_eq!((a.status, a.content_type.as_str(), a.text()), (StatusCode::OK, "text/plain; charset=utf-8", "OK"));
    }
    let started = Instant::now();
    assert_eq!(call(&r, "GET", "/fault/spin?ms=100", "").await.text(), "OK");
    assert!(started.elapsed() >= Duration::from_millis(100), "answered after {:?}", started.elapsed());
    call(&r, "GET", "/fault/panic/x", "").await.assert_error(StatusCode::NOT_FOUND, "a longer path");
    call(&r, "POST", "/fault/spin", "").await.assert_error(StatusCode::METHOD_NOT_ALLOWED, "POST");
}

#[tokio::test]
async fn wrong_methods_are_405_with_allow() {
    let r = router();
    for (method, path, allow) in [
        ("POST", "/", "GET,HEAD"),
        ("PUT", "/page", "GET,HEAD"),
        ("GET", "/user/set/bob", "POST"),
        ("DELETE", "/user/get/bob", "GET,HEAD"),
    ] {
        let a = call(&r, method, path, "").await;
        a.assert_error(StatusCode::METHOD_NOT_ALLOWED, &format!("{method} {path}"));
        assert_eq!(a.allow.as_deref(), Some(allow), "{method} {path}");
    }
}

#[tokio::test]
async fn bad_user_names_are_400_on_every_route() {
    let r = router();
    let long = "x".repeat(65);
    for name in ["", "a/b", "%41", "a%20b", "%C3%BC", "a:b", "a@b", "a+b", "a~b", long.as_str()] {
        for (method, prefix) in
            [("POST", "/password/set/"), ("POST", "/password/verify/"), ("POST", "/user/set/"), ("GET", "/user/get/")]
        {
            let a = call(&r, method, &format!("{prefix}{name}"), r#"{"password":"pw"}"#).await;
            a.assert_error(StatusCode::BAD_REQUEST, &format!("{method} {prefix}{name}"));
        }
    }
}

#[tokio::test]
async fn bodies_over_1_mib_are_413_and_exactly_1_mib_is_taken() {
    let r = router();
    let object = |len: usize| format!(r#"{{"pad":"{}"}}"#, "a".repeat(len - 10));
    assert_eq!(object(1 << 20).len(), 1 << 20);
    assert_eq!(call(&r, "POST", "/user/set/big", object(1 << 20)).await.status, StatusCode::OK);
    for path in ["/user/set/big", "/password/set/big"] {
        call(&r, "POST", path, object((1 << 20) + 1)).await.assert_error(StatusCode::PAYLOAD_TOO_LARGE, path);
    }
}

#[tokio::test]
async fn the_name_is_checked_before_the_body() {
    let big = "x".repeat((1 << 20) + 1);
    call(&router(), "POST", "/user/set/a~b", big).await.assert_error(StatusCode::BAD_REQUEST, "bad name and too large");
}

#[tokio::test]
async fn bodies_that_are_not_json_are_400() {
    let r = router();
    for body in ["not json", r#"{"password":"#, "{'password':'x'}", r#"{"password":"x"} trailing"#, ""] {
        for route in ["/password/set/u", "/password/verify/u", "/user/set/u"] {
            call(&r, "POST", route, body).await.assert_error(StatusCode::BAD_REQUEST, &format!("{route} {body:?}"));
        }
    }
}

#[tokio::test]
async fn bodies_that_are_not_utf8_are_400() {
    let r = router();
    let bodies: [&[u8]; 5] = [
        b"{\"n\":\"\xff\"}",
        b"{\"n\":\"ab\xc3\"}",
        b"{\"n\":\"\xc0\x80\"}",
        b"{\"n\":\"\xed\xa0\x80\"}",
        b"{\"\xfe\":1}",
    ];
    for body in bodies {
        call(&r, "POST", "/user/set/u", body.to_vec())
            .await
            .assert_error(StatusCode::BAD_REQUEST, &body.escape_ascii().to_string());
    }
    call(&r, "GET", "/user/get/u", "").await.assert_error(StatusCode::NOT_FOUND, "after rejected sets");
    call(&r, "POST", "/password/set/u", b"{\"password\":\"\xff\"}".to_vec())
        .await
        .assert_error(StatusCode::BAD_REQUEST, "password");
}

#[tokio::test]
async fn bad_passwords_are_400() {
    let r = router();
    let too_long = json!({ "password": "é".repeat(36) + "x" }).to_string();
    for body in [
        "{}",
        r#"{"password":5}"#,
        r#"{"password":null}"#,
        r#"{"PASSWORD":"x"}"#,
        r#"["password"]"#,
        r#"{"password":"nul\u0000byte"}"#,
        too_long.as_str(),
    ] {
        for route in ["/password/set/u", "/password/verify/u"] {
            call(&r, "POST", route, body.to_string())
                .await
                .assert_error(StatusCode::BAD_REQUEST, &format!("{route} {body}"));
        }
    }
    let max = json!({ "password": "é".repeat(36) }).to_string();
    assert_eq!(call(&r, "POST", "/password/set/u", max.clone()).await.status, StatusCode::OK);
    assert_eq!(call(&r, "POST", "/password/verify/u", max).await.status, StatusCode::OK);
}

#[tokio::test]
async fn user_bodies_that_are_not_objects_are_400() {
    let r = router();
    for body in ["[1,2]", "\"str\"", "42", "null", "true"] {
        call(&r, "POST", "/user/set/u", body).await.assert_error(StatusCode::BAD_REQUEST, body);
    }
    call(&r, "GET", "/user/get/u", "").await.assert_error(StatusCode::NOT_FOUND, "after rejected sets");
}

#[tokio::test]
async fn no_content_type_is_needed_or_checked() {
    let r = router();
    let request =
        Request::post("/user/set/ct").header(header::CONTENT_TYPE, "text/csv").body(Body::from(r#"{"a":1}"#)).unwrap();
    assert_eq!(r.clone().oneshot(request).await.unwrap().status(), StatusCode::OK);
}
