//! Percentiles against servers whose timing is known: a fixed delay, and a
//! stall at a known time. The open loop must show the stall the way the
//! intended schedule implies (every request meant to be sent during the
//! stall waits for its end); the closed loop only shows the requests that
//! were in flight, which is exactly the coordinated omission it suffers from.

use crate::load_support;

use concur::load::StopAt;
use load_support::{Behaviour, TestServer, at_least, plan, run};
use std::time::Duration;

#[test]
fn fixed_delay_sets_every_percentile() {
    let server = TestServer::start(Behaviour::Delay(Duration::from_millis(50)));
    let report = run(&plan(&server, 4, 40));
    let l = &report.latency;
    assert_eq!(l.count, 40);
    // 3 significant digits: 50 ms falls in a bucket 32 µs wide, whose floor is 49,984 µs.
    assert!(l.min_us >= 49_984, "min {} µs is below the server's 50 ms delay", l.min_us);
    // Generous upper bounds: the machine is shared; what matters is that no percentile is below the delay.
    assert!(l.p50_us < 90_000, "p50 {} µs", l.p50_us);
    assert!(l.max_us < 500_000, "max {} µs", l.max_us);
    assert!((l.mean_us - 50_000.0).abs() < 40_000.0, "mean {}", l.mean_us);
}

const STALL_AFTER: Duration = Duration::from_millis(1000);
const STALL: Duration = Duration::from_millis(1000);

fn stalled_run(rate: Option<f64>) -> concur::load::LoadReport {
    let server = TestServer::start(Behaviour::Stall { after: STALL_AFTER, length: STALL });
    let mut p = plan(&server, 10, 0);
    p.stop = StopAt::Duration(Duration::from_millis(3000));
    p.rate = rate;
    run(&p)
}

#[test]
fn open_loop_percentiles_follow_the_intended_schedule() {
    // 200 requests/s over 3 s; the server holds everything for 1 s after 1 s.
    // Requests intended during the stall (1/3 of them) wait until its end, so
    // their latencies spread evenly from 1 s down to 0: the top third of the
    // distribution is uniform on [0, 1 s]. Hence p90 ≈ 0.7 s, p99 ≈ 0.97 s,
    // and about 100 requests (those of the stall's first half) exceed 0.5 s.
    let report = stalled_run(Some(200.0));
    let l = &report.latency;
    assert_eq!(report.errors, 0);
    let rate = report.rate.as_ref().unwrap();
    assert!(rate.reached, "{rate:?}");
    assert!(l.count >= 540 && l.count <= 610, "count {}", l.count);
    assert!(l.p50_us < 100_000, "p50 {} µs", l.p50_us);
    assert!((550_000..850_000).contains(&l.p90_us), "p90 {} µs, expected about 700 ms", l.p90_us);
    assert!((850_000..1_150_000).contains(&l.p99_us), "p99 {} µs, expected about 970 ms", l.p99_us);
    let slow = at_least(&report, 500_000);
    assert!((70..=130).contains(&slow), "{slow} requests over 500 ms, expected about 100");
}

#[test]
fn closed_loop_shows_only_the_requests_in_flight() {
    // The same stall in a closed loop: only the 10 requests in flight when it
    // began wait for it; every other request is fast. The stall is visible
    // in the maximum but hides from p99 (coordinated omission).
    let report = stalled_run(None);
    let l = &report.latency;
    assert_eq!(report.errors, 0);
    assert!(l.max_us >= 800_000, "max {} µs: the stall must show in the maximum", l.max_us);
    let slow = at_least(&report, 400_000);
    assert!((1..=10).contains(&slow), "{slow} requests over 400 ms; at most the 10 in flight may be");
    assert!(l.p99_us < 300_000, "p99 {} µs", l.p99_us);
    assert!(report.rate.is_none());
}
