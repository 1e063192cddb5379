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
