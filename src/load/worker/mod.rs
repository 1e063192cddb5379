//! The hot path, shaped like wrk: one single-threaded mio (epoll) event loop
//! per worker thread, owning its connections, plain counters and one latency
//! histogram per step; nothing is shared while it runs but the stop switch
//! and the progress counters it publishes a few times a second (and, while
//! a warm-up runs, its completions per second for `warmup` to judge). Per request
//! it makes one `write` and usually one `read`: sockets are registered once,
//! edge-triggered, for both directions, and a short read means the socket is
//! drained. The closed loop waits on epoll and answers each event at once; the
//! open loop wakes once per batch window (`pace::BATCH_NS`), takes every event
//! that came meanwhile, ends each latency at the kernel's arrival stamp of the
//! response, and sends every request due within the window. Closed loop, open
//! loop, count and duration are the strategies of `pace`, asked by this one loop.

use super::conn::{Conn, State};
use super::control::Control;
use super::http::Feed;
use super::pace::{Budget, Pace};
use super::request::Requests;
use super::sys::{self, CpuTime, Waiter};
use super::warmup::Phase;
use crate::stats::{ErrorKind, Latencies, Timeline};
use anyhow::{Context, Result};
use mio::net::TcpStream;
use mio::{Interest, Poll, Token};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};
use std::io::{self, Read, Write};
use std::net::{IpAddr, SocketAddr};
use std::os::fd::AsRawFd;

mod tally;

pub use tally::{Outcome, StepTally};

const READ_BUFFER: usize = 64 * 1024;
/// Socket events taken per wait.
const EVENTS: usize = 1024;

/// What every worker reads and none writes.
pub struct Shared<'a> {
    pub requests: &'a Requests,
    pub addr: SocketAddr,
    /// Local addresses to connect from, user `u` from `sources[u % len]`; empty: the kernel's choice (`source`).
    pub sources: &'a [IpAddr],
    pub keepalive: bool,
    pub timeout_ns: u64,
    pub start_ns: u64,
    /// Where the measurement starts (after a warm-up) and when the run ends.
    pub phase: &'a Phase,
    /// Virtual users over all workers (for the user data row).
    pub total_users: u64,
    pub pace: Pace,
    /// Wait before reconnecting after any failed connect (closed loop with a duration);
    /// otherwise only a connect that fails at once waits.
    pub backoff: bool,
    pub control: &'a Control,
    /// Keep a latency histogram per second of the timeline (`LoadPlan::latency_per_second`).
    pub latency_per_second: bool,
}

/// A worker's share of the run.
pub struct Assignment {
    pub first_user: u64,
    pub connections: usize,
    pub budget: Budget,
    pub cpu: Option<usize>,
}

/// Runs one worker on the calling thread until the run ends. An error is the
/// worker's event loop itself failing, said as a sentence; failed requests are
/// counted in the outcome instead.
pub fn run(shared: &Shared, assignment: Assignment) -> Result<Outcome> {
    let warning =
        assignment.cpu.and_then(|cpu| sys::pin_to_cpu(cpu).err().map(|e| format!("cannot pin a worker thread to CPU {cpu}: {e}")));
    sys::set_timer_slack(1_000);
    let mut worker = Worker::new(shared, &assignment).context("a load worker could not start its event loop (epoll)")?;
    worker.run().context("a load worker's event loop failed waiting for socket events (epoll_pwait2/epoll_wait); the run is abandoned")?;
    Ok(worker.finish(warning.into_iter().collect()))
}

