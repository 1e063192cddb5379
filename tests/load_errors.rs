//! Failures are counted by kind, never mistaken for successes, and never
//! make the run hang past its duration plus the timeout.

use crate::load_support;

use concur::load::{Control, LoadPlan, StopAt};
use load_support::{Behaviour, TestServer, plan, run};
use std::net::TcpListener;
use std::time::{Duration, Instant};

#[test]
fn refused_before_the_run_is_one_sentence() {
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let plan = LoadPlan::get(&format!("http://127.0.0.1:{port}/")).unwrap();
    let started = Instant::now();
    let err = concur::load::run(&plan, &Control::new()).unwrap_err().to_string();
    assert!(started.elapsed() < Duration::from_secs(2));
    assert!(err.starts_with(&format!("cannot connect to http://127.0.0.1:{port}/ (127.0.0.1:{port}): Connection refused")), "{err}");
    assert!(!err.contains('\n'));
}

#[test]
fn refused_during_the_run_counts_connect_errors() {
    // Keep-alive off, so every request needs a new connection; the server
    // stops listening after a few hundred milliseconds.
    let server = TestServer::start(Behaviour::Hello);
    let mut p = plan(&server, 4, 0);
    p.keepalive = false;
    p.stop = StopAt::Duration(Duration::from_millis(1500));
    let handle = std::thread::spawn(move || run(&p));
    std::thread::sleep(Duration::from_millis(400));
    server.close();
    let report = handle.join().unwrap();
    assert!(report.requests > 0);
    assert!(report.errors_by_kind.connect > 0, "{:?}", report.errors_by_kind);
    // Refused, or reset when the listener closed with the handshake done but the connection not yet accepted.
    let message = &report.error_messages["connect"];
    assert!(message.contains("refused") || message.contains("reset"), "{message}");
    // The reconnect backoff keeps a dead server from turning into a busy loop.
    assert!(report.errors_by_kind.connect < 4 * 20, "{} connect errors in ~1 s", report.errors_by_kind.connect);
}

#[test]
fn reset_connections_count_as_reset() {
    let server = TestServer::start(Behaviour::Reset);
    let report = run(&plan(&server, 2, 20));
    assert_eq!((report.requests, report.errors), (0, 20));
    assert_eq!(report.errors_by_kind.reset, 20, "{:?}", report.errors_by_kind);
}

#[test]
fn closed_without_answer_counts_as_closed() {
    let server = TestServer::start(Behaviour::Close);
    let report = run(&plan(&server, 2, 10));
    assert_eq!(report.errors_by_kind.closed, 10, "{:?}", report.errors_by_kind);
}

#[test]
fn silent_server_times_out_without_hanging() {
    let server = TestServer::start(Behaviour::Silent);
    let mut p = plan(&server, 3, 6);
    p.timeout = Duration::from_millis(200);
    let started = Instant::now();
    let report = run(&p);
    assert_eq!(report.errors_by_kind.timeout, 6, "{:?}", report.errors_by_kind);
    assert_eq!(report.requests, 0);
    // Two rounds of three requests, each cut at the timeout.
    assert!(started.elapsed() < Duration::from_millis(1500), "{:?}", started.elapsed());
}

#[test]
fn duration_run_ends_on_time_with_a_silent_server() {
    let server = TestServer::start(Behaviour::Silent);
    let mut p = plan(&server, 3, 0);
    p.stop = StopAt::Duration(Duration::from_millis(500));
    p.timeout = Duration::from_secs(30);
    let started = Instant::now();
    let report = run(&p);
    assert!(started.elapsed() < Duration::from_millis(1200), "{:?}", started.elapsed());
    assert_eq!((report.requests, report.errors), (0, 0), "requests in flight at the end are not counted");
}

#[test]
fn unexpected_status_is_an_error_not_a_success() {
    let server = TestServer::start(Behaviour::Status(404));
    let report = run(&plan(&server, 2, 8));
    assert_eq!((report.requests, report.errors), (0, 8));
    assert_eq!(report.errors_by_kind.status.get(&404), Some(&8));
    assert_eq!(report.latency.count, 0);
    assert_eq!(report.timeline.iter().map(|s| s.errors).sum::<u64>(), 8);
}

#[test]
fn stop_switch_returns_the_partial_result() {
    let server = TestServer::start(Behaviour::Delay(Duration::from_millis(5)));
    let mut p = plan(&server, 2, 0);
    p.stop = StopAt::Duration(Duration::from_secs(60));
    let control = std::sync::Arc::new(Control::new());
    let stopper = std::sync::Arc::clone(&control);
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        stopper.stop();
    });
    let started = Instant::now();
    let report = concur::load::run(&p, &control).unwrap();
    assert!(started.elapsed() < Duration::from_secs(2));
    assert!(report.interrupted);
    assert!(report.requests > 0);
}
