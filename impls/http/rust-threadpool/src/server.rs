//! The book's `main` loop: accept a connection, hand it to the pool. Grown
//! with a listen backlog of 4096 (socket2; std asks for 128) and a graceful
//! stop: a [`Stopper`] sets a flag and wakes the blocking `accept` with a
//! connection of its own, the loop ends, and dropping the pool lets the
//! workers finish what they hold, for up to [`SHUTDOWN_GRACE`].

use crate::app::App;
use crate::config::Config;
use crate::http::serve_connection;
use crate::pool::ThreadPool;
use socket2::{Domain, Protocol, SockAddr, Socket, Type};
use std::io;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::thread;
use std::time::Duration;

/// SPEC §1: at least 4096 (the kernel caps it at `net.core.somaxconn`).
pub const LISTEN_BACKLOG: i32 = 4096;
/// How long a stopping server waits for requests in flight.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(1);
/// A pool thread idle this long ends (Java's cached thread pool's 60 s): the
/// pool grown for a burst of long polls gives its threads back.
pub const THREAD_KEEP_ALIVE: Duration = Duration::from_secs(60);

pub struct Server {
    listener: TcpListener,
    threads: usize,
    shared: Arc<Shared>,
}

/// What every pool thread shares.
struct Shared {
    app: App,
    stopping: AtomicBool,
}

/// Stops a running [`Server`] from another thread (the signal handler's).
#[derive(Clone)]
pub struct Stopper {
    addr: SocketAddr,
    shared: Arc<Shared>,
}

impl Server {
    /// Listens on 127.0.0.1:`config.port` (0 picks a free port).
    pub fn bind(config: &Config) -> io::Result<Server> {
        let listener = listen(SocketAddr::from(([127, 0, 0, 1], config.port)))?;
        let shared = Arc::new(Shared { app: App::new(config), stopping: AtomicBool::new(false) });
        Ok(Server { listener, threads: config.threads, shared })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.listener.local_addr().expect("a bound listener has an address")
    }

    pub fn stopper(&self) -> Stopper {
        Stopper { addr: self.local_addr(), shared: Arc::clone(&self.shared) }
    }

    /// Serves until stopped: each connection runs on a pool thread (a new
    /// one when none is idle), which it keeps until the connection ends.
    pub fn run(self) {
        let pool = ThreadPool::new(self.threads, THREAD_KEEP_ALIVE);
        for stream in self.listener.incoming() {
            if self.shared.stopping.load(Ordering::SeqCst) {
                break;
            }
            match stream {
                Ok(stream) => {
                    let shared = Arc::clone(&self.shared);
                    pool.execute(move || serve_connection(stream, |request, body| shared.app.handle(request, body), &shared.stopping));
                }
                // Out of file descriptors, say: wait a little rather than spin.
                Err(e) => {
                    eprintln!("accept failed: {e}");
                    thread::sleep(Duration::from_millis(10));
                }
            }
        }
        drop(self.listener);
        shut_down(pool);
    }
}

impl Stopper {
    pub fn stop(&self) {
        self.shared.stopping.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
    }
}

/// The book's `TcpListener::bind`, with the backlog set: std always asks for 128.
fn listen(addr: SocketAddr) -> io::Result<TcpListener> {
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, Some(Protocol::TCP))?;
    socket.set_reuse_address(true)?;
    socket.bind(&SockAddr::from(addr))?;
    socket.listen(LISTEN_BACKLOG)?;
    Ok(socket.into())
}

/// Drops the pool (the book's graceful shutdown: workers finish their
/// connection, then see the closed channel) but waits at most [`SHUTDOWN_GRACE`].
fn shut_down(pool: ThreadPool) {
    let (done, finished) = mpsc::channel();
    thread::spawn(move || {
        drop(pool);
        let _ = done.send(());
    });
    if finished.recv_timeout(SHUTDOWN_GRACE).is_err() {
        eprintln!("stopping with connections still open after {SHUTDOWN_GRACE:?}");
    }
}
