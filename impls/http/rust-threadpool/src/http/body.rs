//! The request body, read only when the handler asks for it: that is when a
//! `100 Continue` goes out, and a Content-Length over the limit is refused
//! before a byte of the body is read. A chunked body is counted as it
//! arrives, so at most one read buffer past the limit is ever held.

use super::conn::Conn;
use super::request::{Framing, Request};
use std::io;

/// Bodies up to this size are read and dropped when a handler answered
/// without reading them, so the connection can serve the next request.
const DRAIN_LIMIT: usize = 1 << 20;
/// A chunk-size or trailer line longer than this is malformed.
const MAX_LINE: usize = 4096;

#[derive(Debug)]
pub enum BodyError {
    /// Over the limit the handler gave; nothing past it was buffered.
    TooLarge,
    /// Bad chunk framing.
    Malformed(&'static str),
    /// The client went away or stalled.
    Io(io::Error),
}

impl From<io::Error> for BodyError {
    fn from(e: io::Error) -> BodyError {
        BodyError::Io(e)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Unread,
    Read,
    /// A read failed part-way: the next request's start is unknown.
    Broken,
}

pub struct Body<'a> {
    conn: &'a mut Conn,
    framing: Framing,
    expect_continue: bool,
    state: State,
}

impl<'a> Body<'a> {
    pub(super) fn new(conn: &'a mut Conn, request: &Request) -> Body<'a> {
        let state = if request.framing == Framing::None { State::Read } else { State::Unread };
        Body { conn, framing: request.framing, expect_continue: request.expect_continue, state }
    }

    /// The whole body, refused with [`BodyError::TooLarge`] past `limit` bytes.
    /// Reads it once; later calls return an empty body.
    pub fn read(&mut self, limit: usize) -> Result<Vec<u8>, BodyError> {
        if self.state != State::Unread {
            return Ok(Vec::new());
        }
        self.state = State::Broken;
        if let Framing::Length(n) = self.framing
            && n > limit as u64
        {
            return Err(BodyError::TooLarge);
        }
        if self.expect_continue {
            self.conn.send(b"HTTP/1.1 100 Continue\r\n\r\n")?;
        }
        let body = match self.framing {
            Framing::None => Vec::new(),
            Framing::Length(n) => self.read_exact(n as usize)?,
            Framing::Chunked => self.read_chunked(limit)?,
        };
        self.state = State::Read;
        Ok(body)
    }

    /// Called after the handler answered: reads and drops a body it left
    /// unread. Whether the connection can serve another request.
    pub(super) fn finish(&mut self) -> bool {
        match self.state {
            State::Read => true,
            State::Broken => false,
            // The client waits for a 100 Continue it will not get, or sends
            // the body anyway: only closing the connection is sure to be right.
            State::Unread if self.expect_continue => false,
            State::Unread => self.read(DRAIN_LIMIT).is_ok(),
        }
    }

    fn read_exact(&mut self, n: usize) -> Result<Vec<u8>, BodyError> {
        let mut body = Vec::with_capacity(n);
        while body.len() < n {
            if self.conn.unread().is_empty() && self.conn.fill()? == 0 {
                return Err(io::Error::from(io::ErrorKind::UnexpectedEof).into());
            }
            let take = self.conn.unread().len().min(n - body.len());
            body.extend_from_slice(&self.conn.unread()[..take]);
            self.conn.consume(take);
        }
        Ok(body)
    }

    /// RFC 9112 §7.1: `size[;ext] CRLF data CRLF` ... `0 CRLF trailers CRLF`.
    fn read_chunked(&mut self, limit: usize) -> Result<Vec<u8>, BodyError> {
        let mut body = Vec::new();
        loop {
            let line = self.read_line()?;
            let size = line.split(|&b| b == b';').next().unwrap_or_default().trim_ascii();
            let size = std::str::from_utf8(size)
                .ok()
                .filter(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_hexdigit()))
                .and_then(|s| usize::from_str_radix(s, 16).ok())
                .ok_or(BodyError::Malformed("bad chunk framing: invalid chunk size"))?;
            if size == 0 {
                break;
            }
            if size > limit - body.len() {
                return Err(BodyError::TooLarge);
            }
            body.extend_from_slice(&self.read_exact(size)?);
            if !self.read_line()?.is_empty() {
                return Err(BodyError::Malformed("bad chunk framing: chunk data longer than its size"));
            }
        }
        while !self.read_line()?.is_empty() {} // trailer fields are ignored
        Ok(body)
    }

    /// One line without its CRLF (a bare LF is accepted, RFC 9112 §2.2).
    fn read_line(&mut self) -> Result<Vec<u8>, BodyError> {
        loop {
            if let Some(end) = self.conn.unread().iter().position(|&b| b == b'\n') {
                let line = self.conn.unread()[..end].strip_suffix(b"\r").unwrap_or(&self.conn.unread()[..end]).to_vec();
                self.conn.consume(end + 1);
                return Ok(line);
            }
            if self.conn.unread().len() > MAX_LINE {
                return Err(BodyError::Malformed("bad chunk framing: line too long"));
            }
            if self.conn.fill()? == 0 {
                return Err(io::Error::from(io::ErrorKind::UnexpectedEof).into());
            }
        }
    }
}
