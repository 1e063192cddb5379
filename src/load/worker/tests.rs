//! The worker's loop against real sockets on loopback.
use super::*;
use crate::load::plan::LoadPlan;
use crate::load::pace::BATCH_NS;
use std::time::{Duration, Instant};

/// A TCP connect to a broadcast address fails inside `connect(2)` itself
/// (ENETUNREACH), before any packet leaves: the same synchronous failure
/// as running out of local ports (EADDRNOTAVAIL) or file descriptors in
/// the middle of a run, without changing the machine. `load::run` would
/// refuse this address in its preflight, so the test drives the worker
/// directly, on a thread with the same default stack as the real ones.
/// Before the fix, issue → connect → fail → next recursed once per
/// remaining request and overflowed the stack within milliseconds.
#[test]
fn connect_failing_synchronously_does_not_recurse_per_request() {
    let plan = LoadPlan::get("http://127.255.255.255:9/").unwrap();
    let requests = Requests::encode(&plan);
    let control = Control::new();
    for (pace, budget) in [
        (Pace::Closed { think_ns: 0, spawn_ns: 0 }, Budget::Count(10_000_000)),
        (Pace::Open { interval_ns: 1_000, spacing_ns: 1_000 }, Budget::Unlimited),
    ] {
        let start_ns = sys::now_ns();
        let phase = Phase::new(start_ns, None, Some(Duration::from_millis(300)));
        let shared = Shared {
            requests: &requests,
            addr: plan.target.addr,
            sources: &[],
            keepalive: true,
            timeout_ns: 1_000_000_000,
            start_ns,
            phase: &phase,
            total_users: 2,
            pace,
            backoff: false,
            control: &control,
            latency_per_second: false,
        };
        let assignment = Assignment { first_user: 0, connections: 2, budget, cpu: None };
        let began = Instant::now();
        let outcome = std::thread::scope(|s| s.spawn(|| run(&shared, assignment)).join().unwrap()).unwrap();
        assert!(began.elapsed() < Duration::from_secs(5), "{pace:?}: took {:?}", began.elapsed());
        let errors = &outcome.steps[0].errors;
        assert_eq!(errors.get(ErrorKind::Connect), outcome.sent, "{pace:?}: every attempt is one connect error");
        assert_eq!(outcome.steps[0].ok, 0);
        // Two users backing off 10, 20, 40, 80, 160 ms within 300 ms: a handful of attempts each, not a spin.
        assert!((2..=20).contains(&outcome.sent), "{pace:?}: {} attempts in 300 ms", outcome.sent);
        assert!(outcome.first_errors[&ErrorKind::Connect].contains("unreachable"), "{:?}", outcome.first_errors);
    }
}

/// A 6 s longpoll point on a machine loaded by compiles ended its worker's loop 2.3 s late:
/// its completions read late counted latencies past the end (8.1 s), the next polls they
/// sent were unfinished at age 0 and hid the starved clients from the estimate. A worker
/// past the end sends nothing, counts only requests begun before it, and ends at it.
#[test]
fn a_worker_waking_after_the_end_sends_and_counts_nothing_past_it() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let plan = LoadPlan::get(&format!("http://{}/", listener.local_addr().unwrap())).unwrap();
    let requests = Requests::encode(&plan);
    let control = Control::new();
    let now = sys::now_ns();
    let (start_ns, deadline) = (now - 2_000_000_000, now - 1_000_000_000);
    let phase = Phase::new(start_ns, None, Some(Duration::from_secs(1)));
    assert_eq!(phase.deadline(), Some(deadline));
    let shared = Shared {
        requests: &requests,
        addr: plan.target.addr,
        sources: &[],
        keepalive: true,
        timeout_ns: 10_000_000_000,
        start_ns,
        phase: &phase,
        total_users: 3,
        pace: Pace::Closed { think_ns: 0, spawn_ns: 0 },
        backoff: false,
        control: &control,
        latency_per_second: false,
    };
    let assignment = Assignment { first_user: 0, connections: 3, budget: Budget::Unlimited, cpu: None };
    let mut worker = Worker::new(&shared, &assignment).unwrap();
    worker.conns[0].state = State::Waiting;
    worker.timers.push(Reverse((deadline - 500_000_000, 0, worker.conns[0].timer)));
    worker.fire_timers(now);
    assert_eq!((worker.conns[0].state, worker.sent), (State::Waiting, 0), "nothing is sent past the end");
    worker.conns[1].state = State::Reading;
    worker.conns[1].origin = deadline + 1_000_000;
    worker.conns[2].state = State::Reading;
    worker.conns[2].origin = deadline - 1_000_000_000;
    let outcome = worker.finish(vec![]);
    assert_eq!(outcome.end_ns, deadline);
    let ages = &outcome.steps[0].unfinished;
    assert_eq!((ages.count(), ages.max() / 1000), (1, 1000), "only the request begun before the end, aged to the end");
}

