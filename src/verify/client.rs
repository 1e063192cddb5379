//! A deliberately small HTTP/1.x client over a raw `TcpStream`, so that the
//! verifier can send what a hostile or unusual client would (pipelined
//! requests, one byte at a time, broken framing) and see exactly what the
//! server answered: status, every header, the framing it chose, and whether
//! it closed the connection.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// How the response body was delimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    Length,
    Chunked,
    Close,
    /// No body by definition (HEAD, 1xx, 204, 304).
    None,
}

#[derive(Debug, Clone)]
pub struct Response {
    /// `HTTP/1.1` or `HTTP/1.0`.
    pub version: String,
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    pub framing: Framing,
    /// From the first byte sent (as recorded by the caller) to the last byte read.
    pub elapsed: Duration,
}

impl Response {
    /// The first header named `name`, compared without case.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The media type without parameters, lower-cased.
    pub fn media_type(&self) -> String {
        self.header("content-type").unwrap_or("").split(';').next().unwrap_or("").trim().to_ascii_lowercase()
    }

    /// One line for messages: `404 text/plain "not found"`.
    pub fn summary(&self) -> String {
        let mut body = self.text();
        if body.len() > 80 {
            body.truncate(body.char_indices().take_while(|(i, _)| *i < 77).last().map_or(0, |(i, c)| i + c.len_utf8()));
            body.push_str("...");
        }
        format!("{} {} {:?}", self.status, self.header("content-type").unwrap_or("(no content-type)"), body)
    }
}

/// One client connection; bytes read past a response stay buffered for the next.
pub struct Conn {
    stream: TcpStream,
    buf: Vec<u8>,
    started: Instant,
}

const READ_LIMIT: usize = 8 << 20;

impl Conn {
    pub fn connect(addr: SocketAddr, timeout: Duration) -> io::Result<Conn> {
        let stream = TcpStream::connect_timeout(&addr, Duration::from_secs(3))?;
        stream.set_read_timeout(Some(timeout))?;
        stream.set_write_timeout(Some(timeout))?;
        stream.set_nodelay(true)?;
        Ok(Conn { stream, buf: Vec::new(), started: Instant::now() })
    }

    /// A second handle on the same socket (e.g. to write from another thread).
    pub fn try_clone(&self) -> io::Result<Conn> {
        Ok(Conn { stream: self.stream.try_clone()?, buf: Vec::new(), started: self.started })
    }

    pub fn set_timeout(&self, timeout: Duration) -> io::Result<()> {
        self.stream.set_read_timeout(Some(timeout))
    }

    /// Sends bytes and restarts the clock that `Response::elapsed` measures.
    pub fn send(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.started = Instant::now();
        self.stream.write_all(bytes)
    }

    /// Sends without restarting the clock (a later part of the same request).
    pub fn send_more(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.stream.write_all(bytes)
    }

    /// Reads one final response (skipping `100 Continue` and other 1xx).
    pub fn read_response(&mut self, to_head: bool) -> io::Result<Response> {
        loop {
            let resp = self.read_any(to_head)?;
            if !(100..200).contains(&resp.status) {
                return Ok(resp);
            }
        }
    }

    /// Reads the next response, interim (1xx) ones included.
    pub fn read_any(&mut self, to_head: bool) -> io::Result<Response> {
        let head_end = self.fill_until(|b| find(b, b"\r\n\r\n").map(|i| i + 4))?;
        let head: Vec<u8> = self.buf.drain(..head_end).collect();
        let (version, status, headers) = parse_head(&head)?;
        let has = |name: &str, token: &str| {
            headers.iter().any(|(k, v)| k.eq_ignore_ascii_case(name) && v.to_ascii_lowercase().contains(token))
        };
        let length = headers.iter().find(|(k, _)| k.eq_ignore_ascii_case("content-length")).map(|(_, v)| v.trim().parse::<usize>());
        let (body, framing) = if to_head || (100..200).contains(&status) || status == 204 || status == 304 {
            (Vec::new(), Framing::None)
        } else if has("transfer-encoding", "chunked") {
            (self.read_chunked()?, Framing::Chunked)
        } else if let Some(len) = length {
            let len = len.map_err(|_| invalid("unparsable Content-Length"))?;
            let end = self.fill_until(|b| (b.len() >= len).then_some(len))?;
            (self.buf.drain(..end).collect(), Framing::Length)
        } else {
            (self.read_to_close()?, Framing::Close)
        };
        Ok(Response { version, status, headers, body, framing, elapsed: self.started.elapsed() })
    }