struct Worker<'a> {
    shared: &'a Shared<'a>,
    requests: &'a Requests,
    poll: Poll,
    waiter: Waiter,
    /// How long before its time a waiting user may be sent (`Pace::early_ns`).
    early_ns: u64,
    /// Open loop: wake once per batch window, and end latencies at the kernel's arrival stamps.
    batched: bool,
    /// CLOCK_REALTIME minus CLOCK_MONOTONIC, refreshed every tick, for the arrival stamps.
    realtime_offset: i64,
    /// The last wait filled the event buffer: more events wait, so the next one does not sleep.
    backlog: bool,
    timers: BinaryHeap<Reverse<(u64, usize, u32)>>,
    conns: Vec<Conn>,
    budget: Budget,
    active: usize,
    buf: Box<[u8]>,
    steps: Vec<StepTally>,
    timeline: Timeline,
    /// Per second of the timeline, its successes' latencies (when the plan asks).
    second_latencies: Option<Vec<Latencies>>,
    second: usize,
    second_end: u64,
    bytes_read: u64,
    sent: u64,
    finished: u64,
    failed: u64,
    /// Requests in flight now, and the most at once.
    in_flight: u64,
    peak_in_flight: u64,
    published: (u64, u64),
    first_errors: BTreeMap<ErrorKind, String>,
    interrupted: bool,
    /// The warm-up is over for this worker: its CPU and bytes count from here.
    measuring: bool,
    cpu_start: CpuTime,
    bytes_before: u64,
    /// Seconds of the timeline already published for the warm-up's judge.
    published_seconds: usize,
}

