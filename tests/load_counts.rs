//! `-n` sends exactly n requests: counted by the server and by the report,
//! with keep-alive and without, more connections than requests included.

use crate::load_support;

use load_support::{Behaviour, TestServer, plan, run};

#[test]
fn exact_count_with_keepalive() {
    let server = TestServer::start(Behaviour::Hello);
    let report = run(&plan(&server, 7, 1000));
    assert_eq!(server.requests(), 1000);
    assert_eq!((report.requests, report.errors), (1000, 0));
    assert_eq!(report.latency.count, 1000);
    assert_eq!(report.timeline.iter().map(|s| s.requests).sum::<u64>(), 1000);
    assert_eq!(report.bytes_read, 1000 * 77, "every response is 77 bytes");
}

#[test]
fn exact_count_without_keepalive() {
    let server = TestServer::start(Behaviour::Hello);
    let mut p = plan(&server, 5, 101);
    p.keepalive = false;
    let report = run(&p);
    assert_eq!(server.requests(), 101);
    assert_eq!((report.requests, report.errors), (101, 0));
    assert!(server.log().iter().map(|s| s.connection).collect::<std::collections::HashSet<_>>().len() >= 101);
}

#[test]
fn fewer_requests_than_connections() {
    let server = TestServer::start(Behaviour::Hello);
    let report = run(&plan(&server, 10, 3));
    assert_eq!(server.requests(), 3);
    assert_eq!(report.requests, 3);
}

#[test]
fn failed_requests_count_towards_n() {
    let server = TestServer::start(Behaviour::Status(503));
    let report = run(&plan(&server, 4, 50));
    assert_eq!(server.requests(), 50);
    assert_eq!((report.requests, report.errors), (0, 50));
    assert_eq!(report.errors_by_kind.status.get(&503), Some(&50));
}

/// `--spawn-rate`: 20 users at 20 per second start about 50 ms apart (their first requests
/// arrive over about 950 ms), and each latency starts at the user's own send, not at the run's start.
#[test]
fn a_spawn_rate_staggers_the_users_and_each_latency_starts_at_its_send() {
    let server = TestServer::start(Behaviour::Hello);
    let mut p = plan(&server, 20, 1);
    p.stop = concur::load::StopAt::Duration(std::time::Duration::from_millis(1500));
    p.threads = 1;
    p.spawn_rate = Some(20.0);
    let report = run(&p);
    assert_eq!(report.settings.spawn_rate, Some(20.0));
    let mut first = std::collections::BTreeMap::new();
    for seen in server.log() {
        first.entry(seen.connection).or_insert(seen.at);
    }
    assert_eq!(first.len(), 20, "every user connected once");
    let span = *first.values().max().unwrap() - *first.values().min().unwrap();
    assert!(span >= std::time::Duration::from_millis(800), "20 users at 20/s arrived within {span:?}");
    assert!(report.latency.max_us < 400_000, "a late user's latency counted its wait to start: {} us", report.latency.max_us);
}

/// `peak_in_flight` is how many clients waited at once: all 20 when they start together
/// against a server that holds each request 500 ms; about half when they start over a second.
#[test]
fn peak_in_flight_counts_the_requests_waiting_at_once() {
    let server = TestServer::start(Behaviour::Delay(std::time::Duration::from_millis(500)));
    let mut p = plan(&server, 20, 20);
    p.threads = 1;
    assert_eq!(run(&p).peak_in_flight, 20);
    p.spawn_rate = Some(20.0);
    let staggered = run(&p).peak_in_flight;
    assert!((5..=15).contains(&staggered), "20 users over 950 ms, each held 500 ms: {staggered} at once");
}
