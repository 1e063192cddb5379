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
    assert_eq!((report.requests, report.errors), (0, 0), "a request in flight at the end is neither a success nor an error");
    assert_eq!(report.unfinished, 3, "but it is counted: unfinished");
    let oldest = report.unfinished_age.max_us;
    assert!((450_000..=1_000_000).contains(&oldest), "each waited the whole run: {oldest} µs");
    assert_eq!(report.latency.lower_bounds, ["p50", "p75", "p90", "p99", "p999"]);
    assert!(report.latency.p50_us >= 450_000, "a lower bound, never a number below the wait: {:?}", report.latency);
}

/// A server with a pool of K threads, each holding a keep-alive connection, under 3K
/// clients: 2K clients are never answered (rust-threadpool in longpoll, 744 of 1,000).
/// They are unfinished with the whole run's age, the percentiles above the answered
/// share are lower bounds at that age, and `merge` keeps both exactly.
#[test]
fn a_bounded_pool_leaves_clients_unfinished_and_the_upper_percentiles_lower_bounds() {
    let server = TestServer::start(Behaviour::Pool { threads: 4, delay: Duration::from_millis(20) });
    let mut p = plan(&server, 12, 0);
    p.stop = StopAt::Duration(Duration::from_millis(1000));
    let reports = [run(&p), run(&p)];
    for report in &reports {
        // 4 threads × ~50 answers in 1 s; 8 clients waiting the whole second, 4 with a young request.
        assert_eq!(report.errors, 0);
        assert!((100..=220).contains(&report.requests), "{} answered", report.requests);
        assert_eq!(report.unfinished, 12, "every client had a request unanswered at the end");
        let old = report.unfinished_age.latencies().unwrap().recorded().into_iter().filter(|&(v, _)| v >= 900_000).map(|(_, n)| n).sum::<u64>();
        assert_eq!(old, 8, "two thirds of the clients waited the whole run");
        let l = &report.latency;
        // About 96% answered: p50-p90 known, p99 and p99.9 only bounded below by the oldest wait.
        assert_eq!(l.lower_bounds, ["p99", "p999"], "{l:?}");
        assert!(l.p90_us < 100_000, "{l:?}");
        assert!(l.p99_us >= 900_000 && l.p99_us == report.unfinished_age.max_us, "{l:?}");
    }
    let merged = concur::load::merge(&reports).unwrap();
    assert_eq!(merged.unfinished, 24);
    assert_eq!(merged.unfinished_age.count, 24);
    assert_eq!(merged.latency.lower_bounds, ["p99", "p999"]);
    assert_eq!(merged.latency.p99_us, reports[0].unfinished_age.max_us.max(reports[1].unfinished_age.max_us));
    assert_eq!(merged.steps[0].unfinished, 24);
}

/// A response that ends at the connection's close was read until the run ended (one
/// request in 2 s with 4 connections, where ab completed 200): read to the close, count
/// it, open a new connection.
#[test]
fn a_body_ending_at_the_close_is_read_to_the_close_and_counted() {
    let server = TestServer::start(Behaviour::UntilClose);
    let mut p = plan(&server, 4, 0);
    p.stop = StopAt::Duration(Duration::from_millis(1000));
    let report = run(&p);
    assert_eq!(report.errors, 0, "{:?}", report.errors_by_kind);
    assert!(report.requests >= 200, "{} requests in 1 s", report.requests);
    assert!(report.bytes_read >= report.requests * 13);
}

/// `Content-Length: -5` or a length past 64 bits left the generator waiting for a body
/// until the run ended: each is a parse error at once.
#[test]
fn an_invalid_content_length_is_a_parse_error_not_a_wait() {
    for value in ["-5", "18446744073709551616", "99999999999999999999"] {
        let server = TestServer::start(Behaviour::Length(value));
        let mut p = plan(&server, 2, 6);
        p.timeout = Duration::from_secs(30);
        let started = Instant::now();
        let report = run(&p);
        assert!(started.elapsed() < Duration::from_secs(3), "{value}: {:?}", started.elapsed());
        assert_eq!(report.errors_by_kind.parse, 6, "{value}: {:?}", report.errors_by_kind);
    }
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