impl<'a> Worker<'a> {
    fn new(shared: &'a Shared<'a>, assignment: &Assignment) -> io::Result<Worker<'a>> {
        let poll = Poll::new()?;
        let waiter = Waiter::new(poll.as_raw_fd(), EVENTS);
        // With a new connection per request, a connect's completion carries no arrival stamp
        // and would wait out the window before its send: no batching then.
        let early_ns = if shared.keepalive { shared.pace.early_ns() } else { 0 };
        let conns = (0..assignment.connections).map(|i| Conn::new(assignment.first_user + i as u64)).collect();
        let steps = shared.requests.expect.iter().map(|_| StepTally::default()).collect();
        Ok(Worker {
            shared,
            requests: shared.requests,
            poll,
            waiter,
            early_ns,
            batched: early_ns > 0,
            realtime_offset: sys::realtime_offset(),
            backlog: false,
            timers: BinaryHeap::new(),
            conns,
            budget: assignment.budget,
            active: assignment.connections,
            buf: vec![0; READ_BUFFER].into_boxed_slice(),
            steps,
            timeline: Timeline::default(),
            second_latencies: shared.latency_per_second.then(Vec::new),
            second: 0,
            second_end: shared.phase.clock_ns() + 1_000_000_000,
            bytes_read: 0,
            sent: 0,
            finished: 0,
            failed: 0,
            in_flight: 0,
            peak_in_flight: 0,
            published: (0, 0),
            first_errors: BTreeMap::new(),
            interrupted: false,
            // Without a warm-up from the start; else the loop turns it on when the warm-up ends.
            measuring: shared.phase.measure_from() <= shared.start_ns,
            cpu_start: CpuTime::thread(),
            bytes_before: 0,
            published_seconds: 0,
        })
    }

    fn run(&mut self) -> io::Result<()> {
        let start = self.shared.start_ns;
        for i in 0..self.conns.len() {
            let c = &mut self.conns[i];
            c.schedule = self.shared.pace.first(start, c.user);
            self.next(i, sys::now_ns().max(start), false);
        }
        let tick_ns = (self.shared.timeout_ns / 10).clamp(1_000_000, 100_000_000);
        let mut next_tick = start + tick_ns;
        while self.active > 0 {
            let now = sys::now_ns();
            if self.shared.control.stopped() {
                self.interrupted = true;
                break;
            }
            let deadline = self.shared.phase.deadline();
            if deadline.is_some_and(|d| now >= d) {
                break;
            }
            if !self.measuring && now >= self.shared.phase.measure_from() {
                self.measuring = true;
                self.cpu_start = CpuTime::thread();
                self.bytes_before = self.bytes_read;
            }
            if now >= next_tick {
                self.tick(now);
                next_tick = now + tick_ns;
                continue;
            }
            let mut wake = deadline.map_or(next_tick, |d| d.min(next_tick));
            if let Some(Reverse((at, ..))) = self.timers.peek() {
                wake = wake.min(*at);
            }
            let n = match self.wait(now, wake) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            for k in 0..n {
                if let Some((i, readable)) = self.waiter.event(k) {
                    self.on_event(i, readable);
                }
            }
            self.fire_timers(sys::now_ns());
        }
        Ok(())
    }

    /// Waits for socket events until `wake`. Open loop: sleeps through the batch window
    /// instead, then takes every event that came meanwhile at once; the responses read
    /// late keep their latencies, which end at the kernel's arrival stamp.
    fn wait(&mut self, now: u64, wake: u64) -> io::Result<usize> {
        if !self.batched {
            return self.waiter.wait(wake);
        }
        if wake > now && !self.backlog {
            sys::sleep_until(wake.min(now + self.early_ns));
        }
        let n = self.waiter.wait(0)?;
        self.backlog = n == EVENTS;
        Ok(n)
    }

    fn on_event(&mut self, i: usize, readable: bool) {
        let now = sys::now_ns();
        // A thread that woke late (a loaded machine) must not count past the measurement's end:
        // its request stays unfinished at the end, as one still on the wire would be.
        if self.ended(now) {
            return;
        }
        match self.conns[i].state {
            State::Reading if readable => self.receive(i, now),
            State::Writing => {
                self.conns[i].read_pending |= readable;
                self.send(i, now);
            }
            State::Connecting => self.connected(i, now),
            State::Waiting if readable => {
                // The server closed an idle keep-alive connection: reconnect when next needed.
                self.conns[i].sock = None;
            }
            _ => {}
        }
    }

    /// Decides when user `i` sends next, or retires it.
    fn next(&mut self, i: usize, now: u64, iteration_ended: bool) {
        if !self.budget.available() {
            return self.retire(i);
        }
        let c = &mut self.conns[i];
        c.intended = self.shared.pace.next(&mut c.schedule, now, iteration_ended);
        let at = c.intended.max(c.retry_at);
        if at <= now + self.early_ns {
            self.issue(i, now);
        } else {
            c.state = State::Waiting;
            c.timer = c.timer.wrapping_add(1);
            self.timers.push(Reverse((at, i, c.timer)));
        }
    }

    fn issue(&mut self, i: usize, now: u64) {
        let c = &mut self.conns[i];
        let mut origin = self.shared.pace.origin(c.intended, now);
        // Open loop: when this user's time came while its previous response was still on the
        // way, the send waited for that response (the server's delay, counted) and then for
        // the batch window in which it was read (the generator's, not counted).
        if c.free_at > c.intended {
            origin = c.intended + now.saturating_sub(c.free_at);
        }
        c.free_at = 0;
        // A warm-up's requests take nothing from the budget and are not counted as sent.
        if self.shared.phase.measures(origin) {
            if !self.budget.take() {
                return self.retire(i);
            }
            self.sent += 1;
        }
        self.in_flight += 1;
        self.peak_in_flight = self.peak_in_flight.max(self.in_flight);
        let c = &mut self.conns[i];
        c.origin = origin;
        c.io_start = now;
        if c.sock.is_some() {
            c.state = State::Writing;
            c.written = 0;
            self.send(i, now);
        } else {
            self.connect(i, now);
        }
        if !self.budget.available() {
            self.retire_waiting();
        }
    }

    fn connect(&mut self, i: usize, now: u64) {
        let sources = self.shared.sources;
        let connected = match sources.len() {
            0 => TcpStream::connect(self.shared.addr),
            n => super::source::connect_from(sources[(self.conns[i].user % n as u64) as usize], self.shared.addr),
        };
        let mut sock = match connected {
            Ok(sock) => sock,
            Err(e) => return self.fail_at_once(i, now, &e),
        };
        if let Err(e) = self.poll.registry().register(&mut sock, Token(i), Interest::READABLE | Interest::WRITABLE) {
            return self.fail_at_once(i, now, &e);
        }
        let _ = sock.set_nodelay(true);
        if self.batched {
            // Without stamps, latencies end when the response is read: correct, only less exact.
            let _ = sys::stamp_arrivals(sock.as_raw_fd());
        }
        let c = &mut self.conns[i];
        c.sock = Some(sock);
        c.state = State::Connecting;
        c.read_pending = false;
    }

    fn connected(&mut self, i: usize, now: u64) {
        let c = &mut self.conns[i];
        let sock = c.sock.as_ref().expect("a connecting user has a socket");
        match sock.take_error() {
            Ok(None) => {}
            Ok(Some(e)) | Err(e) => return self.fail(i, ErrorKind::Connect, now, Some(&e)),
        }
        match sock.peer_addr() {
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotConnected => return,
            Err(e) => return self.fail(i, ErrorKind::Connect, now, Some(&e)),
        }
        c.failures = 0;
        c.state = State::Writing;
        c.written = 0;
        self.send(i, now);
    }

    fn send(&mut self, i: usize, now: u64) {
        let c = &mut self.conns[i];
        let row = c.user + c.iteration * self.shared.total_users;
        let request = self.requests.get(row, c.step);
        let mut sock = c.sock.as_ref().expect("a writing user has a socket");
        while c.written < request.len() {
            match sock.write(&request[c.written..]) {
                Ok(n) => c.written += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return self.fail(i, classify(&e, ErrorKind::Write), now, Some(&e)),
            }
        }
        c.state = State::Reading;
        c.parser.start(self.requests.head[c.step]);
        if c.read_pending {
            c.read_pending = false;
            self.receive(i, now);
        }
    }

    fn receive(&mut self, i: usize, now: u64) {
        loop {
            let c = &mut self.conns[i];
            let mut sock = c.sock.as_ref().expect("a reading user has a socket");
            let read = if self.batched {
                sys::recv_stamped(sock.as_raw_fd(), &mut self.buf, self.realtime_offset)
            } else {
                sock.read(&mut self.buf).map(|n| (n, None))
            };
            let (n, arrived) = match read {
                Ok((0, _)) => {
                    return match c.parser.eof() {
                        Feed::Done { status, .. } => self.complete(i, status, false, now, None),
                        _ => self.fail(i, ErrorKind::Closed, now, None),
                    };
                }
                Ok(read) => read,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return self.fail(i, classify(&e, ErrorKind::Read), now, Some(&e)),
            };
            self.bytes_read += n as u64;
            match c.parser.feed(&self.buf[..n]) {
                Feed::More => {}
                Feed::Done { status, keep_alive, rest: 0 } => return self.complete(i, status, keep_alive, now, arrived),
                Feed::Done { .. } | Feed::Invalid => return self.fail(i, ErrorKind::Parse, now, None),
            }
            // A short read means the socket is drained, except of a close that came with the
            // data: edge-triggered, it raises no new event, and a body that ends at the close
            // would wait for it until the timeout. Such a body reads on until the close.
            if n < self.buf.len() && !self.conns[i].parser.until_close() {
                return;
            }
        }
    }

    /// A whole response arrived; its last bytes `arrived` at that time by the kernel's stamp, when known.
    fn complete(&mut self, i: usize, status: u16, keep_alive: bool, now: u64, arrived: Option<u64>) {
        let step = self.conns[i].step;
        let (low, high) = self.requests.expect[step];
        let ok = low <= status && status <= high;
        let origin = self.conns[i].origin;
        let latency_us = ok.then(|| (arrived.map_or(now, |a| a.max(origin).min(now)).saturating_sub(origin) + 500) / 1000);
        if self.shared.phase.counts(origin, now) {
            let tally = &mut self.steps[step];
            match latency_us {
                Some(us) => {
                    tally.latencies.record_us(us);
                    tally.ok += 1;
                }
                None => tally.errors.add_status(status),
            }
        }
        if !ok {
            self.failed += 1;
        }
        self.finished += 1;
        self.in_flight -= 1;
        self.count_second(now, ok);
        if let (Some(us), Some(seconds)) = (latency_us, self.second_latencies.as_mut()) {
            if seconds.len() <= self.second {
                seconds.resize_with(self.second + 1, Latencies::new);
            }
            seconds[self.second].record_us(us);
        }
        let c = &mut self.conns[i];
        if !keep_alive || !self.shared.keepalive {
            c.sock = None;
        }
        c.free_at = if self.batched { arrived.unwrap_or(now) } else { 0 };
        let ended = c.advance(self.steps.len());
        self.next(i, now, ended);
    }

    /// The current request of user `i` failed: count it, drop the connection, go on.
    fn fail(&mut self, i: usize, kind: ErrorKind, now: u64, error: Option<&io::Error>) {
        self.count_failure(i, kind, now, error);
        self.go_on(i, now, kind == ErrorKind::Connect && self.shared.backoff);
    }

    /// `connect` failed before a packet left: no local port or file descriptor
    /// left (EADDRNOTAVAIL, EMFILE), no route, a broadcast address. Trying again
    /// at once fails the same way, and did so by recursing issue → connect →
    /// fail once per remaining request until the stack overflowed; so in every
    /// mode the user waits out a backoff on the timer heap and the event loop
    /// retries it. Each attempt still counts as one failed request.
    fn fail_at_once(&mut self, i: usize, now: u64, error: &io::Error) {
        self.count_failure(i, ErrorKind::Connect, now, Some(error));
        self.go_on(i, now, true);
    }

    /// Drops user `i`'s connection and moves it to its next request, after a backoff if asked.
    fn go_on(&mut self, i: usize, now: u64, back_off: bool) {
        let c = &mut self.conns[i];
        c.sock = None;
        if back_off {
            c.back_off(now);
        }
        let ended = c.advance(self.steps.len());
        self.next(i, now, ended);
    }

    fn retire(&mut self, i: usize) {
        let c = &mut self.conns[i];
        if c.state != State::Done {
            c.state = State::Done;
            c.sock = None;
            self.active -= 1;
        }
    }

    /// The budget is spent: users waiting for their turn will not get one.
    fn retire_waiting(&mut self) {
        for i in 0..self.conns.len() {
            if self.conns[i].state == State::Waiting {
                self.retire(i);
            }
        }
    }

    /// Sends every waiting user whose time comes before `now` plus the early window:
    /// one wake-up, one batch. Each send reads the clock again, so a request that leaves
    /// late because of the ones before it in the batch keeps its intended time as origin.
    fn fire_timers(&mut self, now: u64) {
        if self.ended(now) {
            return;
        }
        let until = now + self.early_ns;
        while let Some(&Reverse((at, i, timer))) = self.timers.peek() {
            if at > until {
                break;
            }
            self.timers.pop();
            let c = &self.conns[i];
            if c.state == State::Waiting && c.timer == timer {
                self.issue(i, sys::now_ns());
            }
        }
    }

    /// The run by duration has reached its end.
    #[inline]
    fn ended(&self, now: u64) -> bool {
        self.shared.phase.deadline().is_some_and(|d| now >= d)
    }

    /// A few times a second: time out stuck requests and publish progress.
    fn tick(&mut self, now: u64) {
        self.realtime_offset = sys::realtime_offset();
        for i in 0..self.conns.len() {
            let c = &self.conns[i];
            if c.in_flight() && now.saturating_sub(c.io_start) >= self.shared.timeout_ns {
                self.fail(i, ErrorKind::Timeout, now, None);
            }
        }
        self.fire_timers(now);
        self.publish();
        if self.shared.phase.warming() {
            self.publish_seconds(now);
        }
    }

}

/// Resets and broken pipes are the peer's doing; anything else keeps the default kind.
fn classify(e: &io::Error, default: ErrorKind) -> ErrorKind {
    match e.raw_os_error() {
        Some(libc::ECONNRESET | libc::EPIPE | libc::ECONNABORTED) => ErrorKind::Reset,
        Some(libc::ETIMEDOUT) => ErrorKind::Timeout,
        _ => default,
    }
}

#[cfg(test)]
mod tests;