    /// The first line the server sends, whatever its protocol, without the
    /// line end; `None` when it closes without sending one. For the checks
    /// that judge the status line itself, which `read_response` refuses
    /// unless it is HTTP/1.x.
    pub fn read_first_line(&mut self) -> io::Result<Option<String>> {
        match self.fill_until(|b| find(b, b"\r\n")) {
            Ok(end) => Ok(Some(String::from_utf8_lossy(&self.buf[..end]).into_owned())),
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof && self.buf.is_empty() => Ok(None),
            Err(e) if e.kind() == io::ErrorKind::ConnectionReset && self.buf.is_empty() => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// True when the server has closed the connection (EOF or reset) within `wait`.
    pub fn closed_within(&mut self, wait: Duration) -> bool {
        if !self.buf.is_empty() {
            return false;
        }
        let _ = self.stream.set_read_timeout(Some(wait));
        let mut byte = [0u8; 1];
        match self.stream.read(&mut byte) {
            Ok(0) => true,
            Ok(_) => false,
            Err(e) => !matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut),
        }
    }

    fn read_chunked(&mut self) -> io::Result<Vec<u8>> {
        let mut body = Vec::new();
        loop {
            let line_end = self.fill_until(|b| find(b, b"\r\n").map(|i| i + 2))?;
            let line: Vec<u8> = self.buf.drain(..line_end).collect();
            let size_text = String::from_utf8_lossy(&line[..line.len() - 2]);
            let size_text = size_text.split(';').next().unwrap_or("").trim().to_string();
            let size = usize::from_str_radix(&size_text, 16).map_err(|_| invalid("bad chunk size in response"))?;
            if size == 0 {
                // Trailers, if any, end with an empty line.
                let end = self.fill_until(|b| if b.starts_with(b"\r\n") { Some(2) } else { find(b, b"\r\n\r\n").map(|i| i + 4) })?;
                self.buf.drain(..end);
                return Ok(body);
            }
            let end = self.fill_until(|b| (b.len() >= size + 2).then_some(size + 2))?;
            body.extend_from_slice(&self.buf[..size]);
            self.buf.drain(..end);
        }
    }

    fn read_to_close(&mut self) -> io::Result<Vec<u8>> {
        let mut chunk = [0u8; 16384];
        loop {
            match self.stream.read(&mut chunk) {
                Ok(0) => return Ok(std::mem::take(&mut self.buf)),
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == io::ErrorKind::ConnectionReset => return Ok(std::mem::take(&mut self.buf)),
                Err(e) => return Err(e),
            }
            if self.buf.len() > READ_LIMIT {
                return Err(invalid("response larger than 8 MiB"));
            }
        }
    }

    /// Reads until `done` finds a boundary in the buffer; returns it.
    fn fill_until(&mut self, done: impl Fn(&[u8]) -> Option<usize>) -> io::Result<usize> {
        let mut chunk = [0u8; 16384];
        loop {
            if let Some(end) = done(&self.buf) {
                return Ok(end);
            }
            let n = self.stream.read(&mut chunk)?;
            if n == 0 {
                return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the server closed the connection mid-response"));
            }
            self.buf.extend_from_slice(&chunk[..n]);
            if self.buf.len() > READ_LIMIT {
                return Err(invalid("response larger than 8 MiB"));
            }
        }
    }
}

type Head = (String, u16, Vec<(String, String)>);

fn parse_head(head: &[u8]) -> io::Result<Head> {
    let text = std::str::from_utf8(head).map_err(|_| invalid("response head is not UTF-8"))?;
    let mut lines = text.split("\r\n");
    let status_line = lines.next().unwrap_or("");
    let mut parts = status_line.splitn(3, ' ');
    let version = parts.next().unwrap_or("").to_string();
    let status = parts.next().and_then(|s| s.parse::<u16>().ok());
    let (true, Some(status)) = (version.starts_with("HTTP/1."), status) else {
        return Err(invalid(&format!("bad status line {status_line:?}")));
    };
    let headers = lines
        .filter(|l| !l.is_empty())
        .map(|l| {
            let (k, v) = l.split_once(':').ok_or_else(|| invalid(&format!("bad header line {l:?}")))?;
            Ok((k.trim().to_string(), v.trim().to_string()))
        })
        .collect::<io::Result<_>>()?;
    Ok((version, status, headers))
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn invalid(msg: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg.to_string())
}

/// An HTTP/1.1 request with `Host` and, when there is a body, `Content-Length`.
pub fn request(method: &str, target: &str, extra_headers: &[(&str, &str)], body: &[u8]) -> Vec<u8> {
    let mut out = format!("{method} {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    for (k, v) in extra_headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    if !body.is_empty() || method == "POST" {
        out.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    out.push_str("\r\n");
    let mut bytes = out.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    /// Serves `reply` bytes once to the first connection, then closes.
    fn canned(reply: &'static [u8]) -> SocketAddr {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        std::thread::spawn(move || {
            let (mut s, _) = l.accept().unwrap();
            let mut buf = [0u8; 1024];
            let _ = s.read(&mut buf);
            s.write_all(reply).unwrap();
        });
        addr
    }

