//! A scenario with user data and think time, checked from the server's side:
//! each virtual user sends the steps in order on its connection, fills them
//! from its row of the CSV (the next row each iteration), and pauses for the
//! think time between iterations only.

use crate::load_support;

use concur::cli::LoadArgs;
use load_support::{Behaviour, TestServer, run};
use std::time::Duration;

const SCENARIO: &str = r#"
description = "set then verify, as the thesis' Listing 33"
think_time = "300ms"

[[step]]
name = "set"
method = "POST"
path = "/password/set/{user}"
headers = { "Content-Type" = "application/json" }
body = '{"password":"{password}"}'
expect = 200

[[step]]
name = "verify"
method = "POST"
path = "/password/verify/{user}"
body = '{"password":"{password}"}'
expect = 200
"#;

#[test]
fn users_steps_and_think_time() {
    let server = TestServer::start(Behaviour::Hello);
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("pw.toml");
    let users = dir.path().join("users.csv");
    std::fs::write(&scenario, SCENARIO).unwrap();
    std::fs::write(&users, "username;password\nann;a1\nbob;b2\ncid;c3\n").unwrap();
    let args = LoadArgs {
        url: server.url(),
        method: "GET".into(),
        scenario: Some(scenario.to_string_lossy().into_owned()),
        users: Some(users),
        connections: Some(2),
        threads: Some(1),
        requests: Some(8),
        ..Default::default()
    };
    let plan = args.plan().unwrap();
    let report = run(&plan);

    assert_eq!(report.scenario.as_deref(), Some("pw"));
    let steps: Vec<(&str, u64, u64)> = report.steps.iter().map(|s| (s.name.as_str(), s.requests, s.errors)).collect();
    assert_eq!(steps, [("set", 4, 0), ("verify", 4, 0)]);
    assert_eq!(report.steps[0].path, "/password/set/{user}");

    let log = server.log();
    assert_eq!(log.len(), 8);
    let mut by_connection: std::collections::BTreeMap<u64, Vec<_>> = Default::default();
    for seen in &log {
        by_connection.entry(seen.connection).or_default().push(seen.clone());
    }
    // Users 0 and 1 take rows 0 and 1, then rows 2 and 3 (wrapping to 0).
    let mut sequences: Vec<Vec<String>> = by_connection
        .values()
        .map(|seen| seen.iter().map(|s| format!("{} {}", s.path, s.body)).collect())
        .collect();
    sequences.sort();
    assert_eq!(
        sequences,
        [
            [
                r#"/password/set/ann {"password":"a1"}"#,
                r#"/password/verify/ann {"password":"a1"}"#,
                r#"/password/set/cid {"password":"c3"}"#,
                r#"/password/verify/cid {"password":"c3"}"#,
            ],
            [
                r#"/password/set/bob {"password":"b2"}"#,
                r#"/password/verify/bob {"password":"b2"}"#,
                r#"/password/set/ann {"password":"a1"}"#,
                r#"/password/verify/ann {"password":"a1"}"#,
            ],
        ]
    );
    for seen in by_connection.values() {
        let between_steps = seen[1].at - seen[0].at;
        let between_iterations = seen[2].at - seen[1].at;
        assert!(between_steps < Duration::from_millis(150), "no think time inside an iteration: {between_steps:?}");
        assert!(between_iterations >= Duration::from_millis(290), "think time between iterations: {between_iterations:?}");
    }
}

#[test]
fn generated_users_are_used_without_a_file() {
    let server = TestServer::start(Behaviour::Hello);
    let args = LoadArgs {
        url: server.url(),
        method: "GET".into(),
        scenario: Some("userinfo".into()),
        connections: Some(3),
        threads: Some(1),
        requests: Some(6),
        think_time: Some(Duration::ZERO),
        ..Default::default()
    };
    let report = run(&args.plan().unwrap());
    assert_eq!(report.requests, 6);
    // Each user's first request sets its own generated row: user00001..user00003.
    let log = server.log();
    let mut expected: Vec<String> = (1..=3).map(|u| format!("/user/set/user{u:05}")).collect();
    expected.sort();
    let mut seen: Vec<String> = log.iter().map(|s| s.path.clone()).filter(|p| p.starts_with("/user/set/")).collect();
    seen.sort();
    seen.dedup();
    assert!(expected.iter().all(|e| seen.contains(e)), "{seen:?}");
    assert!(log.iter().all(|s| s.body.is_empty() || s.body.contains(&s.path["/user/set/".len()..])), "bodies are filled from the row");
}
