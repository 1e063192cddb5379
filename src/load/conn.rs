//! One virtual user: its socket, where it is in the scenario, and the
//! timestamps its latency and timeout are measured from. Plain data; the
//! worker drives it.

use super::http::Parser;
use mio::net::TcpStream;

const FIRST_BACKOFF_NS: u64 = 10_000_000;
const MAX_BACKOFF_NS: u64 = 1_000_000_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Not yet scheduled.
    Idle,
    /// Waiting for its timer: think time, the open-loop schedule, or a reconnect backoff.
    Waiting,
    Connecting,
    Writing,
    Reading,
    /// Sends nothing more (budget spent or the run is ending).
    Done,
}

#[derive(Debug)]
pub struct Conn {
    pub sock: Option<TcpStream>,
    pub state: State,
    /// Index of the virtual user over all workers.
    pub user: u64,
    pub step: usize,
    pub iteration: u64,
    /// Intended send time of the current request.
    pub intended: u64,
    /// Open loop: intended time of the request after the current one.
    pub schedule: u64,
    /// Where the current request's latency starts.
    pub origin: u64,
    /// Open loop: when the response before the next request arrived (the kernel's stamp),
    /// so that a send held back by reading it late is not counted against the server; 0 when none.
    pub free_at: u64,
    /// When the current connect or write began; the timeout runs from here.
    pub io_start: u64,
    pub written: usize,
    /// A readable event came while the request was still being written.
    pub read_pending: bool,
    pub parser: Parser,
    /// Consecutive failed connects, for the reconnect backoff.
    pub failures: u32,
    pub retry_at: u64,
    /// Invalidates timers set before the last change of state.
    pub timer: u32,
}

impl Conn {
    pub fn new(user: u64) -> Conn {
        Conn {
            sock: None,
            state: State::Idle,
            user,
            step: 0,
            iteration: 0,
            intended: 0,
            schedule: 0,
            free_at: 0,
            origin: 0,
            io_start: 0,
            written: 0,
            read_pending: false,
            parser: Parser::default(),
            failures: 0,
            retry_at: 0,
            timer: 0,
        }
    }

    /// Moves to the next step; true when that ended an iteration of the scenario.
    #[inline]
    pub fn advance(&mut self, steps: usize) -> bool {
        self.step += 1;
        if self.step == steps {
            self.step = 0;
            self.iteration += 1;
            return true;
        }
        false
    }

    /// Holds the next connect back, twice as long after each consecutive failure
    /// (10 ms, 20 ms, ... up to 1 s), so that a failing connect is retried from
    /// the timer heap rather than at once.
    pub fn back_off(&mut self, now: u64) {
        self.retry_at = now + (FIRST_BACKOFF_NS << self.failures.min(7)).min(MAX_BACKOFF_NS);
        self.failures += 1;
    }

    #[inline]
    pub fn in_flight(&self) -> bool {
        matches!(self.state, State::Connecting | State::Writing | State::Reading)
    }
}