/// An open loop of one request per user every 100 ms, started 50 ms ago, against a
/// listener that never answers: the worker tests drive its scheduling by hand.
struct OpenLoop {
    _listener: std::net::TcpListener,
    plan: LoadPlan,
    requests: Requests,
    control: Control,
    phase: Phase,
    start_ns: u64,
}

impl OpenLoop {
    fn new() -> OpenLoop {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let plan = LoadPlan::get(&format!("http://{}/", listener.local_addr().unwrap())).unwrap();
        let requests = Requests::encode(&plan);
        let start_ns = sys::now_ns() - 50_000_000;
        let phase = Phase::new(start_ns, None, Some(Duration::from_secs(10)));
        OpenLoop { _listener: listener, plan, requests, control: Control::new(), phase, start_ns }
    }

    fn shared(&self, users: u64, keepalive: bool) -> Shared<'_> {
        Shared {
            requests: &self.requests,
            addr: self.plan.target.addr,
            sources: &[],
            keepalive,
            timeout_ns: 1_000_000_000,
            start_ns: self.start_ns,
            phase: &self.phase,
            total_users: users,
            pace: Pace::Open { interval_ns: 100_000_000, spacing_ns: 1_000_000 },
            backoff: false,
            control: &self.control,
            latency_per_second: false,
        }
    }
}

/// One wake-up sends every user due before the end of the batch window. A user whose
/// time passed long ago (a stall) keeps its intended time as latency origin, so the
/// stall still counts against every request behind it; a user sent before its time
/// starts at its send; a user due after the window keeps waiting.
#[test]
fn a_batch_sends_late_and_early_users_with_the_right_latency_origins() {
    let fixture = OpenLoop::new();
    let shared = fixture.shared(3, true);
    let start_ns = shared.start_ns;
    let assignment = Assignment { first_user: 0, connections: 3, budget: Budget::Unlimited, cpu: None };
    let mut worker = Worker::new(&shared, &assignment).unwrap();
    assert_eq!(worker.early_ns, BATCH_NS);
    let now = sys::now_ns();
    let due = [now - 5_000_000, now + BATCH_NS / 2, now + 3 * BATCH_NS];
    for (i, at) in due.into_iter().enumerate() {
        worker.conns[i].schedule = at;
        worker.next(i, start_ns, false);
        assert_eq!(worker.conns[i].state, State::Waiting);
    }
    worker.fire_timers(now);
    let [late, early, later] = &worker.conns[..] else { unreachable!() };
    assert_eq!(late.state, State::Connecting);
    assert_eq!(late.origin, due[0], "a late send keeps its intended time");
    assert!(late.io_start > late.origin);
    assert_eq!(early.state, State::Connecting, "due within the window: sent in the same batch");
    assert!(early.origin <= early.io_start && early.origin <= due[1], "an early send starts at the send");
    assert_eq!(later.state, State::Waiting);
    assert_eq!(worker.sent, 2);
    assert_eq!(worker.conns[0].schedule, due[0] + 100_000_000, "the schedule goes on from the intended time");
}

/// A user whose time came while its previous response was on the way sends when that
/// response is read: the wait for the response counts (the server's), the batch window
/// it was read in does not (the generator's). With a new connection per request there is
/// no batching at all.
#[test]
fn a_send_held_back_by_a_late_read_counts_the_servers_wait_only() {
    let fixture = OpenLoop::new();
    let shared = fixture.shared(1, true);
    let assignment = Assignment { first_user: 0, connections: 1, budget: Budget::Unlimited, cpu: None };
    let mut worker = Worker::new(&shared, &assignment).unwrap();
    let now = sys::now_ns();
    // Due 3 ms ago; the response before it arrived 2 ms ago (server: 1 ms late) and is read now.
    let (due, arrived) = (now - 3_000_000, now - 2_000_000);
    worker.conns[0].schedule = due;
    worker.conns[0].free_at = arrived;
    worker.next(0, now, false);
    let c = &worker.conns[0];
    assert_eq!(c.state, State::Connecting);
    assert_eq!(c.origin, due + (now - arrived), "the 1 ms the server held the user counts, the 2 ms read delay does not");
    assert_eq!(c.free_at, 0, "used once");
    // A stall of the server alone (its response read as soon as it came) counts whole.
    let mut worker = Worker::new(&shared, &assignment).unwrap();
    let now = sys::now_ns();
    worker.conns[0].schedule = now - 3_000_000;
    worker.conns[0].free_at = now;
    worker.next(0, now, false);
    assert_eq!(worker.conns[0].origin, now - 3_000_000);
    let close = fixture.shared(1, false);
    let worker = Worker::new(&close, &assignment).unwrap();
    assert_eq!((worker.early_ns, worker.batched), (0, false), "Connection: close is never batched");
}