    #[test]
    fn reads_chunked_then_pipelined_length_response() {
        let addr = canned(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nHello\r\n3;x=y\r\n, W\r\n0\r\n\r\nHTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\nno");
        let mut c = Conn::connect(addr, Duration::from_secs(2)).unwrap();
        c.send(b"GET / HTTP/1.1\r\n\r\n").unwrap();
        let a = c.read_response(false).unwrap();
        assert_eq!((a.status, a.text().as_str(), a.framing), (200, "Hello, W", Framing::Chunked));
        let b = c.read_response(false).unwrap();
        assert_eq!((b.status, b.text().as_str(), b.framing), (404, "no", Framing::Length));
        assert!(c.closed_within(Duration::from_secs(1)));
    }

    #[test]
    fn skips_interim_responses_and_reads_close_delimited_bodies() {
        let addr = canned(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil close");
        let mut c = Conn::connect(addr, Duration::from_secs(2)).unwrap();
        c.send(b"GET / HTTP/1.0\r\n\r\n").unwrap();
        let r = c.read_response(false).unwrap();
        assert_eq!((r.version.as_str(), r.status, r.framing), ("HTTP/1.0", 200, Framing::Close));
        assert_eq!(r.text(), "until close");
        assert_eq!(r.media_type(), "text/plain");
    }

    #[test]
    fn reads_a_status_line_in_any_version_and_none_on_close() {
        let addr = canned(b"HTTP/9.9 200 OK\r\nContent-Length: 0\r\n\r\n");
        let mut c = Conn::connect(addr, Duration::from_secs(2)).unwrap();
        c.send(b"GET / HTTP/9.9\r\n\r\n").unwrap();
        assert_eq!(c.read_first_line().unwrap().as_deref(), Some("HTTP/9.9 200 OK"));
        let addr = canned(b"");
        let mut c = Conn::connect(addr, Duration::from_secs(2)).unwrap();
        c.send(b"GET / HTTP/9.9\r\n\r\n").unwrap();
        assert_eq!(c.read_first_line().unwrap(), None);
    }

    #[test]
    fn a_garbled_status_line_is_an_error() {
        let addr = canned(b"SPDY/3 200 OK\r\n\r\n");
        let mut c = Conn::connect(addr, Duration::from_secs(2)).unwrap();
        c.send(b"GET / HTTP/1.1\r\n\r\n").unwrap();
        assert_eq!(c.read_response(false).unwrap_err().kind(), io::ErrorKind::InvalidData);
    }
}
