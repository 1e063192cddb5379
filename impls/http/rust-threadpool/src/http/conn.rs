//! One connection, served by one pool thread from accept to close: read a
//! head, let the handler answer (it reads the body if it wants it), write the
//! answer, and go on while keep-alive allows. Pipelined requests are simply
//! the bytes left in the buffer after the previous request, so they are
//! answered in order, each after the one before it took effect.

use super::body::Body;
use super::request::Request;
use super::response::{Persistence, Response};
use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// An idle keep-alive connection (or a client that stops sending mid-request)
/// gives its thread back after this long.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(5);
/// A client that stops reading its answer gives its thread back after this long.
const WRITE_TIMEOUT: Duration = Duration::from_secs(30);
/// A request head larger than this is refused (431).
const MAX_HEAD: usize = 64 * 1024;
/// How long a closing connection reads and drops what the client still sends
/// (the rest of a refused upload, say), so that the kernel does not answer
/// that data with a reset, which can destroy the response before the client
/// read it.
const LINGER: Duration = Duration::from_secs(2);
const READ_CHUNK: usize = 16 * 1024;

/// Serves `stream` until the client closes, keep-alive ends, the connection
/// idles for [`IDLE_TIMEOUT`], or `stopping` is set.
pub fn serve_connection(stream: TcpStream, handle: impl Fn(&Request, &mut Body) -> Response, stopping: &AtomicBool) {
    // Pipelined answers are separate writes; Nagle would hold each one back
    // until the client's delayed ACK of the one before.
    let _ = stream.set_nodelay(true);
    let _ = stream.set_read_timeout(Some(IDLE_TIMEOUT));
    let _ = stream.set_write_timeout(Some(WRITE_TIMEOUT));
    let mut conn = Conn::new(stream);
    loop {
        let request = match conn.read_request() {
            Ok(Some(request)) => request,
            Ok(None) => return,
            Err(refusal) => {
                let _ = conn.send(&refusal.encode(false, Persistence::Close));
                return conn.close();
            }
        };
        let mut body = Body::new(&mut conn, &request);
        let response = handle(&request, &mut body);
        let reusable = body.finish();
        let keep_alive = request.keep_alive && reusable && !stopping.load(Ordering::Relaxed);
        let persistence = match (keep_alive, request.minor_version) {
            (false, _) => Persistence::Close,
            (true, 0) => Persistence::KeepAlive10,
            (true, _) => Persistence::KeepAlive,
        };
        if conn.send(&response.encode(request.is_head(), persistence)).is_err() {
            return;
        }
        if !keep_alive {
            return conn.close();
        }
    }
}

/// The stream and the bytes read from it but not yet used.
pub struct Conn {
    stream: TcpStream,
    buf: Vec<u8>,
    /// `buf[pos..]` is unread.
    pos: usize,
}

impl Conn {
    fn new(stream: TcpStream) -> Conn {
        Conn { stream, buf: Vec::with_capacity(READ_CHUNK), pos: 0 }
    }

    /// The next request's head; `None` when the client closed or went quiet
    /// (a head cut short gets no answer either: there is no one to read it).
    fn read_request(&mut self) -> Result<Option<Request>, Response> {
        loop {
            if !self.unread().is_empty() {
                match Request::parse(self.unread()) {
                    Ok(Some((request, len))) => {
                        self.consume(len);
                        return Ok(Some(request));
                    }
                    Ok(None) if self.unread().len() > MAX_HEAD => {
                        return Err(Response::error(431, "request head over 64 KiB"));
                    }
                    Ok(None) => {}
                    Err(reason) => return Err(Response::error(400, reason)),
                }
            }
            match self.fill() {
                Ok(0) | Err(_) => return Ok(None),
                Ok(_) => {}
            }
        }
    }

    pub(super) fn unread(&self) -> &[u8] {
        &self.buf[self.pos..]
    }

    pub(super) fn consume(&mut self, n: usize) {
        self.pos += n;
        debug_assert!(self.pos <= self.buf.len());
    }

    /// Reads more from the client after what is unread; `Ok(0)` at end of stream.
    pub(super) fn fill(&mut self) -> io::Result<usize> {
        if self.pos == self.buf.len() {
            self.buf.clear();
            self.pos = 0;
        } else if self.pos >= READ_CHUNK {
            self.buf.drain(..self.pos);
            self.pos = 0;
        }
        let start = self.buf.len();
        self.buf.resize(start + READ_CHUNK, 0);
        let read = self.stream.read(&mut self.buf[start..]);
        self.buf.truncate(start + *read.as_ref().unwrap_or(&0));
        read
    }

    pub(super) fn send(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.stream.write_all(bytes)
    }

    /// Ends the connection after a response: no more writes, then what the
    /// client still sends is read and dropped for up to [`LINGER`].
    fn close(mut self) {
        if self.stream.shutdown(Shutdown::Write).is_err() {
            return;
        }
        let deadline = Instant::now() + LINGER;
        let mut sink = [0u8; READ_CHUNK];
        while let Some(left) = deadline.checked_duration_since(Instant::now()).filter(|d| !d.is_zero()) {
            let _ = self.stream.set_read_timeout(Some(left));
            if !matches!(self.stream.read(&mut sink), Ok(n) if n > 0) {
                return;
            }
        }
    }
}
